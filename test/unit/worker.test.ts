/**
 * The worker thread through its client, as the extension uses it: runs the worker built
 * from the current source (test/helpers/worker-build.ts), never a stale dist/ bundle.
 *
 * Superseded searches: the older search's promise REJECTS with a `CancelledError`
 * (`err.cancelled === true`); it never resolves.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancelledError, IndexClient, WorkerCrashedError, type CrashEvent } from '../../src/service/client';
import type { ProgressEvent, WorkerStatus } from '../../src/service/protocol';
import { currentWorker } from '../helpers/worker-build';

const WORKER = currentWorker();
const SAMPLE = path.join(__dirname, '../../sample-workspace');
const TINY = path.join(__dirname, '../fixtures/models/fathom-tiny-bert');
const ZOOM_QUERY = 'zoom control (getZoomControl)';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function copySample(to: string): void {
  fs.cpSync(SAMPLE, to, { recursive: true, filter: (src) => path.basename(src) !== '.fathom' });
}

/** A folder big enough that indexing it takes several progress steps. */
function makeBigFolder(dir: string, files: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) {
    const fns = Array.from({ length: 8 }, (_, j) => `export function handler${i}_${j}(input) {\n  const value = input * ${j} + ${i};\n  if (value > 10) return compute${j}(value);\n  return value - ${i};\n}\n`).join('\n');
    fs.writeFileSync(path.join(dir, `file${i}.js`), `// generated file ${i}\n${fns}`);
  }
}

