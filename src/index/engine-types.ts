/**
 * The engine's public types (engine.ts re-exports them): what its rooms share — the catalog
 * (engine-catalog.ts), the index runs (engine-run.ts) and search (engine-search.ts) — kept below
 * all three, so that no room imports another's file for a type.
 */
import type { Chunk, ChunkOptions, FileChunks } from '../chunkers/types';
import type { Embedder } from './embedder';
import type { ThreadModel } from './embedder-types';
import type { FileSelection } from '../workspace/files';
import type { FileContent, FileNotRead, SourceFile } from '../workspace/source';
import type { DiversifyOptions } from './rank/diversify';
import type { FilterSpec } from './rank/fusion';
import type { RerankOptions } from './rank/rerank';
import type { ScriptLocale, Usage, UsageOptions } from '../i18n/types';

export interface FileRecord {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the file's bytes. */
  hash: string;
  language: string;
  docIds: number[];
  category?: string;
  skipped?: { reason: string; detail: string };
  fallback?: string;
  warnings: string[];
}

export type SearchMode = 'hybrid' | 'keyword' | 'dense';

export interface SearchOptions {
  k?: number;
  mode?: SearchMode;
  filters?: FilterSpec;
  rrfK?: number;
  /** Locale folding, code first, the per-file cap (diversify.ts); `false` gives the plain fused order. */
  diversify?: DiversifyOptions | false;
  /**
   * The learned re-ranking of a plain-words query's first candidates with Fathom's own model
   * (rank/rerank.ts; on by default in hybrid mode). `false`: the fused order (A/B runs);
   * `weights`: other weights, `features`: each re-ranked query's feature rows and candidates
   * (train/rerank.ts learns the weights from them).
   */
  rerank?: false | RerankOptions;
}

export interface SearchHit {
  chunk: Chunk;
  docId: number;
  score: number;
  /** `rankedBy`: a cut unit shown by its first piece was ranked by this piece (1-based lines), see rank/pieces.ts. */
  why: { keyword?: number; dense?: number; model?: string; fused: number; reranked?: number; reranker?: string; rankedBy?: { startLine: number; endLine: number } };
  /** The same key section in other locale files (folded into this hit), best first. */
  alsoIn?: Chunk[];
  /** More chunks of this hit's file past the per-file cap ("more in this file"), best first. */
  moreInFile?: Chunk[];
}

export interface IndexProgress {
  phase: 'scan' | 'chunk' | 'embed' | 'done';
  filesDone: number;
  filesTotal: number;
  chunksEmbedded: number;
  chunksToEmbed: number;
  /** Items per second in the current phase. */
  rate: number;
  etaSeconds?: number;
  message?: string;
  /** Chunk phase: the files are chunked on this many pool threads (absent: on the indexing thread). */
  threads?: number;
}

/**
 * What else an index run feeds (the session's i18n index): it sees the walk's list, may ask for
 * files the engine would not read, and gets every file read — the same bytes and decoded text
 * the engine chunks, from one read.
 */
export interface IndexHook {
  /** The files the walk listed (before any is read). */
  listed?(files: SourceFile[]): void;
  /** The hook needs this file read although the engine's record is current. */
  wants?(file: SourceFile): boolean;
  /** The read cap the hook needs for this file, in bytes, when over the engine's. */
  maxBytes?(rel: string): number | undefined;
  /**
   * The i18n usages the hook will find in this file's text (their options), or undefined: a
   * pool thread that chunks the file finds them too, from the same parse, and `read` gets them.
   */
  usages?(rel: string): UsageOptions | undefined;
  /** A file was read (or could not be); `found`: its usages, from the pool thread that chunked it. */
  read?(file: ({ ok: true } & FileContent) | ({ ok: false } & FileNotRead), found?: { usages: Usage[]; locale?: ScriptLocale }): void;
}

/**
 * Chunks files off the indexing thread (src/service/chunk-pool.ts): `indexFolder` hands it the
 * changed files of a run and applies what comes back in walk order.
 */
export interface FileChunker {
  /** False: no thread to run on (chunk in-thread). */
  readonly available: boolean;
  /** Threads (with `depth`, how many files an index run keeps in flight). */
  readonly size: number;
  /** Most files each thread is sent ahead (ChunkPool's `depth`). */
  readonly depth?: number;
  /** A run with fewer changed files or bytes chunks in-thread (defaults POOL_MIN_FILES, POOL_MIN_BYTES). */
  readonly minFiles?: number;
  readonly minBytes?: number;
  /** `embed`: the thread also embeds the chunks with this model (`vectors`), when it can. */
  chunk(rel: string, text: string, options: ChunkOptions, signal?: AbortSignal, usages?: UsageOptions, embed?: ThreadModel): Promise<ChunkedFile>;
}

/**
 * A file as a chunk thread gives it back: its chunks, the i18n usages asked for, the compounds
 * of the chunk texts and, when asked, the vector of each chunk (row i: `chunks[i]`, in one buffer).
 */
export type ChunkedFile = FileChunks & { usages?: Usage[]; locale?: ScriptLocale; compounds?: Int32Array; vectors?: Float32Array };

export interface IndexFolderOptions {
  signal?: AbortSignal;
  /** False: the vectors still missing after chunking are left for a later `embedPending` (the chunk threads' vectors are kept). */
  embed?: boolean;
  selection?: FileSelection;
  hook?: IndexHook;
  pool?: FileChunker;
  heap?: () => HeapUse;
}

/** Heap in use and the heap limit of this thread, in bytes. */
export interface HeapUse {
  used: number;
  limit: number;
}

export interface EngineOptions {
  chunk?: ChunkOptions;
  embedder?: Embedder;
  /** Why there is no embedder (shown to the user); the engine then works keyword-only. */
  noEmbedderReason?: string;
  /**
   * The embedding order: `tiered` (default: hinted files, code, docs/tests, locales/fixtures,
   * src/index/embed-order.ts) or `walk` (the walk's order, hints ignored: the benchmark's baseline).
   */
  embedOrder?: 'tiered' | 'walk';
  /**
   * Dense search past exact scan: from `annMinRows` vectors on (default 200,000), the IVF index
   * (src/index/ivf.ts) opening `probe` lists (default `probeFor(lists)`) answers instead of the exact
   * scan. Chosen by bench/dense.ts.
   */
  dense?: { annMinRows?: number; probe?: number };
}

/** What Find Similar starts from: a chunk, the chunk at a 1-based line, or a text (with the lines it came from, which are left out). */
export type SimilarTarget = { chunkId: string } | { path: string; line: number } | { text: string; path?: string; startLine?: number; endLine?: number };
