/**
 * The caller's side of the worker: starts `dist/worker.js` in a worker thread and turns the
 * protocol's messages (src/service/protocol.ts) into typed promises and listener events. Used by
 * the extension; plain Node, no `vscode`.
 *
 * - A search supersedes the previous one still pending: the client sends `cancel` for the old
 *   one, whose promise then **rejects with a `CancelledError`** (`err.cancelled === true`).
 * - Requests accept an `AbortSignal`; aborting sends `cancel` and rejects with `CancelledError`.
 * - A worker that dies (uncaught error, unexpected exit) rejects every pending request with a
 *   `WorkerCrashedError`, and is restarted with exponential backoff; the restarted worker gets
 *   the last `init` and the last `index` of every folder again, so it resumes from the store.
 *   After `maxQuickCrashes` crashes in a row (each within `quickMs` of its start) it gives up:
 *   `onCrash` says so and every later request rejects.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ChunkOptions, FileChunks } from '../chunkers/types';
import type { SearchOptions } from '../index/engine';
import type { HoverResult, LookupResult, StringAtResult } from '../i18n/types';
import type { FileSelection } from '../workspace/files';
import type {
  FileInfo,
  FileUpdate,
  I18nAnswerOf,
  I18nQuery,
  IndexResult,
  LogEvent,
  ProgressEvent,
  Request,
  RequestType,
  ResultOf,
  SimilarTarget,
  ToolResult,
  UpdateResult,
  WorkerHit,
  WorkerInitOptions,
  WorkerMessage,
  WorkerStatus,
} from './protocol';
import { CancelledError } from '../util/errors';
import { THREAD_STACK_MB } from '../parse/oxc';

export { CancelledError };

export class WorkerCrashedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerCrashedError';
  }
}

export interface CrashEvent {
  message: string;
  /** Crashes in a row so far. */
  crashes: number;
  /** When the restart happens (ms from now); absent when the client gave up. */
  restartInMs?: number;
  gaveUp: boolean;
}

export interface IndexClientOptions {
  /** First restart delay, doubled per crash in a row. Default 250 ms. */
  initialBackoffMs?: number;
  /** Largest restart delay. Default 8 s. */
  maxBackoffMs?: number;
  /** Give up after this many crashes in a row. Default 5. */
  maxQuickCrashes?: number;
  /** A worker that lived longer than this resets the crash count. Default 30 s. */
  quickMs?: number;
}

export interface Disposable {
  dispose(): void;
}

type Listener<T> = (e: T) => void;

class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  on(l: Listener<T>): Disposable {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  }
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        // a listener's bug must not break the client
        continue;
      }
    }
  }
}

interface Pending {
  type: RequestType;
  resolve: (r: unknown) => void;
  reject: (e: Error) => void;
}

type RequestBody<T extends RequestType> = Omit<Extract<Request, { type: T }>, 'id' | 'type'>;

export class IndexClient {
  private worker: Worker | undefined;
  private workerStartedAt = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private initOptions: WorkerInitOptions | undefined;
  /** The last `index` of every open root (store and file selection): re-sent after a crash, forgotten by `close`. */
  private readonly openFolders = new Map<string, { storeDir: string; selection: FileSelection | undefined }>();
  private searchInFlight: number | undefined;
  private crashes = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private restarting: Promise<void> | undefined;
  private gaveUp: string | undefined;
  private disposed = false;
  private readonly opts: Required<IndexClientOptions>;

  private readonly progressEmitter = new Emitter<ProgressEvent>();
  private readonly statusEmitter = new Emitter<WorkerStatus>();
  private readonly logEmitter = new Emitter<LogEvent>();
  private readonly crashEmitter = new Emitter<CrashEvent>();
  /** Indexing/embedding progress (phase, files done/total, chunks embedded/total, rate, ETA). */
  readonly onProgress = (l: Listener<ProgressEvent>): Disposable => this.progressEmitter.on(l);
  /** The worker's state, pushed on changes. */
  readonly onStatus = (l: Listener<WorkerStatus>): Disposable => this.statusEmitter.on(l);
  readonly onLog = (l: Listener<LogEvent>): Disposable => this.logEmitter.on(l);
  /** The worker crashed: restarting, or given up. */
  readonly onCrash = (l: Listener<CrashEvent>): Disposable => this.crashEmitter.on(l);

