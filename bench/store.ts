/**
 * Store benchmark: save and load of the local index at 100k and 1M chunks, the store of a base
 * commit (by default `v5`: the commit before the store's format 6, keyword vocabulary as JSON and
 * postings built on load; `v4`: before format 5, chunks as JSON lines; `v3`: before format 4, the
 * loader that rebuilt FlexSearch; or any commit) next to this tree's, in one run.
 *
 *   nice -n 10 node --max-old-space-size=16000 --import tsx bench/store.ts      # 100k and 1M
 *   node --import tsx bench/store.ts --scales 100000 --base HEAD~3       # smaller, another base
 *   node --import tsx bench/store.ts --no-base                           # this tree only
 *   node --import tsx bench/store.ts --only base                         # the base only
 *
 * Chunks: real chunk texts — Fathom's own chunker over the JS/TS/Markdown of npm packages
 * installed with the project (node_modules, not the dev corpus) — replicated to the scale as
 * copies under `r<n>/`, where each camelCase/PascalCase identifier gets the suffix `<n>` in half
 * of the copies (chosen by a hash), so the vocabulary grows with the corpus as real code does.
 * Each side (base, this tree) builds its engine in its own process from the same chunks (the
 * keyword index fed as the engine feeds it), saves it into a temp folder once (cached under
 * $TMPDIR/fathom-bench-store/, keyed by commit and scale; `--fresh` rebuilds), and then each
 * store is loaded in a fresh process: load seconds (wall, and CPU: on a shared machine the CPU
 * seconds move less than the wall time), peak RSS of that process (`maxRSS`),
 * keyword search p50 over the same queries, and a digest of the result lists (equal digests:
 * the two stores answer the same). Save seconds come from the building process.
 *
 * The base's source is `git archive <base> src resources` extracted into $TMPDIR/fathom-bench-store/src-<commit>.
 * Timings on a shared 2-core machine move by ±20%; compare the two columns of one run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hash } from './rng';

const ROOT = path.join(__dirname, '..');
const CACHE = path.join(os.tmpdir(), 'fathom-bench-store');
const log = (s: string) => process.stderr.write(`${s}\n`);
const rssMB = () => process.resourceUsage().maxRSS / 1024;

interface Args {
  scales: number[];
  base: string | undefined;
  fresh: boolean;
  baseFiles: number;
  queries: number;
  only?: string;
  from?: string;
  child?: string;
  src?: string;
  dir?: string;
  scale?: number;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { scales: [100_000, 1_000_000], base: 'v5', fresh: false, baseFiles: 3000, queries: 60 };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const v = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${x} needs a value`);
      return next;
    };
    if (x === '--scales') a.scales = v().split(',').map((s) => Number(s.replace(/_/g, '')));
    else if (x === '--base') a.base = v();
    else if (x === '--no-base') a.base = undefined;
    else if (x === '--fresh') a.fresh = true;
    else if (x === '--base-files') a.baseFiles = Number(v());
    else if (x === '--queries') a.queries = Number(v());
    else if (x === '--only') a.only = v();
    else if (x === '--from') a.from = v();
    else if (x === '--child') a.child = v();
    else if (x === '--src') a.src = v();
    else if (x === '--dir') a.dir = v();
    else if (x === '--scale') a.scale = Number(v());
    else throw new Error(`unknown option ${x}`);
  }
  return a;
}

type Mod = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function modules(src: string): Promise<{ engine: Mod; store: Mod; chunkers: Mod; files: Mod }> {
  const at = (p: string) => import(path.join(src, p));
  return { engine: await at('index/engine.ts'), store: await at('index/store.ts'), chunkers: await at('chunkers/index.ts'), files: await at('workspace/files.ts') };
}

interface BaseChunk {
  path: string;
  language: string;
  kind: string;
  symbol?: string;
  parent?: string;
  signature?: string;
  header: string;
  text: string;
  start: { offset: number; line: number; column: number };
  end: { offset: number; line: number; column: number };
  tokens: number;
  complete: boolean;
}

/** Real chunks of npm package sources, chunked by this tree's chunker (the same for both sides). */
async function baseChunks(maxFiles: number): Promise<BaseChunk[]> {
  const file = path.join(CACHE, `base-chunks-${maxFiles}.json`);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as BaseChunk[];
  const { chunkers, files } = await modules(path.join(ROOT, 'src'));
  const nm = path.join(ROOT, 'node_modules');
  const all: string[] = [];
  for (const f of files.walkFiles(nm) as Array<{ rel: string; abs: string }>) if (/\.(js|mjs|cjs|ts|md)$/.test(f.rel) && !f.rel.endsWith('.min.js')) all.push(f.abs);
  all.sort((a, b) => hash(a) - hash(b));
  const picked = all.slice(0, maxFiles);
  await chunkers.prepareLanguagesFor(picked);
  const out: BaseChunk[] = [];
  for (const abs of picked) {
    const decoded = chunkers.decodeBytes(fs.readFileSync(abs));
    if (decoded.text === undefined) continue;
    const rel = path.relative(nm, abs).split(path.sep).join('/');
    for (const c of chunkers.chunkFile(rel, decoded.text).chunks) {
      const { id: _id, links: _l, meta: _m, split: _s, ...rest } = c;
      out.push(rest);
    }
  }
  fs.mkdirSync(CACHE, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(out));
  return out;
}

