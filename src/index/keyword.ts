/**
 * The keyword (lexical) index: FlexSearch behind a small interface, with Fathom's code-aware
 * tokenizer (`terms.ts`) and BM25F scoring. Plain Node.
 *
 * Vocabulary:
 * - *fields*: a chunk is indexed as four fields, in this order: `symbol`, `path`, `header`,
 *   `text`. `language` and `kind` are kept (interned) for filters, not searched.
 * - *internal id*: each document gets a dense internal id (reused after removal); FlexSearch
 *   and the typed arrays use it, callers only ever see their own `docId`.
 * - *record*: what the index keeps per document, one `Uint32Array`:
 *   `[pathId, languageId << 16 | kindId, len(symbol), len(path), len(header), len(text),
 *     termId₀, tf₀, termId₁, tf₁, …]` — the document's distinct terms in order of first
 *   occurrence (symbol first, text last), each with its frequency per field packed one byte a
 *   field, counted in half occurrences (2 per occurrence, 1 per added stem: `weakHalf`),
 *   saturating at 255. It serves the BM25 score, `remove`, and export.
 * - *slot*: FlexSearch ranks by "resolution slots" (0 best). Fathom's score function puts a
 *   term first seen in the symbol in slot 0, in the path or header in slot 1, and a text term
 *   in slots 2–8 by its position among the text's terms: the field boost, FlexSearch's way.
 *
 * Scoring: BM25F (bench/keyword.ts compares it on 300 mined queries with FlexSearch's own
 * multi-term order, kept in bench/flexsearch-order.ts as the baseline: hit@1 0.94 in any
 * insertion order against 0.94 → 0.88, 0.99 on symbols) — BM25F (Robertson &
 *   Zaragoza's simple BM25F) over the best `candidates` (default 200) documents: for each query
 *   term, W = Σ_field boost × tf / (1 − b + b × len / avglen), score += idf × W × (k1 + 1) /
 *   (k1 + W), idf = ln(1 + (N − df + 0.5) / (df + 0.5)), k1 = 1.2, b = 0.75, df counting
 *   documents that have the term in any field. Boosts symbol 5, path 1, header 3, text 1
 *   (the header repeats the path and the symbol's words). Ties: candidate order, then docId.
 *
 * BM25 candidates (see `candidatesOf`) come from FlexSearch's postings, read term by term
 * (a single-term search left unresolved gives a term's documents by slot), rarest term first
 * within a postings budget (`maxPostings`), each document scored Σ idf × slot weight. The
 * budget bounds the work at 1M chunks; with fewer than `candidates` documents more terms are
 * read. FlexSearch's own multi-term intersection is not used for BM25: it costs ~250 ns per
 * posting walked (an object keyed by id), 10× the typed-array accumulation here.
 *
 * Filters: a filter made by `compileFilter` (fusion.ts) carries its facets, tested on the
 * index's own path/language/kind ids as documents are first seen (one verdict per distinct
 * path, kept while the filter object lives); any other predicate runs lazily, best
 * candidates first.
 *
 * FlexSearch runs with `fastupdate` so that `remove` does not scan the whole index. Its own
 * export/import is not used: in 0.8 it exports the postings but no configuration, and import
 * switches `fastupdate` off (importing into a `fastupdate` index throws). `export()` writes the
 * records instead. `import()` does not feed them back to FlexSearch (bench/store.ts: 87% of a
 * 100k-chunk store's load time, and most of its memory): it lays the imported documents'
 * postings out in two typed arrays (`BasePostings`: per term and slot, the internal ids in
 * insertion order — what FlexSearch would hold), read next to FlexSearch, which only holds the
 * documents added after the import. A removed imported document is dropped from them by a flag.
 * A binary snapshot (`export({ binary: true })`, what the store keeps) carries those postings and
 * the vocabulary as a term table (lexicon.ts): its import reads both in place and builds neither
 * (at 1M chunks they were ~75% of a store's load).
 * (bench/flexsearch-order.ts, the benchmarks' baseline, first moves them into FlexSearch.)
 */
import { Index } from 'flexsearch';
import type { DocFilter, FacetFilter } from './rank/fusion';
import { Lexicon, Vocabulary } from './lexicon';
import { HEADER, layoutBinary, layoutPostings, RESOLUTION, slotsInto, type BasePostings, type BinaryLayout } from './postings-layout';
import { CompoundScanner, fold, queryTerms, termsOfCompound, termsWithWeakness, TOKENIZER_VERSION } from './terms';

export type WeakHalf = 'none' | 'stems' | 'all';

export interface KeywordFields {
  path: string;
  header?: string;
  symbol?: string;
  text?: string;
  language?: string;
  kind?: string;
}

export interface FieldBoosts {
  symbol: number;
  path: number;
  header: number;
  text: number;
}

export interface KeywordIndexOptions {
  /** BM25F field weights. */
  boosts?: Partial<FieldBoosts>;
  k1?: number;
  b?: number;
  /** How many candidates the BM25 score looks at. Default 200. */
  candidates?: number;
  /**
   * BM25 candidates come from the query's rarest terms whose postings add up to at most this
   * (see `candidatesOf`): the work of a query is bounded by it. Default 300,000 (0.3 × 1M
   * chunks); on the dev corpus even 1 posting (the rarest term, then more terms only while
   * there are fewer than `candidates`) ranks the mined queries the same.
   */
  maxPostings?: number;
  /** S-stemming of terms (see terms.ts); part of the persisted format. */
  stem?: boolean | 'add';
  /** Keep one-digit terms (see terms.ts); part of the persisted format. Default false. */
  singleDigits?: boolean;
  /**
   * Which derived terms count as half an occurrence (see `termsWithWeakness`): `'stems'` the
   * added stems, `'all'` also the parts of identifiers and CJK bigrams, `'none'`. Part of the
   * persisted format. Default `'stems'`: measured (bench/keyword.ts, hit@1), `'all'` helps
   * queries mined from headings (0.950 vs 0.943 overall) but loses words typed for an
   * identifier (`zoom control` for `getZoomControl`: 0.76 vs 0.83); `'none'` 0.943 / 0.82.
   */
  weakHalf?: WeakHalf;
  /**
   * Coverage exponent: a document's BM25F score is multiplied by c^coverage, c the share of the
   * query's concepts (idf-weighted) it matches, so that a chunk holding every word of the query
   * beats one that holds a boosted symbol and half of them. Only for queries of at most
   * `COVERAGE_MAX_CONCEPTS` concepts: on doc-comment sentences (bench/ranking.ts, tuning half) it
   * cost 2–5 points of hit@5 at any length, 1–2 points when shrunk as 4 / concepts. 0 turns it off.
   */
  coverage?: number;
  /** Adjacent query words also match as one compound (`log out` → `logout`). Default true. */
  compounds?: boolean;
  /** Query words also match their code synonyms (`CODE_SYNONYMS`). Default true. */
  synonyms?: boolean;
  /** Namesake weight (see `NAMESAKE`): 0 turns the identifier-level tie-break off. */
  namesake?: number;
  /** How many compounds `add` keeps the term ids of before it starts over (default 131,072; the tests make it small). */
  compoundMemory?: number;
}

/**
 * A small, explicit table of code synonyms: a query word (or two adjacent words joined) also
 * matches these terms, at `SYNONYM_WEIGHT` of a term's score, and covers its concept.
 */
