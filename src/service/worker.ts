/**
 * The worker thread: all parsing, indexing, embedding and searching happens here, never on the
 * extension host's thread. It is protocol dispatch over one `FolderSession` per workspace
 * folder root (src/service/session.ts: lock, load, index, apply changes, answer, close); the
 * worker itself only adds what is shared by all folders — the embedder and the team index
 * (shared.ts), the open folders by root (folders.ts), pause/resume and status events
 * (pacing.ts), request cancellation, the agent tools (agent-folder.ts). Messages:
 * src/service/protocol.ts.
 *
 * Long loops (indexing, embedding) give the event loop a turn between files/batches, so
 * searches, updates, pause and cancel are served while they run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { chunkFile, prepareLanguagesFor } from '../chunkers/index';
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
import type { ToolRequest, ToolResult } from './protocol';
import { runSessionTool } from './agent-folder';
import { folderWeights } from '../agent/tools';
import { errText } from '../util/errors';
import { sharedChunkPool } from './chunk-pool';
import { oxcStatus } from '../parse/oxc';
import { InFlight, PauseGate, Throttle } from './pacing';
import { SharedResources } from './shared';
import { OpenFolders } from './folders';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WorkerState {
  private options: WorkerInitOptions = {};
  private initialized = false;
  /** The embedding model and the team index, shared by every folder. */
  private readonly shared = new SharedResources();
  private readonly folders = new OpenFolders();
  private readonly gate = new PauseGate();
  private readonly running = new Map<number, AbortController>();
  /** `status` events: at once when asked, else at most every 500 ms. */
  private readonly statusEvents = new Throttle(() => this.post({ type: 'status', status: this.status() }), 500);
  private disposed = false;
  /** The running `init`: index and search wait for it. */
  private initializing: Promise<void> = Promise.resolve();
  /** Folders being opened (locked and loaded): searches wait for them. */
  private readonly opening = new InFlight();

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
      case 'remove':
        return this.folders.get(req.root).remove(req.paths);
      case 'close':
        return this.closeFolder(req.root);
      case 'prioritize':
        return this.folders.prioritize(req.root, req.paths);
      case 'search':
        return this.search(req.query, req.options, req.roots, signal);
      case 'similar': {
        await turn();
        signal.throwIfAborted();
        const f = this.folders.get(req.root);
        return (await f.similar(req.target, { k: req.k })).map((h) => ({ ...h, root: f.root }));
      }
      case 'files':
        return this.folders.get(req.root).files();
      case 'status':
        return this.status();
      case 'i18n':
        return this.i18nQuery(req, signal);
      case 'tool':
        return this.tool(req, signal);
      case 'pause':
        this.gate.pause();
        this.pushStatus(true);
        return this.status();
      case 'resume':
        this.gate.resume();
        this.pushStatus(true);
        return this.status();
    }
  }

  // --- state ------------------------------------------------------------------------------

  status(): WorkerStatus {
    const folders: FolderStatus[] = [...this.folders.indexed.values()].map((s) => s.status());
    return {
      initialized: this.initialized,
      keywordOnlyReason: this.shared.embedder ? undefined : this.shared.keywordOnlyReason,
      model: this.shared.embedder?.id,
      paused: this.gate.paused,
      folders,
      ...(this.shared.remote ? { remote: this.shared.remote.state } : {}),
    };
  }

  /** Pushes a `status` event: at once when `now`, else at most every 500 ms. */
  private pushStatus(now = false): void {
    if (!this.disposed) this.statusEvents.push(now);
  }

  private parserLogged = false;

  private log(level: 'info' | 'warn' | 'error', message: string, root?: string): void {
    this.post({ type: 'log', level, message, root });
  }

  /** `signal` (a `cancel` of the `init`): stop waiting for the model (a download) and go keyword-only. */
  private async init(options: WorkerInitOptions, signal?: AbortSignal): Promise<void> {
    for (const root of this.folders.roots()) await this.closeFolder(root);
    await this.shared.dropModel();
    this.options = options;
    this.initialized = true;
    await this.shared.open(options, signal, (level, message) => this.log(level, message), () => this.pushStatus(true));
    this.pushStatus(true);
  }

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
      embedder: this.shared.embedder,
      noEmbedderReason: this.shared.keywordOnlyReason,
      saveDelayMs: this.options.saveDelayMs,
      log: (level, message) => this.log(level, message, root),
      checkpoint: this.gate.checkpoint,
      onProgress: (progress) => this.post({ type: 'progress', root, progress }),
      onChange: () => this.pushStatus(),
      remote: this.shared.remote,
    });
    s.engine.setPriority(this.folders.hintOf(root));
    return s;
  }

  // --- index / update / close -----------------------------------------------------------------

  private async index(id: number, rootIn: string, storeDir: string, signal: AbortSignal, selection?: FileSelection, i18n?: I18nConfig): Promise<IndexResult> {
    const done = this.opening.begin();
    try {
      await this.initializing.catch(() => undefined);
      if (!this.initialized) await this.init({});
      const t0 = Date.now();
      const root = path.resolve(rootIn);
      if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
      let s = this.folders.indexed.get(root);
      if (s && s.storeDir !== path.resolve(storeDir)) {
        await this.closeFolder(root);
        s = undefined;
      }
      let loaded = false;
      let rebuilt: string | undefined;
      let i18nConfig = i18n;
      if (!s) {
        // an i18n-only session of this root (asked before it was indexed) gives way to the full one
        const i18nOnly = this.folders.i18nOnly.get(root);
        this.folders.i18nOnly.delete(root);
        await i18nOnly?.close();
        s = await this.openSession(root, storeDir);
        i18nConfig ??= i18nOnly?.i18nConfig;
        this.folders.indexed.set(root, s);
        loaded = s.loaded;
        rebuilt = s.rebuilt;
        this.pushStatus(true);
      }
      const session = s;
      done();
      try {
        for await (const p of session.index({ signal, selection, i18n: i18nConfig })) {
          this.folders.progressOf.set(root, p);
          this.post({ type: 'progress', root, id, progress: p });
          this.pushStatus();
          if (p.phase !== 'done') await this.gate.checkpoint(signal);
        }
      } finally {
        this.folders.progressOf.delete(root);
        this.pushStatus(true);
      }
      const st = session.status();
      return { root, files: st.files, skipped: st.skipped, chunks: st.chunks, vectors: st.vectors, pendingVectors: st.pendingVectors, loaded, rebuilt, ms: Date.now() - t0 };
    } finally {
      done();
    }
  }

  private async update(root: string, files: FileUpdate[]): Promise<UpdateResult> {
    const s = this.folders.get(root);
    await prepareLanguagesFor(files.filter((u) => !u.deleted).map((u) => u.rel)); // tree-sitter grammars, only those needed
    return s.apply(files);
  }

  /** A folder left the workspace: its session stops embedding, saves and releases its lock. */
  private async closeFolder(root: string): Promise<{ closed: boolean }> {
    const closed = await this.folders.close(root);
    if (closed) this.pushStatus(true);
    return { closed };
  }

  /** Resolves when the running `init` is over and the folders being opened are open. */
  private ready(): Promise<unknown> {
    return Promise.all([this.initializing.catch(() => undefined), this.opening.settled()]);
  }

  // --- search -------------------------------------------------------------------------------

  private async search(query: string, options: SearchOptions | undefined, roots: string[] | undefined, signal: AbortSignal): Promise<WorkerHit[]> {
    // one turn first: a `cancel` sent right behind this search (a newer one superseding it)
    // is seen before any work is done
    await turn();
    await this.ready();
    signal.throwIfAborted();
    const sessions = roots ? roots.map((r) => this.folders.get(r)) : [...this.folders.indexed.values()];
    const k = options?.k ?? 10;
    const lists: WorkerHit[][] = [];
    for (const s of sessions) {
      const hits = await s.search(query, options);
      signal.throwIfAborted();
      lists.push(hits.map((h) => ({ ...h, root: s.root })));
    }
    if (lists.length < 2) return lists[0] ?? [];
    // several folders: scores on one scale (each over its folder's best), each folder weighed by
    // how much of the query its best hit holds, as the agent tools merge folders (folderWeights)
    const weights = folderWeights(query, lists.map((l) => l[0]?.chunk));
    const all = lists.flatMap((l, i) => {
      const top = l.reduce((m, h) => Math.max(m, h.score), 0);
      return l.map((h) => ({ ...h, score: top > 0 ? (h.score / top) * weights[i] : 0 }));
    });
    return all.sort((a, b) => b.score - a.score).slice(0, k);
  }

  // --- agent tools (the editor's language-model tools) ----------------------------------------

  private async tool(req: ToolRequest, signal: AbortSignal): Promise<ToolResult> {
    await turn();
    await this.ready();
    signal.throwIfAborted();
    // folders not open (yet) are left out: the tools say "no folder is open" when none is
    const open = req.roots ? req.roots.map((r) => this.folders.indexed.get(path.resolve(r))).filter((s): s is FolderSession => !!s) : [...this.folders.indexed.values()];
    return runSessionTool(req, open, { progressOf: (root) => this.folders.progressOf.get(root), embedder: this.shared.embedder, keywordOnlyReason: this.shared.keywordOnlyReason, signal });
  }

  // --- i18n ---------------------------------------------------------------------------------

  private async i18nQuery(req: I18nRequest, signal: AbortSignal): Promise<I18nAnswer> {
    await turn();
    signal.throwIfAborted();
    const root = path.resolve(req.root);
    await this.ready();
    let s = this.folders.indexed.get(root) ?? this.folders.i18nOnly.get(root);
    if (!s) {
      if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
      s = await this.openSession(root, undefined);
      this.folders.i18nOnly.set(root, s);
    }
    return s.i18n(req.query, { localeGlobs: req.localeGlobs, functions: req.functions, signal, embedder: this.shared.embedder });
  }

  // --- teardown -----------------------------------------------------------------------------

  private async dispose(): Promise<void> {
    this.disposed = true;
    for (const ac of this.running.values()) ac.abort(new CancelledError());
    this.gate.resume();
    for (const s of [...this.folders.indexed.values()]) await s.idle(); // a cancelled index run unwinds (it saves)
    for (const root of this.folders.roots()) await this.closeFolder(root);
    this.statusEvents.cancel();
    await this.shared.dispose();
  }
}

if (parentPort) {
  const port = parentPort;
  const state = new WorkerState((m) => port.postMessage(m));
  port.on('message', (req: Request) => void state.handle(req));
}
