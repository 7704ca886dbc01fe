/**
 * One index per workspace folder, kept up to date: each folder on disk gets a `FolderIndexer`
 * (its index runs in the worker, its store under the extension's `storageUri`), one file
 * watcher per folder feeds an `EventBatcher`, and batches reach the worker as one `update`
 * + `remove` each (or a re-walk, after a `.gitignore` changed or a huge batch). While a
 * folder's index run goes on, its batches are held and sent when it ends, so no edit is lost.
 *
 * Virtual folders (not `file:`) are not indexed: the worker reads files from disk.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CancelledError, type IndexClient } from '../service/client';
import type { IndexResult } from '../service/protocol';
import { EventBatcher, mergeBatch, notNoise, type FolderBatch } from '../editor/batcher';
import type { HostTimings } from '../editor/perf';
import { i18nConfigOf, initOptionsOf, keywordOnlyAdvice, localModelPathOf, needsReinit, remoteUrlOf, type FathomSettings, type KeywordOnlyAdvice, type ModelChoice } from '../editor/settings';
import type { IndexTracker } from '../editor/tracker';
import { folderSelection, readFathomSettings } from './settings';
import { errText } from '../util/errors';
import { bundledModelPath, isStaticModel } from '../index/static-model';
import { relativeIn } from '../util/paths';

/** A batch bigger than this is cheaper as a re-walk (unchanged files are only stat'ed). */
const REWALK_OVER = 2000;

export interface IndexEnv {
  client: IndexClient;
  log: vscode.LogOutputChannel;
  tracker: IndexTracker;
  timings: HostTimings;
  /** Index stores go under here (the workspace's storage). */
  storeRoot: string;
  /** The model cache (global storage). */
  cacheDir: string;
  /** A model folder inside the extension (a VSIX packed with `--model`), used with no setting. */
  bundledModelPath?: string;
  /** What the user chose when asked for the model (global state). */
  modelChoice?: () => ModelChoice | undefined;
  /** After each `init`: keyword-only (with the advice) or not (undefined). */
  onModelState?: (advice: KeywordOnlyAdvice | undefined) => void;
}


class FolderIndexer {
  private run: { abort: AbortController; done: Promise<IndexResult | undefined> } | undefined;
  private again = false;
  private held: FolderBatch | undefined;
  indexedOnce = false;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    readonly root: string,
    readonly storeDir: string,
    private readonly env: IndexEnv,
  ) {}

  get running(): boolean {
    return !!this.run;
  }

  /** Indexes the folder (incrementally); a call while a run goes on re-runs once it ends. */
  index(): Promise<IndexResult | undefined> {
    if (this.run) {
      this.again = true;
      return this.run.done;
    }
    const abort = new AbortController();
    const done = this.env.client
      .index(this.root, this.storeDir, { signal: abort.signal, selection: folderSelection(this.folder) })
      .then(
        (r) => {
          this.indexedOnce = true;
          this.env.log.info(`indexed ${this.folder.name}: ${r.files} files (${r.skipped} skipped), ${r.chunks} chunks, ${r.vectors} vectors${r.pendingVectors ? ` (${r.pendingVectors} pending)` : ''} in ${r.ms} ms${r.loaded ? ', from the stored index' : ''}${r.rebuilt ? `; rebuilt: ${r.rebuilt}` : ''}`);
          return r;
        },
        (e) => {
          if (e instanceof CancelledError) this.env.log.info(`indexing ${this.folder.name} was cancelled; what was indexed stays searchable`);
          else this.env.log.error(`indexing ${this.folder.name} failed: ${errText(e)}`);
          return undefined;
        },
      )
      .finally(() => {
        this.run = undefined;
        if (this.again) {
          this.again = false;
          void this.index();
        } else if (this.held) {
          const b = this.held;
          this.held = undefined;
          void this.apply(b);
        }
      });
    this.run = { abort, done };
    return done;
  }

  cancel(): void {
    this.again = false;
    this.run?.abort.abort();
  }

  /** Sends one batch of file changes to the worker. */
  async apply(b: FolderBatch): Promise<void> {
    if (this.run || !this.indexedOnce) {
      this.held = mergeBatch(this.held, b);
      return;
    }
    if (b.ignoreRulesChanged || b.changed.length + b.deleted.length > REWALK_OVER) {
      this.env.log.info(`${this.folder.name}: ${b.changed.length + b.deleted.length} changed paths${b.ignoreRulesChanged ? ' and a .gitignore' : ''}: re-walking the folder`);
      await this.index();
      return;
    }
    const t0 = Date.now();
    try {
      const parts: string[] = [];
      if (b.changed.length) {
        const r = await this.env.client.update(this.root, b.changed.map((rel) => ({ rel })));
        parts.push(`${r.changed} of ${b.changed.length} changed file(s) re-chunked`);
        for (const p of r.problems) this.env.log.warn(`${this.folder.name}: ${p.rel}: ${p.reason}`);
      }
      if (b.deleted.length) {
        const r = await this.env.client.remove(this.root, b.deleted);
        parts.push(`${r.changed} of ${b.deleted.length} deleted path(s) removed`);
      }
      this.env.log.info(`${this.folder.name}: ${parts.join(', ')} in ${Date.now() - t0} ms`);
    } catch (e) {
      this.env.log.error(`${this.folder.name}: could not apply file changes: ${errText(e)}`);
    }
  }
}

