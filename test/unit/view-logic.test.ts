/**
 * The pure parts of the extension's UI: message validation, result grouping, snippets and
 * highlights, file-event batching, settings → worker options (with the workspace-trust rule),
 * and the index state in words. No editor involved.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { IndexProgress } from '../../src/index/engine';
import type { WorkerStatus } from '../../src/service/protocol';
import type { Chunk } from '../../src/chunkers/types';
import { chunk, hit } from '../helpers/hits';
import { EventBatcher, mergeBatch, notNoise, type FolderBatch } from '../../src/editor/batcher';
import { parseViewMessage } from '../../src/editor/messages';
import { breadcrumbOf, filterSpecOf, groupHits, highlightRanges, localeOf, looksLikeRegex, paletteRow, queryNote, queryTerms, rowLabel, snippetOf, splitHighlights, whyText, whyWords } from '../../src/editor/results';
import { buildTree, TRANSLATIONS_ID } from '../../src/editor/result-tree';
import { bundledModel, initOptionsOf, keywordOnlyAdvice, needsReinit, readSettings, selectionOf, type Inspected } from '../../src/editor/settings';
import { accessibleLabel, indexState, TEAM_INDEX_DOWN } from '../../src/editor/status';
import { IndexTracker } from '../../src/editor/tracker';

describe('view messages', function () {
  it('accepts well-formed messages and normalizes them', function () {
    assert.deepEqual(parseViewMessage({ type: 'search', seq: 3, query: 'zoom', filters: { language: 'vue', paths: 'src/**' }, extra: 1 }), { type: 'search', seq: 3, query: 'zoom', filters: { language: 'vue', paths: 'src/**' } });
    assert.deepEqual(parseViewMessage({ type: 'open', key: 'k', preview: 'yes' }), { type: 'open', key: 'k', preview: false });
    assert.deepEqual(parseViewMessage({ type: 'ready', junk: true }), { type: 'ready' });
  });

  it('rejects malformed messages with a reason, never throws', function () {
    for (const bad of [null, 42, 'search', [], { type: 'search', seq: 1.5, query: 'x', filters: { language: '', paths: '' } }, { type: 'search', seq: 1, query: 'x' }, { type: 'search', seq: 1, query: 'x'.repeat(10_001), filters: { language: '', paths: '' } }, { type: 'open' }, { type: 'exec', cmd: 'rm' }]) {
      assert.equal(typeof parseViewMessage(bad), 'string', JSON.stringify(bad)?.slice(0, 60));
    }
    fc.assert(fc.property(fc.anything(), (v) => {
      const r = parseViewMessage(v);
      return typeof r === 'string' || typeof r.type === 'string';
    }));
  });
});

describe('results: terms, highlights, snippets, groups', function () {
  it('query terms split identifiers and keep the whole one, longest first', function () {
    assert.deepEqual(queryTerms('getZoomControl map_zoom x'), ['getzoomcontrol', 'map_zoom', 'control', 'zoom', 'get', 'map']);
    assert.deepEqual(queryTerms('format distance in miles'), ['distance', 'format', 'miles'], 'stop words left out');
    assert.deepEqual(queryTerms('in the'), ['the', 'in'], 'unless there is nothing else');
  });

  it('highlights every occurrence, case-insensitive, merged and disjoint', function () {
    assert.deepEqual(highlightRanges('Zoom zoomIn ZOOM', ['zoom', 'zoomin']), [[0, 4], [5, 11], [12, 16]]);
    assert.deepEqual(highlightRanges('abc', []), []);
    fc.assert(fc.property(fc.string(), fc.array(fc.string({ minLength: 1, maxLength: 4 })), (text, terms) => {
      const rs = highlightRanges(text, terms.map((t) => t.toLowerCase()));
      return rs.every(([s, e], i) => s < e && e <= text.length && (i === 0 || rs[i - 1][1] < s));
    }));
  });

  it('split highlights round-trip the text whatever the ranges', function () {
    fc.assert(fc.property(fc.string(), fc.array(fc.tuple(fc.nat(50), fc.nat(50))), (text, raw) => {
      const ranges = raw.map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as [number, number]).sort((x, y) => x[0] - y[0]);
      return splitHighlights(text, ranges).map((p) => p.text).join('') === text;
    }));
    assert.deepEqual(splitHighlights('<img onerror=x>', [[1, 4]]), [{ text: '<', mark: false }, { text: 'img', mark: true }, { text: ' onerror=x>', mark: false }]);
  });

  it('a snippet starts a line before the first match, drops indentation, and reports its file line', function () {
    const text = ['function a() {', '  const x = 1;', '  const y = 2;', '  return zoomLevel(x, y);', '}'].join('\n');
    const s = snippetOf(chunk('a.js', text, 10), ['zoomlevel'], { maxLines: 2 });
    assert.equal(s.line, 12);
    assert.equal(s.text, 'const y = 2;\nreturn zoomLevel(x, y);');
    assert.equal(snippetOf(chunk('a.js', text, 10), ['zoomlevel'], { maxLines: 3 }).text, '  const y = 2;\n  return zoomLevel(x, y);\n}', 'indentation common to all lines only');
    assert.deepEqual(s.highlights.map(([a, b]) => s.text.slice(a, b)), ['zoomLevel']);
  });

  it('groups by file in the order of each file best hit, keeps rank order inside a file', function () {
    const hits = [hit(chunk('b.js', 'zoom b1', 1)), hit(chunk('a.js', 'zoom a1', 1)), hit(chunk('b.js', 'zoom b2', 5)), hit(chunk('a.js', 'zoom other root', 1), '/ws2')];
    const groups = groupHits(hits, 'zoom', (r) => (r === '/ws2' ? 'second' : 'first'));
    assert.deepEqual(groups.map((g) => [g.folder, g.path, g.hits.map((h) => h.start.line)]), [['first', 'b.js', [1, 5]], ['first', 'a.js', [1]], ['second', 'a.js', [1]]]);
    assert.equal(groups[0].hits[0].snippet, 'zoom b1');
    assert.deepEqual(groups[0].hits[0].highlights, [[0, 4]]);
  });

  it('why-it-ranked says which lists a hit came from', function () {
    assert.equal(whyText({ keyword: 2, dense: 5, fused: 0.03125 }), 'keyword rank #2 · meaning rank #5 · fused score 0.0313');
    assert.match(whyText({ keyword: 1, fused: 0.016 }), /no vector match/);
    assert.equal(whyText({ keyword: 4, dense: 1, fused: 0.9, reranked: 3 }), 'keyword rank #4 · meaning rank #1 · fused score 0.9000 · re-ranked from #3');
    assert.equal(whyText({ keyword: 1, fused: 0.5, rankedBy: { startLine: 20, endLine: 34 } }), 'keyword rank #1 · no vector match · fused score 0.5000 · ranked by lines 20–34 of it');
    // re-ranked with the model's cosine though its list was not asked: no "no vector match", the model named
    assert.equal(whyText({ keyword: 2, fused: 0.016, reranked: 1, model: 'fathom-code-search' }), 'keyword rank #2 · fused score 0.0160 · re-ranked from #1 (fathom-code-search)');
    assert.match(whyText({ dense: 1, fused: 0.016 }), /no keyword match/);
  });

  it('why-it-ranked in words: matched name, words, file path, meaning; Find Similar in percent', function () {
    const c = chunk('src/map/zoom.js', 'export function getZoomControl(map) {\n  return map.controls.find(isZoom);\n}', 1, { symbol: 'getZoomControl' });
    assert.equal(whyWords(hit(c), queryTerms('zoom control')), 'matched name');
    assert.equal(whyWords(hit(c), queryTerms('zoom controls find')), 'matched name + words');
    assert.equal(whyWords(hit(c), queryTerms('control find')), 'matched name + words', '"control" is in the name, "find" only in the text');
    assert.equal(whyWords(hit(c), queryTerms('map')), 'matched words');
    assert.equal(whyWords(hit(c, '/ws', { keyword: 3, dense: 1, fused: 0.03 }), queryTerms('zoom')), 'matched name + meaning');
    assert.equal(whyWords(hit(c, '/ws', { dense: 1, fused: 0.016 }), queryTerms('magnify')), 'matched meaning');
    assert.equal(whyWords(hit(chunk('src/map/zoom.js', 'x', 1, { symbol: 'x' })), queryTerms('zoom')), 'matched file path');
    assert.equal(whyWords({ ...hit(c, '/ws', { dense: 1, fused: 0.83 }), score: 0.834 }, [], true), '83% similar');
    assert.equal(whyWords(hit(c), [], true), 'shares words');
    const v = groupHits([hit(c)], 'zoom')[0].hits[0];
    assert.equal(v.why, 'matched name');
    assert.equal(v.whyDetail, 'keyword rank #1 · no vector match · fused score 0.0164');
    assert.ok(!/fused|rank/.test(v.why), 'no jargon in the words');
  });

  it('a hit whose code shows the query\'s text (a translated label it uses) says so: shows "<value>", not "matched words"', () => {
    const c = chunk('src/Post.vue', "<button @click=\"copy\">{{ $t('post.copy_link') }}</button>", 1, { symbol: '<template>' });
    const shown = { ...c, meta: { i18nText: 'Share\nCopy link to this post' } };
    assert.equal(whyWords(hit(shown), queryTerms('copy link to this post')), 'shows "Copy link to this post"');
    assert.equal(whyWords(hit(shown, '/ws', { keyword: 2, dense: 4, fused: 0.03 }), queryTerms('copy link')), 'shows "Copy link to this post" + meaning');
    // the code's own words say more: they are the reason
    assert.equal(whyWords(hit(shown), queryTerms('copy button')), 'matched words');
    const long = { ...c, meta: { i18nText: `Copy link ${'and more '.repeat(10)}` } };
    assert.match(whyWords(hit(long), queryTerms('link more')), /^shows "Copy link and more.{20,}…"$/);
    assert.equal(groupHits([hit(shown)], 'copy link to this post')[0].hits[0].why, 'shows "Copy link to this post"');
    // of several shown values holding the words, the one holding them as whole words
    const two = { ...c, meta: { i18nText: 'Blocked domains\nBlock domain {0}\nUnblock domain {0}' } };
    assert.equal(whyWords(hit(two), queryTerms('Block domain')), 'shows "Block domain {0}"');
  });

  it('rows show the symbol first and where in the file second, readable for Vue, Markdown, JSON', function () {
    const vue = (kind: Chunk['kind'], symbol: string, header: string) => rowLabel({ path: 'src/components/KZoomControl.vue', kind, symbol, header });
    assert.deepEqual(vue('group', 'KZoomControl.methods.{zoomIn, zoomOut}', '<!-- src/components/KZoomControl.vue — zoom control [script] :: KZoomControl.methods.{zoomIn, zoomOut} -->'), { title: 'methods.{zoomIn, zoomOut}', context: 'script · members' });
    assert.deepEqual(vue('method', 'KZoomControl.data', '<!-- src/components/KZoomControl.vue — zoom control [script] :: KZoomControl.data -->'), { title: 'data', context: 'script · method' });
    assert.deepEqual(vue('group', 'KZoomControl.{name, mixins}', '<!-- src/components/KZoomControl.vue — zoom control [script] :: KZoomControl.{name, mixins} -->'), { title: 'name, mixins', context: 'script · members' });
    assert.deepEqual(vue('template', 'KZoomControl', '<!-- src/components/KZoomControl.vue — zoom control [template] -->'), { title: '<template>', context: '' });
    assert.deepEqual(vue('module', 'LayerPanel', '<!-- src/components/KZoomControl.vue — layer panel [script setup] -->'), { title: '<script>', context: 'script setup' });
    // six methods of one component no longer look alike: every title differs
    const titles = ['data', 'watch.zoom', 'methods.onZoomEnd', 'mounted', 'beforeDestroy', 'computed.{canZoomIn, canZoomOut}'].map((m) => vue('method', `KZoomControl.${m}`, `<!-- src/components/KZoomControl.vue — zoom control [script] :: KZoomControl.${m} -->`).title);
    assert.equal(new Set(titles).size, titles.length);
    assert.ok(titles.every((t) => !t.includes('zoom control [script]')));
    assert.deepEqual(rowLabel({ path: 'README.md', kind: 'section', symbol: 'Sample mapping app > Zoom', header: 'README.md > Sample mapping app > Zoom' }), { title: 'Zoom', context: 'Sample mapping app' });
    assert.deepEqual(rowLabel({ path: 'README.md', kind: 'code-block', symbol: 'Sample mapping app > Zoom', header: 'README.md > Sample mapping app > Zoom [code: js]' }), { title: 'Zoom · code (js)', context: 'Sample mapping app' });
    assert.deepEqual(rowLabel({ path: 'locales/fr.json', kind: 'i18n-section', symbol: 'LayerPanel', header: '// locales/fr.json :: LayerPanel' }), { title: 'LayerPanel', context: 'translations' });
    assert.deepEqual(rowLabel({ path: 'src/map/zoom.js', kind: 'function', symbol: 'getZoomControl', header: '// src/map/zoom.js :: getZoomControl' }), { title: 'getZoomControl', context: 'function' });
    assert.deepEqual(rowLabel({ path: 'src/map/zoom.js', kind: 'module', header: '// src/map/zoom.js' }), { title: 'top-level code', context: '' });
  });

  it('palette rows: the symbol, the file and the line range — not the chunk\'s first line', function () {
    const c = chunk('src/components/KZoomControl.vue', 'methods: {\n  zoomIn() {}\n}', 40, { kind: 'group', symbol: 'KZoomControl.methods.{zoomIn, zoomOut}', header: '<!-- src/components/KZoomControl.vue — zoom control [script] :: KZoomControl.methods.{zoomIn, zoomOut} -->' });
    const r = paletteRow(hit(c), queryTerms('zoom in'));
    assert.equal(r.label, '$(symbol-field) methods.{zoomIn, zoomOut}');
    assert.equal(r.detail, 'KZoomControl.methods.{zoomIn, zoomOut} · src/components/KZoomControl.vue:40–42');
    assert.ok(!r.detail.includes('methods: {'), 'not the first line of the chunk');
    assert.equal(r.description, 'matched name');
    const md = chunk('README.md', '```js\nzoom()\n```', 7, { kind: 'code-block', symbol: 'App > Zoom', header: 'README.md > App > Zoom [code: js]' });
    assert.equal(paletteRow(hit(md), [], 'web').detail, 'App > Zoom · web · README.md:7–9');
  });

  it('locale files are told apart: JSON translations and scripts in an i18n folder', function () {
    assert.equal(localeOf({ path: 'locales/fr.json', kind: 'i18n-section', language: 'json' }), 'fr');
    assert.equal(localeOf({ path: 'locales/core_fr.json', kind: 'i18n-labels', language: 'json' }), 'fr');
    assert.equal(localeOf({ path: 'i18n/messages.json', kind: 'i18n-section', language: 'json' }), '');
    assert.equal(localeOf({ path: 'schemas/fr.json', kind: 'schema', language: 'json' }), undefined, 'a schema is no locale file');
    assert.equal(localeOf({ path: 'src/lang/es.js', kind: 'object', language: 'javascript' }), 'es');
    assert.equal(localeOf({ path: 'src/es/index.js', kind: 'function', language: 'javascript' }), undefined);
    const groups = groupHits([hit(chunk('src/a.js', 'zoom', 1)), hit(chunk('locales/fr.json', 'zoom', 1, { language: 'json', kind: 'i18n-section' }))], 'zoom');
    assert.deepEqual(groups.map((g) => g.locale), [undefined, 'fr']);
  });

  it('a query of only punctuation, or a regex, says why nothing matched', function () {
    assert.match(queryNote('{}();', 0)!, /no letters or digits/);
    assert.match(queryNote('---', 0)!, /ignores punctuation/);
    for (const re of ['\\w+Service', 'get.*Zoom', '^import', 'zoom(In|Out)', '/zoom\\d/i', 'foo|bar', '[a-z]+_id']) {
      assert.ok(looksLikeRegex(re), re);
      assert.match(queryNote(re, 0)!, /Regular expressions are not read/, re);
    }
    assert.match(queryNote('get.*Zoom', 3)!, /these results match the words/);
    for (const plain of ['zoom control', 'app.title', 'common:save', 'C++ parser', 'what is $t?', 'Create an event!', 'a/b path', 'x = 1']) {
      assert.equal(queryNote(plain, 0), undefined, plain);
    }
    assert.equal(queryNote('   ', 0), undefined);
  });

  it('the result tree: locale files folded into one closed Translations group, or kept as files; toggles remembered', function () {
    const g = (path: string, locale?: string, n = 1) => ({ root: '/ws', path, locale, hits: Array.from({ length: n }, (_, i) => groupHits([hit(chunk(path, 'x', i * 10 + 1))], 'x')[0].hits[0]) });
    const groups = [g('src/a.js'), g('locales/fr.json', 'fr', 2), g('src/b.js'), g('locales/de.json', 'de')];
    const folded = buildTree(groups, true);
    assert.deepEqual(folded.map((t) => [t.label, t.hits.length, t.open]), [['src/a.js', 1, true], ['Translations', 3, false], ['src/b.js', 1, true]]);
    assert.deepEqual(folded[1].locales, ['fr', 'fr', 'de']);
    assert.deepEqual(folded[1].paths, ['locales/fr.json', 'locales/fr.json', 'locales/de.json']);
    assert.equal(folded[1].files, 2);
    const flat = buildTree(groups, false);
    assert.deepEqual(flat.map((t) => [t.label, t.translations]), [['src/a.js', false], ['locales/fr.json', true], ['src/b.js', false], ['locales/de.json', true]]);
    // only translations matched: the folded group is open
    assert.equal(buildTree([groups[1], groups[3]], true)[0].open, true);
    // what the user toggled wins
    const opened = new Map([[TRANSLATIONS_ID, true], [folded[0].id, false]]);
    const again = buildTree(groups, true, opened);
    assert.deepEqual(again.map((t) => t.open), [false, true, true]);
  });

  it('filters: globs split on commas, ! kept, language only when set', function () {
    assert.deepEqual(filterSpecOf({ language: '', paths: ' src/**, !**/*.test.ts ,, ' }), { pathGlob: ['src/**', '!**/*.test.ts'] });
    assert.deepEqual(filterSpecOf({ language: 'vue', paths: '' }), { language: ['vue'] });
    assert.equal(filterSpecOf({ language: '', paths: ' , ' }), undefined);
  });
});

