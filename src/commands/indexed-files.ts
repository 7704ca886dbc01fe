/**
 * "Fathom: Show Indexed Files": a read-only Markdown document (scheme `fathom-files`) listing
 * every folder's indexed files and the skipped ones with their reasons (src/editor/files-report.ts).
 */
import * as vscode from 'vscode';
import type { IndexClient } from '../service/client';
import { filesReport } from '../editor/files-report';
import { errText } from '../util/errors';

export const FILES_SCHEME = 'fathom-files';

export class IndexedFilesProvider implements vscode.TextDocumentContentProvider {
  private content = '';
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  provideTextDocumentContent(): string {
    return this.content;
  }
  set(uri: vscode.Uri, content: string): void {
    this.content = content;
    this.changed.fire(uri);
  }
}

export async function showIndexedFiles(client: IndexClient, folders: Array<{ root: string; name: string }>, provider: IndexedFilesProvider): Promise<void> {
  const parts = await Promise.all(
    folders.map(async (f) => {
      try {
        return { ...f, files: await client.files(f.root) };
      } catch (e) {
        return { ...f, error: errText(e) };
      }
    }),
  );
  const uri = vscode.Uri.from({ scheme: FILES_SCHEME, path: '/Fathom indexed files.md' });
  provider.set(uri, folders.length ? filesReport(parts) : '# Fathom: indexed files\n\nNo folder on disk is open.\n');
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: false });
}
