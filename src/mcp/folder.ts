/**
 * "An open folder" as the agent tools see it (`AgentFolder`), and the folder the `fathom mcp`
 * server keeps open (`LocalFolder`): its index loaded from the store, brought up to date in the
 * background, kept fresh by a file watcher, answered from while it indexes.
 *
 * The tools (tools.ts) only ever see `AgentFolder`, so the same answers come from this server
 * and from the extension's worker. `LocalFolder` is a thin host: lock → load → index → watch →
 * apply changes → save → release, around the engine and the i18n index of src/index/ and
 * src/i18n/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeBytes, prepareLanguagesFor } from '../chunkers/index';
import type { Chunk, ChunkOptions } from '../chunkers/types';
import type { Embedder } from '../index/embedder';
import { Engine, type IndexProgress, type SearchHit, type SearchOptions } from '../index/engine';
import { loadStore, lockStore, saveStore, StoreLockedError } from '../index/store';
import type { I18nIndex } from '../i18n/index';
import type { LookupResult } from '../i18n/types';
import { loadI18nIndexAsync, wantsFile } from '../i18n/workspace';
import { createPathFilter, type FileSelection } from '../workspace/files';

/** What a folder is doing and holds, for the `status` tool and the "still indexing" notes. */
export interface FolderState {
  root: string;
  files: number;
  skipped: number;
  chunks: number;
  vectors: number;
  pendingVectors: number;
  /** Set while the folder is (re)indexed: what is done so far. Answers cover only that. */
  indexing?: { phase: IndexProgress['phase'] | 'load'; filesDone: number; filesTotal: number };
  /** Vectors are computed in the background. */
  embedding?: boolean;
  /** Why there are no vectors (searches are keyword-only). */
  keywordOnlyReason?: string;
  /** Where the index is saved, or why it is not (held in memory only). */
  store: string;
  /** How the folder follows edits (the watcher, or why it cannot). */
  watching: string;
  /** Time of the last change applied from the watcher (ISO), if any. */
  lastUpdate?: string;
}

export type I18nAsk = { op: 'string'; text: string; fromFile?: string; limit?: number } | { op: 'key'; key: string; fromFile?: string; limit?: number };

/** One open workspace folder, as the agent tools use it. Paths are folder-relative with `/`. */
export interface AgentFolder {
  readonly root: string;
  search(query: string, options: SearchOptions): Promise<SearchHit[]>;
  similar(target: { path: string; line: number }, options: { k: number }): Promise<SearchHit[]>;
  /** The file's chunks in order of start offset; undefined when the folder has no such file. */
  chunksOf(rel: string): Chunk[] | undefined;
  /** Why a file holds no chunks (skipped: binary, too large …), when it is known. */
  skipOf(rel: string): { reason: string; detail: string } | undefined;
  i18n(ask: I18nAsk): Promise<LookupResult>;
  state(): FolderState;
}

/** Chunks of one file of `engine`, ordered by start offset. */
export function engineChunksOf(engine: Engine, rel: string): Chunk[] | undefined {
  const rec = engine.files.get(rel);
  if (!rec) return undefined;
  return rec.docIds
    .map((id) => engine.chunks[id])
    .filter((c): c is Chunk => !!c)
    .sort((a, b) => a.start.offset - b.start.offset || b.end.offset - a.end.offset);
}

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
  /** Quiet time before a batch of file events is applied, ms (default 150). */
  debounceMs?: number;
  /** Delay of saves after changes, ms (default 2000). */
  saveDelayMs?: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A folder held open by the MCP server. `open` takes the store's lock (a store locked by
 * another process is not waited for: the folder is then indexed in memory only, and says so)
 * and loads it; `start` indexes in the background and then watches; every answer in between
 * comes from what is indexed so far.
 */
export class LocalFolder implements AgentFolder {
  readonly root: string;
  readonly engine: Engine;
  private readonly log: (m: string) => void;
  private release: (() => void) | undefined;
  private readonly storeDir: string;
  private storeNote: string;
  private savedRevision = -1;
  private saveTimer: NodeJS.Timeout | undefined;
  private progress: FolderState['indexing'];
  private embedding = false;
  private watcher: fs.FSWatcher | undefined;
  private watchNote = 'not watching';
  private pending = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private firstPendingAt = 0;
  private applying: Promise<void> = Promise.resolve();
  private lastUpdate: string | undefined;
  private i18nIndex: I18nIndex | undefined;
  private i18nLoading: Promise<I18nIndex> | undefined;
  private readonly abort = new AbortController();
  private closed = false;
  /** Resolves when the first indexing run is over. */
  indexed: Promise<void> = Promise.resolve();

  private constructor(
    root: string,
    private readonly options: LocalFolderOptions,
  ) {
    this.root = root;
    this.log = options.log ?? (() => undefined);
    this.storeDir = path.resolve(options.storeDir ?? path.join(root, '.fathom'));
    this.storeNote = this.storeDir;
    this.engine = new Engine({ chunk: options.chunk, embedder: options.embedder, noEmbedderReason: options.noEmbedderReason });
  }

