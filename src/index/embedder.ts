/**
 * The Embedder: chunk texts in, unit vectors out. One interface, with transformers.js
 * (`@huggingface/transformers`, ONNX Runtime for Node underneath) behind it.
 *
 * - Model: `Xenova/all-MiniLM-L6-v2` by default, dtype `q8` (int8 weights), loaded with the
 *   feature-extraction pipeline. Mean pooling over the real tokens, then L2 normalization —
 *   what sentence-transformers does for this model.
 * - Offline first: `localModelPath` is a folder holding model folders (`<path>/<model>/…`, the
 *   layout of `env.localModelPath`) or one model folder itself (it has a `config.json`).
 *   Downloads from the Hugging Face Hub happen only with `allowDownload: true`, into
 *   `cacheDir`; a model already in `cacheDir` loads without the network.
 * - The machine stays usable: ONNX Runtime's intra-op threads are capped (default half the
 *   cores, at least 1, inter-op 1) and one `embed` call of an Embedder runs at a time.
 * - The model's window: every text is tokenized with the model's own tokenizer and cut to
 *   `maxTokens` (default 256, all-MiniLM-L6-v2's `max_seq_length`), keeping `[SEP]` last as
 *   sentence-transformers does. The feature-extraction pipeline's own call cannot do that: it
 *   truncates at the tokenizer's `model_max_length` (512 for this model) and drops `[SEP]`. So
 *   `embed` runs the pipeline's steps itself on batches it builds — the pipeline's tokenizer,
 *   the pipeline's `model(inputs)`, then mean pooling + L2 normalization (`meanPoolNormalize`,
 *   checked against the pipeline's own `{ pooling: 'mean', normalize: true }` in the tests).
 * - Batches: texts are sorted by token length (stable) and cut into batches of at most
 *   `batchTokens` tokens (rows × padded length; fewer rows for long texts) and `batchSize` rows, so
 *   padding is small; results come back in the caller's order. Note that with `q8` the
 *   activations are quantized per batch (dynamic quantization, as in the published model), so
 *   a vector can differ in the 4th decimal with the company it was embedded in; fp32 does not.
 * - Never throws for "no model": `createEmbedder` returns `{ error }` with the reason (missing
 *   files, downloads off, download failed, runtime not loadable), so the caller can go
 *   keyword-only and say why.
 *
 * The benchmark (`bench/embed.ts`) compares `embed` with the raw ONNX Runtime session on the same
 * batches: `prepareBatches` (tokenize once) + `rawSessionEmbed` (session.run, mean-pool and
 * normalize by hand).
 *
 * Plain Node: runs in the worker thread and the CLI, never imports `vscode`. The library is
 * imported lazily, so nothing heavy is loaded until an Embedder is created.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FeatureExtractionPipeline, Tensor } from '@huggingface/transformers';
import type { Chunk } from '../chunkers/types';
import type { EmbedCallOptions, Embedder } from './embedder-types';
import { isStaticModel, loadStaticModel, STATIC_MODEL_NAME } from './static-model';

export type { EmbedCallOptions, Embedder };

export type EmbedderDtype = 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';

export interface EmbedderOptions {
  /** Model id (Hub name, or folder name under `localModelPath`). Default `Xenova/all-MiniLM-L6-v2`. */
  model?: string;
  /** Default `q8` (`onnx/model_quantized.onnx`); `fp32` loads `onnx/model.onnx`. */
  dtype?: EmbedderDtype;
  /** A folder holding model folders, or a model folder itself (one with a `config.json`). */
  localModelPath?: string;
  /** May the model be downloaded from the Hugging Face Hub? Default false. */
  allowDownload?: boolean;
  /** Where downloads are cached (and looked up before any download). */
  cacheDir?: string;
  /** ONNX Runtime intra-op threads. Default half the cores, at least 1. */
  threads?: number;
  /** Texts per model call at most. Default DEFAULT_BATCH_SIZE (2). */
  batchSize?: number;
  /**
   * Model tokens per call at most (rows × padded length): a batch of long texts has fewer rows
   * than one of short texts. Default DEFAULT_BATCH_TOKENS (bench/embed-batch.ts).
   */
  batchTokens?: number;
  /** The model's window in tokens, [CLS] and [SEP] included; longer texts are cut. Default 256. */
  maxTokens?: number;
  /**
   * Another model alone: without Fathom's own model beside it (`Embedder.companion`). Default
   * false: a transformers.js model is fused with Fathom's.
   */
  alone?: boolean;
}

