/**
 * Learns the weights of the re-ranking (src/index/rank/rerank.ts) and measures them.
 *
 *   node --import tsx bench/ranking.ts --no-baseline --model      # builds the benchmarks' stores (once)
 *   node --max-old-space-size=8192 --import tsx train/rerank.ts [--weights-only] [--stores DIR]
 *
 * For every query of bench/ranking.ts's benchmarks that is re-ranked (rerank.ts `wantsRerank`),
 * the engine's own feature rows of its first candidates (`SearchOptions.rerank.features`), and
 * which of them are in a gold file. Training: the tuning halves of the doc-sentence benchmarks
 * (js-doc, py-doc, go-doc, py-repo, go-repo, py-docs; weight 1) and of the route benchmarks
 * (names, schema fields, registrations, UI text: weight `ROUTE_WEIGHT`, so that a query that
 * names its target keeps it first), a listwise softmax (the loss: −log of the probability the
 * candidates of gold files get), L2 `L2`, full-batch Adam. Flask (alone, with its docs) and Gin
 * are never trained on, nor any held-out half. Then each benchmark's halves, hit@5 / MRR /
 * line@5 by the search users get (k 10, diversified), without the re-ranking, with the shipped
 * weights and with the weights just learned, side by side. Prints the weights to paste into
 * rerank.ts `RERANK_WEIGHTS`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../src/index/engine';
import { loadStaticModel } from '../src/index/static-model';
import { loadStore } from '../src/index/store';
import { RERANK_FEATURES, RERANK_WEIGHTS } from '../src/index/rank/rerank';

const DOC = ['js-doc', 'py-doc', 'go-doc', 'py-repo', 'go-repo', 'py-docs'];
const ROUTES = ['vue-ui', 'react-ui', 'react-intl-ui', 'schema', 'registration', 'mined-js-doc', 'mined-vue-ui', 'mined-react-ui', 'mined-react-intl-ui', 'mined-schema', 'mined-registration'];
const UNSEEN = ['flask', 'flask-docs', 'gin'];
const ROUTE_WEIGHT = 4;
const L2 = 1e-3;
const STEPS = 400;
const LR = 0.05;

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const STORES = path.resolve(arg('--stores') ?? path.join(__dirname, '..', 'bench', '.ranking', 'stores', 'this-build-model'));

interface Gold {
  id: number;
  query: string;
  files: string[];
  line?: number;
  half: 'tuning' | 'held-out';
}
interface Example {
  rows: number[][];
  pos: boolean[];
  weight: number;
}

function golds(bench: string): Gold[] {
  return fs.readFileSync(path.join(STORES, `${bench}.gold.jsonl`), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Gold);
}

/** Full-batch Adam on the listwise softmax loss; returns the weights. */
export function train(examples: Example[], dims: number): number[] {
  const w = new Array<number>(dims).fill(0);
  w[0] = 5; // the fused score's order to start from
  const m = new Array<number>(dims).fill(0);
  const v = new Array<number>(dims).fill(0);
  const total = examples.reduce((a, e) => a + e.weight, 0);
  for (let step = 1; step <= STEPS; step++) {
    const g = w.map((x) => 2 * L2 * x);
    for (const e of examples) {
      const s = e.rows.map((r) => r.reduce((a, x, k) => a + x * w[k], 0));
      const hi = Math.max(...s);
      const ex = s.map((x) => Math.exp(x - hi));
      const all = ex.reduce((a, x) => a + x, 0);
      const pos = ex.reduce((a, x, i) => a + (e.pos[i] ? x : 0), 0);
      for (let i = 0; i < s.length; i++) {
        const d = (ex[i] / all - (e.pos[i] ? ex[i] / pos : 0)) * (e.weight / total);
        if (d !== 0) for (let k = 0; k < dims; k++) g[k] += d * e.rows[i][k];
      }
    }
    for (let k = 0; k < dims; k++) {
      m[k] = 0.9 * m[k] + 0.1 * g[k];
      v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k];
      w[k] -= (LR * (m[k] / (1 - 0.9 ** step))) / (Math.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8);
    }
  }
  return w;
}

