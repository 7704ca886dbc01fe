/**
 * Store version 7: vectors on disk as int8 rows with one float32 scale each, dequantized on load.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import { crc32, dequantizeRows, loadStore, quantizeRows, readVectors, saveStore, STORE_VERSION } from '../../src/index/store';
import { fakeEmbedder } from '../helpers/fake-embedder';

const SAMPLE = path.join(__dirname, '..', '..', 'sample-workspace');

async function drain(gen: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of gen) void _;
}

function unit(dims: number, seed: number): Float32Array {
  const v = new Float32Array(dims);
  let x = seed * 2654435761;
  for (let i = 0; i < dims; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    v[i] = (x / 2 ** 32 - 0.5) * (i % 7 === 0 ? 3 : 1);
  }
  const n = Math.hypot(...v);
  return v.map((a) => a / n);
}

describe('store v7: int8 vectors on disk', () => {
  it('quantize → dequantize keeps each unit row within cosine 0.9999, a zero row zero, and every score within 0.005', () => {
    for (const dims of [128, 384]) {
      const rows = 300;
      const data = new Float32Array(rows * dims);
      for (let r = 0; r < rows - 1; r++) data.set(unit(dims, r + 1), r * dims);
      // the last row stays zero
      const q = quantizeRows(data, rows, dims);
      const back = dequantizeRows(q.scales, q.rows, rows, dims);
      for (let r = 0; r < rows - 1; r++) {
        let dot = 0;
        let n = 0;
        for (let k = 0; k < dims; k++) {
          dot += data[r * dims + k] * back[r * dims + k];
          n += back[r * dims + k] ** 2;
        }
        assert.ok(dot / Math.sqrt(n) >= 0.9999, `row ${r}: ${dot / Math.sqrt(n)}`);
      }
      assert.ok(back.subarray((rows - 1) * dims).every((x) => x === 0));
      // every query's score against every row moves by less than 0.005 (so only near-ties can swap)
      for (let t = 0; t < 5; t++) {
        const qv = unit(dims, 1000 + t);
        for (let r = 0; r < rows; r++) {
          let d0 = 0;
          let d1 = 0;
          for (let k = 0; k < dims; k++) {
            d0 += data[r * dims + k] * qv[k];
            d1 += back[r * dims + k] * qv[k];
          }
          assert.ok(Math.abs(d0 - d1) < 0.005, `query ${t}, row ${r}: ${d0} vs ${d1}`);
        }
      }
    }
  });

  it('readVectors: the rows of a version 7 section, the presence flags copied out so the file is not kept alive by them; a size that is not whole rows refused', () => {
    const dims = 8;
    const rows = 3;
    const data = new Float32Array(rows * dims);
    data.set(unit(dims, 1), 0);
    data.set(unit(dims, 2), 2 * dims); // row 1 a zero row, and absent
    const q = quantizeRows(data, rows, dims);
    const file = new Uint8Array(rows * (dims + 5));
    file.set(new Uint8Array(q.scales.buffer), 0);
    file.set(new Uint8Array(q.rows.buffer), 4 * rows);
    file.set([1, 0, 1], (4 + dims) * rows);
    const store = readVectors(file, dims, 7);
    assert.equal(store.count, 2);
    assert.equal(store.get(1), undefined);
    assert.deepEqual(store.get(2), dequantizeRows(q.scales, q.rows, rows, dims).subarray(2 * dims));
    // what the store holds on to: the floats and the flags, not the file's bytes
    const held = store as unknown as { present: Uint8Array; data: Float32Array };
    assert.equal(held.present.buffer.byteLength, rows, 'the presence flags are a copy, not a view of the file');
    assert.notEqual(held.data.buffer, file.buffer);
    assert.throws(() => readVectors(file.subarray(0, file.byteLength - 1), dims, 7), /not a whole number of rows/);
  });

  it('a row with NaN or an infinity loads as NaN (never scores, as its float row), not as another vector', () => {
    const dims = 4;
    const data = Float32Array.of(0.5, NaN, 0.5, 0.5, 1, Infinity, 0, 0, 0.6, 0.8, 0, 0);
    const q = quantizeRows(data, 3, dims);
    const back = dequantizeRows(q.scales, q.rows, 3, dims);
    assert.ok([...back.subarray(0, 8)].every((x) => Number.isNaN(x)), `${[...back.subarray(0, 8)]}`);
    assert.ok(Math.abs(back[8] - 0.6) < 0.005 && Math.abs(back[9] - 0.8) < 0.005, 'the finite row as before');
  });

  describe('through the store', () => {
    let dir: string;
    let store: string;
    let a: Engine;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-v7-'));
      fs.cpSync(SAMPLE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
      store = path.join(dir, '.fathom');
      a = new Engine({ embedder: fakeEmbedder() });
      await drain(a.indexFolder(dir));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it(`is saved as version ${STORE_VERSION} with dims + 5 bytes a row, and loads to the same dense answers`, async () => {
      saveStore(store, a);
      const m = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
      assert.equal(m.version, 7);
      const rows = a.vectors!.export().rows;
      assert.equal(fs.statSync(path.join(store, m.files.vectors.name)).size, rows * (64 + 4 + 1));
      const b = new Engine({ embedder: fakeEmbedder() });
      assert.deepEqual(loadStore(store, b), { ok: true });
      for (const q of ['zoom control', 'tooltip text', 'schema field label']) {
        // the same results, scores within quantization error (near-ties may swap places)
        const hits = async (e: Engine) => (await e.search(q, { k: 10, mode: 'dense', diversify: false })).map((h) => ({ id: h.chunk.id, s: h.score }));
        const [x, y] = [await hits(a), await hits(b)];
        assert.deepEqual(new Set(y.slice(0, 8).map((h) => h.id)), new Set(x.slice(0, 8).map((h) => h.id)), q);
        y.forEach((h, i) => assert.ok(Math.abs(h.s - x[i].s) < 0.01, `${q} #${i}: ${h.s} vs ${x[i].s}`));
      }
    });

    it('a vectors file cut short is refused (a rebuild with the reason), never a wrong read', () => {
      saveStore(store, a);
      const m = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
      const file = path.join(store, m.files.vectors.name);
      const cut = fs.readFileSync(file).subarray(0, -7);
      fs.writeFileSync(file, cut);
      // the manifest's size and checksum agree with the cut file: only the row arithmetic can tell
      m.files.vectors.bytes = cut.byteLength;
      m.files.vectors.crc32 = crc32(cut).toString(16).padStart(8, '0');
      fs.writeFileSync(path.join(store, 'manifest.json'), JSON.stringify(m));
      const r = loadStore(store, new Engine({ embedder: fakeEmbedder() }));
      assert.equal(r.ok, false);
      assert.match((r as { reason: string }).reason, /not a whole number of rows/);
    });

    it('a version 6 store (float32 rows) still loads to the same answers, and is saved as 7', async () => {
      saveStore(store, a);
      const mf = path.join(store, 'manifest.json');
      const m = JSON.parse(fs.readFileSync(mf, 'utf8'));
      // version 6's layout: the float rows, then the presence flags
      const vx = a.vectors!.export();
      const v6 = Buffer.concat([Buffer.from(vx.data.buffer, vx.data.byteOffset, vx.data.byteLength), Buffer.from(vx.present)]);
      fs.writeFileSync(path.join(store, m.files.vectors.name), v6);
      m.version = 6;
      m.files.vectors.bytes = v6.byteLength;
      m.files.vectors.crc32 = crc32(v6).toString(16).padStart(8, '0');
      fs.writeFileSync(mf, JSON.stringify(m));
      const b = new Engine({ embedder: fakeEmbedder() });
      assert.deepEqual(loadStore(store, b), { ok: true });
      // version 6 held the float rows themselves: exactly the same answers
      const ids = async (e: Engine) => (await e.search('zoom control', { k: 10, mode: 'dense' })).map((h) => h.chunk.id);
      assert.deepEqual(await ids(b), await ids(a));
      saveStore(store, b);
      assert.equal(JSON.parse(fs.readFileSync(mf, 'utf8')).version, 7);
    });
  });
});
