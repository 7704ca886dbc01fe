/**
 * The i18n part of a folder's session (session.ts): `SessionI18n`, which the session owns and
 * delegates to. It keeps the folder's i18n index — built on the first i18n question (or restored
 * from the store's i18n.json), then kept current by the session's index runs and updates, fed from
 * the same reads as the engine — its file catalog, i18n Ally's settings folded in, the stored
 * snapshot, and the i18n text the engine's code chunks are given (engine.setI18n).
 *
 * It reads files and writes i18n.json only; the engine, the store's lock and manifest, the
 * save schedule stay the session's, asked through `I18nHost`.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { I18nProblem, ScriptLocale, Usage } from '../i18n/types';
import { ALLY_FILES, allyReader, readAllyConfig, withAlly, type AllyConfig, type UsagePatterns } from '../i18n/ally';
import { isLocaleFileName } from '../i18n/formats/index';
import type { Embedder } from '../index/embedder';
import type { Engine, IndexHook } from '../index/engine';
import { i18nFeed } from '../index/i18n-feed';
import { I18N_SNAPSHOT_VERSION, stringAt, type I18nIndex, type I18nSnapshot, type LookupResult } from '../i18n/i18n-index';
import { feedI18n, i18nCap, newI18nIndex, wantsFile } from '../i18n/workspace';
import type { FileSelection } from '../workspace/files';
import type { FileSource, FileStat, ReadResult } from '../workspace/source';
import type { I18nAnswer, I18nQuery } from './protocol';
import { errText } from '../util/errors';
import { jsonPieces } from '../util/json-pieces';
import { writeAtomicAsync } from '../index/store';
import { toRel } from '../util/paths';

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

/** An i18n question's options: the configuration, and how string lookups match. */
export type I18nAskOptions = I18nConfig & { signal?: AbortSignal; embedder?: Embedder; lexicalOnly?: boolean };

/** What the i18n part asks of the session that owns it. */
export interface I18nHost {
  readonly root: string;
  readonly source: FileSource;
  readonly storeDir: string | undefined;
  /** The session's embedder (string lookups' default), and why there is none. */
  readonly embedder: Embedder | undefined;
  readonly noEmbedderReason: string | undefined;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  isClosed(): boolean;
  /** The folder's selection, the store left out (session.ts `walkSelection`). */
  walkSelection(): FileSelection | undefined;
  /** The search engine (loaded from the store on first use). */
  engine(): Engine;
  /** The search engine when it was loaded: undefined for a lazy session that only answered i18n. */
  loadedEngine(): Engine | undefined;
  /** The i18n snapshot id whose text `engine`'s stored chunks hold (the manifest's `i18nFed`), when `engine` is the loaded one and unchanged since loaded or saved. */
  storedFedId(engine: Engine): string | undefined;
  /** `engine` was given every chunk's i18n text again, with no chunk changed. */
  refed(engine: Engine): void;
  /** The i18n index changed: save (debounced). */
  scheduleSave(): void;
}

/** What `update` gives an `apply` of changed files: the i18n index's side of each file. */
export interface I18nUpdate {
  /** A file deleted or left out. */
  drop(rel: string): void;
  /** How many bytes the i18n index reads of `rel`; undefined: it does not want the file. */
  cap(rel: string): number | undefined;
  /** A file it wants was read. */
  feed(r: ReadResult): void;
  /** The files whose chunks' i18n text is refreshed after the change (undefined: every chunk's, a locale file changed). */
  textPaths(paths: string[]): string[] | undefined;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

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

/** A snapshot of the i18n index to write: its JSON text in pieces, the file it goes to, and the revision it is of. */
export interface I18nSnapshotOut {
  file: string;
  pieces: Iterable<string>;
  rev: number;
  id: string;
  /** The index is still the one snapshot (the pieces, made as they are written, are of it). */
  current: () => boolean;
}

/** The i18n index changed while its snapshot was being written: not written, left for the next save. */
class ChangedWhileWritten extends Error {}

export class SessionI18n {
  private state: I18nState | undefined;
  private savedRevision = -1;
  /** The id of the i18n snapshot in the store (see `StoredI18n.id`). */
  private savedId: string | undefined;
  /** i18n Ally's settings as last read, and the stats of its files then (read again when one changes). */
  private ally: { stats: string; config: AllyConfig } | undefined;

