/**
 * Fathom's own code-search model: a dual bag-of-words encoder (CodeSearchNet's NBoW baseline,
 * trained here by train/train.py on doc-comment → code pairs from open-source packages; see
 * docs/MODEL.md). It ships with Fathom (resources/model/fathom-code-search.bin), needs no
 * download and no runtime: a text's vector is the sum of its terms' rows, normalized.
 *
 * - Terms: `modelTerms` (the keyword index's code-aware terms, S-stemmed), the same function
 *   the training pairs were made with. Each distinct known term counts 1 + ln(tf) times; terms
 *   the model does not know are left out.
 * - Two towers: a query is read with the query table, a chunk (and the text of "Find similar")
 *   with the code table; `embed(texts, signal, { query: true })` picks the query one. The
 *   learned term weights are folded into the rows at export, so a row is one int8 vector and
 *   one float scale.
 * - File format (little-endian): `FTHM`, u32 header length, a JSON header (`dims`, `vocab`
 *   (term list, row order), training facts), padding to 4 bytes, then the query rows' scales
 *   (f32 × vocab), the code rows' scales, the query rows (int8 × vocab × dims), the code rows.
 *
 * Plain Node, no dependency: runs in the worker thread, the chunk threads and the CLI.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EmbedCallOptions, Embedder, StaticModelHeader, StaticModelParts, ThreadModel } from './embedder-types';
import { CompoundTerms } from './keyword-record';
import { MAX_MODEL_TERMS, modelTerms } from './model-terms';
import { CompoundScanner, termsOfCompound } from './terms';

const STEMMED = { stem: true } as const;

// (the model file's types live in embedder-types.ts, which the thread model's type needs too)
export type { StaticModelHeader, StaticModelParts };

/** The model's name, as users give it (`--model fathom-code-search`, the `fathom.model.id` setting). */
export const STATIC_MODEL_NAME = 'fathom-code-search';
/** The file name of the shipped model. */
export const STATIC_MODEL_FILE = 'fathom-code-search.bin';

const MAGIC = 'FTHM';

/**
 * A query term's weight in a hybrid search's keyword ranking (`queryTermWeight`):
 * (the length of its query row / the median row's) ^ QUERY_TERM_POWER, within
 * [QUERY_TERM_MIN, QUERY_TERM_MAX]. Training folds each term's learned weight into its row, so
 * the length says how much the model lets a word of a doc sentence count: little for "creates",
 * "returns", "given", much for "client", "cookie", "retry". Measured on bench/ranking.ts's
 * stores (the six benchmarks' tuning halves, hybrid hit@5 / MRR / line@5): every word at 1
 * 0.869 / 0.736 / 0.664; power 0.5 → 0.874 / 0.741 / 0.672, power 1 → 0.875 / 0.738 / 0.671,
 * power 1 within [0.5, 1.5] → 0.875 / 0.737 / 0.670. Held-out halves, with 0.5: 0.878 / 0.760 /
 * 0.677 → 0.880 / 0.765 / 0.684; Flask, Flask with its docs and Gin (never tuned on): 0.929 /
 * 0.760 / 0.714 → 0.931 / 0.770 / 0.733.
 */
export const QUERY_TERM_POWER = 0.5;
export const QUERY_TERM_MIN = 0.25;
export const QUERY_TERM_MAX = 2;

/** Where the shipped model is: next to the bundles (dist/ → resources/model) or the sources (src/index → resources/model). */
export function bundledModelPath(): string | undefined {
  const candidates = [
    path.join(__dirname, '..', 'resources', 'model', STATIC_MODEL_FILE),
    path.join(__dirname, '..', '..', 'resources', 'model', STATIC_MODEL_FILE),
  ];
  return candidates.find((p) => fs.existsSync(p));
}

/** Is `name` (a model id or a path) Fathom's static model? */
export function isStaticModel(name: string | undefined): boolean {
  if (!name) return false;
  return name === STATIC_MODEL_NAME || name.startsWith(`${STATIC_MODEL_NAME}@`) || name.endsWith('.bin');
}


