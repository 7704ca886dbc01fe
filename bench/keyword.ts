/**
 * Keyword index benchmark: how fast and how big the KeywordIndex is at 10k, 100k and 1M chunks,
 * and how well FlexSearch's own order ranks next to the BM25F re-score of its candidates.
 *
 *   node bench/setup-corpus.mjs                       # once: the dev corpus in bench/.corpus
 *   node --import tsx bench/keyword.ts                # everything (≈ 10 min on 2 cores)
 *   node --import tsx bench/keyword.ts --scales 10000,100000 --queries 300 --json
 *   node --import tsx bench/keyword.ts --no-quality   # latency and memory only
 *   node --import tsx bench/keyword.ts --no-scale     # quality only
 *
 * Queries are mined from the dev corpus chunks, each with the chunk(s)/file it came from as gold:
 * - symbol: a JS/TS/Vue symbol's identifier of 2+ parts, unique to one file, written as
 *   PRIOR_ART.md does: `zoom control (getZoomControl)`;
 * - i18n: a string value of an i18n dictionary (2+ words) found in exactly one chunk;
 * - heading: a Markdown section heading (2+ words) found in exactly one file.
 * hit@K: a gold chunk (or a chunk of the gold file, for the file columns) among the first K
 * results; MRR: 1/rank of the first such result within the first 10, else 0.
 *
 * Scale corpora replicate the dev chunks: copy r of a chunk gets the path `r<r>/<path>` and,
 * for r > 0, about 30% of its words (chosen by a hash of word and r) get the suffix `<r>`
 * (`getZoomControl` → `getZoomControl7`), so the vocabulary grows with the corpus as in real
 * code. The 10k corpus is a stride sample of the dev chunks.
 *
 * Memory is `process.memoryUsage()` after a GC, minus the same before the build (the dev
 * chunks stay loaded throughout). Latency is per `search(query, {k: 10})`, one warm-up round
 * then `--rounds` rounds (default 2) over all mined queries, on a machine shared with others:
 * compare the two scorings within one run.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { gc } from './gc';
import { hash, rng } from './rng';
import { chunkFile, decodeBytes, resolveOptions, type Chunk } from '../src/chunkers/index';
import { compileFilter, rrf } from '../src/index/rank/fusion';
import { DEFAULT_BOOSTS, type FieldBoosts, type KeywordFields, type KeywordIndexOptions } from '../src/index/keyword';
import { FlexsearchOrderIndex as KeywordIndex, type Scoring } from './flexsearch-order';
import { terms } from '../src/index/terms';

interface Args {
  corpus: string;
  scales: number[];
  queries: number;
  rounds: number;
  quality: boolean;
  json: boolean;
  misses: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    corpus: path.join(__dirname, '.corpus'),
    scales: [10_000, 100_000, 1_000_000],
    queries: 300,
    rounds: 2,
    quality: true,
    json: false,
    misses: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    if (x === '--scales') a.scales = next().split(',').filter(Boolean).map((s) => Math.round(Number(s)));
    else if (x === '--no-scale') a.scales = [];
    else if (x === '--queries') a.queries = Number(next());
    else if (x === '--rounds') a.rounds = Number(next());
    else if (x === '--no-quality') a.quality = false;
    else if (x === '--json') a.json = true;
    else if (x === '--misses') a.misses = true;
    else if (x === '--corpus') a.corpus = next();
    else throw new Error(`unknown argument ${x}`);
  }
  if (a.scales.some((s) => !(s > 0))) throw new Error('--scales: positive numbers');
  return a;
}

const log = (msg: string) => process.stderr.write(`[bench:keyword] ${msg}\n`);


function mem(): { heap: number; rss: number; external: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss, external: m.external + m.arrayBuffers };
}

// ---------------------------------------------------------------------------------------------
// Corpus

function* walk(dir: string, base = dir): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full, base);
    else if (entry.isFile()) yield path.relative(base, full).split(path.sep).join('/');
  }
}

function loadChunks(dir: string): { chunks: Chunk[]; files: number; bytes: number; seconds: number } {
  if (!fs.existsSync(dir)) throw new Error(`no corpus at ${dir}: run \`node bench/setup-corpus.mjs\` first`);
  const opts = resolveOptions();
  const chunks: Chunk[] = [];
  let files = 0;
  let bytes = 0;
  const t0 = performance.now();
  for (const rel of walk(dir)) {
    const raw = fs.readFileSync(path.join(dir, rel));
    const text = decodeBytes(raw).text;
    if (text === undefined) continue;
    files++;
    bytes += raw.length;
    for (const c of chunkFile(rel, text, opts).chunks) chunks.push(c);
  }
  return { chunks, files, bytes, seconds: (performance.now() - t0) / 1000 };
}

const fieldsOf = (c: Chunk): KeywordFields => ({ path: c.path, header: c.header, symbol: c.symbol, text: c.text, language: c.language, kind: c.kind });

const WORD = /[A-Za-z][A-Za-z0-9]{3,}/g;

/** Copy r of a dev chunk (see the header comment). */
function replica(c: Chunk, r: number): KeywordFields {
  if (r === 0) return fieldsOf(c);
  const suffix = String(r);
  const perturb = (s: string | undefined) => (s ? s.replace(WORD, (w) => (hash(w, r) % 10 < 3 ? w + suffix : w)) : s);
  return {
    path: `r${r}/${c.path}`,
    header: perturb(c.header)?.replace(c.path, `r${r}/${c.path}`),
    symbol: perturb(c.symbol),
    text: perturb(c.text),
    language: c.language,
    kind: c.kind,
  };
}

