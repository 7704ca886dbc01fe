/**
 * A learned re-ranking of a plain-words search's first candidates, with Fathom's own model.
 * Plain Node.
 *
 * The fusion (`convex`) sees two numbers per chunk, its keyword score and its cosine. What else
 * tells the documented function from its file's other chunks, and the code from the pages and
 * tests that talk about it, is in the candidates themselves: how many of the query's words the
 * chunk holds (weighed as the model weighs them), whether its name or path holds them, its
 * file's other candidates, its size and kind. `rerankFeatures` reads those for the first
 * `RERANK_DEPTH` candidates; a candidate's new score is exp(w · x) (over the best's), with `RERANK_WEIGHTS`
 * learned by `train/rerank.ts` (a linear listwise softmax, Adam) on the tuning halves of
 * bench/ranking.ts's benchmarks: the doc-sentence ones and the route ones (names, schema
 * fields, registrations), so that it learns to leave a query that names its target alone.
 * The candidates past the first `RERANK_DEPTH` keep their order below them. Measured: docs/MODEL.md.
 *
 * A query is re-ranked when it is made of words (`wantsRerank`: the model knows half of its
 * terms, no chunk holds it as written): the queries the model is asked for (`asked`, 3+ words)
 * and the sentences it is not asked for because they also name code (`NewFoo returns …`, 6+
 * words), each with its own terms (the `asked` and `code`/`capital` interactions below).
 */
import { modelTerms } from '../model-terms';
import { asksForDocs, asksForTests, capitalAfterFirst, CODE_TOKEN, isProsePath, isTestPath, queryWords, unitScale, type FusedHit } from './fusion';

/** Candidates re-ranked: the fused list's first (the keyword list's, for a query the model is not asked for, with `MODEL_CANDIDATES`). */
export const RERANK_DEPTH = 50;

/**
 * A query the model is not asked for (it also names code: `Implementation of + operator when left
 * operand is not a ParserElement`) has no model list in its fusion, so its candidates were the
 * keyword list's first 50 alone: a unit whose words the sentence does not use never reached the
 * re-ranking, however near the model put it. The model's first `MODEL_CANDIDATES` join them
 * (`withModelCandidates`), and the re-ranking, which reads each one's cosine and ranks, decides.
 * Measured (train/rerank.ts, weights learned with and without them): docs/MODEL.md.
 */
export const MODEL_CANDIDATES = 50;

/** Characters of a candidate's text read for its terms (a chunk's first `MAX_MODEL_TERMS`, 512, fit well within). */
const TEXT_READ = 32_768;

/** Chunk kinds that are one unit of code (a function, a class or one of its fragments). */
const UNIT_KINDS = new Set(['function', 'method', 'class', 'struct', 'interface', 'type', 'enum', 'trait', 'fragment', 'impl', 'constructor']);

/** The features, in order: the weights below are read by position. */
export const RERANK_FEATURES = [
  'fused', // the fused score (convex); a query the model is not asked for: 0.5 × keyword + 0.5 × model, as convex would
  'keyword', // keyword score, min-max over the candidates
  'model', // the model's cosine, min-max over the candidates
  'cosine', // the cosine itself
  'inKeyword', // 1 when the keyword list holds it
  'keywordRank', // 1 / log2(1 + keyword rank), 0 when absent
  'modelRank', // 1 / log2(1 + the model's rank), 0 when absent
  'fileOther', // the best fused score of another candidate of its file
  'fileCount', // ln(1 + other candidates of its file)
  'coverage', // the share of the query's terms (weighed by the model) the chunk holds (two adjacent words held joined count: `joinedPairs`)
  'nameCoverage', // the share of them its path and symbol hold
  'length', // ln(1 + characters) / 10
  'unit', // a function, method, class …
  'fileModel', // the best model score among its file's candidates
  'fileKeyword', // the best keyword score among its file's candidates
  'test', // test code, the query not about tests
  'prose', // prose, the query not about docs
  'asked', // the model's list took part (constant within a query: weight 0)
  'asked×keyword',
  'asked×model',
  'code×keyword', // the query holds a token written like code
  'code×model',
  'capital×keyword', // a Capitalized word after the first
  'capital×model',
  'code×nameCoverage',
  'capital×nameCoverage',
  'nameHeld', // the share of its own name's terms (the symbol's last part: `prepare_token_request` of `Client.prepare_token_request`) the query holds
  'typeHead', // the chunk opens a type: its first line of code declares a class, struct, interface, trait, enum or type
  'noun×typeHead', // … and the query reads as a noun phrase (`A client used to sign …`, `Engine is the …`): what a type's doc says
] as const;