const IDENT = /\b([a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)\b/g;

/** Chunk `i` of the scaled corpus: base chunk i % B in copy ⌊i / B⌋, identifiers varied. */
function* scaled(base: BaseChunk[], n: number): Generator<{ chunk: BaseChunk & { id: string }; copy: number }> {
  for (let i = 0; i < n; i++) {
    const copy = Math.floor(i / base.length);
    const b = base[i % base.length];
    const vary = (s: string | undefined) => (s === undefined || copy === 0 ? s : s.replace(IDENT, (w) => (hash(w, copy) & 1 ? `${w}${copy}` : w)));
    const p = copy === 0 ? b.path : `r${copy}/${b.path}`;
    const text = vary(b.text)!;
    const chunk = { ...b, path: p, text, symbol: vary(b.symbol), header: vary(b.header.replace(b.path, p))!, id: '' };
    if (chunk.symbol === undefined) delete chunk.symbol;
    chunk.id = createHash('sha1').update(`${p}\0${b.kind}\0${chunk.symbol ?? ''}\0${text}\0${i}`).digest('hex');
    yield { chunk, copy };
  }
}

/** Child: builds the engine of `src` from the scaled chunks and saves it into `dir`. */
async function childBuild(a: Args): Promise<void> {
  const { engine: E, store: S } = await modules(a.src!);
  const engine = new E.Engine({ noEmbedderReason: 'store benchmark' });
  if (a.from) {
    // the base side's store of the same chunks, read by this side (it reads the older format): saved again
    const r = S.loadStore(a.from, engine);
    if (r.ok) {
      const s0 = performance.now();
      S.saveStore(a.dir!, engine);
      const saveS = (performance.now() - s0) / 1000;
      process.stdout.write(`${JSON.stringify({ buildS: 0, saveS, buildRssMB: rssMB(), rssMB: rssMB(), chunks: engine.chunkCount, from: 'base store' })}\n`);
      return;
    }
    log(`  cannot read ${a.from} (${r.reason}): building`);
  }
  const base = await baseChunks(a.baseFiles);
  const t0 = performance.now();
  const chunks: unknown[] = [];
  const catalog = new Map<string, { path: string; size: number; mtimeMs: number; hash: string; language: string; docIds: number[]; warnings: string[] }>();
  for (const { chunk } of scaled(base, a.scale!)) {
    const docId = chunks.length;
    chunks.push(chunk);
    let f = catalog.get(chunk.path);
    if (!f) catalog.set(chunk.path, (f = { path: chunk.path, size: 0, mtimeMs: 1, hash: createHash('sha1').update(chunk.path).digest('hex'), language: chunk.language, docIds: [], warnings: [] }));
    f.docIds.push(docId);
    f.size += chunk.text.length;
  }
  engine.restore([...catalog.values()], chunks);
  for (let docId = 0; docId < chunks.length; docId++) {
    const c = chunks[docId] as BaseChunk;
    engine.keyword.add(docId, { path: c.path, header: c.header, symbol: c.symbol, text: c.text, language: c.language, kind: c.kind });
    if (docId % 100_000 === 0 && docId) log(`  built ${docId}`);
  }
  const buildS = (performance.now() - t0) / 1000;
  const buildRss = rssMB();
  const s0 = performance.now();
  S.saveStore(a.dir!, engine);
  const saveS = (performance.now() - s0) / 1000;
  process.stdout.write(`${JSON.stringify({ buildS, saveS, buildRssMB: buildRss, rssMB: rssMB(), chunks: engine.chunkCount })}\n`);
}

/** Child: loads `dir` into a fresh engine of `src`, then searches. */
async function childLoad(a: Args): Promise<void> {
  const { engine: E, store: S } = await modules(a.src!);
  const engine = new E.Engine({ noEmbedderReason: 'store benchmark' });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = S.loadStore(a.dir!, engine);
  const loadS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const loadCpuS = (cpu.user + cpu.system) / 1e6;
  if (!r.ok) throw new Error(`the store does not load: ${r.reason}`);
  const loadRss = rssMB();
  const heapMB = process.memoryUsage().heapUsed / 1e6;
  const base = await baseChunks(a.baseFiles); // after the load: not in its peak
  // queries: symbols and a few words of chunks (every 97th base chunk), the same on both sides
  const queries: string[] = [];
  for (let i = 0; queries.length < a.queries && i < base.length; i += 97) {
    const c = base[i];
    const words = c.text.match(/[A-Za-z_]\w{3,}/g) ?? [];
    queries.push(c.symbol ?? words.slice(0, 3).join(' '));
  }
  const ms: number[] = [];
  const digest = createHash('sha1');
  for (const q of queries) {
    const q0 = performance.now();
    const hits = (await engine.search(q, { k: 10, mode: 'keyword' })) as Array<{ chunk: { id: string }; score: number }>;
    ms.push(performance.now() - q0);
    digest.update(`${q}\n${hits.map((h) => `${h.chunk.id}:${h.score.toFixed(6)}`).join(',')}\n`);
  }
  // a chunk far into the store, read in full (what a lazy text section must give back)
  const table = engine.chunks as { length: number; get?: (id: number) => unknown } & Record<number, unknown>;
  const mid = Math.floor(table.length / 2);
  const probe = (typeof table.get === 'function' ? table.get(mid) : table[mid]) as { text: string; id: string } | undefined;
  ms.sort((x, y) => x - y);
  // and saved again as loaded (what a session does after its first edit)
  const again = `${a.dir!}-resave`;
  fs.rmSync(again, { recursive: true, force: true });
  const s0 = performance.now();
  S.saveStore(again, engine);
  const resaveS = (performance.now() - s0) / 1000;
  fs.rmSync(again, { recursive: true, force: true });
  process.stdout.write(
    `${JSON.stringify({ loadS, loadCpuS, resaveS, loadRssMB: loadRss, heapMB, rssMB: rssMB(), p50: ms[Math.floor(ms.length / 2)], chunks: engine.chunkCount, digest: digest.digest('hex').slice(0, 12), probe: probe ? createHash('sha1').update(probe.text).digest('hex').slice(0, 8) : '-' })}\n`,
  );
}

function child(mode: string, src: string, dir: string, a: Args, scale: number, from?: string): Record<string, number | string> {
  const r = spawnSync(
    process.execPath,
    [
      '--max-old-space-size=16000',
      '--import',
      'tsx',
      __filename,
      ...['--child', mode, '--src', src, '--dir', dir, '--scale', String(scale), '--base-files', String(a.baseFiles), '--queries', String(a.queries)],
      ...(from ? ['--from', from] : []),
    ],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
  );
  if (r.status !== 0) throw new Error(`${mode} ${src} ${scale}: exit ${r.status} ${r.signal ?? ''}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number | string>;
}

function dirBytes(d: string): number {
  let n = 0;
  for (const f of fs.readdirSync(d)) n += fs.statSync(path.join(d, f)).size;
  return n;
}

/** `git archive <ref> src resources` into $TMPDIR/fathom-bench-store/src-<commit> (once), its node_modules a link to ours. */
function baseSource(ref: string): { src: string; commit: string } {
  const commit = execFileSync('git', ['rev-parse', ref], { cwd: ROOT, encoding: 'utf8' }).trim();
  const out = path.join(CACHE, `src-${commit.slice(0, 12)}`);
  if (!fs.existsSync(path.join(out, 'resources'))) {
    fs.mkdirSync(out, { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'));
    execFileSync('sh', ['-c', `git archive ${commit} src resources | tar -x -C ${JSON.stringify(out)}`], { cwd: ROOT });
  }
  return { src: path.join(out, 'src'), commit };
}

/** A stamp of this tree's source: the store is rebuilt when any file under src/index changes. */
function treeStamp(): string {
  const h = createHash('sha1');
  for (const f of fs.readdirSync(path.join(ROOT, 'src', 'index')).sort()) h.update(fs.readFileSync(path.join(ROOT, 'src', 'index', f)));
  return h.digest('hex').slice(0, 12);
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  if (a.child === 'build') return childBuild(a);
  if (a.child === 'load') return childLoad(a);
  const base = await baseChunks(a.baseFiles);
  log(`${base.length} real chunks from ${a.baseFiles} npm package files`);
  const sides: Array<{ name: string; src: string; key: string }> = [];
  if (a.base) {
    // vN: the commit before format N+1 came in
    const v = /^v(\d+)$/.exec(a.base);
    const ref = v ? `${execFileSync('git', ['log', '-S', `STORE_VERSION = ${Number(v[1]) + 1};`, '--format=%H', '--', 'src/index/store.ts'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()}^` : a.base;
    const b = baseSource(ref);
    sides.push({ name: `base ${b.commit.slice(0, 8)}`, src: b.src, key: b.commit.slice(0, 12) });
  }
  sides.push({ name: 'this tree', src: path.join(ROOT, 'src'), key: `tree-${treeStamp()}` });
  const rows: Array<Record<string, number | string>> = [];
  for (const scale of a.scales) {
    for (const s of sides) {
      if (a.only && !s.name.startsWith(a.only)) continue;
      const dir = path.join(CACHE, `${s.key}-${scale}-${a.baseFiles}`);
      let built: Record<string, number | string> | undefined;
      if (a.fresh || !fs.existsSync(path.join(dir, 'manifest.json'))) {
        fs.rmSync(dir, { recursive: true, force: true });
        log(`${s.name}: building ${scale} chunks`);
        // this tree saves what it read from the base's store of the same scale, when there is one (no second build)
        const from = sides[0] !== s ? path.join(CACHE, `${sides[0].key}-${scale}-${a.baseFiles}`) : undefined;
        built = child('build', s.src, dir, a, scale, from && fs.existsSync(path.join(from, 'manifest.json')) ? from : undefined);
        fs.writeFileSync(path.join(dir, 'build.json'), JSON.stringify(built));
      } else built = JSON.parse(fs.readFileSync(path.join(dir, 'build.json'), 'utf8')) as Record<string, number | string>;
      log(`${s.name}: loading ${scale}`);
      const loaded = child('load', s.src, dir, a, scale);
      const row: Record<string, number | string> = { side: s.name, scale, ...built, ...loaded, storeMB: (dirBytes(dir) - fs.statSync(path.join(dir, 'build.json')).size) / 1e6 };
      rows.push(row);
      const f = (x: unknown, d = 1) => (typeof x === 'number' ? x.toFixed(d) : String(x));
      log(
        `${String(scale).padStart(8)} ${s.name.padEnd(14)} load ${f(row.loadS, 2)} s (CPU ${f(row.loadCpuS, 2)} s)  load RSS ${f(row.loadRssMB, 0)} MB  RSS after search ${f(row.rssMB, 0)} MB  save ${f(row.saveS, 2)} s  save after load ${f(row.resaveS, 2)} s  store ${f(row.storeMB, 0)} MB  keyword p50 ${f(row.p50, 2)} ms  results ${row.digest}  probe ${row.probe}  (build ${f(row.buildS, 0)} s, build RSS ${f(row.buildRssMB, 0)} MB)`,
      );
    }
  }
  process.stdout.write(`${JSON.stringify(rows)}\n`);
}

main().catch((err) => {
  log(String((err as Error).stack ?? err));
  process.exit(1);
});
