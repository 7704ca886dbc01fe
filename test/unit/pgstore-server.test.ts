import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { connectPg, pgSearch, pgStatus, pushFolder, type PgConnection } from '../../src/index/pgstore';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { pgBin, startRealPg, type RealPg } from '../helpers/real-pg';

/** The team index against a real PostgreSQL server (Debian's package), without pgvector. */
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

  it('a push with vectors says pgvector is missing, and keyword search still answers', async () => {
    const db: PgConnection = await connectPg(server!.url);
    try {
      await assert.rejects(pushFolder(db, ws, { embedder: fakeEmbedder() }), /pgvector extension.*--no-embed/s);
      const hits = await pgSearch(db, 'load_user_profile', { k: 5, mode: 'keyword' });
      assert.equal(hits[0]?.chunk.path, 'users.py');
    } finally {
      await db.end();
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
