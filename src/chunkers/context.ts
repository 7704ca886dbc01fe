/**
 * What every chunker works with: the file's text and line table, the token counter, the
 * budget, and the two operations they all share — pack ranges into chunks within the budget
 * (cutting at the boundaries a chunker gives, then lines, then words) and make a chunk.
 */
import { sha1Hex } from '../util/hash';
import type { SegmentSink, TokenCounter } from '../tokenizer/wordpiece';
import { isWs, SourceText, trimRange, type Range } from '../parse/source-text';
import type { Chunk, ChunkKind, SplitInfo } from './types';

export interface ChunkSpec {
  kind: ChunkKind;
  start: number;
  end: number;
  header: string;
  symbol?: string;
  parent?: string;
  signature?: string;
  complete: boolean;
  split?: SplitInfo;
  meta?: Record<string, unknown>;
  links?: Chunk['links'];
  /** Overrides the context's language (Vue blocks report `vue`, but a `<style lang="scss">` …). */
  language?: string;
}

export class ChunkContext {
  readonly src: SourceText;
  /** Every top-level declaration is a unit, one-line constants too (`ChunkOptions.declarations`). */
  declarations = false;
  private segmentTable: SegmentTable | null = null;
  private readonly ids = new Set<string>();
  /** Per id taken, the least suffix that may be free: a file of 20,000 identical sections probed 2, 3, … for each (quadratic). */
  private readonly nextSuffix = new Map<string, number>();
  private readonly headerCosts = new Map<string, number>();
  /** Tokens of `path`, once counted (countHeader). */
  private pathTokens = -1;

  constructor(
    readonly path: string,
    readonly language: string,
    text: string | SourceText,
    readonly counter: TokenCounter,
    readonly maxTokens: number,
  ) {
    this.src = typeof text === 'string' ? new SourceText(text) : text;
  }

  get text(): string {
    return this.src.text;
  }

  /** Tokens of the header line alone, specials included: what a chunk costs before its text. */
  headerCost(header: string): number {
    let n = this.headerCosts.get(header);
    if (n === undefined) {
      n = this.countHeader(header) + 2;
      this.headerCosts.set(header, n);
    }
    return n;
  }

  /**
   * `count(header)`, with the file's path in it counted once per file: most headers are
   * `// <path> :: <symbol>`, one per unit, and their paths were 40% of what the chunkers
   * tokenized in JS and Vue files. Exact, because counts add up across whitespace: the path
   * is only taken apart from the rest where spaces stand on both sides of it.
   */
  private countHeader(header: string): number {
    const p = this.path;
    const at = p ? header.indexOf(p) : -1;
    const end = at + p.length;
    const spaced = (i: number) => header.charCodeAt(i) === 32;
    if (at < 0 || (at > 0 && !spaced(at - 1)) || (end < header.length && !spaced(end))) return this.counter.count(header);
    if (this.pathTokens < 0) this.pathTokens = this.counter.count(p);
    return (at > 0 ? this.counter.count(header.slice(0, at)) : 0) + this.pathTokens + (end < header.length ? this.counter.count(header.slice(end)) : 0);
  }

  /**
   * Tokens of `text.slice(start, end)`, from the file's segment table: the tokens of the whole
   * segments inside the range are a difference of running sums, and only a segment the range
   * cuts through is counted again (a cut inside a word, rare). Exact, because counts add up
   * across whitespace. Packing cuts long lines at their words: counting the partial lines again
   * at every step made it quadratic in a line's length (a .d.ts import of 1,800 characters).
   */
  countRange(start: number, end: number): number {
    if (end <= start) return 0;
    const t = this.segments();
    const a = t.firstEndingAfter(start);
    const b = t.lastStartingBefore(end);
    if (a > b) return 0; // whitespace only
    const sa = t.starts[a];
    const eb = t.ends[b];
    if (a === b) return sa >= start && eb <= end ? t.tokensOf(a) : this.countText(Math.max(start, sa), Math.min(end, eb));
    const head = sa >= start ? t.tokensOf(a) : this.countText(start, t.ends[a]);
    const tail = eb <= end ? t.tokensOf(b) : this.countText(t.starts[b], end);
    return head + (t.cum[b] - t.cum[a + 1]) + tail;
  }

  /** Tokens of `text.slice(start, end)`, without the slice when the counter can. */
  private countText(start: number, end: number): number {
    const c = this.counter;
    return c.countIn ? c.countIn(this.src.text, start, end) : c.count(this.src.text.slice(start, end));
  }

  /** What a chunk with this header and range costs: header + "\n" + text, with [CLS]/[SEP]. */
  cost(header: string, start: number, end: number): number {
    return this.headerCost(header) + this.countRange(start, end);
  }

  fits(header: string, start: number, end: number): boolean {
    return this.cost(header, start, end) <= this.maxTokens;
  }

  private segments(): SegmentTable {
    if (!this.segmentTable) {
      const text = this.src.text;
      const t = new SegmentTable(text.length);
      const c = this.counter;
      if (c.countSegments) c.countSegments(text, 0, text.length, t);
      else t.split(text, (s, e) => this.countText(s, e));
      this.segmentTable = t;
    }
    return this.segmentTable;
  }

