/**
 * The keyword index's settings (`KeywordIndexOptions`, per query `KeywordSearchOptions`) and
 * their defaults, each with why it is what it is.
 */
import type { DocFilter } from './rank/fusion';
import type { WeakHalf } from './keyword-record';
import type { FieldBoosts } from './keyword-score';

export interface KeywordIndexOptions {
  /** BM25F field weights. */
  boosts?: Partial<FieldBoosts>;
  k1?: number;
  b?: number;
  /** How many candidates the BM25 score looks at. Default 200. */
  candidates?: number;
  /**
   * BM25 candidates come from the query's rarest terms whose postings add up to at most this
   * (see `candidatesOf`): the work of a query is bounded by it. Default 300,000 (0.3 × 1M
   * chunks); on the dev corpus even 1 posting (the rarest term, then more terms only while
   * there are fewer than `candidates`) ranks the mined queries the same.
   */
  maxPostings?: number;
  /** S-stemming of terms (see terms.ts); part of the persisted format. */
  stem?: boolean | 'add';
  /** Keep one-digit terms (see terms.ts); part of the persisted format. Default false. */
  singleDigits?: boolean;
  /**
   * Which derived terms count as half an occurrence (see `termsWithWeakness`): `'stems'` the
   * added stems, `'all'` also the parts of identifiers and CJK bigrams, `'none'`. Part of the
   * persisted format. Default `'stems'`: measured (bench/keyword.ts, hit@1), `'all'` helps
   * queries mined from headings (0.950 vs 0.943 overall) but loses words typed for an
   * identifier (`zoom control` for `getZoomControl`: 0.76 vs 0.83); `'none'` 0.943 / 0.82.
   */
  weakHalf?: WeakHalf;
  /**
   * Coverage exponent: a document's BM25F score is multiplied by c^coverage, c the share of the
   * query's concepts (idf-weighted) it matches, so that a chunk holding every word of the query
   * beats one that holds a boosted symbol and half of them. Only for queries of at most
   * `COVERAGE_MAX_CONCEPTS` concepts: on doc-comment sentences (bench/ranking.ts, tuning half) it
   * cost 2–5 points of hit@5 at any length, 1–2 points when shrunk as 4 / concepts. 0 turns it off.
   */
  coverage?: number;
  /** Adjacent query words also match as one compound (`log out` → `logout`). Default true. */
  compounds?: boolean;
  /** Query words also match their code synonyms (`CODE_SYNONYMS`). Default true. */
  synonyms?: boolean;
  /** Namesake weight (see `NAMESAKE`): 0 turns the identifier-level tie-break off. */
  namesake?: number;
  /** How many compounds `add` keeps the term ids of before it starts over (default 131,072; the tests make it small). */
  compoundMemory?: number;
}

export interface KeywordSearchOptions {
  /** How many results. Default 10. */
  k?: number;
  /**
   * Only documents for which this returns true. A filter made by `compileFilter` is tested
   * on the index's own path, language and kind of each document (`filter.facets`), without
   * calling its lookup: the same answer when the index got the same facts in `add`.
   */
  filter?: DocFilter;
  /** Overrides the index's `candidates` for this query. */
  candidates?: number;
  /** Overrides the index's `maxPostings` for this query. */
  maxPostings?: number;
  /** Overrides the index's `namesake` weight for this query (0: no identifier-level tie-break). */
  namesake?: number;
  /** Each typed term's weight in the score (default 1): fusion.ts `modelTermWeights`. */
  termWeight?: (term: string) => number;
  /**
   * Between candidates of equal score, the shorter symbol first (keyword-candidates.ts
   * `symbolLen`), else the smaller docId: for a query that names code (rank/names.ts `codeNames`).
   */
  shortSymbolsFirst?: boolean;
}

export const DEFAULT_CANDIDATES = 200;
export const DEFAULT_MAX_POSTINGS = 300_000;
/** Terms keep their form and add their S-stem (terms.ts); measured in bench/keyword.ts. */
export const DEFAULT_STEM: boolean | 'add' = 'add';

/** The finite numbers of `o` (a partial `FieldBoosts` given by a caller). */
export function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, v] of Object.entries(o)) if (typeof v === 'number' && Number.isFinite(v)) (out as Record<string, number>)[key] = v;
  return out;
}
