/**
 * Reads Fathom's settings from VS Code: `inspect()` of each key handed to the pure
 * src/editor/settings.ts, which applies the workspace-trust rule (model settings from user
 * settings only in an untrusted workspace).
 */
import * as vscode from 'vscode';
import type { FileSelection } from '../workspace/files';
import { readSettings, selectionOf, type FathomSettings } from '../editor/settings';

export function readFathomSettings(scope?: vscode.Uri): FathomSettings {
  const cfg = vscode.workspace.getConfiguration('fathom', scope);
  return readSettings((key) => cfg.inspect(key), vscode.workspace.isTrusted);
}

/** The file selection of one folder: Fathom's include/exclude and the editor's excludes. */
export function folderSelection(folder: vscode.WorkspaceFolder): FileSelection {
  return selectionOf(readFathomSettings(folder.uri), vscode.workspace.getConfiguration('files', folder.uri).get('exclude'), vscode.workspace.getConfiguration('search', folder.uri).get('exclude'));
}