  constructor(private readonly host: I18nHost) {}

  /** The configuration of the i18n index kept, or undefined when none is kept. */
  get config(): I18nConfig | undefined {
    return this.state?.config;
  }

  /** Something to save: the index changed, or it built lookup tables (stored too: the next process answers without building them). */
  get dirty(): boolean {
    return !!this.state && (this.state.index.revision !== this.savedRevision || this.state.index.tablesUnsaved);
  }

  // --- index runs and updates ---------------------------------------------------------------

  /** Before an index run: the index for `config` (default: the one kept), made empty when the configuration changed; the run feeds it (`hook`). */
  forRun(config?: I18nConfig): void {
    const i18n = config ?? this.state?.config ?? {};
    const effective = this.withAllyOf(i18n);
    if (!this.state || configKey(this.state.effective) !== configKey(effective)) this.state = { index: newI18nIndex(effective), config: asked(i18n), effective, catalog: new Map(), ready: undefined };
  }

  /** What an index run feeds the i18n index (when there is one): the same reads as the engine's. */
  hook(): IndexHook | undefined {
    const state = this.state;
    if (!state) return undefined;
    const matches = state.index.options.matchesGlobs;
    return {
      listed: (files) => {
        const seen = new Set(files.map((f) => f.rel));
        for (const rel of [...state.catalog.keys(), ...state.index.knownFiles()]) if (!seen.has(rel)) this.drop(state, rel);
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
        if (this.state === state && wantsFile(r.rel, matches)) this.feed(state, r, found);
      },
    };
  }

  /**
   * An index run ended: it fed the i18n index every changed file of the walk, so the index is
   * current, and its text goes to the engine now (the save after the run has it). `tables`: the
   * lookup tables are built now as well.
   */
  indexed(tables: boolean): void {
    const st = this.state;
    if (st && !st.ready) st.ready = Promise.resolve();
    if (st) {
      this.feedText(st);
      if (tables) st.index.prepareTables();
    }
  }

  /**
   * Files are about to change (`apply`): the i18n side of each. The locale files before the change
   * are remembered: a deleted one (a locale module too, which no name pattern tells) is no longer
   * in the index after it, and still refreshes every chunk's i18n text.
   */
  update(): I18nUpdate {
    const state = this.state;
    const before = state?.index.localeFiles ?? [];
    return {
      drop: (rel) => {
        if (state) this.drop(state, rel);
      },
      cap: (rel) => (state && wantsFile(rel, state.index.options.matchesGlobs) ? i18nCap(rel, {}, state.index.options.matchesGlobs) : undefined),
      feed: (r) => {
        if (state) this.feed(state, r);
      },
      // a changed, new or deleted locale file changes the i18n text of every chunk using its keys; else only the updated files'
      textPaths: (paths) => {
        const locales = new Set([...before, ...(state?.index.localeFiles ?? [])]);
        return paths.some((p) => locales.has(p) || isLocaleFileName(p, state?.index.options.matchesGlobs)) ? undefined : paths;
      },
    };
  }

  /** Forgets every file `under` tells (`remove` of files or folders). */
  dropWhere(under: (rel: string) => boolean): void {
    const state = this.state;
    if (state) for (const f of [...state.catalog.keys(), ...state.index.knownFiles()]) if (under(f)) this.drop(state, f);
  }

  /** The i18n text searchable with code chunks (engine.setI18n), from the i18n index there is, if any: of `paths`' chunks, or every chunk's. */
  refreshText(paths?: string[]): void {
    const state = this.state;
    if (!state || this.host.isClosed()) return;
    state.ready?.then(
      () => {
        if (this.state === state && !this.host.isClosed()) {
          if (paths) this.host.engine().setI18n(i18nFeed(state.index), paths);
          else this.feedText(state);
        }
      },
      () => undefined,
    );
  }

