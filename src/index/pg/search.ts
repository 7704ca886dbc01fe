/** Searching the team index: keyword (the local BM25F over the postings, read in one round trip and kept per connection), dense (pgvector or int8 codes), fused as locally (by score with Fathom's own model, else RRF). */
import { ALSO_NAMED_META, type Chunk } from '../../chunkers/types';
import { type Embedder } from '../embedder';
import { type SearchHit, type SearchMode } from '../engine';
import { Int8Rows } from '../int8-scan';
import { dot8, TopHeap } from '../ivf';
import { COVERAGE_MAX_CONCEPTS, KeywordIndex, planQuery, planTerms } from '../keyword';
import { compileFilter, convex, DEFAULT_RRF_K, modelTermWeights, ownModelWeight, rrf, weighByPath, type FilterSpec, type RankedList } from '../rank/fusion';
import { RERANK_DEPTH, rerank, wantsRerank, withModelCandidates } from '../rank/rerank';
import type { DiversifyOptions } from '../rank/diversify';
import { present, type PresentSource } from '../rank/present';
import { codeNames, namesakesFirst, unindexedNames, unitNames } from '../rank/names';
import { phraseFirst, proximityOrder, proximityText, searchTermsOf, shownForm, shownText } from '../rank/phrase';
import { STATIC_MODEL_NAME } from '../static-model';
import { prepared } from './connect';
import { kw, parseChunk, vectorLiteral, type Sql } from './schema';

export interface PgSearchOptions {
  k?: number;
  mode?: SearchMode;
  filters?: FilterSpec;
  rrfK?: number;
  embedder?: Embedder;
  /** Paths whose remote chunks are left out (the overlay's edited and deleted files). */
  exclude?: ReadonlySet<string>;
  /** Overrides `PG_MAX_POSTINGS` (the keyword candidates' postings budget) for this search. */
  maxPostings?: number;
  /** Reads every posting and chunk from the server, none kept by the connection (a benchmark's cold row). */
  cold?: boolean;
  /** Filled with each index generation the search read (none when it read nothing: a query with no terms). */
  seen?: Set<string>;
  /** `false`: no learned re-ranking (rank/rerank.ts), the fused order. */
  rerank?: false;
  /** As the local engine's (SearchOptions.diversify): `false` gives the plain ranked order, no folding, no per-file cap. */
  diversify?: DiversifyOptions | false;
}

/**
 * How many postings the candidate query reads, rarest terms first (at least the rarest term's,
 * and more terms while fewer than the wanted candidates came out): the local index's
 * `maxPostings`, smaller, since every posting read here costs more (a measured trade-off:
 * bench/pg.ts). The terms not read still count in every candidate's BM25F score.
 */
export const PG_MAX_POSTINGS = 20_000;

/** The postings of one term as the client keeps them: chunk ids, packed frequencies, field lengths (l0 << 16 | l1, l2 << 16 | l3). */
interface TermPostings {
  ids: Int32Array;
  tfs: Int32Array;
  la: Int32Array;
  lb: Int32Array;
}

/**
 * The postings a connection has read, kept for the next searches while the index's generation
 * (bumped by every write) stays the same: the frequent terms that most queries share are read from
 * the server once, not per search. At most `PG_CACHED_POSTINGS` postings (16 bytes each), the least
 * recently used terms dropped first.
 */
interface PostingCache {
  generation: string;
  terms: Map<string, TermPostings>;
  size: number;
  /** Chunks read for answers (their JSON text and ord, by id), at most `PG_CACHED_CHUNKS`, least recently used dropped first. */
  chunks: Map<number, { ord: number; json: string }>;
}
const postingCaches = new WeakMap<object, PostingCache>();
export const PG_CACHED_POSTINGS = 2_000_000;
export const PG_CACHED_CHUNKS = 5_000;

/**
 * The first round trip of a keyword search: each asked term's document frequency (terms the index
 * lacks left out), the index's totals and generation, and the postings of the terms that make
 * candidates — the rarest first while their postings add up to at most $2 (at least the rarest
 * term's), as `keywordRank` reads them — that the client does not hold for this generation ($3,
 * $4): each term's blob (`POSTING_BLOB`), or, where a write left the blob to build, its posting rows
 * as int arrays in text. The client sums the candidates and scores them: PostgreSQL's hash
 * aggregate over 20,000 postings took longer than reading and sending them (bench/pg.ts --server).
 * The frequent terms left out come from the connection's cache or, for the candidates only, from
 * `PROBE_SQL`: sending all of their postings (26,000 for `type`) made the slowest searches slower.
 */
const termsSql = (blobs: boolean) => `
with a as (select t.term, t.i, f.df, ${blobs ? 'f.postings is null' : 'true'} as stale from unnest($1::text[]) with ordinality as t(term, i) join fathom_terms f on f.term = t.term where f.df > 0),
r as (select term, df, stale, row_number() over (order by df, i) as rn, sum(df) over (order by df, i rows unbounded preceding) as cum,
  term = any($3::text[]) and $4::text is not distinct from (select value from fathom_meta where key = 'generation') as held from a)
select r.term, r.df, ${blobs ? 'case when not r.held and not r.stale and (r.rn = 1 or r.cum <= $2) then (select f.postings from fathom_terms f where f.term = r.term) end' : 'null::bytea'} as blob,
  x.ids, x.tfs, x.la, x.lb, null::text as key, null::text as value
from r left join lateral (
  select array_agg(p.id order by p.id)::text as ids, array_agg(p.tf order by p.id)::text as tfs, array_agg((p.l0::int << 16) | p.l1 order by p.id)::text as la, array_agg((p.l2::int << 16) | p.l3 order by p.id)::text as lb
  from fathom_postings p
  where p.term = r.term and r.stale and not r.held and (r.rn = 1 or r.cum <= $2)
) x on true
union all select null, null, null, null, null, null, null, key, value from fathom_meta where key in ('chunks', 'len_sums', 'generation', 'model', 'dense', 'dims')`;
const TERMS_SQL = prepared(termsSql(true));
/** The same for an index of schema 3 (pushed by an older Fathom; a searcher does not migrate it): no blobs. */
const TERMS_SQL_V3 = prepared(termsSql(false));
/** Connections whose index has no blobs yet, with the generation seen then (asked again once it changes). */
const withoutBlobs = new WeakMap<object, string>();