/** Reads a model file's bytes: the header checked, the rows copied into an aligned buffer of their own (shareable with a chunk thread). */
export function parseModel(file: string, bytes: Buffer): StaticModelParts {
  if (bytes.length < 8 || bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error(`${file} is not a Fathom model file (no ${MAGIC} header)`);
  const headerLength = bytes.readUInt32LE(4);
  if (8 + headerLength > bytes.length) throw new Error(`${file} is cut short (header of ${headerLength} bytes)`);
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as StaticModelHeader;
  if (header.format !== 'fathom-static-model' || header.version !== 1) throw new Error(`${file}: unknown model format ${header.format} v${header.version}`);
  const dims = header.dims;
  const n = header.vocab.length;
  const start = 8 + headerLength;
  const need = start + n * 4 * 2 + n * dims * 2;
  if (!Number.isInteger(dims) || dims <= 0 || bytes.length !== need) throw new Error(`${file} has ${bytes.length} bytes, ${need} expected for ${n} terms × ${dims} dimensions`);
  // a copy in an aligned buffer of its own (a Buffer from readFileSync may share a pool)
  const data = typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(bytes.length - start) : new ArrayBuffer(bytes.length - start);
  new Uint8Array(data).set(bytes.subarray(start));
  return { header, data, hash: `sha256:${crypto.createHash('sha256').update(bytes).digest('hex')}` };
}

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  /** The model file (recorded in the store's manifest). */
  readonly source: string;
  readonly dtype = 'int8';
  /** `sha256:<hex>` of the file. */
  readonly hash: string;
  readonly header: StaticModelHeader;
  /** Term → row, built on the first text embedded (`terms`): a process that only loads the model to give its rows to the threads, or to name it in a store, never needs it (40,000 terms: ~15 ms). */
  private termRows: Map<string, number> | undefined;
  /** `queryTermWeight`'s table, made on first use. */
  private queryRowLengths: { of: Float32Array; median: number } | undefined;
  private readonly qScale: Float32Array;
  private readonly cScale: Float32Array;
  private readonly qRows: Int8Array;
  private readonly cRows: Int8Array;

  /** `vectorInto`'s scratch: the count of each term of the text, and the terms in the order first seen (typed arrays, not a Map: 15% of the time). */
  private counts: Uint16Array | undefined;
  private order: Int32Array | undefined;
  /** `chunkVectorInto`'s table of the compounds met: each one's term rows (bounded: see CompoundTerms); its scanner of headers; the terms counted so far and how many more may be. */
  private compounds: CompoundTerms | undefined;
  private headerScanner: CompoundScanner | undefined;
  private m = 0;
  private left = 0;
  private readonly weak: number[] = [];
  /** The rows and scales (see the file format), in memory a chunk thread can share (`shared`). */
  private readonly data: SharedArrayBuffer | ArrayBuffer;

  /** A model file's bytes, or the `shared` parts of a model loaded on another thread (no read, no hash: the same numbers). */
  constructor(file: string, source: Buffer | StaticModelParts) {
    const p = Buffer.isBuffer(source) ? parseModel(file, source) : source;
    const { header, data } = p;
    const dims = header.dims;
    const n = header.vocab.length;
    if (data.byteLength !== n * 8 + n * dims * 2) throw new Error(`${file}: ${data.byteLength} bytes of rows, ${n * 8 + n * dims * 2} expected for ${n} terms × ${dims} dimensions`);
    this.qScale = new Float32Array(data, 0, n);
    this.cScale = new Float32Array(data, n * 4, n);
    this.qRows = new Int8Array(data, n * 8, n * dims);
    this.cRows = new Int8Array(data, n * 8 + n * dims, n * dims);
    this.data = data;
    this.header = header;
    this.dims = dims;
    this.source = file;
    this.hash = p.hash;
    this.id = `${STATIC_MODEL_NAME}@${this.hash.slice(7, 19)}`;
  }

  /**
   * What a chunk thread needs to embed as this model does without reading the file again: the
   * header and the hash (copied once per thread), and the rows in memory shared with it (no copy).
   * Reading the 11 MB file, hashing it and parsing its header took each thread 0.3–0.4 s of CPU.
   */
  get shared(): StaticModelParts {
    return { header: this.header, hash: this.hash, data: this.data };
  }

  /** The vector of one text (unit length; all zeros when no term is known). */
  vector(text: string, query = false): Float32Array {
    const v = new Float32Array(this.dims);
    this.vectorInto(text, v, 0, query);
    return v;
  }

  /**
   * The share of a text's distinct terms (`modelTerms`) that the model knows (1 for a text
   * without terms): how much of a query its vector stands for. A query in a language the model
   * never learned (its doc comments were English) is mostly unknown words, and its vector a few
   * stray ones.
   */
  coverage(text: string): number {
    const rows = this.terms;
    const seen = new Set(modelTerms(text));
    if (seen.size === 0) return 1;
    let known = 0;
    for (const t of seen) if ((rows.get(t) ?? 0) > 0) known++;
    return known / seen.size;
  }

  /**
   * `vector(text)` written into `out` at `offset` (zeros there expected): the chunk threads
   * embed a file's chunks into one buffer, sent back without a copy. The same arithmetic, in
   * the same order, as `vector`: the numbers are bit-identical.
   */
  vectorInto(text: string, out: Float32Array, offset: number, query = false): void {
    this.scratch();
    const counts = this.counts!;
    const order = this.order!;
    let m = 0;
    const rows = this.terms;
    for (const t of modelTerms(text)) {
      const i = rows.get(t);
      if (i !== undefined && i > 0 && counts[i]++ === 0) order[m++] = i;
    }
    this.sumRows(m, out, offset, query);
  }

  /**
   * `vectorInto(embedText(chunk), out, offset)` (the code tower) of a chunk whose text's
   * compounds a chunk thread has scanned already for the keyword index (`packCompounds`: at
   * `at`, their count n, then n (start, end, hash) triples); returns where the next chunk's
   * compounds start. The same terms, in the same order, so the same bits: `terms(text)` is the
   * concatenation of its compounds' terms (terms.ts `CompoundScanner`), and `embedText` puts a
   * separator between header and text. Each distinct compound is cut into terms and looked up
   * in the vocabulary once per thread (`compounds`), not at each occurrence.
   */
  chunkVectorInto(header: string, text: string, packed: Int32Array, at: number, out: Float32Array, offset: number): number {
    this.scratch();
    const scanner = (this.headerScanner ??= new CompoundScanner());
    this.m = 0;
    this.left = MAX_MODEL_TERMS;
    const nh = scanner.scan(header);
    for (let k = 0; k < nh && this.left > 0; k++) this.countCompound(header, scanner.starts[k], scanner.ends[k], scanner.hashes[k]);
    const n = packed[at];
    for (let k = 0, p = at + 1; k < n && this.left > 0; k++, p += 3) this.countCompound(text, packed[p], packed[p + 1], packed[p + 2]);
    this.sumRows(this.m, out, offset, false);
    return at + 1 + 3 * n;
  }

  /** Counts the terms of the compound `s.slice(start, end)` (hash `h`) into `counts`/`order` (`m` of them so far), at most `left` more. */
  private countCompound(s: string, start: number, end: number, h: number): void {
    const table = this.compounds!;
    let e = table.find(s, start, end, h);
    if (e === undefined) e = this.learnCompound(s, start, end, h);
    const from = table.from[e];
    const n = Math.min(table.count[e], this.left);
    this.left -= n;
    const ids = table.ids;
    const counts = this.counts!;
    const order = this.order!;
    let m = this.m;
    for (let x = from; x < from + n; x++) {
      const i = ids[x];
      if (i > 0 && counts[i]++ === 0) order[m++] = i;
    }
    this.m = m;
  }

  /** A compound's entry in `compounds`: its model terms' rows (0: a term the model does not know, still counted against `MAX_MODEL_TERMS`). */
  private learnCompound(s: string, start: number, end: number, h: number): number {
    const weak = this.weak;
    weak.length = 0;
    const ts = termsOfCompound(s.slice(start, end), STEMMED, weak);
    const rows = this.terms;
    const ids: number[] = new Array(ts.length);
    for (let x = 0; x < ts.length; x++) {
      ids[x] = rows.get(ts[x]) ?? 0;
      weak[x] = 0;
    }
    return this.compounds!.add(s, start, end, h, ids, weak);
  }

  /**
   * A query term's weight in a hybrid search's keyword ranking (see QUERY_TERM_POWER):
   * `term` as the keyword index has it, looked up as is or as `modelTerms` reads it (S-stemmed);
   * 1 for a term the model does not know.
   */
  queryTermWeight(term: string): number {
    const rows = this.terms;
    let i = rows.get(term);
    if (i === undefined) {
      const m = modelTerms(term);
      if (m.length) i = rows.get(m[0]);
    }
    if (i === undefined) return 1;
    const lengths = (this.queryRowLengths ??= this.rowLengths());
    const x = Math.pow(lengths.of[i] / lengths.median, QUERY_TERM_POWER);
    return Math.min(QUERY_TERM_MAX, Math.max(QUERY_TERM_MIN, x));
  }

  /** Each query row's length (its scale × the int8 row's), and their median; once, on the first `queryTermWeight` (40,000 rows: ~10 ms). */
  private rowLengths(): { of: Float32Array; median: number } {
    const n = this.header.vocab.length;
    const d = this.dims;
    const of = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = i * d, end = k + d; k < end; k++) s += this.qRows[k] * this.qRows[k];
      of[i] = Math.sqrt(s) * this.qScale[i];
    }
    const sorted = Float32Array.from(of).sort();
    return { of, median: sorted[n >> 1] || 1 };
  }

  /** Builds the term table and the scratch now (a chunk thread's `warm`, while the walk runs), not on the first text. */
  prepare(): void {
    this.scratch();
    void this.terms;
  }

  private get terms(): Map<string, number> {
    return (this.termRows ??= new Map(this.header.vocab.map((t, i) => [t, i])));
  }

  /** The scratch of `vectorInto` and `chunkVectorInto`, made on first use. */
  private scratch(): void {
    this.counts ??= new Uint16Array(this.header.vocab.length);
    this.order ??= new Int32Array(MAX_MODEL_TERMS);
    this.compounds ??= new CompoundTerms();
  }

  /** Adds the rows of the `m` terms in `order` (each `1 + ln(count)` times; their counts reset), then normalizes: the vector at `offset`. */
  private sumRows(m: number, out: Float32Array, offset: number, query: boolean): void {
    const scale = query ? this.qScale : this.cScale;
    const rows = query ? this.qRows : this.cRows;
    const counts = this.counts!;
    const order = this.order!;
    const d = this.dims;
    const d4 = d & ~3;
    for (let j = 0; j < m; j++) {
      const i = order[j];
      const w = (1 + Math.log(counts[i])) * scale[i];
      counts[i] = 0;
      const off = i * d;
      if (d4 === d) {
        for (let k = 0, r = off, o = offset; k < d; k += 4, r += 4, o += 4) {
          out[o] += w * rows[r];
          out[o + 1] += w * rows[r + 1];
          out[o + 2] += w * rows[r + 2];
          out[o + 3] += w * rows[r + 3];
        }
      } else for (let k = 0; k < d; k++) out[offset + k] += w * rows[off + k];
    }
    let norm = 0;
    for (let k = 0; k < d; k++) norm += out[offset + k] * out[offset + k];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let k = 0; k < d; k++) out[offset + k] *= inv;
    }
  }

  /** A chunk thread loads this file and embeds as this model does (engine-run.ts: the chunk pool's threads embed what they cut). */
  get inThreads(): ThreadModel {
    return { file: this.source, id: this.id, shared: this.shared };
  }

  async embed(texts: string[], signal?: AbortSignal, options?: EmbedCallOptions): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) out[i] = this.vector(texts[i], options?.query === true);
    signal?.throwIfAborted();
    return out;
  }

  async dispose(): Promise<void> {
    // nothing held but memory
  }
}

const loaded = new Map<string, StaticEmbedder>();

/** The static model in `file` (default: the shipped one), loaded once per process; or why not. */
export function loadStaticModel(file?: string): { embedder: StaticEmbedder } | { error: string } {
  const where = file ? path.resolve(file) : bundledModelPath();
  if (!where) return { error: `No embedding model: Fathom's own model (${STATIC_MODEL_FILE}) is missing from this installation (resources/model/); reinstall Fathom, or choose another model.` };
  const hit = loaded.get(where);
  if (hit) return { embedder: hit };
  try {
    const e = new StaticEmbedder(where, fs.readFileSync(where));
    loaded.set(where, e);
    return { embedder: e };
  } catch (err) {
    return { error: `No embedding model: ${where} cannot be read as Fathom's model: ${(err as Error).message}` };
  }
}
