/**
 * The chunk pool (src/service/chunk-pool.ts) under Engine.indexFolder: the same index as
 * chunking in-thread, cancellation that stops the pool's threads, a thread that dies on one
 * file (a logged skip, the thread replaced), and the bundled thread script (esbuild.mjs's
 * chunk-worker entry) run by the Fathom worker bundle built from the current source.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine, IN_FLIGHT_BYTES, THREADS_EMBED_FROM, type FileChunker, type IndexProgress } from '../../src/index/engine';
import { CHUNK_THREAD_NICE, ChunkPool, defaultPoolSize, elideTexts, restoreTexts } from '../../src/service/chunk-pool';
import { CancelledError, IndexClient } from '../../src/service/client';
import { FolderSession } from '../../src/service/session';
import type { Usage } from '../../src/i18n/types';
import { MemoryFileSource } from '../../src/workspace/source';
import type { ProgressEvent } from '../../src/service/protocol';
import { bundleWorkers, currentWorker } from '../helpers/worker-build';
import { TokenizerMissingError } from '../../src/tokenizer/wordpiece';
import type { Embedder } from '../../src/index/embedder-types';
import { loadStaticModel, type StaticEmbedder } from '../../src/index/static-model';
import { saveStore } from '../../src/index/store';

const FIXTURES = path.join(__dirname, '../fixtures');
const SAMPLE = path.join(__dirname, '../../sample-workspace');

/** Every file of the index in walk order: record and chunks (ids, positions, text, tokens), by doc id, and the keyword index as it would be saved. */
function snapshot(e: Engine): unknown {
  const files = [...e.files.values()].map((r) => ({ ...r }));
  const chunks = files.map((r) => r.docIds.map((id) => e.chunks.get(id)));
  return { files, chunks, keyword: e.keyword.export({ binary: true }) };
}

async function indexWith(dir: string, pool?: ChunkPool, signal?: AbortSignal): Promise<{ engine: Engine; progress: IndexProgress[] }> {
  const engine = new Engine();
  const progress: IndexProgress[] = [];
  for await (const p of engine.indexFolder(dir, { pool, signal, embed: false })) progress.push(p);
  return { engine, progress };
}

/** A folder of generated JS files: enough work for several files in flight. */
function makeFolder(dir: string, files: number, fnsPerFile = 8): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) {
    const fns = Array.from({ length: fnsPerFile }, (_, j) => `/** handler ${j} of file ${i} */\nexport function handler${i}_${j}(input) {\n  const value = input * ${j} + ${i};\n  if (value > 10) return compute${j}(value);\n  return value - ${i};\n}\n`).join('\n');
    fs.writeFileSync(path.join(dir, `file${String(i).padStart(3, '0')}.js`), `// generated file ${i}\n${fns}`);
  }
}