/** The postings of some terms, as `TERMS_SQL` gives them (a query that needs more candidates). */
const POSTINGS_SQL = `
select t.term, x.ids, x.tfs, x.la, x.lb from unnest($1::text[]) as t(term) left join lateral (
  select array_agg(p.id order by p.id)::text as ids, array_agg(p.tf order by p.id)::text as tfs, array_agg((p.l0::int << 16) | p.l1 order by p.id)::text as la, array_agg((p.l2::int << 16) | p.l3 order by p.id)::text as lb
  from fathom_postings p where p.term = t.term) x on true`;

/** The first index of `xs` (ascending) holding `x` or more. */
function lowerBound(xs: Int32Array, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The frequencies of the terms not read, in the candidates (BM25F counts every term of the query).
 * Not `prepared`: the generic plan PostgreSQL settles on after five runs was eight times slower
 * here than a plan for the arrays at hand (bench/pg.ts --server).
 */
const PROBE_SQL = 'select p.id, p.term, p.tf from fathom_postings p where p.term = any($2::text[]) and p.id = any($1::int[])';

/** A PostgreSQL int[] as text (`{1,2,3}`), or as the array a driver made of it. */
function intArray(x: number[] | string | null | undefined): Int32Array {
  if (x === null || x === undefined) return new Int32Array(0);
  if (Array.isArray(x)) return Int32Array.from(x, Number);
  const out = new Int32Array(x.length >> 1);
  let n = 0;
  let v = 0;
  let neg = false;
  let any = false;
  for (let i = 0; i < x.length; i++) {
    const c = x.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      any = true;
    } else if (c === 45) neg = true;
    else if (any) {
      out[n++] = neg ? -v : v;
      v = 0;
      neg = false;
      any = false;
    }
  }
  return out.slice(0, n);
}

type TermRow = { term: string | null; df?: number | null; blob?: Uint8Array | null; ids: number[] | string | null; tfs: number[] | string | null; la: number[] | string | null; lb: number[] | string | null; key?: string | null; value?: string | null };

function termPostings(r: TermRow): TermPostings {
  if (r.blob) return fromBlob(r.blob);
  return { ids: intArray(r.ids), tfs: intArray(r.tfs), la: intArray(r.la), lb: intArray(r.lb) };
}

/** A `POSTING_BLOB` read back. */
function fromBlob(b: Uint8Array): TermPostings {
  const n = b.byteLength >> 4;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const p = { ids: new Int32Array(n), tfs: new Int32Array(n), la: new Int32Array(n), lb: new Int32Array(n) };
  for (let i = 0, o = 0; i < n; i++, o += 16) {
    p.ids[i] = v.getInt32(o);
    p.tfs[i] = v.getInt32(o + 4);
    p.la[i] = (v.getInt16(o + 8) << 16) | (v.getInt16(o + 10) & 0xffff);
    p.lb[i] = (v.getInt16(o + 12) << 16) | (v.getInt16(o + 14) & 0xffff);
  }
  return p;
}

/** Keeps `p` in the connection's cache, dropping the least recently used terms past the bound. */
function cachePostings(cache: PostingCache, term: string, p: TermPostings): void {
  const had = cache.terms.get(term);
  if (had) cache.size -= had.ids.length;
  cache.terms.delete(term);
  cache.terms.set(term, p);
  cache.size += p.ids.length;
  for (const [t, q] of cache.terms) {
    if (cache.size <= PG_CACHED_POSTINGS || t === term) break;
    cache.terms.delete(t);
    cache.size -= q.ids.length;
  }
}

/**
 * Per chunk id, the sum of its postings' weights over the read terms (candidate scores): a dense
 * array by id (ids are the table's serial), the touched ids listed to clear them; a map past
 * `DENSE_IDS` (an index pushed over and over, its ids grown far past its chunk count).
 */
class Accumulator {
  private sums = new Float64Array(1024);
  /** 1 where `sums` holds a touched id (a sum may be 0 or below: an idf of a stale count). */
  private seen = new Uint8Array(1024);
  private touched = new Int32Array(1024);
  private n = 0;
  private sparse = new Map<number, number>();
  /** Per id, the number of terms of its symbol (`la`'s high half; 0: none): ties go to the shorter (keyword-candidates.ts `symbolLen`). */
  private symLen = new Uint16Array(1024);
  private sparseLen = new Map<number, number>();
  add(ids: Int32Array, tfs: Int32Array, w: number[], la?: Int32Array): void {
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j];
      const tf = tfs[j];
      const x = w[tf & 255 ? 0 : tf & 16776960 ? 1 : 2];
      if (id < 0 || id >= DENSE_IDS) {
        if (!this.sparse.has(id)) this.sparseLen.set(id, la ? la[j] >>> 16 : 0);
        this.sparse.set(id, (this.sparse.get(id) ?? 0) + x);
        continue;
      }
      if (id >= this.sums.length) {
        const size = Math.min(DENSE_IDS, Math.max(id + 1, this.sums.length * 2));
        const grown = new Float64Array(size);
        grown.set(this.sums);
        this.sums = grown;
        const marks = new Uint8Array(size);
        marks.set(this.seen);
        this.seen = marks;
        const lens = new Uint16Array(size);
        lens.set(this.symLen);
        this.symLen = lens;
      }
      if (!this.seen[id]) {
        this.seen[id] = 1;
        this.symLen[id] = la ? la[j] >>> 16 : 0;
        if (this.n === this.touched.length) {
          const t = new Int32Array(this.n * 2);
          t.set(this.touched);
          this.touched = t;
        }
        this.touched[this.n++] = id;
      }
      this.sums[id] += x;
    }
  }
  /** The `want` ids of the highest sums, best first, ties by lower id (`shortSymbolsFirst`: by the shorter symbol first). */
  top(want: number, shortSymbolsFirst = false): number[] {
    if (want <= 0 || (!this.n && !this.sparse.size)) return [];
    // the want-th best sum, then every id at or above it, sorted (ties at the floor decided by id, or symbol length first)
    const heap = new TopHeap(want);
    for (let i = 0; i < this.n; i++) {
      const s = this.sums[this.touched[i]];
      if (heap.size < want || s > heap.min) heap.push(this.touched[i], s);
    }
    for (const [id, s] of this.sparse) if (heap.size < want || s > heap.min) heap.push(id, s);
    const floor = heap.size < want ? -Infinity : heap.min;
    const all: Array<[number, number]> = [];
    for (let i = 0; i < this.n; i++) {
      const s = this.sums[this.touched[i]];
      if (s >= floor) all.push([this.touched[i], s]);
    }
    for (const [id, s] of this.sparse) if (s >= floor) all.push([id, s]);
    const len = (id: number) => (!shortSymbolsFirst ? 0 : (id < 0 || id >= DENSE_IDS ? this.sparseLen.get(id) : this.symLen[id]) || 0xffff);
    all.sort((a, b) => b[1] - a[1] || len(a[0]) - len(b[0]) || a[0] - b[0]);
    return all.slice(0, want).map((x) => x[0]);
  }
  clear(): void {
    for (let i = 0; i < this.n; i++) {
      this.sums[this.touched[i]] = 0;
      this.seen[this.touched[i]] = 0;
    }
    this.n = 0;
    this.sparse.clear();
    this.sparseLen.clear();
  }
}
const DENSE_IDS = 1 << 24;
/** Accumulators not in use (searches run concurrently: each takes its own, and gives it back cleared). */
const accumulators: Accumulator[] = [];

