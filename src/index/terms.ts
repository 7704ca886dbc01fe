/**
 * The code-aware tokenizer of the keyword index: text → search terms, for documents
 * (`terms`) and for queries (`queryTerms`). Plain Node, no dependencies.
 *
 * Vocabulary:
 * - a *word character* is a Unicode letter, number or combining mark, `_` or `$`;
 * - a *joiner* is `.`, `/` or `-` standing between two word characters;
 * - a *compound* is a maximal run of word characters and joiners (`src/map/zoom.js`,
 *   `events.create.fields`, `k-text-field`, `getZoomControl`);
 * - a *segment* is a piece of a compound between joiners (`zoom`, `js`);
 * - a *part* is a piece of a segment cut at `_`, `$`, camelCase humps (`getZoomControl` →
 *   get|Zoom|Control, `XMLHttpRequest` → XML|Http|Request) and script changes (CJK ↔ Latin).
 *   Digits stay with the letters before them (`utf8Decode` → utf8|Decode, `h1` stays whole).
 *
 * Emitted, in text order: the whole compound when it has joiners, then for each segment the
 * whole segment when it has several parts, then its parts. So `getZoomControl` gives
 * `getzoomcontrol get zoom control`, `src/map/zoom.js` gives `src/map/zoom.js src map zoom js`.
 * A run of CJK characters (Han, kana, Hangul; no spaces between words) gives itself and its
 * bigrams, as Lucene's CJK analyzer does, so that a word inside it can be found.
 *
 * Folding: lowercase; terms with non-ASCII characters are also NFKD-decomposed and lose their
 * Latin/Greek/Cyrillic diacritics (U+0300–U+036F), so `Dézoomer` → `dezoomer`, `ＡＢＣ` → `abc`;
 * a few letters that do not decompose are mapped (ß → ss, æ → ae, œ → oe, ø → o, ł → l, đ → d).
 * Marks of other scripts (Devanagari vowel signs …) are kept: they are not diacritics there.
 *
 * Dropped: terms of one character (`a`, `i`, `x`, `1`, the `K` of `KZoomControl`) except a
 * lone CJK character, terms without a letter or digit, and terms over `MAX_TERM_LENGTH`
 * (base64 blobs, hashes). One-digit terms were measured (bench/keyword.ts, dev corpus of
 * 22,560 chunks, 300 mined queries): keeping them (`singleDigits`) adds 1.3% postings and
 * changes no hit@1, so they are dropped; digits stay findable inside `v1.2`, `alpha-2`, `h1`.
 *
 * Stemming: `terms` does not stem unless asked. `stem: true` replaces each all-letter term by
 * its S-stem (Harman 1991: -ies → -y, -es → -e, -s → ∅); `stem: 'add'` keeps the term and adds
 * its stem. Measured with BM25 on the mined queries, hit@1 as mined / with one word's plural
 * toggled (`Adding a languages`, i18n + heading queries) / symbol words only: no stem 0.943 /
 * 0.690 / 0.82, `true` 0.940 / 0.905 / 0.81, `'add'` 0.943 / 0.875 / 0.83, for 8% more
 * postings. The keyword index uses `'add'`, counting an added stem as half an occurrence (see
 * `termsWithWeakness`) so that the exact form wins; the stemmer is English, but its -s rule
 * also fits French and Spanish plurals.
 *
 * Speed: one pass over UTF-16 code units with a class table (ASCII precomputed, the rest of
 * the BMP classified lazily, once per code unit, with Unicode property regexes); regexes and
 * `normalize` run only on non-ASCII terms.
 */
import { fathomWasm, instantiate, wasmOrWarn, WasmHeap, type WasmMemory } from '../util/wasm';

export interface TermOptions {
  /**
   * S-stemming of all-letter terms: `true` replaces a term by its stem, `'add'` keeps the term
   * and adds its stem when it differs (`layers` → `layers layer`). Default false.
   */
  stem?: boolean | 'add';
  /** Keep one-digit terms (`1` of `v1.2`). Default false; a measuring knob of bench/keyword.ts. */
  singleDigits?: boolean;
}

// Option bits passed down the hot path.
const STEM = 1;
const DIGITS = 2;
const STEM_ADD = 4;
const PART = 8; // the term being pushed is a part of an identifier or a CJK bigram

/** When set, each pushed term also pushes here 0 (a term), 1 (a part or bigram) or 2 (an added stem). */
let weakOut: number[] | null = null;

