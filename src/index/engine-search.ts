/**
 * The engine's search (a room of engine.ts): hybrid search — keyword (with the phrase and shown-value
 * tiers) and dense rankings fused (by score with Fathom's own model, else RRF), then diversified — the exact or IVF dense top-k, Find
 * Similar, the chunk at a line, and a hit's context, all over the catalog's state.
 */
import type { Chunk } from '../chunkers/types';
import { embedText } from './embedder';
import { ownPieces, type PieceQuery } from './rank/pieces';
import { present } from './rank/present';
import { MODEL_CANDIDATES, RERANK_DEPTH, rerank, wantsRerank, withModelCandidates, type RerankSource } from './rank/rerank';
import { PHRASE_DEPTH, phraseFirst, proximityOrder, proximityText, searchTermsOf, shownForm, shownText } from './rank/phrase';
import { withLocaleEntries } from './rank/locale-entries';
import { codeNames, namesakesFirst, orNamed, unitNames } from './rank/names';
import { compileFilter, convex, DEFAULT_RRF_K, modelTermWeights, nameModels, ownModelWeight, rrf, weighByPath, type FilterSpec, type FusedHit, type RankedList, type ScoredList } from './rank/fusion';
import { besideOther } from './rank/beside';
import type { ChunkHead } from './chunks';
import { dot } from './ivf';
import { STATIC_MODEL_NAME } from './static-model';
import type { EngineCatalog } from './engine-catalog';
import type { EngineOptions, SearchHit, SearchOptions, SimilarTarget } from './engine-types';

/** Below this many vectors the exact scan answers (about 10 ms at 100k on 2 cores with MatMul). */
export const ANN_MIN_ROWS = 200_000;

/**
 * Find Similar with vectors: the least cosine similarity a result needs. A judgement from
 * all-MiniLM-L6-v2's usual range (related code well above it, unrelated well below), not a
 * measured optimum; callers may pass their own `minScore`.
 */
export const SIMILAR_MIN_COSINE = 0.5;
/** Find Similar keyword-only: the least share of the source's own BM25 score a result needs. */
export const SIMILAR_MIN_KEYWORD_SHARE = 0.25;

/** What the keyword list found besides its order: the query as written in a chunk (`phrase`), and each candidate's BM25F score. */
interface KeywordFound {
  phrase: boolean;
  scores?: Map<number, number>;
}

/** Search over one engine's catalog. */
export class EngineSearch {
  /** Set when the embedder's scoring kernel failed once (then the JS scan is used): why. */
  kernelFailed: string | undefined;
  readonly annMinRows: number;
  /** Lists opened per ANN query; default `probeFor(lists)`. */
  readonly annProbe: number | undefined;
  private annBuilding: Promise<void> | undefined;

  constructor(
    private readonly catalog: EngineCatalog,
    dense: EngineOptions['dense'] = {},
  ) {
    this.annMinRows = dense.annMinRows ?? ANN_MIN_ROWS;
    this.annProbe = dense.probe;
  }

  private filterFor(spec: FilterSpec | undefined): ((docId: number) => boolean) | undefined {
    if (!spec || (!spec.pathGlob && !spec.language?.length && !spec.kind?.length)) return undefined;
    return compileFilter(spec, (id) => this.catalog.chunks.facts(id));
  }

