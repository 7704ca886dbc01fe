/**
 * The engine behind every Fathom feature, in plain Node: a catalog of files, their chunks,
 * a keyword index, optional dense vectors, and hybrid search over them (reciprocal rank
 * fusion). The CLI drives it directly; the extension drives it through the worker.
 *
 * Incremental by construction: a file whose size and mtime (then content hash) did not
 * change is never re-chunked; a chunk whose embedded text did not change is never
 * re-embedded (vectors are cached by content hash, so a renamed file costs nothing).
 */
import * as v8 from 'node:v8';
import { sha1Hex } from '../util/hash';
import { chunkFile, decodeBytes, prepareLanguagesFor, resolveOptions, type ResolvedOptions } from '../chunkers/index';
import { SEARCH_TERMS_META, type Chunk, type ChunkOptions, type FileChunks } from '../chunkers/types';
import { embedText, type Embedder } from './embedder';
import type { ThreadModel } from './embedder-types';
import { EmbedQueue, embedTier, HINTED_TIER } from './embed-order';
import type { FileSelection, WalkProblem } from '../workspace/files';
import { NodeFileSource, type FileContent, type FileNotRead, type FileSource, type FileStat, type ReadResult, type SourceFile } from '../workspace/source';
import { diversify, type DiversifyOptions } from './rank/diversify';
import { I18N_TEXT_META, PHRASE_DEPTH, phraseFirst, proximityOrder, proximityText, shownForm, shownText, wholeValue } from './rank/phrase';
import { compileFilter, DEFAULT_RRF_K, modelLabel, ownModelWeight, rrf, weighByPath, type FilterSpec, type RankedList } from './rank/fusion';
import type { ScriptLocale, Usage, UsageOptions } from '../i18n/types';
import type { I18nFeed } from './i18n-feed';
import { ChunkTable, type ChunkHead, type StoredChunks } from './chunks';
import { KeywordIndex, type KeywordFields } from './keyword';
import { compoundsByChunk } from './terms';
import { VectorStore } from './vectors';
import { STATIC_MODEL_NAME } from './static-model';

export interface FileRecord {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the file's bytes. */
  hash: string;
  language: string;
  docIds: number[];
  category?: string;
  skipped?: { reason: string; detail: string };
  fallback?: string;
  warnings: string[];
}

export type SearchMode = 'hybrid' | 'keyword' | 'dense';

export interface SearchOptions {
  k?: number;
  mode?: SearchMode;
  filters?: FilterSpec;
  rrfK?: number;
  /** Locale folding, code first, the per-file cap (diversify.ts); `false` gives the plain fused order. */
  diversify?: DiversifyOptions | false;
}

export interface SearchHit {
  chunk: Chunk;
  docId: number;
  score: number;
  why: { keyword?: number; dense?: number; model?: string; fused: number };
  /** The same key section in other locale files (folded into this hit), best first. */
  alsoIn?: Chunk[];
  /** More chunks of this hit's file past the per-file cap ("more in this file"), best first. */
  moreInFile?: Chunk[];
}


export interface IndexProgress {
  phase: 'scan' | 'chunk' | 'embed' | 'done';
  filesDone: number;
  filesTotal: number;
  chunksEmbedded: number;
  chunksToEmbed: number;
  /** Items per second in the current phase. */
  rate: number;
  etaSeconds?: number;
  message?: string;
  /** Chunk phase: the files are chunked on this many pool threads (absent: on the indexing thread). */
  threads?: number;
}

/**
 * What else an index run feeds (the session's i18n index): it sees the walk's list, may ask for
 * files the engine would not read, and gets every file read — the same bytes and decoded text
 * the engine chunks, from one read.
 */
export interface IndexHook {
  /** The files the walk listed (before any is read). */
  listed?(files: SourceFile[]): void;
  /** The hook needs this file read although the engine's record is current. */
  wants?(file: SourceFile): boolean;
  /** The read cap the hook needs for this file, in bytes, when over the engine's. */
  maxBytes?(rel: string): number | undefined;
  /**
   * The i18n usages the hook will find in this file's text (their options), or undefined: a
   * pool thread that chunks the file finds them too, from the same parse, and `read` gets them.
   */
  usages?(rel: string): UsageOptions | undefined;
  /** A file was read (or could not be); `found`: its usages, from the pool thread that chunked it. */
  read?(file: ({ ok: true } & FileContent) | ({ ok: false } & FileNotRead), found?: { usages: Usage[]; locale?: ScriptLocale }): void;
}

/**
 * Chunks files off the indexing thread (src/service/chunk-pool.ts): `indexFolder` hands it the
 * changed files of a run and applies what comes back in walk order.
 */
export interface FileChunker {
  /** False: no thread to run on (chunk in-thread). */
  readonly available: boolean;
  /** Threads (with `depth`, how many files an index run keeps in flight). */
  readonly size: number;
  /** Most files each thread is sent ahead (ChunkPool's `depth`). */
  readonly depth?: number;
  /** A run with fewer changed files or bytes chunks in-thread (defaults POOL_MIN_FILES, POOL_MIN_BYTES). */
  readonly minFiles?: number;
  readonly minBytes?: number;
  /** `embed`: the thread also embeds the chunks with this model (`vectors`), when it can. */
  chunk(rel: string, text: string, options: ChunkOptions, signal?: AbortSignal, usages?: UsageOptions, embed?: ThreadModel): Promise<ChunkedFile>;
}

/**
 * A file as a chunk thread gives it back: its chunks, the i18n usages asked for, the compounds
 * of the chunk texts and, when asked, the vector of each chunk (row i: `chunks[i]`, in one buffer).
 */
export type ChunkedFile = FileChunks & { usages?: Usage[]; locale?: ScriptLocale; compounds?: Int32Array; vectors?: Float32Array };