/** Bump when the terms of some text change: persisted indexes made with another version are rebuilt. */
export const TOKENIZER_VERSION = 1;

/** Terms longer than this (UTF-16 units) are dropped. */
export const MAX_TERM_LENGTH = 64;
/** A query keeps at most this many distinct terms (the first ones). */
export const MAX_QUERY_TERMS = 64;

// Character classes.
const SEP = 0;
const LOWER = 1; // lowercase letter
const UPPER = 2; // uppercase or titlecase letter
const OTHER = 3; // letter without case (Arabic, Hebrew, Thai …)
const DIGIT = 4; // any Unicode number
const MARK = 5; // combining mark: continues whatever it follows
const CONN = 6; // `_` or `$`: inside identifiers, cuts parts
const JOIN = 7; // `.`, `/`, `-`: joins segments into a compound
const CJK = 8; // Han, Hiragana, Katakana, Hangul
const UNKNOWN = 255;

const table = new Uint8Array(0x10000).fill(UNKNOWN);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  table[c] =
    c >= 97 && c <= 122 ? LOWER
    : c >= 65 && c <= 90 ? UPPER
    : c >= 48 && c <= 57 ? DIGIT
    : ch === '_' || ch === '$' ? CONN
    : ch === '.' || ch === '/' || ch === '-' ? JOIN
    : SEP;
}
// Surrogates are classified per pair (see classAt).
for (let c = 0xd800; c <= 0xdfff; c++) table[c] = SEP;

const RE_UPPER = /^[\p{Lu}\p{Lt}]$/u;
const RE_LOWER = /^\p{Ll}$/u;
// U+30FC (prolonged sound mark), U+3005 (iteration mark) and U+FF70 are Script=Common but live inside CJK words.
const RE_CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005\uff70]$/u;
const RE_LETTER = /^\p{L}$/u;
const RE_NUMBER = /^\p{N}$/u;
const RE_MARK = /^\p{M}$/u;

function classify(ch: string): number {
  if (RE_CJK.test(ch)) return CJK;
  if (RE_UPPER.test(ch)) return UPPER;
  if (RE_LOWER.test(ch)) return LOWER;
  if (RE_LETTER.test(ch)) return OTHER;
  if (RE_NUMBER.test(ch)) return DIGIT;
  if (RE_MARK.test(ch)) return MARK;
  return SEP;
}

const astral = new Map<number, number>();

function astralClass(cp: number): number {
  let c = astral.get(cp);
  if (c === undefined) {
    c = classify(String.fromCodePoint(cp));
    if (astral.size < 100_000) astral.set(cp, c);
  }
  return c;
}

/** The class of the code unit at `i`; both halves of a surrogate pair get the pair's class. */
function classAt(text: string, i: number): number {
  const u = text.charCodeAt(i);
  const c = table[u];
  if (c !== UNKNOWN) {
    if (u < 0xd800 || u > 0xdfff) return c;
    if (u <= 0xdbff) {
      const lo = text.charCodeAt(i + 1);
      return lo >= 0xdc00 && lo <= 0xdfff ? astralClass(((u - 0xd800) << 10) + (lo - 0xdc00) + 0x10000) : SEP;
    }
    const hi = text.charCodeAt(i - 1);
    return hi >= 0xd800 && hi <= 0xdbff ? astralClass(((hi - 0xd800) << 10) + (u - 0xdc00) + 0x10000) : SEP;
  }
  return (table[u] = classify(String.fromCharCode(u)));
}

const SPECIAL_FOLD: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ı: 'i', ŀ: 'l', ħ: 'h', ŧ: 't', þ: 'th', ð: 'd' };
const RE_DIACRITICS = /[\u0300-\u036f]/g;
const RE_SPECIAL = /[ßæœøłđıŀħŧþð]/g;
const RE_NON_ASCII = /[\u0080-\uffff]/;

/** Lowercase and, for non-ASCII text, NFKD + strip Latin/Greek/Cyrillic diacritics. */
export function fold(s: string): string {
  const lower = s.toLowerCase();
  if (!RE_NON_ASCII.test(lower)) return lower;
  // NFKD can bring back capitals (𝐀 → A, Ⅻ → XII): lowercase once more after it.
  return lower.normalize('NFKD').replace(RE_DIACRITICS, '').toLowerCase().replace(RE_SPECIAL, (m) => SPECIAL_FOLD[m] ?? m);
}

