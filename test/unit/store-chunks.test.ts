/**
 * Store version 5: the chunks kept columnar and their texts in a section of their own, read in
 * place and made into objects only when asked for (src/index/chunks.ts).
 */
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { Chunk } from '../../src/chunkers/types';
import { Engine } from '../../src/index/engine';
import { crc32Table, loadStore, saveStore, saveStoreAsync, StoreChangedError } from '../../src/index/store';
import { fakeEmbedder } from '../helpers/fake-embedder';

const SAMPLE = path.join(__dirname, '..', '..', 'sample-workspace');

async function drain(gen: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of gen) void _;
}

/** What JSON kept of a chunk (v4 stored them as JSON: `undefined` fields were never kept). */
const plain = (c: unknown) => (c === undefined ? undefined : JSON.parse(JSON.stringify(c)));

const put = (e: Engine, rel: string, text: string) => e.updateFile(rel, Buffer.from(text), { size: Buffer.byteLength(text), mtimeMs: 1 });

/** Files with what the columns must carry: non-ASCII text and paths, split pieces, Markdown links, chunk meta. */
function extraFiles(e: Engine): void {
  put(e, 'docs/ünïcode.md', '# Überschrift 日本語\n\nText mit Umlauten äöü and emoji 🙂🚀, and a tab\there.\n\n```js\nconst π = 3.14;\n```\n');
  const long = Array.from({ length: 400 }, (_, i) => `  total += compute${i}(value, ${i}); // step ${i}`).join('\n');
  put(e, 'src/long.js', `export function longOne(value) {\n  let total = 0;\n${long}\n  return total;\n}\n`);
  put(e, 'src/empty-ish.js', '\n');
}