  constructor(
    private readonly workerFile: string,
    options: IndexClientOptions = {},
  ) {
    this.opts = { initialBackoffMs: 250, maxBackoffMs: 8000, maxQuickCrashes: 5, quickMs: 30_000, ...options };
  }

  // --- lifecycle ----------------------------------------------------------------------------

  private start(): Worker {
    if (this.worker) return this.worker;
    // a large native stack: oxc parses the files chunked on this thread with it (src/parse/oxc.ts)
    const w = new Worker(this.workerFile, { resourceLimits: { stackSizeMb: THREAD_STACK_MB } });
    this.workerStartedAt = Date.now();
    w.on('message', (m: WorkerMessage) => this.onMessage(m));
    w.on('error', (err) => this.crashed(w, `Fathom's worker crashed: ${err.message}`));
    w.on('exit', (code) => this.crashed(w, `Fathom's worker exited unexpectedly (code ${code})`));
    this.worker = w;
    return w;
  }

  private onMessage(m: WorkerMessage): void {
    switch (m.type) {
      case 'progress':
        this.progressEmitter.fire(m);
        return;
      case 'status':
        this.statusEmitter.fire(m.status);
        return;
      case 'log':
        this.logEmitter.fire(m);
        return;
      case 'result':
      case 'error': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.type === 'result') p.resolve(m.result);
        else p.reject(m.cancelled ? new CancelledError(m.message) : new Error(m.message));
      }
    }
  }

  private crashed(w: Worker, message: string): void {
    if (this.worker !== w) return; // already handled (error is followed by exit), or disposed
    this.worker = undefined;
    void w.terminate();
    const err = new WorkerCrashedError(message);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.searchInFlight = undefined;
    if (this.disposed) return;
    if (Date.now() - this.workerStartedAt > this.opts.quickMs) this.crashes = 0;
    this.crashes++;
    this.releaseOwnLocks();
    if (this.crashes >= this.opts.maxQuickCrashes) {
      this.gaveUp = `${message}; it crashed ${this.crashes} times in a row, Fathom gave up restarting it`;
      this.crashEmitter.fire({ message: this.gaveUp, crashes: this.crashes, gaveUp: true });
      return;
    }
    const delay = Math.min(this.opts.maxBackoffMs, this.opts.initialBackoffMs * 2 ** (this.crashes - 1));
    this.crashEmitter.fire({ message, crashes: this.crashes, restartInMs: delay, gaveUp: false });
    this.restarting = new Promise<void>((resolve) => {
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        this.restarting = undefined;
        if (!this.disposed) this.restartWorker();
        resolve();
      }, delay);
    });
  }

  /**
   * The dead worker (a thread of this process) cannot release its store locks, and a lock held
   * by a live pid (ours) is not stale to `lockStore`: remove the locks it took, i.e. those of our
   * pid in the store folders we asked it to open.
   */
  private releaseOwnLocks(): void {
    for (const storeDir of new Set([...this.openFolders.values()].map((f) => f.storeDir))) {
      const lock = path.join(storeDir, 'lock');
      try {
        const holder = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid?: number; host?: string };
        if (holder.pid === process.pid && holder.host === os.hostname()) fs.rmSync(lock, { force: true });
      } catch {
        continue; // no lock, or not readable: nothing of ours to remove
      }
    }
  }

  /** Starts a new worker and re-sends `init` and every folder's last `index`. */
  private restartWorker(): void {
    this.start();
    if (this.initOptions) this.send('init', { options: this.initOptions }).catch((e: Error) => this.logEmitter.fire({ type: 'log', level: 'error', message: `re-init after a crash failed: ${e.message}` }));
    for (const [root, { storeDir, selection }] of this.openFolders) {
      this.send('index', { root, storeDir, selection, i18n: this.i18nConfig }).catch((e: Error) => {
        if (!(e instanceof WorkerCrashedError)) this.logEmitter.fire({ type: 'log', level: 'error', message: `re-index after a crash failed: ${e.message}`, root });
      });
    }
  }

  // --- requests -----------------------------------------------------------------------------

  /** Sends a request now (no waiting on restarts). */
  private send<T extends RequestType>(type: T, body: RequestBody<T>, signal?: AbortSignal, idOut?: (id: number) => void): Promise<ResultOf<T>> {
    if (this.disposed) return Promise.reject(new Error("Fathom's worker was disposed"));
    if (this.gaveUp) return Promise.reject(new WorkerCrashedError(this.gaveUp));
    const w = this.start();
    const id = this.nextId++;
    idOut?.(id);
    return new Promise<ResultOf<T>>((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const onAbort = () => this.cancel(id);
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        type,
        resolve: (r) => {
          done();
          resolve(r as ResultOf<T>);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      w.postMessage({ type, id, ...body } as Request);
    });
  }

  /** Sends a request once a restart in progress is over. */
  private async request<T extends RequestType>(type: T, body: RequestBody<T>, signal?: AbortSignal, idOut?: (id: number) => void): Promise<ResultOf<T>> {
    if (this.restarting) await this.restarting;
    return this.send(type, body, signal, idOut);
  }

  /**
   * Cancels request `id`: its promise rejects with CancelledError at once (whatever the worker
   * answers later for it is ignored), and the worker is asked to abort it.
   */
  private cancel(id: number, why = 'cancelled'): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.reject(new CancelledError(`${p.type} ${id} ${why}`));
    if (this.worker) this.send('cancel', { target: id }).catch(() => undefined);
  }

  chunk(path: string, text: string, options?: ChunkOptions): Promise<FileChunks> {
    return this.request('chunk', { path, text, options });
  }

  /** Configures chunking and embedding (remembered and re-sent after a crash). */
  init(options: WorkerInitOptions, signal?: AbortSignal): Promise<WorkerStatus> {
    this.initOptions = options;
    return this.request('init', { options }, signal);
  }

  /** Opens and indexes `root` (store in `storeDir`); remembered and re-sent after a crash. */
  index(root: string, storeDir: string, options: { signal?: AbortSignal; selection?: FileSelection } = {}): Promise<IndexResult> {
    this.openFolders.set(path.resolve(root), { storeDir: path.resolve(storeDir), selection: options.selection });
    return this.request('index', { root, storeDir, selection: options.selection, i18n: this.i18nConfig }, options.signal);
  }

  /** The files of an open folder as indexed, skipped ones with their reason. */
  files(root: string): Promise<FileInfo[]> {
    return this.request('files', { root });
  }

  update(root: string, files: FileUpdate[]): Promise<UpdateResult> {
    return this.request('update', { root, files });
  }

  remove(root: string, paths: string[]): Promise<UpdateResult> {
    return this.request('remove', { root, paths });
  }

  /** Embed these files of `root` first (open and recently edited editors, most wanted first). */
  prioritize(root: string, paths: string[]): Promise<{ pendingVectors: number }> {
    return this.request('prioritize', { root, paths });
  }

  /**
   * The folder left the workspace: the worker saves it, stops its background embedding and
   * releases its store's lock; it is no longer re-indexed after a restart.
   */
  close(root: string): Promise<{ closed: boolean }> {
    this.openFolders.delete(path.resolve(root));
    return this.request('close', { root });
  }

  /** Hybrid search; a newer search cancels this one (it then rejects with CancelledError). */
  search(query: string, options: SearchOptions & { roots?: string[]; signal?: AbortSignal } = {}): Promise<WorkerHit[]> {
    const { roots, signal, ...searchOptions } = options;
    if (this.searchInFlight !== undefined) this.cancel(this.searchInFlight, 'was superseded by a newer search');
    let myId = -1;
    const p = this.request('search', { query, options: searchOptions, roots }, signal, (id) => {
      myId = id;
      this.searchInFlight = id;
    });
    const clear = () => {
      if (this.searchInFlight === myId) this.searchInFlight = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  similar(root: string, target: SimilarTarget, options: { k?: number; signal?: AbortSignal } = {}): Promise<WorkerHit[]> {
    return this.request('similar', { root, target, k: options.k }, options.signal);
  }

  status(): Promise<WorkerStatus> {
    return this.request('status', {});
  }

  /** One of Fathom's agent tools (src/agent/tools.ts) over the open folders (`roots`, default all). */
  tool(name: string, args: unknown, options: { roots?: string[]; signal?: AbortSignal } = {}): Promise<ToolResult> {
    return this.request('tool', { name, args, roots: options.roots }, options.signal);
  }

  /** Any i18n query (see `I18nQuery`); the helpers below are typed per kind. */
  async i18n<Q extends I18nQuery>(root: string, query: Q, options: { localeGlobs?: string[]; signal?: AbortSignal } = {}): Promise<I18nAnswerOf<Q['op']>> {
    const config = this.i18nConfig;
    const a = await this.request('i18n', { root, query, localeGlobs: options.localeGlobs ?? config.localeGlobs, functions: config.functions }, options.signal);
    if (a.op !== query.op) throw new Error(`i18n: asked ${query.op}, the worker answered ${a.op}`);
    return a as I18nAnswerOf<Q['op']>;
  }

  /** The i18n options (locale globs, the project's translate functions) every later i18n request carries. */
  setI18nConfig(config: { localeGlobs?: string[]; functions?: string[] }): void {
    this.i18nConfig = { localeGlobs: config.localeGlobs, functions: config.functions };
  }

  private i18nConfig: { localeGlobs?: string[]; functions?: string[] } = {};

  /** "Where is this string defined?": candidate keys, best first, with every locale value and usage. */
  async i18nLookup(root: string, text: string, options: { fromFile?: string; limit?: number; localeGlobs?: string[]; signal?: AbortSignal } = {}): Promise<LookupResult> {
    const a = await this.i18n(root, { op: 'string', text, fromFile: options.fromFile, limit: options.limit }, options);
    return a.result;
  }

  /** One key (`a.b.c`, `ns:a.b`) in every locale, with its usages. */
  async i18nKey(root: string, key: string, options: { fromFile?: string; localeGlobs?: string[]; signal?: AbortSignal } = {}): Promise<LookupResult> {
    const a = await this.i18n(root, { op: 'key', key, fromFile: options.fromFile }, options);
    return a.result;
  }

  /**
   * "Where is this string defined?" for an editor: the selection (when not empty), else the
   * string literal or template text under `offset` of the document, looked up from `file`.
   */
  async i18nAt(
    root: string,
    doc: { file: string; text: string; language: string; offset: number; selection?: { start: number; end: number } },
    options: { limit?: number; localeGlobs?: string[]; signal?: AbortSignal } = {},
  ): Promise<{ string: StringAtResult | null; result: LookupResult }> {
    const a = await this.i18n(root, { op: 'at', ...doc, limit: options.limit }, options);
    return { string: a.string, result: a.result };
  }

  /** The translations of the `$t('key')` under `offset` of `file` (`text`: the unsaved document), or null. */
  async i18nHover(root: string, file: string, offset: number, options: { text?: string; localeGlobs?: string[]; signal?: AbortSignal } = {}): Promise<HoverResult | null> {
    const a = await this.i18n(root, { op: 'hover', file, offset, text: options.text }, options);
    return a.result;
  }

  pause(): Promise<WorkerStatus> {
    return this.request('pause', {});
  }

  resume(): Promise<WorkerStatus> {
    return this.request('resume', {});
  }

  /** Test-only: makes the worker throw an uncaught error. */
  crashForTest(): void {
    this.worker?.postMessage({ type: 'crash', id: this.nextId++ } satisfies Request);
  }

  /** The worker thread (tests use it to kill the worker behind the client's back). */
  get workerForTest(): Worker | undefined {
    return this.worker;
  }

  /** Saves, releases the stores and stops the worker (terminated if it does not exit within `timeoutMs`). */
  async dispose(timeoutMs = 10_000): Promise<void> {
    if (this.disposed) return;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const w = this.worker;
    if (w) {
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      const answered = this.send('dispose', {}).catch(() => undefined);
      this.disposed = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([answered, exited]), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      if (timer) clearTimeout(timer);
    }
    this.disposed = true;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new Error("Fathom's worker was disposed"));
    this.pending.clear();
    if (w) await w.terminate();
  }
}
