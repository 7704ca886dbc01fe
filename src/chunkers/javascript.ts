/**
 * JavaScript / TypeScript by AST (@babel/parser with error recovery).
 *
 * Units: functions, classes and their members, exported consts, arrow functions, TS
 * interfaces/types/enums/namespaces, and the members of object literals that are exported or
 * handed to a component factory (`export default { methods: { zoomIn() {} } }` in `zoom.js`
 * gives `zoom.methods.zoomIn`: an anonymous default export is named after its file,
 * `fileDefaultName`; a Vue component's, after the component), and the declarations of a
 * function a top-level call runs or hands over (an IIFE, a UMD factory, `define(…)`; see
 * `callBodies`). How units become chunks (fit →
 * one chunk, containers → members, others cut at statement boundaries, small siblings grouped,
 * leftovers as module chunks) is shared with the tree-sitter chunkers, in units.ts.
 * The same code chunks Vue `<script>` blocks, by offset range inside the `.vue` file.
 */
import type * as t from '@babel/types';
import { FallbackError, type ChunkerOutput } from './chunker';
import { firstLine, type ChunkContext } from './context';
import type { Range } from '../parse/source-text';
import { SEARCH_TERMS_META, type Chunk } from './types';
import { emitUnits, type Unit } from './units';
import { parseScript, ScriptSyntaxError } from '../parse/script';

export interface ScriptOptions {
  /** Offsets of the script inside ctx.text. */
  start: number;
  end: number;
  typescript: boolean;
  jsx: boolean;
  /** Name for `export default` (Vue: the component name; a plain script: its file's, see `fileDefaultName`). */
  defaultName?: string;
  /** `defaultName` comes from the file name: a plain value (`export default Legend`) stays `default`, the name is its own. */
  defaultFromFile?: boolean;
  /** Symbol for module chunks (Vue: the component name); none in plain JS. */
  moduleSymbol?: string;
  /** Builds the breadcrumb for a symbol (undefined = module code). */
  header: (symbol: string | undefined) => string;
  /** Extra meta put on every chunk (Vue: the block). */
  meta?: Record<string, unknown>;
  /** Every `const`/`let`/`var` is a unit (`ChunkOptions.declarations`); default the context's. */
  declarations?: boolean;
  /**
   * A build's output (it names its source map: `//# sourceMappingURL=`, set by `chunkScript`): the
   * functions of its wrapper (a bundle's IIFE) are copies of sources elsewhere, and are not opened.
   */
  generated?: boolean;
}


/** Factories whose object argument is a component definition, or a Pinia store's (`defineStore('cart', { state, getters, actions })`): its entries are units. */
const FACTORIES = new Set(['defineComponent', 'Vue.extend', 'Vue.component', 'defineNuxtComponent', 'Component', 'mixin', 'Vue.mixin', 'defineStore']);

export function chunkJavaScript(ctx: ChunkContext): ChunkerOutput {
  const ts = ctx.language === 'typescript';
  const ext = ctx.path.slice(ctx.path.lastIndexOf('.') + 1).toLowerCase();
  return chunkScript(ctx, {
    start: 0,
    end: ctx.text.length,
    typescript: ts,
    jsx: ext !== 'ts' && ext !== 'mts' && ext !== 'cts',
    defaultName: fileDefaultName(ctx.path),
    defaultFromFile: true,
    header: (symbol) => (symbol ? `// ${ctx.path} :: ${symbol}` : `// ${ctx.path}`),
  });
}

/**
 * The name an anonymous `export default` takes from its file, as importers and frameworks name it:
 * Nuxt auto-imports `composables/useCart.ts` and `use-cart.ts` as `useCart`, a `Button.jsx`
 * default is imported as `Button`. `default` where the file name is not one identifier (`index`,
 * `vite.config.ts`, `[id].ts`).
 */
export function fileDefaultName(filePath: string): string {
  const base = filePath.slice(filePath.lastIndexOf('/') + 1).replace(/(?:\.d)?\.[cm]?[jt]sx?$/i, '');
  if (base === 'index' || !/^[A-Za-z_$][\w$]*(?:-[A-Za-z0-9_$]+)*$/.test(base)) return 'default';
  return base.replace(/-([A-Za-z0-9_$])/g, (_, c: string) => c.toUpperCase());
}