/** An embedder `createEmbedder` loaded: what it is and where it came from (for the store's manifest). */
export type LoadedEmbedder = Embedder & { readonly source: string; readonly dtype: string; readonly hash?: string };

export type CreateEmbedderResult = { embedder: TransformersEmbedder } | { error: string };
export type CreateAnyEmbedderResult = { embedder: LoadedEmbedder } | { error: string };

/** The default: Fathom's own code-search model, shipped with it (src/index/static-model.ts). */
export const DEFAULT_MODEL = STATIC_MODEL_NAME;
/** The transformers.js model Fathom downloads (with consent) when asked for "a transformer model". */
export const DEFAULT_TRANSFORMERS_MODEL = 'Xenova/all-MiniLM-L6-v2';
export const DEFAULT_DTYPE: EmbedderDtype = 'q8';
/**
 * Rows per model call, and the token budget of one call (rows × padded length): a batch has
 * min(DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS / L) rows, at least one. Measured with the
 * all-MiniLM-L6-v2 cost model (q8, one intra-op thread, 2 cores; bench/embed-batch.ts, one
 * model call per trial, the fastest of 12): at every length L from 32 to 256 tokens, 2 rows
 * per call embedded the most chunks per second — 1 row 0.65–0.76 of that, 8 rows 0.16–0.80,
 * 32 rows 0.08–0.44 (the old default) — so the rule is two rows, not a fixed token count (the
 * winner's tokens grew with L); the budget (2 × the 256-token window) keeps a model with a
 * longer window at one row per call for its longest texts.
 */
export const DEFAULT_BATCH_SIZE = 2;
export const DEFAULT_BATCH_TOKENS = 512;
export const DEFAULT_MAX_TOKENS = 256;

/** Half the cores, at least 1: embedding never takes the whole machine. */
export function defaultThreads(): number {
  return Math.max(1, Math.floor(os.availableParallelism() / 2));
}

/** The text embedded for a chunk: its breadcrumb header, a line break, its text. */
export function embedText(chunk: Pick<Chunk, 'header' | 'text'>): string {
  return `${chunk.header}\n${chunk.text}`;
}

/** The ONNX file transformers.js loads for a dtype (under `onnx/`). */
const DTYPE_FILE: Record<EmbedderDtype, string> = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  int8: 'model_int8.onnx',
  uint8: 'model_uint8.onnx',
  q4: 'model_q4.onnx',
  bnb4: 'model_bnb4.onnx',
  q4f16: 'model_q4f16.onnx',
};

// ---------------------------------------------------------------------------------------------
// Batches

/** One model call's worth of input: padded int64 tensors' data, row-major [rows, length]. */
export interface Batch {
  /** Positions of the batch's rows in the caller's `texts`. */
  indices: number[];
  /** Padded sequence length of the batch. */
  length: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
}

export interface PreparedBatches {
  count: number;
  batches: Batch[];
  /** Model tokens per text after the cut, [CLS] and [SEP] included. */
  tokens: number[];
  /** How many texts were cut to the window. */
  truncated: number;
}

/** The part of an ONNX Runtime InferenceSession used here. */
interface OrtTensorLike {
  data: unknown;
  dims: readonly number[];
}
interface OrtSessionLike {
  inputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensorLike>>;
}

type TransformersModule = typeof import('@huggingface/transformers');

export class TransformersEmbedder implements Embedder {
  readonly id: string;
  /** Where the model was loaded from (a folder, or the Hub id). */
  readonly source: string;
  /** Calls not started yet, urgent ones first; one runs at a time (ONNX Runtime has the cores). */
  private waiting: Array<{ urgent: boolean; start: () => Promise<void> }> = [];
  private running: Promise<void> | undefined;
  private disposed = false;
  private width = 0;
  /** Fathom's own model beside this one (`Embedder.companion`), set by `createEmbedder`. */
  companion?: Embedder;