/** Harman's S-stemmer, on all-letter ASCII terms of 4+ characters. */
export function sStem(t: string): string {
  const n = t.length;
  if (n < 4 || t.charCodeAt(n - 1) !== 115 /* s */) return t;
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i);
    if (c < 97 || c > 122) return t;
  }
  if (t.endsWith('ies') && !t.endsWith('eies') && !t.endsWith('aies')) return t.slice(0, -3) + 'y';
  if (t.endsWith('es') && !t.endsWith('aes') && !t.endsWith('ees') && !t.endsWith('oes')) return t.slice(0, -1);
  if (t.endsWith('us') || t.endsWith('ss')) return t;
  return t.slice(0, -1);
}

/**
 * The terms of a document text, in text order, with repeats (the index counts them).
 * Never throws; an empty or term-less text gives [].
 */
export function terms(text: string, options: TermOptions = {}): string[] {
  const out: string[] = [];
  if (typeof text !== 'string' || text.length === 0) return out;
  const opt = (options.stem === true ? STEM : options.stem === 'add' ? STEM_ADD : 0) | (options.singleDigits === true ? DIGITS : 0);
  const n = text.length;
  let i = 0;
  while (i < n) {
    let u = text.charCodeAt(i);
    let c = u < 128 ? table[u] : classAt(text, i);
    if (c === SEP || c === JOIN) {
      i++;
      continue;
    }
    // A compound: segments [segs[0], segs[1]), [segs[2], segs[3]) … between joiners.
    const start = i;
    let nseg = 0;
    let flags = 0; // bit 0: non-ASCII seen, bit 1: uppercase seen, bit 2: `_` or `$` seen
    for (;;) {
      const s = i;
      while (i < n) {
        u = text.charCodeAt(i);
        if (u < 128) {
          c = table[u];
          if (c === UPPER) flags |= 2;
          else if (c === CONN) flags |= 4;
        } else {
          c = classAt(text, i);
          flags |= 1;
        }
        if (c === SEP || c === JOIN) break;
        i++;
      }
      if (nseg + 2 > segs.length) segs = growSegs(segs);
      segs[nseg++] = s;
      segs[nseg++] = i;
      if (c === JOIN && i + 1 < n) {
        const v = text.charCodeAt(i + 1);
        const d = v < 128 ? table[v] : classAt(text, i + 1);
        if (d !== SEP && d !== JOIN) {
          i++;
          continue;
        }
      }
      break;
    }
    if (nseg === 2 && flags === 0) {
      // The common case: one all-lowercase ASCII word (digits allowed, no `_`/`$`).
      const len = i - start;
      if (len >= 2 ? len <= MAX_TERM_LENGTH : opt & DIGITS && table[text.charCodeAt(start)] === DIGIT) {
        const t = text.slice(start, i);
        if (opt === 0 && weakOut === null) out.push(t);
        else pushStemmed(out, t, opt);
      }
      continue;
    }
    // A compound or cased token: its terms depend on its characters alone, and identifiers
    // repeat, so they are worked out once (see `seen`) and copied after.
    const token = text.slice(start, i);
    const book = bookless ? undefined : seenBook(opt | (weakOut === null ? 0 : WEAK));
    const known = book?.get(token);
    if (known !== undefined) {
      for (let k = 0; k < known.terms.length; k++) out.push(known.terms[k]);
      if (weakOut !== null) for (let k = 0; k < known.weak.length; k++) weakOut.push(known.weak[k]);
      continue;
    }
    const o0 = out.length;
    const w0 = weakOut === null ? 0 : weakOut.length;
    if (nseg > 2 && hasLetterOrDigit(token)) push(out, token, flags, false, opt);
    for (let k = 0; k < nseg; k += 2) emitSegment(out, text, segs[k], segs[k + 1], flags, opt);
    if (book === undefined) continue;
    if (book.size >= SEEN_LIMIT) book.clear();
    book.set(token, { terms: out.slice(o0), weak: weakOut === null ? [] : weakOut.slice(w0) });
  }
  return out;
}

/**
 * The compounds of a text, where `terms` finds them: `scan(text)` fills `starts`, `ends` and
 * `hashes` (a hash of the compound's UTF-16 code units) and returns their count. A compound's
 * terms depend on its characters alone, so `terms(text)` is the concatenation of
 * `terms(text.slice(start, end))` over the compounds: the keyword index works out each
 * distinct compound's terms once and finds a compound met before by its hash, without slicing
 * it out of the text (test/unit/keyword.test.ts checks the concatenation).
 */
export class CompoundScanner {
  starts = new Int32Array(256);
  ends = new Int32Array(256);
  hashes = new Int32Array(256);