// ---------------------------------------------------------------------------------------------
// Queries

type QueryType = 'symbol' | 'i18n' | 'heading';
interface Query {
  type: QueryType;
  q: string;
  goldFile: string;
  goldChunks: Set<number>;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

function leafStrings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) leafStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) leafStrings(x, out);
}

function wordCount(s: string): number {
  return s.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
}

function mineQueries(chunks: Chunk[], perType: number, seed = 42): Query[] {
  // symbol → the files whose chunks end with it
  const symFiles = new Map<string, Set<string>>();
  const tail = (c: Chunk) => (c.symbol ? c.symbol.slice(c.symbol.lastIndexOf('.') + 1) : '');
  chunks.forEach((c) => {
    if (!['javascript', 'typescript', 'vue'].includes(c.language)) return;
    const t = tail(c);
    if (!IDENT.test(t)) return;
    let s = symFiles.get(t);
    if (!s) symFiles.set(t, (s = new Set()));
    s.add(c.path);
  });
  const bySymbol: Query[] = [];
  for (const [sym, files] of symFiles) {
    if (files.size !== 1) continue;
    const parts = terms(sym).slice(1);
    if (parts.length < 2) continue;
    const file = [...files][0];
    const gold = new Set<number>();
    chunks.forEach((c, i) => {
      if (c.path === file && tail(c) === sym) gold.add(i);
    });
    bySymbol.push({ type: 'symbol', q: `${parts.join(' ')} (${sym})`, goldFile: file, goldChunks: gold });
  }

  // i18n values → the chunks holding them
  const values = new Map<string, Set<number>>();
  chunks.forEach((c, i) => {
    if (c.kind !== 'i18n-section' && c.kind !== 'i18n-labels') return;
    const wrap = (c.meta?.jsonWrap as string | undefined) ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(wrap === '{}' ? `{${c.text}}` : wrap === '[]' ? `[${c.text}]` : c.text);
    } catch {
      return;
    }
    const leaves: string[] = [];
    leafStrings(parsed, leaves);
    for (const v of leaves) {
      const t = v.trim();
      if (t.length < 8 || t.length > 120 || wordCount(t) < 2) continue;
      let s = values.get(t);
      if (!s) values.set(t, (s = new Set()));
      s.add(i);
    }
  });
  const byI18n: Query[] = [];
  for (const [v, ids] of values) {
    if (ids.size !== 1) continue;
    const i = [...ids][0];
    byI18n.push({ type: 'i18n', q: v, goldFile: chunks[i].path, goldChunks: ids });
  }

  // Markdown headings → files
  const heads = new Map<string, Set<string>>();
  const headOf = (c: Chunk) => (c.symbol ? c.symbol.slice(c.symbol.lastIndexOf(' > ') + 1).replace(/^> /, '').trim() : '');
  chunks.forEach((c) => {
    if (c.language !== 'markdown' || c.kind !== 'section') return;
    const h = headOf(c);
    if (h.length > 80 || wordCount(h) < 2) return;
    let s = heads.get(h);
    if (!s) heads.set(h, (s = new Set()));
    s.add(c.path);
  });
  const byHeading: Query[] = [];
  for (const [h, files] of heads) {
    if (files.size !== 1) continue;
    const file = [...files][0];
    const gold = new Set<number>();
    chunks.forEach((c, i) => {
      if (c.path === file && c.language === 'markdown' && headOf(c) === h) gold.add(i);
    });
    if (gold.size === 0) continue;
    byHeading.push({ type: 'heading', q: h, goldFile: file, goldChunks: gold });
  }

  const rand = rng(seed);
  const sample = (xs: Query[]) => {
    const a = xs.slice().sort((x, y) => (x.q < y.q ? -1 : x.q > y.q ? 1 : 0));
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a.slice(0, perType);
  };
  return [...sample(bySymbol), ...sample(byI18n), ...sample(byHeading)];
}