  /** @internal use `createEmbedder`. */
  constructor(
    private readonly lib: TransformersModule,
    /** The loaded feature-extraction pipeline: `.model` (its `.sessions.model` is the ONNX
     * Runtime session) and `.tokenizer`. */
    readonly pipeline: FeatureExtractionPipeline,
    readonly model: string,
    readonly dtype: EmbedderDtype,
    readonly threads: number,
    readonly batchSize: number,
    readonly maxTokens: number,
    source: string,
    /** Tokens (rows × padded length) per model call at most. */
    readonly batchTokens: number = DEFAULT_BATCH_TOKENS,
  ) {
    this.id = `${model}:${dtype}:${maxTokens}`;
    this.source = source;
  }

  get dims(): number {
    return this.width;
  }

  /** @internal One real call, so a model that loads but cannot run is refused at creation. */
  async probe(): Promise<void> {
    const [v] = await this.embed(['Fathom']);
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    if (!v.length || !Number.isFinite(norm) || Math.abs(norm - 1) > 1e-3) {
      throw new Error(`it gave a vector of ${v.length} numbers with norm ${norm}`);
    }
    this.width = v.length;
  }

  /** The raw ONNX Runtime session behind the pipeline's model. */
  get session(): OrtSessionLike {
    return (this.pipeline.model.sessions as Record<string, OrtSessionLike>).model;
  }

  /**
   * Tokenizes `texts` once with the model's tokenizer, cuts each to the window (keeping the
   * final [SEP]), sorts them by length (longest first, stable) and packs padded batches: each
   * of at most `batchSize` rows and `batchTokens` tokens (rows × its longest row), one row at least.
   */
  prepareBatches(texts: string[], batchSize = this.batchSize, batchTokens = this.batchTokens): PreparedBatches {
    const pad = this.pipeline.tokenizer.pad_token_id ?? 0;
    let truncated = 0;
    const sep = this.pipeline.tokenizer.sep_token_id;
    const ids = texts.map((text) => {
      const { ids: row, cut } = this.encode(text);
      if (cut || row.length > this.maxTokens) truncated++;
      if (row.length <= this.maxTokens) return row;
      const last = row[row.length - 1];
      return last === sep ? [...row.slice(0, this.maxTokens - 1), last] : row.slice(0, this.maxTokens);
    });
    const order = ids.map((_, i) => i).sort((a, b) => ids[b].length - ids[a].length || a - b);
    const batches: Batch[] = [];
    for (let start = 0; start < order.length; ) {
      // longest first: the batch's first row is its padded length
      const rows = Math.max(1, Math.min(batchSize, Math.floor(batchTokens / Math.max(1, ids[order[start]].length))));
      const indices = order.slice(start, start + rows);
      start += rows;
      const length = Math.max(...indices.map((i) => ids[i].length));
      const inputIds = new BigInt64Array(indices.length * length).fill(BigInt(pad));
      const attentionMask = new BigInt64Array(indices.length * length);
      indices.forEach((t, r) => {
        const row = ids[t];
        for (let j = 0; j < row.length; j++) {
          inputIds[r * length + j] = BigInt(row[j]);
          attentionMask[r * length + j] = 1n;
        }
      });
      batches.push({ indices, length, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(indices.length * length) });
    }
    return { count: texts.length, batches, tokens: ids.map((r) => r.length), truncated };
  }

  /**
   * Token ids of `text` with [CLS]/[SEP], or of a prefix of it cut at ASCII whitespace when that
   * prefix already has the window's worth of tokens (`cut`). WordPiece never joins across
   * whitespace, so the prefix's first tokens are the whole text's: a 200 KB text costs a
   * few-KB tokenization, not 200 ms.
   */
  private encode(text: string): { ids: number[]; cut: boolean } {
    const tok = this.pipeline.tokenizer;
    for (let limit = this.maxTokens * 16; ; limit *= 4) {
      if (text.length <= limit) return { ids: tok.encode(text), cut: false };
      const space = text.slice(limit).search(/[ \t\n\r]/);
      if (space < 0) return { ids: tok.encode(text), cut: false };
      const ids = tok.encode(text.slice(0, limit + space));
      if (ids.length >= this.maxTokens) return { ids, cut: true };
    }
  }