describe('chunk pool (worker threads chunking for Engine.indexFolder)', function () {
  let tmp: string;
  const pools: ChunkPool[] = [];
  const newPool = (o: ConstructorParameters<typeof ChunkPool>[0] = {}) => {
    const p = new ChunkPool({ size: 2, minFiles: 1, minBytes: 0, ...o });
    pools.push(p);
    return p;
  };

  before(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-chunk-pool-'));
  });

  after(async function () {
    for (const p of pools) await p.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const [name, dir] of [['the test fixtures (every chunker: JS/TS, Vue, JSON, Markdown, Python, Go, Rust, Java, text)', FIXTURES], ['the sample workspace', SAMPLE]] as const) {
    it(`gives the same index as in-thread chunking on ${name}`, async function () {
      const pool = newPool();
      const alone = await indexWith(dir);
      const pooled = await indexWith(dir, pool);
      assert.ok(pool.jobs >= 10, `the pool chunked ${pool.jobs} files`);
      assert.ok(pooled.progress.some((p) => p.threads === 2), 'progress says the files were chunked on 2 threads');
      assert.ok(!alone.progress.some((p) => p.threads), 'in-thread progress names no threads');
      assert.ok(alone.engine.chunkCount > 20);
      assert.deepEqual(snapshot(pooled.engine), snapshot(alone.engine));
    });
  }

  it('chunks a small run in-thread (under the default thresholds): no thread is started', async function () {
    const dir = path.join(tmp, 'small');
    makeFolder(dir, 3);
    const pool = new ChunkPool({ size: 1 }); // default thresholds
    pools.push(pool);
    await indexWith(dir, pool);
    assert.equal(pool.jobs, 0);
    assert.equal(pool.started, 0, 'no thread started for 3 files');
  });

  it('an aborted run stops: queued files are dropped, busy threads are terminated, the pool works after', async function () {
    const dir = path.join(tmp, 'big');
    makeFolder(dir, 300, 40);
    const pool = newPool({ size: 1 });
    const ac = new AbortController();
    const engine = new Engine();
    let seen = 0;
    await assert.rejects(
      (async () => {
        for await (const p of engine.indexFolder(dir, { pool, signal: ac.signal, embed: false })) {
          if (p.phase === 'chunk' && p.filesDone > 0 && !seen++) ac.abort(new CancelledError('stopped by the test'));
        }
      })(),
      (err: unknown) => err instanceof CancelledError,
    );
    assert.equal(pool.busy, 0, 'nothing left queued or running in the pool');
    assert.ok(engine.files.size < 300, `stopped before the end (${engine.files.size} files indexed)`);
    // the next run (a fresh thread if one was terminated) finishes the folder, and matches in-thread chunking
    const again = await indexWith(dir, pool);
    assert.equal(again.engine.files.size, 300);
    assert.deepEqual(snapshot(again.engine), snapshot((await indexWith(dir)).engine));
  });

  it('a thread that dies on one file: that file is a logged skip, the thread is replaced, the rest is indexed as in-thread', async function () {
    const dir = path.join(tmp, 'crash');
    makeFolder(dir, 30);
    const logs: string[] = [];
    const pool = newPool({ size: 1, exitOn: 'file007.js', log: (level, m) => logs.push(`${level}: ${m}`) });
    const { engine } = await indexWith(dir, pool);
    const rec = engine.files.get('file007.js');
    assert.equal(rec?.skipped?.reason, 'unsupported');
    assert.match(rec?.skipped?.detail ?? '', /chunk thread died on this file/);
    assert.ok(logs.some((l) => /^warn: file007\.js: skipped/.test(l)), logs.join('\n'));
    assert.ok(pool.started >= 2, 'the dead thread was replaced');
    const alone = (await indexWith(dir)).engine;
    for (const [rel, r] of alone.files) {
      if (rel === 'file007.js') continue;
      assert.deepEqual(engine.files.get(rel)?.docIds.map((id) => engine.chunks.get(id)?.id), r.docIds.map((id) => alone.chunks.get(id)?.id), rel);
    }
  });

  it('a thread sent several files ahead that dies on one: only that file is skipped, the files after it are chunked by its replacement, in order', async function () {
    const logs: string[] = [];
    const pool = newPool({ size: 1, depth: 4, exitOn: 'f2.js', log: (level, m) => logs.push(`${level}: ${m}`) });
    const rels = Array.from({ length: 8 }, (_, i) => `f${i}.js`);
    const sent = rels.map((rel) => pool.chunk(rel, `export function fn${rel[1]}(a) {\n  return a + 1;\n}\n`, {}));
    assert.equal(pool.busy, 8);
    assert.equal(pool.queued, 4, 'four were sent to the thread ahead, four wait');
    const results = await Promise.all(sent);
    assert.deepEqual(results.map((r) => r.path), rels);
    assert.deepEqual(results.filter((r) => r.skipped).map((r) => r.path), ['f2.js']);
    for (const r of results) if (r.path !== 'f2.js') assert.equal(r.chunks[0]?.symbol, `fn${r.path[1]}`, r.path);
    assert.equal(pool.started, 2, 'one replacement thread');
    assert.equal(pool.busy, 0);
  });

  it('a thread is sent files ahead until it holds aheadChars of text or depth files; the rest wait in the queue and all are chunked in order', async function () {
    const text = (i: number, pad: number) => `export function fn${i}(a) {\n  return a + ${i};\n}\n${' '.repeat(pad)}`;
    const big = newPool({ size: 1, depth: 8, aheadChars: 100 });
    const large = Array.from({ length: 5 }, (_, i) => big.chunk(`b${i}.js`, text(i, 60 - text(i, 0).length), {}));
    assert.equal(big.queued, 3, 'two files of 60 characters hold 100: the thread is sent no third');
    const small = newPool({ size: 1, depth: 8, aheadChars: 10_000 });
    const many = Array.from({ length: 12 }, (_, i) => small.chunk(`s${i}.js`, text(i, 0), {}));
    assert.equal(small.queued, 4, 'small files: depth (8) bounds what is sent ahead');
    const results = [...(await Promise.all(large)), ...(await Promise.all(many))];
    assert.deepEqual(results.map((r) => r.chunks[0]?.symbol), [...Array.from({ length: 5 }, (_, i) => `fn${i}`), ...Array.from({ length: 12 }, (_, i) => `fn${i}`)]);
    assert.equal(big.queued + small.queued, 0);
  });

  it('an index run keeps at most IN_FLIGHT_BYTES read and not yet applied (past the file at the head), however deep the pool', async function () {
    // 30 files of 1.5 MB (45 MB) and a pool deep enough to hold them all: only the byte bound stops the reads
    const big = 'x'.repeat(1.5 * (1 << 20));
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = big;
    const src = new MemoryFileSource(files);
    let inFlight = 0;
    let most = 0;
    const read = src.read.bind(src);
    src.read = (rel, maxBytes) => {
      const r = read(rel, maxBytes);
      if (r.ok) most = Math.max(most, (inFlight += r.bytes.length));
      return r;
    };
    const chunker = { available: true, size: 1, depth: 64, minFiles: 1, minBytes: 0, chunk: async (rel: string) => ({ path: rel, language: 'plaintext', chunks: [], warnings: [] }) };
    const hook = { read: (r: { ok: boolean; bytes?: Uint8Array }) => void (inFlight -= r.ok ? r.bytes!.length : 0) };
    const engine = new Engine({ chunk: { maxFileBytes: 4 << 20 } });
    for await (const _ of engine.indexFolder(src, { pool: chunker, hook: hook as never, embed: false })) void _;
    assert.equal(engine.files.size, 30);
    assert.equal(inFlight, 0, 'every file read was applied');
    assert.ok(most <= IN_FLIGHT_BYTES + big.length, `${(most / (1 << 20)).toFixed(1)} MB in flight at most`);
    assert.ok(most >= IN_FLIGHT_BYTES - big.length, `${(most / (1 << 20)).toFixed(1)} MB in flight at most: the bound, not the window, stopped the reads`);
  });

  it('scripts nested deep enough to overflow a default thread stack in oxc (a segfault of the whole process) are chunked on the pool\'s threads, which have the stack for them', async function () {
    const pool = newPool({ size: 1 });
    // each under the 512 KB cap, on short lines (not taken for minified); 12,000 levels of
    // parentheses crash oxc on a 4 MB stack
    const deep = ['(\n'.repeat(100_000) + '1' + '\n)'.repeat(100_000), `x = ${'!!!!!!!!\n'.repeat(50_000)}y;\n`, `a${'\n.b'.repeat(150_000)};\n`, `if (a) {}\n${'else if (a) {}\n'.repeat(30_000)}`];
    const results = await Promise.all(deep.map((text, i) => pool.chunk(`deep${i}.js`, text, {})));
    for (const [i, r] of results.entries()) {
      assert.equal(r.path, `deep${i}.js`);
      assert.ok(r.chunks.length > 0 || r.skipped, `deep${i}.js has chunks or says why not`);
    }
    assert.equal(pool.started, 1, 'the thread never died');
    const after = await pool.chunk('after.js', 'export function after() {\n  return 1;\n}\n', {});
    assert.equal(after.chunks[0]?.symbol, 'after');
  });

  it('an aborted file a thread has not started yet is dropped without stopping the thread', async function () {
    const pool = newPool({ size: 1, depth: 4 });
    const ac = new AbortController();
    const text = (i: number) => `export function g${i}(a) {\n  return a * ${i};\n}\n`;
    const first = pool.chunk('a.js', text(1), {});
    const second = pool.chunk('b.js', text(2), {}, ac.signal);
    const third = pool.chunk('c.js', text(3), {});
    ac.abort(new CancelledError('dropped'));
    await assert.rejects(second, (err: unknown) => err instanceof CancelledError);
    assert.equal((await first).chunks[0]?.symbol, 'g1');
    assert.equal((await third).chunks[0]?.symbol, 'g3');
    assert.equal(pool.started, 1, 'the thread was not replaced');
  });

  it('a chunk thread runs CHUNK_THREAD_NICE below the indexing thread on Linux (FATHOM_CHUNK_NICE=0 leaves it level)', async function () {
    if (process.platform !== 'linux') this.skip();
    const nices = (): number[] =>
      fs.readdirSync('/proc/self/task').map((tid) => {
        const st = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[16]);
      });
    const base = os.getPriority(0);
    const want = Math.min(19, base + CHUNK_THREAD_NICE);
    const before = nices().filter((n) => n === want).length;
    const pool = newPool({ size: 1 });
    assert.equal((await pool.chunk('n.js', 'export function n() {\n  return 1;\n}\n', {})).chunks[0]?.symbol, 'n');
    assert.equal(nices().filter((n) => n === want).length, before + 1, 'one more thread at the lower priority: the pool thread');
    assert.equal(os.getPriority(0), base, 'the calling thread keeps its priority');
    await pool.close();
    const saved = process.env.FATHOM_CHUNK_NICE;
    process.env.FATHOM_CHUNK_NICE = '0';
    try {
      const level = newPool({ size: 1 });
      await level.chunk('m.js', 'export function m() {\n  return 2;\n}\n', {});
      assert.equal(nices().filter((n) => n === want).length, before, 'FATHOM_CHUNK_NICE=0: no thread lowered');
      await level.close();
    } finally {
      if (saved === undefined) delete process.env.FATHOM_CHUNK_NICE;
      else process.env.FATHOM_CHUNK_NICE = saved;
    }
  });

  it('many files in flight on one signal: one abort listener (no MaxListenersExceededWarning), and an abort drops them all', async function () {
    const pool = newPool({ size: 1, depth: 4 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const text = (i: number) => `export function h${i}(a) {\n  return a + ${i};\n}\n`;
      const ac = new AbortController();
      const done = await Promise.all(Array.from({ length: 30 }, (_, i) => pool.chunk(`h${i}.js`, text(i), {}, ac.signal)));
      assert.deepEqual(done.map((r) => r.chunks[0]?.symbol), Array.from({ length: 30 }, (_, i) => `h${i}`));
      const ac2 = new AbortController();
      const pending = Array.from({ length: 30 }, (_, i) => pool.chunk(`k${i}.js`, text(i), {}, ac2.signal));
      ac2.abort(new CancelledError('all dropped'));
      const settled = await Promise.allSettled(pending);
      assert.ok(settled.every((s) => s.status === 'rejected' && s.reason instanceof CancelledError), 'every file of the aborted signal rejects');
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
      assert.deepEqual(warnings.filter((n) => n === 'MaxListenersExceededWarning'), []);
      assert.equal((await pool.chunk('after.js', text(99), {})).chunks[0]?.symbol, 'h99', 'the pool works after');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a session run on the pool: the chunk threads find the i18n usages and read the locale modules from their own parse, and the session ends with the same i18n index and search index as in-thread', async function () {
    // the sample workspace's Vue files and generated JS files that use keys, some through a project function
    const files: Record<string, string> = {};
    for (const rel of ['package.json', 'locales/core_en.json', 'locales/core_fr.json', 'src/components/LayerPanel.vue', 'src/components/KZoomControl.vue']) files[rel] = fs.readFileSync(path.join(SAMPLE, rel), 'utf8');
    for (let i = 0; i < 24; i++) files[`src/gen/f${i}.${i % 3 ? 'js' : 'ts'}`] = `export function show${i}(x${i % 3 ? '' : ': number'}) {\n  return i18n.t('layers.title') + tr('zoom.in') + $t(\`dyn.\${x}\`) + ${i};\n}\n`;
    files['src/gen/broken.js'] = "export function broken( { return i18n.t('layers.title')\n";
    // locale modules (read on the thread), a module in an i18n folder that is not one, and a
    // bundle over the chunking cap that uses keys (not chunked, but parsed there for its usages)
    files['src/locale/lang/de.js'] = "export default {\n  layers: { title: 'Ebenen', dup: 'a', dup: 'b' },\n  zoom: { in: 'Vergrößern' },\n};\n";
    files['src/i18n/es.ts'] = "const messages = { layers: { title: 'Capas' } } as const;\nexport default messages;\n";
    files['src/i18n/setup.js'] = "import { createI18n } from 'vue-i18n';\nexport default createI18n({ locale: 'en' });\n";
    files['src/vendor/bundle.js'] = `${'export const filler = [' + '1, '.repeat(110_000) + '];\n'}export const label = () => i18n.t('zoom.in');\n`;
    const run = async (chunkPool?: ChunkPool) => {
      const s = await FolderSession.open('/memory', { source: new MemoryFileSource(files), chunkPool });
      for await (const _ of s.index({ embed: false, i18n: { functions: ['tr'] } })) void _;
      const state = (s as unknown as { i18nPart: { state: { index: { usages: Map<string, Usage[]>; locales: Map<string, { entries: unknown[]; problems: unknown[] }> } } } }).i18nPart.state;
      const usages = [...state.index.usages].sort(([a], [b]) => a.localeCompare(b));
      const locales = [...state.index.locales].map(([rel, lf]) => [rel, lf.entries, lf.problems]).sort(([a], [b]) => String(a).localeCompare(String(b)));
      const out = { usages, locales, index: snapshot(s.engine), hits: (await s.search('layers title')).map((h) => h.chunk.id) };
      await s.close();
      return out;
    };
    const pool = newPool({ size: 1 });
    const asked: Array<string | undefined> = [];
    const found: string[] = [];
    const modules = new Map<string, unknown>();
    const chunk = pool.chunk.bind(pool);
    pool.chunk = (rel, text, options, signal, usages) => {
      asked.push(usages ? rel : undefined);
      return chunk(rel, text, options, signal, usages).then((r) => {
        if (r.usages?.length) found.push(rel);
        if (r.locale !== undefined) modules.set(rel, r.locale);
        return r;
      });
    };
    const pooled = await run(pool);
    const alone = await run();
    assert.ok(asked.filter(Boolean).length >= 26, `usages asked of the pool for ${asked.filter(Boolean).length} files`);
    assert.ok(found.includes('src/gen/f1.js') && found.includes('src/gen/f0.ts') && found.some((r) => r.endsWith('.vue')), found.join(', '));
    assert.ok(alone.usages.length >= 26, `${alone.usages.length} files with usages`);
    assert.ok(alone.usages.some(([, u]) => u.some((x) => x.via === 'tr')), 'the project function counts');
    assert.deepEqual([...modules].filter(([, m]) => m !== null).map(([rel]) => rel).sort(), ['src/i18n/es.ts', 'src/locale/lang/de.js'], 'the threads read the locale modules');
    assert.ok(modules.get('src/i18n/setup.js') === null && modules.get('src/gen/f1.js') === null, 'and said of the other scripts that they are none');
    assert.ok(found.includes('src/vendor/bundle.js'), 'the bundle over the cap was parsed on the thread for its usages');
    assert.deepEqual(alone.locales.map(([rel]) => rel), ['locales/core_en.json', 'locales/core_fr.json', 'src/components/LayerPanel.vue', 'src/i18n/es.ts', 'src/locale/lang/de.js']);
    assert.ok((alone.locales.find(([rel]) => rel === 'src/locale/lang/de.js')![2] as unknown[]).length > 0, "de.js's duplicate key is a problem");
    assert.deepEqual(pooled.locales, alone.locales);
    assert.deepEqual(pooled.usages, alone.usages);
    assert.deepEqual(pooled.index, alone.index);
    assert.deepEqual(pooled.hits, alone.hits);
  });

  it('warm starts the threads before any file (a cold run finds them ready); the first files run on them', async function () {
    const pool = newPool({ size: 2 });
    pool.warm();
    assert.equal(pool.started, 2);
    assert.equal(pool.busy, 0, 'warming is no job');
    const [a, b] = await Promise.all([pool.chunk('a.ts', 'export const a = (x: number) => x;\n', {}), pool.chunk('b.js', 'export function b() {}\n', {})]);
    assert.equal(a.chunks[0]?.symbol, 'a');
    assert.equal(b.chunks[0]?.symbol, 'b');
    pool.warm();
    assert.equal(pool.started, 2, 'no thread started twice');
  });

  it('an index run chunked on the pool never loads the token counter on the indexing thread; one chunked in-thread does', function () {
    const dir = path.join(tmp, 'lazy-counter');
    makeFolder(dir, 6);
    const src = path.join(__dirname, '../../src');
    // a fresh process: this one loaded the counter long ago; the thread's fs is its own, so only the indexing thread's reads are seen
    const script = `
      const fs = require('node:fs');
      const read = fs.readFileSync;
      let loaded = 0;
      fs.readFileSync = function (f, ...rest) { if (String(f).endsWith('tokenizer.json')) loaded++; return read.call(this, f, ...rest); };
      const { Engine } = require(${JSON.stringify(path.join(src, 'index/engine.ts'))});
      const { ChunkPool } = require(${JSON.stringify(path.join(src, 'service/chunk-pool.ts'))});
      (async () => {
        const pool = process.argv[1] === 'pool' ? new ChunkPool({ size: 1, minFiles: 1, minBytes: 0 }) : undefined;
        const engine = new Engine();
        for await (const _ of engine.indexFolder(${JSON.stringify(dir)}, { pool, embed: false }));
        await pool?.close();
        console.log(JSON.stringify({ loaded, chunks: engine.chunkCount }));
      })();`;
    const run = (mode: string) => {
      const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script, mode], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout.trim().split('\n').pop()!) as { loaded: number; chunks: number };
    };
    const pooled = run('pool');
    const alone = run('alone');
    assert.ok(pooled.chunks > 6 && pooled.chunks === alone.chunks, `${pooled.chunks} chunks pooled, ${alone.chunks} in-thread`);
    assert.equal(pooled.loaded, 0, 'tokenizer.json read on the indexing thread of a pooled run');
    assert.equal(alone.loaded, 1, 'the in-thread run loads the counter, once');
  });

  it('pool size: the cores less the ones left (the extension leaves one, at least one thread), FATHOM_CHUNK_THREADS wins; the CLI takes one thread per core', function () {
    const cores = os.availableParallelism();
    const saved = process.env.FATHOM_CHUNK_THREADS;
    try {
      delete process.env.FATHOM_CHUNK_THREADS;
      assert.equal(defaultPoolSize(), Math.max(1, cores - 1));
      assert.equal(defaultPoolSize(0), cores);
      assert.equal(defaultPoolSize(cores + 3), 1);
      process.env.FATHOM_CHUNK_THREADS = '3';
      assert.equal(defaultPoolSize(0), 3);
    } finally {
      if (saved === undefined) delete process.env.FATHOM_CHUNK_THREADS;
      else process.env.FATHOM_CHUNK_THREADS = saved;
    }
    const dir = path.join(tmp, 'cli-threads');
    makeFolder(dir, 4);
    const src = path.join(__dirname, '../../src');
    const script = `
      const { run } = require(${JSON.stringify(path.join(src, 'cli.ts'))});
      const { sharedChunkPool } = require(${JSON.stringify(path.join(src, 'service/chunk-pool.ts'))});
      run(['index', ${JSON.stringify(dir)}, '--store', ${JSON.stringify(path.join(tmp, 'cli-threads-store'))}, '--no-embed']).then(() => console.log('pool ' + sharedChunkPool().size));`;
    const env = { ...process.env };
    delete env.FATHOM_CHUNK_THREADS;
    const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { encoding: 'utf8', timeout: 60_000, env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`pool ${cores}\\b`));
  });

  it('a reply leaves out the chunk texts that are slices of the file sent, and the pool puts exactly those back', function () {
    const text = 'const a = 1;\nfunction b() {\n  return 2;\n}\n';
    const pos = (offset: number) => ({ line: 0, column: offset, offset });
    const chunk = (from: number, to: number, t: string) => ({ id: String(from), path: 'x.js', language: 'javascript', kind: 'function' as const, header: '// x.js', text: t, start: pos(from), end: pos(to), tokens: 3, complete: true });
    const result = { path: 'x.js', language: 'javascript', warnings: [], chunks: [chunk(0, 12, 'const a = 1;'), chunk(13, 41, 'function b() {\n  return 2;\n}'), chunk(13, 41, 'function b() { return 2; }'), chunk(0, 0, '')] };
    const original = JSON.parse(JSON.stringify(result));
    const elided = elideTexts(result, text);
    assert.deepEqual(elided, [0, 1]);
    assert.deepEqual(result.chunks.map((c) => c.text), ['', '', 'function b() { return 2; }', '']);
    assert.deepEqual(restoreTexts(result, text, elided), original);
  });

  it('a thread whose install has no tokenizer fails the file with TokenizerMissingError (not a skip of every file)', async function () {
    // bundled where no resources/ folder is one or two levels up, as in a broken install
    const dir = path.join(tmp, 'broken', 'a', 'b');
    bundleWorkers(dir);
    const pool = newPool({ size: 1, script: path.join(dir, 'chunk-worker.js') });
    await assert.rejects(pool.chunk('a.js', 'export function f() {\n  return 1;\n}\n', {}), (err: unknown) => err instanceof TokenizerMissingError && /tokenizer files are missing/.test(err.message));
    // the engine then chunks the file on its own thread, whose install has the tokenizer here
    const ws = path.join(tmp, 'broken-ws');
    makeFolder(ws, 3, 2);
    const { engine } = await indexWith(ws, pool);
    assert.equal(engine.files.size, 3);
    assert.ok([...engine.files.values()].every((r) => !r.skipped && r.docIds.length > 0));
  });

  it('the Fathom worker bundle (current source) chunks a cold index on its pool thread (chunk-worker.js beside it), with oxc\'s binding loaded and said so', async function () {
    const worker = currentWorker();
    assert.ok(fs.existsSync(path.join(path.dirname(worker), 'chunk-worker.js')), 'chunk-worker.js is built beside worker.js');
    const ws = path.join(tmp, 'bundle-ws');
    makeFolder(ws, 40, 50); // over the default thresholds (16 files, 256 KB)
    const client = new IndexClient(worker);
    const progress: ProgressEvent[] = [];
    client.onProgress((e) => progress.push(e));
    const logs: string[] = [];
    client.onLog((l) => logs.push(l.message));
    try {
      await client.init({});
      const r = await client.index(ws, path.join(tmp, 'bundle-store'));
      assert.equal(r.files, 40);
      assert.ok(logs.includes('JS/TS scripts are parsed by oxc (native), Babel where oxc reports an error'), `the bundle loads oxc's binding: ${logs.join('\n')}`);
      assert.ok(progress.some((e) => e.progress.phase === 'chunk' && (e.progress.threads ?? 0) >= 1), 'the worker chunked on its pool');
      const hits = await client.search('handler7_3', { roots: [ws], k: 3, mode: 'keyword' });
      assert.equal(hits[0]?.chunk.symbol, 'handler7_3');
    } finally {
      await client.dispose();
    }
  });
});

