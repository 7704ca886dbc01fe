/**
 * Index benchmark: the whole Engine (walk, read, chunk, keyword index, vectors, store) on the dev
 * corpus and on a generated scale corpus, with query latency per mode at 10k, 100k and 1M chunks.
 *
 *   node bench/setup-corpus.mjs                      # once: the dev corpus in bench/.corpus
 *   node --max-old-space-size=16384 --import tsx bench/engine.ts                # everything (~15 min)
 *   node --import tsx bench/engine.ts --scales 10000,100000 --scale-files 10000  # smaller
 *   node --import tsx bench/engine.ts --json > engine.json
 *
 * 1. Dev corpus: full keyword-only index from disk (a fresh Engine, `indexFolder`), store save /
 *    size / load, and the update latency of one file (append a line with a new word to a JS,
 *    TS or Markdown file, `updateFile`, until a keyword search finds the word). With a model
 *    (default Fathom's own, `fathom-code-search`; `--model DIR` a transformers.js folder such as
 *    the shared cost model): embedding chunks/s on a sample of the corpus's own chunks through the product's Embedder, and the full index time with
 *    vectors projected from it (chunking time + chunks ÷ rate; embedding dominates).
 * 2. Scale corpus (`--scale-files`, default 100,000 files ≈ 1M chunks): copies of the dev corpus
 *    files under `r<n>/`, where each camelCase/PascalCase identifier gets the suffix `<n>` in half
 *    of the copies (chosen by a hash), so the vocabulary grows with the corpus as real code does
 *    while every file still parses. Written once into bench/.scale (git-ignored, cached by a
 *    stamp). Full keyword-only index from disk, peak memory, store size, save and load times.
 * 3. Query latency, `engine.search(q, {k: 10, mode})` end to end (the query embedded by the
 *    real model, dense top-k, keyword BM25F, RRF) for keyword, dense and hybrid, at each scale in
 *    `--scales`; 10k and 100k are the first files of the scale corpus, 1M is the whole of it.
 *    Queries are the gold queries `fathom eval` mines from the dev corpus. Vectors: the model's
 *    own vectors of `--pool` dev chunks, each chunk of the scale corpus taking one of them (by a
 *    hash of its id) plus Gaussian noise, renormalized: embedding 1M chunks with the cost model
 *    would take ~8 hours here, and search costs the same whatever the numbers are.
 * 4. int8 recall@10: top-10 by int8 rows (per-row scale) against the float top-10, over the
 *    same queries' vectors, at each scale with vectors — the issue's bar for int8 is ≥ 0.99.
 *
 * Timings on a shared 2-core machine move by ±20%; compare numbers from the same run.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gc } from './gc';
import { hash, rng } from './rng';
import { decodeBytes } from '../src/chunkers/index';
import { mineGold, type GoldQuery } from '../src/eval/mine';
import { createEmbedder, embedText, type Embedder } from '../src/index/embedder';
import { Engine, type SearchMode } from '../src/index/engine';
import { walkFiles } from '../src/workspace/files';
import { loadStore, saveStore } from '../src/index/store';
import { VectorStore } from '../src/index/vectors';
import { isStaticModel, STATIC_MODEL_NAME } from '../src/index/static-model';
import { ownModelWeight } from '../src/index/rank/fusion';

interface Args {
  corpus: string;
  scaleDir: string;
  scaleFiles: number;
  scales: number[];
  queries: number;
  pool: number;
  embedSample: number;
  model: string | undefined;
  json: boolean;
}

const USAGE =
  'usage: node --import tsx bench/engine.ts [--corpus DIR] [--scale-files N] [--scales 10000,100000,1000000] [--queries 200] [--pool 512] [--embed-sample 256] [--model DIR | --no-model] [--json]';

function parseArgs(argv: string[]): Args {
  const a: Args = {
    corpus: path.join(__dirname, '.corpus'),
    scaleDir: path.join(__dirname, '.scale'),
    scaleFiles: 100_000,
    scales: [10_000, 100_000, 1_000_000],
    queries: 200,
    pool: 512,
    embedSample: 256,
    // the product's default: Fathom's own model; `--model DIR` for a transformers.js folder (the cost model)
    model: STATIC_MODEL_NAME,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value\n${USAGE}`);
      return v;
    };
    if (x === '--corpus') a.corpus = path.resolve(next());
    else if (x === '--scale-dir') a.scaleDir = path.resolve(next());
    else if (x === '--scale-files') a.scaleFiles = Number(next());
    else if (x === '--scales') a.scales = next().split(',').filter(Boolean).map(Number);
    else if (x === '--queries') a.queries = Number(next());
    else if (x === '--pool') a.pool = Number(next());
    else if (x === '--embed-sample') a.embedSample = Number(next());
    else if (x === '--model') {
      const v = next();
      a.model = isStaticModel(v) && !v.endsWith('.bin') ? v : path.resolve(v);
    }
    else if (x === '--no-model') a.model = undefined;
    else if (x === '--json') a.json = true;
    else throw new Error(`unknown argument ${x}\n${USAGE}`);
  }
  for (const n of [a.scaleFiles, a.queries, a.pool, a.embedSample, ...a.scales]) if (!(n > 0)) throw new Error(`counts must be positive\n${USAGE}`);
  return a;
}

const log = (msg: string) => process.stderr.write(`[bench:engine] ${msg}\n`);
const MB = (n: number) => n / 1e6;
const peakRssMB = () => process.resourceUsage().maxRSS / 1024;

function mem(): { heapMB: number; rssMB: number; externalMB: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapMB: MB(m.heapUsed), rssMB: MB(m.rss), externalMB: MB(m.external + m.arrayBuffers) };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

// ---------------------------------------------------------------------------------------------
// The scale corpus

const IDENT = /\b(?:[a-z]+[A-Z]|[A-Z][a-z0-9]+[A-Z])[A-Za-z0-9]*\b/g;

/** Copy r of a dev file's text: camelCase/PascalCase identifiers get the suffix r in half the copies. */
function replicaText(text: string, r: number): string {
  if (r === 0) return text;
  return text.replace(IDENT, (w) => (hash(w, r) % 2 === 0 ? `${w}${r}` : w));
}

