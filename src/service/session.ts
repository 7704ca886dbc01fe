/**
 * One owner for one workspace folder, in plain Node: `FolderSession`. Every host — the worker
 * thread (the extension), the CLI, an agent server — opens one per folder and goes through it;
 * none of them reads files, takes locks or saves stores on its own.
 *
 *   open(root, {source, storeDir, chunk, embedder, log})  takes the store's lock and loads it
 *   index({signal, selection})                            yields progress; saves as it goes
 *   apply(changes) / remove(paths)                        reads each changed file ONCE and hands
 *                                                         the same decoded text to the engine
 *                                                         and to the i18n index
 *   search / similar / context / i18n / files / status    answers
 *   close()                                               stops background embedding, saves,
 *                                                         releases the lock
 *
 * Files come from a `FileSource` (src/workspace/source.ts): the one read policy and size cap.
 * The folder's `FileSelection` (given to `index`) holds for updates and for i18n as well: a
 * file it leaves out feeds neither the search index nor i18n lookups.
 *
 * The i18n index is built on the first i18n question (or when the store holds one), then kept
 * current by `index` and `apply`, which feed it from the same reads as the engine.
 */
import * as path from 'node:path';
import type { ChunkOptions } from '../chunkers/types';
import { decodeBytes } from '../chunkers/decode';
import type { Embedder } from '../index/embedder';
import { Engine, type IndexHook, type IndexProgress, type SearchHit, type SearchOptions } from '../index/engine';
import { loadStore, lockStore, saveStore, StoreWriteError } from '../index/store';
import { stringAt, type I18nIndex, type LookupResult } from '../i18n/index';
import { feedI18n, i18nCap, newI18nIndex, wantsFile } from '../i18n/workspace';
import type { FileSelection } from '../workspace/files';
import { hashBytes, NodeFileSource, toRel, type FileSource, type FileStat, type ReadResult } from '../workspace/source';
import type { FileInfo, FileUpdate, FolderStatus, I18nAnswer, I18nQuery, SimilarTarget, UpdateResult } from './protocol';

export type LogLevel = 'info' | 'warn' | 'error';

export interface FolderSessionOptions {
  /** Where the files come from (default: the folder on disk). */
  source?: FileSource;
  /** The store folder (locked while the session is open); none: nothing is persisted. */
  storeDir?: string;
  chunk?: ChunkOptions;
  embedder?: Embedder;
  /** Why there is no embedder (the session is keyword-only). */
  noEmbedderReason?: string;
  log?: (level: LogLevel, message: string) => void;
  /**
   * A store folder that cannot be written (read-only, full) fails `open` (StoreWriteError);
   * without it the session opens unlocked, answers from memory and says so once (`cannotSave`).
   */
  mustSave?: boolean;
  /** Debounce of saves after `apply`/`remove` and background embedding batches, ms (default 2000). */
  saveDelayMs?: number;
  /** Awaited between background embedding batches: the host's pause (resolves when not paused; throws once `signal` aborts). */
  checkpoint?: (signal: AbortSignal) => Promise<void>;
  /** Background embedding progress (not an `index` run's: that one is yielded). */
  onProgress?: (p: IndexProgress) => void;
  /** Something the status shows changed (throttle on the host's side). */
  onChange?: () => void;
}

/** The error a stopped operation throws (an aborted index run, a stopped background embedding). */
export class CancelledError extends Error {
  readonly cancelled = true;
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What an i18n index is built with: locale globs overriding discovery, a project's own translate functions. */
export interface I18nConfig {
  localeGlobs?: string[];
  functions?: string[];
}

const configKey = (c: I18nConfig): string => JSON.stringify([c.localeGlobs ?? [], c.functions ?? []]);

interface I18nState {
  index: I18nIndex;
  config: I18nConfig;
  /** What each fed file was, when it was read (size, mtime): the i18n side's catalog. */
  catalog: Map<string, FileStat>;
  /** Settles once every wanted file of the walk was read. */
  ready: Promise<void>;
}

export class FolderSession {
  readonly root: string;
  readonly source: FileSource;
  readonly storeDir: string | undefined;
  readonly engine: Engine;
  /** The store loaded (false: there was none, or it was not trusted: `rebuilt` says why). */
  readonly loaded: boolean;
  readonly rebuilt: string | undefined;
  /** The last `index` run's file selection: it holds for `apply` and for i18n too. */
  selection: FileSelection | undefined;
  private readonly release: () => void;
  private savedRevision: number;
  private saveTimer: NodeJS.Timeout | undefined;
  private indexing = 0;
  /** Stops the running index runs (close). */
  private readonly runs = new Set<AbortController>();
  private embedding: { abort: AbortController; done: Promise<void> } | undefined;
  private i18nState: I18nState | undefined;
  private closed = false;
  private saveProblem: string | undefined;