describe('worker (worker built from the current source, through IndexClient)', function () {
  let tmp: string;
  let ws: string;
  let store: string;
  let client: IndexClient;
  const progress: ProgressEvent[] = [];
  const statuses: WorkerStatus[] = [];
  const crashes: CrashEvent[] = [];

  before(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-worker-'));
    ws = path.join(tmp, 'ws');
    store = path.join(tmp, 'store');
    copySample(ws);
    client = new IndexClient(WORKER, { initialBackoffMs: 50 });
    client.onProgress((e) => progress.push(e));
    client.onStatus((s) => statuses.push(s));
    client.onCrash((c) => crashes.push(c));
  });

  after(async function () {
    await client?.dispose();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('init with a missing model folder runs keyword-only and says why', async function () {
    const st = await client.init({ embedder: { localModelPath: path.join(tmp, 'no-such-model') } });
    assert.equal(st.initialized, true);
    assert.equal(st.model, undefined);
    assert.match(st.keywordOnlyReason ?? '', /does not exist/);
    assert.match((await client.status()).keywordOnlyReason ?? '', /no-such-model/);
  });

  it('index emits progress ending in done and reports counts', async function () {
    progress.length = 0;
    const r = await client.index(ws, store);
    assert.ok(r.files > 5, `files ${r.files}`);
    assert.ok(r.chunks > r.files, `chunks ${r.chunks}`);
    assert.equal(r.vectors, 0);
    assert.equal(r.loaded, false);
    const mine = progress.filter((p) => p.root === path.resolve(ws));
    assert.ok(mine.length >= 2, 'progress events');
    assert.equal(mine[mine.length - 1].progress.phase, 'done');
    assert.ok(mine.some((p) => p.progress.phase === 'chunk' && p.progress.filesTotal === p.progress.filesDone));
    assert.ok(fs.existsSync(path.join(store, 'manifest.json')), 'saved');
    const st = await client.status();
    assert.equal(st.folders[0].chunks, r.chunks);
    assert.ok(statuses.length > 0, 'status events pushed');
  });

  it('search finds the zoom control', async function () {
    const hits = await client.search(ZOOM_QUERY, { k: 5 });
    assert.ok(hits.length > 0);
    assert.equal(hits[0].chunk.path, 'src/map/zoom.js');
    assert.equal(hits[0].root, path.resolve(ws));
    assert.ok(hits[0].why.keyword);
  });

  it('several folders: one scale, each folder weighed by how much of the query its best hit holds', async function () {
    const other = path.join(tmp, 'pan');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'pan.js'), 'export function panTo (map, x, y) {\n  map.setCenter(x, y)\n}\n');
    await client.index(other, path.join(tmp, 'store-pan'));
    try {
      const hits = await client.search('panTo map center', { k: 5 });
      assert.deepEqual([hits[0].root, hits[0].chunk.path, hits[0].score], [path.resolve(other), 'pan.js', 1]);
      // the sample's best hit holds "map" alone of the query: weighed down, after the folder that holds it all
      const sample = hits.filter((h) => h.root === path.resolve(ws));
      assert.ok(sample.length > 0 && sample.every((h) => h.score < 0.5), JSON.stringify(hits.map((h) => [h.chunk.path, h.score])));
    } finally {
      await client.close(other);
    }
  });

  it('update makes new text searchable at once (bytes given, and read from disk)', async function () {
    const text = 'export function frobnicateWidgets(list) {\n  return list.map((w) => w.frobnicate());\n}\n';
    fs.writeFileSync(path.join(ws, 'src/frob.js'), text);
    const t0 = process.hrtime.bigint();
    const u = await client.update(ws, [{ rel: 'src/frob.js', bytes: new TextEncoder().encode(text) }]);
    const hits = await client.search('frobnicateWidgets', { k: 3 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(`      update → searchable in ${ms.toFixed(1)} ms`);
    assert.equal(u.changed, 1);
    assert.equal(hits[0]?.chunk.path, 'src/frob.js');

    fs.writeFileSync(path.join(ws, 'src/frob.js'), text.replace(/frobnicateWidgets/g, 'defrobulateGadgets'));
    await client.update(ws, [{ rel: 'src/frob.js' }]);
    assert.equal((await client.search('defrobulateGadgets', { k: 3 }))[0]?.chunk.path, 'src/frob.js');
    assert.ok(!(await client.search('frobnicateWidgets', { k: 3 })).some((h) => h.chunk.path === 'src/frob.js' && h.chunk.text.includes('frobnicateWidgets')));
  });

  it('remove makes a file vanish; deleted in update too', async function () {
    const r = await client.remove(ws, ['src/map/zoom.js']);
    assert.equal(r.changed, 1);
    assert.ok(!(await client.search(ZOOM_QUERY, { k: 10 })).some((h) => h.chunk.path === 'src/map/zoom.js'));
    await client.update(ws, [{ rel: 'src/map/zoom.js' }]); // back, read from disk
    assert.equal((await client.search(ZOOM_QUERY, { k: 5 }))[0].chunk.path, 'src/map/zoom.js');
    fs.rmSync(path.join(ws, 'src/frob.js'));
    assert.equal((await client.update(ws, [{ rel: 'src/frob.js', deleted: true }])).changed, 1);
    assert.ok(!(await client.search('defrobulateGadgets', { k: 3 })).some((h) => h.chunk.path === 'src/frob.js'));
  });

  it('a search superseded by a newer one rejects with CancelledError', async function () {
    const first = client.search('zoom', { k: 5 });
    const second = client.search(ZOOM_QUERY, { k: 5 });
    await assert.rejects(first, (e: unknown) => e instanceof CancelledError && e.cancelled);
    assert.equal((await second)[0].chunk.path, 'src/map/zoom.js');
  });

  it('pause holds an index run between steps, resume lets it finish', async function () {
    const big = path.join(tmp, 'big1');
    makeBigFolder(big, 400);
    progress.length = 0;
    const run = client.index(big, path.join(tmp, 'store-big1'));
    await waitFor('first progress', () => progress.some((p) => p.root === big));
    const st = await client.pause();
    assert.equal(st.paused, true);
    const n = progress.filter((p) => p.root === big).length;
    await sleep(400);
    assert.ok(progress.filter((p) => p.root === big).length <= n + 1, 'no progress while paused');
    assert.equal((await client.status()).folders.find((f) => f.root === big)?.indexing, true);
    // searches are served while the run is paused
    assert.equal((await client.search(ZOOM_QUERY, { k: 3, roots: [ws] }))[0].chunk.path, 'src/map/zoom.js');
    assert.equal((await client.resume()).paused, false);
    const r = await run;
    assert.equal(r.files, 400);
    const mine = progress.filter((p) => p.root === big);
    assert.equal(mine[mine.length - 1].progress.phase, 'done');
  });

  it('cancel stops an index run', async function () {
    const big = path.join(tmp, 'big2');
    makeBigFolder(big, 400);
    progress.length = 0;
    const ac = new AbortController();
    const run = client.index(big, path.join(tmp, 'store-big2'), { signal: ac.signal });
    await waitFor('first progress', () => progress.some((p) => p.root === big));
    ac.abort();
    await assert.rejects(run, (e: unknown) => e instanceof CancelledError);
    // the client rejects at once; the worker stops at its next checkpoint and saves what it did
    await waitFor('run stopped', async () => ((await client.status()).folders.find((x) => x.root === big)?.indexing === false ? true : undefined));
    assert.ok(!progress.some((p) => p.root === big && p.progress.phase === 'done'), 'no done after cancel');
  });

  it('a crashed worker restarts and serves searches from the store (crash message, then terminate)', async function () {
    // a request pending at the crash rejects with a clear error: a paused index run
    const before = crashes.length;
    const big = path.join(tmp, 'big3');
    makeBigFolder(big, 200);
    await client.pause();
    const pendingIndex = client.index(big, path.join(tmp, 'store-big3'));
    await waitFor('big3 indexing', async () => (await client.status()).folders.some((f) => f.root === big) || undefined);
    client.crashForTest();
    await assert.rejects(pendingIndex, (e: unknown) => e instanceof WorkerCrashedError && /crash requested/.test(e.message));
    await waitFor('crash event', () => crashes.length > before);
    assert.equal(crashes[before].gaveUp, false);
    assert.equal(crashes[before].restartInMs, 50);
    const hits = await client.search(ZOOM_QUERY, { k: 5, roots: [ws] });
    assert.equal(hits[0].chunk.path, 'src/map/zoom.js');
    // the re-sent index of big3 (its lock, left by the dead thread, was reclaimed) finishes
    await waitFor('big3 re-indexed', async () => (await client.status()).folders.find((f) => f.root === big && !f.indexing && f.files === 200) ? true : undefined);
    const st = await client.status();
    assert.match(st.keywordOnlyReason ?? '', /no-such-model/, 'init was re-sent');

    // killed behind the client's back
    await client.workerForTest!.terminate();
    await waitFor('second crash event', () => crashes.length > before + 1);
    assert.equal(crashes[before + 1].restartInMs, 100, 'backoff doubles');
    const again = await client.search(ZOOM_QUERY, { k: 5, roots: [ws] });
    assert.equal(again[0].chunk.path, 'src/map/zoom.js');
  });

  it('close (a folder left the workspace) stops its run, saves, releases its lock and forgets it', async function () {
    const big = path.join(tmp, 'big4');
    const bigStore = path.join(tmp, 'store-big4');
    makeBigFolder(big, 300);
    progress.length = 0;
    const run = client.index(big, bigStore).then(() => 'finished', (e: unknown) => e);
    await waitFor('first progress', () => progress.some((p) => p.root === big));
    assert.ok(fs.existsSync(path.join(bigStore, 'lock')));
    assert.deepEqual(await client.close(big), { closed: true });
    const ended = await run;
    assert.ok(ended instanceof Error && /closed|cancelled/.test(ended.message), String(ended));
    assert.ok(!fs.existsSync(path.join(bigStore, 'lock')), 'lock released');
    assert.ok(fs.readdirSync(bigStore).some((n) => n.startsWith('catalog.')), 'what was indexed was saved');
    assert.ok(!(await client.status()).folders.some((f) => f.root === big), 'no longer open');
    await assert.rejects(client.files(big), /not open/);
    assert.deepEqual(await client.close(big), { closed: false });
    // the other folder is untouched
    assert.equal((await client.search(ZOOM_QUERY, { k: 5, roots: [ws] }))[0].chunk.path, 'src/map/zoom.js');
  });

  it('dispose saves, releases the store lock and ends the worker', async function () {
    await client.update(ws, [{ rel: 'docs/extra.md', bytes: new TextEncoder().encode('# Extra\n\nsnorkelwhale notes\n') }]);
    const w = client.workerForTest!;
    const exited = new Promise<number>((r) => w.once('exit', r));
    await client.dispose();
    await exited;
    assert.ok(!fs.existsSync(path.join(store, 'lock')), 'lock released');
    const catalog = fs.readdirSync(store).find((n) => n.startsWith('catalog.'))!;
    assert.ok(fs.readFileSync(path.join(store, catalog), 'utf8').includes('docs/extra.md'), 'saved on dispose');
    await assert.rejects(client.status(), /disposed/);
  });
});

describe('worker with the tiny model (hybrid)', function () {
  it('computes vectors and answers with why.dense', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-worker-tiny-'));
    const ws = path.join(tmp, 'ws');
    copySample(ws);
    const client = new IndexClient(WORKER);
    try {
      const embedProgress: ProgressEvent[] = [];
      client.onProgress((e) => e.progress.phase === 'embed' && embedProgress.push(e));
      const st = await client.init({ embedder: { localModelPath: TINY, threads: 1 } });
      assert.equal(st.keywordOnlyReason, undefined, st.keywordOnlyReason);
      assert.match(st.model ?? '', /fathom-tiny-bert/);
      const r = await client.index(ws, path.join(tmp, 'store'));
      assert.ok(r.vectors > 0 && r.vectors === r.chunks, `vectors ${r.vectors} of ${r.chunks}`);
      assert.equal(r.pendingVectors, 0);
      assert.ok(embedProgress.length > 0, 'embed progress');
      const hits = await client.search(ZOOM_QUERY, { k: 10 });
      const kw = await client.search(ZOOM_QUERY, { k: 5, mode: 'keyword' });
      console.log(`      keyword top 3: ${kw.slice(0, 3).map((h) => h.chunk.path).join('; ')}`);
      console.log(`      hybrid top 3: ${hits.slice(0, 3).map((h) => `${h.chunk.path} ${JSON.stringify(h.why)}`).join('; ')}`);
      assert.ok(hits.some((h) => h.why.dense), 'a hit ranked by the dense list');
      // the tiny test model's dense ranking is noise-level; the keyword side keeps zoom.js near the top
      assert.ok(hits.slice(0, 3).some((h) => h.chunk.path === 'src/map/zoom.js'));
      // update: keyword at once, vectors in the background
      await client.update(ws, [{ rel: 'src/tiny-new.js', bytes: new TextEncoder().encode('export function pelicanBriefcase() { return 42; }\n') }]);
      assert.equal((await client.search('pelicanBriefcase', { k: 3, mode: 'keyword' }))[0]?.chunk.path, 'src/tiny-new.js');
      await waitFor('background vectors', async () => ((await client.status()).folders[0].pendingVectors === 0 ? true : undefined));
      const sim = await client.similar(ws, { path: 'src/map/zoom.js', line: 1 }, { k: 3 });
      assert.ok(sim.length > 0);
    } finally {
      await client.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
