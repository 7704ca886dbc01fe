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
 * shared machine barely moves), CPU/wall (cores busy), peak RSS and the wall ratio to the first build.
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
  rssMB: number;
}

function runOnce(b: Build, dir: string): Sample {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-cold-'));
  try {
    // at exit, the main thread's own CPU time (Linux: /proc/self/task/<pid>/stat, utime + stime in
    // clock ticks): with chunking on other threads it is the critical path a quiet machine's wall
    // time tends to; it does not depend on how busy the other agents keep the cores
    const probe = `process.on('exit',()=>{try{const f=require('fs').readFileSync('/proc/self/task/'+process.pid+'/stat','utf8').split(') ')[1].split(' ');process.stderr.write('@@main '+((+f[11])+(+f[12]))/100+'\\n')}catch{}});`;
    const script = `${probe}require(${JSON.stringify(b.cli)}).run(process.argv.slice(1))`;
    const env = { ...process.env };
    if (b.threads !== undefined) env.FATHOM_CHUNK_THREADS = b.threads;
    else delete env.FATHOM_CHUNK_THREADS;
    const r = spawnSync('/usr/bin/time', ['-f', '@@%e %U %S %M', process.execPath, '-e', script, 'index', dir, '--store', store, '--no-embed'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
    const m = /@@([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
    if (r.status !== 0 || !m) throw new Error(`${b.name} on ${dir} failed (${r.status}): ${(r.stderr ?? '').slice(-800)}`);
    const mm = /@@main ([\d.]+)/.exec(r.stderr ?? '');
    return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), mainCpu: mm ? Number(mm[1]) : NaN, rssMB: Number(m[4]) / 1024 };
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
  const out: Array<{ dir: string; build: string; wall: number; cpu: number; mainCpu: number; cores: number; rssMB: number; wallRatio: number; walls: number[] }> = [];
  for (const dir of dirs) {
    const samples = new Map<string, Sample[]>(builds.map((b) => [b.name, []]));
    for (let r = 0; r < runs; r++) {
      // alternate the order, so a build is not always the one after a warm page cache
      const order = r % 2 ? [...builds].reverse() : builds;
      for (const b of order) samples.get(b.name)!.push(runOnce(b, dir));
    }
    const base = median(samples.get(builds[0].name)!.map((s) => s.wall));
    for (const b of builds) {
      const ss = samples.get(b.name)!;
      const wall = median(ss.map((s) => s.wall));
      const cpu = median(ss.map((s) => s.cpu));
      out.push({ dir: path.relative(process.cwd(), dir) || dir, build: b.name, wall, cpu, mainCpu: median(ss.map((s) => s.mainCpu)), cores: cpu / wall, rssMB: median(ss.map((s) => s.rssMB)), wallRatio: wall / base, walls: ss.map((s) => s.wall) });
    }
  }
  if (json) {
    console.log(JSON.stringify({ runs, cores: os.availableParallelism(), loadavg: os.loadavg(), results: out }, null, 2));
    return;
  }
  console.log(`cold keyword-only index (fathom index --no-embed), median of ${runs}, ${os.availableParallelism()} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(['dir', 'build', 'wall s', 'cpu s', 'main-thread cpu s', 'cpu/wall', 'rss MB', `wall / ${builds[0].name}`, 'walls'].join('\t'));
  for (const o of out) console.log([o.dir, o.build, o.wall.toFixed(2), o.cpu.toFixed(2), o.mainCpu.toFixed(2), o.cores.toFixed(2), o.rssMB.toFixed(0), o.wallRatio.toFixed(3), o.walls.join(' ')].join('\t'));
}

main();
