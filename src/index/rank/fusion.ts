/**
 * Fusion of ranked lists and result filters. Plain Node.
 *
 * - `convex`: Fathom's own model beside the keyword list, combined by score (see `convex`).
 * - `rrf`: reciprocal rank fusion (Cormack, Clarke & Büttcher 2009). A document's fused score
 *   is Σ over the lists that hold it of 1 / (k + rank), rank 1-based, k = 60 by default. Only
 *   ranks count, never the lists' own scores, so a keyword score and a cosine similarity need
 *   no calibration. Every result says why it ranked: its rank in each list and the fused score.
 *   Ties (equal fused scores) are broken deterministically: the better best rank first, then
 *   the keyword list's rank, then the smaller docId.
 * - `compileFilter`: path globs (src/workspace/glob.ts, linear time; `!` negates), languages and kinds → one predicate
 *   over docIds, given a `lookup` from docId to the document's path, language and kind.
 */
import { compileGlob } from '../../workspace/glob';
import type { Embedder } from '../embedder-types';

export type ListName = 'keyword' | 'dense';

export interface RankedList {
  name: ListName;
  /** Best first. A docId repeated in a list counts at its first (best) rank. */
  ids: number[];
  /** This list's share in the fused score: weight / (k + rank). Default 1. */
  weight?: number;
}

export interface RrfOptions {
  /** The RRF constant; larger flattens the difference between top and lower ranks. Default 60. */
  k?: number;
  /** How many results; default all. */
  limit?: number;
}

export interface FusedHit {
  docId: number;
  score: number;
  why: {
    /** 1-based rank in the keyword list, when it is there. */
    keyword?: number;
    /** 1-based rank in the dense list, when it is there. */
    dense?: number;
    /** The model behind the dense rank (`fathom-code-search`, `Xenova/all-MiniLM-L6-v2`), set by the engine. */
    model?: string;
    fused: number;
    /** Re-ranked (rerank.ts): the 1-based place this hit had in the fused order before. */
    reranked?: number;
    /** The model that re-ranked, when it is not `model`: Fathom's own beside another (rank/beside.ts), set by the engine. */
    reranker?: string;
  };
}

export const DEFAULT_RRF_K = 60;

/**
 * What `ownModelWeight` gives when Fathom's own model is asked: its list's weight in RRF (the
 * keyword list's is 1). With both lists, the engine and the team index combine their scores
 * instead (`convex`, measured better), and this is only the "asked" signal. Measured with Fathom's
 * own model on bench/ranking.ts (py-doc, go-doc, js-doc, py-repo, go-repo; hit@5 of the tuning
 * halves, keyword-only 0.846 on average): weight 1 → 0.854, 0.7 → 0.857, 0.5 → 0.860. The
 * keyword ranking is the stronger one on these; the model adds what it misses (words the code
 * never uses) without pulling its best answers down. See docs/MODEL.md. A transformers.js
 * model (all-MiniLM-L6-v2) keeps weight 1, as before: it was not measured here.
 */
export const DENSE_WEIGHT = 0.5;

/**
 * The least share of a query's terms the model must know (`coverage`) to be asked: measured on
 * bench/ranking.ts, the plain-words queries of the doc-sentence benchmarks (English) have 0.88+
 * for 95% of them and none below 0.5, while the locale values of the react workspaces' mined
 * i18n routes (Turkish, Norwegian, …) mostly have 0: their vectors are a few stray words, which
 * the convex fusion's min-max scaling stretched over the keyword list's answer (mined i18n
 * hit@5 1.000 → 0.963 / 0.993 before this bound).
 */
export const MIN_MODEL_COVERAGE = 0.5;

/**
 * The weight of Fathom's own model's list for `query`: DENSE_WEIGHT for a query in plain words
 * that the keyword ranking cannot find as written, else 0 (the model is not asked). A bag of
 * words learned from doc comments ranks by topic, not by the exact words: measured on
 * bench/ranking.ts, fusing it into a query that is a name, a key, a displayed string or a phrase
 * some chunk holds (vue-ui, react-ui, schema, registration, mined routes) took hit@1 from
 * 0.85–1.00 down to 0.27–0.83, while those queries were already answered by their words. So:
 * - `coverage` (the share of its terms the model knows) below MIN_MODEL_COVERAGE: a language it never learned;
 * - `phrase`: the keyword list found the query as written (a displayed string, a heading, a
 *   value): the words are in the code;
 * - fewer than 3 words: a name or a key;
 * - a token written like code (camelCase, snake_case, a dotted or slashed path, `$`, brackets),
 *   or a Capitalized word after the first (`field title with component Input`): a query that
 *   names what it wants. This last rule took schema hit@1 (tuning half) from 0.884 back to the
 *   keyword ranking's 0.953, for a change within ±0.005 of hit@5 on the doc-sentence benchmarks.
 */
