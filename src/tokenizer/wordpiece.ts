/**
 * Token counting with all-MiniLM-L6-v2's WordPiece tokenizer, exactly as transformers.js
 * (`@huggingface/tokenizers`) tokenizes, but fast: the counter never builds token arrays,
 * takes an ASCII fast path, caches the WordPiece count of every word it has seen, and finds the
 * pieces of a new [0-9a-z] word by walking two tries of the vocabulary (word starts and
 * continuations) rather than slicing and looking up every candidate (on a cold index most of
 * the counter's time went to the words it had not seen yet).
 *
 * The pipeline mirrored, step by step (tokenizer.json of the model):
 *   added tokens ([CLS], [SEP], …) split off the raw text
 *   → BertNormalizer (clean_text, chinese chars spaced, lowercase, NFD + strip Mn)
 *   → BertPreTokenizer (split on whitespace and punctuation)
 *   → WordPiece (greedy longest match, `##` continuation, [UNK] past 100 code points)
 *   → TemplateProcessing ([CLS] … [SEP]).
 * `test/unit/tokenizer.test.ts` checks the counts against transformers.js itself.
 *
 * Counts are additive across whitespace: count(a + ' ' + b) === count(a) + count(b)
 * (without the two special tokens). The chunkers rely on that to count lines once.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fathomWasm, instantiate, wasmOrWarn, WasmHeap, type WasmMemory } from '../util/wasm';

export interface TokenCounter {
  /** Tokens of `text` without [CLS]/[SEP]. */
  count(text: string): number;
  /** Tokens the model sees for `text`: count + [CLS] + [SEP]. */
  countWithSpecials(text: string): number;
  /** `count(text.slice(from, to))` without making the slice (optional: the chunkers fall back to slicing). */
  countIn?(text: string, from: number, to: number): number;
  /**
   * `countIn`, also giving `sink` every segment of the range (a maximal run without space, tab,
   * CR or LF) with its tokens, in order (optional: the chunkers fall back to counting each
   * segment). Counts add up across those four characters, so the segments' tokens sum to the count.
   */
  countSegments?(text: string, from: number, to: number, sink: SegmentSink): number;
  readonly name: string;
}

/** What `countSegments` reports to: each segment's offsets and tokens. */
export interface SegmentSink {
  segment(start: number, end: number, tokens: number): void;
}

/** A trie's arrays (see `AlnumTrie`). */
export interface TrieData {
  keys: Int32Array;
  vals: Int32Array;
  terminal: Uint8Array;
  edges: number;
  nodes: number;
}

/** Bumped when `CounterTables` or its file layout changes: tables of another version are not read. */
export const TABLES_VERSION = 2;

/**
 * What a `WordPieceCounter` is made of, built: the tokenizer's settings, its vocabulary and the
 * two tries of its [0-9a-z] tokens. Building them from tokenizer.json (parse 700 KB of JSON, add
 * 30,000 tokens to the tries, in code V8 has not compiled yet) took ~50–65 ms on each chunk
 * thread at its start, on a cold index's path; read from the file the build writes, ~2 ms.
 */
export interface CounterTables {
  version: typeof TABLES_VERSION;
  prefix: string;
  maxWordChars: number;
  specials: string[];
  /** The tokens, `\n`-separated (none holds one: tokenizer.json's are pre-tokenized words). */
  vocab: string;
  start: TrieData;
  continuation: TrieData;
  /** The whole vocabulary's tries by code unit (`UnitTrie`): tokens, and continuations without their prefix. */
  unitStart: UnitTrieData;
  unitContinuation: UnitTrieData;
}

/** A `UnitTrie`'s arrays. */
export interface UnitTrieData {
  nodeOf: Int32Array;
  unitOf: Uint16Array;
  childOf: Int32Array;
  terminal: Uint8Array;
  edges: number;
  nodes: number;
}

interface TokenizerJson {
  model: {
    type: string;
    vocab: Record<string, number>;
    unk_token: string;
    continuing_subword_prefix?: string;
    max_input_chars_per_word?: number;
  };
  added_tokens: Array<{ content: string; normalized: boolean }>;
  normalizer?: { type: string; lowercase?: boolean; strip_accents?: boolean | null } | null;
}

const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PRE_TOKENIZE = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');
// clean_text: drop NUL, U+FFFD and control/format/private/surrogate code points, keep \t \n \r.
const CLEAN = /(?![\t\n\r])[\0\uFFFD\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;
// tokenize_chinese_chars tests UTF-16 code units, so only the BMP ranges can ever match.
const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\uF900-\uFAFF]/g;
const MN = /\p{Mn}/gu;

export class WordPieceCounter implements TokenCounter {
  readonly name: string;
  /** The vocabulary's tokens, in the tokenizer's order (`vocab` makes the set when a word needs it). */
  private readonly words: () => string[];
  private vocabSet: Set<string> | undefined;
  private readonly prefix: string;
  private readonly maxWordChars: number;
  private readonly specials: RegExp | null;
  private readonly specialList: string[];
  /** The special tokens that can lie inside a printable-ASCII segment (the others never match there). */
  private readonly asciiSpecials: string[];
  /** The vocabulary's all-[0-9a-z] tokens: word starts, and continuations without their prefix. */
  private readonly startTrie: AlnumTrie;
  private readonly continueTrie: AlnumTrie;
  /** The whole vocabulary's tokens, and its continuations without their prefix (built on the first word that needs them). */
  private startAll: UnitTrie | undefined;
  private continueAll: UnitTrie | undefined;
  private cache = new Map<string, number>();
  private static readonly CACHE_LIMIT = 500_000;
  /**
   * rawWord's counts by a hash of the word's characters, so that a word seen before is found
   * without slicing it out of the text or hashing a string: an open-addressing table (linear
   * probing, at most half full) of the hash and 1 + the word's index in `seenWords`.
   */
  // small at first, so that `warmUp` grows it once: the growth has its type feedback before V8
  // optimizes the counting loop, which otherwise deoptimized at the first growth
  private seenHash = new Int32Array(1 << 4);
  private seenSlot = new Int32Array(1 << 4);
  private seenShift = 32 - 4;
  private seenWords: string[] = [];
  private seenCounts: number[] = [];

