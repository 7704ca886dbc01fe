/**
 * How fast Fathom's own model embeds, on one core: chunks per second over the real chunks of a
 * folder, next to the keyword tokenizer alone (`terms` over the same texts), in the same run:
 * `vector(text)` (a query, or the indexing thread) and `chunkVectorInto` (a chunk thread: the
 * terms read from the compounds it scanned for the keyword index), each in a fresh embedder
 * whose first pass is also timed (`cold`: a chunk thread sees each chunk once; the code is
 * compiled by then, by the passes before).
 *
 *   node --import tsx bench/static-model.ts [FOLDER] [--model FILE] [--passes 3] [--cold N]
 *
 * `--cold N` also times what a user waits for, with the built CLI (dist/cli.js, `npm run build`
 * first): a cold `fathom index FOLDER` with the model and with `--no-embed`, alternately, N
 * times each into fresh stores; prints the medians and their ratio (the goal: ≤ 1.3×), and the
 * CPU time (user + system, all threads) of each (Linux: the children's times in /proc/self/stat),
 * a steadier figure than wall time on a machine other work loads. `--also CLI` adds an arm in
 * the same rounds: another build's dist/cli.js with the model (e.g. the commit before a change);
 * `--also VAR=VALUE:CLI` runs it with that environment variable set (e.g.
 * `FATHOM_EMBED_IN_THREADS=1:dist/cli.js`: this build, the chunk threads embedding); repeatable.
 *
 * FOLDER defaults to bench/.ranking/ws (the ranking benchmarks' workspaces; run
 * `npm run bench:ranking` once). The model defaults to the shipped one.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkFile, prepareLanguagesFor } from '../src/chunkers/index';
import { embedText } from '../src/index/embedder';
import { loadStaticModel, StaticEmbedder } from '../src/index/static-model';
import { forgetSeenTerms, packCompounds, terms } from '../src/index/terms';
import type { Chunk } from '../src/chunkers/types';

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules') yield* walk(abs);
    else if (e.isFile()) yield abs;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flag = (n: string) => {
    const i = argv.indexOf(n);
    return i >= 0 ? argv.splice(i, 2)[1] : undefined;
  };
  const modelFile = flag('--model');
  const passes = Number(flag('--passes') ?? 3);
  const cold = Number(flag('--cold') ?? 0);
  const also: string[] = [];
  for (let a = flag('--also'); a !== undefined; a = flag('--also')) also.push(a);
  const dir = path.resolve(argv[0] ?? path.join(__dirname, '.ranking', 'ws'));
  const r = loadStaticModel(modelFile);
  if ('error' in r) throw new Error(r.error);
  const files = [...walk(dir)].filter((f) => /\.(py|go|js|ts|vue|md|json|rs)$/.test(f)).slice(0, 4000);
  await prepareLanguagesFor(files);
  const texts: string[] = [];
  // each file's chunks and their compounds, as a chunk thread has them
  const perFile: Array<{ chunks: Chunk[]; packed: Int32Array }> = [];
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    if (text.length > 200_000) continue;
    const chunks = chunkFile(path.relative(dir, f), text).chunks;
    for (const c of chunks) texts.push(embedText(c));
    perFile.push({ chunks, packed: packCompounds(chunks) });
  }
  const bytes = texts.reduce((s, t) => s + t.length, 0);
  process.stderr.write(`${texts.length} chunks (${(bytes / 1e6).toFixed(1)} MB of text) from ${files.length} files under ${dir}\n`);
  let first = 0;
  const time = (fn: () => void) => {
    forgetSeenTerms(); // the tokenizer's book of identifiers met: empty, as in a fresh thread
    const t0 = process.hrtime.bigint();
    fn(); // warm-up
    first = Number(process.hrtime.bigint() - t0) / 1e9;
    let best = Infinity;
    for (let p = 0; p < passes; p++) {
      const t0 = process.hrtime.bigint();
      fn();
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    return best;
  };
  const tTerms = time(() => {
    for (const t of texts) terms(t, { stem: true });
  });
  const coldTerms = first;
  // fresh embedders (no compound met yet), the rows shared with the loaded one
  const e = new StaticEmbedder(r.embedder.source, r.embedder.shared);
  const tEmbed = time(() => {
    for (const t of texts) e.vector(t);
  });
  const coldEmbed = first;
  const et = new StaticEmbedder(r.embedder.source, r.embedder.shared);
  const tThread = time(() => {
    for (const { chunks, packed } of perFile) {
      const out = new Float32Array(chunks.length * et.dims);
      let at = 0;
      for (let i = 0; i < chunks.length; i++) at = et.chunkVectorInto(chunks[i].header, chunks[i].text, packed, at, out, i * et.dims);
    }
  });
  const coldThread = first;
  const rate = (s: number) => `${Math.round(texts.length / s).toLocaleString('en')} chunks/s`;
  const line = (name: string, best: number, once: number) => console.log(`  ${name.padEnd(44)} ${best.toFixed(3)} s  ${rate(best).padStart(16)}   cold (first pass) ${once.toFixed(3)} s  ${rate(once)}`);
  console.log(`model ${e.id} (${e.dims} dims), one core, best of ${passes}`);
  line('terms only (the tokenizer):', tTerms, coldTerms);
  line('embed, vector(text) (terms + rows):', tEmbed, coldEmbed);
  line('embed, chunkVectorInto (a chunk thread):', tThread, coldThread);
  console.log(`  embed / terms: ${(tEmbed / tTerms).toFixed(2)}×; chunk thread / vector(text): ${(tThread / tEmbed).toFixed(2)}×, cold ${(coldThread / coldEmbed).toFixed(2)}×`);
  if (cold > 0) coldIndex(dir, cold, modelFile, also);
}

/** CPU seconds (user + system) of this process's waited-for children so far; undefined off Linux. */
function childCpu(): number | undefined {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100; // cutime, cstime (fields 16, 17), in USER_HZ (100 on Linux)
  } catch {
    return undefined;
  }
}

