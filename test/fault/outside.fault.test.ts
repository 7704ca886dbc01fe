/**
 * Nothing outside the folder is read: links created while Fathom serves a folder (the MCP
 * server's watcher, the editor's) are never followed, at the read itself, whatever asked for it.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { redact } from '../../src/index/pgstore';
import { LocalFolder } from '../../src/mcp/folder';
import { runTool } from '../../src/agent/tools';
import { NodeFileSource } from '../../src/workspace/source';

const SECRET = 'zqxSecretOutsideWord';

describe('fault: links made at run time are not followed (reads stay inside the folder)', function () {
  this.timeout(60_000);
  let tmp: string;
  let dir: string;
  let outside: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-outside-'));
    dir = path.join(tmp, 'ws');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'passwd'), `root:x:0:0:${SECRET}:/root:/bin/bash\n`);
    fs.writeFileSync(path.join(dir, 'LICENSE'), 'MIT License\n');
    fs.writeFileSync(path.join(dir, 'src', 'a.js'), 'export function alpha () {\n  return 1\n}\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('the read policy refuses a file that became a link, a folder on the way that became one, and a FIFO (without waiting)', () => {
    const source = new NodeFileSource(dir);
    assert.equal(source.read('LICENSE').ok, true);
    fs.rmSync(path.join(dir, 'LICENSE'));
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, 'LICENSE'));
    const r = source.read('LICENSE');
    assert.ok(!r.ok && /symbolic link/.test(r.detail), JSON.stringify(r));
    assert.equal(source.stat('LICENSE'), undefined);
    // a folder replaced by a link to a folder outside
    fs.rmSync(path.join(dir, 'src'), { recursive: true });
    fs.symlinkSync(outside, path.join(dir, 'src'));
    const r2 = source.read('src/passwd');
    assert.ok(!r2.ok && /symbolic link/.test(r2.detail), JSON.stringify(r2));
    assert.equal(source.stat('src/passwd'), undefined);
    // a link inside the folder to a file inside it is not followed either (as the walk does)
    fs.writeFileSync(path.join(dir, 'real.txt'), 'inside\n');
    fs.symlinkSync(path.join(dir, 'real.txt'), path.join(dir, 'alias.txt'));
    assert.equal(source.read('alias.txt').ok, false);
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [path.join(dir, 'pipe.txt')]);
      const p = source.read('pipe.txt');
      assert.ok(!p.ok && /not a regular file/.test(p.detail), JSON.stringify(p));
    }
  });

  it('a .gitignore that is a link is not read by the path filter either (as at the walk)', () => {
    // an outside file whose lines would exclude src/a.js if it were read as ignore rules
    fs.writeFileSync(path.join(outside, 'rules'), 'src/\n');
    fs.symlinkSync(path.join(outside, 'rules'), path.join(dir, '.gitignore'));
    const source = new NodeFileSource(dir);
    assert.equal(source.filter()('src/a.js'), true);
    assert.ok(source.walk().some((f) => f.rel === 'src/a.js'));
  });

  it('fathom mcp: a link made while serving is not indexed; context and search never show what it points to', async () => {
    const f = LocalFolder.open(dir, { watch: true, debounceMs: 20, log: () => undefined });
    try {
      f.start();
      await f.indexed;
      fs.rmSync(path.join(dir, 'LICENSE'));
      fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, 'LICENSE'));
      fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, 'l.txt'));
      fs.writeFileSync(path.join(dir, 'src', 'fresh.js'), 'export function freshlyWritten () {}\n');
      // the watcher has seen the changes once the new file is found
      for (let i = 0; i < 100; i++) {
        const r = await runTool('search', { query: 'freshlyWritten' }, { folders: [f] });
        if ((r.structured.hits as Array<{ path: string }>).some((h) => h.path === 'src/fresh.js')) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const s = await runTool('search', { query: SECRET }, { folders: [f] });
      assert.doesNotMatch(s.text, new RegExp(SECRET));
      assert.equal((s.structured.hits as unknown[]).length, 0, s.text);
      for (const p of ['LICENSE', 'l.txt']) {
        const c = await runTool('context', { path: p, line: 1 }, { folders: [f] }).catch((e: Error) => ({ text: e.message }));
        assert.doesNotMatch(c.text, new RegExp(SECRET), `${p}: ${c.text}`);
      }
    } finally {
      await f.close();
    }
  });
});

describe('fault: the store is never a way out of the folder, never indexed, never overwrites what is not its own (dist/cli.js)', function () {
  this.timeout(120_000);
  const ROOT = path.join(__dirname, '..', '..');
  let tmp: string;
  let ws: string;
  const fathom = (args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), ...args], { encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  beforeEach(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-store-place-'));
    ws = path.join(tmp, 'ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'export function alphaBetaGamma () {\n  return 1\n}\n');
    fs.writeFileSync(path.join(ws, 'locales.en.json'), '{"hello": "Hello world"}\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a committed .fathom that links out of the folder: index refuses it, search answers from memory; nothing there is written', () => {
    const victim = path.join(tmp, 'victim');
    fs.mkdirSync(victim);
    fs.writeFileSync(path.join(victim, 'manifest.json'), '{"mine": true}\n');
    fs.writeFileSync(path.join(victim, 'i18n.json'), '{"mine": true}\n');
    fs.symlinkSync('../victim', path.join(ws, '.fathom'));
    const ix = fathom(['index', ws, '--no-embed']);
    assert.notEqual(ix.code, 0);
    assert.match(ix.err, /goes through a link to .*victim, outside .*: Fathom does not write there/);
    const s = fathom(['search', 'alphaBetaGamma', '--dir', ws, '--no-embed']);
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /src\/a\.js/);
    assert.match(s.err, /answering from memory/);
    const i = fathom(['i18n', 'Hello world', '--dir', ws, '--no-embed']);
    assert.ok(i.code === 0 || i.code === 1, i.err);
    assert.deepEqual(fs.readdirSync(victim).sort(), ['i18n.json', 'manifest.json']);
    assert.equal(fs.readFileSync(path.join(victim, 'manifest.json'), 'utf8'), '{"mine": true}\n');
    assert.equal(fs.readFileSync(path.join(victim, 'i18n.json'), 'utf8'), '{"mine": true}\n');
  });

  it('a folder of other files, or a manifest.json not Fathom\'s, is never written as a store', () => {
    const docs = path.join(tmp, 'docs');
    fs.mkdirSync(docs);
    fs.writeFileSync(path.join(docs, 'report.odt'), 'x');
    const a = fathom(['index', ws, '--no-embed', '--store', docs]);
    assert.notEqual(a.code, 0);
    assert.match(a.err, /holds files that are not Fathom's \(report\.odt\)/);
    assert.deepEqual(fs.readdirSync(docs), ['report.odt']);
    const other = path.join(tmp, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'manifest.json'), '{"name": "someone else"}');
    const b = fathom(['index', ws, '--no-embed', '--store', other]);
    assert.notEqual(b.code, 0);
    assert.match(b.err, /manifest\.json is not Fathom's/);
    assert.equal(fs.readFileSync(path.join(other, 'manifest.json'), 'utf8'), '{"name": "someone else"}');
    // Fathom's own store is used again, of course
    assert.equal(fathom(['index', ws, '--no-embed', '--store', path.join(tmp, 'mine')]).code, 0);
    assert.equal(fathom(['index', ws, '--no-embed', '--store', path.join(tmp, 'mine')]).code, 0);
  });

  it('a store inside the folder under another name is not indexed as the folder\'s files', () => {
    const store = path.join(ws, 'idx');
    assert.equal(fathom(['index', ws, '--no-embed', '--store', store]).code, 0);
    // a second run would see the first run's store files
    const ix = fathom(['index', ws, '--no-embed', '--store', store]);
    assert.equal(ix.code, 0, ix.err);
    const s = fathom(['search', 'manifest catalog keyword', '--dir', ws, '--no-embed', '--store', store, '--json', '--k', '50']);
    // hit lines (a {"noHits"} line when none: the search is keyword-only here)
    const files = s.out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { file?: string; noHits?: boolean }).filter((o) => !o.noHits).map((o) => o.file as string);
    assert.ok(!files.some((f) => f.startsWith('idx/')), files.join(', '));
  });
});

describe('fault: a PostgreSQL URL is masked up to the last @', () => {
  it('a password holding raw @, / and : is masked whole; the host stays', () => {
    assert.equal(redact('postgres://ci:Sup3r@Secret@Tail@db.example:5432/fathom'), 'postgres://ci:***@db.example:5432/fathom');
    assert.equal(redact('postgres://ci:p/a:ss@db/x?sslmode=require'), 'postgres://ci:***@db/x?sslmode=require');
    assert.equal(redact('postgres://ci@db/x?password=s3cret&sslmode=require'), 'postgres://ci@db/x?password=***&sslmode=require');
    assert.equal(redact('postgres://db/x'), 'postgres://db/x');
  });
});
