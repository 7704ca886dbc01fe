/**
 * The keyword index's vocabulary as it is stored (store version 6): a term table read in place,
 * so that a load makes no string and no map entry per term (a 1M-chunk index has ~1.5M terms:
 * a `Map` of them and their strings were a third of the load).
 *
 * Layout (`Lexicon.build`), all little-endian 32-bit words, then bytes:
 *   [V, S, byteLength, 0]  offsets: uint32[V + 1]  slots: int32[S]  UTF-8 bytes (padded to 4)
 * Term id t is `bytes[offsets[t] ‥ offsets[t + 1])`. `slots` is an open-addressing hash table
 * (S a power of two ≥ 2V, linear probing, −1 empty) of term ids by FNV-1a of the term's UTF-16
 * code units: a lookup hashes the JavaScript string as it is, decodes only the terms it probes.
 *
 * `Vocabulary` is what the index holds: term → id and id → term over a lexicon (the imported
 * terms) plus a map of the terms met since (new ones, and imported ones looked up again, which
 * move into the map so that a second lookup is a map hit). An imported term whose last
 * document goes is marked gone; its id may then be given to another term.
 */

const HEAD = 4;

/** FNV-1a over UTF-16 code units. */
function hashOf(t: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Lexicon {
  private constructor(
    readonly size: number,
    private readonly offsets: Uint32Array,
    private readonly slots: Int32Array,
    private readonly bytes: Buffer,
  ) {}

  /** The table of `terms` (distinct, non-empty), term id = index. */
  static build(terms: readonly string[]): Uint8Array {
    const V = terms.length;
    for (let t = 0; t < V; t++) if (typeof terms[t] !== 'string' || terms[t].length === 0) throw new Error('term table: an empty term or one that is not a string');
    let S = 2;
    while (S < 2 * V) S *= 2;
    const joined = Buffer.from(terms.join(''), 'utf8');
    const padded = (joined.byteLength + 3) & ~3;
    const out = new Uint8Array(4 * (HEAD + V + 1 + S) + padded);
    const w = new Uint32Array(out.buffer, 0, HEAD + V + 1);
    w[0] = V;
    w[1] = S;
    w[2] = joined.byteLength;
    const offsets = w.subarray(HEAD);
    let o = 0;
    for (let t = 0; t < V; t++) {
      offsets[t] = o;
      const s = terms[t];
      // ASCII (almost every term) is one byte a code unit; anything else is measured
      let ascii = true;
      for (let i = 0; i < s.length; i++) {
        if (s.charCodeAt(i) > 0x7f) {
          ascii = false;
          break;
        }
      }
      o += ascii ? s.length : Buffer.byteLength(s, 'utf8');
    }
    offsets[V] = o;
    const slots = new Int32Array(out.buffer, 4 * (HEAD + V + 1), S).fill(-1);
    const mask = S - 1;
    for (let t = 0; t < V; t++) {
      const s = terms[t];
      let at = hashOf(s) & mask;
      while (slots[at] !== -1) {
        if (terms[slots[at]] === s) throw new Error('term table: a term twice');
        at = (at + 1) & mask;
      }
      slots[at] = t;
    }
    out.set(joined, 4 * (HEAD + V + 1 + S));
    return out;
  }

  /**
   * Reads a table in place (`data` must be 4-byte aligned). Throws on a table whose parts do
   * not fit together: sizes, offsets that go back or past the end, an empty term, a slot
   * naming no term or a term in no slot or in two.
   */
  static read(data: Uint8Array): Lexicon {
    const bad = (why: string): never => {
      throw new Error(`term table: ${why}`);
    };
    if (data.byteOffset % 4 !== 0) bad('not aligned');
    if (data.byteLength < 4 * HEAD) bad('too short');
    const head = new Uint32Array(data.buffer, data.byteOffset, HEAD);
    const [V, S, B] = head;
    if (S < 2 || (S & (S - 1)) !== 0 || S < 2 * V) bad('bad slot count');
    const words = HEAD + V + 1 + S;
    if (data.byteLength !== 4 * words + ((B + 3) & ~3)) bad('sizes do not add up');
    const offsets = new Uint32Array(data.buffer, data.byteOffset + 4 * HEAD, V + 1);
    const slots = new Int32Array(data.buffer, data.byteOffset + 4 * (HEAD + V + 1), S);
    if (offsets[0] !== 0 || offsets[V] !== B) bad('offsets do not span the bytes');
    for (let t = 0; t < V; t++) if (offsets[t + 1] <= offsets[t]) bad('an empty term or offsets out of order');
    const seen = new Uint8Array(V);
    let n = 0;
    for (let s = 0; s < S; s++) {
      const t = slots[s];
      if (t === -1) continue;
      if (t < 0 || t >= V || seen[t]) bad('a slot names no term, or a term twice');
      seen[t] = 1;
      n++;
    }
    if (n !== V) bad('a term is in no slot');
    const bytes = Buffer.from(data.buffer, data.byteOffset + 4 * words, B);
    return new Lexicon(V, offsets, slots, bytes);
  }

  /** The id of term `t`, or −1. */
  find(t: string): number {
    const mask = this.slots.length - 1;
    let at = hashOf(t) & mask;
    for (;;) {
      const id = this.slots[at];
      if (id === -1) return -1;
      const from = this.offsets[id];
      const to = this.offsets[id + 1];
      // a UTF-8 term is at least as many bytes as code units
      if (to - from >= t.length && this.bytes.toString('utf8', from, to) === t) return id;
      at = (at + 1) & mask;
    }
  }

  /** Term `id` (0 ≤ id < size). */
  term(id: number): string {
    return this.bytes.toString('utf8', this.offsets[id], this.offsets[id + 1]);
  }
}

/** term ↔ id over an imported lexicon and a map of the terms met since (see the header). */
export class Vocabulary {
  /**
   * Term by id: '' for a free id and, until it is looked up or asked for (`term`), for an
   * imported term. Owned here; the index appends new terms to it.
   */
  strs: string[] = [];
  private map = new Map<string, number>();
  private lex: Lexicon | undefined;
  /** Per imported id: 1 when no longer the lexicon's (gone, or moved into the map). */
  private moved: Uint8Array = new Uint8Array(0);
  private lexLive = 0;

  get size(): number {
    return this.map.size + this.lexLive;
  }

  /** Starts over from `lex`'s terms (ids 0‥V−1). */
  adopt(lex: Lexicon): void {
    this.map = new Map();
    this.lex = lex;
    this.moved = new Uint8Array(lex.size);
    this.lexLive = lex.size;
    this.strs = new Array<string>(lex.size).fill('');
  }

  clear(): void {
    this.map = new Map();
    this.lex = undefined;
    this.moved = new Uint8Array(0);
    this.lexLive = 0;
    this.strs = [];
  }

  get(t: string): number | undefined {
    const id = this.map.get(t);
    if (id !== undefined || this.lex === undefined || this.lexLive === 0) return id;
    const x = this.lex.find(t);
    if (x < 0 || this.moved[x]) return undefined;
    // moved into the map: the next lookup of it is a map hit
    this.moved[x] = 1;
    this.lexLive--;
    this.map.set(t, x);
    this.strs[x] = t;
    return x;
  }

  /** A new term under a new or free id (the caller keeps `strs`). */
  set(t: string, id: number): void {
    this.map.set(t, id);
  }

  /** Term `id` is no longer used: forgotten, its id free. */
  drop(id: number): void {
    if (this.lex !== undefined && id < this.moved.length && this.moved[id] === 0) {
      this.moved[id] = 1;
      this.lexLive--;
    } else this.map.delete(this.strs[id]);
    this.strs[id] = '';
  }

  /** Term `id` (live), decoded from the lexicon when it was not met since the import; not kept. */
  term(id: number): string {
    const s = this.strs[id];
    return s !== '' || this.lex === undefined || id >= this.moved.length || this.moved[id] ? s : this.lex.term(id);
  }
}
