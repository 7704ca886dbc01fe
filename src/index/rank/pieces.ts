/**
 * The pieces of a cut unit in the results. Plain Node.
 *
 * A function, class or section over the chunk budget is cut into pieces that share its symbol
 * (`Chunk.split`). diversify.ts makes them one result (`unitKey`); this file chooses which piece
 * shows it. A unit of code is shown by its first piece (its declaration and doc comment: where
 * the function starts) when the query describes it (plain words, fusion.ts ownModelWeight) or
 * when that piece's keyword score is at least FIRST_PIECE_SHARE of the piece that ranked (a name
 * in its signature, its doc's words); by the piece that ranked when the keyword ranking found the
 * query as written (a phrase) or matched mostly there (a call or a registration inside the body).
 * Measured on bench/ranking.ts (line@5, docs/MODEL.md).
 */
import type { Chunk } from '../../chunkers/types';

/**
 * A first piece whose keyword score is at least this share of the ranked piece's stands for its
 * unit for a query that names rather than describes. Measured (bench/ranking.ts, line@5): with
 * any share (0) a registration inside a long `install` lost its line (registration route 1.000
 * -> 0.750 / 0.615, tuning / held-out); 0.3 keeps it at 1.000 and the doc-sentence benchmarks'
 * gains; 0.5-0.9 give some of those back (py-doc tuning 0.654 -> 0.621 at 0.9).
 */
export const FIRST_PIECE_SHARE = 0.3;

/** Units of code whose first piece holds their declaration and doc comment (a class's own lines: `fragment`). */
const CODE_UNITS: ReadonlySet<string> = new Set(['function', 'method', 'class', 'fragment', 'struct', 'impl', 'trait', 'interface', 'enum', 'namespace', 'module', 'object', 'type', 'const', 'macro']);

type PieceHead = Pick<Chunk, 'path' | 'kind' | 'symbol' | 'split'>;

/** The pieces of one cut unit share it: path, kind, symbol and number of pieces. */
export function unitKey(c: PieceHead): string {
  return `${c.path}\0${c.kind}\0${c.symbol ?? ''}\0${c.split?.total ?? 1}`;
}

export interface PieceQuery {
  /** The query describes (plain words): the first piece always. */
  describes: boolean;
  /** The keyword ranking found the query as written: the piece that ranked always. */
  phrase: boolean;
  /** Keyword scores of the ranked chunks. */
  keyword?: ReadonlyMap<number, number>;
  /** Whether a chunk is among the ranked hits (for a piece with no keyword score). */
  ranked: (docId: number) => boolean;
}

/**
 * The piece that shows the unit `docId` ranked for: its first piece (see the file's comment), or
 * `docId` itself — for a whole chunk, a first piece, a piece of prose (a section's first piece
 * is not what a later one says) and a query that points inside the unit.
 */
export function shownPiece(docId: number, q: PieceQuery, head: (docId: number) => PieceHead | undefined, fileDocIds: (path: string) => readonly number[]): number {
  if (q.phrase && !q.describes) return docId;
  const c = head(docId);
  if (!c?.split || c.split.index === 0 || !CODE_UNITS.has(c.kind)) return docId;
  const key = unitKey(c);
  const isFirst = (id: number | undefined) => {
    const o = id === undefined ? undefined : head(id);
    return o?.split?.index === 0 && unitKey(o) === key;
  };
  // a unit's pieces are consecutive in its file's chunks: the first is `index` places back (else
  // look through the file; a file of thousands of chunks is not read whole for every hit)
  const ids = fileDocIds(c.path);
  const guess = ids[ids.indexOf(docId) - c.split.index];
  const first = isFirst(guess) ? guess : ids.find(isFirst);
  if (first === undefined || q.describes) return first ?? docId;
  const best = q.keyword?.get(docId) ?? 0;
  const matched = best > 0 ? (q.keyword?.get(first) ?? 0) >= FIRST_PIECE_SHARE * best : q.ranked(first);
  return matched ? first : docId;
}

/**
 * Whether a docId is the source of a Find Similar (`sourceId`, the lines it came from) or one of
 * its own pieces: those are never shown as similar to it (engine-search.ts `similar`).
 */
export function ownPieces(source: Chunk | undefined, lines: { path?: string; startLine?: number; endLine?: number } | undefined, sourceId: number | undefined, head: (docId: number) => Pick<Chunk, 'path' | 'kind' | 'symbol' | 'split' | 'start' | 'end'> | undefined): (docId: number) => boolean {
  const spans: Array<{ path: string; start: number; end: number }> = [];
  if (source) spans.push({ path: source.path, start: source.start.line, end: source.end.line });
  if (lines?.path !== undefined && lines.startLine !== undefined) spans.push({ path: lines.path, start: lines.startLine, end: lines.endLine ?? lines.startLine });
  return (docId) => {
    if (docId === sourceId) return true;
    const c = head(docId);
    if (!c) return true;
    if (source?.split && c.split && unitKey(c) === unitKey(source)) return true;
    return spans.some((s) => s.path === c.path && c.start.line <= s.end && c.end.line >= s.start);
  };
}