export const CODE_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  signin: ['login', 'logon'],
  login: ['signin'],
  logon: ['login', 'signin'],
  signout: ['logout', 'logoff'],
  logout: ['signout', 'logoff'],
  logoff: ['logout', 'signout'],
  signup: ['register'],
  register: ['signup'],
  delete: ['remove'],
  remove: ['delete'],
  erase: ['delete', 'remove'],
  settings: ['preferences', 'config'],
  preferences: ['settings'],
};
const SYNONYM_WEIGHT = 0.6;
/** Own entries only: a query word `constructor` or `__proto__` is no synonym. */
const synonymsOf = (w: string): readonly string[] => (Object.hasOwn(CODE_SYNONYMS, w) ? CODE_SYNONYMS[w] : []);
export const DEFAULT_COVERAGE = 1;
/**
 * Identifier-level tie-break between near-namesakes: a chunk's score is multiplied by
 * 1 + namesake × q, q = (symbol terms the query matched) − ½ (symbol terms it did not), in
 * occurrences, clamped to [0, 4]. `getUser` (both parts named) then outranks `getUserSlice`
 * and `getUserList` (one part unnamed) for a query about getting the user, and `hash`
 * outranks `hashGet` for one about a hash, even when their texts match the words alike. For
 * a query short enough for coverage (`COVERAGE_MAX_CONCEPTS`) it applies only among the
 * chunks covering the most of the query, so that a named symbol never beats a chunk holding
 * more of the query's words (`field title with component TextField`: the schema property, not
 * TextField's own file). Chosen on the tuning half of bench/ranking.ts (doc sentences →
 * function): hit@1 and hit@5 rose at 0.1 and 0.2 on JS, Python and Go alike and flattened
 * past 0.2; a larger symbol boost instead (5 → 8 or 12) left them where they were.
 */
export const DEFAULT_NAMESAKE = 0.2;
export const COVERAGE_MAX_CONCEPTS = 6;

/**
 * What a query is scored with: its known term ids, each term's weight and the concepts (typed
 * words) it covers. A concept is a word of the query with its stem; an adjacent pair's compound
 * covers both words; a synonym covers its word.
 */
export interface QueryPlan {
  ids: number[];
  weight: number[];
  /** Per term: bit mask of the concepts it covers (at most 31 concepts; later ones are not counted). */
  covers: number[];
  /** Per concept: its idf (0 when no term of it is known). */
  conceptIdf: number[];
}

export interface KeywordSearchOptions {
  /** How many results. Default 10. */
  k?: number;
  /**
   * Only documents for which this returns true. A filter made by `compileFilter` is tested
   * on the index's own path, language and kind of each document (`filter.facets`), without
   * calling its lookup: the same answer when the index got the same facts in `add`.
   */
  filter?: DocFilter;
  /** Overrides the index's `candidates` for this query. */
  candidates?: number;
  /** Overrides the index's `maxPostings` for this query. */
  maxPostings?: number;
  /** Overrides the index's `namesake` weight for this query (0: no identifier-level tie-break). */
  namesake?: number;
}

export interface KeywordHit {
  docId: number;
  score: number;
  /** 1-based. */
  rank: number;
}

/** What `export()` gives and `import()` takes: JSON-able fields plus one binary blob. */
export interface KeywordSnapshot {
  format: 'fathom-keyword';
  version: number;
  tokenizer: { version: number; stem: boolean | 'add'; singleDigits: boolean; weakHalf: WeakHalf };
  docs: number;
  vocab: string[];
  paths: string[];
  languages: string[];
  kinds: string[];
  /** docIds as float64[docs], then term counts as uint32[docs], then the records, uint32. */
  data: Uint8Array;
  /** FNV-style hash of `data`'s 32-bit words. */
  checksum: number;
  /** The vocabulary as a term table (lexicon.ts), instead of `vocab` (then empty): `export({ binary: true })`. */
  lexicon?: Uint8Array;
  /** The documents' postings laid out (offsets per term and slot, then internal ids): `export({ binary: true })`. */
  postings?: Uint8Array;
}

/** `KeywordIndex.exportRecords`: a snapshot and views of its records (`counts` a document, `body`) in its `data`. */
export interface KeywordRecords {
  snap: KeywordSnapshot;
  counts: Uint32Array;
  body: Uint32Array;
}

/** The binary snapshot of `snap` with its laid-out postings and term table (its `vocab` then in the table). */
export function binarySnapshot(snap: KeywordSnapshot, layout: BinaryLayout): KeywordSnapshot {
  return { ...snap, vocab: [], lexicon: layout.lexicon, postings: layout.postings };
}

export const DEFAULT_BOOSTS: Readonly<FieldBoosts> = { symbol: 5, path: 1, header: 3, text: 1 };
export const DEFAULT_CANDIDATES = 200;
export const DEFAULT_MAX_POSTINGS = 300_000;
/** Terms keep their form and add their S-stem (terms.ts); measured in bench/keyword.ts. */
export const DEFAULT_STEM: boolean | 'add' = 'add';
/** 2: frequencies in half occurrences with `weakHalf: 'stems' | 'all' | 'none'` (1 had a boolean). */
const SNAPSHOT_VERSION = 2;

const NFIELDS = 4;

type Fx = Index<false, false, true>;

/** The tokenizer settings a record is made with (a `KeywordIndex` has them). */
export interface RecordConfig {
  stem: boolean | 'add';
  singleDigits: boolean;
  weakHalf: WeakHalf;
}

/** The query settings a plan is made with (a `KeywordIndex` has them). */
export interface PlanConfig {
  stem: boolean | 'add';
  singleDigits: boolean;
  synonyms: boolean;
  compounds: boolean;
}

/**
 * A document's keyword record, as `add` stores it: each field's length in terms (symbol, path,
 * header, text) and each distinct term (in order of first occurrence, symbol first) with its
 * frequency per field packed one byte a field (symbol in the low byte), in half occurrences.
 * What the PostgreSQL team index stores per chunk (pgstore.ts); `add` computes the same in place
 * (interning ids as it goes), so the two must change together.
 */
export function keywordRecord(fields: KeywordFields, config: RecordConfig): { lens: [number, number, number, number]; terms: Map<string, number> } {
  const opts = { stem: config.stem, singleDigits: config.singleDigits };
  const weak: number[][] = [[], [], [], []];
  const perField = [
    termsWithWeakness(str(fields.symbol), opts, weak[0]),
    termsWithWeakness(str(fields.path), opts, weak[1]),
    termsWithWeakness(str(fields.header), opts, weak[2]),
    termsWithWeakness(str(fields.text), opts, weak[3]),
  ];
  // Term frequencies in half occurrences: 2 for a term, 1 for a weak one.
  const weakFrom = config.weakHalf === 'all' ? 1 : config.weakHalf === 'stems' ? 2 : 3;
  const local = new Map<string, number>();
  for (let f = 0; f < NFIELDS; f++) {
    const shift = 8 * f;
    const ts = perField[f];
    const ws = weak[f];
    for (let x = 0; x < ts.length; x++) {
      const add = ws[x] >= weakFrom ? 1 : 2;
      const p = local.get(ts[x]);
      if (p === undefined) local.set(ts[x], add * 2 ** shift);
      else {
        const cur = (p >>> shift) & 255;
        if (cur < 255) local.set(ts[x], p + Math.min(add, 255 - cur) * 2 ** shift);
      }
    }
  }
  return { lens: [perField[0].length, perField[1].length, perField[2].length, perField[3].length], terms: local };
}

/** A query plan by term (see `QueryPlan`): `terms[i]` instead of a term id. */
export interface TermPlan {
  terms: string[];
  weight: number[];
  covers: number[];
  conceptIdf: number[];
}

/**
 * The query's terms known to an index, with the concepts they cover: each term of
 * `queryTerms` is a concept, except an added stem, which joins its term's; two adjacent
 * words also match as their compound (`dark mode` → `darkmode`, `dark-mode`) and a word as
 * its code synonyms, when the index knows them. `dfOf` gives a term's document frequency
 * (undefined: not in the index), `N` the number of documents. Every term the plan may ask
 * about is in `planTerms(query, config)`.
 */
