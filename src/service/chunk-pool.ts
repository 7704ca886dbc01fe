/**
 * A pool of worker threads that chunk (and count tokens for) files, so that a cold index uses
 * every core: the indexing thread reads files and builds the index while the pool's threads
 * parse. `Engine.indexFolder` hands it the files of a run and applies the results in walk order,
 * so the index is the same as a single-threaded run's (same chunks, same doc ids).
 *
 *   size        threads (default `defaultPoolSize()`: cores − 1, at least 1; the CLI takes one per core)
 *   chunk(...)  one file → its FileChunks; each thread is sent files ahead (it chunks them in
 *               order) until it holds `aheadChars` of text or `depth` files, so it never waits
 *               for the indexing thread to hand it the next one while that thread is busy
 *               indexing; the rest wait in the pool's queue
 *   signal      a job whose signal aborts is dropped from the queue, or its thread is
 *               terminated at once (replaced on the next job): cancelling never waits for a
 *               long parse
 *   crash       a thread that dies on a file (out of memory, native crash) gives that file a
 *               visible skip (`unsupported`, the reason logged) and is replaced
 *
 * Threads start on the first job and are unref'd while idle: an idle pool keeps no process alive.
 * The thread's script is chunk-worker.js next to the bundle (esbuild.mjs builds it beside
 * dist/worker.js and dist/cli.js); running from source (tsx: tests, benches), chunk-worker.ts
 * is loaded through tsx's require hook.
 */
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import { languageOf } from '../chunkers/index';
import type { ChunkOptions, FileChunks } from '../chunkers/types';
import type { ScriptLocale, Usage, UsageOptions } from '../i18n/types';
import { TokenizerMissingError } from '../tokenizer/wordpiece';
import { THREAD_STACK_MB } from '../parse/oxc';
import { threadScript, type ThreadScript } from '../util/thread-script';
import type { ThreadModel } from '../index/embedder-types';
import type { StaticModelParts } from '../index/static-model';

export interface ChunkJobMessage {
  id: number;
  rel: string;
  text: string;
  options: ChunkOptions;
  /** Also find the file's i18n key usages (findUsages, from the chunker's own parse), and read it as a locale module when `usages.localeScript` says. */
  usages?: UsageOptions;
  /** Also embed the chunks with this model (Fathom's own: loaded once per thread, on the first job that asks). */
  embed?: { file: string; id: string };
  /** The model's parts (rows in shared memory), sent with a thread's first job that asks for `embed`: the thread does not read the file. */
  model?: StaticModelParts;
}

/** Sent to a thread by `warm`: load the parsers (unless `parsers` is false) and the model given, answer nothing. */
export interface WarmMessage {
  warm: true;
  parsers?: boolean;
  embed?: { file: string; id: string };
  model?: StaticModelParts;
}

/**
 * A file's chunks, with its i18n usages (and its reading as a locale module) when they were
 * asked for, and `compounds`: the compounds of each chunk's text, found on the thread
 * (`packCompounds`), so that the indexing thread, a cold index's critical path, does not scan
 * the texts again. `vectors`: when the job asked for them (`embed`), the vector of each chunk
 * (`embedText`, in `chunks` order), row after row in one buffer, moved from the thread, not copied.
 */
export type PooledChunks = FileChunks & { usages?: Usage[]; locale?: ScriptLocale; compounds?: Int32Array; vectors?: Float32Array };

/**
 * `elided`: the chunks (indexes) whose text the thread left out ('') because it is exactly
 * the file's `text.slice(start.offset, end.offset)`: the pool puts it back from the text it
 * sent. Copying the texts back was most of the reply's cost (dev corpus, 800 files:
 * v8.serialize 273 ms with the texts, 34 ms without; deserializing them another 208 ms on the
 * indexing thread).
 */
export type ChunkReplyMessage =
  | { id: number; result: FileChunks; usages?: Usage[]; locale?: ScriptLocale; elided?: number[]; compounds?: Int32Array; vectors?: Float32Array; embedError?: string; error?: undefined }
  | { id: number; error: string; fatal?: boolean; result?: undefined; usages?: undefined; locale?: undefined; elided?: undefined; compounds?: undefined; vectors?: undefined; embedError?: undefined };