/** An expression that names something declared elsewhere (`Legend`, `api.client`): its default export takes no name of its own. */
function namesOther(e: t.Node): boolean {
  return e.type === 'Identifier' || e.type === 'MemberExpression';
}

function parseScriptUnit(code: string, o: ScriptOptions): { ast: t.File; warnings: string[] } {
  try {
    const { ast, recovered } = parseScript(code, o);
    const warnings = recovered.length ? [`recovered ${recovered.length} syntax error(s): ${recovered[0].message}`] : [];
    return { ast, warnings };
  } catch (err) {
    if (err instanceof ScriptSyntaxError) throw new FallbackError(`syntax error: ${err.message}`);
    throw err;
  }
}

/** Babel's whitespace (isWhitespace and isNewLine of @babel/parser): what may lie between comments. */
function isJsSpace(c: number): boolean {
  return (
    c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * What Babel's `leadingComments` gave, without its attachment pass: the comments of a node are
 * the run of comments (only whitespace between them) that ends where the node starts, i.e.
 * every comment between the previous token and the node. Returns, for a node starting at
 * `start`, the start of the earliest comment of that run at or after `floor` (offsets in `code`).
 */
function leadingComments(code: string, comments: ReadonlyArray<{ start?: number | null; end?: number | null }>): (start: number, floor: number) => number | undefined {
  const byEnd = new Map<number, number>();
  for (const c of comments) if (c.start != null && c.end != null) byEnd.set(c.end, c.start);
  if (!byEnd.size) return () => undefined;
  return (start, floor) => {
    let found: number | undefined;
    let i = start;
    for (;;) {
      while (i > 0 && isJsSpace(code.charCodeAt(i - 1))) i--;
      const cs = byEnd.get(i);
      if (cs === undefined) return found;
      if (cs >= floor) found = cs;
      i = cs;
    }
  };
}

/**
 * Chunks a script (a JS/TS file, or a Vue `<script>` block at `o.start`..`o.end` of `ctx.text`):
 * parse, find the units of its statements (`ScriptUnits`), emit them as chunks (units.ts), mark
 * the component registrations each chunk makes.
 */
export function chunkScript(ctx: ChunkContext, o: ScriptOptions): ChunkerOutput {
  const code = ctx.text.slice(o.start, o.end);
  const { ast, warnings } = parseScriptUnit(code, o);
  const budget = ctx.maxTokens - ctx.headerCost(o.header(o.moduleSymbol));
  const generated = o.generated ?? /\/[/*][#@] sourceMappingURL=/.test(code.slice(-4096));
  const script = new ScriptUnits(ctx.text, { ...o, generated, declarations: o.declarations ?? ctx.declarations }, leadingComments(code, ast.comments ?? []), (r) => ctx.countRange(r.start, r.end) > budget);
  const { units, starts } = script.statementUnits(ast.program.body, o.start, '');
  const chunks = emitUnits(ctx, units, { start: o.start, end: o.end, header: o.header, meta: o.meta, moduleSymbol: o.moduleSymbol, moduleBoundaries: starts }).map(withRegistrations);
  return { chunks, warnings };
}

/** Calls within calls whose functions are read as statement lists (`callBodies`): deeper, the code is cut by lines. */
const MAX_CALL_DEPTH = 8;

const isFn = (n: t.Node | null | undefined): n is t.ArrowFunctionExpression | t.FunctionExpression => !!n && (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression');

/** The expression under type assertions, parentheses and `!`. */
function unwrapExpr(e: t.Node): t.Node {
  let cur = e;
  while (cur.type === 'TSAsExpression' || cur.type === 'TSSatisfiesExpression' || cur.type === 'ParenthesizedExpression' || cur.type === 'TSNonNullExpression') {
    cur = (cur as t.TSAsExpression).expression;
  }
  return cur;
}

function calleeName(c: t.Node): string {
  if (c.type === 'Identifier') return c.name;
  if (c.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier') return `${calleeName(c.object)}.${c.property.name}`;
  return '';
}

/** A component definition object handed to a factory: `defineComponent({...})`, `Vue.extend({...})`. */
function factoryObject(e: t.Node): t.ObjectExpression | undefined {
  const n = unwrapExpr(e);
  if (n.type !== 'CallExpression') return undefined;
  if (!FACTORIES.has(calleeName(n.callee))) return undefined;
  const obj = n.arguments.find((a) => unwrapExpr(a).type === 'ObjectExpression');
  return obj ? (unwrapExpr(obj) as t.ObjectExpression) : undefined;
}

/**
 * The units of one parsed script: node offsets are relative to the script (`off` is where it
 * starts in `text`), ranges are in `text`.
 */
class ScriptUnits {
  private readonly off: number;

  constructor(
    private readonly text: string,
    private readonly o: ScriptOptions,
    private readonly leading: (start: number, floor: number) => number | undefined,
    /** Module code in `range` is over the budget of a chunk. */
    private readonly overBudget: (range: Range) => boolean = () => true,
  ) {
    this.off = o.start;
  }

  private R(n: { start?: number | null; end?: number | null }): Range {
    return { start: this.off + (n.start ?? 0), end: this.off + (n.end ?? 0) };
  }

  /** The text of a node. */
  private src(n: t.Node): string {
    return this.text.slice(this.off + n.start!, this.off + n.end!);
  }

  /** A node's range with its own leading comments (those after `floor`). */
  private withComments(n: t.Node, floor: number): Range {
    const r = this.R(n);
    const cs = this.leading(n.start!, floor - this.off);
    if (cs !== undefined) r.start = this.off + cs;
    return r;
  }

  private keyName(key: t.Node, computed: boolean): string {
    if (!computed) {
      if (key.type === 'Identifier') return key.name;
      if (key.type === 'StringLiteral') return key.value;
      if (key.type === 'NumericLiteral') return String(key.value);
      if (key.type === 'PrivateName') return `#${key.id.name}`;
    }
    return `[${this.src(key)}]`;
  }

  private signatureOf(n: t.Node, bodyStart?: number | null): string {
    const s = this.off + n.start!;
    const e = bodyStart != null ? this.off + bodyStart : this.off + n.end!;
    return firstLine(this.text.slice(s, e).replace(/\s+/g, ' ').trim() || this.text.slice(s, this.off + n.end!));
  }

  /** The first line of a range's text: the signature of a unit without a body. */
  private lineOf(range: Range): string {
    return firstLine(this.text.slice(range.start, range.end));
  }

  private stmtBoundaries(body: t.Node[] | undefined, floor: number): number[] {
    const out: number[] = [];
    let f = floor;
    for (const s of body ?? []) {
      out.push(this.withComments(s, f).start);
      f = this.off + s.end!;
    }
    return out;
  }

  private fnBoundaries(fn: t.Function | t.TSDeclareMethod, floor: number): number[] {
    const body = (fn as t.Function).body;
    return body && body.type === 'BlockStatement' ? this.stmtBoundaries(body.body, floor) : [];
  }

  /**
   * Where a const's value may be cut: between an array's elements, or between the statements of
   * the function a call is handed (`defineStore('cart', () => {…})`, `defineEventHandler(async
   * (event) => {…})`, `computed(() => {…})`), so that a long one is cut between its inner
   * functions, not inside them.
   */
  private valueBoundaries(v: t.Node, floor: number): number[] {
    if (v.type === 'ArrayExpression') return v.elements.filter((e): e is NonNullable<typeof e> => !!e).map((e) => this.off + e.start!);
    if (v.type !== 'CallExpression') return [];
    const fn = [...v.arguments].reverse().find((a) => isFn(unwrapExpr(a)));
    return fn ? this.fnBoundaries(unwrapExpr(fn) as t.ArrowFunctionExpression | t.FunctionExpression, floor) : [];
  }

  private objectMembers(obj: t.ObjectExpression, symbol: string): Unit[] {
    const out: Unit[] = [];
    let floor = this.off + obj.start! + 1;
    for (const p of obj.properties) {
      const range = this.withComments(p, floor);
      floor = this.off + p.end!;
      if (p.type === 'SpreadElement') continue;
      const name = this.keyName(p.key, p.computed);
      const sym = `${symbol}.${name}`;
      if (p.type === 'ObjectMethod') {
        out.push({ kind: 'method', symbol: sym, parent: symbol, range, signature: this.signatureOf(p, p.body.start), boundaries: this.fnBoundaries(p, range.start) });
        continue;
      }
      const v = unwrapExpr(p.value);
      if (isFn(v)) {
        out.push({ kind: 'method', symbol: sym, parent: symbol, range, signature: this.signatureOf(p, v.body.start), boundaries: this.fnBoundaries(v, range.start) });
      } else if (v.type === 'ObjectExpression') {
        out.push({ kind: 'object', symbol: sym, parent: symbol, range, signature: this.signatureOf(p, v.start), members: this.objectMembers(v, sym), boundaries: [] });
      } else {
        out.push({ kind: 'property', symbol: sym, parent: symbol, range, signature: this.lineOf(range), boundaries: this.valueBoundaries(v, range.start) });
      }
    }
    return out;
  }

  private classMembers(cls: t.ClassDeclaration | t.ClassExpression, symbol: string): Unit[] {
    const out: Unit[] = [];
    let floor = this.off + cls.body.start! + 1;
    for (const m of cls.body.body) {
      const range = this.withComments(m, floor);
      floor = this.off + m.end!;
      if (m.type === 'StaticBlock' || m.type === 'TSIndexSignature') continue;
      const key = 'key' in m ? (m.key as t.Node) : undefined;
      const name = key ? this.keyName(key, 'computed' in m ? !!m.computed : false) : 'member';
      const sym = `${symbol}.${name}`;
      if (m.type === 'ClassMethod' || m.type === 'ClassPrivateMethod' || m.type === 'TSDeclareMethod') {
        const body = 'body' in m ? (m.body as t.Node | undefined) : undefined;
        out.push({ kind: 'method', symbol: sym, parent: symbol, range, signature: this.signatureOf(m, body?.start), boundaries: this.fnBoundaries(m, range.start) });
      } else if ((m.type === 'ClassProperty' || m.type === 'ClassPrivateProperty' || m.type === 'ClassAccessorProperty') && m.value && isFn(unwrapExpr(m.value))) {
        const fn = unwrapExpr(m.value) as t.ArrowFunctionExpression;
        out.push({ kind: 'method', symbol: sym, parent: symbol, range, signature: this.signatureOf(m, fn.body.start), boundaries: this.fnBoundaries(fn, range.start) });
      } else {
        out.push({ kind: 'property', symbol: sym, parent: symbol, range, signature: this.lineOf(range), boundaries: [] });
      }
    }
    return out;
  }

  /** Units of a statement list, and the statement starts (for packing leftover code). */
  statementUnits(body: t.Statement[], floor: number, prefix: string, depth = 0): { units: Unit[]; starts: number[] } {
    const units: Unit[] = [];
    const starts: number[] = [];
    let f = floor;
    for (const stmt of body) {
      const range = this.withComments(stmt, f);
      f = this.off + stmt.end!;
      starts.push(range.start);
      const inner = depth < MAX_CALL_DEPTH && !this.o.generated ? this.callBodies(stmt, prefix, depth) : undefined;
      if (inner) {
        // a call's functions (an IIFE, a UMD factory, `define(…)`, `describe(…)`): their declarations are
        // units, and a call over budget is cut between their statements (one within budget stays whole)
        if (this.overBudget(range)) starts.push(...inner.starts);
        if (inner.units.length) {
          units.push(...inner.units);
          continue;
        }
      }
      const u = this.unitOf(stmt, range, prefix);
      if (u) units.push(u);
    }
    return { units, starts };
  }

  /**
   * The functions a statement that is a call hands over or calls, read as statement lists: an
   * IIFE (`(function () { … })()`, `!function () { … }()`, `(function () { … }).call(this)`), a
   * UMD wrapper (`(function (root, factory) { … })(this, function () { … })`: the factory), AMD's
   * `define([…], function () { … })`, a test suite's `describe('…', () => { … })`. Their
   * declarations are units as if at the top level, under their own names (`parseQuery`, not cut
   * into nameless module code as before), and their statement starts are where the call's own
   * code is cut (between two `it(…)`, not inside one). Undefined when the statement is no such call.
   */
  private callBodies(stmt: t.Statement, prefix: string, depth: number): { units: Unit[]; starts: number[] } | undefined {
    if (stmt.type !== 'ExpressionStatement') return undefined;
    let e = unwrapExpr(stmt.expression);
    if (e.type === 'UnaryExpression') e = unwrapExpr(e.argument);
    if (e.type !== 'CallExpression' && e.type !== 'NewExpression') return undefined;
    const callee = unwrapExpr(e.callee);
    // `(function () { … }).call(this)`
    const called = callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' && /^(?:call|apply)$/.test(callee.property.name) ? unwrapExpr(callee.object) : callee;
    const fns = [called, ...e.arguments.map((a) => unwrapExpr(a))].filter((f): f is t.FunctionExpression | t.ArrowFunctionExpression => isFn(f) && f.body.type === 'BlockStatement');
    if (!fns.length) return undefined;
    const units: Unit[] = [];
    const starts: number[] = [];
    for (const fn of fns) {
      const body = fn.body as t.BlockStatement;
      const inner = this.statementUnits(body.body, this.off + body.start! + 1, prefix, depth + 1);
      units.push(...inner.units);
      starts.push(...inner.starts);
    }
    return { units, starts };
  }

  /** The unit a top-level (or namespace-level) statement declares, if any. */
  private unitOf(stmt: t.Statement, range: Range, prefix: string): Unit | undefined {
    const at: UnitPlace = { range, q: (name) => (prefix ? `${prefix}.${name}` : name), parent: prefix || undefined };
    let decl: t.Node = stmt;
    let exported = false;
    if (stmt.type === 'ExportNamedDeclaration' || stmt.type === 'ExportDefaultDeclaration') {
      if (!stmt.declaration) return undefined;
      decl = stmt.declaration;
      exported = true;
    }
    const defaultName = this.o.defaultName ?? 'default';
    switch (decl.type) {
      case 'FunctionDeclaration':
      case 'TSDeclareFunction':
      case 'ClassDeclaration':
      case 'TSInterfaceDeclaration':
      case 'TSTypeAliasDeclaration':
      case 'TSEnumDeclaration':
      case 'TSModuleDeclaration':
        return this.declarationUnit(decl, defaultName, at);
      case 'VariableDeclaration':
        return this.variableUnit(decl, exported, at);
      default:
        if (stmt.type === 'ExportDefaultDeclaration') return this.defaultExportUnit(stmt, decl, defaultName, at);
        return this.assignmentUnit(decl, at) ?? this.registrationUnit(decl, at);
    }
  }

  /** A declaration by keyword: a function, class, interface, type, enum or namespace. */
  private declarationUnit(
    decl: t.FunctionDeclaration | t.TSDeclareFunction | t.ClassDeclaration | t.TSInterfaceDeclaration | t.TSTypeAliasDeclaration | t.TSEnumDeclaration | t.TSModuleDeclaration,
    defaultName: string,
    { range, q, parent }: UnitPlace,
  ): Unit {
    switch (decl.type) {
      case 'FunctionDeclaration':
      case 'TSDeclareFunction': {
        const name = decl.id?.name ?? defaultName;
        const body = 'body' in decl ? (decl.body as t.Node | undefined) : undefined;
        return { kind: 'function', symbol: q(name), parent, range, signature: this.signatureOf(decl, body?.start), boundaries: decl.type === 'FunctionDeclaration' ? this.fnBoundaries(decl, range.start) : [] };
      }
      case 'ClassDeclaration': {
        const name = decl.id?.name ?? defaultName;
        return { kind: 'class', symbol: q(name), parent, range, signature: this.signatureOf(decl, decl.body.start), members: this.classMembers(decl, q(name)), boundaries: [] };
      }
      case 'TSInterfaceDeclaration':
        return { kind: 'interface', symbol: q(decl.id.name), parent, range, signature: this.signatureOf(decl, decl.body.start), boundaries: decl.body.body.map((m) => this.off + m.start!) };
      case 'TSTypeAliasDeclaration':
        return { kind: 'type', symbol: q(decl.id.name), parent, range, signature: this.lineOf(range), boundaries: [] };
      case 'TSEnumDeclaration': {
        const members = 'members' in decl ? (decl.members as t.Node[]) : [];
        return { kind: 'enum', symbol: q(decl.id.name), parent, range, signature: firstLine(this.src(decl)), boundaries: members.map((m) => this.off + m.start!) };
      }
      case 'TSModuleDeclaration': {
        const name = decl.id.type === 'Identifier' ? decl.id.name : decl.id.value;
        const body = decl.body;
        const members = body && body.type === 'TSModuleBlock' ? this.statementUnits(body.body, this.off + body.start! + 1, q(name)).units : [];
        return { kind: 'namespace', symbol: q(name), parent, range, signature: this.signatureOf(decl, body?.start), members, boundaries: [] };
      }
    }
  }

  /** `const x = …`: a function, class or object it holds; exported consts, and consts built from a function. */
  private variableUnit(decl: t.VariableDeclaration, exported: boolean, { range, q, parent }: UnitPlace): Unit | undefined {
    if (decl.declarations.length !== 1) return exported || this.o.declarations ? { kind: 'const', symbol: q(decl.declarations.map((d) => this.src(d.id)).join(', ')), parent, range, signature: this.lineOf(range), boundaries: decl.declarations.map((d) => this.off + d.start!) } : undefined;
    const d = decl.declarations[0];
    const name = d.id.type === 'Identifier' ? d.id.name : this.src(d.id);
    const init = d.init ? unwrapExpr(d.init) : undefined;
    if (init && isFn(init)) return { kind: 'function', symbol: q(name), parent, range, signature: this.signatureOf(decl, init.body.start), boundaries: this.fnBoundaries(init, range.start) };
    if (init && init.type === 'ClassExpression') return { kind: 'class', symbol: q(name), parent, range, signature: this.signatureOf(decl, init.body.start), members: this.classMembers(init, q(name)), boundaries: [] };
    const obj = init?.type === 'ObjectExpression' ? init : init ? factoryObject(init) : undefined;
    if (obj && (exported || obj.properties.some((p) => p.type === 'ObjectMethod' || (p.type === 'ObjectProperty' && isFn(unwrapExpr(p.value)))))) {
      return { kind: 'object', symbol: q(name), parent, range, signature: this.signatureOf(decl, obj.start), members: this.objectMembers(obj, q(name)), boundaries: [] };
    }
    // exported consts, and consts built from a function (`computed(() => …)`, `watch`, `useX(…)`); every one when asked (`declarations`)
    if (exported || this.o.declarations || (init && init.type === 'CallExpression' && init.arguments.some((a) => isFn(unwrapExpr(a))))) {
      return { kind: 'const', symbol: q(name), parent, range, signature: this.lineOf(range), boundaries: init ? this.valueBoundaries(init, range.start) : [] };
    }
    return undefined;
  }

  /**
   * `export default` of an expression: a function, class, object (or one handed to a factory),
   * else a const; a plain script's `export default Legend` stays `default` (the name is Legend's).
   */
  private defaultExportUnit(stmt: t.ExportDefaultDeclaration, decl: t.Node, defaultName: string, { range, q, parent }: UnitPlace): Unit {
    const e = unwrapExpr(decl);
    const symbol = q(defaultName);
    if (isFn(e)) return { kind: 'function', symbol, parent, range, signature: this.signatureOf(stmt, e.body.start), boundaries: this.fnBoundaries(e, range.start) };
    if (e.type === 'ClassExpression') return { kind: 'class', symbol, parent, range, signature: this.signatureOf(stmt, e.body.start), members: this.classMembers(e, symbol), boundaries: [] };
    const obj = e.type === 'ObjectExpression' ? e : factoryObject(e);
    if (obj) return { kind: 'object', symbol, parent, range, signature: this.signatureOf(stmt, obj.start), members: this.objectMembers(obj, symbol), boundaries: [] };
    return { kind: 'const', symbol: this.o.defaultFromFile && namesOther(e) ? q('default') : symbol, parent, range, signature: this.lineOf(range), boundaries: this.valueBoundaries(e, range.start) };
  }

  /** module.exports = {...}; Foo.prototype.bar = function () {}; exports.baz = () => {} */
  private assignmentUnit(decl: t.Node, { range, q, parent }: UnitPlace): Unit | undefined {
    if (decl.type !== 'ExpressionStatement' || decl.expression.type !== 'AssignmentExpression') return undefined;
    const left = decl.expression.left;
    const right = unwrapExpr(decl.expression.right);
    const name = this.src(left);
    if (left.type !== 'MemberExpression' || name.length > 120) return undefined;
    if (isFn(right)) return { kind: 'function', symbol: q(name), parent, range, signature: this.signatureOf(decl, right.body.start), boundaries: this.fnBoundaries(right, range.start) };
    if (right.type === 'ClassExpression') return { kind: 'class', symbol: q(name), parent, range, signature: this.signatureOf(decl, right.body.start), members: this.classMembers(right, q(name)), boundaries: [] };
    const obj = right.type === 'ObjectExpression' ? right : factoryObject(right);
    if (obj && name === 'module.exports') return { kind: 'object', symbol: q(name), parent, range, signature: this.signatureOf(decl, obj.start), members: this.objectMembers(obj, q(name)), boundaries: [] };
    return undefined;
  }

  /** Vue.component('name', {...}) and similar registrations. */
  private registrationUnit(decl: t.Node, { range, q, parent }: UnitPlace): Unit | undefined {
    if (decl.type !== 'ExpressionStatement') return undefined;
    const obj = factoryObject(decl.expression);
    if (!obj) return undefined;
    const call = unwrapExpr(decl.expression) as t.CallExpression;
    const first = call.arguments[0];
    const name = first && first.type === 'StringLiteral' ? first.value : calleeName(call.callee);
    return { kind: 'object', symbol: q(name), parent, range, signature: this.signatureOf(decl, obj.start), members: this.objectMembers(obj, q(name)), boundaries: [] };
  }
}

/** Where a statement's unit sits: its range; `q` qualifies a name with the symbol prefix (a namespace's), `parent` is that prefix, if any. */
interface UnitPlace {
  range: Range;
  q: (name: string) => string;
  parent: string | undefined;
}

export interface Registration {
  /** The registered name (`k-panel`, `RouterLink`, `ElButton`). */
  name: string;
  /** The component registered under it (an identifier or member path). */
  component: string;
  /** Offset of the call in the text searched. */
  at: number;
  /** The text that registers it (`.component('k-panel', KPanel)`). */
  call: string;
  /** The name is a string literal (`'k-panel'`), not read off the component (`Button.name`). */
  literal: boolean;
}

/**
 * Global registrations of components in code: `app.component('<name>', <Component>)`,
 * `Vue.component(…)` (any receiver, chained calls too), `app.component(Button.name, Button)`, and
 * component libraries' install wrappers `const ElButton = withInstall(Button, …)`. Found in the
 * text, not the syntax tree, so that the client code a build step writes into a template string
 * counts too. A registration with an inline definition (`Vue.component('x', { … })`) names no
 * component and is not listed.
 */
export function findRegistrations(text: string): Registration[] {
  const out: Registration[] = [];
  for (const m of text.matchAll(/\.\s*component\(\s*(?:(['"`])([\w$-]+)\1|([\w$]+)\.name)\s*,\s*([\w$]+(?:\.[\w$]+)*)\s*[,)]/g)) {
    if (m[3] !== undefined && m[3] !== m[4]) continue;
    out.push({ name: m[2] ?? m[3], component: m[4], at: m.index, call: m[0].replace(/[,)]$/, ''), literal: m[2] !== undefined });
  }
  for (const m of text.matchAll(/\b(?:const|let|var)\s+([\w$]+)\s*=\s*withInstall\(\s*([\w$]+)/g)) {
    out.push({ name: m[1], component: m[2], at: m.index, call: m[0], literal: true });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A chunk that registers components carries `global registration <name> <Component>` as search terms. */
function withRegistrations(c: Chunk): Chunk {
  if (!c.text.includes('component(') && !c.text.includes('withInstall(')) return c;
  const regs = findRegistrations(c.text);
  if (!regs.length) return c;
  const terms = [...new Set(regs.map((r) => `global registration ${r.name} ${r.component}`))].join('\n');
  const had = c.meta?.[SEARCH_TERMS_META];
  return { ...c, meta: { ...c.meta, [SEARCH_TERMS_META]: typeof had === 'string' ? `${had}\n${terms}` : terms } };
}
