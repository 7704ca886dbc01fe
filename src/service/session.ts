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
 * current by `index` and `apply`, which feed it from the same reads as the engine. What of that
 * is i18n's (the index, its catalog and stored snapshot, the i18n text given to the chunks) is
 * `SessionI18n` (session-i18n.ts), which the session owns and delegates to.
 */
import type { RemoteIndex } from '../index/pgstore';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChunkOptions } from '../chunkers/types';
import { decodeBytes } from '../parse/decode';
import type { Embedder } from '../index/embedder';
import { Engine, type FileChunker, type IndexProgress, type SearchHit, type SearchOptions } from '../index/engine';
import { checkStorePlace, loadStore, lockStore, recordI18nFed, saveStoreAsync, StoreChangedError, StoreWriteError } from '../index/store';
import type { FileSelection } from '../workspace/files';
import { hashBytes, NodeFileSource, type FileSource, type ReadResult } from '../workspace/source';
import type { FileInfo, FileUpdate, FolderStatus, I18nAnswerOf, I18nQuery, SimilarTarget, UpdateResult } from './protocol';
import { SessionI18n, type I18nAskOptions, type I18nConfig } from './session-i18n';
import { CancelledError, errText } from '../util/errors';
import { toRel } from '../util/paths';

export type LogLevel = 'info' | 'warn' | 'error';

export interface FolderSessionOptions {
  /** Where the files come from (default: the folder on disk). */
  source?: FileSource;
  /** The store folder (locked while the session is open); none: nothing is persisted. */
  storeDir?: string;
  chunk?: ChunkOptions;
  /** Chunks an index run's files on other threads (src/service/chunk-pool.ts); none: in this thread. */
  chunkPool?: FileChunker;
  embedder?: Embedder;
  /** Why there is no embedder (the session is keyword-only). */
  noEmbedderReason?: string;
  /** Where the embedder's model was loaded from and its weights' hash: recorded in the store's manifest. */
  modelSource?: { path?: string; hash?: string };
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
  /** A team index searches go to, with this folder's unpushed files overlaid (pgstore.ts). */
  remote?: RemoteIndex;
}

export { CancelledError };

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export type { I18nConfig };

export class FolderSession {
  readonly root: string;
  readonly source: FileSource;
  readonly storeDir: string | undefined;
  /** The last `index` run's file selection: it holds for `apply` and for i18n too. */
  selection: FileSelection | undefined;
  private readonly release: () => void;
  private loadedEngine: { engine: Engine; loaded: boolean; rebuilt: string | undefined } | undefined;
  private savedRevision = -1;
  /** The i18n snapshot whose text the stored chunks hold (the manifest's `i18nFed`), as loaded or last saved. */
  private engineFedId: string | undefined;
  /**
   * The loaded engine was given every chunk's i18n text again (an i18n index rebuilt or of a
   * new snapshot version, with no chunk changed) since its store was saved: the store's manifest
   * names another snapshot, and until it is told the new one (`recordRefed`) every session
   * would feed every chunk again at its start (~90 ms of a dev-corpus CLI search).
   */
  private refedUnsaved = false;
  private saveTimer: NodeJS.Timeout | undefined;
  /** The save writing the store now (`saveAsync`): the next one waits for it. Never rejects. */
  private saving: Promise<void> | undefined;
  /** Saves in a row that the index changed under (StoreChangedError): the next waits longer (`scheduleSave`). */
  private changedSaves = 0;
  private indexing = 0;
  /** Stops the running index runs (close). */
  private readonly runs = new Set<AbortController>();
  private embedding: { abort: AbortController; done: Promise<void> } | undefined;
  /** The folder's i18n index, its stored snapshot and the i18n text the engine's chunks are given. */
  private readonly i18nPart: SessionI18n;
  private closed = false;
  private saveProblem: string | undefined;

  private constructor(
    root: string,
    private readonly options: FolderSessionOptions,
    release: () => void,
  ) {
    this.root = root;
    this.source = options.source ?? new NodeFileSource(root);
    this.storeDir = options.storeDir ? path.resolve(options.storeDir) : undefined;
    this.release = release;
    this.i18nPart = new SessionI18n({
      root,
      source: this.source,
      storeDir: this.storeDir,
      embedder: options.embedder,
      noEmbedderReason: options.noEmbedderReason,
      log: (level, message) => options.log?.(level, message),
      isClosed: () => this.closed,
      walkSelection: () => this.walkSelection(),
      engine: () => this.engine,
      loadedEngine: () => this.loadedEngine?.engine,
      storedFedId: (engine) => (engine === this.loadedEngine?.engine && engine.revision === this.savedRevision ? this.engineFedId : undefined),
      refed: (engine) => {
        if (engine === this.loadedEngine?.engine) this.refedUnsaved = true;
      },
      scheduleSave: () => this.scheduleSave(),
    });
  }

