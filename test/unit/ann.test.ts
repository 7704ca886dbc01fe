import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import { Engine } from '../../src/index/engine';
import type { Embedder } from '../../src/index/embedder';
import { queryLimit, SimdScanner } from '../../src/index/int8-simd';
import { IvfIndex, jsMatMul } from '../../src/index/ivf';
import { probeFor, VectorStore } from '../../src/index/vectors';
import { INT8_SCAN_MIN_ROWS } from '../../src/index/int8-scan';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32, dequantizeRows, loadStore, quantizeRows, saveStore } from '../../src/index/store';

/** mulberry32 */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() || 1e-12)) * Math.cos(2 * Math.PI * r());

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** `clusters` random centres, `perCluster` rows at `noise` (norm) around each: a clustered set. */
function clusteredSet(seed: number, dims: number, clusters: number, perCluster: number, noise: number) {
  const r = rng(seed);
  const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: dims }, () => gauss(r))));
  const near = (c: Float32Array) => unit(Float32Array.from(c, (x) => x + (noise / Math.sqrt(dims)) * gauss(r)));
  const store = new VectorStore(dims, 16);
  let id = 0;
  for (const c of centres) for (let i = 0; i < perCluster; i++) store.set(id++, near(c));
  return { store, centres, near, rows: id };
}

const ids = (hits: Array<{ docId: number }>) => hits.map((h) => h.docId);