export interface IndexFolderOptions {
  signal?: AbortSignal;
  /** False: the vectors still missing after chunking are left for a later `embedPending` (the chunk threads' vectors are kept). */
  embed?: boolean;
  selection?: FileSelection;
  hook?: IndexHook;
  pool?: FileChunker;
  heap?: () => HeapUse;
}

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

/** Heap in use and the heap limit of this thread, in bytes. */
export interface HeapUse {
  used: number;
  limit: number;
}

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

export interface EngineOptions {
  chunk?: ChunkOptions;
  embedder?: Embedder;
  /** Why there is no embedder (shown to the user); the engine then works keyword-only. */
  noEmbedderReason?: string;
  /**
   * The embedding order: `tiered` (default: hinted files, code, docs/tests, locales/fixtures,
   * src/index/embed-order.ts) or `walk` (the walk's order, hints ignored: the benchmark's baseline).
   */
  embedOrder?: 'tiered' | 'walk';
  /**
   * Dense search past exact scan: from `annMinRows` vectors on (default 200,000), the IVF index
   * (src/index/ivf.ts) opening `probe` lists (default `probeFor(lists)`) answers instead of the exact
   * scan. Chosen by bench/dense.ts.
   */
  dense?: { annMinRows?: number; probe?: number };
}

/** Below this many vectors the exact scan answers (about 10 ms at 100k on 2 cores with MatMul). */
export const ANN_MIN_ROWS = 200_000;

/**
 * Find Similar with vectors: the least cosine similarity a result needs. A judgement from
 * all-MiniLM-L6-v2's usual range (related code well above it, unrelated well below), not a
 * measured optimum; callers may pass their own `minScore`.
 */
export const SIMILAR_MIN_COSINE = 0.5;
/** Find Similar keyword-only: the least share of the source's own BM25 score a result needs. */
export const SIMILAR_MIN_KEYWORD_SHARE = 0.25;

/** What Find Similar starts from: a chunk, the chunk at a 1-based line, or a text (with the lines it came from, which are left out). */
export type SimilarTarget = { chunkId: string } | { path: string; line: number } | { text: string; path?: string; startLine?: number; endLine?: number };

/**
 * A Markdown section (or section piece) that is nothing but one code block has the same range
 * and text as that code block's own chunk: one chunk, one result. The code block's chunk goes
 * (the section keeps its breadcrumb and its place among the file's sections) and the
 * section's link to it with it.
 */
export function withoutTwinCodeBlocks(chunks: Chunk[]): Chunk[] {
  const sections = new Map<string, Chunk>();
  for (const c of chunks) if (c.kind === 'section') sections.set(`${c.start.offset}:${c.end.offset}`, c);
  if (sections.size === 0) return chunks;
  const dropped = new Set<string>();
  for (const c of chunks) {
    if (c.kind !== 'code-block') continue;
    const twin = sections.get(`${c.start.offset}:${c.end.offset}`);
    if (twin && twin.text === c.text) dropped.add(c.id);
  }
  if (dropped.size === 0) return chunks;
  return chunks
    .filter((c) => !dropped.has(c.id))
    .map((c) => (c.links?.codeBlocks?.some((id) => dropped.has(id)) ? { ...c, links: { ...c.links, codeBlocks: c.links.codeBlocks.filter((id) => !dropped.has(id)) } } : c));
}

/**
 * What the keyword index holds of a chunk: the i18n text and the chunker's search terms count as
 * header words — searchable, never displayed (the header shown is `chunk.header`). The team
 * index (pgstore.ts) makes its records with the same.
 */
export function keywordFieldsOf(chunk: Chunk): KeywordFields {
  const extra = chunk.meta?.[I18N_TEXT_META];
  const terms = chunk.meta?.[SEARCH_TERMS_META];
  let header = typeof extra === 'string' ? `${chunk.header}\n${extra}` : chunk.header;
  if (typeof terms === 'string') header = `${header}\n${terms}`;
  return { path: chunk.path, header, symbol: chunk.symbol, text: chunk.text, language: chunk.language, kind: chunk.kind };
}

export const hashText = sha1Hex;

export class Engine {
  /** The chunks by docId (a loaded store's are read from it in place: see chunks.ts). */
  readonly chunks = new ChunkTable();
  readonly files = new Map<string, FileRecord>();
  readonly keyword = new KeywordIndex();
  vectors: VectorStore | undefined;
  readonly chunkOptions: ResolvedOptions;
  embedder: Embedder | undefined;
  noEmbedderReason: string | undefined;
  private readonly walkOrder: boolean;
  /**
   * Vectors of removed chunks by hash of their embedded text (copies: their rows get reused),
   * so that an edit undone or a file renamed (removed, then added) costs no embedding. Oldest
   * first out past `cacheLimit` entries.
   */
  readonly vectorCache = new Map<string, Float32Array>();
  /** A live chunk with a vector, by hash of its embedded text: the same text elsewhere reuses it (built on first use after a load). */
  private liveByHashMap: Map<string, number> | undefined = new Map();
  /** Hash of each live chunk's embedded text, by docId (a loaded store's: in the store, `storedHashes`). */
  private readonly textHash: string[] = [];
  private storedHashes: StoredChunks | undefined;
  /** Chunks waiting for a vector, in embedding order (src/index/embed-order.ts). */
  private readonly pendingEmbed = new EmbedQueue();
  /** Files the editor wants embedded first (open, visible, recently edited), most wanted first. */
  private hinted: string[] = [];
  private readonly hintedSet = new Set<string>();
  private free: number[] = [];
  /** What the folder's i18n index told (setI18n). */
  private i18n: I18nFeed | undefined;
  /** Set when the embedder's scoring kernel failed once (then the JS scan is used): why. */
  kernelFailed: string | undefined;
  /** How many removed chunks' vectors are kept: half the live chunks, at least 4,096. */
  get cacheLimit(): number {
    return Math.max(4096, this.chunks.count >> 1);
  }

