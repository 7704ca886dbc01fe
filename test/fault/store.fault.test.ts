/**
 * Fault injection on the store: every manifest field damaged one by one, a stale lock whose pid
 * was reused, temp files of a killed save, kill -9 during saves, and a read-only and a full
 * store on a small tmpfs (where `mount` is allowed; skipped with a message elsewhere).
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import type { Embedder } from '../../src/index/embedder';
import { loadStore, lockStore, processStartTime, readJsonLines, saveStore, StoreLockedError, STORE_VERSION, quantizeRows, dequantizeRows } from '../../src/index/store';
import { writeLegacyStore } from '../helpers/legacy-store';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const SAMPLE = path.join(ROOT, 'sample-workspace');

function fathom(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FATHOM_MODEL_PATH: '', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const STACK = /\n\s+at [\w.<>]+ \(|TypeError|ReferenceError/;

function copySample(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-fault-'));
  fs.cpSync(SAMPLE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
  return dir;
}

function fakeEmbedder(): Embedder {
  const dims = 16;
  return {
    id: 'fake',
    dims,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = new Float32Array(dims);
        for (let i = 0; i < t.length; i++) v[t.charCodeAt(i) % dims] += 1;
        // rows the store's int8 encoding holds exactly: a loaded store answers as the saved engine did
        const q = quantizeRows(v, 1, dims);
        return dequantizeRows(q.scales, q.rows, 1, dims);
      });
    },
    async dispose() {},
  };
}

async function indexed(dir: string, embedder?: Embedder): Promise<Engine> {
  const e = new Engine({ embedder, noEmbedderReason: embedder ? undefined : 'test' });
  for await (const _ of e.indexFolder(dir)) void _;
  return e;
}

/** Tries `mount -t tmpfs` (root, a machine that allows it); undefined where it cannot. */
function tmpfs(sizeKb: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-tmpfs-'));
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', mnt]).status === 0) return mnt;
  fs.rmSync(mnt, { recursive: true, force: true });
  return undefined;
}
function unmount(mnt: string): void {
  spawnSync('umount', [mnt]);
  fs.rmSync(mnt, { recursive: true, force: true });
}