export function planQuery(query: string, config: PlanConfig, dfOf: (term: string) => number | undefined, N: number): TermPlan {
  const opts = { stem: config.stem, singleDigits: config.singleDigits };
  const weak: number[] = [];
  const all = termsWithWeakness(query, opts, weak);
  const ts: string[] = [];
  const weight: number[] = [];
  const covers: number[] = [];
  const conceptIdf: number[] = [];
  const conceptOf = new Map<string, number>();
  const idfOf = (df: number) => Math.log(1 + (N - df + 0.5) / (df + 0.5));
  const at = new Map<string, number>();
  const addTerm = (t: string, w: number, mask: number): void => {
    const df = dfOf(t);
    if (df === undefined) return;
    const j = at.get(t);
    if (j !== undefined) {
      covers[j] |= mask;
      weight[j] = Math.max(weight[j], w);
      return;
    }
    if (ts.length >= 64) return;
    at.set(t, ts.length);
    ts.push(t);
    weight.push(w);
    covers.push(mask);
    for (let c = 0; c < 31; c++) if (mask & (1 << c) && conceptIdf[c] === 0) conceptIdf[c] = idfOf(df);
  };
  let last = -1;
  for (let x = 0; x < all.length; x++) {
    const t = all[x];
    let c: number;
    if (weak[x] === 2 && last >= 0) c = last;
    else {
      const seen = conceptOf.get(t);
      if (seen !== undefined) {
        last = seen;
        continue;
      }
      c = conceptIdf.length;
      conceptOf.set(t, c);
      conceptIdf.push(0);
    }
    last = c;
    addTerm(t, 1, c < 31 ? 1 << c : 0);
  }
  // the typed words, in order (identifier parts and punctuation left aside)
  const words = fold(query).match(/[\p{L}\p{N}]+/gu) ?? [];
  const maskOf = (w: string) => {
    const c = conceptOf.get(w);
    return c !== undefined && c < 31 ? 1 << c : 0;
  };
  if (config.synonyms) {
    for (const w of words) for (const syn of synonymsOf(w)) addTerm(syn, SYNONYM_WEIGHT, maskOf(w));
  }
  if (config.compounds) {
    for (let i = 0; i + 1 < words.length && i < 32; i++) {
      const a = words[i];
      const b = words[i + 1];
      if (a.length + b.length < 4) continue;
      const mask = maskOf(a) | maskOf(b);
      addTerm(a + b, 1, mask);
      addTerm(`${a}-${b}`, 1, mask);
      if (config.synonyms) for (const syn of synonymsOf(a + b)) addTerm(syn, SYNONYM_WEIGHT, mask);
    }
  }
  return { terms: ts, weight, covers, conceptIdf };
}

/** Every term `planQuery` may look up for `query` (known or not), each once. */
export function planTerms(query: string, config: PlanConfig): string[] {
  const asked = new Set<string>();
  planQuery(query, config, (t) => {
    asked.add(t);
    return undefined;
  }, 0);
  return [...asked];
}

export class KeywordIndex {
  readonly boosts: Readonly<FieldBoosts>;
  readonly k1: number;
  readonly b: number;
  readonly candidates: number;
  readonly maxPostings: number;
  readonly stem: boolean | 'add';
  readonly singleDigits: boolean;
  readonly weakHalf: WeakHalf;
  readonly coverage: number;
  readonly namesake: number;
  readonly compounds: boolean;
  readonly synonyms: boolean;

  protected fx!: Fx;
  // Documents have a dense internal id (FlexSearch's id, the index of the typed arrays):
  // `records[i]`, `extOf[i]` = the caller's docId; `intOf` the other way, in insertion order.
  protected records: Array<Uint32Array | undefined> = [];
  protected extOf: number[] = [];
  private intOf = new Map<number, number>();
  private freeInt: number[] = [];
  /** Candidate scores, per internal id (scratch, all zero between queries). */
  private acc = new Float64Array(1024);
  /** Per internal id, the record's path id and language/kind ids, for cache-friendly filters. */
  private docPath = new Uint32Array(1024);
  private docLK = new Uint32Array(1024);
  /** The internal ids a query's candidate scoring touched (scratch). */
  private touched: Int32Array = new Int32Array(1024);
  /** The internal ids a cheap filter refused during a query (scratch). */
  private refused: Int32Array = new Int32Array(1024);
  /** term → id, and id → term in `vocabStr` (an imported term is decoded when first looked up: see lexicon.ts). */
  private vocab = new Vocabulary();
  protected get vocabStr(): string[] {
    return this.vocab.strs;
  }
  private free: number[] = [];
  private df = new Uint32Array(1024);
  /** Per term id: 1 + its index among the current query's terms, 0 otherwise. */
  private mark = new Uint8Array(1024);
  /** Per term id: 1 + its place among the distinct terms of the document being added, 0 otherwise (scratch of `add`). */
  private docSlot = new Uint32Array(1024);
  /** The document being added: its distinct term ids and packed frequencies (scratch of `add`). */
  private docTerms = new Uint32Array(1024);
  /** The term ids of the compounds met (see `add`); emptied whenever a term id is freed. */
  private compoundTerms: CompoundTerms;
  private readonly scanner = new CompoundScanner();
  private sumLen = new Float64Array(NFIELDS);
  private paths = new Interner();
  private languages = new Interner();
  private kinds = new Interner();
  /** Slots of the document being added, read by the FlexSearch score function. */
  private pending: Uint8Array = new Uint8Array(0);
  private emptied = 0;
  private pathVerdicts = new WeakMap<FacetFilter, Int8Array>();
  /** Postings of the imported documents (not in FlexSearch), see `BasePostings`. */
  protected base: BasePostings | undefined;
  /** Bulk loading (`beginBulk`): documents added go to `base`, laid out by `endBulk`. */
  private bulk = false;

  constructor(options: KeywordIndexOptions = {}) {
    this.boosts = { ...DEFAULT_BOOSTS, ...definedOnly(options.boosts ?? {}) };
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.candidates = Math.max(1, options.candidates ?? DEFAULT_CANDIDATES);
    this.maxPostings = Math.max(1, options.maxPostings ?? DEFAULT_MAX_POSTINGS);
    this.stem = options.stem ?? DEFAULT_STEM;
    this.singleDigits = options.singleDigits ?? false;
    this.weakHalf = options.weakHalf ?? 'stems';
    this.coverage = options.coverage ?? DEFAULT_COVERAGE;
    this.namesake = options.namesake ?? DEFAULT_NAMESAKE;
    this.compounds = options.compounds ?? true;
    this.synonyms = options.synonyms ?? true;
    this.compoundTerms = new CompoundTerms(options.compoundMemory);
    this.fx = this.newFx();
  }

  private newFx(): Fx {
    return new Index({
      // Documents and queries reach FlexSearch already tokenized (arrays of terms).
      encode: passThrough,
      fastupdate: true,
      resolution: RESOLUTION,
      score: (_content: string[], _term: string, i: number) => this.pending[i] ?? RESOLUTION - 1,
    });
  }

  /** Number of documents. */
  get size(): number {
    return this.intOf.size;
  }

  /** Distinct terms in the index. */
  get vocabularySize(): number {
    return this.vocab.size;
  }

  has(docId: number): boolean {
    return this.intOf.has(docId);
  }

  /** Path, language and kind of a document (a `lookup` for `compileFilter`). */
  lookup(docId: number): { path: string; language: string; kind: string } | undefined {
    const i = this.intOf.get(docId);
    const r = i === undefined ? undefined : this.records[i];
    if (!r) return undefined;
    return { path: this.paths.get(r[0]), language: this.languages.get(r[1] >>> 16), kind: this.kinds.get(r[1] & 0xffff) };
  }

