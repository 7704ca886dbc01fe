/**
 * FileSource (the one read policy) and FolderSession (one owner per folder), in-process on the
 * in-memory source; a temp folder only where the store's lock and the disk are the subject.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkFile } from '../../src/chunkers/index';
import { Engine } from '../../src/index/engine';
import { loadStore, StoreLockedError } from '../../src/index/store';
import type { LookupResult } from '../../src/i18n/types';
import { I18N_SNAPSHOT_VERSION } from '../../src/i18n/i18n-index';
import { FolderSession } from '../../src/service/session';
import { MemoryFileSource, NodeFileSource } from '../../src/workspace/source';
import { counting } from '../helpers/counting-source';

const drain = async <T>(gen: AsyncGenerator<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
};

const app = (): Record<string, string> => ({
  'package.json': '{"name":"app"}',
  'locales/en.json': JSON.stringify({ events: { create: 'Create an event', list: 'All events' } }),
  'locales/fr.json': JSON.stringify({ events: { create: 'Créer un événement', list: 'Tous les événements' } }),
  'src/form.js': "export function submitEventForm() { return i18n.t('events.create') }\n",
  'fixtures/fake.js': "export const x = i18n.t('events.list')\n",
  'vendor/de.json': JSON.stringify({ events: { create: 'Veranstaltung erstellen' } }),
  '.gitignore': 'ignored/\n',
  'ignored/a.js': "export const hidden = i18n.t('events.list')\n",
  'node_modules/lib/index.js': 'export const dep = 1\n',
});

const key = async (s: FolderSession, k: string): Promise<LookupResult> => (await s.i18n({ op: 'key', key: k })).result as LookupResult;
const str = async (s: FolderSession, t: string): Promise<LookupResult> => (await s.i18n({ op: 'string', text: t })).result as LookupResult;

describe('FileSource', function () {
  it('walks with .gitignore, the always-skipped folders and the selection (in memory as on disk)', function () {
    const mem = new MemoryFileSource(app());
    assert.deepEqual(
      mem.walk({ exclude: ['fixtures', 'vendor'] }).map((f) => f.rel),
      ['.gitignore', 'locales/en.json', 'locales/fr.json', 'package.json', 'src/form.js'],
    );
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-source-'));
    try {
      for (const [rel, text] of Object.entries(app())) {
        fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
        fs.writeFileSync(path.join(tmp, rel), text);
      }
      const disk = new NodeFileSource(tmp);
      assert.deepEqual(disk.walk({ exclude: ['fixtures', 'vendor'] }).map((f) => f.rel), mem.walk({ exclude: ['fixtures', 'vendor'] }).map((f) => f.rel));
      assert.equal(disk.filter()('ignored/a.js'), false);
      assert.equal(disk.filter()('src/form.js'), true);
      const r = disk.read('locales/fr.json');
      assert.ok(r.ok && r.decoded.text?.includes('Créer'));
      assert.equal(disk.read('nope.js').ok, false);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('caps by bytes, not characters; decodes once; says why a file was not read', function () {
    // 40 characters, 80 bytes in UTF-8
    const mem = new MemoryFileSource({ 'a.txt': 'é'.repeat(40), 'b.bin': new Uint8Array([0, 1, 2, 0]), 'c.txt': '\ufeffhello' });
    const big = mem.read('a.txt', 60);
    assert.equal(big.ok, false);
    assert.ok(!big.ok && big.reason === 'too-large' && /80 bytes, over the 60-byte cap/.test(big.detail));
    const fits = mem.read('a.txt', 80);
    assert.ok(fits.ok && fits.decoded.text === 'é'.repeat(40) && fits.stat.size === 80);
    const bin = mem.read('b.bin');
    assert.ok(bin.ok && bin.decoded.text === undefined && bin.decoded.binary);
    const bom = mem.read('c.txt');
    assert.ok(bom.ok && bom.decoded.text === 'hello');
    const gone = mem.read('zzz');
    assert.ok(!gone.ok && gone.reason === 'missing');
  });

  it('chunkFile compares its cap with the UTF-8 byte count of the text, not its length', function () {
    const text = `export const s = '${'é'.repeat(600)}';\n`; // ~620 characters, ~1,220 bytes
    const r = chunkFile('a.js', text, { maxFileBytes: 1000 });
    assert.equal(r.skipped?.reason, 'too-large');
    assert.match(r.skipped?.detail ?? '', /bytes \(UTF-8\), over the 1000-byte cap/);
    assert.equal(chunkFile('a.js', text, { maxFileBytes: 2000 }).skipped, undefined);
  });
});

describe('FolderSession (in memory)', function () {
  it('indexes, searches, applies a change and forgets a deleted file', async function () {
    const src = new MemoryFileSource(app());
    const s = await FolderSession.open('/memory', { source: src });
    const progress = await drain(s.index());
    assert.equal(progress.at(-1)?.phase, 'done');
    assert.ok(!s.files().some((f) => f.path.startsWith('ignored/') || f.path.startsWith('node_modules/')));
    assert.equal((await s.search('submitEventForm'))[0]?.chunk.path, 'src/form.js');
    src.set('src/zoom.js', 'export function zoomTheMapIn(level) { return level + 1 }\n');
    const r = s.apply([{ rel: 'src/zoom.js' }]);
    assert.equal(r.changed, 1);
    assert.equal((await s.search('zoomTheMapIn'))[0]?.chunk.path, 'src/zoom.js');
    src.delete('src/zoom.js');
    s.apply([{ rel: 'src/zoom.js' }]); // gone from the source: removed
    assert.equal((await s.search('zoomTheMapIn')).length, 0);
    await s.close();
    await assert.rejects(() => s.search('x'), /closed/);
  });

  it('answers i18n from the folder, following the selection: an excluded file feeds no lookup', async function () {
    const src = new MemoryFileSource(app());
    const s = await FolderSession.open('/memory', { source: src });
    await drain(s.index({ selection: { exclude: ['fixtures/**', 'vendor/**'] } }));
    const k = await key(s, 'events.list');
    assert.deepEqual(k.candidates[0].locales.map((l) => l.locale), ['en', 'fr']);
    // fixtures/fake.js uses events.list, ignored/a.js too: neither is selected
    assert.deepEqual(k.candidates[0].usages.map((u) => u.file), []);
    assert.equal((await str(s, 'Veranstaltung erstellen')).candidates.length, 0, 'vendor/de.json is excluded');
    // the selection changes: the next index run brings the excluded files in, for i18n too
    await drain(s.index({ selection: {} }));
    assert.deepEqual((await key(s, 'events.list')).candidates[0].usages.map((u) => u.file), ['fixtures/fake.js']);
    assert.equal((await str(s, 'Veranstaltung erstellen')).candidates[0]?.key, 'events.create');
    await s.close();
  });

  it('reads each changed file once for the engine and i18n, and i18n follows apply and remove', async function () {
    const mem = new MemoryFileSource(app());
    const src = counting(mem);
    const s = await FolderSession.open('/memory', { source: src });
    await drain(s.index());
    await key(s, 'events.create'); // builds the i18n index
    src.reads.clear();
    mem.set('locales/fr.json', JSON.stringify({ events: { create: 'Nouvel événement', list: 'Tous les événements' } }));
    mem.set('src/more.js', "export const c = () => i18n.t('events.create')\n");
    s.apply([{ rel: 'locales/fr.json' }, { rel: 'src/more.js' }]);
    assert.deepEqual(Object.fromEntries(src.reads), { 'locales/fr.json': 1, 'src/more.js': 1 });
    assert.equal((await str(s, 'Nouvel événement')).candidates[0]?.key, 'events.create');
    assert.ok((await key(s, 'events.create')).candidates[0].usages.some((u) => u.file === 'src/more.js'));
    assert.ok((await search(s, 'Nouvel événement')).includes('locales/fr.json'), 'the engine got the same text');
    // an index run after edits on disk: one read per changed file as well
    src.reads.clear();
    mem.set('src/form.js', "export function submitEventForm() { return i18n.t('events.list') }\n");
    await drain(s.index());
    assert.deepEqual(Object.fromEntries(src.reads), { 'src/form.js': 1 });
    assert.ok((await key(s, 'events.list')).candidates[0].usages.some((u) => u.file === 'src/form.js'));
    s.remove(['locales']);
    assert.deepEqual((await key(s, 'events.create')).candidates[0].locales.map((l) => l.file), ['vendor/de.json']);
    await s.close();
  });

  it('holds its store lock until close; close saves and a new session loads it', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-session-'));
    try {
      const storeDir = path.join(tmp, 'store');
      const src = new MemoryFileSource(app());
      const a = await FolderSession.open('/memory', { source: src, storeDir });
      await drain(a.index());
      await assert.rejects(() => FolderSession.open('/memory', { source: src, storeDir }), StoreLockedError);
      await a.close();
      assert.equal(fs.existsSync(path.join(storeDir, 'lock')), false);
      const b = await FolderSession.open('/memory', { source: src, storeDir });
      assert.equal(b.loaded, true);
      assert.equal((await b.search('submitEventForm'))[0]?.chunk.path, 'src/form.js');
      await b.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('FolderSession: who saves at the end of an index run', function () {
  it('the run saves at its end; with saveAtEnd false it leaves that to the caller (saveAsync), and close saves what is left', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-session-'));
    const manifest = (d: string) => path.join(d, 'manifest.json');
    try {
      const src = new MemoryFileSource(app());
      const runSaves = path.join(tmp, 'a');
      const a = await FolderSession.open('/memory', { source: src, storeDir: runSaves });
      await drain(a.index());
      assert.ok(fs.existsSync(manifest(runSaves)), 'saved by the run');
      await a.close();
      const callerSaves = path.join(tmp, 'b');
      const b = await FolderSession.open('/memory', { source: src, storeDir: callerSaves });
      await drain(b.index({ saveAtEnd: false }));
      assert.equal(fs.existsSync(manifest(callerSaves)), false, 'not saved by the run');
      await b.saveAsync({ throwOnError: true });
      assert.ok(fs.existsSync(manifest(callerSaves)), 'saved by saveAsync');
      assert.ok(fs.existsSync(path.join(callerSaves, 'i18n.json')), 'the i18n index too');
      assert.deepEqual(fs.readdirSync(callerSaves).filter((f) => f.includes('.tmp-')), [], 'no temp file left');
      await b.close();
      const c = await FolderSession.open('/memory', { source: src, storeDir: callerSaves });
      assert.equal(c.loaded, true);
      assert.equal((await c.search('submitEventForm'))[0]?.chunk.path, 'src/form.js');
      await c.close();
      // a run that leaves its save to a caller that never saves: close does
      const closeSaves = path.join(tmp, 'c');
      const d = await FolderSession.open('/memory', { source: src, storeDir: closeSaves });
      await drain(d.index({ saveAtEnd: false }));
      await d.close();
      assert.ok(fs.existsSync(manifest(closeSaves)), 'saved by close');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('FolderSession: saves that answers go on during', function () {
  it('a file applied while a save writes: that save ends with the previous store kept, nothing logged as an error, and the next save (after twice saveDelayMs) has the file', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-session-'));
    try {
      const storeDir = path.join(tmp, 'store');
      const files = app();
      const src = new MemoryFileSource(files);
      const logged: string[] = [];
      const s = await FolderSession.open('/memory', { source: src, storeDir, saveDelayMs: 100, log: (level, m) => void logged.push(`${level}: ${m}`) });
      await drain(s.index());
      const stored = () => {
        const b = new Engine({ noEmbedderReason: 'test' });
        assert.equal(loadStore(storeDir, b).ok, true);
        return [...b.files.keys()].sort();
      };
      const first = stored();
      // a change, its save started (as the debounce timer starts it), and a file applied while it writes
      src.set('src/one.js', 'export function firstChange() { return 1 }\n');
      s.apply([{ rel: 'src/one.js' }]);
      const saving = s.saveAsync();
      // the save writes its files over many turns of the event loop: once its first file is there, a file is applied
      for (let i = 0; i < 10_000 && !fs.readdirSync(storeDir).some((f) => /\.tmp-|\.2\./.test(f)); i++) await new Promise((r) => setImmediate(r));
      src.set('src/two.js', 'export function appliedDuringTheSave() { return 2 }\n');
      s.apply([{ rel: 'src/two.js' }]);
      await saving;
      const ended = Date.now();
      assert.deepEqual(stored(), first, 'the save that saw a change kept the previous store');
      assert.equal(s.dirty, true);
      for (let i = 0; i < 200 && s.dirty; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(s.dirty, false, 'saved again');
      // not after saveDelayMs (100 ms, as the change asked) but twice that: saves the index keeps changing under come less often
      assert.ok(Date.now() - ended >= 180, `saved again ${Date.now() - ended} ms after the save that saw a change`);
      assert.deepEqual(stored(), [...first, 'src/one.js', 'src/two.js'].sort());
      assert.deepEqual(logged.filter((l) => /^(error|warn)/.test(l)), []);
      await s.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('FolderSession: the i18n index in the store', function () {
  it('is saved with the store; a lazy session answers from it, reading only changed files, without loading the search index', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-session-i18n-'));
    try {
      const storeDir = path.join(tmp, 'store');
      const mem = new MemoryFileSource(app());
      const a = await FolderSession.open('/memory', { source: mem, storeDir });
      await drain(a.index());
      assert.equal((await str(a, 'Créer un événement')).candidates[0]?.key, 'events.create');
      await a.close();
      assert.ok(fs.existsSync(path.join(storeDir, 'i18n.json')));

      mem.set('locales/fr.json', JSON.stringify({ events: { create: 'Nouvel événement', list: 'Tous les événements' } }));
      mem.delete('src/form.js');
      const src = counting(mem);
      const b = await FolderSession.open('/memory', { source: src, storeDir, lazyEngine: true });
      assert.equal((await str(b, 'Nouvel événement')).candidates[0]?.key, 'events.create');
      assert.deepEqual(Object.fromEntries(src.reads), { 'locales/fr.json': 1 }, 'only the changed file is read');
      assert.ok(!(await key(b, 'events.create')).candidates[0].usages.some((u) => u.file === 'src/form.js'), 'a deleted file is dropped');
      assert.equal(b.engineLoaded, false, 'the search index was not loaded');
      await b.close();

      // a later index run (the engine's own catalog) and the stored i18n agree: one read of the changed file feeds both
      const src2 = counting(mem);
      const c = await FolderSession.open('/memory', { source: src2, storeDir });
      mem.set('src/more.js', "export const c = () => i18n.t('events.list')\n");
      await drain(c.index());
      assert.equal(src2.reads.get('src/more.js'), 1);
      assert.equal(src2.reads.get('locales/fr.json'), 1, 'the engine had not seen the fr edit: read once, for both');
      assert.ok((await key(c, 'events.list')).candidates[0].usages.some((u) => u.file === 'src/more.js'));
      assert.equal(src2.reads.get('src/more.js'), 1, 'i18n was fed by the index run, not by a second read');
      await c.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the stored chunks keep their i18n text: a session that changed nothing is given the feed without a chunk looked at; a changed locale file feeds every chunk again', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-session-i18n-'));
    try {
      const storeDir = path.join(tmp, 'store');
      const mem = new MemoryFileSource(app());
      const feeds: Array<string[] | undefined> = [];
      const open = async () => {
        const s = await FolderSession.open('/memory', { source: mem, storeDir });
        const e = s.engine;
        const setI18n = e.setI18n.bind(e);
        e.setI18n = (feed, paths) => {
          feeds.push(paths === undefined ? undefined : [...paths]);
          return setI18n(feed, paths);
        };
        await drain(s.index());
        await s.searchableI18n();
        return s;
      };
      // the code chunk that uses events.create is found by the key's English text
      const found = async (s: FolderSession, q: string) => (await s.search(q, { k: 5, mode: 'keyword' })).some((h) => h.chunk.path === 'src/form.js');
      const a = await open();
      assert.ok(await found(a, 'Create an event'));
      await a.close();
      const manifest = JSON.parse(fs.readFileSync(path.join(storeDir, 'manifest.json'), 'utf8')) as { i18nFed?: string };
      const snapshot = JSON.parse(fs.readFileSync(path.join(storeDir, 'i18n.json'), 'utf8')) as { id?: string };
      assert.ok(manifest.i18nFed && manifest.i18nFed === snapshot.id, 'the manifest names the i18n snapshot its chunks were fed from');

      feeds.length = 0;
      const b = await open();
      assert.deepEqual(feeds, [[]], 'nothing changed: the feed is attached, no chunk fed again');
      assert.ok(await found(b, 'Create an event'), 'the stored i18n text is searchable');
      await b.close();

      mem.set('locales/en.json', JSON.stringify({ events: { create: 'Plan a gathering', list: 'All events' } }));
      feeds.length = 0;
      const c = await open();
      assert.ok((feeds as Array<string[] | undefined>).includes(undefined), 'a locale file changed: every chunk is fed again');
      assert.ok(await found(c, 'Plan a gathering'));
      await c.close();

      feeds.length = 0;
      const d = await open();
      assert.deepEqual(feeds, [[]], 'the save after the change names the new snapshot');
      assert.ok(await found(d, 'Plan a gathering'));
      const hit = (await d.search('Plan a gathering', { k: 5, mode: 'keyword' })).find((h) => h.chunk.path === 'src/form.js');
      assert.equal(hit?.chunk.meta?.i18nText, 'Plan a gathering', 'the chunk holds the new text, not the old one');
      await d.close();

      // the i18n index rebuilt (its snapshot gone: a new version, damage), no chunk changed: the
      // chunks are fed again, and the store is saved with the new snapshot's id (it was not: every
      // later session fed every chunk again)
      fs.rmSync(path.join(storeDir, 'i18n.json'));
      const generation = () => (JSON.parse(fs.readFileSync(path.join(storeDir, 'manifest.json'), 'utf8')) as { generation: number }).generation;
      const before = generation();
      feeds.length = 0;
      const e = await open();
      assert.ok((feeds as Array<string[] | undefined>).includes(undefined), 'no stored i18n: every chunk is fed again');
      await e.close();
      assert.equal(generation(), before, 'no chunk changed: the store is not written again, its manifest names the new snapshot');
      feeds.length = 0;
      const f = await open();
      assert.deepEqual(feeds, [[]], 'the save after the rebuild names the rebuilt snapshot');
      assert.ok(await found(f, 'Plan a gathering'));
      await f.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a stored i18n index of another version or damaged is rebuilt, not trusted', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-session-i18n-'));
    try {
      const storeDir = path.join(tmp, 'store');
      fs.mkdirSync(storeDir);
      fs.writeFileSync(path.join(storeDir, 'i18n.json'), JSON.stringify({ format: 'fathom-i18n', version: 999, config: {}, catalog: [], state: { apps: [], locales: [], usages: [], problems: [] } }));
      const logs: string[] = [];
      const s = await FolderSession.open('/memory', { source: new MemoryFileSource(app()), storeDir, lazyEngine: true, log: (_l, m) => logs.push(m) });
      assert.equal((await str(s, 'Create an event')).candidates[0]?.key, 'events.create');
      assert.ok(logs.some((m) => /another version/.test(m)), logs.join('\n'));
      await s.close();
      fs.writeFileSync(path.join(storeDir, 'i18n.json'), `{"format":"fathom-i18n","version":${I18N_SNAPSHOT_VERSION},"catalog":[],"state":{"apps":[],"locales":[{"file":"x.json"}],"usages":[],"problems":[]}}`);
      const t = await FolderSession.open('/memory', { source: new MemoryFileSource(app()), storeDir, lazyEngine: true, log: (_l, m) => logs.push(m) });
      assert.equal((await str(t, 'Create an event')).candidates[0]?.key, 'events.create');
      assert.ok(logs.some((m) => /damaged, it is rebuilt: damaged locale file record x\.json/.test(m)), logs.join('\n'));
      await t.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

async function search(s: FolderSession, q: string): Promise<string[]> {
  return (await s.search(q, { mode: 'keyword' })).map((h) => h.chunk.path);
}
