/**
 * From units to chunks, for every chunker that finds units in a syntax tree (Babel for JS/TS,
 * tree-sitter for Python, Go, Rust). The rule, applied recursively from the top:
 *   a unit that fits the budget is one chunk;
 *   a unit over budget with member units (class, object, impl, namespace) becomes its members'
 *     chunks plus fragments of its own leftover lines (named by the unit, recording `split`);
 *   any other unit over budget is cut at its boundaries (statements …), then lines (`split`).
 * Consecutive small units are grouped (`A.{x, y}`) so one-line getters do not each become a
 * chunk; leftover top-level code (imports, module statements) is packed into module chunks.
 */
import type { ChunkContext, ChunkSpec } from './context';
import { isBlank, trimRange, type Range } from '../parse/source-text';
import type { Chunk, ChunkKind } from './types';

export interface Unit {
  kind: ChunkKind;
  symbol: string;
  parent?: string;
  range: Range;
  signature?: string;
  /** Member units, for containers. */
  members?: Unit[];
  /** Natural cut points when the unit must be split (statement starts …). */
  boundaries: number[];
  /** Prefix of a group of this container's members, when not its symbol (`impl Display for P` → `P`). */
  memberPrefix?: string;
}

export interface UnitLayout {
  /** The range the units come from (the whole file, or a Vue `<script>` block). */
  start: number;
  end: number;
  /** Builds the breadcrumb for a symbol (undefined = module code). */
  header: (symbol: string | undefined) => string;
  /** Extra meta put on every chunk (Vue: the block). */
  meta?: Record<string, unknown>;
  /** Symbol for module chunks (Vue: the component name); none in plain files. */
  moduleSymbol?: string;
  /** Natural cut points of leftover module code (top-level statement starts …). */
  moduleBoundaries: readonly number[];
  /**
   * Tokens of the previous piece that a split piece repeats at its start (whole lines, as many
   * as fit both this and the budget); 0 = none. Such a chunk records `meta.overlap`
   * ({chars, tokens}): its first `chars` characters are also in the piece before it.
   */
  overlap?: number;
  /** Module code that only opens a block holding units (LanguageRules.opener): it joins the chunk after it. */
  opener?: RegExp;
}

/**
 * A group's symbol: `prefix.{a, b}` inside a container; at the top level, units that share a
 * parent (Go methods of one receiver) are grouped under it, `Server.{Start, Stop}`.
 */
function groupSymbol(run: readonly Unit[], groupPrefix: string | undefined): string {
  let prefix = groupPrefix;
  if (prefix === undefined && run[0].parent !== undefined && run.every((r) => r.parent === run[0].parent && r.symbol.startsWith(`${r.parent}.`))) prefix = run[0].parent;
  // at the top level a unit with a parent keeps its qualified name (`{NewServer, Server.Start}`)
  const names = run.map((r) => (prefix === undefined && r.parent !== undefined ? r.symbol : r.symbol.slice(r.symbol.lastIndexOf('.') + 1)));
  return `${prefix ? `${prefix}.` : ''}{${names.join(', ')}}`;
}

/** Chunks of `units` (in source order, not overlapping) and of the code between them. */
export function emitUnits(ctx: ChunkContext, units: readonly Unit[], o: UnitLayout): Chunk[] {
  const emitter = new UnitEmitter(ctx, o);
  // Top level: units, grouped when small; leftover code packed into module chunks.
  const specs = emitter.siblings([...units], undefined, undefined).sort((a, b) => a.start - b.start);
  emitter.moduleChunks(specs);
  specs.sort((a, b) => a.start - b.start);
  if (o.overlap && o.overlap > 0) addOverlap(ctx, specs, o.overlap);
  return specs.map((s) => ctx.make(s));
}

/** The rules of the module comment, as methods over one file's context and layout. */
class UnitEmitter {
  private readonly text: string;
  /** Units under this many tokens are grouped with their small neighbours. */
  private readonly small: number;

  constructor(
    private readonly ctx: ChunkContext,
    private readonly o: UnitLayout,
  ) {
    this.text = ctx.text;
    this.small = Math.max(24, Math.floor(ctx.maxTokens / 4));
  }

  private spec(u: Omit<ChunkSpec, 'header' | 'meta'> & { symbol?: string }): ChunkSpec {
    const meta = this.o.meta;
    return { ...u, header: this.o.header(u.symbol), ...(meta ? { meta: { ...meta } } : {}) };
  }