  embed(texts: string[], signal?: AbortSignal, options: EmbedCallOptions = {}): Promise<Float32Array[]> {
    return new Promise<Float32Array[]>((resolve, reject) => {
      const task = { urgent: options.urgent === true, start: () => this.embedNow(texts, signal).then(resolve, reject) };
      const at = task.urgent ? this.waiting.findIndex((t) => !t.urgent) : -1;
      if (at < 0) this.waiting.push(task);
      else this.waiting.splice(at, 0, task);
      this.pump();
    });
  }

  private pump(): void {
    if (this.running) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.running = next.start().finally(() => {
      this.running = undefined;
      this.pump();
    });
  }

  /** Resolves once no call runs or waits. */
  private async drained(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Dot products of `query` with every row of `data` through ONNX Runtime's MatMul (BLAS, SIMD):
   * about 3x the plain JavaScript loop at 100k × 384 (bench/engine.ts). Not queued behind
   * embedding calls: it is its own small session, and a search waits for it.
   */
  async scoreRows(data: Float32Array, rows: number, query: Float32Array): Promise<Float32Array> {
    const dims = query.length;
    if (data.length < rows * dims) throw new Error(`scoreRows: ${data.length} numbers for ${rows} rows of ${dims}`);
    if (rows === 0) return new Float32Array(0);
    const { Tensor, matmul } = this.lib;
    const m = new Tensor('float32', data.length === rows * dims ? data : data.subarray(0, rows * dims), [rows, dims]);
    const out = await matmul(m, new Tensor('float32', query, [dims, 1]));
    if (!(out.data instanceof Float32Array) || out.data.length !== rows) throw new Error('scoreRows: MatMul gave no float32 [rows, 1] output');
    return out.data;
  }

  /** [rowsA, d] × [d, colsB] through ONNX Runtime's MatMul: the ANN index's k-means. */
  async matmul(a: Float32Array, rowsA: number, bT: Float32Array, colsB: number, d: number): Promise<Float32Array> {
    if (a.length < rowsA * d || bT.length < d * colsB) throw new Error('matmul: the matrices are smaller than their shapes');
    if (!rowsA || !colsB) return new Float32Array(rowsA * colsB);
    const { Tensor, matmul } = this.lib;
    const out = await matmul(new Tensor('float32', a.length === rowsA * d ? a : a.subarray(0, rowsA * d), [rowsA, d]), new Tensor('float32', bT.length === d * colsB ? bT : bT.subarray(0, d * colsB), [d, colsB]));
    if (!(out.data instanceof Float32Array) || out.data.length !== rowsA * colsB) throw new Error('matmul: MatMul gave no float32 [rowsA, colsB] output');
    return out.data;
  }

  private async embedNow(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.disposed) throw new Error('Embedder is disposed');
    signal?.throwIfAborted();
    const prepared = this.prepareBatches(texts);
    const out: Float32Array[] = new Array(texts.length);
    for (const b of prepared.batches) {
      signal?.throwIfAborted();
      const vectors = await this.runBatch(b);
      b.indices.forEach((t, r) => (out[t] = vectors[r]));
    }
    signal?.throwIfAborted();
    return out;
  }

  /** The feature-extraction pipeline's steps on one prepared batch: `model(inputs)`, then mean
   * pooling and normalization. */
  private async runBatch(b: Batch): Promise<Float32Array[]> {
    const { Tensor } = this.lib;
    const dims = [b.indices.length, b.length];
    const inputs: Record<string, Tensor> = {
      input_ids: new Tensor('int64', b.inputIds, dims),
      attention_mask: new Tensor('int64', b.attentionMask, dims),
    };
    if (this.session.inputNames.includes('token_type_ids')) inputs.token_type_ids = new Tensor('int64', b.tokenTypeIds, dims);
    const outputs = (await this.pipeline.model(inputs)) as Record<string, Tensor | undefined>;
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings ?? outputs.logits;
    if (!hidden || hidden.dims.length !== 3 || !(hidden.data instanceof Float32Array)) {
      throw new Error('the model gave no float32 [batch, tokens, hidden] output (last_hidden_state)');
    }
    return meanPoolNormalize(hidden.data, b, hidden.dims[2]);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.drained();
    await this.pipeline.dispose();
  }
}

