import type { ChunkerOutput, ResolvedOptions } from './chunker';
import type { ChunkContext } from './context';
import type { Range } from './source';

/** JSON embedded in another file (a Vue `<i18n>` block), chunked as the given category. */
export function chunkJsonRange(
  _ctx: ChunkContext,
  _range: Range,
  _category: string,
  _opts: ResolvedOptions,
  _header: (symbol: string | undefined) => string,
): ChunkerOutput | undefined {
  return undefined; // TEMP until the JSON chunker lands
}