  /** The counting loop in WebAssembly (`WasmWalker`), for ranges of `WASM_MIN_CHARS` or more; undefined: all in JavaScript. */
  private readonly wasm: WasmWalker | undefined;

  /**
   * From a tokenizer.json, or from the tables `tables()` made of one (what the build writes
   * beside the bundle for the shipped tokenizer: see `readCounterTables`). `wasm: false` counts
   * in JavaScript alone; `wasmTableBits`: the WebAssembly table of words seen has 2^bits slots
   * (18; small ones for tests, which fill and clear it).
   */
  constructor(source: TokenizerJson | CounterTables, name = 'wordpiece', options: { wasm?: boolean; wasmTableBits?: number } = {}) {
    this.name = name;
    if ('version' in source && source.version === TABLES_VERSION) {
      const t = source;
      this.words = () => t.vocab.split('\n');
      this.prefix = t.prefix;
      this.maxWordChars = t.maxWordChars;
      this.startTrie = AlnumTrie.from(t.start);
      this.continueTrie = AlnumTrie.from(t.continuation);
      this.startAll = UnitTrie.from(t.unitStart);
      this.continueAll = UnitTrie.from(t.unitContinuation);
      this.specialList = t.specials;
    } else {
      const json = source as TokenizerJson;
      if (json.model.type !== 'WordPiece') {
        throw new Error(`Tokenizer model ${json.model.type} is not WordPiece; Fathom counts tokens only for WordPiece models`);
      }
      if (json.normalizer && (json.normalizer.type !== 'BertNormalizer' || json.normalizer.lowercase === false)) {
        throw new Error('Fathom counts tokens only for lowercasing BertNormalizer tokenizers (all-MiniLM-L6-v2 family)');
      }
      const words = Object.keys(json.model.vocab);
      this.words = () => words;
      this.vocabSet = new Set(words);
      this.prefix = json.model.continuing_subword_prefix ?? '##';
      this.maxWordChars = json.model.max_input_chars_per_word ?? 100;
      const raw = json.added_tokens.filter((t) => !t.normalized).map((t) => t.content);
      raw.sort((a, b) => b.length - a.length);
      this.specialList = raw;
      this.startTrie = AlnumTrie.empty();
      this.continueTrie = AlnumTrie.empty();
      const p = this.prefix;
      for (const t of words) {
        if (isLowerAlnum(t)) this.startTrie.add(t, 0);
        if (t.startsWith(p) && isLowerAlnum(t, p.length)) this.continueTrie.add(t, p.length);
      }
    }
    const raw = this.specialList;
    this.specials = raw.length ? new RegExp(raw.map(escapeRegExp).join('|'), 'g') : null;
    this.asciiSpecials = raw.filter((t) => /^[\x21-\x7e]+$/.test(t));
    const mod = options.wasm === false ? undefined : fathomWasm(COUNTER_WASM_FILE);
    this.wasm = mod ? wasmOrWarn(() => new WasmWalker(mod, this.startTrie.data(), this.continueTrie.data(), this.maxWordChars, this.asciiSpecials, (t) => this.countSlow(t), options.wasmTableBits)) : undefined;
    this.warmUp();
  }

  /** The vocabulary as a set, made on the first word that needs it (a counter made from tables has only the list). */
  private get vocab(): Set<string> {
    return (this.vocabSet ??= new Set(this.words()));
  }

  /** What this counter is made of, as plain data: `new WordPieceCounter(counter.tables())` counts the same. */
  tables(): CounterTables {
    const [unitStart, unitContinuation] = this.unitTries();
    return {
      version: TABLES_VERSION,
      prefix: this.prefix,
      maxWordChars: this.maxWordChars,
      specials: this.specialList.slice(),
      vocab: this.words().join('\n'),
      start: this.startTrie.data(),
      continuation: this.continueTrie.data(),
      unitStart: unitStart.data(),
      unitContinuation: unitContinuation.data(),
    };
  }

  /**
   * Counts a text with every kind of segment once, with and without a sink. V8 optimizes the
   * counting loop soon after it gets hot, with the type feedback seen so far; a branch first
   * taken after that (a special token, a non-ASCII segment, a sink, the seen words' table
   * growing) throws the optimized code away, to be compiled again: a cold index of 1,100 files
   * compiled it 13 times on its two chunk threads. Counts are not changed by it; the caches
   * only hold its words.
   */
  private warmUp(): void {
    const sink: SegmentSink = { segment: () => undefined };
    for (let i = 0; i < 3; i++) {
      this.walkJs(WARM_UP_TEXT, 0, WARM_UP_TEXT.length, null);
      this.walkJs(WARM_UP_TEXT, 0, WARM_UP_TEXT.length, sink);
      this.walkJs(WARM_UP_TEXT, 3, 40, null);
    }
  }