/** A name no keyword term holds (`A`: names.ts `unindexedNames`): the chunks it names, as the local engine's `orNamed`. */
const NAMED_SQL = `select id from fathom_chunks where chunk->>'symbol' = any($1::text[]) or (chunk->'meta'->'${ALSO_NAMED_META}')::jsonb ?| $1::text[] order by id limit $2`;

async function namedRank(sql: Sql, query: string, want: number): Promise<Array<{ id: number; score: number }>> {
  const names = unindexedNames(query);
  return names.length ? (await sql.query<{ id: number }>(NAMED_SQL, [names, want])).rows.map((r) => ({ id: r.id, score: 1 })) : [];
}

/**
 * The local index's keyword ranking (keyword.ts `search`: keyword-candidates.ts `candidatesOf`, then keyword-score.ts's BM25F with coverage and
 * the namesake tie-break), over the remote postings: `want` candidates, best first. One round trip
 * for the terms, with the postings that make candidates unless the connection holds them
 * (`TERMS_SQL`); another for the candidates' frequencies of the other terms, unless the connection
 * holds their postings; another only when the read terms give fewer than `want` candidates and
 * more terms are there.
 */
async function keywordRank(
  sql: Sql,
  query: string,
  want: number,
  maxPostings: number,
  cold = false,
  termWeight?: (term: string) => number,
): Promise<{ ranked: Array<{ id: number; score: number }>; cache?: PostingCache; meta?: Map<string, string> }> {
  const K = kw();
  const asked = planTerms(query, K);
  if (!asked.length) return { ranked: await namedRank(sql, query, want) };
  const terms = await readTerms(sql, asked, maxPostings, cold);
  const { cache, meta } = terms;
  const plan = planQuery(query, K, (t) => terms.dfOf.get(t), terms.N, termWeight);
  if (!plan.terms.length) return { ranked: [], cache, meta };
  const dfq = plan.terms.map((t) => terms.dfOf.get(t)!);
  const idfRaw = dfq.map((df) => Math.log(1 + (terms.N - df + 0.5) / (df + 0.5)));
  const { cands, got } = await candidatesOf(sql, plan.terms, dfq, idfRaw, terms, want, maxPostings, codeNames(query).length > 0);
  if (!cands.length) return { ranked: [], cache, meta };
  const facts = await candidateFacts(sql, cands, plan.terms, got);
  return { ranked: bm25fOrder(K, plan, idfRaw, cands, facts, terms.N, terms.sumLen), cache, meta };
}

/** What the first round trip brings (`TERMS_SQL`): document frequencies, totals, the postings sent, the connection's cache for this generation. */
interface TermsRead {
  dfOf: Map<string, number>;
  N: number;
  sumLen: number[];
  /** The postings the server sent (blobs or rows). */
  sent: Map<string, TermPostings>;
  cache: PostingCache;
  /** The index's meta rows the statement read (generation, totals, the dense model), for the dense list of the same search. */
  meta: Map<string, string>;
}

async function readTerms(sql: Sql, asked: string[], maxPostings: number, cold: boolean): Promise<TermsRead> {
  let cache = cold ? undefined : postingCaches.get(sql);
  const params = [asked, maxPostings, cache ? asked.filter((t) => cache!.terms.has(t)) : [], cache?.generation ?? null];
  const older = withoutBlobs.get(sql);
  let first: { rows: TermRow[] };
  try {
    first = await sql.query<TermRow>(older === undefined ? TERMS_SQL : TERMS_SQL_V3, params);
  } catch (err) {
    if (older !== undefined || (err as { code?: string }).code !== '42703') throw err; // 42703: no such column (schema 3)
    first = await sql.query<TermRow>(TERMS_SQL_V3, params);
    withoutBlobs.set(sql, '');
  }
  const mm = new Map<string, string>();
  for (const r of first.rows) if (r.term === null) mm.set(r.key ?? '', r.value ?? '');
  const generation = mm.get('generation') ?? '0';
  if (withoutBlobs.has(sql)) {
    if (!withoutBlobs.get(sql)) withoutBlobs.set(sql, generation);
    else if (withoutBlobs.get(sql) !== generation) withoutBlobs.delete(sql); // written since: maybe migrated
  }
  if (!cache || cache.generation !== generation) {
    cache = { generation, terms: new Map(), size: 0, chunks: new Map() };
    if (!cold) postingCaches.set(sql, cache);
  }
  const dfOf = new Map<string, number>();
  const sent = new Map<string, TermPostings>();
  for (const r of first.rows) {
    if (r.term === null) continue;
    dfOf.set(r.term, Number(r.df));
    if (r.blob || r.ids !== null) sent.set(r.term, termPostings(r));
  }
  return { dfOf, N: Math.max(1, Number(mm.get('chunks') ?? 0)), sumLen: (mm.get('len_sums') ?? '0,0,0,0').split(',').map(Number), sent, cache, meta: mm };
}

