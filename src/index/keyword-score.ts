/**
 * The keyword index's final score: BM25F over the candidates, with coverage and the namesake
 * tie-break, on the documents' records (see keyword.ts for their layout).
 *
 * Scoring: BM25F (bench/keyword.ts compares it on 300 mined queries with FlexSearch's own
 * multi-term order, kept in bench/flexsearch-order.ts as the baseline: hit@1 0.94 in any
 * insertion order against 0.94 → 0.88, 0.99 on symbols) — BM25F (Robertson &
 *   Zaragoza's simple BM25F) over the best `candidates` (default 200) documents: for each query
 *   term, W = Σ_field boost × tf / (1 − b + b × len / avglen), score += idf × W × (k1 + 1) /
 *   (k1 + W), idf = ln(1 + (N − df + 0.5) / (df + 0.5)), k1 = 1.2, b = 0.75, df counting
 *   documents that have the term in any field. Boosts symbol 5, path 1, header 3, text 1
 *   (the header repeats the path and the symbol's words). Ties: candidate order, then docId.
 */
import type { QueryPlan } from './keyword-query';
import { HEADER } from './postings-layout';
import { NFIELDS } from './keyword-record';

export interface FieldBoosts {
  symbol: number;
  path: number;
  header: number;
  text: number;
}

export const DEFAULT_BOOSTS: Readonly<FieldBoosts> = { symbol: 5, path: 1, header: 3, text: 1 };
export const DEFAULT_COVERAGE = 1;
/**
 * Identifier-level tie-break between near-namesakes: a chunk's score is multiplied by
 * 1 + namesake × q, q = (symbol terms the query matched) − ½ (symbol terms it did not), in
 * occurrences, clamped to [0, 4]. `getUser` (both parts named) then outranks `getUserSlice`
 * and `getUserList` (one part unnamed) for a query about getting the user, and `hash`
 * outranks `hashGet` for one about a hash, even when their texts match the words alike. For
 * a query short enough for coverage (`COVERAGE_MAX_CONCEPTS`) it applies only among the
 * chunks covering the most of the query, so that a named symbol never beats a chunk holding
 * more of the query's words (`field title with component TextField`: the schema property, not
 * TextField's own file). Chosen on the tuning half of bench/ranking.ts (doc sentences →
 * function): hit@1 and hit@5 rose at 0.1 and 0.2 on JS, Python and Go alike and flattened
 * past 0.2; a larger symbol boost instead (5 → 8 or 12) left them where they were.
 */
export const DEFAULT_NAMESAKE = 0.2;
export const COVERAGE_MAX_CONCEPTS = 6;

export interface KeywordHit {
  docId: number;
  score: number;
  /** 1-based. */
  rank: number;
}

/** What the score reads of an index: its documents by internal id, its terms' document frequencies. */
export interface ScoreInputs {
  /** Per internal id: the record (undefined: removed). */
  records: ReadonlyArray<Uint32Array | undefined>;
  /** Per internal id: the caller's docId. */
  extOf: readonly number[];
  /** Per term id: the number of documents that have it. */
  df: Uint32Array;
  /** Per term id, scratch, all zero between queries: 1 + its index among the query's terms. */
  mark: Uint8Array;
  /** Per field: the sum of the documents' lengths. */
  sumLen: Float64Array;
  /** Number of documents. */
  N: number;
}

/** The score's parameters (a `KeywordIndex` has them). */
export interface ScoreParams {
  readonly boosts: Readonly<FieldBoosts>;
  readonly k1: number;
  readonly b: number;
  readonly coverage: number;
}

/** Per candidate: its hit (score so far), the share of the query's concepts it covers, its namesake measure. */
interface Scored {
  scored: Array<{ docId: number; score: number; order: number }>;
  share: Float64Array;
  named: Float64Array;
  /** The best share. */
  best: number;
}

