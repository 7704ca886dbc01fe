/**
 * The keyword index's candidate stage: which documents BM25F (keyword-score.ts) scores.
 *
 * BM25 candidates (see `candidatesOf`) come from FlexSearch's postings, read term by term
 * (a single-term search left unresolved gives a term's documents by slot), rarest term first
 * within a postings budget (`maxPostings`), each document scored Σ idf × slot weight. The
 * budget bounds the work at 1M chunks; with fewer than `candidates` documents more terms are
 * read. FlexSearch's own multi-term intersection is not used for BM25: it costs ~250 ns per
 * posting walked (an object keyed by id), 10× the typed-array accumulation here (`Scan`).
 *
 * Filters: a filter made by `compileFilter` (fusion.ts) carries its facets, tested on the
 * index's own path/language/kind ids as documents are first seen (`facetPass`: one verdict per
 * distinct path, kept while the filter object lives); any other predicate runs lazily, best
 * candidates first (`bestLazy`).
 */
import type { FacetFilter } from './rank/fusion';
import type { Interner } from './keyword-record';
import type { FieldBoosts } from './keyword-score';
import { RESOLUTION, type BasePostings } from './postings-layout';

/** What the candidate stage reads of an index (`KeywordIndex`), and its scratch. */
export interface CandidateSource {
  /** Number of documents. */
  N: number;
  /** Per term id: the number of documents that have it. */
  df: Uint32Array;
  boosts: Readonly<FieldBoosts>;
  /** The imported (or bulk-loaded) documents' postings, read next to FlexSearch's. */
  base: BasePostings | undefined;
  /** Per internal id: the caller's docId (ties go to the smaller). */
  extOf: readonly number[];
  /**
   * Per internal id: the number of terms of its symbol (0: none), given for a query that names
   * code (`KeywordSearchOptions.shortSymbolsFirst`). Between candidates of equal score the
   * shorter symbol goes first, then the smaller docId: among the hundreds of chunks with `array`
   * in their symbol, the one named `ARRAY` is the query's namesake (BM25F's `namesake` says so
   * once it scores it; this makes it a candidate to score). For other queries it is not given:
   * on sentences it moved a few queries of the doc benchmarks down (bench/ranking.ts).
   */
  symbolLen?: (i: number) => number;
  /** Per internal id, scratch, all zero between queries: the candidate scores. */
  acc: Float64Array;
  /** Scratch lists of internal ids (`Scan`), grown as needed: the caller keeps them for the next query. */
  touched: Int32Array;
  refused: Int32Array;
  /** FlexSearch's postings of a term id, by slot. */
  flexSlots(term: number): Array<number[] | undefined>;
}

/**
 * BM25 candidates, best first (internal ids). Each query term's postings come from
 * FlexSearch (a single-term search, unresolved, gives them by slot) and `base`; a document's
 * candidate score is Σ idf × the boost of the field its slot stands for (symbol, path/header,
 * text) — BM25F without term frequencies or lengths. The rarest terms are read first, while
 * their postings add up to at most `budget` (always at least the rarest term): common terms
 * count in the final score of every candidate but make no candidates of their own — unless
 * fewer than `want` candidates (that pass the filter) came out: then more terms are read,
 * rarest first, until there are enough. The rarest term's documents are always candidates when
 * they are at most half of `want`. A cheap filter (a compiled one, see `facetPass`) is
 * tested as documents are first seen; another one lazily, best candidates first.
 */
export function candidatesOf(src: CandidateSource, ids: number[], want: number, budget: number, filter?: (i: number) => boolean, cheap = false): number[] {
  const df = src.df;
  const order = ids.map((_, q) => q).sort((a, b) => df[ids[a]] - df[ids[b]] || a - b);
  const slotWeight = slotWeights(src.boosts);
  const acc = src.acc;
  const early = cheap ? filter : undefined;
  const scan = new Scan(acc, src.touched, src.refused, early);
  let next = 0;
  let read = 0;
  const readNext = () => {
    const q = order[next++];
    readTerm(src, scan, ids[q], slotWeight);
    read += df[ids[q]];
  };
  if (order.length) readNext();
  // the rarest term's documents, when they are at most half of the candidates wanted (see below)
  const rare = order.length > 1 && scan.nt <= want / 2 ? scan.nt : 0;
  while (next < order.length && read + df[ids[order[next]]] <= budget) readNext();
  const ext = src.extOf;
  const symLen = src.symbolLen;
  const tie = symLen ? (a: number, b: number) => (symLen(a) || 0xffff) - (symLen(b) || 0xffff) || ext[a] - ext[b] : (a: number, b: number) => ext[a] - ext[b];
  const byScore = (a: number, b: number) => acc[b] - acc[a] || tie(a, b);
  let out: number[];
  if (!filter || early) {
    // Too few candidates (that pass): read more terms, rarest first.
    while (scan.nt < want && next < order.length) readNext();
    const all = scan.touched.subarray(0, scan.nt);
    if (rare > 0 && scan.nt > want) {
      // The candidate score counts no coverage: the locale entry holding "Version anzeigen" (the
      // only document with `anzeigen`) scored below two hundred symbols named `version`, and
      // BM25F, which would have put it first, never saw it. The rarest term's documents stay
      // candidates; the best of the others fill the rest.
      out = Array.from(all.subarray(0, rare)).concat(topOf(all.subarray(rare), want - rare, acc, tie)).sort(byScore);
    } else out = topOf(all, want, acc, tie).sort(byScore);
  } else {
    for (;;) {
      out = bestLazy(scan.touched.subarray(0, scan.nt), want, filter, acc, tie);
      if (out.length >= want || next >= order.length) break;
      readNext();
    }
  }
  scan.reset();
  src.touched = scan.touched;
  src.refused = scan.refused;
  return out;
}