/** The postings of `t` the server sent or the connection holds (kept as most recently used), if any. */
function atHand(terms: TermsRead, t: string): TermPostings | undefined {
  const p = terms.sent.get(t) ?? terms.cache.terms.get(t);
  if (p) cachePostings(terms.cache, t, p);
  return p;
}

/**
 * The `want` candidates (keyword-candidates.ts `candidatesOf`): per chunk Σ idf × the class weight over the
 * rarest terms within the postings budget, more terms while too few came out; with the postings
 * read (`got`, by term).
 */
async function candidatesOf(sql: Sql, planTerms: string[], dfq: number[], idfRaw: number[], terms: TermsRead, want: number, maxPostings: number, shortSymbolsFirst = false): Promise<{ cands: number[]; got: Map<string, TermPostings> }> {
  const nq = planTerms.length;
  const order = planTerms.map((_, q) => q).sort((a, b) => dfq[a] - dfq[b] || a - b);
  const { symbol, path: pathB, header, text } = kw().boosts;
  const classW = [Math.max(1e-6, symbol), Math.max(1e-6, header, pathB), Math.max(1e-6, text)];
  let next = 0;
  let read = 0;
  while (next < nq && (next === 0 || read + dfq[order[next]] <= maxPostings)) read += dfq[order[next++]];
  const acc = accumulators.pop() ?? new Accumulator();
  let summed = 0;
  let cands: number[] = [];
  const got = new Map<string, TermPostings>();
  for (;;) {
    const now = order.slice(summed, next).map((q) => planTerms[q]);
    // at hand, or (a query of over 64 terms, or more candidates needed) read now
    for (const t of now) {
      const p = atHand(terms, t);
      if (p) got.set(t, p);
    }
    const missing = now.filter((t) => !got.has(t));
    if (missing.length) {
      for (const r of (await sql.query<TermRow>(POSTINGS_SQL, [missing])).rows) {
        const p = termPostings(r);
        got.set(r.term!, p);
        cachePostings(terms.cache, r.term!, p);
      }
    }
    for (; summed < next; summed++) {
      const q = order[summed];
      const p = got.get(planTerms[q]);
      if (p) acc.add(p.ids, p.tfs, classW.map((x) => idfRaw[q] * x), p.la);
    }
    cands = acc.top(want, shortSymbolsFirst);
    if (cands.length >= want || next >= nq) break;
    next++;
  }
  // the rarest term's chunks stay candidates when they are at most half of them (keyword-candidates.ts)
  const rare = nq > 1 ? got.get(planTerms[order[0]])?.ids : undefined;
  if (rare && rare.length <= want / 2 && cands.length >= want) {
    const have = new Set(cands);
    const add = Array.from(rare).filter((id) => !have.has(id));
    if (add.length) cands = cands.slice(0, want - add.length).concat(add);
  }
  acc.clear();
  accumulators.push(acc);
  // the other terms' postings where they are at hand (held by the connection)
  for (const q of order.slice(next)) {
    const p = atHand(terms, planTerms[q]);
    if (p) got.set(planTerms[q], p);
  }
  return { cands, got };
}

/** Per candidate, its field lengths and its frequencies of the query's terms: from the postings at hand, the rest from the server (`PROBE_SQL`). */
async function candidateFacts(sql: Sql, cands: number[], planTerms: string[], got: Map<string, TermPostings>): Promise<Map<number, { lens: number[]; ts: string[]; tfs: number[] }>> {
  const byId = new Map<number, { lens: number[]; ts: string[]; tfs: number[] }>(cands.map((id) => [id, { lens: [], ts: [], tfs: [] }]));
  const sorted = Int32Array.from(cands).sort();
  for (const [t, p] of got) {
    const take = (j: number, r: { lens: number[]; ts: string[]; tfs: number[] }) => {
      if (!r.lens.length) r.lens = [p.la[j] >>> 16, p.la[j] & 0xffff, p.lb[j] >>> 16, p.lb[j] & 0xffff];
      r.ts.push(t);
      r.tfs.push(p.tfs[j]);
    };
    if (sorted.length * 16 < p.ids.length) {
      // a frequent term (its postings by id): each candidate looked up, not every posting
      for (const id of sorted) {
        const j = lowerBound(p.ids, id);
        if (j < p.ids.length && p.ids[j] === id) take(j, byId.get(id)!);
      }
      continue;
    }
    for (let j = 0; j < p.ids.length; j++) {
      const r = byId.get(p.ids[j]);
      if (r) take(j, r);
    }
  }
  const unread = planTerms.filter((t) => !got.has(t));
  if (unread.length) {
    for (const p of (await sql.query<{ id: number; term: string; tf: number }>(PROBE_SQL, [cands, unread])).rows) {
      const r = byId.get(p.id);
      if (!r) continue;
      r.ts.push(p.term);
      r.tfs.push(Number(p.tf));
    }
  }
  return byId;
}

