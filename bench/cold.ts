/**
 * Cold keyword-only index, process start included: `fathom index <dir> --no-embed` into a fresh
 * store, wall and CPU time (user + sys, all threads) from /usr/bin/time, for one or more builds
 * side by side in the same run (interleaved, so the machine's load hits them alike).
 *
 *   node --import tsx bench/cold.ts [--dir DIR]… [--runs 3] [--cli NAME=path/to/cli.js[:THREADS]]… [--json]
 *
 * Default dirs: bench/.corpus (node bench/setup-corpus.mjs). Default builds: this checkout's
 * dist/cli.js (`npm run build`) as `new`; give the baseline with e.g.
 * `--cli main=/tmp/main/dist/cli.js --cli new=dist/cli.js`. `:THREADS` sets FATHOM_CHUNK_THREADS
 * for that build (`--cli new1=dist/cli.js:1 --cli new0=dist/cli.js:0` compares pool sizes; 0 is
 * in-thread chunking). Prints per build and dir the median wall, CPU, the main thread's own CPU
 * (Linux /proc; the critical path once chunking runs elsewhere, and a number the other load of a
 * shared machine barely moves), the busiest other thread's CPU (the chunk thread, when the pool
 * ran) and the rest (V8's compiler and GC helpers), CPU/wall (cores busy), peak RSS, the wall
 * ratio to the first build (of the medians, and `paired`: the median of each round's own ratio,
 * the two runs of a round being back to back, which a machine whose speed drifts moves less), and
 * the last run's time line (bench/cold-probe.cjs: walk done and
 * first file sent, the chunk thread's first and last reply, save, exit; ms).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface Build {
  name: string;
  cli: string;
  threads?: string;
}

function parseArgs(argv: string[]): { dirs: string[]; runs: number; builds: Build[]; json: boolean } {
  const dirs: string[] = [];
  const builds: Build[] = [];
  let runs = 3;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dir') dirs.push(path.resolve(argv[++i] ?? ''));
    else if (a === '--runs') {
      runs = Number(argv[++i]);
      if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');
    } else if (a === '--cli') {
      const v = argv[++i] ?? '';
      const eq = v.indexOf('=');
      if (eq < 1) throw new Error(`--cli NAME=path[:THREADS], got ${v}`);
      const m = /^(.*?)(?::(\d+))?$/.exec(v.slice(eq + 1))!;
      builds.push({ name: v.slice(0, eq), cli: path.resolve(m[1]), threads: m[2] });
    } else if (a === '--json') json = true;
    else throw new Error(`unknown option ${a}`);
  }
  if (!dirs.length) dirs.push(path.join(__dirname, '.corpus'));
  if (!builds.length) builds.push({ name: 'new', cli: path.join(__dirname, '..', 'dist', 'cli.js') });
  for (const d of dirs) if (!fs.existsSync(d)) throw new Error(`${d} does not exist (bench/.corpus: run node bench/setup-corpus.mjs)`);
  for (const b of builds) if (!fs.existsSync(b.cli)) throw new Error(`${b.cli} does not exist (npm run build)`);
  return { dirs, runs, builds, json };
}

interface Sample {
  wall: number;
  cpu: number;
  /** CPU time of the main thread alone. */
  mainCpu: number;
  /** CPU time of the busiest other thread (the chunk thread when the pool ran), and of the rest. */
  topCpu: number;
  restCpu: number;
  rssMB: number;
  timeline: string;
}

function runOnce(b: Build, dir: string): Sample {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-cold-'));
  try {
    // at exit, each thread's CPU time (Linux: /proc/self/task/<tid>/stat) and the run's time line
    const script = `require(${JSON.stringify(path.join(__dirname, 'cold-probe.cjs'))});require(${JSON.stringify(b.cli)}).run(process.argv.slice(1))`;
    const env = { ...process.env };
    if (b.threads !== undefined) env.FATHOM_CHUNK_THREADS = b.threads;
    else delete env.FATHOM_CHUNK_THREADS;
    const r = spawnSync('/usr/bin/time', ['-f', '@@%e %U %S %M', process.execPath, '-e', script, 'index', dir, '--store', store, '--no-embed'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
    const m = /@@([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
    if (r.status !== 0 || !m) throw new Error(`${b.name} on ${dir} failed (${r.status}): ${(r.stderr ?? '').slice(-800)}`);
    const th = (/@@threads ([\d. ]+)/.exec(r.stderr ?? '')?.[1] ?? '').trim().split(' ').map(Number);
    const tl = /@@timeline (.*)/.exec(r.stderr ?? '')?.[1] ?? '';
    const rest = th.slice(2).reduce((a, x) => a + x, 0);
    return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), mainCpu: th[0] ?? NaN, topCpu: th[1] ?? NaN, restCpu: rest, rssMB: Number(m[4]) / 1024, timeline: tl };
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function main(): void {
  const { dirs, runs, builds, json } = parseArgs(process.argv.slice(2));
  const out: Array<{ dir: string; build: string; wall: number; cpu: number; mainCpu: number; topCpu: number; restCpu: number; cores: number; rssMB: number; wallRatio: number; pairedRatio: number; walls: number[]; timeline: string }> = [];
  for (const dir of dirs) {
    const samples = new Map<string, Sample[]>(builds.map((b) => [b.name, []]));
    for (let r = 0; r < runs; r++) {
      // alternate the order, so a build is not always the one after a warm page cache
      const order = r % 2 ? [...builds].reverse() : builds;
      for (const b of order) samples.get(b.name)!.push(runOnce(b, dir));
    }
    const first = samples.get(builds[0].name)!;
    const base = median(first.map((s) => s.wall));
    for (const b of builds) {
      const ss = samples.get(b.name)!;
      const wall = median(ss.map((s) => s.wall));
      const cpu = median(ss.map((s) => s.cpu));
      out.push({ dir: path.relative(process.cwd(), dir) || dir, build: b.name, wall, cpu, mainCpu: median(ss.map((s) => s.mainCpu)), topCpu: median(ss.map((s) => s.topCpu)), restCpu: median(ss.map((s) => s.restCpu)), cores: cpu / wall, rssMB: median(ss.map((s) => s.rssMB)), wallRatio: wall / base, pairedRatio: median(ss.map((s, i) => s.wall / first[i].wall)), walls: ss.map((s) => s.wall), timeline: ss[ss.length - 1].timeline });
    }
  }
  if (json) {
    console.log(JSON.stringify({ runs, cores: os.availableParallelism(), loadavg: os.loadavg(), results: out }, null, 2));
    return;
  }
  console.log(`cold keyword-only index (fathom index --no-embed), median of ${runs}, ${os.availableParallelism()} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(['dir', 'build', 'wall s', 'cpu s', 'main-thread cpu s', 'top other thread cpu s', 'rest cpu s', 'cpu/wall', 'rss MB', `wall / ${builds[0].name}`, 'paired', 'walls'].join('\t'));
  for (const o of out) console.log([o.dir, o.build, o.wall.toFixed(2), o.cpu.toFixed(2), o.mainCpu.toFixed(2), o.topCpu.toFixed(2), o.restCpu.toFixed(2), o.cores.toFixed(2), o.rssMB.toFixed(0), o.wallRatio.toFixed(3), o.pairedRatio.toFixed(3), o.walls.join(' ')].join('\t'));
  console.log('time line of the last run (ms):');
  for (const o of out) console.log(`  ${o.dir} ${o.build}: ${o.timeline}`);
}

main();