  readonly annMinRows: number;
  /** Lists opened per ANN query; default `probeFor(lists)`. */
  readonly annProbe: number | undefined;
  private annBuilding: Promise<void> | undefined;

  /** Bumped by every change to chunks, files or vectors: what tells a caller to save. */
  revision = 0;
  /** `shownLines` per docId (null: displays nothing); an entry goes when its chunk changes. */
  private shownCache = new Map<number, readonly string[] | null>();

  /** The chunk options as given (plain data: what a chunk pool's thread is sent). */
  private readonly chunkSpec: ChunkOptions;

  constructor(options: EngineOptions = {}) {
    this.chunkSpec = { ...options.chunk };
    this.chunkOptions = resolveOptions(options.chunk ?? {});
    this.embedder = options.embedder;
    this.walkOrder = options.embedOrder === 'walk';
    this.noEmbedderReason = options.embedder ? undefined : (options.noEmbedderReason ?? 'no embedding model configured');
    if (this.embedder) this.vectors = new VectorStore(this.embedder.dims);
    this.annMinRows = options.dense?.annMinRows ?? ANN_MIN_ROWS;
    this.annProbe = options.dense?.probe;
  }

  get chunkCount(): number {
    return this.chunks.count;
  }

  get pendingVectors(): number {
    return this.pendingEmbed.size;
  }

  docIdOf(chunkId: string): number | undefined {
    return this.chunks.docIdOf(chunkId);
  }

  /** Forgets everything (a store that failed to load leaves the engine empty, not half-filled). */
  reset(): void {
    this.chunks.clear();
    this.shownCache.clear();
    this.files.clear();
    this.keyword.clear();
    this.pendingEmbed.clear();
    this.liveByHashMap = new Map();
    this.textHash.length = 0;
    this.storedHashes = undefined;
    this.free = [];
    if (this.vectors) this.vectors = new VectorStore(this.vectors.dims);
  }

  /**
   * Restores stored chunks and catalog (the keyword index is imported separately): chunk objects,
   * or a store's columnar chunks (read in place, see chunks.ts). With `vectors`, the chunks
   * without a vector wait for one; the hashes of the embedded texts come from the store when it
   * has them (else they are computed).
   */
  restore(catalog: FileRecord[], chunks: Array<Chunk | null> | StoredChunks, vectors?: VectorStore): void {
    this.chunks.clear();
    this.shownCache.clear();
    this.free = [];
    this.files.clear();
    this.pendingEmbed.clear();
    this.textHash.length = 0;
    this.storedHashes = undefined;
    this.liveByHashMap = undefined; // built on first use
    if (this.vectors) this.vectors = vectors && vectors.dims === this.vectors.dims ? vectors : new VectorStore(this.vectors.dims);
    const v = this.vectors;
    for (const rec of catalog) this.files.set(rec.path, rec);
    if (Array.isArray(chunks)) {
      chunks.forEach((c, docId) => {
        if (!c) {
          this.free.push(docId);
          return;
        }
        this.chunks.set(docId, c);
        if (v?.has(docId)) this.textHash[docId] = hashText(embedText(c));
        else if (v) this.pendingEmbed.add(docId, this.tierOf(c));
      });
      return;
    }
    this.chunks.adopt(chunks);
    this.storedHashes = chunks;
    for (let docId = 0; docId < chunks.rows; docId++) {
      if (!chunks.alive(docId)) this.free.push(docId);
      else if (v?.has(docId)) {
        if (!chunks.hasHash(docId)) this.textHash[docId] = hashText(embedText(chunks.chunk(docId)));
      } else if (v) this.pendingEmbed.add(docId, this.tierOf(chunks.facts(docId)));
    }
  }

  /** Hash of a live chunk's embedded text (set when it got its vector, or kept in the store it was loaded from). */
  textHashOf(docId: number): string | undefined {
    return this.textHash[docId] ?? this.storedHashes?.hash(docId);
  }

  /** `liveByHashMap`, built from the live chunks' vectors and hashes when a load left it out. */
  private get liveByHash(): Map<string, number> {
    if (!this.liveByHashMap) {
      const m = new Map<string, number>();
      const v = this.vectors;
      if (v) {
        for (let id = 0; id < this.chunks.length; id++) {
          if (!v.has(id) || !this.chunks.has(id)) continue;
          const h = this.textHashOf(id);
          if (h) m.set(h, id);
        }
      }
      this.liveByHashMap = m;
    }
    return this.liveByHashMap;
  }

  /** Where a chunk goes in the embedding queue: hinted files first, locale files and fixtures last. */
  private tierOf(c: { path: string; language: string }, category = this.files.get(c.path)?.category): number {
    if (this.walkOrder) return 1;
    return this.hintedSet.has(c.path) ? HINTED_TIER : embedTier(c.path, c.language, category);
  }

  /**
   * The files to embed first (workspace-relative, most wanted first): the open and visible
   * editors, the recently edited files. Replaces the previous hint; their waiting chunks move
   * to the front of the queue, the previous hint's go back to their own tier.
   */
  setPriority(paths: readonly string[]): void {
    if (this.walkOrder) return;
    const next = [...new Set(paths)].slice(0, 200);
    const old = this.hinted;
    this.hinted = next;
    this.hintedSet.clear();
    for (const p of next) this.hintedSet.add(p);
    for (const p of old) {
      if (this.hintedSet.has(p)) continue;
      for (const id of this.files.get(p)?.docIds ?? []) {
        const c = this.chunks.facts(id);
        if (c) this.pendingEmbed.move(id, this.tierOf(c));
      }
    }
    for (const p of next) for (const id of this.files.get(p)?.docIds ?? []) this.pendingEmbed.move(id, HINTED_TIER);
  }