export function ownModelWeight(query: string, phrase: boolean, coverage = 1): number {
  if (phrase || coverage < MIN_MODEL_COVERAGE) return 0;
  const words = queryWords(query);
  if (words.length < 3) return 0;
  if (CODE_TOKEN.test(query) || capitalAfterFirst(words)) return 0;
  return DENSE_WEIGHT;
}

/** A token written like code: camelCase, snake_case, a dotted or slashed path, `$`, brackets. */
export const CODE_TOKEN = /[a-z][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|\w[./:]\w|[$<>{}()[\]=]/;

/** A query's words: its whitespace-separated tokens that hold a letter. */
export function queryWords(query: string): string[] {
  return query.trim().split(/\s+/).filter((w) => /\p{L}/u.test(w));
}

/** A Capitalized word after the first (`field title with component Input`): a name. */
export function capitalAfterFirst(words: readonly string[]): boolean {
  return words.slice(1).some((w) => /^[A-Z][a-z]/.test(w));
}

/**
 * The keyword ranking's weight of each typed word of a hybrid search's query with Fathom's own
 * model: the model's learned query-term weights (static-model.ts `queryTermWeight`,
 * QUERY_TERM_POWER), so that a doc sentence's filler words ("creates", "returns", "the given")
 * count less than the words that name the thing. Undefined (every word 1) without it:
 * `--no-embed`, `--mode keyword` and other models rank as before. Every query of a hybrid search
 * is weighed, not only those the model's list joins (`ownModelWeight`): measured on
 * bench/ranking.ts (six benchmarks, hybrid hit@5 / MRR / line@5), those only: tuning 0.873 /
 * 0.738 / 0.670, held-out 0.878 / 0.760 / 0.678; every query: 0.874 / 0.741 / 0.672 and 0.880 /
 * 0.765 / 0.684 (every word at 1: 0.869 / 0.736 / 0.664 and 0.878 / 0.760 / 0.677). Names, keys
 * and displayed strings are mostly words the model does not weigh apart: 47 of the 48 route
 * rows are unchanged (the other: one query of 2 from first to second).
 */
export function modelTermWeights(embedder: Pick<Embedder, 'queryTermWeight'> | undefined): ((term: string) => number) | undefined {
  const weigh = embedder?.queryTermWeight;
  if (!weigh) return undefined;
  return (term) => weigh.call(embedder, term);
}

/**
 * The keyword score's share in `convex` (the model's is 1 − this). Measured on bench/ranking.ts's
 * tuning halves (py-doc, go-doc, js-doc, py-repo, go-repo, py-docs; hit@5 / MRR / line@5 averaged)
 * with an experiment harness (a keyword candidate past the model's first 1,000 had no cosine):
 * 0.4 → 0.872 / 0.739 / 0.649, 0.45 → 0.875 / 0.741 / 0.661, 0.5 → 0.876 / 0.740 / 0.663,
 * 0.55 → 0.871 / 0.737 / 0.659, 0.6 → 0.868 / 0.737, 0.7 → 0.865 / 0.736; RRF as before
 * (k 60, the model's list weighted 0.5) 0.860 / 0.728 / 0.640, its best k and weight (5, 1)
 * 0.870 / 0.730 / 0.657. As built (every keyword candidate's cosine): 0.870 / 0.735 / 0.659;
 * held-out 0.875 / 0.764 / 0.677 against RRF's 0.869 / 0.760 / 0.659.
 */
export const KEYWORD_SHARE = 0.5;

/**
 * Convex combination of two scored lists (Bruch, Gai & Ingber 2023, "An Analysis of Fusion
 * Functions for Hybrid Retrieval"): over the union of both lists' first `depth` ids, each
 * list's scores are min-max normalized (an id a list has no score for counts 0), and a
 * document's fused score is `share × keyword + (1 − share) × dense`, in [0, 1]. Unlike RRF it
 * keeps how far apart the scores are: a chunk far ahead on its words, or on its meaning, stays
 * ahead, where RRF's 1 / (60 + rank) makes the first ten ranks of a list nearly equal.
 * `keyword.scores` and `dense.scores` may hold ids past their lists (the engine gives the
 * model's cosine of every keyword candidate). Ties: the better keyword rank, then the smaller docId.
 */
export function convex(keyword: ScoredList, dense: ScoredList, options: { depth: number; share?: number; limit?: number }): FusedHit[] {
  const share = options.share ?? KEYWORD_SHARE;
  const depth = Math.max(0, Math.floor(options.depth));
  const ranks = (l: RankedList) => {
    const m = new Map<number, number>();
    for (const id of l.ids.slice(0, depth)) if (!m.has(id)) m.set(id, m.size + 1);
    return m;
  };
  const kr = ranks(keyword);
  const dr = ranks(dense);
  const union = [...new Set([...kr.keys(), ...dr.keys()])];
  const nk = minMax(keyword.scores, union);
  const nd = minMax(dense.scores, union);
  const all = union.map((docId) => ({ docId, score: share * nk(docId) + (1 - share) * nd(docId), keyword: kr.get(docId), dense: dr.get(docId) }));
  all.sort((a, b) => b.score - a.score || (a.keyword ?? Infinity) - (b.keyword ?? Infinity) || a.docId - b.docId);
  return all.slice(0, options.limit ?? all.length).map((e) => {
    const why: FusedHit['why'] = { fused: e.score };
    if (e.keyword !== undefined) why.keyword = e.keyword;
    if (e.dense !== undefined) why.dense = e.dense;
    return { docId: e.docId, score: e.score, why };
  });
}

/** A ranked list with its own scores (BM25F, cosine), for `convex`. */
export interface ScoredList extends RankedList {
  scores: ReadonlyMap<number, number>;
}

/** `scores` of `ids` mapped to [0, 1] (`unitScale`); an id not among `ids` → 0. */
function minMax(scores: ReadonlyMap<number, number>, ids: number[]): (id: number) => number {
  const scaled = unitScale(ids.map((id) => scores.get(id)));
  const of = new Map(ids.map((id, i) => [id, scaled[i]]));
  return (id) => of.get(id) ?? 0;
}

/** Values mapped to [0, 1]: lowest known → 0, highest → 1, all known equal (one, say) → 1, unknown or not finite → 0. */
export function unitScale(values: ReadonlyArray<number | undefined>): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === undefined || !Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return values.map((v) => (v === undefined || !Number.isFinite(v) ? 0 : hi > lo ? (v - lo) / (hi - lo) : 1));
}