/** The buffers a reply moves to the pool instead of copying (the compounds, the vectors). */
export function replyTransfers(reply: ChunkReplyMessage): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  if (reply.compounds) out.push(reply.compounds.buffer as ArrayBuffer);
  if (reply.vectors) out.push(reply.vectors.buffer as ArrayBuffer);
  return out;
}

/** In the thread: leaves out the chunk texts that are slices of `text` (see ChunkReplyMessage), returning their indexes. */
export function elideTexts(result: FileChunks, text: string): number[] | undefined {
  let elided: number[] | undefined;
  const cs = result.chunks;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i];
    if (c.text.length > 0 && c.end.offset - c.start.offset === c.text.length && text.startsWith(c.text, c.start.offset)) {
      c.text = '';
      (elided ??= []).push(i);
    }
  }
  return elided;
}

/** In the pool: puts back the texts `elideTexts` left out, from the text sent. */
export function restoreTexts(result: FileChunks, text: string, elided: readonly number[] | undefined): FileChunks {
  if (elided) {
    for (const i of elided) {
      const c = result.chunks[i];
      c.text = text.slice(c.start.offset, c.end.offset);
    }
  }
  return result;
}

export interface ChunkPoolOptions {
  /** Threads; default `defaultPoolSize()`; 0: none (`available` is false, callers chunk in-thread). */
  size?: number;
  /** The thread's script (default: chunk-worker.js beside this bundle, or the .ts source under tsx). */
  script?: string;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Fault injection (tests): the thread exits, as on a crash, when it is given this path. */
  exitOn?: string;
  /** An index run with fewer changed files or bytes chunks in-thread (defaults: the engine's POOL_MIN_FILES, POOL_MIN_BYTES). */
  minFiles?: number;
  minBytes?: number;
  /** Most files sent ahead to each thread (default `POOL_DEPTH`). */
  depth?: number;
  /** A thread is sent more files while it holds less text than this (UTF-16 units; default `POOL_AHEAD_CHARS`), up to `depth`. */
  aheadChars?: number;
}

/**
 * Files a thread is sent ahead of the one it chunks: at most `POOL_DEPTH`, and no more once
 * it holds `POOL_AHEAD_CHARS` of text. With one at a time (as before), a thread finished its
 * file and waited until the indexing thread, busy indexing the files before, got round to the
 * reply and sent the next: on the dev corpus the chunk thread idled 47% of a cold index (its
 * --cpu-prof). Four ahead still left each thread idle 0.2–1.8 s of a 5.5 s dev-corpus index:
 * four small files are a few milliseconds of work, less than the indexing thread's longer
 * stretches (a large file's chunks indexed, a large file read). 256 KB ahead is about 0.1 s of
 * work; the byte bound keeps a run of large files from piling up on one thread at the end
 * while the other has nothing (files sent cannot move to another thread).
 */
export const POOL_DEPTH = 32;
export const POOL_AHEAD_CHARS = 256 * 1024;

/**
 * Threads for chunking: the cores less `leave`, at least one.
 *
 * The extension leaves one core (`leave` 1, the default): its Fathom worker thread (reading
 * files, building the index) takes the rest of the machine's share and the extension host stays
 * free. The CLI is a batch process with no editor to keep responsive, and takes one chunk
 * thread per core (`leave` 0); its main thread reads and indexes beside them.
 *
 * Measured on 2 cores (bench/cold.ts, median of 7, interleaved, with oxc parsing scripts), 2
 * chunk threads against 1: the dev corpus 0.96x the wall time, a 1,112-file app (langsmith)
 * 0.85x, Debian's python-cryptography 0.95x, for 7–12% more CPU. python-cryptography (Python
 * and Rust, whose grammars each thread compiles again) was 0.97x–1.07x in later runs: mixed.
 * (With Babel, whose compile each thread paid again, 2 threads gave 0.97x on the dev corpus for
 * 9% more CPU.)
 */
export function defaultPoolSize(leave = 1): number {
  // FATHOM_CHUNK_THREADS: an explicit count (0: chunk in the indexing thread), for measuring
  const env = process.env.FATHOM_CHUNK_THREADS;
  if (env !== undefined && /^\d+$/.test(env.trim())) return Number(env.trim());
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, cores - leave);
}