  /** The files hinted by `setPriority`, most wanted first. */
  get priority(): readonly string[] {
    return this.hinted;
  }

  /** Chunks waiting for a vector per tier (hinted, code, docs/config/tests, locales/fixtures). */
  pendingByTier(): number[] {
    return this.pendingEmbed.counts();
  }

  /** Restores stored vectors after `restore`; chunks without one stay pending. */
  restoreVectors(store: VectorStore): void {
    if (!this.vectors || store.dims !== this.vectors.dims) return;
    this.vectors = store;
    this.liveByHashMap = undefined;
    for (const id of [...this.pendingEmbed]) {
      if (!store.has(id)) continue;
      this.pendingEmbed.delete(id);
      if (this.textHashOf(id) === undefined) this.textHash[id] = hashText(embedText(this.chunks.get(id)!));
    }
  }

  /** The rows of a chunk thread's vectors by chunk id (row i: `chunks[i]`); none when they do not fit this engine's vectors. */
  private vectorRows(chunks: readonly Chunk[], flat: Float32Array): Map<string, Float32Array> | undefined {
    const d = this.vectors?.dims;
    if (!d || flat.length !== chunks.length * d) return undefined;
    return new Map(chunks.map((c, i) => [c.id, flat.subarray(i * d, (i + 1) * d)]));
  }

  /** Adds a chunk to the indexes; its vector: one known for its text, else `vector` (made by a chunk thread), else it waits for `embedPending`. */
  private addChunk(chunk: Chunk, category?: string, textCompounds?: Int32Array, vector?: Float32Array): number {
    this.revision++;
    const docId = this.free.length ? this.free.pop()! : this.chunks.length;
    const extra = this.i18n?.textFor(chunk);
    if (extra !== undefined) chunk = { ...chunk, meta: { ...chunk.meta, [I18N_TEXT_META]: extra } };
    this.chunks.set(docId, chunk);
    this.shownCache.delete(docId);
    this.addKeyword(docId, chunk, textCompounds);
    if (this.vectors) {
      const h = (this.textHash[docId] = hashText(embedText(chunk)));
      const twin = this.liveByHash.get(h);
      const known = this.vectorCache.get(h) ?? (twin !== undefined ? this.vectors.get(twin) : undefined);
      if (known ?? vector) {
        this.vectors.set(docId, (known ?? vector)!);
        this.liveByHash.set(h, docId);
      } else this.pendingEmbed.add(docId, this.tierOf(chunk, category));
    }
    return docId;
  }

  private addKeyword(docId: number, chunk: Chunk, textCompounds?: Int32Array): void {
    this.keyword.add(docId, keywordFieldsOf(chunk), textCompounds);
  }

  /**
   * Feeds what the folder's i18n index knows (see i18n-feed.ts): which files are locale files,
   * and the i18n text of each code chunk. Chunks whose i18n text changed are re-indexed (by
   * keyword only: the embedded text does not change); `undefined` takes the feed away. With
   * `paths`, only the chunks of those files are looked at. Returns how many chunks changed.
   */
  setI18n(feed: I18nFeed | undefined, paths?: Iterable<string>): number {
    this.i18n = feed;
    let changed = 0;
    // only these files' chunks (an update that changed no locale file), else every chunk
    const ids = paths ? [...paths].flatMap((p) => this.files.get(p)?.docIds ?? []) : this.chunks.keys();
    for (const docId of ids) {
      const c = this.chunks.get(docId);
      if (!c) continue;
      const want = feed?.textFor(c);
      const have = c.meta?.[I18N_TEXT_META];
      if (want === have || (want === undefined && have === undefined)) continue;
      const meta = { ...c.meta };
      if (want === undefined) delete meta[I18N_TEXT_META];
      else meta[I18N_TEXT_META] = want;
      const next: Chunk = { ...c, meta };
      if (Object.keys(meta).length === 0) delete next.meta;
      this.chunks.set(docId, next);
      this.shownCache.delete(docId);
      this.addKeyword(docId, next);
      changed++;
    }
    if (changed) this.revision++;
    return changed;
  }

  /** Is this chunk in a locale file (a JSON i18n dictionary, or a locale file the i18n feed names)? */
  isLocaleChunk(c: Pick<Chunk, 'kind' | 'path'>): boolean {
    if (c.kind === 'i18n-section' || c.kind === 'i18n-labels') return true;
    return this.i18n?.localeFiles.has(c.path) ?? this.files.get(c.path)?.category === 'i18n';
  }

  private removeDoc(docId: number): void {
    if (!this.chunks.has(docId)) return;
    this.revision++;
    this.chunks.delete(docId);
    this.shownCache.delete(docId);
    this.keyword.remove(docId);
    const v = this.vectors?.get(docId);
    const h = this.textHashOf(docId);
    if (v && h) {
      this.vectorCache.delete(h);
      this.vectorCache.set(h, v.slice());
      if (this.liveByHash.get(h) === docId) this.liveByHash.delete(h);
      for (const old of this.vectorCache.keys()) {
        if (this.vectorCache.size <= this.cacheLimit) break;
        this.vectorCache.delete(old);
      }
    }
    this.vectors?.delete(docId);
    this.pendingEmbed.delete(docId);
    this.free.push(docId);
  }

  /** Removes a file and its chunks from every index. */
  removeFile(rel: string): boolean {
    const rec = this.files.get(rel);
    if (!rec) return false;
    for (const id of rec.docIds) this.removeDoc(id);
    this.files.delete(rel);
    this.revision++;
    return true;
  }

  /**
   * Chunks and indexes one file's bytes (keyword-searchable at once; its vectors follow with
   * `embedPending`). Returns false when the content hash shows nothing changed.
   */
  updateFile(rel: string, bytes: Uint8Array, stat: FileStat): boolean {
    const hash = hashText(bytes);
    const old = this.files.get(rel);
    if (old && old.hash === hash) return this.updateContent({ rel, stat, bytes, hash, decoded: { encoding: 'binary', bom: false } });
    return this.updateContent({ rel, stat, bytes, hash, decoded: decodeBytes(bytes) });
  }

