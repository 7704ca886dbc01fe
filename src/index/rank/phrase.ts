/**
 * The keyword ranking's order after BM25, shared by the local engine (engine.ts) and the team
 * index (pgstore.ts): term proximity, the phrase and shown-value tiers, and the tests for a
 * locale value the query is whole.
 */
import { SEARCH_TERMS_META } from '../../chunkers/types';

/** Where a chunk's searchable-not-displayed i18n text is kept (persisted with the chunk). */
export const I18N_TEXT_META = 'i18nText';

/**
 * A test for a locale text holding `query` as one whole value (case and runs of spaces aside):
 * quoted (`"Next page"`, `'Next page'`, a template's `>Next page<`) and not a key (no `:`
 * after it: yargs' and Laravel's catalogs are keyed by the English text, `"Show help": "Hilfe
 * anzeigen"`, and only en.json holds it as a value), or ending a `key: value` / `key = value`
 * line. Undefined for a query too long to be one.
 */
export function wholeValue(query: string): RegExp | undefined {
  const words = query.trim().split(/\s+/);
  if (!words[0] || query.length > 300) return undefined;
  const body = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  return new RegExp(`["'\`>]\\s*${body}\\s*["'\`<](?!\\s*:)|[:=][ \\t]*${body}[ \\t]*$`, 'im');
}

/** `needle` occurs in `hay` with no letter or digit right before or after it. */
export function containsWord(hay: string, needle: string): boolean {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = at > 0 ? hay[at - 1] : ' ';
    const after = at + needle.length < hay.length ? hay[at + needle.length] : ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

/** How deep in the keyword ranking the phrase and shown-value tiers look (`phraseFirst`): BM25's own candidate count. */
export const PHRASE_DEPTH = 200;

/** The weight of term proximity (see `proximityOrder`): a score grows by at most this share. */
export const PROXIMITY_WEIGHT = 0.3;

/**
 * Term proximity: the first `depth` keyword hits of a short query of words (2 to 6 distinct
 * words of 2+ letters) re-ordered by score × (1 + PROXIMITY_WEIGHT × closeness), closeness the
 * share of the words found in the chunk's text times how tightly the smallest stretch of text
 * holding all of them is packed (their lengths over its length; `getUserName` packs `user name`
 * tightly). The rest keep their order after them.
 */
export function proximityOrder(query: string, hits: ReadonlyArray<{ docId: number; score: number }>, depth: number, textOf: (id: number) => string | undefined): number[] {
  const ids = hits.map((h) => h.docId);
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])];
  if (words.length < 2 || words.length > 6 || query.length > 200) return ids;
  const n = Math.min(depth, hits.length);
  const scored: Array<{ id: number; s: number; at: number }> = [];
  for (let at = 0; at < n; at++) {
    const text = textOf(hits[at].docId)?.toLowerCase();
    let close = 0;
    if (text) {
      // each word's occurrences (at most 64), then the smallest window holding one of each found word
      const occ: Array<[number, number]> = [];
      let found = 0;
      let need = 0;
      for (let w = 0; w < words.length; w++) {
        let c = 0;
        for (let i = text.indexOf(words[w]); i >= 0 && c < 64; i = text.indexOf(words[w], i + 1), c++) occ.push([i, w]);
        if (c > 0) {
          found++;
          need += words[w].length;
        }
      }
      if (found >= 2) {
        occ.sort((a, b) => a[0] - b[0]);
        const count = new Array<number>(words.length).fill(0);
        let have = 0;
        let best = Infinity;
        for (let lo = 0, hi = 0; hi < occ.length; hi++) {
          if (count[occ[hi][1]]++ === 0) have++;
          while (have === found) {
            best = Math.min(best, occ[hi][0] + words[occ[hi][1]].length - occ[lo][0]);
            if (--count[occ[lo][1]] === 0) have--;
            lo++;
          }
        }
        close = ((found - 1) / (words.length - 1)) * Math.min(1, need / best);
      }
    }
    scored.push({ id: hits[at].docId, s: hits[at].score * (1 + PROXIMITY_WEIGHT * close), at });
  }
  scored.sort((a, b) => b.s - a.s || a.at - b.at);
  return scored.map((x) => x.id).concat(ids.slice(n));
}