  private constructor(
    root: string,
    private readonly options: FolderSessionOptions,
    engine: Engine,
    release: () => void,
    loaded: boolean,
    rebuilt: string | undefined,
  ) {
    this.root = root;
    this.source = options.source ?? new NodeFileSource(root);
    this.storeDir = options.storeDir ? path.resolve(options.storeDir) : undefined;
    this.engine = engine;
    this.release = release;
    this.loaded = loaded;
    this.rebuilt = rebuilt;
    this.savedRevision = loaded ? engine.revision : -1;
  }

  /**
   * Opens `root`: takes the store's lock (StoreLockedError when another process holds it) and
   * loads it; a store that cannot be trusted is rebuilt by the first `index`, the reason logged.
   */
  static async open(root: string, options: FolderSessionOptions = {}): Promise<FolderSession> {
    await Promise.resolve();
    const abs = options.source ? options.source.root : path.resolve(root);
    const engine = new Engine({ chunk: options.chunk, embedder: options.embedder, noEmbedderReason: options.noEmbedderReason });
    let release = () => undefined as void;
    let loaded = false;
    let rebuilt: string | undefined;
    let cannotSave: string | undefined;
    if (options.storeDir) {
      const dir = path.resolve(options.storeDir);
      try {
        release = lockStore(dir);
      } catch (err) {
        if (!(err instanceof StoreWriteError) || options.mustSave) throw err;
        cannotSave = err.message;
      }
      try {
        const r = loadStore(dir, engine);
        loaded = r.ok;
        if (!r.ok && r.reason !== 'no stored index') {
          rebuilt = r.reason;
          options.log?.('warn', `rebuilding the index of ${abs}: ${r.reason}`);
        }
      } catch (err) {
        release();
        throw err;
      }
    }
    const session = new FolderSession(abs, options, engine, release, loaded, rebuilt);
    if (cannotSave) session.noSave(cannotSave);
    return session;
  }

  get embedder(): Embedder | undefined {
    return this.engine.embedder;
  }

  get dirty(): boolean {
    return this.engine.revision !== this.savedRevision;
  }

  get isIndexing(): boolean {
    return this.indexing > 0;
  }

  status(): FolderStatus {
    const recs = [...this.engine.files.values()];
    const skipped = recs.filter((r) => r.skipped).length;
    return {
      root: this.root,
      storeDir: this.storeDir ?? '',
      files: recs.length - skipped,
      skipped,
      chunks: this.engine.chunkCount,
      vectors: this.engine.vectors?.count ?? 0,
      pendingVectors: this.engine.pendingVectors,
      indexing: this.indexing > 0,
      embedding: !!this.embedding,
      dirty: this.dirty,
    };
  }

