/**
 * A chunk pool's worker thread (see chunk-pool.ts): chunks the files it is sent, one at a time in order,
 * with the token counter of its own thread, and posts the `FileChunks` back. Tree-sitter
 * grammars are loaded in this thread on the first file that needs them.
 *
 * Bundled as dist/chunk-worker.js (esbuild.mjs), next to dist/worker.js and dist/cli.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { chunkFile, prepareLanguagesFor, resolveOptions, type ChunkOptions, type ResolvedOptions } from '../chunkers/index';
import type { ChunkJobMessage, ChunkReplyMessage } from './chunk-pool';

/** Fault injection for the pool's tests: the thread dies (as on a native crash) on this path. */
const exitOn: string | undefined = (workerData as { exitOn?: string } | undefined)?.exitOn;

const resolved = new Map<string, ResolvedOptions>();
function optionsFor(o: ChunkOptions): ResolvedOptions {
  const key = JSON.stringify(o);
  let r = resolved.get(key);
  if (!r) resolved.set(key, (r = resolveOptions(o)));
  return r;
}

async function handle(job: ChunkJobMessage): Promise<ChunkReplyMessage> {
  try {
    if (exitOn !== undefined && job.rel === exitOn) process.exit(3);
    await prepareLanguagesFor([job.rel]);
    return { id: job.id, result: chunkFile(job.rel, job.text, optionsFor(job.options)) };
  } catch (err) {
    return { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
}

if (parentPort) {
  const port = parentPort;
  // the pool sends a few jobs ahead: they are done one after the other, in the order sent
  // (the pool takes the first unanswered one for the file a crash happened on)
  let last: Promise<void> = Promise.resolve();
  port.on('message', (job: ChunkJobMessage) => {
    last = last.then(() => handle(job)).then((reply) => port.postMessage(reply));
  });
}