  /** Does this counter count long ranges in WebAssembly? (It falls back to JavaScript when `dist/fathom-counter.wasm` is missing.) */
  get usesWasm(): boolean {
    return this.wasm !== undefined;
  }

  countWithSpecials(text: string): number {
    return this.count(text) + 2;
  }

  /**
   * One pass over the text: ASCII whitespace splits it into segments (counts are additive
   * across whitespace); a segment of printable ASCII is counted inline, any other segment
   * goes through the full normalization pipeline.
   */
  count(text: string): number {
    return this.countIn(text, 0, text.length);
  }

  /**
   * `count(text.slice(from, to))`, without the slice. One pass: ASCII whitespace splits the text
   * into segments (counts are additive across whitespace); a segment is counted inline while it
   * is printable ASCII (punctuation one token each, alphanumeric runs looked up by a hash of
   * their characters), and a segment found to hold anything else is counted again from its
   * start through the full normalization pipeline.
   */
  countIn(text: string, from: number, to: number): number {
    return this.walk(text, from, to, null);
  }

  countSegments(text: string, from: number, to: number, sink: SegmentSink): number {
    return this.walk(text, from, to, sink);
  }

  private walk(text: string, from: number, to: number, sink: SegmentSink | null): number {
    const n = Math.min(to, text.length);
    const i = Math.max(0, from);
    if (this.wasm && n - i >= WASM_MIN_CHARS && n - i <= WASM_MAX_CHARS) return this.wasm.walk(text, i, n, sink);
    return this.walkJs(text, i, n, sink);
  }

