/**
 * The keyword index as data (`KeywordSnapshot`): what `KeywordIndex.export` writes
 * (`writeRecords`: the records with their term ids, path, language and kind renumbered in order
 * of first use) and the checks and views an import reads it through, each rejecting what this
 * version cannot read with `keyword index snapshot rejected: …` (the caller rebuilds).
 *
 * `data` holds the documents' ids (float64), their term counts (uint32) and their records
 * (uint32, see keyword.ts); `vocab`, `paths`, `languages` and `kinds` are the names the records'
 * ids stand for. A binary snapshot (`export({ binary: true })`, what the store keeps) carries the
 * vocabulary as a term table (`lexicon`, lexicon.ts) and the postings laid out (`postings`,
 * postings-layout.ts), which an import reads in place.
 */
import { Lexicon, type Vocabulary } from './lexicon';
import type { Interner, RecordConfig, WeakHalf } from './keyword-record';
import { HEADER, RESOLUTION, type BasePostings, type BinaryLayout } from './postings-layout';
import { TOKENIZER_VERSION } from './terms';

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

/** 2: frequencies in half occurrences with `weakHalf: 'stems' | 'all' | 'none'` (1 had a boolean). */
const SNAPSHOT_VERSION = 2;

/** Rejects a snapshot: the error `KeywordIndex.import` throws. */
export function rejected(why: string): never {
  throw new Error(`keyword index snapshot rejected: ${why}`);
}

/** Rejects a snapshot of another format, version or tokenizer than `config`'s, or whose parts are not of their types. */
export function checkSnapshot(s: KeywordSnapshot, config: RecordConfig): void {
  const bad = rejected;
  if (!s || s.format !== 'fathom-keyword') bad('not a keyword index snapshot');
  if (s.version !== SNAPSHOT_VERSION) bad(`format version ${s.version}, expected ${SNAPSHOT_VERSION}`);
  if (!s.tokenizer || s.tokenizer.version !== TOKENIZER_VERSION) bad('made with another tokenizer version');
  if (s.tokenizer.stem !== config.stem) bad(`made with stem=${s.tokenizer.stem}, this index has stem=${config.stem}`);
  if (s.tokenizer.singleDigits !== config.singleDigits) bad(`made with singleDigits=${s.tokenizer.singleDigits}, this index has ${config.singleDigits}`);
  if (s.tokenizer.weakHalf !== config.weakHalf) bad(`made with weakHalf=${s.tokenizer.weakHalf}, this index has ${config.weakHalf}`);
  if (!(s.data instanceof Uint8Array)) bad('data is not binary');
  if (![s.vocab, s.paths, s.languages, s.kinds].every(Array.isArray)) bad('missing name tables');
  if (s.lexicon !== undefined && !(s.lexicon instanceof Uint8Array)) bad('the term table is not binary');
  if (s.postings !== undefined && !(s.postings instanceof Uint8Array)) bad('the postings are not binary');
  if (s.postings !== undefined && s.lexicon === undefined) bad('postings without their term table');
}

/** A snapshot's `data` as views: `D` documents' ids and term counts, and their records (`words` uint32 in `body`). */
export interface SnapshotRecords {
  D: number;
  docIds: Float64Array;
  counts: Uint32Array;
  body: Uint32Array;
  words: number;
}

/**
 * The views of `s.data` (checked: sizes, checksum unless `checked`, records that add up). With
 * `adopt`, or when `data` had to be copied to be aligned, `body` is a view of it (the import then
 * changes it); otherwise a copy.
 */
export function snapshotRecords(s: KeywordSnapshot, adopt: boolean, checked: boolean): SnapshotRecords {
  const bad = rejected;
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
  return { D, docIds, counts, body, words };
}

/** The vocabulary: the stored term table read in place, or one made from `vocab` (version 5 stores). */
export function snapshotLexicon(s: KeywordSnapshot): Lexicon {
  try {
    return Lexicon.read(s.lexicon !== undefined ? aligned(s.lexicon) : Lexicon.build(s.vocab));
  } catch (err) {
    return rejected((err as Error).message);
  }
}

/** The stored postings of a binary snapshot, read in place (checked), or undefined when it has none. */
export function snapshotPostings(s: KeywordSnapshot, r: SnapshotRecords, V: number): BasePostings | undefined {
  const stored = s.postings !== undefined ? readPostings(aligned(s.postings), r.D, V, (r.words - HEADER * r.D) / 2) : undefined;
  if (typeof stored === 'string') rejected(stored);
  return stored;
}

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

