/**
 * An inverted-file (IVF) index over a VectorStore: k-means centroids split the rows into lists; a
 * query scores the centroids, opens the `probe` closest lists and scores their rows exactly with
 * the float vectors. So the answer is exact within the lists opened, and the work is
 * probe/lists of an exact scan.
 *
 * Why this and not sign-bit codes (bench/dense.ts, on the cost model's vectors of real chunk
 * texts with near-copies): the top-10 among near-copies is decided by small differences that a
 * 1-bit code erases (recall@10 0.08–0.32 with a re-score of up to 1,000), while near-copies fall
 * into the same list, where IVF scores them in full.
 *
 * Built in seconds with a matrix product (the embedder's ONNX Runtime MatMul when given, else a
 * JS loop); rows added later join their nearest list at once; deleted rows are skipped at query
 * time (a docId reused for another vector is checked against its current list). Rebuilt when the
 * rows grew by half since the build, so the centroids follow the data.
 */

/** [rowsA, d] × [d, colsB] → [rowsA, colsB], row-major. */
export type MatMulFn = (a: Float32Array, rowsA: number, bT: Float32Array, colsB: number, d: number) => Promise<Float32Array>;

/** A plain JavaScript matrix product (the fallback and the tests' kernel); `bT` is [d, colsB]. */
export const jsMatMul: MatMulFn = async (a, rowsA, bT, colsB, d) => {
  const out = new Float32Array(rowsA * colsB);
  for (let r = 0; r < rowsA; r++) {
    const ao = r * d;
    const oo = r * colsB;
    for (let j = 0; j < d; j++) {
      const x = a[ao + j];
      if (x === 0) continue;
      const bo = j * colsB;
      for (let c = 0; c < colsB; c++) out[oo + c] += x * bT[bo + c];
    }
  }
  return out;
};

export interface IvfSource {
  readonly dims: number;
  /** Row-major rows (absent rows hold stale numbers) and their count. */
  matrix(): { data: Float32Array; rows: number };
  has(docId: number): boolean;
}

export interface IvfOptions {
  /** Number of lists; default √rows, between 16 and 4,096. */
  lists?: number;
  /** k-means rounds on the training sample (default 8). */
  iterations?: number;
  /** Training sample: this many rows per list (default 64). */
  samplePerList?: number;
  seed?: number;
  matmul?: MatMulFn;
}

/** Rows per block of the assignment product ([block, lists] floats at a time). */
const BLOCK = 8192;

