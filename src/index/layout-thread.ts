/**
 * A keyword snapshot's binary layout (`layoutBinary`: the postings, the term table) made on a
 * thread of its own, for a save that meanwhile serializes the chunks on its own thread. At the
 * end of a cold index nothing else runs (the chunk threads are done): the save was one busy
 * core and one idle one, and the layout was a third of the keyword export (~90 ms of ~140 on
 * the dev corpus, ~45 of ~65 on a 1,100-file app).
 *
 * The records' buffer is lent to the thread (transferred, not copied) and comes back with the
 * answer. Anything that goes wrong (no thread script beside the bundle, a thread that cannot
 * start, dies or throws) ends in the same layout made on this thread, from a fresh export
 * (the lent buffer may be gone): the same bytes either way, a little later.
 */
import { Worker } from 'node:worker_threads';
import { threadScript, type ThreadScript } from '../util/thread-script';
import { binarySnapshot, type KeywordIndex, type KeywordRecords, type KeywordSnapshot } from './keyword';
import { layoutBinary, type BinaryLayout } from './postings-layout';

/** What `exportBinaryAsync` sends the thread: the records' buffer (lent) and where the counts and the body are in it; the terms joined. */
export interface LayoutJob {
  docs: number;
  buffer: ArrayBuffer;
  countsAt: number;
  bodyAt: number;
  bodyWords: number;
  /** The terms, one after the other; `lengths[t]`: term t's length in UTF-16 code units. */
  vocab: string;
  lengths: Uint32Array;
}

/** The thread's answer: the buffer back, and the layout or why there is none. */
export type LayoutReply = { buffer: ArrayBuffer; layout: BinaryLayout } | { buffer: ArrayBuffer; error: string };

/**
 * Below this many documents the layout is made on this thread: a thread's start (~25 ms of
 * CPU and its memory) is worth it only for a layout that takes longer.
 */
export const LAYOUT_THREAD_MIN_DOCS = 4000;

export interface LayoutThreadOptions {
  /** Documents from which a thread is used (default `LAYOUT_THREAD_MIN_DOCS`). */
  minDocs?: number;
  /** The thread's script (tests); null: none. */
  script?: ThreadScript | null;
  /** Told why the thread could not be used (the layout is then made here). */
  onFallback?: (why: string) => void;
}

/**
 * `index.export({ binary: true })`, with the layout made on another thread when the index is
 * large enough: the thread starts at once, while this thread exports the records; the promise
 * resolves once the layout is back. The index must not change until it resolves.
 */
export function exportBinaryAsync(index: KeywordIndex, options: LayoutThreadOptions = {}): Promise<KeywordSnapshot> {
  const script = options.script === undefined ? threadScript(__dirname, __filename, 'layout-worker') : (options.script ?? undefined);
  if (!script || index.size < (options.minDocs ?? LAYOUT_THREAD_MIN_DOCS)) return Promise.resolve(index.export({ binary: true }));
  let worker: Worker;
  try {
    worker = script.eval ? new Worker(script.eval, { eval: true }) : new Worker(script.file);
  } catch (err) {
    options.onFallback?.(`no layout thread: ${err instanceof Error ? err.message : String(err)}`);
    return Promise.resolve(index.export({ binary: true }));
  }
  let r: KeywordRecords;
  try {
    r = index.exportRecords();
  } catch (err) {
    void worker.terminate();
    throw err;
  }
  const inHere = (why: string): KeywordSnapshot => {
    options.onFallback?.(why);
    // the lent buffer may not have come back: the records again
    const again = index.exportRecords();
    return binarySnapshot(again.snap, layoutBinary(again.snap.docs, again.counts, again.body, again.snap.vocab));
  };
  return new Promise<KeywordSnapshot>((resolve) => {
    let done = false;
    const finish = (snap: () => KeywordSnapshot) => {
      if (done) return;
      done = true;
      void worker.terminate();
      resolve(snap());
    };
    worker.once('message', (reply: LayoutReply) =>
      finish(() => {
        if ('error' in reply) return inHere(`the layout thread failed: ${reply.error}`);
        return binarySnapshot({ ...r.snap, data: new Uint8Array(reply.buffer) }, reply.layout);
      }),
    );
    worker.once('error', (err) => finish(() => inHere(`the layout thread failed: ${err.message}`)));
    worker.once('exit', (code) => finish(() => inHere(`the layout thread stopped (exit code ${code})`)));
    try {
      worker.postMessage(job(r), [r.snap.data.buffer as ArrayBuffer]);
    } catch (err) {
      finish(() => inHere(`the layout thread could not be given the job: ${err instanceof Error ? err.message : String(err)}`));
    }
  });
}

function job(r: KeywordRecords): LayoutJob {
  const vocab = r.snap.vocab;
  const lengths = new Uint32Array(vocab.length);
  for (let t = 0; t < vocab.length; t++) lengths[t] = vocab[t].length;
  return {
    docs: r.snap.docs,
    buffer: r.snap.data.buffer as ArrayBuffer,
    countsAt: r.counts.byteOffset,
    bodyAt: r.body.byteOffset,
    bodyWords: r.body.length,
    vocab: vocab.join(''),
    lengths,
  };
}