  /**
   * The same as `updateFile` for a file the FileSource read (hash and decoded text given: the
   * session hands the same content to the i18n index).
   */
  updateContent(content: FileContent, chunked?: ChunkedFile): boolean {
    const { rel, stat, hash } = content;
    const old = this.files.get(rel);
    if (old && old.hash === hash) {
      if (old.mtimeMs !== stat.mtimeMs) this.revision++;
      old.size = stat.size;
      old.mtimeMs = stat.mtimeMs;
      return false;
    }
    if (old) this.removeFile(rel);
    const rec: FileRecord = { path: rel, size: stat.size, mtimeMs: stat.mtimeMs, hash, language: '', docIds: [], warnings: [] };
    const decoded = content.decoded;
    if (decoded.text === undefined) {
      rec.skipped = { reason: 'binary', detail: decoded.binary ?? 'binary content' };
    } else {
      // `chunked`: what a chunk pool's thread made of the same text
      const result = chunked ?? chunkFile(rel, decoded.text, this.chunkOptions);
      rec.language = result.language;
      if (result.category) rec.category = result.category;
      if (result.skipped) rec.skipped = result.skipped;
      if (result.fallback) rec.fallback = result.fallback;
      rec.warnings = result.warnings;
      if (decoded.replaced) rec.warnings.push(`invalid UTF-8: decoded with ${decoded.replaced} replacement character(s)`);
      // the compounds of the chunk texts, when the pool's thread found them (see PooledChunks)
      const packed = chunked?.compounds;
      const compounds = packed ? compoundsByChunk(result.chunks, packed) : undefined;
      // the vectors, when the pool's thread embedded the chunks (Fathom's own model)
      const rows = chunked?.vectors ? this.vectorRows(result.chunks, chunked.vectors) : undefined;
      for (const c of withoutTwinCodeBlocks(result.chunks)) rec.docIds.push(this.addChunk(c, result.category, compounds?.get(c.id), rows?.get(c.id)));
    }
    this.files.set(rel, rec);
    return true;
  }

  /** Records a file that could not be read or was too large, so it shows with its reason. */
  skipFile(rel: string, stat: { size: number; mtimeMs: number }, reason: string, detail: string): void {
    this.removeFile(rel);
    this.revision++;
    this.files.set(rel, { path: rel, size: stat.size, mtimeMs: stat.mtimeMs, hash: '', language: '', docIds: [], skipped: { reason, detail }, warnings: [] });
  }

  /**
   * Indexes a folder incrementally: new and changed files are chunked, unchanged ones (same
   * size and mtime) are not even read, vanished ones are removed; then vectors are computed
   * for what is pending. Files are read through `source` (a path: the folder on disk), with
   * its one read policy; `hook` gets the same content (the session's i18n index). Yields
   * progress; stops between files when `signal` aborts.
   *
   * With a chunk pool and Fathom's own model (an embedder with `inThreads`), the pool's threads
   * embed the chunks they cut and this thread only stores the vectors; a transformers.js model
   * embeds here, after chunking (`embedPending`).
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
    yield { phase: 'done', filesDone: done, filesTotal: files.length, chunksEmbedded: 0, chunksToEmbed: this.pendingEmbed.size, rate: 0, ...(run.full !== undefined ? { message: `memory: the files left are ${run.full}` } : {}) };
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
    this.keyword.beginBulk();
    const pool = this.poolFor(files, options.pool);
    if (!pool) await prepareLanguagesFor(files.map((f) => f.rel)); // tree-sitter grammars, only those needed (the pool's threads load their own)
    // files read and handed to the pool, applied (and given to the hook) in walk order: the
    // index, and what the hook sees when, are the same as in-thread. The window is twice what
    // the threads hold, so that one thread goes on while the file at the head of the window
    // takes the other a while; `IN_FLIGHT_BYTES` bounds the files it keeps in memory.
    const window = pool ? 2 * pool.size * (pool.depth ?? 8) : 0;
    // the chunk threads embed with Fathom's own model (not a transformers.js one), when there is a
    // vector store to fill; FATHOM_EMBED_IN_THREADS=0 keeps it on this thread (for measuring)
    const embed = pool && this.vectors && process.env.FATHOM_EMBED_IN_THREADS !== '0' && this.embedder?.inThreads?.id && this.embedder.dims === this.vectors.dims ? this.embedder.inThreads : undefined;
    return { src, files, hook: options.hook, signal: options.signal, pool, embed, window, cap: this.chunkOptions.maxFileBytes, heap: options.heap ?? heapUse, reads: 0, inFlight: [], inFlightBytes: 0 };
  }

  /** Removes the files the walk no longer lists; records its problems (a known one again: no new revision, no save). */
  private pruneRun(files: SourceFile[], problems: WalkProblem[]): void {
    const seen = new Set(files.map((f) => f.rel));
    for (const rel of [...this.files.keys()]) if (!seen.has(rel)) this.removeFile(rel);
    for (const p of problems) {
      const kind = p.kind ?? 'unreadable';
      const rec = this.files.get(p.rel);
      if (rec?.skipped && rec.skipped.reason === kind && rec.skipped.detail === p.reason) continue;
      this.skipFile(p.rel, { size: 0, mtimeMs: 0 }, kind, p.reason);
    }
  }

