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
import type { RemoteIndex } from '../index/pgstore';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChunkOptions } from '../chunkers/types';
import type { I18nProblem, Usage } from '../i18n/types';
import { ALLY_FILES, allyReader, readAllyConfig, withAlly, type AllyConfig, type UsagePatterns } from '../i18n/ally';
import type { ScriptLocale } from '../i18n/locales';
import { isLocaleFileName } from '../i18n/formats/index';
import { decodeBytes } from '../parse/decode';
import type { Embedder } from '../index/embedder';
import { Engine, type FileChunker, type IndexHook, type IndexProgress, type SearchHit, type SearchOptions } from '../index/engine';
import { i18nFeed } from '../index/i18n-feed';
import { checkStorePlace, loadStore, lockStore, recordI18nFed, saveStore, saveStoreAsync, StoreWriteError } from '../index/store';
import { I18N_SNAPSHOT_VERSION, stringAt, type I18nIndex, type I18nSnapshot, type LookupResult } from '../i18n/i18n-index';
import { feedI18n, i18nCap, newI18nIndex, wantsFile } from '../i18n/workspace';
import type { FileSelection } from '../workspace/files';
import { hashBytes, NodeFileSource, type FileSource, type FileStat, type ReadResult } from '../workspace/source';
import type { FileInfo, FileUpdate, FolderStatus, I18nAnswer, I18nAnswerOf, I18nQuery, SimilarTarget, UpdateResult } from './protocol';
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

/**
 * What an i18n index is built with: locale globs overriding discovery, a project's own translate
 * functions; and, folded in from i18n Ally's settings in the folder (ally.ts), its custom usage
 * regexes, source language and what of them was refused.
 */
export interface I18nConfig {
  localeGlobs?: string[];
  functions?: string[];
  patterns?: UsagePatterns;
  sourceLanguage?: string;
  configProblems?: I18nProblem[];
}

const configKey = (c: I18nConfig): string => JSON.stringify([c.localeGlobs ?? [], c.functions ?? [], c.patterns ?? null, c.sourceLanguage ?? null, c.configProblems ?? []]);
/** The configuration a caller gives (Fathom's own settings). */
const asked = (c: I18nConfig): I18nConfig => ({ localeGlobs: c.localeGlobs, functions: c.functions });

interface I18nState {
  index: I18nIndex;
  /** Fathom's settings the index was asked with. */
  config: I18nConfig;
  /** `config` with i18n Ally's settings in the folder folded in: what the index is built with. */
  effective: I18nConfig;
  /** What each fed file was, when it was read (size, mtime): the i18n side's catalog. */
  catalog: Map<string, FileStat>;
  /** Settles once every wanted file of the walk was read; undefined: not brought up to date with the folder yet (restored from the store). */
  ready: Promise<void> | undefined;
  /** The revisions of the i18n index and the engine when the engine was last given its full i18n text (feedText): nothing to do until either changes. */
  fed?: { i18n: number; engine: Engine; revision: number };
}

/** The i18n index's file in the store folder. */
const I18N_FILE = 'i18n.json';

interface StoredI18n {
  format: 'fathom-i18n';
  version: number;
  config: I18nConfig;
  effective?: I18nConfig;
  /** path, size, mtime of every file the index was fed. */
  catalog: Array<[string, number, number]>;
  state: I18nSnapshot;
  /** New whenever the index's content changed since the last save: a store manifest naming it (`i18nFed`) holds the i18n text of this snapshot's index. */
  id?: string;
}