/** The candidates by BM25F as keyword-score.ts `bm25f` computes it (coverage, then the namesake tie-break), best first. */
function bm25fOrder(
  K: KeywordIndex,
  plan: ReturnType<typeof planQuery>,
  idfRaw: number[],
  cands: number[],
  byId: Map<number, { lens: number[]; ts: string[]; tfs: number[] }>,
  N: number,
  sumLen: number[],
): Array<{ id: number; score: number }> {
  const { k1, b } = K;
  const { symbol, path: pathB, header, text } = K.boosts;
  const qOf = new Map(plan.terms.map((t, q) => [t, q]));
  const idf = idfRaw.map((x, q) => x * plan.weight[q]);
  let totalIdf = 0;
  let known = 0;
  for (const x of plan.conceptIdf) {
    totalIdf += x;
    if (x > 0) known++;
  }
  const alpha = K.coverage > 0 && totalIdf > 0 && known > 1 && known <= COVERAGE_MAX_CONCEPTS ? K.coverage : 0;
  const w = [symbol, pathB, header, text];
  const inv = sumLen.map((x) => (x > 0 ? N / x : 0));
  const scored: Array<{ id: number; score: number; order: number; share: number; named: number }> = [];
  let best = 0;
  cands.forEach((id, c) => {
    const r = byId.get(id);
    if (!r) return; // removed meanwhile
    const lens = r.lens;
    const norm = lens.map((len, f) => w[f] / (2 * (1 - b + b * len * inv[f])));
    let score = 0;
    let covered = 0;
    let symHalves = 0;
    let share = 0;
    let named = 0;
    r.ts.forEach((t, j) => {
      const q = qOf.get(t);
      if (q === undefined) return;
      const p = r.tfs[j] >>> 0;
      const W = (p & 255) * norm[0] + ((p >>> 8) & 255) * norm[1] + ((p >>> 16) & 255) * norm[2] + (p >>> 24) * norm[3];
      score += (idf[q] * W * (k1 + 1)) / (k1 + W);
      covered |= plan.covers[q];
      symHalves += p & 255;
    });
    if (lens[0] > 0 && symHalves > 0) {
      const h = symHalves / 2;
      named = Math.max(0, Math.min(4, h - (lens[0] - h) / 2));
    }
    if (score > 0 && totalIdf > 0) {
      let got = 0;
      for (let mask = covered, x = 0; mask !== 0 && x < 31; x++, mask >>>= 1) if (mask & 1) got += plan.conceptIdf[x];
      share = got / totalIdf;
      if (share > best) best = share;
      if (alpha > 0) score *= share ** alpha;
    }
    scored.push({ id, score, order: c, share, named });
  });
  const nameW = K.namesake;
  if (nameW > 0) for (const x of scored) if (x.named > 0 && (alpha === 0 || x.share >= best - 1e-9)) x.score *= 1 + nameW * x.named;
  scored.sort((x, y) => y.score - x.score || x.order - y.order);
  return scored.map((x) => ({ id: x.id, score: x.score }));
}

/**
 * pgvector's nearest chunks (their score, the inner product), and in the same statement the
 * score of each chunk of $4 (the keyword list's candidates: `chunk` null), which the convex
 * fusion needs. Union all keeps no order: the client sorts the nearest again (score, path, ord).
 */
const DENSE_SQL = prepared(`
(select c.id, c.chunk, c.ord, c.path, -(c.embedding <#> $1::vector) as score from fathom_chunks c
where c.embedding is not null and exists (select 1 from fathom_meta where key = 'model' and value = $3)
order by c.embedding <#> $1::vector, c.path, c.ord limit $2)
union all
select c.id, null, c.ord, c.path, -(c.embedding <#> $1::vector) from fathom_chunks c
where c.id = any($4::int[]) and c.embedding is not null and exists (select 1 from fathom_meta where key = 'model' and value = $3)`);
/** The chunks of some ids as JSON text (parsed here, kept by the connection), and the facts the filters read. */
const CHUNK_TEXTS_SQL = prepared('select id, ord, chunk::text as chunk from fathom_chunks where id = any($1::int[])');
const FACTS_SQL = prepared('select id, path, language, kind from fathom_chunks where id = any($1::int[])');
const PIECES_SQL = prepared('select c.path, c.ord, c.chunk::text as chunk from fathom_chunks c join unnest($1::text[], $2::int[]) as u(path, ord) on c.path = u.path and c.ord = u.ord');
const DENSE_META_SQL = prepared("select key, value from fathom_meta where key in ('model', 'dense', 'dims', 'generation')");

/** The int8 codes of one generation of the index, read once per connection and generation. */
interface CodeTable {
  generation: string;
  model: string;
  dims: number;
  /** The chunk id of each row. */
  ids: Int32Array;
  /** Per row: value = code × scale (the stored max |x| / 127). */
  scales: Float32Array;
  codes: Int8Array;
  /** The same codes in the SIMD scanner's memory (int8-scan.ts), where the runtime allows. */
  simd: Int8Rows | undefined;
}
const codeTables = new WeakMap<object, Promise<CodeTable>>();

async function loadCodes(sql: Sql, generation: string, model: string, dims: number): Promise<CodeTable> {
  const r = await sql.query<{ id: number; code: Uint8Array; code_scale: number }>('select id, code, code_scale from fathom_chunks where code is not null order by id');
  const rows = r.rows.filter((x) => x.code.length === dims);
  const ids = new Int32Array(rows.length);
  const scales = new Float32Array(rows.length);
  const codes = new Int8Array(rows.length * dims);
  rows.forEach((x, i) => {
    ids[i] = x.id;
    scales[i] = Number(x.code_scale) / 127;
    codes.set(new Int8Array(x.code.buffer, x.code.byteOffset, dims), i * dims);
  });
  return { generation, model, dims, ids, scales, codes, simd: Int8Rows.fromCodes(codes, scales, dims) };
}