describe('file event batcher', function () {
  /** Manual clock and timers. */
  function clock() {
    let t = 0;
    let next = 1;
    const timers = new Map<number, { at: number; fn: () => void }>();
    return {
      now: () => t,
      setTimer: (fn: () => void, ms: number) => {
        const id = next++;
        timers.set(id, { at: t + ms, fn });
        return id;
      },
      clearTimer: (id: unknown) => void timers.delete(id as number),
      advance(ms: number) {
        const end = t + ms;
        for (;;) {
          const due = [...timers.entries()].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
          if (!due) break;
          timers.delete(due[0]);
          t = due[1].at;
          due[1].fn();
        }
        t = end;
      },
      pending: () => timers.size,
    };
  }

  it('5,000 events in a burst become one batch per folder, once', function () {
    const c = clock();
    const out: FolderBatch[][] = [];
    const b = new EventBatcher((x) => out.push(x), { quietMs: 300, maxWaitMs: 3000, ...c });
    for (let i = 0; i < 5000; i++) {
      b.add('/ws', `src/f${i % 2500}.js`, i % 2 ? 'change' : 'create');
      if (i % 100 === 0) c.advance(1); // a burst over 50 ms
    }
    assert.equal(out.length, 0);
    c.advance(299);
    assert.equal(out.length, 0, 'not before the quiet period');
    c.advance(2);
    assert.equal(out.length, 1);
    assert.equal(out[0].length, 1);
    assert.equal(out[0][0].changed.length, 2500);
    assert.equal(c.pending(), 0);
  });

  it('create+delete collapse to a delete, delete+create to a change; last event wins', function () {
    const c = clock();
    const out: FolderBatch[][] = [];
    const b = new EventBatcher((x) => out.push(x), c);
    b.add('/ws', 'a.js', 'create');
    b.add('/ws', 'a.js', 'delete');
    b.add('/ws', 'b.js', 'delete');
    b.add('/ws', 'b.js', 'create');
    b.add('/ws', 'c.js', 'change');
    b.add('/ws2', 'sub\\d.js', 'change');
    b.flush();
    assert.deepEqual(out, [[
      { root: '/ws', changed: ['b.js', 'c.js'], deleted: ['a.js'], ignoreRulesChanged: false },
      { root: '/ws2', changed: ['sub/d.js'], deleted: [], ignoreRulesChanged: false },
    ]]);
  });

  it('a stream that never pauses is still flushed after maxWaitMs', function () {
    const c = clock();
    const out: FolderBatch[][] = [];
    const b = new EventBatcher((x) => out.push(x), { quietMs: 300, maxWaitMs: 1000, ...c });
    for (let i = 0; i < 50; i++) {
      b.add('/ws', `f${i}.js`, 'change');
      c.advance(100);
    }
    assert.ok(out.length >= 4 && out.length <= 5, `${out.length} batches`);
    assert.equal(out.flat().reduce((n, x) => n + x.changed.length, 0) + b.size, 50);
  });

  it('noise (.git, node_modules) never makes a batch; a .gitignore change is flagged', function () {
    const c = clock();
    const out: FolderBatch[][] = [];
    const b = new EventBatcher((x) => out.push(x), { keep: notNoise, ...c });
    b.add('/ws', '.git/index', 'change');
    b.add('/ws', 'node_modules/x/index.js', 'create');
    c.advance(1000);
    assert.equal(out.length, 0);
    b.add('/ws', 'src/.gitignore', 'change');
    c.advance(1000);
    assert.equal(out[0][0].ignoreRulesChanged, true);
  });

  it('merging held-back batches keeps the last state of each path', function () {
    const m = mergeBatch(mergeBatch(undefined, { root: '/ws', changed: ['a', 'b'], deleted: ['c'], ignoreRulesChanged: false }), { root: '/ws', changed: ['c'], deleted: ['a'], ignoreRulesChanged: true });
    assert.deepEqual({ ...m, changed: m.changed.sort(), deleted: m.deleted.sort() }, { root: '/ws', changed: ['b', 'c'], deleted: ['a'], ignoreRulesChanged: true });
  });
});