  /**
   * Cuts `range` into trimmed pieces that each fit the budget under `header`, preferring the
   * given boundaries (offsets where a cut is natural: statement starts, blank lines …), then
   * line starts, then whitespace, then code points. Pieces are packed greedily but balanced,
   * so a long unit does not end with a crumb. Returns [] for a blank range. `reserve` tokens
   * are kept free in each piece of a range that must be cut (room for an overlap).
   */
  pack(range: Range, header: string, boundaries: readonly number[] = [], unbreakable: readonly Range[] = [], reserve = 0): Range[] {
    const r = trimRange(this.text, range.start, range.end);
    if (r.start >= r.end) return [];
    if (this.countRange(r.start, r.end) <= Math.max(1, this.maxTokens - this.headerCost(header))) return [r];
    // `reserve`: tokens kept free in every piece (for an overlap added afterwards)
    const budget = Math.max(1, this.maxTokens - this.headerCost(header) - reserve);
    // An unbreakable range (a Markdown code fence, a schema property) is one atom: no cut falls
    // inside it, and it stays whole even over budget.
    const inside = (b: number) => unbreakable.some((u) => b > u.start && b < u.end);
    const cuts = boundaries.filter((b) => b > r.start && b < r.end && !inside(b));
    for (const u of unbreakable) if (u.start > r.start && u.start < r.end) cuts.push(u.start);
    for (const u of unbreakable) if (u.end > r.start && u.end < r.end) cuts.push(u.end);
    const keep = (a: Range) => unbreakable.some((u) => a.start >= u.start && a.end <= u.end);
    const atoms = this.fitAtoms(cuts.length ? this.cutAt(r, cuts) : [r], 0, budget, keep);
    return this.packAtoms(atoms, budget);
  }

  private cutAt(r: Range, cuts: readonly number[]): Range[] {
    const sorted = [...new Set(cuts)].sort((a, b) => a - b);
    const out: Range[] = [];
    let s = r.start;
    for (const c of [...sorted, r.end]) {
      const t = trimRange(this.text, s, c);
      if (t.start < t.end) out.push(t);
      s = c;
    }
    return out;
  }

  /**
   * Replaces every atom over budget by finer atoms: level 1 lines, level 2 words (whitespace
   * runs), level 3 code points. What comes back fits, atom by atom.
   */
  private fitAtoms(atoms: Range[], level: number, budget: number, keep: (a: Range) => boolean = () => false): Range[] {
    const out: Range[] = [];
    for (const a of atoms) {
      if (keep(a) || this.countRange(a.start, a.end) <= budget) out.push(a);
      else if (level >= 2) out.push(...this.codePointAtoms(a, budget));
      else out.push(...this.fitAtoms(level === 0 ? this.lineAtoms(a) : this.wordAtoms(a), level + 1, budget));
    }
    return out;
  }

  private lineAtoms(r: Range): Range[] {
    const src = this.src;
    const first = src.lineIndexAt(r.start);
    const last = src.lineIndexAt(r.end);
    const cuts: number[] = [];
    for (let li = first + 1; li <= last; li++) cuts.push(src.lineStarts[li]);
    return cuts.length ? this.cutAt(r, cuts) : [r];
  }

  private wordAtoms(r: Range): Range[] {
    const text = this.text;
    const out: Range[] = [];
    let i = r.start;
    while (i < r.end) {
      let j = i;
      while (j < r.end && !isWs(text.charCodeAt(j))) j++;
      if (j > i) out.push({ start: i, end: j });
      while (j < r.end && isWs(text.charCodeAt(j))) j++;
      i = j;
    }
    return out.length ? out : [r];
  }

