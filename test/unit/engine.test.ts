import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine, MEMORY_CHECK_FILES, type IndexProgress } from '../../src/index/engine';
import type { Embedder } from '../../src/index/embedder';
import { loadStore, lockStore, saveStore, StoreLockedError } from '../../src/index/store';
import { CHUNKER_VERSION } from '../../src/chunkers/types';
import { fakeEmbedder } from '../helpers/fake-embedder';

const SAMPLE = path.join(__dirname, '..', '..', 'sample-workspace');

function copySample(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-engine-'));
  fs.cpSync(SAMPLE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
  return dir;
}

async function drain(gen: AsyncGenerator<IndexProgress>): Promise<IndexProgress[]> {
  const out: IndexProgress[] = [];
  for await (const p of gen) out.push(p);
  return out;
}


describe('Engine: incremental index, hybrid search, persistence', () => {
  let dir: string;
  beforeEach(() => {
    dir = copySample();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('indexes a folder keyword-only and finds symbols, i18n values and headings', async () => {
    const engine = new Engine({ noEmbedderReason: 'test' });
    const progress = await drain(engine.indexFolder(dir));
    assert.equal(progress[progress.length - 1].phase, 'done');
    const top = async (q: string) => (await engine.search(q, { k: 3 }))[0]?.chunk;
    assert.equal((await top('zoom control (getZoomControl)'))?.symbol, 'getZoomControl');
    assert.equal((await top('Rechercher des couches'))?.path, 'locales/core_fr.json');
    assert.equal((await top('Adding a language'))?.path, 'docs/i18n.md');
    const hits = await engine.search('zoom', { k: 5, filters: { pathGlob: '**/*.vue' } });
    assert.ok(hits.length > 0 && hits.every((h) => h.chunk.path.endsWith('.vue')));
    assert.ok(hits.every((h) => h.why.keyword && h.why.dense === undefined));
  });

  it('re-chunks only what changed and forgets deleted files', async () => {
    const engine = new Engine({ noEmbedderReason: 'test' });
    await drain(engine.indexFolder(dir));
    const zoomRecord = engine.files.get('src/map/zoom.js');
    const readmeRecord = engine.files.get('README.md');
    fs.appendFileSync(path.join(dir, 'README.md'), '\n## Panning\n\nDrag the map with the mouse to pan around.\n');
    fs.rmSync(path.join(dir, 'locales', 'core_fr.json'));
    await drain(engine.indexFolder(dir));
    assert.equal(engine.files.get('src/map/zoom.js'), zoomRecord, 'an unchanged file keeps its record: not re-read, not re-chunked');
    assert.notEqual(engine.files.get('README.md'), readmeRecord);
    // words the new section holds as written (a plain-words description would rank code first: fusion.ts PROSE_WEIGHT)
    assert.equal((await engine.search('Drag the map with the mouse', { k: 1 }))[0].chunk.symbol, 'Sample mapping app > Panning');
    assert.ok(!engine.files.has('locales/core_fr.json'));
    const fr = await engine.search('Rechercher des couches', { k: 10 });
    assert.ok(fr.every((h) => h.chunk.path !== 'locales/core_fr.json'), 'deleted files vanish from results');
  });

  it('keyword-only Find Similar lists the functions that share words with the source (the name tie-break does not lift the source over its floor)', async () => {
    const ws = path.join(__dirname, '..', 'fixtures', 'e2e-workspace');
    const engine = new Engine();
    await drain(engine.indexFolder(ws));
    const similar = await engine.similar({ path: 'src/utils/format.js', line: 11 }, { k: 5 });
    assert.ok(similar.length >= 2, JSON.stringify(similar.map((h) => [h.chunk.path, h.chunk.symbol, h.score])));
    assert.ok(similar.some((h) => h.chunk.symbol === 'formatDistance'));
    assert.ok(similar.every((h) => h.chunk.symbol !== 'formatElevation'), 'the source is excluded');
  });

  it('fuses dense and keyword rankings, says why, and never re-embeds an unchanged chunk', async () => {
    const emb = fakeEmbedder();
    const engine = new Engine({ embedder: emb });
    await drain(engine.indexFolder(dir));
    const total = engine.chunkCount;
    assert.equal(emb.embedded, total);
    const hits = await engine.search('getZoomControl zoom control', { k: 5 });
    assert.ok(hits.some((h) => h.why.keyword && h.why.dense), JSON.stringify(hits.map((h) => h.why)));
    // an edit re-embeds only the chunks whose text changed
    fs.appendFileSync(path.join(dir, 'docs', 'i18n.md'), '\n## Removing a language\n\nDelete its file.\n');
    const before = emb.embedded;
    await drain(engine.indexFolder(dir));
    assert.ok(emb.embedded - before <= 3, `only the changed chunks are embedded again (${emb.embedded - before})`);
    const similar = await engine.similar({ path: 'src/map/zoom.js', line: 5 }, { k: 3 });
    assert.equal(similar.length, 3);
    assert.ok(similar.every((h) => !(h.chunk.path === 'src/map/zoom.js' && h.chunk.start.line <= 5 && h.chunk.end.line >= 5)), 'the source is excluded');
  });

  it('a renamed file and an undone edit cost no embedding; the cache of removed vectors stays bounded and exact', async () => {
    const emb = fakeEmbedder();
    const engine = new Engine({ embedder: emb });
    const put = (rel: string, text: string) => engine.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: Date.now() });
    const embedAll = () => drain(engine.embedPending());
    const original = 'export function alpha() { return 1; }\n';
    put('a.js', original);
    await embedAll();
    const base = emb.embedded;
    // rename: remove + add elsewhere
    engine.removeFile('a.js');
    put('b.js', original);
    await embedAll();
    // the header names the path, so a rename changes the embedded text: expect one embedding, no more
    assert.ok(emb.embedded - base <= 1);
    // edit then undo, while other files reuse the freed rows
    put('b.js', 'export function beta() { return 2; }\n');
    for (let i = 0; i < 20; i++) put(`other${i}.js`, `export function gamma${i}() { return ${i}; }\n`);
    await embedAll();
    const afterEdits = emb.embedded;
    put('b.js', original);
    await embedAll();
    assert.equal(emb.embedded, afterEdits, 'the undone edit got its vector back from the cache');
    const back = engine.vectors!.get(engine.files.get('b.js')!.docIds[0])!;
    const fresh = (await emb.embed([`${engine.chunks.get(engine.files.get('b.js')!.docIds[0])!.header}\n${original.trim()}`]))[0];
    assert.ok(back.every((x, i) => Math.abs(x - fresh[i]) < 1e-6), 'and it is the right vector, though its old row was reused');
    // thousands of edits: the cache never holds more than its limit
    for (let i = 0; i < 5000; i++) {
      put('churn.js', `export const v${i} = ${i};\n`);
      await embedAll();
    }
    assert.equal(engine.cacheLimit, 4096);
    assert.equal(engine.vectorCache.size, 4096, 'full, and no fuller');
  });

  it('saves and loads without re-chunking or re-embedding, and refuses damaged or newer stores', async () => {
    const store = path.join(dir, '.fathom');
    const emb = fakeEmbedder();
    const a = new Engine({ embedder: emb });
    await drain(a.indexFolder(dir));
    saveStore(store, a);
    const emb2 = fakeEmbedder();
    const b = new Engine({ embedder: emb2 });
    assert.deepEqual(loadStore(store, b), { ok: true });
    assert.equal(b.chunkCount, a.chunkCount);
    assert.equal(b.pendingVectors, 0);
    await drain(b.indexFolder(dir));
    assert.equal(emb2.embedded, 0, 'nothing re-embedded after loading');
    const q = 'zoom control (getZoomControl)';
    const ra = (await a.search(q, { k: 5, mode: 'keyword' })).map((h) => h.chunk.id);
    const rb = (await b.search(q, { k: 5, mode: 'keyword' })).map((h) => h.chunk.id);
    assert.deepEqual(rb, ra);

    // truncated data file → refused with the reason, engine left empty
    const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
    const chunksFile = path.join(store, manifest.files.chunks.name);
    fs.truncateSync(chunksFile, 100);
    const c = new Engine({ embedder: fakeEmbedder() });
    const r = loadStore(store, c);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /truncated/);
    assert.equal(c.chunkCount, 0);

    // a newer format version is not trusted
    saveStore(store, a);
    const m2 = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
    fs.writeFileSync(path.join(store, 'manifest.json'), JSON.stringify({ ...m2, version: 99 }));
    const r2 = loadStore(store, new Engine({ embedder: fakeEmbedder() }));
    assert.match((r2 as { reason: string }).reason, /newer/);
    fs.writeFileSync(path.join(store, 'manifest.json'), '{ not json');
    assert.equal(loadStore(store, new Engine()).ok, false);
  });

  it('a store of other chunkers (an older Fathom) answers at once, and the next pass chunks every file again, re-embedding nothing unchanged', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ embedder: fakeEmbedder() });
    await drain(a.indexFolder(dir));
    saveStore(store, a);
    const file = path.join(store, 'manifest.json');
    const manifest = () => JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(manifest().chunking.version, CHUNKER_VERSION);
    for (const version of [undefined, CHUNKER_VERSION + 1]) {
      const m = manifest();
      fs.writeFileSync(file, JSON.stringify({ ...m, chunking: { ...m.chunking, version } }));
      const emb = fakeEmbedder();
      const b = new Engine({ embedder: emb });
      const r = loadStore(store, b);
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.match((r as { note?: string }).note ?? '', version ? new RegExp(`chunkers of version ${version}, not this Fathom's \\(version ${CHUNKER_VERSION}\\): every file is chunked again`) : /an earlier Fathom's chunkers, not this Fathom's/);
      const q = 'zoom control (getZoomControl)';
      const before = (await b.search(q, { k: 3, mode: 'keyword' })).map((h) => h.chunk.id);
      assert.deepEqual(before, (await a.search(q, { k: 3, mode: 'keyword' })).map((h) => h.chunk.id), 'the stored chunks answer before the pass');
      const records = new Map(b.files);
      await drain(b.indexFolder(dir));
      for (const [p, rec] of b.files) {
        assert.notEqual(rec, records.get(p), `${p} chunked again`);
        assert.equal(rec.hash, a.files.get(p)!.hash, `${p}: its hash is the file's again`);
      }
      assert.equal(emb.embedded, 0, 'every vector kept: no chunk text changed');
      assert.equal(b.chunkCount, a.chunkCount);
      // saved again: this version, and a load with no note
      saveStore(store, b);
      assert.deepEqual(loadStore(store, new Engine({ embedder: fakeEmbedder() })), { ok: true });
    }
    const m = manifest();
    fs.writeFileSync(file, JSON.stringify({ ...m, chunking: { ...m.chunking, version: 'two' } }));
    assert.match((loadStore(store, new Engine({ embedder: fakeEmbedder() })) as { reason: string }).reason, /chunking\.version/);
  });

  it('keeps the previous store when a save fails half-way', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
    saveStore(store, a);
    // make the next generation's chunks file impossible to write (a folder in its place)
    const gen = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8')).generation + 1;
    fs.mkdirSync(path.join(store, `chunks.${gen}.bin`));
    assert.throws(() => saveStore(store, a), /previous index is kept/);
    const b = new Engine();
    assert.deepEqual(loadStore(store, b), { ok: true });
    assert.equal(b.chunkCount, a.chunkCount);
  });

  it('a full disk while saving: a clear error, no temp files left, the previous index loads', async () => {
    const store = path.join(dir, '.fathom');
    const a = new Engine({ embedder: fakeEmbedder() });
    await drain(a.indexFolder(dir));
    saveStore(store, a);
    const before = fs.readdirSync(store).sort();
    fs.writeFileSync(path.join(dir, 'docs', 'added.md'), '# Added later\n\nA section written after the first save.\n');
    await drain(a.indexFolder(dir));
    for (const budget of [0, 10, 5_000]) {
      let left = budget;
      const write = (fd: number, data: Uint8Array) => {
        if (data.byteLength > left) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        left -= data.byteLength;
        fs.writeSync(fd, data);
      };
      assert.throws(() => saveStore(store, a, { write }), /disk is full.*previous index is kept/);
      assert.deepEqual(fs.readdirSync(store).sort(), before, `budget ${budget}: only the previous generation remains`);
      const b = new Engine({ embedder: fakeEmbedder() });
      assert.deepEqual(loadStore(store, b), { ok: true });
      assert.ok(!b.files.has('docs/added.md'), 'the previous generation, not a mix');
    }
    saveStore(store, a);
    const c = new Engine({ embedder: fakeEmbedder() });
    assert.deepEqual(loadStore(store, c), { ok: true });
    assert.ok(c.files.has('docs/added.md'));
  });

  it('a real full disk (a 256 KB tmpfs): the save fails cleanly and the stored index stays loadable', async function () {
    const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-full-'));
    const { spawnSync } = await import('node:child_process');
    const mounted = process.platform === 'linux' && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]).status === 0;
    if (!mounted) {
      fs.rmSync(mnt, { recursive: true, force: true });
      this.skip(); // needs root (mount); the injected ENOSPC test above covers the logic everywhere
    }
    try {
      const store = path.join(mnt, 'store');
      const small = new Engine({ noEmbedderReason: 'test' });
      small.updateFile('a.md', Buffer.from('# A\n\nsmall file\n'), { size: 16, mtimeMs: 1 });
      saveStore(store, small);
      const big = new Engine({ noEmbedderReason: 'test' });
      for (let i = 0; i < 60; i++) {
        const text = Array.from({ length: 40 }, (_, j) => `export function f${i}_${j}(a) { return a + ${i * j}; } // padding words ${'x'.repeat(40)}`).join('\n');
        big.updateFile(`src/f${i}.js`, Buffer.from(text), { size: text.length, mtimeMs: 1 });
      }
      assert.throws(() => saveStore(store, big), /disk is full.*previous index is kept/);
      assert.ok(!fs.readdirSync(store).some((f) => f.includes('.tmp-')), 'no temp file left behind');
      const back = new Engine({ noEmbedderReason: 'test' });
      assert.deepEqual(loadStore(store, back), { ok: true });
      assert.deepEqual([...back.files.keys()], ['a.md']);
    } finally {
      spawnSync('umount', [mnt]);
      fs.rmSync(mnt, { recursive: true, force: true });
    }
  });

  it('locks the store against a second writer and takes over a stale lock', () => {
    const store = path.join(dir, '.fathom');
    const release = lockStore(store);
    fs.writeFileSync(path.join(store, 'lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname() }));
    const again = lockStore(store); // the recorded process does not exist: stale
    assert.throws(() => lockStore(store), StoreLockedError);
    again();
    release();
  });

  it('files deleted or made unreadable mid-index are visible skips, and are picked up once readable', async () => {
    const gone = path.join(dir, 'src', 'map', 'zoom.js');
    const locked = path.join(dir, 'docs', 'i18n.md');
    // the fs module object itself (an `import * as` namespace is read-only)
    const nodeFs = createRequire(__filename)('node:fs') as typeof fs;
    const realRead = nodeFs.readFileSync;
    const realStat = nodeFs.statSync;
    const realOpen = nodeFs.openSync;
    const fail = (code: string, file: string) => Object.assign(new Error(`${code}: simulated, open '${file}'`), { code });
    // as root, chmod cannot make a file unreadable: fail the engine's own reads instead
    (nodeFs as { readFileSync: unknown }).readFileSync = (file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
      if (file === locked) throw fail('EACCES', locked);
      return (realRead as (...a: unknown[]) => unknown)(file, ...rest);
    };
    // the read policy opens the file (O_NOFOLLOW) and reads from the descriptor
    (nodeFs as { openSync: unknown }).openSync = (file: fs.PathLike, ...rest: unknown[]) => {
      if (file === locked) throw fail('EACCES', locked);
      return (realOpen as (...a: unknown[]) => unknown)(file, ...rest);
    };
    (nodeFs as { statSync: unknown }).statSync = (file: fs.PathLike, ...rest: unknown[]) => {
      if (file === gone) throw fail('ENOENT', gone);
      return (realStat as (...a: unknown[]) => unknown)(file, ...rest);
    };
    const engine = new Engine();
    try {
      await drain(engine.indexFolder(dir));
    } finally {
      (nodeFs as { readFileSync: unknown }).readFileSync = realRead;
      (nodeFs as { statSync: unknown }).statSync = realStat;
      (nodeFs as { openSync: unknown }).openSync = realOpen;
    }
    assert.equal(engine.files.get('src/map/zoom.js')?.skipped?.reason, 'unreadable');
    assert.match(engine.files.get('src/map/zoom.js')!.skipped!.detail, /ENOENT/);
    assert.equal(engine.files.get('docs/i18n.md')?.skipped?.reason, 'unreadable');
    assert.ok(engine.files.get('README.md')?.docIds.length, 'the other files are indexed');
    assert.ok(!(await engine.search('getZoomControl', { k: 5, mode: 'keyword' })).some((h) => h.chunk.path === 'src/map/zoom.js'));
    await drain(engine.indexFolder(dir));
    assert.ok(!engine.files.get('src/map/zoom.js')?.skipped, 'there again: indexed');
    assert.ok(!engine.files.get('docs/i18n.md')?.skipped, 'readable again (same size and mtime): indexed');
    assert.ok((await engine.search('getZoomControl', { k: 5, mode: 'keyword' })).some((h) => h.chunk.path === 'src/map/zoom.js'));
  });

  it('a heap near its limit: the files left are visible memory skips (not read), the rest is indexed and searchable, and a later run with room indexes them', async () => {
    fs.mkdirSync(path.join(dir, 'gen'));
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(dir, 'gen', `handler${i}.js`), `export function handler${i}(input) {\n  return input * ${i} + offsetOf${i}(input);\n}\n`);
    const engine = new Engine();
    let looks = 0;
    const limit = 1000 << 20;
    // full from the second look on (the first is at the first file read)
    const heap = () => ({ used: looks++ === 0 ? 0 : limit, limit });
    const progress = await drain(engine.indexFolder(dir, { heap }));
    const records = [...engine.files.values()];
    const skipped = records.filter((r) => r.skipped?.reason === 'memory');
    const indexed = records.filter((r) => !r.skipped);
    assert.ok(looks >= 2, `the heap was looked at ${looks} time(s)`);
    assert.equal(indexed.length, MEMORY_CHECK_FILES, 'the files read before the next look are indexed');
    assert.ok(skipped.length > 0 && skipped.length === records.length - indexed.length, `${skipped.length} memory skips of ${records.length}`);
    assert.match(skipped[0].skipped!.detail, /not indexed: the index used 1000 MB of the 1000 MB it may use/);
    assert.ok(skipped.every((r) => r.docIds.length === 0 && r.hash === ''), 'a memory skip was not read');
    assert.match(progress[progress.length - 1].message ?? '', /memory: the files left are not indexed/);
    for (const r of indexed) assert.ok(r.docIds.length > 0 || r.language === 'plaintext', `${r.path} indexed`);
    const first = indexed[0];
    const chunk = engine.chunks.get(first.docIds[0])!;
    assert.ok((await engine.search(chunk.text.split(/\W+/).filter((w) => w.length > 4)[0] ?? chunk.path, { k: 50, mode: 'keyword' })).some((h) => h.chunk.path === first.path));
    // the next run has room: the skipped files (same size and mtime) are read now
    await drain(engine.indexFolder(dir, { heap: () => ({ used: 0, limit }) }));
    assert.ok([...engine.files.values()].every((r) => r.skipped?.reason !== 'memory'));
    for (const r of skipped) assert.ok(engine.files.get(r.path)!.hash !== '', `${r.path} read on the run with room`);
    assert.ok(engine.files.get('gen/handler59.js')?.docIds.length || engine.files.get('gen/handler0.js')?.docIds.length);
    assert.ok((await engine.search('handler59', { k: 5, mode: 'keyword' })).some((h) => h.chunk.path === 'gen/handler59.js'));
  });

  it('answers bad queries without throwing', async () => {
    const engine = new Engine();
    await drain(engine.indexFolder(dir));
    for (const q of ['', '   ', '.*+?()[]{}|\\^$', 'x'.repeat(100_000), '\u0000\uFFFF', '中文 😀']) {
      const hits = await engine.search(q, { k: 5 });
      assert.ok(Array.isArray(hits));
    }
  });
});

