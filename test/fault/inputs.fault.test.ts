/**
 * Fault injection on what the CLI is given (through the built bundle, bin/fathom.js → dist/cli.js):
 * a `.gitignore` pattern too large for a regular expression, a `.fathom` that is a plain file,
 * `batch` told to write its results over its queries, and a JSON-RPC frame over 10 MiB sent to
 * `fathom mcp`. Each is a clear message or a reported skip; the rest of the work goes on.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');

function fathom(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, FATHOM_MODEL_PATH: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-inputs-'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'a.js'), 'export function alphaBetaGamma () {\n  return 1\n}\n');
  fs.writeFileSync(path.join(dir, 'src', 'b.log'), 'deltaEpsilon in a log\n');
  return dir;
}

describe('fault: inputs the CLI is given (dist/cli.js)', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const ws = () => {
    const d = workspace();
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a .gitignore line of 40,000 characters: the pattern is reported (shortened), the other patterns apply, the folder is indexed', () => {
    const dir = ws();
    fs.writeFileSync(path.join(dir, '.gitignore'), `${'x!'.repeat(20_000)}\n*.log\n`);
    const r = fathom(['index', dir, '--no-embed']);
    assert.equal(r.code, 0, r.err.slice(0, 500));
    assert.match(r.err, /^skipped \.gitignore:1: pattern left out \(Regular expression too large\): (x!){40}… \(40000 characters\)$/m);
    assert.ok(r.err.length < 2_000, `the whole pattern printed (${r.err.length} characters)`);
    assert.match(r.out, /indexed 1 files/);
    const s = fathom(['search', 'alphaBetaGamma', '--dir', dir, '--no-embed', '--json']);
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /src\/a\.js/);
    // *.log, on the line after the long one, still applies
    assert.doesNotMatch(fathom(['search', 'deltaEpsilon', '--dir', dir, '--no-embed', '--json']).out, /b\.log/);
  });

  it('a .fathom that is a plain file: search answers from memory with a warning naming the folder; index fails plainly, without the usage', () => {
    const dir = ws();
    fs.writeFileSync(path.join(dir, '.fathom'), 'not a store\n');
    const s = fathom(['search', 'alphaBetaGamma', '--dir', dir, '--no-embed', '--json']);
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /src\/a\.js/);
    assert.ok(s.err.includes(`warning: ${path.join(dir, '.fathom')} is a file, not a folder: the index of ${dir} is not saved, answering from memory`), s.err);
    assert.doesNotMatch(s.err, /--store|--help/);
    const i = fathom(['index', dir, '--no-embed']);
    assert.equal(i.code, 1, i.err);
    assert.ok(i.err.includes(`${path.join(dir, '.fathom')} is a file, not a folder: the index of ${dir} is not saved`), i.err);
    assert.doesNotMatch(i.err, /--help|Usage/);
    assert.equal(fs.readFileSync(path.join(dir, '.fathom'), 'utf8'), 'not a store\n');
    // a --store that is a file is still a usage error
    assert.equal(fathom(['search', 'x', '--dir', dir, '--store', path.join(dir, '.fathom')]).code, 2);
  });

  it('batch --out naming the --queries file (or a link to it): refused, the queries kept', () => {
    const dir = ws();
    const q = path.join(dir, 'q.jsonl');
    const text = '{"id":"a","query":"alphaBetaGamma"}\n';
    fs.writeFileSync(q, text);
    fs.symlinkSync(q, path.join(dir, 'link.jsonl'));
    for (const out of [q, path.join(dir, 'link.jsonl'), path.join(dir, '.', 'q.jsonl')]) {
      const r = fathom(['batch', '--dir', dir, '--no-embed', '--queries', q, '--out', out]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /^fathom: --out .* is the --queries file: the results would replace the queries\n/);
      assert.equal(fs.readFileSync(q, 'utf8'), text);
    }
    const ok = fathom(['batch', '--dir', dir, '--no-embed', '--queries', q, '--out', path.join(dir, 'r.jsonl')]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(fs.readFileSync(path.join(dir, 'r.jsonl'), 'utf8'), /src\/a\.js/);
  });

  it('fathom mcp: a JSON-RPC line over 10 MiB gets an error reply and the server keeps serving', async () => {
    const dir = ws();
    const child = spawn(process.execPath, [BIN, 'mcp', '--dir', dir, '--no-embed'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, FATHOM_MODEL_PATH: '' } });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const replies = new Map<unknown, Record<string, unknown>>();
    let pending = '';
    let waiter: (() => void) | undefined;
    child.stdout.on('data', (c: Buffer) => {
      pending += c.toString();
      let nl;
      while ((nl = pending.indexOf('\n')) !== -1) {
        const msg = JSON.parse(pending.slice(0, nl)) as Record<string, unknown>;
        pending = pending.slice(nl + 1);
        replies.set(msg.id, msg);
        waiter?.();
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const replyTo = async (id: unknown) => {
      while (!replies.has(id)) {
        const gone = await Promise.race([new Promise<boolean>((r) => (waiter = () => r(false))), exited.then(() => true)]);
        if (gone && !replies.has(id)) assert.fail(`the server ended before answering ${String(id)}: ${err}`);
      }
      return replies.get(id)!;
    };
    const huge = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"${'q'.repeat(11 * 1024 * 1024)}"}}}\n`;
    // in pieces, as a pipe delivers it
    for (let i = 0; i < huge.length; i += 1 << 20) child.stdin.write(huge.slice(i, i + (1 << 20)));
    const rejected = await replyTo(7);
    assert.equal((rejected.error as { code: number }).code, -32600);
    assert.match((rejected.error as { message: string }).message, /not read: a frame may be at most 10485760 bytes/);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    const init = await replyTo(1);
    assert.ok(init.result, JSON.stringify(init));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    assert.ok(((await replyTo(2)).result as { tools: unknown[] }).tools.length > 0);
    child.stdin.end();
    assert.equal(await exited, 0);
  });
});
