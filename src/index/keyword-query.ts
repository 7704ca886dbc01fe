/**
 * Query planning for the keyword index: what a query's text becomes before any document is
 * read — its terms the index knows, each with a weight and the concepts (typed words) it covers,
 * adjacent words' compounds and code synonyms included. Shared by the local index (keyword.ts)
 * and the team index (pgstore.ts), which asks for `planTerms` first and plans over the answers.
 */
import { fold, termsWithWeakness } from './terms';

/**
 * A small, explicit table of code synonyms: a query word (or two adjacent words joined) also
 * matches these terms, at `SYNONYM_WEIGHT` of a term's score, and covers its concept.
 */
export const CODE_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  signin: ['login', 'logon'],
  login: ['signin'],
  logon: ['login', 'signin'],
  signout: ['logout', 'logoff'],
  logout: ['signout', 'logoff'],
  logoff: ['logout', 'signout'],
  signup: ['register'],
  register: ['signup'],
  delete: ['remove'],
  remove: ['delete'],
  erase: ['delete', 'remove'],
  settings: ['preferences', 'config'],
  preferences: ['settings'],
};
const SYNONYM_WEIGHT = 0.6;
/** Own entries only: a query word `constructor` or `__proto__` is no synonym. */
const synonymsOf = (w: string): readonly string[] => (Object.hasOwn(CODE_SYNONYMS, w) ? CODE_SYNONYMS[w] : []);

/** The query settings a plan is made with (a `KeywordIndex` has them). */
export interface PlanConfig {
  stem: boolean | 'add';
  singleDigits: boolean;
  synonyms: boolean;
  compounds: boolean;
}

/**
 * What a query is scored with: its known term ids, each term's weight and the concepts (typed
 * words) it covers. A concept is a word of the query with its stem; an adjacent pair's compound
 * covers both words; a synonym covers its word.
 */
export interface QueryPlan {
  ids: number[];
  weight: number[];
  /** Per term: bit mask of the concepts it covers (at most 31 concepts; later ones are not counted). */
  covers: number[];
  /** Per concept: its idf (0 when no term of it is known). */
  conceptIdf: number[];
}

/** A query plan by term (see `QueryPlan`): `terms[i]` instead of a term id. */
export interface TermPlan {
  terms: string[];
  weight: number[];
  covers: number[];
  conceptIdf: number[];
}

/**
 * The query's terms known to an index, with the concepts they cover: each term of
 * `queryTerms` is a concept, except an added stem, which joins its term's; two adjacent
 * words also match as their compound (`dark mode` → `darkmode`, `dark-mode`) and a word as
 * its code synonyms, when the index knows them. `dfOf` gives a term's document frequency
 * (undefined: not in the index), `N` the number of documents. `termWeight` weighs each typed
 * term (default 1; a hybrid search with Fathom's model: its learned weights, fusion.ts
 * `modelTermWeights`). Every term the plan may ask about is in `planTerms(query, config)`.
 */
export function planQuery(query: string, config: PlanConfig, dfOf: (term: string) => number | undefined, N: number, termWeight?: (term: string) => number): TermPlan {
  const draft = draftPlan(dfOf, N);
  const conceptOf = addConcepts(query, config, draft, termWeight);
  addWordTerms(query, config, draft, conceptOf);
  return draft.plan;
}

/** A plan being made: its terms so far, and `add` (a term the index knows, at weight `w`, covering the concepts of `mask`). */
interface PlanDraft {
  plan: TermPlan;
  add(t: string, w: number, mask: number): void;
}

/** An empty plan; a term added twice keeps its best weight and covers both masks, and at most 64 terms are kept. */
function draftPlan(dfOf: (term: string) => number | undefined, N: number): PlanDraft {
  const plan: TermPlan = { terms: [], weight: [], covers: [], conceptIdf: [] };
  const { terms: ts, weight, covers, conceptIdf } = plan;
  const idfOf = (df: number) => Math.log(1 + (N - df + 0.5) / (df + 0.5));
  const at = new Map<string, number>();
  const add = (t: string, w: number, mask: number): void => {
    const df = dfOf(t);
    if (df === undefined) return;
    const j = at.get(t);
    if (j !== undefined) {
      covers[j] |= mask;
      weight[j] = Math.max(weight[j], w);
      return;
    }
    if (ts.length >= 64) return;
    at.set(t, ts.length);
    ts.push(t);
    weight.push(w);
    covers.push(mask);
    for (let c = 0; c < 31; c++) if (mask & (1 << c) && conceptIdf[c] === 0) conceptIdf[c] = idfOf(df);
  };
  return { plan, add };
}

/** The query's terms at weight 1 (or `termWeight`'s), each a concept of its own but an added stem, which joins its term's; returns each term's concept. */
function addConcepts(query: string, config: PlanConfig, draft: PlanDraft, termWeight?: (term: string) => number): Map<string, number> {
  const weak: number[] = [];
  const all = termsWithWeakness(query, { stem: config.stem, singleDigits: config.singleDigits }, weak);
  const { conceptIdf } = draft.plan;
  const conceptOf = new Map<string, number>();
  let last = -1;
  for (let x = 0; x < all.length; x++) {
    const t = all[x];
    let c: number;
    if (weak[x] === 2 && last >= 0) c = last;
    else {
      const seen = conceptOf.get(t);
      if (seen !== undefined) {
        last = seen;
        continue;
      }
      c = conceptIdf.length;
      conceptOf.set(t, c);
      conceptIdf.push(0);
    }
    last = c;
    draft.add(t, termWeight ? termWeight(t) : 1, c < 31 ? 1 << c : 0);
  }
  return conceptOf;
}

/** The typed words' code synonyms (covering their word) and adjacent words' compounds (covering both), when the config asks for them. */
function addWordTerms(query: string, config: PlanConfig, draft: PlanDraft, conceptOf: Map<string, number>): void {
  // the typed words, in order (identifier parts and punctuation left aside)
  const words = fold(query).match(/[\p{L}\p{N}]+/gu) ?? [];
  const maskOf = (w: string) => {
    const c = conceptOf.get(w);
    return c !== undefined && c < 31 ? 1 << c : 0;
  };
  if (config.synonyms) {
    for (const w of words) for (const syn of synonymsOf(w)) draft.add(syn, SYNONYM_WEIGHT, maskOf(w));
  }
  if (!config.compounds) return;
  for (let i = 0; i + 1 < words.length && i < 32; i++) {
    const a = words[i];
    const b = words[i + 1];
    if (a.length + b.length < 4) continue;
    const mask = maskOf(a) | maskOf(b);
    draft.add(a + b, 1, mask);
    draft.add(`${a}-${b}`, 1, mask);
    if (config.synonyms) for (const syn of synonymsOf(a + b)) draft.add(syn, SYNONYM_WEIGHT, mask);
  }
}

/** Every term `planQuery` may look up for `query` (known or not), each once. */
export function planTerms(query: string, config: PlanConfig): string[] {
  const asked = new Set<string>();
  planQuery(query, config, (t) => {
    asked.add(t);
    return undefined;
  }, 0);
  return [...asked];
}
