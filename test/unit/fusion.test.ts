import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { compileFilter, convex, rrf, type DocFacts } from '../../src/index/rank/fusion';

/** A ranked list of distinct docIds. */
const list = fc.uniqueArray(fc.nat(60), { maxLength: 40 });

describe('convex: keyword and dense scores combined by value', () => {
  const kw = (scores: Array<[number, number]>) => ({ name: 'keyword' as const, ids: scores.map(([id]) => id), scores: new Map(scores) });
  const dn = (scores: Array<[number, number]>) => ({ name: 'dense' as const, ids: scores.map(([id]) => id), scores: new Map(scores) });

  it('min-max normalizes each list over the union, weighs them share : 1 − share, and says why', () => {
    const out = convex(kw([[1, 10], [2, 9], [3, 1]]), dn([[2, 0.9], [4, 0.5], [1, 0.1]]), { depth: 50 });
    // keyword: 1 → 1, 2 → 8/9, 3 → 0, 4 → 0 (no score); dense: 2 → 1, 4 → 0.5, 1 → 0, 3 → 0 (no score)
    assert.deepEqual(out.map((h) => h.docId), [2, 1, 4, 3]);
    assert.ok(Math.abs(out[0].score - (0.5 * (8 / 9) + 0.5)) < 1e-12);
    assert.deepEqual(out[0].why, { keyword: 2, dense: 1, fused: out[0].score });
    assert.deepEqual(out[2].why, { dense: 2, fused: 0.25 });
    assert.deepEqual(out[3].why, { keyword: 3, fused: 0 });
    // share 1: the keyword order; share 0: the dense order (ties: the better keyword rank)
    assert.deepEqual(convex(kw([[1, 10], [2, 9], [3, 1]]), dn([[2, 0.9], [4, 0.5], [1, 0.1]]), { depth: 50, share: 1 }).map((h) => h.docId), [1, 2, 3, 4]);
    assert.deepEqual(convex(kw([[1, 10], [2, 9], [3, 1]]), dn([[2, 0.9], [4, 0.5], [1, 0.1]]), { depth: 50, share: 0 }).map((h) => h.docId), [2, 4, 1, 3]);
  });

  it("a list's only score (one keyword hit among the model's fifty) counts as its best, not as its worst", () => {
    const out = convex(kw([[7, 3.2]]), dn([[1, 0.4], [2, 0.3], [7, 0.1]]), { depth: 50 });
    assert.deepEqual(out.map((h) => h.docId), [7, 1, 2]);
    assert.equal(out[0].score, 0.5);
  });

  it('a score known past a list (a keyword candidate\'s cosine) counts; only the first `depth` of each list are candidates; scores stay in [0, 1]', () => {
    const dense = { ...dn([[2, 0.9], [4, 0.5]]), scores: new Map([[2, 0.9], [4, 0.5], [1, 0.7], [3, 0.1]]) };
    const out = convex(kw([[1, 10], [3, 9], [5, 8]]), dense, { depth: 2, limit: 3 });
    // 5 is past the keyword list's depth; 1's cosine lifts it: 0.5 × 1 + 0.5 × 0.75; 3 is cut by the limit
    assert.deepEqual(out.map((h) => h.docId), [1, 2, 4]);
    assert.equal(out[0].score, 0.875);
    assert.ok(out.every((h) => h.score >= 0 && h.score <= 1));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.nat(40), fc.double({ min: -5, max: 50, noNaN: true })), { selector: (x) => x[0], maxLength: 30 }), fc.uniqueArray(fc.tuple(fc.nat(40), fc.double({ min: -1, max: 1, noNaN: true })), { selector: (x) => x[0], maxLength: 30 }), (a, b) => {
        const o = convex(kw(a), dn(b), { depth: 50 });
        assert.equal(new Set(o.map((h) => h.docId)).size, new Set([...a, ...b].map(([id]) => id)).size);
        for (let i = 0; i < o.length; i++) {
          assert.ok(o[i].score >= 0 && o[i].score <= 1 + 1e-12, String(o[i].score));
          if (i) assert.ok(o[i - 1].score >= o[i].score);
        }
      }),
    );
  });
});