/** Per slot, the boost of the field it stands for (symbol; path or header; text). Weights stay > 0: acc[i] is 0 for a document not seen yet, −1 for one a cheap filter refused. */
function slotWeights(boosts: Readonly<FieldBoosts>): Float64Array {
  const slotWeight = new Float64Array(RESOLUTION);
  slotWeight[0] = Math.max(1e-6, boosts.symbol);
  slotWeight[1] = Math.max(1e-6, boosts.header, boosts.path);
  for (let s = 2; s < RESOLUTION; s++) slotWeight[s] = Math.max(1e-6, boosts.text);
  return slotWeight;
}

/** Adds term `t`'s postings (the imported ones, then FlexSearch's) to the scan, each at idf × its slot's weight. */
function readTerm(src: CandidateSource, scan: Scan, t: number, slotWeight: Float64Array): void {
  const df = src.df[t];
  const idf = Math.log(1 + (src.N - df + 0.5) / (df + 0.5));
  const base = src.base;
  if (base && t < base.terms) {
    const at = t * RESOLUTION;
    for (let s = 0; s < RESOLUTION; s++) {
      const from = base.offsets[at + s];
      const to = base.offsets[at + s + 1];
      if (to > from) scan.addBase(base.ids, from, to, base.live, idf * slotWeight[s]);
    }
  }
  const slots = src.flexSlots(t);
  for (let s = 0; s < slots.length; s++) {
    const arr = slots[s];
    if (arr && arr.length) scan.add(arr, idf * slotWeight[Math.min(s, RESOLUTION - 1)]);
  }
}

/**
 * The `want` best of `touched` by candidate score `acc` (ties: `tie`, see `symbolLen`) that pass a
 * filter that is not cheap: it runs on the best 4·want first, on the rest only when too few passed.
 */
function bestLazy(touched: Int32Array, want: number, filter: (i: number) => boolean, acc: Float64Array, tie: (a: number, b: number) => number): number[] {
  const byScore = (a: number, b: number) => acc[b] - acc[a] || tie(a, b);
  const first = topOf(touched, want * 4, acc, tie).sort(byScore);
  const out: number[] = [];
  for (const i of first) {
    if (filter(i)) out.push(i);
    if (out.length >= want) return out;
  }
  if (first.length === touched.length) return out;
  const seen = new Set(first);
  const rest = topOf(touched, want - out.length, acc, tie, (i) => !seen.has(i) && filter(i));
  return out.concat(rest.sort(byScore));
}

/** The documents' facts a facet filter reads, per internal id: the record (undefined: removed), its path id, its language and kind ids. */
export interface FacetDocs {
  records: ReadonlyArray<Uint32Array | undefined>;
  docPath: Uint32Array;
  docLK: Uint32Array;
}

/**
 * A filter over internal ids made of `facets`, tested on the records' path, language and kind
 * ids (undefined: accept all): a verdict per language and kind, made here; one per path, made
 * when first needed and kept in `verdicts` while the facets object lives.
 */