  scan(text: string): number {
    let k = 0;
    const n = text.length;
    let i = 0;
    while (i < n) {
      let u = text.charCodeAt(i);
      let c = u < 128 ? table[u] : classAt(text, i);
      if (c === SEP || c === JOIN) {
        i++;
        continue;
      }
      const start = i;
      let h = 0;
      for (;;) {
        while (i < n) {
          u = text.charCodeAt(i);
          c = u < 128 ? table[u] : classAt(text, i);
          if (c === SEP || c === JOIN) break;
          h = (Math.imul(h, 31) + u) | 0;
          i++;
        }
        if (c === JOIN && i + 1 < n) {
          const v = text.charCodeAt(i + 1);
          const d = v < 128 ? table[v] : classAt(text, i + 1);
          if (d !== SEP && d !== JOIN) {
            h = (Math.imul(h, 31) + u) | 0;
            i++;
            continue;
          }
        }
        break;
      }
      if (k === this.starts.length) this.grow();
      this.starts[k] = start;
      this.ends[k] = i;
      this.hashes[k] = h;
      k++;
    }
    return k;
  }

  private grow(): void {
    const more = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.starts = more(this.starts);
    this.ends = more(this.ends);
    this.hashes = more(this.hashes);
  }
}

/**
 * A chunk pool thread's work for the keyword index: the compounds of each chunk's text
 * (`CompoundScanner`), packed in chunk order: per chunk its count n, then n (start, end, hash)
 * triples, offsets in the chunk's text. Scanned in WebAssembly (`WasmCompoundScanner`) when the
 * module is there (`wasm: false`: in JavaScript, as where it is not), with the same triples.
 */
export function packCompounds(chunks: ReadonlyArray<{ text: string }>, options: { wasm?: boolean } = {}): Int32Array {
  const scanner = (packScanner ??= new CompoundScanner());
  const fast = options.wasm === false ? undefined : wasmCompoundScanner();
  let out = new Int32Array(1024);
  let at = 0;
  for (const c of chunks) {
    const viaWasm = fast !== undefined && c.text.length >= WASM_MIN_SCAN;
    const n = viaWasm ? fast.scan(c.text) : scanner.scan(c.text);
    if (at + 1 + 3 * n > out.length) {
      const more = new Int32Array(Math.max(2 * out.length, at + 1 + 3 * n));
      more.set(out.subarray(0, at));
      out = more;
    }
    out[at++] = n;
    if (viaWasm) {
      out.set(fast.triples(n), at);
      at += 3 * n;
      continue;
    }
    const { starts, ends, hashes } = scanner;
    for (let k = 0; k < n; k++) {
      out[at++] = starts[k];
      out[at++] = ends[k];
      out[at++] = hashes[k];
    }
  }
  // a copy of its own size: it is transferred, the scratch is not kept
  return out.slice(0, at);
}

/** Texts this long or longer are scanned in WebAssembly (shorter ones do not repay the copy). */
const WASM_MIN_SCAN = 32;

/** The compound scanning module the build compiles from assembly/compounds.ts, beside the bundle (dist/). */
export const COMPOUNDS_WASM_FILE = 'fathom-compounds.wasm';

interface CompoundExports {
  memory: WasmMemory;
  init(classes: number): void;
  scan(text: number, n: number, out: number): number;
}

/**
 * `CompoundScanner.scan` in WebAssembly (assembly/compounds.ts): the text is copied into the
 * module's memory as UTF-16 and scanned there. The module keeps its own copy of `table` (the
 * code units' classes), asking `classAt` for a unit not classed yet and for surrogates (classed
 * per pair). Memory: the table (64 KB), then the text and the triples.
 */
class WasmCompoundScanner {
  private readonly x: CompoundExports;
  private readonly heap: WasmHeap;
  private text = '';
  private outAt = 0;
  private static readonly TABLE_AT = 65536;
  private static readonly TEXT_AT = 2 * 65536;

  constructor(mod: object) {
    this.x = instantiate<CompoundExports>(mod, { classAt: (i: number) => classAt(this.text, i) });
    this.heap = new WasmHeap(this.x.memory);
    this.heap.ensure(WasmCompoundScanner.TEXT_AT + (1 << 20));
    const t = WasmCompoundScanner.TABLE_AT;
    this.heap.bytes.set(table, t);
    this.heap.bytes.fill(UNKNOWN, t + 0xd800, t + 0xe000);
    this.x.init(t);
  }

