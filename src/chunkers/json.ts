import type { ChunkContext } from './context';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';

export const DEFAULT_JSON_CATEGORIES = ['schema', 'i18n', 'docs-meta', 'config', 'other'] as const;

export function chunkJson(_ctx: ChunkContext, _opts: ResolvedOptions): ChunkerOutput {
  throw new FallbackError('JSON chunker not written yet');
}