  /** Hybrid search: keyword and dense rankings fused (by score with Fathom's own model, else RRF); each hit says why it ranked. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const k = Math.max(1, options.k ?? 10);
    const q = query.length > 10_000 ? query.slice(0, 10_000) : query;
    if (!q.trim()) return [];
    const filter = this.filterFor(options.filters);
    const mode = options.mode ?? 'hybrid';
    const depth = Math.max(50, k * 5);
    const lists: RankedList[] = [];
    const found: KeywordFound = { phrase: false };
    const own = !!this.catalog.embedder?.id.startsWith(STATIC_MODEL_NAME);
    const companion = !own && mode === 'hybrid' && this.catalog.embedder?.companion && ownModelWeight(q, false, this.catalog.embedder.companion.coverage?.(q)) > 0 ? this.catalog.embedder.companion : undefined;
    // with Fathom's own model (or beside another, `companion`: a query in words, rank/beside.ts), the query's words weighed as it weighs them (fusion.ts modelTermWeights)
    const termWeight = mode === 'hybrid' ? modelTermWeights(own ? this.catalog.embedder : companion) : undefined;
    if (mode !== 'dense') lists.push({ name: 'keyword', ids: this.keywordList(q, depth, filter, found, termWeight) });
    // Fathom's own model takes part where it helps (fusion.ts, ownModelWeight); another model always
    const weight = this.catalog.embedder ? (own ? (mode === 'dense' ? 1 : ownModelWeight(q, found.phrase, this.catalog.embedder.coverage?.(q))) : 1) : 0;
    let dense: ScoredList | undefined;
    if (mode !== 'keyword' && weight > 0 && this.catalog.embedder && this.catalog.vectors && this.catalog.vectors.count) {
      const [qv] = await this.catalog.embedder.embed([q], undefined, { urgent: true, query: true });
      const top = await this.denseTop(qv, depth, filter);
      dense = { name: 'dense', ids: top.map((h) => h.docId), weight, scores: new Map(top.map((h) => [h.docId, h.score])) };
      lists.push(dense);
      if ((own || companion) && lists[0].name === 'keyword') this.cosinesOf(qv, lists[0].ids, dense.scores as Map<number, number>);
    }
    const limit = options.diversify === false ? k : depth;
    // Fathom's own model beside the keyword list: their scores combined (fusion.ts, convex); beside another model, rank/beside.ts; else RRF
    const beside = companion && dense && found.scores && !found.phrase && lists[0].name === 'keyword';
    let hits = own && dense && found.scores ? convex({ ...lists[0], scores: found.scores }, dense, { depth, limit: depth }) : beside ? await besideOther(q, companion!, lists[0], found.scores!, dense!, depth, options.rerank, this.catalog.chunks) : rrf(lists, { k: options.rrfK ?? DEFAULT_RRF_K, limit: depth });
    // a query in words, with Fathom's own model: its first candidates re-ranked (rank/rerank.ts)
    if (own && mode === 'hybrid' && options.rerank !== false && found.scores && this.catalog.vectors?.count && wantsRerank(q, found.phrase, this.catalog.embedder!.coverage?.(q) ?? 1, !!dense)) {
      hits = await this.reranked(q, hits, found.scores, dense, options.rerank, filter);
    }
    const fused = this.fuse(q, hits.slice(0, limit), found);
    if (options.diversify === false) return fused.map((h) => ({ chunk: this.catalog.chunks.get(h.docId)!, docId: h.docId, score: h.score, why: h.why }));
    return this.diversified(q, fused, k, options.diversify, { describes: ownModelWeight(q, found.phrase) > 0, phrase: found.phrase, keyword: found.scores });
  }

  /**
   * The keyword list: BM25F, term proximity, then the phrase and shown-value tiers, which look
   * deeper than the list fused: a chunk that displays the query ("Confirm") can rank low on BM25
   * among chunks that use the word in code.
   *
   * A query of several words that a chunk contains as written (a displayed string pasted in, a
   * heading) ranks that chunk first: exact case and accents first, then ignoring case; BM25
   * order is kept within each tier. Term matching alone cannot tell "Bosnia y Herzegovina"
   * (es) from "Bosnia i Hercegovina" (hr) once one-letter words are dropped, nor "Antígua"
   * from "Antigua" once accents are folded. Measured by `fathom eval` (i18n route).
   */
  private keywordList(q: string, depth: number, filter: ((docId: number) => boolean) | undefined, found: KeywordFound, termWeight?: (term: string) => number): number[] {
    const hits = orNamed(q, this.catalog.keyword.search(q, { k: Math.max(depth, PHRASE_DEPTH), filter, termWeight, shortSymbolsFirst: codeNames(q).length > 0 }), this.catalog.chunks, depth, filter);
    found.scores = new Map(hits.map((h) => [h.docId, h.score]));
    const texts = new Map<number, string | undefined>();
    const textOf = (id: number) => {
      if (!texts.has(id)) texts.set(id, this.catalog.chunks.text(id));
      return texts.get(id);
    };
    const ids = proximityOrder(q, hits, depth, (id) => proximityText(textOf(id), this.catalog.chunks.head(id)));
    const phrased = phraseFirst(q, ids, textOf, (id) => this.shownLines(id), depth, found, (id) => searchTermsOf(this.catalog.chunks.head(id)));
    const ordered = namesakesFirst(q, phrased, (id) => unitNames(this.catalog.chunks.head(id)), found).slice(0, depth);
    if (!this.catalog.i18nFeed?.holdsValue?.(q)) return ordered;
    // a locale value: its entries join the list when BM25's candidates left them out (rank/locale-entries.ts)
    const chunks = this.catalog.chunks;
    const isLocale = (id: number) => {
      const h = chunks.head(id);
      return !!h && this.catalog.isLocaleChunk(h) && (!filter || filter(id));
    };
    return withLocaleEntries(q, ordered, depth, found, { search: (x, k, f) => this.catalog.keyword.search(x, { k, filter: f }), isLocale, text: (id) => chunks.text(id) });
  }