/**
 * The same prepared batches through the raw ONNX Runtime session of `embedder` — no pipeline,
 * no transformers.js tensors on the way out: `session.run`, then mean pooling over the attention
 * mask and L2 normalization by hand. The benchmark's baseline; the tests check it agrees with
 * `embed`.
 */
export async function rawSessionEmbed(embedder: TransformersEmbedder, prepared: PreparedBatches): Promise<Float32Array[]> {
  const { Tensor } = await loadTransformers();
  const session = embedder.session;
  const wantsTypes = session.inputNames.includes('token_type_ids');
  const out: Float32Array[] = new Array(prepared.count);
  for (const b of prepared.batches) {
    const rows = b.indices.length;
    const dims = [rows, b.length];
    const feeds: Record<string, unknown> = {
      input_ids: new Tensor('int64', b.inputIds, dims).ort_tensor,
      attention_mask: new Tensor('int64', b.attentionMask, dims).ort_tensor,
    };
    if (wantsTypes) feeds.token_type_ids = new Tensor('int64', b.tokenTypeIds, dims).ort_tensor;
    const result = await session.run(feeds);
    const hidden = result.last_hidden_state ?? result[Object.keys(result)[0]];
    const vectors = meanPoolNormalize(hidden.data as Float32Array, b, hidden.dims[2]);
    b.indices.forEach((t, r) => (out[t] = vectors[r]));
  }
  return out;
}

/**
 * Mean pooling over the real tokens (attention mask 1) of each row of a [rows, length, width]
 * output, then L2 normalization — the same arithmetic as transformers.js's `mean_pooling` +
 * `normalize(2, -1)` (the tests check it against the library's own feature-extraction pipeline),
 * without its generic tensor code, which cost ~5% of an all-MiniLM-L6-v2 batch.
 */
