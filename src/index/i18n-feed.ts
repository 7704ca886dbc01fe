/**
 * What the search index learns from a folder's i18n index (fed by whoever owns both: the CLI,
 * the worker's folder session). Plain Node; no import of src/i18n — the source is any object
 * with these three members (an `I18nIndex` has them).
 *
 * - `localeFiles`: locale files are folded and put after code for queries in words
 *   (diversify.ts).
 * - `textFor(chunk)`: the source-locale values of the i18n keys a code chunk uses, searchable
 *   with that chunk (not displayed): a template that renders `$t('user.sign_out')` holds no
 *   word of "Sign out", and now is found by it. A key is used when the i18n index found a usage
 *   of it inside the chunk (`$t`, `t`, `v-t`, `<i18n-t>` …), or when the chunk holds it as a
 *   string literal (`'$vuetify.close'`, a key handed to `t()` through a prop default); a
 *   literal's leading `$name.` segment may be a framework's namespace and is tried without it.
 *   A key named without a namespace finds a namespaced one (`theme.x` → `theme-common:theme.x`,
 *   a Docusaurus plugin's file) when no file defines it without one.
 */
import type { Chunk } from '../chunkers/types';

export interface I18nSource {
  readonly localeFiles: readonly string[];
  usagesIn(file: string): ReadonlyArray<{ key: string; namespace?: string; dynamic: boolean; range: { start: { offset: number }; end: { offset: number } } }>;
  keyValues(): Map<string, Array<{ locale: string; value: string }>>;
  /** Bumped by every change (an `I18nIndex` has it): the key texts are re-read when it moved. */
  readonly revision?: number;
}

export interface I18nFeed {
  localeFiles: ReadonlySet<string>;
  /** The searchable text for a chunk, or undefined when it uses no known key. */
  textFor(chunk: Chunk): string | undefined;
}

/** Most characters of i18n text attached to one chunk. */
export const MAX_I18N_TEXT = 2000;

/** The source locale: English when there is one (`en`, `en-US`, `en_GB`), else the locale with most values. */
export function sourceLocale(values: Map<string, Array<{ locale: string }>>): string | undefined {
  const count = new Map<string, number>();
  for (const list of values.values()) for (const v of list) count.set(v.locale, (count.get(v.locale) ?? 0) + 1);
  let best: string | undefined;
  let n = -1;
  for (const [l, c] of count) {
    const score = (l.toLowerCase() === 'en' ? 2e12 : /^en[-_]/i.test(l) ? 1e12 : 0) + c;
    if (score > n) {
      n = score;
      best = l;
    }
  }
  return best;
}

const LITERAL = /(['"`])(\$?[\w-]+(?:\.[\w$-]+)+)\1/g;

export function i18nFeed(source: I18nSource): I18nFeed {
  let localeFiles = new Set<string>();
  let text = new Map<string, string>();
  let seen: number | undefined = NaN;
  const fresh = () => {
    if (seen === source.revision) return;
    seen = source.revision;
    localeFiles = new Set(source.localeFiles);
    const all = source.keyValues();
    const src = sourceLocale(all);
    text = new Map();
    const bare = new Map<string, string>();
    for (const [key, list] of all) {
      const v = list.find((x) => x.locale === src) ?? list[0];
      if (!v || !v.value.trim()) continue;
      text.set(key, v.value);
      const colon = key.indexOf(':');
      if (colon > 0 && !bare.has(key.slice(colon + 1))) bare.set(key.slice(colon + 1), v.value);
    }
    // a key used without its namespace (`translate({ id: 'theme.x' })` of a Docusaurus plugin's
    // `locales/<lang>/<plugin>.json`, i18next's default namespace): the first namespace's value
    for (const [key, v] of bare) if (!text.has(key)) text.set(key, v);
  };
  fresh();
  return {
    get localeFiles() {
      fresh();
      return localeFiles;
    },
    textFor(chunk: Chunk): string | undefined {
      fresh();
      if (text.size === 0 || localeFiles.has(chunk.path)) return undefined;
      const keys = new Set<string>();
      const s = chunk.start.offset;
      const e = chunk.end.offset;
      for (const u of source.usagesIn(chunk.path)) {
        if (u.dynamic || u.range.start.offset < s || u.range.end.offset > e) continue;
        keys.add(u.namespace ? `${u.namespace}:${u.key}` : u.key);
      }
      if (chunk.text.includes('.')) {
        for (const m of chunk.text.matchAll(LITERAL)) {
          const lit = m[2];
          if (text.has(lit)) keys.add(lit);
          else if (lit.startsWith('$')) {
            const rest = lit.slice(lit.indexOf('.') + 1);
            if (text.has(rest)) keys.add(rest);
          }
        }
      }
      const out: string[] = [];
      let len = 0;
      for (const k of keys) {
        const v = text.get(k);
        if (v === undefined || len + v.length > MAX_I18N_TEXT) continue;
        out.push(v);
        len += v.length + 1;
      }
      return out.length ? out.join('\n') : undefined;
    },
  };
}
