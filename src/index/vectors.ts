import { INT8_SCAN_MIN_ROWS, Int8Rows } from './int8-scan';
import { dot, IvfIndex, type IvfOptions } from './ivf';

/**
 * Dense vectors in one contiguous Float32Array (row = docId), exact top-k by dot product
 * (vectors are normalized, so dot = cosine). A row with no vector yet is skipped.
 *
 * Measured at 100k rows × 384 (bench/engine.ts): the JS scan below ~30 ms, the embedder's
 * ONNX Runtime MatMul over the same matrix ~10 ms, so search uses the latter when it exists.
 * Fathom's own model has no such kernel: at 100k rows × 128 the int8 SIMD scan (`fastSearch`)
 * answers dense top-k in 1.7 ms p50 where the JS scan takes 21.8 ms (same run, loaded machine).
 */
/**
 * Lists opened per query: an eighth of them, at least 16. bench/dense.ts at 1M rows on the cost
 * model's vectors of real code chunks with near-copies (the tuning set): a sixteenth gave
 * recall@10 0.971, an eighth 0.998 (23% of the rows read, in 1/40 of the exact MatMul's time).
 */
export function probeFor(lists: number): number {
  return Math.min(lists, Math.max(16, Math.round(lists / 8)));
}

export class VectorStore {
  private data: Float32Array;
  private present: Uint8Array;
  private rows = 0;
  private present1 = 0;
  /** The IVF index, once built (`buildAnn`); kept current by `set`. */
  private ivf: IvfIndex | undefined;
  /** docIds set while an IVF build runs (it may have read their old vector): added to it when done. */
  private setDuringBuild: number[] | undefined;
  /** Rows the last `annSearch` read (its share of `count` is the work against an exact scan). */
  lastScanned = 0;
  /** The rows' int8 codes for `fastSearch`, once built; null when this runtime cannot have them. */
  private int8: Int8Rows | undefined | null;

  constructor(readonly dims: number, capacity = 1024) {
    this.data = new Float32Array(dims * capacity);
    this.present = new Uint8Array(capacity);
  }

  /** Rows that hold a vector (kept as a count: search asks on every query). */
  get count(): number {
    return this.present1;
  }

  has(docId: number): boolean {
    return docId < this.rows && this.present[docId] === 1;
  }

  private grow(min: number): void {
    let cap = Math.max(1, this.present.length);
    while (cap < min) cap *= 2;
    if (cap === this.present.length) return;
    const data = new Float32Array(this.dims * cap);
    data.set(this.data);
    const present = new Uint8Array(cap);
    present.set(this.present);
    this.data = data;
    this.present = present;
  }

  set(docId: number, v: Float32Array): void {
    if (v.length !== this.dims) throw new Error(`vector has ${v.length} dimensions, the store ${this.dims}`);
    this.grow(docId + 1);
    this.data.set(v, docId * this.dims);
    if (this.int8 && !this.int8.set(docId, this.data)) this.int8 = undefined; // past its rows: built larger on the next search
    this.ivf?.add(docId, v);
    this.setDuringBuild?.push(docId);
    if (!this.present[docId]) this.present1++;
    this.present[docId] = 1;
    this.rows = Math.max(this.rows, docId + 1);
  }

  get(docId: number): Float32Array | undefined {
    if (!this.has(docId)) return undefined;
    return this.data.subarray(docId * this.dims, (docId + 1) * this.dims);
  }

  delete(docId: number): void {
    if (docId < this.rows && this.present[docId]) {
      this.present[docId] = 0;
      this.present1--;
    }
  }

  /** The stored rows as one row-major [rows, dims] matrix (a view, not a copy; absent rows hold stale numbers). */
  matrix(): { data: Float32Array; rows: number } {
    return { data: this.data.subarray(0, this.rows * this.dims), rows: this.rows };
  }

  /**
   * Dot product of `query` with every row, in plain JavaScript: four accumulators per row, which
   * V8 keeps in registers (about twice as fast as one). The embedder's BLAS kernel, when there
   * is one, does the same several times faster; this is the fallback and the tests' oracle.
   */
  scores(query: Float32Array): Float32Array {
    const d = this.dims;
    const data = this.data;
    const out = new Float32Array(this.rows);
    const tail = d - (d % 4);
    for (let id = 0, off = 0; id < this.rows; id++, off += d) {
      if (this.present[id]) out[id] = dot(data, off, query, d, tail);
    }
    return out;
  }