/**
 * The same query with the number of its longest word of 4+ ASCII letters toggled (`layers` ↔
 * `layer`): how a person may remember a heading or a message (for the stemming test).
 */
function pluralToggled(q: string): string {
  const words = q.match(/\b[A-Za-z]{4,}\b/g);
  if (!words) return q;
  const w = words.reduce((a, b) => (b.length > a.length ? b : a));
  return q.replace(new RegExp(`\\b${w}\\b`), w.endsWith('s') ? w.slice(0, -1) : `${w}s`);
}

/** A symbol query without its identifier: `zoom control (getZoomControl)` → `zoom control`. */
const wordsOnly = (q: string) => q.replace(/\s*\([^)]*\)$/, '');
/** A symbol query reduced to its identifier: → `getZoomControl`. */
const identOnly = (q: string) => q.match(/\(([^)]*)\)$/)?.[1] ?? q;

// ---------------------------------------------------------------------------------------------
// Measurements

interface Quality {
  n: number;
  hit1: number;
  hit5: number;
  mrr: number;
  fileHit1: number;
  fileHit5: number;
  fileMrr: number;
}

function quality(
  index: KeywordIndex,
  chunks: Chunk[],
  queries: Query[],
  scoring: Scoring,
  rewrite?: (q: string) => string,
  candidates?: number,
  maxPostings?: number,
): Record<string, Quality> {
  const acc: Record<string, Quality> = {};
  const bump = (key: string, rank: number, frank: number) => {
    const a = (acc[key] ??= { n: 0, hit1: 0, hit5: 0, mrr: 0, fileHit1: 0, fileHit5: 0, fileMrr: 0 });
    a.n++;
    if (rank === 1) a.hit1++;
    if (rank >= 1 && rank <= 5) a.hit5++;
    if (rank >= 1) a.mrr += 1 / rank;
    if (frank === 1) a.fileHit1++;
    if (frank >= 1 && frank <= 5) a.fileHit5++;
    if (frank >= 1) a.fileMrr += 1 / frank;
  };
  for (const q of queries) {
    const hits = index.search(rewrite ? rewrite(q.q) : q.q, { k: 10, scoring, candidates, maxPostings });
    const rank = hits.findIndex((h) => q.goldChunks.has(h.docId)) + 1;
    const frank = hits.findIndex((h) => chunks[h.docId].path === q.goldFile) + 1;
    bump(q.type, rank, frank);
    bump('all', rank, frank);
  }
  for (const a of Object.values(acc)) {
    for (const k of ['hit1', 'hit5', 'mrr', 'fileHit1', 'fileHit5', 'fileMrr'] as const) a[k] /= a.n;
  }
  return acc;
}

