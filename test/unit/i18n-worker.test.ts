/**
 * The `i18n` request through the worker (built from the current source) and IndexClient, as the
 * extension will use it: lookups answered from the worker's state, the index following
 * `update` and `remove`, semantic with the worker's embedder. 
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexClient } from '../../src/service/client';
import { currentWorker } from '../helpers/worker-build';

const WORKER = currentWorker();
const FIX = path.join(__dirname, '../fixtures/i18n/per-file');
const TINY = path.join(__dirname, '../fixtures/models/fathom-tiny-bert');

describe('worker i18n request (worker built from the current source, through IndexClient)', function () {
  let tmp: string;
  let ws: string;
  let client: IndexClient;

  before(async function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-worker-'));
    ws = path.join(tmp, 'ws');
    fs.cpSync(FIX, ws, { recursive: true });
    client = new IndexClient(WORKER, { initialBackoffMs: 50 });
    await client.init({});
  });

  after(async function () {
    await client?.dispose();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('answers a string lookup in a folder that is not indexed, with problems and no semantic', async function () {
    const r = await client.i18nLookup(ws, 'Créer un evenement');
    assert.equal(r.candidates[0].key, 'events.create.TITLE');
    assert.equal(r.candidates[0].match, 'normalized');
    assert.deepEqual(r.candidates[0].locales.map((l) => l.locale), ['de', 'en', 'fr']);
    assert.equal(r.problems.length, 3);
    const none = await client.i18nLookup(ws, 'zebra quantum');
    assert.deepEqual(none.candidates, []);
    assert.match(none.semanticUnavailable ?? '', /no embedding model configured/);
  });

  it("the project's own translate functions (the editor's fathom.i18n.functions) reach the worker's usages", async function () {
    const cu = path.join(tmp, 'custom');
    fs.cpSync(path.join(__dirname, '../fixtures/i18n-frameworks/custom'), cu, { recursive: true });
    const usages = async () => (await client.i18nKey(cu, 'menu.close')).candidates[0]?.usages.map((u) => `${u.file}:${u.range.start.line}`) ?? [];
    assert.deepEqual(await usages(), [], 'translate() is no translate function by default');
    client.setI18nConfig({ functions: ['translate'] });
    try {
      assert.deepEqual(await usages(), ['src/Menu.vue:3']);
    } finally {
      client.setI18nConfig({});
    }
  });

  it('looks up a key and hovers a $t call (unsaved text counts)', async function () {
    const k = await client.i18nKey(ws, 'events.create.TITLE');
    assert.deepEqual(k.candidates[0].usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/EventForm.vue:3', 'src/EventForm.vue:16', 'src/notify.js:10']);
    const text = fs.readFileSync(path.join(ws, 'src/EventForm.vue'), 'utf8');
    const h = await client.i18nHover(ws, 'src/EventForm.vue', text.indexOf("'events.list.EMPTY'") + 2);
    assert.equal(h?.usage.via, 'v-t');
    assert.equal(h?.candidates[0].locales.find((l) => l.locale === 'fr')?.value, 'Aucun événement ne correspond à votre recherche');
    const edited = text.replace("$t('events.create.TITLE')", "$t('CANCEL')");
    const unsaved = await client.i18nHover(ws, 'src/EventForm.vue', edited.indexOf("'CANCEL'") + 2, { text: edited });
    assert.equal(unsaved?.usage.key, 'CANCEL');
    assert.equal(unsaved?.candidates[0].locales.find((l) => l.locale === 'de')?.value, 'Abbrechen');
    assert.equal(await client.i18nHover(ws, 'src/EventForm.vue', 5, { text: edited }), null);
  });

  it('diagnostics of a file: undefined keys of the unsaved text, each with the source-locale target of its quick fix', async function () {
    const text = fs.readFileSync(path.join(ws, 'src/notify.js'), 'utf8');
    const a = await client.i18n(ws, { op: 'diagnostics', file: 'src/notify.js', text: `${text}\nt('events.create.NOPE');\n` });
    assert.equal(a.op, 'diagnostics');
    const ds = a.op === 'diagnostics' ? a.result : [];
    assert.deepEqual(ds.map((d) => `${d.kind} ${d.key} ${d.source?.file}`), ['undefined events.create.NOPE locales/core_en.json']);
  });

  it('"Where is this string defined?" on template text of a .vue file lands on the key in the English and French files', async function () {
    const file = 'src/EventForm.vue';
    const text = fs.readFileSync(path.join(ws, file), 'utf8');
    const offset = text.indexOf('Create event</button>') + 4;
    const { string, result } = await client.i18nAt(ws, { file, text, language: 'vue', offset });
    assert.equal(string?.text, 'Create event');
    assert.equal(string?.kind, 'template-text');
    const [c] = result.candidates;
    assert.equal(c.key, 'events.create.TITLE');
    for (const [locale, rel, value] of [['en', 'locales/core_en.json', 'Create event'], ['fr', 'locales/core_fr.json', 'Créer un événement']]) {
      const l = c.locales.find((x) => x.locale === locale)!;
      assert.equal(l.file, rel);
      const src = fs.readFileSync(path.join(ws, rel), 'utf8');
      assert.equal(src.slice(l.range.start.offset, l.range.end.offset), value);
      assert.equal(src.split('\n')[l.range.start.line - 1].slice(l.range.start.column, l.range.end.column), value);
    }
    const nothing = await client.i18nAt(ws, { file, text, language: 'vue', offset: text.indexOf('<form>') + 2 });
    assert.equal(nothing.string, null);
    assert.deepEqual(nothing.result.candidates, []);
  });

  it('follows update (from disk and from bytes) and remove', async function () {
    await client.index(ws, path.join(tmp, 'store'));
    const fr = path.join(ws, 'locales/core_fr.json');
    fs.writeFileSync(fr, fs.readFileSync(fr, 'utf8').replace('Créer un événement', 'Nouvel événement'));
    await client.update(ws, [{ rel: 'locales/core_fr.json' }, { rel: 'src/new.js', bytes: new TextEncoder().encode("export const c = i18n.t('CANCEL')\n") }]);
    assert.equal((await client.i18nLookup(ws, 'Nouvel événement')).candidates[0].key, 'events.create.TITLE');
    assert.ok((await client.i18nKey(ws, 'CANCEL')).candidates[0].usages.some((u) => u.file === 'src/new.js'));
    await client.update(ws, [{ rel: 'src/new.js', deleted: true }]);
    assert.ok(!(await client.i18nKey(ws, 'CANCEL')).candidates[0].usages.some((u) => u.file === 'src/new.js'));
    await client.remove(ws, ['locales']);
    assert.deepEqual((await client.i18nKey(ws, 'events.create.TITLE')).candidates, []);
  });

  it('serves other requests while it reads a folder, and concurrent lookups share one read', async function () {
    const big = path.join(tmp, 'big');
    for (let f = 0; f < 60; f++) {
      const dir = path.join(big, 'locales', f % 2 ? 'fr' : 'en');
      fs.mkdirSync(dir, { recursive: true });
      const o: Record<string, string> = {};
      for (let k = 0; k < 400; k++) o[`k${k}`] = `${f % 2 ? 'Valeur' : 'Value'} ${k} of namespace ${Math.floor(f / 2)}`;
      fs.writeFileSync(path.join(dir, `ns${Math.floor(f / 2)}.json`), JSON.stringify(o, null, 1));
    }
    const logs: string[] = [];
    const sub = client.onLog((l) => logs.push(l.message));
    const [a, st, b] = await Promise.all([client.i18nLookup(big, 'Value 7 of namespace 3'), client.status(), client.i18nKey(big, 'ns3:k7')]);
    sub.dispose();
    assert.equal(a.candidates[0].key, 'ns3:k7');
    assert.equal(b.candidates[0].locales.length, 2);
    assert.ok(st.initialized);
    assert.equal(logs.filter((m) => m.startsWith(`i18n index of ${path.resolve(big)}`)).length, 1, logs.join('\n'));
  });

  it('uses the worker embedder for the semantic last resort', async function () {
    const st = await client.init({ embedder: { localModelPath: TINY, threads: 1 } });
    assert.ok(st.model, st.keywordOnlyReason);
    const sem = path.join(tmp, 'sem');
    fs.mkdirSync(path.join(sem, 'locales'), { recursive: true });
    fs.writeFileSync(path.join(sem, 'locales/en.json'), JSON.stringify({ map: { zoomIn: 'Zoom in' }, layers: { remove: 'Delete the layer' } }));
    const r = await client.i18nLookup(sem, 'zooming');
    assert.equal(r.candidates[0]?.match, 'semantic');
    assert.equal(r.candidates[0].key, 'map.zoomIn');
  });
});