describe('fault injection: the store and its lock', function () {
  this.timeout(120_000);
  let dir: string;
  before(function () {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
  });
  beforeEach(() => {
    dir = copySample();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every manifest field, missing or ill-typed, one at a time: a rebuild with the reason, never a throw', async () => {
    const store = path.join(dir, '.fathom');
    const a = await indexed(dir, fakeEmbedder());
    saveStore(store, a);
    const good = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    // every path to a value in the manifest
    const paths: string[][] = [];
    const walk = (v: unknown, at: string[]) => {
      if (at.length) paths.push(at);
      if (v && typeof v === 'object') for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], [...at, k]);
    };
    walk(good, []);
    assert.ok(paths.length >= 25, `${paths.length} fields`);
    const wrongs: unknown[] = [undefined, 'x', -1, 1.5, [], {}, null, true];
    let damaged = 0;
    for (const p of paths) {
      for (const wrong of wrongs) {
        const m = structuredClone(good);
        let o = m as Record<string, unknown>;
        for (const k of p.slice(0, -1)) o = o[k] as Record<string, unknown>;
        const last = p[p.length - 1];
        if (JSON.stringify(o[last]) === JSON.stringify(wrong)) continue;
        if (wrong === undefined) delete o[last];
        else o[last] = wrong;
        fs.writeFileSync(path.join(store, 'manifest.json'), JSON.stringify(m));
        const e = new Engine({ embedder: fakeEmbedder() });
        let r: ReturnType<typeof loadStore>;
        try {
          r = loadStore(store, e);
        } catch (err) {
          assert.fail(`${p.join('.')} = ${JSON.stringify(wrong)}: loadStore threw ${(err as Error).stack}`);
        }
        // a few damages are harmless: no overlap is overlap 0, a keyword-only store loads into any engine
        // and any string is a fine "savedAt"
        const harmless =
          (p.join('.') === 'chunking.overlap' && (wrong === undefined || wrong === null)) || (p.join('.') === 'model' && wrong === null) || (p.join('.') === 'savedAt' && typeof wrong === 'string');
        if (harmless) continue;
        // no chunkers' version is a store of an earlier Fathom: loaded, every file chunked again on the next pass
        if (p.join('.') === 'chunking.version' && wrong === undefined) {
          assert.match((r as { note?: string }).note ?? '', /every file is chunked again/);
          continue;
        }
        damaged++;
        assert.equal(r.ok, false, `${p.join('.')} = ${JSON.stringify(wrong)} was trusted`);
        assert.ok((r as { reason: string }).reason.length > 10);
        assert.equal(e.chunkCount, 0, 'a refused store leaves the engine empty');
      }
    }
    assert.ok(damaged > 150, `${damaged} damaged manifests tried`);
  });

  it('a manifest without "chunking": the CLI rebuilds with the reason (no TypeError, no stack trace), then loads', () => {
    assert.equal(fathom(['index', dir, '--no-embed']).code, 0);
    const file = path.join(dir, '.fathom', 'manifest.json');
    for (const field of ['chunking', 'files', 'model', 'generation']) {
      const m = JSON.parse(fs.readFileSync(file, 'utf8'));
      delete m[field];
      fs.writeFileSync(file, JSON.stringify(m));
      const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
      assert.equal(r.code, 0, `${field}: ${r.err}`);
      assert.doesNotMatch(r.err, STACK);
      assert.match(r.err, new RegExp(`rebuilding the index: the stored manifest is damaged: its "${field}`));
      assert.match(r.out, /zoom/);
      const again = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
      assert.doesNotMatch(again.err, /rebuilding/, 'the rebuilt store loads');
    }
  });

  it('round trip: every search mode answers the same after save and load, and after edits on both sides', async () => {
    const store = path.join(dir, '.fathom');
    // annMinRows 1: the loaded vectors (read in place) also serve the IVF path
    for (const dense of [undefined, { annMinRows: 1 }]) {
      const a = new Engine({ embedder: fakeEmbedder(), dense });
      for await (const _ of a.indexFolder(dir)) void _;
      saveStore(store, a);
      const b = new Engine({ embedder: fakeEmbedder(), dense });
      assert.deepEqual(loadStore(store, b), { ok: true });
      assert.equal(b.pendingVectors, 0);
      const same = async (why: string) => {
        for (const q of ['zoom control', 'getZoomControl', 'locale messages', 'schema name', 'readme']) {
          for (const mode of ['keyword', 'dense', 'hybrid'] as const) {
            const got = (await b.search(q, { k: 8, mode })).map((h) => `${h.chunk.id} ${h.score.toFixed(9)} ${h.chunk.text.length}`);
            const want = (await a.search(q, { k: 8, mode })).map((h) => `${h.chunk.id} ${h.score.toFixed(9)} ${h.chunk.text.length}`);
            assert.deepEqual(got, want, `${why}: ${mode} "${q}" (dense ${JSON.stringify(dense)})`);
          }
        }
      };
      await same('after load');
      // removals of loaded chunks, then adds that reuse their ids, on both engines
      fs.rmSync(path.join(dir, 'src', 'map', 'zoom.js'));
      fs.writeFileSync(path.join(dir, 'docs', 'added.md'), '# Zoom levels\n\nThe zoom control clamps levels.\n');
      fs.writeFileSync(path.join(dir, 'src', 'late.js'), 'export function getZoomControlLate(map) {\n  return map.zoom;\n}\n');
      for (const e of [a, b]) for await (const _ of e.indexFolder(dir)) void _;
      await same('after edits');
      // and what the edited engine saves loads to the same again
      saveStore(store, b);
      const c = new Engine({ embedder: fakeEmbedder(), dense });
      assert.deepEqual(loadStore(store, c), { ok: true });
      for (const mode of ['keyword', 'dense', 'hybrid'] as const) {
        assert.deepEqual((await c.search('zoom control', { k: 8, mode })).map((h) => h.chunk.id), (await a.search('zoom control', { k: 8, mode })).map((h) => h.chunk.id), mode);
      }
      fs.rmSync(dir, { recursive: true, force: true });
      dir = copySample();
    }
  });

  it('every data section damaged (truncated, a byte flipped, emptied, deleted): a rebuild with the reason naming it, the engine left empty', async () => {
    const store = path.join(dir, '.fathom');
    const a = await indexed(dir, fakeEmbedder());
    saveStore(store, a);
    const m = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8')) as { files: Record<string, { name: string; bytes: number }> };
    assert.deepEqual(Object.keys(m.files).sort(), ['ann', 'catalog', 'chunks', 'keyword', 'keywordData', 'lexicon', 'postings', 'texts', 'vectors']);
    const damages: Array<[string, (file: string) => void]> = [
      ['truncated', (f) => fs.truncateSync(f, Math.max(0, fs.statSync(f).size - 1))],
      [
        'a byte flipped',
        (f) => {
          const buf = fs.readFileSync(f);
          buf[buf.length >> 1] ^= 0x20;
          fs.writeFileSync(f, buf);
        },
      ],
      ['emptied', (f) => fs.writeFileSync(f, '')],
      ['deleted', (f) => fs.rmSync(f)],
    ];
    for (const [key, e] of Object.entries(m.files)) {
      // the dense index (empty here: too few vectors for one) is left out, not a rebuild: test/unit/ann.test.ts
      if (key === 'ann') continue;
      const file = path.join(store, e.name);
      const good = fs.readFileSync(file);
      assert.ok(good.byteLength > 0, `${key} has data`);
      for (const [what, damage] of damages) {
        damage(file);
        const b = new Engine({ embedder: fakeEmbedder() });
        const r = loadStore(store, b);
        assert.equal(r.ok, false, `${key} ${what} was trusted`);
        assert.match((r as { reason: string }).reason, new RegExp(`damaged.*${e.name.replace(/\./g, '\\.')}`), `${key} ${what}`);
        assert.equal(b.chunkCount, 0);
        assert.equal(b.keyword.size, 0);
        assert.equal(b.vectors?.count ?? 0, 0);
        fs.writeFileSync(file, good);
      }
    }
    assert.deepEqual(loadStore(store, new Engine({ embedder: fakeEmbedder() })), { ok: true }, 'the repaired store loads');
    // the CLI on a damaged section: rebuilds with the reason, answers, and the rebuilt store loads
    assert.equal(fathom(['index', dir, '--no-embed']).code, 0);
    const m2 = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8')) as { files: Record<string, { name: string }> };
    fs.truncateSync(path.join(store, m2.files.keywordData.name), 8);
    const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /rebuilding the index: the stored index is damaged: keyword\.\d+\.bin is truncated/);
    assert.match(r.out, /zoom/);
    assert.doesNotMatch(fathom(['search', 'zoom', '--dir', dir, '--no-embed']).err, /rebuilding/);
    // the stored postings likewise
    const m3 = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8')) as { files: Record<string, { name: string }> };
    fs.truncateSync(path.join(store, m3.files.postings.name), 8);
    const r3 = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
    assert.equal(r3.code, 0, r3.err);
    assert.match(r3.err, /rebuilding the index: the stored index is damaged: postings\.\d+\.bin is truncated/);
    assert.match(r3.out, /zoom/);
    assert.doesNotMatch(fathom(['search', 'zoom', '--dir', dir, '--no-embed']).err, /rebuilding/);
  });

  it('stores of versions 3, 4 (chunks as JSON lines, sha1; 3 with the presence flags first) and 5 (no stored postings) load as they were, take edits, and are saved as the current version; version 2 is rebuilt with the reason', async () => {
    const store = path.join(dir, '.fathom');
    const file = path.join(store, 'manifest.json');
    const a = await indexed(dir, fakeEmbedder());
    const ids = (e: Engine) => [...e.chunks].map((c) => c?.id ?? '-');
    for (const version of [3, 4, 5] as const) {
      writeLegacyStore(store, a, version);
      let embedded = 0;
      const base = fakeEmbedder();
      const emb: Embedder = { ...base, embed: (texts: string[]) => ((embedded += texts.length), base.embed(texts)) };
      const b = new Engine({ embedder: emb });
      assert.deepEqual(loadStore(store, b), { ok: true }, `version ${version}`);
      assert.equal(b.pendingVectors, 0);
      for await (const _ of b.embedPending()) void _;
      assert.equal(embedded, 0, 'nothing embedded by the migration');
      assert.deepEqual(ids(b), ids(a));
      for (const mode of ['dense', 'hybrid', 'keyword'] as const) {
        assert.deepEqual((await b.search('zoom control', { k: 8, mode })).map((h) => `${h.chunk.id} ${h.score}`), (await a.search('zoom control', { k: 8, mode })).map((h) => `${h.chunk.id} ${h.score}`), mode);
      }
      saveStore(store, b);
      assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).version, STORE_VERSION);
      assert.ok(!fs.readdirSync(store).some((f) => f.endsWith('.jsonl') && f.startsWith('chunks.')), 'the JSON lines chunks went with their generation');
      const c = new Engine({ embedder: fakeEmbedder() });
      assert.deepEqual(loadStore(store, c), { ok: true });
      assert.deepEqual([...c.chunks], [...b.chunks], 'every chunk, field by field');
      assert.equal(c.pendingVectors, 0);
      // saved as the current version: the vocabulary and the postings stored, and read back to the same answers
      assert.ok(fs.readdirSync(store).some((f) => /^postings\.\d+\.bin$/.test(f)) && fs.readdirSync(store).some((f) => /^lexicon\.\d+\.bin$/.test(f)));
      for (const q of ['zoom control', 'tooltip', 'useState effect']) {
        assert.deepEqual((await c.search(q, { k: 8, mode: 'keyword' })).map((h) => `${h.chunk.id} ${h.score}`), (await a.search(q, { k: 8, mode: 'keyword' })).map((h) => `${h.chunk.id} ${h.score}`), `${version} → 6: ${q}`);
      }
    }
    // older than 3: the CLI rebuilds, saying why
    assert.equal(fathom(['index', dir, '--no-embed']).code, 0);
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), version: 2 }));
    const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /rebuilding the index: the stored index is version 2, older than 3/);
    assert.doesNotMatch(fathom(['search', 'zoom', '--dir', dir, '--no-embed']).err, /rebuilding/);
  });

  it('a stale lock naming our own pid (a container restart: pid 1 again) does not wedge the store', function () {
    if (!processStartTime('self')) this.skip(); // needs /proc to tell a reused pid
    const store = path.join(dir, '.fathom');
    fs.mkdirSync(store, { recursive: true });
    // written by a dead earlier process that had our pid: same host and pid, another start time
    fs.writeFileSync(path.join(store, 'lock'), JSON.stringify({ pid: process.pid, host: os.hostname(), start: '1' }));
    const release = lockStore(store);
    assert.throws(() => lockStore(store), StoreLockedError, 'a lock we hold ourselves is held');
    release();
  });

  it('a stale lock naming a live pid that is now another process is taken over; the live holder is respected', async function () {
    if (!processStartTime('self')) this.skip();
    const store = path.join(dir, '.fathom');
    fs.mkdirSync(store, { recursive: true });
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const pid = child.pid!;
      const start = processStartTime(pid)!;
      assert.ok(start);
      // the holder is this very process: locked
      fs.writeFileSync(path.join(store, 'lock'), JSON.stringify({ pid, host: os.hostname(), start }));
      assert.throws(() => lockStore(store), /in use by process/);
      const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
      assert.equal(r.code, 1);
      assert.match(r.err, /in use by process/);
      assert.doesNotMatch(r.err, STACK);
      // the lock names the pid, but a process that started at another time: the pid was reused
      fs.writeFileSync(path.join(store, 'lock'), JSON.stringify({ pid, host: os.hostname(), start: String(Number(start) - 1) }));
      const ok = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /zoom/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('temp files of a killed save are removed by the next successful save', async () => {
    const store = path.join(dir, '.fathom');
    const a = await indexed(dir);
    saveStore(store, a);
    const left = ['chunks.7.jsonl.tmp-4242', 'manifest.json.tmp-1', 'vectors.3.bin.tmp-99999'];
    for (const f of left) fs.writeFileSync(path.join(store, f), 'half a file');
    fs.writeFileSync(path.join(store, 'notes.txt'), 'not ours'); // only the store's own temp names go
    saveStore(store, a);
    const after = fs.readdirSync(store);
    for (const f of left) assert.ok(!after.includes(f), `${f} left behind`);
    assert.ok(after.includes('notes.txt'));
    assert.deepEqual(loadStore(store, new Engine()), { ok: true });
  });

  it('kill -9 during saves, 12 times: the store always loads (or is absent), results unchanged, temp files cleaned', async function () {
    const store = path.join(dir, '.fathom');
    const reference = await indexed(dir);
    const want = (await reference.search('zoom control', { k: 5, mode: 'keyword' })).map((h) => h.chunk.id);
    const script = path.join(dir, 'saver.ts');
    // saves the same index over and over (every save a new generation), as fast as it can
    fs.writeFileSync(
      script,
      `import { Engine } from ${JSON.stringify(path.join(ROOT, 'src/index/engine'))};
import { saveStore } from ${JSON.stringify(path.join(ROOT, 'src/index/store'))};
(async () => {
  const e = new Engine({ noEmbedderReason: 'test' });
  for await (const _ of e.indexFolder(${JSON.stringify(dir)})) void _;
  process.stdout.write('ready\\n');
  for (;;) saveStore(${JSON.stringify(store)}, e);
})();
`,
    );
    saveStore(store, reference);
    let sawTemp = 0;
    for (let round = 0; round < 12; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, 20 + ((round * 37) % 150)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      if (fs.readdirSync(store).some((f) => f.includes('.tmp-'))) sawTemp++;
      const e = new Engine({ noEmbedderReason: 'test' });
      const r = loadStore(store, e);
      assert.deepEqual(r, { ok: true }, `round ${round}`);
      assert.deepEqual((await e.search('zoom control', { k: 5, mode: 'keyword' })).map((h) => h.chunk.id), want);
    }
    // the next successful save (a real CLI run) leaves no temp file and one generation
    fs.writeFileSync(path.join(dir, 'docs', 'added.md'), '# Added\n\nafter the kills\n');
    const r = fathom(['index', dir, '--no-embed']);
    assert.equal(r.code, 0, r.err);
    const files = fs.readdirSync(store);
    assert.ok(!files.some((f) => f.includes('.tmp-')), `temp files left: ${files.join(' ')} (killed mid-write ${sawTemp} times)`);
    assert.equal(new Set(files.filter((f) => /\.\d+\./.test(f)).map((f) => f.split('.')[1])).size, 1, files.join(' '));
  });

  it('a read-only store (a read-only tmpfs): search answers from memory and warns once', function () {
    const mnt = tmpfs(4096);
    if (!mnt) {
      process.stdout.write('      (skipped: mount -t tmpfs is not allowed here)\n');
      this.skip();
    }
    try {
      const store = path.join(mnt, 'store');
      assert.equal(fathom(['index', dir, '--store', store, '--no-embed']).code, 0);
      fs.writeFileSync(path.join(dir, 'docs', 'added.md'), '# Lighthouse keeper\n\nadded while the store is read-only\n');
      assert.equal(spawnSync('mount', ['-o', 'remount,ro', mnt]).status, 0);
      const r = fathom(['search', 'lighthouse keeper', '--dir', dir, '--store', store, '--no-embed']);
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.err, STACK);
      assert.match(r.out, /docs\/added\.md/, 'the new file is searched from memory');
      assert.equal(r.err.match(/could not be saved/g)?.length, 1, r.err);
      assert.match(r.err, /cannot be written/);
      const idx = fathom(['index', dir, '--store', store, '--no-embed']);
      assert.equal(idx.code, 1);
      assert.match(idx.err, /cannot be written/);
      assert.doesNotMatch(idx.err, STACK);
    } finally {
      unmount(mnt);
    }
  });

  it('a full store (a full tmpfs): search answers from memory and warns once; index says the disk is full without a stack trace', function () {
    const mnt = tmpfs(1024);
    if (!mnt) {
      process.stdout.write('      (skipped: mount -t tmpfs is not allowed here)\n');
      this.skip();
    }
    try {
      const store = path.join(mnt, 'store');
      assert.equal(fathom(['index', dir, '--store', store, '--no-embed']).code, 0);
      // fill the disk
      const fd = fs.openSync(path.join(mnt, 'filler'), 'w');
      try {
        const block = Buffer.alloc(64 * 1024, 1);
        for (;;) fs.writeSync(fd, block);
      } catch (err) {
        assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
      } finally {
        fs.closeSync(fd);
      }
      fs.writeFileSync(path.join(dir, 'docs', 'added.md'), '# Lighthouse keeper\n\nadded while the disk is full\n');
      const r = fathom(['search', 'lighthouse keeper', '--dir', dir, '--store', store, '--no-embed']);
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.err, STACK);
      assert.match(r.out, /docs\/added\.md/);
      assert.equal(r.err.match(/could not be saved/g)?.length, 1, r.err);
      assert.match(r.err, /disk is full/);
      const idx = fathom(['index', dir, '--store', store, '--no-embed']);
      assert.equal(idx.code, 1);
      assert.match(idx.err, /disk is full/);
      assert.doesNotMatch(idx.err, STACK);
      // the stored index is still the previous one, and loads (naming the i18n snapshot its chunks were fed from)
      const loaded = loadStore(store, new Engine());
      assert.deepEqual({ ok: loaded.ok, note: 'note' in loaded ? loaded.note : undefined }, { ok: true, note: undefined });
    } finally {
      unmount(mnt);
    }
  });
});

