/**
 * The thread of `exportBinaryAsync` (layout-thread.ts): lays out one keyword snapshot's postings
 * and term table (`layoutBinary`) and sends them back with the records' buffer it was lent.
 * Bundled as dist/layout-worker.js; imports nothing but the layout and the term table.
 */
import { parentPort } from 'node:worker_threads';
import { layoutBinary } from './postings-layout';
import type { LayoutJob, LayoutReply } from './layout-thread';

const port = parentPort;
port?.once('message', (job: LayoutJob) => {
  let reply: LayoutReply;
  const transfer: ArrayBuffer[] = [job.buffer];
  try {
    const vocab: string[] = [];
    for (let t = 0, at = 0; t < job.lengths.length; t++) {
      const end = at + job.lengths[t];
      vocab.push(job.vocab.slice(at, end));
      at = end;
    }
    const counts = new Uint32Array(job.buffer, job.countsAt, job.docs);
    const body = new Uint32Array(job.buffer, job.bodyAt, job.bodyWords);
    const layout = layoutBinary(job.docs, counts, body, vocab);
    reply = { buffer: job.buffer, layout };
    transfer.push(layout.postings.buffer as ArrayBuffer, layout.lexicon.buffer as ArrayBuffer);
  } catch (err) {
    reply = { buffer: job.buffer, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply, transfer);
});