function pct(xs: number[], p: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

interface Latency {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

function latency(index: KeywordIndex, queries: string[], scoring: Scoring, rounds: number, filter?: (id: number) => boolean, namesake?: number): Latency {
  for (const q of queries) index.search(q, { k: 10, scoring, filter, namesake });
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = process.hrtime.bigint();
      index.search(q, { k: 10, scoring, filter, namesake });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return { p50: pct(times, 50), p95: pct(times, 95), p99: pct(times, 99), max: Math.max(...times), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

function buildDev(chunks: Chunk[], options: KeywordIndexOptions = {}): { index: KeywordIndex; seconds: number } {
  const index = new KeywordIndex(options);
  const t0 = performance.now();
  chunks.forEach((c, i) => index.add(i, fieldsOf(c)));
  return { index, seconds: (performance.now() - t0) / 1000 };
}

function postings(index: KeywordIndex): number {
  // Distinct (doc, term) pairs: the size of FlexSearch's postings, read from the snapshot.
  const s = index.export();
  return (s.data.byteLength / 4 - 3 * s.docs - 6 * s.docs) / 2;
}

interface ScaleResult {
  chunks: number;
  buildSeconds: number;
  chunksPerSecond: number;
  vocabulary: number;
  heapMB: number;
  rssMB: number;
  externalMB: number;
  latency: Record<string, Latency>;
  update?: { removeAddPerSecond: number };
  snapshot?: { exportSeconds: number; importSeconds: number; MB: number; vocabMB: number };
}

function runScale(dev: Chunk[], size: number, queries: string[], rounds: number, snapshot: boolean): ScaleResult {
  gc();
  const before = mem();
  const index = new KeywordIndex();
  const devN = dev.length;
  const t0 = performance.now();
  let lastLog = t0;
  for (let i = 0; i < size; i++) {
    const fields = size <= devN ? fieldsOf(dev[Math.floor((i * devN) / size)]) : replica(dev[i % devN], Math.floor(i / devN));
    index.add(i, fields);
    if (performance.now() - lastLog > 15_000) {
      lastLog = performance.now();
      const m = process.memoryUsage();
      log(`  … ${i} / ${size} chunks, heap ${(m.heapUsed / 2 ** 20).toFixed(0)} MB, rss ${(m.rss / 2 ** 20).toFixed(0)} MB`);
    }
  }
  const buildSeconds = (performance.now() - t0) / 1000;
  const after = mem();
  log(`  built ${size} in ${buildSeconds.toFixed(1)} s; measuring queries`);
  const lat: Record<string, Latency> = {};
  // the identifier-level tie-break off (as before issue 12's namesake change), next to the default
  lat['bm25 namesake=0'] = latency(index, queries, 'bm25', rounds, undefined, 0);
  for (const scoring of ['flexsearch', 'bm25'] as Scoring[]) lat[scoring] = latency(index, queries, scoring, rounds);
  const vue = compileFilter({ pathGlob: '**/*.vue', language: ['vue'] }, (id) => index.lookup(id));
  lat['bm25 + filter *.vue'] = latency(index, queries, 'bm25', 1, vue);
  const rare = compileFilter({ pathGlob: 'r0/har-schema/**' }, (id) => index.lookup(id));
  lat['bm25 + filter rare path'] = latency(index, queries.slice(0, 60), 'bm25', 1, rare);
  // The keyword half of a hybrid query: top 100, fused with a 100-id stand-in dense list.
  {
    const rand = rng(3);
    const dense = Array.from({ length: 100 }, () => Math.floor(rand() * size));
    const times: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      for (const q of queries) {
        const t0 = process.hrtime.bigint();
        const kw = index.search(q, { k: 100 });
        rrf([{ name: 'keyword', ids: kw.map((h) => h.docId) }, { name: 'dense', ids: dense }], { limit: 10 });
        if (r > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    lat['bm25 k=100 + rrf'] = { p50: pct(times, 50), p95: pct(times, 95), p99: pct(times, 99), max: Math.max(...times), mean: times.reduce((a, b) => a + b, 0) / times.length };
  }

  // Updates: remove 1,000 chunks and add them again.
  const n = Math.min(1000, size);
  const t1 = performance.now();
  for (let i = 0; i < n; i++) {
    const id = Math.floor((i * size) / n);
    index.remove(id);
    index.add(id, size <= devN ? fieldsOf(dev[Math.floor((id * devN) / size)]) : replica(dev[id % devN], Math.floor(id / devN)));
  }
  const update = { removeAddPerSecond: n / ((performance.now() - t1) / 1000) };

  const result: ScaleResult = {
    chunks: size,
    buildSeconds,
    chunksPerSecond: size / buildSeconds,
    vocabulary: index.vocabularySize,
    heapMB: (after.heap - before.heap) / 2 ** 20,
    rssMB: (after.rss - before.rss) / 2 ** 20,
    externalMB: (after.external - before.external) / 2 ** 20,
    latency: lat,
    update,
  };
  if (snapshot) {
    const probe = queries.slice(0, 50).map((q) => JSON.stringify(index.search(q, { k: 10 })));
    const t2 = performance.now();
    const snap = index.export();
    const exportSeconds = (performance.now() - t2) / 1000;
    const vocabMB = snap.vocab.reduce((a, t) => a + t.length * 2 + 16, 0) / 2 ** 20;
    // Free the original before importing, as a restart would.
    const copy = new KeywordIndex();
    index.clear();
    gc();
    const t3 = performance.now();
    copy.import(snap);
    const importSeconds = (performance.now() - t3) / 1000;
    const same = queries.slice(0, 50).every((q, i) => JSON.stringify(copy.search(q, { k: 10 })) === probe[i]);
    if (!same) log('  !! imported index answers differently');
    result.snapshot = { exportSeconds, importSeconds, MB: snap.data.byteLength / 2 ** 20, vocabMB };
    copy.clear();
  } else {
    index.clear();
  }
  gc();
  return result;
}

// ---------------------------------------------------------------------------------------------
// Output

function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

const f3 = (x: number) => x.toFixed(3);
const f2 = (x: number) => x.toFixed(2);
const f1 = (x: number) => x.toFixed(1);

function qualityRows(label: string, q: Record<string, Quality>): Array<Array<string | number>> {
  return ['all', 'symbol', 'i18n', 'heading']
    .filter((t) => q[t])
    .map((t) => [`${label} ${t}`, q[t].n, f3(q[t].hit1), f3(q[t].hit5), f3(q[t].mrr), f3(q[t].fileHit1), f3(q[t].fileHit5), f3(q[t].fileMrr)]);
}
const QH = ['variant / queries', 'n', 'hit@1', 'hit@5', 'MRR', 'file@1', 'file@5', 'fileMRR'];

// ---------------------------------------------------------------------------------------------

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const limit = v8.getHeapStatistics().heap_size_limit;
  if (Math.max(0, ...args.scales) >= 500_000 && limit < 12 * 2 ** 30 && !process.env.FATHOM_BENCH_CHILD) {
    log(`heap limit ${(limit / 2 ** 30).toFixed(1)} GiB: re-running with --max-old-space-size=16384`);
    const r = spawnSync(process.execPath, ['--max-old-space-size=16384', ...process.execArgv, __filename, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, FATHOM_BENCH_CHILD: '1' },
    });
    process.exit(r.status ?? 1);
  }

  const out: Record<string, unknown> = {};
  log(`loading and chunking ${args.corpus}`);
  const dev = loadChunks(args.corpus);
  log(`${dev.files} files, ${(dev.bytes / 1e6).toFixed(1)} MB → ${dev.chunks.length} chunks in ${dev.seconds.toFixed(1)} s`);
  out.corpus = { files: dev.files, MB: dev.bytes / 1e6, chunks: dev.chunks.length };
  const queries = mineQueries(dev.chunks, Math.ceil(args.queries / 3));
  const counts = { symbol: 0, i18n: 0, heading: 0 };
  for (const q of queries) counts[q.type]++;
  log(`${queries.length} mined queries: ${JSON.stringify(counts)}`);
  out.queries = counts;

  // Tokenizer speed over the chunk texts (header + text, as indexed).
  {
    const texts = dev.chunks.map((c) => `${c.header}\n${c.symbol ?? ''}\n${c.path}\n${c.text}`);
    const bytes = texts.reduce((a, t) => a + Buffer.byteLength(t), 0);
    for (const t of texts) terms(t);
    const times: number[] = [];
    let n = 0;
    for (let pass = 0; pass < 3; pass++) {
      const t0 = performance.now();
      n = 0;
      for (const t of texts) n += terms(t).length;
      times.push((performance.now() - t0) / 1000);
    }
    const s = times.sort((a, b) => a - b)[1];
    out.tokenizer = { MB: bytes / 1e6, terms: n, seconds: s, MBps: bytes / 1e6 / s };
  }

  if (args.quality) {
    log('quality on the dev corpus');
    const qual: Record<string, unknown> = {};
    const rows: Array<Array<string | number>> = [];
    const base = buildDev(dev.chunks);
    const info = { chunks: base.index.size, vocabulary: base.index.vocabularySize, postings: postings(base.index), buildSeconds: base.seconds };
    out.devIndex = info;
    for (const scoring of ['flexsearch', 'bm25'] as Scoring[]) {
      const q = quality(base.index, dev.chunks, queries, scoring);
      qual[scoring] = q;
      rows.push(...qualityRows(scoring, q));
    }
    if (args.misses) {
      for (const q of queries) {
        const top = (scoring: Scoring) => base.index.search(q.q, { k: 3, scoring });
        const f = top('flexsearch');
        const b = top('bm25');
        if (q.goldChunks.has(f[0]?.docId) && q.goldChunks.has(b[0]?.docId)) continue;
        const show = (hs: typeof f) => hs.map((h) => `${q.goldChunks.has(h.docId) ? '*' : ' '}${dev.chunks[h.docId].path}#${dev.chunks[h.docId].symbol ?? ''}`).join(' | ');
        console.log(`MISS ${q.type} "${q.q}" gold ${q.goldFile}\n   flexsearch: ${show(f)}\n   bm25:       ${show(b)}`);
      }
    }
    // Robustness: the same comparison when the documents arrive in another order (FlexSearch
    // breaks its ties by insertion order) and with queries a person would rather type.
    const robustRows: Array<Array<string | number>> = [];
    {
      const order = dev.chunks.map((_, i) => i);
      const rand = rng(7);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      const shuffled = new KeywordIndex();
      for (const i of order) shuffled.add(i, fieldsOf(dev.chunks[i]));
      const sym = queries.filter((q) => q.type === 'symbol');
      const prose = queries.filter((q) => q.type !== 'symbol');
      const variants: Array<[string, KeywordIndex, Query[], ((q: string) => string) | undefined]> = [
        ['shuffled add order', shuffled, queries, undefined],
        ['symbol: words only', base.index, sym, wordsOnly],
        ['symbol: identifier only', base.index, sym, identOnly],
        ['i18n+heading: one plural toggled', base.index, prose, pluralToggled],
      ];
      const robust: Record<string, unknown> = {};
      for (const [label, idx, qs, rewrite] of variants) {
        for (const scoring of ['flexsearch', 'bm25'] as Scoring[]) {
          const q = quality(idx, dev.chunks, qs, scoring, rewrite).all;
          robust[`${label} ${scoring}`] = q;
          robustRows.push([`${label}: ${scoring}`, q.n, f3(q.hit1), f3(q.hit5), f3(q.mrr), f3(q.fileHit1), f3(q.fileHit5), f3(q.fileMrr)]);
        }
      }
      shuffled.clear();
      qual.robustness = robust;
    }
    // Candidate pool of the re-score, and the postings budget as a share of the corpus (the
    // default 300,000 is 0.3·N at 1M chunks, 3·N at 100k: it prunes only at scale).
    for (const candidates of [50, 1000]) {
      const q = quality(base.index, dev.chunks, queries, 'bm25', undefined, candidates);
      qual[`bm25 candidates=${candidates}`] = q;
      rows.push(...qualityRows(`bm25 cand=${candidates}`, q).slice(0, 1));
    }
    for (const share of [0.3, 0.1, 0.03, 0]) {
      const maxPostings = Math.max(1, Math.round(share * dev.chunks.length));
      const q = quality(base.index, dev.chunks, queries, 'bm25', undefined, undefined, maxPostings);
      qual[`bm25 maxPostings=${share}N`] = q;
      rows.push(...qualityRows(`bm25 budget=${share}N`, q).slice(0, 1));
    }
    // Field boosts.
    const grids: Array<[string, Partial<FieldBoosts>]> = [
      ['1/1/1/1', { symbol: 1, path: 1, header: 1, text: 1 }],
      ['2/1/1/1', { symbol: 2, path: 1, header: 1, text: 1 }],
      ['3/1/2/1', { symbol: 3, path: 1, header: 2, text: 1 }],
      ['5/1/3/1', { symbol: 5, path: 1, header: 3, text: 1 }],
      ['3/2/2/1', { symbol: 3, path: 2, header: 2, text: 1 }],
      ['3/0/2/1', { symbol: 3, path: 0, header: 2, text: 1 }],
      ['3/1/1/1', { symbol: 3, path: 1, header: 1, text: 1 }],
      ['2/1/2/1', { symbol: 2, path: 1, header: 2, text: 1 }],
      ['5/0/3/1', { symbol: 5, path: 0, header: 3, text: 1 }],
      ['8/1/4/1', { symbol: 8, path: 1, header: 4, text: 1 }],
    ];
    const boostRows: Array<Array<string | number>> = [];
    const symQ = queries.filter((q) => q.type === 'symbol');
    const proseQ = queries.filter((q) => q.type !== 'symbol');
    for (const [label, boosts] of grids) {
      const idx = new KeywordIndex({ boosts });
      // Same postings: copy them in through a snapshot instead of re-tokenizing.
      idx.import(base.index.export());
      const q = quality(idx, dev.chunks, queries, 'bm25');
      const w = quality(idx, dev.chunks, symQ, 'bm25', wordsOnly).all;
      const p = quality(idx, dev.chunks, proseQ, 'bm25', pluralToggled).all;
      qual[`boosts ${label}`] = { asMined: q, symbolWordsOnly: w, pluralToggled: p };
      const a = q.all;
      boostRows.push([label, f3(a.hit1), f3(a.mrr), f3(q.symbol.hit1), f3(q.i18n.hit1), f3(q.heading.hit1), f3(w.hit1), f3(w.mrr), f3(p.hit1), f3(p.mrr)]);
      idx.clear();
    }
    base.index.clear();

    // Stemming and single digits: the index is rebuilt with the option.
    const variantRows: Array<Array<string | number>> = [];
    const headingQ = queries.filter((q) => q.type !== 'symbol');
    const symbolQ = queries.filter((q) => q.type === 'symbol');
    for (const [label, opts] of [
      ['default', {}],
      ['no stem', { stem: false }],
      ['stem', { stem: true }],
      ['stem added', { stem: 'add' }],
      ['single digits', { singleDigits: true }],
      ['weak: none', { weakHalf: 'none' }],
      ['weak: all (parts too)', { weakHalf: 'all' }],
    ] as Array<[string, KeywordIndexOptions]>) {
      const b = buildDev(dev.chunks, opts);
      const q = quality(b.index, dev.chunks, queries, 'bm25');
      const plural = quality(b.index, dev.chunks, headingQ, 'bm25', pluralToggled);
      const words = quality(b.index, dev.chunks, symbolQ, 'bm25', wordsOnly);
      qual[`tokenizer ${label}`] = { asMined: q, pluralToggled: plural, symbolWordsOnly: words, vocabulary: b.index.vocabularySize, postings: postings(b.index) };
      variantRows.push([`${label}: as mined`, q.all.n, f3(q.all.hit1), f3(q.all.hit5), f3(q.all.mrr), f3(q.all.fileHit1), f3(q.all.fileHit5), f3(q.all.fileMrr)]);
      variantRows.push([`${label}: plurals toggled`, plural.all.n, f3(plural.all.hit1), f3(plural.all.hit5), f3(plural.all.mrr), f3(plural.all.fileHit1), f3(plural.all.fileHit5), f3(plural.all.fileMrr)]);
      variantRows.push([`${label}: symbol words only`, words.all.n, f3(words.all.hit1), f3(words.all.hit5), f3(words.all.mrr), f3(words.all.fileHit1), f3(words.all.fileHit5), f3(words.all.fileMrr)]);
      variantRows.push([`${label}: vocabulary / postings`, '', b.index.vocabularySize, postings(b.index), '', '', '', '']);
      b.index.clear();
    }
    out.quality = qual;
    if (!args.json) {
      console.log(`\nDEV CORPUS: ${dev.files} files, ${(dev.bytes / 1e6).toFixed(1)} MB, ${dev.chunks.length} chunks; index ${info.vocabulary} terms, ${info.postings} postings, built in ${f2(info.buildSeconds)} s`);
      console.log(`queries: ${JSON.stringify(counts)} (mined; gold = the chunk(s) and file they came from)`);
      console.log(`\nQUALITY flexsearch vs bm25 (k=10, default boosts ${JSON.stringify(DEFAULT_BOOSTS)})\n${table(QH, rows)}`);
      console.log(`\nROBUSTNESS flexsearch vs bm25\n${table(QH, robustRows)}`);
      console.log(
        `\nBM25F FIELD BOOSTS symbol/path/header/text (hit@1 and MRR as mined; symbol words only; one plural toggled)\n${table(
          ['s/p/h/t', 'hit@1', 'MRR', 'sym@1', 'i18n@1', 'head@1', 'words@1', 'wordsMRR', 'plural@1', 'pluralMRR'],
          boostRows,
        )}`,
      );
      console.log(`\nTOKENIZER VARIANTS (bm25; plural toggling on the i18n + heading queries; words only on the symbol queries)\n${table(QH, variantRows)}`);
    }
  }

  const tk = out.tokenizer as { MB: number; terms: number; seconds: number; MBps: number };
  if (!args.json) console.log(`\nTOKENIZER: ${f1(tk.MB)} MB of chunk text → ${tk.terms} terms in ${f2(tk.seconds)} s = ${f1(tk.MBps)} MB/s`);

  const qstrings = queries.map((q) => q.q);
  const scales: ScaleResult[] = [];
  for (const size of args.scales) {
    log(`scale ${size}`);
    const r = runScale(dev.chunks, size, qstrings, args.rounds, true);
    scales.push(r);
    if (!args.json) {
      console.log(`\nSCALE ${size} chunks: built in ${f1(r.buildSeconds)} s = ${Math.round(r.chunksPerSecond)} chunks/s; ${r.vocabulary} terms; heap +${f1(r.heapMB)} MB, external +${f1(r.externalMB)} MB, rss +${f1(r.rssMB)} MB`);
      console.log(table(['search (ms)', 'p50', 'p95', 'p99', 'max', 'mean'], Object.entries(r.latency).map(([k, l]) => [k, f2(l.p50), f2(l.p95), f2(l.p99), f2(l.max), f2(l.mean)])));
      if (r.update) console.log(`updates: ${Math.round(r.update.removeAddPerSecond)} remove+add per second`);
      if (r.snapshot) console.log(`snapshot: ${f1(r.snapshot.MB)} MB binary + ${f1(r.snapshot.vocabMB)} MB of terms; export ${f2(r.snapshot.exportSeconds)} s, import (rebuilds FlexSearch) ${f2(r.snapshot.importSeconds)} s`);
    }
  }
  out.scales = scales;
  if (args.json) console.log(JSON.stringify(out, null, 1));
}

main();