export function rrf(lists: RankedList[], options: RrfOptions = {}): FusedHit[] {
  const k = options.k ?? DEFAULT_RRF_K;
  if (!(k >= 0) || !Number.isFinite(k)) throw new RangeError(`rrf: k must be a finite number ≥ 0, got ${k}`);
  const limit = options.limit ?? Infinity;
  const acc = new Map<number, { docId: number; score: number; best: number; keyword?: number; dense?: number }>();
  for (const list of lists) {
    const seen = new Set<number>();
    let rank = 0;
    for (const docId of list.ids) {
      if (seen.has(docId)) continue;
      seen.add(docId);
      rank++;
      let e = acc.get(docId);
      if (!e) {
        e = { docId, score: 0, best: rank };
        acc.set(docId, e);
      }
      e.score += (list.weight ?? 1) / (k + rank);
      if (rank < e.best) e.best = rank;
      const prev = e[list.name];
      if (prev === undefined || rank < prev) e[list.name] = rank;
    }
  }
  const all = [...acc.values()];
  all.sort(
    (a, b) =>
      b.score - a.score ||
      a.best - b.best ||
      (a.keyword ?? Infinity) - (b.keyword ?? Infinity) ||
      a.docId - b.docId,
  );
  const n = Math.min(all.length, Math.max(0, Math.floor(limit)));
  const out: FusedHit[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const e = all[i];
    const why: FusedHit['why'] = { fused: e.score };
    if (e.keyword !== undefined) why.keyword = e.keyword;
    if (e.dense !== undefined) why.dense = e.dense;
    out[i] = { docId: e.docId, score: e.score, why };
  }
  return out;
}