  /** Adds a document, replacing the one with the same id. */
  /**
   * Adds (or replaces) a document. `textCompounds`: the (start, end, hash) triples of
   * `CompoundScanner.scan(fields.text)`, found already (by a chunk pool thread), or undefined.
   */
  add(docId: number, fields: KeywordFields, textCompounds?: Int32Array): void {
    if (!Number.isSafeInteger(docId) || docId < 0) throw new RangeError(`docId must be a non-negative integer, got ${docId}`);
    if (this.intOf.has(docId)) this.remove(docId);
    // Term frequencies in half occurrences: 2 for a term, 1 for a weak one. The distinct terms
    // in order of first occurrence: their ids in `docTerms`, `docSlot[id]` = 1 + their place
    // (no per-document map). Each compound of the text is found in `compoundTerms` (its term
    // ids and halves, worked out once per distinct compound), not cut into term strings that
    // are each looked up: that was most of a cold index's time on the indexing thread.
    const cache = this.compoundTerms;
    const scan = this.scanner;
    const lens = [0, 0, 0, 0];
    let dt = this.docTerms;
    let U = 0;
    for (let f = 0; f < NFIELDS; f++) {
      const unit = 1 << (8 * f); // the field's byte of the packed frequencies
      const text = str(f === 0 ? fields.symbol : f === 1 ? fields.path : f === 2 ? fields.header : fields.text);
      // the thread's triples, when they fit this text (else it is scanned here)
      const given = f === 3 && textCompounds && textCompounds.length % 3 === 0 && (textCompounds.length === 0 || textCompounds[textCompounds.length - 2] <= text.length) ? textCompounds : undefined;
      const n = given ? given.length / 3 : scan.scan(text);
      let len = 0;
      for (let k = 0; k < n; k++) {
        const start = given ? given[3 * k] : scan.starts[k];
        const end = given ? given[3 * k + 1] : scan.ends[k];
        const hash = given ? given[3 * k + 2] : scan.hashes[k];
        const e = cache.find(text, start, end, hash) ?? this.learnCompound(text, start, end, hash);
        const from = cache.from[e];
        const to = from + cache.count[e];
        len += to - from;
        for (let x = from; x < to; x++) {
          const id = cache.ids[x];
          const add = cache.halves[x];
          const at = this.docSlot[id];
          if (at === 0) {
            if (2 * U + 2 > dt.length) {
              const more = new Uint32Array(2 * dt.length);
              more.set(dt);
              this.docTerms = dt = more;
            }
            this.docSlot[id] = ++U;
            dt[2 * U - 2] = id;
            dt[2 * U - 1] = add * unit;
          } else {
            const p = dt[2 * at - 1];
            const cur = (p >>> (8 * f)) & 255;
            if (cur < 255) dt[2 * at - 1] = p + Math.min(add, 255 - cur) * unit;
          }
        }
      }
      lens[f] = len;
    }
    const rec = new Uint32Array(HEADER + 2 * U);
    rec[0] = this.paths.id(str(fields.path));
    // 16 bits each; past 65,535 distinct names the last id is shared (filters then over-match).
    rec[1] = (Math.min(this.languages.id(str(fields.language)), 0xffff) << 16) | Math.min(this.kinds.id(str(fields.kind)), 0xffff);
    for (let f = 0; f < NFIELDS; f++) {
      rec[2 + f] = lens[f];
      this.sumLen[f] += lens[f];
    }
    for (let u = 0; u < U; u++) {
      const id = dt[2 * u];
      this.docSlot[id] = 0;
      this.df[id]++;
    }
    rec.set(dt.subarray(0, 2 * U), HEADER);
    this.insert(docId, rec);
  }

  /**
   * Bulk loading, for an index built from nothing (a cold index run): the documents added
   * until `endBulk` are not given to FlexSearch one by one; `endBulk` lays their postings out
   * in the typed arrays an import builds (`BasePostings`), in one pass over the records. On the
   * dev corpus FlexSearch's add was half the keyword indexing time of a cold run. Searches
   * answer the same (a search meanwhile ends the bulk first; later adds go to FlexSearch, as
   * after an import). False (and nothing changes) when the index is not empty.
   */
  beginBulk(): boolean {
    if (this.bulk) return true;
    if (this.records.length || this.base) return false;
    this.bulk = true;
    return true;
  }

  /** Ends bulk loading (see `beginBulk`): the bulk documents' postings are built. */
  endBulk(): void {
    if (!this.bulk) return;
    this.bulk = false;
    if (this.records.length) this.base = this.postingsOf(this.records.length, this.vocabStr.length);
  }

  /** Stores a record under a new internal id and gives it to FlexSearch (unless imported or bulk: `BasePostings`). */
  private insert(docId: number, rec: Uint32Array, toFx = !this.bulk): void {
    const i = this.freeInt.length > 0 ? (this.freeInt.pop() as number) : this.records.length;
    this.records[i] = rec;
    this.extOf[i] = docId;
    this.intOf.set(docId, i);
    if (i >= this.acc.length) this.reserve(Math.max(i + 1, this.acc.length * 2));
    this.docPath[i] = rec[0];
    this.docLK[i] = rec[1];
    if (toFx) this.addToFx(i, rec);
  }

  /** Removes a document; false when it was not there. */
  remove(docId: number): boolean {
    const i = this.intOf.get(docId);
    const rec = i === undefined ? undefined : this.records[i];
    if (i === undefined || !rec) return false;
    if (this.base && i < this.base.live.length && this.base.live[i]) this.base.live[i] = 0;
    else this.fx.remove(i);
    this.intOf.delete(docId);
    this.records[i] = undefined;
    this.freeInt.push(i);
    for (let f = 0; f < NFIELDS; f++) this.sumLen[f] -= rec[2 + f];
    for (let j = HEADER; j < rec.length; j += 2) {
      const id = rec[j];
      if (--this.df[id] === 0) {
        this.vocab.drop(id);
        this.compoundTerms.clear(); // the id may go to another term
        this.free.push(id);
        this.emptied++;
      }
    }
    // fastupdate leaves emptied postings behind; sweep them once they add up.
    if (this.emptied > 10_000 && this.emptied > this.vocab.size / 4) {
      this.fx.cleanup();
      this.emptied = 0;
    }
    return true;
  }

  clear(): void {
    this.fx = this.newFx();
    this.base = undefined;
    this.bulk = false;
    this.records = [];
    this.extOf = [];
    this.intOf.clear();
    this.freeInt = [];
    this.acc = new Float64Array(1024);
    this.docPath = new Uint32Array(1024);
    this.docLK = new Uint32Array(1024);
    this.vocab.clear();
    this.compoundTerms.clear();
    this.free = [];
    this.df = new Uint32Array(1024);
    this.mark = new Uint8Array(1024);
    this.docSlot = new Uint32Array(1024);
    this.sumLen.fill(0);
    this.paths = new Interner();
    this.languages = new Interner();
    this.kinds = new Interner();
    this.emptied = 0;
    this.pathVerdicts = new WeakMap();
  }

  /**
   * The best `k` documents for `query`. Never throws on any query text: an empty query, or
   * one whose terms the index does not know, gives [].
   */
  search(query: string, options: KeywordSearchOptions = {}): KeywordHit[] {
    this.endBulk();
    const k = Math.floor(options.k ?? 10);
    if (!(k > 0) || this.intOf.size === 0 || typeof query !== 'string') return [];
    const filter = options.filter;
    const plan = this.plan(query);
    const ids = plan.ids;
    if (ids.length === 0) return [];
    const pass = filter ? this.internalFilter(filter) : undefined;
    return this.rank(plan, k, pass, options);
  }

  /** Ranks a query's known terms (BM25F over the candidates); a benchmark's baseline overrides it. */
  protected rank(plan: QueryPlan, k: number, pass: ((i: number) => boolean) | undefined, options: KeywordSearchOptions): KeywordHit[] {
    const ids = plan.ids;
    const filter = options.filter;
    const want = Math.max(k, Math.floor(options.candidates ?? this.candidates));
    const cands = this.candidatesOf(ids, want, options.maxPostings ?? this.maxPostings, pass, filter?.facets !== undefined);
    return this.bm25(cands, plan, k, options.namesake ?? this.namesake);
  }

  /**
   * The query's terms known to the index, with the concepts they cover: each term of
   * `queryTerms` is a concept, except an added stem, which joins its term's; two adjacent
   * words also match as their compound (`dark mode` → `darkmode`, `dark-mode`) and a word as
   * its code synonyms, when the index knows them.
   */
  private plan(query: string): QueryPlan {
    const N = this.intOf.size;
    const p = planQuery(query, this, (t) => {
      const id = this.vocab.get(t);
      return id === undefined ? undefined : this.df[id];
    }, N);
    return { ids: p.terms.map((t) => this.vocab.get(t)!), weight: p.weight, covers: p.covers, conceptIdf: p.conceptIdf };
  }