describe('ANN (IVF) dense index', () => {
  it('returns the exact top-10 on a clustered set at the default probe, and never a deleted row', async () => {
    const { store, centres, near, rows } = clusteredSet(1, 48, 60, 50, 0.6);
    await store.buildAnn({ matmul: jsMatMul });
    assert.ok(store.ann && store.ann.lists >= 16, 'built with lists');
    assert.ok(probeFor(store.ann.lists) < store.ann.lists, 'the probe opens a part of the lists, not all of them');
    const deleted = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.nat(centres.length - 1), fc.nat(rows - 1), fc.boolean(), async (c, victim, drop) => {
        if (drop && !deleted.has(victim)) {
          store.delete(victim);
          deleted.add(victim);
        }
        const q = near(centres[c]);
        // drop the current best row too, so deletions hit the answers themselves
        if (drop) {
          const best = store.search(q, 1)[0].docId;
          store.delete(best);
          deleted.add(best);
        }
        const exact = store.search(q, 10);
        const approx = await store.annSearch(q, 10);
        for (const id of ids(approx)) assert.ok(!deleted.has(id), `deleted row ${id} returned`);
        assert.deepEqual(ids(approx), ids(exact));
      }),
      { numRuns: 150, seed: 42 },
    );
    assert.ok(deleted.size > 20, 'the property deleted rows along the way');
  });

  it('honours a filter and finds a reused docId at its new vector, not its old one', async () => {
    const { store, centres, near } = clusteredSet(2, 32, 40, 40, 0.5);
    await store.buildAnn({ matmul: jsMatMul });
    const q = near(centres[3]);
    const even = (id: number) => id % 2 === 0;
    const got = await store.annSearch(q, 10, { filter: even });
    assert.ok(got.length === 10 && got.every((h) => even(h.docId)));
    assert.deepEqual(ids(got), ids(store.search(q, 10, even)));
    // row 5 (cluster 0) is overwritten by a vector in cluster 7: a query there finds it first
    const target = unit(Float32Array.from(centres[7]));
    store.set(5, target);
    const near7 = await store.annSearch(target, 3);
    assert.equal(near7[0].docId, 5);
    const near0 = await store.annSearch(centres[0], 60);
    assert.ok(!ids(near0).includes(5), 'the old list no longer answers with the moved row');
  });

  it('rows added or overwritten after the build are found at their new vector, once, with their exact float score', async () => {
    const { store, centres, near, rows } = clusteredSet(3, 32, 40, 40, 0.5);
    const ivf = await store.buildAnn({ matmul: jsMatMul });
    // a new cluster arrives after the build: its rows are in no code block, only in the overflow
    const r = rng(99);
    const fresh = unit(Float32Array.from({ length: 32 }, () => gauss(r)));
    for (let i = 0; i < 30; i++) store.set(rows + i, near(fresh));
    // rows of cluster 2 get new vectors near cluster 2 still (likely the same list): their old codes must not answer
    for (let id = 80; id < 90; id++) store.set(id, near(centres[2]));
    assert.equal(store.ann, ivf, 'no rebuild for a few rows');
    assert.ok(!ivf.stale);
    for (const q of [near(fresh), near(centres[2]), fresh, centres[2]]) {
      const exact = store.search(q, 10);
      const approx = await store.annSearch(q, 10);
      assert.deepEqual(ids(approx), ids(exact));
      assert.equal(new Set(ids(approx)).size, approx.length, 'each row once');
      // the scores are the float dot products, not the codes' estimates
      approx.forEach((h, i) => assert.equal(h.score, exact[i].score));
    }
    // deleting an added row takes it out
    const top = (await store.annSearch(fresh, 1))[0].docId;
    assert.ok(top >= rows);
    store.delete(top);
    assert.ok(!ids(await store.annSearch(fresh, 30)).includes(top));
  });

  it('turns stale once the rows set since the build pass a quarter of the built rows, and a rebuild folds them in', async () => {
    const { store, near, centres, rows } = clusteredSet(4, 16, 20, 250, 0.5);
    const ivf = await store.buildAnn({ matmul: jsMatMul });
    assert.equal(ivf.builtRows, rows);
    let id = rows;
    while (!ivf.stale) store.set(id++, near(centres[id % centres.length]));
    assert.equal(id - rows, Math.max(1000, rows >> 2) + 1);
    const rebuilt = await store.buildAnn({ matmul: jsMatMul });
    assert.equal(rebuilt.builtRows, id);
    assert.ok(!rebuilt.stale);
    let same = 0;
    for (let c = 0; c < centres.length; c++) {
      const q = near(centres[c]);
      if (ids(await store.annSearch(q, 1))[0] === ids(store.search(q, 1))[0]) same++;
    }
    assert.equal(same, centres.length, 'the same top-1 as the exact scan on every cluster query');
  });

  it('recall@10 on a clustered set with more rows than one list holds is at least 0.98 at the default probe', async () => {
    const { store, centres, near } = clusteredSet(5, 64, 400, 25, 0.6);
    const ivf = await store.buildAnn({ matmul: jsMatMul });
    const probe = probeFor(ivf.lists);
    assert.ok(probe < ivf.lists / 2, `${probe} of ${ivf.lists} lists opened`);
    let recall = 0;
    const n = 100;
    for (let i = 0; i < n; i++) {
      const q = near(centres[(i * 37) % centres.length]);
      const exact = new Set(ids(store.search(q, 10)));
      recall += ids(await store.annSearch(q, 10)).filter((x) => exact.has(x)).length / 10;
      assert.ok(store.lastScanned < store.count / 2, `read ${store.lastScanned} of ${store.count} rows`);
    }
    assert.ok(recall / n >= 0.98, `recall@10 ${(recall / n).toFixed(3)}`);
  });

  it('the SIMD int8 scan gives the integer dot products of the JS loop, at the extremes too', () => {
    const d = 48;
    const rows = 37;
    const scan = SimdScanner.create(d, rows * d, rows);
    assert.ok(scan, 'WebAssembly SIMD is there in Node');
    const r = rng(11);
    const limit = queryLimit(d);
    for (let i = 0; i < rows * d; i++) scan.codes[i] = i < d ? 127 : i < 2 * d ? -127 : Math.round(r() * 254) - 127;
    const q = Int16Array.from({ length: d }, (_, j) => (j % 5 === 0 ? limit : j % 5 === 1 ? -limit : Math.round((r() * 2 - 1) * limit)));
    scan.setQuery(q);
    const got = scan.scan(0, rows).slice();
    for (let row = 0; row < rows; row++) {
      let want = 0;
      for (let j = 0; j < d; j++) want += scan.codes[row * d + j] * q[j];
      assert.equal(got[row], want, `row ${row}`);
    }
    // a range from the middle, and room checked
    assert.deepEqual([...scan.scan(5, 3)], [...got.subarray(5, 8)]);
    assert.throws(() => scan.scan(0, rows + 1), /room/);
    assert.equal(SimdScanner.create(40, 400, 10), undefined, 'dims not a multiple of 16: the JS loop scans');
    // the largest sum stays in i32 at 384 and 1,024 dims
    for (const dims of [384, 1024]) assert.ok(127 * queryLimit(dims) * dims <= 0x7fffffff);
  });

  it('the SIMD and the JS scan of the codes give the same answers', async () => {
    const { store, centres, near } = clusteredSet(6, 32, 50, 40, 0.6);
    const ivf = await store.buildAnn({ matmul: jsMatMul });
    assert.equal(ivf.kernel, 'simd');
    for (let c = 0; c < centres.length; c += 3) {
      const q = near(centres[c]);
      assert.deepEqual(await store.annSearch(q, 10, { js: true }), await store.annSearch(q, 10));
    }
    const plain = clusteredSet(6, 32, 50, 40, 0.6).store;
    assert.equal((await plain.buildAnn({ matmul: jsMatMul, simd: false })).kernel, 'js');
    const q = near(centres[4]);
    assert.deepEqual(ids(await plain.annSearch(q, 10)), ids(store.search(q, 10)));
  });

  it('builds from the rows it has: lists never exceed the rows, an empty store gives nothing', async () => {
    const s = new VectorStore(8, 4);
    assert.deepEqual(await s.annSearch(unit(new Float32Array(8).fill(1)), 5), []);
    for (let i = 0; i < 5; i++) s.set(i, unit(Float32Array.from({ length: 8 }, (_, j) => (j === i ? 1 : 0.1))));
    const ivf = await IvfIndex.build(s, { matmul: jsMatMul });
    assert.ok(ivf.lists <= 5);
    assert.equal((await s.annSearch(unit(Float32Array.from({ length: 8 }, (_, j) => (j === 2 ? 1 : 0))), 1))[0].docId, 2);
    await assert.rejects(s.annSearch(new Float32Array(3), 1), /dimensions/);
  });

  it('the engine answers dense queries through the ANN index past annMinRows, with the exact results on a clustered set', async () => {
    // a fake embedder: each text "c<k> <i>" is a vector near centre k
    const dims = 32;
    const r = rng(7);
    const centres = Array.from({ length: 30 }, () => unit(Float32Array.from({ length: dims }, () => gauss(r))));
    const vec = (t: string) => {
      const [c, i] = t.split(/\s+/).slice(-2);
      const rr = rng(Number(i) * 31 + 1);
      return unit(Float32Array.from(centres[Number(c.slice(1)) % centres.length], (x) => x + 0.1 * gauss(rr)));
    };
    let matmuls = 0;
    const embedder: Embedder = {
      id: 'fake-clusters',
      dims,
      async embed(texts) {
        return texts.map((t) => vec(t));
      },
      async matmul(a, rowsA, bT, colsB, d) {
        matmuls++;
        return jsMatMul(a, rowsA, bT, colsB, d);
      },
      async dispose() {},
    };
    const exactEngine = new Engine({ embedder });
    const annEngine = new Engine({ embedder, dense: { annMinRows: 500 } });
    for (const e of [exactEngine, annEngine]) {
      for (let f = 0; f < 30; f++) {
        const text = Array.from({ length: 25 }, (_, i) => `# c${f} ${f * 100 + i}\n\nc${f} ${f * 100 + i}`).join('\n\n');
        e.updateFile(`f${f}.md`, Buffer.from(text), { size: text.length, mtimeMs: 1 });
      }
      for await (const _ of e.embedPending()) void _;
    }
    assert.ok(annEngine.vectors!.count >= 500, `${annEngine.vectors!.count} vectors`);
    // the first dense query starts the build and is answered by the exact scan meanwhile
    const during = await annEngine.search('c3 9001', { mode: 'dense', k: 10 });
    assert.ok(during.length === 10);
    await annEngine.prepareAnn();
    for (const q of ['c3 9001', 'c17 9002', 'c29 9003']) {
      const a = await annEngine.search(q, { mode: 'dense', k: 10 });
      const b = await exactEngine.search(q, { mode: 'dense', k: 10 });
      assert.deepEqual(
        a.map((h) => h.chunk.id),
        b.map((h) => h.chunk.id),
      );
    }
    assert.ok(annEngine.vectors!.ann, 'the ANN index was built');
    assert.equal(exactEngine.vectors!.ann, undefined, 'below annMinRows the exact scan answers');
    assert.ok(matmuls > 0, "the build used the embedder's matrix product");
    // a removed file's chunks never come back from the ANN path
    annEngine.removeFile('f3.md');
    const after = await annEngine.search('c3 9001', { mode: 'dense', k: 10 });
    assert.ok(after.every((h) => h.chunk.path !== 'f3.md'));
  });
});

