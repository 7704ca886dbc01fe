/**
 * What a document becomes in the keyword index: its fields (`KeywordFields`), cut into terms
 * (terms.ts) and counted per field as a record (`keywordRecord`, see keyword.ts for the
 * record's layout), the table of the compounds met with their term ids (`CompoundTerms`, what
 * `KeywordIndex.add` looks each compound up in) and the small-id tables of paths, languages and
 * kinds (`Interner`).
 */
import { termsWithWeakness } from './terms';

export type WeakHalf = 'none' | 'stems' | 'all';

export interface KeywordFields {
  path: string;
  header?: string;
  symbol?: string;
  text?: string;
  language?: string;
  kind?: string;
}

/** The tokenizer settings a record is made with (a `KeywordIndex` has them). */
export interface RecordConfig {
  stem: boolean | 'add';
  singleDigits: boolean;
  weakHalf: WeakHalf;
}

/** The fields of a record, in this order: symbol, path, header, text. */
export const NFIELDS = 4;

/** The weakness (see `termsWithWeakness`) from which a term counts half an occurrence. */
export function halfFrom(weakHalf: WeakHalf): number {
  return weakHalf === 'all' ? 1 : weakHalf === 'stems' ? 2 : 3;
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
  const weakFrom = halfFrom(config.weakHalf);
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

/**
 * The term ids of the compounds met (see `CompoundScanner`), by compound: an open-addressing
 * table (linear probing, at most half full) of the compound's hash and 1 + its entry; entry e
 * has `count[e]` terms at `ids`/`halves` from `from[e]` (halves: 2 a term, 1 a weak one).
 * Past `limit` compounds (or 4 × limit term slots, or 32 × limit characters) it starts over, so
 * memory stays bounded on any input: under 30 MB with the default limit (its arrays at twice
 * what they hold at worst).
 */
export class CompoundTerms {
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

export function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

/** Strings ↔ small ids (never freed: bounded by the distinct paths/languages/kinds seen). */
export class Interner {
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