  /**
   * Opens `root`: takes the store's lock (StoreLockedError when another process holds it) and
   * loads it — the search index at once, or on first use with `lazyEngine` (an i18n lookup
   * needs only the stored i18n index); a store that cannot be trusted is rebuilt by the first
   * `index`, the reason logged.
   */
  static async open(root: string, options: FolderSessionOptions & { lazyEngine?: boolean } = {}): Promise<FolderSession> {
    await Promise.resolve();
    const abs = options.source ? options.source.root : path.resolve(root);
    let release: () => void = () => undefined;
    let cannotSave: string | undefined;
    if (options.storeDir) {
      try {
        // never written: a store that is a link out of the folder, or a folder holding files not Fathom's
        checkStorePlace(abs, path.resolve(options.storeDir));
        release = lockStore(path.resolve(options.storeDir));
      } catch (err) {
        if (!(err instanceof StoreWriteError) || options.mustSave) throw err;
        cannotSave = err.message; // read-only or full: answer from memory
        // a store Fathom must not write in is not read either (it may lie outside the folder)
        if (err.code === 'ELINKOUT' || err.code === 'ENOTOWN') options = { ...options, storeDir: undefined };
      }
    }
    const session = new FolderSession(abs, options, release);
    if (cannotSave) session.noSave(cannotSave);
    try {
      if (!options.lazyEngine) void session.engine;
      session.i18nPart.load();
    } catch (err) {
      release();
      throw err;
    }
    return session;
  }

  /**
   * The folder's selection, with the store left out when it lies inside the folder under any
   * name (`--store ws/idx`): Fathom's own files are never indexed as the folder's.
   */
  private walkSelection(): FileSelection | undefined {
    if (!this.storeDir) return this.selection;
    const rel = path.relative(this.root, this.storeDir).split(path.sep).join('/');
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return this.selection;
    return { ...this.selection, exclude: [...(this.selection?.exclude ?? []), rel, `${rel}/**`] };
  }

  /** The search engine of the folder (loaded from the store on first use). */
  get engine(): Engine {
    if (this.loadedEngine) return this.loadedEngine.engine;
    const o = this.options;
    const engine = new Engine({ chunk: o.chunk, embedder: o.embedder, noEmbedderReason: o.noEmbedderReason });
    let loaded = false;
    let rebuilt: string | undefined;
    let fedId: string | undefined;
    if (this.storeDir) {
      const r = loadStore(this.storeDir, engine);
      loaded = r.ok;
      if (r.ok) fedId = r.i18nFed;
      if (r.ok && r.note) o.log?.('warn', `${this.root}: ${r.note}`);
      if (!r.ok && r.reason !== 'no stored index') {
        rebuilt = r.reason;
        o.log?.('warn', `rebuilding the index of ${this.root}: ${r.reason}`);
      }
    }
    this.savedRevision = loaded ? engine.revision : -1;
    this.engineFedId = fedId;
    this.loadedEngine = { engine, loaded, rebuilt };
    return engine;
  }

  /** The search engine was loaded (or created): false for a lazy session that only answered i18n. */
  get engineLoaded(): boolean {
    return !!this.loadedEngine;
  }

  /** The store loaded (false: there was none, or it was not trusted: `rebuilt` says why). */
  get loaded(): boolean {
    void this.engine;
    return this.loadedEngine!.loaded;
  }

  get rebuilt(): string | undefined {
    void this.engine;
    return this.loadedEngine!.rebuilt;
  }

  get embedder(): Embedder | undefined {
    return this.options.embedder;
  }

