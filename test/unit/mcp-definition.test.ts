/**
 * The MCP server definition the extension offers VS Code 1.101+ (src/commands/lm-tools.ts with
 * src/mcp/launch.ts). The e2e's code-server is VS Code 1.100, which has no stable form of this
 * API (its e2e checks that the provider is skipped and the tools still register); here the
 * registration runs against a stand-in `vscode` module with the 1.101 API, and the definition
 * it provides is launched exactly as the editor would launch it: the SDK's client over stdio
 * lists the tools and gets an answer.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpDefinitionSupported, mcpServerLaunch } from '../../src/mcp/launch';

const ROOT = path.join(__dirname, '..', '..');

class StdioDef {
  constructor(
    readonly label: string,
    readonly command: string,
    readonly args: string[],
    readonly env: Record<string, string>,
    readonly version: string,
  ) {}
}

interface Provider {
  onDidChangeMcpServerDefinitions?: (listener: () => void) => { dispose(): void };
  provideMcpServerDefinitions: () => StdioDef[];
}

/** A stand-in for the parts of `vscode` that lm-tools.ts touches, at `version`. */
function fakeVscode(version: string, register?: (id: string, p: Provider) => unknown) {
  class Disposable {
    constructor(private readonly fn: () => void) {}
    static from(...ds: Array<{ dispose(): void }>) {
      return new Disposable(() => ds.forEach((d) => d.dispose()));
    }
    dispose() {
      this.fn();
    }
  }
  class EventEmitter {
    private listeners: Array<() => void> = [];
    event = (l: () => void) => {
      this.listeners.push(l);
      return new Disposable(() => (this.listeners = this.listeners.filter((x) => x !== l)));
    };
    fire() {
      this.listeners.forEach((l) => l());
    }
    dispose() {
      this.listeners = [];
    }
  }
  return { version, Disposable, EventEmitter, McpStdioServerDefinition: StdioDef, lm: { registerMcpServerDefinitionProvider: register } };
}

type Register = (deps: Record<string, unknown>) => { dispose(): void };

/** lm-tools.ts loaded against `fake` (a fresh copy each time). */
function loadLmTools(fake: unknown): Register {
  const mod = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
  const orig = mod._load;
  mod._load = function (req: string, ...rest: unknown[]) {
    return req === 'vscode' ? fake : orig.call(this, req, ...rest);
  };
  try {
    const file = require.resolve('../../src/commands/lm-tools');
    delete require.cache[file];
    // a fresh copy bound to the stand-in: an import would be hoisted and cached
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require(file) as { registerLanguageModelTools: Register }).registerLanguageModelTools;
  } finally {
    mod._load = orig;
  }
}

function deps(roots: string[], logs: string[], extra: Record<string, unknown> = {}) {
  let onFolders: (() => void) | undefined;
  return {
    fire: () => onFolders?.(),
    deps: {
      client: {},
      roots: () => roots,
      log: { info: (m: string) => logs.push(`info ${m}`), warn: (m: string) => logs.push(`warn ${m}`) },
      extension: { extensionPath: ROOT, extension: { packageJSON: { version: '9.9.9', contributes: { languageModelTools: [] } } } },
      onFoldersChanged: (l: () => void) => {
        onFolders = l;
        return { dispose: () => (onFolders = undefined) };
      },
      ...extra,
    },
  };
}

