/**
 * The extension's entry: wiring only (measured: `activate took N ms` in the log). Parsing,
 * embedding and searching happen in the worker thread (src/service/worker.ts); the pieces here
 * are small and separate — the workspace index (src/commands/workspace-index.ts), the status
 * bar item and the sidebar view (src/views/), the commands (src/commands/) — and the logic
 * they share is plain, tested code in src/editor/.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { watchEmbedHints } from './commands/embed-hints';
import { findSimilar } from './commands/find-similar';
import { ModelPrompt, openModelSettings } from './commands/model-prompt';
import { registerI18n } from './commands/i18n';
import { registerI18nDiagnostics } from './commands/i18n-diagnostics';
import { FILES_SCHEME, IndexedFilesProvider, showIndexedFiles } from './commands/indexed-files';
import { registerLanguageModelTools } from './commands/lm-tools';
import { openHit } from './commands/open';
import { quickSearch } from './commands/quick-search';
import { statusMenu } from './commands/status-menu';
import { WorkspaceIndex } from './commands/workspace-index';
import { IndexClient } from './service/client';
import { HostTimings } from './editor/perf';
import { bundledModel } from './editor/settings';
import { SearchController } from './editor/search-controller';
import { IndexTracker, throttle } from './editor/tracker';
import { SearchViewProvider, SEARCH_VIEW_ID } from './views/search-view';
import { StatusBar } from './views/status-bar';
import { errText } from './util/errors';
import { relativeIn } from './util/paths';

let client: IndexClient | undefined;


export function activate(context: vscode.ExtensionContext): void {
  const timings = new HostTimings();
  timings.startStallMonitor();
  const log = vscode.window.createOutputChannel('Fathom', { log: true });
  const c = (client = new IndexClient(path.join(context.extensionPath, 'dist', 'worker.js')));
  const parts = createParts(context, c, log, timings);
  context.subscriptions.push(
    log,
    parts.statusBar,
    parts.view,
    parts.index,
    ...showState(parts),
    parts.hints,
    ...followWorker(parts),
    vscode.window.registerWebviewViewProvider(SEARCH_VIEW_ID, parts.view),
    vscode.workspace.registerTextDocumentContentProvider(FILES_SCHEME, parts.filesProvider),
    ...registerCommands(parts, context),
    { dispose: () => void client?.dispose() },
  );
  log.info(`activate took ${timings.sinceActivation().toFixed(1)} ms`);
  // the first index starts after activation returns: activate stays wiring only
  setTimeout(() => parts.index.start().catch((e: unknown) => log.error(`could not start indexing: ${errText(e)}`)), 0);
}

/** The pieces the extension is made of, wired to each other. */
interface Parts {
  c: IndexClient;
  log: vscode.LogOutputChannel;
  timings: HostTimings;
  tracker: IndexTracker;
  statusBar: StatusBar;
  view: SearchViewProvider;
  prompt: ModelPrompt;
  index: WorkspaceIndex;
  controller: SearchController;
  hints: ReturnType<typeof watchEmbedHints>;
  filesProvider: IndexedFilesProvider;
  storeRoot: string;
  cacheDir: string;
  bundledModelPath: string | undefined;
}

/** Makes the workspace index, the status bar item, the search view and its controller, the model prompt and the embedding hints. */
function createParts(context: vscode.ExtensionContext, c: IndexClient, log: vscode.LogOutputChannel, timings: HostTimings): Parts {
  const tracker = new IndexTracker();
  const statusBar = new StatusBar('fathom.statusMenu');
  const view = new SearchViewProvider(context.extensionUri, (m) => log.warn(m), (what, fn) => timings.timed(what, fn));
  const prompt: ModelPrompt = new ModelPrompt(context.globalState, () => index, log);
  const storeRoot = path.join((context.storageUri ?? vscode.Uri.joinPath(context.globalStorageUri, 'no-workspace')).fsPath, 'index');
  const cacheDir = path.join(context.globalStorageUri.fsPath, 'models');
  const bundledModelPath = bundledModel(context.extensionPath);
  const index: WorkspaceIndex = new WorkspaceIndex({
    client: c,
    log,
    tracker,
    timings,
    storeRoot,
    cacheDir,
    bundledModelPath,
    modelChoice: () => prompt.choice,
    onModelState: (advice) => prompt.onModelState(advice),
  });
  const controller = searchController(c, log, timings, tracker, view, index, prompt);
  view.controller = controller;
  const hints = watchEmbedHints({ client: c, roots: () => index.roots, folderOf: (u) => index.folderOf(u), log: (m) => log.warn(m) });
  return { c, log, timings, tracker, statusBar, view, prompt, index, controller, hints, filesProvider: new IndexedFilesProvider(), storeRoot, cacheDir, bundledModelPath };
}

