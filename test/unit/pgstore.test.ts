import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Engine } from '../../src/index/engine';
import { connectPg, migrate, pgSearch, PG_SCHEMA_VERSION, pushFolder, searchWithOverlay } from '../../src/index/pgstore';
import { mineGold } from '../../src/eval/mine';
import { fakeEmbedder } from '../helpers/fake-embedder';

/** A deterministic fake embedder (bag of character trigrams), as in engine.test.ts. */

const REPO = path.join(__dirname, '..', '..');

function copyTree(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

const key = (h: { chunk: { path: string; start: { line: number } } }) => `${h.chunk.path}:${h.chunk.start.line}`;

async function freshDb(): Promise<PGlite> {
  const db = await PGlite.create({ extensions: { vector } });
  return db;
}

describe('PostgreSQL team index (PGlite with pgvector)', function () {
  this.timeout(600_000);
  let db: PGlite;
  let work: string;

  before(async () => {
    db = await freshDb();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pg-'));
    // real code: the search core and the chunkers of this repository
    copyTree(path.join(REPO, 'src', 'index'), path.join(work, 'ws', 'index'));
    copyTree(path.join(REPO, 'src', 'chunkers'), path.join(work, 'ws', 'chunkers'));
    copyTree(path.join(REPO, 'sample-workspace'), path.join(work, 'ws', 'sample'));
  });
  after(async () => {
    await db?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('migrates a fresh database to the current schema once, and refuses a newer schema', async () => {
    const scratch = await freshDb();
    try {
      assert.deepEqual(await migrate(scratch), { from: 0, to: PG_SCHEMA_VERSION });
      assert.deepEqual(await migrate(scratch), { from: PG_SCHEMA_VERSION, to: PG_SCHEMA_VERSION });
      await scratch.query("update fathom_meta set value = '99' where key = 'schema_version'");
      await assert.rejects(migrate(scratch), /schema version 99, newer than this Fathom's/);
      await scratch.query("update fathom_meta set value = 'x' where key = 'schema_version'");
      await assert.rejects(migrate(scratch), /unreadable schema version/);
    } finally {
      await scratch.close();
    }
  });

  it('pushes a folder, then pushes only what changed (by content hash), and gives the local store’s results', async () => {
    const ws = path.join(work, 'ws');
    const emb = fakeEmbedder();
    const first = await pushFolder(db, ws, { embedder: emb });
    assert.ok(first.written > 20 && first.chunks > 100, JSON.stringify(first));
    assert.equal(first.unchanged, 0);
    const n = (await db.query<{ n: number }>('select count(*)::int as n from fathom_chunks')).rows[0].n;
    assert.equal(n, first.chunks);
    const embeddedFirst = emb.embedded;
    assert.ok(embeddedFirst <= first.chunks, 'a text shared by two chunks is embedded once');

    const again = await pushFolder(db, ws, { embedder: emb });
    assert.equal(again.written, 0);
    assert.equal(again.unchanged, first.files);
    assert.equal(emb.embedded, embeddedFirst, 'nothing re-embedded');

    // the local engine on the same folder and embedder
    const local = new Engine({ embedder: emb });
    for await (const _ of local.indexFolder(ws)) void _;
    assert.equal(local.chunkCount, first.chunks, 'the same chunks');
    const gold = mineGold(local).slice(0, 60);
    assert.ok(gold.length >= 30, `${gold.length} mined queries`);
    let top1 = 0;
    let found = 0;
    let denseOverlap = 0;
    let hybridOverlap = 0;
    for (const g of gold) {
      const remoteK = await pgSearch(db, g.query, { k: 10, mode: 'keyword' });
      const localK = await local.search(g.query, { k: 10, mode: 'keyword', diversify: false });
      if (remoteK[0] && localK[0] && key(remoteK[0]) === key(localK[0])) top1++;
      if (remoteK.slice(0, 5).some((h) => h.chunk.path === g.file)) found++;
      const remoteD = await pgSearch(db, g.query, { k: 10, mode: 'dense', embedder: emb });
      const localD = await local.search(g.query, { k: 10, mode: 'dense', diversify: false });
      const ld = new Set(localD.map(key));
      denseOverlap += remoteD.filter((h) => ld.has(key(h))).length / Math.max(1, localD.length);
      const remoteH = await pgSearch(db, g.query, { k: 10, embedder: emb });
      const localH = new Set((await local.search(g.query, { k: 10, diversify: false })).map(key));
      hybridOverlap += remoteH.filter((h) => localH.has(key(h))).length / Math.max(1, localH.size);
    }
    const q = gold.length;
    // dense: pgvector HNSW against the local exact scan (undiversified: the remote side neither folds
    // locales nor caps chunks per file), on the same vectors. HNSW is approximate, its graph random
    // per build, and the 64-dim trigram vectors hold exact ties cut at rank 10 differently
    assert.ok(denseOverlap / q >= 0.9, `dense overlap@10 ${(denseOverlap / q).toFixed(3)}`);
    // keyword: ts_rank is not BM25F, but the right file is found and mostly ranked first alike
    assert.ok(found / q >= 0.9, `remote keyword hit@5 ${(found / q).toFixed(3)}`);
    assert.ok(top1 / q >= 0.6, `keyword top-1 agreement ${(top1 / q).toFixed(3)}`);
    assert.ok(hybridOverlap / q >= 0.5, `hybrid overlap@10 ${(hybridOverlap / q).toFixed(3)}`);
    await local.embedder?.dispose();
  });

  it('an edited file is re-pushed alone, a deleted one leaves; unpushed edits are overlaid from the folder', async () => {
    const ws = path.join(work, 'ws');
    const emb = fakeEmbedder();
    await pushFolder(db, ws, { embedder: emb });
    const file = path.join(ws, 'sample', 'src', 'map', 'zoom.js');
    fs.appendFileSync(file, '\nexport function quuxFrobnicate() { return 42; }\n');
    // not pushed yet: the remote index does not know the word, the overlay does
    assert.equal((await pgSearch(db, 'quuxFrobnicate', { k: 5, mode: 'keyword' })).length, 0);
    const over = await searchWithOverlay(db, ws, 'quuxFrobnicate', { k: 5, mode: 'keyword' });
    assert.deepEqual(over.dirty, ['sample/src/map/zoom.js']);
    assert.equal(over.hits[0]?.chunk.path, 'sample/src/map/zoom.js');
    assert.ok(over.hits[0].chunk.text.includes('quuxFrobnicate'));
    // a file deleted locally: its remote chunks are left out of overlaid answers
    const gone = path.join(ws, 'sample', 'docs', 'i18n.md');
    const goneText = fs.readFileSync(gone, 'utf8');
    const word = 'i18n';
    assert.ok((await pgSearch(db, word, { k: 50, mode: 'keyword' })).some((h) => h.chunk.path === 'sample/docs/i18n.md'));
    fs.rmSync(gone);
    const over2 = await searchWithOverlay(db, ws, word, { k: 50, mode: 'keyword' });
    assert.ok(over2.dirty.includes('sample/docs/i18n.md'));
    assert.ok(!over2.hits.some((h) => h.chunk.path === 'sample/docs/i18n.md'));

    const before = emb.embedded;
    const s = await pushFolder(db, ws, { embedder: emb });
    assert.equal(s.written, 1);
    assert.equal(s.removed, 1);
    assert.ok(s.reused > 0 && s.embedded < s.chunks, `only the changed chunks are embedded: ${JSON.stringify(s)}`);
    assert.equal(emb.embedded - before, s.embedded);
    const hit = await pgSearch(db, 'quuxFrobnicate', { k: 5, mode: 'keyword' });
    assert.equal(hit[0]?.chunk.path, 'sample/src/map/zoom.js');
    assert.equal((await db.query<{ n: number }>("select count(*)::int as n from fathom_files where path = 'sample/docs/i18n.md'")).rows[0].n, 0);
    fs.writeFileSync(gone, goneText);
  });

  it('refuses vectors of another model instead of mixing them', async () => {
    const other = { ...fakeEmbedder(), id: 'another-model' };
    await assert.rejects(pushFolder(db, path.join(work, 'ws'), { embedder: other }), /holds vectors of fake-trigram, not another-model/);
  });

  it('over TCP with the pg client: the same answers, and two writers at once leave one consistent index', async () => {
    const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 4 });
    await server.start();
    const url = `postgres://postgres@${server.getServerConn()}/postgres`;
    const a = await connectPg(url);
    const b = await connectPg(url);
    try {
      const emb = fakeEmbedder();
      const viaTcp = await pgSearch(a, 'rrf fusion', { k: 10, embedder: emb });
      const inProcess = await pgSearch(db, 'rrf fusion', { k: 10, embedder: emb });
      assert.ok(viaTcp.length > 0);
      assert.deepEqual(viaTcp.map(key), inProcess.map(key));
      // two writers push two different edits of the folder at once
      const ws = path.join(work, 'ws');
      fs.appendFileSync(path.join(ws, 'index', 'fusion.ts'), '\n// writerAlphaMarker\n');
      fs.appendFileSync(path.join(ws, 'index', 'vectors.ts'), '\n// writerBetaMarker\n');
      const [sa, sb] = await Promise.all([pushFolder(a, ws, { embedder: emb }), pushFolder(b, ws, { embedder: emb })]);
      assert.equal(sa.written + sb.written >= 2, true, 'both edits written');
      const files = (await a.query<{ n: number }>('select count(*)::int as n from fathom_files')).rows[0].n;
      const local = new Engine({ embedder: emb });
      for await (const _ of local.indexFolder(ws)) void _;
      assert.equal(files, local.files.size);
      const chunks = (await a.query<{ n: number }>('select count(*)::int as n from fathom_chunks')).rows[0].n;
      assert.equal(chunks, local.chunkCount, 'no file written twice or half');
      for (const w of ['writerAlphaMarker', 'writerBetaMarker']) assert.equal((await pgSearch(b, w, { k: 1, mode: 'keyword' }))[0]?.chunk.path.startsWith('index/'), true, w);
    } finally {
      await a.end();
      await b.end();
      await server.stop();
    }
  });

  it('the CLI: `index <dir> --store postgres://…` pushes, `search --store postgres://…` answers from it', async () => {
    const bin = path.join(REPO, 'bin', 'fathom.js');
    assert.ok(fs.existsSync(path.join(REPO, 'dist', 'cli.js')), 'dist/cli.js is built (npm test builds it)');
    const scratch = await freshDb();
    const server = new PGLiteSocketServer({ db: scratch, port: 0, host: '127.0.0.1', maxConnections: 2 });
    await server.start();
    const url = `postgres://postgres:pw@${server.getServerConn()}/postgres`;
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [bin, ...args], { env: { ...process.env, FATHOM_MODEL_PATH: '' } }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
      });
    try {
      const ws = path.join(work, 'ws', 'sample');
      const pushed = await cli('index', ws, '--store', url, '--no-embed');
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.match(pushed.stdout, /pushed \d+ changed files \(0 unchanged, 0 removed\), \d+ chunks written, keyword-only/);
      assert.ok(!pushed.stdout.includes(':pw@'), 'the password is not printed');
      const again = await cli('index', ws, '--store', url, '--no-embed');
      assert.match(again.stdout, /pushed 0 changed files/);
      const found = await cli('search', 'zoom control', '--dir', ws, '--store', url, '--no-embed', '--json');
      assert.equal(found.code, 0, found.stderr);
      const hits = found.stdout.trim().split('\n').map((l) => JSON.parse(l) as { file: string });
      assert.ok(hits.length > 0 && hits.some((h) => h.file === 'src/components/KZoomControl.vue'), found.stdout);
      const empty = await cli('search', 'anything', '--dir', path.join(work, 'ws', 'index'), '--store', `postgres://postgres@${server.getServerConn()}/postgres`, '--no-embed');
      assert.equal(empty.code, 0, 'a folder searched against another folder\'s index still answers (all its files are local edits)');
    } finally {
      await server.stop();
      await scratch.close();
    }
  });

  it('a server that is not there is a clear error naming the URL without its password', async () => {
    await assert.rejects(connectPg('postgres://me:secret@127.0.0.1:1/db'), (err: Error) => /cannot connect to postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/db/.test(err.message) && !err.message.includes('secret'));
  });
});
