/**
 * Key health: what i18n tools are run for in CI.
 *
 *   undefined  a static usage whose key no locale defines (the damaging direction: the app
 *              shows the raw key) — in its app, or among its component's own `<i18n>` messages;
 *              a key defined with plural suffixes (`items_one`, `items_other`) or as the parent
 *              of messages (`$tm('nav')`) is defined;
 *   unused     a key no usage names; a dynamic usage (`` $t(`status.${s}`) ``) uses every key
 *              under its static prefix, a linked message (`@:common.save`, Fluent `{ -brand }`,
 *              `$t(key)` nesting in i18next values) uses its target;
 *   missing    a key that some locales of its scope (app, or component) have and others lack
 *              (a regional locale, `fr-CA`, lacks it only when its language, `fr`, does too);
 *   only-in    a key the source locale of its scope lacks, which only some translations have
 *              (a leftover, or a key never written in the source language): one finding naming
 *              the locales that have it, never also reported missing or unused;
 *   identical  a value equal to the source locale's (left untranslated), for values with
 *              letters; the source locale is `en` when the scope has it, else the default
 *              messages `und` (see `sourceLocaleOf`), else an `en-*`, else the locale with the
 *              most values.
 * The template locale `und` (a POT file, a bundle's default `.properties`, Android's `values/`)
 * is never missing, and never said identical to another.
 */
import type { Candidate, LocaleValue, Usage } from './types';

export interface HealthFinding {
  kind: 'undefined' | 'unused' | 'missing' | 'only-in' | 'identical';
  /** Shown key (`ns:key` when namespaced). */
  key: string;
  app: string;
  component?: string;
  /** Where: the usage (undefined) or the key's value in the source locale (others). */
  file: string;
  line: number;
  column: number;
  /** undefined: how the key is named. */
  via?: string;
  /** missing: the locales without the key; only-in: the locales with it; identical: the locale whose value is the source's. */
  locales?: string[];
  /** identical: the value. */
  value?: string;
}

export interface HealthReport {
  findings: HealthFinding[];
  counts: Record<HealthFinding['kind'], number>;
  /** Source locale per scope (app or component), `''` for the root app. */
  sourceLocales: Record<string, string>;
  keys: number;
  usages: number;
}

/** What the index hands to the check: its key groups (as candidates, with usages) and the usages whose keys resolve to nothing. */
export interface HealthInput {
  groups: Candidate[];
  undefinedUsages: Usage[];
  usages: number;
  /** Keys named inside values (linked messages, Fluent references), by app. */
  referenced: Set<string>;
  /** The groups (indexes into `groups`) marked not to translate (`LocaleEntry.fixed`): never missing or identical. */
  fixed?: ReadonlySet<number>;
  /** The configured source locale (i18n Ally's `sourceLanguage`): the source of every scope that has it. */
  sourceLanguage?: string;
}

/**
 * The locale the others are checked against: `en` when there is one, else the default messages
 * (`und`: Android's `values/`, a neutral `.resx`, a base bundle, a POT's msgids: the developer's
 * own text, which a regional `values-en-rGB/` only adapts), else an `en-*`, else the locale with
 * most values. A configured `preferred` locale (i18n Ally's `sourceLanguage`) comes first where
 * the scope has it.
 */
export function sourceLocaleOf(counts: Map<string, number>, preferred?: string): string {
  if (preferred && counts.has(preferred)) return preferred;
  const list = [...counts.keys()].filter((l) => l !== 'und');
  if (list.includes('en')) return 'en';
  if (counts.has('und')) return 'und';
  const en = list.filter((l) => l.startsWith('en-')).sort();
  if (en.length) return en[0];
  return list.sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : 1))[0] ?? '';
}

const LETTERS = /\p{L}{2}/u;

