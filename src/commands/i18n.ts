/**
 * i18n in the editor (issue 5's UI): "Where is this string defined?" (editor context menu and
 * palette) on the selection, or on the string literal / template text under the cursor;
 * "Fathom: Find i18n Key" on text from an input box; a hover on `$t('key')` calls showing
 * the translations. The worker does all parsing and matching (the `i18n` request: the string
 * under the cursor is found there too, from the document's text and offset); this file only
 * asks and shows. Rows, titles, ranges and markdown come from src/editor/i18n.ts.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CancelledError, type IndexClient } from '../service/client';
import type { LookupResult } from '../i18n/types';
import {
  answerEntries,
  answerTitle,
  candidateKey,
  commandUri,
  editorRange,
  hoverMarkdown,
  jumpLogLine,
  languageFor,
  looksLikeKey,
  MAX_LOOKUP_LENGTH,
  mergeLookups,
  nothingFoundDetails,
  nothingFoundMessage,
  validateLookupInput,
  type JumpTarget,
} from '../editor/i18n';
import { errText } from '../util/errors';
import { relativeIn, toPosix } from '../util/paths';

export const WHERE_DEFINED_COMMAND = 'fathom.whereDefined';
export const FIND_KEY_COMMAND = 'fathom.findI18nKey';
/** Internal (hover links): opens `[root, target]`. The only command a hover may run. */
export const OPEN_TARGET_COMMAND = 'fathom.openI18nTarget';

export interface I18nDeps {
  client: IndexClient;
  folderOf(uri: vscode.Uri): { root: string; folder: vscode.WorkspaceFolder } | undefined;
  log: vscode.LogOutputChannel;
  /** Registers a command with the extension's error logging and timing. */
  command(id: string, fn: (...args: never[]) => unknown): vscode.Disposable;
}


/** Candidates asked of the worker per lookup. */
const LIMIT = 10;

interface AnswerItem extends vscode.QuickPickItem {
  target?: JumpTarget;
  /** The "N other locales" row of a candidate: choosing it unfolds them. */
  more?: string;
}

/** The locales shown first after the matched one: English (the usual source language), then the editor's display language. */
function sourceLocales(): string[] {
  const ui = vscode.env.language;
  return ui && !/^en\b/i.test(ui) ? ['en', ui] : ['en'];
}

