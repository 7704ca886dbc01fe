/**
 * The IVF index's int8 scan in WebAssembly SIMD: for each of `rows` rows of `d` int8 codes, the
 * dot product with an int16 query, as one i32 per row. `i32x4.dot_i16x8_s` does 8 multiply-adds
 * per instruction, where the JS loop does one, and reads the codes straight from the memory they
 * live in (the index allocates its code block inside this module's memory).
 *
 * The module is 10 lines of WebAssembly, assembled here byte by byte (no toolchain needed):
 *
 *   (func (export "scan") (param $c i32) (param $q i32) (param $rows i32) (param $d i32) (param $out i32)
 *     (local $j i32) (local $p i32) (local $qp i32) (local $a v128) (local $b v128)
 *     block  rows = 0 → exit
 *     loop $row
 *       a = b = 0; j = 0
 *       loop $col                                    ;; 16 codes per turn, two accumulators
 *         a += i32x4.dot_i16x8_s(v128.load8x8_s(c + j), v128.load(q + 2j))
 *         b += i32x4.dot_i16x8_s(v128.load8x8_s(c + j + 8), v128.load(q + 2j + 16))
 *         j += 16; br_if j < d
 *       end
 *       a += b; *out = a[0] + a[1] + a[2] + a[3]; out += 4; c += d
 *       rows -= 1; br_if rows
 *     end end)
 *
 * `d` must be a multiple of 16; the caller checks and otherwise uses its JS loop. The sum stays
 * in i32 when |code| ≤ 127 and |query| ≤ `queryLimit(d)`.
 */

const SIMD = 0xfd;
const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  i32Store: 0x36,
  i32Const: 0x41,
  i32Eqz: 0x45,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Shl: 0x74,
  void: 0x40,
  i32: 0x7f,
  v128: 0x7b,
};
// SIMD opcodes (after the 0xfd prefix, LEB128)
const v128Load = [SIMD, 0x00];
const v128Load8x8s = [SIMD, 0x01];
const v128Const0 = [SIMD, 0x0c, ...new Array<number>(16).fill(0)];
const i32x4ExtractLane = (lane: number) => [SIMD, 0x1b, lane];
const i32x4Add = [SIMD, 0xae, 0x01];
const i32x4DotI16x8s = [SIMD, 0xba, 0x01];
/** memarg: alignment hint 0 (any), then the offset. */
const mem = (offset: number) => [0x00, offset];

// locals: 0 c, 1 q, 2 rows, 3 d, 4 out, 5 j, 6 p, 7 qp, 8 a, 9 b
const [C, Q, ROWS, D, OUT, J, P, QP, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const get = (i: number) => [op.get, i];
const set = (i: number) => [op.set, i];
const tee = (i: number) => [op.tee, i];

const body = [
  // locals: 3 × i32 (j, p, qp), 2 × v128 (a, b)
  0x02, 0x03, op.i32, 0x02, op.v128,
  op.block, op.void,
  ...get(ROWS), op.i32Eqz, op.brIf, 0,
  op.loop, op.void,
  ...v128Const0, ...set(A),
  ...v128Const0, ...set(B),
  op.i32Const, 0, ...set(J),
  op.loop, op.void,
  ...get(A),
  ...get(C), ...get(J), op.i32Add, ...tee(P), ...v128Load8x8s, ...mem(0),
  ...get(Q), ...get(J), op.i32Const, 1, op.i32Shl, op.i32Add, ...tee(QP), ...v128Load, ...mem(0),
  ...i32x4DotI16x8s, ...i32x4Add, ...set(A),
  ...get(B),
  ...get(P), ...v128Load8x8s, ...mem(8),
  ...get(QP), ...v128Load, ...mem(16),
  ...i32x4DotI16x8s, ...i32x4Add, ...set(B),
  ...get(J), op.i32Const, 16, op.i32Add, ...tee(J), ...get(D), op.i32LtU, op.brIf, 0,
  op.end,
  ...get(A), ...get(B), ...i32x4Add, ...set(A),
  ...get(OUT),
  ...get(A), ...i32x4ExtractLane(0),
  ...get(A), ...i32x4ExtractLane(1), op.i32Add,
  ...get(A), ...i32x4ExtractLane(2), op.i32Add,
  ...get(A), ...i32x4ExtractLane(3), op.i32Add,
  op.i32Store, 0x02, 0x00,
  ...get(OUT), op.i32Const, 4, op.i32Add, ...set(OUT),
  ...get(C), ...get(D), op.i32Add, ...set(C),
  ...get(ROWS), op.i32Const, 1, op.i32Sub, ...tee(ROWS), op.brIf, 0,
  op.end,
  op.end,
  op.end,
];

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
const name = (s: string) => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [1, 0x60, 5, op.i32, op.i32, op.i32, op.i32, op.i32, 0]),
  ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, 0x01]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...name('scan'), 0x00, 0]),
  ...section(10, [1, ...leb(body.length), ...body]),
]);

