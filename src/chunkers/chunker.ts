/** The contract between the entry (`index.ts`) and each structural chunker. */
import type { TokenCounter } from '../tokenizer/wordpiece';
import type { ChunkContext } from './context';
import type { Chunk, SkipReason } from './types';

export interface ResolvedOptions {
  maxTokens: number;
  maxFileBytes: number;
  maxLineLength: number;
  jsonCategories: ReadonlySet<string>;
  /** Tokens repeated between the pieces of a cut unit (tree-sitter languages); 0 = none. */
  overlap: number;
  /** See `ChunkOptions.declarations`. */
  declarations: boolean;
  counter: TokenCounter;
}

/** What a structural chunker returns; it may also throw FallbackError. */
export interface ChunkerOutput {
  chunks: Chunk[];
  /** JSON category, Vue API style … reported per file. */
  category?: string;
  /** Visible, non-fatal problems: recovered syntax errors, duplicate keys … */
  warnings?: string[];
  /** The file is deliberately not indexed (e.g. a JSON category excluded by default). */
  skipped?: { reason: SkipReason; detail: string };
}

export type Chunker = (ctx: ChunkContext, options: ResolvedOptions) => ChunkerOutput;

/** Thrown by a chunker that cannot cut the file along its structure; the text chunker takes over. */
export class FallbackError extends Error {}
