/**
 * The locale entries of a query that is a locale value. Plain Node.
 *
 * BM25's candidates (keyword-candidates.ts) are the best 200 by a score that counts no
 * coverage: yargs' en.json holds "Show version number" in three common words that hundreds of
 * symbols named show, version or number outscore, and the phrase tier (phrase.ts), which would
 * put it first, never sees it. When the i18n index holds the query as a value
 * (`I18nFeed.holdsValue`), a keyword search over the locale chunks alone finds the entries that
 * hold it as a value, and they join the keyword list second; diversify.ts then places the best
 * of them (its locales folded) at most second. The team index reads no i18n index and does not
 * do this.
 */
import { wholeValue } from './phrase';

/** Locale chunks a value query reads, and the most of them that join its keyword list. */
export const LOCALE_ENTRY_DEPTH = 20;
export const LOCALE_ENTRIES = 5;

/** What `withLocaleEntries` reads of an index. */
export interface LocaleEntrySource {
  /** The keyword search, over the chunks `filter` passes. */
  search(q: string, k: number, filter: (docId: number) => boolean): ReadonlyArray<{ docId: number; score: number }>;
  /** A chunk of a locale file (that the search's own filter passes). */
  isLocale(docId: number): boolean;
  text(docId: number): string | undefined;
}

/**
 * `ids` (a keyword list, best first, at most `depth`) with the locale entries that hold `q` as a
 * whole value and that it lacked joined second; `found` learns that the query was found as
 * written (no model then) and the entries' keyword scores.
 */
export function withLocaleEntries(q: string, ids: number[], depth: number, found: { phrase: boolean; scores?: Map<number, number> }, src: LocaleEntrySource): number[] {
  const whole = wholeValue(q);
  if (!whole) return ids;
  const have = new Set(ids);
  const add = src
    .search(q, LOCALE_ENTRY_DEPTH, (id) => src.isLocale(id))
    .filter((h) => !have.has(h.docId) && whole.test(src.text(h.docId) ?? ''))
    .slice(0, LOCALE_ENTRIES);
  if (!add.length) return ids;
  found.phrase = true;
  for (const h of add) found.scores?.set(h.docId, h.score);
  return [...ids.slice(0, 1), ...add.map((h) => h.docId), ...ids.slice(1)].slice(0, depth);
}