/** A chunk's first line of code (past decorators, attributes and comments) declares a type. */
const TYPE_HEAD = /^(?:\s*(?:@[\w.]+(?:\([^)]*\))?|#\[[^\]]*\]|#.*|\/\/.*|\/\*[\s\S]*?\*\/)[ \t]*\n)*\s*(?:export\s+)?(?:default\s+)?(?:(?:public|private|protected|internal|abstract|final|sealed|static|data|open)\s+)*(?:pub(?:\([^)]*\))?\s+)?(?:class|struct|interface|trait|enum|type)\s+[A-Za-z_]/;

/** A query that reads as a noun phrase: an article first (`A client used to …`), or `X is a …` (Go's doc of a type). */
export function nounQuery(query: string): boolean {
  return /^(?:an?|the|this|base|abstract)\s/i.test(query.trim()) || /^\S+\s+(?:is|are|represents|describes|holds)\s+(?:an?|the)\s/i.test(query.trim());
}

/** Learned by `train/rerank.ts` (see its header for the command); `RERANK_FEATURES` order. */
export const RERANK_WEIGHTS: readonly number[] = [1.32, 0.18, 1.28, 1.24, 0.25, 1, 0.75, 0.14, -0.22, 1.73, 2.49, -0.95, -0.04, 1.3, 1.37, -2.55, -1.14, 0, -0.04, 0.04, 0.25, 0.76, 0.4, -0.12, 1.42, 0.22, 1.16, 0.56, 1];

/**
 * The fewest words of a query the model was not asked for (it names code: `NewFoo returns …`)
 * that is re-ranked: a few words around a name (`array base (ArrayBase)`, `field tooltip with
 * component Input`, `global registration of X (Y)`) ask for that name, and the keyword ranking's
 * first is kept. Measured (train/rerank.ts, the route benchmarks' 48 rows of bench/ranking.ts):
 * from 3 or 5 words, hit@1 moved on 11 and 7 route rows (most of them down: a component's
 * `.d.ts` twin, `tooltips` for `tooltip`); from 6, none, and the doc-sentence benchmarks keep
 * the gain (held-out means with the same weights 0.890 / 0.776 / 0.717 from 3, 0.890 / 0.775 /
 * 0.715 from 6).
 */
export const NAMED_MIN_WORDS = 6;

/** A query in words that re-ranking may serve: not found as written, terms the model mostly knows, 3+ words (`NAMED_MIN_WORDS` when the model was not `asked`). */
export function wantsRerank(query: string, phrase: boolean, coverage: number, asked = true): boolean {
  if (phrase || coverage < 0.5) return false;
  return queryWords(query).length >= (asked ? 3 : NAMED_MIN_WORDS);
}

/** Other weights than `RERANK_WEIGHTS`, and a reader of each query's feature rows (`SearchOptions.rerank`). */
export interface RerankOptions {
  weights?: readonly number[];
  features?: (rows: number[][], hits: ReadonlyArray<{ docId: number }>) => void;
}

/** What `rerankFeatures` reads of the index. */
export interface RerankSource {
  /** The keyword score (BM25F) of a candidate, when the keyword list scored it. */
  keywordScore(docId: number): number | undefined;
  /** The model's cosine of a candidate with the query. */
  cosine(docId: number): number | undefined;
  chunk(docId: number): { path: string; symbol?: string; kind: string; header?: string } | undefined;
  text(docId: number): string | undefined;
  /** The model's weight of a query term (its query row's length over the median's). */
  termWeight(term: string): number;
}

/**
 * A unit's own name: the last part of its symbol (`prepare_token_request` of
 * `Client.prepare_token_request`, `{sign, verify}` of a group). "Prepare the access token request"
 * holds 3 of the 4 terms of `prepare_token_request` (its words and the whole identifier, as
 * `modelTerms` reads it) and 3 of the 5 of its sibling `prepare_refresh_token_request`: among a
 * file's functions, the one whose name the sentence spells out. The share of the query held by
 * the name (`nameCoverage`) does not tell them apart.
 */
export function ownName(symbol: string | undefined): string {
  if (!symbol) return '';
  const brace = symbol.indexOf('.{');
  return brace >= 0 ? symbol.slice(brace + 1) : symbol.slice(symbol.lastIndexOf('.') + 1);
}

/**
 * Adjacent words of the query joined, with the query terms each pair stands for: `scroll spy` →
 * scrollspy (scroll, spy), as the keyword index joins them (keyword-query.ts): `useScrollspy`
 * holds both words for it, and its keyword rank says so; the features below read them held too.
 */
function joinedPairs(query: string, qterms: ReadonlyMap<string, number>): Array<{ joined: string; terms: string[] }> {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: Array<{ joined: string; terms: string[] }> = [];
  for (let i = 0; i + 1 < words.length && i < 32; i++) {
    if (words[i].length + words[i + 1].length < 4) continue;
    const terms = [...modelTerms(words[i]), ...modelTerms(words[i + 1])].filter((t) => qterms.has(t));
    const [joined] = modelTerms(words[i] + words[i + 1]);
    if (joined && terms.length === 2) out.push({ joined, terms });
  }
  return out;
}

/** `held`, and the query terms a joined pair stands for when it holds the pair's compound. */
function withJoined(held: ReadonlySet<string>, pairs: ReadonlyArray<{ joined: string; terms: string[] }>): ReadonlySet<string> {
  const hit = pairs.filter((p) => held.has(p.joined));
  if (!hit.length) return held;
  const out = new Set(held);
  for (const p of hit) for (const t of p.terms) out.add(t);
  return out;
}

/** One row of features per candidate (`RERANK_FEATURES`). `asked`: the model's list took part in the fusion. */
export function rerankFeatures(query: string, hits: readonly FusedHit[], src: RerankSource, asked: boolean): number[][] {
  const qterms = new Map<string, number>();
  for (const t of modelTerms(query)) if (!qterms.has(t)) qterms.set(t, src.termWeight(t));
  const pairs = joinedPairs(query, qterms);
  let qtotal = 0;
  for (const w of qterms.values()) qtotal += w;
  const n = hits.length;
  const kw = hits.map((h) => src.keywordScore(h.docId));
  const cos = hits.map((h) => src.cosine(h.docId) ?? 0);
  const nk = unitScale(kw);
  const nd = unitScale(cos);
  const heads = hits.map((h) => src.chunk(h.docId));
  const byFile = new Map<string, number[]>();
  heads.forEach((c, i) => {
    const p = c?.path ?? '';
    const l = byFile.get(p);
    if (l) l.push(i);
    else byFile.set(p, [i]);
  });
  const code = CODE_TOKEN.test(query) ? 1 : 0;
  const capital = capitalAfterFirst(queryWords(query)) ? 1 : 0;
  const tests = !asksForTests(query);
  const docs = !asksForDocs(query);
  const a = asked ? 1 : 0;
  const noun = nounQuery(query) ? 1 : 0;
  // the fused score; for a query the model was not asked for, what convex would give it
  const fused = hits.map((h, i) => (asked ? h.score : 0.5 * nk[i] + 0.5 * nd[i]));
  const rows: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = heads[i];
    const path = c?.path ?? '';
    const text = src.text(hits[i].docId) ?? '';
    // the model reads a chunk's first MAX_MODEL_TERMS terms: a huge chunk (minified, generated) is cut well past them, not tokenized whole
    const held = new Set(modelTerms(`${c?.header ?? ''}\n${text.length > TEXT_READ ? text.slice(0, TEXT_READ) : text}`));
    const named = new Set(modelTerms(`${path} ${c?.symbol ?? ''}`));
    const inText = withJoined(held, pairs);
    const inName = withJoined(named, pairs);
    let cov = 0;
    let ncov = 0;
    for (const [t, w] of qterms) {
      if (inText.has(t)) cov += w;
      if (inName.has(t)) ncov += w;
    }
    cov = qtotal ? cov / qtotal : 0;
    ncov = qtotal ? ncov / qtotal : 0;
    const own = new Set(modelTerms(ownName(c?.symbol)));
    const typeHead = TYPE_HEAD.test(text.length > 600 ? text.slice(0, 600) : text) ? 1 : 0;
    let spelled = 0;
    for (const t of own) if (qterms.has(t) || pairs.some((p) => p.joined === t)) spelled++;
    let other = 0;
    let fileModel = nd[i];
    let fileKeyword = nk[i];
    const same = byFile.get(path)!;
    for (const j of same) {
      if (j === i) continue;
      if (fused[j] > other) other = fused[j];
      if (nd[j] > fileModel) fileModel = nd[j];
      if (nk[j] > fileKeyword) fileKeyword = nk[j];
    }
    const { keyword, dense } = hits[i].why;
    rows[i] = [
      fused[i],
      nk[i],
      nd[i],
      cos[i],
      keyword !== undefined ? 1 : 0,
      keyword !== undefined ? 1 / Math.log2(1 + keyword) : 0,
      dense !== undefined ? 1 / Math.log2(1 + dense) : 0,
      other,
      Math.log1p(same.length - 1),
      cov,
      ncov,
      Math.log1p(text.length) / 10,
      c && UNIT_KINDS.has(c.kind) ? 1 : 0,
      fileModel,
      fileKeyword,
      tests && isTestPath(path) ? 1 : 0,
      docs && isProsePath(path) ? 1 : 0,
      a,
      a * nk[i],
      a * nd[i],
      code * nk[i],
      code * nd[i],
      capital * nk[i],
      capital * nd[i],
      code * ncov,
      capital * ncov,
      own.size ? spelled / own.size : 0,
      typeHead,
      noun * typeHead,
    ];
  }
  return rows;
}