  /** Whether a walked file must be read: new, changed, or unreadable or left for memory last time (fixing permissions does not change its mtime). */
  private isStale(f: SourceFile): boolean {
    const rec = this.files.get(f.rel);
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
      if (stale) this.skipFile(f.rel, { size: f.size, mtimeMs: f.mtimeMs }, 'memory', run.full!);
      stale = hookWants = false;
    }
    if (!stale && !hookWants) return;
    const r = run.src.read(f.rel, Math.max(cap, hook?.maxBytes?.(f.rel) ?? 0));
    let chunked: RunRead['chunked'];
    if (stale && pool) {
      const old = this.files.get(f.rel);
      const asks = hookWants ? hook?.usages?.(r.rel) : undefined;
      // a file over the chunking cap that the hook reads (a big bundle searched for i18n
      // usages) goes to the thread too: it is skipped there at once, and parsed for the hook
      const send = r.ok && (r.stat.size <= cap || asks !== undefined) && r.decoded.text !== undefined && !(old && old.hash === r.hash);
      chunked = send ? pool.chunk(r.rel, r.decoded.text!, this.chunkSpec, run.signal, asks, run.embed) : undefined;
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
    if (chunked?.vectors && this.embedder?.inThreads?.id !== run.embed?.id) delete chunked.vectors;
    if (e.r.ok && chunked && e.r.stat.size <= run.cap) this.updateContent(e.r, chunked);
    else this.applyRead(e.r);
  }

  private chunkProgress(run: IndexRun, done: number, seconds: number): IndexProgress {
    const total = run.files.length;
    const rate = done / Math.max(0.001, seconds);
    const progress: IndexProgress = { phase: 'chunk', filesDone: done, filesTotal: total, chunksEmbedded: 0, chunksToEmbed: this.pendingEmbed.size, rate, etaSeconds: (total - done) / rate };
    if (run.pool) progress.threads = run.pool.size;
    if (run.full !== undefined) progress.message = `memory: the files left are ${run.full}`;
    return progress;
  }

  /**
   * Applies one read of the FileSource: indexed, skipped as too large for the chunking cap
   * (bytes) or unreadable (shown with the reason), or removed when it is gone. True when the
   * index changed.
   */
  applyRead(r: ({ ok: true } & FileContent) | ({ ok: false } & FileNotRead)): boolean {
    const cap = this.chunkOptions.maxFileBytes;
    if (r.ok) {
      if (r.stat.size > cap) {
        this.skipFile(r.rel, r.stat, 'too-large', `${r.stat.size} bytes, over the ${cap}-byte cap`);
        return true;
      }
      return this.updateContent(r);
    }
    if (r.reason === 'missing') return this.removeFile(r.rel);
    this.skipFile(r.rel, r.stat ?? { size: 0, mtimeMs: 0 }, r.reason, r.detail);
    return true;
  }

  /** Computes the vectors still missing, in batches, yielding progress after each batch. */
  async *embedPending(signal?: AbortSignal, filesTotal = this.files.size): AsyncGenerator<IndexProgress> {
    const embedder = this.embedder;
    const vectors = this.vectors;
    if (!embedder || !vectors || !this.pendingEmbed.size) return;
    const total = this.pendingEmbed.size;
    const t0 = Date.now();
    let done = 0;
    const batch = 32;
    while (this.pendingEmbed.size) {
      signal?.throwIfAborted();
      const ids = this.pendingEmbed.take(batch);
      const texts = ids.map((id) => embedText(this.chunks.get(id)!));
      const vecs = await embedder.embed(texts, signal);
      ids.forEach((id, i) => {
        if (!this.chunks.has(id) || !this.pendingEmbed.has(id)) return; // removed meanwhile
        vectors.set(id, vecs[i]);
        this.revision++;
        this.liveByHash.set((this.textHash[id] = hashText(texts[i])), id);
        this.pendingEmbed.delete(id);
      });
      done += ids.length;
      const rate = done / Math.max(0.001, (Date.now() - t0) / 1000);
      yield { phase: 'embed', filesDone: filesTotal, filesTotal, chunksEmbedded: done, chunksToEmbed: total, rate, etaSeconds: (total - done) / rate };
    }
  }

  private filterFor(spec: FilterSpec | undefined): ((docId: number) => boolean) | undefined {
    if (!spec || (!spec.pathGlob && !spec.language?.length && !spec.kind?.length)) return undefined;
    return compileFilter(spec, (id) => this.chunks.facts(id));
  }

