import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectPg, pgSearch, pushFolder, type PgConnection } from '../../src/index/pgstore';
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
});
