import type { ChunkContext } from './context';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';

export function chunkJavaScript(_ctx: ChunkContext, _opts: ResolvedOptions): ChunkerOutput {
  throw new FallbackError('JS chunker not written yet');
}