  /** Hybrid search: keyword and dense rankings fused with RRF; each hit says why it ranked. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const k = Math.max(1, options.k ?? 10);
    const q = query.length > 10_000 ? query.slice(0, 10_000) : query;
    if (!q.trim()) return [];
    const filter = this.filterFor(options.filters);
    const mode = options.mode ?? 'hybrid';
    const depth = Math.max(50, k * 5);
    const lists: RankedList[] = [];
    const found = { phrase: false };
    if (mode !== 'dense') {
      // the phrase and shown-value tiers look deeper than the list fused: a chunk that displays
      // the query ("Confirm") can rank low on BM25 among chunks that use the word in code
      const hits = this.keyword.search(q, { k: Math.max(depth, PHRASE_DEPTH), filter });
      const texts = new Map<number, string | undefined>();
      const textOf = (id: number) => {
        if (!texts.has(id)) texts.set(id, this.chunks.text(id));
        return texts.get(id);
      };
      const ids = proximityOrder(q, hits, depth, (id) => proximityText(textOf(id), this.chunks.head(id)));
      lists.push({ name: 'keyword', ids: phraseFirst(q, ids, textOf, (id) => this.shownLines(id), depth, found).slice(0, depth) });
    }
    // Fathom's own model takes part where it helps (fusion.ts, ownModelWeight); another model always
    const weight = this.embedder ? (this.embedder.id.startsWith(STATIC_MODEL_NAME) ? (mode === 'dense' ? 1 : ownModelWeight(q, found.phrase)) : 1) : 0;
    if (mode !== 'keyword' && weight > 0 && this.embedder && this.vectors && this.vectors.count) {
      const [qv] = await this.embedder.embed([q], undefined, { urgent: true, query: true });
      lists.push({ name: 'dense', ids: (await this.denseTop(qv, depth, filter)).map((h) => h.docId), weight });
    }
    // implementation above its tests, unless the query is about tests; the code a plain-words
    // query describes above the prose that talks about it, unless the query is about docs
    const fused = weighByPath(
      rrf(lists, { k: options.rrfK ?? DEFAULT_RRF_K, limit: options.diversify === false ? k : depth }).filter((h) => this.chunks.has(h.docId)),
      q,
      (h) => this.chunks.head(h.docId)?.path,
      { describes: ownModelWeight(q, found.phrase) > 0 },
    );
    // "why it ranked" names the model behind a meaning rank
    if (this.embedder) {
      const model = modelLabel(this.embedder.id);
      for (const h of fused) if (h.why.dense !== undefined) h.why.model = model;
    }
    if (options.diversify === false) return fused.map((h) => ({ chunk: this.chunks.get(h.docId)!, docId: h.docId, score: h.score, why: h.why }));
    const byId = new Map(fused.map((h) => [h.docId, h]));
    // a key or a path (`user.sign_out`, `src/a.js`) asks for itself: no code-first order then
    const inWords = !/^[\w$@-]+(?:[./:][\w$@-]+)+$/.test(q.trim());
    const whole = inWords ? wholeValue(q) : undefined;
    const ranked = fused.map((h) => {
      const c = this.chunks.head(h.docId)!;
      const locale = this.isLocaleChunk(c);
      // a locale result keeps its place ahead of code only when one of its values is the query
      return { docId: h.docId, path: c.path, symbol: c.symbol, locale, verbatim: locale && whole ? whole.test(this.chunks.text(h.docId)!) : undefined };
    });
    const chunk = (id: number) => this.chunks.get(id)!;
    return diversify(ranked, { codeFirst: inWords, ...options.diversify })
      .slice(0, k)
      .map((d) => {
        const h = byId.get(d.docId)!;
        const hit: SearchHit = { chunk: chunk(d.docId), docId: d.docId, score: h.score, why: h.why };
        if (d.folded.length) hit.alsoIn = d.folded.map(chunk);
        if (d.moreInFile.length) hit.moreInFile = d.moreInFile.map(chunk);
        return hit;
      });
  }

  /**
   * A query of several words that a chunk contains as written (a displayed string pasted in, a
   * heading) ranks that chunk first: exact case and accents first, then ignoring case; BM25
   * order is kept within each tier. Term matching alone cannot tell "Bosnia y Herzegovina"
   * (es) from "Bosnia i Hercegovina" (hr) once one-letter words are dropped, nor "Antígua"
   * from "Antigua" once accents are folded. Measured by `fathom eval` (i18n route).
   */
  private phraseFirst(query: string, ids: number[], depth = ids.length): number[] {
    return phraseFirst(query, ids, (id) => this.chunks.text(id), (id) => this.shownLines(id), depth);
  }

  /** The strings a chunk displays, each in `shownForm` (see `phraseFirst`); cached per chunk until it changes. */
  private shownLines(docId: number): readonly string[] | undefined {
    let lines = this.shownCache.get(docId);
    if (lines === undefined) {
      const t = shownText(this.chunks.head(docId));
      lines = t ? t.split('\n').map(shownForm).filter((l) => l.length > 0) : null;
      this.shownCache.set(docId, lines);
    }
    return lines ?? undefined;
  }

  /** Exact dense top-k: the embedder's BLAS kernel when it has one (and it works), else the int8 SIMD scan with a float re-score, else the JS scan. */
  private async denseTop(qv: Float32Array, k: number, filter?: (docId: number) => boolean): Promise<Array<{ docId: number; score: number }>> {
    const vectors = this.vectors!;
    if (vectors.count >= this.annMinRows) {
      // the build takes seconds to minutes at 1M rows: queries meanwhile get the exact scan
      if (!vectors.ann || vectors.ann.stale) void this.prepareAnn().catch(() => undefined);
      else return vectors.annSearch(qv, k, { probe: this.annProbe, filter });
    }
    if (this.embedder?.scoreRows && !this.kernelFailed) {
      const { data, rows } = vectors.matrix();
      try {
        return vectors.topK(await this.embedder.scoreRows(data, rows, qv), k, filter);
      } catch (err) {
        this.kernelFailed = `the embedder's scoring kernel failed, using the JS scan: ${(err as Error).message}`;
      }
    }
    return vectors.fastSearch(qv, k, filter) ?? vectors.search(qv, k, filter);
  }

  /**
   * Builds the IVF index when there are enough vectors and it is missing or stale (rows grew by
   * half since its build); one build at a time. A dense search starts it without waiting (and
   * scans exactly until it is done); an indexer may await it after embedding.
   */
  async prepareAnn(): Promise<void> {
    const vectors = this.vectors;
    if (!vectors || vectors.count < this.annMinRows || (vectors.ann && !vectors.ann.stale)) return;
    if (!this.annBuilding) {
      const matmul = this.embedder?.matmul?.bind(this.embedder);
      this.annBuilding = vectors
        .buildAnn({ matmul })
        .then(() => undefined)
        .finally(() => (this.annBuilding = undefined));
    }
    await this.annBuilding;
  }

  /** The chunk of `path` that holds 1-based `line` (the innermost, for nested code blocks). */
  chunkAt(path: string, line: number): Chunk | undefined {
    const rec = this.files.get(path);
    let best: ChunkHead | undefined;
    let bestId = -1;
    for (const id of rec?.docIds ?? []) {
      const c = this.chunks.head(id);
      if (c && c.start.line <= line && c.end.line >= line && (!best || c.end.offset - c.start.offset < best.end.offset - best.start.offset)) {
        best = c;
        bestId = id;
      }
    }
    return best && this.chunks.get(bestId);
  }