  /** A filter over internal ids; facets are tested on the records (undefined: accept all). */
  private internalFilter(filter: DocFilter): ((i: number) => boolean) | undefined {
    const facets = filter.facets;
    if (!facets) return (i) => filter(this.extOf[i]);
    const { path, languages, kinds } = facets;
    if (!path && !languages && !kinds) return undefined;
    const table = (names: Interner, wanted: ReadonlySet<string> | undefined, fold: boolean) => {
      if (!wanted) return undefined;
      const ok = new Uint8Array(names.size);
      for (let id = 0; id < names.size; id++) ok[id] = wanted.has(fold ? names.get(id).toLowerCase() : names.get(id)) ? 1 : 0;
      return ok;
    };
    const langOk = table(this.languages, languages, true);
    const kindOk = table(this.kinds, kinds, false);
    let pathOk: Int8Array | undefined;
    if (path) {
      // Per path id: 0 not tested yet, 1 passes, -1 does not; kept while the filter object lives.
      pathOk = this.pathVerdicts.get(facets);
      if (!pathOk || pathOk.length < this.paths.size) {
        const grown = new Int8Array(Math.max(16, this.paths.size * 2));
        if (pathOk) grown.set(pathOk);
        pathOk = grown;
        this.pathVerdicts.set(facets, pathOk);
      }
    }
    const recs = this.records;
    const docPath = this.docPath;
    const docLK = this.docLK;
    return (i) => {
      if (recs[i] === undefined) return false;
      const lk = docLK[i];
      if (langOk && langOk[lk >>> 16] !== 1) return false;
      if (kindOk && kindOk[lk & 0xffff] !== 1) return false;
      if (path && pathOk) {
        const p = docPath[i];
        let v = pathOk[p];
        if (v === 0) pathOk[p] = v = path(this.paths.get(p)) ? 1 : -1;
        return v === 1;
      }
      return true;
    };
  }

  /**
   * BM25 candidates, best first (internal ids). Each query term's postings come from
   * FlexSearch (a single-term search, unresolved, gives them by slot); a document's candidate
   * score is Σ idf × the boost of the field its slot stands for (symbol, path/header, text) —
   * BM25F without term frequencies or lengths. The rarest terms are read first, while their
   * postings add up to at most `budget` (always at least the rarest term): common terms count
   * in the final score of every candidate but make no candidates of their own — unless fewer
   * than `want` candidates (that pass the filter) came out: then more terms are read, rarest
   * first, until there are enough. A cheap filter (a compiled one, see `internalFilter`) is
   * tested as documents are first seen; another one lazily, best candidates first.
   */
  private candidatesOf(ids: number[], want: number, budget: number, filter?: (i: number) => boolean, cheap = false): number[] {
    const N = this.intOf.size;
    const order = ids.map((_, q) => q).sort((a, b) => this.df[ids[a]] - this.df[ids[b]] || a - b);
    // Weights stay > 0: acc[i] is 0 for a document not seen yet, −1 for one a cheap filter refused.
    const slotWeight = new Float64Array(RESOLUTION);
    slotWeight[0] = Math.max(1e-6, this.boosts.symbol);
    slotWeight[1] = Math.max(1e-6, this.boosts.header, this.boosts.path);
    for (let s = 2; s < RESOLUTION; s++) slotWeight[s] = Math.max(1e-6, this.boosts.text);
    const acc = this.acc;
    const early = cheap ? filter : undefined;
    const scan = new Scan(acc, this.touched, this.refused, early);
    let next = 0;
    let read = 0;
    const readTerm = (q: number) => {
      const df = this.df[ids[q]];
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      const base = this.base;
      if (base && ids[q] < base.terms) {
        const at = ids[q] * RESOLUTION;
        for (let s = 0; s < RESOLUTION; s++) {
          const from = base.offsets[at + s];
          const to = base.offsets[at + s + 1];
          if (to > from) scan.addBase(base.ids, from, to, base.live, idf * slotWeight[s]);
        }
      }
      const raw = this.fx.search([this.vocabStr[ids[q]]] as unknown as string, { resolve: false }) as unknown as { result?: unknown };
      const slots = Array.isArray(raw?.result) ? (raw.result as Array<number[] | undefined>) : [];
      for (let s = 0; s < slots.length; s++) {
        const arr = slots[s];
        if (arr && arr.length) scan.add(arr, idf * slotWeight[Math.min(s, RESOLUTION - 1)]);
      }
      read += df;
    };
    while (next < order.length && (next === 0 || read + this.df[ids[order[next]]] <= budget)) readTerm(order[next++]);
    const ext = this.extOf;
    const byScore = (a: number, b: number) => acc[b] - acc[a] || ext[a] - ext[b];
    let out: number[];
    if (!filter || early) {
      // Too few candidates (that pass): read more terms, rarest first.
      while (scan.nt < want && next < order.length) readTerm(order[next++]);
      out = topOf(scan.touched.subarray(0, scan.nt), want, acc, ext).sort(byScore);
    } else {
      for (;;) {
        out = this.bestLazy(scan.touched.subarray(0, scan.nt), want, filter);
        if (out.length >= want || next >= order.length) break;
        readTerm(order[next++]);
      }
    }
    scan.reset();
    this.touched = scan.touched;
    this.refused = scan.refused;
    return out;
  }

  /**
   * The `want` best of `touched` by candidate score (ties: smaller docId) that pass a filter
   * that is not cheap: it runs on the best 4·want first, on the rest only when too few passed.
   */
  private bestLazy(touched: Int32Array, want: number, filter: (i: number) => boolean): number[] {
    const acc = this.acc;
    const ext = this.extOf;
    const byScore = (a: number, b: number) => acc[b] - acc[a] || ext[a] - ext[b];
    const first = topOf(touched, want * 4, acc, ext).sort(byScore);
    const out: number[] = [];
    for (const i of first) {
      if (filter(i)) out.push(i);
      if (out.length >= want) return out;
    }
    if (first.length === touched.length) return out;
    const seen = new Set(first);
    const rest = topOf(touched, want - out.length, acc, ext, (i) => !seen.has(i) && filter(i));
    return out.concat(rest.sort(byScore));
  }

  private bm25(cands: number[], plan: QueryPlan, k: number, nameW: number): KeywordHit[] {
    const { ids, weight, covers, conceptIdf } = plan;
    const N = this.intOf.size;
    const idf = new Float64Array(ids.length);
    for (let q = 0; q < ids.length; q++) {
      const df = this.df[ids[q]];
      idf[q] = weight[q] * Math.log(1 + (N - df + 0.5) / (df + 0.5));
      this.mark[ids[q]] = q + 1;
    }
    let totalIdf = 0;
    for (const x of conceptIdf) totalIdf += x;
    // short queries only: a long sentence (a doc comment) rarely has all its words in the code
    let known = 0;
    for (const x of conceptIdf) if (x > 0) known++;
    const alpha = this.coverage > 0 && totalIdf > 0 && known > 1 && known <= COVERAGE_MAX_CONCEPTS ? this.coverage : 0;
    const { k1, b } = this;
    const w = [this.boosts.symbol, this.boosts.path, this.boosts.header, this.boosts.text];
    const inv = new Float64Array(NFIELDS);
    for (let f = 0; f < NFIELDS; f++) inv[f] = this.sumLen[f] > 0 ? N / this.sumLen[f] : 0;
    const norm = new Float64Array(NFIELDS);
    const scored: Array<{ docId: number; score: number; order: number }> = new Array(cands.length);
    const share = new Float64Array(cands.length);
    const named = new Float64Array(cands.length);
    let best = 0;
    for (let c = 0; c < cands.length; c++) {
      const rec = this.records[cands[c]];
      let score = 0;
      let covered = 0;
      let symHalves = 0;
      if (rec) {
        // The packed frequencies count half occurrences.
        for (let f = 0; f < NFIELDS; f++) norm[f] = w[f] / (2 * (1 - b + b * rec[2 + f] * inv[f]));
        for (let j = HEADER; j < rec.length; j += 2) {
          const q = this.mark[rec[j]];
          if (q === 0) continue;
          const p = rec[j + 1];
          const W = (p & 255) * norm[0] + ((p >>> 8) & 255) * norm[1] + ((p >>> 16) & 255) * norm[2] + (p >>> 24) * norm[3];
          score += (idf[q - 1] * W * (k1 + 1)) / (k1 + W);
          covered |= covers[q - 1];
          symHalves += p & 255;
        }
        if (rec[2] > 0 && symHalves > 0) {
          const m = symHalves / 2;
          named[c] = Math.max(0, Math.min(4, m - (rec[2] - m) / 2));
        }
      }
      if (score > 0 && totalIdf > 0) {
        let got = 0;
        for (let m = covered, x = 0; m !== 0 && x < 31; x++, m >>>= 1) if (m & 1) got += conceptIdf[x];
        share[c] = got / totalIdf;
        if (share[c] > best) best = share[c];
        if (alpha > 0) score *= share[c] ** alpha;
      }
      scored[c] = { docId: this.extOf[cands[c]], score, order: c };
    }
    if (nameW > 0) {
      // With coverage on (a short query), only among the chunks that cover the most of it: a
      // named symbol must not beat a chunk that holds more of the query's words.
      for (let c = 0; c < cands.length; c++) if (named[c] > 0 && (alpha === 0 || share[c] >= best - 1e-9)) scored[c].score *= 1 + nameW * named[c];
    }
    for (const id of ids) this.mark[id] = 0;
    scored.sort((x, y) => y.score - x.score || x.order - y.order);
    const n = Math.min(k, scored.length);
    const out: KeywordHit[] = new Array(n);
    for (let r = 0; r < n; r++) out[r] = { docId: scored[r].docId, score: scored[r].score, rank: r + 1 };
    return out;
  }