/** What term proximity reads of a chunk: its text and the i18n text it shows (what the keyword index searched). */
export function proximityText(text: string | undefined, c: { meta?: Record<string, unknown> } | undefined): string | undefined {
  const shown = shownText(c);
  return shown ? `${text ?? ''}\n${shown}` : text;
}

/** A displayed string as compared with a query: placeholders (`{0}`, `{name}`, `{{n}}`, `%s`, `%1$d`) out, spaces collapsed, lower case. */
export function shownForm(s: string): string {
  return s
    .replace(/\{\{[^{}]{0,40}\}\}|\{[^{}]{0,40}\}|%(?:\d+\$)?[sdif@]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * The end (exclusive) of a placeholder at `i` as `shownForm` drops it: `{{name}}`, `{0}`,
 * `{count}` (at most 40 characters inside, no brace), `%s`, `%1$d`; −1 when none starts there.
 */
function placeholderEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 123) {
    const double = s.charCodeAt(i + 1) === 123;
    const from = i + (double ? 2 : 1);
    for (let j = from; j < s.length && j - from <= 40; j++) {
      const d = s.charCodeAt(j);
      if (d === 123) return -1;
      if (d === 125) {
        if (!double) return j + 1;
        return s.charCodeAt(j + 1) === 125 ? j + 2 : -1;
      }
    }
    return -1;
  }
  if (c === 37) {
    let j = i + 1;
    while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
    if (j > i + 1) {
      if (s.charCodeAt(j) !== 36) return -1;
      j++;
    }
    return 'sdif@'.includes(s[j] ?? ' ') && j < s.length ? j + 1 : -1;
  }
  return -1;
}

/** Lower case of each UTF-16 unit, filled as met (0: not yet). */
const LOWER = new Uint16Array(65536);

/**
 * A 32-bit hash of `shownForm(text)` made without building it (FNV-1a over its units: lower
 * case, placeholders out, runs of white space one space, trimmed). For a set of every locale's
 * values (i18n-feed.ts `holdsValue`), where building 170,000 shown forms took a third of a second.
 */
export function shownHash(text: string): number {
  let h = 0x811c9dc5;
  let started = false;
  let gap = false;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c === 123 || c === 37) {
      const end = placeholderEnd(text, i);
      if (end > 0) {
        gap = started;
        i = end - 1;
        continue;
      }
    }
    if (c === 32 || (c >= 9 && c <= 13) || c === 160) {
      gap = started;
      continue;
    }
    if (gap) {
      h = Math.imul(h ^ 32, 16777619);
      gap = false;
    }
    started = true;
    if (c < 128) {
      if (c >= 65 && c <= 90) c += 32;
    } else {
      let l = LOWER[c];
      if (l === 0) l = LOWER[c] = String.fromCharCode(c).toLowerCase().charCodeAt(0);
      c = l;
    }
    h = Math.imul(h ^ c, 16777619);
  }
  return h >>> 0;
}

/**
 * A query of several words that a chunk contains as written ranks that chunk first (see
 * `EngineSearch.phraseFirst`); `textOf` gives a result's text, read for the first `textDepth` ids
 * only. `shownOf`, when given, gives the strings a chunk displays (the source-locale values of
 * the i18n keys it uses, each in `shownForm`): a chunk that displays the query as one whole
 * value (`Confirm`, `Go to page {0}` for "Go to page") ranks first too, for a query of one
 * word as well — the words a user sees on screen find the component that shows them, not a
 * namesake that only mentions the word. `termsOf`, when given, gives a chunk's search terms: a
 * chunk whose terms the query names whole (`namedBy`) is the first tier too. Shared with the
 * team index (pgstore.ts).
 */