/** The search view's controller: searches go to the worker, over the folders of the workspace index. */
function searchController(c: IndexClient, log: vscode.LogOutputChannel, timings: HostTimings, tracker: IndexTracker, view: SearchViewProvider, index: WorkspaceIndex, prompt: ModelPrompt): SearchController {
  return new SearchController({
    search: (q, o) => c.search(q, { ...o, roots: index.roots }),
    post: (m) => view.post(m),
    open: async (hit, preview) => void (await openHit(hit, { preview, preserveFocus: preview })),
    similar: async (hit) => view.showResults(`Similar to ${hit.chunk.path}:${hit.chunk.start.line}`, await c.similar(hit.root, { chunkId: hit.chunk.id }, { k: 30 })),
    cancelIndex: () => index.cancel(),
    pause: () => void c.pause(),
    resume: () => void c.resume(),
    modelAction: (a) => void prompt.run(a),
    log: (level, m) => log[level](m),
    folderName: (root) => (index.roots.length > 1 ? index.folderName(root) : undefined),
    options: () => ({ k: index.searchSettings.maxResults, rrfK: index.searchSettings.rrfK }),
    isIndexing: () => tracker.indexing,
    hasVectors: () => tracker.hasVectors,
    measure: (what, fn) => timings.timed(what, fn),
    onFirstResults: (ms, q) => log.info(`first search results: ${Math.round(timings.sinceActivation())} ms after activation (the search took ${Math.round(ms)} ms, ${q.length}-character query)`),
  });
}

/** The index state shown: the status bar, the search view, the `fathom.paused` context; the results refreshed (throttled) when the content changed. */
function showState({ tracker, statusBar, controller, timings }: Parts): vscode.Disposable[] {
  const refresh = throttle(() => void controller.refresh(), 1500);
  let pausedContext: boolean | undefined;
  return [
    tracker.onChange(
      timings.wrap('state', (m) => {
        statusBar.update(m);
        controller.setState(m);
        if (m.paused !== pausedContext) {
          pausedContext = m.paused;
          void vscode.commands.executeCommand('setContext', 'fathom.paused', m.paused);
        }
      }),
    ),
    tracker.onContentChange(() => refresh()),
    { dispose: () => refresh.cancel() },
  ];
}

/** What the worker tells: status, progress (a run stopped at its heap limit is warned about once a folder), its log, a crash. */
function followWorker({ c, log, timings, tracker, hints }: Parts): vscode.Disposable[] {
  /** Folders whose index run stopped at the heap limit, warned about once. */
  const memoryWarned = new Set<string>();
  return [
    c.onStatus(
      timings.wrap('status', (s) => {
        tracker.setStatus(s);
        hints.poke(); // a folder opened: its hint goes out
      }),
    ),
    c.onProgress(
      timings.wrap('progress', (e) => {
        timings.markStallWindow();
        tracker.setProgress(e);
        // a run that stopped reading at its heap limit (engine-run.ts MEMORY_STOP_SHARE): said once a folder, the log has the count and what to do
        const m = e.progress.phase === 'done' ? e.progress.message : undefined;
        if (m?.startsWith('memory:') && !memoryWarned.has(e.root)) {
          memoryWarned.add(e.root);
          void vscode.window.showWarningMessage(`Fathom: ${path.basename(e.root)} is too large for the memory it may use: some files were ${m.replace(/^memory: the files left are not indexed: /, 'not indexed (')}).`, 'Show Log').then((a) => a && log.show());
        }
      }),
    ),
    c.onLog((e) => log[e.level](e.root ? `${path.basename(e.root)}: ${e.message}` : e.message)),
    c.onCrash((e) => {
      hints.resend();
      log.error(e.message + (e.restartInMs !== undefined ? ` — restarting in ${e.restartInMs} ms` : ''));
      if (e.gaveUp) void vscode.window.showErrorMessage(`Fathom stopped: ${e.message}`, 'Show Log').then((a) => a && log.show());
    }),
  ];
}

/** Registers a command that is timed and whose failure (thrown or rejected) is logged. */
function commandRegistrar(timings: HostTimings, log: vscode.LogOutputChannel): (id: string, fn: (...args: never[]) => unknown) => vscode.Disposable {
  return (id, fn) =>
    vscode.commands.registerCommand(id, (...args: never[]) =>
      timings.timed(id, () => {
        try {
          const r = fn(...args);
          if (r instanceof Promise) r.catch((e: unknown) => log.error(`${id} failed: ${errText(e)}`));
        } catch (e) {
          log.error(`${id} failed: ${errText(e)}`);
        }
      }),
    );
}

