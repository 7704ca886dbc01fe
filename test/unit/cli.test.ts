import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeCounterTables, readCounterTables } from '../../src/tokenizer/wordpiece';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');

/** Runs the built CLI (dist/cli.js through bin/fathom.js), as a user would. */
function fathom(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('fathom chunk (CLI)', function () {
  let dir: string;
  before(function () {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
      throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-cli-'));
    fs.mkdirSync(path.join(dir, 'src', 'map'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'ignored'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'map', 'zoom.js'), 'export function getZoomControl(map) {\n  return map.zoom;\n}\n');
    fs.writeFileSync(path.join(dir, 'src', 'empty.js'), '');
    fs.writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    fs.writeFileSync(path.join(dir, 'ignored', 'secret.js'), 'const x = 1;\n');
    fs.writeFileSync(path.join(dir, '.gitignore'), 'ignored/\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints one JSON object per chunk with exactly the documented keys, and one per skipped file', () => {
    const r = fathom(['chunk', dir, '--json']);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    const chunks = lines.filter((l) => !('skipped' in l));
    const skipped = lines.filter((l) => 'skipped' in l);
    assert.deepEqual(chunks.map((c) => c.path), ['.gitignore', 'src/map/zoom.js']);
    const c = chunks[1];
    assert.deepEqual(Object.keys(c), ['path', 'language', 'kind', 'symbol', 'header', 'text', 'start', 'end', 'tokens', 'complete', 'split']);
    assert.deepEqual(
      { path: c.path, language: c.language, kind: c.kind, symbol: c.symbol, header: c.header, start: c.start, end: c.end, complete: c.complete, split: c.split },
      {
        path: 'src/map/zoom.js',
        language: 'javascript',
        kind: 'function',
        symbol: 'getZoomControl',
        header: '// src/map/zoom.js :: getZoomControl',
        start: { offset: 0, line: 1, column: 0 },
        end: { offset: 58, line: 3, column: 1 },
        complete: true,
        split: null,
      },
    );
    assert.equal(typeof c.tokens, 'number');
    assert.deepEqual(skipped.map((s) => [s.skipped, s.reason.split(':')[0]]).sort(), [['logo.png', 'binary'], ['src/empty.js', 'empty']]);
    assert.ok(!r.out.includes('secret.js'), '.gitignore is honoured');
  });

  it('prints statistics with the invariant checks', () => {
    const r = fathom(['chunk', dir, '--stats', '--json']);
    assert.equal(r.code, 0, r.err);
    const st = JSON.parse(r.out);
    assert.equal(st.languages.javascript.files, 1);
    assert.equal(st.languages.plaintext.files, 1);
    assert.equal(st.languages.javascript.violations, 0);
    assert.deepEqual(st.skipped, { binary: 1, empty: 1 });
    const table = fathom(['chunk', dir, '--stats']);
    assert.match(table.out, /parse integrity/);
    assert.match(table.out, /skipped files: .*binary 1/);
  });

  it('says what is wrong with bad arguments, with exit code 2', () => {
    const missing = fathom(['chunk', path.join(dir, 'nope')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /does not exist/);
    const badFlag = fathom(['chunk', dir, '--max-tokens', 'lots']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.err, /--max-tokens must be a positive whole number/);
    assert.equal(fathom(['frobnicate']).code, 2);
  });
});

/**
 * A copy of the bundle in a temp folder (real files: Node resolves a symlinked script to its
 * target's folder), with resources/ and node_modules/ beside it as in the project.
 */
function copyOfBundle(prefix: string): string {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(tmp, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
  fs.symlinkSync(path.join(ROOT, 'resources'), path.join(tmp, 'resources'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'node_modules'));
  return tmp;
}

describe('the token counter tables the build writes (dist/all-MiniLM-L6-v2.wordpiece)', function () {
  let tmp: string;
  before(() => {
    tmp = copyOfBundle('fathom-tables-');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const chunk = () => spawnSync(process.execPath, [path.join(tmp, 'dist', 'cli.js'), 'chunk', path.join(ROOT, 'test', 'fixtures', 'js'), '--json'], { encoding: 'utf8' });

  it('are written by the build; damaged, the counter is built from tokenizer.json with a warning, and counts the same', function () {
    const tables = path.join(tmp, 'dist', 'all-MiniLM-L6-v2.wordpiece');
    assert.ok(fs.statSync(tables).size > 100_000, 'the build wrote the tables');
    const good = chunk();
    assert.equal(good.status, 0, good.stderr);
    assert.doesNotMatch(good.stderr, /Warning/);
    const tokens = (out: string) => out.trim().split('\n').map((l) => (JSON.parse(l) as { tokens?: number }).tokens);
    assert.ok(tokens(good.stdout).length > 3);
    // the bundle counts with the tables it finds: tries without a whole word count every word as [UNK]
    const json = fs.readFileSync(path.join(ROOT, 'resources', 'all-MiniLM-L6-v2', 'tokenizer.json'));
    const read = readCounterTables(tables, json)!;
    fs.writeFileSync(tables, encodeCounterTables({ ...read, start: { ...read.start, terminal: new Uint8Array(read.start.terminal.length) } }, json));
    const altered = chunk();
    assert.equal(altered.status, 0, altered.stderr);
    assert.notDeepEqual(tokens(altered.stdout), tokens(good.stdout), 'the tables are what the bundle counts with');
    fs.writeFileSync(tables, encodeCounterTables(read, json));
    assert.deepEqual(tokens(chunk().stdout), tokens(good.stdout));
    fs.truncateSync(tables, fs.statSync(tables).size - 4096);
    const damaged = chunk();
    assert.equal(damaged.status, 0, damaged.stderr);
    assert.match(damaged.stderr, /Warning: Fathom: .*all-MiniLM-L6-v2\.wordpiece is truncated/);
    assert.deepEqual(tokens(damaged.stdout), tokens(good.stdout));
    fs.rmSync(tables);
    const none = chunk();
    assert.equal(none.status, 0, none.stderr);
    assert.doesNotMatch(none.stderr, /Warning/);
    assert.deepEqual(tokens(none.stdout), tokens(good.stdout));
  });
});

describe('the WebAssembly modules the build writes (dist/fathom-counter.wasm, dist/fathom-compounds.wasm)', function () {
  this.timeout(120_000);
  let tmp: string;
  const modules = ['fathom-counter.wasm', 'fathom-compounds.wasm'];
  before(() => {
    tmp = copyOfBundle('fathom-wasm-');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A cold keyword-only index of the fixtures (enough files for the chunk threads) by the copied bundle: what it wrote (the chunks with their token counts, the keyword index) and its stderr. */
  const index = (name: string) => {
    const store = path.join(tmp, name);
    const r = spawnSync(process.execPath, [path.join(tmp, 'dist', 'cli.js'), 'index', path.join(ROOT, 'test', 'fixtures'), '--no-embed', '--store', store], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const read = (f: string) => fs.readFileSync(path.join(store, f));
    return { stderr: r.stderr, chunks: read('chunks.1.bin'), texts: read('texts.1.bin'), postings: read('postings.1.bin'), lexicon: read('lexicon.1.bin'), keyword: read('keyword.1.bin') };
  };

  it('are shipped, and the index is the same without them (JavaScript) and when they are damaged (said, as a warning)', function () {
    for (const m of modules) assert.ok(fs.statSync(path.join(tmp, 'dist', m)).size > 100, `the build wrote ${m}`);
    const withWasm = index('with');
    assert.doesNotMatch(withWasm.stderr, /Warning/);
    assert.ok(withWasm.chunks.byteLength > 1000);
    for (const m of modules) fs.writeFileSync(path.join(tmp, 'dist', m), Buffer.from('not a WebAssembly module'));
    const damaged = index('damaged');
    for (const m of modules) assert.match(damaged.stderr, new RegExp(`Warning: Fathom: .*${m.replace('.', '\\.')} cannot be loaded`));
    for (const m of modules) fs.rmSync(path.join(tmp, 'dist', m));
    const without = index('without');
    assert.doesNotMatch(without.stderr, /Warning/);
    for (const other of [damaged, without]) {
      for (const k of ['chunks', 'texts', 'postings', 'lexicon', 'keyword'] as const) assert.ok(withWasm[k].equals(other[k]), `${k} differs`);
    }
  });
});
