/** The status bar item's menu: pause/resume, cancel, rebuild, indexed files, log, and the model (download, a local folder, its settings). */
import * as vscode from 'vscode';

export interface StatusMenuState {
  paused: boolean;
  indexing: boolean;
  keywordOnly: boolean;
  /** The model is missing: offer the download and a local folder. */
  modelActions: boolean;
}

export async function statusMenu(state: StatusMenuState): Promise<void> {
  const items: Array<vscode.QuickPickItem & { command: string; args?: unknown[] }> = [];
  if (state.indexing || state.paused) items.push(state.paused ? { label: '$(debug-start) Resume Indexing', command: 'fathom.resume' } : { label: '$(debug-pause) Pause Indexing', command: 'fathom.pause' });
  if (state.indexing) items.push({ label: '$(close) Cancel Indexing', description: 'what is indexed stays searchable', command: 'fathom.cancelIndexing' });
  if (state.modelActions) {
    items.push({ label: '$(cloud-download) Download the Model', description: 'about 23 MB, once: search by meaning', command: 'fathom.downloadModel' });
    items.push({ label: '$(folder-opened) Use a Local Model Folder…', description: 'config.json, tokenizer.json, onnx/model_quantized.onnx', command: 'fathom.useLocalModel' });
  }
  items.push({ label: '$(search) Search…', command: 'fathom.quickSearch' });
  items.push({ label: '$(refresh) Rebuild Index', description: 'from scratch', command: 'fathom.rebuildIndex' });
  items.push({ label: '$(list-flat) Show Indexed Files', description: 'with skipped files and why', command: 'fathom.showIndexedFiles' });
  items.push({ label: '$(output) Show Log', command: 'fathom.showLog' });
  items.push({ label: '$(settings-gear) Model Settings…', description: state.keywordOnly ? 'to search by meaning: a local model folder, or allow the download' : 'the embedding model, its folder, threads', command: 'fathom.modelSettings' });
  const pick = await vscode.window.showQuickPick(items, { title: 'Fathom', placeHolder: 'What should Fathom do?' });
  if (pick) await vscode.commands.executeCommand(pick.command, ...(pick.args ?? []));
}