describe('exact dense scan through int8 codes (VectorStore.fastSearch)', () => {
  it('gives the float scan\'s top-10 with its float scores, honours deletes, filters, rows set or added after the build', function () {
    this.timeout(30_000);
    const { store, centres, near } = clusteredSet(7, 128, 200, 50, 0.6); // 10,000 rows, Fathom's model's 128 dims
    assert.ok(store.count >= INT8_SCAN_MIN_ROWS);
    const r = rng(9);
    let same = 0;
    const queries = Array.from({ length: 60 }, (_, i) => near(centres[Math.floor(r() * centres.length)]).map((x) => (i % 2 ? x : x + 0.01 * gauss(r))));
    for (const q of queries) {
      const fast = store.fastSearch(q, 10);
      assert.ok(fast, 'SIMD is there in Node 20');
      const exact = store.search(q, 10);
      if (ids(fast).join() === ids(exact).join()) same++;
      const floatScore = (id: number) => Math.fround(store.get(id)!.reduce((a, x, j) => a + x * q[j], 0));
      for (const h of fast) assert.ok(Math.abs(h.score - floatScore(h.docId)) < 1e-5, 'the float score');
    }
    assert.ok(same >= 59, `the same top-10 for ${same} of 60 queries`);
    const q = queries[0];
    const top = store.fastSearch(q, 10)!;
    store.delete(top[0].docId);
    assert.ok(!ids(store.fastSearch(q, 10)!).includes(top[0].docId), 'a deleted row is never returned');
    assert.ok(store.fastSearch(q, 10, (id) => id % 2 === 0)!.every((h) => h.docId % 2 === 0), 'the filter holds');
    // a row overwritten with the query itself is the best at once; a row past the codes' room too
    store.set(123, q);
    assert.equal(store.fastSearch(q, 1)![0].docId, 123);
    const far = store.count + 50_000;
    const other = queries[1];
    store.set(far, other);
    assert.equal(store.fastSearch(other, 1)![0].docId, far);
  });

  it('is not used below INT8_SCAN_MIN_ROWS or for dimensions the SIMD kernel cannot take', () => {
    assert.equal(clusteredSet(3, 128, 10, 10, 0.6).store.fastSearch(unit(new Float32Array(128).fill(1)), 5), undefined);
    const odd = clusteredSet(4, 40, 100, 90, 0.6).store; // 9,000 rows of 40 dims
    assert.equal(odd.fastSearch(unit(new Float32Array(40).fill(1)), 5), undefined);
  });
});

