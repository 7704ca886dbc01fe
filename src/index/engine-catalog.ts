/**
 * The engine's catalog (a room of engine.ts): the files, their chunks by docId, the keyword index
 * and the vectors, and how a file's content gets into them and out again — add, update, skip and
 * remove a file, restore a store, the i18n feed, the embedding queue and its priority tiers. The
 * index runs (engine-run.ts) and search (engine-search.ts) work on this state; its members they
 * use are public here, and the `Engine` facade shows only its own API.
 */
import { sha1Hex } from '../util/hash';
import { chunkFile, decodeBytes, resolveOptions, type ResolvedOptions } from '../chunkers/index';
import { SEARCH_TERMS_META, type Chunk, type ChunkOptions } from '../chunkers/types';
import { embedText, type Embedder } from './embedder';
import { EmbedQueue, embedTier, HINTED_TIER } from './embed-order';
import type { FileContent, FileNotRead, FileStat } from '../workspace/source';
import { I18N_TEXT_META } from './rank/phrase';
import type { I18nFeed } from './i18n-feed';
import { ChunkTable, type StoredChunks } from './chunks';
import { KeywordIndex, type KeywordFields } from './keyword';
import { compoundsByChunk } from './terms';
import { VectorStore } from './vectors';
import type { ChunkedFile, EngineOptions, FileRecord } from './engine-types';

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

/** The catalog's state and its changes; one per `Engine`. */
export class EngineCatalog {
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
  readonly textHash: string[] = [];
  private storedHashes: StoredChunks | undefined;
  /** Chunks waiting for a vector, in embedding order (src/index/embed-order.ts). */
  readonly pendingEmbed = new EmbedQueue();
  /** Files the editor wants embedded first (open, visible, recently edited), most wanted first. */
  private hinted: string[] = [];
  private readonly hintedSet = new Set<string>();
  private free: number[] = [];
  /** What the folder's i18n index told (setI18n). */
  private i18n: I18nFeed | undefined;
  /** The i18n feed, if any (setI18n). */
  get i18nFeed(): I18nFeed | undefined {
    return this.i18n;
  }
  /** How many removed chunks' vectors are kept: half the live chunks, at least 4,096. */
  get cacheLimit(): number {
    return Math.max(4096, this.chunks.count >> 1);
  }

  /** Bumped by every change to chunks, files or vectors: what tells a caller to save. */
  revision = 0;
  /** `shownLines` per docId (null: displays nothing); an entry goes when its chunk changes. */
  readonly shownCache = new Map<number, readonly string[] | null>();

  /** The chunk options as given (plain data: what a chunk pool's thread is sent). */
  readonly chunkSpec: ChunkOptions;

  constructor(options: EngineOptions = {}) {
    this.chunkSpec = { ...options.chunk };
    this.chunkOptions = resolveOptions(options.chunk ?? {});
    this.embedder = options.embedder;
    this.walkOrder = options.embedOrder === 'walk';
    this.noEmbedderReason = options.embedder ? undefined : (options.noEmbedderReason ?? 'no embedding model configured');
    if (this.embedder) this.vectors = new VectorStore(this.embedder.dims);
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

  /** Every file record made stale: a size/mtime no walk sees and no content hash, so the next pass reads and chunks each file again. */
  staleAll(): void {
    for (const [p, rec] of this.files) this.files.set(p, { ...rec, mtimeMs: -1, hash: '' });
  }

  /** Hash of a live chunk's embedded text (set when it got its vector, or kept in the store it was loaded from). */
  textHashOf(docId: number): string | undefined {
    return this.textHash[docId] ?? this.storedHashes?.hash(docId);
  }

  /** `liveByHashMap`, built from the live chunks' vectors and hashes when a load left it out. */
  get liveByHash(): Map<string, number> {
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
}