export function checkHealth(input: HealthInput): HealthReport {
  const findings: HealthFinding[] = [];
  for (const u of input.undefinedUsages) {
    findings.push({ kind: 'undefined', key: u.namespace ? `${u.namespace}:${u.key}` : u.key, app: '', file: u.file, line: u.range.start.line, column: u.range.start.column + 1, via: u.via });
  }
  // scopes: app + component; their locales and source locale
  const scopeOf = (c: Candidate) => (c.component ? `component ${c.component}` : c.app);
  const perScope = new Map<string, Map<string, number>>();
  for (const c of input.groups) {
    const s = scopeOf(c);
    let m = perScope.get(s);
    if (!m) perScope.set(s, (m = new Map()));
    for (const l of c.locales) m.set(l.locale, (m.get(l.locale) ?? 0) + 1);
  }
  const sourceLocales: Record<string, string> = {};
  for (const [s, m] of perScope) sourceLocales[s] = sourceLocaleOf(m, input.sourceLanguage);
  const at = (l: LocaleValue) => ({ file: l.file, line: l.range.start.line, column: l.range.start.column + 1 });
  for (const [i, c] of input.groups.entries()) {
    const s = scopeOf(c);
    const src = sourceLocales[s];
    const shown = c.locales.find((l) => l.locale === src) ?? c.locales[0];
    if (!shown) continue;
    const base = { key: c.key, app: c.app, component: c.component };
    const have = new Set(c.locales.map((l) => l.locale));
    // not in the source locale: its own finding, once (it is not "missing" from the others, nor
    // worth a second line as unused)
    if (src && src !== 'und' && !have.has(src) && !have.has(src.split('-')[0]) && !c.locales.some((l) => l.locale.split('-')[0] === src)) {
      if (!input.fixed?.has(i)) findings.push({ kind: 'only-in', ...base, ...at(shown), locales: [...have].sort() });
      continue;
    }
    if (!c.usages.length && !input.referenced.has(c.key) && !input.referenced.has(c.path) && !/_\d+$/.test(c.path)) findings.push({ kind: 'unused', ...base, ...at(shown) });
    // a regional locale without the key shows its language's (`fr-CA` → `fr`: Android's, Java's
    // and i18next's fallback), which is no missing text
    const lacking = [...(perScope.get(s)?.keys() ?? [])].filter((l) => l !== 'und' && !have.has(l) && !have.has(l.split('-')[0])).sort();
    if (input.fixed?.has(i)) continue;
    if (lacking.length) findings.push({ kind: 'missing', ...base, ...at(shown), locales: lacking });
    const sv = c.locales.find((l) => l.locale === src)?.value.trim();
    if (sv && LETTERS.test(sv)) {
      for (const l of c.locales) {
        if (l.locale === src || l.locale === 'und' || l.value.trim() !== sv) continue;
        // `en-GB` repeating `en` is no untranslated text
        if (l.locale.split('-')[0] === src.split('-')[0]) continue;
        findings.push({ kind: 'identical', ...base, ...at(l), locales: [l.locale], value: l.value });
      }
    }
  }
  const order = { undefined: 0, missing: 1, 'only-in': 2, unused: 3, identical: 4 };
  findings.sort((a, b) => order[a.kind] - order[b.kind] || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  const counts = { undefined: 0, unused: 0, missing: 0, 'only-in': 0, identical: 0 };
  for (const f of findings) counts[f.kind]++;
  return { findings, counts, sourceLocales, keys: input.groups.length, usages: input.usages };
}

/**
 * The report as the CLI prints it: one line per finding, then a summary. `--json`: one object
 * per finding per line (`{"kind","key","file","line","column",…}`), then a `{"summary":…}` line.
 */
/** Control characters (newlines, tabs, ESC) as escapes: text from the workspace stays on its line. */
function visible(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

export function formatHealth(r: HealthReport, json: boolean): string {
  const out: string[] = [];
  for (const f of r.findings) {
    if (json) {
      out.push(JSON.stringify({ kind: f.kind, key: f.key, file: f.file, line: f.line, column: f.column, ...(f.app ? { app: f.app } : {}), ...(f.component ? { component: f.component } : {}), ...(f.via ? { via: f.via } : {}), ...(f.locales ? { locales: f.locales } : {}), ...(f.value !== undefined ? { value: f.value } : {}) }));
      continue;
    }
    // one finding, one line: a key, file or name holding a newline (`$t('a\nb')`) shows it escaped
    const where = `${visible(f.file)}:${f.line}:${f.column}`;
    const key = visible(f.key);
    if (f.kind === 'undefined') out.push(`undefined  ${where}  ${key}  (${visible(f.via ?? '')}: no locale defines it)`);
    else if (f.kind === 'missing') out.push(`missing    ${where}  ${key}  (not in ${f.locales!.map(visible).join(', ')})`);
    else if (f.kind === 'only-in') out.push(`only-in    ${where}  ${key}  (only in: ${f.locales!.map(visible).join(', ')}; not in the source locale)`);
    else if (f.kind === 'unused') out.push(`unused     ${where}  ${key}`);
    else out.push(`identical  ${where}  ${key}  (${visible(f.locales![0])} = source: ${visible(JSON.stringify(f.value))})`);
  }
  const c = r.counts;
  const src = [...new Set(Object.values(r.sourceLocales))].filter(Boolean).join(', ') || 'none';
  if (json) out.push(JSON.stringify({ summary: { ...c, keys: r.keys, usages: r.usages, sourceLocales: r.sourceLocales } }));
  else out.push(`${out.length ? '\n' : ''}${r.keys} keys, ${r.usages} usages: ${c.undefined} undefined, ${c.missing} missing, ${c.unused} unused, ${c.identical} identical to the source locale (${src})${c['only-in'] ? `; ${c['only-in']} only in some translations, not in the source locale` : ''}`);
  return `${out.join('\n')}\n`;
}

/** The exit code of `fathom i18n --check`: 1 when a key is used but undefined, missing in a locale, or absent from the source locale. */
export function healthExitCode(r: HealthReport): number {
  return r.counts.undefined || r.counts.missing || r.counts['only-in'] ? 1 : 0;
}