  /** `walk` in JavaScript: short ranges (headers, a line), and every range where WebAssembly is missing. */
  private walkJs(text: string, from: number, to: number, sink: SegmentSink | null): number {
    let total = 0;
    const n = Math.min(to, text.length);
    let i = Math.max(0, from);
    while (i < n) {
      let c = text.charCodeAt(i);
      if (c < 128 && ASCII_CLASS[c] === C_WS) {
        i++;
        continue;
      }
      const segStart = i;
      const segTotal = total;
      let wordStart = -1;
      let h = 0;
      for (; i < n; i++) {
        c = text.charCodeAt(i);
        const k = c < 128 ? ASCII_CLASS[c] : C_OTHER;
        if (k === C_ALNUM) {
          if (wordStart < 0) {
            wordStart = i;
            h = 0;
          }
          h = (Math.imul(h, 31) + c) | 0;
          continue;
        }
        if (wordStart >= 0) {
          total += this.hashedWord(text, wordStart, i, h);
          wordStart = -1;
        }
        if (k === C_PUNCT) {
          if (c === 91) {
            const len = this.specialAt(text, i, n);
            if (len) i += len - 1;
          }
          total += 1; // every printable non-alphanumeric ASCII char is BERT punctuation (a special token is one token too)
          continue;
        }
        if (k === C_WS) break;
        // not printable ASCII: the whole segment goes through the full pipeline
        let j = i + 1;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === 32 || d === 10 || d === 9 || d === 13) break;
          j++;
        }
        total = segTotal + this.countSlow(text.slice(segStart, j));
        i = j;
        break;
      }
      if (wordStart >= 0) total += this.hashedWord(text, wordStart, i, h);
      if (sink !== null) sink.segment(segStart, i, total - segTotal);
    }
    return total;
  }

  /** A segment that is not plain printable ASCII: special tokens split off, then normalized. */
  private countSlow(text: string): number {
    if (this.specials && text.includes('[')) {
      let total = 0;
      let last = 0;
      this.specials.lastIndex = 0;
      for (let m = this.specials.exec(text); m; m = this.specials.exec(text)) {
        total += this.countUnicode(text.slice(last, m.index)) + 1;
        last = m.index + m[0].length;
      }
      return total + this.countUnicode(text.slice(last));
    }
    return this.countUnicode(text);
  }

  /** rawWord of `text.slice(from, to)` (an ASCII alphanumeric word whose character hash is `h`), slicing only on a miss. */
  private hashedWord(text: string, from: number, to: number, h: number): number {
    const len = to - from;
    const slots = this.seenSlot;
    const mask = slots.length - 1;
    let at = Math.imul(h, 0x9e3779b1) >>> this.seenShift;
    for (let e = slots[at]; e !== 0; e = slots[at]) {
      if (this.seenHash[at] === h) {
        const w = this.seenWords[e - 1];
        if (w.length === len && text.startsWith(w, from)) return this.seenCounts[e - 1];
      }
      at = (at + 1) & mask;
    }
    const w = text.slice(from, to);
    const n = this.rawWord(w);
    if (this.seenWords.length >= WordPieceCounter.CACHE_LIMIT) this.resizeSeen(12, false);
    else if (2 * (this.seenWords.length + 1) > slots.length) this.resizeSeen(32 - this.seenShift + 1, true);
    else {
      slots[at] = this.seenWords.push(w);
      this.seenHash[at] = h;
      this.seenCounts.push(n);
      return n;
    }
    this.placeSeen(h, this.seenWords.push(w));
    this.seenCounts.push(n);
    return n;
  }

  /** A new table of 2^bits slots, holding the words seen so far (`keep`) or none. */
  private resizeSeen(bits: number, keep: boolean): void {
    const oldHash = this.seenHash;
    const oldSlot = this.seenSlot;
    this.seenHash = new Int32Array(1 << bits);
    this.seenSlot = new Int32Array(1 << bits);
    this.seenShift = 32 - bits;
    if (!keep) {
      this.seenWords = [];
      this.seenCounts = [];
      return;
    }
    for (let i = 0; i < oldSlot.length; i++) if (oldSlot[i] !== 0) this.placeSeen(oldHash[i], oldSlot[i]);
  }

  private placeSeen(h: number, slot: number): void {
    const slots = this.seenSlot;
    const mask = slots.length - 1;
    let at = Math.imul(h, 0x9e3779b1) >>> this.seenShift;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = slot;
    this.seenHash[at] = h;
  }

  /** Length of the special token ([CLS], [SEP] …) starting at i, or 0. */
  private specialAt(text: string, i: number, to: number): number {
    for (const sp of this.asciiSpecials) {
      if (i + sp.length <= to && text.startsWith(sp, i)) return sp.length;
    }
    return 0;
  }

  /** WordPiece count of an ASCII alphanumeric word in its original case (cached as is). */
  private rawWord(w: string): number {
    const hit = this.cache.get(w);
    if (hit !== undefined) return hit;
    const n = this.word(w.toLowerCase());
    this.cache.set(w, n);
    return n;
  }

  private countUnicode(text: string): number {
    const normalized = text
      .replace(CLEAN, '')
      .replace(CJK, ' $& ')
      .toLowerCase()
      .normalize('NFD')
      .replace(MN, '');
    let total = 0;
    PRE_TOKENIZE.lastIndex = 0;
    for (let m = PRE_TOKENIZE.exec(normalized); m; m = PRE_TOKENIZE.exec(normalized)) {
      total += this.word(m[0]);
    }
    return total;
  }

  /** WordPiece count of one pre-token (already normalized), cached. */
  private word(w: string): number {
    const hit = this.cache.get(w);
    if (hit !== undefined) return hit;
    const n = this.wordPiece(w);
    if (this.cache.size >= WordPieceCounter.CACHE_LIMIT) this.cache.clear();
    this.cache.set(w, n);
    return n;
  }

  private wordPiece(w: string): number {
    if (isLowerAlnum(w)) return this.wordPieceAlnum(w);
    // one character is one token: itself when the vocabulary has it, else [UNK] (most words
    // that come here are one punctuation mark or symbol, which need neither set nor tries)
    if (w.length === 1 || (w.length === 2 && isSurrogatePair(w))) return 1;
    const len = isAsciiString(w) ? w.length : codePoints(w);
    if (len > this.maxWordChars) return 1; // [UNK]
    // greedy longest match, walked in tries of the whole vocabulary (code units): a word of
    // other characters (Cyrillic, Greek, CJK, emoji …) was cut by slicing and looking up every
    // candidate, quadratic in the word's length (the dev corpus' 17,853 non-ASCII lines, cold:
    // 0.16–0.21 s before, 0.12–0.20 s after)
    const [startAll, continueAll] = this.unitTries();
    // a word the vocabulary holds whole is its own longest match: one token (the tries hold
    // every well-formed token; a word with a lone surrogate is looked up in the set)
    if (isWellFormedString(w) ? startAll.has(w) : this.vocab.has(w)) return 1;
    let i = 0;
    let pieces = 0;
    while (i < w.length) {
      const end = (i === 0 ? startAll : continueAll).longest(w, i);
      if (end < 0) return 1; // the whole word becomes one [UNK]
      pieces++;
      i = end;
    }
    return pieces;
  }

  /**
   * The whole vocabulary's tries (tokens, continuations without their prefix), read with the
   * tables, or built on the first word that needs them (~30–40 ms, in code not optimized yet).
   */
  private unitTries(): [UnitTrie, UnitTrie] {
    if (!this.startAll || !this.continueAll) {
      this.startAll = new UnitTrie();
      this.continueAll = new UnitTrie();
      const p = this.prefix;
      for (const t of this.words()) {
        if (!isWellFormedString(t)) continue; // a lone surrogate never matches a whole character
        this.startAll.add(t, 0);
        if (t.length > p.length && t.startsWith(p)) this.continueAll.add(t, p.length);
      }
    }
    return [this.startAll, this.continueAll];
  }

  /**
   * `wordPiece` of a word of [0-9a-z] alone (most words of code and prose): the same greedy
   * longest match, walked in tries of the vocabulary's [0-9a-z] tokens (smaller and faster than
   * the whole vocabulary's, which `wordPiece` walks for the other words).
   */
  private wordPieceAlnum(w: string): number {
    const len = w.length;
    if (len > this.maxWordChars) return 1; // [UNK]
    let i = 0;
    let pieces = 0;
    while (i < len) {
      const trie = i === 0 ? this.startTrie : this.continueTrie;
      const end = trie.longest(w, i);
      if (end < 0) return 1; // the whole word becomes one [UNK]
      pieces++;
      i = end;
    }
    return pieces;
  }
}

/**
 * What `warmUp` counts: alphanumeric words (new, repeated, mixed case, digits), punctuation, a
 * special token and a `[` that is not one, whitespace of each kind, and segments that are not
 * printable ASCII (letters with accents that normalize to ASCII letters: no punctuation, no
 * other script, so no trie of the whole vocabulary is built, 45 ms).
 */
const WARM_UP_TEXT = 'const zoomLevel = map.getZoom(); // [CLS] [x] a[1]\n\tif (x >= 10) return café Crème\r\n  ÉTÉ naïve 42px #id {"k": [1, 2]}\n';

/**
 * Ranges this long or longer are counted in WebAssembly: each is copied into its memory first,
 * which shorter ones (headers, single lines) do not repay.
 */
