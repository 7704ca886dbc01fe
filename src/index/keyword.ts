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
 * The rooms: keyword-record.ts (a document's fields → its record; the compounds' term ids),
 * keyword-query.ts (a query → its plan: terms, weights, concepts, compounds, synonyms),
 * keyword-candidates.ts (which documents are scored: postings read rarest term first within a
 * budget; the facet filters), keyword-score.ts (BM25F, coverage, namesake), keyword-snapshot.ts
 * (export and import as data, their checks), keyword-options.ts (settings and defaults);
 * postings-layout.ts and lexicon.ts (the imported postings and vocabulary). This file holds the
 * index itself: its documents and terms, FlexSearch, bulk loading, import and export.
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
import { Vocabulary } from './lexicon';
import { layoutBinary, layoutPostings, RESOLUTION, slotsInto, HEADER, type BasePostings } from './postings-layout';
import { CompoundScanner, queryTerms, termsOfCompound } from './terms';
import { CompoundTerms, halfFrom, Interner, NFIELDS, str, type KeywordFields, type WeakHalf } from './keyword-record';
import { planQuery, type QueryPlan } from './keyword-query';
import { candidatesOf, facetPass, type CandidateSource } from './keyword-candidates';
import { bm25f, DEFAULT_BOOSTS, DEFAULT_COVERAGE, DEFAULT_NAMESAKE, type FieldBoosts, type KeywordHit } from './keyword-score';
import { DEFAULT_CANDIDATES, DEFAULT_MAX_POSTINGS, DEFAULT_STEM, definedOnly, type KeywordIndexOptions, type KeywordSearchOptions } from './keyword-options';
import { binarySnapshot, checkSnapshot, rejected, snapshotLexicon, snapshotPostings, snapshotRecords, writeRecords, type KeywordRecords, type KeywordSnapshot, type SnapshotRecords } from './keyword-snapshot';

export { keywordRecord, type KeywordFields, type RecordConfig, type WeakHalf } from './keyword-record';
export { CODE_SYNONYMS, planQuery, planTerms, type PlanConfig, type QueryPlan, type TermPlan } from './keyword-query';
export { COVERAGE_MAX_CONCEPTS, DEFAULT_BOOSTS, DEFAULT_COVERAGE, DEFAULT_NAMESAKE, type FieldBoosts, type KeywordHit } from './keyword-score';
export { binarySnapshot, type KeywordRecords, type KeywordSnapshot } from './keyword-snapshot';
export { DEFAULT_CANDIDATES, DEFAULT_MAX_POSTINGS, DEFAULT_STEM, type KeywordIndexOptions, type KeywordSearchOptions } from './keyword-options';

