/**
 * Dense vectors in one contiguous Float32Array (row = docId), exact top-k by dot product
 * (vectors are normalized, so dot = cosine). A row with no vector yet is skipped.
 *
 * Measured at 100k rows × 384 (bench/engine.ts): the JS scan below ~30 ms, the embedder's
 * ONNX Runtime MatMul over the same matrix ~10 ms, so search uses the latter when it exists.
 */
export class VectorStore {
  private data: Float32Array;
  private present: Uint8Array;
  private rows = 0;
  private present1 = 0;

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
    let cap = this.present.length;
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
      if (!this.present[id]) continue;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j < tail; j += 4) {
        s0 += data[off + j] * query[j];
        s1 += data[off + j + 1] * query[j + 1];
        s2 += data[off + j + 2] * query[j + 2];
        s3 += data[off + j + 3] * query[j + 3];
      }
      for (; j < d; j++) s0 += data[off + j] * query[j];
      out[id] = s0 + s1 + s2 + s3;
    }
    return out;
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

  /** The raw rows for persistence: [present flags, vectors]. */
  export(): { rows: number; present: Uint8Array; data: Float32Array } {
    return { rows: this.rows, present: this.present.slice(0, this.rows), data: this.data.slice(0, this.rows * this.dims) };
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