const WASM_MIN_CHARS = 96;
/** Longer ranges stay in JavaScript: the module's memory grows to ~8 bytes a character of a range and never shrinks. */
const WASM_MAX_CHARS = 4 << 20;

/** The counting module the build compiles from assembly/counter.ts, beside the bundle (dist/). */
export const COUNTER_WASM_FILE = 'fathom-counter.wasm';

interface CounterExports {
  memory: WasmMemory;
  init(...args: number[]): void;
  walk(text: number, n: number, segs: number): number;
  segments(): number;
}

/**
 * `WordPieceCounter.walk` in WebAssembly (assembly/counter.ts): the range is copied into the
 * module's memory as UTF-16 and counted there; a segment that is not printable ASCII comes back
 * to `slow` (the JavaScript pipeline), and a sink gets the segments the module wrote. The
 * memory holds the two [0-9a-z] tries, the special tokens, a table of the words seen (2^18
 * slots of 16 bytes, cleared when half full or when its 4 MB of characters are) with their
 * characters, then the text and the segments: ~11 MB in all for the model's vocabulary.
 */
class WasmWalker {
  private readonly x: CounterExports;
  private readonly heap: WasmHeap;
  private readonly textAt: number;
  private text = '';
  private from = 0;

  constructor(mod: object, start: TrieData, continuation: TrieData, maxWordChars: number, specials: readonly string[], slow: (text: string) => number, seenBits = 18) {
    this.x = instantiate<CounterExports>(mod, { slow: (s: number, e: number) => slow(this.text.slice(this.from + s, this.from + e)) });
    this.heap = new WasmHeap(this.x.memory);
    const sp = Buffer.concat(specials.map((t) => Buffer.concat([Buffer.from([t.length]), Buffer.from(t, 'latin1')])));
    seenBits = Math.min(24, Math.max(4, Math.floor(seenBits)));
    const arenaBytes = 16 << seenBits;
    let at = 65536; // past the module's own data
    const place = (n: number) => {
      const p = at;
      at += (n + 7) & ~7;
      return p;
    };
    const tries = [start, continuation].map((t) => ({ t, keys: place(t.keys.byteLength), vals: place(t.vals.byteLength), term: place(t.terminal.byteLength) }));
    const spAt = place(sp.byteLength);
    const seenAt = place(16 << seenBits);
    const arenaAt = place(arenaBytes);
    this.textAt = at;
    const heap = this.heap;
    heap.ensure(at + (1 << 20));
    for (const { t, keys, vals, term } of tries) {
      heap.ints.set(t.keys, keys >> 2);
      heap.ints.set(t.vals, vals >> 2);
      heap.bytes.set(t.terminal, term);
    }
    heap.bytes.set(sp, spAt);
    const [s, c] = tries;
    this.x.init(s.keys, s.vals, s.term, s.t.keys.length - 1, c.keys, c.vals, c.term, c.t.keys.length - 1, maxWordChars, spAt, specials.length, seenAt, seenBits, arenaAt, arenaBytes);
  }

  /** Tokens of text[from, to) (to ≤ text.length), each segment given to `sink` when there is one. */
  walk(text: string, from: number, to: number, sink: SegmentSink | null): number {
    const len = to - from;
    const segsAt = this.textAt + ((2 * len + 7) & ~7);
    const heap = this.heap;
    heap.ensure(segsAt + (sink ? 12 * ((len >> 1) + 1) : 0));
    heap.bytes.write(from === 0 && to === text.length ? text : text.substring(from, to), this.textAt, 'utf16le');
    this.text = text;
    this.from = from;
    const total = this.x.walk(this.textAt, len, sink ? segsAt : 0);
    this.text = '';
    if (sink) {
      const ints = heap.ints;
      const n = this.x.segments();
      for (let k = 0, p = segsAt >> 2; k < n; k++, p += 3) sink.segment(from + ints[p], from + ints[p + 1], ints[p + 2]);
    }
    return total;
  }
}

/** Character classes of ASCII for `countIn`. */
const C_OTHER = 0;
const C_WS = 1;
const C_ALNUM = 2;
const C_PUNCT = 3;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 33; c <= 126; c++) ASCII_CLASS[c] = C_PUNCT;
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = C_ALNUM;
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = C_ALNUM;
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = C_ALNUM;
for (const c of [32, 10, 9, 13]) ASCII_CLASS[c] = C_WS;

/** Index of a [0-9a-z] character among the 36, or -1. */
function alnumIndex(c: number): number {
  if (c >= 97 && c <= 122) return c - 87;
  if (c >= 48 && c <= 57) return c - 48;
  return -1;
}

/** Does `s` (from `from` on) hold only [0-9a-z], at least one? */
function isLowerAlnum(s: string, from = 0): boolean {
  if (s.length <= from) return false;
  for (let i = from; i < s.length; i++) if (alnumIndex(s.charCodeAt(i)) < 0) return false;
  return true;
}

/**
 * A trie of [0-9a-z] strings. The edges (parent node, character) → child live in one
 * open-addressing hash table of two Int32Arrays: about 60,000 nodes for the model's
 * vocabulary in 1 MB, built in a few milliseconds, where 36 child slots per node would take 9 MB.
 * Node 0 is the root, never a child; key 0 marks an empty slot.
 */
class AlnumTrie {
  private keys: Int32Array = new Int32Array(1 << 16);
  private vals: Int32Array = new Int32Array(1 << 16);
  private mask = (1 << 16) - 1;
  private edges = 0;
  private terminal: Uint8Array = new Uint8Array(1 << 15);
  private nodes = 1;

