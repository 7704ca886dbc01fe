/**
 * `fathom mcp` as an agent meets it: the built CLI (bin/fathom.js → dist/cli.js) over stdio with
 * the official SDK client, keyword-only (or, with `model`, as it runs by default: with Fathom's
 * own model, waited for until every chunk has its vector), started on some folders and waited
 * for until the status tool says the first pass is done.
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ROOT = path.join(__dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'fathom.js');

export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface McpSession {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** What the server wrote on stderr so far. */
  stderr(): string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startMcp(dirs: string[], options: { waitMs?: number; model?: boolean } = {}): Promise<McpSession> {
  const args = [BIN, 'mcp', ...dirs.flatMap((d) => ['--dir', d]), ...(options.model ? [] : ['--no-embed'])];
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', env: { ...process.env, FATHOM_MODEL_PATH: '' } as Record<string, string> });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'fathom-test', version: '0.0.0' });
  await client.connect(transport);
  // as an agent does first; from then on the client checks every answer against its tool's output schema
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as unknown as ToolResult;
  // the first pass: the status tool says when it is done
  for (let waited = 0; waited < (options.waitMs ?? 20_000); waited += 50) {
    const s = await call('status', {});
    if (!(s.structuredContent!.folders as Array<{ indexing?: unknown; pendingVectors: number }>).some((f) => f.indexing || (options.model && f.pendingVectors))) break;
    await sleep(50);
  }
  return { client, call, stderr: () => err };
}
