/**
 * The worker applies the folder's file selection (sent with `index`) to the walk and to later
 * updates, and lists its files with skip reasons (`files`). Runs the worker built from the current source.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexClient } from '../../src/service/client';
import { currentWorker } from '../helpers/worker-build';

const WORKER = currentWorker();

describe('worker: file selection and the files list', function () {
  let tmp: string;
  let ws: string;
  let client: IndexClient;
  before(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-wsel-'));
    ws = path.join(tmp, 'ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'generated'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.gitignore'), 'ignored/\n');
    fs.writeFileSync(path.join(ws, 'src/alpha.js'), 'export function alphaSearchable() { return 1; }\n');
    fs.writeFileSync(path.join(ws, 'generated/beta.js'), 'export function betaGenerated() { return 2; }\n');
    fs.writeFileSync(path.join(ws, 'src/big.js'), `// ${'x'.repeat(3000)}\n`);
    client = new IndexClient(WORKER);
  });
  after(async function () {
    await client.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an excluded folder is not indexed, and updates of excluded or gitignored files are left out', async function () {
    await client.init({ chunk: { maxFileBytes: 2000 } });
    const r = await client.index(ws, path.join(tmp, 'store'), { selection: { exclude: ['**/generated'] } });
    assert.equal(r.files, 2, '.gitignore and alpha.js (big.js is skipped as too large)');
    assert.deepEqual((await client.search('betaGenerated')).map((h) => h.chunk.path), []);
    fs.writeFileSync(path.join(ws, 'generated/beta.js'), 'export function betaGenerated() { return 3; }\n');
    fs.mkdirSync(path.join(ws, 'ignored'));
    fs.writeFileSync(path.join(ws, 'ignored/gamma.js'), 'export function gammaIgnored() {}\n');
    fs.writeFileSync(path.join(ws, 'src/delta.js'), 'export function deltaNew() {}\n');
    const u = await client.update(ws, [{ rel: 'generated/beta.js' }, { rel: 'ignored/gamma.js' }, { rel: 'src/delta.js' }]);
    assert.equal(u.changed, 1);
    const paths = async (q: string) => (await client.search(q)).map((h) => h.chunk.path);
    assert.deepEqual(await paths('betaGenerated'), []);
    assert.ok(!(await paths('gammaIgnored')).includes('ignored/gamma.js'));
    assert.equal((await client.search('deltaNew'))[0].chunk.path, 'src/delta.js');
  });

  it('files lists every file with its chunk count, skipped ones with the reason', async function () {
    const files = await client.files(ws);
    assert.deepEqual(files.map((f) => f.path), ['.gitignore', 'src/alpha.js', 'src/big.js', 'src/delta.js']);
    const big = files.find((f) => f.path === 'src/big.js')!;
    assert.equal(big.skipped?.reason, 'too-large');
    assert.equal(big.chunks, 0);
    assert.ok(files.find((f) => f.path === 'src/alpha.js')!.chunks >= 1);
  });

  it('files of a folder that is not open is a clear error', async function () {
    await assert.rejects(client.files(path.join(tmp, 'nope')), /is not open/);
  });
});
