/**
 * Faults of the team index against a real PostgreSQL server (Debian's package): the server stopped
 * mid-push, down at search, a connection lost during a query, sslmode=require against a server
 * without SSL.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import { connectPg, pgSearch, pgStatus, pushFolder, RemoteIndex } from '../../src/index/pgstore';
import { pgBin, startRealPg, type RealPg } from '../helpers/real-pg';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

describe('fault: the team index when the PostgreSQL server stops, drops a connection or lacks SSL', function () {
  this.timeout(180_000);
  const bin = pgBin();
  let server: RealPg | undefined;
  let ws = '';

  before(async function () {
    if (!bin) {
      console.warn('    SKIPPED: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
      this.skip();
    }
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
    server = await startRealPg(bin!);
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgfault-'));
    for (let i = 0; i < 1500; i++) fs.writeFileSync(path.join(ws, `part${i}.ts`), `export function widget${i}Assemble(n: number) {\n  return n + ${i};\n}\n`);
  });
  after(() => {
    server?.remove();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  it('the server stopped mid-push: the push fails with an error, and the next push completes with no duplicates', async () => {
    const db = await connectPg(server!.url);
    let stopped = false;
    await assert.rejects(
      pushFolder(db, ws, {
        onProgress: (done, total) => {
          if (!stopped && done < total) {
            stopped = true;
            server!.stop(); // after the first batch, with more to write
          }
        },
      }),
      /the push stopped part-way \(\d+ changed files written\): .+ push again to finish/s,
    );
    assert.ok(stopped, 'the push must have been stopped in the middle for the test to mean anything');
    await db.end().catch(() => undefined);
    server!.start();
    const again = await connectPg(server!.url);
    try {
      const before = (await again.query<{ n: number }>('select count(*)::int as n from fathom_files')).rows[0].n;
      assert.ok(before > 0 && before < 1500, `the first push left part of the folder (${before} files)`);
      const s = await pushFolder(again, ws);
      assert.equal(s.files, 1500);
      assert.equal(s.written, 1500 - before);
      const dup = await again.query<{ n: number }>('select count(*)::int as n from (select path, ord from fathom_chunks group by path, ord having count(*) > 1) d');
      assert.equal(dup.rows[0].n, 0);
      const st = await pgStatus(again);
      assert.equal(st.files, 1500);
      const kept = await again.query<{ value: string }>("select value from fathom_meta where key = 'chunks'");
      assert.equal(Number(kept.rows[0].value), st.chunks, 'the kept chunk count matches the rows');
      assert.equal((await pgSearch(again, 'widget1499Assemble', { k: 3, mode: 'keyword' }))[0]?.chunk.path, 'part1499.ts');
    } finally {
      await again.end();
    }
  });

  it('dist/cli.js: the server down at search is a clear error (no hang); back up, it answers', () => {
    const search = () =>
      spawnSync(process.execPath, [CLI, 'search', 'widget7Assemble', '--dir', ws, '--store', server!.url, '--no-embed', '--mode', 'keyword', '--json'], {
        encoding: 'utf8',
        timeout: 60_000, // a guard against a hang, not a speed check: the client's own connect timeout is 10 s
      });
    server!.stop();
    const down = search();
    assert.equal(down.error, undefined, `the CLI must end by itself (${down.error})`);
    assert.notEqual(down.status, 0);
    assert.match(down.stderr, /cannot connect to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
    server!.start();
    const up = search();
    assert.equal(up.status, 0, up.stderr);
    assert.equal(JSON.parse(up.stdout.split('\n')[0]).file, 'part7.ts');
  });

  it('a connection lost during a long query fails that query and the next search, not hangs', async () => {
    const a = await connectPg(server!.url);
    const b = await connectPg(server!.url);
    try {
      const pid = (await a.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
      const long = a.query('select pg_sleep(120)');
      await new Promise((r) => setTimeout(r, 300));
      await b.query('select pg_terminate_backend($1)', [pid]);
      await assert.rejects(long, /terminat/i);
      await assert.rejects(pgSearch(a, 'widget7Assemble', { k: 3, mode: 'keyword' }));
      assert.equal((await pgSearch(b, 'widget7Assemble', { k: 3, mode: 'keyword' }))[0]?.chunk.path, 'part7.ts');
    } finally {
      await a.end().catch(() => undefined);
      await b.end();
    }
  });

  it('the editor\'s team index: a server restarted between two searches answers the second on a new connection; stopped, the problem says it refuses', async () => {
    const db = await connectPg(server!.url);
    await pushFolder(db, ws); // (writes nothing when an earlier test pushed it all)
    await db.end();
    const local = new Engine(); // nothing indexed locally yet: every pushed file on disk is answered by the server
    const remote = new RemoteIndex(server!.url);
    let down = false;
    const search = () => remote.search(ws, local, 'widget7Assemble', { k: 3, mode: 'keyword', localSearch: (k) => local.search('widget7Assemble', { k, mode: 'keyword' }) });
    try {
      assert.equal((await search())?.[0]?.chunk.path, 'part7.ts');
      // a restart (or an idle timeout, a failover) closes the connection the index keeps between searches
      server!.stop();
      server!.start();
      assert.equal((await search())?.[0]?.chunk.path, 'part7.ts', `answered after the restart, not local for a minute: ${JSON.stringify(remote.state)}`);
      assert.equal(remote.state.ok, true);
      server!.stop();
      down = true;
      assert.equal(await search(), undefined, 'down: the caller searches locally');
      assert.match(remote.state.problem ?? '', /cannot connect to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: .*ECONNREFUSED/, 'the problem says the server refuses, not that an old connection broke');
    } finally {
      if (down) server!.start();
      await remote.close();
    }
  });

  it('sslmode=require against a server without SSL is a clear error, not a plain connection', async () => {
    await assert.rejects(connectPg(`${server!.url}?sslmode=require`), /cannot connect to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?sslmode=require: .*SSL/i);
  });
});