/**
 * The candidates of a query the model was not asked for: `hits`' first `RERANK_DEPTH`, then each
 * of the model's first `MODEL_CANDIDATES` (`modelIds`, best first) that they lack (its place in the
 * model's list as `why.dense`, no fused score), then the rest of `hits` without those. `depth`: how
 * many of them `rerank` re-orders.
 */
export function withModelCandidates(hits: readonly FusedHit[], modelIds: readonly number[]): { hits: FusedHit[]; depth: number } {
  const top = hits.slice(0, RERANK_DEPTH);
  const have = new Set(top.map((h) => h.docId));
  const extra: FusedHit[] = [];
  modelIds.slice(0, MODEL_CANDIDATES).forEach((docId, i) => {
    if (!have.has(docId)) extra.push({ docId, score: 0, why: { fused: 0, dense: i + 1 } });
  });
  const added = new Set(extra.map((h) => h.docId));
  return { hits: [...top, ...extra, ...hits.slice(RERANK_DEPTH).filter((h) => !added.has(h.docId))], depth: top.length + extra.length };
}

/**
 * `hits` (fused, best first) with the first `depth` (`RERANK_DEPTH`) re-ordered by w · features, scored
 * exp(w · x − the best's) (the best 1, the rest in (0, 1]), and the rest after them in their
 * order (scores below the last re-ranked one). Each re-ranked hit's `why.reranked` is its place
 * before. Ties keep the fused order. `options.weights`: other weights; `options.features`: is given
 * the feature rows and the candidates they are of (train/rerank.ts learns from them).
 */
export function rerank(query: string, hits: readonly FusedHit[], src: RerankSource, asked: boolean, options: RerankOptions = {}, depth = RERANK_DEPTH): FusedHit[] {
  const top = hits.slice(0, depth);
  if (top.length < 2) return hits.slice();
  const rows = rerankFeatures(query, top, src, asked);
  options.features?.(rows, top);
  const weights = options.weights ?? RERANK_WEIGHTS;
  const z = rows.map((row) => {
    let t = 0;
    for (let k = 0; k < weights.length; k++) t += weights[k] * row[k];
    return t;
  });
  // exp(z − the best's): the best 1, the others in (0, 1], as the fused scores were
  const best = Math.max(...z);
  const scored = top.map((h, i) => ({ h, s: Math.exp(z[i] - best), i }));
  scored.sort((x, y) => y.s - x.s || x.i - y.i);
  const out: FusedHit[] = scored.map(({ h, s, i }) => ({ ...h, score: s, why: { ...h.why, reranked: i + 1 } }));
  const low = out[out.length - 1].score;
  const rest = hits.length - top.length;
  for (let j = 0; j < rest; j++) out.push({ ...hits[top.length + j], score: (low * 0.5 * (rest - j)) / (rest + 1) });
  return out;
}
