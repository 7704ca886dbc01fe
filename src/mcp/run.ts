/**
 * The `fathom mcp` host: opens every folder (`LocalFolder`), serves the tools over stdio at
 * once, indexes in the background (answers meanwhile come from what is indexed so far), and
 * on the client's exit or a signal closes the folders (saved, locks released).
 */
import * as util from 'node:util';
import type { ChunkOptions } from '../chunkers/types';
import type { Embedder } from '../index/embedder';
import { sharedChunkPool } from '../service/chunk-pool';
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
  // first of all: a signal that comes before a handler is there kills the process outright (the
  // OS's default), with nothing closed or saved — a client may stop the server as soon as it speaks
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  // stdout is the protocol: anything a library prints goes to stderr
  for (const k of ['log', 'info', 'debug', 'warn'] as const) console[k] = (...a: unknown[]) => process.stderr.write(`${util.format(...a)}\n`);
  // the first passes chunk on other threads (cores − 1: this thread answers, reads and indexes);
  // the threads end when every first pass is done (a later rescan chunks here)
  const chunkPool = sharedChunkPool({ log: (level, m) => level !== 'info' && log(m) });
  const folders = options.dirs.map((d) => LocalFolder.open(d, { storeDir: options.storeDir, embedder: options.embedder, noEmbedderReason: options.noEmbedderReason, chunk: options.chunk, chunkPool, log }));
  const { server, closed } = await serveStdio(folders, { version: options.version, log });
  log(`serving ${folders.map((f) => f.root).join(', ')} over stdio; indexing in the background`);
  // loading a large stored index blocks for a while: answer the client's handshake first
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    clearTimeout(fallback);
    const t1 = Date.now();
    for (const f of folders) f.start();
    // answers are served meanwhile, from what is indexed so far: say how far, every 5 s, and
    // when the first pass is done (`f.indexed` is that pass only once `start` has run)
    const tick = setInterval(() => {
      const going = folders.map((f) => f.state().indexing).filter((p) => p !== undefined);
      const done = going.reduce((a, p) => a + p.filesDone, 0);
      const total = going.reduce((a, p) => a + p.filesTotal, 0);
      if (going.length) log(`serving; ${total ? `indexing ${done}/${total} files` : 'loading the index'}`);
    }, 5000);
    tick.unref();
    void Promise.all(folders.map((f) => f.indexed)).then(() => {
      clearInterval(tick);
      void chunkPool.close();
      // each folder says its own "indexed N files … in"; several: the whole too
      if (folders.length > 1) log(`indexed ${folders.reduce((a, f) => a + f.state().files, 0)} files in ${folders.length} folders in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    });
  };
  const fallback = setTimeout(start, 2000);
  server.server.oninitialized = start;
  await Promise.race([closed, signalled]);
  for (const f of folders) await f.close();
  await chunkPool.close();
  await options.embedder?.dispose();
  // stdin (the transport) would keep the process alive after a signal: the server is closed too
  await server.close().catch(() => undefined);
  log('closed');
  return 0;
}
