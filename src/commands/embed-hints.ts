/**
 * Feeds the worker's embedding order: the visible editors and the recently edited files of each
 * folder go first (`prioritize`), so search by meaning helps where the user works while the
 * first index is still being embedded. Debounced; the logic is src/editor/hints.ts.
 */
import * as vscode from 'vscode';
import type { IndexClient } from '../service/client';
import { EmbedHints } from '../editor/hints';
import { errText } from '../util/errors';
import { relativeIn } from '../util/paths';

export function watchEmbedHints(env: {
  client: IndexClient;
  roots: () => string[];
  folderOf: (u: vscode.Uri) => { root: string } | undefined;
  log: (m: string) => void;
}): vscode.Disposable & { resend(): void; poke(): void } {
  const hints = new EmbedHints();
  let timer: NodeJS.Timeout | undefined;
  const relOf = (u: vscode.Uri): { root: string; rel: string } | undefined => {
    if (u.scheme !== 'file') return undefined;
    const f = env.folderOf(u);
    if (!f) return undefined;
    const rel = relativeIn(f.root, u.fsPath);
    return rel === undefined ? undefined : { root: f.root, rel };
  };
  const send = () => {
    timer = undefined;
    const active = vscode.window.activeTextEditor?.document.uri;
    const editors = [...(active ? [active] : []), ...vscode.window.visibleTextEditors.map((e) => e.document.uri)];
    const visible = editors.map(relOf).filter((v): v is { root: string; rel: string } => !!v);
    for (const c of hints.changes(env.roots(), visible)) {
      env.client.prioritize(c.root, c.paths).catch((e: unknown) => env.log(`could not send the embedding hint: ${errText(e)}`));
    }
  };
  const schedule = () => {
    if (!timer) timer = setTimeout(send, 500);
  };
  const touch = (u: vscode.Uri) => {
    const r = relOf(u);
    if (r) hints.touch(r.root, r.rel);
    schedule();
  };
  const subs = [
    vscode.window.onDidChangeActiveTextEditor((e) => (e ? touch(e.document.uri) : schedule())),
    vscode.window.onDidChangeVisibleTextEditors(() => schedule()),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length) touch(e.document.uri);
    }),
    vscode.workspace.onDidSaveTextDocument((d) => touch(d.uri)),
  ];
  schedule();
  return {
    poke: schedule,
    resend: () => {
      hints.resend();
      schedule();
    },
    dispose: () => {
      if (timer) clearTimeout(timer);
      for (const s of subs) s.dispose();
    },
  };
}