/** The part of the WebAssembly API used here (the project's TypeScript libs do not declare it all). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled module, or undefined where WebAssembly SIMD is not there (then the JS loop scans). */
function module(): object | undefined {
  if (compiled === undefined) {
    try {
      compiled = wasm && wasm.validate(MODULE) ? new wasm.Module(MODULE) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

/** The largest |query| code for which a row's sum of `d` products stays in i32. */
export function queryLimit(d: number): number {
  return Math.min(32767, Math.floor(0x7fffffff / (127 * d)));
}

/**
 * A block of memory for `bytes` of codes plus a query and `maxRows` results, and the scan over it;
 * undefined when SIMD is not available, `d` is not a multiple of 16, or the memory cannot be had.
 */
export class SimdScanner {
  readonly codes: Int8Array;
  private readonly query: Int16Array;
  private readonly results: Int32Array;
  private readonly scanFn: (c: number, q: number, rows: number, d: number, out: number) => void;
  private readonly codesAt: number;
  private readonly resultsAt: number;

  private constructor(
    readonly dims: number,
    memory: WasmMemory,
    instance: { exports: Record<string, unknown> },
    layout: { codesAt: number; codeBytes: number; resultsAt: number; maxRows: number },
  ) {
    this.scanFn = instance.exports.scan as (c: number, q: number, rows: number, d: number, out: number) => void;
    this.query = new Int16Array(memory.buffer, 0, dims);
    this.results = new Int32Array(memory.buffer, layout.resultsAt, layout.maxRows);
    this.codes = new Int8Array(memory.buffer, layout.codesAt, layout.codeBytes);
    this.codesAt = layout.codesAt;
    this.resultsAt = layout.resultsAt;
  }

  static create(dims: number, codeBytes: number, maxRows: number): SimdScanner | undefined {
    const m = module();
    if (!m || !wasm || dims % 16 !== 0 || dims <= 0) return undefined;
    const align = (x: number) => Math.ceil(x / 16) * 16;
    const resultsAt = align(dims * 2);
    const codesAt = align(resultsAt + Math.max(1, maxRows) * 4);
    const pages = Math.ceil((codesAt + codeBytes) / 65536) || 1;
    if (pages > 65536) return undefined;
    try {
      const memory = new wasm.Memory({ initial: pages });
      const instance = new wasm.Instance(m, { env: { mem: memory } });
      return new SimdScanner(dims, memory, instance, { codesAt, codeBytes, resultsAt, maxRows: Math.max(1, maxRows) });
    } catch {
      return undefined; // no memory for it: the caller keeps its codes in a plain array
    }
  }

  /** Sets the query (int16 codes, |x| ≤ queryLimit(dims)) for the scans that follow. */
  setQuery(q: ArrayLike<number>): void {
    for (let j = 0; j < this.dims; j++) this.query[j] = q[j];
  }

  /** The integer dot products of code rows `from .. from + rows` with the query (a view, valid until the next scan). */
  scan(from: number, rows: number): Int32Array {
    if (rows > this.results.length) throw new Error(`simd scan: ${rows} rows, room for ${this.results.length}`);
    if (rows > 0) this.scanFn(this.codesAt + from * this.dims, 0, rows, this.dims, this.resultsAt);
    return this.results.subarray(0, rows);
  }
}
