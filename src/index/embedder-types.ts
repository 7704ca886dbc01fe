/**
 * What an embedding model is to the index: the interface every embedder implements (transformers.js
 * models in embedder.ts, Fathom's own model in static-model.ts). Its own file so that an
 * implementation need not import the factory that loads it.
 */

export interface Embedder {
  /** Identifies the vector space: model, dtype and window. Vectors of two ids never mix. */
  readonly id: string;
  /** Length of every vector. */
  readonly dims: number;
  /** One L2-normalized vector per text, in order. Rejects with the signal's reason once aborted
   * (checked before every batch and at the end). */
  embed(texts: string[], signal?: AbortSignal, options?: EmbedCallOptions): Promise<Float32Array[]>;
  /**
   * Optional fast kernel: the dot product of `query` with each of the `rows` rows of the
   * row-major matrix `data` ([rows, dims]). The vector store uses it for exact top-k when present.
   */
  scoreRows?(data: Float32Array, rows: number, query: Float32Array): Promise<Float32Array>;
  /** Optional fast kernel: [rowsA, d] × [d, colsB] → [rowsA, colsB] (builds the ANN index). */
  matmul?(a: Float32Array, rowsA: number, bT: Float32Array, colsB: number, d: number): Promise<Float32Array>;
  dispose(): Promise<void>;
  /**
   * What a chunk thread loads to embed chunks exactly as this embedder does (Fathom's own model:
   * its file and id). Absent: vectors are made on the indexing thread (transformers.js models).
   */
  readonly inThreads?: ThreadModel;
  /**
   * Optional (Fathom's own model): the vector of a chunk (`embedText`: header, then text) from
   * the compounds of its text that a chunk thread scanned for the keyword index (terms.ts
   * `packCompounds`: at `at`, their count n, then n (start, end, hash) triples), written into
   * `out` at `offset`, bit-identical to `embed`'s; returns where the next chunk's compounds start.
   */
  chunkVectorInto?(header: string, text: string, packed: Int32Array, at: number, out: Float32Array, offset: number): number;
  /** Optional (Fathom's own model): the share of a text's terms its vocabulary knows, 0..1. */
  coverage?(text: string): number;
  /** Optional (Fathom's own model): a query term's weight in a hybrid search's keyword ranking (static-model.ts). */
  queryTermWeight?(term: string): number;
  /**
   * Optional (another model): Fathom's own model beside it (`createEmbedder`, unless `alone`).
   * A hybrid search in words then has it weigh the query's words, score the keyword and dense
   * candidates and re-rank them, and this model's list joins by RRF (engine-search.ts). Its
   * vectors are computed for the candidates only, never stored.
   */
  readonly companion?: Embedder;
}

/**
 * A model a chunk thread can load by itself (static-model.ts): the file, the id its vectors must
 * have, and the parts already loaded on this thread (`StaticEmbedder.shared`: sent to each
 * thread once, the rows in shared memory), so that the thread does not read the file again.
 */
export interface ThreadModel {
  file: string;
  id: string;
  shared?: StaticModelParts;
}

export interface EmbedCallOptions {
  /**
   * A query someone waits for: it runs before every embedding call that has not started yet
   * (an index batch already running finishes first), so a search during indexing waits for at
   * most one batch, not for the whole backlog.
   */
  urgent?: boolean;
  /**
   * The texts are search queries, not chunks: a model with a query tower of its own (Fathom's
   * static model) reads them with it. Models with one tower ignore it.
   */
  query?: boolean;
}

/** The header of Fathom's model file (static-model.ts). */
export interface StaticModelHeader {
  format: string;
  version: number;
  dims: number;
  vocab: string[];
  [fact: string]: unknown;
}

/** A loaded model's parts (`StaticEmbedder.shared`): what the file holds, parsed, with its hash. */
export interface StaticModelParts {
  header: StaticModelHeader;
  /** `sha256:<hex>` of the file. */
  hash: string;
  /** The scales and rows, after the header (SharedArrayBuffer where the runtime has it). */
  data: SharedArrayBuffer | ArrayBuffer;
}
