import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import { Engine } from '../../src/index/engine';
import type { Embedder } from '../../src/index/embedder';
import { IvfIndex, jsMatMul } from '../../src/index/ivf';
import { probeFor, VectorStore } from '../../src/index/vectors';

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
