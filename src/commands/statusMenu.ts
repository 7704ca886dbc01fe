/** The status bar item's menu: pause/resume, cancel, rebuild, indexed files, log, and the model download. */
import * as vscode from 'vscode';

export interface StatusMenuState {
  paused: boolean;
  indexing: boolean;
  keywordOnly: boolean;
  downloadOff: boolean;
}

export async function statusMenu(state: StatusMenuState): Promise<void> {
  const items: Array<vscode.QuickPickItem & { command: string; args?: unknown[] }> = [];
  if (state.indexing || state.paused) items.push(state.paused ? { label: '$(debug-start) Resume Indexing', command: 'fathom.resume' } : { label: '$(debug-pause) Pause Indexing', command: 'fathom.pause' });
  if (state.indexing) items.push({ label: '$(close) Cancel Indexing', description: 'what is indexed stays searchable', command: 'fathom.cancelIndexing' });
  items.push({ label: '$(search) Search…', command: 'fathom.quickSearch' });
  items.push({ label: '$(refresh) Rebuild Index', description: 'from scratch', command: 'fathom.rebuildIndex' });
  items.push({ label: '$(list-flat) Show Indexed Files', description: 'with skipped files and why', command: 'fathom.showIndexedFiles' });
  items.push({ label: '$(output) Show Log', command: 'fathom.showLog' });
  if (state.keywordOnly && state.downloadOff && vscode.workspace.isTrusted) {
    items.push({ label: '$(cloud-download) Model Settings…', description: 'to search by meaning: allow the model download (about 23 MB, once) or set a local model folder', command: 'workbench.action.openSettings', args: ['fathom.model'] });
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'Fathom', placeHolder: 'What should Fathom do?' });
  if (pick) await vscode.commands.executeCommand(pick.command, ...(pick.args ?? []));
}