  get dirty(): boolean {
    return (!!this.loadedEngine && (this.loadedEngine.engine.revision !== this.savedRevision || this.refedUnsaved)) || this.i18nPart.dirty;
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
   * kept; missing vectors are then computed in the background). `saveAtEnd: false` leaves the
   * last save to the caller (the CLI's `saveAsync`; `close` saves what a run that threw left).
   * `i18nTables: false` leaves the i18n lookup tables to the first lookup (a CLI command that
   * indexes or searches asks none; the editor's "Where is this string defined?" wants its first
   * answer quick, so by default they are built at the end of the run and saved with it).
   */
  async *index(options: { signal?: AbortSignal; selection?: FileSelection; embed?: boolean; i18n?: I18nConfig; saveAtEnd?: boolean; i18nTables?: boolean } = {}): AsyncGenerator<IndexProgress> {
    this.assertOpen();
    if ('selection' in options) this.selection = options.selection;
    // the run feeds the i18n index too (one read of each file for both): the UI text of the code
    // is searchable when it is done, not only after a first i18n question
    this.i18nPart.forRun(options.i18n);
    await this.stopEmbedding();
    this.indexing++;
    const stop = new AbortController();
    this.runs.add(stop);
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let lastSave = Date.now();
    try {
      let phase: IndexProgress['phase'] | undefined;
      const run = this.engine.indexFolder(this.source, { signal, selection: this.walkSelection(), embed: options.embed, hook: this.i18nPart.hook(), pool: this.options.chunkPool });
      let warned = false;
      for await (const p of run) {
        if (phase === 'chunk' && p.phase !== 'chunk') warned = this.warnMemorySkips();
        // saved before embedding starts (and every 10 s of it); a run that ends is saved below,
        // once, with its i18n text (saving here too wrote a cold index's store twice)
        if ((phase === 'chunk' && p.phase === 'embed') || (p.phase === 'embed' && Date.now() - lastSave > 10_000)) {
          await this.saveAsync(); // the run waits here (nothing of it changes the index meanwhile)
          lastSave = Date.now();
        }
        phase = p.phase;
        yield p;
      }
      if (!warned) this.warnMemorySkips();
      // the run fed the i18n index every changed file of the walk: its text goes to the engine
      // now, so that the save below has it (a turn before it: on a large tree it takes seconds,
      // and so does the save's start, which waits for another turn: answers go between them)
      await turn();
      this.i18nPart.indexed(options.i18nTables !== false);
    } finally {
      this.runs.delete(stop);
      this.i18nPart.refreshText();
      // still indexing while it saves: no background embedding starts meanwhile, and `idle` waits for it
      try {
        if (options.saveAtEnd !== false) await this.saveAsync();
      } finally {
        this.indexing--;
      }
      this.options.onChange?.();
      if (!this.closed) this.startEmbedding();
    }
  }

  /** Says how many files the index run left for want of memory (engine-run.ts MEMORY_STOP_SHARE), and what to do; true when there were any. */
  private warnMemorySkips(): boolean {
    let n = 0;
    let detail = '';
    for (const r of this.engine.files.values()) {
      if (r.skipped?.reason !== 'memory') continue;
      n++;
      detail = r.skipped.detail;
    }
    if (n) this.options.log?.('warn', `${n} file${n === 1 ? ' was' : 's were'} ${detail}. Leave large folders out (.gitignore, or fathom.files.exclude in VS Code), or give Node more memory (NODE_OPTIONS=--max-old-space-size=<MB>)`);
    return n > 0;
  }

  /**
   * Files changed: each is read once (unless its bytes come with the change) and the same
   * decoded text goes to the engine and to the i18n index. A file the folder's selection or
   * `.gitignore` leaves out is removed, not indexed. Keyword-searchable when this returns;
   * vectors follow in the background, the store is saved debounced.
   */
  apply(changes: FileUpdate[]): UpdateResult {
    this.assertOpen();
    const wanted = this.source.filter(this.walkSelection());
    // remembers the locale files before the change (a deleted locale module is not in the index after it)
    const i18n = this.i18nPart.update();
    const cap = this.engine.chunkOptions.maxFileBytes;
    let changed = 0;
    const problems: UpdateResult['problems'] = [];
    for (const u of changes) {
      const rel = toRel(u.rel);
      if (u.deleted || !wanted(rel)) {
        if (this.engine.removeFile(rel)) changed++;
        i18n.drop(rel);
        continue;
      }
      const i18nCap = i18n.cap(rel); // undefined: the i18n index does not want the file
      let r: ReadResult;
      if (u.bytes) {
        const stat = { size: u.bytes.byteLength, mtimeMs: u.mtimeMs ?? Date.now() };
        r = { ok: true, rel, stat, bytes: u.bytes, hash: hashBytes(u.bytes), decoded: decodeBytes(u.bytes) };
      } else r = this.source.read(rel, i18nCap !== undefined ? Math.max(cap, i18nCap) : cap);
      if (!r.ok && r.reason === 'unreadable') problems.push({ rel, reason: r.detail });
      if (this.engine.applyRead(r)) changed++;
      if (i18nCap !== undefined) i18n.feed(r);
    }
    this.i18nPart.refreshText(i18n.textPaths(changes.map((u) => toRel(u.rel))));
    this.afterChange();
    return { changed, problems, pendingVectors: this.engine.pendingVectors };
  }

  /** Forgets files, or folders (every file under `<rel>/`). */
  remove(paths: string[]): UpdateResult {
    this.assertOpen();
    let changed = 0;
    for (const p of paths) {
      const rel = toRel(p);
      const under = (f: string) => f === rel || f.startsWith(`${rel}/`);
      for (const f of [...this.engine.files.keys()]) if (under(f) && this.engine.removeFile(f)) changed++;
      this.i18nPart.dropWhere(under);
    }
    this.i18nPart.refreshText();
    this.afterChange();
    return { changed, problems: [], pendingVectors: this.engine.pendingVectors };
  }

  /** Builds the i18n index now (see `prepareI18n`) and waits until its text is searchable with the code. */
  async searchableI18n(config: I18nConfig = {}): Promise<void> {
    this.assertOpen();
    await this.i18nPart.searchable(config);
  }

  private afterChange(): void {
    if (this.dirty) this.scheduleSave();
    this.startEmbedding();
    this.options.onChange?.();
  }

  // --- answers ------------------------------------------------------------------------------

  async search(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    this.assertOpen();
    const remote = this.options.remote;
    if (remote) {
      const o = options ?? {};
      const hits = await remote.search(this.root, this.engine, query, {
        ...{ k: o.k, mode: o.mode, filters: o.filters, rrfK: o.rrfK, embedder: this.options.embedder },
        localSearch: (k) => this.engine.search(query, { ...o, k, diversify: false }),
        // what this folder leaves out (its exclude settings, .gitignore files) stays out of the team index's answers
        localRules: { key: JSON.stringify(this.walkSelection() ?? null), allowed: () => this.source.filter(this.walkSelection()) },
      });
      if (hits) return hits; // undefined: the team index cannot answer now, the local one does
    }
    // the editor's results view groups locale files itself (a Translations group): they reach it unfolded
    return this.engine.search(query, { ...options, diversify: options?.diversify ?? { foldLocales: false } });
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
   * An i18n question (see `I18nQuery`), the answer typed by its `op`. The i18n index is built by
   * the first `index` run or the first question (from the source, with the folder's selection;
   * requests with other `localeGlobs` rebuild it) and kept current by `index` and `apply`.
   */
  async i18n<Q extends I18nQuery>(query: Q, options: I18nAskOptions = {}): Promise<I18nAnswerOf<Q['op']>> {
    this.assertOpen();
    return (await this.i18nPart.answer(query, options)) as I18nAnswerOf<Q['op']>;
  }

  /**
   * Starts building the i18n index now (it is then kept current by `index` and `apply`);
   * the globs of the index there is, if any (undefined: none).
   */
  prepareI18n(config: I18nConfig = {}): void {
    this.assertOpen();
    this.i18nPart.prepare(config);
  }

  /** The configuration of the i18n index the session keeps, or undefined when it keeps none. */
  get i18nConfig(): I18nConfig | undefined {
    return this.i18nPart.config;
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
   * Saves now when something changed. The store's files are written in the thread pool, with the
   * event loop free between them (`saveStoreAsync`): answers go on while a large index is saved
   * (a 690,000-chunk store took 40 s of one thread, answering nothing). One save at a time: a
   * save asked for during one waits for it, then writes what changed since. An index changed
   * under a save (a file applied meanwhile) ends that save with the previous store kept; it is
   * saved again after `saveDelayMs`. A failure is logged and the previous store kept; a store
   * that cannot be written is not tried again (`cannotSave`). `throwOnError`: a failed or
   * impossible save throws (StoreWriteError) instead.
   */
  async saveAsync(options: { throwOnError?: boolean } = {}): Promise<void> {
    while (this.saving) await this.saving;
    const e = this.toSave(options);
    if (e === null) return;
    const run = this.write(e, options);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.saving = settled;
    try {
      await run;
    } finally {
      if (this.saving === settled) this.saving = undefined;
    }
  }

  private async write(e: Engine | undefined, options: { throwOnError?: boolean }): Promise<void> {
    await turn();
    // the i18n snapshot is made now and written in the thread pool, beside the store's files
    const snap = this.i18nPart.dirty ? this.i18nPart.snapshot() : undefined;
    const i18n = snap ? this.i18nPart.saveAsync(snap) : undefined;
    try {
      if (e) {
        const rev = e.revision;
        const fed = this.i18nPart.fedIdFor(e, snap);
        await saveStoreAsync(this.storeDir!, e, { i18nFed: fed, modelSource: this.options.modelSource });
        this.savedRevision = rev;
        this.engineFedId = fed;
        this.refedUnsaved = false;
        this.changedSaves = 0;
      }
    } catch (err) {
      if (err instanceof StoreChangedError && !options.throwOnError) {
        // changed meanwhile: saved again later, each time later while changes keep coming (an
        // agent editing a file more often than a large store takes to write would otherwise have
        // every save start again, each a serialization thrown away); `close` saves in any case
        this.changedSaves++;
        if (this.saveTimer) clearTimeout(this.saveTimer);
        this.saveTimer = undefined;
        this.scheduleSave();
      } else this.saveFailed(err, options);
    } finally {
      await i18n;
      this.recordRefed();
    }
  }

  /** The engine a save writes, undefined when only the i18n index needs it, null when nothing is to be saved. */
  private toSave(options: { throwOnError?: boolean }): Engine | undefined | null {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.storeDir || !this.dirty) return null;
    if (this.saveProblem) {
      if (options.throwOnError) throw new StoreWriteError(this.saveProblem);
      return null;
    }
    // the folder deleted (a checkout being replaced): no store folder is made where it was; kept
    // unsaved until it is back. Back, or changed under the session: its place is checked again,
    // so a .fathom link (or foreign files) that came with a fresh checkout is never written.
    const rel = path.relative(this.root, this.storeDir);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel) && !isFolder(this.root)) return null;
    try {
      checkStorePlace(this.root, this.storeDir);
    } catch (err) {
      this.saveFailed(err, options);
      return null;
    }
    const e = this.loadedEngine?.engine;
    return e && e.revision !== this.savedRevision ? e : undefined;
  }

