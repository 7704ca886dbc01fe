/**
 * The folder the `fathom mcp` server keeps open (`LocalFolder`): its index loaded from the store,
 * brought up to date in the background, kept fresh by a file watcher, answered from while it
 * indexes.
 *
 * The tools (src/agent/tools.ts) only ever see `AgentFolder` (src/agent/folder.ts), so the same
 * answers come from this server and from the extension's worker. `LocalFolder` is a thin host of
 * a `FolderSession` (src/service/session.ts: lock, load, index, apply changes, save, close): it
 * adds only the file watcher, the background first pass and the "still indexing" state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Chunk, ChunkOptions } from '../chunkers/types';
import type { Embedder } from '../index/embedder';
import type { Engine, SearchHit, SearchOptions } from '../index/engine';
import type { FileChunker } from '../index/engine-types';
import { StoreLockedError } from '../index/store';
import type { LookupResult } from '../i18n/types';
import { engineChunks, engineChunksOf, enginePaths, type AgentFolder, type FolderState, type I18nAsk } from '../agent/folder';
import { FolderSession } from '../service/session';
import { NodeFileSource, type ReadResult } from '../workspace/source';
import type { FileSelection } from '../workspace/files';
import { errText } from '../util/errors';
import { relativeIn, toRel } from '../util/paths';

export interface LocalFolderOptions {
  /** Where the index is saved; default `<root>/.fathom`. */
  storeDir?: string;
  embedder?: Embedder;
  noEmbedderReason?: string;
  chunk?: ChunkOptions;
  selection?: FileSelection;
  /** Log lines (the MCP server writes them to stderr). */
  log?: (message: string) => void;
  /** Watch the folder (default true). */
  watch?: boolean;
  /** How often the folder itself is checked for having been deleted or replaced, ms (default 2000; every tool call checks too). */
  rootCheckMs?: number;
  /** Quiet time before a batch of file events is applied, ms (default 150). */
  debounceMs?: number;
  /** Delay of saves after changes, ms (default 2000). */
  saveDelayMs?: number;
  /** Chunks the first pass's files on other threads (src/service/chunk-pool.ts); none: on the server's thread. */
  chunkPool?: FileChunker;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A folder held open by the MCP server. `start` opens its session (after one turn of the event
 * loop, so the server answers the protocol's handshake first: the stored index loads, or — when
 * another process holds its lock — the folder is indexed in memory only, and says so), runs the
 * first incremental pass in the background and watches; every answer in between comes from
 * what is loaded and indexed so far.
 */
export class LocalFolder implements AgentFolder {
  readonly root: string;
  private session: FolderSession | undefined;
  private readonly log: (m: string) => void;
  private readonly storeDir: string;
  private storeNote: string;
  private progress: FolderState['indexing'];
  private watcher: fs.FSWatcher | undefined;
  private watchNote = 'not watching';
  /** The identity (device and inode) of the folder being watched: a folder deleted and created again (a fresh checkout) has another, and no watcher of the old one sees it. */
  private watchedId: string | undefined;
  private rootTimer: NodeJS.Timeout | undefined;
  private pending = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private firstPendingAt = 0;
  private applying: Promise<void> = Promise.resolve();
  private lastUpdate: string | undefined;
  private readonly abort = new AbortController();
  private closed = false;
  /** Resolves when the first pass is over. */
  indexed: Promise<void> = Promise.resolve();

  private constructor(
    root: string,
    private readonly options: LocalFolderOptions,
  ) {
    this.root = root;
    this.log = options.log ?? (() => undefined);
    this.storeDir = path.resolve(options.storeDir ?? path.join(root, '.fathom'));
    this.storeNote = this.storeDir;
  }

  /** Checks that `root` is a folder (`start` opens it). Throws when it is not. */
  static open(rootIn: string, options: LocalFolderOptions = {}): LocalFolder {
    const root = path.resolve(rootIn);
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch {
      throw new Error(`${rootIn} does not exist`);
    }
    if (!st.isDirectory()) throw new Error(`${rootIn} is not a folder`);
    return new LocalFolder(root, options);
  }

  /** The engine of the open session (undefined while it loads). */
  get engine(): Engine | undefined {
    return this.session?.engine;
  }

  /** Opens the session and indexes in the background (answers are served meanwhile), and watches. */
  start(): void {
    if (this.options.watch !== false) {
      this.startWatching();
      // a folder replaced while nobody asks is found within a few seconds, not at the next tool call only
      this.rootTimer = setInterval(() => this.checkRoot(), this.options.rootCheckMs ?? 2000);
      this.rootTimer.unref();
    }
    this.progress = { phase: 'load', filesDone: 0, filesTotal: 0 };
    this.indexed = this.openSession()
      .then(() => this.reindex())
      .catch((err) => {
        if (!this.closed) this.log(`${this.root}: indexing failed: ${errText(err)}`);
      })
      .finally(() => {
        this.progress = undefined;
      });
  }