  /** Opens `root` and takes its store's lock (`start` loads it). Throws when `root` is not a folder. */
  static open(rootIn: string, options: LocalFolderOptions = {}): LocalFolder {
    const root = path.resolve(rootIn);
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch {
      throw new Error(`${rootIn} does not exist`);
    }
    if (!st.isDirectory()) throw new Error(`${rootIn} is not a folder`);
    const f = new LocalFolder(root, options);
    try {
      f.release = lockStore(f.storeDir);
    } catch (err) {
      if (!(err instanceof StoreLockedError) && (err as NodeJS.ErrnoException).code !== 'EACCES' && (err as NodeJS.ErrnoException).code !== 'EROFS') throw err;
      f.storeNote = `not saved (${errText(err)}): indexed in memory only`;
      f.log(`${root}: ${f.storeNote}`);
    }
    return f;
  }

  /**
   * Loads the stored index and indexes in the background (answers are served meanwhile, from
   * what is loaded and indexed so far) and starts the watcher.
   */
  start(): void {
    if (this.options.watch !== false) this.startWatching();
    this.progress = { phase: 'load', filesDone: 0, filesTotal: 0 };
    this.indexed = this.load()
      .then(() => this.reindex())
      .catch((err) => {
        if (!this.closed) this.log(`${this.root}: indexing failed: ${errText(err)}`);
      });
  }

  /** The stored index, after one turn of the event loop (a server answers its handshake first). */
  private async load(): Promise<void> {
    await turn();
    const t0 = Date.now();
    const r = loadStore(this.storeDir, this.engine);
    if (r.ok) {
      this.savedRevision = this.engine.revision;
      this.log(`${this.root}: loaded ${this.engine.chunkCount} chunks from ${this.storeDir} in ${Date.now() - t0} ms`);
    } else if (r.reason !== 'no stored index') this.log(`${this.root}: rebuilding the index: ${r.reason}`);
  }

  /** One incremental pass over the folder (unchanged files are not read), then the vectors. */
  private async reindex(): Promise<void> {
    const t0 = Date.now();
    const signal = this.abort.signal;
    this.progress = { phase: 'scan', filesDone: 0, filesTotal: 0 };
    signal.throwIfAborted();
    try {
      for await (const p of this.engine.indexFolder(this.root, { signal, embed: false, selection: this.options.selection })) {
        this.progress = { phase: p.phase, filesDone: p.filesDone, filesTotal: p.filesTotal };
        await turn(); // tool calls are answered between files
      }
    } finally {
      this.progress = undefined;
    }
    this.log(`${this.root}: indexed ${this.engine.files.size} files, ${this.engine.chunkCount} chunks in ${Date.now() - t0} ms`);
    this.save();
    this.embedInBackground();
  }

  private embedInBackground(): void {
    if (this.embedding || this.closed || !this.engine.embedder || !this.engine.pendingVectors) return;
    this.embedding = true;
    void (async () => {
      try {
        for await (const _ of this.engine.embedPending(this.abort.signal)) {
          this.scheduleSave();
          await turn();
        }
      } catch (err) {
        if (!this.closed) this.log(`${this.root}: embedding failed: ${errText(err)}`);
      } finally {
        this.embedding = false;
        this.scheduleSave();
        if (!this.closed && this.engine.pendingVectors) this.embedInBackground();
      }
    })();
  }

  // --- watching ---------------------------------------------------------------------------