export function meanPoolNormalize(data: Float32Array, b: Batch, width: number): Float32Array[] {
  const rows = b.indices.length;
  const out: Float32Array[] = [];
  const sum = new Float64Array(width);
  for (let r = 0; r < rows; r++) {
    sum.fill(0);
    let n = 0;
    for (let j = 0; j < b.length; j++) {
      if (b.attentionMask[r * b.length + j] === 0n) continue;
      n++;
      const base = (r * b.length + j) * width;
      for (let k = 0; k < width; k++) sum[k] += data[base + k];
    }
    let norm = 0;
    for (let k = 0; k < width; k++) norm += sum[k] * sum[k];
    // The mean's 1/n cancels in the normalization: v = sum / |sum|.
    norm = Math.max(Math.sqrt(norm), 1e-12 * Math.max(n, 1));
    const v = new Float32Array(width);
    for (let k = 0; k < width; k++) v[k] = sum[k] / norm;
    out.push(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Loading

let transformers: Promise<TransformersModule> | undefined;

function loadTransformers(): Promise<TransformersModule> {
  transformers ??= import('@huggingface/transformers').then((lib) => {
    // Fathom reports what went wrong itself; the library's own warnings (every local path it
    // tried, …) would only be noise in the output.
    lib.env.logLevel = lib.LogLevel.ERROR;
    return lib;
  });
  return transformers;
}

/** `env` is global in transformers.js: loads are serialized and each restores what it set. */
let loadLock: Promise<unknown> = Promise.resolve();

function message(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return err.message + cause;
}

function positiveInt(name: string, value: number | undefined, fallback: number, min = 1): number | string {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) return `${name} must be an integer of at least ${min}, got ${value}`;
  return value;
}

/** transformers.js's test for a Hub-style id; anything else it reads as a path from the cwd. */
function isModelId(name: string): boolean {
  return /^([\w\-.]+\/)?[\w\-.]{1,96}$/.test(name) && !name.includes('..') && !name.includes('--') && !/\.(git|ipynb)$/.test(name);
}

/**
 * Loads the model and returns an Embedder, or the reason why there is none (never throws for
 * that: the caller goes keyword-only and shows the reason).
 */
export async function createEmbedder(options: EmbedderOptions = {}): Promise<CreateAnyEmbedderResult> {
  // Fathom's own model: asked by name (or a .bin file), or nothing asked at all
  if (isStaticModel(options.model) || isStaticModel(options.localModelPath) || (!options.model && !options.localModelPath)) {
    const file = [options.localModelPath, options.model].find((p) => p?.endsWith('.bin'));
    return loadStaticModel(file);
  }
  const r = await createTransformersEmbedder(options);
  // Fathom's own model beside it, unless asked alone; without the shipped file, the model alone
  if ('embedder' in r && !options.alone) {
    const own = loadStaticModel();
    if ('embedder' in own) r.embedder.companion = own.embedder;
  }
  return r;
}

/** A transformers.js model (all-MiniLM-L6-v2 by default), or why there is none. */
export async function createTransformersEmbedder(options: EmbedderOptions = {}): Promise<CreateEmbedderResult> {
  const settings = settingsOf(options);
  if ('error' in settings) return settings;
  const place = placeOf(options, settings);
  if ('error' in place) return place;
  let lib: TransformersModule;
  try {
    lib = await loadTransformers();
  } catch (err) {
    return { error: `No embedding model: the embedding runtime (@huggingface/transformers with onnxruntime-node) cannot be loaded on this machine: ${message(err)}` };
  }
  const loading = loadLock.then(() => loadPipeline(lib, settings, place));
  loadLock = loading.catch(() => undefined);
  let pipe: FeatureExtractionPipeline;
  try {
    pipe = await loading;
  } catch (err) {
    return { error: loadFailure(message(err), settings, place) };
  }
  return startEmbedder(lib, pipe, settings, place);
}

/** `createTransformersEmbedder`'s options, checked, with their defaults. */
interface TransformersSettings {
  model: string;
  dtype: EmbedderDtype;
  allowDownload: boolean;
  threads: number;
  batchSize: number;
  batchTokens: number;
  maxTokens: number;
  /** The ONNX file of `dtype`, under the model folder. */
  modelFile: string;
  cacheDir: string | undefined;
}

/** The options checked, with their defaults, or what is wrong with them. */
function settingsOf(options: EmbedderOptions): TransformersSettings | { error: string } {
  const model = options.model ?? DEFAULT_TRANSFORMERS_MODEL;
  const dtype = options.dtype ?? DEFAULT_DTYPE;
  const allowDownload = options.allowDownload ?? false;
  if (!(dtype in DTYPE_FILE)) return { error: `Unknown embedding dtype "${dtype}" (one of ${Object.keys(DTYPE_FILE).join(', ')}).` };
  const threads = positiveInt('threads', options.threads, defaultThreads());
  const batchSize = positiveInt('batchSize', options.batchSize, DEFAULT_BATCH_SIZE);
  const batchTokens = positiveInt('batchTokens', options.batchTokens, DEFAULT_BATCH_TOKENS);
  const maxTokens = positiveInt('maxTokens', options.maxTokens, DEFAULT_MAX_TOKENS, 4);
  for (const v of [threads, batchSize, batchTokens, maxTokens]) if (typeof v === 'string') return { error: `Embedder: ${v}.` };
  const modelFile = `onnx/${DTYPE_FILE[dtype]}`;
  const cacheDir = options.cacheDir ? path.resolve(options.cacheDir) : undefined;
  return { model, dtype, allowDownload, threads: threads as number, batchSize: batchSize as number, batchTokens: batchTokens as number, maxTokens: maxTokens as number, modelFile, cacheDir };
}

/** Where the model is looked for: `<root>/<id>/`; `loadAs` what transformers.js is given; `where` said in messages. */
interface ModelPlace {
  root: string | undefined;
  id: string;
  loadAs: string;
  where: string;
  /** How messages name the model: `"<id>" (<dtype>)`. */
  label: string;
}

/**
 * Where to look: `<root>/<id>/` — a direct model folder is split into root and id (or, when
 * its name is not a Hub-style id, given to transformers.js as an absolute path). An error when
 * the local model folder does not exist and downloading is off.
 */
function placeOf(options: EmbedderOptions, s: TransformersSettings): ModelPlace | { error: string } {
  const { cacheDir } = s;
  let root = cacheDir;
  let id = s.model;
  let loadAs = s.model;
  let where: string;
  if (options.localModelPath) {
    const dir = path.resolve(options.localModelPath);
    if (fs.existsSync(path.join(dir, 'config.json'))) {
      root = path.dirname(dir);
      id = path.basename(dir);
      loadAs = isModelId(id) ? id : dir;
    } else {
      root = dir;
    }
    where = path.join(root, id);
    if (!s.allowDownload && !fs.existsSync(dir)) {
      return { error: `No embedding model: the local model folder ${dir} does not exist and downloading is off.` };
    }
  } else {
    where = cacheDir ? path.join(cacheDir, id) : `transformers.js's default model folder`;
  }
  return { root, id, loadAs, where, label: `"${id}" (${s.dtype})` };
}

/** The feature-extraction pipeline (run under `loadLock`: it sets transformers.js's global `env`, and restores it). */
async function loadPipeline(lib: TransformersModule, s: TransformersSettings, place: ModelPlace): Promise<FeatureExtractionPipeline> {
  const { env } = lib;
  const saved = { allowLocalModels: env.allowLocalModels, allowRemoteModels: env.allowRemoteModels, localModelPath: env.localModelPath };
  try {
    env.allowLocalModels = true;
    env.allowRemoteModels = s.allowDownload;
    if (place.root) env.localModelPath = place.root;
    return await lib.pipeline('feature-extraction', place.loadAs, {
      dtype: s.dtype,
      device: 'cpu',
      local_files_only: !s.allowDownload,
      ...(s.cacheDir ? { cache_dir: s.cacheDir } : {}),
      session_options: { intraOpNumThreads: s.threads, interOpNumThreads: 1, executionMode: 'sequential' },
    });
  } finally {
    Object.assign(env, saved);
  }
}

/** Why the model did not load (`msg`, transformers.js's message): missing files, no network, or the message itself. */
function loadFailure(msg: string, s: TransformersSettings, place: ModelPlace): string {
  const { cacheDir, allowDownload } = s;
  const { root, where, label } = place;
  const missing = /not found locally at "([^"]+)"/.exec(msg)?.[1];
  if (missing) {
    const lookedIn = cacheDir && root !== cacheDir ? ` (looked in ${where} and the cache ${cacheDir})` : '';
    return (
      `No embedding model: ${label} not found: ${missing} is missing${lookedIn}` +
      (allowDownload
        ? '.'
        : `, and downloading is off. Allow downloads, or point the local model folder at a copy of the model (config.json, tokenizer.json, tokenizer_config.json, ${s.modelFile}).`)
    );
  }
  if (allowDownload && /fetch failed|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network/i.test(msg)) {
    return `No embedding model: downloading ${label} from the Hugging Face Hub failed (${msg}). Retry when online, or set a local model folder.`;
  }
  return `No embedding model: ${label} could not be loaded from ${allowDownload ? `${where} or the Hugging Face Hub` : where}: ${msg}`;
}

/** The embedder over a loaded pipeline, once a probe ran through it; or why it does not run. */
async function startEmbedder(lib: TransformersModule, pipe: FeatureExtractionPipeline, s: TransformersSettings, place: ModelPlace): Promise<CreateEmbedderResult> {
  const { root, id, label } = place;
  // The window can be no wider than the model's position table or the tokenizer's limit.
  const config = pipe.model.config as unknown as { max_position_embeddings?: number };
  const window = Math.min(s.maxTokens, config.max_position_embeddings ?? Infinity, pipe.tokenizer.model_max_length ?? Infinity);
  const source = root ? path.join(root, id) : id;
  const embedder = new TransformersEmbedder(lib, pipe, id, s.dtype, s.threads, s.batchSize, window, source, s.batchTokens);
  try {
    await embedder.probe();
  } catch (err) {
    await embedder.dispose().catch(() => undefined);
    return { error: `No embedding model: ${label} from ${source} loaded but does not run: ${message(err)}` };
  }
  return { embedder };
}