  /** The trie's arrays and counts (shared, not copied). */
  data(): TrieData {
    return { keys: this.keys, vals: this.vals, terminal: this.terminal, edges: this.edges, nodes: this.nodes };
  }

  /** A trie over `d`'s arrays (not copied). */
  static from(d: TrieData): AlnumTrie {
    const size = d.keys.length;
    if (size < 2 || (size & (size - 1)) !== 0 || d.vals.length !== size || d.edges * 2 > size || d.nodes > d.terminal.length || d.nodes < 1) {
      throw new Error('bad token counter tables: trie arrays of the wrong size');
    }
    return new AlnumTrie(d);
  }

  private constructor(d?: TrieData) {
    if (!d) return;
    this.keys = d.keys;
    this.vals = d.vals;
    this.mask = d.keys.length - 1;
    this.edges = d.edges;
    this.terminal = d.terminal;
    this.nodes = d.nodes;
  }

  /** An empty trie, to `add` to. */
  static empty(): AlnumTrie {
    return new AlnumTrie();
  }

  /** Adds `s.slice(from)` (only [0-9a-z]). */
  add(s: string, from: number): void {
    let node = 0;
    for (let i = from; i < s.length; i++) {
      const key = node * 36 + alnumIndex(s.charCodeAt(i)) + 1;
      let next = this.child(key);
      if (next === 0) {
        next = this.nodes++;
        if (next >= this.terminal.length) {
          const t = new Uint8Array(this.terminal.length * 2);
          t.set(this.terminal);
          this.terminal = t;
        }
        this.insert(key, next);
      }
      node = next;
    }
    this.terminal[node] = 1;
  }

  /** The end of the longest string of the trie that `w` (only [0-9a-z]) has at `from`, or -1. */
  longest(w: string, from: number): number {
    let node = 0;
    let best = -1;
    for (let j = from; j < w.length; j++) {
      node = this.child(node * 36 + alnumIndex(w.charCodeAt(j)) + 1);
      if (node === 0) break;
      if (this.terminal[node]) best = j + 1;
    }
    return best;
  }

  private child(key: number): number {
    const keys = this.keys;
    const mask = this.mask;
    for (let at = Math.imul(key, 0x9e3779b1) >>> 15 & mask; ; at = (at + 1) & mask) {
      const k = keys[at];
      if (k === key) return this.vals[at];
      if (k === 0) return 0;
    }
  }

  private insert(key: number, val: number): void {
    if (++this.edges * 2 > this.keys.length) this.rehash();
    const keys = this.keys;
    const mask = this.mask;
    let at = Math.imul(key, 0x9e3779b1) >>> 15 & mask;
    while (keys[at] !== 0) at = (at + 1) & mask;
    keys[at] = key;
    this.vals[at] = val;
  }

  private rehash(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    this.keys = new Int32Array(oldKeys.length * 2);
    this.vals = new Int32Array(oldKeys.length * 2);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const key = oldKeys[i];
      if (key === 0) continue;
      let at = Math.imul(key, 0x9e3779b1) >>> 15 & this.mask;
      while (this.keys[at] !== 0) at = (at + 1) & this.mask;
      this.keys[at] = key;
      this.vals[at] = oldVals[i];
    }
  }
}

/**
 * A trie of any strings by UTF-16 code unit: the edges (node, unit) → child in an
 * open-addressing hash table of typed arrays (a `Map` keyed by node × 65,536 + unit took ~40 ms
 * to fill with the vocabulary, in code not optimized yet, on each chunk thread that met a word
 * of other characters). The longest match ends where a vocabulary token ends; the tokens are
 * well-formed, so a match never ends inside a surrogate pair that the word has whole.
 */
class UnitTrie {
  private nodeOf: Int32Array = new Int32Array(1 << 12).fill(-1);
  private unitOf: Uint16Array = new Uint16Array(1 << 12);
  private childOf: Int32Array = new Int32Array(1 << 12);
  private mask = (1 << 12) - 1;
  private edges = 0;
  private terminal: Uint8Array = new Uint8Array(1 << 12);
  private nodes = 1;

  /** The trie's arrays and counts (shared, not copied). */
  data(): UnitTrieData {
    return { nodeOf: this.nodeOf, unitOf: this.unitOf, childOf: this.childOf, terminal: this.terminal, edges: this.edges, nodes: this.nodes };
  }

  /** A trie over `d`'s arrays (not copied). */
  static from(d: UnitTrieData): UnitTrie {
    const size = d.nodeOf.length;
    if (size < 2 || (size & (size - 1)) !== 0 || d.unitOf.length !== size || d.childOf.length !== size || d.edges * 2 > size || d.nodes > d.terminal.length || d.nodes < 1) {
      throw new Error('bad token counter tables: unit trie arrays of the wrong size');
    }
    const t = new UnitTrie();
    t.nodeOf = d.nodeOf;
    t.unitOf = d.unitOf;
    t.childOf = d.childOf;
    t.mask = size - 1;
    t.edges = d.edges;
    t.terminal = d.terminal;
    t.nodes = d.nodes;
    return t;
  }

  /** Adds `s.slice(from)`. */
  add(s: string, from: number): void {
    let node = 0;
    for (let i = from; i < s.length; i++) {
      const u = s.charCodeAt(i);
      let next = this.child(node, u);
      if (next === 0) {
        next = this.nodes++;
        if (next >= this.terminal.length) {
          const t = new Uint8Array(this.terminal.length * 2);
          t.set(this.terminal);
          this.terminal = t;
        }
        this.insert(node, u, next);
      }
      node = next;
    }
    if (node !== 0) this.terminal[node] = 1;
  }