  files(): FileInfo[] {
    return [...this.engine.files.values()]
      .map((r) => ({ path: r.path, language: r.language, chunks: r.docIds.length, size: r.size, skipped: r.skipped, fallback: r.fallback, warnings: r.warnings.length }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  // --- indexing -----------------------------------------------------------------------------

  /**
   * Brings the index up to date with the folder (incrementally), computes missing vectors
   * (unless `embed` is false) and saves: once chunking is done (keyword-searchable), every
   * 10 s while embedding, and at the end — also when `signal` stops it (what was done is
   * kept; missing vectors are then computed in the background).
   */
  async *index(options: { signal?: AbortSignal; selection?: FileSelection; embed?: boolean } = {}): AsyncGenerator<IndexProgress> {
    this.assertOpen();
    if ('selection' in options) this.selection = options.selection;
    await this.stopEmbedding();
    this.indexing++;
    const stop = new AbortController();
    this.runs.add(stop);
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let lastSave = Date.now();
    try {
      let phase: IndexProgress['phase'] | undefined;
      const run = this.engine.indexFolder(this.source, { signal, selection: this.selection, embed: options.embed, hook: this.i18nHook() });
      for await (const p of run) {
        if ((phase === 'chunk' && p.phase !== 'chunk') || (p.phase === 'embed' && Date.now() - lastSave > 10_000)) {
          this.save();
          lastSave = Date.now();
        }
        phase = p.phase;
        yield p;
      }
    } finally {
      this.runs.delete(stop);
      this.indexing--;
      this.save();
      this.options.onChange?.();
      if (!this.closed) this.startEmbedding();
    }
  }

  /**
   * Files changed: each is read once (unless its bytes come with the change) and the same
   * decoded text goes to the engine and to the i18n index. A file the folder's selection or
   * `.gitignore` leaves out is removed, not indexed. Keyword-searchable when this returns;
   * vectors follow in the background, the store is saved debounced.
   */
  apply(changes: FileUpdate[]): UpdateResult {
    this.assertOpen();
    const wanted = this.source.filter(this.selection);
    const i18n = this.i18nState;
    const cap = this.engine.chunkOptions.maxFileBytes;
    let changed = 0;
    const problems: UpdateResult['problems'] = [];
    for (const u of changes) {
      const rel = toRel(u.rel);
      if (u.deleted || !wanted(rel)) {
        if (this.engine.removeFile(rel)) changed++;
        if (i18n) this.i18nDrop(i18n, rel);
        continue;
      }
      const i18nWants = !!i18n && wantsFile(rel, i18n.index.options.matchesGlobs);
      let r: ReadResult;
      if (u.bytes) {
        const stat = { size: u.bytes.byteLength, mtimeMs: u.mtimeMs ?? Date.now() };
        r = { ok: true, rel, stat, bytes: u.bytes, hash: hashBytes(u.bytes), decoded: decodeBytes(u.bytes) };
      } else r = this.source.read(rel, i18nWants ? Math.max(cap, i18nCap(rel, {}, i18n.index.options.matchesGlobs)) : cap);
      if (!r.ok && r.reason === 'unreadable') problems.push({ rel, reason: r.detail });
      if (this.engine.applyRead(r)) changed++;
      if (i18n && i18nWants) this.i18nFeed(i18n, r);
    }
    this.afterChange();
    return { changed, problems, pendingVectors: this.engine.pendingVectors };
  }

  /** Forgets files, or folders (every file under `<rel>/`). */
  remove(paths: string[]): UpdateResult {
    this.assertOpen();
    let changed = 0;
    const i18n = this.i18nState;
    for (const p of paths) {
      const rel = toRel(p);
      const under = (f: string) => f === rel || f.startsWith(`${rel}/`);
      for (const f of [...this.engine.files.keys()]) if (under(f) && this.engine.removeFile(f)) changed++;
      if (i18n) for (const f of [...i18n.catalog.keys(), ...i18n.index.knownFiles()]) if (under(f)) this.i18nDrop(i18n, f);
    }
    this.afterChange();
    return { changed, problems: [], pendingVectors: this.engine.pendingVectors };
  }

  private afterChange(): void {
    if (this.dirty) this.scheduleSave();
    this.startEmbedding();
    this.options.onChange?.();
  }

  // --- answers ------------------------------------------------------------------------------

  async search(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    this.assertOpen();
    return this.engine.search(query, options);
  }

  async similar(target: SimilarTarget, options: { k?: number } = {}): Promise<SearchHit[]> {
    this.assertOpen();
    return this.engine.similar(target, options);
  }

  context(chunkId: string, options: { before?: number; after?: number } = {}): ReturnType<Engine['context']> {
    this.assertOpen();
    return this.engine.context(chunkId, options);
  }

  /**
   * An i18n question (see `I18nQuery`). The i18n index is built on the first one (from the
   * source, with the folder's selection; requests with other `localeGlobs` rebuild it) and kept
   * current by `index` and `apply` from then on.
   */
  async i18n(query: I18nQuery, options: I18nConfig & { signal?: AbortSignal; embedder?: Embedder; lexicalOnly?: boolean } = {}): Promise<I18nAnswer> {
    this.assertOpen();
    const state = this.i18nFor(options, options.signal);
    await state.ready;
    options.signal?.throwIfAborted();
    const index = state.index;
    if (query.op === 'key') return { op: 'key', result: index.lookupKey(query.key, { fromFile: query.fromFile, limit: query.limit }) };
    if (query.op === 'diagnostics') return { op: 'diagnostics', result: index.diagnostics(query.file, query.text) };
    if (query.op === 'hover') {
      let text = query.text;
      if (text === undefined) {
        const r = this.source.read(toRel(query.file), i18nCap(query.file, {}, index.options.matchesGlobs));
        text = r.ok ? r.decoded.text : undefined;
      }
      return { op: 'hover', result: index.hover(query.file, query.offset, text) ?? null };
    }
    const embedder = options.embedder ?? this.engine.embedder;
    const lookup = async (text: string, fromFile: string | undefined, limit: number | undefined): Promise<LookupResult> => {
      if (options.lexicalOnly) return index.lookupLexical(text, { fromFile, limit });
      const result = await index.lookupString(text, { fromFile, limit, embedder, signal: options.signal });
      if (!embedder && result.semanticUnavailable) result.semanticUnavailable = `${this.engine.noEmbedderReason ?? 'no embedding model'}: semantic matching is unavailable`;
      return result;
    };
    if (query.op === 'at') {
      const found = stringAt(query.text, query.language, query.offset, query.selection);
      if (!found) return { op: 'at', string: null, result: { candidates: [], problems: index.problems } };
      return { op: 'at', string: found, result: await lookup(found.text, query.file, query.limit) };
    }
    return { op: 'string', result: await lookup(query.text, query.fromFile, query.limit) };
  }

  /**
   * Starts building the i18n index now (it is then kept current by `index` and `apply`);
   * the globs of the index there is, if any (undefined: none).
   */
  prepareI18n(config: I18nConfig = {}): void {
    this.assertOpen();
    this.i18nFor(config).ready.catch(() => undefined);
  }

  /** The configuration of the i18n index the session keeps, or undefined when it keeps none. */
  get i18nConfig(): I18nConfig | undefined {
    return this.i18nState?.config;
  }

  /** The i18n index (built or being built) for these locale globs. */
  private i18nFor(config: I18nConfig, signal?: AbortSignal): I18nState {
    const key = configKey(config);
    const have = this.i18nState;
    if (have && configKey(have.config) === key) return have;
    const index = newI18nIndex({ localeGlobs: config.localeGlobs, functions: config.functions });
    const state: I18nState = { index, config: { localeGlobs: config.localeGlobs, functions: config.functions }, catalog: new Map(), ready: Promise.resolve() };
    this.i18nState = state;
    state.ready = this.readI18n(state, signal);
    // a failed read (cancelled) is retried by the next question
    state.ready.catch(() => {
      if (this.i18nState === state) this.i18nState = undefined;
    });
    return state;
  }

  /** Reads every wanted file of the walk that `state` does not hold yet, giving the event loop a turn every 20 ms. */
  private async readI18n(state: I18nState, signal?: AbortSignal): Promise<void> {
    const t0 = performance.now();
    let slice = t0;
    let read = 0;
    const files = this.source.walk(this.selection);
    for (const f of files) {
      if (this.i18nState !== state) return; // superseded (other globs)
      if (!wantsFile(f.rel, state.index.options.matchesGlobs)) continue;
      const known = state.catalog.get(f.rel);
      if (known && known.size === f.size && known.mtimeMs === f.mtimeMs) continue; // fed by an update meanwhile
      this.i18nFeed(state, this.source.read(f.rel, i18nCap(f.rel, {}, state.index.options.matchesGlobs)));
      read++;
      if (performance.now() - slice > 20) {
        await turn();
        signal?.throwIfAborted();
        slice = performance.now();
      }
    }
    this.options.log?.('info', `i18n index of ${this.root}: ${state.index.localeFiles.length} locale files, ${read} files read in ${Math.round(performance.now() - t0)} ms`);
  }

  private i18nFeed(state: I18nState, r: ReadResult): void {
    feedI18n(state.index, r);
    if (r.ok) state.catalog.set(r.rel, r.stat);
    else if (r.reason === 'missing') state.catalog.delete(r.rel);
    else state.catalog.set(r.rel, r.stat ?? { size: -1, mtimeMs: -1 });
  }

  private i18nDrop(state: I18nState, rel: string): void {
    state.catalog.delete(rel);
    state.index.deleteFile(rel);
  }

  /** What an index run feeds the i18n index (when there is one): the same reads as the engine's. */
  private i18nHook(): IndexHook | undefined {
    const state = this.i18nState;
    if (!state) return undefined;
    const matches = state.index.options.matchesGlobs;
    return {
      listed: (files) => {
        const seen = new Set(files.map((f) => f.rel));
        for (const rel of [...state.catalog.keys(), ...state.index.knownFiles()]) if (!seen.has(rel)) this.i18nDrop(state, rel);
      },
      wants: (f) => {
        if (!wantsFile(f.rel, matches)) return false;
        const known = state.catalog.get(f.rel);
        return !known || known.size !== f.size || known.mtimeMs !== f.mtimeMs;
      },
      maxBytes: (rel) => (wantsFile(rel, matches) ? i18nCap(rel, {}, matches) : undefined),
      read: (r) => {
        if (this.i18nState === state && wantsFile(r.rel, matches)) this.i18nFeed(state, r);
      },
    };
  }

  // --- saving, background embedding, closing -----------------------------------------------

  /** Why the store cannot be written (read-only, full): the session answers from memory. */
  get cannotSave(): string | undefined {
    return this.saveProblem;
  }

  private noSave(why: string): void {
    if (this.saveProblem) return;
    this.saveProblem = why;
    this.options.log?.('warn', `the index could not be saved, answering from memory: ${why}`);
  }

  /**
   * Saves now when something changed. A failure is logged and the previous store kept; a store
   * that cannot be written is not tried again (`cannotSave`). `throwOnError`: a failed or
   * impossible save throws (StoreWriteError) instead.
   */
  save(options: { throwOnError?: boolean } = {}): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.storeDir || !this.dirty) return;
    if (this.saveProblem) {
      if (options.throwOnError) throw new StoreWriteError(this.saveProblem);
      return;
    }
    try {
      const rev = this.engine.revision;
      saveStore(this.storeDir, this.engine);
      this.savedRevision = rev;
    } catch (err) {
      if (options.throwOnError) throw err;
      if (err instanceof StoreWriteError) this.noSave(err.message);
      else this.options.log?.('error', err instanceof Error ? err.message : String(err));
    }
  }

  private scheduleSave(): void {
    if (this.saveTimer || this.closed || !this.storeDir) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
      this.options.onChange?.();
    }, this.options.saveDelayMs ?? 2000);
  }

