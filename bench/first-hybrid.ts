/**
 * Embedding order: how early does search by meaning help? On a fresh index (no stored vectors),
 * with the shared cost model (all-MiniLM-L6-v2's shape, random weights: the true cost, no
 * quality), it indexes a workspace of real code + locale files + fixtures twice in one run,
 * side by side:
 *   - `walk`:   vectors in the walk's order (Fathom before the embedding queue had tiers);
 *   - `tiered`: the engine's order (src/index/embed-order.ts) with three "open" files hinted.
 * and prints, for each, from the start of indexing:
 *   - first hybrid: the first search (one per embedding batch) whose results have a dense rank;
 *   - open files embedded: every chunk of the three open files has its vector, so hybrid search
 *     ranks them by meaning too (where the user works). With random weights the dense ranking
 *     itself means nothing, so coverage is what is measured, not which chunk ranks first;
 *   - the embedded share (all chunks, and code chunks) over time;
 * and the ratio tiered/walk.
 *
 * Two workspaces from Debian-shipped sources (never the dev corpus): part A (Python packages +
 * yargs' real locale files) and part B, held out (Go modules with their testdata fixtures).
 *
 *   npm run bench:first-hybrid                       (or node --import tsx bench/first-hybrid.ts)
 *   node --import tsx bench/first-hybrid.ts [--model DIR] [--part A|B] [--max-files N] [--json]
 *
 * CPU: two full embedding runs per part (a few minutes on 2 cores).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTransformersEmbedder, type Embedder } from '../src/index/embedder';
import { embedTier } from '../src/index/embed-order';
import { Engine } from '../src/index/engine';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const json = args.includes('--json');
const maxFiles = Number(opt('--max-files') ?? 6);
const root = path.join(__dirname, '..');

function costModel(): string | undefined {
  const candidates = [opt('--model'), process.env.FATHOM_COST_MODEL, path.join(root, '..', 'shared', 'models', 'minilm-l6-costmodel')];
  const common = spawnSync('git', ['-C', root, 'rev-parse', '--path-format=absolute', '--git-common-dir'], { encoding: 'utf8' });
  if (common.status === 0 && common.stdout.trim()) candidates.push(path.join(path.dirname(common.stdout.trim()), '..', 'shared', 'models', 'minilm-l6-costmodel'));
  return candidates.find((d): d is string => !!d && fs.existsSync(path.join(d, 'onnx', 'model_quantized.onnx')));
}

interface Part {
  name: string;
  /** [source folder, folder in the workspace, file filter] */
  sources: Array<[string, string, RegExp]>;
}

const PARTS: Part[] = [
  {
    name: 'A (Python packages + yargs locales)',
    sources: [
      ['/usr/lib/python3/dist-packages/jwt', 'src/jwt', /\.py$/],
      ['/usr/lib/python3/dist-packages/blinker', 'src/blinker', /\.py$/],
      ['/usr/lib/python3/dist-packages/argcomplete', 'src/argcomplete', /\.py$/],
      ['/usr/lib/python3/dist-packages/yaml', 'src/yaml', /\.py$/],
      [path.join(root, 'node_modules', 'yargs', 'locales'), 'locales', /\.json$/],
    ],
  },
  {
    name: 'B, held out (Go modules + their testdata)',
    sources: [
      ['/usr/share/gocode/src/github.com/BurntSushi', 'burntsushi', /\.(go|json|toml)$/],
      ['/usr/share/gocode/src/github.com/spf13', 'spf13', /\.(go|json|md)$/],
      ['/usr/share/gocode/src/github.com/pelletier', 'pelletier', /\.(go|json|toml)$/],
    ],
  },
];

/** Copies up to `limit` matching files of each source (sorted paths), so the workspace is the same every run. */
function buildWorkspace(part: Part, limit: number): { dir: string; files: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-first-hybrid-'));
  let files = 0;
  for (const [src, dest, re] of part.sources) {
    if (!fs.existsSync(src)) continue;
    const all = (fs.readdirSync(src, { recursive: true }) as string[]).filter((f) => re.test(f) && !f.includes('__pycache__') && fs.statSync(path.join(src, f)).isFile()).sort();
    // code files capped, locale/fixture files all (they are what the order moves last)
    let code = 0;
    for (const f of all) {
      const isData = /\.(json|toml)$/.test(f) || /testdata|locales/.test(f);
      if (!isData && code++ >= limit) continue;
      const to = path.join(dir, dest, f);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(path.join(src, f), to);
      files++;
    }
  }
  return { dir, files };
}

interface RunResult {
  order: 'walk' | 'tiered';
  chunks: number;
  codeChunks: number;
  chunkMs: number;
  firstHybridMs?: number;
  /** Time until every chunk of the open files had a vector. */
  openHybridMs?: number;
  allEmbeddedMs: number;
  /** [ms, share of all chunks, share of code chunks] after each batch */
  curve: Array<[number, number, number]>;
}

const drain = async (g: AsyncGenerator<unknown>) => {
  for await (const _ of g) void _;
};

