import type { ChunkContext } from './context';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';

export function chunkVue(_ctx: ChunkContext, _opts: ResolvedOptions): ChunkerOutput {
  throw new FallbackError('Vue chunker not written yet');
}
