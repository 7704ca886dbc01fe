/**
 * The team index's connection: sslmode as libpq means it against a real PostgreSQL server with a
 * self-signed certificate, and a server that takes the connection but never answers.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectPg } from '../../src/index/pgstore';
import { pgBin, startRealPg, type RealPg } from '../helpers/real-pg';

const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

/** A self-signed certificate for 127.0.0.1 (its own CA) and its key. */
function selfSigned(dir: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'pipe' });
  return { cert, key };
}

describe('fault: the team index connection (sslmode with a self-signed certificate, a server that never answers)', function () {
  this.timeout(120_000);
  const bin = pgBin();
  let server: RealPg | undefined;
  let dir = '';
  let good = { cert: '', key: '' };
  let wrong = { cert: '', key: '' };

  before(async function () {
    if (!bin) {
      console.warn('    SKIPPED: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
      this.skip();
    }
    try {
      execFileSync('openssl', ['version'], { stdio: 'pipe' });
    } catch {
      console.warn('    SKIPPED: no openssl to make a self-signed certificate (apt-get install openssl)');
      this.skip();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgssl-'));
    good = selfSigned(dir, 'server');
    wrong = selfSigned(dir, 'other');
    server = await startRealPg(bin!, { ssl: good });
  });
  after(() => {
    server?.remove();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const sslOf = async (url: string) => {
    const db = await connectPg(url);
    try {
      return (await db.query<{ ssl: boolean }>('select ssl from pg_stat_ssl where pid = pg_backend_pid()')).rows[0]?.ssl;
    } finally {
      await db.end();
    }
  };

  it('sslmode=require connects to a self-signed server, encrypted', async () => {
    assert.equal(await sslOf(`${server!.url}?sslmode=require`), true);
  });

  it('sslmode=verify-full with the wrong CA refuses with a clear error; with the server\'s own certificate as CA it connects', async () => {
    await assert.rejects(connectPg(`${server!.url}?sslmode=verify-full&sslrootcert=${wrong.cert}`), /certificate is not trusted \(sslmode=verify-full; give the CA that signed it as sslrootcert=FILE\)/);
    assert.equal(await sslOf(`${server!.url}?sslmode=verify-full&sslrootcert=${good.cert}`), true);
  });

  it('sslmode=disable connects without SSL', async () => {
    assert.equal(await sslOf(`${server!.url}?sslmode=disable`), false);
  });

  it('dist/cli.js search against a server that takes the connection and never answers: a clear error, no hang', async () => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
    const held: net.Socket[] = [];
    const silent = net.createServer((s) => held.push(s)); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      await assert.rejects(connectPg(`postgres://postgres@127.0.0.1:${port}/postgres`, { timeoutMs: 1000 }), /no answer within 1 s/);
      const ws = fs.mkdtempSync(path.join(dir, 'ws-'));
      fs.writeFileSync(path.join(ws, 'a.ts'), 'export const x = 1;\n');
      // the CLI's own connect timeout (10 s); the child is killed after 60 s only as a guard against a hang
      const child = spawn(process.execPath, [CLI, 'search', 'x', '--store', `postgres://postgres@127.0.0.1:${port}/postgres`, '--dir', ws, '--no-embed'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const code = await new Promise<number | null>((r) => child.on('close', r));
      clearTimeout(guard);
      assert.notEqual(code, 0);
      assert.notEqual(code, null, 'the CLI hung until the guard killed it');
      assert.match(err, /cannot connect to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: no answer within 10 s/);
    } finally {
      for (const s of held) s.destroy();
      silent.close();
    }
  });
});
