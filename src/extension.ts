/**
 * The extension's entry: wiring only. Parsing happens in the worker thread (src/index/worker.ts).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { IndexClient } from './index/client';

let client: IndexClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Fathom', { log: true });
  client = new IndexClient(path.join(context.extensionPath, 'dist', 'worker.js'));
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand('fathom.chunkActiveFile', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || !client) {
        void vscode.window.showInformationMessage('Fathom: open a file to see its chunks.');
        return;
      }
      const doc = editor.document;
      const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
      const rel = folder ? path.relative(folder.uri.fsPath, doc.uri.fsPath).split(path.sep).join('/') : path.basename(doc.uri.fsPath);
      const config = vscode.workspace.getConfiguration('fathom.chunking', doc.uri);
      try {
        const result = await client.chunk(rel, doc.getText(), {
          maxTokens: config.get<number>('maxTokens'),
          maxFileBytes: (config.get<number>('maxFileSizeKB') ?? 200) * 1024,
        });
        log.info(`${rel}: ${result.chunks.length} chunk(s)${result.skipped ? `, skipped: ${result.skipped.reason} (${result.skipped.detail})` : ''}${result.fallback ? `, text fallback: ${result.fallback}` : ''}`);
        for (const w of result.warnings) log.warn(`${rel}: ${w}`);
        for (const c of result.chunks) {
          log.info(`  ${c.start.line}:${c.start.column}-${c.end.line}:${c.end.column} ${c.kind} ${c.symbol ?? ''} (${c.tokens} tokens)${c.split ? ` [${c.split.index + 1}/${c.split.total}]` : ''}`);
        }
        log.show(true);
      } catch (err) {
        log.error(`${rel}: ${err instanceof Error ? err.message : String(err)}`);
        void vscode.window.showErrorMessage(`Fathom could not chunk ${rel}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
    { dispose: () => void client?.dispose() },
  );
}

export async function deactivate(): Promise<void> {
  await client?.dispose();
  client = undefined;
}
