/**
 * JSON and JSONC files, cut by what kind of file they are (see json-classify.ts):
 *
 *   schema     one property per chunk (`properties.email`, at any depth reachable through
 *              `properties` / `items` / `allOf` …, and each `definitions` / `$defs` entry),
 *              never cut: a property over budget without nested properties stays whole
 *              (`meta.unbreakable`); one with nested properties gives its own members as one
 *              piece and each nested property as its own unit. The schema's other members
 *              (title, type, required …) are packed into `schema` chunks.
 *   i18n       one top-level section per chunk; a section over budget is cut into runs of its
 *              members (sub-sections and labels) recursively; loose top-level labels are
 *              grouped into `i18n-labels` runs (symbol `first…last`, `meta.keys` lists them).
 *   manifest   (opt-in) the cleaned subset: name, description, keywords, scripts, the
 *              dependency maps, entry points, workspaces; everything else is not indexed.
 *   others     LangChain's RecursiveJsonSplitter in tokens: a value that fits stays whole;
 *              otherwise its members (elements) are packed into runs between a minimum and the
 *              budget, and a member too big is descended into; a long string is never cut;
 *              an array over budget becomes runs of elements (`items[0..4]`).
 *
 * Every chunk is an exact slice of the source: a whole value (`meta.jsonWrap: ''`), a run of
 * complete consecutive members of one object (`'{}'`: `"k": v, "k2": v2`, key included) or of
 * elements of one array (`'[]'`), so it parses on its own once wrapped. Leading comments
 * (JSONC) travel with the member they precede.
 *
 * Symbols are key paths from the root joined with `.` (`common.buttons.save`), array indexes
 * as `[3]`, keys that contain `.`, `[`, `]`, `…` or quotes written `["a.b"]`; a run of several
 * members is `path.first…last`, a run of elements `path[2..7]`; the whole root is `(root)`.
 * Header: `// <rel_path> :: <symbol>`.
 *
 * Never crashes: nesting deeper than MAX_JSON_DEPTH is refused before the (recursive) parser
 * runs, and malformed JSON is either recovered (the tree is sound enough and every chunk still
 * parses: a warning says what was recovered) or handed to the text chunker with the reason.
 */
import * as jsonc from 'jsonc-parser';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';
import type { ChunkContext } from './context';
import { classifyJson, classifyJsonPath, JSON_CATEGORY_LABELS, type JsonCategory } from '../parse/json-classify';
import { MAX_JSON_DEPTH, parseJsonTree, scanDepth, type JItem, type JValue, type JsonTree } from '../parse/json-tree';
import type { Range } from '../parse/source-text';
import { SEARCH_TERMS_META, type Chunk, type ChunkKind, type SplitInfo } from './types';

export { classifyJson, classifyJsonPath, isLocaleName, isNaturalLanguage, looksLikeSchema, type JsonCategory } from '../parse/json-classify';

export const DEFAULT_JSON_CATEGORIES = ['schema', 'i18n', 'docs-meta', 'config', 'other'] as const;

/** A run of members is not left smaller than this share of the budget when it can be merged. */
export const JSON_MIN_CHUNK_RATIO = 0.25;
/** Recovered syntax errors may lose at most this share of the file's non-blank characters. */
export const MAX_LOST_RATIO = 0.02;
/** Symbol of a chunk that holds the whole root value. */
export const ROOT_SYMBOL = '(root)';

/** Members of a package manifest that are indexed (the "cleaned subset"). */
export const MANIFEST_KEYS: ReadonlySet<string> = new Set([
  'name', 'description', 'keywords', 'scripts',
  'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies',
  'main', 'module', 'exports', 'bin', 'types', 'typings', 'workspaces',
  // composer.json
  'require', 'require-dev', 'autoload',
]);