export class WorkspaceIndex implements vscode.Disposable {
  private readonly indexers = new Map<string, FolderIndexer>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly batcher: EventBatcher;
  private settings: FathomSettings | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private firstIndexReported = false;

  constructor(private readonly env: IndexEnv) {
    this.batcher = new EventBatcher((batches) => env.timings.timed('file batch', () => this.onBatches(batches)), { keep: notNoise });
  }

  /** Folders indexed now (root → folder). */
  get roots(): string[] {
    return [...this.indexers.keys()];
  }

  folderOf(uri: vscode.Uri): { root: string; folder: vscode.WorkspaceFolder } | undefined {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return undefined;
    const ix = [...this.indexers.values()].find((i) => i.folder.uri.toString() === folder.uri.toString());
    return ix ? { root: ix.root, folder } : undefined;
  }

  folderName(root: string): string | undefined {
    return this.indexers.get(root)?.folder.name;
  }

  get searchSettings(): FathomSettings {
    return this.settings ?? readFathomSettings();
  }

  /** Configures the worker and indexes every folder; wires watchers and settings. */
  async start(): Promise<void> {
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => this.env.timings.timed('folders changed', () => this.foldersChanged(e))),
      vscode.workspace.onDidChangeConfiguration((e) => this.env.timings.timed('settings changed', () => this.settingsChanged(e))),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.env.log.info('the workspace is trusted now: model settings of the workspace apply');
        void this.reinitIfNeeded();
      }),
    );
    await this.init();
    this.foldersChanged({ added: vscode.workspace.workspaceFolders ?? [], removed: [] });
  }

  private loaded = false;

  /** The last configuration loaded a model (search is hybrid). */
  get modelLoaded(): boolean {
    return this.loaded;
  }

  /** Is a model folder bundled with the extension? */
  get hasBundledModel(): boolean {
    return !!this.env.bundledModelPath;
  }

  private async init(signal?: AbortSignal): Promise<void> {
    const first = vscode.workspace.workspaceFolders?.[0];
    this.settings = readFathomSettings(first?.uri);
    this.env.client.setI18nConfig(i18nConfigOf(this.settings));
    if (!vscode.workspace.isTrusted) this.env.log.info('restricted mode: model settings are taken from user settings only (the workspace is not trusted)');
    const pathEnv = { localPathBase: first?.uri.scheme === 'file' ? first.uri.fsPath : undefined, trusted: vscode.workspace.isTrusted };
    const modelPath = localModelPathOf(this.settings, pathEnv);
    if (modelPath.note) this.env.log.warn(modelPath.note);
    const remote = remoteUrlOf(this.settings);
    if (remote.note) this.env.log.warn(remote.note);
    const downloadChosen = this.env.modelChoice?.() === 'download';
    const options = initOptionsOf(this.settings, { cacheDir: this.env.cacheDir, ...pathEnv, bundledModelPath: this.env.bundledModelPath, downloadChosen });
    const bundled = !!options.embedder && !!this.env.bundledModelPath && options.embedder.localModelPath === this.env.bundledModelPath;
    const emb = options.embedder || undefined;
    const own = emb && !emb.localModelPath && isStaticModel(emb.model) ? bundledModelPath() : undefined;
    const from = emb?.localModelPath ? ` from ${emb.localModelPath}${bundled ? ' (bundled with the extension)' : ''}` : own ? ` from ${own} (Fathom's own, shipped with the extension)` : '';
    this.env.log.info(`model: ${options.embedder ? `${options.embedder.model}${from}, downloads ${options.embedder.allowDownload ? 'allowed' : 'off'}, cache ${this.env.cacheDir}` : 'off (fathom.search.dense is false)'}`);
    const st = await this.env.client.init(options, signal);
    this.loaded = !st.keywordOnlyReason;
    const advice = keywordOnlyAdvice(st.keywordOnlyReason, this.settings, { downloadChosen });
    this.env.tracker.setAdvice(advice);
    if (st.keywordOnlyReason) this.env.log.warn(`searching keyword-only: ${st.keywordOnlyReason}`);
    else this.env.log.info(`embedding with ${st.model}`);
    this.env.onModelState?.(advice);
  }

  private foldersChanged(e: { added: readonly vscode.WorkspaceFolder[]; removed: readonly vscode.WorkspaceFolder[] }): void {
    for (const f of e.removed) {
      const root = path.resolve(f.uri.fsPath);
      const ix = this.indexers.get(root);
      ix?.cancel();
      this.indexers.delete(root);
      this.watchers.get(root)?.dispose();
      this.watchers.delete(root);
      // the worker saves it, stops its embedding, releases its lock and forgets it
      if (ix) {
        this.env.client.close(root).then(
          (r) => r.closed && this.env.log.info(`${f.name} left the workspace: its index was saved and closed`),
          (e: unknown) => this.env.log.warn(`closing the index of ${f.name} failed: ${errText(e)}`),
        );
      }
    }
    for (const f of e.added) {
      if (f.uri.scheme !== 'file') {
        this.env.log.warn(`${f.name} (${f.uri.toString()}) is not on disk: Fathom indexes folders on disk only, this one is left out`);
        continue;
      }
      const root = path.resolve(f.uri.fsPath);
      if (this.indexers.has(root)) continue;
      const storeDir = path.join(this.env.storeRoot, `${f.name.replace(/[^\w.-]+/g, '_').slice(0, 40)}-${createHash('sha1').update(f.uri.toString()).digest('hex').slice(0, 10)}`);
      const ix = new FolderIndexer(f, root, storeDir, this.env);
      this.indexers.set(root, ix);
      this.watch(f, root);
      void ix.index().then(() => this.maybeReportFirstIndex());
    }
    const none = (vscode.workspace.workspaceFolders ?? []).length === 0;
    const virtualOnly = !none && this.indexers.size === 0;
    this.env.tracker.setUnavailable(none ? 'Open a folder to search it with Fathom.' : virtualOnly ? 'Fathom indexes folders on disk only; this workspace has none.' : undefined);
  }

  private watch(f: vscode.WorkspaceFolder, root: string): void {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(f, '**/*'));
    const add = (kind: 'create' | 'change' | 'delete') => (uri: vscode.Uri) => {
      const rel = relativeIn(root, uri.fsPath);
      if (rel !== undefined) this.batcher.add(root, rel, kind);
    };
    this.watchers.set(root, vscode.Disposable.from(w, w.onDidCreate(add('create')), w.onDidChange(add('change')), w.onDidDelete(add('delete'))));
  }

  private onBatches(batches: FolderBatch[]): void {
    for (const b of batches) void this.indexers.get(b.root)?.apply(b);
  }

  private maybeReportFirstIndex(): void {
    if (this.firstIndexReported || [...this.indexers.values()].some((i) => i.running)) return;
    this.firstIndexReported = true;
    const stall = this.env.timings.stopStallMonitor();
    this.env.log.info(`first index done: ${Math.round(this.env.timings.sinceActivation())} ms after activation`);
    const longest = this.env.timings.longestTask;
    if (stall) this.env.log.info(`first index done: longest event-loop stall on the extension host ${stall.maxMs.toFixed(1)} ms while indexing (p99 ${stall.p99Ms.toFixed(1)} ms, mean ${stall.meanMs.toFixed(1)} ms); ${stall.beforeMaxMs?.toFixed(1) ?? '?'} ms between activation and the first progress event (editor start-up, all extensions)`);
    this.env.log.info(`first index done: longest Fathom task on the extension host ${longest.ms.toFixed(1)} ms (${longest.what || 'none'})`);
  }

  private settingsChanged(e: vscode.ConfigurationChangeEvent): void {
    if (e.affectsConfiguration('fathom')) void this.reinitIfNeeded();
    for (const ix of this.indexers.values()) {
      if (e.affectsConfiguration('fathom.files', ix.folder.uri) || e.affectsConfiguration('files.exclude', ix.folder.uri) || e.affectsConfiguration('search.exclude', ix.folder.uri)) {
        this.env.log.info(`${ix.folder.name}: which files are indexed changed: re-walking the folder`);
        void ix.index();
      }
    }
  }

  private async reinitIfNeeded(): Promise<void> {
    const next = readFathomSettings(vscode.workspace.workspaceFolders?.[0]?.uri);
    const prev = this.settings;
    this.settings = next;
    this.env.client.setI18nConfig(i18nConfigOf(next));
    if (prev && !needsReinit(prev, next)) return;
    this.env.log.info('chunking or model settings changed: reloading every folder');
    await this.restart(false);
  }

  /**
   * Re-configures the worker (it closes every folder) and indexes again; `fresh` deletes the
   * stores first. `signal` aborts the configuration (a model download): false then, and the
   * folders are not re-indexed until the next restart.
   */
  async restart(fresh: boolean, signal?: AbortSignal): Promise<boolean> {
    for (const ix of this.indexers.values()) ix.cancel();
    try {
      await this.init(signal);
    } catch (e) {
      if (e instanceof CancelledError) this.env.log.info('configuring the model was cancelled');
      else this.env.log.error(`could not configure the worker: ${errText(e)}`);
      return false;
    }
    if (fresh) {
      for (const ix of this.indexers.values()) {
        try {
          fs.rmSync(ix.storeDir, { recursive: true, force: true });
        } catch (e) {
          this.env.log.warn(`could not delete ${ix.storeDir}: ${errText(e)}`);
        }
      }
    }
    await Promise.all([...this.indexers.values()].map((ix) => ix.index()));
    return true;
  }

  cancel(): void {
    for (const ix of this.indexers.values()) ix.cancel();
  }

  dispose(): void {
    this.batcher.dispose();
    for (const w of this.watchers.values()) w.dispose();
    for (const d of this.disposables) d.dispose();
    this.cancel();
  }
}