  /**
   * After a save: a re-feed that changed no chunk (`refedUnsaved`) is recorded in the stored
   * manifest, which then names the saved i18n snapshot, without writing the store again. Not
   * possible (the i18n snapshot not saved): left for the next save. A failed write is logged and
   * not tried again (the next session feeds the chunks once more).
   */
  private recordRefed(): void {
    const e = this.loadedEngine?.engine;
    if (!this.refedUnsaved || !e || !this.storeDir || e.revision !== this.savedRevision) return;
    const fed = this.i18nPart.fedIdFor(e);
    if (fed === undefined) return;
    this.refedUnsaved = false;
    try {
      recordI18nFed(this.storeDir, fed);
      this.engineFedId = fed;
    } catch (err) {
      this.options.log?.('warn', `could not record the i18n snapshot in the store's manifest: ${errText(err)}`);
    }
  }

  /** A failed store save: thrown (throwOnError), or logged and remembered. */
  private saveFailed(err: unknown, options: { throwOnError?: boolean }): void {
    if (options.throwOnError) throw err;
    if (err instanceof StoreWriteError) this.noSave(err.message);
    else this.options.log?.('error', errText(err));
  }

  /**
   * A save after `saveDelayMs`, doubled for each save in a row that the index changed under (at
   * most 32 times: 64 s by default). Not while background embedding runs: it saves between its
   * batches (a save started at any other time would see a batch come in, and start again).
   */
  private scheduleSave(): void {
    if (this.saveTimer || this.closed || !this.storeDir || this.embedding) return;
    const delay = (this.options.saveDelayMs ?? 2000) * 2 ** Math.min(this.changedSaves, 5);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.saveAsync().finally(() => this.options.onChange?.());
    }, delay);
  }

  /** Computes pending vectors in the background (unless an index run does it). */
  private startEmbedding(): void {
    if (this.embedding || this.indexing || !this.loadedEngine || !this.engine.embedder || !this.engine.pendingVectors || this.closed) return;
    const abort = new AbortController();
    const run = async () => {
      await turn();
      let lastSave = Date.now();
      for await (const p of this.engine.embedPending(abort.signal)) {
        this.options.onProgress?.(p);
        // between two batches (the next waits): no vector comes in while the store is written
        if (Date.now() - lastSave >= (this.options.saveDelayMs ?? 2000)) {
          await this.saveAsync();
          lastSave = Date.now();
        }
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
        if (!abort.signal.aborted) this.options.log?.('error', `embedding failed: ${errText(err)}`);
      })
      .finally(() => {
        if (this.embedding?.abort === abort) this.embedding = undefined;
        this.options.onChange?.();
        // changes that came in while the last batch ran
        if (!abort.signal.aborted && this.engine.pendingVectors) this.startEmbedding();
        // the last batches' vectors (and changes applied meanwhile), unless embedding goes on
        if (this.dirty) this.scheduleSave();
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
    await this.saveAsync();
    try {
      this.release();
    } catch (err) {
      this.options.log?.('warn', `could not release the lock of ${this.storeDir}: ${errText(err)}`);
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`the session of ${this.root} is closed`);
  }
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
