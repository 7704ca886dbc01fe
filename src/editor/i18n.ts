/**
 * The editor side of i18n lookup, as plain data (no `vscode` here, so it is tested in plain
 * Node): a lookup answer (src/i18n/types.ts, computed in the worker) turned into the rows of
 * the answer picker, its title, the "nothing found" message, the jump targets with their
 * 0-based editor ranges, the input box's validation, and the markdown of a `$t('key')` hover.
 *
 * Everything a user sees here is workspace text (values, keys, file names): in markdown it is
 * escaped character by character, so a translation can neither format nor link anything.
 */
import type { Candidate, HoverResult, LocaleValue, LookupResult, TextRange } from '../i18n/types';

/** A place to open: a workspace-relative file and the exact range to select there. */
export interface JumpTarget {
  file: string;
  range: TextRange;
  /** What it is, for the log: `en value of search.empty`, `usage of search.empty`. */
  what: string;
}

/** A row of the answer picker: a candidate's header, a locale value / usage to jump to, or the folded other locales of a candidate. */
export type AnswerEntry =
  | { type: 'separator'; label: string }
  | { type: 'locale' | 'usage'; label: string; description: string; detail?: string; target: JumpTarget }
  | { type: 'more'; label: string; description: string; candidate: string };

/** Usages listed per candidate at most (the rest is counted in its header). */
export const MAX_USAGES = 30;
/** Other locales shown as rows before they are folded into one "N other locales" row. */
export const FOLD_OTHER_LOCALES = 3;
/** Longest value shown in a row before it is cut with `…`. */
const MAX_VALUE = 100;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
export const clip = (s: string, n = MAX_VALUE): string => {
  const t = oneLine(s);
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/** `exact`, `fuzzy 82%`: how a candidate matched, as a row shows it. */
export function matchLabel(c: Candidate): string {
  if (c.match === 'exact' || c.match === 'key') return c.match;
  return `${c.match} ${Math.round(c.score * 100)}%`;
}

function whereOf(c: Candidate): string {
  const parts: string[] = [];
  if (c.component) parts.push(`in ${c.component}`);
  else if (c.app) parts.push(`app ${c.app}`);
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

const lineOf = (file: string, r: TextRange) => `${file}:${r.start.line}`;

/** A candidate's identity, stable across one answer: what a folded row names. */
export const candidateKey = (c: Candidate): string => `${c.app}\u0000${c.component ?? ''}\u0000${c.key}`;

const langOf = (locale: string) => locale.toLowerCase().split('-')[0];

/**
 * A candidate's locales in the order a reader wants them: the matched one, then the source
 * locale(s) — `prefer`, by default English (the usual source language) — then the rest by
 * locale. `first` is how many of them lead (matched and preferred); the rest are "other".
 */
export function orderLocales(c: Pick<Candidate, 'locales' | 'matched'>, prefer: readonly string[] = ['en']): { ordered: LocaleValue[]; first: number } {
  const isMatched = (l: LocaleValue) => !!c.matched && c.matched.locale === l.locale && c.matched.file === l.file;
  const pref = (l: LocaleValue) => {
    const i = prefer.findIndex((p) => p.toLowerCase() === l.locale.toLowerCase());
    if (i >= 0) return i;
    const j = prefer.findIndex((p) => langOf(p) === langOf(l.locale));
    return j >= 0 ? prefer.length + j : -1;
  };
  const matched = c.locales.filter(isMatched);
  const preferred = c.locales.filter((l) => !isMatched(l) && pref(l) >= 0).sort((a, b) => pref(a) - pref(b));
  const rest = c.locales.filter((l) => !isMatched(l) && pref(l) < 0);
  return { ordered: [...matched, ...preferred, ...rest], first: matched.length + preferred.length };
}

export interface AnswerOptions {
  maxUsages?: number;
  /** Source locales, first one first (default `['en']`); the editor's language may follow. */
  prefer?: readonly string[];
  /** Candidates (by `candidateKey`) whose other locales are unfolded. */
  expanded?: ReadonlySet<string>;
}

/**
 * The picker's rows, best candidate first: a header per candidate (match kind, key path),
 * then the matched locale's value and the source locale's, then its usages, then the other
 * locales — folded into one row when there are more than `FOLD_OTHER_LOCALES` (choosing it
 * unfolds them). Each value or usage row is a jump to the exact range.
 */
export function answerEntries(result: LookupResult, options: AnswerOptions | number = {}): AnswerEntry[] {
  const o: AnswerOptions = typeof options === 'number' ? { maxUsages: options } : options;
  const maxUsages = o.maxUsages ?? MAX_USAGES;
  const out: AnswerEntry[] = [];
  for (const c of result.candidates) {
    const shown = c.usages.slice(0, maxUsages);
    const usageCount = c.usages.length ? ` · ${c.usages.length} usage${c.usages.length === 1 ? '' : 's'}${shown.length < c.usages.length ? ` (${shown.length} shown)` : ''}` : ' · no usages';
    out.push({ type: 'separator', label: `${matchLabel(c)} · ${c.key}${whereOf(c)}${usageCount}` });
    const localeRow = (l: LocaleValue): AnswerEntry => {
      const matched = c.matched && c.matched.locale === l.locale && c.matched.file === l.file;
      return {
        type: 'locale',
        label: `$(globe) ${l.locale}: ${clip(l.value)}`,
        description: `${matched ? 'matched · ' : ''}${lineOf(l.file, l.range)}`,
        target: { file: l.file, range: l.range, what: `${l.locale} value of ${c.key}` },
      };
    };
    const { ordered, first } = orderLocales(c, o.prefer);
    for (const l of ordered.slice(0, first)) out.push(localeRow(l));
    for (const u of shown) {
      out.push({
        type: 'usage',
        label: `$(references) ${lineOf(u.file, u.range)}`,
        description: u.dynamic ? `${u.via} with a dynamic key starting ${u.key}` : `${u.via} ${u.key}`,
        target: { file: u.file, range: u.range, what: `usage of ${c.key}` },
      });
    }
    const others = ordered.slice(first);
    if (others.length > FOLD_OTHER_LOCALES && !o.expanded?.has(candidateKey(c))) {
      const names = others.map((l) => l.locale);
      out.push({
        type: 'more',
        label: `$(chevron-right) ${others.length} other locales`,
        description: clip(names.join(', '), 80),
        candidate: candidateKey(c),
      });
    } else for (const l of others) out.push(localeRow(l));
  }
  return out;
}

/** The picker's title: what was looked up and, clearly, whether exactly one key holds it. */
export function answerTitle(looked: string, result: LookupResult): string {
  const q = `“${clip(looked, 60)}”`;
  const keys = result.candidates.filter((c) => c.match === 'key');
  if (keys.length) {
    const named = keys.filter((c) => c.key === looked.trim() || c.path === looked.trim());
    if (named.length === 1) return `${q} is ${named[0].key} (the only key of that name)`;
    if (!named.length) return `${q}: ${keys.length} key${keys.length === 1 ? '' : 's'} under it`;
  }
  const exact = result.candidates.filter((c) => c.match === 'exact' || c.match === 'key');
  if (exact.length === 1) return `${q} is ${exact[0].key} (the only exact match)`;
  if (exact.length > 1) return `${q}: ${exact.length} keys hold it exactly`;
  const n = result.candidates.length;
  return `${q}: no exact match; ${n} close candidate${n === 1 ? '' : 's'}, best first`;
}

/** The information message when nothing matches: one short sentence naming what was looked up (the why is in `nothingFoundDetails`, for the log). */
export function nothingFoundMessage(looked: string): string {
  return `Fathom: no i18n key holds “${clip(looked, 80)}” in any locale.`;
}

/** Why nothing matched beyond the lexical lookup, for the log: why semantic matching did not run, and locale file problems. */
export function nothingFoundDetails(looked: string, result: LookupResult): string[] {
  const out: string[] = [];
  if (result.semanticUnavailable) out.push(`i18n: “${clip(looked, 80)}”: no exact, normalized or fuzzy match; semantic matching did not run: ${oneLine(result.semanticUnavailable).replace(/[.:\s]*semantic matching is unavailable$/, '').replace(/[.\s]+$/, '')}`);
  if (result.problems.length) out.push(`i18n: ${result.problems.length} locale file problem(s) may hide a key (listed above)`);
  return out;
}

/** A target's range as the editor wants it: lines 0-based (Fathom's are 1-based), columns as is. */
export function editorRange(r: TextRange): { startLine: number; startCharacter: number; endLine: number; endCharacter: number } {
  return { startLine: r.start.line - 1, startCharacter: r.start.column, endLine: r.end.line - 1, endCharacter: r.end.column };
}

/** The log line of a jump (1-based lines, 0-based columns, as everywhere in Fathom). */
export function jumpLogLine(t: JumpTarget): string {
  const r = t.range;
  return `i18n: opened ${t.file} ${r.start.line}:${r.start.column}-${r.end.line}:${r.end.column} (${t.what})`;
}

/** Longest text the input box accepts (locale values are sentences, not documents). */
export const MAX_LOOKUP_LENGTH = 500;

/** The input box's validation: undefined when the text can be looked up, else why not. */
export function validateLookupInput(text: string): string | undefined {
  if (!text.trim()) return 'Type the text of a translation (or a key such as app.title).';
  if (text.length > MAX_LOOKUP_LENGTH) return `At most ${MAX_LOOKUP_LENGTH} characters (this is ${text.length}).`;
  return undefined;
}

/** `app.title`, `common:save`, `errors.404.title`: text that is worth a key lookup too. */
export function looksLikeKey(text: string): boolean {
  return /^(?:[\w-]+:)?[\w-]+(?:\.[\w-]+)+$/.test(text.trim()) || /^[\w-]+:[\w.-]+$/.test(text.trim());
}

const candidateId = candidateKey;

/** A key lookup's candidates first, then the string lookup's that are not the same key group. */
export function mergeLookups(byKey: LookupResult, byString: LookupResult): LookupResult {
  const seen = new Set(byKey.candidates.map(candidateId));
  const problems = [...byKey.problems];
  const known = new Set(problems.map((p) => `${p.kind}\u0000${p.file}\u0000${p.line ?? ''}\u0000${p.message}`));
  for (const p of byString.problems) if (!known.has(`${p.kind}\u0000${p.file}\u0000${p.line ?? ''}\u0000${p.message}`)) problems.push(p);
  return {
    candidates: [...byKey.candidates, ...byString.candidates.filter((c) => !seen.has(candidateId(c)))],
    problems,
    semanticUnavailable: byKey.candidates.length ? undefined : byString.semanticUnavailable,
  };
}

const CORE_EXT = /\.(?:vue|[cm]?[jt]sx?|json[c5]?)$/i;

/**
 * The language the worker's `stringAt` should parse a document as: the file name when its
 * extension is one the core knows (a `.vue` file is `plaintext` in an editor without a Vue
 * extension), else the editor's language id.
 */
export function languageFor(languageId: string, fileName: string): string {
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
  return CORE_EXT.test(base) ? base : languageId;
}

/** Every ASCII punctuation character backslash-escaped (CommonMark allows it), newlines as spaces. */
export function escapeMarkdown(s: string): string {
  return oneLine(s).replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/**
 * A `command:` link for markdown: the arguments as a JSON array in the query, URI-encoded
 * (parentheses and quotes too, which `encodeURIComponent` keeps and a markdown link would not).
 */
export function commandUri(command: string, args: unknown[]): string {
  const q = encodeURIComponent(JSON.stringify(args)).replace(/[()'!*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `command:${command}?${q}`;
}

/** Keys shown in one hover at most (a dynamic `$t(\`x.${y}\`)` may name many). */
export const MAX_HOVER_KEYS = 5;
/** Locale rows of one key in a hover; the others are one row of links. */
export const MAX_HOVER_LOCALES = 6;

/**
 * A `$t('key')` hover: the key, then a table locale → value, each locale a link (built by
 * `link`, e.g. a `command:` URI) to its value in the locale file — the source locales first
 * (`prefer`), at most `MAX_HOVER_LOCALES` rows, the other locales one row of links. A missing
 * key says so.
 */
export function hoverMarkdown(h: HoverResult, link: (t: JumpTarget) => string, prefer: readonly string[] = ['en']): string {
  const u = h.usage;
  const via = escapeMarkdown(u.via);
  if (h.missing || !h.candidates.length) {
    return u.dynamic
      ? `**${escapeMarkdown(u.key)}…** (${via}, dynamic key): no key starts with it in any locale`
      : `**${escapeMarkdown(u.key)}** (${via}): no locale defines this key`;
  }
  const parts: string[] = [];
  if (u.dynamic) parts.push(`${via} with a dynamic key starting **${escapeMarkdown(u.key)}**: ${h.candidates.length} key${h.candidates.length === 1 ? '' : 's'}`);
  for (const c of h.candidates.slice(0, MAX_HOVER_KEYS)) {
    const target = (l: LocaleValue): JumpTarget => ({ file: l.file, range: l.range, what: `${l.locale} value of ${c.key}` });
    const { ordered, first } = orderLocales(c, prefer);
    // keep the table short: the source locales, then others up to the cap (all of them if only one would be left over)
    const cap = ordered.length <= MAX_HOVER_LOCALES + 1 ? ordered.length : Math.max(first, MAX_HOVER_LOCALES);
    const rows = ordered.slice(0, cap).map((l) => `| [${escapeMarkdown(l.locale)}](${link(target(l))} "${escapeMarkdown(l.file)}:${l.range.start.line}") | ${escapeMarkdown(clip(l.value, 200)) || '*(empty)*'} |`);
    const rest = ordered.slice(cap);
    if (rest.length) rows.push(`| *${rest.length} more* | ${rest.map((l) => `[${escapeMarkdown(l.locale)}](${link(target(l))} "${escapeMarkdown(clip(l.value, 80))}")`).join(' ')} |`);
    const head = `**${escapeMarkdown(c.key)}**${u.dynamic ? '' : ` (${via})`}${c.component ? ` · in ${escapeMarkdown(c.component)}` : ''}`;
    parts.push([head, '', '| locale | value |', '| --- | --- |', ...rows].join('\n'));
  }
  if (h.candidates.length > MAX_HOVER_KEYS) parts.push(`… and ${h.candidates.length - MAX_HOVER_KEYS} more`);
  return parts.join('\n\n');
}