  /** The engine gets the i18n text of every chunk from `state`, unless it has it from this revision of the i18n index already. */
  private feedText(state: I18nState, engine: Engine = this.host.engine()): void {
    const fed = state.fed;
    if (fed && fed.i18n === state.index.revision && fed.engine === engine && fed.revision === engine.revision) return;
    // the store's chunks hold the text of the stored i18n snapshot, and neither changed since
    // they were loaded (or saved): the engine is given the feed and no chunk is looked at again
    const storedId = fed ? undefined : this.host.storedFedId(engine);
    const stored = storedId !== undefined && storedId === this.savedId && state.index.revision === this.savedRevision;
    engine.setI18n(i18nFeed(state.index), stored ? [] : undefined);
    if (!stored) this.host.refed(engine);
    state.fed = { i18n: state.index.revision, engine, revision: engine.revision };
  }

  /** Builds the i18n index now (see `prepare`) and waits until its text is searchable with the code. */
  async searchable(config: I18nConfig = {}): Promise<void> {
    const state = this.stateFor(config);
    await state.ready;
    if (this.state === state) this.feedText(state);
  }

  // --- answers ------------------------------------------------------------------------------

  /** An i18n question (session.ts `i18n`), answered once the index for `options` is current. */
  async answer(query: I18nQuery, options: I18nAskOptions): Promise<I18nAnswer> {
    const state = this.stateFor(options, options.signal);
    await state.ready;
    if (this.dirty) this.host.scheduleSave();
    options.signal?.throwIfAborted();
    const answer = await this.answerFrom(state, query, options);
    // the lookup tables the answer built are kept with the store
    if (this.dirty) this.host.scheduleSave();
    return answer;
  }

  private async answerFrom(state: I18nState, query: I18nQuery, options: I18nAskOptions): Promise<I18nAnswer> {
    const index = state.index;
    if (query.op === 'key') return { op: 'key', result: index.lookupKey(query.key, { fromFile: query.fromFile, limit: query.limit }) };
    if (query.op === 'diagnostics') return { op: 'diagnostics', result: index.diagnostics(query.file, query.text) };
    if (query.op === 'hover') {
      let text = query.text;
      if (text === undefined) {
        const r = this.host.source.read(toRel(query.file), i18nCap(query.file, {}, index.options.matchesGlobs));
        text = r.ok ? r.decoded.text : undefined;
      }
      return { op: 'hover', result: index.hover(query.file, query.offset, text) ?? null };
    }
    const embedder = options.embedder ?? this.host.embedder;
    const lookup = async (text: string, fromFile: string | undefined, limit: number | undefined): Promise<LookupResult> => {
      if (options.lexicalOnly) return index.lookupLexical(text, { fromFile, limit });
      const result = await index.lookupString(text, { fromFile, limit, embedder, signal: options.signal });
      if (!embedder && result.semanticUnavailable) result.semanticUnavailable = `${this.host.noEmbedderReason ?? 'no embedding model configured'}: semantic matching is unavailable`;
      return result;
    };
    if (query.op === 'at') {
      const found = stringAt(query.text, query.language, query.offset, query.selection);
      if (!found) return { op: 'at', string: null, result: { candidates: [], problems: index.problems } };
      return { op: 'at', string: found, result: await lookup(found.text, query.file, query.limit) };
    }
    return { op: 'string', result: await lookup(query.text, query.fromFile, query.limit) };
  }

  /** Starts building the i18n index now (it is then kept current by index runs and updates). */
  prepare(config: I18nConfig = {}): void {
    this.stateFor(config).ready?.catch(() => undefined);
  }

  // --- building the index -------------------------------------------------------------------

