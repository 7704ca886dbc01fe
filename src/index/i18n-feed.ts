/**
 * What the search index learns from a folder's i18n index (fed by whoever owns both: the CLI,
 * the worker's folder session). Plain Node; no import of src/i18n — the source is any object
 * with these three members (an `I18nIndex` has them).
 *
 * - `localeFiles`: locale files are folded and put after code for queries in words
 *   (diversify.ts); a component with messages of its own (a Vue SFC's `<i18n>` block) is not
 *   one: its message chunks are translations by their kind, its template and script are code.
 * - `textFor(chunk)`: the source-locale values of the i18n keys a code chunk uses, searchable
 *   with that chunk (not displayed): a template that renders `$t('user.sign_out')` holds no
 *   word of "Sign out", and now is found by it. A key is used when the i18n index found a usage
 *   of it inside the chunk (`$t`, `t`, `v-t`, `<i18n-t>` …), or when the chunk holds it as a
 *   string literal (`'$vuetify.close'`, a key handed to `t()` through a prop default); a
 *   literal's leading `$name.` segment may be a framework's namespace and is tried without it.
 */
import type { Chunk } from '../chunkers/types';
import { shownHash } from './rank/phrase';

export interface I18nSource {
  readonly localeFiles: readonly string[];
  /**
   * The locale files that are components holding messages of their own (a Vue SFC's `<i18n>`
   * block): their template and script are code — searchable with the text of the keys they
   * use, put with the code — and only their message chunks (kind `i18n-section`) count as
   * translations.
   */
  readonly componentFiles?: readonly string[];
  usagesIn(file: string): ReadonlyArray<{ key: string; namespace?: string; dynamic: boolean; range: { start: { offset: number }; end: { offset: number } } }>;
  keyValues(): Map<string, Array<{ locale: string; value: string }>>;
  /** Bumped by every change (an `I18nIndex` has it): the key texts are re-read when it moved. */
  readonly revision?: number;
}

export interface I18nFeed {
  localeFiles: ReadonlySet<string>;
  /** The searchable text for a chunk, or undefined when it uses no known key. */
  textFor(chunk: Chunk): string | undefined;
  /** Whether some locale holds `query` as a whole value (placeholders, case and spaces aside: `shownHash`). */
  holdsValue?(query: string): boolean;
}

/** Most characters of i18n text attached to one chunk. */
export const MAX_I18N_TEXT = 2000;

/**
 * The source locale: `en` when there is one, else the default messages (`und`: a Java bundle's
 * or a .resx's base file, Android's `values/` folder, which hold the developer's own language and
 * which a regional `en-GB` only adapts), else a regional English (`en-US`, `en_GB`), else the
 * locale with most values.
 */
export function sourceLocale(values: Map<string, Array<{ locale: string }>>): string | undefined {
  const count = new Map<string, number>();
  for (const list of values.values()) for (const v of list) count.set(v.locale, (count.get(v.locale) ?? 0) + 1);
  let best: string | undefined;
  let n = -1;
  for (const [l, c] of count) {
    const score = (l.toLowerCase() === 'en' ? 3e12 : l === 'und' ? 2e12 : /^en[-_]/i.test(l) ? 1e12 : 0) + c;
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
  /** Namespaced keys by their path alone (see `fresh`). */
  let bare = new Map<string, string>();
  let seen: number | undefined = NaN;
  /** Every locale's values by `shownHash`, made at the first `holdsValue` after a change. */
  let values: Set<number> | undefined;
  const fresh = () => {
    if (seen === source.revision) return;
    seen = source.revision;
    values = undefined;
    const components = new Set(source.componentFiles ?? []);
    localeFiles = new Set(source.localeFiles.filter((f) => !components.has(f)));
    const all = source.keyValues();
    const src = sourceLocale(all);
    text = new Map();
    bare = new Map();
    for (const [key, list] of all) {
      const v = list.find((x) => x.locale === src) ?? list[0];
      if (!v || !v.value.trim()) continue;
      text.set(key, v.value);
      // `ns:a.b` is also `a.b` for a usage that names no namespace (i18next's default
      // `translation` namespace: `public/locales/en/translation.json` and `t('a.b')`)
      const colon = key.indexOf(':');
      if (colon > 0) {
        const path = key.slice(colon + 1);
        const ns = key.slice(0, colon);
        if (!bare.has(path) || ns === 'translation') bare.set(path, v.value);
      }
    }
  };
  fresh();
  return {
    get localeFiles() {
      fresh();
      return localeFiles;
    },
    holdsValue(query: string): boolean {
      fresh();
      if (!values) {
        values = new Set();
        for (const list of source.keyValues().values()) for (const v of list) if (v.value.trim()) values.add(shownHash(v.value));
      }
      // a hash's rare false yes costs one search over the locale chunks, which finds nothing
      return query.trim().length > 0 && values.has(shownHash(query));
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
      const valueOf = (k: string) => text.get(k) ?? (k.includes(':') ? undefined : bare.get(k));
      if (chunk.text.includes('.')) {
        for (const m of chunk.text.matchAll(LITERAL)) {
          const lit = m[2];
          if (valueOf(lit) !== undefined) keys.add(lit);
          else if (lit.startsWith('$')) {
            const rest = lit.slice(lit.indexOf('.') + 1);
            if (valueOf(rest) !== undefined) keys.add(rest);
          }
        }
      }
      const out: string[] = [];
      let len = 0;
      for (const k of keys) {
        const v = valueOf(k);
        if (v === undefined || len + v.length > MAX_I18N_TEXT) continue;
        out.push(v);
        len += v.length + 1;
      }
      return out.length ? out.join('\n') : undefined;
    },
  };
}
