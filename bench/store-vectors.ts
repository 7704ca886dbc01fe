/**
 * The vectors section of the store: version 6 (float32 rows, adopted in place) next to version 7
 * (int8 rows with one float32 scale each, dequantized into a Float32Array), in one run: file
 * size, and load time as `loadStore` spends it on this section (read the file, check its CRC-32,
 * make the VectorStore: `readVectors`), median of the runs, the two formats alternating.
 *
 *   node --import tsx bench/store-vectors.ts                       # 100k rows × 384 and × 128
 *   node --import tsx bench/store-vectors.ts --rows 20000 --dims 128,768 --runs 5
 *
 * Rows: random unit vectors (the load does not depend on the values). The files go to a temp
 * folder that is removed at the end. Timings on a shared machine move; compare the columns.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32, quantizeRows, readVectors } from '../src/index/store';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const rows = Number(arg('--rows', '100000'));
const dimsList = arg('--dims', '384,128').split(',').map(Number);
const runs = Number(arg('--runs', '7'));

function unitRows(n: number, d: number): Float32Array {
  const data = new Float32Array(n * d);
  let s = 12345;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296) * 2 - 1;
  for (let r = 0; r < n; r++) {
    let norm = 0;
    for (let j = 0; j < d; j++) norm += (data[r * d + j] = rnd()) ** 2;
    norm = Math.sqrt(norm);
    for (let j = 0; j < d; j++) data[r * d + j] /= norm;
  }
  return data;
}

/** As loadStore reads a section: the whole file, its checksum, 8-byte aligned. */
function readChecked(file: string): Uint8Array {
  const buf = fs.readFileSync(file);
  crc32(buf);
  if (buf.byteOffset % 8 === 0) return buf;
  const copy = Buffer.from(new ArrayBuffer(buf.byteLength));
  buf.copy(copy);
  return copy;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-bench-vectors-'));
try {
  console.log(`rows ${rows}, median of ${runs} loads (read + CRC-32 + VectorStore)`);
  console.log('dims  v6 MB   v7 MB   size   v6 load ms  v7 load ms  v7/v6');
  for (const dims of dimsList) {
    const data = unitRows(rows, dims);
    const present = new Uint8Array(rows).fill(1);
    const f6 = path.join(dir, `v6-${dims}.bin`);
    const f7 = path.join(dir, `v7-${dims}.bin`);
    fs.writeFileSync(f6, Buffer.concat([Buffer.from(data.buffer, data.byteOffset, data.byteLength), present]));
    const q = quantizeRows(data, rows, dims);
    fs.writeFileSync(f7, Buffer.concat([Buffer.from(q.scales.buffer), Buffer.from(q.rows.buffer), present]));
    const t6: number[] = [];
    const t7: number[] = [];
    let sink = 0;
    for (let i = 0; i < runs + 1; i++) {
      for (const [file, version, out] of [
        [f6, 6, t6],
        [f7, 7, t7],
      ] as const) {
        const t0 = process.hrtime.bigint();
        const store = readVectors(readChecked(file), dims, version);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        sink += store.count;
        if (i > 0) out.push(ms); // the first round warms up
      }
    }
    if (sink !== rows * 2 * (runs + 1)) throw new Error('rows lost');
    const mb = (f: string) => fs.statSync(f).size / 1e6;
    const [m6, m7] = [median(t6), median(t7)];
    console.log(
      `${String(dims).padEnd(5)} ${mb(f6).toFixed(1).padStart(6)}  ${mb(f7).toFixed(1).padStart(6)}  ${((100 * mb(f7)) / mb(f6)).toFixed(0).padStart(4)}%  ${m6.toFixed(1).padStart(10)}  ${m7.toFixed(1).padStart(10)}  ${(m7 / m6).toFixed(2).padStart(5)}`,
    );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
