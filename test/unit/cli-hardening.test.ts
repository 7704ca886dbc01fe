/**
 * The CLI on bad arguments and hostile input: a clear error and exit 2 (never a stack trace, never
 * silently ignored), non-regular files refused or skipped with a reason, and text output that
 * cannot drive the terminal.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const STACK = /\n\s+at [\w.<>]+ \(|TypeError|ReferenceError/;

function fathom(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, maxBuffer: 64 << 20, env: { ...process.env, FATHOM_MODEL_PATH: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr, timedOut: r.error !== undefined };
}

describe('CLI: bad arguments and hostile input', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-clih-'));
    fs.writeFileSync(path.join(dir, 'zoom.js'), 'export function getZoomControl(map) {\n  return map.zoom;\n}\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an unknown flag is exit 2 with the line and where to read more, not the whole usage (--mdoe dense does not run hybrid)', () => {
    const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed', '--mdoe', 'dense']);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.err, 'fathom: unknown option --mdoe for fathom search\nrun fathom search --help\n');
    assert.equal(r.out, '');
    assert.equal(fathom(['chunk', dir, '--jsn']).code, 2);
    assert.match(fathom(['chunk', dir, '--json=yes']).err, /--json takes no value/);
    assert.match(fathom(['search', 'zoom', 'control', '--dir', dir]).err, /takes 1 argument.*quote/);
  });

  it('--k 0x10, 1e3, 5.5, 0, -1 are not positive whole numbers: exit 2', () => {
    for (const k of ['0x10', '1e3', '5.5', '0', '-1', ' ']) {
      const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed', `--k=${k}`]);
      assert.equal(r.code, 2, `--k ${k}: ${r.err}`);
      assert.match(r.err, /--k must be a positive whole number/);
    }
    assert.equal(fathom(['search', 'zoom', '--dir', dir, '--no-embed', '--k', '3']).code, 0);
  });

  it('a null (or non-object) line in batch --queries or eval --gold is exit 2 naming the line, no stack trace', () => {
    const q = path.join(dir, 'q.jsonl');
    for (const bad of ['null', '[1]', '"zoom"', '42']) {
      fs.writeFileSync(q, `{"id":1,"query":"zoom"}\n${bad}\n`);
      const r = fathom(['batch', '--dir', dir, '--queries', q, '--out', path.join(dir, 'out.jsonl'), '--no-embed']);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /q\.jsonl:2 is not a JSON object/);
      assert.doesNotMatch(r.err, STACK);
      const g = fathom(['eval', dir, '--gold', q, '--no-embed']);
      assert.equal(g.code, 2, g.err);
      assert.match(g.err, /q\.jsonl:2 is not a JSON object/);
      assert.doesNotMatch(g.err, STACK);
    }
  });

  it('a queries file starting with a byte-order mark is read', () => {
    const q = path.join(dir, 'q.jsonl');
    fs.writeFileSync(q, '\uFEFF{"id":"a","query":"zoom control"}\r\n');
    const out = path.join(dir, 'out.jsonl');
    const r = fathom(['batch', '--dir', dir, '--queries', q, '--out', out, '--no-embed']);
    assert.equal(r.code, 0, r.err);
    const line = JSON.parse(fs.readFileSync(out, 'utf8').trim());
    assert.equal(line.id, 'a');
    assert.ok(line.results.some((h: { file: string }) => h.file === 'zoom.js'), JSON.stringify(line));
  });

  it('an unwritable --out is found before any work (no index built), exit 2', () => {
    const q = path.join(dir, 'q.jsonl');
    fs.writeFileSync(q, '{"id":1,"query":"zoom"}\n');
    for (const out of [path.join(dir, 'no', 'such', 'folder', 'out.jsonl'), dir]) {
      const r = fathom(['batch', '--dir', dir, '--queries', q, '--out', out, '--no-embed']);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /--out .* cannot be written/);
      assert.doesNotMatch(r.err, STACK);
      assert.ok(!fs.existsSync(path.join(dir, '.fathom')), 'the work was not done first');
    }
    const w = fathom(['eval', dir, '--write-gold', path.join(dir, 'no', 'gold.jsonl'), '--no-embed']);
    assert.equal(w.code, 2, w.err);
    assert.ok(!fs.existsSync(path.join(dir, '.fathom')));
  });

  it('a --store that is a file is exit 2 with a message', () => {
    const f = path.join(dir, 'store-file');
    fs.writeFileSync(f, 'not a folder');
    for (const cmd of [['index', dir], ['search', 'zoom', '--dir', dir]]) {
      const r = fathom([...cmd, '--store', f, '--no-embed']);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /--store .*store-file is a file, not a folder/);
      assert.doesNotMatch(r.err, STACK);
    }
  });

  it('chunk on /dev/zero, a FIFO or a socket is refused with a message (never read, never blocks)', async function () {
    if (process.platform === 'win32') this.skip();
    const zero = fathom(['chunk', '/dev/zero']);
    assert.equal(zero.timedOut, false, 'chunk /dev/zero did not end');
    assert.equal(zero.code, 2, zero.err);
    assert.match(zero.err, /\/dev\/zero is a character device, not a regular file/);
    const fifo = path.join(dir, 'pipe');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const f = fathom(['chunk', fifo]);
    assert.equal(f.timedOut, false, 'chunk on a FIFO blocked');
    assert.equal(f.code, 2);
    assert.match(f.err, /is a named pipe \(FIFO\), not a regular file/);
    const sock = path.join(dir, 'sock');
    const server = net.createServer().listen(sock);
    await new Promise((r) => server.once('listening', r));
    try {
      // spawnSync would block this process's event loop with the server in it: fine, nothing connects
      const s = fathom(['chunk', sock]);
      assert.equal(s.code, 2);
      assert.match(s.err, /is a socket, not a regular file/);
    } finally {
      server.close();
    }
  });

  it('a folder too large for the heap: files past the memory share are skips with a warning, the rest is saved and searchable (was: out of memory, nothing saved)', function () {
    // 1,600 files of 40 functions (19 MB): at a 96 MB heap the index without the guard dies of
    // "heap out of memory" (exit 134, no store); with it, the run stops reading and saves
    for (let i = 0; i < 1600; i++) {
      let s = '';
      for (let j = 0; j < 40; j++) s += `/** Computes the weight of item ${j} in batch ${i} for the scheduler queue. */\nexport function weigh${i}_${j}(item, options) {\n  const base = item.size * ${j + 1} + options.offset${j};\n  if (base > ${i * 7}) return normalizeWeight${j}(base, options.scale);\n  return base - ${i};\n}\n\n`;
      fs.writeFileSync(path.join(dir, `file${String(i).padStart(4, '0')}.js`), s);
    }
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-clih-store-'));
    try {
    const small = spawnSync(process.execPath, ['--max-old-space-size=96', BIN, 'index', dir, '--no-embed', '--store', store], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, FATHOM_MODEL_PATH: '' } });
    assert.equal(small.status, 0, small.stderr.slice(-2000));
    assert.match(small.stderr, /(\d+) files were not indexed: the index used \d+ MB of the \d+ MB it may use, and the rest is kept for saving and searching it\. Leave large folders out/);
    const skipped = Number(/\((\d+) skipped\)/.exec(small.stdout)?.[1]);
    assert.ok(skipped > 0 && skipped < 1601, small.stdout);
    // the store loads; the first files (read before the stop) are found; a later run with more heap indexes the rest
    const found = fathom(['search', 'weigh0_3', '--dir', dir, '--store', store, '--no-embed', '--json', '--k', '3']);
    assert.equal(found.code, 0, found.err);
    assert.equal(JSON.parse(found.out.trim().split('\n')[0]).file, 'file0000.js');
    const more = fathom(['index', dir, '--no-embed', '--store', store]);
    assert.equal(more.code, 0, more.err);
    assert.doesNotMatch(more.err, /not indexed/);
    assert.match(more.out, /indexed 1601 files \(0 skipped\)/);
    } finally {
      fs.rmSync(store, { recursive: true, force: true });
    }
  });

  it('the folder walk gives every symlink, FIFO, socket and device a skip line with its reason', async function () {
    if (process.platform === 'win32') this.skip();
    fs.symlinkSync(path.join(dir, 'zoom.js'), path.join(dir, 'link.js'));
    fs.symlinkSync('/etc', path.join(dir, 'linkdir'));
    assert.equal(spawnSync('mkfifo', [path.join(dir, 'pipe')]).status, 0);
    const server = net.createServer().listen(path.join(dir, 'sock'));
    await new Promise((r) => server.once('listening', r));
    const dev = spawnSync('mknod', [path.join(dir, 'zero'), 'c', '1', '5']).status === 0;
    try {
      const r = fathom(['chunk', dir]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^skipped link\.js: not-regular \(a symbolic link \(links are not followed\)\)$/m);
      assert.match(r.out, /^skipped linkdir: not-regular \(a symbolic link/m);
      assert.match(r.out, /^skipped pipe: not-regular \(a named pipe \(FIFO\)/m);
      assert.match(r.out, /^skipped sock: not-regular \(a socket/m);
      if (dev) assert.match(r.out, /^skipped zero: not-regular \(a character device/m);
      assert.match(r.out, /^zoom\.js:1-3 {2}function getZoomControl/m);
      const j = fathom(['chunk', dir, '--json']);
      const skipped = j.out.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => 'skipped' in l).map((l) => l.skipped).sort();
      assert.deepEqual(skipped, ['link.js', 'linkdir', 'pipe', 'sock', ...(dev ? ['zero'] : [])]);
    } finally {
      server.close();
    }
  });

  it('text output escapes control characters: no terminal title, no OSC 52, no broken lines (--json unchanged)', function () {
    if (process.platform === 'win32') this.skip();
    const osc52 = '\x1b]52;c;ZXZpbA==\x07';
    const title = '\x1b]0;pwned\x07';
    fs.writeFileSync(path.join(dir, `evil${title}.md`), `# Lighthouse ${osc52} keeper\n\nThe lighthouse keeper's notes.\n`);
    fs.writeFileSync(path.join(dir, 'new\nline.md'), '# Lighthouse two\n\nAnother lighthouse.\n');
    fs.mkdirSync(path.join(dir, 'locales'));
    fs.writeFileSync(path.join(dir, 'locales', 'en.json'), JSON.stringify({ app: { title: `Lighthouse${title}`, save: 'Save' } }));
    fs.writeFileSync(path.join(dir, 'locales', 'fr.json'), JSON.stringify({ app: { title: 'Phare', save: 'Enregistrer' } }));
    // eslint-disable-next-line no-control-regex
    const raw = /[\x00-\x08\x0b-\x1f\x7f]/; // anything but \n, \t would be raw control text
    const chunk = fathom(['chunk', dir]);
    assert.equal(chunk.code, 0, chunk.err);
    assert.doesNotMatch(chunk.out, raw);
    assert.match(chunk.out, /evil\\x1b\]0;pwned\\x07\.md:1-3 {2}section Lighthouse \\x1b\]52;c;ZXZpbA==\\x07 keeper/);
    assert.match(chunk.out, /^new\\nline\.md:1-3/m, 'the newline in the name is escaped: one line per chunk');
    const json = fathom(['chunk', dir, '--json']).out.trim().split('\n');
    assert.equal(chunk.out.trim().split('\n').length, json.length, 'as many text lines as --json lines');
    const search = fathom(['search', 'lighthouse keeper', '--dir', dir, '--no-embed']);
    assert.equal(search.code, 0, search.err);
    assert.doesNotMatch(search.out, raw);
    assert.match(search.out, /evil\\x1b/);
    const i18n = fathom(['i18n', '--key', 'app.title', '--dir', dir]);
    assert.equal(i18n.code, 0, i18n.err);
    assert.doesNotMatch(i18n.out, raw);
    assert.match(i18n.out, /Lighthouse\\x1b\]0;pwned\\x07/);
    const i18nJson = fathom(['i18n', '--key', 'app.title', '--dir', dir, '--json']);
    assert.equal(JSON.parse(i18nJson.out.trim()).locales.find((l: { locale: string }) => l.locale === 'en').value, `Lighthouse${title}`, '--json keeps the exact value');
  });
});
