/**
 * Another model (a transformers.js one, all-MiniLM-L6-v2 say) with Fathom's own beside it
 * (`Embedder.companion`). Plain Node.
 *
 * For a query Fathom's model is asked for (fusion.ts `ownModelWeight`: plain words), the
 * keyword list's and the other model's first candidates are scored by Fathom's model (their
 * vectors made here from their texts: an index made with another model stores none of Fathom's),
 * the keyword list is fused with that ranking by score (`convex`) and re-ranked (rerank.ts), as
 * with Fathom's model alone; then that order's scores and the other model's cosines, each
 * min-max scaled over the candidates, are combined, the other model's at `OTHER_SHARE`
 * (`besideByScore`). Every other query is fused as with the other model alone (RRF).
 *
 * Not measured for quality: the other model's weights cannot be downloaded here. On the tiny
 * test model, which ranks like a random bag of tokens, RRF of the two at weight 1 moved answers of
 * the ranking fixture that Fathom's model alone puts first to third and fourth place; a score
 * share of a third keeps them first unless the other model is far surer
 * (test/unit/companion.test.ts). Cost: `npm run bench:companion`.
 */
import type { Chunk } from '../../chunkers/types';
import { embedText } from '../embedder';
import type { Embedder } from '../embedder-types';
import { dot } from '../ivf';
import { convex, type FusedHit, type RankedList, type ScoredList } from './fusion';
import { RERANK_DEPTH, rerank, wantsRerank, type RerankOptions, type RerankSource } from './rerank';

/** The other model's share of a candidate's score beside Fathom's order (whose share is the rest). */
export const OTHER_SHARE = 1 / 3;

/** What `besideOther` reads of the candidates: the chunk store's (chunks.ts `ChunkStore`). */
export interface BesideSource {
  has(docId: number): boolean;
  head(docId: number): Omit<Chunk, 'text'> | undefined;
  text: RerankSource['text'];
}

/**
 * The hits of a query in words with `companion` (Fathom's own model) beside the model that made
 * `other` (its first candidates, with its cosine of every candidate it has: the keyword list's
 * too). See the module comment.
 */
export async function besideOther(
  q: string,
  companion: Embedder,
  keyword: RankedList,
  keywordScores: Map<number, number>,
  other: ScoredList,
  depth: number,
  rerankOptions: false | RerankOptions | undefined,
  src: BesideSource,
): Promise<FusedHit[]> {
  const ids = [...new Set([...keyword.ids.slice(0, depth), ...other.ids.slice(0, depth)])].filter((id) => src.has(id));
  // each candidate's text read once (a stored chunk's is decoded): for its vector and the re-ranking
  const texts = new Map(ids.map((id) => [id, src.text(id) ?? '']));
  const [qv] = await companion.embed([q], undefined, { urgent: true, query: true });
  const vectors = await companion.embed(
    ids.map((id) => embedText({ header: src.head(id)?.header ?? '', text: texts.get(id)! })),
    undefined,
    { urgent: true },
  );
  const cosines = new Map<number, number>();
  ids.forEach((id, i) => cosines.set(id, dot(vectors[i], 0, qv, qv.length, qv.length - (qv.length % 4))));
  const ranked: ScoredList = { name: 'dense', ids: [...ids].sort((a, b) => cosines.get(b)! - cosines.get(a)! || a - b), scores: cosines };
  let hits = convex({ ...keyword, scores: keywordScores }, ranked, { depth, limit: depth });
  if (rerankOptions !== false && wantsRerank(q, false, companion.coverage?.(q) ?? 1, true)) {
    const source: RerankSource = { keywordScore: (id) => keywordScores.get(id), cosine: (id) => cosines.get(id), chunk: (id) => src.head(id), text: (id) => texts.get(id) ?? src.text(id), termWeight: (t) => companion.queryTermWeight?.(t) ?? 1 };
    hits = rerank(q, hits, source, true, rerankOptions || {}, RERANK_DEPTH);
  }
  return besideByScore(hits, other, OTHER_SHARE);
}

/**
 * `first` (Fathom's order, with its scores) and another model's list, combined by score as
 * `convex` combines two lists (each min-max scaled over the candidates of both, absent: 0),
 * `share` to the other. A hit keeps `first`'s keyword rank and re-ranking and takes its rank in
 * `other` as `dense`. Ties: `first`'s order, then the smaller docId.
 */
export function besideByScore(first: readonly FusedHit[], other: ScoredList, share = OTHER_SHARE): FusedHit[] {
  const was = new Map(first.map((h) => [h.docId, h.why]));
  const mine: ScoredList = { name: 'keyword', ids: first.map((h) => h.docId), scores: new Map(first.map((h) => [h.docId, h.score])) };
  return convex(mine, other, { depth: Infinity, share: 1 - share }).map((h) => {
    const w = was.get(h.docId);
    const why: FusedHit['why'] = { fused: h.score };
    if (w?.keyword !== undefined) why.keyword = w.keyword;
    if (h.why.dense !== undefined) why.dense = h.why.dense;
    if (w?.reranked !== undefined) why.reranked = w.reranked;
    return { docId: h.docId, score: h.score, why };
  });
}