  /** The number of compounds of `text`; `triples(n)` has them. */
  scan(text: string): number {
    const len = text.length;
    const textAt = WasmCompoundScanner.TEXT_AT;
    const outAt = textAt + ((2 * len + 7) & ~7);
    this.heap.ensure(outAt + 12 * ((len >> 1) + 1));
    this.heap.bytes.write(text, textAt, 'utf16le');
    this.text = text;
    this.outAt = outAt;
    const n = this.x.scan(textAt, len, outAt);
    this.text = '';
    return n;
  }

  /** The (start, end, hash) triples of the last scan (a view, valid until the next scan). */
  triples(n: number): Int32Array {
    return this.heap.ints.subarray(this.outAt >> 2, (this.outAt >> 2) + 3 * n);
  }
}

let wasmScanner: WasmCompoundScanner | null | undefined;

function wasmCompoundScanner(): WasmCompoundScanner | undefined {
  if (wasmScanner === undefined) {
    const mod = fathomWasm(COMPOUNDS_WASM_FILE);
    wasmScanner = (mod && wasmOrWarn(() => new WasmCompoundScanner(mod))) ?? null;
  }
  return wasmScanner ?? undefined;
}

/** Does `packCompounds` scan in WebAssembly here (is dist/fathom-compounds.wasm there)? */
export function compoundsInWasm(): boolean {
  return wasmCompoundScanner() !== undefined;
}

let packScanner: CompoundScanner | undefined;

/** The indexing thread's side: `packCompounds`' triples of each chunk, by chunk id (undefined when they do not add up). */
export function compoundsByChunk(chunks: ReadonlyArray<{ id: string }>, packed: Int32Array): Map<string, Int32Array> | undefined {
  const out = new Map<string, Int32Array>();
  let at = 0;
  for (const c of chunks) {
    if (at >= packed.length) return undefined;
    const n = packed[at];
    if (n < 0 || at + 1 + 3 * n > packed.length) return undefined;
    out.set(c.id, packed.subarray(at + 1, at + 1 + 3 * n));
    at += 1 + 3 * n;
  }
  return at === packed.length ? out : undefined;
}

/** Set while `termsOfCompound` runs: the book below is neither read nor written. */
let bookless = false;

/**
 * `termsWithWeakness` of one compound (a `CompoundScanner` piece) whose terms the caller keeps
 * itself (the keyword index's compound table): not looked up in the book below nor added to it,
 * which would only hold a second copy of them.
 */
export function termsOfCompound(token: string, options: TermOptions, weak: number[]): string[] {
  bookless = true;
  try {
    return termsWithWeakness(token, options, weak);
  } finally {
    bookless = false;
  }
}

/**
 * The terms (and their weakness) of the compound and cased tokens met so far, by token, one
 * book per option set: camelCase and snake_case splitting, folding and stemming were most of
 * the time a cold index spent in `terms` (each book is emptied when it reaches SEEN_LIMIT).
 */
const seen = new Map<number, Map<string, { terms: string[]; weak: number[] }>>();
const SEEN_LIMIT = 50_000;
const WEAK = 16;
/** Forgets every token's terms (what a fresh process would compute: the tests compare with it). */
export function forgetSeenTerms(): void {
  seen.clear();
}
function seenBook(key: number): Map<string, { terms: string[]; weak: number[] }> {
  let book = seen.get(key);
  if (book === undefined) {
    book = new Map();
    seen.set(key, book);
  }
  return book;
}

let segs: Int32Array = new Int32Array(64);
function growSegs(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * `terms`, and for each term how it came, in `weak`: 0 a term of the text, 1 a part of an
 * identifier (`zoom` of `getZoomControl`) or a CJK bigram, 2 an added stem (`stem: 'add'`).
 */
export function termsWithWeakness(text: string, options: TermOptions, weak: number[]): string[] {
  weakOut = weak;
  try {
    return terms(text, options);
  } finally {
    weakOut = null;
  }
}

/**
 * The terms of a query: as `terms`, but each term once (first occurrence order) and at most
 * `MAX_QUERY_TERMS` of them, so that a pasted 100 KB text stays a bounded query. The whole
 * identifier stays next to its parts (`getZoomControl` → `getzoomcontrol get zoom control`):
 * it is the rare, high-idf term that lets the exact identifier outrank its words.
 */
export function queryTerms(query: string, options: TermOptions = {}): string[] {
  const all = terms(query, options);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of all) {
    if (seen.has(t)) continue;
    seen.add(t);
    out.push(t);
    if (out.length >= MAX_QUERY_TERMS) break;
  }
  return out;
}