  /**
   * The lists fused (by score or RRF, see `search`), implementation above its tests unless the query is about tests, the code
   * a plain-words query describes above the prose that talks about it unless the query is about
   * docs; "why it ranked" names the model behind a meaning rank.
   */
  private fuse(q: string, hits: FusedHit[], found: KeywordFound): FusedHit[] {
    const fused = weighByPath(
      hits.filter((h) => this.catalog.chunks.has(h.docId)),
      q,
      (h) => this.catalog.chunks.head(h.docId)?.path,
      { describes: ownModelWeight(q, found.phrase) > 0, symbolOf: (h) => this.catalog.chunks.head(h.docId)?.symbol, kindOf: (h) => this.catalog.chunks.head(h.docId)?.kind },
    );
    return nameModels(fused, this.catalog.embedder);
  }

  /**
   * `hits` re-ranked (rank/rerank.ts) with the model's cosine of each candidate: from the dense
   * list's scores, else from its stored vector. A query the model was not asked for (no dense
   * list) has the model's first candidates added to the keyword list's (`withModelCandidates`).
   */
  private async reranked(q: string, hits: FusedHit[], keywordScores: Map<number, number>, dense: ScoredList | undefined, options: SearchOptions['rerank'], filter: ((docId: number) => boolean) | undefined): Promise<FusedHit[]> {
    const embedder = this.catalog.embedder!;
    // the dense list's scores hold every fused candidate's cosine (cosinesOf); with no dense list, from the stored vectors
    const cosines = (dense?.scores as Map<number, number> | undefined) ?? new Map<number, number>();
    let depth = RERANK_DEPTH;
    let qv: Float32Array | undefined;
    if (!dense) {
      [qv] = await embedder.embed([q], undefined, { urgent: true, query: true });
      const model = await this.denseTop(qv, MODEL_CANDIDATES, filter);
      ({ hits, depth } = withModelCandidates(hits, model.map((h) => h.docId)));
    }
    const top = hits.slice(0, depth);
    if (top.some((h) => !cosines.has(h.docId))) {
      qv ??= (await embedder.embed([q], undefined, { urgent: true, query: true }))[0];
      this.cosinesOf(qv, top.map((h) => h.docId), cosines);
    }
    const chunks = this.catalog.chunks;
    const src: RerankSource = { keywordScore: (id) => keywordScores.get(id), cosine: (id) => cosines.get(id), chunk: (id) => chunks.head(id), text: (id) => chunks.text(id), termWeight: (t) => embedder.queryTermWeight?.(t) ?? 1 };
    return rerank(q, hits, src, !!dense, options || {}, depth);
  }

  /**
   * The fused hits presented (rank/present.ts: diversified, a cut unit shown by the piece
   * rank/pieces.ts chooses), the best `k` (`describes`: plain words, fusion.ts ownModelWeight;
   * `phrase`: found as written; `keyword`: the keyword scores).
   */
  private diversified(q: string, fused: FusedHit[], k: number, options: SearchOptions['diversify'], pieceQuery: Omit<PieceQuery, 'ranked'>): SearchHit[] {
    const chunks = this.catalog.chunks;
    return present(q, fused, k, options || undefined, pieceQuery, {
      head: (id) => chunks.head(id),
      chunk: (id) => chunks.get(id)!,
      text: (id) => chunks.text(id),
      isLocale: (c) => this.catalog.isLocaleChunk(c),
      fileDocIds: (p) => this.catalog.files.get(p)?.docIds ?? [],
    });
  }

