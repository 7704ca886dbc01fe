/**
 * An inverted-file (IVF) index over a VectorStore: k-means centroids split the rows into lists; a
 * query scores the centroids and opens the `probe` closest lists. Each list's rows are held as
 * int8 codes (one scale per row) in one block, in list order, so a query reads the lists it opens
 * sequentially (384 bytes a row at 384 dims, a quarter of the floats) instead of gathering rows
 * scattered over the 1.5 GB float matrix, which is what made the first IVF no faster than the
 * exact scan at 1M rows. The `rescore` best rows by the codes are then scored with the float
 * rows, so every returned score is the exact one.
 *
 * Why not sign-bit codes (bench/dense.ts, on the cost model's vectors of real chunk texts with
 * near-copies): the top-10 among near-copies is decided by small differences that a 1-bit code
 * erases (recall@10 0.08–0.32 with a re-score of up to 1,000), while near-copies fall into the
 * same list, where the int8 codes keep them apart.
 *
 * Built in seconds with a matrix product (the embedder's ONNX Runtime MatMul when given, else a
 * JS loop). A row set after the build (new, or a docId given a new vector) joins its nearest
 * list's overflow, scored with its float row; its old code is no longer read. Deleted rows are
 * skipped at query time. `stale` once the overflow holds a quarter of the built rows: the owner
 * rebuilds, so the centroids follow the data and the overflow folds back into the codes.
 *
 * Persisted (`export`, `IvfIndex.read`) as it is held, overflow included, so a stored index loads
 * in the time it takes to read it instead of a rebuild (94–130 s at 1M rows): see the layout at
 * `export`.
 */