  /**
   * The whole index as plain data (see `KeywordSnapshot`), documents in insertion order (so
   * that FlexSearch's postings, rebuilt on import, come out in the same order); terms and
   * interned names compacted. With `binary`, the vocabulary comes as a term table
   * (`lexicon`, see lexicon.ts) instead of `vocab`, and the documents' postings come laid out
   * (`postings`): what an import then reads in place instead of building them.
   */
  export(options: { binary?: boolean } = {}): KeywordSnapshot {
    const r = this.exportRecords();
    if (!options.binary) return r.snap;
    return binarySnapshot(r.snap, layoutBinary(r.snap.docs, r.counts, r.body, r.snap.vocab));
  }

  /**
   * The snapshot (`export` without `binary`) and views of its records in `data`: the part of a
   * binary export done on this thread; `layoutBinary` (here or on another thread, see
   * layout-thread.ts) and `binarySnapshot` make the rest.
   */
  exportRecords(): KeywordRecords {
    const D = this.intOf.size;
    let words = 0;
    for (const i of this.intOf.values()) words += (this.records[i] as Uint32Array).length;
    const buf = new ArrayBuffer(8 * D + 4 * D + 4 * words);
    const docIds = new Float64Array(buf, 0, D);
    const counts = new Uint32Array(buf, 8 * D, D);
    const body = new Uint32Array(buf, 12 * D, words);
    // term ids → the snapshot's, in order of first use (−1: not met yet)
    const termMap = new Int32Array(this.vocabStr.length).fill(-1);
    const vocab: string[] = [];
    const pathMap = new Map<number, number>();
    const paths: string[] = [];
    const langMap = new Map<number, number>();
    const languages: string[] = [];
    const kindMap = new Map<number, number>();
    const kinds: string[] = [];
    const remap = (m: Map<number, number>, out: string[], id: number, name: () => string): number => {
      let r = m.get(id);
      if (r === undefined) {
        r = out.length;
        out.push(name());
        m.set(id, r);
      }
      return r;
    };
    let d = 0;
    let o = 0;
    for (const [docId, i] of this.intOf) {
      const rec = this.records[i] as Uint32Array;
      docIds[d] = docId;
      counts[d] = (rec.length - HEADER) / 2;
      d++;
      body[o] = remap(pathMap, paths, rec[0], () => this.paths.get(rec[0]));
      const lang = remap(langMap, languages, rec[1] >>> 16, () => this.languages.get(rec[1] >>> 16));
      const kind = remap(kindMap, kinds, rec[1] & 0xffff, () => this.kinds.get(rec[1] & 0xffff));
      body[o + 1] = (lang << 16) | kind;
      for (let f = 2; f < HEADER; f++) body[o + f] = rec[f];
      for (let j = HEADER; j < rec.length; j += 2) {
        let t = termMap[rec[j]];
        if (t === -1) {
          t = termMap[rec[j]] = vocab.length;
          vocab.push(this.vocab.term(rec[j]));
        }
        body[o + j] = t;
        body[o + j + 1] = rec[j + 1];
      }
      o += rec.length;
    }
    const data = new Uint8Array(buf);
    const snap: KeywordSnapshot = {
      format: 'fathom-keyword',
      version: SNAPSHOT_VERSION,
      tokenizer: { version: TOKENIZER_VERSION, stem: this.stem, singleDigits: this.singleDigits, weakHalf: this.weakHalf },
      docs: D,
      vocab,
      paths,
      languages,
      kinds,
      data,
      checksum: checksum(data),
    };
    return { snap, counts, body };
  }

  /**
   * Replaces the contents with a snapshot's. Throws (and leaves the index empty) when the
   * snapshot is not one this version can read or fails its checks: the caller rebuilds.
   * With `adopt`, the records are kept in `snapshot.data` itself (which is then changed) rather
   * than in a copy: for a caller that read the snapshot only to import it (the store). With
   * `checked`, the caller vouches for the bytes (the store checked their CRC-32): `checksum`
   * is not computed again. A snapshot with `postings` (and its `lexicon`) is read in place:
   * nothing is rebuilt but the per-document arrays; without, the postings are laid out here.
   */
  import(snapshot: KeywordSnapshot, options: { adopt?: boolean; checked?: boolean } = {}): void {
    this.clear();
    try {
      this.load(snapshot, options.adopt === true, options.checked === true);
    } catch (err) {
      this.clear();
      throw err;
    }
  }

  private load(s: KeywordSnapshot, adopt: boolean, checked: boolean): void {
    const bad = (why: string): never => {
      throw new Error(`keyword index snapshot rejected: ${why}`);
    };
    if (!s || s.format !== 'fathom-keyword') bad('not a keyword index snapshot');
    if (s.version !== SNAPSHOT_VERSION) bad(`format version ${s.version}, expected ${SNAPSHOT_VERSION}`);
    if (!s.tokenizer || s.tokenizer.version !== TOKENIZER_VERSION) bad('made with another tokenizer version');
    if (s.tokenizer.stem !== this.stem) bad(`made with stem=${s.tokenizer.stem}, this index has stem=${this.stem}`);
    if (s.tokenizer.singleDigits !== this.singleDigits) bad(`made with singleDigits=${s.tokenizer.singleDigits}, this index has ${this.singleDigits}`);
    if (s.tokenizer.weakHalf !== this.weakHalf) bad(`made with weakHalf=${s.tokenizer.weakHalf}, this index has ${this.weakHalf}`);
    if (!(s.data instanceof Uint8Array)) bad('data is not binary');
    if (![s.vocab, s.paths, s.languages, s.kinds].every(Array.isArray)) bad('missing name tables');
    if (s.lexicon !== undefined && !(s.lexicon instanceof Uint8Array)) bad('the term table is not binary');
    if (s.postings !== undefined && !(s.postings instanceof Uint8Array)) bad('the postings are not binary');
    if (s.postings !== undefined && s.lexicon === undefined) bad('postings without their term table');
    const D = s.docs;
    if (!Number.isSafeInteger(D) || D < 0 || s.data.byteLength < 12 * D || s.data.byteLength % 4 !== 0) bad('bad sizes');
    // Typed views need aligned memory; Buffers from a pool may not be.
    const bytes = aligned(s.data);
    const own = adopt || bytes !== s.data;
    if (!checked && checksum(bytes) !== s.checksum) bad('checksum mismatch');
    const docIds = new Float64Array(bytes.buffer, bytes.byteOffset, D);
    const counts = new Uint32Array(bytes.buffer, bytes.byteOffset + 8 * D, D);
    const words = (bytes.byteLength - 12 * D) / 4;
    // the records are views of one block (1M small copies cost ~100 bytes each in V8 besides their data)
    const body = own ? new Uint32Array(bytes.buffer, bytes.byteOffset + 12 * D, words) : new Uint32Array(bytes.buffer, bytes.byteOffset + 12 * D, words).slice();
    let expected = 0;
    for (let d = 0; d < D; d++) expected += HEADER + 2 * counts[d];
    if (expected !== words) bad('record sizes do not add up');

    // The vocabulary: the stored term table read in place, or one made from `vocab` (version 5 stores).
    let lex: Lexicon;
    try {
      lex = Lexicon.read(s.lexicon !== undefined ? aligned(s.lexicon) : Lexicon.build(s.vocab));
    } catch (err) {
      return bad((err as Error).message);
    }
    const V = lex.size;
    this.vocab.adopt(lex);
    this.ensureTermCapacity(V);
    const paths = s.paths.map((p) => this.paths.id(String(p)));
    const languages = s.languages.map((p) => this.languages.id(String(p)));
    const kinds = s.kinds.map((p) => this.kinds.id(String(p)));
    const stored = s.postings !== undefined ? readPostings(aligned(s.postings), D, V, (words - HEADER * D) / 2) : undefined;
    if (typeof stored === 'string') bad(stored);
    if (stored) {
      // each document holds a term once, in one slot: a term's document frequency is its postings' count
      const { offsets } = stored as BasePostings;
      for (let t = 0; t < V; t++) this.df[t] = offsets[(t + 1) * RESOLUTION] - offsets[t * RESOLUTION];
    }
    this.reserve(D);
    // the index is empty (cleared): document d gets internal id d; the arrays are made at their size
    const records: Array<Uint32Array | undefined> = new Array(D);
    const extOf: number[] = new Array(D);

    let o = 0;
    for (let d = 0; d < D; d++) {
      const docId = docIds[d];
      if (!Number.isSafeInteger(docId) || docId < 0 || this.intOf.has(docId)) bad(`bad or repeated docId ${docId}`);
      const len = HEADER + 2 * counts[d];
      const rec = body.subarray(o, o + len);
      o += len;
      const pathId = paths[rec[0]];
      const lang = languages[rec[1] >>> 16];
      const kind = kinds[rec[1] & 0xffff];
      if (pathId === undefined || lang === undefined || kind === undefined) bad('name id out of range');
      rec[0] = pathId;
      rec[1] = (lang << 16) | kind;
      for (let f = 0; f < NFIELDS; f++) this.sumLen[f] += rec[2 + f];
      if (stored) {
        for (let j = HEADER; j < len; j += 2) if (rec[j] >= V) bad('term id out of range');
      } else {
        for (let j = HEADER; j < len; j += 2) {
          const id = rec[j];
          if (id >= V) bad('term id out of range');
          if (this.mark[id]) bad('repeated term in a record');
          this.mark[id] = 1;
          this.df[id]++;
        }
        for (let j = HEADER; j < len; j += 2) this.mark[rec[j]] = 0;
      }
      records[d] = rec;
      extOf[d] = docId;
      this.intOf.set(docId, d);
      this.docPath[d] = rec[0];
      this.docLK[d] = rec[1];
    }
    this.records = records;
    this.extOf = extOf;
    for (let i = 0; i < V; i++) if (this.df[i] === 0) bad('vocabulary entry used by no document');
    this.base = stored ? (stored as BasePostings) : this.postingsOf(D, V);
  }

