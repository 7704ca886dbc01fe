/**
 * What Fathom's own model beside a transformers.js model (`Embedder.companion`) costs a search:
 * the same index, the same queries, searched with the other model alone and with Fathom's beside
 * it, alternating, in one run. Fathom's vectors are computed at query time for the candidates (up
 * to 100 chunk texts), never stored.
 *
 *   node --import tsx bench/companion.ts [--dir DIR] [--queries FILE.jsonl] [--model DIR] [--max N]
 *
 * Default model: ../shared/models/minilm-l6-costmodel (all-MiniLM-L6-v2's shape and tokenizer,
 * random weights: a cost, never a quality). Default folder: bench/.ranking/ws/flask (made by
 * `npm run bench:ranking`), else the sample workspace; default queries: that benchmark's Flask
 * doc sentences, else a few sentences written here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createEmbedder } from '../src/index/embedder';
import { Engine } from '../src/index/engine';

const ROOT = path.join(__dirname, '..');
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const firstThere = (...ps: string[]) => ps.find((p) => fs.existsSync(p));

const dir = arg('--dir') ?? firstThere(path.join(ROOT, 'bench', '.ranking', 'ws', 'flask')) ?? path.join(ROOT, 'sample-workspace');
const queryFile = arg('--queries') ?? (dir.endsWith(`${path.sep}flask`) ? firstThere(path.join(ROOT, 'bench', '.ranking', 'stores', 'this-build-model', 'flask.queries.jsonl')) : undefined);
const modelDir = arg('--model') ?? firstThere(path.join(ROOT, '..', 'shared', 'models', 'minilm-l6-costmodel'), path.join(ROOT, '..', '..', 'shared', 'models', 'minilm-l6-costmodel'));
const max = Number(arg('--max') ?? 200);

const FALLBACK_QUERIES = ['zoom the map in by one level', 'show the position of the user on the map', 'switch the language of the interface', 'load the layers the user chose', 'the distance between two points in metres'];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main(): Promise<void> {
  if (!modelDir) throw new Error('no model folder: give --model DIR (the shared cost model is ../shared/models/minilm-l6-costmodel)');
  const queries = (queryFile ? fs.readFileSync(queryFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as { query: string }).query) : FALLBACK_QUERIES).slice(0, max);
  const load = async (alone: boolean) => {
    const r = await createEmbedder({ localModelPath: path.dirname(modelDir), model: path.basename(modelDir), alone });
    if ('error' in r) throw new Error(r.error);
    return r.embedder;
  };
  const fused = await load(false);
  const alone = await load(true);
  if (!fused.companion) throw new Error("Fathom's own model could not be loaded beside the other one");
  const engine = new Engine({ embedder: fused });
  const t0 = Date.now();
  for await (const _ of engine.indexFolder(dir)) void _;
  console.log(`${dir}: ${engine.chunkCount} chunks, ${engine.vectors?.count ?? 0} vectors of ${fused.id} in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${queries.length} queries`);
  const times = { alone: [] as number[], fused: [] as number[] };
  // warm both paths, then alternate so that load on the machine falls on both alike
  for (const q of queries.slice(0, 5)) {
    engine.embedder = alone;
    await engine.search(q, { k: 10 });
    engine.embedder = fused;
    await engine.search(q, { k: 10 });
  }
  let reranked = 0;
  for (const q of queries) {
    for (const which of ['alone', 'fused'] as const) {
      engine.embedder = which === 'alone' ? alone : fused;
      const s = process.hrtime.bigint();
      const hits = await engine.search(q, { k: 10 });
      times[which].push(Number(process.hrtime.bigint() - s) / 1e6);
      if (which === 'fused' && hits.some((h) => h.why.reranker)) reranked++;
    }
  }
  console.log(`queries answered with Fathom's model beside it: ${reranked} of ${queries.length} (the others name code, or are answered as by the other model alone)`);
  console.log('search            p50 ms   p95 ms   mean ms');
  for (const which of ['alone', 'fused'] as const) {
    const xs = times[which];
    console.log(`${which === 'alone' ? 'other model alone' : 'with Fathom\u2019s   '}  ${pct(xs, 50).toFixed(2).padStart(7)}  ${pct(xs, 95).toFixed(2).padStart(7)}  ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2).padStart(8)}`);
  }
  console.log(`ratio (with / alone): p50 ${(pct(times.fused, 50) / pct(times.alone, 50)).toFixed(2)}x, p95 ${(pct(times.fused, 95) / pct(times.alone, 95)).toFixed(2)}x`);
  await fused.dispose();
  await alone.dispose();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