function buildScaleCorpus(args: Args): { files: number; bytes: number; seconds: number; cached: boolean } {
  const dev = walkFiles(args.corpus);
  const stampFile = path.join(args.scaleDir, '.stamp');
  const corpusStamp = fs.existsSync(path.join(args.corpus, '.stamp')) ? fs.readFileSync(path.join(args.corpus, '.stamp'), 'utf8') : String(dev.length);
  const stamp = JSON.stringify({ v: 1, files: args.scaleFiles, corpus: corpusStamp });
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) {
    return { files: args.scaleFiles, bytes: dirBytes(args.scaleDir), seconds: 0, cached: true };
  }
  log(`writing the scale corpus (${args.scaleFiles} files) into ${args.scaleDir} …`);
  fs.rmSync(args.scaleDir, { recursive: true, force: true });
  const t0 = performance.now();
  const texts = dev.map((f) => ({ rel: f.rel, bytes: fs.readFileSync(f.abs) }));
  let written = 0;
  let bytes = 0;
  for (let r = 0; written < args.scaleFiles; r++) {
    for (const f of texts) {
      if (written >= args.scaleFiles) break;
      const decoded = decodeBytes(f.bytes).text;
      const out = decoded === undefined ? f.bytes : Buffer.from(replicaText(decoded, r));
      const file = path.join(args.scaleDir, `r${r}`, f.rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, out);
      written++;
      bytes += out.byteLength;
    }
  }
  fs.writeFileSync(stampFile, stamp);
  return { files: written, bytes, seconds: (performance.now() - t0) / 1000, cached: false };
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface IndexRun {
  files: number;
  skipped: number;
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
  peakRssMB: number;
  heapMB: number;
  storeMB: number;
  saveSeconds: number;
  loadSeconds: number;
}