  private codePointAtoms(r: Range, budget: number): Range[] {
    // Last resort for one enormous word: the longest prefixes that fit, on code point boundaries.
    // The end of each piece is found by galloping (windows doubling from the budget) and then
    // bisecting inside the last window, so a piece costs O(its length × log): a 200,000-character
    // word of punctuation (a deep JSON's brackets) is linear-ish, not a bisection over the rest of
    // the word for every piece (quadratic: 33 s for 0.2 MB).
    const out: Range[] = [];
    let s = r.start;
    while (s < r.end) {
      let lo = s + 1;
      let step = Math.max(16, budget);
      let hi = Math.min(r.end, s + step);
      while (hi < r.end && this.countRange(s, hi) <= budget) {
        lo = hi;
        step *= 2;
        hi = Math.min(r.end, s + step);
      }
      if (this.countRange(s, hi) <= budget) lo = hi;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.countRange(s, mid) <= budget) lo = mid;
        else hi = mid - 1;
      }
      let e = lo;
      const c = this.text.charCodeAt(e - 1);
      if (c >= 0xd800 && c <= 0xdbff && e < r.end) e++;
      out.push({ start: s, end: e });
      s = e;
    }
    return out;
  }

  /** Greedy packing of consecutive atoms, aiming at equal shares so no piece is a crumb. */
  private packAtoms(atoms: Range[], budget: number): Range[] {
    if (atoms.length === 0) return [];
    const total = this.countRange(atoms[0].start, atoms[atoms.length - 1].end);
    const target = total / Math.max(1, Math.ceil(total / budget));
    const out: Range[] = [];
    let cur: Range = { ...atoms[0] };
    for (let i = 1; i < atoms.length; i++) {
      const a = atoms[i];
      if (this.countRange(cur.start, cur.end) < target && this.countRange(cur.start, a.end) <= budget) cur.end = a.end;
      else {
        out.push(cur);
        cur = { ...a };
      }
    }
    out.push(cur);
    return out;
  }

  /** Makes a chunk with exact positions, its token count and a deterministic, file-unique id. */
  make(spec: ChunkSpec): Chunk {
    const text = this.text.slice(spec.start, spec.end);
    const tokens = this.headerCost(spec.header) + this.countRange(spec.start, spec.end);
    let id = sha1Hex(`${this.path}\0${spec.kind}\0${spec.symbol ?? ''}\0${text}`).slice(0, 16);
    if (this.ids.has(id)) {
      let n = this.nextSuffix.get(id) ?? 2;
      while (this.ids.has(`${id}-${n}`)) n++;
      this.nextSuffix.set(id, n + 1);
      id = `${id}-${n}`;
    }
    this.ids.add(id);
    const chunk: Chunk = {
      id,
      path: this.path,
      language: spec.language ?? this.language,
      kind: spec.kind,
      header: spec.header,
      text,
      start: this.src.position(spec.start),
      end: this.src.position(spec.end),
      tokens,
      complete: spec.complete,
    };
    if (spec.symbol !== undefined) chunk.symbol = spec.symbol;
    if (spec.parent !== undefined) chunk.parent = spec.parent;
    if (spec.signature !== undefined) chunk.signature = spec.signature;
    if (spec.split) chunk.split = spec.split;
    if (spec.links) chunk.links = spec.links;
    if (spec.meta) chunk.meta = spec.meta;
    return chunk;
  }

  /**
   * The common case: a unit (or leftover run) → one chunk if it fits, else split pieces that
   * all keep the unit's header and symbol and record `split`.
   */
  emitUnit(spec: Omit<ChunkSpec, 'split'>, boundaries: readonly number[] = [], unbreakable: readonly Range[] = []): Chunk[] {
    const pieces = this.pack({ start: spec.start, end: spec.end }, spec.header, boundaries, unbreakable);
    if (pieces.length === 1) return [this.make({ ...spec, start: pieces[0].start, end: pieces[0].end })];
    return pieces.map((p, index) =>
      this.make({ ...spec, start: p.start, end: p.end, complete: false, split: { index, total: pieces.length } }),
    );
  }
}

/** First line of a declaration, trimmed and shortened: what a signature shows. */
export function firstLine(text: string, max = 160): string {
  const nl = text.search(/\r|\n/);
  const line = (nl < 0 ? text : text.slice(0, nl)).trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * A text's segments (maximal runs without space, tab, CR or LF, where token counts add up) with
 * their tokens as running sums: `cum[k]` is the tokens of segments 0 … k-1.
 */
class SegmentTable implements SegmentSink {
  starts: Int32Array;
  ends: Int32Array;
  cum: Int32Array;
  n = 0;

  constructor(textLength: number) {
    const guess = Math.max(16, textLength >> 3);
    this.starts = new Int32Array(guess);
    this.ends = new Int32Array(guess);
    this.cum = new Int32Array(guess + 1);
  }

  segment(start: number, end: number, tokens: number): void {
    const k = this.n;
    if (k === this.starts.length) this.grow();
    this.starts[k] = start;
    this.ends[k] = end;
    this.cum[k + 1] = this.cum[k] + tokens;
    this.n = k + 1;
  }

  /** For counters without `countSegments`: cuts the text itself and counts each segment. */
  split(text: string, count: (start: number, end: number) => number): void {
    let i = 0;
    while (i < text.length) {
      while (i < text.length && isSep(text.charCodeAt(i))) i++;
      if (i === text.length) break;
      const s = i;
      while (i < text.length && !isSep(text.charCodeAt(i))) i++;
      this.segment(s, i, count(s, i));
    }
  }

  tokensOf(k: number): number {
    return this.cum[k + 1] - this.cum[k];
  }

  /** The first segment that ends after `pos` (n when none). */
  firstEndingAfter(pos: number): number {
    const ends = this.ends;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ends[mid] > pos) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The last segment that starts before `pos` (-1 when none). */
  lastStartingBefore(pos: number): number {
    const starts = this.starts;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const starts = new Int32Array(size);
    starts.set(this.starts);
    const ends = new Int32Array(size);
    ends.set(this.ends);
    const cum = new Int32Array(size + 1);
    cum.set(this.cum);
    this.starts = starts;
    this.ends = ends;
    this.cum = cum;
  }
}

function isSep(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}
