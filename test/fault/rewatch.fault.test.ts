/**
 * fathom mcp (dist/cli.js over stdio): a folder deleted and created again while served (a fresh
 * checkout) is watched again and what appears is indexed; while it is gone nothing is created
 * where it was, and `status` says so instead of "watching for changes".
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const BIN = path.join(__dirname, '..', '..', 'dist', 'cli.js');

class Client {
  private buf = '';
  private next = 1;
  private waiting = new Map<number, (msg: { result?: unknown; error?: unknown }) => void>();
  err = '';
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString();
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
        if (msg.id !== undefined) this.waiting.get(msg.id)?.(msg);
      }
    });
    child.stderr.on('data', (d: Buffer) => (this.err += d.toString()));
    child.once('exit', () => {
      for (const w of this.waiting.values()) w({ error: `the server exited: ${this.err}` });
      this.waiting.clear();
    });
  }
  request(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, (msg) => {
        this.waiting.delete(id);
        resolve(msg);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }
  async tool(name: string, args: unknown): Promise<string> {
    const r = (await this.request('tools/call', { name, arguments: args })) as { result?: { content: Array<{ text: string }> } };
    return r.result?.content.map((c) => c.text).join('\n') ?? JSON.stringify(r);
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fault: fathom mcp re-watches a folder deleted and created again (dist/cli.js over stdio)', function () {
  this.timeout(120_000);
  let tmp: string;
  let child: ChildProcessWithoutNullStreams | undefined;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-rewatch-'));
  });
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.stdin.end();
      await new Promise((r) => child!.once('exit', r));
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a fresh checkout in place of the served folder is indexed; while gone, the folder is not made again', async () => {
    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src', 'old.js'), 'export function oldOnlyWordzq () {\n  return 1\n}\n');
    child = spawn(process.execPath, [BIN, 'mcp', '--dir', ws, '--no-embed'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const c = new Client(child);
    await c.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    for (let i = 0; i < 300 && !/indexed \d+ files/.test(c.err); i++) await pause(50);
    assert.match(await c.tool('search', { query: 'oldOnlyWordzq' }), /src\/old\.js/);

    fs.rmSync(ws, { recursive: true, force: true });
    // gone: status says so (a few seconds at most: the folder is checked on every call and every 2 s)
    let status = '';
    for (let i = 0; i < 100; i++) {
      status = await c.tool('status', {});
      if (/folder is gone/.test(status)) break;
      await pause(100);
    }
    assert.match(status, /the folder is gone/, status);
    assert.doesNotMatch(await c.tool('search', { query: 'oldOnlyWordzq' }), /src\/old\.js/);
    await pause(2500); // longer than a save's delay: nothing is saved into a folder that is gone
    assert.equal(fs.existsSync(ws), false, 'the served folder was made again by Fathom while it was gone');

    // the fresh checkout
    fs.mkdirSync(path.join(ws, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'lib', 'fresh.js'), 'export function freshCheckoutWordzq () {\n  return 2\n}\n');
    let found = '';
    for (let i = 0; i < 100 && !/lib\/fresh\.js/.test(found); i++) {
      found = await c.tool('search', { query: 'freshCheckoutWordzq' });
      if (!/lib\/fresh\.js/.test(found)) await pause(100);
    }
    assert.match(found, /lib\/fresh\.js/, `${found}\n${c.err}`);
    // and it is watched again: an edit after the checkout is seen
    fs.writeFileSync(path.join(ws, 'lib', 'later.js'), 'export function laterEditWordzq () {}\n');
    found = '';
    for (let i = 0; i < 100 && !/lib\/later\.js/.test(found); i++) {
      found = await c.tool('search', { query: 'laterEditWordzq' });
      if (!/lib\/later\.js/.test(found)) await pause(100);
    }
    assert.match(found, /lib\/later\.js/, `${found}\n${c.err}`);
    assert.match(await c.tool('status', {}), /watching for changes/);
  });
});