/** The folder (root on disk) of a document; also for a folder that is not indexed. */
/** The folder root of `uri`: an open folder's, else its workspace folder's on disk. */
export function rootOf(deps: I18nDeps, uri: vscode.Uri): string | undefined {
  const f = deps.folderOf(uri);
  if (f) return f.root;
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

const relOf = (root: string, uri: vscode.Uri) => relativeIn(root, uri.fsPath) ?? toPosix(path.relative(root, uri.fsPath));

/** Opens a target of `root` with its exact range selected and revealed; logs the range. */
export async function openTarget(root: string, t: JumpTarget, log: vscode.LogOutputChannel): Promise<void> {
  const abs = path.resolve(root, ...t.file.split('/'));
  if (relativeIn(root, abs) === undefined) throw new Error(`${t.file} is outside ${root}`);
  const uri = vscode.Uri.file(abs);
  const doc = await vscode.workspace.openTextDocument(uri);
  const r = editorRange(t.range);
  const range = new vscode.Range(r.startLine, r.startCharacter, r.endLine, r.endCharacter);
  const editor = await vscode.window.showTextDocument(doc, { selection: range, preview: false });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  log.info(jumpLogLine(t));
}

function logProblems(result: LookupResult, log: vscode.LogOutputChannel): void {
  for (const p of result.problems) log.warn(`i18n: ${p.file}${p.line ? `:${p.line}` : ''}: ${p.kind}: ${p.message}`);
}

/** The answer UI: a picker of the candidates' locale values and usages; choosing one opens it. */
async function showAnswer(root: string, looked: string, result: LookupResult, log: vscode.LogOutputChannel, ms: number): Promise<void> {
  logProblems(result, log);
  const best = result.candidates[0];
  log.info(`i18n: “${looked}”: ${result.candidates.length} candidate(s)${best ? `, best ${best.match} ${best.key}` : ''} (lookup ${Math.round(ms)} ms)`);
  if (!result.candidates.length) {
    const details = nothingFoundDetails(looked, result);
    for (const d of details) log.info(d);
    const more = details.length ? ['Show Log'] : [];
    void vscode.window.showInformationMessage(nothingFoundMessage(looked), ...more).then((a) => a && log.show());
    return;
  }
  const prefer = sourceLocales();
  const expanded = new Set<string>();
  const itemsOf = (): AnswerItem[] =>
    answerEntries(result, { prefer, expanded }).map((e) =>
      e.type === 'separator' ? { kind: vscode.QuickPickItemKind.Separator, label: e.label } : e.type === 'more' ? { label: e.label, description: e.description, more: e.candidate } : { label: e.label, description: e.description, target: e.target },
    );
  const qp = vscode.window.createQuickPick<AnswerItem>();
  qp.title = answerTitle(looked, result);
  qp.placeholder = 'Pick a locale value or a usage to open it (type to filter: a locale, a file)';
  qp.matchOnDescription = true;
  qp.items = itemsOf();
  // typing filters every row: the folded locales too
  qp.onDidChangeValue((v) => {
    if (!v.trim() || !qp.items.some((i) => i.more)) return;
    for (const c of result.candidates) expanded.add(candidateKey(c));
    qp.items = itemsOf();
  });
  qp.onDidAccept(() => {
    const more = qp.activeItems[0]?.more;
    if (more) {
      // unfold the other locales of that key, in place; the first of them becomes active
      const at = qp.items.findIndex((i) => i.more === more);
      expanded.add(more);
      qp.items = itemsOf();
      if (qp.items[at]) qp.activeItems = [qp.items[at]];
      return;
    }
    const t = qp.activeItems[0]?.target;
    if (!t) return;
    qp.hide();
    openTarget(root, t, log).catch((e: unknown) => {
      log.error(`i18n: could not open ${t.file}: ${errText(e)}`);
      void vscode.window.showErrorMessage(`Fathom could not open ${t.file}: ${errText(e)}`);
    });
  });
  qp.onDidHide(() => qp.dispose());
  qp.show();
}

function failed(what: string, e: unknown, log: vscode.LogOutputChannel): void {
  if (e instanceof CancelledError) return;
  log.error(`i18n: ${what} failed: ${errText(e)}`);
  void vscode.window.showErrorMessage(`Fathom could not look up ${what}: ${errText(e)}`, 'Show Log').then((a) => a && log.show());
}

/** One key (or the keys under a prefix), at most `LIMIT` of them. */
async function keyLookup(client: IndexClient, root: string, key: string, fromFile: string | undefined): Promise<LookupResult> {
  return (await client.i18n(root, { op: 'key', key: key.trim(), fromFile, limit: LIMIT })).result;
}

/** "Where is this string defined?": the selection, else the string under the cursor. */
export async function whereDefined(deps: I18nDeps): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Fathom: put the cursor on a string (or select some text) to find its i18n key.');
    return;
  }
  const doc = editor.document;
  const root = rootOf(deps, doc.uri);
  if (!root) {
    void vscode.window.showInformationMessage('Fathom: this file is not in a workspace folder on disk, so there are no locale files to look in.');
    return;
  }
  const rel = relOf(root, doc.uri);
  const sel = editor.selection;
  const selection = sel.isEmpty ? undefined : { start: doc.offsetAt(sel.start), end: doc.offsetAt(sel.end) };
  if (selection && selection.end - selection.start > MAX_LOOKUP_LENGTH) {
    void vscode.window.showInformationMessage(`Fathom: select the text of one translation (at most ${MAX_LOOKUP_LENGTH} characters) to find its key.`);
    return;
  }
  const t0 = performance.now();
  try {
    const at = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Fathom: looking up the string' }, () =>
      deps.client.i18nAt(root, { file: rel, text: doc.getText(), language: languageFor(doc.languageId, doc.fileName), offset: doc.offsetAt(sel.active), selection }, { limit: LIMIT }),
    );
    if (!at.string) {
      deps.log.info(`i18n: no string at ${rel}:${sel.active.line + 1}:${sel.active.character}`);
      void vscode.window.showInformationMessage(`Fathom: no string literal or template text at ${rel}:${sel.active.line + 1} — put the cursor on one, or select the text.`);
      return;
    }
    const r = at.string.range;
    deps.log.info(`i18n: looking up the ${at.string.kind} at ${rel} ${r.start.line}:${r.start.column}-${r.end.line}:${r.end.column}`);
    // the argument of a `$t('a.b')` is a key, not a value: that key comes first
    const result = looksLikeKey(at.string.text) ? mergeLookups(await keyLookup(deps.client, root, at.string.text, rel), at.result) : at.result;
    await showAnswer(root, at.string.text, result, deps.log, performance.now() - t0);
  } catch (e) {
    failed(`the string at ${rel}:${sel.active.line + 1}`, e, deps.log);
  }
}