export interface FilterSpec {
  /**
   * Globs over the workspace-relative path (`/`-separated). A path passes when it matches at
   * least one positive glob (or there is none) and no `!`-negated one. A glob without `/`
   * matches the file name anywhere (`*.vue` = `**\/*.vue`), as VS Code's search does. Dot
   * files match `*` and `**`.
   */
  pathGlob?: string | string[];
  /** Languages (`vue`, `javascript`, …), case-insensitive; empty or absent = any. */
  language?: string[];
  /** Chunk kinds (`function`, `i18n-section`, …); empty or absent = any. */
  kind?: string[];
}

export interface DocFacts {
  path: string;
  language: string;
  kind: string;
}

/**
 * What a compiled filter tests, for an index that keeps the same facts itself
 * (KeywordIndex) and can test them without a `lookup` per document. Absent = any.
 */
export interface FacetFilter {
  path?: (path: string) => boolean;
  /** Lowercased. */
  languages?: ReadonlySet<string>;
  kinds?: ReadonlySet<string>;
}

/** A docId predicate; the ones `compileFilter` makes also carry their facets. */
export type DocFilter = ((docId: number) => boolean) & { readonly facets?: FacetFilter };

/**
 * One predicate for a filter spec. Without any constraint it accepts everything and never
 * calls `lookup`; a document that `lookup` does not know is rejected.
 */
export function compileFilter(spec: FilterSpec, lookup: (docId: number) => DocFacts | undefined): DocFilter {
  const facets = facetsOf(spec);
  const { path, languages, kinds } = facets;
  if (!path && !languages && !kinds) return Object.assign(() => true, { facets });
  const filter = (docId: number) => {
    const d = lookup(docId);
    if (!d) return false;
    if (languages && !languages.has(d.language.toLowerCase())) return false;
    if (kinds && !kinds.has(d.kind)) return false;
    return path ? path(d.path) : true;
  };
  return Object.assign(filter, { facets });
}

/**
 * The facets of a spec, the same object for the same spec (the last 64 specs are kept), so
 * that what was learnt about paths — here, and in an index keyed by this object — is reused
 * by the next query with the same filter.
 */
const facetCache = new Map<string, FacetFilter>();

function facetsOf(spec: FilterSpec): FacetFilter {
  const globs = (Array.isArray(spec.pathGlob) ? spec.pathGlob : spec.pathGlob === undefined ? [] : [spec.pathGlob])
    .map((g) => g.trim())
    .filter((g) => g.length > 0 && g !== '!');
  const langList = (spec.language ?? []).map((l) => l.toLowerCase()).sort();
  const kindList = (spec.kind ?? []).slice().sort();
  const key = JSON.stringify([globs, langList, kindList]);
  const cached = facetCache.get(key);
  if (cached) {
    facetCache.delete(key);
    facetCache.set(key, cached);
    return cached;
  }
  const positive: string[] = [];
  const negative: string[] = [];
  for (const g of globs) (g.startsWith('!') ? negative : positive).push(g.startsWith('!') ? g.slice(1) : g);
  const compile = (list: string[]) => {
    if (list.length === 0) return undefined;
    const matchers = list.map((g) => compileGlob(g.startsWith('./') ? g.slice(2) : g, { basename: !g.includes('/') }));
    return (path: string) => matchers.some((m) => m(path));
  };
  const inc = compile(positive);
  const exc = compile(negative);
  // Many chunks share a path: match each path once (bounded memo).
  const memo = new Map<string, boolean>();
  const pathOk = (path: string): boolean => {
    let ok = memo.get(path);
    if (ok === undefined) {
      ok = (!inc || inc(path)) && !(exc && exc(path));
      if (memo.size >= 100_000) memo.clear();
      memo.set(path, ok);
    }
    return ok;
  };
  const facets: FacetFilter = {
    path: inc || exc ? pathOk : undefined,
    languages: langList.length ? new Set(langList) : undefined,
    kinds: kindList.length ? new Set(kindList) : undefined,
  };
  facetCache.set(key, facets);
  if (facetCache.size > 64) facetCache.delete(facetCache.keys().next().value as string);
  return facets;
}

/**
 * Test code: a path under a `test`/`tests`/`__tests__`/`spec`/`specs` folder (not `testing/`: in Go and Python that is often a package of helpers other code imports), or a test file by
 * its own language's convention (`test_x.py`, `x_test.py`, `x_test.go`, `x.test.ts`,
 * `x.spec.js`, `XTest.java`, `x_spec.rb`).
 */
