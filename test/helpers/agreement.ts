/** How two rankings of one query agree (the team index's against the local engine's, say). */

interface Hit {
  chunk: { path: string; start: { line: number } };
}

/** A hit's place: its file and first line. */
export const hitKey = (h: Hit): string => `${h.chunk.path}:${h.chunk.start.line}`;

/** `top1`: 1 when both put the same chunk first, else 0; `overlap`: the share of `mine`'s hits that `theirs` holds too. */
export function agreement(theirs: readonly Hit[], mine: readonly Hit[]): { top1: number; overlap: number } {
  const held = new Set(mine.map(hitKey));
  return {
    top1: theirs[0] && mine[0] && hitKey(theirs[0]) === hitKey(mine[0]) ? 1 : 0,
    overlap: theirs.filter((h) => held.has(hitKey(h))).length / Math.max(1, mine.length),
  };
}