  /** Computes pending vectors in the background (unless an index run does it). */
  private startEmbedding(): void {
    if (this.embedding || this.indexing || !this.engine.embedder || !this.engine.pendingVectors || this.closed) return;
    const abort = new AbortController();
    const run = async () => {
      await turn();
      for await (const p of this.engine.embedPending(abort.signal)) {
        this.options.onProgress?.(p);
        this.scheduleSave();
        this.options.onChange?.();
        if (this.options.checkpoint) await this.options.checkpoint(abort.signal);
        else await turn();
        abort.signal.throwIfAborted();
      }
      const n = this.engine.files.size;
      this.options.onProgress?.({ phase: 'done', filesDone: n, filesTotal: n, chunksEmbedded: 0, chunksToEmbed: this.engine.pendingVectors, rate: 0 });
    };
    const done = run()
      .catch((err) => {
        if (!abort.signal.aborted) this.options.log?.('error', `embedding failed: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        if (this.embedding?.abort === abort) this.embedding = undefined;
        this.options.onChange?.();
        // changes that came in while the last batch ran
        if (!abort.signal.aborted && this.engine.pendingVectors) this.startEmbedding();
      });
    this.embedding = { abort, done };
  }

  private async stopEmbedding(): Promise<void> {
    const e = this.embedding;
    if (!e) return;
    e.abort.abort(new CancelledError());
    await e.done;
  }

  /** Waits for a running index run to unwind (after its signal aborted). */
  async idle(): Promise<void> {
    while (this.indexing) await turn();
  }

  /** Stops a running index run and background embedding, saves, releases the store's lock. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const r of this.runs) r.abort(new CancelledError('the folder was closed'));
    await this.idle();
    await this.stopEmbedding();
    this.closed = true;
    this.save();
    try {
      this.release();
    } catch (err) {
      this.options.log?.('warn', `could not release the lock of ${this.storeDir}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`the session of ${this.root} is closed`);
  }
}