  /** The end of the longest string of the trie that `w` has at `from`, or -1. */
  longest(w: string, from: number): number {
    let node = 0;
    let best = -1;
    for (let j = from; j < w.length; j++) {
      node = this.child(node, w.charCodeAt(j));
      if (node === 0) break;
      if (this.terminal[node]) best = j + 1;
    }
    return best;
  }

  /** Does the trie hold `w` whole? */
  has(w: string): boolean {
    let node = 0;
    for (let j = 0; j < w.length; j++) {
      node = this.child(node, w.charCodeAt(j));
      if (node === 0) return false;
    }
    return node !== 0 && this.terminal[node] === 1;
  }

  private slot(node: number, u: number): number {
    return (Math.imul(node * 65599 + u, 0x9e3779b1) >>> 12) & this.mask;
  }

  /** The child of `node` by unit `u`, or 0. */
  private child(node: number, u: number): number {
    const mask = this.mask;
    for (let at = this.slot(node, u); ; at = (at + 1) & mask) {
      const n = this.nodeOf[at];
      if (n === node && this.unitOf[at] === u) return this.childOf[at];
      if (n === -1) return 0;
    }
  }

  private insert(node: number, u: number, child: number): void {
    if (++this.edges * 2 > this.nodeOf.length) this.rehash();
    let at = this.slot(node, u);
    while (this.nodeOf[at] !== -1) at = (at + 1) & this.mask;
    this.nodeOf[at] = node;
    this.unitOf[at] = u;
    this.childOf[at] = child;
  }

  private rehash(): void {
    const [nodes, units, children] = [this.nodeOf, this.unitOf, this.childOf];
    const size = nodes.length * 2;
    this.nodeOf = new Int32Array(size).fill(-1);
    this.unitOf = new Uint16Array(size);
    this.childOf = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i] === -1) continue;
      let at = this.slot(nodes[i], units[i]);
      while (this.nodeOf[at] !== -1) at = (at + 1) & this.mask;
      this.nodeOf[at] = nodes[i];
      this.unitOf[at] = units[i];
      this.childOf[at] = children[i];
    }
  }
}

/** Code points of `s` (a surrogate pair is one). */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function isSurrogatePair(s: string): boolean {
  const c = s.charCodeAt(0);
  const d = s.charCodeAt(1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
}

function isWellFormedString(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff || i + 1 >= s.length) return false;
    const d = s.charCodeAt(i + 1);
    if (d < 0xdc00 || d > 0xdfff) return false;
    i++;
  }
  return true;
}