  /** Room for internal ids 0‥n−1 in the per-document arrays, at once. */
  private reserve(n: number): void {
    if (n <= this.acc.length) return;
    const acc = new Float64Array(n);
    acc.set(this.acc);
    this.acc = acc;
    const dp = new Uint32Array(n);
    dp.set(this.docPath);
    this.docPath = dp;
    const lk = new Uint32Array(n);
    lk.set(this.docLK);
    this.docLK = lk;
  }

  /**
   * The postings of the `D` documents just imported or bulk-loaded (internal ids 0‥D−1; a
   * removed one, not live): see `layoutPostings`.
   */
  private postingsOf(D: number, V: number): BasePostings {
    return layoutPostings(D, V, (i) => this.records[i]);
  }

  /** Moves the imported documents into FlexSearch (for its own multi-term search), in insertion order. */
  protected baseToFx(): void {
    this.bulk = false;
    this.base = undefined;
    this.fx = this.newFx();
    for (const i of this.intOf.values()) this.addToFx(i, this.records[i] as Uint32Array);
  }

  private addToFx(internal: number, rec: Uint32Array): void {
    const U = (rec.length - HEADER) / 2;
    if (U === 0) return;
    const content: string[] = new Array(U);
    const slots = new Uint8Array(U);
    slotsInto(rec, slots);
    for (let u = 0; u < U; u++) content[u] = this.vocab.term(rec[HEADER + 2 * u]);
    this.pending = slots;
    this.fx.add(internal, content as unknown as string);
    this.pending = EMPTY;
  }

  /** A compound met for the first time (`text.slice(start, end)`): its terms, interned, into `compoundTerms`; its entry. */
  private learnCompound(text: string, start: number, end: number, hash: number): number {
    const weak: number[] = [];
    const ts = termsOfCompound(text.slice(start, end), { stem: this.stem, singleDigits: this.singleDigits }, weak);
    const weakFrom = this.weakHalf === 'all' ? 1 : this.weakHalf === 'stems' ? 2 : 3;
    const ids = new Array<number>(ts.length);
    const halves = new Array<number>(ts.length);
    for (let x = 0; x < ts.length; x++) {
      ids[x] = this.vocab.get(ts[x]) ?? this.newTerm(ts[x]);
      halves[x] = weak[x] >= weakFrom ? 1 : 2;
    }
    return this.compoundTerms.add(text, start, end, hash, ids, halves);
  }

  private newTerm(t: string): number {
    const id = this.free.length > 0 ? (this.free.pop() as number) : this.vocabStr.length;
    if (id === this.vocabStr.length) this.vocabStr.push(t);
    else this.vocabStr[id] = t;
    this.vocab.set(t, id);
    this.ensureTermCapacity(id + 1);
    return id;
  }