import { queryLimit, SimdScanner } from './int8-simd';

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
  /** Scan the codes with WebAssembly SIMD when there is (default true; false: the JS loop). */
  simd?: boolean;
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
  private readonly centroids: Float32Array;
  /** List `c` holds code rows offsets[c] .. offsets[c + 1]. */
  private readonly offsets: Int32Array;
  /** The docId of each code row. */
  private readonly rowIds: Int32Array;
  /** int8 codes, [code rows, dims], in list order; row r ≈ codes[r] * scales[r]. */
  private readonly codes: Int8Array;
  /** The SIMD scan whose memory holds `codes` (undefined: the JS loop reads them). */
  private readonly simd: SimdScanner | undefined;
  private readonly scales: Float32Array;
  /** Per docId: its code row (≥ 0), OVERFLOW (its vector is in `overflow[list[docId]]`) or NONE. */
  private where: Int32Array;
  /** Per docId in the overflow: its list. */
  private list: Int32Array;
  private readonly overflow: number[][];
  /** Rows (with a vector) when the index was built. */
  readonly builtRows: number;
  private added = 0;
  /** Rows the last `search` read (codes and overflow): its share of the rows is the work against an exact scan. */
  lastScanned = 0;

  private constructor(
    readonly dims: number,
    readonly lists: number,
    parts: { centroids: Float32Array; offsets: Int32Array; rowIds: Int32Array; codes: Int8Array; simd: SimdScanner | undefined; scales: Float32Array; where: Int32Array },
    builtRows: number,
  ) {
    this.centroids = parts.centroids;
    this.offsets = parts.offsets;
    this.rowIds = parts.rowIds;
    this.codes = parts.codes;
    this.simd = parts.simd;
    this.scales = parts.scales;
    this.where = parts.where;
    this.list = new Int32Array(parts.where.length).fill(-1);
    this.overflow = Array.from({ length: lists }, () => []);
    this.builtRows = builtRows;
  }

  /** Rows added since the build: past a quarter of the built rows, the owner rebuilds. */
  get stale(): boolean {
    return this.added > Math.max(1000, this.builtRows >> 2);
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
    // every row to its list
    const rowList = new Int32Array(n);
    const block = new Float32Array(Math.min(BLOCK, n) * d);
    const blockAssign = new Int32Array(Math.min(BLOCK, n));
    for (let start = 0; start < n; start += BLOCK) {
      const m = Math.min(BLOCK, n - start);
      for (let i = 0; i < m; i++) block.set(data.subarray(ids[start + i] * d, ids[start + i] * d + d), i * d);
      await assignBlocks(block, m, centroids, lists, d, matmul, blockAssign);
      rowList.set(blockAssign.subarray(0, m), start);
    }
    // lists laid out one after another (a counting sort), each row quantized into its place
    const offsets = new Int32Array(lists + 1);
    for (let i = 0; i < n; i++) offsets[rowList[i] + 1]++;
    for (let c = 0; c < lists; c++) offsets[c + 1] += offsets[c];
    const fill = offsets.slice(0, lists);
    const rowIds = new Int32Array(n);
    let longest = 0;
    for (let c = 0; c < lists; c++) longest = Math.max(longest, offsets[c + 1] - offsets[c]);
    const simd = options.simd === false ? undefined : SimdScanner.create(d, n * d, longest);
    const codes = simd ? simd.codes : new Int8Array(n * d);
    const scales = new Float32Array(n);
    const where = new Int32Array(Math.max(rows, 1)).fill(NONE);
    for (let i = 0; i < n; i++) {
      const r = fill[rowList[i]]++;
      const id = ids[i];
      rowIds[r] = id;
      where[id] = r;
      scales[r] = quantize(data, id * d, d, codes, r * d);
    }
    return new IvfIndex(d, lists, { centroids, offsets, rowIds, codes, simd, scales, where }, n);
  }

  /** How the codes are scanned: `simd` (WebAssembly) or `js`. */
  get kernel(): 'simd' | 'js' {
    return this.simd ? 'simd' : 'js';
  }

  /** Whether `docId` is in the index (in the codes or in the overflow). */
  has(docId: number): boolean {
    return docId < this.where.length && this.where[docId] !== NONE;
  }

  /** Rows in list `c` (codes and overflow; a moved row may be counted in its old list too). */
  listSize(c: number): number {
    return this.offsets[c + 1] - this.offsets[c] + this.overflow[c].length;
  }

  /** The `probe` lists closest to `query`, best first. */
  probeLists(query: Float32Array, probe: number): number[] {
    return nearest(this.centroids, this.lists, this.dims, query, Math.min(probe, this.lists));
  }

  /** The docIds of list `c`'s code rows, in code order (a view; the benchmark's float layouts use it). */
  listRows(c: number): Int32Array {
    return this.rowIds.subarray(this.offsets[c], this.offsets[c + 1]);
  }

  /** `docId` now holds `v`: it joins the overflow of the list closest to `v` (its old code is no longer read). */
  add(docId: number, v: Float32Array): void {
    const c = nearest(this.centroids, this.lists, this.dims, v, 1)[0];
    if (docId >= this.where.length) {
      const cap = Math.max(docId + 1, this.where.length * 2);
      const where = new Int32Array(cap).fill(NONE);
      where.set(this.where);
      this.where = where;
      const list = new Int32Array(cap).fill(-1);
      list.set(this.list);
      this.list = list;
    }
    if (this.where[docId] === OVERFLOW && this.list[docId] === c) return; // already there (its float row is read at query time)
    this.where[docId] = OVERFLOW;
    this.list[docId] = c;
    this.overflow[c].push(docId);
    this.added++;
  }

  /**
   * The `k` best rows for `query` (dot product with the float rows in `data`, row-major by docId),
   * best first, ties by docId: the `probe` closest lists are read, the `rescore` best rows by their
   * int8 codes (and every overflow row, by its float row) are scored with the floats. Rows
   * `keep` refuses (deleted, filtered) are never returned. `js`: read the codes with the JS loop
   * even where the SIMD scan is there (the benchmark's and the tests' comparison).
   */
  search(data: Float32Array, query: Float32Array, k: number, options: { probe: number; rescore?: number; keep: (docId: number) => boolean; js?: boolean }): Array<{ docId: number; score: number }> {
    const d = this.dims;
    const tail = d - (d % 4);
    k = Math.max(1, k);
    const want = Math.max(k, options.rescore ?? 200);
    const keep = options.keep;
    const heap = new TopHeap(want);
    let scanned = 0;
    const simd = options.js ? undefined : this.simd;
    // the SIMD scan takes the query as int16 codes: score ≈ sum * scales[r] * qScale
    let qScale = 1;
    if (simd) {
      let m = 0;
      for (let j = 0; j < d; j++) m = Math.max(m, Math.abs(query[j]));
      qScale = m / queryLimit(d) || 1;
      const qi = new Int16Array(d);
      for (let j = 0; j < d; j++) qi[j] = Math.round(query[j] / qScale);
      simd.setQuery(qi);
    }
    for (const c of this.probeLists(query, options.probe)) {
      const start = this.offsets[c];
      const end = this.offsets[c + 1];
      scanned += end - start;
      if (simd) {
        const sums = simd.scan(start, end - start);
        for (let i = 0; i < sums.length; i++) {
          const r = start + i;
          const s = sums[i] * this.scales[r] * qScale;
          if (s <= heap.min) continue;
          const id = this.rowIds[r];
          if (this.where[id] === r && keep(id)) heap.push(id, s);
        }
      } else {
        for (let r = start; r < end; r++) {
          const s = dot8(this.codes, r * d, query, d, tail) * this.scales[r];
          if (s <= heap.min) continue;
          const id = this.rowIds[r];
          if (this.where[id] === r && keep(id)) heap.push(id, s);
        }
      }
      // overflow rows: scored with their floats, they compete for the re-score like the rest
      const extra = this.overflow[c];
      let w = 0;
      for (let i = 0; i < extra.length; i++) {
        const id = extra[i];
        if (this.where[id] !== OVERFLOW || this.list[id] !== c) continue; // moved again: dropped here
        extra[w++] = id;
        if (keep(id)) heap.push(id, dot(data, id * d, query, d, tail));
      }
      scanned += w;
      extra.length = w;
    }
    this.lastScanned = scanned;
    const out: Array<{ docId: number; score: number }> = [];
    const seen = new Set<number>(); // a row moved away from a list and back is in its overflow twice until the next read compacts it
    for (let i = 0; i < heap.size; i++) {
      const id = heap.ids[i];
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ docId: id, score: Math.fround(dot(data, id * d, query, d, tail)) }); // as the exact scan stores it
    }
    out.sort((a, b) => b.score - a.score || a.docId - b.docId);
    return out.slice(0, k);
  }

  /**
   * The index as stored (parts to write one after another; views, no copy):
   *   int32 header [MAGIC, dims, lists, n (code rows), slots (length of `where`), builtRows, added, overflow rows]
   *   float32 centroids[lists × dims]  int32 offsets[lists + 1]  int32 rowIds[n]  float32 scales[n]
   *   int32 where[slots]  int32 list[slots]  int32 overflowCounts[lists]  int32 overflowIds[overflow rows]
   *   int8 codes[n × dims]
   */
  export(): Uint8Array[] {
    const view = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    let total = 0;
    for (const l of this.overflow) total += l.length;
    const counts = new Int32Array(this.lists);
    const ids = new Int32Array(total);
    for (let c = 0, o = 0; c < this.lists; c++) {
      counts[c] = this.overflow[c].length;
      ids.set(this.overflow[c], o);
      o += this.overflow[c].length;
    }
    const n = this.rowIds.length;
    const header = Int32Array.of(IVF_MAGIC, this.dims, this.lists, n, this.where.length, this.builtRows, this.added, total);
    return [header, this.centroids, this.offsets, this.rowIds, this.scales, this.where, this.list, counts, ids, this.codes.subarray(0, n * this.dims)].map(view);
  }

  /**
   * An index from `export`'s bytes (8-byte aligned; the index then lives in them: keep them
   * unshared), for rows of `dims` dimensions. Throws on anything that does not fit together:
   * sizes, offsets, row ids, code rows that do not point back, overflow lists.
   */
  static read(data: Uint8Array, dims: number, options: { simd?: boolean } = {}): IvfIndex {
    const bad = (why: string): never => {
      throw new Error(`dense index: ${why}`);
    };
    if (data.byteOffset % 4 !== 0 || data.byteLength < 32) bad('too short or not aligned');
    const h = new Int32Array(data.buffer, data.byteOffset, 8);
    const [magic, d, lists, n, slots, builtRows, added, total] = h;
    if (magic !== IVF_MAGIC) bad('not a stored dense index');
    if (d !== dims) bad(`${d} dimensions, the vectors have ${dims}`);
    if (lists < 1 || n < 0 || slots < 1 || slots < n || builtRows !== n || added < 0 || total < 0) bad('bad sizes');
    const words = 8 + lists * d + (lists + 1) + 2 * n + 2 * slots + lists + total;
    if (data.byteLength !== 4 * words + n * d) bad('sizes do not add up');
    let at = data.byteOffset + 32;
    const take = <T>(make: new (b: ArrayBufferLike, o: number, l: number) => T, len: number, bytes = 4): T => {
      const v = new make(data.buffer, at, len);
      at += len * bytes;
      return v;
    };
    const centroids = take(Float32Array, lists * d);
    const offsets = take(Int32Array, lists + 1);
    const rowIds = take(Int32Array, n);
    const scales = take(Float32Array, n);
    const where = take(Int32Array, slots);
    const list = take(Int32Array, slots);
    const counts = take(Int32Array, lists);
    const ids = take(Int32Array, total);
    const stored = take(Int8Array, n * d, 1);
    if (offsets[0] !== 0 || offsets[lists] !== n) bad('list offsets do not span the rows');
    let longest = 0;
    for (let c = 0; c < lists; c++) {
      if (offsets[c + 1] < offsets[c]) bad('list offsets go back');
      longest = Math.max(longest, offsets[c + 1] - offsets[c]);
    }
    for (let r = 0; r < n; r++) if (!(rowIds[r] >= 0 && rowIds[r] < slots)) bad('a row id out of range');
    for (let id = 0; id < slots; id++) {
      const w = where[id];
      if (w === NONE || (w === OVERFLOW && list[id] >= 0 && list[id] < lists)) continue;
      if (!(w >= 0 && w < n && rowIds[w] === id)) bad('a row that does not point back to its code');
    }
    const overflow: number[][] = [];
    let sum = 0;
    for (let c = 0; c < lists; c++) {
      const m = counts[c];
      if (m < 0 || sum + m > total) bad('overflow lists do not add up');
      const l = Array.from(ids.subarray(sum, sum + m));
      for (const id of l) if (!(id >= 0 && id < slots)) bad('an overflow row out of range');
      overflow.push(l);
      sum += m;
    }
    if (sum !== total) bad('overflow lists do not add up');
    const simd = options.simd === false ? undefined : SimdScanner.create(d, n * d, longest);
    if (simd) {
      // the codes move into the scanner's memory: the rest is copied out too, so that `data` can go
      simd.codes.set(stored);
      const ivf = new IvfIndex(d, lists, { centroids: centroids.slice(), offsets: offsets.slice(), rowIds: rowIds.slice(), codes: simd.codes, simd, scales: scales.slice(), where: where.slice() }, builtRows);
      ivf.list = list.slice();
      ivf.overflow.splice(0, lists, ...overflow);
      ivf.added = added;
      return ivf;
    }
    const ivf = new IvfIndex(d, lists, { centroids, offsets, rowIds, codes: stored, simd, scales, where }, builtRows);
    ivf.list = list;
    ivf.overflow.splice(0, lists, ...overflow);
    ivf.added = added;
    return ivf;
  }

  /** Bytes held besides the float rows (codes, scales, ids, centroids, overflow). */
  get bytes(): number {
    let m = 0;
    for (const l of this.overflow) m += l.length;
    return this.centroids.byteLength + this.codes.byteLength + this.scales.byteLength + this.rowIds.byteLength + this.offsets.byteLength + this.where.byteLength + this.list.byteLength + m * 8;
  }
}