  /** The strings a chunk displays, each in `shownForm` (see `phraseFirst`); cached per chunk until it changes. */
  private shownLines(docId: number): readonly string[] | undefined {
    let lines = this.catalog.shownCache.get(docId);
    if (lines === undefined) {
      const t = shownText(this.catalog.chunks.head(docId));
      lines = t ? t.split('\n').map(shownForm).filter((l) => l.length > 0) : null;
      this.catalog.shownCache.set(docId, lines);
    }
    return lines ?? undefined;
  }

  /** Adds to `scores` the model's cosine of each of `ids` it lacks (a keyword candidate past the dense top-k), from its stored vector. */
  private cosinesOf(qv: Float32Array, ids: readonly number[], scores: Map<number, number>): void {
    const vectors = this.catalog.vectors!;
    for (const id of ids) {
      if (scores.has(id)) continue;
      const v = vectors.get(id);
      // the exact scan's loop (ivf.ts `dot`): the same float as a row the dense top-k scored
      if (v) scores.set(id, dot(v, 0, qv, v.length, v.length - (v.length % 4)));
    }
  }

  /** Exact dense top-k: the embedder's BLAS kernel when it has one (and it works), else the int8 SIMD scan with a float re-score, else the JS scan. */
  private async denseTop(qv: Float32Array, k: number, filter?: (docId: number) => boolean): Promise<Array<{ docId: number; score: number }>> {
    const vectors = this.catalog.vectors!;
    if (vectors.count >= this.annMinRows) {
      // the build takes seconds to minutes at 1M rows: queries meanwhile get the exact scan
      if (!vectors.ann || vectors.ann.stale) void this.prepareAnn().catch(() => undefined);
      else return vectors.annSearch(qv, k, { probe: this.annProbe, filter });
    }
    if (this.catalog.embedder?.scoreRows && !this.kernelFailed) {
      const { data, rows } = vectors.matrix();
      try {
        return vectors.topK(await this.catalog.embedder.scoreRows(data, rows, qv), k, filter);
      } catch (err) {
        this.kernelFailed = `the embedder's scoring kernel failed, using the JS scan: ${(err as Error).message}`;
      }
    }
    return vectors.fastSearch(qv, k, filter) ?? vectors.search(qv, k, filter);
  }

  /**
   * Builds the IVF index when there are enough vectors and it is missing or stale (rows grew by
   * half since its build); one build at a time. A dense search starts it without waiting (and
   * scans exactly until it is done); an indexer may await it after embedding.
   */
  async prepareAnn(): Promise<void> {
    const vectors = this.catalog.vectors;
    if (!vectors || vectors.count < this.annMinRows || (vectors.ann && !vectors.ann.stale)) return;
    if (!this.annBuilding) {
      const matmul = this.catalog.embedder?.matmul?.bind(this.catalog.embedder);
      this.annBuilding = vectors
        .buildAnn({ matmul })
        .then(() => undefined)
        .finally(() => (this.annBuilding = undefined));
    }
    await this.annBuilding;
  }

  /** The chunk of `path` that holds 1-based `line` (the innermost, for nested code blocks). */
  chunkAt(path: string, line: number): Chunk | undefined {
    const rec = this.catalog.files.get(path);
    let best: ChunkHead | undefined;
    let bestId = -1;
    for (const id of rec?.docIds ?? []) {
      const c = this.catalog.chunks.head(id);
      if (c && c.start.line <= line && c.end.line >= line && (!best || c.end.offset - c.start.offset < best.end.offset - best.start.offset)) {
        best = c;
        bestId = id;
      }
    }
    return best && this.catalog.chunks.get(bestId);
  }

