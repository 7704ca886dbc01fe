import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { connectPg, pgSearch, pgStatus, pushFolder, type PgConnection, type Sql } from '../../src/index/pgstore';
import { mineGold } from '../../src/eval/mine';
import { Engine } from '../../src/index/engine';
import { loadStaticModel } from '../../src/index/static-model';
import { plainWordsQueries } from '../helpers/plain-queries';
import { agreement, hitKey as key } from '../helpers/agreement';
import { MemoryFileSource } from '../../src/workspace/source';
import { pgBin, startRealPg, type RealPg } from '../helpers/real-pg';

/** The team index against a real PostgreSQL server (Debian's package), without pgvector. */
const REPO = path.join(__dirname, '..', '..');

describe('team index on a real PostgreSQL server', function () {
  this.timeout(120_000);
  const bin = pgBin();
  let server: RealPg | undefined;
  let ws = '';

  before(async function () {
    if (!bin) {
      console.warn('    SKIPPED: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
      this.skip();
    }
    server = await startRealPg(bin!);
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgws-'));
    fs.writeFileSync(path.join(ws, 'billing.ts'), 'export function computeInvoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n');
    fs.writeFileSync(path.join(ws, 'users.py'), 'def load_user_profile(uid):\n    return {"id": uid}\n');
  });
  after(() => {
    server?.remove();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  it('pushes and answers keyword search with no extension installed', async () => {
    const db: PgConnection = await connectPg(server!.url);
    try {
      const ext = await db.query<{ n: number }>("select count(*)::int as n from pg_available_extensions where name = 'vector'");
      assert.equal(ext.rows[0].n, 0, 'this server must lack pgvector for the test to mean anything');
      const s = await pushFolder(db, ws);
      assert.equal(s.files, 2);
      const hits = await pgSearch(db, 'computeInvoiceTotal', { k: 5, mode: 'keyword' });
      assert.equal(hits[0]?.chunk.path, 'billing.ts');
    } finally {
      await db.end();
    }
  });

  it('queries asked at once on one connection run one after another, in order, with no deprecation warning from the pg client', () => {
    // its own process: the pg client warns once per process, and another test may have made it warn already
    const script = `
      const { connectPg } = require(${JSON.stringify(path.join(REPO, 'src/index/pgstore.ts'))});
      (async () => {
        const db = await connectPg(${JSON.stringify(server!.url)});
        const got = await Promise.all([1, 2, 3].map((i) => db.query('select $1::int as i, pg_sleep(0.05)', [i]).then((r) => r.rows[0].i)));
        console.log(JSON.stringify(got));
        await db.end();
      })();`;
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim()), [1, 2, 3]);
    assert.doesNotMatch(run.stderr, /DeprecationWarning/);
  });

  it('a file with a NUL byte past its first 8 KB is named and left out; the rest is pushed', async () => {
    const db: PgConnection = await connectPg(server!.url);
    const nul = path.join(ws, 'late-nul.ts');
    try {
      fs.writeFileSync(nul, `${'// padding line for the sniffed prefix\n'.repeat(300)}const marker = "a\u0000b";\n`);
      fs.writeFileSync(path.join(ws, 'orders.ts'), 'export function shipPendingOrders() { return 1; }\n');
      const s = await pushFolder(db, ws);
      assert.deepEqual(s.skippedFiles?.map((f) => f.path), ['late-nul.ts']);
      assert.match(s.skippedFiles![0].reason, /NUL/);
      const hits = await pgSearch(db, 'shipPendingOrders', { k: 5, mode: 'keyword' });
      assert.equal(hits[0]?.chunk.path, 'orders.ts');
    } finally {
      fs.rmSync(nul, { force: true });
      fs.rmSync(path.join(ws, 'orders.ts'), { force: true });
      await db.end();
    }
  });

  it('a push with vectors stores int8 codes without pgvector; dense and hybrid agree with the local store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgdense-'));
    fs.cpSync(path.join(REPO, 'src', 'index'), path.join(dir, 'index'), { recursive: true });
    fs.cpSync(path.join(REPO, 'sample-workspace'), path.join(dir, 'sample'), { recursive: true });
    const admin = await connectPg(server!.url);
    await admin.query('create database dense_one');
    await admin.end();
    const db: PgConnection = await connectPg(server!.url.replace(/\/postgres$/, '/dense_one'));
    const loaded = loadStaticModel();
    if ('error' in loaded) throw new Error(loaded.error);
    const emb = loaded.embedder;
    const local = new Engine({ embedder: emb });
    try {
      const s = await pushFolder(db, dir, { embedder: emb });
      assert.ok(s.chunks > 100 && s.embedded > 0, JSON.stringify(s));
      const st = await pgStatus(db);
      assert.equal(st.mode, 'int8-codes');
      assert.equal(st.vectors, st.chunks);
      assert.equal(st.model, emb.id);
      // a second push reuses the stored codes
      const again = await pushFolder(db, dir, { embedder: emb });
      assert.equal(again.written, 0);

      for await (const _ of local.indexFolder(dir)) void _;
      for await (const _ of local.embedPending()) void _;
      assert.equal(local.chunkCount, s.chunks);
      const gold = mineGold(local).slice(0, 40);
      assert.ok(gold.length >= 20, `${gold.length} mined queries`);
      let denseTop1 = 0;
      let denseOverlap = 0;
      let hybridTop1 = 0;
      let hybridOverlap = 0;
      for (const g of gold) {
        const remoteD = await pgSearch(db, g.query, { k: 10, mode: 'dense', embedder: emb, diversify: false });
        const localD = await local.search(g.query, { k: 10, mode: 'dense', diversify: false });
        const d = agreement(remoteD, localD);
        denseTop1 += d.top1;
        denseOverlap += d.overlap;
        const remoteH = await pgSearch(db, g.query, { k: 10, embedder: emb, diversify: false });
        const localH = await local.search(g.query, { k: 10, diversify: false });
        const h = agreement(remoteH, localH);
        hybridTop1 += h.top1;
        hybridOverlap += h.overlap;
      }
      const q = gold.length;
      // the same int8 codes scored exactly on both sides: only float ties may differ
      assert.ok(denseTop1 / q >= 0.95, `dense top-1 agreement ${(denseTop1 / q).toFixed(3)}`);
      assert.ok(denseOverlap / q >= 0.95, `dense overlap@10 ${(denseOverlap / q).toFixed(3)}`);
      assert.ok(hybridTop1 / q >= 0.9, `hybrid top-1 agreement ${(hybridTop1 / q).toFixed(3)}`);
      assert.ok(hybridOverlap / q >= 0.85, `hybrid overlap@10 ${(hybridOverlap / q).toFixed(3)}`);

      // plain-words queries, where the model takes part: the team index combines the two lists by
      // score as the local engine does (fusion.ts, convex), not by rank. The words of doc comments
      // of the indexed code, reversed (so that no chunk holds them as written).
      const plain = plainWordsQueries(path.join(dir, 'index'));
      assert.ok(plain.length >= 15, `${plain.length} plain-words queries`);
      let asked = 0;
      let plainTop1 = 0;
      let plainOverlap = 0;
      for (const t of plain) {
        const remoteH = await pgSearch(db, t, { k: 10, embedder: emb, diversify: false });
        const localH = await local.search(t, { k: 10, diversify: false });
        if (localH.some((h) => h.why.dense !== undefined)) asked++;
        const a = agreement(remoteH, localH);
        plainTop1 += a.top1;
        plainOverlap += a.overlap;
      }
      assert.ok(asked >= plain.length / 2, `the model took part in ${asked} of ${plain.length}`);
      // int8 codes there, float vectors here: near-ties may swap
      assert.ok(plainTop1 / plain.length >= 0.9, `plain-words top-1 agreement ${(plainTop1 / plain.length).toFixed(3)}`);
      assert.ok(plainOverlap / plain.length >= 0.9, `plain-words overlap@10 ${(plainOverlap / plain.length).toFixed(3)}`);

      // a hybrid search on a kept connection: the terms statement brings the meta the dense list
      // needs, and one statement the chunks of both lists (before: the meta again, and the chunks of each list apart)
      const sent: string[] = [];
      const counted: Sql = { query: (text, params) => (sent.push(text), db.query(text, params)) };
      for (const g of gold.slice(0, 10)) await pgSearch(counted, g.query, { k: 10, embedder: emb }); // the codes and frequent postings read once
      for (const g of gold.slice(10, 30)) {
        sent.length = 0;
        const hits = await pgSearch(counted, g.query, { k: 10, embedder: emb });
        assert.deepEqual(hits.map(key), (await pgSearch(db, g.query, { k: 10, embedder: emb })).map(key), g.query);
        assert.equal(sent.filter((t) => /from fathom_meta where key in \('model'/.test(t)).length, 0, `the dense list reads no meta of its own: ${g.query}`);
        assert.ok(sent.filter((t) => /from fathom_chunks where id = any/.test(t)).length <= 1, `at most one statement for the chunks: ${g.query}: ${sent.join(' | ')}`);
      }
    } finally {
      await db.end();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('dist/cli.js: a default push (Fathom\'s own model) works without pgvector; status says int8 codes', async function () {
    const cli = path.join(__dirname, '..', '..', 'dist', 'cli.js');
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
    const url = server!.url.replace(/\/postgres$/, '/cli_dense');
    const admin = await connectPg(server!.url);
    await admin.query('create database cli_dense');
    await admin.end();
    const push = execFileSync(process.execPath, [cli, 'index', ws, '--store', url], { encoding: 'utf8' });
    assert.match(push, /embedded/);
    const j = JSON.parse(execFileSync(process.execPath, [cli, 'status', '--store', url, '--json'], { encoding: 'utf8' }).trim());
    assert.equal(j.mode, 'int8-codes');
    assert.ok(j.vectors >= 2);
    const text = execFileSync(process.execPath, [cli, 'status', '--store', url], { encoding: 'utf8' });
    assert.match(text, /dense search by int8 codes/);
    const lines = execFileSync(process.execPath, [cli, 'search', 'computeInvoiceTotal', '--store', url, '--dir', ws, '--json', '--mode', 'dense'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file?: string; keywordOnly?: boolean });
    assert.ok(lines.length > 0 && !lines[0].keywordOnly, JSON.stringify(lines).slice(0, 300));
    assert.equal(lines[0].file, 'billing.ts');
  });

  it('pushes through a FileSource (the session\'s folder): its ignore rules, and a file over the size cap named, never read', async () => {
    const admin = await connectPg(server!.url);
    await admin.query('create database source_one');
    await admin.end();
    const db: PgConnection = await connectPg(server!.url.replace(/\/postgres$/, '/source_one'));
    const big = `export const table = [${'1, '.repeat(3000)}];\n`;
    const src = new MemoryFileSource({
      '.gitignore': 'secret.ts\n',
      'secret.ts': 'export const apiToken = "hunter2";\n',
      'kept.ts': 'export function reconcileLedgerEntries() { return 0; }\n',
      'big.ts': big,
    });
    let bigReads = 0;
    const read = src.read.bind(src);
    src.read = (rel: string, maxBytes?: number) => {
      const r = read(rel, maxBytes);
      if (rel === 'big.ts' && r.ok) bigReads++;
      return r;
    };
    try {
      const s = await pushFolder(db, src, { chunk: { maxFileBytes: 4000 } });
      assert.equal(s.files, 3, 'kept.ts, big.ts and .gitignore: secret.ts is ignored');
      assert.equal(bigReads, 0, 'a file over the cap is not read');
      assert.deepEqual(s.skippedFiles?.map((f) => f.path), ['big.ts']);
      assert.match(s.skippedFiles![0].reason, /over the 4000-byte cap/);
      const paths = (await db.query<{ path: string }>('select path from fathom_files order by path')).rows.map((r) => r.path);
      assert.deepEqual(paths, ['.gitignore', 'big.ts', 'kept.ts']);
      assert.equal((await pgSearch(db, 'apiToken hunter2', { k: 5, mode: 'keyword' })).length, 0);
      assert.equal((await pgSearch(db, 'reconcileLedgerEntries', { k: 5, mode: 'keyword' }))[0]?.chunk.path, 'kept.ts');
      // unchanged and still too large: not written again; made small, it is pushed
      const again = await pushFolder(db, src, { chunk: { maxFileBytes: 4000 } });
      assert.equal(again.written, 0);
      src.set('big.ts', 'export const smallTableOfPrimes = [2, 3, 5];\n');
      const third = await pushFolder(db, src, { chunk: { maxFileBytes: 4000 } });
      assert.equal(third.written, 1);
      assert.equal((await pgSearch(db, 'smallTableOfPrimes', { k: 5, mode: 'keyword' }))[0]?.chunk.path, 'big.ts');
    } finally {
      await db.end();
    }
  });

  it('the README\'s least-privilege roles: the CI role pushes (with vectors, no extension), the reader searches', async () => {
    const admin = await connectPg(server!.url);
    try {
      await admin.query('create database roles_one');
    } finally {
      await admin.end();
    }
    const owner = await connectPg(server!.url.replace(/\/postgres$/, '/roles_one'));
    try {
      // the SQL of the README, verbatim but for the password and the database's name
      const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
      const block = /^ {6}create role fathom_ci[\s\S]*?(?=\n\n)/m.exec(readme)?.[0];
      assert.ok(block, 'the README holds the role SQL');
      const statements = block
        .split('\n')
        .map((l) => l.trim().replace(/^--\s*(readers:)?\s*/, '').replace(/--.*$/, ''))
        .join(' ')
        .split(';')
        .map((x) => x.trim())
        .filter((x) => x && !/create extension/.test(x))
        .map((x) => x.replace("'…'", "'secret'").replace('teamdb', 'roles_one'));
      for (const st of statements) await owner.query(st);
    } finally {
      await owner.end();
    }
    const ci = await connectPg(server!.url.replace('postgres@', 'fathom_ci@').replace(/\/postgres$/, '/roles_one'));
    const loaded = loadStaticModel();
    if ('error' in loaded) throw new Error(loaded.error);
    try {
      const s = await pushFolder(ci, ws, { embedder: loaded.embedder });
      assert.ok(s.chunks > 0);
      assert.equal((await pgStatus(ci)).mode, 'int8-codes');
    } finally {
      await ci.end();
    }
    const reader = await connectPg(server!.url.replace('postgres@', 'fathom_read@').replace(/\/postgres$/, '/roles_one'));
    try {
      const hits = await pgSearch(reader, 'computeInvoiceTotal', { k: 5, embedder: loaded.embedder });
      assert.equal(hits[0]?.chunk.path, 'billing.ts');
      await assert.rejects(reader.query('delete from fathom_files'), /permission denied/);
    } finally {
      await reader.end();
    }
  });

  it('status says the index is keyword-only, its schema version and counts; an empty database says none', async () => {
    const db: PgConnection = await connectPg(server!.url);
    try {
      await db.query('create database empty_one');
      const st = await pgStatus(db);
      assert.equal(st.mode, 'keyword-only');
      assert.equal(st.schemaVersion, st.fathomSchemaVersion);
      assert.equal(st.pgvector, 'missing');
      assert.equal(st.vectors, 0);
      const files = await db.query<{ n: number }>('select count(*)::int as n from fathom_files');
      const chunks = await db.query<{ n: number }>('select count(*)::int as n from fathom_chunks');
      assert.equal(st.files, files.rows[0].n);
      assert.equal(st.chunks, chunks.rows[0].n);
      assert.ok(st.chunks > 0);
      assert.match(st.serverVersion, /^\d+/);
    } finally {
      await db.end();
    }
    const empty = await connectPg(server!.url.replace(/\/postgres$/, '/empty_one'));
    try {
      const st = await pgStatus(empty);
      assert.equal(st.mode, 'none');
      assert.equal(st.schemaVersion, 0);
    } finally {
      await empty.end();
    }
  });

  it('two clients pushing the same folder at once end with one consistent index (no duplicate chunks, counts right)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgrace-'));
    const url = server!.url.replace(/\/postgres$/, '/race_one');
    const admin = await connectPg(server!.url);
    await admin.query('create database race_one');
    await admin.end();
    for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(dir, `mod${i}.ts`), `export function handler${i}Compute(x: number) {\n  return x * ${i};\n}\n`);
    const a = await connectPg(url);
    const b = await connectPg(url);
    try {
      const [sa, sb] = await Promise.all([pushFolder(a, dir), pushFolder(b, dir)]);
      assert.equal(sa.files, 400);
      assert.equal(sb.files, 400);
      // every file written once in all: what one writer wrote, the other found unchanged
      assert.equal(sa.written + sb.written, 400, `written ${sa.written} + ${sb.written}`);
      const dup = await a.query<{ n: number }>('select count(*)::int as n from (select path, ord from fathom_chunks group by path, ord having count(*) > 1) d');
      assert.equal(dup.rows[0].n, 0);
      const st = await pgStatus(a);
      assert.equal(st.files, 400);
      const meta = await a.query<{ value: string }>("select value from fathom_meta where key = 'chunks'");
      assert.equal(Number(meta.rows[0].value), st.chunks, 'the kept chunk count matches the rows');
      const hits = await pgSearch(a, 'handler123Compute', { k: 3, mode: 'keyword' });
      assert.equal(hits[0]?.chunk.path, 'mod123.ts');
    } finally {
      await a.end();
      await b.end();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a searching connection keeps postings and chunks between searches, never past a push: warm, cold and concurrent answers agree', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgwarm-'));
    const url = server!.url.replace(/\/postgres$/, '/warm_one');
    const admin = await connectPg(server!.url);
    await admin.query('create database warm_one');
    await admin.end();
    const words = ['invoice', 'total', 'user', 'profile', 'render', 'cache', 'parse', 'request', 'queue', 'retry'];
    for (let i = 0; i < 120; i++) {
      const a = words[i % words.length];
      const b = words[(i * 7 + 3) % words.length];
      fs.writeFileSync(path.join(dir, `m${i}.ts`), `// ${a} ${b} helpers\nexport function ${a}${b[0].toUpperCase()}${b.slice(1)}${i}(x: number) {\n  return ${a}Of(x) + ${b}Of(x) * ${i};\n}\n`);
    }
    const writer = await connectPg(url);
    const searcher = await connectPg(url);
    const answer = async (db: PgConnection, q: string) => (await pgSearch(db, q, { k: 10, mode: 'keyword' })).map(key);
    const cold = async (q: string) => {
      const fresh = await connectPg(url);
      try {
        return await answer(fresh, q);
      } finally {
        await fresh.end();
      }
    };
    try {
      await pushFolder(writer, dir);
      const queries = ['invoice total', 'user profile render', 'parse request retry', 'cache queue', 'total of the invoice', 'retry the queue request'];
      for (const q of queries) assert.deepEqual(await answer(searcher, q), await cold(q), `first search: ${q}`);
      for (const q of queries) assert.deepEqual(await answer(searcher, q), await cold(q), `again, warm: ${q}`);
      // searches at once on the one connection, each with its own scratch
      const together = await Promise.all(queries.map((q) => answer(searcher, q)));
      for (const [i, q] of queries.entries()) assert.deepEqual(together[i], await cold(q), `concurrent: ${q}`);
      // another client pushes: a new best file for a query, a deleted one; the warm connection sees both
      const before = await answer(searcher, 'invoice total');
      const gone = before[0].split(':')[0];
      fs.rmSync(path.join(dir, gone));
      fs.writeFileSync(path.join(dir, 'fresh.ts'), '// invoice total invoice total\nexport function invoiceTotalInvoiceTotal() {\n  return invoiceTotal(invoiceTotal());\n}\n');
      await pushFolder(writer, dir);
      const after = await answer(searcher, 'invoice total');
      assert.equal(after[0], 'fresh.ts:1', after.join(' '));
      assert.ok(!after.some((h) => h.startsWith(`${gone}:`)), `the deleted ${gone} is not answered: ${after.join(' ')}`);
      assert.deepEqual(after, await cold('invoice total'));
      for (const q of queries) assert.deepEqual(await answer(searcher, q), await cold(q), `after the push: ${q}`);
    } finally {
      await writer.end();
      await searcher.end();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keyword search reads each term\'s postings blob; without blobs (not built yet, or an index of schema 3) it answers the same from the posting rows', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgblob-'));
    const url = server!.url.replace(/\/postgres$/, '/blob_one');
    const admin = await connectPg(server!.url);
    await admin.query('create database blob_one');
    await admin.end();
    const words = ['invoice', 'total', 'user', 'profile', 'render', 'cache', 'parse', 'request', 'queue', 'retry'];
    for (let i = 0; i < 80; i++) {
      const a = words[i % words.length];
      const b = words[(i * 3 + 1) % words.length];
      fs.writeFileSync(path.join(dir, `f${i}.ts`), `// ${a} ${b}\nexport function ${a}${b[0].toUpperCase()}${b.slice(1)}${i}() {\n  return ${b}(${a});\n}\n`);
    }
    const db = await connectPg(url);
    const answers = async (options: { maxPostings?: number } = {}) => {
      const fresh = await connectPg(url);
      try {
        const out: string[][] = [];
        for (const q of ['invoice total', 'user profile render', 'parse request retry', 'queue cache invoice']) out.push((await pgSearch(fresh, q, { k: 10, mode: 'keyword', ...options })).map(key));
        return out;
      } finally {
        await fresh.end();
      }
    };
    try {
      await pushFolder(db, dir);
      const blobs = await db.query<{ n: number; built: number }>('select count(*)::int as n, count(postings)::int as built from fathom_terms');
      assert.ok(blobs.rows[0].n > 0);
      assert.equal(blobs.rows[0].built, blobs.rows[0].n, 'every term has its postings blob after a push');
      const withBlobs = await answers();
      const budget1 = await answers({ maxPostings: 1 });
      assert.ok(withBlobs.every((a) => a.length > 0));
      // blobs left to build (a push that stopped before building them): the posting rows
      await db.query('update fathom_terms set postings = null');
      assert.deepEqual(await answers(), withBlobs);
      assert.deepEqual(await answers({ maxPostings: 1 }), budget1);
      // an index of schema 3: no blob column at all, and a searcher may not migrate it
      await db.query('alter table fathom_terms drop column postings');
      await db.query("update fathom_meta set value = '3' where key = 'schema_version'");
      const searcher = await connectPg(url);
      try {
        assert.deepEqual((await pgSearch(searcher, 'invoice total', { k: 10, mode: 'keyword' })).map(key), withBlobs[0]);
        // the next push migrates it (blobs built); the same connection answers alike once the index changed
        fs.appendFileSync(path.join(dir, 'f1.ts'), '// edited\n');
        await pushFolder(db, dir);
        const built = await db.query<{ n: number; built: number }>('select count(*)::int as n, count(postings)::int as built from fathom_terms');
        assert.equal(built.rows[0].built, built.rows[0].n);
        assert.deepEqual((await pgSearch(searcher, 'invoice total', { k: 10, mode: 'keyword' })).map(key), (await answers())[0]);
      } finally {
        await searcher.end();
      }
    } finally {
      await db.end();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a search prepares its statements once per connection (a tag per connection), and answers alike when the session lost them, as behind a pooler', async () => {
    const a = await connectPg(server!.url);
    const b = await connectPg(server!.url);
    const mine = async (db: PgConnection) => (await db.query<{ name: string }>("select name from pg_prepared_statements where name like 'fathom\\_%' order by name")).rows.map((r) => r.name);
    const answer = async (db: PgConnection, q: string) => (await pgSearch(db, q, { k: 5, mode: 'keyword' })).map(key);
    try {
      await pushFolder(a, ws);
      const first = await answer(a, 'computeInvoiceTotal lines');
      assert.equal(first[0], 'billing.ts:1');
      const prepared = await mine(a);
      assert.ok(prepared.length >= 2, `the terms and the chunk texts statements are prepared: ${prepared.join(' ')}`);
      assert.deepEqual(await answer(a, 'load user profile'), await answer(b, 'load user profile'));
      await answer(a, 'computeInvoiceTotal lines');
      assert.deepEqual(await mine(a), prepared, 'searching again prepares nothing new');
      const other = await mine(b);
      assert.ok(other.length >= 2 && other.every((n) => !prepared.includes(n)), `another connection's names differ: ${other.join(' ')} / ${prepared.join(' ')}`);
      // the session forgets them (a transaction pooler gives this client another server session): the search still answers, unprepared
      await a.query('deallocate all');
      assert.deepEqual(await answer(a, 'computeInvoiceTotal lines'), first);
      assert.deepEqual(await mine(a), [], 'from then on this connection sends its statements unprepared');
      assert.deepEqual(await answer(a, 'computeInvoiceTotal lines'), first);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('schema 5 keeps each chunk as json text (printed back as stored, not rebuilt from jsonb)', async () => {
    const db = await connectPg(server!.url);
    try {
      await pushFolder(db, ws);
      const t = await db.query<{ t: string }>("select data_type as t from information_schema.columns where table_name = 'fathom_chunks' and column_name = 'chunk' and table_schema = current_schema()");
      assert.equal(t.rows[0]?.t, 'json');
    } finally {
      await db.end();
    }
  });

  it('dist/cli.js status --json and the text line say keyword-only and the schema version', function () {
    const cli = path.join(__dirname, '..', '..', 'dist', 'cli.js');
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
    const out = execFileSync(process.execPath, [cli, 'status', '--store', server!.url, '--json'], { encoding: 'utf8' });
    const j = JSON.parse(out.trim());
    assert.equal(j.mode, 'keyword-only');
    assert.equal(j.schemaVersion, j.fathomSchemaVersion);
    assert.equal(j.pgvector, 'missing');
    assert.ok(j.files >= 2);
    const text = execFileSync(process.execPath, [cli, 'status', '--store', server!.url], { encoding: 'utf8' });
    assert.match(text, /schema \d+ .*keyword-only \(no vectors stored\).*pgvector missing/);
  });
});
