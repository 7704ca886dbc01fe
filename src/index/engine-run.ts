/**
 * The engine's index runs (a room of engine.ts): `indexFolder` walks a folder, reads the files that
 * changed and applies them to the catalog in walk order — chunked here or on a chunk pool's
 * threads, with a window of reads in flight bounded in bytes, and the heap looked at between
 * reads — then `embedPending` computes the vectors still missing, in the embedding queue's order.
 */
import * as v8 from 'node:v8';
import { prepareLanguagesFor } from '../chunkers/index';
import { embedText } from './embedder';
import type { ThreadModel } from './embedder-types';
import type { Chunk } from '../chunkers/types';
import type { WalkProblem } from '../workspace/files';
import { NodeFileSource, type FileSource, type ReadResult, type SourceFile } from '../workspace/source';
import { hashText, type EngineCatalog } from './engine-catalog';
import type { ChunkedFile, FileChunker, HeapUse, IndexFolderOptions, IndexHook, IndexProgress } from './engine-types';

/** A file of an index run, read, on its way to the index (`chunked`: sent to the pool). */
interface RunRead {
  r: ReadResult;
  stale: boolean;
  chunked?: Promise<ChunkedFile>;
}

/** One `indexFolder` run: what it walked, how it chunks, the reads in flight. */
interface IndexRun {
  src: FileSource;
  files: SourceFile[];
  hook?: IndexHook;
  signal?: AbortSignal;
  /** The chunk pool, when this run uses it. */
  pool?: FileChunker;
  /** The model the pool's threads embed with (none: vectors are made here). */
  embed?: ThreadModel;
  /** This thread embeds each file's chunks as it applies it, from the compounds the pool's threads found (see THREADS_EMBED_FROM). */
  embedHere?: boolean;
  /** Most reads in flight (0: each applied at once). */
  window: number;
  cap: number;
  heap: () => HeapUse;
  /** Files read so far (the heap is looked at every MEMORY_CHECK_FILES). */
  reads: number;
  /** Why the files left are not read (the heap is full). */
  full?: string;
  inFlight: RunRead[];
  inFlightBytes: number;
}

/**
 * With Fathom's own model, who embeds a cold index's chunks: with a pool of this many threads
 * or more, the threads (each the chunks it cut); with fewer, this thread, from the compounds the
 * threads scanned for the keyword index (`Embedder.chunkVectorInto`), as it applies each file.
 * Each thread that embeds pays again what the first chunks cost (compiling the tokenizer, cutting
 * every compound it meets into terms and looking them up: ~0.25 s of CPU per thread on a
 * 6,800-chunk folder), while this thread, whose tokenizer the keyword index keeps warm and which
 * idles waiting for the threads, embeds all of them for less than one thread's share. Measured
 * on 2 cores (docs/MODEL.md). With more threads this thread is the run's critical path (it
 * indexes what they all cut): there they embed (not measured: 2 cores here).
 * FATHOM_EMBED_IN_THREADS: 1 the threads embed whatever the pool's size, 0 this thread after
 * chunking (`embedPending`; for measuring).
 */
export const THREADS_EMBED_FROM = 3;

/** Whether the chunk threads of a pool of `size` embed (see THREADS_EMBED_FROM), else this thread does. */
export function threadsEmbed(size: number): boolean {
  const env = process.env.FATHOM_EMBED_IN_THREADS;
  if (env === '0') return false;
  return env === '1' || size >= THREADS_EMBED_FROM;
}

/** Below this many changed files or bytes an index run chunks in-thread: starting a thread costs more. */
export const POOL_MIN_FILES = 16;
export const POOL_MIN_BYTES = 256 * 1024;
/** The bytes of the files an index run has read and not yet applied, at most (beyond the one at the head of its window). */
export const IN_FLIGHT_BYTES = 32 * 1024 * 1024;

/**
 * The share of its heap limit past which an index run reads no more files. V8's heap limit is
 * fixed when the thread starts (by default from the machine's memory, 4 GB at most), and a
 * thread that reaches it dies: the CLI with "heap out of memory" and nothing saved, the
 * extension's worker stopped (and restarted, to run out again). A workspace too large for it
 * is indexed up to this share instead; the files left are visible skips (`memory`, retried on
 * every run), and the last quarter is left for what follows the reads: the replies in flight,
 * the i18n tables, the save's buffers. Measured: 1,600 generated JS files (19 MB, 64,000
 * chunks) at a 96 MB heap died before, and now index 1,472 of them and save; Debian's calibre
 * source (686,448 chunks, 640 MB of PO) at the default 4 GB indexes whole, as before.
 */