describe('settings', function () {
  const inspectOf = (values: Record<string, Inspected<unknown>>) => <T>(key: string) => values[key] as Inspected<T> | undefined;

  it('folder over workspace over user over default', function () {
    const s = readSettings(inspectOf({ 'search.rrfK': { defaultValue: 60, globalValue: 30, workspaceValue: 20, workspaceFolderValue: 10 }, 'files.include': { defaultValue: [], globalValue: ['**/*.js', 3] } }), true);
    assert.equal(s.rrfK, 10);
    assert.deepEqual(s.include, ['**/*.js']);
  });

  it('in an untrusted workspace, model settings come from user settings only', function () {
    const values = {
      'model.localPath': { defaultValue: '', workspaceValue: '/evil/model' },
      'model.allowDownload': { defaultValue: false, workspaceValue: true },
      'model.id': { defaultValue: 'Xenova/all-MiniLM-L6-v2', globalValue: 'user/model', workspaceValue: 'evil/model' },
      'search.rrfK': { defaultValue: 60, workspaceValue: 20 },
    };
    const untrusted = readSettings(inspectOf(values), false);
    assert.equal(untrusted.localModelPath, '');
    assert.equal(untrusted.allowDownload, false);
    assert.equal(untrusted.modelId, 'user/model');
    assert.equal(untrusted.rrfK, 20, 'harmless settings still apply');
    const trusted = readSettings(inspectOf(values), true);
    assert.equal(trusted.localModelPath, '/evil/model');
    assert.equal(trusted.allowDownload, true);
  });

  it('bad values fall back or are clamped, never passed on', function () {
    const s = readSettings(inspectOf({ 'chunking.maxTokens': { globalValue: 100_000 }, 'model.threads': { globalValue: 'four' }, 'files.exclude': { globalValue: 'notalist' } }), true);
    assert.equal(s.maxTokens, 512);
    assert.equal(s.threads, 0);
    assert.deepEqual(s.exclude, []);
  });

  it('worker options: dense off means no embedder; downloads go to the cache folder', function () {
    const s = readSettings(inspectOf({}), true);
    const on = initOptionsOf(s, { cacheDir: '/global/models' });
    // Fathom's own model by default: no folder, no download
    assert.deepEqual(on.embedder, { model: 'fathom-code-search', localModelPath: undefined, allowDownload: false, cacheDir: '/global/models', threads: undefined });
    // a transformers.js model by name
    assert.deepEqual(initOptionsOf({ ...s, modelId: 'Xenova/all-MiniLM-L6-v2' }, { cacheDir: '/global/models' }).embedder, { model: 'Xenova/all-MiniLM-L6-v2', localModelPath: undefined, allowDownload: false, cacheDir: '/global/models', threads: undefined });
    assert.equal(on.chunk?.maxFileBytes, 512 * 1024);
    assert.equal(initOptionsOf({ ...s, dense: false }, { cacheDir: '/c' }).embedder, false);
    assert.equal((initOptionsOf({ ...s, localModelPath: 'models' }, { cacheDir: '/c', localPathBase: '/ws', trusted: true }).embedder as { localModelPath: string }).localModelPath, '/ws/models');
    assert.equal(needsReinit(s, { ...s, rrfK: 5 }), false);
    assert.equal(needsReinit(s, { ...s, maxTokens: 128 }), true);
  });

  it('selection: Fathom globs plus the editor excludes set to true (when-clauses left out)', function () {
    const s = readSettings(inspectOf({ 'files.exclude': { globalValue: ['**/*.snap'] } }), true);
    assert.deepEqual(selectionOf(s, { '**/.git': true, '**/*.js': { when: '$(basename).ts' }, '**/tmp': false }, { '**/dist': true, '**/.git': true }), { include: [], exclude: ['**/*.snap', '**/.git', '**/dist'] });
    assert.deepEqual(selectionOf({ ...s, useEditorExcludes: false }, { '**/.git': true }, {}).exclude, ['**/*.snap']);
  });

  it('keyword-only advice: one short line, the reason as its detail, and whether the model actions apply', function () {
    const s = readSettings(inspectOf({}), true);
    const missing = 'No embedding model: "Xenova/all-MiniLM-L6-v2" (q8) not found: /c/Xenova/all-MiniLM-L6-v2/config.json is missing, and downloading is off. Allow downloads, or point the local model folder at a copy of the model (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx).';
    const a = keywordOnlyAdvice(missing, s)!;
    assert.equal(a.text, 'Keyword-only: no embedding model yet.');
    assert.ok(a.text.length < 60 && !a.text.includes('/'), 'short, no raw path');
    assert.equal(a.detail, missing);
    assert.equal(a.modelActions, true);
    assert.deepEqual(keywordOnlyAdvice('no embedding model configured', { ...s, dense: false }), { text: 'Keyword-only: search by meaning is off (fathom.search.dense).', detail: 'no embedding model configured', modelActions: false });
    assert.equal(keywordOnlyAdvice('No embedding model: downloading "x" from the Hugging Face Hub failed (fetch failed).', s, { downloadChosen: true })!.text, 'Keyword-only: the model download failed.');
    assert.equal(keywordOnlyAdvice('No embedding model: the local model folder /m does not exist', { ...s, localModelPath: '/m' })!.text, 'Keyword-only: the model folder could not be loaded.');
    assert.equal(keywordOnlyAdvice(undefined, s), undefined);
    // the shipped model missing: no download to offer
    assert.deepEqual(keywordOnlyAdvice("No embedding model: Fathom's own model (fathom-code-search.bin) is missing from this installation (resources/model/); reinstall Fathom, or choose another model.", s)?.modelActions, false);
  });

  it('a model bundled in the VSIX is used with no setting; a local folder setting wins; "Download" chosen allows downloads', function () {
    const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-ext-'));
    try {
      assert.equal(bundledModel(ext), undefined, 'no models/ folder');
      fs.mkdirSync(path.join(ext, 'models', 'half-a-model'), { recursive: true });
      fs.writeFileSync(path.join(ext, 'models', 'half-a-model', 'config.json'), '{}');
      assert.equal(bundledModel(ext), undefined, 'no onnx/model_quantized.onnx: not a model');
      const m = path.join(ext, 'models', 'minilm');
      fs.mkdirSync(path.join(m, 'onnx'), { recursive: true });
      fs.writeFileSync(path.join(m, 'config.json'), '{}');
      fs.writeFileSync(path.join(m, 'onnx', 'model_quantized.onnx'), '');
      assert.equal(bundledModel(ext), m);
      const s = readSettings(inspectOf({}), true);
      const opts = (o: Parameters<typeof initOptionsOf>[1], st = s) => initOptionsOf(st, o).embedder as { localModelPath?: string; allowDownload: boolean };
      // a VSIX packaged with a model folder chose it: it is used instead of Fathom's own model
      assert.deepEqual(opts({ cacheDir: '/c', bundledModelPath: m }), { model: undefined, localModelPath: m, allowDownload: false, cacheDir: '/c', threads: undefined });
      assert.deepEqual(opts({ cacheDir: '/c', bundledModelPath: m }, { ...s, modelId: 'Xenova/all-MiniLM-L6-v2' }), { model: 'Xenova/all-MiniLM-L6-v2', localModelPath: m, allowDownload: false, cacheDir: '/c', threads: undefined });
      assert.equal(opts({ cacheDir: '/c', bundledModelPath: m }, { ...s, localModelPath: '/mine' }).localModelPath, '/mine');
      assert.equal(opts({ cacheDir: '/c', downloadChosen: true }).allowDownload, true);
      assert.equal(opts({ cacheDir: '/c', downloadChosen: true, bundledModelPath: m }).allowDownload, false, 'a bundled model needs no download');
      assert.equal(opts({ cacheDir: '/c' }).allowDownload, false);
    } finally {
      fs.rmSync(ext, { recursive: true, force: true });
    }
  });
});