  private startWatching(): void {
    const storeRel = path.relative(this.root, this.storeDir).split(path.sep).join('/');
    try {
      this.watcher = fs.watch(this.root, { recursive: true }, (_event, filename) => {
        if (!filename) {
          this.queue(''); // the OS dropped the name: rescan
          return;
        }
        const rel = filename.toString().split(path.sep).join('/');
        if (rel === storeRel || rel.startsWith(`${storeRel}/`) || /(^|\/)(\.git|node_modules)(\/|$)/.test(rel)) return;
        this.queue(rel);
      });
      this.watcher.on('error', (err) => {
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
   * change the watcher already reported). Without a watcher, rescans incrementally.
   */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.watcher && this.options.watch !== false && !this.progress && !this.closed) this.pending.add('');
    if (!this.pending.size) return this.applying;
    const batch = [...this.pending];
    this.pending.clear();
    this.applying = this.applying.then(() => this.apply(batch)).catch((err) => this.log(`${this.root}: update failed: ${errText(err)}`));
    return this.applying;
  }

  /** Re-reads the given paths (files, or folders: a rescan); `''` means the whole folder. */
  private async apply(batch: string[]): Promise<void> {
    await this.indexed; // the first pass is not raced: what it has not read yet, it reads as it is now
    if (this.closed) return;
    const wanted = createPathFilter(this.root, this.options.selection);
    const files: string[] = [];
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
      else if (!st) {
        // gone: the file, or every file under a folder that was removed or renamed
        this.engine.removeFile(rel);
        for (const other of [...this.engine.files.keys()]) if (other.startsWith(`${rel}/`)) this.engine.removeFile(other);
        this.i18nIndex?.deleteFile(rel);
        for (const f of this.i18nIndex?.knownFiles() ?? []) if (f.startsWith(`${rel}/`)) this.i18nIndex?.deleteFile(f);
      } else if (st.isFile()) files.push(rel);
    }
    await prepareLanguagesFor(files);
    for (const rel of files) {
      if (!wanted(rel)) {
        this.engine.removeFile(rel);
        continue;
      }
      const abs = path.join(this.root, rel);
      try {
        const st = fs.statSync(abs);
        if (st.size > this.engine.chunkOptions.maxFileBytes) {
          this.engine.skipFile(rel, st, 'too-large', `${st.size} bytes, over the ${this.engine.chunkOptions.maxFileBytes}-byte cap`);
          continue;
        }
        const bytes = fs.readFileSync(abs);
        this.engine.updateFile(rel, bytes, st);
        if (this.i18nIndex && wantsFile(rel)) {
          const d = decodeBytes(bytes);
          if (d.text !== undefined) this.i18nIndex.setFile(rel, d.text);
          else this.i18nIndex.deleteFile(rel);
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') this.engine.removeFile(rel);
        else this.engine.skipFile(rel, { size: 0, mtimeMs: 0 }, 'unreadable', errText(err));
      }
    }
    if (rescan) {
      for await (const _ of this.engine.indexFolder(this.root, { signal: this.abort.signal, embed: false, selection: this.options.selection })) await turn();
      if (this.i18nIndex) this.i18nIndex = undefined; // rebuilt on the next i18n request
    }
    this.lastUpdate = new Date().toISOString();
    if (this.engine.revision !== this.savedRevision) {
      this.log(`${this.root}: updated ${rescan ? 'after a rescan' : `${files.length} file(s)`}`);
      this.scheduleSave();
      this.embedInBackground();
    }
  }

  // --- saving -----------------------------------------------------------------------------

  private scheduleSave(): void {
    if (this.saveTimer || this.closed || !this.release) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, this.options.saveDelayMs ?? 2000);
  }

  private save(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.release || this.engine.revision === this.savedRevision) return;
    try {
      const rev = this.engine.revision;
      saveStore(this.storeDir, this.engine);
      this.savedRevision = rev;
    } catch (err) {
      this.log(`${this.root}: could not save the index: ${errText(err)}`);
    }
  }

  /** Stops watching and indexing, saves, releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.abort.abort(new Error('closed'));
    await this.indexed.catch(() => undefined);
    await this.applying.catch(() => undefined);
    while (this.embedding) await turn();
    this.save();
    try {
      this.release?.();
    } catch (err) {
      this.log(`${this.root}: could not release the lock: ${errText(err)}`);
    }
    this.release = undefined;
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
    return this.engine.search(query, options);
  }

  async similar(target: { path: string; line: number }, options: { k: number }): Promise<SearchHit[]> {
    await this.fresh();
    return this.engine.similar(target, options);
  }

  chunksOf(rel: string): Chunk[] | undefined {
    return engineChunksOf(this.engine, rel);
  }

  skipOf(rel: string): { reason: string; detail: string } | undefined {
    return this.engine.files.get(rel)?.skipped;
  }

  async i18n(ask: I18nAsk): Promise<LookupResult> {
    await this.fresh();
    if (!this.i18nIndex) {
      this.i18nLoading ??= loadI18nIndexAsync(this.root, {}, this.abort.signal).then((l) => l.index);
      try {
        this.i18nIndex = await this.i18nLoading;
      } finally {
        this.i18nLoading = undefined;
      }
    }
    const index = this.i18nIndex;
    if (ask.op === 'key') return index.lookupKey(ask.key, { fromFile: ask.fromFile, limit: ask.limit });
    const r = await index.lookupString(ask.text, { fromFile: ask.fromFile, limit: ask.limit, embedder: this.engine.embedder, signal: this.abort.signal });
    if (!this.engine.embedder && r.semanticUnavailable) r.semanticUnavailable = `${this.engine.noEmbedderReason ?? 'no embedding model'}: semantic matching is unavailable`;
    return r;
  }

  state(): FolderState {
    const recs = [...this.engine.files.values()];
    const skipped = recs.filter((r) => r.skipped).length;
    return {
      root: this.root,
      files: recs.length - skipped,
      skipped,
      chunks: this.engine.chunkCount,
      vectors: this.engine.vectors?.count ?? 0,
      pendingVectors: this.engine.pendingVectors,
      indexing: this.progress ? { ...this.progress } : undefined,
      embedding: this.embedding || undefined,
      keywordOnlyReason: this.engine.vectors ? undefined : this.engine.noEmbedderReason,
      store: this.storeNote,
      watching: this.watchNote,
      lastUpdate: this.lastUpdate,
    };
  }
}