export function phraseFirst(
  query: string,
  ids: number[],
  textOf: (id: number) => string | undefined,
  shownOf?: (id: number) => readonly string[] | undefined,
  textDepth = ids.length,
  found?: { phrase: boolean },
  termsOf?: (id: number) => string | undefined,
): number[] {
  const phrase = query.trim().replace(/\s+/g, ' ');
  if (phrase.length > 200 || ids.length < 2) return ids;
  const several = /\s/.test(phrase);
  const want = shownOf ? shownForm(phrase) : '';
  if (!several && !want) return ids;
  const lower = phrase.toLowerCase();
  const words = several && termsOf ? nameWords(phrase) : undefined;
  const tiers: number[][] = [[], [], []];
  for (let at = 0; at < ids.length; at++) {
    const id = ids[at];
    const shown = want ? shownOf!(id) : undefined;
    if (shown && shown.includes(want)) {
      tiers[0].push(id);
      continue;
    }
    if (words && namedBy(termsOf!(id), words)) {
      tiers[0].push(id);
      continue;
    }
    const text = several && at < textDepth ? textOf(id) : undefined;
    if (!text) {
      tiers[several && shown?.some((line) => containsWord(line, want)) ? 1 : 2].push(id);
      continue;
    }
    const flat = text.includes('\n') || text.includes('  ') || text.includes('\t') ? text.replace(/\s+/g, ' ') : text;
    tiers[containsWord(flat, phrase) ? 0 : containsWord(flat.toLowerCase(), lower) || shown?.some((line) => containsWord(line, want)) ? 1 : 2].push(id);
  }
  if (found) found.phrase = tiers[0].length > 0 || tiers[1].length > 0;
  return tiers[0].length || tiers[1].length ? tiers.flat() : ids;
}

/** The fewest words of a line of search terms that a query naming them all ranks first (`field title component TextField`: 4). */
export const NAMED_MIN_TERMS = 3;

/** A text's words as `namedBy` compares them: lower case, split at spaces, brackets, commas and quotes; a path by its last part. */
function nameWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[\s()[\]{}<>,;"'`]+/)) {
    const last = w.slice(w.lastIndexOf('/') + 1).replace(/^[.:]+|[.:?!]+$/g, '');
    if (last) out.add(last);
  }
  return out;
}

/**
 * Whether a query names what a chunk is: every word of one line of its search terms (the
 * chunker's `meta.searchTerms`: `field email component KTextField` for a schema property,
 * `global registration k-panel KPanel` for a registration; at least `NAMED_MIN_TERMS` words) is
 * a word of the query. "field email with component KTextField" asks for that property, not for
 * the three chunks of KTextField.vue that hold the component's name, nor for what the model
 * reads in them.
 */
function namedBy(terms: string | undefined, query: ReadonlySet<string>): boolean {
  if (!terms) return false;
  for (const line of terms.split('\n')) {
    const need = nameWords(line);
    if (need.size < NAMED_MIN_TERMS) continue;
    let all = true;
    for (const w of need) if (!query.has(w)) all = false;
    if (all) return true;
  }
  return false;
}

/** The chunker's search terms of a chunk (`meta.searchTerms`, see chunkers/types.ts), if any. */
export function searchTermsOf(c: { meta?: Record<string, unknown> } | undefined): string | undefined {
  const v = c?.meta?.[SEARCH_TERMS_META];
  return typeof v === 'string' ? v : undefined;
}

/** The i18n text a chunk displays (see `I18N_TEXT_META`), if any. */
export function shownText(c: { meta?: Record<string, unknown> } | undefined): string | undefined {
  const v = c?.meta?.[I18N_TEXT_META];
  return typeof v === 'string' ? v : undefined;
}