describe('MCP server definition (VS Code 1.101+)', function () {
  this.timeout(60_000);
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcpdef-'));
    fs.cpSync(path.join(ROOT, 'sample-workspace'), path.join(tmp, 'ws'), { recursive: true, filter: (s) => path.basename(s) !== '.fathom' });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('the version decides with the API: 1.100 has an early form that is not used', () => {
    const f = () => undefined;
    assert.equal(mcpDefinitionSupported('1.101.0', f, class {}), true);
    assert.equal(mcpDefinitionSupported('1.110.2-insider', f, class {}), true);
    assert.equal(mcpDefinitionSupported('2.0.0', f, class {}), true);
    assert.equal(mcpDefinitionSupported('1.100.3', f, class {}), false);
    assert.equal(mcpDefinitionSupported('1.101.0', undefined, class {}), false);
    assert.equal(mcpDefinitionSupported('1.101.0', f, undefined), false);
    assert.equal(mcpDefinitionSupported('garbage', f, class {}), false);
  });

  it('the launch: one folder keeps its index under the extension storage; several use their own', () => {
    assert.equal(mcpServerLaunch({ extensionPath: '/ext', roots: [], execPath: '/node' }), undefined);
    const one = mcpServerLaunch({ extensionPath: '/ext', roots: ['/w/app'], execPath: '/node', storeRoot: '/s', modelPath: '/ext/models/m', modelCache: '/c' })!;
    assert.equal(one.command, '/node');
    assert.deepEqual(one.args.slice(0, 4), [path.join('/ext', 'dist', 'cli.js'), 'mcp', '--dir', '/w/app']);
    const store = one.args[one.args.indexOf('--store') + 1];
    assert.match(store, /^\/s\/mcp-app-[0-9a-f]{10}$/);
    assert.deepEqual(one.args.slice(-2), ['--model-path', '/ext/models/m']);
    assert.deepEqual(one.env, { ELECTRON_RUN_AS_NODE: '1', FATHOM_MODEL_CACHE: '/c' });
    // another folder of the same name: another store
    const other = mcpServerLaunch({ extensionPath: '/ext', roots: ['/x/app'], execPath: '/node', storeRoot: '/s' })!;
    assert.notEqual(other.args[other.args.indexOf('--store') + 1], store);
    const two = mcpServerLaunch({ extensionPath: '/ext', roots: ['/a', '/b'], execPath: '/node', storeRoot: '/s' })!;
    assert.deepEqual(two.args.slice(1), ['mcp', '--dir', '/a', '--dir', '/b']);
  });

  it('on 1.100 the provider is not registered (even where the early API exists) and the log says why', () => {
    const logs: string[] = [];
    let called = false;
    const register = loadLmTools(fakeVscode('1.100.3', () => (called = true)));
    register(deps([path.join(tmp, 'ws')], logs).deps).dispose();
    assert.equal(called, false);
    assert.ok(logs.some((l) => /MCP server definition: needs VS Code 1\.101 or later \(this is 1\.100\.3\), not offered/.test(l)), logs.join('\n'));
  });

  it('a provider that throws on registration is logged, not an activation failure', () => {
    const logs: string[] = [];
    const register = loadLmTools(
      fakeVscode('1.101.0', () => {
        throw new Error('contribution missing');
      }),
    );
    register(deps([path.join(tmp, 'ws')], logs).deps).dispose();
    assert.ok(logs.some((l) => /^warn MCP server definition: not offered: contribution missing/.test(l)), logs.join('\n'));
  });

  it('on 1.101 the provided definition launches fathom mcp: the SDK client lists the tools and searches', async () => {
    const cli = path.join(ROOT, 'dist', 'cli.js');
    if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build it first (npm test does)`);
    const logs: string[] = [];
    const ws = path.join(tmp, 'ws');
    const storeRoot = path.join(tmp, 'storage');
    let id = '';
    let provider: Provider | undefined;
    const register = loadLmTools(
      fakeVscode('1.101.0', (i, p) => {
        id = i;
        provider = p;
        return { dispose: () => undefined };
      }),
    );
    const roots = [ws];
    const d = deps(roots, logs, { storeRoot });
    const reg = register(d.deps);
    assert.equal(id, 'fathom.mcp');
    assert.ok(logs.includes('info MCP server definition: offered (fathom.mcp)'), logs.join('\n'));
    let changes = 0;
    provider!.onDidChangeMcpServerDefinitions?.(() => changes++);
    d.fire();
    assert.equal(changes, 1, 'a change of folders tells the editor');
    const defs = provider!.provideMcpServerDefinitions();
    assert.equal(defs.length, 1);
    const def = defs[0];
    assert.ok(def instanceof StdioDef);
    assert.equal(def.label, 'Fathom');
    assert.equal(def.version, '9.9.9');
    assert.equal(def.command, process.execPath);
    assert.deepEqual(def.args.slice(0, 4), [cli, 'mcp', '--dir', ws]);
    const transport = new StdioClientTransport({ command: def.command, args: def.args, env: { ...(process.env as Record<string, string>), FATHOM_MODEL_PATH: '', ...def.env }, stderr: 'ignore' });
    const client = new Client({ name: 'fathom-mcpdef-test', version: '0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['context', 'definitions', 'files', 'i18n', 'read', 'references', 'search', 'similar', 'status']);
      let text = '';
      for (let i = 0; i < 200; i++) {
        const r = (await client.callTool({ name: 'search', arguments: { query: 'getZoomControl' } })) as unknown as { content: Array<{ text: string }> };
        text = r.content[0].text;
        if (!/still indexing/.test(text) && /zoom\.js/.test(text)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(text, /^1\. src\/map\/zoom\.js:\d+-\d+ · function getZoomControl/m);
    } finally {
      await client.close();
    }
    // the index went under the extension's storage, not into the user's folder
    assert.ok(!fs.existsSync(path.join(ws, '.fathom')), 'no .fathom in the folder');
    assert.ok(fs.readdirSync(storeRoot).some((n) => n.startsWith('mcp-ws-')), fs.readdirSync(storeRoot).join(', '));
    roots.length = 0;
    assert.deepEqual(provider!.provideMcpServerDefinitions(), [], 'no folder: no server');
    reg.dispose();
  });
});
