import type { ChunkContext } from './context';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';

export function chunkMarkdown(_ctx: ChunkContext, _opts: ResolvedOptions): ChunkerOutput {
  throw new FallbackError('Markdown chunker not written yet');
}
