/**
 * Embedding batch size by sequence length: for texts of L model tokens (real chunks of this
 * project cut to exactly L tokens, [SEP] kept last), the raw ONNX Runtime session's rate in
 * chunks/s at each batch size, so that the rule the Embedder batches by (a token budget per
 * model call, src/index/embedder.ts) is chosen by measurement.
 *
 *   node --import tsx bench/embed-batch.ts [modelDir] [--lengths 32,64,128,176,256] [--batches 1,2,4,8,16,32,64]
 *                                          [--passes 12] [--threads T] [--dtype q8|fp32] [--json]
 *
 * Default model: ../shared/models/minilm-l6-costmodel (all-MiniLM-L6-v2's shape and tokenizer,
 * random weights: cost only). Each trial is one model call of b rows; a pass runs one trial of
 * every size per length, in an order that rotates between passes; the fastest trial of each size
 * is reported (a shared machine's load only ever slows a trial down) as chunks/s, with the size
 * that won and each size's rate relative to it. `rows × L` of the winner is the token budget.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkFile } from '../src/chunkers/index';
import { createTransformersEmbedder, defaultThreads, embedText, rawSessionEmbed, type Batch, type EmbedderDtype, type PreparedBatches } from '../src/index/embedder';

// ../shared beside the checkout (a worktree under /work/wt/<name> finds it one level further up)
const COST_MODEL = [path.join(__dirname, '..', '..', 'shared'), path.join(__dirname, '..', '..', '..', 'shared')].map((d) => path.join(d, 'models', 'minilm-l6-costmodel')).find((d) => fs.existsSync(d)) ?? path.join(__dirname, '..', '..', 'shared', 'models', 'minilm-l6-costmodel');

function parseArgs(argv: string[]) {
  const a = { modelDir: COST_MODEL, lengths: [32, 64, 128, 176, 256], batches: [1, 2, 4, 8, 16, 32, 64], n: 64, passes: 12, threads: defaultThreads(), dtype: 'q8' as EmbedderDtype, json: false };
  const list = (v: string | undefined) => (v ?? '').split(',').map(Number).filter((x) => Number.isInteger(x) && x > 0);
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--lengths') a.lengths = list(argv[++i]);
    else if (k === '--batches') a.batches = list(argv[++i]);
    else if (k === '--n') a.n = Number(argv[++i]);
    else if (k === '--passes') a.passes = Number(argv[++i]);
    else if (k === '--threads') a.threads = Number(argv[++i]);
    else if (k === '--dtype') a.dtype = argv[++i] as EmbedderDtype;
    else if (k === '--json') a.json = true;
    else if (k.startsWith('-')) throw new Error(`unknown option ${k}`);
    else a.modelDir = path.resolve(k);
  }
  if (!fs.existsSync(a.modelDir)) throw new Error(`no model folder ${a.modelDir} (the shared cost model is ../shared/models/minilm-l6-costmodel)`);
  return a;
}

/** This project's chunk texts (src/, test/unit/), longest first. */
function chunkTexts(): string[] {
  const root = path.join(__dirname, '..');
  const out: Array<{ text: string; tokens: number }> = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) for (const c of chunkFile(path.relative(root, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8')).chunks) out.push({ text: embedText(c), tokens: c.tokens });
    }
  };
  walk(path.join(root, 'src'));
  walk(path.join(root, 'test', 'unit'));
  return out.map((c) => c.text);
}

/** Id rows cut to exactly `len` tokens ([SEP] kept last), packed `rows` per batch. */
function pack(rowsIds: number[][], rows: number, pad: number): PreparedBatches {
  const batches: Batch[] = [];
  for (let s = 0; s < rowsIds.length; s += rows) {
    const group = rowsIds.slice(s, s + rows);
    const length = group[0].length;
    const inputIds = new BigInt64Array(group.length * length).fill(BigInt(pad));
    const attentionMask = new BigInt64Array(group.length * length);
    group.forEach((row, r) => {
      for (let j = 0; j < row.length; j++) {
        inputIds[r * length + j] = BigInt(row[j]);
        attentionMask[r * length + j] = 1n;
      }
    });
    batches.push({ indices: group.map((_, r) => s + r), length, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(group.length * length) });
  }
  return { count: rowsIds.length, batches, tokens: rowsIds.map((r) => r.length), truncated: 0 };
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const log = (s: string) => (a.json ? process.stderr : process.stdout).write(`${s}\n`);
  const created = await createTransformersEmbedder({ localModelPath: a.modelDir, dtype: a.dtype, threads: a.threads });
  if ('error' in created) throw new Error(created.error);
  const emb = created.embedder;
  const tok = emb.pipeline.tokenizer;
  const sep = tok.sep_token_id as number;
  const pad = (tok.pad_token_id as number | undefined) ?? 0;
  const encoded = chunkTexts().map((t) => tok.encode(t) as number[]);
  log(`model ${emb.source} (${a.dtype}), intra-op threads ${emb.threads} of ${os.availableParallelism()} cores, ${a.passes} trials per size and length, load ${os.loadavg()[0].toFixed(1)}`);
  const results: Array<{ length: number; rates: Record<number, number>; best: number; bestTokens: number }> = [];
  for (const len of a.lengths) {
    const long = encoded.filter((r) => r.length >= len);
    if (!long.length) {
      log(`L=${len}: no chunk that long, skipped`);
      continue;
    }
    const rowsIds = Array.from({ length: a.n }, (_, i) => {
      const r = long[i % long.length];
      return [...r.slice(0, len - 1), sep];
    });
    // one model call per trial (a batch of b rows), the sizes interleaved trial by trial; the
    // fastest trial of each size counts (a shared machine's load only ever slows a trial down)
    const oneBatch = new Map(a.batches.map((b) => [b, pack(rowsIds.slice(0, b), b, pad)]));
    await rawSessionEmbed(emb, oneBatch.get(a.batches[0])!); // warm-up
    const best = new Map<number, number>(a.batches.map((b) => [b, Infinity]));
    for (let p = 0; p < a.passes; p++) {
      const order = a.batches.map((_, i) => a.batches[(i + p) % a.batches.length]);
      for (const b of order) {
        const t = performance.now();
        await rawSessionEmbed(emb, oneBatch.get(b)!);
        best.set(b, Math.min(best.get(b)!, (performance.now() - t) / b));
      }
    }
    const rates: Record<number, number> = {};
    for (const b of a.batches) rates[b] = 1000 / best.get(b)!;
    const win = a.batches.reduce((x, y) => (rates[y] > rates[x] ? y : x));
    results.push({ length: len, rates, best: win, bestTokens: win * len });
    log(`L=${String(len).padStart(3)}: ${a.batches.map((b) => `b${b} ${rates[b].toFixed(0)}/s (${(rates[b] / rates[win]).toFixed(2)})`).join('  ')}  → best b${win} (${win * len} tokens)`);
  }
  await emb.dispose();
  if (a.json) console.log(JSON.stringify({ model: a.modelDir, dtype: a.dtype, threads: a.threads, n: a.n, results }, null, 2));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