/** Every live chunk's vector in walk order (file, chunk), as its bytes: equal means bit for bit. */
function vectorBytes(e: Engine): string[] {
  const out: string[] = [];
  for (const r of e.files.values()) {
    for (const id of r.docIds) {
      const v = e.vectors?.get(id);
      out.push(`${r.path} ${id} ${v ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') : 'none'}`);
    }
  }
  return out;
}

/** Saves both engines' stores under `dir` and asserts they are the same, byte for byte (`storeFiles`). */
function assertSameStores(dir: string, alone: Engine, pooled: Engine): void {
  const a = `${dir}-alone`;
  const b = `${dir}-pooled`;
  fs.mkdirSync(a, { recursive: true });
  fs.mkdirSync(b, { recursive: true });
  saveStore(a, alone);
  saveStore(b, pooled);
  assert.deepEqual(storeFiles(b), storeFiles(a));
}

/** The files of a saved store, byte for byte (the manifest without its save time). */
function storeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) {
    let bytes = fs.readFileSync(path.join(dir, f));
    if (f === 'manifest.json') {
      const m = JSON.parse(bytes.toString('utf8'));
      for (const k of Object.keys(m)) if (/time|saved|at$/i.test(k)) delete m[k];
      bytes = Buffer.from(JSON.stringify(m));
    }
    out[f] = bytes.toString('base64');
  }
  return out;
}