export function isTestPath(p: string): boolean {
  return /(?:^|\/)(?:tests?|__tests__|specs?)\/|(?:^|\/)test_[^/]*\.py$|_test\.(?:py|go)$|\.(?:test|spec)\.[cm]?[jt]sx?$|Tests?\.(?:java|kt|cs)$|_spec\.rb$/.test(p);
}

/** A model id as users name it: no weights hash (`fathom-code-search@ab12…`), no dtype and window (`…:q8:256`). */
export function modelLabel(id: string): string {
  return id.replace(/@[0-9a-f]+$/, '').replace(/:[^/]*$/, '');
}

/**
 * "Why it ranked" names the model behind a meaning rank (`model`), and behind a re-ranking: the
 * same one, or Fathom's own beside another (`reranker`, `Embedder.companion`: rank/beside.ts).
 */
export function nameModels<H extends FusedHit>(hits: H[], embedder: Pick<Embedder, 'id' | 'companion'> | undefined): H[] {
  if (!embedder) return hits;
  const model = modelLabel(embedder.id);
  const reranker = embedder.companion ? modelLabel(embedder.companion.id) : undefined;
  for (const h of hits) {
    if (h.why.dense !== undefined || (h.why.reranked !== undefined && !reranker)) h.why.model = model;
    if (h.why.reranked !== undefined && reranker) h.why.reranker = reranker;
  }
  return hits;
}

/** A query about tests names them: then test code keeps its rank. */
export function asksForTests(query: string): boolean {
  return /\b(?:tests?|testing|tested|specs?|mocks?|mocked|fixtures?|unittests?|pytest|jest|mocha|vitest|assert(?:s|ions?)?)\b|_test\b|\btest_/i.test(query);
}

/**
 * The fused score of a test-code hit, for a query that is not about tests, is multiplied by
 * this: implementation above its tests. Measured keyword-only on bench/ranking.ts's py-repo
 * and go-repo (whole package trees of web frameworks, tests included), hit@5 of the tuning
 * half: 1 → 0.795 / 0.863, 0.8 → 0.815 / 0.866, 0.7 → 0.817 / 0.866, 0.6 (with `testing/`
 * folders counted as tests) → 0.795 / 0.817; held-out half at 0.8: 0.801 → 0.818 / 0.874 → 0.878.
 */
export const TEST_CODE_WEIGHT = 0.8;

const PROSE_EXT = /\.(?:md|markdown|rst|txt|adoc|asciidoc|texi|1|5|8)$/i;
const DOC_DIR = /^(?:docs?|documentation|man|manual|guides?)$/i;

/** Prose documentation: a Markdown / reStructuredText / text / man page file, or any file under a docs folder but code. */
export function isProsePath(p: string): boolean {
  const parts = p.split('/');
  const base = parts.pop() ?? '';
  return PROSE_EXT.test(base) || (parts.some((d) => DOC_DIR.test(d)) && !/\.(?:py|js|ts|go|rs|java|c|h|cc|cpp|rb|php|cs)$/i.test(base));
}

/** A query about documentation names it: then prose keeps its rank. */
export function asksForDocs(query: string): boolean {
  return /\b(?:docs?|documentation|documented|readme|manual|man ?pages?|guides?|tutorials?|how-?to|changelog|faq|sphinx|markdown)\b/i.test(query);
}

/**
 * The fused score of a prose hit (Markdown, reStructuredText, text, docs/), for a query that
 * describes behaviour in plain words (the queries the model is asked for: ownModelWeight > 0),
 * not about docs, is multiplied by this: the code the words describe above the pages that
 * talk about it. Measured on bench/ranking.ts's py-docs (Tornado and CherryPy with their
 * reStructuredText docs beside the code), tuning half, keyword-only hit@5 / hit@1: 1 → 0.827 /
 * 0.587, 0.95 → 0.827 / 0.610, 0.9 and 0.85 → 0.834 / 0.617, 0.7, 0.5 and 0.3 → 0.837 / 0.617
 * (hybrid hit@1 0.612 → 0.638). A gentle weight of the plateau is kept: in RRF terms a first
 * prose hit now weighs as a twelfth code hit, so a page the words really describe stays in
 * reach. Held-out half at 0.85: keyword 0.838 → 0.851, hybrid 0.856 → 0.859.
 */
