import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.join(__dirname, '..', '..', 'train', 'snapshot-fetch.mjs');

/** A local server of snapshot.debian.org's interface: binfiles lists, files by SHA-1. */
function snapshotServer(files: Record<string, Array<{ architecture: string; body: Buffer; lie?: boolean }>>) {
  const byHash = new Map<string, Buffer>();
  const lists = new Map<string, Array<{ architecture: string; hash: string }>>();
  const asked: string[] = [];
  for (const [spec, fs_] of Object.entries(files)) {
    const [name, version] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
    lists.set(
      `/mr/binary/${encodeURIComponent(name)}/${encodeURIComponent(version)}/binfiles`,
      fs_.map((f) => {
        const hash = createHash('sha1').update(f.body).digest('hex');
        // `lie`: the server sends other bytes than the hash it lists
        byHash.set(hash, f.lie ? Buffer.concat([f.body, Buffer.from('tampered')]) : f.body);
        return { architecture: f.architecture, hash };
      }),
    );
  }
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    const list = lists.get(req.url ?? '');
    if (list) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ _comment: 'foo', result: list }));
      return;
    }
    const m = /^\/file\/([0-9a-f]{40})$/.exec(req.url ?? '');
    const body = m && byHash.get(m[1]);
    if (body) res.end(body);
    else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  return { server, asked };
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SCRIPT, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('train/snapshot-fetch.mjs: pinned versions the mirror no longer serves', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-snapshot-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fetches each by the hash snapshot lists, named as apt-get download names it, and lists what it could not get', async () => {
    const deb = Buffer.from('!<arch>\ndebian-binary   a deb of python3-ironic\n');
    const other = Buffer.from('!<arch>\nanother architecture\n');
    const { server, asked } = snapshotServer({
      'python3-ironic=1:21.4.4-0+deb12u3': [
        { architecture: 's390x', body: other },
        { architecture: 'all', body: deb },
      ],
      'node-tar=6.1.13+~cs7.0.5-1+deb12u1': [{ architecture: 'all', body: Buffer.from('tar'), lie: true }],
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const out = await run([dir, 'python3-ironic=1:21.4.4-0+deb12u3', 'node-tar=6.1.13+~cs7.0.5-1+deb12u1', 'python3-gone=1.0-1', 'not-a-spec'], { FATHOM_SNAPSHOT_URL: url });
      assert.equal(out.code, 0, out.stderr);
      // fetched: the architecture-independent file, its bytes as listed
      const file = path.join(dir, 'python3-ironic_1%3a21.4.4-0+deb12u3_all.deb');
      assert.deepEqual(fs.readFileSync(file), deb);
      // the epoch's ':' and the '+' are escaped in the request, as the interface wants
      assert.ok(asked.includes('/mr/binary/python3-ironic/1%3A21.4.4-0%2Bdeb12u3/binfiles'), asked.join(' '));
      // a file whose bytes are not its hash, a version snapshot does not have, and a malformed spec: listed, each with its reason
      assert.deepEqual(out.stdout.trim().split('\n'), ['node-tar=6.1.13+~cs7.0.5-1+deb12u1', 'python3-gone=1.0-1', 'not-a-spec']);
      assert.match(out.stderr, /node-tar=.*SHA-1 .* not written/);
      assert.match(out.stderr, /python3-gone=1\.0-1 not fetched: .*HTTP 404/);
      assert.match(out.stderr, /not name=version: not-a-spec/);
      // nothing else written: no tampered file, no partial one
      assert.deepEqual(fs.readdirSync(dir), ['python3-ironic_1%3a21.4.4-0+deb12u3_all.deb']);
    } finally {
      server.close();
    }
  });

  it('an unreachable server: every spec listed with the reason, exit 0 (the caller decides)', async () => {
    // a port nothing listens on any more
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const out = await run([dir, 'python3-aodh=15.0.0-3+deb12u1'], { FATHOM_SNAPSHOT_URL: `http://127.0.0.1:${port}` });
    assert.equal(out.code, 0);
    assert.equal(out.stdout, 'python3-aodh=15.0.0-3+deb12u1\n');
    assert.match(out.stderr, /python3-aodh=15\.0\.0-3\+deb12u1 not fetched: .*ECONNREFUSED/);
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});