export class FolderSession {
  readonly root: string;
  readonly source: FileSource;
  readonly storeDir: string | undefined;
  /** The last `index` run's file selection: it holds for `apply` and for i18n too. */
  selection: FileSelection | undefined;
  private readonly release: () => void;
  private loadedEngine: { engine: Engine; loaded: boolean; rebuilt: string | undefined } | undefined;
  private savedRevision = -1;
  private savedI18nRevision = -1;
  /** The id of the i18n snapshot in the store (see `StoredI18n.id`). */
  private savedI18nId: string | undefined;
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
  /** A `saveAsync` is writing the store: another save now would interleave with it. */
  private savingAsync = false;
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
    release: () => void,
  ) {
    this.root = root;
    this.source = options.source ?? new NodeFileSource(root);
    this.storeDir = options.storeDir ? path.resolve(options.storeDir) : undefined;
    this.release = release;
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
      session.loadI18n();
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
    return (!!this.loadedEngine && (this.loadedEngine.engine.revision !== this.savedRevision || this.refedUnsaved)) || this.i18nDirty;
  }

  private get i18nDirty(): boolean {
    // built lookup tables are stored too: the next process answers without building them
    return !!this.i18nState && (this.i18nState.index.revision !== this.savedI18nRevision || this.i18nState.index.tablesUnsaved);
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
    const i18n = options.i18n ?? this.i18nState?.config ?? {};
    const effective = this.withAllyOf(i18n);
    if (!this.i18nState || configKey(this.i18nState.effective) !== configKey(effective)) this.i18nState = { index: newI18nIndex(effective), config: asked(i18n), effective, catalog: new Map(), ready: undefined };
    await this.stopEmbedding();
    this.indexing++;
    const stop = new AbortController();
    this.runs.add(stop);
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let lastSave = Date.now();
    try {
      let phase: IndexProgress['phase'] | undefined;
      const run = this.engine.indexFolder(this.source, { signal, selection: this.walkSelection(), embed: options.embed, hook: this.i18nHook(), pool: this.options.chunkPool });
      let warned = false;
      for await (const p of run) {
        if (phase === 'chunk' && p.phase !== 'chunk') warned = this.warnMemorySkips();
        // saved before embedding starts (and every 10 s of it); a run that ends is saved below,
        // once, with its i18n text (saving here too wrote a cold index's store twice)
        if ((phase === 'chunk' && p.phase === 'embed') || (p.phase === 'embed' && Date.now() - lastSave > 10_000)) {
          this.save();
          lastSave = Date.now();
        }
        phase = p.phase;
        yield p;
      }
      if (!warned) this.warnMemorySkips();
      // the run fed the i18n index every changed file of the walk: it is current, and its text
      // goes to the engine now, so that the save below has it
      const st = this.i18nState;
      if (st && !st.ready) st.ready = Promise.resolve();
      if (st) {
        this.feedText(st);
        if (options.i18nTables !== false) st.index.prepareTables();
      }
    } finally {
      this.runs.delete(stop);
      this.indexing--;
      this.refreshI18nText();
      if (options.saveAtEnd !== false) this.save();
      this.options.onChange?.();
      if (!this.closed) this.startEmbedding();
    }
  }

  /** Says how many files the index run left for want of memory (engine.ts MEMORY_STOP_SHARE), and what to do; true when there were any. */
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
    const i18n = this.i18nState;
    const cap = this.engine.chunkOptions.maxFileBytes;
    // the locale files before the change: a deleted one (a locale module too, which no name
    // pattern tells) is no longer in the index after it
    const localesBefore = i18n?.index.localeFiles ?? [];
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
    // a changed, new or deleted locale file changes the i18n text of every chunk using its keys; else only the updated files'
    const locales = new Set([...localesBefore, ...(i18n?.index.localeFiles ?? [])]);
    const paths = changes.map((u) => toRel(u.rel));
    this.refreshI18nText(paths.some((p) => locales.has(p) || isLocaleFileName(p, i18n?.index.options.matchesGlobs)) ? undefined : paths);
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
    this.refreshI18nText();
    this.afterChange();
    return { changed, problems: [], pendingVectors: this.engine.pendingVectors };
  }

  /** The i18n text searchable with code chunks (engine.setI18n), from the i18n index there is, if any. */
  private refreshI18nText(paths?: string[]): void {
    const state = this.i18nState;
    if (!state || this.closed) return;
    state.ready?.then(
      () => {
        if (this.i18nState === state && !this.closed) {
          if (paths) this.engine.setI18n(i18nFeed(state.index), paths);
          else this.feedText(state);
        }
      },
      () => undefined,
    );
  }

  /** The engine gets the i18n text of every chunk from `state`, unless it has it from this revision of the i18n index already. */
  private feedText(state: I18nState, engine: Engine = this.engine): void {
    const fed = state.fed;
    if (fed && fed.i18n === state.index.revision && fed.engine === engine && fed.revision === engine.revision) return;
    // the store's chunks hold the text of the stored i18n snapshot, and neither changed since
    // they were loaded (or saved): the engine is given the feed and no chunk is looked at again
    const stored = !fed && engine === this.loadedEngine?.engine && engine.revision === this.savedRevision && this.engineFedId !== undefined && this.engineFedId === this.savedI18nId && state.index.revision === this.savedI18nRevision;
    engine.setI18n(i18nFeed(state.index), stored ? [] : undefined);
    if (!stored && engine === this.loadedEngine?.engine) this.refedUnsaved = true;
    state.fed = { i18n: state.index.revision, engine, revision: engine.revision };
  }

  /** Builds the i18n index now (see `prepareI18n`) and waits until its text is searchable with the code. */
  async searchableI18n(config: I18nConfig = {}): Promise<void> {
    this.assertOpen();
    const state = this.i18nFor(config);
    await state.ready;
    if (this.i18nState === state) this.feedText(state);
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
      const hits = await remote.search(this.root, this.engine, query, { k: o.k, mode: o.mode, filters: o.filters, rrfK: o.rrfK, embedder: this.options.embedder, localSearch: (k) => this.engine.search(query, { ...o, k, diversify: false }) });
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
  async i18n<Q extends I18nQuery>(query: Q, options: I18nConfig & { signal?: AbortSignal; embedder?: Embedder; lexicalOnly?: boolean } = {}): Promise<I18nAnswerOf<Q['op']>> {
    return (await this.answerI18n(query, options)) as I18nAnswerOf<Q['op']>;
  }

  private async answerI18n(query: I18nQuery, options: I18nConfig & { signal?: AbortSignal; embedder?: Embedder; lexicalOnly?: boolean }): Promise<I18nAnswer> {
    this.assertOpen();
    const state = this.i18nFor(options, options.signal);
    await state.ready;
    if (this.i18nDirty) this.scheduleSave();
    options.signal?.throwIfAborted();
    const answer = await this.answerFrom(state, query, options);
    // the lookup tables the answer built are kept with the store
    if (this.i18nDirty) this.scheduleSave();
    return answer;
  }

  private async answerFrom(state: I18nState, query: I18nQuery, options: I18nConfig & { signal?: AbortSignal; embedder?: Embedder; lexicalOnly?: boolean }): Promise<I18nAnswer> {
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
    const embedder = options.embedder ?? this.options.embedder;
    const lookup = async (text: string, fromFile: string | undefined, limit: number | undefined): Promise<LookupResult> => {
      if (options.lexicalOnly) return index.lookupLexical(text, { fromFile, limit });
      const result = await index.lookupString(text, { fromFile, limit, embedder, signal: options.signal });
      if (!embedder && result.semanticUnavailable) result.semanticUnavailable = `${this.options.noEmbedderReason ?? 'no embedding model configured'}: semantic matching is unavailable`;
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
    this.i18nFor(config).ready?.catch(() => undefined);
  }

  /** The configuration of the i18n index the session keeps, or undefined when it keeps none. */
  get i18nConfig(): I18nConfig | undefined {
    return this.i18nState?.config;
  }

  /** The i18n index (built or being built) for these locale globs. */
  private i18nFor(config: I18nConfig, signal?: AbortSignal): I18nState {
    const effective = this.withAllyOf(config);
    const key = configKey(effective);
    const have = this.i18nState;
    if (have && configKey(have.effective) === key) {
      if (!have.ready) this.startReading(have, signal); // restored from the store: read what changed since
      return have;
    }
    const index = newI18nIndex(effective);
    const state: I18nState = { index, config: asked(config), effective, catalog: new Map(), ready: undefined };
    this.i18nState = state;
    this.startReading(state, signal);
    return state;
  }

  /**
   * Fathom's i18n settings with i18n Ally's in the folder folded in (its two small files are read
   * again when their size or mtime changed: an edited `.vscode/settings.json` or custom framework
   * rebuilds the index at the next question).
   */
  private withAllyOf(config: I18nConfig): I18nConfig {
    const stats = JSON.stringify(ALLY_FILES.map((rel) => this.source.stat(rel) ?? null));
    if (this.ally?.stats !== stats) this.ally = { stats, config: readAllyConfig(allyReader(this.source)) };
    return withAlly(asked(config), this.ally.config);
  }

  /** i18n Ally's settings as last read, and the stats of its files then (read again when one changes). */
  private ally: { stats: string; config: AllyConfig } | undefined;

  private startReading(state: I18nState, signal?: AbortSignal): void {
    const ready = this.readI18n(state, signal).then(() => {
      // the words each code chunk shows through its i18n keys become searchable with it
      // (not for a lazy session that only answers i18n: its search index stays unloaded)
      if (this.i18nState === state && !this.closed && this.loadedEngine) this.feedText(state, this.loadedEngine.engine);
    });
    state.ready = ready;
    // a failed read (cancelled) is taken up again by the next question
    ready.catch(() => {
      if (state.ready === ready) state.ready = undefined;
    });
  }

  /** Reads every wanted file of the walk that `state` does not hold yet, giving the event loop a turn every 20 ms. */
  private async readI18n(state: I18nState, signal?: AbortSignal): Promise<void> {
    const t0 = performance.now();
    let slice = t0;
    let read = 0;
    const files = await this.source.walkAsync(this.walkSelection(), [], signal);
    const listed = new Set(files.map((f) => f.rel));
    for (const rel of [...state.catalog.keys(), ...state.index.knownFiles()]) if (!listed.has(rel)) this.i18nDrop(state, rel);
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

  private i18nFeed(state: I18nState, r: ReadResult, found?: { usages: Usage[]; locale?: ScriptLocale }): void {
    feedI18n(state.index, r, {}, found?.usages, found?.locale, this.source);
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
      // a chunk thread finds a file's usages from its own parse (the feed then does not parse it again)
      // (and reads it as a locale module: the indexing thread then never parses JS/TS itself)
      usages: (rel) => {
        if (!wantsFile(rel, matches)) return undefined;
        const mode = state.index.scriptMode(rel);
        return { ...state.index.usageOptions(), ...(mode ? { localeScript: mode } : {}) };
      },
      read: (r, found) => {
        if (this.i18nState === state && wantsFile(r.rel, matches)) this.i18nFeed(state, r, found);
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
    if (this.savingAsync) return; // that save writes this state, or leaves the session dirty
    const e = this.toSave(options);
    if (e === null) return;
    const i18n = this.i18nDirty ? this.i18nSnapshot() : undefined;
    if (e) {
      try {
        const rev = e.revision;
        const fed = this.fedIdFor(e, i18n);
        saveStore(this.storeDir!, e, { i18nFed: fed, modelSource: this.options.modelSource });
        this.savedRevision = rev;
        this.engineFedId = fed;
        this.refedUnsaved = false;
      } catch (err) {
        this.saveFailed(err, options);
        return;
      }
    }
    if (i18n) this.saveI18n(i18n);
    this.recordRefed();
  }

  /**
   * The id to record in the manifest of `engine`'s store (`i18nFed`): the i18n snapshot the
   * chunks' i18n text comes from, when they were fed from the current revision of the i18n index
   * and that revision is the one stored (or being stored: `pending`); else none.
   */
  private fedIdFor(engine: Engine, pending?: { id: string; rev: number }): string | undefined {
    const state = this.i18nState;
    const fed = state?.fed;
    if (!state || !fed || fed.engine !== engine || fed.revision !== engine.revision || fed.i18n !== state.index.revision) return undefined;
    if (pending) return pending.rev === state.index.revision ? pending.id : undefined;
    return this.savedI18nRevision === state.index.revision ? this.savedI18nId : undefined;
  }

  /**
   * `save`, with the store's writes overlapping its serialization (`saveStoreAsync`). Nothing may
   * change the index until it resolves: for a caller that saves once at the end and waits (the
   * CLI's index command), where the save ends a cold index on one core (~0.7 of the dev corpus'
   * ~7.4 s).
   */
  async saveAsync(options: { throwOnError?: boolean } = {}): Promise<void> {
    if (this.savingAsync) return;
    const e = this.toSave(options);
    if (e === null) return;
    this.savingAsync = true;
    // the i18n snapshot is made now and written in the thread pool, beside the store's files
    const snap = this.i18nDirty ? this.i18nSnapshot() : undefined;
    const i18n = snap ? this.saveI18nAsync(snap) : undefined;
    try {
      if (e) {
        const rev = e.revision;
        const fed = this.fedIdFor(e, snap);
        await saveStoreAsync(this.storeDir!, e, { i18nFed: fed, modelSource: this.options.modelSource });
        this.savedRevision = rev;
        this.engineFedId = fed;
        this.refedUnsaved = false;
      }
    } catch (err) {
      this.saveFailed(err, options);
    } finally {
      await i18n;
      this.recordRefed();
      this.savingAsync = false;
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
    const fed = this.fedIdFor(e);
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

  // --- the stored i18n index (i18n.json in the store folder, beside the search index) --------

  private get i18nFile(): string | undefined {
    return this.storeDir ? path.join(this.storeDir, I18N_FILE) : undefined;
  }

  /** Restores the stored i18n index, if there is one to trust; the next question brings it up to date (only changed files are read). */
  private loadI18n(): void {
    const file = this.i18nFile;
    if (!file || !fs.existsSync(file)) return;
    let snap: StoredI18n;
    try {
      snap = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredI18n;
    } catch (err) {
      this.options.log?.('warn', `the stored i18n index is unreadable, it is rebuilt: ${errText(err)}`);
      return;
    }
    if (snap?.format !== 'fathom-i18n' || snap.version !== I18N_SNAPSHOT_VERSION || !Array.isArray(snap.catalog) || !snap.state) {
      this.options.log?.('info', 'the stored i18n index is of another version: it is rebuilt');
      return;
    }
    const config: I18nConfig = { localeGlobs: Array.isArray(snap.config?.localeGlobs) ? snap.config.localeGlobs : undefined, functions: Array.isArray(snap.config?.functions) ? snap.config.functions : undefined };
    const e = snap.effective;
    const effective: I18nConfig =
      e && typeof e === 'object'
        ? {
            ...config,
            localeGlobs: Array.isArray(e.localeGlobs) ? e.localeGlobs : undefined,
            ...(e.patterns && Array.isArray(e.patterns.regexes) ? { patterns: e.patterns } : {}),
            ...(typeof e.sourceLanguage === 'string' ? { sourceLanguage: e.sourceLanguage } : {}),
            ...(Array.isArray(e.configProblems) ? { configProblems: e.configProblems } : {}),
          }
        : config;
    const index = newI18nIndex(effective);
    try {
      index.importState(snap.state);
    } catch (err) {
      this.options.log?.('warn', `the stored i18n index is damaged, it is rebuilt: ${errText(err)}`);
      return;
    }
    const catalog = new Map<string, FileStat>(snap.catalog.map(([rel, size, mtimeMs]) => [rel, { size, mtimeMs }]));
    this.i18nState = { index, config, effective, catalog, ready: undefined };
    this.savedI18nRevision = index.revision;
    this.savedI18nId = typeof snap.id === 'string' ? snap.id : undefined;
  }

  /** Writes the i18n index (temp file, then rename: a crash leaves the previous one). */
  private saveI18n(out = this.i18nSnapshot()): void {
    if (!out) return;
    try {
      fs.mkdirSync(path.dirname(out.file), { recursive: true });
      fs.writeFileSync(out.tmp, out.text);
      fs.renameSync(out.tmp, out.file);
      this.savedI18nRevision = out.rev;
      this.savedI18nId = out.id;
    } catch (err) {
      this.i18nSaveFailed(out.tmp, err);
    }
  }

  /** `saveI18n` with the write in the thread pool; never rejects (a failure is logged). */
  private async saveI18nAsync(out = this.i18nSnapshot()): Promise<void> {
    if (!out) return;
    try {
      fs.mkdirSync(path.dirname(out.file), { recursive: true });
      await fs.promises.writeFile(out.tmp, out.text);
      await fs.promises.rename(out.tmp, out.file);
      this.savedI18nRevision = out.rev;
      this.savedI18nId = out.id;
    } catch (err) {
      this.i18nSaveFailed(out.tmp, err);
    }
  }

  /** The stored i18n index's text, the file it goes to through `tmp`, and the revision it is of. */
  private i18nSnapshot(): { file: string; tmp: string; text: string; rev: number; id: string } | undefined {
    const file = this.i18nFile;
    const st = this.i18nState;
    if (!file || !st) return undefined;
    const snap: StoredI18n = {
      format: 'fathom-i18n',
      version: I18N_SNAPSHOT_VERSION,
      config: st.config,
      effective: st.effective,
      catalog: [...st.catalog].map(([rel, s]) => [rel, s.size, s.mtimeMs]),
      state: st.index.exportState(),
      // the same content keeps its id (a save that only adds the lookup tables)
      id: st.index.revision === this.savedI18nRevision && this.savedI18nId ? this.savedI18nId : randomUUID(),
    };
    return { file, tmp: `${file}.tmp-${process.pid}`, text: JSON.stringify(snap), rev: st.index.revision, id: snap.id! };
  }

  private i18nSaveFailed(tmp: string, err: unknown): void {
    fs.rmSync(tmp, { force: true });
    this.options.log?.('error', `could not save the i18n index in ${this.storeDir}: ${errText(err)}`);
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
    if (this.embedding || this.indexing || !this.loadedEngine || !this.engine.embedder || !this.engine.pendingVectors || this.closed) return;
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
        if (!abort.signal.aborted) this.options.log?.('error', `embedding failed: ${errText(err)}`);
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
