/**
 * Token counting with all-MiniLM-L6-v2's WordPiece tokenizer, exactly as transformers.js
 * (`@huggingface/tokenizers`) tokenizes, but fast: the counter never builds token arrays,
 * takes an ASCII fast path, and caches the WordPiece count of every word it has seen.
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
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface TokenCounter {
  /** Tokens of `text` without [CLS]/[SEP]. */
  count(text: string): number;
  /** Tokens the model sees for `text`: count + [CLS] + [SEP]. */
  countWithSpecials(text: string): number;
  /** `count(text.slice(from, to))` without making the slice (optional: the chunkers fall back to slicing). */
  countIn?(text: string, from: number, to: number): number;
  readonly name: string;
}

/** An ASCII word seen before, found by a hash of its characters without slicing it out of the text. */
interface WordEntry {
  w: string;
  n: number;
  next: WordEntry | undefined;
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
  private readonly vocab: Set<string>;
  private readonly maxTokenChars: number;
  private readonly prefix: string;
  private readonly maxWordChars: number;
  private readonly specials: RegExp | null;
  private readonly specialList: string[];
  private cache = new Map<string, number>();
  private static readonly CACHE_LIMIT = 500_000;
  /** rawWord's counts by a hash of the word's characters (chained): no slice, no string hashing per word. */
  private byHash = new Map<number, WordEntry>();
  private byHashSize = 0;

  constructor(json: TokenizerJson, name = 'wordpiece') {
    if (json.model.type !== 'WordPiece') {
      throw new Error(`Tokenizer model ${json.model.type} is not WordPiece; Fathom counts tokens only for WordPiece models`);
    }
    if (json.normalizer && (json.normalizer.type !== 'BertNormalizer' || json.normalizer.lowercase === false)) {
      throw new Error('Fathom counts tokens only for lowercasing BertNormalizer tokenizers (all-MiniLM-L6-v2 family)');
    }
    this.name = name;
    this.vocab = new Set(Object.keys(json.model.vocab));
    let max = 0;
    for (const t of this.vocab) max = Math.max(max, t.length);
    this.maxTokenChars = max;
    this.prefix = json.model.continuing_subword_prefix ?? '##';
    this.maxWordChars = json.model.max_input_chars_per_word ?? 100;
    const raw = json.added_tokens.filter((t) => !t.normalized).map((t) => t.content);
    raw.sort((a, b) => b.length - a.length);
    this.specialList = raw;
    this.specials = raw.length ? new RegExp(raw.map(escapeRegExp).join('|'), 'g') : null;
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

  /** `count(text.slice(from, to))`, without the slice. */
  countIn(text: string, from: number, to: number): number {
    let total = 0;
    const n = Math.min(to, text.length);
    let i = Math.max(0, from);
    while (i < n) {
      let c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 9 || c === 13) {
        i++;
        continue;
      }
      let j = i;
      let slow = false;
      while (j < n) {
        c = text.charCodeAt(j);
        if (c === 32 || c === 10 || c === 9 || c === 13) break;
        if (c > 126 || c < 32) slow = true;
        j++;
      }
      total += slow ? this.countSlow(text.slice(i, j)) : this.countAsciiSegment(text, i, j);
      i = j;
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

  /** Printable ASCII without whitespace: punctuation is one token each, alphanumeric runs are words. */
  private countAsciiSegment(text: string, from: number, to: number): number {
    let total = 0;
    let wordStart = -1;
    let h = 0;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
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
      if (c === 91 && this.specials) {
        const len = this.specialAt(text, i, to);
        if (len) {
          total += 1;
          i += len - 1;
          continue;
        }
      }
      total += 1; // every printable non-alphanumeric ASCII char is BERT punctuation
    }
    if (wordStart >= 0) total += this.hashedWord(text, wordStart, to, h);
    return total;
  }

  /** rawWord of `text.slice(from, to)` (an ASCII alphanumeric word whose character hash is `h`), slicing only on a miss. */
  private hashedWord(text: string, from: number, to: number, h: number): number {
    const key = h & 0x3fffffff; // a small integer: a fast Map key
    const len = to - from;
    const head = this.byHash.get(key);
    for (let e = head; e; e = e.next) if (e.w.length === len && text.startsWith(e.w, from)) return e.n;
    const w = text.slice(from, to);
    const n = this.rawWord(w);
    if (this.byHashSize >= WordPieceCounter.CACHE_LIMIT) {
      this.byHash.clear();
      this.byHashSize = 0;
      this.byHash.set(key, { w, n, next: undefined });
    } else this.byHash.set(key, { w, n, next: head });
    this.byHashSize++;
    return n;
  }

  /** Length of the special token ([CLS], [SEP] …) starting at i, or 0. */
  private specialAt(text: string, i: number, to: number): number {
    for (const sp of this.specialList) {
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
    const chars = isAsciiString(w) ? null : Array.from(w);
    const len = chars ? chars.length : w.length;
    if (len > this.maxWordChars) return 1; // [UNK]
    let i = 0;
    let pieces = 0;
    while (i < len) {
      let end = Math.min(len, i + this.maxTokenChars);
      let found = false;
      while (i < end) {
        let sub = chars ? chars.slice(i, end).join('') : w.slice(i, end);
        if (i > 0) sub = this.prefix + sub;
        if (this.vocab.has(sub)) {
          found = true;
          break;
        }
        end--;
      }
      if (!found) return 1; // the whole word becomes one [UNK]
      pieces++;
      i = end;
    }
    return pieces;
  }
}

function isAsciiString(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let defaultCounter: WordPieceCounter | undefined;

/** Folder of the shipped tokenizer files, found beside the sources or the bundle. */
export function resourcesDir(): string {
  const candidates = [
    path.join(__dirname, '..', 'resources'),
    path.join(__dirname, '..', '..', 'resources'),
  ];
  for (const c of candidates) if (fs.existsSync(path.join(c, 'all-MiniLM-L6-v2', 'tokenizer.json'))) return c;
  throw new Error(`Fathom's tokenizer files are missing: looked in ${candidates.join(', ')}`);
}

/** The counter for all-MiniLM-L6-v2, loaded once from the shipped tokenizer.json. */
export function defaultTokenCounter(): WordPieceCounter {
  if (!defaultCounter) {
    const file = path.join(resourcesDir(), 'all-MiniLM-L6-v2', 'tokenizer.json');
    defaultCounter = new WordPieceCounter(JSON.parse(fs.readFileSync(file, 'utf8')) as TokenizerJson, 'all-MiniLM-L6-v2');
  }
  return defaultCounter;
}

/** A counter from any WordPiece tokenizer.json (e.g. a user's local model folder). */
export function loadTokenCounter(tokenizerJsonPath: string): WordPieceCounter {
  return new WordPieceCounter(JSON.parse(fs.readFileSync(tokenizerJsonPath, 'utf8')) as TokenizerJson, tokenizerJsonPath);
}