  private cost(r: Range, symbol: string | undefined): number {
    return this.ctx.cost(this.o.header(symbol), r.start, r.end);
  }

  /** Emits one unit (recursively); returns specs in source order. */
  private unit(u: Unit): ChunkSpec[] {
    if (this.cost(u.range, u.symbol) <= this.ctx.maxTokens) {
      return [this.spec({ kind: u.kind, start: u.range.start, end: u.range.end, symbol: u.symbol, parent: u.parent, signature: u.signature, complete: true })];
    }
    if (u.members && u.members.length) return this.container(u, true);
    const pieces = this.ctx.pack(u.range, this.o.header(u.symbol), u.boundaries, [], this.o.overlap ?? 0);
    return pieces.map((p, index) =>
      this.spec({ kind: u.kind, start: p.start, end: p.end, symbol: u.symbol, parent: u.parent, signature: u.signature, complete: false, split: pieces.length > 1 ? { index, total: pieces.length } : undefined }),
    );
  }

  /**
   * Groups runs of consecutive small units separated only by punctuation into one chunk.
   * Inside a split container (`descend`), object members (`methods: {…}`, `computed: {…}`)
   * are opened too, so their entries become units (`KZoomControl.methods.zoomIn`).
   */
  siblings(members: Unit[], groupPrefix: string | undefined, parentSymbol: string | undefined, descend = false): ChunkSpec[] {
    const out: ChunkSpec[] = [];
    let run: Unit[] = [];
    const flush = () => {
      out.push(...this.group(run, groupPrefix, parentSymbol));
      run = [];
    };
    for (const m of members) {
      if (descend && m.kind === 'object' && m.members?.length) {
        flush();
        out.push(...this.container(m, false));
        continue;
      }
      if (this.cost(m.range, m.symbol) >= this.small) {
        flush();
        out.push(...this.unit(m));
        continue;
      }
      if (run.length && !this.joins(run, m, groupPrefix)) flush();
      run.push(m);
    }
    flush();
    return out;
  }

  /** Can small `m` join the run before it: only punctuation between, and the group still fits? */
  private joins(run: Unit[], m: Unit, groupPrefix: string | undefined): boolean {
    const prev = run[run.length - 1];
    const gapOk = /^[\s,;]*$/.test(this.text.slice(prev.range.end, m.range.start));
    const sym = groupSymbol([...run, m], groupPrefix);
    return gapOk && this.cost({ start: run[0].range.start, end: m.range.end }, sym) <= this.ctx.maxTokens;
  }

  /** A run of small units: one unit's own chunk, or one group chunk listing its members. */
  private group(run: Unit[], groupPrefix: string | undefined, parentSymbol: string | undefined): ChunkSpec[] {
    if (run.length === 0) return [];
    if (run.length === 1) return this.unit(run[0]);
    const symbol = groupSymbol(run, groupPrefix);
    const g = this.spec({ kind: 'group', start: run[0].range.start, end: run[run.length - 1].range.end, symbol, parent: parentSymbol, complete: true });
    g.meta = { ...(g.meta ?? {}), members: run.map((r) => r.symbol) };
    return [g];
  }

  /** A container over budget: its members' chunks, plus its own leftover lines as fragments. */
  private container(u: Unit, openObjects: boolean): ChunkSpec[] {
    const members = u.members ?? [];
    const childSpecs = this.siblings(members, u.memberPrefix ?? u.symbol, u.symbol, openObjects);
    const gaps: Range[] = [];
    let cursor = u.range.start;
    for (const m of members) {
      if (!isBlank(this.text, cursor, m.range.start)) gaps.push({ start: cursor, end: m.range.start });
      cursor = Math.max(cursor, m.range.end);
    }
    if (!isBlank(this.text, cursor, u.range.end)) gaps.push({ start: cursor, end: u.range.end });
    return this.absorbGaps(childSpecs, gaps, u);
  }

  /**
   * Leftover lines of a split container (its declaration line, fields, closing brace) join the
   * neighbouring chunk when that still fits; the rest become fragments named by the container.
   */
  private absorbGaps(childSpecs: ChunkSpec[], gaps: Range[], u: Unit): ChunkSpec[] {
    const fragments = this.absorb(childSpecs, gaps, false).flatMap((g) => this.ctx.pack(g, this.o.header(u.symbol), u.boundaries));
    const frags = fragments.map((p) => this.spec({ kind: 'fragment', start: p.start, end: p.end, symbol: u.symbol, parent: u.parent, signature: u.signature, complete: false }));
    if (frags.length > 1) frags.forEach((f, index) => (f.split = { index, total: frags.length }));
    return [...childSpecs, ...frags].sort((a, b) => a.start - b.start);
  }