function coldIndex(dir: string, n: number, modelFile: string | undefined, also: string[]): void {
  const cli = path.join(__dirname, '..', 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: npm run build');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-cold-'));
  const once = (extra: string[], bin = cli, env: Record<string, string> = {}) => {
    const store = path.join(tmp, 'store');
    fs.rmSync(store, { recursive: true, force: true });
    const c0 = childCpu();
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, 'index', dir, '--store', store, ...extra], { encoding: 'utf8', env: { ...process.env, ...env } });
    if (r.status !== 0) throw new Error(`fathom index failed: ${r.stderr}`);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const c1 = childCpu();
    let bytes = 0;
    for (const f of fs.readdirSync(store)) bytes += fs.statSync(path.join(store, f)).size;
    return { s, cpu: c0 !== undefined && c1 !== undefined ? c1 - c0 : NaN, bytes };
  };
  const withModel = modelFile ? ['--model-path', modelFile] : [];
  const kw: number[] = [];
  const md: number[] = [];
  const arms = also.map((a) => {
    const m = /^(\w+)=([^:]*):(.+)$/.exec(a);
    return { name: a, bin: path.resolve(m ? m[3] : a), env: m ? { [m[1]]: m[2] } : {}, s: [] as number[], cpu: [] as number[] };
  });
  const cpu: Record<'kw' | 'md', number[]> = { kw: [], md: [] };
  let kwBytes = 0;
  let mdBytes = 0;
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const loadBefore = load();
  for (let i = 0; i < n; i++) {
    const a = once(['--no-embed']);
    const b = once(withModel);
    kw.push(a.s);
    md.push(b.s);
    cpu.kw.push(a.cpu);
    cpu.md.push(b.cpu);
    kwBytes = a.bytes;
    mdBytes = b.bytes;
    for (const arm of arms) {
      const c = once(withModel, arm.bin, arm.env);
      arm.s.push(c.s);
      arm.cpu.push(c.cpu);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  console.log(`cold fathom index ${dir}, median of ${n} (alternating)`);
  console.log(`  keyword-only (--no-embed): ${median(kw).toFixed(2)} s, store ${(kwBytes / 1e6).toFixed(2)} MB`);
  console.log(`  with the model:            ${median(md).toFixed(2)} s, store ${(mdBytes / 1e6).toFixed(2)} MB`);
  console.log(`  ratio: time ${(median(md) / median(kw)).toFixed(2)}×, store ${(mdBytes / kwBytes).toFixed(2)}×`);
  console.log(`  CPU (user + system): keyword-only ${median(cpu.kw).toFixed(2)} s, with the model ${median(cpu.md).toFixed(2)} s (${(median(cpu.md) / median(cpu.kw)).toFixed(2)}×)`);
  for (const arm of arms) console.log(`  ${arm.name} with the model: ${median(arm.s).toFixed(2)} s (${(median(arm.s) / median(kw)).toFixed(2)}×), CPU ${median(arm.cpu).toFixed(2)} s (${(median(arm.cpu) / median(cpu.kw)).toFixed(2)}×)`);
  console.log(`  load average (1, 5, 15 min): ${loadBefore} before, ${load()} after`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