export function checksum(bytes: Uint8Array): number {
  const n = bytes.byteLength >>> 2;
  const words = bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, n) : new Uint32Array(bytes.slice(0, n * 4).buffer);
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ words[i], 0x01000193);
  return h >>> 0;
}

/** What `writeRecords` reads of an index. */
export interface RecordSource {
  /** docId → internal id, in insertion order. */
  intOf: ReadonlyMap<number, number>;
  /** Per internal id: the record. */
  records: ReadonlyArray<Uint32Array | undefined>;
  vocab: Vocabulary;
  paths: Interner;
  languages: Interner;
  kinds: Interner;
  config: RecordConfig;
}

/**
 * The snapshot of an index's documents (see `KeywordIndex.export`) without its binary parts, and
 * views of its records in `data`: documents in insertion order, terms and names renumbered in
 * order of first use.
 */
export function writeRecords(ix: RecordSource): KeywordRecords {
  const D = ix.intOf.size;
  let words = 0;
  for (const i of ix.intOf.values()) words += (ix.records[i] as Uint32Array).length;
  const buf = new ArrayBuffer(8 * D + 4 * D + 4 * words);
  const docIds = new Float64Array(buf, 0, D);
  const counts = new Uint32Array(buf, 8 * D, D);
  const body = new Uint32Array(buf, 12 * D, words);
  const names = new NameMap(ix);
  let d = 0;
  let o = 0;
  for (const [docId, i] of ix.intOf) {
    const rec = ix.records[i] as Uint32Array;
    docIds[d] = docId;
    counts[d] = (rec.length - HEADER) / 2;
    d++;
    names.record(rec, body, o);
    o += rec.length;
  }
  const data = new Uint8Array(buf);
  const { stem, singleDigits, weakHalf } = ix.config;
  const snap: KeywordSnapshot = {
    format: 'fathom-keyword',
    version: SNAPSHOT_VERSION,
    tokenizer: { version: TOKENIZER_VERSION, stem, singleDigits, weakHalf },
    docs: D,
    vocab: names.vocab,
    paths: names.paths,
    languages: names.languages,
    kinds: names.kinds,
    data,
    checksum: checksum(data),
  };
  return { snap, counts, body };
}

/** The snapshot's names: an index's term, path, language and kind ids → the snapshot's, in order of first use. */
class NameMap {
  /** By term id (−1: not met yet). */
  private readonly termMap: Int32Array;
  readonly vocab: string[] = [];
  private readonly pathMap = new Map<number, number>();
  readonly paths: string[] = [];
  private readonly langMap = new Map<number, number>();
  readonly languages: string[] = [];
  private readonly kindMap = new Map<number, number>();
  readonly kinds: string[] = [];

  constructor(private readonly ix: RecordSource) {
    this.termMap = new Int32Array(ix.vocab.strs.length).fill(-1);
  }

  /** `rec` renumbered into `body` at `o`. */
  record(rec: Uint32Array, body: Uint32Array, o: number): void {
    const ix = this.ix;
    body[o] = remap(this.pathMap, this.paths, rec[0], () => ix.paths.get(rec[0]));
    const lang = remap(this.langMap, this.languages, rec[1] >>> 16, () => ix.languages.get(rec[1] >>> 16));
    const kind = remap(this.kindMap, this.kinds, rec[1] & 0xffff, () => ix.kinds.get(rec[1] & 0xffff));
    body[o + 1] = (lang << 16) | kind;
    for (let f = 2; f < HEADER; f++) body[o + f] = rec[f];
    const termMap = this.termMap;
    for (let j = HEADER; j < rec.length; j += 2) {
      let t = termMap[rec[j]];
      if (t === -1) {
        t = termMap[rec[j]] = this.vocab.length;
        this.vocab.push(ix.vocab.term(rec[j]));
      }
      body[o + j] = t;
      body[o + j + 1] = rec[j + 1];
    }
  }
}

function remap(m: Map<number, number>, out: string[], id: number, name: () => string): number {
  let r = m.get(id);
  if (r === undefined) {
    r = out.length;
    out.push(name());
    m.set(id, r);
  }
  return r;
}
