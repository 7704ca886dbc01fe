/**
 * The exact dense scan's fast path for an embedder without a scoring kernel (Fathom's own model):
 * every row's int8 codes (per-row scale, as the IVF lists keep them) scanned by the WebAssembly
 * SIMD kernel (int8-simd.ts), the `rescore` best re-scored with the float rows. Same answer as
 * the float scan up to int8 rounding of rows that tie within it, at a fraction of its time: the
 * JS float scan reads 4 bytes and does one multiply-add per dimension, this reads 1 byte and does
 * 8 per instruction (bench/engine.ts, "dense" at 100k chunks).
 *
 * The codes live in the scanner's memory, `capacity` rows; `set` re-codes one row in place, a row
 * past the capacity makes the owner drop this and build a larger one on the next search.
 */
import { dot, quantize, TopHeap } from './ivf';
import { queryLimit, SimdScanner } from './int8-simd';

/** Below this many rows the float scan is as fast (and the codes' memory is not worth it). */
export const INT8_SCAN_MIN_ROWS = 8192;

export class Int8Rows {
  private readonly scales: Float32Array;

  private constructor(
    readonly dims: number,
    readonly capacity: number,
    private readonly scanner: SimdScanner,
  ) {
    this.scales = new Float32Array(capacity);
  }

  /**
   * Rows given as their codes already (`codes[i*dims..]`, value = code × `scales[i]`), e.g. the
   * team index's stored codes; undefined without SIMD or when `dims` is not a multiple of 16.
   */
  static fromCodes(codes: Int8Array, scales: Float32Array, dims: number): Int8Rows | undefined {
    const rows = scales.length;
    const scanner = SimdScanner.create(dims, Math.max(1, rows) * dims, Math.max(1, rows));
    if (!scanner) return undefined;
    const r = new Int8Rows(dims, Math.max(1, rows), scanner);
    scanner.codes.set(codes.subarray(0, rows * dims));
    r.scales.set(scales);
    return r;
  }

  /** Codes of `rows` rows of `data` with room for `capacity`; undefined without SIMD or when `dims` is not a multiple of 16. */
  static build(data: Float32Array, dims: number, rows: number, capacity: number): Int8Rows | undefined {
    const scanner = SimdScanner.create(dims, capacity * dims, capacity);
    if (!scanner) return undefined;
    const r = new Int8Rows(dims, capacity, scanner);
    for (let i = 0; i < rows; i++) r.scales[i] = quantize(data, i * dims, dims, scanner.codes, i * dims);
    return r;
  }

  /** Re-codes row `id` from `data` (false: past the capacity, the caller drops this). */
  set(id: number, data: Float32Array): boolean {
    if (id >= this.capacity) return false;
    this.scales[id] = quantize(data, id * this.dims, this.dims, this.scanner.codes, id * this.dims);
    return true;
  }

  /**
   * Top `k` of the first `rows` rows that `keep` accepts, best first (ties by docId), scored
   * exactly: the `rescore` best by the int8 scan get their float dot product.
   */
  search(data: Float32Array, rows: number, query: Float32Array, k: number, keep: (id: number) => boolean, rescore = Math.max(4 * k, 256)): Array<{ docId: number; score: number }> {
    const d = this.dims;
    const tail = d - (d % 4);
    const heap = this.scan(rows, query, Math.max(k, rescore), keep);
    const out: Array<{ docId: number; score: number }> = [];
    for (let i = 0; i < heap.size; i++) {
      const id = heap.ids[i];
      out.push({ docId: id, score: Math.fround(dot(data, id * d, query, d, tail)) }); // as the float scan stores it
    }
    out.sort((a, b) => b.score - a.score || a.docId - b.docId);
    return out.slice(0, k);
  }

  /** The `k` rows of the first `rows` that `keep` accepts with the best int8 scores (no float re-score), best first, ties by row. */
  top(rows: number, query: Float32Array, k: number, keep: (id: number) => boolean = () => true): Array<{ docId: number; score: number }> {
    const heap = this.scan(rows, query, k, keep);
    const out: Array<{ docId: number; score: number }> = [];
    for (let i = 0; i < heap.size; i++) out.push({ docId: heap.ids[i], score: heap.scoreAt(i) });
    return out.sort((a, b) => b.score - a.score || a.docId - b.docId);
  }

  private scan(rows: number, query: Float32Array, want: number, keep: (id: number) => boolean): TopHeap {
    const d = this.dims;
    let m = 0;
    for (let j = 0; j < d; j++) m = Math.max(m, Math.abs(query[j]));
    const qScale = m / queryLimit(d) || 1;
    const qi = new Int16Array(d);
    for (let j = 0; j < d; j++) qi[j] = Math.round(query[j] / qScale);
    this.scanner.setQuery(qi);
    const heap = new TopHeap(Math.max(1, want));
    const scales = this.scales;
    // in blocks: the scanner's result buffer holds `capacity` sums, a block keeps them in cache
    const BLOCK = 4096;
    for (let from = 0; from < rows; from += BLOCK) {
      const n = Math.min(BLOCK, rows - from);
      const sums = this.scanner.scan(from, n);
      for (let i = 0; i < n; i++) {
        const s = sums[i] * scales[from + i] * qScale;
        if (s <= heap.min) continue;
        const id = from + i;
        if (keep(id)) heap.push(id, s);
      }
    }
    return heap;
  }
}