async function run(order: 'walk' | 'tiered', dir: string, embedder: Embedder, open: string[]): Promise<RunResult> {
  const engine = new Engine({ embedder, embedOrder: order });
  const t0 = performance.now();
  await drain(engine.indexFolder(dir, { embed: false }));
  const chunkMs = performance.now() - t0;
  if (order === 'tiered') engine.setPriority(open);
  const isCode = (id: number) => {
    const c = engine.chunks.get(id)!;
    return embedTier(c.path, c.language, engine.files.get(c.path)?.category) === 1;
  };
  const live = [...engine.chunks.keys()].filter((id) => engine.chunks.has(id));
  const codeIds = live.filter(isCode);
  const openIds = open.flatMap((p) => engine.files.get(p)?.docIds ?? []);
  const r: RunResult = { order, chunks: live.length, codeChunks: codeIds.length, chunkMs, allEmbeddedMs: 0, curve: [] };
  for await (const _ of engine.embedPending()) {
    void _;
    const ms = performance.now() - t0;
    const vectors = engine.vectors!;
    r.curve.push([ms, vectors.count / live.length, codeIds.filter((id) => vectors.has(id)).length / Math.max(1, codeIds.length)]);
    if (r.firstHybridMs === undefined) {
      const hits = await engine.search('parse the value and return an error', { k: 10 });
      if (hits.some((h) => h.why.dense !== undefined)) r.firstHybridMs = performance.now() - t0;
    }
    if (r.openHybridMs === undefined && openIds.every((id) => vectors.has(id))) r.openHybridMs = performance.now() - t0;
  }
  r.allEmbeddedMs = performance.now() - t0;
  return r;
}

const at = (curve: RunResult['curve'], ms: number): [number, number] => {
  let last: [number, number] = [0, 0];
  for (const [t, a, c] of curve) {
    if (t > ms) break;
    last = [a, c];
  }
  return last;
};
const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
const pct = (x: number) => `${Math.round(x * 100)}%`;

async function main(): Promise<void> {
  const model = costModel();
  if (!model) {
    console.log('bench/first-hybrid: skipped — the shared cost model (../shared/models/minilm-l6-costmodel, or --model DIR / $FATHOM_COST_MODEL) is not here');
    return;
  }
  const created = await createTransformersEmbedder({ localModelPath: model });
  if ('error' in created) throw new Error(created.error);
  const embedder = created.embedder;
  const want = opt('--part');
  const out: unknown[] = [];
  try {
    for (const part of PARTS.filter((p) => !want || p.name.startsWith(want))) {
      const ws = buildWorkspace(part, maxFiles);
      try {
        // the open files: the last three code files of the walk (the walk order embeds them late)
        const probe = new Engine({});
        await drain(probe.indexFolder(ws.dir, { embed: false }));
        const code = [...probe.files.values()].filter((f) => f.docIds.length && embedTier(f.path, f.language, f.category) === 1).map((f) => f.path);
        const open = code.slice(-3);
        const results: RunResult[] = [];
        for (const order of ['walk', 'tiered'] as const) results.push(await run(order, ws.dir, embedder, open));
        if (json) {
          out.push({ part: part.name, files: ws.files, open, results });
          continue;
        }
        const [w, t] = results;
        console.log(`\npart ${part.name}: ${ws.files} files, ${w.chunks} chunks (${w.codeChunks} code), model ${path.basename(model)}, ${embedder.threads} threads (loaded machine)`);
        console.log(`  open files (hinted in "tiered"): ${open.join(', ')}`);
        console.log(`  ${'order'.padEnd(8)} ${'chunked'.padStart(8)} ${'1st hybrid'.padStart(11)} ${'open files embedded'.padStart(20)} ${'all embedded'.padStart(13)}`);
        for (const r of results) console.log(`  ${r.order.padEnd(8)} ${s(r.chunkMs).padStart(8)} ${s(r.firstHybridMs).padStart(11)} ${s(r.openHybridMs).padStart(20)} ${s(r.allEmbeddedMs).padStart(13)}`);
        if (w.openHybridMs && t.openHybridMs) console.log(`  open files embedded: tiered/walk = ${(t.openHybridMs / w.openHybridMs).toFixed(2)}`);
        const end = Math.max(w.allEmbeddedMs, t.allEmbeddedMs);
        console.log('  embedded share over time (all chunks / code chunks):');
        for (const f of [0.1, 0.25, 0.5, 0.75]) {
          const ms = end * f;
          const [wa, wc] = at(w.curve, ms);
          const [ta, tc] = at(t.curve, ms);
          console.log(`    at ${s(ms).padStart(7)}: walk ${pct(wa).padStart(4)} / ${pct(wc).padStart(4)}   tiered ${pct(ta).padStart(4)} / ${pct(tc).padStart(4)}`);
        }
      } finally {
        fs.rmSync(ws.dir, { recursive: true, force: true });
      }
    }
  } finally {
    await embedder.dispose();
  }
  if (json) console.log(JSON.stringify(out));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