async function main(): Promise<void> {
  if (!fs.existsSync(STORES)) throw new Error(`no stores at ${STORES}: run \`node --import tsx bench/ranking.ts --no-baseline --model\` first`);
  const loaded = loadStaticModel();
  if ('error' in loaded) throw new Error(loaded.error);
  const embedder = loaded.embedder;
  const benches = [...DOC, ...ROUTES, ...UNSEEN].filter((b) => fs.existsSync(path.join(STORES, b)) && fs.existsSync(path.join(STORES, `${b}.gold.jsonl`)));
  const engines = new Map<string, Engine>();
  const engineOf = (b: string) => {
    let e = engines.get(b);
    if (!e) {
      e = new Engine({ embedder });
      loadStore(path.join(STORES, b), e);
      engines.set(b, e);
    }
    return e;
  };
  // 1. the feature rows of the tuning halves
  const examples: Example[] = [];
  for (const b of benches.filter((x) => !UNSEEN.includes(x))) {
    const engine = engineOf(b);
    for (const g of golds(b).filter((x) => x.half === 'tuning')) {
      let rows: number[][] | undefined;
      let ids: ReadonlyArray<{ docId: number }> = [];
      await engine.search(g.query, { k: 10, rerank: { features: (r, h) => ((rows = r), (ids = h)) } });
      if (!rows) continue;
      const pos = ids.map((h) => g.files.includes(engine.chunks.head(h.docId)!.path));
      if (pos.some(Boolean)) examples.push({ rows, pos, weight: DOC.includes(b) ? 1 : ROUTE_WEIGHT });
    }
    process.stderr.write(`${b}: ${examples.length} examples so far\n`);
  }
  const t0 = performance.now();
  const learned = train(examples, RERANK_FEATURES.length);
  process.stderr.write(`trained on ${examples.length} queries in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  process.stdout.write(`weights (${RERANK_FEATURES.join(', ')}):\n[${learned.map((x) => Math.round(x * 100) / 100).join(', ')}]\n`);
  if (process.argv.includes('--weights-only')) return;
  // 2. hit@5 / MRR / line@5: fused order, shipped weights, learned weights
  const arms: Array<[string, false | { weights: readonly number[] }]> = [
    ['fused', false],
    ['shipped', { weights: RERANK_WEIGHTS }],
    ['learned', { weights: learned.map((x) => Math.round(x * 100) / 100) }],
  ];
  process.stdout.write(`\n${'benchmark'.padEnd(20)} ${'half'.padEnd(9)} ${'n'.padStart(4)}  ${arms.map(([a]) => `${a} hit@5/MRR/line@5`.padEnd(28)).join('')}\n`);
  const means: Record<string, number[][]> = {};
  for (const b of benches) {
    const engine = engineOf(b);
    for (const half of ['tuning', 'held-out'] as const) {
      const gs = golds(b).filter((x) => x.half === half);
      if (!gs.length) continue;
      const cells: number[][] = [];
      for (const [, rerank] of arms) {
        let h5 = 0;
        let mrr = 0;
        let l5 = 0;
        for (const g of gs) {
          const hits = await engine.search(g.query, { k: 10, rerank });
          const first = hits.findIndex((h) => g.files.includes(h.chunk.path));
          if (first >= 0 && first < 5) h5++;
          if (first >= 0) mrr += 1 / (first + 1);
          if (g.line !== undefined && hits.slice(0, 5).some((h) => g.files.includes(h.chunk.path) && h.chunk.start.line <= g.line! && g.line! <= h.chunk.end.line)) l5++;
        }
        cells.push([h5 / gs.length, mrr / gs.length, l5 / gs.length]);
      }
      if (DOC.includes(b)) (means[half] ??= []).push(...cells.map((c, i) => [i, ...c]));
      process.stdout.write(`${b.padEnd(20)} ${half.padEnd(9)} ${String(gs.length).padStart(4)}  ${cells.map((c) => c.map((x) => x.toFixed(3)).join(' / ').padEnd(28)).join('')}\n`);
    }
  }
  // 3. what it costs: each query of the largest benchmark searched both ways, alternating, warm
  const largest = benches.filter((b) => DOC.includes(b)).sort((x, y) => engineOf(y).chunks.count - engineOf(x).chunks.count)[0];
  if (largest) {
    const engine = engineOf(largest);
    const times: Record<'fused' | 'reranked', number[]> = { fused: [], reranked: [] };
    for (const g of golds(largest)) {
      for (const [arm, rerank] of [['fused', false], ['reranked', undefined]] as const) {
        const t = performance.now();
        await engine.search(g.query, { k: 10, rerank });
        times[arm].push(performance.now() - t);
      }
    }
    const pct = (xs: number[], p: number) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
    const f = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms`;
    process.stdout.write(`\nsearch time, ${largest} (${engine.chunks.count} chunks, ${times.fused.length} queries, same run): fused ${f(times.fused)}; re-ranked ${f(times.reranked)}; p50 ratio ${(pct(times.reranked, 50) / pct(times.fused, 50)).toFixed(2)}×\n`);
  }
  for (const [half, rows] of Object.entries(means)) {
    const cells = arms.map((_, i) => {
      const mine = rows.filter((r) => r[0] === i);
      return [1, 2, 3].map((k) => mine.reduce((a, r) => a + r[k], 0) / mine.length);
    });
    process.stdout.write(`${'mean of the six'.padEnd(20)} ${half.padEnd(9)} ${''.padStart(4)}  ${cells.map((c) => c.map((x) => x.toFixed(3)).join(' / ').padEnd(28)).join('')}\n`);
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`train/rerank: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