/**
 * Pushes a folded term if it is worth indexing. `flags`: bit 0 non-ASCII may be present, bit 1
 * uppercase may be present (0 means the text is lowercase ASCII already). `cjkSingle` allows
 * one CJK character.
 */
function push(out: string[], raw: string, flags: number, cjkSingle: boolean, opt: number): void {
  if (raw.length > MAX_TERM_LENGTH) return;
  const t = flags & 1 ? fold(raw) : flags & 2 ? raw.toLowerCase() : raw;
  if (t.length < 2) {
    if (t.length === 0) return;
    if (!cjkSingle && !(opt & DIGITS && table[t.charCodeAt(0)] === DIGIT)) return;
  } else if (t.length > MAX_TERM_LENGTH) return;
  pushStemmed(out, t, opt);
}

function pushStemmed(out: string[], t: string, opt: number): void {
  if (opt & STEM) t = sStem(t);
  out.push(t);
  if (weakOut !== null) weakOut.push(opt & PART ? 1 : 0);
  if (opt & STEM_ADD) {
    const s = sStem(t);
    if (s !== t) {
      out.push(s);
      if (weakOut !== null) weakOut.push(2);
    }
  }
}

function hasLetterOrDigit(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const u = t.charCodeAt(i);
    const c = u < 128 ? table[u] : classAt(t, i);
    if (c === LOWER || c === UPPER || c === OTHER || c === DIGIT || c === CJK) return true;
  }
  return false;
}

/** A segment [s, e): the whole when it has several parts, then the parts. */
function emitSegment(out: string[], text: string, s: number, e: number, flags: number, opt: number): void {
  // First pass: find part boundaries without allocating.
  let parts = 0;
  let cuts = false;
  let prev = SEP;
  const ascii = (flags & 1) === 0;
  for (let j = s; j < e; j++) {
    const c = ascii ? table[text.charCodeAt(j)] : classAt(text, j);
    if (c === CONN) {
      cuts = true;
      prev = SEP;
      continue;
    }
    if (c === MARK) continue;
    if (prev === SEP || boundary(text, j, prev, c, e)) parts++;
    prev = c;
  }
  if (parts === 0) {
    // Only `_`/`$`: nothing to index.
    return;
  }
  if (parts === 1 && !cuts) {
    const c0 = classAt(text, s);
    if (c0 === CJK) emitCjk(out, text.slice(s, e), opt);
    else push(out, text.slice(s, e), flags, false, opt);
    return;
  }
  push(out, text.slice(s, e), flags, false, opt);
  // Second pass: emit the parts.
  let ps = -1;
  let pc = SEP;
  prev = SEP;
  for (let j = s; j <= e; j++) {
    const c = j >= e ? SEP : ascii ? table[text.charCodeAt(j)] : classAt(text, j);
    if (c === MARK && j < e) continue;
    const cut = c === CONN || c === SEP || prev === SEP || boundary(text, j, prev, c, e);
    if (cut) {
      if (ps >= 0) {
        if (pc === CJK) emitCjk(out, text.slice(ps, j), opt | PART);
        else push(out, text.slice(ps, j), flags, false, opt | PART);
      }
      ps = c === CONN || c === SEP ? -1 : j;
      pc = c;
    }
    prev = c === CONN ? SEP : c;
  }
}

/** Is there a part boundary before position j (class c), after a character of class prev? */
function boundary(text: string, j: number, prev: number, c: number, e: number): boolean {
  const u = text.charCodeAt(j);
  if (u >= 0xdc00 && u <= 0xdfff) return false; // the second half of a surrogate pair
  if ((prev === CJK) !== (c === CJK)) return true;
  if (c !== UPPER) return false;
  if (prev === LOWER || prev === DIGIT || prev === OTHER) return true;
  // An uppercase run followed by a lowercase letter: the last capital starts a new part.
  if (prev === UPPER && j + 1 < e) {
    const v = text.charCodeAt(j + 1);
    return (v < 128 ? table[v] : classAt(text, j + 1)) === LOWER;
  }
  return false;
}

function emitCjk(out: string[], run: string, opt: number): void {
  const chars = Array.from(run);
  if (chars.length <= 1) {
    push(out, run, 1, true, opt & PART);
    return;
  }
  push(out, run, 1, false, opt);
  if (chars.length === 2) return;
  for (let k = 0; k + 1 < chars.length; k++) push(out, chars[k] + chars[k + 1], 1, false, PART);
}
