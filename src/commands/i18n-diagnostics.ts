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
import { OPEN_TARGET_COMMAND, rootOf, type I18nDeps } from './i18n';
import { errText } from '../util/errors';
import { relativeIn } from '../util/paths';

const DEBOUNCE_MS = 500;

export function registerI18nDiagnostics(deps: I18nDeps): vscode.Disposable {
  const d = new DocumentDiagnostics(deps);
  const later = (doc: vscode.TextDocument) => d.later(doc);
  for (const doc of vscode.workspace.textDocuments) later(doc);
  return vscode.Disposable.from(
    d.collection,
    vscode.workspace.onDidOpenTextDocument(later),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    vscode.workspace.onDidSaveTextDocument(later),
    // the setting changed: every open document is asked again (or cleared)
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`fathom.${DIAGNOSTICS_SETTING}`)) for (const doc of vscode.workspace.textDocuments) void d.refresh(doc);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => d.close(doc)),
    vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, d.actions, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
    { dispose: () => d.dispose() },
  );
}

type Fix = { root: string; fix: NonNullable<DiagnosticView['fix']> };

/** The diagnostics of the open documents: asked of the worker (debounced per document), shown, and their quick fixes. */
class DocumentDiagnostics {
  readonly collection = vscode.languages.createDiagnosticCollection('fathom-i18n');
  private readonly fixes = new WeakMap<vscode.Diagnostic, Fix>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deps: I18nDeps) {}

  /** Asks for `doc`'s diagnostics after a pause (`DEBOUNCE_MS`; each change starts it again). */
  later(doc: vscode.TextDocument): void {
    const k = doc.uri.toString();
    clearTimeout(this.timers.get(k));
    this.timers.set(
      k,
      setTimeout(() => {
        this.timers.delete(k);
        void this.refresh(doc);
      }, DEBOUNCE_MS),
    );
  }

  /** Asks the worker for `doc`'s diagnostics and shows them; clears them when it wants none (off, not a file of a folder, no i18n in it). */
  async refresh(doc: vscode.TextDocument): Promise<void> {
    if (doc.uri.scheme !== 'file') return;
    const root = rootOf(this.deps, doc.uri);
    const text = doc.getText();
    const rel = root === undefined ? undefined : relativeIn(root, doc.uri.fsPath);
    if (!enabledFor(doc) || !root || rel === undefined || !wantsDiagnostics(doc.fileName, text)) {
      this.collection.delete(doc.uri);
      return;
    }
    try {
      const a = await this.deps.client.i18n(root, { op: 'diagnostics', file: rel, text: doc.isDirty ? text : undefined });
      if (a.op !== 'diagnostics') return;
      // turned off while the worker answered
      if (!enabledFor(doc)) return;
      this.collection.set(
        doc.uri,
        a.result.map((d) => this.toDiagnostic(diagnosticView(d), root)),
      );
    } catch (e) {
      if (e instanceof CancelledError) return;
      this.deps.log.warn(`i18n diagnostics of ${rel}: ${errText(e)}`);
    }
  }

  /** The editor's diagnostic of a view, its quick fix kept for `actions`. */
  private toDiagnostic(v: DiagnosticView, root: string): vscode.Diagnostic {
    const diag = new vscode.Diagnostic(new vscode.Range(v.startLine, v.startCharacter, v.endLine, v.endCharacter), v.message, v.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Hint);
    diag.source = 'Fathom';
    diag.code = v.code;
    if (v.severity === 'hint') diag.tags = [vscode.DiagnosticTag.Unnecessary];
    if (v.fix) this.fixes.set(diag, { root, fix: v.fix });
    return diag;
  }

  /** The quick fixes of this file's diagnostics: open the source locale there. */
  readonly actions: vscode.CodeActionProvider = {
    provideCodeActions: (_doc, _range, ctx) => {
      const out: vscode.CodeAction[] = [];
      for (const d of ctx.diagnostics) {
        const f = this.fixes.get(d);
        if (!f) continue;
        const action = new vscode.CodeAction(f.fix.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [d];
        action.command = { command: OPEN_TARGET_COMMAND, title: f.fix.title, arguments: [f.root, f.fix.target] };
        out.push(action);
      }
      return out;
    },
  };

  /** A closed document: no pending question, no diagnostics. */
  close(doc: vscode.TextDocument): void {
    clearTimeout(this.timers.get(doc.uri.toString()));
    this.collection.delete(doc.uri);
  }

  dispose(): void {
    this.timers.forEach((t) => clearTimeout(t));
  }
}

/** Is `fathom.i18n.diagnostics.enabled` on for the document's folder? */
const enabledFor = (doc: vscode.TextDocument) => diagnosticsEnabled(vscode.workspace.getConfiguration('fathom', doc.uri).get(DIAGNOSTICS_SETTING));