/**
 * How far below the indexing thread a chunk thread runs (Linux nice, added to the process's).
 * The indexing thread is the run's critical path: it reads every file, applies the replies in
 * walk order and builds the keyword index. With two chunk threads on two cores, three busy
 * threads shared the cores alike, and the chunk threads sat idle a quarter of the time waiting
 * for the indexing thread to send and take files (CPU profiles of a cold index).
 * Measured with bench/cold.ts (interleaved), nice 5 / 10 / 19 against 0, median of 5: the dev
 * corpus 0.95x / 0.92x / 0.96x the wall time, a 1,112-file app (langsmith) 0.94x / 0.93x /
 * 0.87x; 10 against 0, median of 7: dev corpus 0.937x, langsmith 1.067x, python-cryptography
 * 1.005x, and langsmith in 15 runs 0.982x. A small gain, mixed on a small app; in the extension
 * it also leaves the editor ahead of the chunk threads.
 */
export const CHUNK_THREAD_NICE = 10;

/**
 * Called by a chunk thread when it starts: lowers its own priority by `CHUNK_THREAD_NICE`
 * (`FATHOM_CHUNK_NICE` overrides it, 0 leaves it as it is). Linux only: there setpriority
 * applies to the calling thread, elsewhere to the whole process. Returns the nice the thread
 * runs at, or undefined when it was not changed.
 */
export function lowerThreadPriority(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const env = process.env.FATHOM_CHUNK_NICE?.trim();
  const by = env !== undefined && /^\d+$/.test(env) ? Number(env) : CHUNK_THREAD_NICE;
  if (by === 0) return undefined;
  try {
    const nice = Math.min(19, os.getPriority(0) + by);
    os.setPriority(0, nice);
    return nice;
  } catch {
    return undefined; // not allowed here: the thread runs as it is
  }
}

interface Job {
  id: number;
  rel: string;
  text: string;
  options: ChunkOptions;
  usages?: UsageOptions;
  embed?: ThreadModel;
  resolve: (r: PooledChunks) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  /** Settled already (aborted while its thread had it): its reply is dropped. */
  done?: boolean;
}

interface Slot {
  worker?: Worker;
  /** The models (ids) sent to `worker` already (`ChunkJobMessage.model`). */
  models?: Set<string>;
  /** Sent to `worker`, in the order it chunks them (the first is the one it is on). */
  jobs: Job[];
}

export class ChunkPool {
  readonly size: number;
  readonly depth: number;
  readonly aheadChars: number;
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly script: ThreadScript | undefined;
  private nextId = 1;
  private closed = false;
  /**
   * The unsettled jobs of each signal. A signal gets one abort listener from the pool, not one per
   * job: an index run has dozens of files in flight on one signal, and Node warns of a leak past
   * 10 listeners (a MaxListenersExceededWarning the CLI printed on every cold index).
   */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Job>>();
  /** Threads started so far (replacements included), files sent: what the tests look at. */
  started = 0;
  jobs = 0;
  private readonly embedWarned = new Set<string>();
  readonly minFiles: number | undefined;
  readonly minBytes: number | undefined;

  constructor(private readonly options: ChunkPoolOptions = {}) {
    const size = Math.max(0, Math.floor(options.size ?? defaultPoolSize()));
    this.size = Math.max(1, size);
    this.depth = Math.max(1, Math.floor(options.depth ?? POOL_DEPTH));
    this.aheadChars = Math.max(0, options.aheadChars ?? POOL_AHEAD_CHARS);
    this.slots = Array.from({ length: this.size }, () => ({ jobs: [] }));
    // size 0: no threads, every file is chunked in the indexing thread
    this.script = size === 0 ? undefined : options.script ? { file: options.script } : threadScript(__dirname, __filename, 'chunk-worker');
    if (size > 0 && !this.script) options.log?.('warn', `no chunk thread script beside ${__dirname}: files are chunked on the indexing thread`);
    this.minFiles = options.minFiles;
    this.minBytes = options.minBytes;
  }

  /** Files queued or being chunked. */
  get busy(): number {
    let n = this.queue.length;
    for (const s of this.slots) for (const j of s.jobs) if (!j.done) n++;
    return n;
  }

  /** Files waiting in the pool's queue, not yet sent to a thread. */
  get queued(): number {
    return this.queue.length;
  }

  /** False when there is no thread script to run (chunk in-thread instead). */
  get available(): boolean {
    return !!this.script && !this.closed;
  }

