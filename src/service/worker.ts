/**
 * The worker thread: all parsing, indexing, embedding and searching happens here, never on the
 * extension host's thread. It owns one `Engine` per workspace folder root, each persisted in
 * its own store folder (locked while open). Messages: src/service/protocol.ts.
 *
 * Long loops (indexing, embedding) give the event loop a turn between files/batches, so
 * searches, updates, pause and cancel are served while they run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { chunkFile, decodeBytes, prepareLanguagesFor } from '../chunkers/index';
import { createEmbedder, type Embedder } from '../index/embedder';
import { Engine, type IndexProgress, type SearchOptions } from '../index/engine';
import { createPathFilter, type FileSelection } from '../workspace/files';
import type {
  FileInfo,
  FileUpdate,
  FolderStatus,
  IndexResult,
  Request,
  ResultMap,
  UpdateResult,
  WorkerHit,
  WorkerInitOptions,
  WorkerMessage,
  WorkerStatus,
} from './protocol';
import { loadStore, lockStore, saveStore } from '../index/store';
import { stringAt, type I18nIndex } from '../i18n/index';
import { globMatcher, loadI18nIndexAsync, readInto, wantsFile } from '../i18n/workspace';
import type { I18nAnswer, I18nRequest } from './protocol';

class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

interface Folder {
  root: string;
  storeDir: string;
  engine: Engine;
  release: () => void;
  savedRevision: number;
  saveTimer?: NodeJS.Timeout;
  indexing: number;
  /** The last `index` request's file selection, applied to updates as well. */
  selection?: FileSelection;
  /** Background embedding (after update/remove or a cancelled index). */
  embedding?: { abort: AbortController; done: Promise<void> };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WorkerState {
  private options: WorkerInitOptions = {};
  private initialized = false;
  private embedder: Embedder | undefined;
  private keywordOnlyReason: string | undefined = 'no embedding model configured';
  private readonly folders = new Map<string, Folder>();
  private paused = false;
  private resumeWaiters: Array<() => void> = [];
  private readonly running = new Map<number, AbortController>();
  private lastStatusPush = 0;
  private statusTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** The running `init`: index and search wait for it. */
  private initializing: Promise<void> = Promise.resolve();
  /** Folders being opened (locked and loaded): searches wait for them. */
  private readonly opening = new Set<Promise<unknown>>();
  /** The i18n index of each root that an `i18n` request asked about (built lazily, kept up to date by update/remove). */
  private readonly i18nIndexes = new Map<string, { index: I18nIndex; globs: string }>();
  /** i18n indexes being read (concurrent requests for one root share the read). */
  private readonly i18nLoading = new Map<string, Promise<{ index: I18nIndex; globs: string }>>();
  /** The editor's last "embed these first" hint per root (applied when the folder opens). */
  private readonly hints = new Map<string, string[]>();

  constructor(private readonly post: (m: WorkerMessage) => void) {}

  /** Handles one request; answers (or not, for `crash`) through `post`. */
  async handle(req: Request): Promise<void> {
    if (req.type === 'cancel') {
      const ac = this.running.get(req.target);
      ac?.abort(new Cancelled());
      this.answer(req.id, { cancelled: !!ac });
      return;
    }
    if (req.type === 'crash') {
      setImmediate(() => {
        throw new Error('Fathom worker: crash requested (test)');
      });
      return;
    }
    if (req.type === 'dispose') {
      try {
        await this.dispose();
        this.answer(req.id, null);
      } catch (err) {
        this.post({ type: 'error', id: req.id, message: errorMessage(err) });
      }
      process.exit(0);
    }
    const ac = new AbortController();
    this.running.set(req.id, ac);
    try {
      const result = await this.run(req, ac.signal);
      if (ac.signal.aborted) throw new Cancelled();
      this.answer(req.id, result);
    } catch (err) {
      const cancelled = ac.signal.aborted || err instanceof Cancelled;
      this.post({ type: 'error', id: req.id, message: cancelled ? `${req.type} ${req.id} was cancelled` : errorMessage(err), cancelled: cancelled || undefined });
    } finally {
      this.running.delete(req.id);
    }
  }

  private answer<T extends keyof ResultMap>(id: number, result: ResultMap[T]): void {
    this.post({ type: 'result', id, result });
  }

  private async run(req: Exclude<Request, { type: 'cancel' | 'crash' | 'dispose' }>, signal: AbortSignal): Promise<ResultMap[keyof ResultMap]> {
    switch (req.type) {
      case 'chunk':
        await prepareLanguagesFor([req.path]); // tree-sitter grammars load once, when first needed
        return chunkFile(req.path, req.text, req.options);
      case 'init':
        this.initializing = this.initializing.catch(() => undefined).then(() => this.init(req.options, signal));
        await this.initializing;
        return this.status();
      case 'index':
        return this.index(req.id, req.root, req.storeDir, signal, req.selection);
      case 'update':
        return this.update(req.root, req.files);
      case 'remove':
        return this.remove(req.root, req.paths);
      case 'prioritize': {
        const root = path.resolve(req.root);
        this.hints.set(root, req.paths);
        const f = this.folders.get(root);
        f?.engine.setPriority(req.paths);
        return { pendingVectors: f?.engine.pendingVectors ?? 0 };
      }
      case 'search':
        return this.search(req.query, req.options, req.roots, signal);
      case 'similar': {
        await turn();
        signal.throwIfAborted();
        const f = this.folder(req.root);
        return (await f.engine.similar(req.target, { k: req.k })).map((h) => ({ ...h, root: f.root }));
      }
      case 'files':
        return this.files(req.root);
      case 'status':
        return this.status();
      case 'i18n':
        return this.i18nQuery(req, signal);
      case 'pause':
        this.paused = true;
        this.pushStatus(true);
        return this.status();
      case 'resume':
        this.paused = false;
        for (const w of this.resumeWaiters.splice(0)) w();
        this.pushStatus(true);
        return this.status();
    }
  }

  // --- state ------------------------------------------------------------------------------

  status(): WorkerStatus {
    const folders: FolderStatus[] = [...this.folders.values()].map((f) => {
      const recs = [...f.engine.files.values()];
      const skipped = recs.filter((r) => r.skipped).length;
      return {
        root: f.root,
        storeDir: f.storeDir,
        files: recs.length - skipped,
        skipped,
        chunks: f.engine.chunkCount,
        vectors: f.engine.vectors?.count ?? 0,
        pendingVectors: f.engine.pendingVectors,
        indexing: f.indexing > 0,
        embedding: !!f.embedding,
        dirty: f.engine.revision !== f.savedRevision,
      };
    });
    return {
      initialized: this.initialized,
      keywordOnlyReason: this.embedder ? undefined : this.keywordOnlyReason,
      model: this.embedder?.id,
      paused: this.paused,
      folders,
    };
  }

  /** Pushes a `status` event: at once when `now`, else at most every 500 ms. */
  private pushStatus(now = false): void {
    if (this.disposed) return;
    const send = () => {
      this.statusTimer = undefined;
      this.lastStatusPush = Date.now();
      this.post({ type: 'status', status: this.status() });
    };
    if (now) {
      if (this.statusTimer) clearTimeout(this.statusTimer);
      send();
    } else if (!this.statusTimer) {
      this.statusTimer = setTimeout(send, Math.max(0, 500 - (Date.now() - this.lastStatusPush)));
    }
  }

  private log(level: 'info' | 'warn' | 'error', message: string, root?: string): void {
    this.post({ type: 'log', level, message, root });
  }

  /** `signal` (a `cancel` of the `init`): stop waiting for the model (a download) and go keyword-only. */
  private async init(options: WorkerInitOptions, signal?: AbortSignal): Promise<void> {
    for (const f of [...this.folders.values()]) await this.close(f);
    await this.embedder?.dispose();
    this.embedder = undefined;
    this.options = options;
    this.initialized = true;
    if (!options.embedder) {
      this.keywordOnlyReason = 'no embedding model configured';
    } else {
      const creating = createEmbedder(options.embedder);
      const cancelled = { error: 'No embedding model: loading it (or its download) was cancelled.' } as const;
      const r = signal ? await Promise.race([creating, new Promise<typeof cancelled>((resolve) => (signal.aborted ? resolve(cancelled) : signal.addEventListener('abort', () => resolve(cancelled), { once: true })))]) : await creating;
      // a cancelled load may still finish (a download in flight): its model is not used
      if (signal?.aborted) void creating.then((x) => ('embedder' in x ? x.embedder.dispose() : undefined)).catch(() => undefined);
      if ('embedder' in r && !signal?.aborted) {
        this.embedder = r.embedder;
        this.keywordOnlyReason = undefined;
      } else {
        const why = 'error' in r ? r.error : cancelled.error;
        this.keywordOnlyReason = why;
        this.log('warn', `keyword-only: ${why}`);
      }
    }
    this.pushStatus(true);
  }

  private folder(root: string): Folder {
    const f = this.folders.get(path.resolve(root));
    if (!f) throw new Error(`${root} is not open in Fathom's worker (send "index" first)`);
    return f;
  }

  // --- pause / save -----------------------------------------------------------------------

  /** Gives the event loop a turn, then waits while paused; throws once `signal` aborts. */
  private async checkpoint(signal: AbortSignal): Promise<void> {
    await turn();
    while (this.paused) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.resumeWaiters.push(done);
        signal.addEventListener('abort', done);
      });
    }
    signal.throwIfAborted();
  }

  private save(f: Folder): void {
    if (f.saveTimer) clearTimeout(f.saveTimer);
    f.saveTimer = undefined;
    if (f.engine.revision === f.savedRevision) return;
    try {
      const rev = f.engine.revision;
      saveStore(f.storeDir, f.engine);
      f.savedRevision = rev;
    } catch (err) {
      this.log('error', errorMessage(err), f.root);
    }
  }

  private scheduleSave(f: Folder): void {
    if (f.saveTimer || this.disposed) return;
    f.saveTimer = setTimeout(() => {
      f.saveTimer = undefined;
      this.save(f);
      this.pushStatus();
    }, this.options.saveDelayMs ?? 2000);
  }

  // --- index / update / remove --------------------------------------------------------------

  private files(root: string): FileInfo[] {
    const f = this.folder(root);
    return [...f.engine.files.values()]
      .map((r) => ({ path: r.path, language: r.language, chunks: r.docIds.length, size: r.size, skipped: r.skipped, fallback: r.fallback, warnings: r.warnings.length }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private async index(id: number, rootIn: string, storeDir: string, signal: AbortSignal, selection?: FileSelection): Promise<IndexResult> {
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    this.opening.add(open);
    try {
      await this.initializing.catch(() => undefined);
      if (!this.initialized) await this.init({});
      return await this.indexOpen(id, rootIn, storeDir, signal, selection, () => {
        this.opening.delete(open);
        opened();
      });
    } finally {
      this.opening.delete(open);
      opened();
    }
  }

  private async indexOpen(id: number, rootIn: string, storeDir: string, signal: AbortSignal, selection: FileSelection | undefined, opened: () => void): Promise<IndexResult> {
    const t0 = Date.now();
    const root = path.resolve(rootIn);
    if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
    let f = this.folders.get(root);
    let loaded = false;
    let rebuilt: string | undefined;
    if (f && path.resolve(storeDir) !== f.storeDir) {
      await this.close(f);
      f = undefined;
    }
    if (!f) {
      const engine = new Engine({ chunk: this.options.chunk, embedder: this.embedder, noEmbedderReason: this.keywordOnlyReason });
      const dir = path.resolve(storeDir);
      const release = lockStore(dir);
      const r = loadStore(dir, engine);
      engine.setPriority(this.hints.get(root) ?? []);
      loaded = r.ok;
      if (!r.ok && r.reason !== 'no stored index') {
        rebuilt = r.reason;
        this.log('warn', `rebuilding the index of ${root}: ${r.reason}`, root);
      }
      f = { root, storeDir: dir, engine, release, savedRevision: r.ok ? engine.revision : -1, indexing: 0 };
      this.folders.set(root, f);
      this.pushStatus(true);
    }
    const folder = f;
    folder.selection = selection;
    opened();
    await this.stopEmbedding(folder);
    folder.indexing++;
    let lastSave = Date.now();
    try {
      let phase: IndexProgress['phase'] | undefined;
      for await (const p of folder.engine.indexFolder(root, { signal, selection })) {
        // keyword-searchable as soon as chunking is done: save it before the (long) embedding
        if ((phase === 'chunk' && p.phase !== 'chunk') || (p.phase === 'embed' && Date.now() - lastSave > 10_000)) {
          this.save(folder);
          lastSave = Date.now();
        }
        phase = p.phase;
        this.post({ type: 'progress', root, id, progress: p });
        this.pushStatus();
        if (p.phase !== 'done') await this.checkpoint(signal);
      }
    } finally {
      folder.indexing--;
      this.save(folder);
      this.pushStatus(true);
      // a cancelled run leaves vectors pending: compute them in the background
      if (!this.disposed && this.folders.get(root) === folder) this.startEmbedding(folder);
    }
    const s = this.status().folders.find((x) => x.root === root)!;
    return { root, files: s.files, skipped: s.skipped, chunks: s.chunks, vectors: s.vectors, pendingVectors: s.pendingVectors, loaded, rebuilt, ms: Date.now() - t0 };
  }

  private async update(root: string, files: FileUpdate[]): Promise<UpdateResult> {
    const f = this.folder(root);
    await prepareLanguagesFor(files.filter((u) => !u.deleted).map((u) => u.rel)); // tree-sitter grammars, only those needed
    let changed = 0;
    const problems: UpdateResult['problems'] = [];
    const wanted = createPathFilter(f.root, f.selection);
    for (const u of files) {
      const rel = u.rel.split(path.sep).join('/');
      if (u.deleted || !wanted(rel)) {
        // deleted, or a file the walk would not list (ignored, excluded): not in the index
        if (f.engine.removeFile(rel)) changed++;
        continue;
      }
      let bytes = u.bytes;
      let stat = { size: bytes?.byteLength ?? 0, mtimeMs: u.mtimeMs ?? Date.now() };
      if (!bytes) {
        try {
          const abs = path.join(f.root, rel);
          const st = fs.statSync(abs);
          stat = { size: st.size, mtimeMs: st.mtimeMs };
          if (st.size > f.engine.chunkOptions.maxFileBytes) {
            f.engine.skipFile(rel, stat, 'too-large', `${st.size} bytes, over the ${f.engine.chunkOptions.maxFileBytes}-byte cap`);
            changed++;
            continue;
          }
          bytes = fs.readFileSync(abs);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
            if (f.engine.removeFile(rel)) changed++;
          } else {
            f.engine.skipFile(rel, stat, 'unreadable', errorMessage(err));
            problems.push({ rel, reason: errorMessage(err) });
            changed++;
          }
          continue;
        }
      }
      if (f.engine.updateFile(rel, bytes, stat)) changed++;
    }
    this.afterChange(f);
    this.i18nUpdate(f.root, files.map((u) => ({ rel: u.rel.split(path.sep).join('/'), bytes: u.deleted ? null : u.bytes })));
    return { changed, problems, pendingVectors: f.engine.pendingVectors };
  }

  private remove(root: string, paths: string[]): UpdateResult {
    const f = this.folder(root);
    let changed = 0;
    for (const p of paths) {
      const rel = p.split(path.sep).join('/').replace(/\/+$/, '');
      if (f.engine.removeFile(rel)) changed++;
      for (const other of [...f.engine.files.keys()]) if (other.startsWith(`${rel}/`) && f.engine.removeFile(other)) changed++;
    }
    this.afterChange(f);
    this.i18nRemove(f.root, paths);
    return { changed, problems: [], pendingVectors: f.engine.pendingVectors };
  }

  private afterChange(f: Folder): void {
    if (f.engine.revision !== f.savedRevision) this.scheduleSave(f);
    this.startEmbedding(f);
    this.pushStatus(true);
  }

  /** Computes pending vectors in the background (unless an index run does it). */
  private startEmbedding(f: Folder): void {
    if (f.embedding || f.indexing || !f.engine.embedder || !f.engine.pendingVectors || this.disposed) return;
    const abort = new AbortController();
    const run = async () => {
      await turn();
      for await (const p of f.engine.embedPending(abort.signal)) {
        this.post({ type: 'progress', root: f.root, progress: p });
        this.scheduleSave(f);
        this.pushStatus();
        await this.checkpoint(abort.signal);
      }
      this.post({ type: 'progress', root: f.root, progress: { phase: 'done', filesDone: f.engine.files.size, filesTotal: f.engine.files.size, chunksEmbedded: 0, chunksToEmbed: f.engine.pendingVectors, rate: 0 } });
    };
    const done = run()
      .catch((err) => {
        if (!abort.signal.aborted) this.log('error', `embedding failed: ${errorMessage(err)}`, f.root);
      })
      .finally(() => {
        if (f.embedding?.abort === abort) f.embedding = undefined;
        this.pushStatus();
        // changes that came in while the last batch ran
        if (!abort.signal.aborted && f.engine.pendingVectors) this.startEmbedding(f);
      });
    f.embedding = { abort, done };
  }

  private async stopEmbedding(f: Folder): Promise<void> {
    const e = f.embedding;
    if (!e) return;
    e.abort.abort(new Cancelled());
    await e.done;
  }

  // --- search -------------------------------------------------------------------------------

  private async search(query: string, options: SearchOptions | undefined, roots: string[] | undefined, signal: AbortSignal): Promise<WorkerHit[]> {
    // one turn first: a `cancel` sent right behind this search (a newer one superseding it)
    // is seen before any work is done
    await turn();
    await Promise.all([this.initializing.catch(() => undefined), ...this.opening]);
    signal.throwIfAborted();
    const folders = roots ? roots.map((r) => this.folder(r)) : [...this.folders.values()];
    const k = options?.k ?? 10;
    const all: WorkerHit[] = [];
    for (const f of folders) {
      const hits = await f.engine.search(query, options);
      signal.throwIfAborted();
      for (const h of hits) all.push({ ...h, root: f.root });
    }
    return folders.length > 1 ? all.sort((a, b) => b.score - a.score).slice(0, k) : all;
  }

  // --- i18n ---------------------------------------------------------------------------------

  private async i18nQuery(req: I18nRequest, signal: AbortSignal): Promise<I18nAnswer> {
    await turn();
    signal.throwIfAborted();
    const root = path.resolve(req.root);
    const globs = (req.localeGlobs ?? []).join('\n');
    let entry = this.i18nIndexes.get(root);
    if (!entry || entry.globs !== globs) {
      if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
      const key = `${root}\n${globs}`;
      let loading = this.i18nLoading.get(key);
      if (!loading) {
        // read in slices: searches and other requests are served meanwhile
        loading = loadI18nIndexAsync(root, { localeGlobs: req.localeGlobs }).then((loaded) => {
          this.log('info', `i18n index of ${root}: ${loaded.index.localeFiles.length} locale files read in ${Math.round(loaded.ms)} ms`, root);
          return { index: loaded.index, globs };
        });
        this.i18nLoading.set(key, loading);
        loading.then(
          (e) => {
            this.i18nIndexes.set(root, e);
            this.i18nLoading.delete(key);
          },
          () => this.i18nLoading.delete(key),
        );
      }
      entry = await loading;
      signal.throwIfAborted();
    }
    const q = req.query;
    if (q.op === 'key') return { op: 'key', result: entry.index.lookupKey(q.key, { fromFile: q.fromFile, limit: q.limit }) };
    if (q.op === 'hover') {
      let text = q.text;
      if (text === undefined) {
        try {
          text = fs.readFileSync(path.join(root, q.file), 'utf8');
        } catch {
          text = undefined;
        }
      }
      return { op: 'hover', result: entry.index.hover(q.file, q.offset, text) ?? null };
    }
    await this.initializing.catch(() => undefined);
    const lookup = async (text: string, fromFile: string | undefined, limit: number | undefined) => {
      const result = await entry.index.lookupString(text, { fromFile, limit, embedder: this.embedder, signal });
      if (!this.embedder && result.semanticUnavailable) result.semanticUnavailable = `${this.keywordOnlyReason ?? 'no embedding model'}: semantic matching is unavailable`;
      return result;
    };
    if (q.op === 'at') {
      const found = stringAt(q.text, q.language, q.offset, q.selection);
      if (!found) return { op: 'at', string: null, result: { candidates: [], problems: entry.index.problems } };
      return { op: 'at', string: found, result: await lookup(found.text, q.file, q.limit) };
    }
    return { op: 'string', result: await lookup(q.text, q.fromFile, q.limit) };
  }

  /** Files of `root` changed (`bytes` null: deleted; undefined: read from disk): the i18n index follows. */
  private i18nUpdate(root: string, files: Array<{ rel: string; bytes?: Uint8Array | null }>): void {
    this.afterI18nLoads(root, () => this.i18nUpdate(root, files));
    const entry = this.i18nIndexes.get(root);
    if (!entry) return;
    const matches = globMatcher(entry.globs ? entry.globs.split('\n') : undefined);
    for (const u of files) {
      if (!wantsFile(u.rel, matches)) continue;
      if (u.bytes === null) {
        entry.index.deleteFile(u.rel);
        continue;
      }
      if (u.bytes) {
        const d = decodeBytes(u.bytes);
        if (d.text !== undefined) entry.index.setFile(u.rel, d.text);
        else entry.index.deleteFile(u.rel);
        continue;
      }
      const abs = path.join(root, u.rel);
      let size = -1;
      try {
        size = fs.statSync(abs).size;
      } catch {
        size = -1;
      }
      if (size < 0) entry.index.deleteFile(u.rel);
      else readInto(entry.index, abs, u.rel, size);
    }
  }

  /** A change that arrives while an i18n index of `root` is being read is applied once it is read. */
  private afterI18nLoads(root: string, apply: () => void): void {
    for (const [key, loading] of this.i18nLoading) {
      if (key.startsWith(`${root}\n`)) loading.then(() => apply(), () => undefined);
    }
  }

  private i18nRemove(root: string, paths: string[]): void {
    this.afterI18nLoads(root, () => this.i18nRemove(root, paths));
    const entry = this.i18nIndexes.get(root);
    if (!entry) return;
    for (const p of paths) {
      const rel = p.split(path.sep).join('/').replace(/\/+$/, '');
      for (const f of entry.index.knownFiles()) if (f === rel || f.startsWith(`${rel}/`)) entry.index.deleteFile(f);
    }
  }

  // --- teardown -----------------------------------------------------------------------------

  private async close(f: Folder): Promise<void> {
    await this.stopEmbedding(f);
    this.save(f);
    try {
      f.release();
    } catch (err) {
      this.log('warn', `could not release the lock of ${f.storeDir}: ${errorMessage(err)}`, f.root);
    }
    this.folders.delete(f.root);
  }

  private async dispose(): Promise<void> {
    this.disposed = true;
    for (const ac of this.running.values()) ac.abort(new Cancelled());
    this.paused = false;
    for (const w of this.resumeWaiters.splice(0)) w();
    for (const f of [...this.folders.values()]) {
      // let a cancelled index run unwind (it saves) before closing
      while (f.indexing) await turn();
      await this.close(f);
    }
    if (this.statusTimer) clearTimeout(this.statusTimer);
    await this.embedder?.dispose();
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

if (parentPort) {
  const port = parentPort;
  const state = new WorkerState((m) => port.postMessage(m));
  port.on('message', (req: Request) => void state.handle(req));
}