function copySample(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-v5-'));
  fs.cpSync(SAMPLE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
  return dir;
}

function assertSameChunks(got: Engine, want: Engine, why: string): void {
  assert.equal(got.chunks.length, want.chunks.length, `${why}: slots`);
  assert.equal(got.chunkCount, want.chunkCount, `${why}: live chunks`);
  for (let id = 0; id < want.chunks.length; id++) {
    const w = want.chunks.get(id);
    const g = got.chunks.get(id);
    assert.deepEqual(plain(g), plain(w), `${why}: docId ${id}`);
    assert.equal(got.chunks.has(id), w !== undefined);
    if (!w) continue;
    const { text, ...head } = plain(w) as Chunk;
    assert.deepEqual(plain(got.chunks.head(id)), head, `${why}: head of ${id}`);
    assert.equal(got.chunks.text(id), text);
    assert.deepEqual(got.chunks.facts(id) && { ...got.chunks.facts(id) }, { path: w.path, language: w.language, kind: w.kind });
    assert.equal(got.docIdOf(w.id), want.docIdOf(w.id), `${why}: docIdOf ${w.id}`);
  }
}

describe('store v5: chunks columnar, texts read in place', () => {
  let dir: string;
  beforeEach(() => {
    dir = copySample();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('round trip: every chunk field by field (split pieces, links, meta, non-ASCII), empty slots, lookups by id', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
    extraFiles(a);
    a.removeFile('src/empty-ish.js');
    a.removeFile('locales/core_fr.json'); // empty slots in the middle
    const all = [...a.chunks].filter((c): c is Chunk => !!c);
    assert.ok(all.some((c) => c.split), 'a split piece');
    assert.ok(all.some((c) => c.links?.codeBlocks?.length || c.links?.section), 'Markdown links');
    assert.ok(all.some((c) => c.meta && Object.keys(c.meta).length), 'chunk meta');
    assert.ok(all.some((c) => /[^ -~\s]/.test(c.text) && /[^ -~]/.test(c.path)), 'non-ASCII text and path');
    assert.ok([...a.chunks.keys()].some((id) => !a.chunks.has(id)), 'an empty slot');
    saveStore(store, a);
    const b = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, b), { ok: true });
    assertSameChunks(b, a, 'after load');
    assert.equal(b.docIdOf('no such id'), undefined);
    for (const q of ['zoom control', 'Überschrift', 'compute7 value', 'locale messages']) {
      assert.deepEqual(
        (await b.search(q, { k: 8 })).map((h) => plain(h)),
        (await a.search(q, { k: 8 })).map((h) => plain(h)),
        q,
      );
    }
    const source = all.find((c) => c.kind === 'function')!;
    assert.deepEqual((await b.similar({ chunkId: source.id })).map((h) => h.chunk.id), (await a.similar({ chunkId: source.id })).map((h) => h.chunk.id));
    assert.deepEqual(plain(b.context(source.id, { before: 2, after: 2 })), plain(a.context(source.id, { before: 2, after: 2 })));
    assert.deepEqual(plain(b.chunkAt(source.path, source.start.line)), plain(a.chunkAt(source.path, source.start.line)));
    // a save of what was loaded (every row copied as it was) loads the same again
    saveStore(store, b);
    const c = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, c), { ok: true });
    assertSameChunks(c, a, 'after a second save');
  });

  it('the save with its writes in the thread pool writes the same bytes as the synchronous one, loads the same, and replaces the old generation', async () => {
    const a = new Engine({ noEmbedderReason: 'test', embedder: fakeEmbedder() });
    await drain(a.indexFolder(dir));
    extraFiles(a);
    const sync = path.join(dir, '.fathom-sync');
    const viaPool = path.join(dir, '.fathom-async');
    saveStore(sync, a);
    saveStore(viaPool, a); // generation 1, which the next save replaces
    await saveStoreAsync(viaPool, a);
    saveStore(sync, a);
    const data = (d: string) => fs.readdirSync(d).filter((f) => f !== 'manifest.json').sort();
    assert.deepEqual(data(viaPool), data(sync));
    assert.ok(data(sync).every((f) => /\.2\./.test(f)), data(sync).join(' '));
    for (const f of data(sync)) assert.ok(fs.readFileSync(path.join(viaPool, f)).equals(fs.readFileSync(path.join(sync, f))), f);
    const files = (d: string) => (JSON.parse(fs.readFileSync(path.join(d, 'manifest.json'), 'utf8')) as { files: unknown }).files;
    assert.deepEqual(files(viaPool), files(sync));
    const b = new Engine({ noEmbedderReason: 'test', embedder: fakeEmbedder() });
    assert.deepEqual(loadStore(viaPool, b), { ok: true });
    assertSameChunks(b, a, 'after the async save');
    assert.deepEqual((await b.search('zoom control', { k: 5 })).map((h) => h.chunk.id), (await a.search('zoom control', { k: 5 })).map((h) => h.chunk.id));
  });

  it('a failed async save (its folder is a file) throws the store error, and leaves no file of its own', async () => {
    const a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
    const store = path.join(dir, '.fathom');
    saveStore(store, a);
    const before = fs.readdirSync(store).sort();
    // the catalog's name taken by a folder: the rename fails once the temp file is written
    fs.mkdirSync(path.join(store, 'catalog.2.jsonl'));
    fs.writeFileSync(path.join(store, 'catalog.2.jsonl', 'x'), 'x');
    await assert.rejects(saveStoreAsync(store, a), /could not save the index in .*the previous index is kept/);
    assert.deepEqual(fs.readdirSync(store).sort(), [...before, 'catalog.2.jsonl'].sort());
    const b = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, b), { ok: true });
  });

  it('an index changed while the async save writes ends that save: StoreChangedError, the previous generation as it was, no file of the save left', async () => {
    const a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
    const store = path.join(dir, '.fathom');
    saveStore(store, a);
    const before = Object.fromEntries(fs.readdirSync(store).map((f) => [f, fs.readFileSync(path.join(store, f)).toString('base64')]));
    const saving = saveStoreAsync(store, a);
    // a file applied while the save is going on (it runs up to its first write, then yields)
    put(a, 'src/late.js', 'export function arrivedDuringTheSave() { return 1 }\n');
    await assert.rejects(saving, (e: unknown) => e instanceof StoreChangedError && /changed while it was being saved/.test((e as Error).message));
    const after = Object.fromEntries(fs.readdirSync(store).map((f) => [f, fs.readFileSync(path.join(store, f)).toString('base64')]));
    assert.deepEqual(after, before);
    const b = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, b), { ok: true });
    assert.equal(b.files.has('src/late.js'), false);
    // the next save, with nothing changing under it, writes the new state
    await saveStoreAsync(store, a);
    const c = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, c), { ok: true });
    assert.equal(c.files.has('src/late.js'), true);
  });

  it('texts stay right through edits after a load: removed rows, new chunks in their slots, replaced ones (i18n text), and a save of the mix', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
    extraFiles(a);
    saveStore(store, a);
    const b = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, b), { ok: true });
    const zoomIds = b.files.get('src/map/zoom.js')!.docIds.slice();
    // edits on both engines: a changed file, a removed one, an added one (into freed slots)
    for (const e of [a, b]) {
      put(e, 'src/map/zoom.js', 'export function zoomTwice(map) {\n  return map.zoom * 2; // doubled\n}\n');
      e.removeFile('docs/i18n.md');
      put(e, 'src/added.js', 'export const addedLater = "a string added after the load";\n');
    }
    assert.ok(b.files.get('src/map/zoom.js')!.docIds.some((id) => zoomIds.includes(id)) || b.files.get('src/added.js')!.docIds.some((id) => zoomIds.includes(id)), 'a freed slot was reused');
    const byId = (e: Engine) => new Map([...e.chunks].filter((c): c is Chunk => !!c).map((c) => [c.id, plain(c)]));
    assert.deepEqual(byId(b), byId(a));
    for (const [id, c] of byId(b)) assert.equal(b.chunks.get(b.docIdOf(id)!)!.text, (c as Chunk).text);
    assert.equal((await b.search('zoomTwice doubled', { k: 1 }))[0].chunk.path, 'src/map/zoom.js');
    assert.ok(!(await b.search('getZoomControl', { k: 10 })).some((h) => h.chunk.path === 'src/map/zoom.js' && h.chunk.text.includes('getZoomControl')), 'the old text is gone');
    // replaced in place (same docId and id): the i18n text of some stored chunks
    const feed = { localeFiles: new Set<string>(), textFor: (c: Chunk) => (c.path.endsWith('.vue') ? 'lighthouse keeper' : undefined) };
    const changed = b.setI18n(feed);
    assert.ok(changed > 0);
    const vueIds = [...b.chunks.keys()].filter((id) => b.chunks.get(id)?.path.endsWith('.vue'));
    for (const id of vueIds) {
      const c = b.chunks.get(id)!;
      assert.equal(c.meta?.i18nText, 'lighthouse keeper');
      assert.equal(b.docIdOf(c.id), id);
    }
    assert.ok((await b.search('lighthouse keeper', { k: 3 }))[0].chunk.path.endsWith('.vue'));
    saveStore(store, b);
    const c = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, c), { ok: true });
    assertSameChunks(c, b, 'the mix saved');
    assert.ok((await c.search('lighthouse keeper', { k: 3 }))[0].chunk.path.endsWith('.vue'));
  });

  it('with vectors: the embedded texts hashes come from the store (none recomputed) and are right: an edit undone after a load costs no embedding', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ embedder: fakeEmbedder() });
    await drain(a.indexFolder(dir));
    saveStore(store, a);
    const emb = fakeEmbedder();
    const b = new Engine({ embedder: emb });
    // count the hashes computed during the load (the module object itself: what the engine calls)
    const crypto = createRequire(__filename)('node:crypto') as typeof import('node:crypto');
    const real = crypto.createHash;
    let hashed = 0;
    (crypto as { createHash: unknown }).createHash = (...args: Parameters<typeof real>) => (hashed++, real(...args));
    try {
      assert.deepEqual(loadStore(store, b), { ok: true });
    } finally {
      (crypto as { createHash: unknown }).createHash = real;
    }
    assert.equal(hashed, 0, 'no hash computed by the load');
    assert.equal(b.pendingVectors, 0);
    for (let id = 0; id < a.chunks.length; id++) assert.equal(b.textHashOf(id), a.textHashOf(id), `hash of ${id}`);
    const rel = 'src/map/zoom.js';
    const original = fs.readFileSync(path.join(dir, rel));
    b.updateFile(rel, Buffer.from('export function other() { return 42; }\n'), { size: 40, mtimeMs: 2 });
    await drain(b.embedPending());
    const afterEdit = emb.embedded;
    assert.ok(afterEdit > 0);
    b.updateFile(rel, original, { size: original.byteLength, mtimeMs: 3 });
    await drain(b.embedPending());
    assert.equal(emb.embedded, afterEdit, 'the stored chunks came back with their vectors from the cache, by their stored hashes');
    for (const mode of ['dense', 'hybrid'] as const) {
      assert.deepEqual((await b.search('zoom control', { k: 5, mode })).map((h) => h.chunk.id), (await a.search('zoom control', { k: 5, mode })).map((h) => h.chunk.id), mode);
    }
  });

  it('a chunks section damaged past its checksum (the checksum made to match): refused with the reason, or loaded with chunks that read without a throw', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
    saveStore(store, a);
    const mfile = path.join(store, 'manifest.json');
    const good = fs.readFileSync(mfile, 'utf8');
    const m = JSON.parse(good);
    const cfile = path.join(store, m.files.chunks.name);
    const bytes = fs.readFileSync(cfile);
    const write = (b: Buffer) => {
      fs.writeFileSync(cfile, b);
      fs.writeFileSync(mfile, JSON.stringify({ ...m, files: { ...m.files, chunks: { ...m.files.chunks, bytes: b.byteLength, crc32: (zlib.crc32 ?? crc32Table)(b).toString(16).padStart(8, '0') } } }));
    };
    let refused = 0;
    let loaded = 0;
    const step = Math.max(1, Math.floor(bytes.byteLength / 200));
    for (let at = 0; at < bytes.byteLength; at += step) {
      for (const x of [0x01, 0x80, 0xff]) {
        const b = Buffer.from(bytes);
        b[at] ^= x;
        write(b);
        const e = new Engine({ noEmbedderReason: 'test' });
        const r = loadStore(store, e);
        if (r.ok) {
          loaded++;
          for (const c of e.chunks) void c?.text;
          await e.search('zoom control', { k: 5 });
        } else {
          refused++;
          assert.match(r.reason, /damaged: chunks\.\d+\.bin: /, r.reason);
          assert.equal(e.chunkCount, 0);
        }
      }
    }
    // cut anywhere: always refused
    for (const len of [0, 4, 8, bytes.byteLength >> 1, bytes.byteLength - 9, bytes.byteLength - 1]) {
      write(bytes.subarray(0, len));
      const r = loadStore(store, new Engine({ noEmbedderReason: 'test' }));
      assert.equal(r.ok, false, `cut at ${len}`);
    }
    assert.ok(refused > 50 && loaded > 10, `${refused} refused, ${loaded} loaded`);
    fs.writeFileSync(cfile, bytes);
    fs.writeFileSync(mfile, good);
    assert.deepEqual(loadStore(store, new Engine({ noEmbedderReason: 'test' })), { ok: true });
  });

  it("the table CRC-32 is zlib's (the checksum of a Node without zlib.crc32)", () => {
    for (const n of [0, 1, 3, 255, 4096, 100_003]) {
      const b = randomBytes(n);
      if (zlib.crc32) assert.equal(crc32Table(b), zlib.crc32(b), `${n} bytes`);
      const half = n >> 1;
      assert.equal(crc32Table(b.subarray(half), crc32Table(b.subarray(0, half))), crc32Table(b), 'continued');
    }
    assert.equal(crc32Table(Buffer.from('123456789')), 0xcbf43926); // the standard check value
  });
});