export const MEMORY_STOP_SHARE = 0.75;

/**
 * This thread's heap: in use (garbage not yet collected counts, so a run may stop early, never
 * late), and the limit the old generation can fill, without V8's young generation (48 MB at its
 * default 16 MB semi-spaces), which `heap_size_limit` includes.
 */
export function heapUse(): HeapUse {
  const h = v8.getHeapStatistics();
  return { used: h.used_heap_size, limit: Math.max(h.heap_size_limit / 2, h.heap_size_limit - 48 * 1024 * 1024) };
}

/** Files an index run reads between two looks at its heap. */
export const MEMORY_CHECK_FILES = 32;

/** Index runs over one engine's catalog. */
export class EngineRun {
  constructor(private readonly catalog: EngineCatalog) {}

  /**
   * Indexes a folder incrementally: new and changed files are chunked, unchanged ones (same
   * size and mtime) are not even read, vanished ones are removed; then vectors are computed
   * for what is pending. Files are read through `source` (a path: the folder on disk), with
   * its one read policy; `hook` gets the same content (the session's i18n index). Yields
   * progress; stops between files when `signal` aborts.
   *
   * With a chunk pool and Fathom's own model (an embedder with `inThreads`), the chunks are
   * embedded as the files are applied: by the pool's threads, each the chunks it cut, this thread
   * only storing the vectors; or, with a pool of fewer than THREADS_EMBED_FROM threads, by this
   * thread from the compounds the threads found. A transformers.js model embeds here, after
   * chunking (`embedPending`).
   */
  async *indexFolder(source: FileSource | string, options: IndexFolderOptions = {}): AsyncGenerator<IndexProgress> {
    const run = await this.startRun(typeof source === 'string' ? new NodeFileSource(source) : source, options);
    const { files, signal } = run;
    const t0 = Date.now();
    let done = 0;
    let lastYield = 0;
    for (let i = 0; i < files.length; i++) {
      signal?.throwIfAborted();
      this.readForRun(run, files[i]);
      await this.drainRun(run, i === files.length - 1);
      done = i + 1 - run.inFlight.length;
      const now = Date.now();
      if (now - lastYield > 100 || done === files.length) {
        lastYield = now;
        yield this.chunkProgress(run, done, (now - t0) / 1000);
      }
    }
    if (options.embed !== false) yield* this.embedPending(signal, files.length);
    yield { phase: 'done', filesDone: done, filesTotal: files.length, chunksEmbedded: 0, chunksToEmbed: this.catalog.pendingEmbed.size, rate: 0, ...(run.full !== undefined ? { message: `memory: the files left are ${run.full}` } : {}) };
  }

  /**
   * An index run's start: the walk (the hook sees its list), vanished files removed, walk
   * problems recorded, the pool chosen (only for a real job: a few changed files are chunked
   * here, at once), and whether its threads embed.
   */
  private async startRun(src: FileSource, options: IndexFolderOptions): Promise<IndexRun> {
    const problems: WalkProblem[] = [];
    const files = await src.walkAsync(options.selection, problems, options.signal);
    options.hook?.listed?.(files);
    this.pruneRun(files, problems);
    // an index built from nothing lays its keyword postings out at once, at the first search (keyword.ts beginBulk)
    this.catalog.keyword.beginBulk();
    const pool = this.poolFor(files, options.pool);
    if (!pool) await prepareLanguagesFor(files.map((f) => f.rel)); // tree-sitter grammars, only those needed (the pool's threads load their own)
    // files read and handed to the pool, applied (and given to the hook) in walk order: the
    // index, and what the hook sees when, are the same as in-thread. The window is twice what
    // the threads hold, so that one thread goes on while the file at the head of the window
    // takes the other a while; `IN_FLIGHT_BYTES` bounds the files it keeps in memory.
    const window = pool ? 2 * pool.size * (pool.depth ?? 8) : 0;
    // Fathom's own model (not a transformers.js one), when there is a vector store to fill: the
    // chunk threads embed, or this thread from their compounds (THREADS_EMBED_FROM);
    // FATHOM_EMBED_IN_THREADS=0 leaves it to `embedPending` (for measuring)
    const { embedder, vectors } = this.catalog;
    const own = pool && vectors && embedder?.inThreads?.id && embedder.dims === vectors.dims && process.env.FATHOM_EMBED_IN_THREADS !== '0';
    const embed = own && threadsEmbed(pool.size) ? embedder!.inThreads : undefined;
    const embedHere = !!own && !embed && embedder!.chunkVectorInto !== undefined;
    return { src, files, hook: options.hook, signal: options.signal, pool, embed, embedHere, window, cap: this.catalog.chunkOptions.maxFileBytes, heap: options.heap ?? heapUse, reads: 0, inFlight: [], inFlightBytes: 0 };
  }