const NONE = -1;
const OVERFLOW = -2;
/** 'IVF1', the first word of a stored index. */
const IVF_MAGIC = 0x31465649;

/** int8 codes of row `data[off..off+d)` into `codes[to..to+d)`, scaled by its largest magnitude; returns the scale. */
export function quantize(data: Float32Array, off: number, d: number, codes: Int8Array, to: number): number {
  let m = 0;
  for (let j = 0; j < d; j++) {
    const a = Math.abs(data[off + j]);
    if (a > m) m = a;
  }
  const scale = m / 127 || 1;
  const inv = 1 / scale;
  for (let j = 0; j < d; j++) codes[to + j] = Math.round(data[off + j] * inv);
  return scale;
}

/**
 * Dot product of row `data[off..off+d)` with `query`, four accumulators (which V8 keeps in
 * registers). The exact scan (vectors.ts) has the same loop, so both give the same float.
 */
export function dot(data: Float32Array, off: number, query: Float32Array, d: number, tail: number): number {
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
  return s0 + s1 + s2 + s3;
}

export function dot8(codes: Int8Array, off: number, query: Float32Array, d: number, tail: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j < tail; j += 4) {
    s0 += codes[off + j] * query[j];
    s1 += codes[off + j + 1] * query[j + 1];
    s2 += codes[off + j + 2] * query[j + 2];
    s3 += codes[off + j + 3] * query[j + 3];
  }
  for (; j < d; j++) s0 += codes[off + j] * query[j];
  return s0 + s1 + s2 + s3;
}

/** The `cap` largest (score, id) pairs seen: a binary min-heap; `min` is the score to beat once full. */
export class TopHeap {
  readonly ids: Int32Array;
  private readonly scores: Float64Array;
  size = 0;
  min = -Infinity;
  constructor(private readonly cap: number) {
    this.ids = new Int32Array(cap);
    this.scores = new Float64Array(cap);
  }
  /** The score of the id at `ids[i]`. */
  scoreAt(i: number): number {
    return this.scores[i];
  }
  push(id: number, s: number): void {
    const { ids, scores } = this;
    if (this.size < this.cap) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (scores[p] <= s) break;
        scores[i] = scores[p];
        ids[i] = ids[p];
        i = p;
      }
      scores[i] = s;
      ids[i] = id;
      if (this.size === this.cap) this.min = scores[0];
      return;
    }
    if (s <= scores[0]) return;
    // replace the root and sift down
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && scores[r] < scores[l] ? r : l;
      if (scores[c] >= s) break;
      scores[i] = scores[c];
      ids[i] = ids[c];
      i = c;
    }
    scores[i] = s;
    ids[i] = id;
    this.min = scores[0];
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