  private async openSession(): Promise<void> {
    await turn();
    const t0 = Date.now();
    const common = {
      embedder: this.options.embedder,
      noEmbedderReason: this.options.noEmbedderReason,
      chunk: this.options.chunk,
      saveDelayMs: this.options.saveDelayMs,
      chunkPool: this.options.chunkPool,
      log: (_level: string, m: string) => this.log(`${this.root}: ${m}`),
    };
    let session: FolderSession;
    try {
      session = await FolderSession.open(this.root, { ...common, storeDir: this.storeDir });
    } catch (err) {
      if (!(err instanceof StoreLockedError)) throw err;
      this.storeNote = `not saved (${errText(err)}): indexed in memory only`;
      this.log(`${this.root}: ${this.storeNote}`);
      session = await FolderSession.open(this.root, common);
    }
    if (this.closed) {
      await session.close();
      return;
    }
    this.session = session;
    if (session.cannotSave) this.storeNote = `not saved (${session.cannotSave}): answered from memory`;
    if (session.loaded) this.log(`${this.root}: loaded ${session.engine.chunkCount} chunks from ${this.storeDir} in ${Date.now() - t0} ms`);
  }

  /** An index run embeds as it goes with Fathom's own model (undefined: the run's default); a transformers.js model's vectors come after, in the background. */
  private get embedInPass(): false | undefined {
    return this.options.embedder?.inThreads ? undefined : false;
  }

  /**
   * One incremental pass over the folder (unchanged files are not read). Fathom's own model
   * embeds in the pass, as the files are applied (no second pass over the chunks, and no save of
   * the whole store per batch of vectors after it); a transformers.js model's vectors follow in
   * the background, keyword answers being ready first. The i18n lookup tables wait for the
   * first i18n question. Changes the watcher reports wait for the pass and its save.
   */
  private async reindex(): Promise<void> {
    const session = this.session;
    if (!session || this.closed) return;
    const t0 = Date.now();
    this.progress = { phase: 'scan', filesDone: 0, filesTotal: 0 };
    for await (const p of session.index({ signal: this.abort.signal, selection: this.options.selection, embed: this.embedInPass, i18nTables: false })) {
      this.progress = { phase: p.phase, filesDone: p.filesDone, filesTotal: p.filesTotal };
      await turn(); // tool calls are answered between files
    }
    this.log(`${this.root}: indexed ${session.engine.files.size} files, ${session.engine.chunkCount} chunks in ${Date.now() - t0} ms`);
  }

  // --- watching ---------------------------------------------------------------------------

  /** The folder's device and inode, or undefined when it is not a folder (any more). */
  private rootId(): string | undefined {
    try {
      const st = fs.statSync(this.root);
      return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A folder deleted (and created again: a fresh checkout) while served is no longer the one
   * the watcher watches, and the watcher says nothing: the folder is checked on every tool call
   * and every few seconds. Gone: said in `status`, and its files are dropped from the index.
   * Back: watched again and rescanned, so what appeared is indexed.
   */
  private checkRoot(): void {
    if (this.closed || this.options.watch === false) return;
    const id = this.rootId();
    if (id === this.watchedId) return;
    this.watcher?.close();
    this.watcher = undefined;
    if (!id) {
      this.watchedId = undefined;
      this.watchNote = 'the folder is gone (deleted or moved): watching for it to come back';
      this.log(`${this.root}: ${this.watchNote}`);
      this.queue('');
      return;
    }
    this.log(`${this.root}: the folder was ${this.watchedId ? 'replaced' : 'created again'}: watching it again and rescanning`);
    this.startWatching();
    this.queue('');
  }

  private startWatching(): void {
    const storeRel = relativeIn(this.root, this.storeDir) ?? '';
    this.watchedId = this.rootId();
    try {
      this.watcher = fs.watch(this.root, { recursive: true }, (_event, filename) => {
        if (!filename) {
          this.queue(''); // the OS dropped the name: rescan
          return;
        }
        const rel = toRel(filename.toString());
        if (rel === storeRel || rel.startsWith(`${storeRel}/`) || /(^|\/)(\.git|node_modules)(\/|$)/.test(rel)) return;
        this.queue(rel);
      });
      this.watcher.on('error', (err) => {
        if (this.rootId() !== this.watchedId) {
          this.checkRoot(); // the folder itself went away: not a failed watcher
          return;
        }
        this.watchNote = `the watcher failed (${errText(err)}): changes are picked up by a rescan on every tool call`;
        this.log(`${this.root}: ${this.watchNote}`);
        this.watcher?.close();
        this.watcher = undefined;
      });
      this.watchNote = 'watching for changes';
    } catch (err) {
      this.watchNote = `cannot watch (${errText(err)}): changes are picked up by a rescan on every tool call`;
      this.log(`${this.root}: ${this.watchNote}`);
    }
  }

  /** Queues a changed path; the batch is applied after `debounceMs` of quiet (at most 1 s late). */
  private queue(rel: string): void {
    if (this.closed) return;
    if (!this.pending.size) this.firstPendingAt = Date.now();
    this.pending.add(rel);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    const wait = Date.now() - this.firstPendingAt > 1000 ? 0 : (this.options.debounceMs ?? 150);
    this.flushTimer = setTimeout(() => void this.flush(), wait);
  }

  /**
   * Applies the queued changes now (a tool call does this first, so an answer never misses a
   * change the watcher already reported). Without a working watcher, rescans incrementally.
   */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.checkRoot();
    if (!this.watcher && this.watchedId !== undefined && this.options.watch !== false && !this.progress && !this.closed) this.pending.add('');
    if (!this.pending.size) return this.applying;
    const batch = [...this.pending];
    this.pending.clear();
    this.applying = this.applying.then(() => this.apply(batch)).catch((err) => this.log(`${this.root}: update failed: ${errText(err)}`));
    return this.applying;
  }

  /** Hands the changed paths to the session (files read once there); a folder or `''` means a rescan. */
  private async apply(batch: string[]): Promise<void> {
    await this.indexed; // the first pass is not raced: what it has not read yet, it reads as it is now
    const session = this.session;
    if (this.closed || !session) return;
    const files: Array<{ rel: string; deleted?: true }> = [];
    const gone: string[] = [];
    let rescan = false;
    for (const rel of batch) {
      if (!rel) {
        rescan = true;
        continue;
      }
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(path.join(this.root, rel));
      } catch {
        st = undefined;
      }
      if (st?.isDirectory()) rescan = true;
      else if (!st) gone.push(rel); // the file, or every file under a folder removed or renamed
      else if (st.isFile()) files.push({ rel });
    }
    const before = session.engine.revision;
    if (gone.length) session.remove(gone);
    if (files.length) session.apply(files);
    if (rescan && this.rootId() === undefined) {
      // the folder is gone: nothing of it is answered from any more (it is rescanned when it comes back)
      const all = [...session.engine.files.keys()];
      if (all.length) session.remove(all);
      rescan = false;
    }
    if (rescan) for await (const _ of session.index({ signal: this.abort.signal, embed: this.embedInPass, i18nTables: false })) await turn();
    this.lastUpdate = new Date().toISOString();
    if (session.engine.revision !== before) this.log(`${this.root}: updated ${rescan ? 'after a rescan' : `${files.length + gone.length} path(s)`}`);
  }