describe('ANN (IVF) index persisted', () => {
  /** Bytes of `parts` in one 8-byte aligned block (as the store reads a file). */
  const joined = (parts: Uint8Array[]) => {
    const n = parts.reduce((a, p) => a + p.byteLength, 0);
    const out = new Uint8Array(new ArrayBuffer(n));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.byteLength;
    }
    return out;
  };

  it('export → read answers as the built index (SIMD and JS scans), with its overflow (rows set after the build, moved rows) and deleted rows, and goes on taking rows', async () => {
    const { store, centres, near, rows } = clusteredSet(3, 48, 40, 40, 0.6);
    await store.buildAnn({ matmul: jsMatMul });
    // after the build: new rows, a row given a new vector (moved to the overflow), a deletion
    const r = rng(11);
    for (let i = 0; i < 30; i++) store.set(rows + i, near(centres[i % centres.length]));
    store.set(5, near(centres[7]));
    store.delete(9);
    const ivf = store.ann!;
    for (const simd of [true, false]) {
      const copy = IvfIndex.read(joined(ivf.export()), 48, { simd });
      assert.equal(copy.kernel, simd && ivf.kernel === 'simd' ? 'simd' : 'js');
      assert.equal(copy.lists, ivf.lists);
      assert.equal(copy.stale, ivf.stale);
      assert.equal(copy.bytes, ivf.bytes);
      const { data } = store.matrix();
      for (let q = 0; q < 20; q++) {
        const query = near(centres[Math.floor(r() * centres.length)]);
        const keep = (id: number) => store.has(id);
        assert.deepEqual(copy.search(data, query, 10, { probe: 8, keep }), ivf.search(data, query, 10, { probe: 8, keep }));
      }
      // still takes rows, as the original does
      const v = near(centres[3]);
      copy.add(rows + 100, v);
      assert.ok(copy.has(rows + 100));
    }
    // a store adopts it only when it holds every row with a vector
    const fresh = VectorStore.import(48, store.matrix().rows, store.export().present, store.export().data);
    assert.equal(fresh.adoptAnn(IvfIndex.read(joined(ivf.export()), 48)), undefined);
    assert.equal(fresh.adoptAnn(IvfIndex.read(joined(ivf.export()), 48)), 'the vectors have a dense index already');
    const grown = VectorStore.import(48, store.matrix().rows, store.export().present, store.export().data);
    grown.set(store.matrix().rows + 5, near(centres[0]));
    assert.match(grown.adoptAnn(IvfIndex.read(joined(ivf.export()), 48)) ?? '', /stale: row \d+ is not in it/);
    assert.throws(() => IvfIndex.read(joined(ivf.export()), 32), /dense index: 48 dimensions, the vectors have 32/);
  });

  it('damaged bytes are refused with the reason, or read into an index that searches without a throw', () => {
    const { store, centres, near } = clusteredSet(5, 16, 20, 20, 0.6);
    return store.buildAnn({ matmul: jsMatMul }).then((ivf) => {
      const good = joined(ivf.export());
      let refused = 0;
      const step = Math.max(1, Math.floor(good.byteLength / 300));
      for (let at = 0; at < good.byteLength; at += step) {
        const b = good.slice();
        b[at] ^= 0x81;
        try {
          const copy = IvfIndex.read(b, 16);
          copy.search(store.matrix().data, near(centres[1]), 5, { probe: 4, keep: () => true });
        } catch (err) {
          assert.match((err as Error).message, /^dense index: /);
          refused++;
        }
      }
      for (const len of [0, 16, 32, good.byteLength - 1]) assert.throws(() => IvfIndex.read(good.slice(0, len), 16), /dense index/);
      assert.ok(refused > 30, `${refused} refused`);
    });
  });

  it('the store keeps the dense index: a load answers through it without a build; damaged or stale, it is left out with a note and built again', async () => {
    const dims = 16;
    const r = rng(21);
    const centres = Array.from({ length: 12 }, () => unit(Float32Array.from({ length: dims }, () => gauss(r))));
    let matmuls = 0;
    const embedder: Embedder = {
      id: 'fake-clusters-16',
      dims,
      async embed(texts) {
        return texts.map((t) => {
          const [c, i] = t.split(/\s+/).slice(-2);
          const rr = rng(Number(i) * 31 + 1);
          // vectors the store's int8 rows hold exactly: a load then answers exactly as before the save
          const v = unit(Float32Array.from(centres[Number(c.slice(1)) % centres.length], (x) => x + 0.1 * gauss(rr)));
          const q = quantizeRows(v, 1, dims);
          return dequantizeRows(q.scales, q.rows, 1, dims);
        });
      },
      async matmul(a, rowsA, bT, colsB, d) {
        matmuls++;
        return jsMatMul(a, rowsA, bT, colsB, d);
      },
      async dispose() {},
    };
    const make = () => new Engine({ embedder, dense: { annMinRows: 100 } });
    const a = make();
    for (let f = 0; f < 12; f++) {
      const text = Array.from({ length: 20 }, (_, i) => `# c${f} ${f * 100 + i}\n\nc${f} ${f * 100 + i}`).join('\n\n');
      a.updateFile(`f${f}.md`, Buffer.from(text), { size: text.length, mtimeMs: 1 });
    }
    for await (const _ of a.embedPending()) void _;
    await a.prepareAnn();
    assert.ok(a.vectors!.ann);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-ann-'));
    try {
      saveStore(dir, a);
      const queries = ['c3 9001', 'c7 9002', 'c11 9003'];
      const answers = async (e: Engine) => Promise.all(queries.map(async (q) => (await e.search(q, { mode: 'dense', k: 10 })).map((h) => `${h.chunk.id} ${h.score}`)));
      const want = await answers(a);
      matmuls = 0;
      const b = make();
      assert.deepEqual(loadStore(dir, b), { ok: true });
      assert.ok(b.vectors!.ann, 'the dense index came with the load');
      assert.equal(b.vectors!.ann!.lists, a.vectors!.ann!.lists);
      assert.deepEqual(await answers(b), want);
      assert.equal(matmuls, 0, 'no build');
      // damaged past its checksum (the checksum made to match), or failing it: left out, then built when needed
      const mfile = path.join(dir, 'manifest.json');
      const m = JSON.parse(fs.readFileSync(mfile, 'utf8'));
      const afile = path.join(dir, m.files.ann.name);
      const bytes = fs.readFileSync(afile);
      const flipped = Buffer.from(bytes);
      flipped[40] ^= 0xff; // a byte of the header's neighbours: the centroids
      flipped[4] ^= 0x01; // the dimensions
      for (const [what, entry] of [
        ['failing its checksum', { ...m.files.ann, crc32: '00000000' }],
        ['damaged past its checksum', { ...m.files.ann, crc32: crc32(flipped).toString(16).padStart(8, '0') }],
      ] as const) {
        if (what === 'damaged past its checksum') fs.writeFileSync(afile, flipped);
        fs.writeFileSync(mfile, JSON.stringify({ ...m, files: { ...m.files, ann: entry } }));
        const c = make();
        const res = loadStore(dir, c);
        assert.equal(res.ok, true, what);
        assert.match((res as { note?: string }).note ?? '', /the stored dense index was left out \(.+\); it is built again when needed/, what);
        assert.equal(c.vectors!.ann, undefined, what);
        assert.equal(c.chunkCount, a.chunkCount);
        await c.prepareAnn();
        assert.ok(c.vectors!.ann, `${what}: built again`);
        assert.deepEqual(await answers(c), want, what);
      }
      fs.writeFileSync(afile, bytes);
      fs.writeFileSync(mfile, JSON.stringify(m));
      assert.deepEqual(loadStore(dir, make()), { ok: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
