/**
 * "Fathom: Find Similar": chunks like the selection, or like the chunk under the cursor;
 * results in the sidebar. Also in the editor's context menu.
 */
import * as vscode from 'vscode';
import type { IndexClient } from '../service/client';
import type { WorkerHit } from '../service/protocol';
import { errText } from '../util/errors';
import { relativeIn } from '../util/paths';

export interface FindSimilarDeps {
  client: IndexClient;
  folderOf(uri: vscode.Uri): { root: string; folder: vscode.WorkspaceFolder } | undefined;
  show(title: string, hits: WorkerHit[]): Promise<void>;
  log: vscode.LogOutputChannel;
}

export async function findSimilar(deps: FindSimilarDeps): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Fathom: put the cursor in a file (or select some text) to find similar code.');
    return;
  }
  const f = deps.folderOf(editor.document.uri);
  if (!f) {
    void vscode.window.showInformationMessage('Fathom: this file is not in an indexed workspace folder.');
    return;
  }
  const rel = relativeIn(f.root, editor.document.uri.fsPath);
  if (rel === undefined) {
    void vscode.window.showInformationMessage('Fathom: this file is not in an indexed workspace folder.');
    return;
  }
  const sel = editor.selection;
  const text = sel.isEmpty ? '' : editor.document.getText(sel);
  // a selection: its own lines are left out of the results (the chunk it came from is no answer)
  const target = text.trim() ? { text, path: rel, startLine: sel.start.line + 1, endLine: sel.end.line + 1 } : { path: rel, line: sel.active.line + 1 };
  const where = text.trim() ? `the selection in ${rel}:${sel.start.line + 1}` : `${rel}:${sel.active.line + 1}`;
  try {
    const hits = await deps.client.similar(f.root, target, { k: 30 });
    deps.log.info(`find similar to ${where}: ${hits.length} result(s)`);
    await deps.show(`Similar to ${where}`, hits);
  } catch (e) {
    deps.log.error(`find similar failed: ${errText(e)}`);
    void vscode.window.showErrorMessage(`Fathom could not find similar code: ${errText(e)}`);
  }
}