  /**
   * Chunks like the given one (a chunk, the chunk at a line, or a text such as a selection),
   * best first, only those above a similarity floor, and never the source itself nor its own
   * pieces: the other pieces of a unit that was cut, and chunks of the same file whose range
   * overlaps the source's (a Markdown section and its code blocks, a Vue block and its members)
   * or the given lines of a text target.
   *
   * With vectors: cosine similarity of the source's vector (or of the embedded text) to every
   * chunk's, kept when at least `minScore` (default `SIMILAR_MIN_COSINE`). Keyword-only: BM25
   * with the source's text as the query, kept when the score is at least `minShare` (default
   * `SIMILAR_MIN_KEYWORD_SHARE`) of the source's own score (of the best hit's, when the source is
   * not indexed), so a chunk that shares one common word with the source does not qualify.
   */
  async similar(target: SimilarTarget, options: { k?: number; minScore?: number; minShare?: number } = {}): Promise<SearchHit[]> {
    const k = Math.max(1, options.k ?? 10);
    let source: Chunk | undefined;
    if ('chunkId' in target) source = this.catalog.chunks.get(this.catalog.chunks.docIdOf(target.chunkId) ?? -1);
    else if ('path' in target && !('text' in target)) source = this.chunkAt(target.path, target.line);
    const text = 'text' in target ? target.text : source ? embedText(source) : undefined;
    if (text === undefined || !text.trim()) return [];
    const sourceId = source ? this.catalog.chunks.docIdOf(source.id) : undefined;
    const own = ownPieces(source, 'text' in target ? target : undefined, sourceId, (id) => this.catalog.chunks.head(id));
    let vec = sourceId !== undefined ? this.catalog.vectors?.get(sourceId) : undefined;
    if (!vec && this.catalog.embedder && this.catalog.vectors?.count) [vec] = await this.catalog.embedder.embed([text.length > 10_000 ? text.slice(0, 10_000) : text], undefined, { urgent: true });
    if (vec && this.catalog.vectors) {
      const floor = options.minScore ?? SIMILAR_MIN_COSINE;
      return (await this.denseTop(vec, k, (id) => !own(id)))
        .filter((h) => h.score >= floor && this.catalog.chunks.has(h.docId))
        .map((h, i) => ({ chunk: this.catalog.chunks.get(h.docId)!, docId: h.docId, score: h.score, why: { dense: i + 1, fused: h.score } }));
    }
    const q = text.length > 10_000 ? text.slice(0, 10_000) : text;
    // no identifier-level tie-break: the query is the source's own text, which names its own
    // symbol fully, so the tie-break would lift the source far above every other chunk and the
    // floor (a share of the source's score) would let nothing through
    const hits = this.catalog.keyword.search(q, { k: k * 2 + 8, namesake: 0 });
    const self = (sourceId !== undefined ? hits.find((h) => h.docId === sourceId)?.score : undefined) ?? hits[0]?.score ?? 0;
    const floor = (options.minShare ?? SIMILAR_MIN_KEYWORD_SHARE) * self;
    return hits
      .filter((h) => !own(h.docId) && h.score >= floor && this.catalog.chunks.has(h.docId))
      .slice(0, k)
      .map((h, i) => ({ chunk: this.catalog.chunks.get(h.docId)!, docId: h.docId, score: h.score, why: { keyword: i + 1, fused: h.score } }));
  }

  /**
   * Window retrieval: the neighbouring chunks of a hit in its file (overlap removed: nested
   * code-block chunks are left out of a section's window), and the linked section or code
   * blocks of a Markdown hit.
   */
  context(chunkId: string, options: { before?: number; after?: number } = {}): { before: Chunk[]; after: Chunk[]; linked: Chunk[] } {
    const docId = this.catalog.chunks.docIdOf(chunkId);
    const chunk = docId === undefined ? undefined : this.catalog.chunks.head(docId);
    if (!chunk) return { before: [], after: [], linked: [] };
    const rec = this.catalog.files.get(chunk.path);
    // the file's chunks without their texts, in order; only the window's are read in full
    const siblings = (rec?.docIds ?? [])
      .map((id) => ({ id, c: this.catalog.chunks.head(id)! }))
      .filter(({ c }) => c && (c.kind === 'code-block') === (chunk.kind === 'code-block'))
      .sort((a, b) => a.c.start.offset - b.c.start.offset);
    const i = siblings.findIndex(({ c }) => c.id === chunk.id);
    const full = (s: Array<{ id: number }>) => s.map(({ id }) => this.catalog.chunks.get(id)!);
    const before = full(siblings.slice(Math.max(0, i - (options.before ?? 1)), i));
    const after = full(siblings.slice(i + 1, i + 1 + (options.after ?? 1)));
    const linkedIds = [...(chunk.links?.codeBlocks ?? []), ...(chunk.links?.section ? [chunk.links.section] : [])];
    const linked = linkedIds.map((id) => this.catalog.chunks.get(this.catalog.chunks.docIdOf(id) ?? -1)).filter((c): c is Chunk => !!c);
    return { before, after, linked };
  }
}