describe('index state', function () {
  const folder = (o: Partial<WorkerStatus['folders'][0]> = {}) => ({ root: '/ws', storeDir: '/s', files: 10, skipped: 2, chunks: 40, vectors: 0, pendingVectors: 0, indexing: false, embedding: false, dirty: false, ...o });
  const status = (o: Partial<WorkerStatus> = {}): WorkerStatus => ({ initialized: true, paused: false, folders: [folder()], ...o });
  const prog = (o: Partial<IndexProgress>): IndexProgress => ({ phase: 'chunk', filesDone: 0, filesTotal: 0, chunksEmbedded: 0, chunksToEmbed: 0, rate: 0, ...o });

  it('the status label for a screen reader: sentences, never "yet.." (a line that ends a sentence gets no second period)', function () {
    const advice = keywordOnlyAdvice('No embedding model: "m" not found', readSettings(() => undefined, true))!;
    const st = indexState(status(), new Map(), { advice: advice.text, adviceDetail: advice.detail });
    const label = accessibleLabel(st.tooltip, 4);
    assert.match(label, /no embedding model yet\. No embedding model: "m" not found\. Click/);
    assert.doesNotMatch(label, /\.\./);
    assert.equal(accessibleLabel('Fathom: 10 files\nKeyword-only: no embedding model yet.\nClick for more'), 'Fathom: 10 files. Keyword-only: no embedding model yet. Click for more.');
  });

  it('while indexing: spinner and the percentage of files, then of vectors', function () {
    const chunking = indexState(status({ folders: [folder({ indexing: true })] }), new Map([['/ws', prog({ filesDone: 30, filesTotal: 120 })]]));
    assert.equal(chunking.barText, '$(sync~spin) Fathom 25%');
    assert.equal(chunking.percent, 25);
    assert.match(chunking.text, /^Indexing 25% \(30 \/ 120 files\)/);
    const embedding = indexState(status(), new Map([['/ws', prog({ phase: 'embed', filesDone: 120, filesTotal: 120, chunksEmbedded: 64, chunksToEmbed: 256 })]]));
    assert.match(embedding.text, /^Embedding 25% \(64 \/ 256 chunks\)/);
    // with a model: the embedded share (search is hybrid over what has a vector so far)
    const share = indexState(status({ model: 'm', folders: [folder({ vectors: 10 })] }), new Map([['/ws', prog({ phase: 'embed', filesDone: 120, filesTotal: 120, chunksEmbedded: 10, chunksToEmbed: 40 })]]));
    assert.match(share.text, /^Embedding 25% \(10 \/ 40 chunks\) · search by meaning covers 25%/);
    assert.equal(share.barText, '$(sync~spin) Fathom 25% embedded');
    assert.match(share.tooltip, /search by meaning covers 25%/);
    const big = indexState(status(), new Map([['/ws', prog({ filesDone: 1234, filesTotal: 1234567 })]]));
    assert.match(big.text, /\(1,234 \/ 1,234,567 files\)/);
  });

  it('when done: counts; keyword-only shows the warning and why', function () {
    const done = indexState(status({ model: 'm' }), new Map());
    assert.equal(done.text, '10 files · 40 chunks · 0 vectors (0% embedded)');
    assert.equal(indexState(status({ model: 'm', folders: [folder({ vectors: 40 })] }), new Map()).text, '10 files · 40 chunks · 40 vectors', 'all embedded: no share');
    assert.equal(done.barText, '$(search) Fathom');
    const kw = indexState(status({ keywordOnlyReason: 'model missing' }), new Map(), { advice: 'Keyword-only: model missing.' });
    assert.equal(kw.barText, '$(warning) Fathom: keyword-only');
    assert.match(kw.tooltip, /Keyword-only: model missing/);
    assert.equal(kw.warning, 'Keyword-only: model missing.');
  });

  it('the team index that cannot answer is a warning in the view and the status bar, not only a tooltip line', function () {
    const url = 'postgres://ci@db.example/team';
    const down = indexState(status({ model: 'm', remote: { url, ok: false, problem: `cannot connect to ${url}: connect ECONNREFUSED 10.0.0.1:5432` } }), new Map());
    assert.equal(down.warning, TEAM_INDEX_DOWN);
    assert.match(down.warningDetail ?? '', /ECONNREFUSED/);
    assert.equal(down.modelActions, undefined, 'no model buttons: the model is not the problem');
    assert.equal(down.barText, '$(warning) Fathom: local only');
    assert.match(down.tooltip, /Team index postgres:\/\/ci@db\.example\/team cannot answer \(cannot connect/);
    // answering, or not tried yet: no warning
    for (const remote of [{ url, ok: true, dirty: 2 }, { url, ok: false, pending: true }]) {
      const st = indexState(status({ model: 'm', remote }), new Map());
      assert.equal(st.warning, undefined, JSON.stringify(remote));
      assert.equal(st.barText, '$(search) Fathom');
    }
    // keyword-only as well: the advice (with its model buttons) is the warning, the tooltip has both
    const both = indexState(status({ keywordOnlyReason: 'model missing', remote: { url, ok: false, problem: 'refused' } }), new Map(), { advice: 'Keyword-only: model missing.', modelActions: true });
    assert.equal(both.warning, 'Keyword-only: model missing.');
    assert.equal(both.modelActions, true);
    assert.equal(both.barText, '$(warning) Fathom: keyword-only');
    assert.match(both.tooltip, /Keyword-only: model missing\.\n[\s\S]*cannot answer \(refused\)/);
  });

  it('paused and unavailable states are said', function () {
    const p = indexState(status({ paused: true }), new Map([['/ws', prog({ filesDone: 1, filesTotal: 2 })]]));
    assert.equal(p.barText, '$(debug-pause) Fathom 50%');
    assert.match(p.text, /^Paused: /);
    const u = indexState(undefined, new Map(), { unavailable: 'Open a folder to search it with Fathom.' });
    assert.equal(u.unavailable, 'Open a folder to search it with Fathom.');
  });
});

describe('breadcrumbs', function () {
  it('drop the comment marker and the path the group heading shows', function () {
    assert.equal(breadcrumbOf('// src/map/zoom.js :: getZoomControl', 'src/map/zoom.js'), 'getZoomControl');
    assert.equal(breadcrumbOf('<!-- docs/a.md > Intro > Setup -->', 'docs/a.md'), 'Intro > Setup');
    assert.equal(breadcrumbOf('# docs/a.md', 'docs/a.md'), 'docs/a.md', 'nothing but the path: keep it');
    assert.equal(breadcrumbOf('// other thing', 'src/a.js'), 'other thing');
  });
});

describe('index tracker', function () {
  const st = (chunks: number, vectors = 0, model?: string): WorkerStatus => ({ initialized: true, paused: false, model, folders: [{ root: '/ws', storeDir: '/s', files: 1, skipped: 0, chunks, vectors, pendingVectors: 0, indexing: false, embedding: false, dirty: false }] });

  it('tells listeners about content changes only when chunks or vectors changed', function () {
    const t = new IndexTracker();
    let content = 0;
    const texts: string[] = [];
    t.onContentChange(() => content++);
    t.onChange((m) => texts.push(m.text));
    t.setStatus(st(10));
    t.setStatus(st(10));
    t.setStatus(st(12));
    t.setStatus(st(12, 3, 'm'));
    assert.equal(content, 3);
    assert.equal(texts.length, 4);
    assert.equal(t.hasVectors, true);
  });

  it('shows progress until the phase is done, and forgets folders that closed', function () {
    const t = new IndexTracker();
    t.setStatus(st(0));
    t.setProgress({ type: 'progress', root: '/ws', id: 1, progress: { phase: 'chunk', filesDone: 1, filesTotal: 4, chunksEmbedded: 0, chunksToEmbed: 0, rate: 1 } });
    assert.equal(t.indexing, true);
    assert.equal(t.model().percent, 25);
    t.setProgress({ type: 'progress', root: '/ws', id: 1, progress: { phase: 'done', filesDone: 4, filesTotal: 4, chunksEmbedded: 0, chunksToEmbed: 0, rate: 0 } });
    assert.equal(t.indexing, false);
    t.setProgress({ type: 'progress', root: '/gone', progress: { phase: 'embed', filesDone: 1, filesTotal: 1, chunksEmbedded: 1, chunksToEmbed: 2, rate: 1 } });
    t.setStatus(st(0));
    assert.equal(t.progress.size, 0);
  });
});