/** The commands, the i18n features and the language model tools. */
function registerCommands({ c, log, timings, tracker, view, prompt, index, filesProvider, storeRoot, cacheDir, bundledModelPath }: Parts, context: vscode.ExtensionContext): vscode.Disposable[] {
  const command = commandRegistrar(timings, log);
  const folders = () => index.roots.map((root) => ({ root, name: index.folderName(root) ?? root }));
  return [
    command('fathom.quickSearch', () =>
      quickSearch({ client: c, roots: () => index.roots, k: () => Math.min(50, index.searchSettings.maxResults), rrfK: () => index.searchSettings.rrfK, log, folderName: (r) => index.folderName(r) }, selectedWord()),
    ),
    command('fathom.findSimilar', () => findSimilar({ client: c, folderOf: (u) => index.folderOf(u), show: (t, h) => view.showResults(t, h), log })),
    command('fathom.rebuildIndex', async () => {
      log.info('rebuilding every folder index from scratch');
      await index.restart(true);
    }),
    command('fathom.pause', () => c.pause()),
    command('fathom.resume', () => c.resume()),
    command('fathom.cancelIndexing', () => index.cancel()),
    command('fathom.showIndexedFiles', () => showIndexedFiles(c, folders(), filesProvider)),
    command('fathom.showLog', () => log.show()),
    command('fathom.statusMenu', () => statusMenu({ paused: !!tracker.status?.paused, indexing: tracker.indexing, keywordOnly: !tracker.status?.model, modelActions: !!tracker.model().modelActions })),
    command('fathom.downloadModel', () => prompt.run('download')),
    command('fathom.useLocalModel', () => prompt.run('local')),
    command('fathom.modelSettings', () => openModelSettings(log)),
    command('fathom.chunkActiveFile', () => chunkActiveFile(c, log)),
    registerI18n({ client: c, folderOf: (u) => index.folderOf(u), log, command }),
    registerI18nDiagnostics({ client: c, folderOf: (u) => index.folderOf(u), log, command }),
    registerLanguageModelTools({ client: c, roots: () => index.roots, log, extension: context, onFoldersChanged: vscode.workspace.onDidChangeWorkspaceFolders, storeRoot, modelPath: bundledModelPath, modelCache: cacheDir }),
  ];
}

/** A selected word (one line, short) seeds the quick pick's query. */
function selectedWord(): string {
  const e = vscode.window.activeTextEditor;
  if (!e || e.selection.isEmpty) return '';
  const t = e.document.getText(e.selection);
  return t.length <= 100 && !t.includes('\n') ? t : '';
}

async function chunkActiveFile(c: IndexClient, log: vscode.LogOutputChannel): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Fathom: open a file to see its chunks.');
    return;
  }
  const doc = editor.document;
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const rel = folder ? (relativeIn(folder.uri.fsPath, doc.uri.fsPath) ?? path.basename(doc.uri.fsPath)) : path.basename(doc.uri.fsPath);
  const config = vscode.workspace.getConfiguration('fathom.chunking', doc.uri);
  try {
    const result = await c.chunk(rel, doc.getText(), {
      maxTokens: config.get<number>('maxTokens'),
      maxFileBytes: (config.get<number>('maxFileSizeKB') ?? 512) * 1024,
    });
    log.info(`${rel}: ${result.chunks.length} chunk(s)${result.skipped ? `, skipped: ${result.skipped.reason} (${result.skipped.detail})` : ''}${result.fallback ? `, text fallback: ${result.fallback}` : ''}`);
    for (const w of result.warnings) log.warn(`${rel}: ${w}`);
    for (const ch of result.chunks) {
      log.info(`  ${ch.start.line}:${ch.start.column}-${ch.end.line}:${ch.end.column} ${ch.kind} ${ch.symbol ?? ''} (${ch.tokens} tokens)${ch.split ? ` [${ch.split.index + 1}/${ch.split.total}]` : ''}`);
    }
    log.show(true);
  } catch (err) {
    log.error(`${rel}: ${errText(err)}`);
    void vscode.window.showErrorMessage(`Fathom could not chunk ${rel}: ${errText(err)}`);
  }
}

export async function deactivate(): Promise<void> {
  await client?.dispose();
  client = undefined;
}
