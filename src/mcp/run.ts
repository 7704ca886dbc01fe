/**
 * The `fathom mcp` host: opens every folder (`LocalFolder`), serves the tools over stdio at
 * once, indexes in the background (answers meanwhile come from what is indexed so far), and
 * on the client's exit or a signal closes the folders (saved, locks released).
 */
import * as util from 'node:util';
import type { ChunkOptions } from '../chunkers/types';
import type { Embedder } from '../index/embedder';
import { LocalFolder } from './folder';
import { serveStdio } from './server';

export interface McpRunOptions {
  dirs: string[];
  /** One store folder (only with one dir); default `<dir>/.fathom`. */
  storeDir?: string;
  embedder?: Embedder;
  noEmbedderReason?: string;
  chunk?: ChunkOptions;
  version: string;
}

/** Runs the server until stdin closes or SIGINT/SIGTERM; returns the exit code. */
export async function runMcp(options: McpRunOptions): Promise<number> {
  const log = (m: string) => process.stderr.write(`fathom mcp: ${m}\n`);
  // stdout is the protocol: anything a library prints goes to stderr
  for (const k of ['log', 'info', 'debug', 'warn'] as const) console[k] = (...a: unknown[]) => process.stderr.write(`${util.format(...a)}\n`);
  const folders = options.dirs.map((d) => LocalFolder.open(d, { storeDir: options.storeDir, embedder: options.embedder, noEmbedderReason: options.noEmbedderReason, chunk: options.chunk, log }));
  const t0 = Date.now();
  const { server, closed } = await serveStdio(folders, { version: options.version, log });
  log(`serving ${folders.map((f) => f.root).join(', ')} over stdio`);
  // loading a large stored index blocks for a while: answer the client's handshake first
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    clearTimeout(fallback);
    for (const f of folders) f.start();
  };
  const fallback = setTimeout(start, 2000);
  server.server.oninitialized = start;
  void Promise.all(folders.map((f) => f.indexed)).then(() => log(`ready in ${Date.now() - t0} ms`));
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await Promise.race([closed, signalled]);
  for (const f of folders) await f.close();
  await options.embedder?.dispose();
  log('closed');
  return 0;
}
