/**
 * A name the query writes as code ranks the chunks it names first, by exact case.
 *
 * The keyword index folds case and cuts identifiers into words, which is what finds `zoom
 * control` in `getZoomControl`; it also makes `ARRAY` one word with mongoose's `array`, and a
 * top-level `command` one name with commander's `Command.command`. When the query writes a name
 * as code (`codeNames`: `array (ARRAY)`, `` `command` ``, `getZoomControl`), the keyword list's
 * chunks whose symbol is that name, as written, come first, then the rest, BM25F's order kept
 * within each; a chunk's names are its symbol and those it is also known by (`unitNames`: a
 * Nuxt component under `components/base/Button.vue` is `BaseButton`). A member of that name
 * (`Command.command`) gets no place of its own: Revel's
 * `Cache` interface declares `GetMulti`, and its three implementations' methods went above it.
 * Nothing moves when no chunk is so named, nor when the phrase tiers found the query as written
 * (`found.phrase`: a pasted line names more than its identifiers). Shared with the team index
 * (pg/search.ts).
 */
import { ALSO_NAMED_META, type Chunk } from '../../chunkers/types';

/** A token that is an identifier, dotted or not (`ARRAY`, `useLayers`, `Router.push`, `$t`). */
const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
/** An identifier written the way code writes names: camelCase, snake_case, a dotted name, `$`. */
const CODE_LIKE = /[a-z][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|\w\.\w|\$/;

/** An identifier's words, lower case: `useLayers` → use, layers; `KPanel` → k, panel; `max_retries` → max, retries. */
function identWords(id: string): string[] {
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * The names `query` writes as code, as written; at most 8:
 * - in backticks: one identifier (`` `command` ``);
 * - in parentheses at the end of the query: one identifier written like code (`use layers (useLayers)`),
 *   or one the rest of the query spells out (`array (ARRAY)`, `global registration of k-panel
 *   (KPanel)`) — not an aside in prose (`epoch (UTC)`, `(name, value) pairs`), nor Go's receiver
 *   in a doc sentence (`Render (JSON) writes JSON ContentType.`);
 * - in a query of at most two words: a token written like code (`getZoomControl`, `Router.push`).
 */
export function codeNames(query: string): string[] {
  const out = new Set<string>();
  for (const m of query.matchAll(/\(\s*([^()\s]{1,120})\s*\)|`([^`\s]{1,120})`/g)) {
    const t = m[1] ?? m[2];
    if (!IDENT.test(t)) continue;
    // parentheses end the query (`words (Name)`): in mid-sentence they are an aside, or Go's receiver (`Render (JSON) writes …`)
    if (m[1] !== undefined && !/^[\s.,;:!?]*$/.test(query.slice(m.index + m[0].length))) continue;
    if (m[2] !== undefined || CODE_LIKE.test(t)) {
      out.add(t);
      continue;
    }
    const rest = new Set((query.slice(0, m.index) + ' ' + query.slice(m.index + m[0].length)).toLowerCase().split(/[^\p{L}\p{N}]+/u));
    if (identWords(t).every((w) => rest.has(w))) out.add(t);
  }
  const words = query.trim().split(/\s+/);
  if (words.length <= 2) for (const w of words) if (IDENT.test(w) && CODE_LIKE.test(w)) out.add(w);
  return [...out].slice(0, 8);
}

/** The names a chunk's unit goes by: its symbol, and those it is also known by in code (`ALSO_NAMED_META`: a Nuxt component's `BaseButton`). */
export function unitNames(c: Pick<Chunk, 'symbol' | 'meta'> | undefined): readonly string[] {
  if (!c?.symbol) return [];
  const also = c.meta?.[ALSO_NAMED_META];
  return Array.isArray(also) ? [c.symbol, ...also.filter((n): n is string => typeof n === 'string')] : [c.symbol];
}

/** `ids` (the keyword list) with the chunks the query names as code first (see the module comment); `namesOf`: a chunk's names (`unitNames`). */
export function namesakesFirst(query: string, ids: number[], namesOf: (id: number) => readonly string[], found?: { phrase: boolean }): number[] {
  if (found?.phrase || ids.length < 2) return ids;
  const names = codeNames(query);
  if (!names.length) return ids;
  const named: number[] = [];
  const rest: number[] = [];
  for (const id of ids) (namesOf(id).some((n) => names.includes(n)) ? named : rest).push(id);
  return named.length ? named.concat(rest) : ids;
}

/**
 * The names a query asks for that no keyword term holds: a name of one character (`A`, `P`, `T`:
 * Nuxt UI's prose components `prose/A.vue`, a Go type parameter), which the keyword index drops
 * as a term (terms.ts), asked as the whole query (`A`) or written as code in it (`a (A)`).
 * `fathom search A` answered "no results" while `prose/A.vue` is named so.
 */
export function unindexedNames(query: string): string[] {
  const q = query.trim();
  const names = codeNames(q);
  if (IDENT.test(q)) names.push(q);
  return [...new Set(names)].filter((n) => n.replace(/^[$_]+|[$_]+$/g, '').length <= 1);
}

/** The chunks among `ids` (in their order) that a name of `names` names (`unitNames`), at most `k`; shared with the team index (pg/search.ts). */
export function namedChunks(names: readonly string[], ids: Iterable<number>, namesOf: (id: number) => readonly string[], k: number, filter?: (id: number) => boolean): number[] {
  const out: number[] = [];
  if (!names.length) return out;
  for (const id of ids) {
    if (namesOf(id).some((n) => names.includes(n)) && (!filter || filter(id))) out.push(id);
    if (out.length >= k) break;
  }
  return out;
}

/** The keyword list `hits`, or when it is empty, the chunks named by a name no term holds (`unindexedNames`), in index order, equal in score. */
export function orNamed<H extends { docId: number; score: number; rank: number }>(
  query: string,
  hits: H[],
  chunks: { keys(): Iterable<number>; head(id: number): Pick<Chunk, 'symbol' | 'meta'> | undefined },
  k: number,
  filter?: (id: number) => boolean,
): Array<H | { docId: number; score: number; rank: number }> {
  if (hits.length) return hits;
  return namedChunks(unindexedNames(query), chunks.keys(), (id) => unitNames(chunks.head(id)), k, filter).map((docId, i) => ({ docId, score: 1, rank: i + 1 }));
}
