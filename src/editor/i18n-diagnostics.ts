/**
 * The editor's i18n diagnostics, as pure logic (no `vscode`): which documents are worth asking
 * the worker about, and what each diagnostic and its quick fix say. src/commands/i18n-diagnostics.ts
 * only asks, maps and shows.
 */
import { isLocaleFileName } from '../i18n/formats/index';
import type { I18nDiagnostic } from '../i18n/types';
import type { JumpTarget } from './i18n';

/** Files whose diagnostics are asked for: code of the frameworks Fathom reads usages of, and locale files (`isLocaleFileName`, as the session picks them). */
const CODE = /\.(?:[cm]?[jt]sx?|vue|svelte|html?|hbs|handlebars|php|erb|haml|slim|rb|dart|xml|py|jinja2?|java|kt|kts|scala|groovy|jspx?|tag|swift|mm?|cs|vb|cshtml|razor|xaml|rs|cpp|cc|cxx|h|hpp|qml|go|tmpl|gotmpl|gohtml)$/i;
/** A cheap look at the text: no translation-looking call, no usage to check (the worker parses). */
const MAYBE_USAGE =
  /\bt\s*\(|\$[_t]\b|translat|__\(|\b_\(|gettext|i18n|l10n|\.tr\b|\btr\s*\(|getMessage|getString|getText|GetString|keypath|i18nKey|\{\{\s*t\s|R\.(?:string|plurals|array)\.|@(?:string|plurals|array)\/|#\{|message\s*=\s*"\{|<(?:fmt|spring|s|bean):|Localized|localized|(?:[Ll]ocalizer|\b[LT])\[\s*["'@$]|Resources?\.|Strings\.|x:Static|x:Uid|\b(?:t|tr|fl)!\s*[([{]|qsTr|QT_TR|(?:oader|OADER)(?:\(\))?\.get|MessageID|\bT\s+["`]/;

/** The setting that turns the diagnostics off (`fathom.i18n.diagnostics.enabled`, default on), as `getConfiguration('fathom')` reads it. */
export const DIAGNOSTICS_SETTING = 'i18n.diagnostics.enabled';

/** The setting's value: on unless it is `false` (an ill-typed value keeps the default). */
export function diagnosticsEnabled(value: unknown): boolean {
  return value !== false;
}

export function wantsDiagnostics(fileName: string, text: string): boolean {
  if (isLocaleFileName(fileName)) return true;
  return CODE.test(fileName) && MAYBE_USAGE.test(text);
}

export interface DiagnosticView {
  /** 0-based line/character range. */
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
  message: string;
  /** `warning` for an undefined key (the app shows the raw key), `hint` for an unused one (shown faded). */
  severity: 'warning' | 'hint';
  code: 'i18n-undefined' | 'i18n-unused';
  /** The quick fix: open the source locale there. */
  fix?: { title: string; target: JumpTarget };
}

export function diagnosticView(d: I18nDiagnostic): DiagnosticView {
  const r = d.range;
  const view: DiagnosticView = {
    startLine: r.start.line - 1,
    startCharacter: r.start.column,
    endLine: r.end.line - 1,
    endCharacter: r.end.column,
    message: d.kind === 'undefined' ? `${d.message} (Fathom)` : `${d.message}: no code names it (Fathom)`,
    severity: d.kind === 'undefined' ? 'warning' : 'hint',
    code: d.kind === 'undefined' ? 'i18n-undefined' : 'i18n-unused',
  };
  if (d.source) {
    const title = d.kind === 'undefined' ? `Open the ${d.source.locale} locale where "${d.key}" belongs (${d.source.file})` : `Open "${d.key}" in the source locale (${d.source.locale})`;
    view.fix = { title, target: { file: d.source.file, range: d.source.range, what: `${d.source.locale} source of ${d.key}` } };
  }
  return view;
}