function isAsciiString(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let defaultCounter: WordPieceCounter | undefined;

/**
 * The shipped tokenizer is not where the install put it: a broken install, not a problem of any
 * one file. The chunkers let it through (every file would otherwise be skipped, and a saved
 * index would keep them skipped until they change); the index run fails with this message.
 */
export class TokenizerMissingError extends Error {
  override readonly name = 'TokenizerMissingError';
}

/** Folder of the shipped tokenizer files, found beside the sources or the bundle. */
export function resourcesDir(): string {
  const candidates = [
    path.join(__dirname, '..', 'resources'),
    path.join(__dirname, '..', '..', 'resources'),
  ];
  for (const c of candidates) if (fs.existsSync(path.join(c, 'all-MiniLM-L6-v2', 'tokenizer.json'))) return c;
  throw new TokenizerMissingError(`Fathom's tokenizer files are missing (a broken install: reinstall Fathom): looked in ${candidates.join(', ')}`);
}

/**
 * The counter for all-MiniLM-L6-v2, made once: from the tables the build wrote beside the bundle
 * (`DEFAULT_TABLES_FILE`) when they were made from this very tokenizer.json, else from the
 * tokenizer.json (running from source, or tables that do not match).
 */
export function defaultTokenCounter(): WordPieceCounter {
  if (!defaultCounter) {
    const file = path.join(resourcesDir(), 'all-MiniLM-L6-v2', 'tokenizer.json');
    const bytes = fs.readFileSync(file);
    try {
      const tables = readCounterTables(path.join(__dirname, DEFAULT_TABLES_FILE), bytes);
      if (tables) defaultCounter = new WordPieceCounter(tables, 'all-MiniLM-L6-v2');
    } catch (err) {
      // damaged tables only cost the time they were to save: counted from the JSON, said once
      process.emitWarning(`Fathom: ${err instanceof Error ? err.message : String(err)}`);
    }
    defaultCounter ??= new WordPieceCounter(JSON.parse(bytes.toString('utf8')) as TokenizerJson, 'all-MiniLM-L6-v2');
  }
  return defaultCounter;
}

/** The shipped tokenizer's tables, written by the build (esbuild.mjs) beside the bundle. */
export const DEFAULT_TABLES_FILE = 'all-MiniLM-L6-v2.wordpiece';

const TABLES_MAGIC = 0x54505746; // "FWPT"

/** What the tables file's header holds; the arrays follow it in this order. */
interface TablesHeader {
  version: number;
  /** The tokenizer.json the tables were made from: its SHA-1 and length. */
  sha1: string;
  bytes: number;
  prefix: string;
  maxWordChars: number;
  specials: string[];
  vocabBytes: number;
  tries: Array<{ size: number; terminal: number; edges: number; nodes: number }>;
  unitTries: Array<{ size: number; terminal: number; edges: number; nodes: number }>;
}

function sha1(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** The counter's tables as a file's bytes (little-endian), tagged with the tokenizer.json they come from. */
export function encodeCounterTables(t: CounterTables, tokenizerJson: Uint8Array): Buffer {
  const tries = [t.start, t.continuation];
  const unitTries = [t.unitStart, t.unitContinuation];
  const vocab = Buffer.from(t.vocab, 'utf8');
  const header: TablesHeader = {
    version: t.version,
    sha1: sha1(tokenizerJson),
    bytes: tokenizerJson.byteLength,
    prefix: t.prefix,
    maxWordChars: t.maxWordChars,
    specials: t.specials,
    vocabBytes: vocab.byteLength,
    tries: tries.map((d) => ({ size: d.keys.length, terminal: d.terminal.length, edges: d.edges, nodes: d.nodes })),
    unitTries: unitTries.map((d) => ({ size: d.nodeOf.length, terminal: d.terminal.length, edges: d.edges, nodes: d.nodes })),
  };
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(8 + h.byteLength + ((4 - (h.byteLength % 4)) % 4), 0x20);
  head.writeUInt32LE(TABLES_MAGIC, 0);
  head.writeUInt32LE(head.byteLength - 8, 4);
  h.copy(head, 8);
  const le = (a: Int32Array) => {
    const b = Buffer.alloc(a.length * 4);
    for (let i = 0; i < a.length; i++) b.writeInt32LE(a[i], i * 4);
    return b;
  };
  const le16 = (a: Uint16Array) => {
    const b = Buffer.alloc(a.length * 2);
    for (let i = 0; i < a.length; i++) b.writeUInt16LE(a[i], i * 2);
    return b;
  };
  return Buffer.concat([
    head,
    ...tries.flatMap((d) => [le(d.keys), le(d.vals)]),
    ...tries.map((d) => Buffer.from(d.terminal)),
    ...unitTries.flatMap((d) => [le(d.nodeOf), le(d.childOf), le16(d.unitOf), Buffer.from(d.terminal)]),
    vocab,
  ]);
}

/**
 * The tables in `file` when they were made from `tokenizerJson` (same SHA-1) by this version;
 * undefined when there is no such file or it does not match (the caller builds from the JSON).
 * A file that matches but is damaged throws.
 */
export function readCounterTables(file: string, tokenizerJson: Uint8Array): CounterTables | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (buf.byteLength < 8 || buf.readUInt32LE(0) !== TABLES_MAGIC) return undefined;
  const hlen = buf.readUInt32LE(4);
  let header: TablesHeader;
  try {
    header = JSON.parse(buf.toString('utf8', 8, 8 + hlen)) as TablesHeader;
  } catch {
    return undefined;
  }
  // tables of another version or tokenizer, or a big-endian machine (the arrays are little-endian)
  if (header.version !== TABLES_VERSION || header.bytes !== tokenizerJson.byteLength || header.sha1 !== sha1(tokenizerJson) || new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return undefined;
  let at = 8 + hlen;
  const take = (n: number): ArrayBuffer => {
    if (at + n > buf.byteLength) throw new Error(`${file} is truncated: remove it (the token counter is then built from tokenizer.json)`);
    // a copy: the file's bytes may sit at any offset of their buffer, a typed array needs its alignment
    const ab = buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + n) as ArrayBuffer;
    at += n;
    return ab;
  };
  const arrays = header.tries.map((d) => ({ keys: new Int32Array(take(d.size * 4)), vals: new Int32Array(take(d.size * 4)) }));
  const tries: TrieData[] = header.tries.map((d, i) => ({ ...arrays[i], terminal: new Uint8Array(take(d.terminal)), edges: d.edges, nodes: d.nodes }));
  const unitTries: UnitTrieData[] = (Array.isArray(header.unitTries) ? header.unitTries : []).map((d) => ({
    nodeOf: new Int32Array(take(d.size * 4)),
    childOf: new Int32Array(take(d.size * 4)),
    unitOf: new Uint16Array(take(d.size * 2)),
    terminal: new Uint8Array(take(d.terminal)),
    edges: d.edges,
    nodes: d.nodes,
  }));
  const vocab = Buffer.from(take(header.vocabBytes)).toString('utf8');
  if (tries.length !== 2 || unitTries.length !== 2 || at !== buf.byteLength) throw new Error(`${file} is damaged: remove it (the token counter is then built from tokenizer.json)`);
  return { version: TABLES_VERSION, prefix: header.prefix, maxWordChars: header.maxWordChars, specials: header.specials, vocab, start: tries[0], continuation: tries[1], unitStart: unitTries[0], unitContinuation: unitTries[1] };
}

/** The build: writes the shipped tokenizer's tables to `dir`/`DEFAULT_TABLES_FILE`. */
export function writeDefaultCounterTables(dir: string): string {
  const bytes = fs.readFileSync(path.join(resourcesDir(), 'all-MiniLM-L6-v2', 'tokenizer.json'));
  const counter = new WordPieceCounter(JSON.parse(bytes.toString('utf8')) as TokenizerJson, 'all-MiniLM-L6-v2');
  const out = path.join(dir, DEFAULT_TABLES_FILE);
  fs.writeFileSync(out, encodeCounterTables(counter.tables(), bytes));
  return out;
}

/** A counter from any WordPiece tokenizer.json (e.g. a user's local model folder). */
export function loadTokenCounter(tokenizerJsonPath: string): WordPieceCounter {
  return new WordPieceCounter(JSON.parse(fs.readFileSync(tokenizerJsonPath, 'utf8')) as TokenizerJson, tokenizerJsonPath);
}