  /** Removes the files the walk no longer lists; records its problems (a known one again: no new revision, no save). */
  private pruneRun(files: SourceFile[], problems: WalkProblem[]): void {
    const seen = new Set(files.map((f) => f.rel));
    for (const rel of [...this.catalog.files.keys()]) if (!seen.has(rel)) this.catalog.removeFile(rel);
    for (const p of problems) {
      const kind = p.kind ?? 'unreadable';
      const rec = this.catalog.files.get(p.rel);
      if (rec?.skipped && rec.skipped.reason === kind && rec.skipped.detail === p.reason) continue;
      this.catalog.skipFile(p.rel, { size: 0, mtimeMs: 0 }, kind, p.reason);
    }
  }

  /** Whether a walked file must be read: new, changed, or unreadable or left for memory last time (fixing permissions does not change its mtime). */
  private isStale(f: SourceFile): boolean {
    const rec = this.catalog.files.get(f.rel);
    return !(rec && rec.size === f.size && rec.mtimeMs === f.mtimeMs && rec.skipped?.reason !== 'unreadable' && rec.skipped?.reason !== 'memory');
  }

  /** The pool, when it is there and the run changes at least its `minFiles` files and `minBytes` bytes; else none (chunk here). */
  private poolFor(files: SourceFile[], p: FileChunker | undefined): FileChunker | undefined {
    if (!p?.available) return undefined;
    let staleFiles = 0;
    let staleBytes = 0;
    for (const f of files) {
      if (!this.isStale(f)) continue;
      staleFiles++;
      staleBytes += f.size;
    }
    return staleFiles >= (p.minFiles ?? POOL_MIN_FILES) && staleBytes >= (p.minBytes ?? POOL_MIN_BYTES) ? p : undefined;
  }

  /**
   * The heap, looked at every MEMORY_CHECK_FILES files read: past MEMORY_STOP_SHARE of its limit
   * the run's stale files left are skipped, not read (see MEMORY_STOP_SHARE). Why, once full.
   */
  private heapFull(run: IndexRun): string | undefined {
    if (run.full !== undefined || run.reads++ % MEMORY_CHECK_FILES !== 0) return run.full;
    const h = run.heap();
    if (h.limit > 0 && h.used > MEMORY_STOP_SHARE * h.limit) {
      const mb = (n: number) => Math.round(n / (1 << 20));
      run.full = `not indexed: the index used ${mb(h.used)} MB of the ${mb(h.limit)} MB it may use, and the rest is kept for saving and searching it`;
    }
    return run.full;
  }

  /** Reads one walked file when it is stale or the hook wants it; with a pool, sends it to be chunked (and embedded) and queues it, else applies it now. */
  private readForRun(run: IndexRun, f: SourceFile): void {
    const { hook, pool, cap } = run;
    let stale = this.isStale(f);
    let hookWants = hook?.wants?.(f) ?? false;
    if ((stale || hookWants) && this.heapFull(run) !== undefined) {
      if (stale) this.catalog.skipFile(f.rel, { size: f.size, mtimeMs: f.mtimeMs }, 'memory', run.full!);
      stale = hookWants = false;
    }
    if (!stale && !hookWants) return;
    const r = run.src.read(f.rel, Math.max(cap, hook?.maxBytes?.(f.rel) ?? 0));
    let chunked: RunRead['chunked'];
    if (stale && pool) {
      const old = this.catalog.files.get(f.rel);
      const asks = hookWants ? hook?.usages?.(r.rel) : undefined;
      // a file over the chunking cap that the hook reads (a big bundle searched for i18n
      // usages) goes to the thread too: it is skipped there at once, and parsed for the hook
      const send = r.ok && (r.stat.size <= cap || asks !== undefined) && r.decoded.text !== undefined && !(old && old.hash === r.hash);
      chunked = send ? pool.chunk(r.rel, r.decoded.text!, this.catalog.chunkSpec, run.signal, asks, run.embed) : undefined;
      chunked?.catch(() => undefined); // awaited in order by drainRun; a run stopped meanwhile leaves some unawaited
    }
    run.inFlight.push({ r, stale, chunked });
    run.inFlightBytes += r.ok ? r.bytes.length : 0;
  }

