/**
 * Opens a hit in an editor with the chunk's exact range selected and revealed. If the file
 * changed since it was indexed (the range no longer holds the chunk's text), the chunk's text
 * is looked for nearby and that range is used; failing that, the stored range.
 */
import * as vscode from 'vscode';
import type { WorkerHit } from '../service/protocol';

export function hitUri(hit: WorkerHit, folders: readonly vscode.WorkspaceFolder[] | undefined): vscode.Uri {
  const folder = folders?.find((f) => f.uri.scheme === 'file' && sameRoot(f.uri.fsPath, hit.root));
  const segments = hit.chunk.path.split('/');
  return folder ? vscode.Uri.joinPath(folder.uri, ...segments) : vscode.Uri.joinPath(vscode.Uri.file(hit.root), ...segments);
}

const sameRoot = (a: string, b: string) => a.replace(/[\\/]+$/, '').toLowerCase() === b.replace(/[\\/]+$/, '').toLowerCase();

export function rangeOf(hit: WorkerHit, doc?: vscode.TextDocument): vscode.Range {
  const c = hit.chunk;
  const stored = new vscode.Range(c.start.line - 1, c.start.column, c.end.line - 1, c.end.column);
  if (!doc || doc.getText(stored) === c.text) return stored;
  const text = doc.getText();
  const near = doc.offsetAt(stored.start);
  const after = text.indexOf(c.text, Math.max(0, near - 10_000));
  const before = text.lastIndexOf(c.text, near);
  const at = [after, before].filter((i) => i >= 0).sort((a, b) => Math.abs(a - near) - Math.abs(b - near))[0];
  return at === undefined ? stored : new vscode.Range(doc.positionAt(at), doc.positionAt(at + c.text.length));
}

export async function openHit(hit: WorkerHit, options: { preview: boolean; preserveFocus?: boolean }): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(hitUri(hit, vscode.workspace.workspaceFolders));
  const range = rangeOf(hit, doc);
  const editor = await vscode.window.showTextDocument(doc, { selection: range, preview: options.preview, preserveFocus: options.preserveFocus });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}