/** The inner product of `qv` with the stored code of chunk `id` (rows are in id order), undefined when it has none. */
function codeScore(table: CodeTable, id: number, qv: Float32Array): number | undefined {
  let lo = 0;
  let hi = table.ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const x = table.ids[mid];
    if (x === id) return dot8(table.codes, mid * table.dims, qv, table.dims, table.dims - (table.dims % 4)) * table.scales[mid];
    if (x < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/**
 * The `want` stored codes nearest `qv` by inner product (ties: lower id first), with their
 * scores: the local store's int8 scan, in the client; `scoreOf` scores any other chunk's code
 * (a keyword candidate's, for the convex fusion).
 */
async function denseByCodes(sql: Sql, m: Map<string, string>, model: string, qv: Float32Array, want: number): Promise<{ hits: Array<{ id: number; score: number }>; scoreOf?: (id: number) => number | undefined }> {
  if (m.get('model') !== model) return { hits: [] };
  const generation = m.get('generation') ?? '0';
  const dims = Number(m.get('dims') ?? qv.length);
  if (dims !== qv.length) return { hits: [] };
  let p = codeTables.get(sql);
  let t = p ? await p.catch(() => undefined) : undefined;
  if (!t || t.generation !== generation || t.model !== model) {
    p = loadCodes(sql, generation, model, dims);
    codeTables.set(sql, p);
    t = await p;
  }
  const table = t;
  const scoreOf = (id: number) => codeScore(table, id, qv);
  if (table.simd) return { hits: table.simd.top(table.ids.length, qv, want).map((h) => ({ id: table.ids[h.docId], score: h.score })), scoreOf };
  // no WebAssembly SIMD (or dimensions it cannot take): the IVF's JS loop over the same codes
  const heap = new TopHeap(Math.max(1, want));
  const tail = dims - (dims % 4);
  for (let i = 0; i < table.ids.length; i++) {
    const x = dot8(table.codes, i * dims, qv, dims, tail) * table.scales[i];
    if (x > heap.min) heap.push(i, x);
  }
  const hits = Array.from({ length: heap.size }, (_, i) => ({ i: heap.ids[i], s: heap.scoreAt(i) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((h) => ({ id: table.ids[h.i], score: h.s }));
  return { hits, scoreOf };
}

/** The chunks of `ids` (their JSON text and ord): those the connection's cache holds for this generation, the others read (and kept). */
async function chunksOf(sql: Sql, ids: number[], cache: PostingCache | undefined): Promise<Map<number, { ord: number; json: string }>> {
  const out = new Map<number, { ord: number; json: string }>();
  const need: number[] = [];
  for (const id of ids) {
    const c = cache?.chunks.get(id);
    if (!c) {
      need.push(id);
      continue;
    }
    out.set(id, c);
    cache!.chunks.delete(id); // most recently used last
    cache!.chunks.set(id, c);
  }
  if (!need.length) return out;
  const rows = await sql.query<{ id: number; ord: number; chunk: string }>(CHUNK_TEXTS_SQL, [need]);
  for (const r of rows.rows) {
    const c = { ord: r.ord, json: r.chunk };
    out.set(r.id, c);
    if (!cache) continue;
    cache.chunks.set(r.id, c);
    if (cache.chunks.size > PG_CACHED_CHUNKS) cache.chunks.delete(cache.chunks.keys().next().value!);
  }
  return out;
}

/** Connections that have their HNSW search breadth set (once per connection, not per query). */
const efSet = new WeakSet<object>();

/**
 * One answer's chunks (each given a `docId` the first time it is seen, by path and ordinal) and
 * the filters asked: on a chunk of the answer, and on a ranked chunk's facts before its text is read.
 */
class Answer {
  readonly pool: Chunk[] = [];
  /** Each pool chunk's place in its file (`fathom_chunks.ord`). */
  readonly ords: number[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly filter: ((id: number) => boolean) | undefined;
  private readonly factFilter: ((id: number) => boolean) | undefined;
  private facts: { path: string; language: string; kind: string } | undefined;
  readonly filtering: boolean;
  /** How many hits each list gives the fusion, and how many a list reads before its filters. */
  readonly depth: number;
  readonly fetch: number;

  constructor(
    readonly q: string,
    readonly options: PgSearchOptions,
    k: number,
  ) {
    this.filter = options.filters ? compileFilter(options.filters, (id) => this.pool[id]) : undefined;
    this.factFilter = options.filters ? compileFilter(options.filters, () => this.facts) : undefined;
    this.filtering = !!(options.filters && (options.filters.pathGlob || options.filters.language?.length || options.filters.kind?.length)) || !!options.exclude?.size;
    this.depth = Math.max(50, k * 5);
    this.fetch = this.filtering ? this.depth * 4 : this.depth;
  }

  idOf(c: Chunk, ord: number): number {
    const key = `${c.path}\u0000${ord}`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.pool.length;
      this.pool.push(c);
      this.ords.push(ord);
      this.byKey.set(key, id);
    }
    return id;
  }

  /** Whether the answer holds a file's chunk `ord`. */
  has(path: string, ord: number): boolean {
    return this.byKey.has(`${path}\u0000${ord}`);
  }

  /**
   * What `present` (rank/present.ts) reads of the answer. For a query that `describes` (a unit is
   * then shown by its first piece), the first piece of each cut unit among the candidates is read
   * when the answer does not hold it; otherwise a piece the answer lacks would not be shown (it has
   * no keyword score, and did not rank), so nothing is read. A locale chunk is told by its kind (a
   * JSON dictionary's key sections): the local engine also knows the i18n index's other locale
   * files (YAML, PO …), which the team index does not keep.
   */
  async presentSource(sql: Sql, ids: readonly number[], describes: boolean): Promise<PresentSource> {
    const firsts = !describes ? [] : ids.map((id) => ({ c: this.pool[id], ord: this.ords[id] - (this.pool[id].split?.index ?? 0) })).filter(({ c, ord }) => c.split && c.split.index > 0 && !this.has(c.path, ord));
    const pieces = firsts.length ? await sql.query<{ path: string; ord: number; chunk: string }>(PIECES_SQL, [firsts.map((f) => f.c.path), firsts.map((f) => f.ord)]) : undefined;
    for (const r of pieces?.rows ?? []) this.idOf(parseChunk(r.chunk), r.ord);
    const byFile = new Map<string, number[]>();
    this.pool.forEach((c, id) => {
      const l = byFile.get(c.path);
      if (l) l.push(id);
      else byFile.set(c.path, [id]);
    });
    for (const l of byFile.values()) l.sort((x, y) => this.ords[x] - this.ords[y]);
    return {
      head: (id) => this.pool[id],
      chunk: (id) => this.pool[id],
      text: (id) => this.pool[id]?.text,
      isLocale: (c) => c.kind === 'i18n-section' || c.kind === 'i18n-labels',
      fileDocIds: (p) => byFile.get(p) ?? [],
    };
  }

  /** Does a ranked chunk with these facts pass the filters and the left-out paths? */
  passes(r: { path: string; language: string; kind: string }): boolean {
    if (this.options.exclude?.has(r.path)) return false;
    this.facts = r;
    return !this.factFilter || this.factFilter(0);
  }

  /** Does the answer's chunk `id` pass them? */
  keep(id: number): boolean {
    return !this.options.exclude?.has(this.pool[id].path) && (!this.filter || this.filter(id));
  }
}

/** The keyword list before its texts: the ranked chunk ids that pass the filters (the best `depth`), their BM25F scores, and what the terms' statement read. */
interface KeywordRanked {
  passed: number[];
  scoreOf: Map<number, number>;
  cache?: PostingCache;
  meta?: Map<string, string>;
}

/** BM25F over the postings, then the filters on the ranked chunks' facts. */
async function keywordRanked(sql: Sql, a: Answer, termWeight?: (term: string) => number): Promise<KeywordRanked> {
  const { q, options, depth } = a;
  const { ranked: rankedHits, cache, meta } = await keywordRank(sql, q, Math.max(a.fetch, kw().candidates) * (a.filtering ? 4 : 1), options.maxPostings ?? PG_MAX_POSTINGS, options.cold, termWeight);
  if (cache) options.seen?.add(cache.generation);
  const ranked = rankedHits.map((h) => h.id);
  const scoreOf = new Map(rankedHits.map((h) => [h.id, h.score]));
  let passed = ranked.slice(0, depth);
  if (a.filtering && ranked.length) {
    const f = await sql.query<{ id: number; path: string; language: string; kind: string }>(FACTS_SQL, [ranked]);
    const factsOf = new Map(f.rows.map((r) => [r.id, r]));
    passed = ranked.filter((id) => factsOf.has(id) && a.passes(factsOf.get(id)!)).slice(0, depth);
  }
  return { passed, scoreOf, cache, meta };
}

/** The keyword list from its ranked ids and their texts: the engine's order after BM25, term proximity (over the text and the i18n text shown with it), then the phrase tiers. */
function keywordOrder(a: Answer, r: KeywordRanked, local: Map<number, number>, found: { phrase: boolean }): number[] {
  const { q, depth } = a;
  const kept = r.passed.filter((id) => local.has(id));
  if (!kept.length) return [];
  const hits = kept.map((id) => ({ docId: local.get(id)!, score: r.scoreOf.get(id) ?? 0 }));
  const pool = a.pool;
  const ids = proximityOrder(q, hits, depth, (id) => proximityText(pool[id]?.text, pool[id]));
  const phrased = phraseFirst(q, ids, (id) => pool[id]?.text, (id) => shownText(pool[id])?.split('\n').map(shownForm), ids.length, found, (id) => searchTermsOf(pool[id]));
  return namesakesFirst(q, phrased, (id) => unitNames(pool[id]), found);
}

/**
 * The dense list before its texts: the ids of the nearest int8 codes (scored here), or pgvector's
 * HNSW rows (chunks and all). `meta`: the index's meta rows, when the keyword list of the same
 * search read them already (one round trip fewer).
 */
async function denseFound(
  sql: Sql,
  a: Answer,
  embedder: Embedder,
  qv: Promise<Float32Array[]>,
  meta: Map<string, string> | undefined,
  keywordIds: number[],
): Promise<({ generation: string } & Awaited<ReturnType<typeof denseByCodes>>) | { rows: Array<{ chunk: Chunk | string; ord: number; score: number }>; scoreOf: Map<number, number> }> {
  const m = meta ?? new Map((await sql.query<{ key: string; value: string }>(DENSE_META_SQL)).rows.map((x) => [x.key, x.value]));
  const [v] = await qv;
  const generation = m.get('generation') ?? '0';
  a.options.seen?.add(generation);
  if (m.get('dense') === 'int8-codes') return { ...(await denseByCodes(sql, m, embedder.id, v, a.fetch)), generation };
  if (!efSet.has(sql)) {
    await sql.query("select set_config('hnsw.ef_search', '200', false)").catch(() => undefined);
    efSet.add(sql);
  }
  const got = (await sql.query<{ id: number; chunk: Chunk | string | null; ord: number; path: string; score: number }>(DENSE_SQL, [vectorLiteral(v), a.fetch, embedder.id, keywordIds])).rows;
  const scoreOf = new Map<number, number>();
  const rows: Array<{ chunk: Chunk | string; ord: number; score: number; path: string }> = [];
  for (const r of got) {
    scoreOf.set(Number(r.id), Number(r.score));
    if (r.chunk !== null) rows.push({ chunk: r.chunk, ord: r.ord, score: Number(r.score), path: r.path });
  }
  rows.sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0) || x.ord - y.ord);
  return { rows, scoreOf };
}

/** The connection's cache of this generation (none for a cold search, or when it holds another generation). */
function cacheOf(sql: Sql, generation: string, cold: boolean | undefined): PostingCache | undefined {
  const c = cold ? undefined : postingCaches.get(sql);
  return c?.generation === generation ? c : undefined;
}

/**
 * Both lists of a search: the keyword list's terms statement first (it also reads the meta the
 * dense list needs), the query's vector meanwhile, the dense ids, then one statement for the
 * chunks of both lists that the connection does not hold.
 */
async function lists(sql: Sql, a: Answer, embedder: Embedder | undefined, keyword: boolean, found: { phrase: boolean }): Promise<Lists> {
  const qv = embedder ? embedder.embed([a.q], undefined, { urgent: true, query: true }) : undefined;
  qv?.catch(() => undefined); // awaited below; a failure there, not as an unhandled rejection meanwhile
  // as the local engine: with Fathom's own model, the query's words weighed as it weighs them (fusion.ts modelTermWeights)
  const r = keyword ? await keywordRanked(sql, a, modelTermWeights(embedder)) : undefined;
  const d = embedder ? await denseFound(sql, a, embedder, qv!, r?.meta, r?.passed ?? []) : undefined;
  const ids = [...(r?.passed ?? []), ...(d && 'hits' in d ? d.hits.map((h) => h.id) : [])];
  const cache = r ? r.cache : d && 'hits' in d ? cacheOf(sql, d.generation, a.options.cold) : undefined;
  const chunkOf = ids.length ? await chunksOf(sql, [...new Set(ids)], cache) : new Map<number, { ord: number; json: string }>();
  const out: Lists = { keywordScores: new Map(), denseScores: new Map() };
  // each fetched chunk's local id (parsed once), and both scores where known (by its chunk id here)
  const local = new Map<number, number>();
  for (const id of ids) {
    const c = chunkOf.get(id);
    if (c && !local.has(id)) local.set(id, a.idOf(parseChunk(c.json), c.ord));
  }
  if (r) {
    out.keyword = keywordOrder(a, r, local, found);
    for (const [id, at] of local) if (r.scoreOf.has(id)) out.keywordScores.set(at, r.scoreOf.get(id)!);
  }
  if (d && 'hits' in d) {
    out.dense = d.hits.filter((h) => local.has(h.id) && a.keep(local.get(h.id)!)).slice(0, a.depth).map((h) => local.get(h.id)!);
    for (const h of d.hits) if (local.has(h.id)) out.denseScores.set(local.get(h.id)!, h.score);
    // the model's score of each keyword candidate it did not rank: the convex fusion needs both
    for (const id of r?.passed ?? []) {
      const at = local.get(id);
      const x = at === undefined || out.denseScores.has(at) ? undefined : d.scoreOf?.(id);
      if (x !== undefined) out.denseScores.set(at!, x);
    }
  } else if (d) {
    out.dense = [];
    for (const row of d.rows) {
      const at = a.idOf(parseChunk(row.chunk), row.ord);
      out.denseScores.set(at, row.score);
      if (a.keep(at) && out.dense.length < a.depth) out.dense.push(at);
    }
    for (const [id, at] of local) if (!out.denseScores.has(at) && d.scoreOf.has(id)) out.denseScores.set(at, d.scoreOf.get(id)!);
  }
  return out;
}

/** A search's lists by local id, with the scores the convex fusion reads. */
interface Lists {
  keyword?: number[];
  dense?: number[];
  keywordScores: Map<number, number>;
  denseScores: Map<number, number>;
}

/** Hybrid search of the remote index; hits carry `docId`s local to this answer. */
export async function pgSearch(sql: Sql, query: string, options: PgSearchOptions = {}): Promise<SearchHit[]> {
  const k = Math.max(1, options.k ?? 10);
  const q = query.length > 10_000 ? query.slice(0, 10_000) : query;
  if (!q.trim()) return [];
  const mode = options.mode ?? 'hybrid';
  const a = new Answer(q, options, k);
  const found = { phrase: false };
  const embedder = mode !== 'keyword' ? options.embedder : undefined;
  const { keyword, dense, keywordScores, denseScores } = await lists(sql, a, embedder, mode !== 'dense', found);
  const ranked: RankedList[] = [];
  if (keyword) ranked.push({ name: 'keyword', ids: keyword });
  // Fathom's own model weighed as the local engine weighs it (asked in parallel, dropped when it takes no part)
  const own = !!embedder?.id.startsWith(STATIC_MODEL_NAME);
  let asked = false;
  if (dense) {
    const weight = own && mode !== 'dense' ? ownModelWeight(q, found.phrase, embedder!.coverage?.(q)) : undefined;
    asked = !!weight;
    if (weight === undefined || weight) ranked.push({ name: 'dense', ids: dense, ...(weight === undefined ? {} : { weight }) });
  }
  // both lists of Fathom's own model: their scores combined, as in the local engine (fusion.ts, convex); else RRF
  const fused =
    own && asked && keyword
      ? convex({ name: 'keyword', ids: keyword, scores: keywordScores }, { name: 'dense', ids: dense!, scores: denseScores }, { depth: a.depth, limit: a.depth })
      : rrf(ranked, { k: options.rrfK ?? DEFAULT_RRF_K, limit: a.depth });
  // a query in words: its first candidates re-ranked, as in the local engine (rank/rerank.ts); the
  // model's first join them when it was not asked (withModelCandidates)
  let reranked = fused;
  if (own && mode === 'hybrid' && options.rerank !== false && keyword && wantsRerank(q, found.phrase, embedder!.coverage?.(q) ?? 1, asked)) {
    const pool = !asked && dense ? withModelCandidates(fused, dense) : { hits: fused, depth: RERANK_DEPTH };
    reranked = rerank(q, pool.hits, { keywordScore: (id) => keywordScores.get(id), cosine: (id) => denseScores.get(id), chunk: (id) => a.pool[id], text: (id) => a.pool[id]?.text, termWeight: (t) => embedder!.queryTermWeight?.(t) ?? 1 }, asked, {}, pool.depth);
  }
  // test code below its implementation, prose below the code a plain-words query describes, as in the local engine
  const describes = ownModelWeight(q, found.phrase) > 0;
  const weighed = weighByPath(reranked, q, (h) => a.pool[h.docId]?.path, { describes, symbolOf: (h) => a.pool[h.docId]?.symbol, kindOf: (h) => a.pool[h.docId]?.kind });
  if (options.diversify === false) return weighed.slice(0, k).map((h) => ({ chunk: a.pool[h.docId], docId: h.docId, score: h.score, why: h.why }));
  // presented as the local engine presents its ranking: locales folded, a cut unit one result from its first piece, 3 a file
  const src = await a.presentSource(sql, weighed.map((h) => h.docId), describes);
  return present(q, weighed, k, options.diversify, { describes, phrase: found.phrase, keyword: keywordScores }, src);
}

