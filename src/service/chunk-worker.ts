/**
 * A chunk pool's worker thread (see chunk-pool.ts): chunks the files it is sent, one at a time in order,
 * with the token counter of its own thread, and posts the `FileChunks` back. Tree-sitter
 * grammars are loaded in this thread on the first file that needs them. When a job asks
 * (`embed`: Fathom's own model, its file and id), the thread also embeds the chunks it cut; the
 * model is loaded on the first such job, once per thread.
 *
 * Bundled as dist/chunk-worker.js (esbuild.mjs), next to dist/worker.js and dist/cli.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { chunkFile, prepareLanguagesFor, resolveOptions, type ChunkOptions, type ResolvedOptions } from '../chunkers/index';
import { findUsages } from '../i18n/usages';
import { readLocaleScript } from '../i18n/locales';
import { withParseReuse } from '../parse/script';
import { packCompounds } from '../index/terms';
import { TokenizerMissingError } from '../tokenizer/wordpiece';
import type { ThreadModel } from '../index/embedder-types';
import { loadStaticModel, StaticEmbedder, type StaticModelParts } from '../index/static-model';
import type { Chunk } from '../chunkers/types';
import { elideTexts, lowerThreadPriority, replyTransfers, type ChunkJobMessage, type ChunkReplyMessage, type WarmMessage } from './chunk-pool';

/** Fault injection for the pool's tests: the thread dies (as on a native crash) on this path. */
const exitOn: string | undefined = (workerData as { exitOn?: string } | undefined)?.exitOn;

const resolved = new Map<string, ResolvedOptions>();
function optionsFor(o: ChunkOptions): ResolvedOptions {
  const key = JSON.stringify(o);
  let r = resolved.get(key);
  if (!r) resolved.set(key, (r = resolveOptions(o)));
  return r;
}

/** `warm` (chunk-pool.ts): the JS/TS parser (oxc's binding, or Babel where it does not load) and the chunker's code, ready before the first file. */
function warm(): void {
  try {
    chunkFile('warm.ts', 'export function warm(a: number): number {\n  return a + 1;\n}\n', optionsFor({}));
  } catch {
    // only a head start: the first file loads whatever this did not
  }
}

/** The thread's model for each file and id asked, loaded on the first job that asks; a failure is kept too (not read again per file). */
const models = new Map<string, { embedder: StaticEmbedder } | { embedError: string }>();
function modelFor(model: ThreadModel, parts?: StaticModelParts): { embedder: StaticEmbedder } | { embedError: string } {
  const key = `${model.file}\0${model.id}`;
  let m = models.get(key);
  if (!m) {
    // the parts the pool sent (the rows shared with the indexing thread), else the file
    const r = parts ? fromParts(model.file, parts) : loadStaticModel(model.file);
    m = 'error' in r ? { embedError: r.error } : r.embedder.id !== model.id ? { embedError: `${model.file} now holds ${r.embedder.id}, not ${model.id}` } : r;
    models.set(key, m);
  }
  return m;
}

function fromParts(file: string, parts: StaticModelParts): { embedder: StaticEmbedder } | { error: string } {
  try {
    return { embedder: new StaticEmbedder(file, parts) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * The vectors of `chunks` (`embedText`, the code tower), row after row in one buffer, as the
 * indexing thread would make them; or why not (the file cannot be read, or holds another model
 * than the run's: the indexing thread embeds them then). `compounds`: the chunk texts'
 * compounds, scanned for the keyword index (`packCompounds`), which the model reads its terms
 * from instead of tokenizing each text again.
 */
function embedChunks(model: ThreadModel, chunks: readonly Chunk[], compounds: Int32Array, parts?: StaticModelParts): { vectors: Float32Array } | { embedError: string } {
  const r = modelFor(model, parts);
  if ('embedError' in r) return r;
  const e = r.embedder;
  const d = e.dims;
  const vectors = new Float32Array(chunks.length * d);
  let at = 0;
  for (let i = 0; i < chunks.length; i++) at = e.chunkVectorInto(chunks[i].header, chunks[i].text, compounds, at, vectors, i * d);
  return { vectors };
}

async function handle(job: ChunkJobMessage): Promise<ChunkReplyMessage> {
  try {
    if (exitOn !== undefined && job.rel === exitOn) process.exit(3);
    // the model's parts come once, with the first job that asks: kept whatever this file gives
    if (job.embed && job.model) modelFor(job.embed, job.model);
    await prepareLanguagesFor([job.rel]);
    // the i18n usages, when asked, from the chunker's own parse (one parse per file)
    return withParseReuse(() => {
      const result = chunkFile(job.rel, job.text, optionsFor(job.options));
      let usages: ChunkReplyMessage['usages'];
      let locale: ChunkReplyMessage['locale'];
      try {
        if (job.usages) {
          usages = findUsages(job.rel, job.text, job.usages);
          const mode = job.usages.localeScript;
          if (mode) {
            const lf = readLocaleScript(job.rel, job.text, mode === 'globbed');
            locale = lf ? { file: lf.file, entries: lf.entries, problems: lf.problems } : null;
          }
        }
      } catch {
        usages = undefined; // none sent: the indexing thread finds them (and reads the module) itself
        locale = undefined;
      }
      // the compounds of the chunk texts, for the keyword index (the indexing thread is the critical path)
      const compounds = packCompounds(result.chunks);
      // the vectors, when asked: the indexing thread only stores them
      const embedded = job.embed && result.chunks.length ? embedChunks(job.embed, result.chunks, compounds, job.model) : undefined;
      // the chunk texts are slices of the text the pool sent: it puts them back (no copy back)
      const elided = elideTexts(result, job.text);
      return { id: job.id, result, compounds, ...embedded, ...(usages ? { usages } : {}), ...(locale !== undefined ? { locale } : {}), ...(elided ? { elided } : {}) };
    });
  } catch (err) {
    return { id: job.id, error: err instanceof Error ? err.message : String(err), ...(err instanceof TokenizerMissingError ? { fatal: true } : {}) };
  }
}

if (parentPort) {
  const port = parentPort;
  // the indexing thread first: it is the run's critical path (see CHUNK_THREAD_NICE)
  lowerThreadPriority();
  // the pool sends a few jobs ahead: they are done one after the other, in the order sent
  // (the pool takes the first unanswered one for the file a crash happened on)
  let last: Promise<void> = Promise.resolve();
  port.on('message', (job: ChunkJobMessage | WarmMessage) => {
    if ('warm' in job) {
      const w = job;
      last = last.then(() => {
        if (w.embed && w.model) {
          const m = modelFor(w.embed, w.model);
          if ('embedder' in m) m.embedder.prepare();
        }
        if (w.parsers !== false) warm();
      });
    }
    else last = last.then(() => handle(job)).then((reply) => port.postMessage(reply, replyTransfers(reply)));
  });
}