export function facetPass(
  facets: FacetFilter,
  names: { paths: Interner; languages: Interner; kinds: Interner },
  docs: FacetDocs,
  verdicts: WeakMap<FacetFilter, Int8Array>,
): ((i: number) => boolean) | undefined {
  const { path, languages, kinds } = facets;
  if (!path && !languages && !kinds) return undefined;
  const langOk = nameTable(names.languages, languages, true);
  const kindOk = nameTable(names.kinds, kinds, false);
  const paths = names.paths;
  let pathOk: Int8Array | undefined;
  if (path) {
    // Per path id: 0 not tested yet, 1 passes, -1 does not; kept while the filter object lives.
    pathOk = verdicts.get(facets);
    if (!pathOk || pathOk.length < paths.size) {
      const grown = new Int8Array(Math.max(16, paths.size * 2));
      if (pathOk) grown.set(pathOk);
      pathOk = grown;
      verdicts.set(facets, pathOk);
    }
  }
  const { records: recs, docPath, docLK } = docs;
  return (i) => {
    if (recs[i] === undefined) return false;
    const lk = docLK[i];
    if (langOk && langOk[lk >>> 16] !== 1) return false;
    if (kindOk && kindOk[lk & 0xffff] !== 1) return false;
    if (path && pathOk) {
      const p = docPath[i];
      let v = pathOk[p];
      if (v === 0) pathOk[p] = v = path(paths.get(p)) ? 1 : -1;
      return v === 1;
    }
    return true;
  };
}

/** Per name id, 1 when the name (lower-cased with `fold`) is wanted; undefined without `wanted`. */
function nameTable(names: Interner, wanted: ReadonlySet<string> | undefined, fold: boolean): Uint8Array | undefined {
  if (!wanted) return undefined;
  const ok = new Uint8Array(names.size);
  for (let id = 0; id < names.size; id++) ok[id] = wanted.has(fold ? names.get(id).toLowerCase() : names.get(id)) ? 1 : 0;
  return ok;
}

/**
 * One query's candidate accumulation: `acc[i]` sums the weights of document i (0 = not seen,
 * −1 = refused by the early filter); `touched` and `refused` list the ids to reset.
 */
export class Scan {
  nt = 0;
  nr = 0;
  constructor(
    readonly acc: Float64Array,
    public touched: Int32Array,
    public refused: Int32Array,
    readonly early: ((i: number) => boolean) | undefined,
  ) {}

  add(ids: number[], w: number): void {
    const acc = this.acc;
    const early = this.early;
    for (let x = 0; x < ids.length; x++) {
      const i = ids[x];
      const a = acc[i];
      if (a > 0) acc[i] = a + w;
      else if (a === 0) {
        if (early !== undefined && !early(i)) {
          acc[i] = -1;
          if (this.nr === this.refused.length) this.refused = grow(this.refused);
          this.refused[this.nr++] = i;
        } else {
          if (this.nt === this.touched.length) this.touched = grow(this.touched);
          this.touched[this.nt++] = i;
          acc[i] = w;
        }
      }
    }
  }

  /** `add` for imported postings `ids[from‥to)`, skipping removed documents. */
  addBase(ids: Int32Array, from: number, to: number, live: Uint8Array, w: number): void {
    const acc = this.acc;
    const early = this.early;
    for (let x = from; x < to; x++) {
      const i = ids[x];
      if (live[i] === 0) continue;
      const a = acc[i];
      if (a > 0) acc[i] = a + w;
      else if (a === 0) {
        if (early !== undefined && !early(i)) {
          acc[i] = -1;
          if (this.nr === this.refused.length) this.refused = grow(this.refused);
          this.refused[this.nr++] = i;
        } else {
          if (this.nt === this.touched.length) this.touched = grow(this.touched);
          this.touched[this.nt++] = i;
          acc[i] = w;
        }
      }
    }
  }

  reset(): void {
    for (let x = 0; x < this.nt; x++) this.acc[this.touched[x]] = 0;
    for (let x = 0; x < this.nr; x++) this.acc[this.refused[x]] = 0;
    this.nt = this.nr = 0;
  }
}

function grow(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * The `n` best of `xs` (unordered) that pass `keep`: by `score` descending, ties by `tie`
 * ascending. Linear: the n-th best score is found by quickselect on a copy of the scores.
 */
export function topOf(xs: Int32Array, n: number, score: Float64Array, tie: (a: number, b: number) => number, keep?: (x: number) => boolean): number[] {
  if (n <= 0) return [];
  let m = 0;
  let ids = xs;
  if (keep) {
    ids = new Int32Array(xs.length);
    for (let i = 0; i < xs.length; i++) if (keep(xs[i])) ids[m++] = xs[i];
  } else m = xs.length;
  if (m <= n) return Array.from(ids.subarray(0, m));
  const vals = new Float64Array(m);
  for (let i = 0; i < m; i++) vals[i] = score[ids[i]];
  const thr = nthLargest(vals, n - 1);
  const out: number[] = [];
  const ties: number[] = [];
  for (let i = 0; i < m; i++) {
    const v = score[ids[i]];
    if (v > thr) out.push(ids[i]);
    else if (v === thr) ties.push(ids[i]);
  }
  ties.sort(tie);
  for (let i = 0; out.length < n && i < ties.length; i++) out.push(ties[i]);
  return out;
}

/** The value that would be at index `k` of `a` sorted descending (reorders `a`). */
function nthLargest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}
