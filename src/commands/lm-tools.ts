/**
 * Fathom's agent tools in the editor: the `languageModelTools` of package.json (`fathom_search`,
 * `fathom_similar`, `fathom_context`, `fathom_i18n`, `fathom_read`, `fathom_definitions`,
 * `fathom_references`, `fathom_files`, `fathom_status`; written from src/agent/tools.ts by
 * scripts/lm-tools.ts) registered with
 * `vscode.lm.registerTool` and answered by the worker (`tool` request → src/agent/tools.ts, the
 * same answers as `fathom mcp`), the budget taken from the invocation's `tokenizationOptions`.
 *
 * Where the editor offers it (VS Code 1.101+: `lm.registerMcpServerDefinitionProvider`), an
 * MCP server definition too, so MCP clients inside the editor find `fathom mcp` on the open
 * folders. Feature-detected: on older editors (code-server 1.100 here) it is skipped and logged.
 */
import * as vscode from 'vscode';
import { mcpDefinitionSupported, mcpServerLaunch } from '../mcp/launch';
import type { IndexClient } from '../service/client';
import { errText } from '../util/errors';

export interface LmToolsDeps {
  client: IndexClient;
  roots: () => string[];
  log: vscode.LogOutputChannel;
  extension: vscode.ExtensionContext;
  /** Fires when the folders change (the MCP definition follows). */
  onFoldersChanged: vscode.Event<unknown>;
  /** Where the extension keeps its indexes (the MCP server's index of one folder goes there too). */
  storeRoot?: string;
  /** The model folder bundled with the extension, if any; and the editor's model cache. */
  modelPath?: string;
  modelCache?: string;
}

interface ToolContribution {
  name: string;
}

/** Largest budget passed on (the tools' schema maximum) and the smallest useful one. */
const MAX_BUDGET = 100_000;
const MIN_BUDGET = 100;

function invocationMessage(tool: string, input: Record<string, unknown>): string {
  if (typeof input.query === 'string') return `Fathom: searching "${input.query.slice(0, 80)}"`;
  if (typeof input.path === 'string') return `Fathom: ${tool} ${input.path}${typeof input.line === 'number' ? `:${input.line}` : ''}`;
  if (typeof input.text === 'string') return `Fathom: where is "${input.text.slice(0, 80)}" defined?`;
  if (typeof input.key === 'string') return `Fathom: i18n key ${input.key}`;
  if (typeof input.symbol === 'string') return `Fathom: ${tool} of ${input.symbol.slice(0, 80)}`;
  if (tool === 'files') return `Fathom: files${typeof input.glob === 'string' ? ` ${input.glob.slice(0, 80)}` : ''}`;
  return `Fathom: ${tool}`;
}

export function registerLanguageModelTools(deps: LmToolsDeps): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  const lm = vscode.lm as typeof vscode.lm | undefined;
  const contributed = ((deps.extension.extension.packageJSON as { contributes?: { languageModelTools?: ToolContribution[] } }).contributes?.languageModelTools ?? []).map((t) => t.name);
  if (!lm?.registerTool) {
    deps.log.info('language-model tools: this editor has no vscode.lm.registerTool, not registered');
  } else {
    for (const name of contributed) {
      const tool = name.replace(/^fathom_/, '');
      disposables.push(
        lm.registerTool<Record<string, unknown>>(name, {
          prepareInvocation: (options) => ({ invocationMessage: invocationMessage(tool, options.input ?? {}) }),
          invoke: async (options, token) => {
            const input = { ...(options.input ?? {}) };
            const budget = options.tokenizationOptions?.tokenBudget;
            if (input.maxTokens === undefined && typeof budget === 'number' && Number.isFinite(budget) && 'maxTokens' in (toolSchemaProps(deps, name) ?? {})) {
              input.maxTokens = Math.max(MIN_BUDGET, Math.min(MAX_BUDGET, Math.floor(budget)));
            }
            const ac = new AbortController();
            const sub = token.onCancellationRequested(() => ac.abort());
            try {
              const t0 = Date.now();
              const r = await deps.client.tool(tool, input, { roots: deps.roots(), signal: ac.signal });
              deps.log.info(`language-model tool ${name}: ${r.isError ? `refused: ${r.text}` : `answered in ${Date.now() - t0} ms`}`);
              // an error thrown from invoke is what the model is shown as the tool's failure
              if (r.isError) throw new Error(r.text);
              return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.text)]);
            } finally {
              sub.dispose();
            }
          },
        }),
      );
    }
    deps.log.info(`language-model tools: registered ${contributed.join(', ')}`);
  }
  disposables.push(registerMcpDefinition(deps));
  return vscode.Disposable.from(...disposables);
}

function toolSchemaProps(deps: LmToolsDeps, name: string): Record<string, unknown> | undefined {
  const tools = (deps.extension.extension.packageJSON as { contributes?: { languageModelTools?: Array<{ name: string; inputSchema?: { properties?: Record<string, unknown> } }> } }).contributes?.languageModelTools;
  return tools?.find((t) => t.name === name)?.inputSchema?.properties;
}

/** The MCP server definition provider of VS Code 1.101+, feature-detected (not in this editor's typings). */
interface McpApi {
  registerMcpServerDefinitionProvider?: (id: string, provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions: () => unknown[] }) => vscode.Disposable;
}
type McpStdioCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => unknown;

function registerMcpDefinition(deps: LmToolsDeps): vscode.Disposable {
  const api = vscode.lm as unknown as McpApi;
  const Stdio = (vscode as unknown as { McpStdioServerDefinition?: McpStdioCtor }).McpStdioServerDefinition;
  if (!mcpDefinitionSupported(vscode.version, api.registerMcpServerDefinitionProvider, Stdio) || !api.registerMcpServerDefinitionProvider || !Stdio) {
    deps.log.info(`MCP server definition: needs VS Code 1.101 or later (this is ${vscode.version}), not offered`);
    return new vscode.Disposable(() => undefined);
  }
  const changed = new vscode.EventEmitter<void>();
  const sub = deps.onFoldersChanged(() => changed.fire());
  const version = String((deps.extension.extension.packageJSON as { version?: string }).version ?? '');
  let reg: vscode.Disposable;
  try {
    reg = api.registerMcpServerDefinitionProvider('fathom.mcp', {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const launch = mcpServerLaunch({ extensionPath: deps.extension.extensionPath, roots: deps.roots(), execPath: process.execPath, storeRoot: deps.storeRoot, modelPath: deps.modelPath, modelCache: deps.modelCache });
        return launch ? [new Stdio('Fathom', launch.command, launch.args, launch.env, version)] : [];
      },
    });
  } catch (err) {
    // never let an editor's API change break activation
    deps.log.warn(`MCP server definition: not offered: ${errText(err)}`);
    sub.dispose();
    changed.dispose();
    return new vscode.Disposable(() => undefined);
  }
  deps.log.info('MCP server definition: offered (fathom.mcp)');
  return vscode.Disposable.from(reg, sub, changed);
}
