/**
 * A fused ranking made into the results a user sees. Plain Node: the local engine
 * (engine-search.ts) and the team index (pg/search.ts) present their rankings alike.
 *
 * - diversified (diversify.ts): a key section's locales folded into one result, code before
 *   translations for a query in words, the pieces of a cut unit one result, at most 3 of a file;
 * - each cut unit shown by the piece pieces.ts chooses (its first piece for a description), with
 *   the piece that ranked named (`why.rankedBy`) and leading "more in this file";
 * - the best `k`.
 */
import type { Chunk } from '../../chunkers/types';
import type { SearchHit } from '../engine-types';
import { diversify, type DiversifyOptions } from './diversify';
import type { FusedHit } from './fusion';
import { wholeValue } from './phrase';
import { shownPiece, unitKey, type PieceQuery } from './pieces';

export type PresentHead = Pick<Chunk, 'path' | 'kind' | 'symbol' | 'split' | 'start' | 'end'>;

/** What `present` reads of an index. */
export interface PresentSource {
  head(docId: number): PresentHead | undefined;
  chunk(docId: number): Chunk;
  text(docId: number): string | undefined;
  /** A chunk of a locale file (a translation). */
  isLocale(c: PresentHead): boolean;
  /** A file's chunks in file order (or those the source has of it: a cut unit's first piece is looked for there). */
  fileDocIds(path: string): readonly number[];
}

/**
 * `fused` (best first; its chunks known to `src`) diversified, each unit shown by its chosen
 * piece, the best `k` (`pieceQuery`: see pieces.ts PieceQuery).
 */
export function present(q: string, fused: readonly FusedHit[], k: number, options: DiversifyOptions | undefined, pieceQuery: Omit<PieceQuery, 'ranked'>, src: PresentSource): SearchHit[] {
  const byId = new Map(fused.map((h) => [h.docId, h]));
  // a key or a path (`user.sign_out`, `src/a.js`) asks for itself: no code-first order then
  const inWords = !/^[\w$@-]+(?:[./:][\w$@-]+)+$/.test(q.trim());
  const whole = inWords ? wholeValue(q) : undefined;
  const ranked = fused.map((h) => {
    const c = src.head(h.docId)!;
    const locale = src.isLocale(c);
    // a locale result keeps its place ahead of code only when one of its values is the query
    return { docId: h.docId, path: c.path, symbol: c.symbol, locale, verbatim: locale && whole ? whole.test(src.text(h.docId) ?? '') : undefined, unit: !locale && c.split ? unitKey(c) : undefined };
  });
  const pq: PieceQuery = { ...pieceQuery, ranked: (id) => byId.has(id) };
  const head = (id: number) => src.head(id);
  return diversify(ranked, { codeFirst: inWords, ...options })
    .slice(0, k)
    .map((d) => {
      const h = byId.get(d.docId)!;
      const shown = shownPiece(d.docId, pq, head, (p) => src.fileDocIds(p));
      // the piece that ranked leads the unit's other pieces under "more in this file"
      const more = shown === d.docId ? d.moreInFile : [d.docId, ...d.moreInFile.filter((id) => id !== shown)];
      const hit: SearchHit = { chunk: src.chunk(shown), docId: shown, score: h.score, why: h.why };
      if (shown !== d.docId) {
        const r = src.head(d.docId)!;
        hit.why = { ...h.why, rankedBy: { startLine: r.start.line, endLine: r.end.line } };
      }
      if (d.folded.length) hit.alsoIn = d.folded.map((id) => src.chunk(id));
      if (more.length) hit.moreInFile = more.map((id) => src.chunk(id));
      return hit;
    });
}