  /** Applies the reads at the head of the run's window, in walk order: all of them when `last`, else until the window and `IN_FLIGHT_BYTES` hold the rest. */
  private async drainRun(run: IndexRun, last: boolean): Promise<void> {
    const q = run.inFlight;
    while (q.length > run.window || (q.length > 1 && run.inFlightBytes > IN_FLIGHT_BYTES) || (last && q.length)) {
      const e = q.shift()!;
      run.inFlightBytes -= e.r.ok ? e.r.bytes.length : 0;
      await this.applyRunRead(run, e);
    }
  }

  /** One read of the run, in walk order: the pool's chunks (and vectors) when it sent the file (chunked here when the pool went away), given to the hook, then indexed. */
  private async applyRunRead(run: IndexRun, e: RunRead): Promise<void> {
    const { signal, hook } = run;
    let chunked: ChunkedFile | undefined;
    if (e.chunked) {
      try {
        chunked = await e.chunked;
      } catch {
        signal?.throwIfAborted();
        chunked = undefined; // the pool went away: chunk here
        await prepareLanguagesFor([e.r.rel]);
      }
    }
    signal?.throwIfAborted();
    hook?.read?.(e.r, chunked?.usages ? { usages: chunked.usages, ...(chunked.locale !== undefined ? { locale: chunked.locale } : {}) } : undefined);
    if (!e.stale) return;
    // vectors only of the model the run's threads were asked for, and this engine still has
    if (chunked?.vectors && this.catalog.embedder?.inThreads?.id !== run.embed?.id) delete chunked.vectors;
    if (run.embedHere && chunked?.compounds && !chunked.vectors && chunked.chunks.length) chunked.vectors = this.vectorsFromCompounds(chunked.chunks, chunked.compounds);
    if (e.r.ok && chunked && e.r.stat.size <= run.cap) this.catalog.updateContent(e.r, chunked);
    else this.catalog.applyRead(e.r);
  }

  /** The vectors of a file's chunks (row i: `chunks[i]`) from their compounds (`packCompounds`), or none when the embedder cannot (then they wait for `embedPending`). */
  private vectorsFromCompounds(chunks: readonly Chunk[], packed: Int32Array): Float32Array | undefined {
    const { embedder: e, vectors } = this.catalog;
    if (!e?.chunkVectorInto || !vectors || e.dims !== vectors.dims) return undefined;
    const d = e.dims;
    const out = new Float32Array(chunks.length * d);
    let at = 0;
    for (let i = 0; i < chunks.length; i++) at = e.chunkVectorInto(chunks[i].header, chunks[i].text, packed, at, out, i * d);
    return out;
  }

  private chunkProgress(run: IndexRun, done: number, seconds: number): IndexProgress {
    const total = run.files.length;
    const rate = done / Math.max(0.001, seconds);
    const progress: IndexProgress = { phase: 'chunk', filesDone: done, filesTotal: total, chunksEmbedded: 0, chunksToEmbed: this.catalog.pendingEmbed.size, rate, etaSeconds: (total - done) / rate };
    if (run.pool) progress.threads = run.pool.size;
    if (run.full !== undefined) progress.message = `memory: the files left are ${run.full}`;
    return progress;
  }

  /** Computes the vectors still missing, in batches, yielding progress after each batch. */
  async *embedPending(signal?: AbortSignal, filesTotal = this.catalog.files.size): AsyncGenerator<IndexProgress> {
    const embedder = this.catalog.embedder;
    const vectors = this.catalog.vectors;
    if (!embedder || !vectors || !this.catalog.pendingEmbed.size) return;
    const total = this.catalog.pendingEmbed.size;
    const t0 = Date.now();
    let done = 0;
    const batch = 32;
    while (this.catalog.pendingEmbed.size) {
      signal?.throwIfAborted();
      const ids = this.catalog.pendingEmbed.take(batch);
      const texts = ids.map((id) => embedText(this.catalog.chunks.get(id)!));
      const vecs = await embedder.embed(texts, signal);
      ids.forEach((id, i) => {
        if (!this.catalog.chunks.has(id) || !this.catalog.pendingEmbed.has(id)) return; // removed meanwhile
        vectors.set(id, vecs[i]);
        this.catalog.revision++;
        this.catalog.liveByHash.set((this.catalog.textHash[id] = hashText(texts[i])), id);
        this.catalog.pendingEmbed.delete(id);
      });
      done += ids.length;
      const rate = done / Math.max(0.001, (Date.now() - t0) / 1000);
      yield { phase: 'embed', filesDone: filesTotal, filesTotal, chunksEmbedded: done, chunksToEmbed: total, rate, etaSeconds: (total - done) / rate };
    }
  }
}