  /**
   * The code between the top-level chunks (`specs`, in source order): stray punctuation joins a
   * neighbour; the rest is packed into module chunks, added to `specs`.
   */
  moduleChunks(specs: ChunkSpec[]): void {
    const { o, text } = this;
    const gaps: Range[] = [];
    let cursor = o.start;
    for (const sp of specs) {
      if (sp.start > cursor && !isBlank(text, cursor, sp.start)) gaps.push({ start: cursor, end: sp.start });
      cursor = Math.max(cursor, sp.end);
    }
    if (!isBlank(text, cursor, o.end)) gaps.push({ start: cursor, end: o.end });
    const modSym = o.moduleSymbol;
    for (const l of this.absorb(specs, gaps, true)) {
      for (const p of this.ctx.pack(l, o.header(modSym), o.moduleBoundaries)) specs.push(this.spec({ kind: 'module', start: p.start, end: p.end, symbol: modSym, complete: false }));
    }
  }

  /**
   * Stretches neighbouring specs over the gaps that can join them (closing punctuation to what
   * precedes it, an opening line to what follows it; at the top level only punctuation such as
   * a stray `;`). Returns the gaps left over.
   */
  private absorb(specsIn: ChunkSpec[], gaps: Range[], punctOnly: boolean): Range[] {
    const left: Range[] = [];
    for (const g0 of gaps) {
      const g = trimRange(this.text, g0.start, g0.end);
      if (g.start >= g.end || specsIn.some((c) => c.start <= g.start && c.end >= g.end)) continue;
      const punct = /^[\s{}()[\],;]*$/.test(this.text.slice(g.start, g.end));
      const opens = punctOnly && !punct && !!this.o.opener?.test(this.text.slice(g.start, g.end));
      if ((punctOnly && !punct && !opens) || !this.stretchOver(specsIn, g, punct, opens)) left.push(g);
    }
    return left;
  }

  /**
   * Stretches the spec before gap `g` (punctuation) or after it (an opening line), else the
   * other one, when it then swallows no other chunk and still fits (`opens`: only the one after).
   * False when neither can.
   */
  private stretchOver(specsIn: ChunkSpec[], g: Range, punct: boolean, opens = false): boolean {
    let before: ChunkSpec | undefined;
    let after: ChunkSpec | undefined;
    for (const c of specsIn) {
      if (c.end <= g.start && (!before || c.end > before.end)) before = c;
      if (c.start >= g.end && (!after || c.start < after.start)) after = c;
    }
    const order = opens ? [after] : punct && before ? [before, after] : [after, before];
    for (const c of order) {
      if (!c) continue;
      const s2 = Math.min(c.start, g.start);
      const e2 = Math.max(c.end, g.end);
      if (specsIn.some((o2) => o2 !== c && o2.start < e2 && o2.end > s2)) continue; // would swallow another chunk
      if (this.ctx.cost(c.header, s2, e2) <= this.ctx.maxTokens) {
        c.start = s2;
        c.end = e2;
        return true;
      }
    }
    return false;
  }
}

/**
 * Opt-in overlap between the pieces of one cut unit: each piece after the first starts earlier,
 * at a line start inside the previous piece, by up to `tokens` tokens while it still fits.
 */
function addOverlap(ctx: ChunkContext, specs: ChunkSpec[], tokens: number): void {
  const src = ctx.src;
  for (let i = specs.length - 1; i > 0; i--) {
    const cur = specs[i];
    const prev = specs[i - 1];
    if (!cur.split || cur.split.index === 0 || !prev.split || prev.symbol !== cur.symbol || prev.kind !== cur.kind) continue;
    let start = cur.start;
    for (let li = src.lineIndexAt(cur.start) - 1; li >= 0; li--) {
      let s = src.lineStarts[li];
      const e = src.lineEnd(li);
      while (s < e && isBlank(ctx.text, s, s + 1)) s++;
      if (s >= e) continue; // blank line
      if (s < prev.start) break;
      if (ctx.countRange(s, cur.start) > tokens || ctx.cost(cur.header, s, cur.end) > ctx.maxTokens) break;
      start = s;
    }
    if (start < cur.start) {
      cur.meta = { ...(cur.meta ?? {}), overlap: { chars: prev.end > start ? prev.end - start : 0, tokens: ctx.countRange(start, prev.end) } };
      cur.start = start;
    }
  }
}