function restoreEnv(value: string | undefined): void {
  if (value === undefined) delete process.env.FATHOM_EMBED_IN_THREADS;
  else process.env.FATHOM_EMBED_IN_THREADS = value;
}

describe("chunk threads embedding with Fathom's own model", function () {
  this.timeout(120_000);
  let tmp: string;
  let model: StaticEmbedder;
  const pools: ChunkPool[] = [];
  const newPool = (o: ConstructorParameters<typeof ChunkPool>[0] = {}) => {
    const p = new ChunkPool({ size: 2, minFiles: 1, minBytes: 0, ...o });
    pools.push(p);
    return p;
  };

  /** A cold index with `embedder`: chunked (on `pool`, or here), then the vectors still missing embedded here. */
  async function indexWithModel(dir: string, embedder: Embedder, pool?: ChunkPool, signal?: AbortSignal, engine = new Engine({ embedder })) {
    for await (const p of engine.indexFolder(dir, { pool, signal, embed: false })) void p;
    const leftByChunking = engine.pendingVectors;
    for await (const p of engine.embedPending(signal)) void p;
    return { engine, leftByChunking };
  }

  // the threads embed here whatever the pool's size (with fewer than THREADS_EMBED_FROM, the
  // indexing thread does by default: see the tests after this block)
  let envBefore: string | undefined;
  before(function () {
    envBefore = process.env.FATHOM_EMBED_IN_THREADS;
    process.env.FATHOM_EMBED_IN_THREADS = '1';
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-chunk-embed-'));
    const r = loadStaticModel();
    if ('error' in r) throw new Error(r.error);
    model = r.embedder;
  });

  after(async function () {
    restoreEnv(envBefore);
    for (const p of pools) await p.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const [name, dir] of [['the test fixtures', FIXTURES], ['the sample workspace', SAMPLE]] as const) {
    it(`on ${name}: the threads embed every chunk they cut, bit-identical to the indexing thread's vectors, and the store saved is the same`, async function () {
      const alone = await indexWithModel(dir, model);
      const pooled = await indexWithModel(dir, model, newPool());
      assert.ok(alone.leftByChunking > 20, `in-thread, ${alone.leftByChunking} chunks wait for embedPending`);
      assert.equal(pooled.leftByChunking, 0, 'through the pool, no chunk is left for the indexing thread to embed');
      assert.equal(pooled.engine.vectors!.count, alone.engine.vectors!.count);
      assert.deepEqual(snapshot(pooled.engine), snapshot(alone.engine));
      assert.deepEqual(vectorBytes(pooled.engine), vectorBytes(alone.engine));
      assertSameStores(path.join(tmp, name), alone.engine, pooled.engine);
    });
  }

  it('an incremental run through the pool: changed files get the threads\' vectors, unchanged ones keep theirs, the same as in-thread', async function () {
    const dir = path.join(tmp, 'incremental');
    makeFolder(dir, 30, 6);
    const pool = newPool();
    const pooled = await indexWithModel(dir, model, pool);
    const alone = await indexWithModel(dir, model);
    for (let i = 0; i < 30; i += 3) {
      const f = path.join(dir, `file${String(i).padStart(3, '0')}.js`);
      fs.appendFileSync(f, `\nexport function added${i}(socket) {\n  return socket.close(${i});\n}\n`);
      const t = new Date(Date.now() + 5000);
      fs.utimesSync(f, t, t);
    }
    const jobs = pool.jobs;
    const again = await indexWithModel(dir, model, pool, undefined, pooled.engine);
    const againAlone = await indexWithModel(dir, model, undefined, undefined, alone.engine);
    assert.equal(pool.jobs - jobs, 10, 'only the 10 changed files went to the threads');
    assert.equal(again.leftByChunking, 0);
    assert.deepEqual(snapshot(again.engine), snapshot(againAlone.engine));
    assert.deepEqual(vectorBytes(again.engine), vectorBytes(againAlone.engine));
  });

  it('an aborted run with the model stops its threads; the next run ends with the in-thread vectors', async function () {
    const dir = path.join(tmp, 'abort');
    makeFolder(dir, 200, 30);
    const pool = newPool({ size: 1 });
    const ac = new AbortController();
    const engine = new Engine({ embedder: model });
    let seen = 0;
    await assert.rejects(
      (async () => {
        for await (const p of engine.indexFolder(dir, { pool, signal: ac.signal })) {
          if (p.phase === 'chunk' && p.filesDone > 0 && !seen++) ac.abort(new CancelledError('stopped by the test'));
        }
      })(),
      (err: unknown) => err instanceof CancelledError,
    );
    assert.equal(pool.busy, 0, 'nothing left queued or running in the pool');
    assert.ok(engine.files.size < 200, `stopped before the end (${engine.files.size} files indexed)`);
    const again = await indexWithModel(dir, model, pool, undefined, engine);
    assert.equal(again.engine.files.size, 200);
    assert.equal(again.leftByChunking, 0);
    assert.deepEqual(vectorBytes(again.engine), vectorBytes((await indexWithModel(dir, model)).engine));
  });

  it('warm with the model: each thread sets it up before the first file (no thread more), and the run\'s vectors are the in-thread ones', async function () {
    const pool = newPool();
    pool.warm(model.inThreads);
    pool.warm(model.inThreads); // again: nothing more is sent or started
    assert.equal(pool.started, 2);
    const pooled = await indexWithModel(SAMPLE, model, pool);
    assert.equal(pool.started, 2);
    assert.equal(pooled.leftByChunking, 0);
    assert.deepEqual(vectorBytes(pooled.engine), vectorBytes((await indexWithModel(SAMPLE, model)).engine));
  });

  it('FATHOM_EMBED_IN_THREADS=0 keeps the embedding on the indexing thread (for measuring): the same vectors', async function () {
    const was = process.env.FATHOM_EMBED_IN_THREADS;
    process.env.FATHOM_EMBED_IN_THREADS = '0';
    try {
      const pooled = await indexWithModel(SAMPLE, model, newPool());
      const alone = await indexWithModel(SAMPLE, model);
      assert.equal(pooled.leftByChunking, alone.leftByChunking);
      assert.deepEqual(vectorBytes(pooled.engine), vectorBytes(alone.engine));
    } finally {
      restoreEnv(was);
    }
  });

  it('an embedder without a thread model (a transformers.js model) embeds on the indexing thread: the threads only chunk', async function () {
    const dims = model.dims;
    // the same vectors as the model, through the Embedder interface only (no `inThreads`)
    const plain: Embedder = { id: 'plain-test-model', dims, embed: (texts, signal) => model.embed(texts, signal), dispose: async () => undefined };
    const pooled = await indexWithModel(SAMPLE, plain, newPool());
    const alone = await indexWithModel(SAMPLE, model);
    assert.equal(pooled.leftByChunking, alone.leftByChunking, 'every chunk waited for the indexing thread');
    assert.deepEqual(vectorBytes(pooled.engine), vectorBytes(alone.engine));
  });

  it('the threads get the model from the indexing thread once each (its rows shared), not from its file: a file changed since does not matter', async function () {
    const file = path.join(tmp, 'shared-model.bin');
    fs.copyFileSync(model.source, file);
    const r = loadStaticModel(file);
    assert.ok('embedder' in r);
    fs.writeFileSync(file, 'not a model any more');
    const logs: string[] = [];
    const pool = newPool({ log: (level, m) => logs.push(`${level}: ${m}`) });
    const pooled = await indexWithModel(SAMPLE, r.embedder, pool);
    const alone = await indexWithModel(SAMPLE, r.embedder);
    assert.equal(pooled.leftByChunking, 0, `the threads embedded every chunk: ${logs.join('\n')}`);
    assert.deepEqual(vectorBytes(pooled.engine), vectorBytes(alone.engine));
    assert.ok(r.embedder.shared.data instanceof SharedArrayBuffer, 'the rows are in shared memory');
  });

  it('a thread that cannot load the run\'s model (no parts sent, and its file changed since) says so once; the indexing thread embeds, with the model it has', async function () {
    const file = path.join(tmp, 'changed-model.bin');
    fs.copyFileSync(model.source, file);
    const r = loadStaticModel(file);
    assert.ok('embedder' in r);
    const own = r.embedder;
    // another model in the same file now: one code row changed, another hash
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 1] ^= 0x7f;
    fs.writeFileSync(file, bytes);
    // an embedder whose threads load the file themselves
    const byFile: Embedder = { id: own.id, dims: own.dims, inThreads: { file, id: own.id }, embed: (t, s) => own.embed(t, s), dispose: async () => undefined };
    const logs: string[] = [];
    const pool = newPool({ log: (level, m) => logs.push(`${level}: ${m}`) });
    const pooled = await indexWithModel(SAMPLE, byFile, pool);
    const alone = await indexWithModel(SAMPLE, own);
    assert.equal(pooled.leftByChunking, alone.leftByChunking, 'no vector from the threads was kept');
    assert.deepEqual(vectorBytes(pooled.engine), vectorBytes(alone.engine));
    const warned = logs.filter((l) => /could not embed/.test(l));
    assert.equal(warned.length, 1, logs.join('\n'));
    assert.match(warned[0], /now holds fathom-code-search@[0-9a-f]{12}, not fathom-code-search@/);
  });
});