/** "Fathom: Find i18n Key": text (a translation, or a key) from an input box. */
export async function findI18nKey(deps: I18nDeps): Promise<void> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const root = (active && rootOf(deps, active)) ?? vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  if (!root) {
    void vscode.window.showInformationMessage('Fathom: open a workspace folder on disk to look up i18n keys.');
    return;
  }
  const sel = vscode.window.activeTextEditor?.selection;
  const seed = sel && !sel.isEmpty ? vscode.window.activeTextEditor?.document.getText(sel) ?? '' : '';
  const text = await vscode.window.showInputBox({
    title: 'Fathom: Find i18n Key',
    prompt: 'The text of a translation in any locale, or a key (app.title, common:save)',
    placeHolder: 'Text as the app shows it, in any language, or a key',
    value: seed.includes('\n') ? '' : seed,
    validateInput: validateLookupInput,
  });
  if (text === undefined || validateLookupInput(text)) return;
  const fromFile = active && active.scheme === 'file' ? relOf(root, active) : undefined;
  const t0 = performance.now();
  try {
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Fathom: looking up i18n keys' }, async () => {
      const byString = deps.client.i18nLookup(root, text, { fromFile, limit: LIMIT });
      if (!looksLikeKey(text)) return byString;
      const [k, s] = await Promise.all([keyLookup(deps.client, root, text, fromFile), byString]);
      return mergeLookups(k, s);
    });
    await showAnswer(root, text, result, deps.log, performance.now() - t0);
  } catch (e) {
    failed(`“${text}”`, e, deps.log);
  }
}

/** Hovering a `$t('key')` (also `v-t`, `<i18n-t keypath>` …): its translations, each a link to its line. */
export class I18nHoverProvider implements vscode.HoverProvider {
  constructor(private readonly deps: I18nDeps) {}

  async provideHover(doc: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    const root = rootOf(this.deps, doc.uri);
    if (!root) return undefined;
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      // the worker reads the file from disk unless the editor holds unsaved changes
      const h = await this.deps.client.i18nHover(root, relOf(root, doc.uri), doc.offsetAt(position), { text: doc.isDirty ? doc.getText() : undefined, signal: abort.signal });
      if (!h || token.isCancellationRequested) return undefined;
      const md = new vscode.MarkdownString(hoverMarkdown(h, (t) => commandUri(OPEN_TARGET_COMMAND, [root, t]), sourceLocales()));
      md.isTrusted = { enabledCommands: [OPEN_TARGET_COMMAND] };
      const r = editorRange(h.usage.range);
      return new vscode.Hover(md, new vscode.Range(r.startLine, r.startCharacter, r.endLine, r.endCharacter));
    } catch (e) {
      if (!(e instanceof CancelledError) && !abort.signal.aborted) this.deps.log.warn(`i18n hover failed: ${errText(e)}`);
      return undefined;
    } finally {
      sub.dispose();
    }
  }
}

/** The documents hovers are offered for: JS/TS (and JSX/TSX), and Vue files whatever their language id. */
const HOVER_SELECTOR: vscode.DocumentSelector = [
  ...['javascript', 'typescript', 'javascriptreact', 'typescriptreact', 'vue'].map((language) => ({ scheme: 'file', language })),
  { scheme: 'file', pattern: '**/*.vue' },
  // the other frameworks' usages (src/i18n/frameworks/): the worker finds the usage under the cursor
  { scheme: 'file', pattern: '**/*.{svelte,hbs,handlebars,html,php,erb,haml,slim,rb,dart,xml,py,jinja,jinja2,java,kt,kts,jsp,swift,m,mm,cs,vb,cshtml,razor,xaml,rs,cpp,cc,cxx,h,hpp,qml,go,tmpl,gotmpl,gohtml}' },
];

/** Everything above, registered; one line in src/extension.ts. */
export function registerI18n(deps: I18nDeps): vscode.Disposable {
  return vscode.Disposable.from(
    deps.command(WHERE_DEFINED_COMMAND, () => whereDefined(deps)),
    deps.command(FIND_KEY_COMMAND, () => findI18nKey(deps)),
    deps.command(OPEN_TARGET_COMMAND, (root: string, t: JumpTarget) => {
      if (typeof root !== 'string' || !t || typeof t.file !== 'string' || !t.range?.start || !t.range?.end) {
        deps.log.error(`${OPEN_TARGET_COMMAND}: bad arguments ${JSON.stringify([root, t])}`);
        return;
      }
      return openTarget(root, t, deps.log).catch((e: unknown) => {
        deps.log.error(`i18n: could not open ${t.file}: ${errText(e)}`);
        void vscode.window.showErrorMessage(`Fathom could not open ${t.file}: ${errText(e)}`);
      });
    }),
    vscode.languages.registerHoverProvider(HOVER_SELECTOR, new I18nHoverProvider(deps)),
  );
}