  /** The i18n index (built or being built) for these locale globs. */
  private stateFor(config: I18nConfig, signal?: AbortSignal): I18nState {
    const effective = this.withAllyOf(config);
    const key = configKey(effective);
    const have = this.state;
    if (have && configKey(have.effective) === key) {
      if (!have.ready) this.startReading(have, signal); // restored from the store: read what changed since
      return have;
    }
    const index = newI18nIndex(effective);
    const state: I18nState = { index, config: asked(config), effective, catalog: new Map(), ready: undefined };
    this.state = state;
    this.startReading(state, signal);
    return state;
  }

  /**
   * Fathom's i18n settings with i18n Ally's in the folder folded in (its two small files are read
   * again when their size or mtime changed: an edited `.vscode/settings.json` or custom framework
   * rebuilds the index at the next question).
   */
  private withAllyOf(config: I18nConfig): I18nConfig {
    const source = this.host.source;
    const stats = JSON.stringify(ALLY_FILES.map((rel) => source.stat(rel) ?? null));
    if (this.ally?.stats !== stats) this.ally = { stats, config: readAllyConfig(allyReader(source)) };
    return withAlly(asked(config), this.ally.config);
  }

  private startReading(state: I18nState, signal?: AbortSignal): void {
    const ready = this.read(state, signal).then(() => {
      // the words each code chunk shows through its i18n keys become searchable with it
      // (not for a lazy session that only answers i18n: its search index stays unloaded)
      const engine = this.host.loadedEngine();
      if (this.state === state && !this.host.isClosed() && engine) this.feedText(state, engine);
    });
    state.ready = ready;
    // a failed read (cancelled) is taken up again by the next question
    ready.catch(() => {
      if (state.ready === ready) state.ready = undefined;
    });
  }

  /** Reads every wanted file of the walk that `state` does not hold yet, giving the event loop a turn every 20 ms. */
  private async read(state: I18nState, signal?: AbortSignal): Promise<void> {
    const source = this.host.source;
    const t0 = performance.now();
    let slice = t0;
    let read = 0;
    const files = await source.walkAsync(this.host.walkSelection(), [], signal);
    const listed = new Set(files.map((f) => f.rel));
    for (const rel of [...state.catalog.keys(), ...state.index.knownFiles()]) if (!listed.has(rel)) this.drop(state, rel);
    for (const f of files) {
      if (this.state !== state) return; // superseded (other globs)
      if (!wantsFile(f.rel, state.index.options.matchesGlobs)) continue;
      const known = state.catalog.get(f.rel);
      if (known && known.size === f.size && known.mtimeMs === f.mtimeMs) continue; // fed by an update meanwhile
      this.feed(state, source.read(f.rel, i18nCap(f.rel, {}, state.index.options.matchesGlobs)));
      read++;
      if (performance.now() - slice > 20) {
        await turn();
        signal?.throwIfAborted();
        slice = performance.now();
      }
    }
    this.host.log('info', `i18n index of ${this.host.root}: ${state.index.localeFiles.length} locale files, ${read} files read in ${Math.round(performance.now() - t0)} ms`);
  }

  private feed(state: I18nState, r: ReadResult, found?: { usages: Usage[]; locale?: ScriptLocale }): void {
    feedI18n(state.index, r, {}, found?.usages, found?.locale, this.host.source);
    if (r.ok) state.catalog.set(r.rel, r.stat);
    else if (r.reason === 'missing') state.catalog.delete(r.rel);
    else state.catalog.set(r.rel, r.stat ?? { size: -1, mtimeMs: -1 });
  }

  private drop(state: I18nState, rel: string): void {
    state.catalog.delete(rel);
    state.index.deleteFile(rel);
  }

  // --- the stored i18n index (i18n.json in the store folder, beside the search index) --------

  /**
   * The id to record in the manifest of `engine`'s store (`i18nFed`): the i18n snapshot the
   * chunks' i18n text comes from, when they were fed from the current revision of the i18n index
   * and that revision is the one stored (or being stored: `pending`); else none.
   */
  fedIdFor(engine: Engine, pending?: { id: string; rev: number }): string | undefined {
    const state = this.state;
    const fed = state?.fed;
    if (!state || !fed || fed.engine !== engine || fed.revision !== engine.revision || fed.i18n !== state.index.revision) return undefined;
    if (pending) return pending.rev === state.index.revision ? pending.id : undefined;
    return this.savedRevision === state.index.revision ? this.savedId : undefined;
  }