describe('Engine: Find Similar', () => {
  const put = (engine: Engine, rel: string, text: string) => engine.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
  const fn = (name: string, body: string) => `export function ${name}(items) {\n${body}\n}\n`;
  const zoomBody = '  const zoom = items.map((item) => item.zoomLevel * 2);\n  return zoom.filter((level) => level > 3 && level < 18);';

  async function withFiles(embedder?: Embedder): Promise<Engine> {
    const engine = new Engine(embedder ? { embedder, chunk: { maxTokens: 64 } } : { noEmbedderReason: 'test', chunk: { maxTokens: 64 } });
    put(engine, 'src/a.js', fn('zoomLevels', zoomBody));
    put(engine, 'src/b.js', fn('zoomLevelsAgain', zoomBody.replace('* 2', '* 3')));
    put(engine, 'src/c.js', fn('unrelatedGreeting', '  return `Good morning, ${items.join(" and ")}! The weather is lovely today.`;'));
    // one long function, cut into pieces under 64 tokens
    put(engine, 'src/long.js', fn('longZoom', Array.from({ length: 12 }, (_, i) => `  const zoom${i} = items.map((item) => item.zoomLevel * ${i});`).join('\n')));
    put(engine, 'docs/guide.md', '# Guide\n\nZoom levels between 3 and 18 are kept.\n\n```js\nconst zoom = items.map((item) => item.zoomLevel * 2);\n```\n');
    if (embedder) await drain(engine.embedPending());
    return engine;
  }

  /** Vectors by topic (zoom, greeting, anything else), so cosines are known: same topic ≈ 1, other ≈ 0. */
  const topicEmbedder: Embedder = {
    id: 'fake-topic',
    dims: 3,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = new Float32Array([(t.match(/zoom/gi) ?? []).length, (t.match(/greet|morning|weather/gi) ?? []).length, 0.1]);
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      });
    },
    async dispose() {},
  };

  for (const mode of ['vectors', 'keyword-only'] as const) {
    it(`${mode}: never lists the source, its pieces or overlapping chunks; unrelated chunks stay under the floor`, async () => {
      const engine = await withFiles(mode === 'vectors' ? topicEmbedder : undefined);
      const pieces = engine.files.get('src/long.js')!.docIds.map((id) => engine.chunks.get(id)!).filter((c) => c.split);
      assert.ok(pieces.length >= 2, 'the long function was cut');
      const fromPiece = await engine.similar({ chunkId: pieces[0].id }, { k: 20 });
      assert.ok(!fromPiece.some((h) => h.chunk.path === 'src/long.js'), `no piece of longZoom: ${fromPiece.map((h) => `${h.chunk.path}:${h.chunk.start.line}`).join(', ')}`);

      const similar = await engine.similar({ path: 'src/a.js', line: 2 }, { k: 20 });
      const paths = similar.map((h) => h.chunk.path);
      assert.ok(!paths.includes('src/a.js'), 'the source is not listed');
      assert.equal(paths[0], 'src/b.js', `the near copy comes first: ${paths.join(', ')}`);
      assert.ok(!paths.includes('src/c.js'), `the unrelated function is under the floor: ${JSON.stringify(similar.map((h) => [h.chunk.path, h.score]))}`);
      // with no floor at all, the unrelated one is there: the floor, not the ranking, left it out
      const all = await engine.similar({ path: 'src/a.js', line: 2 }, { k: 20, minScore: -1, minShare: 0 });
      assert.ok(all.some((h) => h.chunk.path === 'src/c.js'), 'without a floor the unrelated chunk is listed');

      // a section and its code block are one another's own pieces
      const fromCode = await engine.similar({ path: 'docs/guide.md', line: 6 }, { k: 20, minScore: -1, minShare: 0 });
      assert.ok(!fromCode.some((h) => h.chunk.path === 'docs/guide.md'), `no chunk of the same section: ${fromCode.map((h) => `${h.chunk.path}:${h.chunk.start.line}-${h.chunk.end.line}`).join(', ')}`);

      // a selection: the chunk it came from is left out, the copy elsewhere is found
      const sel = await engine.similar({ text: zoomBody, path: 'src/a.js', startLine: 2, endLine: 3 }, { k: 20 });
      assert.ok(!sel.some((h) => h.chunk.path === 'src/a.js'), 'not the selection itself');
      assert.ok(sel.some((h) => h.chunk.path === 'src/b.js'), 'its near copy');
      assert.deepEqual(await engine.similar({ text: '   ' }), [], 'a blank selection finds nothing');
    });
  }
});