const PROPERTY_CONTAINERS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
const SUBSCHEMA_KEYS = new Set(['items', 'additionalProperties', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems']);
const COMBINATOR_KEYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** Ranges above this length on one line are counted from their parts (minified JSON). */
const LONG_RANGE = 512;

type Seg = string | number;
type Wrap = '' | '{}' | '[]';

interface Piece {
  kind: ChunkKind;
  start: number;
  end: number;
  symbol: string;
  wrap: Wrap;
  complete: boolean;
  parent?: string;
  split?: SplitInfo;
  keys?: string[];
  unbreakable?: boolean;
  component?: string;
  /** A schema property's own key (its piece's search terms: `field <key>`); not for definitions. */
  field?: string;
  /** The unit (cut top-level member, cut schema property) this piece belongs to; 0 = none. */
  owner: number;
}

type Policy = 'descend' | 'keep';

function needsQuote(key: string): boolean {
  return key === '' || key !== key.trim() || /[.[\]…"\\]|\p{Cc}/u.test(key);
}

function keySeg(key: string): string {
  const clipped = key.length > 60 ? `${key.slice(0, 59)}…` : key;
  return needsQuote(key) ? `[${JSON.stringify(clipped)}]` : clipped;
}

/** `common.buttons.save`, `items[3].name`, `["a.b"].c`; the root is `(root)`. */
export function jsonPathSymbol(segs: readonly Seg[]): string {
  if (segs.length === 0) return ROOT_SYMBOL;
  let s = '';
  for (const seg of segs) {
    const part = typeof seg === 'number' ? `[${seg}]` : keySeg(seg);
    s += s === '' || part.startsWith('[') ? part : `.${part}`;
  }
  return s.length > 200 ? `…${s.slice(s.length - 199)}` : s;
}

/** Cuts one parsed JSON value into pieces, category by category. */
class Cutter {
  readonly pieces: Piece[] = [];
  private readonly hcache = new Map<string, number>();
  private readonly max: number;
  private readonly min: number;
  private owner = 0;
  private unitSeq = 0;
  private readonly ellipsisTok: number;
  /** Header cost without its symbol. */
  private readonly symBase: number;

  constructor(
    private readonly ctx: ChunkContext,
    private readonly header: (symbol: string) => string,
  ) {
    this.max = ctx.maxTokens;
    this.min = Math.floor(ctx.maxTokens * JSON_MIN_CHUNK_RATIO);
    this.ellipsisTok = ctx.counter.count('…');
    this.symBase = this.hcost('x') - ctx.counter.count('x');
  }

  // ---- token costs -------------------------------------------------------------------------

  hcost(symbol: string): number {
    let c = this.hcache.get(symbol);
    if (c === undefined) {
      c = this.ctx.headerCost(this.header(symbol));
      this.hcache.set(symbol, c);
    }
    return c;
  }

  /** One line and long (minified JSON): counting the slice would count it again at every level. */
  private long(s: number, e: number): boolean {
    return e - s > LONG_RANGE && this.ctx.src.lineIndexAt(s) === this.ctx.src.lineIndexAt(e);
  }

  /**
   * Tokens of a value. A container's count is the sum of its parts (token counts are additive
   * across whitespace and JSON punctuation), so each item is counted once and every run of
   * items afterwards costs O(1).
   */
  valueTok(v: JValue): number {
    if (v.tok >= 0) return v.tok;
    const n = v.items.length;
    let t: number;
    if (n === 0) t = this.ctx.countRange(v.start, v.end);
    else {
      const p = this.prefix(v);
      t = this.ctx.countRange(v.start, v.items[0].start) + p[n - 1] + v.itemTok![n - 1] + this.ctx.countRange(v.items[n - 1].end, v.end);
    }
    v.tok = t;
    return t;
  }

  /** prefix[k]: tokens of items 0..k-1 and the separator after each; itemTok[k]: item k from key to value end. */
  private prefix(v: JValue): Float64Array {
    if (v.prefix) return v.prefix;
    const n = v.items.length;
    const p = new Float64Array(n);
    const it = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const item = v.items[k];
      const lines = this.wholeLines(item.start, item.end);
      if (lines >= 0) it[k] = lines;
      else if (!this.long(item.start, item.end)) it[k] = this.ctx.countRange(item.start, item.end);
      else it[k] = (item.key !== undefined ? this.ctx.countRange(item.start, item.value.start) : 0) + this.valueTok(item.value);
      if (k + 1 < n) {
        const sep = v.sepTok[k] >= 0 ? v.sepTok[k] : this.ctx.countRange(item.end, v.items[k + 1].start);
        p[k + 1] = p[k] + it[k] + sep;
      }
    }
    v.prefix = p;
    v.itemTok = it;
    return p;
  }

  /**
   * Tokens of [s, e) when it fills its lines (only blanks before it, only blanks and at most
   * one comma after it): the lines' count from the context's line table, minus the comma, with
   * no text counted again. -1 when the range does not fill its lines.
   */
  private wholeLines(s: number, e: number): number {
    const src = this.ctx.src;
    const text = src.text;
    const a = src.lineIndexAt(s);
    const b = src.lineIndexAt(e);
    if (a === 0 || b + 1 >= src.lineCount) return -1;
    for (let x = src.lineStarts[a]; x < s; x++) {
      const ch = text.charCodeAt(x);
      if (ch !== 32 && ch !== 9) return -1;
    }
    const stop = src.lineEnd(b);
    let commas = 0;
    for (let x = e; x < stop; x++) {
      const ch = text.charCodeAt(x);
      if (ch === 44 && commas === 0) commas = 1;
      else if (ch !== 32 && ch !== 9) return -1;
    }
    return this.ctx.countRange(src.lineEnd(a - 1), src.lineStarts[b + 1]) - commas;
  }

  /** Tokens of the run of items i..j (from item i's leading comments to item j's value end). */
  runTok(c: JValue, i: number, j: number): number {
    const p = this.prefix(c);
    const first = c.items[i];
    return (first.lead < first.start ? this.ctx.countRange(first.lead, first.start) : 0) + p[j] - p[i] + c.itemTok![j];
  }

  /**
   * Header cost of a run's symbol without building and counting every candidate header: the
   * header costs its fixed part plus the symbol, and a symbol costs the sum of its parts
   * (`a.b.first…last` = `a.b` + `.` + `first` + `…` + `last`; `a[2..7]` = `a` + `[2` + `..` + `7]`),
   * since the symbol sits between spaces and counts are additive across punctuation.
   * Emitted runs are checked with their exact header (emitExact).
   */
  runHcost(c: JValue, segs: readonly Seg[], i: number, j: number, symbol?: string): number {
    if (symbol !== undefined) return this.hcost(symbol);
    const counter = this.ctx.counter;
    if (c.symLen === undefined) {
      const own = segs.length ? jsonPathSymbol(segs) : '';
      c.symLen = own.length;
      c.symTok = own ? counter.count(own) : 0;
    }
    if (c.symLen > 90) return this.hcost(this.runSymbol(c, segs, i, j));
    let t = this.symBase + c.symTok!;
    if (c.type === 'object') {
      const first = c.items[i];
      if (first.keyTok === undefined) this.keyInfo(first);
      if (first.keyLong) return this.hcost(this.runSymbol(c, segs, i, j));
      t += first.keyTok! + (segs.length && !first.keyQuoted ? 1 : 0);
      if (j > i) {
        const last = c.items[j];
        if (last.keyTok === undefined) this.keyInfo(last);
        t += this.ellipsisTok + last.keyTok!;
      }
      return t;
    }
    t += 2 + counter.count(String(i)); // `[` i `]`
    if (j > i) t += 2 + counter.count(String(j)); // `..` j
    return t;
  }

  private keyInfo(it: JItem): void {
    const seg = keySeg(it.key!);
    it.keyTok = this.ctx.counter.count(seg);
    it.keyQuoted = seg[0] === '[';
    it.keyLong = seg.length > 100;
  }

  // ---- symbols -------------------------------------------------------------------------------

  runSymbol(c: JValue, segs: readonly Seg[], i: number, j: number): string {
    if (c.type === 'object') {
      const first = jsonPathSymbol([...segs, c.items[i].key!]);
      return i === j ? first : `${first}…${keySeg(c.items[j].key!)}`;
    }
    if (i === j) return jsonPathSymbol([...segs, i]);
    return `${segs.length ? jsonPathSymbol(segs) : ''}[${i}..${j}]`;
  }

  // ---- emitting ------------------------------------------------------------------------------

  private push(p: Omit<Piece, 'owner'>): Piece {
    const piece: Piece = { ...p, owner: this.owner };
    this.pieces.push(piece);
    return piece;
  }

  emitRun(c: JValue, segs: readonly Seg[], i: number, j: number, kind: ChunkKind, o: { symbol?: string; unbreakable?: boolean; keys?: boolean; parent?: string } = {}): Piece {
    const piece = this.push({
      kind,
      start: c.items[i].lead,
      end: c.items[j].end,
      symbol: o.symbol ?? this.runSymbol(c, segs, i, j),
      wrap: c.type === 'object' ? '{}' : '[]',
      complete: true,
    });
    if (c.type === 'object' && (j > i || o.keys)) piece.keys = c.items.slice(i, j + 1).map((it) => it.key!);
    if (o.unbreakable) piece.unbreakable = true;
    if (o.parent !== undefined) piece.parent = o.parent;
    return piece;
  }

  emitValue(v: JValue, symbol: string, kind: ChunkKind, start = v.start): Piece {
    const piece = this.push({ kind, start, end: v.end, symbol, wrap: '', complete: true });
    if (this.hcost(symbol) + this.ctx.countRange(start, v.end) > this.max) piece.unbreakable = true;
    return piece;
  }

  /** Item k can go into a run: its syntax is sound, its value parses alone, and it fits. */
  runnable(c: JValue, segs: readonly Seg[], k: number, symbol?: string): boolean {
    const it = c.items[k];
    if (!it.ok || !it.value.clean) return false;
    return this.runHcost(c, segs, k, k, symbol) + this.runTok(c, k, k) <= this.max;
  }

  /**
   * Items from..to of `c`: runs of consecutive items that fit are packed; an item that does not
   * fit is descended into (policy 'descend') or kept whole (policy 'keep': a schema property's
   * own member). With `top`, each descended item is a unit whose pieces record `split`.
   */
  cutItems(c: JValue, segs: readonly Seg[], from: number, to: number, kind: ChunkKind, policy: Policy, symbol?: string, top = false, labels = false): void {
    let i = from;
    while (i <= to) {
      if (!this.runnable(c, segs, i, symbol)) {
        if (top) {
          const it = c.items[i];
          const unitSymbol = jsonPathSymbol([...segs, c.type === 'object' ? it.key! : i]);
          this.unit(unitSymbol, undefined, { start: it.lead, end: it.end }, () => this.handleBig(c, segs, i, kind, policy, symbol, labels));
        } else this.handleBig(c, segs, i, kind, policy, symbol, labels);
        i++;
        continue;
      }
      let j = i;
      while (j < to && c.sepOk[j] && this.runnable(c, segs, j + 1, symbol)) j++;
      this.packRuns(c, segs, i, j, kind, symbol, labels);
      i = j + 1;
    }
  }

  /** An item that cannot join a run: too big, unsound syntax, or a value that does not parse alone. */
  handleBig(c: JValue, segs: readonly Seg[], k: number, kind: ChunkKind, policy: Policy, symbol?: string, labels = false): void {
    const it = c.items[k];
    const v = it.value;
    const childSegs = [...segs, c.type === 'object' ? it.key! : k];
    if (it.ok && v.clean) {
      if (v.items.length === 0 || policy === 'keep') {
        this.emitRun(c, segs, k, k, kind, { symbol, unbreakable: true, keys: labels });
        return;
      }
      this.cutItems(v, childSegs, 0, v.items.length - 1, kind, 'descend', symbol);
      return;
    }
    if (v.clean) {
      // The member's own syntax is broken (`"a" : : 1`), its value is fine: the value alone.
      const sym = symbol ?? jsonPathSymbol(childSegs);
      if (v.items.length === 0 || this.hcost(sym) + this.valueTok(v) <= this.max) {
        this.emitValue(v, sym, kind);
        return;
      }
    }
    if (v.items.length) this.cutItems(v, childSegs, 0, v.items.length - 1, kind, 'descend', symbol);
    // A value that does not parse and has no items holds no leaf: nothing to keep.
  }

  /** Packs items i..j (each fits) into runs of about equal size within the budget. */
  packRuns(c: JValue, segs: readonly Seg[], i: number, j: number, kind: ChunkKind, symbol?: string, labels = false): void {
    const cost = (a: number, b: number) => this.runHcost(c, segs, a, b, symbol) + this.runTok(c, a, b);
    const runs: Array<[number, number]> = [];
    if (cost(i, j) <= this.max) runs.push([i, j]);
    else {
      const total = this.runTok(c, i, j);
      const room = Math.max(1, this.max - this.runHcost(c, segs, i, j, symbol));
      const target = total / Math.ceil(total / room);
      let a = i;
      for (let k = i + 1; k <= j; k++) {
        if (this.runTok(c, a, k - 1) < target && cost(a, k) <= this.max) continue;
        runs.push([a, k - 1]);
        a = k;
      }
      runs.push([a, j]);
      if (runs.length >= 2) {
        const last = runs[runs.length - 1];
        const prev = runs[runs.length - 2];
        if (cost(last[0], last[1]) < this.min && cost(prev[0], last[1]) <= this.max) {
          prev[1] = last[1];
          runs.pop();
        }
      }
    }
    for (const [a, b] of runs) this.emitExact(c, segs, a, b, kind, symbol, labels);
  }

  /** Emits a packed run, halving it in the rare case its exact header makes it go over budget. */
  private emitExact(c: JValue, segs: readonly Seg[], a: number, b: number, kind: ChunkKind, symbol: string | undefined, labels: boolean): void {
    if (b > a && this.hcost(symbol ?? this.runSymbol(c, segs, a, b)) + this.runTok(c, a, b) > this.max) {
      const mid = (a + b) >> 1;
      this.emitExact(c, segs, a, mid, kind, symbol, labels);
      this.emitExact(c, segs, mid + 1, b, kind, symbol, labels);
      return;
    }
    this.emitRun(c, segs, a, b, kind, { symbol, keys: labels });
  }

  /**
   * Runs `fn` as one unit: the pieces it emits (not those of nested units) are pieces of
   * `symbol` — complete:false, parent set, `split` when there are several — unless a single
   * piece covers the whole unit.
   */
  unit(symbol: string, parent: string | undefined, whole: Range, fn: () => void): void {
    const id = ++this.unitSeq;
    const outer = this.owner;
    this.owner = id;
    const from = this.pieces.length;
    try {
      fn();
    } finally {
      this.owner = outer;
    }
    const own: Piece[] = [];
    for (let k = from; k < this.pieces.length; k++) if (this.pieces[k].owner === id) own.push(this.pieces[k]);
    if (own.length === 1 && own[0].start <= whole.start && own[0].end >= whole.end) {
      if (parent !== undefined) own[0].parent = parent;
      return;
    }
    own.forEach((p, index) => {
      p.complete = false;
      p.parent = p.symbol === symbol ? parent : symbol;
      if (p.parent === undefined) delete p.parent;
      if (own.length >= 2) p.split = { index, total: own.length };
    });
  }

  // ---- categories ----------------------------------------------------------------------------

  generic(root: JValue, rootLead: number, kind: ChunkKind): void {
    if (root.items.length === 0) {
      this.emitValue(root, ROOT_SYMBOL, kind, root.type === 'object' || root.type === 'array' ? root.start : rootLead);
      return;
    }
    if (this.rootFits(root, rootLead)) {
      this.emitValue(root, ROOT_SYMBOL, kind, rootLead);
      return;
    }
    this.cutItems(root, [], 0, root.items.length - 1, kind, 'descend', undefined, true);
  }

  /** The whole root value (with the comments before it) parses alone and fits one chunk. */
  rootFits(root: JValue, rootLead: number): boolean {
    return root.clean && this.hcost(ROOT_SYMBOL) + this.valueTok(root) + this.ctx.countRange(rootLead, root.start) <= this.max;
  }

  i18n(root: JValue): void {
    const items = root.items;
    const n = items.length;
    const isLabel = (k: number) => items[k].value.type !== 'object' && items[k].value.type !== 'array';
    let k = 0;
    while (k < n) {
      if (isLabel(k)) {
        let j = k;
        while (j + 1 < n && isLabel(j + 1)) j++;
        this.cutItems(root, [], k, j, 'i18n-labels', 'descend', undefined, true, true);
        k = j + 1;
        continue;
      }
      if (this.runnable(root, [], k)) this.emitRun(root, [], k, k, 'i18n-section');
      else {
        const it = items[k];
        const at = k;
        this.unit(jsonPathSymbol([it.key!]), undefined, { start: it.lead, end: it.end }, () => this.handleBig(root, [], at, 'i18n-section', 'descend'));
      }
      k++;
    }
  }

  manifest(root: JValue): void {
    const items = root.items;
    let a = -1;
    for (let k = 0; k <= items.length; k++) {
      const keep = k < items.length && MANIFEST_KEYS.has(items[k].key!);
      if (keep && a < 0) a = k;
      if (!keep && a >= 0) {
        this.cutItems(root, [], a, k - 1, 'manifest', 'descend', undefined, true);
        a = -1;
      }
    }
  }

  schema(root: JValue): void {
    this.schemaObject(root, [], 'schema', 'descend', undefined, undefined, true);
  }

  /**
   * The members of one schema object: entries of `properties` / `definitions` … are units; a
   * sub-schema (`items`, `allOf` …) over budget with nested properties is descended; the rest
   * are the object's own members, packed into runs (`ownSymbol`: the property they belong to).
   */
  private schemaObject(c: JValue, segs: readonly Seg[], ownKind: ChunkKind, policy: Policy, ownSymbol: string | undefined, parent: string | undefined, top: boolean): void {
    const items = c.items;
    let own = -1;
    const flush = (to: number) => {
      if (own >= 0 && to >= own) this.cutItems(c, segs, own, to, ownKind, policy, ownSymbol, top);
      own = -1;
    };
    for (let k = 0; k < items.length; k++) {
      const it = items[k];
      const v = it.value;
      const key = it.key!;
      const childSegs = [...segs, key];
      if (it.ok && PROPERTY_CONTAINERS.has(key) && v.type === 'object' && v.items.length > 0) {
        flush(k - 1);
        for (let e = 0; e < v.items.length; e++) this.schemaUnit(v, childSegs, e, parent);
        continue;
      }
      if (it.ok && SUBSCHEMA_KEYS.has(key) && v.type === 'object' && !this.runnable(c, segs, k, ownSymbol) && hasNested(v)) {
        flush(k - 1);
        this.schemaObject(v, childSegs, ownKind, policy, ownSymbol === undefined ? undefined : jsonPathSymbol(childSegs), parent, false);
        continue;
      }
      if (it.ok && COMBINATOR_KEYS.has(key) && v.type === 'array' && !this.runnable(c, segs, k, ownSymbol) && v.items.some((x) => hasNested(x.value))) {
        flush(k - 1);
        for (let e = 0; e < v.items.length; e++) this.schemaUnit(v, childSegs, e, parent);
        continue;
      }
      if (own < 0) own = k;
    }
    flush(items.length - 1);
  }

  /** One property (or definition, or combinator branch): one chunk, whole, or cut along its nested properties. */
  private schemaUnit(c: JValue, segs: readonly Seg[], k: number, parent: string | undefined): void {
    const it = c.items[k];
    const v = it.value;
    const symbol = jsonPathSymbol([...segs, c.type === 'object' ? it.key! : k]);
    const component = fieldComponent(v);
    const field = c.type === 'object' && segs[segs.length - 1] === 'properties' ? it.key! : undefined;
    const mark = (p: Piece): Piece => {
      if (component) p.component = component;
      if (field !== undefined) p.field = field;
      return p;
    };
    // A whole property is its own unit, never a piece of the property it is nested in.
    if (this.runnable(c, segs, k, symbol)) {
      mark(this.emitRun(c, segs, k, k, 'schema-property', { symbol, parent })).owner = -1;
      return;
    }
    const nested = v.type === 'object' && hasNested(v);
    if (it.ok && v.clean && !nested) {
      // Oversize beats a mid-property cut.
      mark(this.emitRun(c, segs, k, k, 'schema-property', { symbol, parent, unbreakable: true })).owner = -1;
      return;
    }
    const from = this.pieces.length;
    this.unit(symbol, parent, { start: it.lead, end: it.end }, () => {
      if (it.ok && nested) this.schemaObject(v, [...segs, c.type === 'object' ? it.key! : k], 'schema-property', 'keep', symbol, symbol, false);
      else this.handleBig(c, segs, k, 'schema-property', 'descend', symbol);
    });
    for (let p = from; p < this.pieces.length; p++) if (this.pieces[p].symbol === symbol) mark(this.pieces[p]);
  }
}

/** A schema object with nested properties somewhere below (through items, allOf …). */
function hasNested(v: JValue): boolean {
  if (v.type !== 'object') return false;
  for (const it of v.items) {
    const x = it.value;
    if (PROPERTY_CONTAINERS.has(it.key!) && x.type === 'object' && x.items.length > 0) return true;
    if (SUBSCHEMA_KEYS.has(it.key!) && hasNested(x)) return true;
    if (COMBINATOR_KEYS.has(it.key!) && x.type === 'array' && x.items.some((y) => hasNested(y.value))) return true;
  }
  return false;
}

/**
 * The keys a schema property names its UI component with, first found wins: `component`,
 * Formily's `x-component`, ui-schema's and form-render's `widget`, react-jsonschema-form's
 * `ui:widget` / `ui:field` written inline. Not `x-decorator`: Formily's wrapper (`FormItem`) of
 * every field.
 */
const COMPONENT_KEYS = ['component', 'x-component', 'widget', 'ui:widget', 'ui:field'];

/** The form-field extension's `field: { component: "KTextField" }`, or one of COMPONENT_KEYS directly. */
function fieldComponent(v: JValue): string | undefined {
  if (v.type !== 'object') return undefined;
  for (const key of COMPONENT_KEYS) {
    const it = v.items.find((x) => x.key === key && x.value.type === 'string');
    if (it) return String(it.value.value);
  }
  for (const it of v.items) {
    if ((it.key === 'field' || it.key === 'ui') && it.value.type === 'object') {
      const inner = fieldComponent(it.value);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** Strict parse of a chunk body once wrapped; comments allowed (JSONC), trailing commas not. */
export function jsonBodyParses(text: string, wrap: Wrap | string): boolean {
  const body = wrap ? `${wrap[0]}${text}${wrap[1]}` : text;
  try {
    JSON.parse(body);
    return true;
  } catch {
    const errors: jsonc.ParseError[] = [];
    jsonc.parse(body, errors, { allowTrailingComma: false, disallowComments: false });
    return errors.length === 0;
  }
}

function malformed(ctx: ChunkContext, tree: JsonTree, from: number): FallbackError {
  const e = tree.errors[0];
  if (!e) return new FallbackError('malformed JSON: no value');
  const line = ctx.src.position(Math.min(ctx.text.length, from + e.offset)).line;
  return new FallbackError(`malformed JSON: ${jsonc.printParseErrorCode(e.error)} at line ${line}`);
}

function excluded(category: JsonCategory, opts: ResolvedOptions): ChunkerOutput {
  const label = JSON_CATEGORY_LABELS[category];
  const byDefault = !(DEFAULT_JSON_CATEGORIES as readonly string[]).includes(category);
  return {
    chunks: [],
    category,
    skipped: {
      reason: 'excluded-category',
      detail: byDefault && !opts.jsonCategories.has(category)
        ? `${label}: not indexed by default (add "${category}" to the setting fathom.json.categories, or to --json-categories)`
        : `${label}: "${category}" is not in fathom.json.categories (--json-categories)`,
    },
  };
}

interface CutRequest {
  from: number;
  to: number;
  /** Decided by the caller (a Vue `<i18n>` block); otherwise classified from path and content. */
  category?: JsonCategory;
  /** The breadcrumb for a symbol; undefined: the whole embedded value (see chunkJsonRange). */
  header: (symbol: string | undefined) => string;
  /** JSON embedded in another file: kept as one chunk, without symbol, when it fits. */
  embedded?: boolean;
}

function cutJson(ctx: ChunkContext, opts: ResolvedOptions, req: CutRequest): ChunkerOutput {
  const { from, to } = req;
  const depth = scanDepth(ctx.text, from, to, MAX_JSON_DEPTH);
  if (depth.maxDepth > MAX_JSON_DEPTH) throw new FallbackError(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
  const tree = parseJsonTree(ctx.text, from, to, depth.nonBlank);
  const root = tree.root;
  const errors = tree.errors;
  if (!root) throw malformed(ctx, tree, from);
  if (errors.length) {
    const container = root.type === 'object' || root.type === 'array';
    if (!container || tree.lost > Math.max(0, tree.nonBlank * MAX_LOST_RATIO)) throw malformed(ctx, tree, from);
  }

  const category = req.category ?? classifyJson(ctx.path, tree.node);
  if (!opts.jsonCategories.has(category)) return excluded(category, opts);
  const isContainer = root.type === 'object' || root.type === 'array';
  if (isContainer && root.items.length === 0 && !errors.length) {
    return { chunks: [], category, skipped: { reason: 'empty', detail: `empty JSON ${root.type}` } };
  }

  const embeddedRoot = (symbol: string) => req.embedded === true && symbol === ROOT_SYMBOL;
  const header = (symbol: string) => req.header(embeddedRoot(symbol) ? undefined : symbol);
  const cutter = new Cutter(ctx, header);
  const objectRoot = root.type === 'object' && root.items.length > 0;
  const kind: ChunkKind = category === 'i18n' ? 'i18n-section' : category === 'manifest' ? 'manifest' : 'json';
  if (req.embedded && cutter.rootFits(root, tree.rootLead)) cutter.emitValue(root, ROOT_SYMBOL, kind, tree.rootLead);
  else if (category === 'schema' && objectRoot) cutter.schema(root);
  else if (category === 'i18n' && objectRoot) cutter.i18n(root);
  else if (category === 'manifest' && objectRoot) cutter.manifest(root);
  else cutter.generic(root, tree.rootLead, kind);

  const pieces = cutter.pieces.sort((a, b) => a.start - b.start);
  if (errors.length) {
    // A recovered tree may hide what the cut cannot see (a bad escape, a broken number): every
    // chunk must still parse, or the file goes to the text chunker. Without errors the cut only
    // takes values and runs whose text is sound (see JValue.clean), and the tests hold it to that.
    if (pieces.length === 0) throw malformed(ctx, tree, from);
    for (const p of pieces) if (!jsonBodyParses(ctx.text.slice(p.start, p.end), p.wrap)) throw malformed(ctx, tree, from);
  }

  const chunks: Chunk[] = pieces.map((p) => {
    const meta: Record<string, unknown> = { category, jsonWrap: p.wrap };
    if (p.keys) meta.keys = p.keys;
    if (p.unbreakable) meta.unbreakable = true;
    if (p.component) meta.component = p.component;
    if (p.kind === 'schema-property' && p.field !== undefined) meta[SEARCH_TERMS_META] = p.component ? `field ${p.field} component ${p.component}` : `field ${p.field}`;
    return ctx.make({
      kind: p.kind,
      start: p.start,
      end: p.end,
      header: header(p.symbol),
      symbol: embeddedRoot(p.symbol) ? undefined : p.symbol,
      parent: p.parent,
      complete: p.complete,
      split: p.split,
      meta,
    });
  });

  const warnings: string[] = [];
  if (errors.length) {
    const shown = errors.slice(0, 3).map((e) => `${jsonc.printParseErrorCode(e.error)} at line ${ctx.src.position(Math.min(ctx.text.length, from + e.offset)).line}`);
    warnings.push(`recovered ${errors.length} syntax error${errors.length > 1 ? 's' : ''}: ${shown.join(', ')}${errors.length > 3 ? ', …' : ''}`);
  }
  const dups = tree.duplicates;
  for (const d of dups.slice(0, 10)) {
    warnings.push(`duplicate key "${d.key}" in ${jsonPathSymbol(d.path)} (line ${ctx.src.position(d.offset).line}): the last one wins`);
  }
  if (dups.length > 10) warnings.push(`… and ${dups.length - 10} more duplicate keys`);
  return warnings.length ? { chunks, category, warnings } : { chunks, category };
}

export function chunkJson(ctx: ChunkContext, opts: ResolvedOptions): ChunkerOutput {
  // Manifests, fixtures and config files are known by their path: an excluded one is not even parsed.
  const byPath = classifyJsonPath(ctx.path);
  if (byPath && !opts.jsonCategories.has(byPath)) return excluded(byPath, opts);
  return cutJson(ctx, opts, { from: 0, to: ctx.text.length, header: (symbol) => `// ${ctx.path} :: ${symbol}` });
}

/**
 * JSON embedded in another file (a Vue `<i18n>` block): `range` of `ctx.text`, cut as
 * `category`, headers from the caller. A block that fits stays one chunk (symbol undefined,
 * `header(undefined)`), so that it is covered to the last brace; a bigger one is cut like a
 * file of its category. Undefined when the range is not JSON we can cut.
 */
export function chunkJsonRange(
  ctx: ChunkContext,
  range: Range,
  category: string,
  opts: ResolvedOptions,
  header: (symbol: string | undefined) => string,
): ChunkerOutput | undefined {
  try {
    return cutJson(ctx, opts, { from: range.start, to: range.end, category: category as JsonCategory, header, embedded: true });
  } catch (err) {
    if (err instanceof FallbackError) return undefined;
    throw err;
  }
}