function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class IvfIndex {
  /** Centroids, [lists, dims] row-major, unit length. */
  private centroids: Float32Array;
  /** The list each docId was put in (-1: none). */
  private assign: Int32Array;
  private members: number[][];
  /** Rows (with a vector) when the index was built. */
  readonly builtRows: number;
  private added = 0;

  private constructor(
    readonly dims: number,
    readonly lists: number,
    centroids: Float32Array,
    assign: Int32Array,
    members: number[][],
    builtRows: number,
  ) {
    this.centroids = centroids;
    this.assign = assign;
    this.members = members;
    this.builtRows = builtRows;
  }

  /** Rows added since the build: past half the built rows, the owner rebuilds. */
  get stale(): boolean {
    return this.added > Math.max(1000, this.builtRows >> 1);
  }

  static async build(src: IvfSource, options: IvfOptions = {}): Promise<IvfIndex> {
    const d = src.dims;
    const { data, rows } = src.matrix();
    const ids: number[] = [];
    for (let id = 0; id < rows; id++) if (src.has(id)) ids.push(id);
    const n = ids.length;
    const lists = Math.max(1, Math.min(n, options.lists ?? Math.min(4096, Math.max(16, Math.round(Math.sqrt(n))))));
    const matmul = options.matmul ?? jsMatMul;
    const random = seededRandom(options.seed ?? 1);
    // training sample, in a seeded order
    const sampleSize = Math.min(n, lists * (options.samplePerList ?? 64));
    const pick = ids.slice();
    for (let i = 0; i < sampleSize; i++) {
      const j = i + Math.floor(random() * (pick.length - i));
      [pick[i], pick[j]] = [pick[j], pick[i]];
    }
    const sample = new Float32Array(sampleSize * d);
    for (let i = 0; i < sampleSize; i++) sample.set(data.subarray(pick[i] * d, pick[i] * d + d), i * d);
    // spherical k-means: centroids start at distinct sample rows, move to their members' mean
    const centroids = new Float32Array(lists * d);
    for (let c = 0; c < lists; c++) centroids.set(sample.subarray(c * d, c * d + d), c * d);
    const sampleAssign = new Int32Array(sampleSize);
    for (let it = 0; it < (options.iterations ?? 8); it++) {
      await assignBlocks(sample, sampleSize, centroids, lists, d, matmul, sampleAssign);
      const sum = new Float64Array(lists * d);
      const count = new Uint32Array(lists);
      for (let i = 0; i < sampleSize; i++) {
        const c = sampleAssign[i];
        count[c]++;
        for (let j = 0; j < d; j++) sum[c * d + j] += sample[i * d + j];
      }
      for (let c = 0; c < lists; c++) {
        if (!count[c]) {
          // an empty list takes a random sample row, so no centroid is wasted
          const r = Math.floor(random() * sampleSize);
          centroids.set(sample.subarray(r * d, r * d + d), c * d);
          continue;
        }
        let norm = 0;
        for (let j = 0; j < d; j++) norm += sum[c * d + j] ** 2;
        norm = Math.sqrt(norm) || 1;
        for (let j = 0; j < d; j++) centroids[c * d + j] = sum[c * d + j] / norm;
      }
    }
    // every row into its list
    const assign = new Int32Array(Math.max(rows, 1)).fill(-1);
    const members: number[][] = Array.from({ length: lists }, () => []);
    const block = new Float32Array(Math.min(BLOCK, n) * d);
    const blockAssign = new Int32Array(Math.min(BLOCK, n));
    for (let start = 0; start < n; start += BLOCK) {
      const m = Math.min(BLOCK, n - start);
      for (let i = 0; i < m; i++) block.set(data.subarray(ids[start + i] * d, ids[start + i] * d + d), i * d);
      await assignBlocks(block, m, centroids, lists, d, matmul, blockAssign);
      for (let i = 0; i < m; i++) {
        assign[ids[start + i]] = blockAssign[i];
        members[blockAssign[i]].push(ids[start + i]);
      }
    }
    return new IvfIndex(d, lists, centroids, assign, members, n);
  }

  /** Whether `docId` is in a list. */
  has(docId: number): boolean {
    return docId < this.assign.length && this.assign[docId] >= 0;
  }

  /** Puts (or moves) `docId` into the list of the centroid closest to `v`. */
  add(docId: number, v: Float32Array): void {
    const c = nearest(this.centroids, this.lists, this.dims, v, 1)[0];
    if (docId >= this.assign.length) {
      const grown = new Int32Array(Math.max(docId + 1, this.assign.length * 2)).fill(-1);
      grown.set(this.assign);
      this.assign = grown;
    }
    if (this.assign[docId] === c) return;
    this.assign[docId] = c;
    this.members[c].push(docId);
    this.added++;
  }

  /**
   * The docIds of the `probe` lists closest to `query` that `keep` accepts (rows now in another
   * list, or deleted, are not). Each docId at most once.
   */
  candidates(query: Float32Array, probe: number, keep: (docId: number) => boolean): number[] {
    const out: number[] = [];
    for (const c of nearest(this.centroids, this.lists, this.dims, query, Math.min(probe, this.lists))) {
      const list = this.members[c];
      let w = 0;
      for (let i = 0; i < list.length; i++) {
        const id = list[i];
        if (this.assign[id] !== c) continue; // moved to another list (a reused docId): drop it here
        list[w++] = id;
        if (keep(id)) out.push(id);
      }
      list.length = w;
    }
    return out;
  }

  /** Bytes held besides the vectors (centroids, assignment, lists). */
  get bytes(): number {
    let m = 0;
    for (const l of this.members) m += l.length;
    return this.centroids.byteLength + this.assign.byteLength + m * 8;
  }
}

function transpose(m: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = m[r * cols + c];
  return t;
}

/** The `take` centroids with the largest dot product with `v`, best first (JS: lists × dims). */
function nearest(centroids: Float32Array, lists: number, d: number, v: Float32Array, take: number): number[] {
  const best: Array<{ c: number; s: number }> = [];
  for (let c = 0, off = 0; c < lists; c++, off += d) {
    let s = 0;
    for (let j = 0; j < d; j++) s += centroids[off + j] * v[j];
    if (best.length < take) {
      best.push({ c, s });
      if (best.length === take) best.sort((a, b) => b.s - a.s);
    } else if (s > best[take - 1].s) {
      let i = take - 1;
      while (i > 0 && best[i - 1].s < s) {
        best[i] = best[i - 1];
        i--;
      }
      best[i] = { c, s };
    }
  }
  if (best.length < take) best.sort((a, b) => b.s - a.s);
  return best.map((b) => b.c);
}

async function assignBlocks(rowsData: Float32Array, n: number, centroids: Float32Array, lists: number, d: number, matmul: MatMulFn, out: Int32Array): Promise<void> {
  const cT = transpose(centroids, lists, d);
  for (let start = 0; start < n; start += BLOCK) {
    const m = Math.min(BLOCK, n - start);
    const scores = await matmul(rowsData.subarray(start * d, (start + m) * d), m, cT, lists, d);
    for (let i = 0; i < m; i++) {
      let best = 0;
      let bs = -Infinity;
      const o = i * lists;
      for (let c = 0; c < lists; c++) {
        if (scores[o + c] > bs) {
          bs = scores[o + c];
          best = c;
        }
      }
      out[start + i] = best;
    }
  }
}