  /**
   * Chunks one file in a pool thread; with `usages`, the thread also finds the file's i18n key
   * usages (the same as `findUsages` on the indexing thread, from the chunker's parse: the
   * index run's i18n feed does not parse the file again); with `embed`, the thread also embeds
   * the chunks with that model (`vectors`; none, and a warning logged once, when the thread
   * cannot load it: the indexing thread embeds them then). Rejects with the signal's reason
   * when it aborts.
   */
  chunk(rel: string, text: string, options: ChunkOptions, signal?: AbortSignal, usages?: UsageOptions, embed?: ThreadModel): Promise<PooledChunks> {
    if (!this.available) return Promise.reject(new Error(this.closed ? 'the chunk pool is closed' : 'the chunk pool has no worker script'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<PooledChunks>((resolve, reject) => {
      const job: Job = { id: this.nextId++, rel, text, options, usages, embed, resolve, reject, signal };
      this.jobs++;
      if (signal) this.watch(signal, job);
      this.queue.push(job);
      this.dispatch();
    });
  }

  /**
   * Starts the threads now, and has each load its JS/TS parser, so that a cold index run
   * finds them ready when its walk is done (a thread's start is otherwise on the critical
   * path: its first file waits for it). With `embed`, each thread also sets up that model
   * (Fathom's own: its term table, 40,000 terms) before the run's first file asks for it.
   * Idle threads keep no process alive.
   */
  warm(embed?: ThreadModel): void {
    if (!this.available) return;
    for (const slot of this.slots) {
      const fresh = !slot.worker;
      if (fresh) slot.worker = this.spawn(slot);
      const model = this.embedFor(slot, embed);
      if (fresh || model.model) slot.worker!.postMessage({ warm: true, parsers: fresh, ...model } satisfies WarmMessage);
      if (!slot.jobs.length) slot.worker!.unref();
    }
  }

  /** Terminates the threads; queued jobs reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, undefined, new Error('the chunk pool was closed'));
    const stops: Array<Promise<number>> = [];
    for (const slot of this.slots) {
      const w = slot.worker;
      const jobs = slot.jobs.splice(0);
      slot.worker = undefined;
      for (const job of jobs) if (!job.done) this.settle(job, undefined, new Error('the chunk pool was closed'));
      if (w) stops.push(w.terminate());
    }
    await Promise.all(stops);
  }

  private watch(signal: AbortSignal, job: Job): void {
    let jobs = this.bySignal.get(signal);
    if (!jobs) {
      const set = new Set<Job>();
      jobs = set;
      this.bySignal.set(signal, set);
      signal.addEventListener('abort', () => {
        for (const j of [...set]) this.abortJob(j);
      }, { once: true });
    }
    jobs.add(job);
  }

  private settle(job: Job, result: PooledChunks | undefined, err?: unknown): void {
    job.done = true;
    if (job.signal) this.bySignal.get(job.signal)?.delete(job);
    if (result) job.resolve(result);
    else job.reject(err);
  }

  private abortJob(job: Job): void {
    const q = this.queue.indexOf(job);
    if (q >= 0) {
      this.queue.splice(q, 1);
      this.settle(job, undefined, job.signal?.reason);
      return;
    }
    const slot = this.slots.find((s) => s.jobs.includes(job));
    if (!slot || job.done) return;
    this.settle(job, undefined, job.signal?.reason);
    if (slot.jobs[0] !== job) return; // not started: its reply, when it comes, is dropped
    // the thread may be deep in a long parse: stop it now, a fresh one takes the jobs after it
    const w = slot.worker;
    slot.worker = undefined;
    this.requeue(slot.jobs.splice(0).slice(1));
    void w?.terminate();
    this.dispatch();
  }

  /** Jobs sent to a thread that is gone, not yet done: back to the front of the queue, in order. */
  private requeue(jobs: Job[]): void {
    this.queue.unshift(...jobs.filter((j) => !j.done));
  }

  private spawn(slot: Slot): Worker {
    const s = this.script!;
    const data = { exitOn: this.options.exitOn };
    // a large native stack: oxc parses with it (src/parse/oxc.ts THREAD_STACK_MB)
    const resourceLimits = { stackSizeMb: THREAD_STACK_MB };
    const w = s.eval ? new Worker(s.eval, { eval: true, workerData: data, resourceLimits }) : new Worker(s.file, { workerData: data, resourceLimits });
    this.started++;
    slot.models = undefined; // a new thread: sent no model yet
    w.on('message', (reply: ChunkReplyMessage) => {
      if (slot.worker !== w) return;
      // the thread answers in the order it was sent its jobs
      const at = slot.jobs.findIndex((j) => j.id === reply.id);
      if (at >= 0) {
        const job = slot.jobs.splice(at, 1)[0];
        if (!job.done) {
          if (reply.result) {
            const result: PooledChunks = restoreTexts(reply.result, job.text, reply.elided);
            if (reply.compounds) result.compounds = reply.compounds;
            if (reply.vectors) result.vectors = reply.vectors;
            if (reply.embedError) this.embedFailed(reply.embedError);
            this.settle(job, reply.usages ? Object.assign(result, { usages: reply.usages }, reply.locale !== undefined ? { locale: reply.locale } : {}) : result);
          }
          else if (reply.fatal) {
            // a broken install (the tokenizer is missing): no file can be chunked, by any thread
            this.settle(job, undefined, new TokenizerMissingError(reply.error));
          } else this.settle(job, this.crashed(job, `the chunker failed: ${reply.error}`));
        }
      }
      this.dispatch();
    });
    const died = (why: string) => {
      if (slot.worker !== w) return; // terminated on purpose, or already handled
      // the first job not answered is the one it died on; the ones after go to another thread
      const [job, ...rest] = slot.jobs.splice(0);
      slot.worker = undefined;
      this.options.log?.('warn', `a chunk thread died (${why}): it is replaced`);
      this.requeue(rest);
      if (job && !job.done) this.settle(job, this.crashed(job, `the chunk thread died on this file (${why})`));
      this.dispatch();
    };
    w.on('error', (err) => died(err instanceof Error ? err.message : String(err)));
    w.on('exit', (code) => died(`exit code ${code}`));
    return w;
  }

  /** A job's `embed` for a thread, with the model's parts the first time that thread is asked for that model. */
  private embedFor(slot: Slot, e: ThreadModel | undefined): Pick<ChunkJobMessage, 'embed' | 'model'> {
    if (!e) return {};
    const models = (slot.models ??= new Set());
    const first = e.shared && !models.has(e.id);
    models.add(e.id);
    return { embed: { file: e.file, id: e.id }, ...(first ? { model: e.shared } : {}) };
  }

  /** A thread could not embed (the model file gone or changed since the run began): said once; the indexing thread embeds instead. */
  private embedFailed(why: string): void {
    if (this.embedWarned.has(why)) return;
    this.embedWarned.add(why);
    this.options.log?.('warn', `a chunk thread could not embed (${why}): the chunks are embedded on the indexing thread`);
  }

  /** A file the chunker could not do: a visible skip with the reason, logged. */
  private crashed(job: Job, detail: string): FileChunks {
    this.options.log?.('warn', `${job.rel}: skipped: ${detail}`);
    return { path: job.rel, language: languageOf(job.rel), chunks: [], warnings: [], skipped: { reason: 'unsupported', detail } };
  }

  private dispatch(): void {
    // round by round, so that each thread gets one before any gets a second; a thread that
    // holds `aheadChars` of text already is sent no more (it has work for a while)
    const held = this.slots.map((s) => s.jobs.reduce((n, j) => n + (j.done ? 0 : j.text.length), 0));
    for (let round = 0; round < this.depth && this.queue.length && !this.closed; round++) {
      for (const [k, slot] of this.slots.entries()) {
        if (!this.queue.length) break;
        if (slot.jobs.length > round) continue;
        if (slot.jobs.length > 0 && held[k] >= this.aheadChars) continue;
        const job = this.queue.shift()!;
        if (!slot.worker) slot.worker = this.spawn(slot);
        slot.jobs.push(job);
        held[k] += job.text.length;
        const msg: ChunkJobMessage = { id: job.id, rel: job.rel, text: job.text, options: job.options, usages: job.usages, ...this.embedFor(slot, job.embed) };
        slot.worker.postMessage(msg);
      }
    }
    // busy threads keep the process alive (a CLI awaiting results), idle ones do not
    for (const slot of this.slots) {
      if (!slot.worker) continue;
      if (slot.jobs.length) slot.worker.ref();
      else slot.worker.unref();
    }
  }
}

let shared: ChunkPool | undefined;

/** The process's pool (one per process: every folder session shares it). */
export function sharedChunkPool(options: ChunkPoolOptions = {}): ChunkPool {
  if (!shared) shared = new ChunkPool(options);
  return shared;
}