async function indexFromDisk(root: string, label: string): Promise<{ engine: Engine; run: IndexRun }> {
  gc();
  const engine = new Engine({ noEmbedderReason: 'keyword-only benchmark' });
  const t0 = performance.now();
  let last = 0;
  for await (const p of engine.indexFolder(root, { embed: false })) {
    if (p.filesTotal && performance.now() - last > 10_000) {
      last = performance.now();
      log(`${label}: ${p.filesDone}/${p.filesTotal} files, ${engine.chunkCount} chunks`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const heap = mem().heapMB;
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-bench-store-'));
  try {
    const s0 = performance.now();
    saveStore(store, engine);
    const saveSeconds = (performance.now() - s0) / 1000;
    const storeMB = MB(dirBytes(store));
    const l0 = performance.now();
    const back = new Engine({ noEmbedderReason: 'keyword-only benchmark' });
    const loaded = loadStore(store, back);
    const loadSeconds = (performance.now() - l0) / 1000;
    if (!loaded.ok) throw new Error(`${label}: the saved store does not load: ${loaded.reason}`);
    if (back.chunkCount !== engine.chunkCount) throw new Error(`${label}: loaded ${back.chunkCount} chunks of ${engine.chunkCount}`);
    const skipped = [...engine.files.values()].filter((f) => f.skipped).length;
    return {
      engine,
      run: {
        files: engine.files.size - skipped,
        skipped,
        chunks: engine.chunkCount,
        seconds,
        chunksPerSecond: engine.chunkCount / seconds,
        peakRssMB: peakRssMB(),
        heapMB: heap,
        storeMB,
        saveSeconds,
        loadSeconds,
      },
    };
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
}

/** Append a line with a new word to `n` JS/TS/Markdown files; ms from `updateFile` to a keyword hit. */
function updateLatency(engine: Engine, root: string, n = 20): { p50: number; p95: number; max: number; n: number } {
  const candidates = [...engine.files.values()].filter((f) => !f.skipped && /\.(js|ts|md)$/.test(f.path) && f.size > 2_000).sort((a, b) => (a.path < b.path ? -1 : 1));
  const picked = Array.from({ length: Math.min(n, candidates.length) }, (_, i) => candidates[Math.floor((i * candidates.length) / Math.min(n, candidates.length))]);
  const ms: number[] = [];
  picked.forEach((rec, i) => {
    const word = `fathomprobe${i}x${Date.now() % 1000}`;
    const original = fs.readFileSync(path.join(root, rec.path));
    const edited = Buffer.concat([original, Buffer.from(rec.path.endsWith('.md') ? `\n\n${word}\n` : `\n// ${word}\n`)]);
    const t0 = performance.now();
    engine.updateFile(rec.path, edited, { size: edited.byteLength, mtimeMs: Date.now() });
    const hit = engine.keyword.search(word, { k: 1 });
    ms.push(performance.now() - t0);
    if (!hit.length || engine.chunks.get(hit[0].docId)?.path !== rec.path) throw new Error(`update of ${rec.path}: the new word is not found`);
    engine.updateFile(rec.path, original, { size: original.byteLength, mtimeMs: rec.mtimeMs });
  });
  return { p50: pct(ms, 50), p95: pct(ms, 95), max: Math.max(...ms), n: ms.length };
}

/**
 * Hybrid latency of the queries Fathom's own model takes part in. It is asked only for plain-words
 * queries that no chunk holds as written (fusion.ts `ownModelWeight`); for the others hybrid costs
 * what keyword costs, and the mined gold queries are names, keys and shown strings. So: each gold
 * query's words (the symbol dropped) in reverse order — the same words and cost, not a phrase any
 * chunk holds —, timed, and kept when a hit carries a meaning rank.
 */
async function fusedLatency(engine: Engine, queries: GoldQuery[]): Promise<Latency | undefined> {
  const words = (q: GoldQuery) => q.query.replace(/\s*\([^)]*\)\s*$/, '').toLowerCase().split(/[^\p{L}]+/u).filter(Boolean);
  const texts = [...new Set(queries.map((q, i) => [...words(q), ...words(queries[(i + 1) % queries.length])].reverse().slice(0, 8).join(' ')))];
  for (const q of texts.slice(0, 20)) await engine.search(q, { k: 10, mode: 'hybrid' });
  const ms: number[] = [];
  for (const q of texts) {
    const t0 = performance.now();
    await engine.search(q, { k: 10, mode: 'hybrid' });
    const t = performance.now() - t0;
    // the model is asked (its meaning rank may still place nothing in the top 10)
    if (ownModelWeight(q, false) > 0) ms.push(t);
  }
  return ms.length ? { p50: pct(ms, 50), p95: pct(ms, 95), max: Math.max(...ms), n: ms.length } : undefined;
}

/** Builds an engine from the first files of the scale corpus until it holds `target` chunks. */
function engineOfSize(files: ReturnType<typeof walkFiles>, target: number): Engine {
  const engine = new Engine({ noEmbedderReason: 'filled by the benchmark' });
  for (const f of files) {
    if (engine.chunkCount >= target) break;
    const bytes = fs.readFileSync(f.abs);
    engine.updateFile(f.rel, bytes, { size: bytes.byteLength, mtimeMs: 0 });
  }
  return engine;
}

/** Gives every chunk of `engine` a vector: one of the pool's (by hash of the chunk id) plus noise. */
function fillVectors(engine: Engine, embedder: Embedder, pool: Float32Array[]): VectorStore {
  const d = embedder.dims;
  const rows = engine.chunks.length;
  const store = new VectorStore(d, Math.max(1, rows));
  const rand = rng(7);
  const v = new Float32Array(d);
  const sigma = 0.5 / Math.sqrt(d); // noise of norm ~0.5 around a unit vector
  for (let id = 0; id < rows; id++) {
    const c = engine.chunks.get(id);
    if (!c) continue;
    const base = pool[hash(c.id) % pool.length];
    let n = 0;
    for (let j = 0; j < d; j += 2) {
      const u1 = rand() || 1e-12;
      const u2 = rand();
      const r = Math.sqrt(-2 * Math.log(u1)) * sigma;
      v[j] = base[j] + r * Math.cos(2 * Math.PI * u2);
      if (j + 1 < d) v[j + 1] = base[j + 1] + r * Math.sin(2 * Math.PI * u2);
    }
    for (let j = 0; j < d; j++) n += v[j] * v[j];
    n = Math.sqrt(n);
    for (let j = 0; j < d; j++) v[j] /= n;
    store.set(id, v);
  }
  engine.embedder = embedder;
  engine.vectors = new VectorStore(d, 1);
  engine.noEmbedderReason = undefined;
  engine.restoreVectors(store);
  return store;
}

interface Latency {
  p50: number;
  p95: number;
  max: number;
  n: number;
}

async function latency(engine: Engine, queries: GoldQuery[], mode: SearchMode): Promise<Latency> {
  for (const q of queries.slice(0, 20)) await engine.search(q.query, { k: 10, mode });
  const ms: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await engine.search(q.query, { k: 10, mode });
    ms.push(performance.now() - t0);
  }
  return { p50: pct(ms, 50), p95: pct(ms, 95), max: Math.max(...ms), n: ms.length };
}

/** recall@10 of int8 rows (symmetric, per-row scale) against the float top-10. */
function int8Recall(store: VectorStore, queryVectors: Float32Array[]): number {
  const { data, rows } = store.matrix();
  const d = store.dims;
  const q8 = new Int8Array(rows * d);
  const scale = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let j = 0; j < d; j++) m = Math.max(m, Math.abs(data[r * d + j]));
    scale[r] = m / 127 || 1;
    for (let j = 0; j < d; j++) q8[r * d + j] = Math.round(data[r * d + j] / scale[r]);
  }
  let sum = 0;
  for (const q of queryVectors) {
    const exact = new Set(store.search(q, 10).map((h) => h.docId));
    const approx = new Float32Array(rows);
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += q8[r * d + j] * q[j];
      approx[r] = s * scale[r];
    }
    const got = store.topK(approx, 10);
    sum += got.filter((h) => exact.has(h.docId)).length / Math.max(1, exact.size);
  }
  return sum / queryVectors.length;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.corpus)) throw new Error(`no corpus at ${args.corpus}: run \`node bench/setup-corpus.mjs\` first`);
  const report: Record<string, unknown> = { machine: { cpus: os.availableParallelism(), node: process.version }, model: args.model ?? null };

  // 1. dev corpus
  log(`indexing the dev corpus ${args.corpus} (keyword-only) …`);
  const dev = await indexFromDisk(args.corpus, 'dev');
  const upd = updateLatency(dev.engine, args.corpus);
  const gold = mineGold(dev.engine, { perRoute: Math.ceil(args.queries / 4) }).slice(0, args.queries);
  report.dev = { ...dev.run, updateMs: upd };

  let embedder: Embedder | undefined;
  let pool: Float32Array[] = [];
  let queryVectors: Float32Array[] = [];
  if (args.model) {
    const created = await createEmbedder(isStaticModel(args.model) ? { model: args.model } : { localModelPath: args.model });
    if ('error' in created) {
      log(`no model, dense and hybrid are skipped: ${created.error}`);
      report.modelError = created.error;
    } else {
      embedder = created.embedder;
      const chunks = [...dev.engine.chunks].filter((c): c is NonNullable<typeof c> => !!c);
      const sample = Array.from({ length: Math.min(args.embedSample, chunks.length) }, (_, i) => embedText(chunks[Math.floor((i * chunks.length) / args.embedSample)]));
      await embedder.embed(sample.slice(0, 8));
      log(`embedding ${sample.length} dev chunks with ${args.model} …`);
      const t0 = performance.now();
      const vecs = await embedder.embed(sample);
      const rate = sample.length / ((performance.now() - t0) / 1000);
      pool = vecs.slice(0, args.pool);
      if (pool.length < args.pool) {
        const more = Array.from({ length: Math.min(args.pool, chunks.length) - pool.length }, (_, i) => embedText(chunks[(i * 7919) % chunks.length]));
        pool.push(...(await embedder.embed(more)));
      }
      queryVectors = await embedder.embed(gold.map((g) => g.query));
      (report.dev as Record<string, unknown>).embedding = {
        sample: sample.length,
        chunksPerSecond: rate,
        threads: (embedder as { threads?: number }).threads,
        projectedFullIndexSeconds: dev.run.seconds + dev.run.chunks / rate,
      };
    }
  }
  const devChunks = dev.engine.chunkCount;
  dev.engine.reset();

  // 2. scale corpus from disk
  const corpus = buildScaleCorpus(args);
  report.scaleCorpus = corpus;
  log(`indexing the scale corpus (${corpus.files} files, ${MB(corpus.bytes).toFixed(0)} MB) keyword-only …`);
  const scale = await indexFromDisk(args.scaleDir, 'scale');
  report.scale = scale.run;

  // 3 + 4. latency per size and mode; int8 recall
  const files = walkFiles(args.scaleDir);
  const sizes: Record<string, unknown> = {};
  for (const target of args.scales) {
    const whole = target >= scale.engine.chunkCount * 0.95;
    const engine = whole ? scale.engine : engineOfSize(files, target);
    const label = `${engine.chunkCount} chunks`;
    log(`latency at ${label} …`);
    const row: Record<string, unknown> = { chunks: engine.chunkCount, keyword: await latency(engine, gold, 'keyword') };
    if (embedder && pool.length) {
      const before = mem();
      const store = fillVectors(engine, embedder, pool);
      row.vectorsMB = mem().externalMB - before.externalMB;
      row.dense = await latency(engine, gold, 'dense');
      row.hybrid = await latency(engine, gold, 'hybrid');
      row.hybridFused = await fusedLatency(engine, gold);
      row.denseKernel = engine.kernelFailed ? `JS scan (${engine.kernelFailed})` : embedder.scoreRows ? 'ONNX Runtime MatMul' : store.fastSearch(queryVectors[0], 10) ? 'int8 SIMD scan + float re-score' : 'JS scan';
      const js: number[] = [];
      for (const q of queryVectors.slice(0, 30)) {
        const t0 = performance.now();
        store.search(q, 50);
        js.push(performance.now() - t0);
      }
      row.jsScanMs = { p50: pct(js, 50), p95: pct(js, 95) };
      if (engine.chunkCount <= 200_000) row.int8Recall10 = int8Recall(store, queryVectors);
      engine.vectors = undefined;
      engine.embedder = undefined;
    }
    row.peakRssMB = peakRssMB();
    sizes[String(target)] = row;
    if (!whole) engine.reset();
  }
  report.latency = sizes;
  report.peakRssMB = peakRssMB();
  await embedder?.dispose();

  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const f1 = (n: number) => n.toFixed(1);
  const out: string[] = [];
  const d = report.dev as IndexRun & { updateMs: Latency; embedding?: { sample: number; chunksPerSecond: number; threads: number; projectedFullIndexSeconds: number } };
  out.push(`machine: ${os.availableParallelism()} cores, node ${process.version}; model: ${args.model ?? 'none (keyword only)'}`);
  out.push('');
  out.push('INDEX (keyword-only, from disk: walk, read, chunk, keyword index)');
  out.push('corpus   files   chunks   seconds  chunks/s  peak RSS MB  heap MB  store MB  save s  load s');
  for (const [name, r] of [['dev', d], ['scale', report.scale as IndexRun]] as const) {
    out.push(
      `${name.padEnd(6)} ${String(r.files).padStart(7)} ${String(r.chunks).padStart(8)} ${f1(r.seconds).padStart(9)} ${r.chunksPerSecond.toFixed(0).padStart(9)} ${r.peakRssMB.toFixed(0).padStart(12)} ${r.heapMB.toFixed(0).padStart(8)} ${f1(r.storeMB).padStart(9)} ${f1(r.saveSeconds).padStart(7)} ${f1(r.loadSeconds).padStart(7)}`,
    );
  }
  out.push(`(dev corpus: ${devChunks} chunks; scale corpus: ${corpus.files} files, ${MB(corpus.bytes).toFixed(0)} MB${corpus.cached ? ', cached' : `, written in ${f1(corpus.seconds)} s`})`);
  out.push(`update of one file (dev corpus index, ${d.updateMs.n} files): keyword-searchable after p50 ${d.updateMs.p50.toFixed(2)} ms, p95 ${d.updateMs.p95.toFixed(2)} ms, max ${d.updateMs.max.toFixed(2)} ms`);
  if (d.embedding) {
    out.push(
      `embedding (${d.embedding.sample} dev chunks, ${d.embedding.threads} thread(s)): ${d.embedding.chunksPerSecond.toFixed(1)} chunks/s → full dev index with vectors ≈ ${(d.embedding.projectedFullIndexSeconds / 60).toFixed(1)} min`,
    );
  }
  out.push('');
  out.push('QUERY LATENCY ms, engine.search(q, {k: 10}) over mined gold queries (p50 / p95)');
  out.push('chunks      keyword          dense            hybrid           hybrid, fused    JS scan (dense)  int8 recall@10  vectors MB');
  const lat = (l?: Latency) => (l ? `${l.p50.toFixed(2)} / ${l.p95.toFixed(2)}`.padEnd(17) : '-'.padEnd(17));
  for (const r of Object.values(sizes) as Array<Record<string, unknown>>) {
    const js = r.jsScanMs as { p50: number; p95: number } | undefined;
    out.push(
      `${String(r.chunks).padEnd(11)} ${lat(r.keyword as Latency)}${lat(r.dense as Latency)}${lat(r.hybrid as Latency)}${lat(r.hybridFused as Latency)}${(js ? `${js.p50.toFixed(1)} / ${js.p95.toFixed(1)}` : '-').padEnd(17)}${(r.int8Recall10 === undefined ? '-' : (r.int8Recall10 as number).toFixed(4)).padEnd(16)}${r.vectorsMB === undefined ? '-' : (r.vectorsMB as number).toFixed(0)}`,
    );
  }
  const kernel = (Object.values(sizes)[0] as Record<string, unknown> | undefined)?.denseKernel;
  if (kernel) out.push(`dense top-k through: ${kernel as string}`);
  for (const r of Object.values(sizes) as Array<Record<string, unknown>>) {
    const f = r.hybridFused as Latency | undefined;
    if (f) out.push(`hybrid, fused: the ${f.n} queries (two gold queries' words, reversed) where the model is asked`);
  }
  out.push(`peak RSS of the whole run: ${(report.peakRssMB as number).toFixed(0)} MB`);
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