describe('the store reads JSON lines in blocks', () => {
  it('lines across block boundaries, long lines, a last line without a newline: the same values as a whole-file parse; damage is refused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-lines-'));
    try {
      const values: unknown[] = [null, { a: 1 }, 'é'.repeat(40), { text: 'x'.repeat(3000), nested: { b: [1, 2, 3] } }, 42, { u: '日本語 ✓' }];
      for (let i = 0; i < 200; i++) values.push({ i, s: 'y'.repeat(i % 37), emoji: '🙂'.repeat(i % 5) });
      for (const lastNewline of [true, false]) {
        const text = values.map((v) => JSON.stringify(v)).join('\n') + (lastNewline ? '\n' : '');
        const file = path.join(dir, 'lines.jsonl');
        fs.writeFileSync(file, text);
        const entry = { name: 'lines.jsonl', bytes: Buffer.byteLength(text), sha1: createHash('sha1').update(text).digest('hex') };
        for (const block of [1, 2, 3, 7, 64, 4096, 1 << 20]) assert.deepEqual(readJsonLines(file, entry, block), values, `block ${block}, last newline ${lastNewline}`);
        assert.throws(() => readJsonLines(file, { ...entry, bytes: entry.bytes + 1 }, 64), /truncated/);
        assert.throws(() => readJsonLines(file, { ...entry, bytes: entry.bytes - 1 }, 64), /has \d+ bytes, not/);
        assert.throws(() => readJsonLines(file, { ...entry, sha1: '0'.repeat(40) }, 64), /checksum/);
        fs.writeFileSync(file, text.replace('{"a":1}', '{"a":1'));
        assert.throws(() => readJsonLines(file, { ...entry, bytes: entry.bytes - 1 }, 5), /line 2 is not JSON/);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
