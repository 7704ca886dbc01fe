/**
 * How the editor launches `fathom mcp` for the MCP clients inside it (VS Code 1.101+'s
 * `McpStdioServerDefinition`, built in src/commands/lm-tools.ts): the command, its arguments and
 * environment. Kept apart from the editor's API so that a test can run exactly what the editor
 * would run.
 *
 * - The editor's own runtime runs the CLI as plain Node (`ELECTRON_RUN_AS_NODE`).
 * - One folder: its index goes under the extension's storage (`--store`), as the extension's
 *   own index does, so the user's folder gets no `.fathom/`. Several folders: the CLI keeps each
 *   index in `<dir>/.fathom` (its `--store` takes one folder).
 * - The model the editor uses, when it is a local folder (bundled with the extension or set in
 *   the settings), and the editor's model cache: the server never downloads by itself.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';

export interface McpLaunchOptions {
  /** The extension's folder (holds dist/cli.js). */
  extensionPath: string;
  /** The open folders. */
  roots: string[];
  /** The runtime to run the CLI with (the editor's: process.execPath). */
  execPath: string;
  /** Where the extension keeps its indexes; the server's index of a single folder goes under it. */
  storeRoot?: string;
  /** A local model folder the editor searches with. */
  modelPath?: string;
  /** The editor's model download cache (read, never downloaded into by the server). */
  modelCache?: string;
}

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The launch of `fathom mcp` on `roots`; undefined with no folder open (nothing to serve). */
export function mcpServerLaunch(o: McpLaunchOptions): McpLaunch | undefined {
  if (!o.roots.length) return undefined;
  const args = [path.join(o.extensionPath, 'dist', 'cli.js'), 'mcp', ...o.roots.flatMap((r) => ['--dir', r])];
  if (o.roots.length === 1 && o.storeRoot) {
    const root = o.roots[0];
    const name = path.basename(root).replace(/[^\w.-]+/g, '_').slice(0, 40) || 'folder';
    args.push('--store', path.join(o.storeRoot, `mcp-${name}-${createHash('sha1').update(root).digest('hex').slice(0, 10)}`));
  }
  if (o.modelPath) args.push('--model-path', o.modelPath);
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' };
  if (o.modelCache) env.FATHOM_MODEL_CACHE = o.modelCache;
  return { command: o.execPath, args, env };
}

/**
 * Whether the editor offers the stable MCP server definition API (1.101+). 1.100 has an early
 * form of `registerMcpServerDefinitionProvider` that wants another package.json contribution and
 * throws without it, so the version decides as well as the functions' presence.
 */
export function mcpDefinitionSupported(version: string, register: unknown, stdioCtor: unknown): boolean {
  const [major, minor] = version.split('.').map(Number);
  if (!Number.isFinite(major) || !Number.isFinite(minor)) return false;
  return typeof register === 'function' && typeof stdioCtor === 'function' && (major > 1 || (major === 1 && minor >= 101));
}