  private ensureTermCapacity(n: number): void {
    if (n <= this.df.length) return;
    let cap = this.df.length;
    while (cap < n) cap *= 2;
    const df = new Uint32Array(cap);
    df.set(this.df);
    this.df = df;
    const mark = new Uint8Array(cap);
    mark.set(this.mark);
    this.mark = mark;
    const slot = new Uint32Array(cap);
    slot.set(this.docSlot);
    this.docSlot = slot;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * Stored postings (`layoutPostings`'s `bytes`) of `D` documents over `V` terms, read in place,
 * or what is wrong with them: sizes, offsets that go back, `P` postings in all (the records'
 * terms), ids out of range or out of order within a list.
 */
function readPostings(bytes: Uint8Array, D: number, V: number, P: number): BasePostings | string {
  const O = V * RESOLUTION + 1;
  if (bytes.byteLength !== 4 * (O + P)) return `the postings have ${bytes.byteLength} bytes, not the ${4 * (O + P)} of ${V} terms and ${P} postings`;
  const offsets = new Uint32Array(bytes.buffer, bytes.byteOffset, O);
  const ids = new Int32Array(bytes.buffer, bytes.byteOffset + 4 * O, P);
  if (offsets[0] !== 0 || offsets[O - 1] !== P) return 'the postings offsets do not span the postings';
  for (let x = 0; x + 1 < O; x++) {
    const from = offsets[x];
    const to = offsets[x + 1];
    if (to < from) return 'the postings offsets go back';
    let last = -1;
    for (let y = from; y < to; y++) {
      const i = ids[y];
      if (i <= last || i >= D) return 'a posting out of range or out of order';
      last = i;
    }
  }
  return { terms: V, offsets, ids, live: new Uint8Array(D).fill(1), bytes };
}

/**
 * `b`, or an 8-byte aligned copy of it (typed views need aligned memory; Buffers from a pool may
 * not be). A copy into a fresh buffer: a Buffer's `slice` is a view at the same offset.
 */
function aligned(b: Uint8Array): Uint8Array {
  if (b.byteOffset % 8 === 0) return b;
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return copy;
}

/**
 * One query's candidate accumulation: `acc[i]` sums the weights of document i (0 = not seen,
 * −1 = refused by the early filter); `touched` and `refused` list the ids to reset.
 */
class Scan {
  nt = 0;
  nr = 0;
  constructor(
    readonly acc: Float64Array,
    public touched: Int32Array,
    public refused: Int32Array,
    readonly early: ((i: number) => boolean) | undefined,
  ) {}

  add(ids: number[], w: number): void {
    const acc = this.acc;
    const early = this.early;
    for (let x = 0; x < ids.length; x++) {
      const i = ids[x];
      const a = acc[i];
      if (a > 0) acc[i] = a + w;
      else if (a === 0) {
        if (early !== undefined && !early(i)) {
          acc[i] = -1;
          if (this.nr === this.refused.length) this.refused = grow(this.refused);
          this.refused[this.nr++] = i;
        } else {
          if (this.nt === this.touched.length) this.touched = grow(this.touched);
          this.touched[this.nt++] = i;
          acc[i] = w;
        }
      }
    }
  }

  /** `add` for imported postings `ids[from‥to)`, skipping removed documents. */
  addBase(ids: Int32Array, from: number, to: number, live: Uint8Array, w: number): void {
    const acc = this.acc;
    const early = this.early;
    for (let x = from; x < to; x++) {
      const i = ids[x];
      if (live[i] === 0) continue;
      const a = acc[i];
      if (a > 0) acc[i] = a + w;
      else if (a === 0) {
        if (early !== undefined && !early(i)) {
          acc[i] = -1;
          if (this.nr === this.refused.length) this.refused = grow(this.refused);
          this.refused[this.nr++] = i;
        } else {
          if (this.nt === this.touched.length) this.touched = grow(this.touched);
          this.touched[this.nt++] = i;
          acc[i] = w;
        }
      }
    }
  }

  reset(): void {
    for (let x = 0; x < this.nt; x++) this.acc[this.touched[x]] = 0;
    for (let x = 0; x < this.nr; x++) this.acc[this.refused[x]] = 0;
    this.nt = this.nr = 0;
  }
}

function grow(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * The `n` best of `xs` (unordered) that pass `keep`: by `score` descending, ties by `ext`
 * ascending. Linear: the n-th best score is found by quickselect on a copy of the scores.
 */
function topOf(xs: Int32Array, n: number, score: Float64Array, ext: number[], keep?: (x: number) => boolean): number[] {
  if (n <= 0) return [];
  let m = 0;
  let ids = xs;
  if (keep) {
    ids = new Int32Array(xs.length);
    for (let i = 0; i < xs.length; i++) if (keep(xs[i])) ids[m++] = xs[i];
  } else m = xs.length;
  if (m <= n) return Array.from(ids.subarray(0, m));
  const vals = new Float64Array(m);
  for (let i = 0; i < m; i++) vals[i] = score[ids[i]];
  const thr = nthLargest(vals, n - 1);
  const out: number[] = [];
  const ties: number[] = [];
  for (let i = 0; i < m; i++) {
    const v = score[ids[i]];
    if (v > thr) out.push(ids[i]);
    else if (v === thr) ties.push(ids[i]);
  }
  ties.sort((a, b) => ext[a] - ext[b]);
  for (let i = 0; out.length < n && i < ties.length; i++) out.push(ties[i]);
  return out;
}

/** The value that would be at index `k` of `a` sorted descending (reorders `a`). */
function nthLargest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/** FlexSearch's encoder: terms arrive as arrays already; a stray string is tokenized. */
function passThrough(content: string): string[] {
  const x = content as unknown;
  return Array.isArray(x) ? (x as string[]) : typeof x === 'string' ? queryTerms(x) : [];
}

/**
 * The term ids of the compounds met (see `CompoundScanner`), by compound: an open-addressing
 * table (linear probing, at most half full) of the compound's hash and 1 + its entry; entry e
 * has `count[e]` terms at `ids`/`halves` from `from[e]` (halves: 2 a term, 1 a weak one).
 * Past `limit` compounds (or 4 × limit term slots, or 32 × limit characters) it starts over, so
 * memory stays bounded on any input: under 30 MB with the default limit (its arrays at twice
 * what they hold at worst).
 */
class CompoundTerms {
  private readonly limit: number;
  private hashOf = new Int32Array(1 << 12);
  private slot = new Int32Array(1 << 12);
  /** 32 − log2(slots): a slot is the top bits of the hash times the golden ratio. */
  private shift = 32 - 12;
  /**
   * Each compound's characters, copied (`charAt[e]`, `charLen[e]`): keeping the compound as a
   * slice of the chunk text would keep the whole text alive as long as the entry.
   */
  private chars = new Uint16Array(1 << 14);
  private charAt: number[] = [];
  private charLen: number[] = [];
  private usedChars = 0;
  from: number[] = [];
  count: number[] = [];
  ids = new Uint32Array(1 << 12);
  halves = new Uint8Array(1 << 12);
  private used = 0;

  constructor(limit = 1 << 17) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  clear(): void {
    if (this.from.length === 0) return;
    this.hashOf = new Int32Array(1 << 12);
    this.slot = new Int32Array(1 << 12);
    this.shift = 32 - 12;
    this.charAt = [];
    this.charLen = [];
    this.usedChars = 0;
    this.from = [];
    this.count = [];
    this.used = 0;
  }

  /** The entry of `text.slice(start, end)` (whose hash is `h`), or undefined. */
  find(text: string, start: number, end: number, h: number): number | undefined {
    const slots = this.slot;
    const mask = slots.length - 1;
    const len = end - start;
    for (let at = Math.imul(h, 0x9e3779b1) >>> this.shift; slots[at] !== 0; at = (at + 1) & mask) {
      if (this.hashOf[at] !== h) continue;
      const e = slots[at] - 1;
      if (this.charLen[e] !== len) continue;
      const c = this.chars;
      const o = this.charAt[e] - start;
      let i = start;
      while (i < end && text.charCodeAt(i) === c[o + i]) i++;
      if (i === end) return e;
    }
    return undefined;
  }

  /** A new entry for `text.slice(start, end)` (hash `h`) and its terms' ids and halves. */
  add(text: string, start: number, end: number, h: number, ids: readonly number[], halves: readonly number[]): number {
    const len = end - start;
    if (this.from.length >= this.limit || this.used + ids.length > 4 * this.limit || this.usedChars + len > 32 * this.limit) this.clear();
    if (2 * (this.from.length + 1) > this.slot.length) this.rehash(this.slot.length * 2);
    while (this.used + ids.length > this.ids.length) {
      const moreIds = new Uint32Array(this.ids.length * 2);
      moreIds.set(this.ids);
      this.ids = moreIds;
      const moreHalves = new Uint8Array(this.halves.length * 2);
      moreHalves.set(this.halves);
      this.halves = moreHalves;
    }
    while (this.usedChars + len > this.chars.length) {
      const more = new Uint16Array(this.chars.length * 2);
      more.set(this.chars);
      this.chars = more;
    }
    for (let i = 0; i < len; i++) this.chars[this.usedChars + i] = text.charCodeAt(start + i);
    this.charAt.push(this.usedChars);
    this.charLen.push(len);
    this.usedChars += len;
    const e = this.from.length;
    this.from.push(this.used);
    this.count.push(ids.length);
    for (let x = 0; x < ids.length; x++) {
      this.ids[this.used + x] = ids[x];
      this.halves[this.used + x] = halves[x];
    }
    this.used += ids.length;
    this.place(h, e + 1);
    return e;
  }

  private place(h: number, entry: number): void {
    const slots = this.slot;
    const mask = slots.length - 1;
    let at = Math.imul(h, 0x9e3779b1) >>> this.shift;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = entry;
    this.hashOf[at] = h;
  }

  private rehash(size: number): void {
    const oldHash = this.hashOf;
    const oldSlot = this.slot;
    this.hashOf = new Int32Array(size);
    this.slot = new Int32Array(size);
    this.shift = 32 - Math.log2(size);
    for (let i = 0; i < oldSlot.length; i++) if (oldSlot[i] !== 0) this.place(oldHash[i], oldSlot[i]);
  }
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, v] of Object.entries(o)) if (typeof v === 'number' && Number.isFinite(v)) (out as Record<string, number>)[key] = v;
  return out;
}

function checksum(bytes: Uint8Array): number {
  const n = bytes.byteLength >>> 2;
  const words = bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, n) : new Uint32Array(bytes.slice(0, n * 4).buffer);
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ words[i], 0x01000193);
  return h >>> 0;
}

/** Strings ↔ small ids (never freed: bounded by the distinct paths/languages/kinds seen). */
class Interner {
  private ids = new Map<string, number>();
  private names: string[] = [];
  get size(): number {
    return this.names.length;
  }
  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
    }
    return id;
  }
  get(id: number): string {
    return this.names[id] ?? '';
  }
}
