/**
 * The engine behind every Fathom feature, in plain Node: a catalog of files, their chunks,
 * a keyword index, optional dense vectors, and hybrid search over them (keyword and
 * meaning fused: by score with Fathom's own model, else reciprocal rank fusion). The CLI drives it directly; the extension drives it through the worker.
 *
 * Incremental by construction: a file whose size and mtime (then content hash) did not
 * change is never re-chunked; a chunk whose embedded text did not change is never
 * re-embedded (vectors are cached by content hash, so a renamed file costs nothing).
 *
 * `Engine` is the facade over three rooms that share one state, the catalog: `engine-catalog.ts`
 * (files, chunks, restore, add/update/remove a file, the i18n feed, the embedding queue's tiers),
 * `engine-run.ts` (an index run and the embedding of what is pending) and `engine-search.ts`
 * (search, Find Similar, context). Their public types are in `engine-types.ts`, below all three;
 * this file re-exports every name, so callers import from here only.
 */
import type { Chunk } from '../chunkers/types';
import type { ResolvedOptions } from '../chunkers/index';
import type { Embedder } from './embedder';
import type { FileContent, FileNotRead, FileSource, FileStat } from '../workspace/source';
import type { I18nFeed } from './i18n-feed';
import type { ChunkTable, StoredChunks } from './chunks';
import type { KeywordIndex } from './keyword';
import type { VectorStore } from './vectors';
import { EngineCatalog } from './engine-catalog';
import { EngineRun } from './engine-run';
import { EngineSearch } from './engine-search';
import type { ChunkedFile, EngineOptions, FileRecord, IndexFolderOptions, IndexProgress, SearchHit, SearchOptions, SimilarTarget } from './engine-types';

export type { ChunkedFile, EngineOptions, FileChunker, FileRecord, HeapUse, IndexFolderOptions, IndexHook, IndexProgress, SearchHit, SearchMode, SearchOptions, SimilarTarget } from './engine-types';
export { hashText, keywordFieldsOf, withoutTwinCodeBlocks } from './engine-catalog';
export { heapUse, IN_FLIGHT_BYTES, MEMORY_CHECK_FILES, MEMORY_STOP_SHARE, POOL_MIN_BYTES, POOL_MIN_FILES, THREADS_EMBED_FROM, threadsEmbed } from './engine-run';
export { ANN_MIN_ROWS, SIMILAR_MIN_COSINE, SIMILAR_MIN_KEYWORD_SHARE } from './engine-search';

export class Engine {
  /** The state the rooms share, and its changes. */
  private readonly catalog: EngineCatalog;
  private readonly runs: EngineRun;
  private readonly searcher: EngineSearch;

  constructor(options: EngineOptions = {}) {
    this.catalog = new EngineCatalog(options);
    this.runs = new EngineRun(this.catalog);
    this.searcher = new EngineSearch(this.catalog, options.dense);
  }

  // ---- the catalog's state (engine-catalog.ts)

  /** The chunks by docId (a loaded store's are read from it in place: see chunks.ts). */
  get chunks(): ChunkTable {
    return this.catalog.chunks;
  }

  get files(): Map<string, FileRecord> {
    return this.catalog.files;
  }

  get keyword(): KeywordIndex {
    return this.catalog.keyword;
  }

  get vectors(): VectorStore | undefined {
    return this.catalog.vectors;
  }

  set vectors(v: VectorStore | undefined) {
    this.catalog.vectors = v;
  }

  get chunkOptions(): ResolvedOptions {
    return this.catalog.chunkOptions;
  }

  get embedder(): Embedder | undefined {
    return this.catalog.embedder;
  }

  set embedder(e: Embedder | undefined) {
    this.catalog.embedder = e;
  }

  /** Why there is no embedder (shown to the user); the engine then works keyword-only. */
  get noEmbedderReason(): string | undefined {
    return this.catalog.noEmbedderReason;
  }

  set noEmbedderReason(reason: string | undefined) {
    this.catalog.noEmbedderReason = reason;
  }

  /** Vectors of removed chunks by hash of their embedded text: an edit undone or a file renamed costs no embedding. */
  get vectorCache(): Map<string, Float32Array> {
    return this.catalog.vectorCache;
  }

  /** How many removed chunks' vectors are kept: half the live chunks, at least 4,096. */
  get cacheLimit(): number {
    return this.catalog.cacheLimit;
  }

  /** Bumped by every change to chunks, files or vectors: what tells a caller to save. */
  get revision(): number {
    return this.catalog.revision;
  }

  set revision(n: number) {
    this.catalog.revision = n;
  }

  get chunkCount(): number {
    return this.catalog.chunks.count;
  }

  get pendingVectors(): number {
    return this.catalog.pendingEmbed.size;
  }

  docIdOf(chunkId: string): number | undefined {
    return this.catalog.chunks.docIdOf(chunkId);
  }

  // ---- the catalog's changes (engine-catalog.ts)

  /** Forgets everything (a store that failed to load leaves the engine empty, not half-filled). */
  reset(): void {
    this.catalog.reset();
  }

  /** Restores stored chunks and catalog (the keyword index is imported separately); with `vectors`, the chunks without one wait for one. */
  restore(catalog: FileRecord[], chunks: Array<Chunk | null> | StoredChunks, vectors?: VectorStore): void {
    this.catalog.restore(catalog, chunks, vectors);
  }

