import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { chunkFile, resolveOptions, type Chunk } from '../../src/chunkers/index';
import { walkFiles } from '../../src/workspace/files';
import { compileFilter } from '../../src/index/rank/fusion';
import { keywordRecord, KeywordIndex as PlainKeywordIndex, type KeywordFields } from '../../src/index/keyword';
import { Lexicon } from '../../src/index/lexicon';
// the benchmarks' FlexSearch-order baseline over the same index: every invariant holds for both orders
import { FlexsearchOrderIndex as KeywordIndex, type Scoring } from '../../bench/flexsearch-order';
import { CompoundScanner, fold, forgetSeenTerms, MAX_QUERY_TERMS, queryTerms, sStem, terms, termsOfCompound, termsWithWeakness } from '../../src/index/terms';

const SAMPLE = path.resolve(__dirname, '../../sample-workspace');

describe('terms: the code-aware tokenizer', () => {
  it('property: a token met again gives the same terms and weakness as the first time, whatever options came between', () => {
    const unit = fc.constantFrom(...'asZ_$-.9é中 '.split(''));
    const withWeak = (t: string, o: Parameters<typeof terms>[1]) => {
      const w: number[] = [];
      return [termsWithWeakness(t, o ?? {}, w), w];
    };
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (text) => {
        const runs = [() => terms(text, { stem: 'add' }), () => terms(text, { stem: true }), () => withWeak(text, { stem: 'add' }), () => withWeak(text, { singleDigits: true }), () => terms(text)];
        const fresh = runs.map((run) => {
          forgetSeenTerms();
          return run();
        });
        const first = runs.map((run) => run());
        const again = runs.map((run) => run());
        assert.deepEqual(first, fresh);
        assert.deepEqual(again, fresh);
        assert.deepEqual(terms(`${text} ${text}`, { stem: 'add' }), [...(fresh[0] as string[]), ...(fresh[0] as string[])]);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: the terms of a text are its compounds\' terms, one compound after the other (CompoundScanner), and equal compounds hash alike', () => {
    const unit = fc.constantFrom(...['a', 's', 'Z', '_', '$', '-', '.', '/', '9', 'é', '中', 'レ', ' ', '\n', '𝐀', '😀', '\u0301', '\ud800', 'ß', 'ｱ']);
    const scanner = new CompoundScanner();
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), fc.constantFrom<Parameters<typeof terms>[1]>({ stem: 'add' }, { stem: true }, { singleDigits: true }, {}), (text, options) => {
        const whole: number[] = [];
        const expected = termsWithWeakness(text, options ?? {}, whole);
        const n = scanner.scan(text);
        const got: string[] = [];
        const weak: number[] = [];
        const hashOf = new Map<string, number>();
        for (let k = 0; k < n; k++) {
          const token = text.slice(scanner.starts[k], scanner.ends[k]);
          assert.ok(token.length > 0);
          if (k > 0) assert.ok(scanner.starts[k] >= scanner.ends[k - 1]);
          const h = hashOf.get(token);
          if (h === undefined) hashOf.set(token, scanner.hashes[k]);
          else assert.equal(scanner.hashes[k], h);
          const w2: number[] = [];
          const own = termsOfCompound(token, options ?? {}, w2); // what the keyword index asks, bypassing the book
          const shared = termsWithWeakness(token, options ?? {}, weak);
          assert.deepEqual([own, w2], [shared, weak.slice(weak.length - shared.length)]);
          got.push(...shared);
        }
        assert.deepEqual(got, expected);
        assert.deepEqual(weak, whole);
      }),
      { numRuns: 3000 },
    );
  });

  const cases: Array<[string, string[]]> = [
    ['getZoomControl', ['getzoomcontrol', 'get', 'zoom', 'control']],
    ['XMLHttpRequest', ['xmlhttprequest', 'xml', 'http', 'request']],
    ['KZoomControl', ['kzoomcontrol', 'zoom', 'control']],
    ['get_zoom_control', ['get_zoom_control', 'get', 'zoom', 'control']],
    ['MAX_ZOOM_LEVEL', ['max_zoom_level', 'max', 'zoom', 'level']],
    ['k-text-field', ['k-text-field', 'text', 'field']],
    ['a.b.c', ['a.b.c']],
    ['events.create.fields', ['events.create.fields', 'events', 'create', 'fields']],
    ['src/map/zoom.js', ['src/map/zoom.js', 'src', 'map', 'zoom', 'js']],
    ['Dézoomer', ['dezoomer']],
    ['Créer un événement', ['creer', 'un', 'evenement']],
    ['ＡＢＣ Straße', ['abc', 'strasse']],
    ['utf8Decode h1', ['utf8decode', 'utf8', 'decode', 'h1']],
    ['this.$refs.input', ['this.$refs.input', 'this', '$refs', 'refs', 'input']],
    ['HTMLElement getHTTPResponseCode', ['htmlelement', 'html', 'element', 'gethttpresponsecode', 'get', 'http', 'response', 'code']],
    ['end. Fin.', ['end', 'fin']],
    ['a - b -- c', []],
    ['x = 1 + 2', []],
    ['.*+?()[]{}|\\^$', []],
    ['検索', ['検索']],
    ['レイヤーを検索', ['レイヤーを検索', 'レイ', 'イヤ', 'ヤー', 'ーを', 'を検', '検索']],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} → ${expected.join(' ') || '(nothing)'}`, () => {
      assert.deepEqual(terms(text), expected);
    });
  }

  it('keeps repeats in documents and drops them in queries', () => {
    assert.deepEqual(terms('zoom zoom'), ['zoom', 'zoom']);
    assert.deepEqual(queryTerms('zoom control (getZoomControl)'), ['zoom', 'control', 'getzoomcontrol', 'get']);
  });

  it('folds case and diacritics the same way in documents and queries', () => {
    assert.equal(fold('DÉZOOMER'), 'dezoomer');
    assert.deepEqual(queryTerms('DÉZOOMER'), terms('Dézoomer'));
    assert.deepEqual(queryTerms('Ελληνικά'), ['ελληνικα']);
  });

  it('bounds a huge query and never throws on any text', () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `word${i}`).join(' ');
    assert.equal(queryTerms(words).length, MAX_QUERY_TERMS);
    assert.deepEqual(terms('x'.repeat(100_000)), []);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const t = terms(s);
        for (const term of t) {
          assert.ok(term.length >= 1 && term.length <= 64);
          assert.equal(term, term.toLowerCase());
        }
        const q = queryTerms(s);
        assert.equal(new Set(q).size, q.length);
      }),
      { numRuns: 500 },
    );
  });

  it('stems plurals only when asked (S-stemmer), replacing or adding', () => {
    assert.deepEqual(['layers', 'queries', 'classes', 'status', 'class', 'bus'].map(sStem), ['layer', 'query', 'classe', 'status', 'class', 'bus']);
    assert.deepEqual(terms('getLayers'), ['getlayers', 'get', 'layers']);
    assert.deepEqual(terms('getLayers', { stem: true }), ['getlayer', 'get', 'layer']);
    assert.deepEqual(terms('getLayers', { stem: 'add' }), ['getlayers', 'getlayer', 'get', 'layers', 'layer']);
  });

  it('says which terms are parts of identifiers or added stems', () => {
    const weak: number[] = [];
    assert.deepEqual(termsWithWeakness('getLayers src/a.js', { stem: 'add' }, weak), ['getlayers', 'getlayer', 'get', 'layers', 'layer', 'src/a.js', 'src', 'js']);
    assert.deepEqual(weak, [0, 2, 1, 1, 2, 0, 0, 0]);
    // The same terms as `terms`, whatever the text.
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const w: number[] = [];
        assert.deepEqual(termsWithWeakness(s, { stem: 'add' }, w), terms(s, { stem: 'add' }));
        assert.equal(w.length, terms(s, { stem: 'add' }).length);
      }),
    );
  });

  it('keeps one-digit terms only when asked', () => {
    assert.deepEqual(terms('v1.2 x 3'), ['v1.2', 'v1']);
    assert.deepEqual(terms('v1.2 x 3', { singleDigits: true }), ['v1.2', 'v1', '2', '3']);
  });
});

/** Every chunk of the sample workspace, read from where it is. */
function sampleChunks(): Chunk[] {
  const opts = resolveOptions();
  const out: Chunk[] = [];
  for (const f of walkFiles(SAMPLE)) out.push(...chunkFile(f.rel, fs.readFileSync(f.abs, 'utf8'), opts).chunks);
  return out;
}

function fieldsOf(c: Chunk): KeywordFields {
  return { path: c.path, header: c.header, symbol: c.symbol, text: c.text, language: c.language, kind: c.kind };
}

describe('KeywordIndex: ranking on the sample workspace', () => {
  const chunks = sampleChunks();
  const index = new KeywordIndex();
  chunks.forEach((c, i) => index.add(i, fieldsOf(c)));

  const expectations: Array<{ q: string; path: string; symbol?: string }> = [
    { q: 'zoom control (getZoomControl)', path: 'src/map/zoom.js', symbol: 'getZoomControl' },
    { q: 'getZoomControl', path: 'src/map/zoom.js', symbol: 'getZoomControl' },
    { q: 'KZoomControl', path: 'src/components/KZoomControl.vue' },
    { q: 'Rechercher des couches', path: 'locales/core_fr.json' },
    { q: 'field name with component KTextField', path: 'schemas/events/create.json', symbol: 'properties.name' },
    { q: 'Adding a language', path: 'docs/i18n.md' },
    { q: 'dézoomer', path: 'locales/core_fr.json' },
    { q: 'toggle layer (toggleLayer)', path: 'src/components/LayerPanel.vue', symbol: 'toggleLayer' },
  ];
  for (const scoring of ['bm25', 'flexsearch'] as Scoring[]) {
    for (const e of expectations) {
      // FlexSearch's own order does not weigh terms; its one miss here is pinned below.
      if (scoring === 'flexsearch' && e.q === 'KZoomControl') continue;
      it(`${scoring}: "${e.q}" → ${e.path}${e.symbol ? ` (${e.symbol})` : ''}`, () => {
        const hits = index.search(e.q, { k: 5, scoring });
        assert.ok(hits.length > 0, 'no result');
        const top = chunks[hits[0].docId];
        assert.equal(top.path, e.path, `top: ${top.path} ${top.symbol ?? ''}`);
        if (e.symbol) assert.equal(top.symbol, e.symbol);
        assert.deepEqual(hits.map((h) => h.rank), hits.map((_, i) => i + 1));
        for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
      });
    }
  }

  it('bm25 is the default and finds KZoomControl where FlexSearch order alone does not', () => {
    const hits = index.search('KZoomControl', { k: 1 });
    assert.equal(chunks[hits[0].docId].path, 'src/components/KZoomControl.vue');
    // FlexSearch puts the i18n section keyed `KZoomControl` first (symbol slot, added first).
    const fx = index.search('KZoomControl', { k: 5, scoring: 'flexsearch' }).map((h) => chunks[h.docId].path);
    assert.equal(fx[0], 'locales/core_en.json');
    assert.ok(fx.includes('src/components/KZoomControl.vue'));
  });

  it('filters by path glob, language and kind', () => {
    const only = (spec: Parameters<typeof compileFilter>[0]) => compileFilter(spec, (id) => index.lookup(id));
    const vue = index.search('zoom', { k: 50, filter: only({ pathGlob: 'src/**/*.vue' }) });
    assert.ok(vue.length > 0);
    for (const h of vue) assert.match(chunks[h.docId].path, /^src\/.*\.vue$/);
    const json = index.search('zoom', { k: 50, filter: only({ language: ['json'], kind: ['i18n-section'] }) });
    assert.deepEqual([...new Set(json.map((h) => chunks[h.docId].path))].sort(), ['locales/core_en.json', 'locales/core_fr.json']);
    const notLocales = index.search('zoom', { k: 50, filter: only({ pathGlob: ['!locales/**'] }) });
    assert.ok(notLocales.length > 0 && notLocales.every((h) => !chunks[h.docId].path.startsWith('locales/')));
    assert.deepEqual(index.search('zoom', { k: 5, filter: () => false }), []);
  });

  it('a compiled filter (tested on the index\'s own facts) and a plain predicate agree', () => {
    const specs: Array<Parameters<typeof compileFilter>[0]> = [
      { pathGlob: 'src/**/*.vue' },
      { pathGlob: ['**/*.json', '!locales/core_en.json'] },
      { language: ['JSON'], kind: ['i18n-section', 'schema-property'] },
      { pathGlob: '*.md', kind: ['section'] },
      {},
    ];
    for (const spec of specs) {
      const compiled = compileFilter(spec, (id) => index.lookup(id));
      const plain = (id: number) => compiled(id);
      for (const q of ['zoom', 'layer events', 'field name', 'language', 'KZoomControl']) {
        for (const scoring of ['bm25', 'flexsearch'] as Scoring[]) {
          for (const maxPostings of [1, 1_000_000]) {
            const a = index.search(q, { k: 8, scoring, filter: compiled, maxPostings });
            const b = index.search(q, { k: 8, scoring, filter: plain, maxPostings });
            assert.deepEqual(a, b, `${JSON.stringify(spec)} ${q} ${scoring} ${maxPostings}`);
            for (const h of a) assert.ok(compiled(h.docId));
          }
        }
      }
    }
  });

  it('a small postings budget still finds what only the common terms match under a filter', () => {
    // `zoom` is common here and `layers` rarer: with a budget of 1 posting only the rarest
    // term makes candidates, and a filter that none of its documents pass falls back to all.
    const onlyZoomFiles = compileFilter({ pathGlob: ['src/map/**', 'src/components/KZoomControl.vue'] }, (id) => index.lookup(id));
    const hits = index.search('zoom layers', { k: 3, filter: onlyZoomFiles, maxPostings: 1 });
    assert.ok(hits.length > 0);
    for (const h of hits) assert.ok(onlyZoomFiles(h.docId));
    assert.deepEqual(
      index.search('zoom control (getZoomControl)', { k: 5, maxPostings: 1 }).map((h) => h.docId)[0],
      index.search('zoom control (getZoomControl)', { k: 5 }).map((h) => h.docId)[0],
    );
  });

  it('never throws on odd queries; nothing to search gives []', () => {
    for (const q of ['', '   ', '.*+?()[]{}|\\^$', '\u0000\uffff\ud800', 'x'.repeat(100 * 1024), 'zoom '.repeat(20_000), '🙂 中文 العربية']) {
      for (const scoring of ['bm25', 'flexsearch'] as Scoring[]) assert.ok(Array.isArray(index.search(q, { scoring })));
    }
    assert.deepEqual(index.search(''), []);
    assert.deepEqual(index.search('.*+?()[]{}|\\^$'), []);
    assert.deepEqual(index.search('zoom', { k: 0 }), []);
    assert.deepEqual(new KeywordIndex().search('zoom'), []);
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (q) => {
        index.search(q, { k: 3 });
        index.search(q, { k: 3, scoring: 'flexsearch' });
      }),
      { numRuns: 300 },
    );
  });
});

describe('KeywordIndex: updates and persistence', () => {
  const words = ['zoom', 'control', 'layer', 'panel', 'schema', 'field', 'label', 'event', 'create', 'toggle', 'map', 'vue'];
  const doc = fc.record({
    symbol: fc.array(fc.constantFrom(...words), { maxLength: 3 }).map((w) => w.join('_')),
    text: fc.array(fc.constantFrom(...words, 'getZoomControl', 'KTextField', 'é'), { maxLength: 20 }).map((w) => w.join(' ')),
    dir: fc.constantFrom('src', 'docs', 'locales'),
  });
  const op = fc.oneof(
    fc.record({ t: fc.constant('add' as const), id: fc.nat(30), d: doc }),
    fc.record({ t: fc.constant('remove' as const), id: fc.nat(30) }),
  );
  const toFields = (d: { symbol: string; text: string; dir: string }, id: number): KeywordFields => ({
    path: `${d.dir}/f${id % 7}.js`,
    header: `// ${d.dir}/f${id % 7}.js :: ${d.symbol}`,
    symbol: d.symbol,
    text: d.text,
    language: 'javascript',
    kind: 'function',
  });

  it('a removed document never comes back; results are always live documents', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.constantFrom(...words), (ops, q) => {
        const index = new KeywordIndex();
        const live = new Set<number>();
        for (const o of ops) {
          if (o.t === 'add') {
            index.add(o.id, toFields(o.d, o.id));
            live.add(o.id);
          } else {
            assert.equal(index.remove(o.id), live.delete(o.id));
          }
        }
        assert.equal(index.size, live.size);
        for (const scoring of ['bm25', 'flexsearch'] as Scoring[]) {
          for (const h of index.search(q, { k: 100, scoring })) assert.ok(live.has(h.docId), `dead doc ${h.docId}`);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('property: through adds, re-adds and removals (term ids freed and given again), each document\'s record is what keywordRecord makes of its fields, however few compounds add remembers', () => {
    const words2 = [...words, 'getZoomControl', 'src/map/zoom.js', 'layers', 'KTextField', 'é', '検索', 'x'];
    const text = fc.array(fc.constantFrom(...words2), { maxLength: 25 }).map((w) => w.join(' '));
    const op2 = fc.oneof(
      fc.record({ t: fc.constant('add' as const), id: fc.nat(12), symbol: text, body: text }),
      fc.record({ t: fc.constant('remove' as const), id: fc.nat(12) }),
    );
    fc.assert(
      fc.property(fc.array(op2, { maxLength: 80 }), fc.constantFrom(undefined, 1, 3), (ops, compoundMemory) => {
        // compoundMemory: how many compounds' term ids add keeps (a small one starts over often)
        const index = new PlainKeywordIndex({ compoundMemory });
        const live = new Map<number, KeywordFields>();
        for (const o of ops) {
          if (o.t === 'add') {
            const f: KeywordFields = { path: `src/f${o.id % 5}.js`, header: `// src/f${o.id % 5}.js :: ${o.symbol}`, symbol: o.symbol, text: o.body, language: 'javascript', kind: 'function' };
            index.add(o.id, f);
            live.set(o.id, f);
          } else {
            index.remove(o.id);
            live.delete(o.id);
          }
        }
        const inner = index as unknown as { records: Array<Uint32Array | undefined>; intOf: Map<number, number>; vocab: { term(id: number): string }; stem: boolean | 'add'; singleDigits: boolean; weakHalf: 'all' | 'stems' | 'none' };
        for (const [id, f] of live) {
          const rec = inner.records[inner.intOf.get(id)!]!;
          const want = keywordRecord(f, inner);
          assert.deepEqual([rec[2], rec[3], rec[4], rec[5]], want.lens);
          const got = new Map<string, number>();
          for (let j = 6; j < rec.length; j += 2) got.set(inner.vocab.term(rec[j]), rec[j + 1]);
          assert.deepEqual(got, want.terms);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('re-adding a document replaces it; removing everything leaves nothing to find', () => {
    const index = new KeywordIndex();
    index.add(1, { path: 'a.js', text: 'alpha beta' });
    index.add(1, { path: 'a.js', text: 'gamma' });
    assert.equal(index.size, 1);
    assert.deepEqual(index.search('alpha'), []);
    assert.equal(index.search('gamma')[0].docId, 1);
    assert.ok(index.remove(1));
    assert.ok(!index.remove(1));
    assert.equal(index.vocabularySize, 0);
    assert.deepEqual(index.search('gamma'), []);
  });

  it('export → import gives identical results, after removals too', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 50 }), (ops) => {
        const index = new KeywordIndex();
        for (const o of ops) {
          if (o.t === 'add') index.add(o.id, toFields(o.d, o.id));
          else index.remove(o.id);
        }
        const snap = JSON.parse(JSON.stringify({ ...index.export(), data: undefined }));
        const copy = new KeywordIndex();
        copy.import({ ...snap, data: Buffer.from(index.export().data) });
        assert.equal(copy.size, index.size);
        for (const q of [...words, 'zoom control getZoomControl', 'src f1']) {
          for (const scoring of ['bm25', 'flexsearch'] as Scoring[]) {
            assert.deepEqual(copy.search(q, { k: 20, scoring }), index.search(q, { k: 20, scoring }), `${scoring} ${q}`);
          }
        }
        for (const id of [0, 1, 2, 3]) assert.deepEqual(copy.lookup(id), index.lookup(id));
      }),
      { numRuns: 100 },
    );
  });

  it('an imported index (its postings outside FlexSearch) answers as the original through later adds and removals', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.array(op, { minLength: 0, maxLength: 40 }), (before, after) => {
        const index = new KeywordIndex();
        const apply = (x: KeywordIndex, ops: typeof before) => {
          for (const o of ops) {
            if (o.t === 'add') x.add(o.id, toFields(o.d, o.id));
            else x.remove(o.id);
          }
        };
        apply(index, before);
        const snap = index.export();
        const copy = new KeywordIndex();
        copy.import({ ...snap, data: Buffer.from(snap.data) }, { adopt: true });
        // removals of imported documents and adds that reuse their internal ids, on both
        apply(index, after);
        apply(copy, after);
        assert.equal(copy.size, index.size);
        const queries = [...words, 'zoom control getZoomControl', 'src f1'];
        for (const q of queries) assert.deepEqual(copy.search(q, { k: 20 }), index.search(q, { k: 20 }), `bm25 ${q}`);
        // FlexSearch's own order: the imported documents move into FlexSearch first, in their order
        for (const q of queries) assert.deepEqual(copy.search(q, { k: 20, scoring: 'flexsearch' }), index.search(q, { k: 20, scoring: 'flexsearch' }), `flexsearch ${q}`);
        for (const q of queries) assert.deepEqual(copy.search(q, { k: 20 }), index.search(q, { k: 20 }), `bm25 after the move ${q}`);
      }),
      { numRuns: 100 },
    );
  });

  it('a bulk-loaded index (postings laid out at once, see beginBulk) answers and exports as one added to one by one, through removals, a search midway and later adds', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.array(op, { minLength: 0, maxLength: 40 }), fc.boolean(), (first, then, searchMidway) => {
        const plain = new KeywordIndex();
        const bulk = new KeywordIndex();
        assert.equal(bulk.beginBulk(), true);
        const both = (ops: typeof first) => {
          for (const o of ops) {
            if (o.t === 'add') {
              plain.add(o.id, toFields(o.d, o.id));
              bulk.add(o.id, toFields(o.d, o.id));
            } else assert.equal(bulk.remove(o.id), plain.remove(o.id));
          }
        };
        both(first);
        // a search ends the bulk load: what follows goes to FlexSearch (without one it stays in the bulk)
        const q0 = words[first.length % words.length];
        if (searchMidway) assert.deepEqual(bulk.search(q0, { k: 20 }), plain.search(q0, { k: 20 }), `midway ${q0}`);
        both(then);
        assert.equal(bulk.size, plain.size);
        assert.deepEqual(bulk.export(), plain.export());
        const queries = [...words, 'zoom control getZoomControl', 'src f1', 'é'];
        for (const q of queries) assert.deepEqual(bulk.search(q, { k: 20 }), plain.search(q, { k: 20 }), `bm25 ${q}`);
        for (const q of queries) assert.deepEqual(bulk.search(q, { k: 20, scoring: 'flexsearch' }), plain.search(q, { k: 20, scoring: 'flexsearch' }), `flexsearch ${q}`);
      }),
      { numRuns: 150 },
    );
  });

  it('beginBulk refuses an index that is not empty (its documents are in FlexSearch already)', () => {
    const index = new KeywordIndex();
    index.add(1, { path: 'a.js', text: 'alpha' });
    assert.equal(index.beginBulk(), false);
    index.add(2, { path: 'b.js', text: 'alpha beta' });
    assert.deepEqual(index.search('alpha').map((h) => h.docId).sort(), [1, 2]);
  });

  it('import refuses a damaged or foreign snapshot and stays empty', () => {
    const index = new KeywordIndex();
    for (const c of sampleChunks().slice(0, 10)) index.add(index.size, fieldsOf(c));
    const good = index.export();
    const damaged = { ...good, data: good.data.slice() };
    damaged.data[20] ^= 0xff;
    const copy = new KeywordIndex();
    assert.throws(() => copy.import(damaged), /checksum/);
    assert.equal(copy.size, 0);
    assert.throws(() => copy.import({ ...good, version: 99 }), /version/);
    assert.throws(() => new KeywordIndex({ stem: true }).import(good), /stem/);
    assert.throws(() => new KeywordIndex({ weakHalf: 'all' }).import(good), /weakHalf/);
    assert.throws(() => copy.import({ ...good, vocab: good.vocab.slice(1) }), /rejected/);
    copy.import(good);
    assert.equal(copy.size, 10);
  });

  it('a binary export (term table and laid-out postings, read in place) imports to the same answers as the plain one, through later adds and removals, and exports the same again', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.array(op, { minLength: 0, maxLength: 40 }), (before, after) => {
        const apply = (x: KeywordIndex, ops: typeof before) => {
          for (const o of ops) {
            if (o.t === 'add') x.add(o.id, toFields(o.d, o.id));
            else x.remove(o.id);
          }
        };
        const index = new KeywordIndex();
        apply(index, before);
        const bin = index.export({ binary: true });
        assert.deepEqual(bin.vocab, [], 'the vocabulary is in the term table');
        assert.ok(bin.lexicon && bin.postings);
        // what the store does: meta through JSON, the binary parts as read from disk (a Buffer at an odd offset for one)
        const meta = JSON.parse(JSON.stringify({ ...bin, data: undefined, lexicon: undefined, postings: undefined }));
        const odd = Buffer.alloc(bin.postings.byteLength + 1);
        odd.set(bin.postings, 1);
        const copy = new KeywordIndex();
        copy.import({ ...meta, data: Buffer.from(bin.data), lexicon: Buffer.from(bin.lexicon), postings: odd.subarray(1) }, { adopt: true });
        const plain = new KeywordIndex();
        plain.import(index.export());
        assert.equal(copy.size, index.size);
        assert.equal(copy.vocabularySize, index.vocabularySize);
        const queries = [...words, 'zoom control getZoomControl', 'src f1', 'é', 'ktextfield'];
        for (const q of queries) assert.deepEqual(copy.search(q, { k: 20 }), index.search(q, { k: 20 }), `bm25 ${q}`);
        for (const id of [0, 1, 2, 3]) assert.deepEqual(copy.lookup(id), index.lookup(id));
        apply(index, after);
        apply(copy, after);
        apply(plain, after);
        assert.equal(copy.vocabularySize, index.vocabularySize);
        for (const q of queries) {
          assert.deepEqual(copy.search(q, { k: 20 }), index.search(q, { k: 20 }), `bm25 after ${q}`);
          assert.deepEqual(plain.search(q, { k: 20 }), index.search(q, { k: 20 }), `plain after ${q}`);
        }
        assert.deepEqual(copy.export({ binary: true }), index.export({ binary: true }));
        assert.deepEqual(copy.export(), index.export());
        // FlexSearch's own order (the imported documents moved into FlexSearch, their terms decoded from the table)
        for (const q of queries) assert.deepEqual(copy.search(q, { k: 20, scoring: 'flexsearch' }), index.search(q, { k: 20, scoring: 'flexsearch' }), `flexsearch ${q}`);
      }),
      { numRuns: 100 },
    );
  });

  it('a binary snapshot whose term table or postings are damaged is refused with the reason (the index left empty), or imported and searched without a throw', () => {
    const index = new KeywordIndex();
    for (const c of sampleChunks().slice(0, 40)) index.add(index.size, fieldsOf(c));
    const good = index.export({ binary: true });
    const queries = ['zoom control', 'layer', 'getZoomControl', 'schema field label'];
    let refused = 0;
    let imported = 0;
    for (const part of ['lexicon', 'postings'] as const) {
      const bytes = good[part]!;
      const step = Math.max(1, Math.floor(bytes.byteLength / 150));
      for (let at = 0; at < bytes.byteLength; at += step) {
        for (const x of [0x01, 0x80, 0xff]) {
          const b = bytes.slice();
          b[at] ^= x;
          const copy = new KeywordIndex();
          try {
            copy.import({ ...good, [part]: b });
            imported++;
            for (const q of queries) copy.search(q, { k: 10 });
          } catch (err) {
            refused++;
            assert.match((err as Error).message, /keyword index snapshot rejected: /);
            assert.equal(copy.size, 0);
            assert.equal(copy.vocabularySize, 0);
          }
        }
      }
      // cut short, emptied or longer: always refused
      for (const b of [bytes.subarray(0, bytes.byteLength - 4), new Uint8Array(0), Buffer.concat([bytes, Buffer.alloc(4)])]) {
        assert.throws(() => new KeywordIndex().import({ ...good, [part]: b }), /rejected/, `${part} of ${b.byteLength} bytes`);
      }
    }
    assert.throws(() => new KeywordIndex().import({ ...good, lexicon: undefined }), /postings without their term table/);
    assert.ok(refused > 300, `${refused} refused, ${imported} imported`);
    const copy = new KeywordIndex();
    copy.import(good);
    for (const q of queries) assert.deepEqual(copy.search(q), index.search(q));
  });
});

describe('the term table (lexicon.ts)', () => {
  it('finds every term and nothing else, ASCII or not; refuses an empty term or a term twice', () => {
    const terms = ['zoom', 'getzoomcontrol', 'é', 'strasse', '検索', 'レイ', '🙂x', 'a'.repeat(300), 'zoom-control', '$refs'];
    const lex = Lexicon.read(Lexicon.build(terms));
    assert.equal(lex.size, terms.length);
    terms.forEach((t, id) => {
      assert.equal(lex.find(t), id, t);
      assert.equal(lex.term(id), t);
    });
    for (const t of ['', 'zoo', 'zoomx', 'e', '検', 'a'.repeat(299), 'Zoom']) assert.equal(lex.find(t), -1, t);
    assert.equal(Lexicon.read(Lexicon.build([])).find('x'), -1);
    assert.throws(() => Lexicon.build(['a', '']), /empty/);
    assert.throws(() => Lexicon.build(['a', 'b', 'a']), /twice/);
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 200 }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 20 }), (ts, others) => {
        const l = Lexicon.read(Lexicon.build(ts));
        ts.forEach((t, id) => assert.equal(l.find(t), id));
        for (const o of others) assert.equal(l.find(o), ts.indexOf(o));
      }),
    );
  });
});