describe('rrf: reciprocal rank fusion', () => {
  it('scores 1/(k + rank) per list and says why', () => {
    const out = rrf([
      { name: 'keyword', ids: [7, 3, 9] },
      { name: 'dense', ids: [3, 5] },
    ]);
    assert.deepEqual(out.map((h) => h.docId), [3, 7, 5, 9]);
    assert.deepEqual(out[0].why, { keyword: 2, dense: 1, fused: 1 / 62 + 1 / 61 });
    assert.deepEqual(out[1].why, { keyword: 1, fused: 1 / 61 });
    assert.deepEqual(out[2].why, { dense: 2, fused: 1 / 62 });
    assert.equal(out[0].score, out[0].why.fused);
    assert.equal(rrf([{ name: 'keyword', ids: [1, 2] }], { k: 0 })[0].score, 1);
  });

  it('a document first in both lists is first', () => {
    fc.assert(
      fc.property(list, list, fc.nat(60), fc.integer({ min: 0, max: 500 }), (a, b, top, k) => {
        const ka = [top, ...a.filter((x) => x !== top)];
        const kb = [top, ...b.filter((x) => x !== top)];
        const out = rrf([{ name: 'keyword', ids: ka }, { name: 'dense', ids: kb }], { k });
        assert.equal(out[0].docId, top);
        assert.deepEqual(out[0].why, { keyword: 1, dense: 1, fused: 2 / (k + 1) });
      }),
    );
  });

  it('is monotone: better or equal ranks everywhere never score lower', () => {
    fc.assert(
      fc.property(list, list, fc.integer({ min: 1, max: 200 }), (a, b, k) => {
        const out = rrf([{ name: 'keyword', ids: a }, { name: 'dense', ids: b }], { k });
        const byId = new Map(out.map((h) => [h.docId, h]));
        for (const x of out) {
          for (const y of out) {
            const better = (rx?: number, ry?: number) => ry === undefined || (rx !== undefined && rx <= ry);
            if (better(x.why.keyword, y.why.keyword) && better(x.why.dense, y.why.dense)) assert.ok(x.score >= y.score);
          }
        }
        // Output is sorted by score; each id appears once; every input id is present.
        for (let i = 1; i < out.length; i++) assert.ok(out[i - 1].score >= out[i].score);
        assert.equal(byId.size, out.length);
        assert.equal(out.length, new Set([...a, ...b]).size);
      }),
    );
  });

  it('k changes nothing for a single list: its order is kept', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(30), { maxLength: 40 }), fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('keyword' as const, 'dense' as const), (ids, k, name) => {
        const out = rrf([{ name, ids }], { k });
        assert.deepEqual(out.map((h) => h.docId), [...new Set(ids)]);
        out.forEach((h, i) => assert.equal(h.why[name], i + 1));
      }),
    );
  });

  it('breaks ties deterministically, whatever the list order', () => {
    fc.assert(
      fc.property(list, list, (a, b) => {
        const x = rrf([{ name: 'keyword', ids: a }, { name: 'dense', ids: b }]);
        const y = rrf([{ name: 'dense', ids: b }, { name: 'keyword', ids: a }]);
        assert.deepEqual(x.map((h) => h.docId), y.map((h) => h.docId));
      }),
    );
    // Equal scores: the keyword rank decides, then the docId.
    assert.deepEqual(rrf([{ name: 'keyword', ids: [4] }, { name: 'dense', ids: [2] }]).map((h) => h.docId), [4, 2]);
    assert.deepEqual(rrf([{ name: 'dense', ids: [9] }, { name: 'dense', ids: [2] }]).map((h) => h.docId), [2, 9]);
  });

  it('limit, empty lists and repeated ids', () => {
    assert.deepEqual(rrf([]), []);
    assert.deepEqual(rrf([{ name: 'keyword', ids: [] }]), []);
    assert.equal(rrf([{ name: 'keyword', ids: [1, 2, 3] }], { limit: 2 }).length, 2);
    assert.deepEqual(rrf([{ name: 'keyword', ids: [1, 2, 3] }], { limit: 0 }), []);
    const rep = rrf([{ name: 'keyword', ids: [5, 5, 6] }]);
    assert.deepEqual(rep.map((h) => [h.docId, h.why.keyword]), [[5, 1], [6, 2]]);
    assert.throws(() => rrf([], { k: -1 }), RangeError);
  });
});