  /** Every file read and chunked again on the next pass, as if it had changed (a store of other chunkers); its chunks answer until then. */
  staleAll(): void {
    this.catalog.staleAll();
  }

  /** Restores stored vectors after `restore`; chunks without one stay pending. */
  restoreVectors(store: VectorStore): void {
    this.catalog.restoreVectors(store);
  }

  /** Hash of a live chunk's embedded text (set when it got its vector, or kept in the store it was loaded from). */
  textHashOf(docId: number): string | undefined {
    return this.catalog.textHashOf(docId);
  }

  /** The files to embed first (workspace-relative, most wanted first): the open and visible editors, the recently edited files. */
  setPriority(paths: readonly string[]): void {
    this.catalog.setPriority(paths);
  }

  /** The files hinted by `setPriority`, most wanted first. */
  get priority(): readonly string[] {
    return this.catalog.priority;
  }

  /** Chunks waiting for a vector per tier (hinted, code, docs/config/tests, locales/fixtures). */
  pendingByTier(): number[] {
    return this.catalog.pendingByTier();
  }

  /** Feeds what the folder's i18n index knows (see i18n-feed.ts); returns how many chunks changed. */
  setI18n(feed: I18nFeed | undefined, paths?: Iterable<string>): number {
    return this.catalog.setI18n(feed, paths);
  }

  /** Is this chunk in a locale file (a JSON i18n dictionary, or a locale file the i18n feed names)? */
  isLocaleChunk(c: Pick<Chunk, 'kind' | 'path'>): boolean {
    return this.catalog.isLocaleChunk(c);
  }

  /** Removes a file and its chunks from every index. */
  removeFile(rel: string): boolean {
    return this.catalog.removeFile(rel);
  }

  /** Chunks and indexes one file's bytes (its vectors follow with `embedPending`); false when the content hash shows nothing changed. */
  updateFile(rel: string, bytes: Uint8Array, stat: FileStat): boolean {
    return this.catalog.updateFile(rel, bytes, stat);
  }

  /** `updateFile` for a file the FileSource read (hash and decoded text given); `chunked`: what a chunk thread made of it. */
  updateContent(content: FileContent, chunked?: ChunkedFile): boolean {
    return this.catalog.updateContent(content, chunked);
  }

  /** Records a file that could not be read or was too large, so it shows with its reason. */
  skipFile(rel: string, stat: { size: number; mtimeMs: number }, reason: string, detail: string): void {
    this.catalog.skipFile(rel, stat, reason, detail);
  }

  /** Applies one read of the FileSource: indexed, skipped (too large, unreadable) or removed (gone); true when the index changed. */
  applyRead(r: ({ ok: true } & FileContent) | ({ ok: false } & FileNotRead)): boolean {
    return this.catalog.applyRead(r);
  }

  // ---- index runs (engine-run.ts)

  /** Indexes a folder incrementally (only new and changed files are read), then computes the vectors pending; yields progress. */
  indexFolder(source: FileSource | string, options: IndexFolderOptions = {}): AsyncGenerator<IndexProgress> {
    return this.runs.indexFolder(source, options);
  }

  /** Computes the vectors still missing, in batches, yielding progress after each batch. */
  embedPending(signal?: AbortSignal, filesTotal = this.catalog.files.size): AsyncGenerator<IndexProgress> {
    return this.runs.embedPending(signal, filesTotal);
  }

  // ---- search (engine-search.ts)

  /** Set when the embedder's scoring kernel failed once (then the JS scan is used): why. */
  get kernelFailed(): string | undefined {
    return this.searcher.kernelFailed;
  }

  set kernelFailed(why: string | undefined) {
    this.searcher.kernelFailed = why;
  }

  /** From this many vectors on, the IVF index answers dense search instead of the exact scan. */
  get annMinRows(): number {
    return this.searcher.annMinRows;
  }

  /** Lists opened per ANN query; default `probeFor(lists)`. */
  get annProbe(): number | undefined {
    return this.searcher.annProbe;
  }

  /** Hybrid search: keyword and dense rankings fused (by score with Fathom's own model, else RRF); each hit says why it ranked. */
  search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.searcher.search(query, options);
  }

  /** Builds the IVF index when there are enough vectors and it is missing or stale; one build at a time. */
  prepareAnn(): Promise<void> {
    return this.searcher.prepareAnn();
  }

  /** The chunk of `path` that holds 1-based `line` (the innermost, for nested code blocks). */
  chunkAt(path: string, line: number): Chunk | undefined {
    return this.searcher.chunkAt(path, line);
  }

  /** Chunks like the given one (a chunk, the chunk at a line, or a text), best first, above a similarity floor, never its own pieces. */
  similar(target: SimilarTarget, options: { k?: number; minScore?: number; minShare?: number } = {}): Promise<SearchHit[]> {
    return this.searcher.similar(target, options);
  }

  /** Window retrieval: the neighbouring chunks of a hit in its file, and the linked section or code blocks of a Markdown hit. */
  context(chunkId: string, options: { before?: number; after?: number } = {}): { before: Chunk[]; after: Chunk[]; linked: Chunk[] } {
    return this.searcher.context(chunkId, options);
  }
}