  /** Stops watching and indexing; the session saves and releases its lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    if (this.rootTimer) clearInterval(this.rootTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.abort.abort(new Error('closed'));
    await this.indexed.catch(() => undefined);
    await this.applying.catch(() => undefined);
    await this.session?.close();
  }

  // --- AgentFolder ------------------------------------------------------------------------

  /**
   * Before an answer: the changes the watcher reported are applied first. While the first
   * pass runs they are queued behind it and the answer comes from what is indexed so far.
   */
  private async fresh(): Promise<void> {
    if (this.progress) void this.flush();
    else await this.flush();
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    await this.fresh();
    return this.session ? this.session.search(query, options) : [];
  }

  async similar(target: { path: string; line: number }, options: { k: number }): Promise<SearchHit[]> {
    await this.fresh();
    return this.session ? this.session.similar(target, options) : [];
  }

  chunksOf(rel: string): Chunk[] | undefined {
    return this.session ? engineChunksOf(this.session.engine, rel) : undefined;
  }

  paths(): Iterable<string> {
    return this.session ? enginePaths(this.session.engine) : [];
  }

  fileHash(rel: string): string | undefined {
    return this.session?.engine.files.get(rel)?.hash;
  }

  skipOf(rel: string): { reason: string; detail: string } | undefined {
    return this.session?.engine.files.get(rel)?.skipped;
  }

  refresh(): Promise<void> {
    return this.fresh();
  }

  allChunks(): Iterable<Chunk> {
    return this.session ? engineChunks(this.session.engine) : [];
  }

  readFile(rel: string, maxBytes: number): ReadResult {
    // before the session is open: the same policy on the folder itself
    return (this.session?.source ?? new NodeFileSource(this.root)).read(rel, maxBytes);
  }

  async i18n(ask: I18nAsk): Promise<LookupResult> {
    await this.fresh();
    if (!this.session) return { candidates: [], problems: [] };
    const a = await this.session.i18n(ask, { signal: this.abort.signal });
    return a.result;
  }

  state(): FolderState {
    const s = this.session?.status();
    const engine = this.session?.engine;
    return {
      root: this.root,
      files: s?.files ?? 0,
      skipped: s?.skipped ?? 0,
      chunks: s?.chunks ?? 0,
      vectors: s?.vectors ?? 0,
      pendingVectors: s?.pendingVectors ?? 0,
      indexing: this.progress ? { ...this.progress } : undefined,
      embedding: s?.embedding || undefined,
      keywordOnlyReason: engine ? (engine.vectors ? undefined : engine.noEmbedderReason) : (this.options.embedder ? undefined : this.options.noEmbedderReason),
      model: engine?.vectors ? engine.embedder?.id : undefined,
      companion: engine?.vectors ? engine.embedder?.companion?.id : undefined,
      store: this.session?.cannotSave ? `not saved (${this.session.cannotSave}): answered from memory` : this.storeNote,
      watching: this.watchNote,
      lastUpdate: this.lastUpdate,
    };
  }
}