type Fx = Index<false, false, true>;

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
    const lens = [0, 0, 0, 0];
    let U = 0;
    for (let f = 0; f < NFIELDS; f++) {
      const text = str(f === 0 ? fields.symbol : f === 1 ? fields.path : f === 2 ? fields.header : fields.text);
      // the thread's triples, when they fit this text (else it is scanned here)
      const given = f === 3 && textCompounds && textCompounds.length % 3 === 0 && (textCompounds.length === 0 || textCompounds[textCompounds.length - 2] <= text.length) ? textCompounds : undefined;
      U = this.countField(f, text, given, U, lens);
    }
    this.insert(docId, this.recordOf(fields, lens, U));
  }

  /**
   * Counts field `f`'s terms (those of `text`'s compounds: `given`, or scanned here) into
   * `docTerms` and `docSlot`, after the `U` distinct terms of the fields before; its length in
   * terms into `lens[f]`. The number of distinct terms now.
   */
  private countField(f: number, text: string, given: Int32Array | undefined, U: number, lens: number[]): number {
    const cache = this.compoundTerms;
    const scan = this.scanner;
    const unit = 1 << (8 * f); // the field's byte of the packed frequencies
    let dt = this.docTerms;
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
    return U;
  }

  /** The record of the document whose `U` distinct terms `countField` counted (their document frequencies counted, `docSlot` cleared). */
  private recordOf(fields: KeywordFields, lens: number[], U: number): Uint32Array {
    const dt = this.docTerms;
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
    return rec;
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
    const plan = this.plan(query, options.termWeight);
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
    const cands = this.candidatesOf(ids, want, options.maxPostings ?? this.maxPostings, pass, filter?.facets !== undefined, options.shortSymbolsFirst);
    return this.bm25(cands, plan, k, options.namesake ?? this.namesake);
  }

  /**
   * The query's terms known to the index, with the concepts they cover: each term of
   * `queryTerms` is a concept, except an added stem, which joins its term's; two adjacent
   * words also match as their compound (`dark mode` → `darkmode`, `dark-mode`) and a word as
   * its code synonyms, when the index knows them.
   */
  private plan(query: string, termWeight?: (term: string) => number): QueryPlan {
    const N = this.intOf.size;
    const p = planQuery(
      query,
      this,
      (t) => {
        const id = this.vocab.get(t);
        return id === undefined ? undefined : this.df[id];
      },
      N,
      termWeight,
    );
    return { ids: p.terms.map((t) => this.vocab.get(t)!), weight: p.weight, covers: p.covers, conceptIdf: p.conceptIdf };
  }

  /** A filter over internal ids; facets are tested on the records (undefined: accept all). */
  private internalFilter(filter: DocFilter): ((i: number) => boolean) | undefined {
    const facets = filter.facets;
    if (!facets) return (i) => filter(this.extOf[i]);
    const docs = { records: this.records, docPath: this.docPath, docLK: this.docLK };
    return facetPass(facets, { paths: this.paths, languages: this.languages, kinds: this.kinds }, docs, this.pathVerdicts);
  }

  /** BM25 candidates, best first (internal ids): see keyword-candidates.ts. */
  private candidatesOf(ids: number[], want: number, budget: number, filter?: (i: number) => boolean, cheap = false, shortSymbolsFirst = false): number[] {
    const from: CandidateSource = {
      N: this.intOf.size,
      df: this.df,
      boosts: this.boosts,
      base: this.base,
      extOf: this.extOf,
      symbolLen: shortSymbolsFirst ? (i) => this.records[i]?.[2] ?? 0 : undefined,
      acc: this.acc,
      touched: this.touched,
      refused: this.refused,
      flexSlots: (t) => this.flexSlots(t),
    };
    const out = candidatesOf(from, ids, want, budget, filter, cheap);
    this.touched = from.touched;
    this.refused = from.refused;
    return out;
  }

  /** FlexSearch's postings of term `t` by slot (a single-term search left unresolved). */
  private flexSlots(t: number): Array<number[] | undefined> {
    const raw = this.fx.search([this.vocabStr[t]] as unknown as string, { resolve: false }) as unknown as { result?: unknown };
    return Array.isArray(raw?.result) ? (raw.result as Array<number[] | undefined>) : [];
  }

  /** BM25F over the candidates (keyword-score.ts). */
  private bm25(cands: number[], plan: QueryPlan, k: number, nameW: number): KeywordHit[] {
    return bm25f({ records: this.records, extOf: this.extOf, df: this.df, mark: this.mark, sumLen: this.sumLen, N: this.intOf.size }, this, cands, plan, k, nameW);
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
    return writeRecords({ intOf: this.intOf, records: this.records, vocab: this.vocab, paths: this.paths, languages: this.languages, kinds: this.kinds, config: this });
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

  /** `import`'s work (the index is empty): the snapshot's checks and views, then its documents and postings. */
  private load(s: KeywordSnapshot, adopt: boolean, checked: boolean): void {
    checkSnapshot(s, this);
    const r = snapshotRecords(s, adopt, checked);
    const lex = snapshotLexicon(s);
    const V = lex.size;
    this.vocab.adopt(lex);
    this.ensureTermCapacity(V);
    const names = {
      paths: s.paths.map((p) => this.paths.id(String(p))),
      languages: s.languages.map((p) => this.languages.id(String(p))),
      kinds: s.kinds.map((p) => this.kinds.id(String(p))),
    };
    const stored = snapshotPostings(s, r, V);
    if (stored) {
      // each document holds a term once, in one slot: a term's document frequency is its postings' count
      const { offsets } = stored;
      for (let t = 0; t < V; t++) this.df[t] = offsets[(t + 1) * RESOLUTION] - offsets[t * RESOLUTION];
    }
    this.reserve(r.D);
    this.loadRecords(r, names, V, stored !== undefined);
    for (let i = 0; i < V; i++) if (this.df[i] === 0) rejected('vocabulary entry used by no document');
    this.base = stored ? stored : this.postingsOf(r.D, V);
  }

  /**
   * The snapshot's documents under internal ids 0‥D−1 (the index is empty), their records' name
   * ids mapped to this index's (`names`, by the snapshot's id), checked: docIds, name and term
   * ids in range, a term once a record. Without stored postings (`hasPostings`), the terms'
   * document frequencies are counted here.
   */
  private loadRecords(r: SnapshotRecords, names: { paths: number[]; languages: number[]; kinds: number[] }, V: number, hasPostings: boolean): void {
    const bad = rejected;
    const { D, docIds, counts, body } = r;
    // the arrays are made at their size
    const records: Array<Uint32Array | undefined> = new Array(D);
    const extOf: number[] = new Array(D);
    let o = 0;
    for (let d = 0; d < D; d++) {
      const docId = docIds[d];
      if (!Number.isSafeInteger(docId) || docId < 0 || this.intOf.has(docId)) bad(`bad or repeated docId ${docId}`);
      const len = HEADER + 2 * counts[d];
      const rec = body.subarray(o, o + len);
      o += len;
      const pathId = names.paths[rec[0]];
      const lang = names.languages[rec[1] >>> 16];
      const kind = names.kinds[rec[1] & 0xffff];
      if (pathId === undefined || lang === undefined || kind === undefined) bad('name id out of range');
      rec[0] = pathId;
      rec[1] = (lang << 16) | kind;
      for (let f = 0; f < NFIELDS; f++) this.sumLen[f] += rec[2 + f];
      if (hasPostings) {
        for (let j = HEADER; j < len; j += 2) if (rec[j] >= V) bad('term id out of range');
      } else this.countTerms(rec, V);
      records[d] = rec;
      extOf[d] = docId;
      this.intOf.set(docId, d);
      this.docPath[d] = rec[0];
      this.docLK[d] = rec[1];
    }
    this.records = records;
    this.extOf = extOf;
  }

  /** Counts an imported record's terms in `df` (checked: ids under `V`, each once). */
  private countTerms(rec: Uint32Array, V: number): void {
    const len = rec.length;
    for (let j = HEADER; j < len; j += 2) {
      const id = rec[j];
      if (id >= V) rejected('term id out of range');
      if (this.mark[id]) rejected('repeated term in a record');
      this.mark[id] = 1;
      this.df[id]++;
    }
    for (let j = HEADER; j < len; j += 2) this.mark[rec[j]] = 0;
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
    const weakFrom = halfFrom(this.weakHalf);
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

/** FlexSearch's encoder: terms arrive as arrays already; a stray string is tokenized. */
function passThrough(content: string): string[] {
  const x = content as unknown;
  return Array.isArray(x) ? (x as string[]) : typeof x === 'string' ? queryTerms(x) : [];
}
