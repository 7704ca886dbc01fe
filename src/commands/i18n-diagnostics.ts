/**
 * i18n diagnostics in the editor: a warning on a usage of a key no locale defines
 * (`$t('missing.key')`), a hint (faded) on a locale entry no code uses; each with a quick fix
 * that opens the source locale (the key's value there, or where the missing key belongs). The
 * worker computes them (the `i18n` request's `diagnostics` op, from the document's text when
 * unsaved); this file asks on open, edit (debounced) and save, and shows — unless
 * `fathom.i18n.diagnostics.enabled` is off for the document's folder (turning it off clears them).
 */
import * as vscode from 'vscode';
import { CancelledError } from '../service/client';
import { DIAGNOSTICS_SETTING, diagnosticsEnabled, diagnosticView, wantsDiagnostics, type DiagnosticView } from '../editor/i18n-diagnostics';
import { OPEN_TARGET_COMMAND, type I18nDeps } from './i18n';
import { errText } from '../util/errors';
import { relativeIn } from '../util/paths';

const DEBOUNCE_MS = 500;

export function registerI18nDiagnostics(deps: I18nDeps): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('fathom-i18n');
  const fixes = new WeakMap<vscode.Diagnostic, { root: string; fix: NonNullable<DiagnosticView['fix']> }>();
  const timers = new Map<string, NodeJS.Timeout>();
  const rootOf = (uri: vscode.Uri) => {
    const f = deps.folderOf(uri);
    if (f) return f.root;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
  };
  const refresh = async (doc: vscode.TextDocument) => {
    if (doc.uri.scheme !== 'file') return;
    const root = rootOf(doc.uri);
    const text = doc.getText();
    const rel = root === undefined ? undefined : relativeIn(root, doc.uri.fsPath);
    const enabled = diagnosticsEnabled(vscode.workspace.getConfiguration('fathom', doc.uri).get(DIAGNOSTICS_SETTING));
    if (!enabled || !root || rel === undefined || !wantsDiagnostics(doc.fileName, text)) {
      collection.delete(doc.uri);
      return;
    }
    try {
      const a = await deps.client.i18n(root, { op: 'diagnostics', file: rel, text: doc.isDirty ? text : undefined });
      if (a.op !== 'diagnostics') return;
      // turned off while the worker answered
      if (!diagnosticsEnabled(vscode.workspace.getConfiguration('fathom', doc.uri).get(DIAGNOSTICS_SETTING))) return;
      const list = a.result.map((d) => {
        const v = diagnosticView(d);
        const diag = new vscode.Diagnostic(new vscode.Range(v.startLine, v.startCharacter, v.endLine, v.endCharacter), v.message, v.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Hint);
        diag.source = 'Fathom';
        diag.code = v.code;
        if (v.severity === 'hint') diag.tags = [vscode.DiagnosticTag.Unnecessary];
        if (v.fix) fixes.set(diag, { root, fix: v.fix });
        return diag;
      });
      collection.set(doc.uri, list);
    } catch (e) {
      if (e instanceof CancelledError) return;
      deps.log.warn(`i18n diagnostics of ${rel}: ${errText(e)}`);
    }
  };
  const later = (doc: vscode.TextDocument) => {
    const k = doc.uri.toString();
    clearTimeout(timers.get(k));
    timers.set(
      k,
      setTimeout(() => {
        timers.delete(k);
        void refresh(doc);
      }, DEBOUNCE_MS),
    );
  };
  const actions: vscode.CodeActionProvider = {
    provideCodeActions(_doc, _range, ctx) {
      const out: vscode.CodeAction[] = [];
      for (const d of ctx.diagnostics) {
        const f = fixes.get(d);
        if (!f) continue;
        const action = new vscode.CodeAction(f.fix.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [d];
        action.command = { command: OPEN_TARGET_COMMAND, title: f.fix.title, arguments: [f.root, f.fix.target] };
        out.push(action);
      }
      return out;
    },
  };
  for (const doc of vscode.workspace.textDocuments) later(doc);
  return vscode.Disposable.from(
    collection,
    vscode.workspace.onDidOpenTextDocument(later),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    vscode.workspace.onDidSaveTextDocument(later),
    // the setting changed: every open document is asked again (or cleared)
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`fathom.${DIAGNOSTICS_SETTING}`)) for (const doc of vscode.workspace.textDocuments) void refresh(doc);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      clearTimeout(timers.get(doc.uri.toString()));
      collection.delete(doc.uri);
    }),
    vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, actions, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  );
}
