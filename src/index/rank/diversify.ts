/**
 * Result diversification, after ranking and before the top k is cut. Plain Node.
 *
 * - **Locale folding.** The chunks of locale files (translations) that hold the same key
 *   section in different locales are one result: the best ranked one stands for all (it is the
 *   one that matched, or the source locale when the key matched alike), the others are
 *   attached to it (`folded`). With 40 locales, one key no longer fills the page.
 * - **Code first for a query in words.** Translations are natural language, so they match
 *   words better than the code that shows them; for a query of words the other locale results
 *   follow all the code results, and only one locale result keeps its place — the best one
 *   whose values include the query (`verbatim`) — so that a value typed verbatim still finds its
 *   locale file first, and locale files take at most one of the top places while there is code
 *   to show (none when the query is only words that a translation shares). A locale result
 *   whose value is the query is at most second (`VERBATIM_PLACE`): a value that many components
 *   show still finds its entry.
 * - **The pieces of one unit are one result.** A function, class or section over the chunk
 *   budget is cut into pieces that share its symbol (`Chunk.split`); the best ranked piece
 *   stands for the unit and the others are attached to it (`moreInFile`), so that one long
 *   function takes one place, not three (which piece is shown: pieces.ts `shownPiece`).
 * - **At most `perFile` chunks of one file** (default 3) among the results; the rest are attached
 *   to that file's best result (`moreInFile`), reachable as "more in this file".
 */

export interface Ranked {
  docId: number;
  path: string;
  /** The key section of a locale chunk (its symbol), used to fold locales. */
  symbol?: string;
  /** The chunk belongs to a locale file. */
  locale: boolean;
  /**
   * One of a locale chunk's values is the query (a value pasted in). Only then does the best
   * locale result keep its place ahead of code; `undefined` counts as true.
   */
  verbatim?: boolean;
  /** The same for every piece of one cut unit (path, kind, symbol), undefined for a whole chunk. */
  unit?: string;
}

export interface Diversified {
  docId: number;
  /** The same key section in other locale files, best first. */
  folded: number[];
  /** Chunks of the same file past the per-file cap, best first. */
  moreInFile: number[];
}

export interface DiversifyOptions {
  /** Most chunks of one file in the results (the rest go to `moreInFile`). Default 3; 0 = no cap. */
  perFile?: number;
  /** Put code before locale results (except the best locale result, which keeps its place). Default true. */
  codeFirst?: boolean;
  /** Fold locale chunks of one key section into one result. Default true. */
  foldLocales?: boolean;
}

export const DEFAULT_PER_FILE = 3;

/**
 * The latest place (0-based) of the best locale result when one of its values is the query
 * (`verbatim`): second. A value shown by five components ranked them all ahead of the entry
 * that holds it (each displays it whole), and the entry fell out of the first five; the one
 * result that is the text itself, in every locale (folded), now follows the best of them.
 */
export const VERBATIM_PLACE = 1;

/** `localeKey` of a locale chunk: its key section, the same in every locale (`en.json` and `de.json`). */
function localeKey(r: Ranked): string {
  return r.symbol && r.symbol.length > 0 ? r.symbol : `\0${r.path}`;
}

export function diversify(list: Ranked[], options: DiversifyOptions = {}): Diversified[] {
  const perFile = options.perFile ?? DEFAULT_PER_FILE;
  const fold = options.foldLocales !== false;
  // 1. fold the locales of one key section into its best result
  const groups = new Map<string, Diversified>();
  const kept: Array<{ r: Ranked; d: Diversified }> = [];
  for (const r of list) {
    if (fold && r.locale) {
      const key = localeKey(r);
      const g = groups.get(key);
      if (g) {
        g.folded.push(r.docId);
        continue;
      }
      const d: Diversified = { docId: r.docId, folded: [], moreInFile: [] };
      groups.set(key, d);
      kept.push({ r, d });
    } else kept.push({ r, d: { docId: r.docId, folded: [], moreInFile: [] } });
  }
  // 2. the pieces of one unit: the best ranked one stands for them all
  const units = new Map<string, Diversified>();
  const whole: Array<{ r: Ranked; d: Diversified }> = [];
  for (const x of kept) {
    if (x.r.unit === undefined) whole.push(x);
    else {
      const u = units.get(x.r.unit);
      if (u) u.moreInFile.push(x.d.docId, ...x.d.folded);
      else {
        units.set(x.r.unit, x.d);
        whole.push(x);
      }
    }
  }
  // 3. at most perFile chunks per file
  const byFile = new Map<string, { first: Diversified; n: number }>();
  const capped: Array<{ r: Ranked; d: Diversified }> = [];
  for (const x of whole) {
    const f = byFile.get(x.r.path);
    if (!f) {
      byFile.set(x.r.path, { first: x.d, n: 1 });
      capped.push(x);
    } else if (perFile > 0 && f.n >= perFile) {
      f.first.moreInFile.push(x.d.docId, ...x.d.folded, ...x.d.moreInFile);
    } else {
      f.n++;
      capped.push(x);
    }
  }
  if (options.codeFirst === false) return capped.map((x) => x.d);
  // 4. code first; the best locale result keeps its place
  const code = capped.filter((x) => !x.r.locale);
  const locale = capped.filter((x) => x.r.locale);
  if (code.length === 0 || locale.length === 0) return capped.map((x) => x.d);
  const out = code.map((x) => x.d);
  // the locale result that keeps a place among the code: the best one whose value is the query
  // (a catalog keyed by the English text holds it in every locale, as a value in one), else
  // the best one when its values were not tested (`verbatim` undefined)
  const lead = locale.find((x) => x.r.verbatim === true) ?? (locale[0].r.verbatim === undefined ? locale[0] : undefined);
  if (lead) {
    // a value pasted in: its locale entry is at most second, however many components show it
    // (the first result stays the best code: the component that displays it, when one does)
    const codeBefore = capped.indexOf(lead) - locale.indexOf(lead);
    out.splice(lead.r.verbatim === true ? Math.min(codeBefore, VERBATIM_PLACE) : codeBefore, 0, lead.d);
  }
  for (const x of locale) if (x !== lead) out.push(x.d);
  return out;
}