describe("who embeds a cold index with Fathom's own model, by the pool's size (THREADS_EMBED_FROM)", function () {
  this.timeout(120_000);
  let tmp: string;
  let model: StaticEmbedder;
  let envBefore: string | undefined;
  const pools: ChunkPool[] = [];

  before(function () {
    envBefore = process.env.FATHOM_EMBED_IN_THREADS;
    delete process.env.FATHOM_EMBED_IN_THREADS;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-embed-where-'));
    const r = loadStaticModel();
    if ('error' in r) throw new Error(r.error);
    model = r.embedder;
  });

  after(async function () {
    restoreEnv(envBefore);
    for (const p of pools) await p.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A pool of `size` threads that records the model each file was sent with (undefined: the thread only chunks). */
  function recordingPool(size: number): { pool: FileChunker; sentWith: unknown[] } {
    const p = new ChunkPool({ size, minFiles: 1, minBytes: 0 });
    pools.push(p);
    const sentWith: unknown[] = [];
    const pool: FileChunker = {
      get available() {
        return p.available;
      },
      size: p.size,
      depth: p.depth,
      minFiles: p.minFiles,
      minBytes: p.minBytes,
      chunk: (rel, text, options, signal, usages, embed) => {
        sentWith.push(embed);
        return p.chunk(rel, text, options, signal, usages, embed);
      },
    };
    return { pool, sentWith };
  }

  async function index(dir: string, pool?: FileChunker) {
    const engine = new Engine({ embedder: model });
    for await (const p of engine.indexFolder(dir, { pool, embed: false })) void p;
    return { engine, leftByChunking: engine.pendingVectors };
  }

  for (const [name, dir] of [['the test fixtures', FIXTURES], ['the sample workspace', SAMPLE]] as const) {
    it(`on ${name}: with fewer threads than THREADS_EMBED_FROM the indexing thread embeds each file from the threads' compounds as it applies it, bit-identical, the same store`, async function () {
      const small = recordingPool(THREADS_EMBED_FROM - 1);
      const pooled = await index(dir, small.pool);
      const alone = await index(dir);
      assert.ok(small.sentWith.length > 0);
      assert.ok(small.sentWith.every((m) => m === undefined), 'no file was sent to be embedded by a thread');
      assert.ok(alone.leftByChunking > 20, `in-thread, ${alone.leftByChunking} chunks wait for embedPending`);
      assert.equal(pooled.leftByChunking, 0, 'every chunk has its vector when the chunking is done');
      for await (const p of alone.engine.embedPending()) void p;
      assert.deepEqual(snapshot(pooled.engine), snapshot(alone.engine));
      assert.deepEqual(vectorBytes(pooled.engine), vectorBytes(alone.engine));
      assertSameStores(path.join(tmp, name), alone.engine, pooled.engine);
    });
  }

  it('with THREADS_EMBED_FROM threads or more, the threads embed (each file sent with the model); FATHOM_EMBED_IN_THREADS=1 has them embed in a smaller pool too', async function () {
    const big = recordingPool(THREADS_EMBED_FROM);
    const pooled = await index(SAMPLE, big.pool);
    assert.ok(big.sentWith.length > 0 && big.sentWith.every((m) => m !== undefined && (m as { id: string }).id === model.id));
    assert.equal(pooled.leftByChunking, 0);
    process.env.FATHOM_EMBED_IN_THREADS = '1';
    try {
      const small = recordingPool(1);
      const forced = await index(SAMPLE, small.pool);
      assert.ok(small.sentWith.length > 0 && small.sentWith.every((m) => m !== undefined));
      assert.deepEqual(vectorBytes(forced.engine), vectorBytes(pooled.engine));
    } finally {
      delete process.env.FATHOM_EMBED_IN_THREADS;
    }
  });
});