  /**
   * Exact top-k through the rows' int8 codes and the SIMD scan, the best re-scored with the
   * floats (int8-scan.ts): several times faster than `search` from INT8_SCAN_MIN_ROWS rows on.
   * Undefined below that, or where WebAssembly SIMD or the dimensions (a multiple of 16) do not
   * allow it: the caller uses `search`.
   */
  fastSearch(query: Float32Array, k: number, filter?: (docId: number) => boolean): Array<{ docId: number; score: number }> | undefined {
    if (this.present1 < INT8_SCAN_MIN_ROWS || this.int8 === null) return undefined;
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, the store ${this.dims}`);
    if (!this.int8) {
      this.int8 = Int8Rows.build(this.data, this.dims, this.rows, Math.max(this.rows, this.present.length)) ?? null;
      if (!this.int8) return undefined;
    }
    const present = this.present;
    return this.int8.search(this.data, this.rows, query, k, filter ? (id) => present[id] === 1 && filter(id) : (id) => present[id] === 1);
  }

  /** Exact top-k by dot product; `filter` keeps a docId or not. Best first. */
  search(query: Float32Array, k: number, filter?: (docId: number) => boolean): Array<{ docId: number; score: number }> {
    return this.topK(this.scores(query), k, filter);
  }

  /**
   * The k best rows of precomputed `scores` (one per row, as `scores()` or the embedder's
   * kernel gives them), skipping absent rows and those `filter` refuses. Best first, ties by docId.
   */
  topK(scores: ArrayLike<number>, k: number, filter?: (docId: number) => boolean): Array<{ docId: number; score: number }> {
    if (scores.length < this.rows) throw new Error(`vector store: ${scores.length} scores for ${this.rows} rows`);
    k = Math.max(1, k);
    const topIds = new Int32Array(k).fill(-1);
    const topScores = new Float32Array(k).fill(-Infinity);
    let worst = 0;
    for (let id = 0; id < this.rows; id++) {
      const s = scores[id];
      if (!(s > topScores[worst]) || !this.present[id] || (filter && !filter(id))) continue;
      topScores[worst] = s;
      topIds[worst] = id;
      worst = 0;
      for (let j = 1; j < k; j++) if (topScores[j] < topScores[worst]) worst = j;
    }
    const out: Array<{ docId: number; score: number }> = [];
    for (let j = 0; j < k; j++) if (topIds[j] >= 0) out.push({ docId: topIds[j], score: topScores[j] });
    return out.sort((a, b) => b.score - a.score || a.docId - b.docId);
  }

  /** The IVF index, if built. */
  get ann(): IvfIndex | undefined {
    return this.ivf;
  }

  /**
   * Builds (or rebuilds) the IVF index over the rows there are (seconds at 1M rows with a BLAS
   * kernel). The old index is dropped first (so two sets of codes are never held at once); rows
   * set while the build runs join the new index's overflow when it is done.
   */
  async buildAnn(options: IvfOptions = {}): Promise<IvfIndex> {
    this.ivf = undefined;
    const during: number[] = [];
    this.setDuringBuild = during;
    let ivf: IvfIndex;
    try {
      ivf = await IvfIndex.build(this, options);
    } finally {
      if (this.setDuringBuild === during) this.setDuringBuild = undefined;
    }
    for (const id of new Set(during)) if (this.has(id)) ivf.add(id, this.get(id)!);
    // rows set past the matrix the build read
    for (let id = 0; id < this.rows; id++) if (this.present[id] && !ivf.has(id)) ivf.add(id, this.get(id)!);
    this.ivf = ivf;
    return ivf;
  }

  /**
   * Takes a stored IVF index (ivf.ts `IvfIndex.read`) as this store's, or says why not: it must
   * hold every row that has a vector (a row it does not know would never be found) and no row
   * past the store's. A store with an index (or one being built) keeps it.
   */
  adoptAnn(ivf: IvfIndex): string | undefined {
    if (this.ivf || this.setDuringBuild) return 'the vectors have a dense index already';
    if (ivf.dims !== this.dims) return `the dense index has ${ivf.dims} dimensions, the vectors ${this.dims}`;
    for (let id = 0; id < this.rows; id++) if (this.present[id] && !ivf.has(id)) return `the dense index is stale: row ${id} is not in it`;
    this.ivf = ivf;
    return undefined;
  }

  /**
   * Approximate top-k through the IVF index (built first if missing): the `probe` lists closest
   * to the query are read by their int8 codes, the `rescore` best rows (default 200) scored with
   * the float rows, so each score is the exact one. Absent rows and rows `filter` refuses are
   * never returned. Best first, ties by docId.
   */
  async annSearch(query: Float32Array, k: number, options: { probe?: number; rescore?: number; filter?: (docId: number) => boolean; js?: boolean } = {}): Promise<Array<{ docId: number; score: number }>> {
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, the store ${this.dims}`);
    const ivf = this.ivf ?? (await this.buildAnn());
    const filter = options.filter;
    const present = this.present;
    const hits = ivf.search(this.data, query, k, {
      probe: options.probe ?? probeFor(ivf.lists),
      rescore: options.rescore,
      js: options.js,
      keep: filter ? (id) => present[id] === 1 && filter(id) : (id) => present[id] === 1,
    });
    this.lastScanned = ivf.lastScanned;
    return hits;
  }

  /** The raw rows for persistence: [present flags, vectors]. */
  export(): { rows: number; present: Uint8Array; data: Float32Array } {
    return { rows: this.rows, present: this.present.slice(0, this.rows), data: this.data.slice(0, this.rows * this.dims) };
  }

  /**
   * A store over `data` and `present` themselves (no copy: 1.5 GB at 1M rows × 384), for a
   * caller that hands them over (the store's loader). A later `set` past `rows` grows into a copy.
   */
  static adopt(dims: number, rows: number, present: Uint8Array, data: Float32Array): VectorStore {
    if (present.length !== rows || data.length !== rows * dims) throw new Error('vector store: sizes do not match');
    const s = new VectorStore(dims, 1);
    s.data = data;
    s.present = present;
    s.rows = rows;
    for (let i = 0; i < rows; i++) if (present[i]) s.present1++;
    return s;
  }

  static import(dims: number, rows: number, present: Uint8Array, data: Float32Array): VectorStore {
    if (present.length !== rows || data.length !== rows * dims) throw new Error('vector store: sizes do not match');
    const s = new VectorStore(dims, Math.max(1, rows));
    s.data.set(data);
    s.present.set(present);
    s.rows = rows;
    for (let i = 0; i < rows; i++) if (present[i]) s.present1++;
    return s;
  }
}