export const PROSE_WEIGHT = 0.85;

export interface PathWeights<T = unknown> {
  /** Test code, unless the query asks for tests. Default TEST_CODE_WEIGHT. */
  tests?: number;
  /** Prose, for a plain-words query not about docs. Default PROSE_WEIGHT; only when `describes`. */
  prose?: number;
  /** The query describes behaviour in plain words (ownModelWeight(query, phrase) > 0). */
  describes?: boolean;
  /** A hit's symbol: test code that defines an identifier the query names keeps its rank. */
  symbolOf?: (h: T) => string | undefined;
  /** A hit's chunk kind: a type named so keeps its rank wherever it is declared (see `weighByPath`). */
  kindOf?: (h: T) => string | undefined;
}

/** Chunk kinds that declare a type (a class's own lines, when it was cut, are a fragment named by it). */
const TYPE_KINDS = new Set(['class', 'struct', 'interface', 'enum', 'trait', 'record', 'type', 'fragment']);

/**
 * The identifiers a query names as code is written (`DerivedExampleExtension`, `choice_loader`,
 * `URLValidator`, `$store`): tokens with a lower-to-upper case step, an underscore or a `$`, of 4+
 * characters. Plain words (`app`, `client`) are not: a test fixture named so is no answer to them.
 */
export function namedIdentifiers(query: string): Set<string> {
  const out = new Set<string>();
  for (const t of query.match(/[A-Za-z_$][\w$]*/g) ?? []) if (t.length >= 4 && /[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z0-9]_[A-Za-z0-9]|\$/.test(t)) out.add(t);
  return out;
}

/**
 * `hits` (fused, best first) with test code weighted down unless the query asks for tests (or,
 * with `symbolOf`, the hit is a top-level unit named as an identifier of the query: a fixture or
 * helper class it names), and prose weighted down for a plain-words query not about docs;
 * re-sorted, stable. The exception measured: `fathom eval` on Jinja2 (300 python queries, hybrid
 * hit@5 0.957 → 0.990) and Gin (300 go, 0.977 → 0.993); bench/ranking.ts: the 72 rows of the doc
 * benchmarks unchanged, of the 144 route rows one moves (mined-react-intl-ui js held-out 0.975 → 1).
 * A type of that name nested in a test class or under a namespace counts too (`kindOf`): `fathom
 * eval` on Newtonsoft.Json (C#, test helper classes nested in the test classes) 300 csharp
 * queries hit@5 0.830 → 0.960, Monolog (PHP) 0.969 → 0.979; Jinja2, Gin, jsoup unchanged.
 */
export function weighByPath<T extends { score: number }>(hits: T[], query: string, pathOf: (h: T) => string | undefined, w: PathWeights<T> = {}): T[] {
  const tests = asksForTests(query) ? 1 : (w.tests ?? TEST_CODE_WEIGHT);
  const prose = w.describes && !asksForDocs(query) ? (w.prose ?? PROSE_WEIGHT) : 1;
  if (tests === 1 && prose === 1) return hits;
  // test code defining an identifier the query names is what it asks for (a fixture, a helper
  // class): a top-level unit of that name (a test double's method named like the real one, as
  // `mockSetter.TrySet`, is not what `TrySet` asks for)
  const named = tests !== 1 && w.symbolOf ? namedIdentifiers(query) : undefined;
  const defines = (h: T) => {
    const sym = named?.size ? w.symbolOf!(h) : undefined;
    if (!sym) return false;
    if (named!.has(sym)) return true;
    // a type of that name nested in a test class or under a namespace (C#, PHP:
    // `Tests.Converters.JavaScriptDateTimeConverterTests.ConverterDictionary`)
    const kind = w.kindOf?.(h);
    return !!kind && TYPE_KINDS.has(kind) && named!.has(sym.slice(sym.lastIndexOf('.') + 1));
  };
  let changed = false;
  const out = hits.map((h, i) => {
    const p = pathOf(h);
    const f = p === undefined ? 1 : isTestPath(p) ? (defines(h) ? 1 : tests) : isProsePath(p) ? prose : 1;
    if (f === 1) return { h, s: h.score, i };
    changed = true;
    return { h: { ...h, score: h.score * f }, s: h.score * f, i };
  });
  if (!changed) return hits;
  out.sort((a, b) => b.s - a.s || a.i - b.i);
  return out.map((x) => x.h);
}