  private get file(): string | undefined {
    return this.host.storeDir ? path.join(this.host.storeDir, I18N_FILE) : undefined;
  }

  /** Restores the stored i18n index, if there is one to trust; the next question brings it up to date (only changed files are read). */
  load(): void {
    const file = this.file;
    if (!file || !fs.existsSync(file)) return;
    let snap: StoredI18n;
    try {
      snap = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredI18n;
    } catch (err) {
      this.host.log('warn', `the stored i18n index is unreadable, it is rebuilt: ${errText(err)}`);
      return;
    }
    if (snap?.format !== 'fathom-i18n' || snap.version !== I18N_SNAPSHOT_VERSION || !Array.isArray(snap.catalog) || !snap.state) {
      this.host.log('info', 'the stored i18n index is of another version: it is rebuilt');
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
      this.host.log('warn', `the stored i18n index is damaged, it is rebuilt: ${errText(err)}`);
      return;
    }
    const catalog = new Map<string, FileStat>(snap.catalog.map(([rel, size, mtimeMs]) => [rel, { size, mtimeMs }]));
    this.state = { index, config, effective, catalog, ready: undefined };
    this.savedRevision = index.revision;
    this.savedId = typeof snap.id === 'string' ? snap.id : undefined;
  }

  /**
   * Writes the i18n index in the thread pool (temp file, then rename: a crash leaves the previous
   * one), its JSON made piece by piece as it is written, with the event loop free between writes.
   * An index changed meanwhile is not written (it stays unsaved: the next save writes it). Never
   * rejects (a failure is logged).
   */
  async saveAsync(out = this.snapshot()): Promise<void> {
    if (!out) return;
    // the store's writer: the pieces gathered into 4 MB buffers, each written while the next is made
    function* whileCurrent(o: I18nSnapshotOut): Generator<string> {
      for (const piece of o.pieces) {
        if (!o.current()) throw new ChangedWhileWritten();
        yield piece;
      }
      if (!o.current()) throw new ChangedWhileWritten();
    }
    try {
      fs.mkdirSync(path.dirname(out.file), { recursive: true });
      await writeAtomicAsync(out.file, whileCurrent(out));
      this.savedRevision = out.rev;
      this.savedId = out.id;
    } catch (err) {
      // (the writer removed its temp file)
      if (!(err instanceof ChangedWhileWritten)) this.host.log('error', `could not save the i18n index in ${this.host.storeDir}: ${errText(err)}`);
    }
  }

  /** The stored i18n index's text, the file it goes to, and the revision it is of. */
  snapshot(): I18nSnapshotOut | undefined {
    const file = this.file;
    const st = this.state;
    if (!file || !st) return undefined;
    const snap: StoredI18n = {
      format: 'fathom-i18n',
      version: I18N_SNAPSHOT_VERSION,
      config: st.config,
      effective: st.effective,
      catalog: [...st.catalog].map(([rel, s]) => [rel, s.size, s.mtimeMs]),
      state: st.index.exportState(),
      // the same content keeps its id (a save that only adds the lookup tables)
      id: st.index.revision === this.savedRevision && this.savedId ? this.savedId : randomUUID(),
    };
    const rev = st.index.revision;
    // pieces down to the 4th level: a locale file, a lookup group, a postings list each (calibre's
    // 257 MB index: 125,000 pieces, written in 3.1 s with the event loop held 206 ms at most; one
    // JSON.stringify and its encoding held it 5 s; a 5th level made 33 million pieces, 18 s)
    return { file, pieces: jsonPieces(snap, 4), rev, id: snap.id!, current: () => this.state === st && st.index.revision === rev };
  }
}