describe('compileFilter', () => {
  const docs: DocFacts[] = [
    { path: 'src/components/KZoomControl.vue', language: 'vue', kind: 'template' },
    { path: 'src/components/deep/test/Thing.vue', language: 'vue', kind: 'method' },
    { path: 'src/map/zoom.js', language: 'javascript', kind: 'function' },
    { path: 'test/unit/zoom.test.ts', language: 'typescript', kind: 'function' },
    { path: 'locales/core_fr.json', language: 'json', kind: 'i18n-section' },
    { path: '.github/workflows/ci.yml', language: 'yaml', kind: 'text' },
    { path: 'App.vue', language: 'vue', kind: 'template' },
  ];
  const pick = (spec: Parameters<typeof compileFilter>[0]) => {
    const f = compileFilter(spec, (id) => docs[id]);
    return docs.map((_, i) => i).filter(f).map((i) => docs[i].path);
  };

  it('path globs, with negation', () => {
    assert.deepEqual(pick({ pathGlob: 'src/**/*.vue' }), ['src/components/KZoomControl.vue', 'src/components/deep/test/Thing.vue']);
    assert.deepEqual(pick({ pathGlob: ['src/**/*.vue', '!**/test/**'] }), ['src/components/KZoomControl.vue']);
    assert.deepEqual(pick({ pathGlob: '!**/test/**' }), docs.map((d) => d.path).filter((p) => !p.includes('test/')));
    assert.deepEqual(pick({ pathGlob: ['src/map/**', 'locales/*.json'] }), ['src/map/zoom.js', 'locales/core_fr.json']);
    assert.deepEqual(pick({ pathGlob: '**/*.yml' }), ['.github/workflows/ci.yml']);
  });

  it('a glob without a slash matches the file name anywhere', () => {
    assert.deepEqual(pick({ pathGlob: '*.vue' }), ['src/components/KZoomControl.vue', 'src/components/deep/test/Thing.vue', 'App.vue']);
    assert.deepEqual(pick({ pathGlob: 'zoom.*' }), ['src/map/zoom.js', 'test/unit/zoom.test.ts']);
  });

  it('languages (any case) and kinds, combined with globs', () => {
    assert.deepEqual(pick({ language: ['Vue'] }), ['src/components/KZoomControl.vue', 'src/components/deep/test/Thing.vue', 'App.vue']);
    assert.deepEqual(pick({ kind: ['function'] }), ['src/map/zoom.js', 'test/unit/zoom.test.ts']);
    assert.deepEqual(pick({ kind: ['function'], pathGlob: '!test/**' }), ['src/map/zoom.js']);
    assert.deepEqual(pick({ language: ['vue'], kind: ['template'], pathGlob: 'src/**' }), ['src/components/KZoomControl.vue']);
  });

  it('the same spec shares its facets (what was learnt about paths), each lookup is honoured', () => {
    const a = compileFilter({ pathGlob: ['src/**', '!**/test/**'], language: ['Vue', 'json'] }, (id) => docs[id]);
    const b = compileFilter({ language: ['JSON', 'vue'], pathGlob: ['src/**', '!**/test/**'] }, () => undefined);
    assert.ok(a.facets && a.facets === b.facets);
    assert.ok(a(0));
    assert.equal(b(0), false);
    assert.notEqual(compileFilter({ pathGlob: 'src/**' }, (id) => docs[id]).facets, a.facets);
  });

  it('no constraint accepts everything without lookups; unknown documents are rejected', () => {
    let calls = 0;
    const all = compileFilter({ pathGlob: [], language: [], kind: [] }, () => {
      calls++;
      return undefined;
    });
    assert.ok(all(123));
    assert.equal(calls, 0);
    assert.equal(compileFilter({ language: ['vue'] }, () => undefined)(1), false);
  });
});