  /**
   * Chunks like the given one (a chunk, the chunk at a line, or a text such as a selection),
   * best first, only those above a similarity floor, and never the source itself nor its own
   * pieces: the other pieces of a unit that was cut, and chunks of the same file whose range
   * overlaps the source's (a Markdown section and its code blocks, a Vue block and its members)
   * or the given lines of a text target.
   *
   * With vectors: cosine similarity of the source's vector (or of the embedded text) to every
   * chunk's, kept when at least `minScore` (default `SIMILAR_MIN_COSINE`). Keyword-only: BM25
   * with the source's text as the query, kept when the score is at least `minShare` (default
   * `SIMILAR_MIN_KEYWORD_SHARE`) of the source's own score (of the best hit's, when the source is
   * not indexed), so a chunk that shares one common word with the source does not qualify.
   */
  async similar(target: SimilarTarget, options: { k?: number; minScore?: number; minShare?: number } = {}): Promise<SearchHit[]> {
    const k = Math.max(1, options.k ?? 10);
    let source: Chunk | undefined;
    if ('chunkId' in target) source = this.chunks.get(this.chunks.docIdOf(target.chunkId) ?? -1);
    else if ('path' in target && !('text' in target)) source = this.chunkAt(target.path, target.line);
    const text = 'text' in target ? target.text : source ? embedText(source) : undefined;
    if (text === undefined || !text.trim()) return [];
    const sourceId = source ? this.chunks.docIdOf(source.id) : undefined;
    const own = this.ownPieces(source, 'text' in target ? target : undefined);
    let vec = sourceId !== undefined ? this.vectors?.get(sourceId) : undefined;
    if (!vec && this.embedder && this.vectors?.count) [vec] = await this.embedder.embed([text.length > 10_000 ? text.slice(0, 10_000) : text], undefined, { urgent: true });
    if (vec && this.vectors) {
      const floor = options.minScore ?? SIMILAR_MIN_COSINE;
      return (await this.denseTop(vec, k, (id) => !own(id)))
        .filter((h) => h.score >= floor && this.chunks.has(h.docId))
        .map((h, i) => ({ chunk: this.chunks.get(h.docId)!, docId: h.docId, score: h.score, why: { dense: i + 1, fused: h.score } }));
    }
    const q = text.length > 10_000 ? text.slice(0, 10_000) : text;
    // no identifier-level tie-break: the query is the source's own text, which names its own
    // symbol fully, so the tie-break would lift the source far above every other chunk and the
    // floor (a share of the source's score) would let nothing through
    const hits = this.keyword.search(q, { k: k * 2 + 8, namesake: 0 });
    const self = (sourceId !== undefined ? hits.find((h) => h.docId === sourceId)?.score : undefined) ?? hits[0]?.score ?? 0;
    const floor = (options.minShare ?? SIMILAR_MIN_KEYWORD_SHARE) * self;
    return hits
      .filter((h) => !own(h.docId) && h.score >= floor && this.chunks.has(h.docId))
      .slice(0, k)
      .map((h, i) => ({ chunk: this.chunks.get(h.docId)!, docId: h.docId, score: h.score, why: { keyword: i + 1, fused: h.score } }));
  }

  /** Whether a docId is the source of a Find Similar or one of its own pieces (see `similar`). */
  private ownPieces(source: Chunk | undefined, lines: { path?: string; startLine?: number; endLine?: number } | undefined): (docId: number) => boolean {
    const spans: Array<{ path: string; start: number; end: number }> = [];
    if (source) spans.push({ path: source.path, start: source.start.line, end: source.end.line });
    if (lines?.path !== undefined && lines.startLine !== undefined) spans.push({ path: lines.path, start: lines.startLine, end: lines.endLine ?? lines.startLine });
    const sourceId = source ? this.chunks.docIdOf(source.id) : undefined;
    return (docId) => {
      if (docId === sourceId) return true;
      const c = this.chunks.head(docId);
      if (!c) return true;
      if (source && c.path === source.path && c.split && source.split && c.symbol === source.symbol && c.kind === source.kind) return true;
      return spans.some((s) => s.path === c.path && c.start.line <= s.end && c.end.line >= s.start);
    };
  }

  /**
   * Window retrieval: the neighbouring chunks of a hit in its file (overlap removed: nested
   * code-block chunks are left out of a section's window), and the linked section or code
   * blocks of a Markdown hit.
   */
  context(chunkId: string, options: { before?: number; after?: number } = {}): { before: Chunk[]; after: Chunk[]; linked: Chunk[] } {
    const docId = this.chunks.docIdOf(chunkId);
    const chunk = docId === undefined ? undefined : this.chunks.head(docId);
    if (!chunk) return { before: [], after: [], linked: [] };
    const rec = this.files.get(chunk.path);
    // the file's chunks without their texts, in order; only the window's are read in full
    const siblings = (rec?.docIds ?? [])
      .map((id) => ({ id, c: this.chunks.head(id)! }))
      .filter(({ c }) => c && (c.kind === 'code-block') === (chunk.kind === 'code-block'))
      .sort((a, b) => a.c.start.offset - b.c.start.offset);
    const i = siblings.findIndex(({ c }) => c.id === chunk.id);
    const full = (s: Array<{ id: number }>) => s.map(({ id }) => this.chunks.get(id)!);
    const before = full(siblings.slice(Math.max(0, i - (options.before ?? 1)), i));
    const after = full(siblings.slice(i + 1, i + 1 + (options.after ?? 1)));
    const linkedIds = [...(chunk.links?.codeBlocks ?? []), ...(chunk.links?.section ? [chunk.links.section] : [])];
    const linked = linkedIds.map((id) => this.chunks.get(this.chunks.docIdOf(id) ?? -1)).filter((c): c is Chunk => !!c);
    return { before, after, linked };
  }
}
