/**
 * The worker thread: all parsing, indexing, embedding and searching happens here, never on the
 * extension host's thread. It is protocol dispatch over one `FolderSession` per workspace
 * folder root (src/service/session.ts: lock, load, index, apply changes, answer, close); the
 * worker itself only adds what is shared by all folders — the embedder, pause/resume, request
 * cancellation and status events. Messages: src/service/protocol.ts.
 *
 * Long loops (indexing, embedding) give the event loop a turn between files/batches, so
 * searches, updates, pause and cancel are served while they run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { chunkFile, prepareLanguagesFor } from '../chunkers/index';
import { createEmbedder, type Embedder } from '../index/embedder';
import type { SearchOptions } from '../index/engine';
import type { FileSelection } from '../workspace/files';
import type {
  FileUpdate,
  FolderStatus,
  I18nAnswer,
  I18nRequest,
  IndexResult,
  Request,
  ResultMap,
  UpdateResult,
  WorkerHit,
  WorkerInitOptions,
  WorkerMessage,
  WorkerStatus,
} from './protocol';
import { CancelledError, FolderSession, type I18nConfig } from './session';
import { RemoteIndex } from '../index/pgstore';
import type { ToolRequest, ToolResult } from './protocol';
import type { IndexProgress } from '../index/engine';
import { runSessionTool } from './agent-folder';
import { errText } from '../util/errors';
import { sharedChunkPool } from './chunk-pool';
import { oxcStatus } from '../parse/oxc';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WorkerState {
  private options: WorkerInitOptions = {};
  private initialized = false;
  private embedder: Embedder | undefined;
  private keywordOnlyReason: string | undefined = 'no embedding model configured';
  /** The open folders (`index`ed), by absolute root. */
  private readonly sessions = new Map<string, FolderSession>();
  /** The running index request's last progress per root (the agent tools say what is indexed so far). */
  private readonly progressOf = new Map<string, IndexProgress>();
  /** Folders asked about by `i18n` without being indexed: storeless sessions (nothing persisted, no lock). */
  private readonly i18nOnly = new Map<string, FolderSession>();
  private paused = false;
  /** The team index of `init.remote`, shared by every folder. */
  private remote: RemoteIndex | undefined;
  private resumeWaiters: Array<() => void> = [];
  private readonly running = new Map<number, AbortController>();
  private lastStatusPush = 0;
  private statusTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** The running `init`: index and search wait for it. */
  private initializing: Promise<void> = Promise.resolve();
  /** Folders being opened (locked and loaded): searches wait for them. */
  private readonly opening = new Set<Promise<unknown>>();
  /** The editor's last "embed these first" hint per root (applied when the folder opens). */
  private readonly hints = new Map<string, string[]>();

  constructor(private readonly post: (m: WorkerMessage) => void) {}

  /** Handles one request; answers (or not, for `crash`) through `post`. */
  async handle(req: Request): Promise<void> {
    if (req.type === 'cancel') {
      const ac = this.running.get(req.target);
      ac?.abort(new CancelledError());
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
        this.post({ type: 'error', id: req.id, message: errText(err) });
      }
      process.exit(0);
    }
    const ac = new AbortController();
    this.running.set(req.id, ac);
    try {
      const result = await this.run(req, ac.signal);
      if (ac.signal.aborted) throw new CancelledError();
      this.answer(req.id, result);
    } catch (err) {
      const cancelled = ac.signal.aborted || err instanceof CancelledError;
      this.post({ type: 'error', id: req.id, message: cancelled ? `${req.type} ${req.id} was cancelled` : errText(err), cancelled: cancelled || undefined });
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
        return this.index(req.id, req.root, req.storeDir, signal, req.selection, req.i18n);
      case 'update':
        return this.update(req.root, req.files);
      case 'remove': {
        const r = this.session(req.root).remove(req.paths);
        return r;
      }
      case 'close':
        return this.closeFolder(req.root);
      case 'prioritize': {
        const root = path.resolve(req.root);
        this.hints.set(root, req.paths);
        const s = this.sessions.get(root);
        s?.engine.setPriority(req.paths);
        return { pendingVectors: s?.engine.pendingVectors ?? 0 };
      }
      case 'search':
        return this.search(req.query, req.options, req.roots, signal);
      case 'similar': {
        await turn();
        signal.throwIfAborted();
        const f = this.session(req.root);
        return (await f.similar(req.target, { k: req.k })).map((h) => ({ ...h, root: f.root }));
      }
      case 'files':
        return this.session(req.root).files();
      case 'status':
        return this.status();
      case 'i18n':
        return this.i18nQuery(req, signal);
      case 'tool':
        return this.tool(req, signal);
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
    const folders: FolderStatus[] = [...this.sessions.values()].map((s) => s.status());
    return {
      initialized: this.initialized,
      keywordOnlyReason: this.embedder ? undefined : this.keywordOnlyReason,
      model: this.embedder?.id,
      paused: this.paused,
      folders,
      ...(this.remote ? { remote: this.remote.state } : {}),
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

  private parserLogged = false;

  private log(level: 'info' | 'warn' | 'error', message: string, root?: string): void {
    this.post({ type: 'log', level, message, root });
  }

  /** `signal` (a `cancel` of the `init`): stop waiting for the model (a download) and go keyword-only. */
  private async init(options: WorkerInitOptions, signal?: AbortSignal): Promise<void> {
    for (const root of [...this.sessions.keys(), ...this.i18nOnly.keys()]) await this.closeFolder(root);
    await this.embedder?.dispose();
    this.embedder = undefined;
    this.options = options;
    this.initialized = true;
    await this.remote?.close();
    this.remote = options.remote
      ? new RemoteIndex(options.remote, {
          // said once per change (not per search), in the log and the status
          onState: (st) => {
            if (st.ok) this.log('info', `searching the team index ${st.url}`);
            else this.log('warn', `the team index ${st.url} cannot answer (${st.problem}): searching the local index, trying again in a minute`);
            this.pushStatus(true);
          },
        })
      : undefined;
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

  private session(root: string): FolderSession {
    const f = this.sessions.get(path.resolve(root));
    if (!f) throw new Error(`${root} is not open in Fathom's worker (send "index" first)`);
    return f;
  }

  /** Gives the event loop a turn, then waits while paused; throws once `signal` aborts. */
  private readonly checkpoint = async (signal: AbortSignal): Promise<void> => {
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
  };

  private async openSession(root: string, storeDir: string | undefined): Promise<FolderSession> {
    if (!this.parserLogged) {
      // once: which parser reads JS/TS here (Babel alone is slower to start: a platform with no prebuilt oxc)
      this.parserLogged = true;
      const p = oxcStatus();
      this.log('info', p.enabled ? 'JS/TS scripts are parsed by oxc (native), Babel where oxc reports an error' : `JS/TS scripts are parsed by Babel: ${p.problem}`);
    }
    const s = await FolderSession.open(root, {
      storeDir,
      chunk: this.options.chunk,
      // cores − 1 threads chunk a cold index; this thread reads and indexes (the host stays free)
      chunkPool: sharedChunkPool({ log: (level, message) => this.log(level, message) }),
      embedder: this.embedder,
      noEmbedderReason: this.keywordOnlyReason,
      saveDelayMs: this.options.saveDelayMs,
      log: (level, message) => this.log(level, message, root),
      checkpoint: this.checkpoint,
      onProgress: (progress) => this.post({ type: 'progress', root, progress }),
      onChange: () => this.pushStatus(),
      remote: this.remote,
    });
    s.engine.setPriority(this.hints.get(path.resolve(root)) ?? []);
    return s;
  }

  // --- index / update / close -----------------------------------------------------------------

  private async index(id: number, rootIn: string, storeDir: string, signal: AbortSignal, selection?: FileSelection, i18n?: I18nConfig): Promise<IndexResult> {
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    this.opening.add(open);
    const done = () => {
      this.opening.delete(open);
      opened();
    };
    try {
      await this.initializing.catch(() => undefined);
      if (!this.initialized) await this.init({});
      const t0 = Date.now();
      const root = path.resolve(rootIn);
      if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
      let s = this.sessions.get(root);
      if (s && s.storeDir !== path.resolve(storeDir)) {
        await this.closeFolder(root);
        s = undefined;
      }
      let loaded = false;
      let rebuilt: string | undefined;
      let i18nConfig = i18n;
      if (!s) {
        // an i18n-only session of this root (asked before it was indexed) gives way to the full one
        const i18nOnly = this.i18nOnly.get(root);
        this.i18nOnly.delete(root);
        await i18nOnly?.close();
        s = await this.openSession(root, storeDir);
        i18nConfig ??= i18nOnly?.i18nConfig;
        this.sessions.set(root, s);
        loaded = s.loaded;
        rebuilt = s.rebuilt;
        this.pushStatus(true);
      }
      const session = s;
      done();
      try {
        for await (const p of session.index({ signal, selection, i18n: i18nConfig })) {
          this.progressOf.set(root, p);
          this.post({ type: 'progress', root, id, progress: p });
          this.pushStatus();
          if (p.phase !== 'done') await this.checkpoint(signal);
        }
      } finally {
        this.progressOf.delete(root);
        this.pushStatus(true);
      }
      const st = session.status();
      return { root, files: st.files, skipped: st.skipped, chunks: st.chunks, vectors: st.vectors, pendingVectors: st.pendingVectors, loaded, rebuilt, ms: Date.now() - t0 };
    } finally {
      done();
    }
  }

  private async update(root: string, files: FileUpdate[]): Promise<UpdateResult> {
    const s = this.session(root);
    await prepareLanguagesFor(files.filter((u) => !u.deleted).map((u) => u.rel)); // tree-sitter grammars, only those needed
    return s.apply(files);
  }

  /** A folder left the workspace: its session stops embedding, saves and releases its lock. */
  private async closeFolder(rootIn: string): Promise<{ closed: boolean }> {
    const root = path.resolve(rootIn);
    let closed = false;
    for (const map of [this.sessions, this.i18nOnly]) {
      const s = map.get(root);
      if (!s) continue;
      map.delete(root);
      await s.close();
      closed = true;
    }
    if (closed) this.pushStatus(true);
    return { closed };
  }

  // --- search -------------------------------------------------------------------------------

  private async search(query: string, options: SearchOptions | undefined, roots: string[] | undefined, signal: AbortSignal): Promise<WorkerHit[]> {
    // one turn first: a `cancel` sent right behind this search (a newer one superseding it)
    // is seen before any work is done
    await turn();
    await Promise.all([this.initializing.catch(() => undefined), ...this.opening]);
    signal.throwIfAborted();
    const sessions = roots ? roots.map((r) => this.session(r)) : [...this.sessions.values()];
    const k = options?.k ?? 10;
    const all: WorkerHit[] = [];
    for (const s of sessions) {
      const hits = await s.search(query, options);
      signal.throwIfAborted();
      for (const h of hits) all.push({ ...h, root: s.root });
    }
    return sessions.length > 1 ? all.sort((a, b) => b.score - a.score).slice(0, k) : all;
  }

  // --- agent tools (the editor's language-model tools) ----------------------------------------

  private async tool(req: ToolRequest, signal: AbortSignal): Promise<ToolResult> {
    await turn();
    await Promise.all([this.initializing.catch(() => undefined), ...this.opening]);
    signal.throwIfAborted();
    // folders not open (yet) are left out: the tools say "no folder is open" when none is
    const open = req.roots ? req.roots.map((r) => this.sessions.get(path.resolve(r))).filter((s): s is FolderSession => !!s) : [...this.sessions.values()];
    return runSessionTool(req, open, { progressOf: (root) => this.progressOf.get(root), embedder: this.embedder, keywordOnlyReason: this.keywordOnlyReason, signal });
  }

  // --- i18n ---------------------------------------------------------------------------------

  private async i18nQuery(req: I18nRequest, signal: AbortSignal): Promise<I18nAnswer> {
    await turn();
    signal.throwIfAborted();
    const root = path.resolve(req.root);
    await Promise.all([this.initializing.catch(() => undefined), ...this.opening]);
    let s = this.sessions.get(root) ?? this.i18nOnly.get(root);
    if (!s) {
      if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
      s = await this.openSession(root, undefined);
      this.i18nOnly.set(root, s);
    }
    return s.i18n(req.query, { localeGlobs: req.localeGlobs, functions: req.functions, signal, embedder: this.embedder });
  }

  // --- teardown -----------------------------------------------------------------------------

  private async dispose(): Promise<void> {
    this.disposed = true;
    for (const ac of this.running.values()) ac.abort(new CancelledError());
    this.paused = false;
    for (const w of this.resumeWaiters.splice(0)) w();
    for (const s of [...this.sessions.values()]) await s.idle(); // a cancelled index run unwinds (it saves)
    for (const root of [...this.sessions.keys(), ...this.i18nOnly.keys()]) await this.closeFolder(root);
    if (this.statusTimer) clearTimeout(this.statusTimer);
    await this.embedder?.dispose();
    await this.remote?.close();
  }
}


if (parentPort) {
  const port = parentPort;
  const state = new WorkerState((m) => port.postMessage(m));
  port.on('message', (req: Request) => void state.handle(req));
}