/** The best `k` of the candidates (internal ids, in candidate order) by BM25F, coverage and namesake weight `nameW`. */
export function bm25f(ix: ScoreInputs, params: ScoreParams, cands: number[], plan: QueryPlan, k: number, nameW: number): KeywordHit[] {
  const { ids, weight, conceptIdf } = plan;
  const N = ix.N;
  const idf = new Float64Array(ids.length);
  for (let q = 0; q < ids.length; q++) {
    const df = ix.df[ids[q]];
    idf[q] = weight[q] * Math.log(1 + (N - df + 0.5) / (df + 0.5));
    ix.mark[ids[q]] = q + 1;
  }
  let totalIdf = 0;
  for (const x of conceptIdf) totalIdf += x;
  // short queries only: a long sentence (a doc comment) rarely has all its words in the code
  let known = 0;
  for (const x of conceptIdf) if (x > 0) known++;
  const alpha = params.coverage > 0 && totalIdf > 0 && known > 1 && known <= COVERAGE_MAX_CONCEPTS ? params.coverage : 0;
  const { scored, share, named, best } = scoreCandidates(ix, params, cands, plan, idf, totalIdf, alpha);
  if (nameW > 0) {
    // With coverage on (a short query), only among the chunks that cover the most of it: a
    // named symbol must not beat a chunk that holds more of the query's words.
    for (let c = 0; c < cands.length; c++) if (named[c] > 0 && (alpha === 0 || share[c] >= best - 1e-9)) scored[c].score *= 1 + nameW * named[c];
  }
  for (const id of ids) ix.mark[id] = 0;
  scored.sort((x, y) => y.score - x.score || x.order - y.order);
  const n = Math.min(k, scored.length);
  const out: KeywordHit[] = new Array(n);
  for (let r = 0; r < n; r++) out[r] = { docId: scored[r].docId, score: scored[r].score, rank: r + 1 };
  return out;
}

/** Each candidate's BM25F score (times its coverage share ^ `alpha`), share and namesake measure; the query's terms are marked in `ix.mark`. */
function scoreCandidates(ix: ScoreInputs, params: ScoreParams, cands: number[], plan: QueryPlan, idf: Float64Array, totalIdf: number, alpha: number): Scored {
  const { covers, conceptIdf } = plan;
  const { k1, b } = params;
  const { w, inv } = fieldScales(ix, params);
  const norm = new Float64Array(NFIELDS);
  const scored: Array<{ docId: number; score: number; order: number }> = new Array(cands.length);
  const share = new Float64Array(cands.length);
  const named = new Float64Array(cands.length);
  let best = 0;
  for (let c = 0; c < cands.length; c++) {
    const rec = ix.records[cands[c]];
    let score = 0;
    let covered = 0;
    let symHalves = 0;
    if (rec) {
      // The packed frequencies count half occurrences.
      for (let f = 0; f < NFIELDS; f++) norm[f] = w[f] / (2 * (1 - b + b * rec[2 + f] * inv[f]));
      for (let j = HEADER; j < rec.length; j += 2) {
        const q = ix.mark[rec[j]];
        if (q === 0) continue;
        const p = rec[j + 1];
        const W = (p & 255) * norm[0] + ((p >>> 8) & 255) * norm[1] + ((p >>> 16) & 255) * norm[2] + (p >>> 24) * norm[3];
        score += (idf[q - 1] * W * (k1 + 1)) / (k1 + W);
        covered |= covers[q - 1];
        symHalves += p & 255;
      }
      if (rec[2] > 0 && symHalves > 0) named[c] = namesakeOf(rec[2], symHalves / 2);
    }
    if (score > 0 && totalIdf > 0) {
      share[c] = shareOf(covered, conceptIdf, totalIdf);
      if (share[c] > best) best = share[c];
      if (alpha > 0) score *= share[c] ** alpha;
    }
    scored[c] = { docId: ix.extOf[cands[c]], score, order: c };
  }
  return { scored, share, named, best };
}

/** Per field (symbol, path, header, text): its boost, and 1 / its average length (0 for a field no document has). */
function fieldScales(ix: ScoreInputs, params: ScoreParams): { w: number[]; inv: Float64Array } {
  const w = [params.boosts.symbol, params.boosts.path, params.boosts.header, params.boosts.text];
  const inv = new Float64Array(NFIELDS);
  for (let f = 0; f < NFIELDS; f++) inv[f] = ix.sumLen[f] > 0 ? ix.N / ix.sumLen[f] : 0;
  return { w, inv };
}

/** How much a chunk is the query's namesake: its symbol's `m` query tokens of `symbolLen`, less half of the rest, between 0 and 4. */
function namesakeOf(symbolLen: number, m: number): number {
  return Math.max(0, Math.min(4, m - (symbolLen - m) / 2));
}

/** The share of the query's concepts (by idf) that the bit mask `covered` holds. */
function shareOf(covered: number, conceptIdf: number[], totalIdf: number): number {
  let got = 0;
  for (let m = covered, x = 0; m !== 0 && x < 31; x++, m >>>= 1) if (m & 1) got += conceptIdf[x];
  return got / totalIdf;
}
