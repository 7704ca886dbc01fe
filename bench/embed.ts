/**
 * Embedding benchmark: the Embedder (`src/index/embedder.ts`, transformers.js) against the raw
 * ONNX Runtime session it wraps, on the same batches of real chunk texts.
 *
 *   node --import tsx bench/embed.ts [modelDir] [--n 256] [--batch-size 2] [--threads T]
 *                                    [--dtype q8|fp32] [--passes 3] [--min-tokens 150] [--max-tokens 200] [--json]
 *
 * modelDir is one model folder in transformers.js's layout (config.json, tokenizer files,
 * onnx/model_quantized.onnx for q8, onnx/model.onnx for fp32). Default: the shared cost model
 * ../shared/models/minilm-l6-costmodel (all-MiniLM-L6-v2's exact shape and tokenizer, random
 * weights) when it exists, otherwise the tiny test model test/fixtures/models/fathom-tiny-bert.
 *
 * Texts: Fathom's own chunks (`chunkFile` over this project's src/ and test/unit/ TypeScript),
 * embedded as `header + "\n" + text`, keeping those of 150–200 model tokens; repeated in order
 * when there are fewer than N.
 *
 * - Embedder: `embedder.embed(texts)`, everything included (tokenization, batching, tensors,
 *   transformers.js's model call, mean pooling, normalization).
 * - Raw session: the same batches tokenized once beforehand (`prepareBatches`, not timed), then
 *   `session.run` on the InferenceSession directly, mean-pooled and normalized by hand
 *   (`rawSessionEmbed`).
 * One warm-up call; then, in each pass, every batch goes through both paths one after the other,
 * in alternating order (so background load on a shared machine hits both alike); medians and
 * bests of the per-pass totals are reported, and once the rate of a single embed() call over all
 * N texts, as the index calls it. The ratio (Embedder chunks/s ÷ raw chunks/s) is the Embedder's overhead; target
 * ≥ 0.9. On a shared machine the best pass of each is the steadier comparison (other processes
 * only ever slow a pass down).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkFile } from '../src/chunkers/index';
import {
  createTransformersEmbedder,
  DEFAULT_BATCH_SIZE,
  defaultThreads,
  embedText,
  rawSessionEmbed,
  type EmbedderDtype,
} from '../src/index/embedder';

interface Args {
  modelDir: string;
  n: number;
  batchSize: number;
  threads: number;
  dtype: EmbedderDtype;
  passes: number;
  minTokens: number;
  maxTokens: number;
  json: boolean;
}

const USAGE =
  'usage: node --import tsx bench/embed.ts [modelDir] [--n 256] [--batch-size 2] [--threads T] [--dtype q8|fp32] [--passes 3] [--min-tokens 150] [--max-tokens 200] [--json]';
const COST_MODEL = path.join(__dirname, '..', '..', 'shared', 'models', 'minilm-l6-costmodel');
const TINY_MODEL = path.join(__dirname, '..', 'test', 'fixtures', 'models', 'fathom-tiny-bert');

class UsageError extends Error {}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    modelDir: fs.existsSync(COST_MODEL) ? COST_MODEL : TINY_MODEL,
    n: 256,
    batchSize: DEFAULT_BATCH_SIZE,
    threads: defaultThreads(),
    dtype: 'q8',
    passes: 3,
    minTokens: 150,
    maxTokens: 200,
    json: false,
  };
  const ints: Record<string, 'n' | 'batchSize' | 'threads' | 'passes' | 'minTokens' | 'maxTokens'> = {
    '--n': 'n',
    '--batch-size': 'batchSize',
    '--threads': 'threads',
    '--passes': 'passes',
    '--min-tokens': 'minTokens',
    '--max-tokens': 'maxTokens',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (flag in ints) {
      const v = inline ?? argv[++i];
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} needs a positive integer, got ${v}`);
      args[ints[flag]] = n;
    } else if (flag === '--dtype') {
      args.dtype = (inline ?? argv[++i]) as EmbedderDtype;
    } else if (flag === '--json') args.json = true;
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}\n${USAGE}`);
    else args.modelDir = path.resolve(a);
  }
  return args;
}

/** Chunk texts of minTokens..maxTokens tokens from this project's own TypeScript, N of them. */
function chunkTexts(args: Args): { texts: string[]; distinct: number; meanTokens: number } {
  const root = path.join(__dirname, '..');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) files.push(p);
    }
  };
  walk(path.join(root, 'src'));
  walk(path.join(root, 'test', 'unit'));
  const picked: { text: string; tokens: number }[] = [];
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    for (const c of chunkFile(rel, fs.readFileSync(file, 'utf8')).chunks) {
      if (c.tokens >= args.minTokens && c.tokens <= args.maxTokens) picked.push({ text: embedText(c), tokens: c.tokens });
    }
  }
  if (picked.length === 0) throw new UsageError(`no chunk of ${args.minTokens}–${args.maxTokens} tokens in src/ and test/unit/`);
  const chosen = Array.from({ length: args.n }, (_, i) => picked[i % picked.length]);
  return { texts: chosen.map((c) => c.text), distinct: Math.min(picked.length, args.n), meanTokens: chosen.reduce((s, c) => s + c.tokens, 0) / chosen.length };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function osThreads(): number | undefined {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const log = (s: string): void => void (args.json ? process.stderr : process.stdout).write(s + '\n');
  const { texts, distinct, meanTokens } = chunkTexts(args);

  const t0 = performance.now();
  const created = await createTransformersEmbedder({ localModelPath: args.modelDir, dtype: args.dtype, threads: args.threads, batchSize: args.batchSize });
  if ('error' in created) throw new UsageError(created.error);
  const embedder = created.embedder;
  const loadMs = performance.now() - t0;
  log(`model ${embedder.source} (${embedder.id}, ${embedder.dims} dims), loaded in ${loadMs.toFixed(0)} ms`);
  log(`${texts.length} chunk texts (${distinct} distinct) of ${args.minTokens}–${args.maxTokens} tokens, mean ${meanTokens.toFixed(1)}; batch size ${embedder.batchSize}; intra-op threads ${embedder.threads} of ${os.availableParallelism()} cores`);

  const tp = performance.now();
  const prepared = embedder.prepareBatches(texts);
  const prepareMs = performance.now() - tp;
  const padded = prepared.batches.reduce((s, b) => s + b.indices.length * b.length, 0);
  const real = prepared.tokens.reduce((s, t) => s + t, 0);

  // Warm-up (first-run allocations, kernel selection) on one batch, through both paths.
  await embedder.embed(texts.slice(0, embedder.batchSize));
  await rawSessionEmbed(embedder, embedder.prepareBatches(texts.slice(0, embedder.batchSize)));

  // The same batches, one at a time through each path, in alternating order: on a shared
  // machine both paths then see the same background load.
  const groups = prepared.batches.map((b) => ({
    texts: b.indices.map((i) => texts[i]),
    one: { count: b.indices.length, batches: [{ ...b, indices: b.indices.map((_, r) => r) }], tokens: [], truncated: 0 },
  }));
  const embTimes: number[] = [];
  const rawTimes: number[] = [];
  let agreement = 0;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let p = 0; p < args.passes; p++) {
    let embT = 0;
    let rawT = 0;
    for (let k = 0; k < groups.length; k++) {
      const g = groups[k];
      let a: Float32Array[] = [];
      let b: Float32Array[] = [];
      const viaEmbedder = async (): Promise<void> => {
        const t = performance.now();
        a = await embedder.embed(g.texts);
        embT += performance.now() - t;
      };
      const viaRaw = async (): Promise<void> => {
        const t = performance.now();
        b = await rawSessionEmbed(embedder, g.one);
        rawT += performance.now() - t;
      };
      if ((k + p) % 2 === 0) {
        await viaEmbedder();
        await viaRaw();
      } else {
        await viaRaw();
        await viaEmbedder();
      }
      for (let i = 0; i < a.length; i++) for (let j = 0; j < a[i].length; j++) agreement = Math.max(agreement, Math.abs(a[i][j] - b[i][j]));
    }
    embTimes.push(embT);
    rawTimes.push(rawT);
    log(`  pass ${p + 1}: Embedder ${(texts.length / (embT / 1000)).toFixed(1)} chunks/s, raw session ${(texts.length / (rawT / 1000)).toFixed(1)} chunks/s`);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - wall0;
  // And once as the index will call it: one embed() over all N texts.
  const tw = performance.now();
  await embedder.embed(texts);
  const wholeRate = texts.length / ((performance.now() - tw) / 1000);
  const threadsNow = osThreads();
  await embedder.dispose();

  const embRate = texts.length / (median(embTimes) / 1000);
  const rawRate = texts.length / (median(rawTimes) / 1000);
  const embBest = texts.length / (Math.min(...embTimes) / 1000);
  const rawBest = texts.length / (Math.min(...rawTimes) / 1000);
  const result = {
    model: embedder.source,
    id: embedder.id,
    dtype: args.dtype,
    chunks: texts.length,
    meanTokens: Number(meanTokens.toFixed(1)),
    paddingShare: Number((1 - real / padded).toFixed(4)),
    batchSize: embedder.batchSize,
    batches: prepared.batches.length,
    threads: embedder.threads,
    cores: os.availableParallelism(),
    loadMs: Math.round(loadMs),
    tokenizeMs: Number(prepareMs.toFixed(1)),
    embedderChunksPerSec: Number(embRate.toFixed(1)),
    rawChunksPerSec: Number(rawRate.toFixed(1)),
    ratio: Number((embRate / rawRate).toFixed(3)),
    embedderBestChunksPerSec: Number(embBest.toFixed(1)),
    embedderWholeCallChunksPerSec: Number(wholeRate.toFixed(1)),
    rawBestChunksPerSec: Number(rawBest.toFixed(1)),
    ratioBest: Number((embBest / rawBest).toFixed(3)),
    maxAbsDiff: agreement,
    cpuCoresBusy: Number(((cpu.user + cpu.system) / 1000 / wall).toFixed(2)),
    osThreads: threadsNow,
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  if (args.json) {
    console.log(JSON.stringify(result));
    return;
  }
  log('');
  log(`             median of ${args.passes}   best`);
  log(`Embedder     ${result.embedderChunksPerSec.toFixed(1).padStart(8)}  ${result.embedderBestChunksPerSec.toFixed(1).padStart(8)}  chunks/s`);
  log(`raw session  ${result.rawChunksPerSec.toFixed(1).padStart(8)}  ${result.rawBestChunksPerSec.toFixed(1).padStart(8)}  chunks/s`);
  log(`ratio        ${result.ratio.toFixed(3).padStart(8)}  ${result.ratioBest.toFixed(3).padStart(8)}  (target >= 0.9)`);
  log(`one embed() call over all ${texts.length} texts: ${result.embedderWholeCallChunksPerSec.toFixed(1)} chunks/s`);
  log(`tokenizing all ${texts.length} texts once: ${result.tokenizeMs} ms; padding ${(result.paddingShare * 100).toFixed(1)}% of ${padded} token slots`);
  log(`vectors agree to ${agreement.toExponential(1)} (max abs difference, Embedder vs raw)`);
  log(`threads: ${result.threads} intra-op (${result.cores} cores); CPU busy ${result.cpuCoresBusy} cores on average while timing; ${threadsNow ?? '?'} OS threads in the process`);
  log(`peak RSS ${result.peakRssMB} MB`);
}

main().catch((err) => {
  if (err instanceof UsageError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
