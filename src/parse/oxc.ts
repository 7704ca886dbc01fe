/**
 * JavaScript/TypeScript parsed by oxc's native parser, handed back in Babel's shape, so every
 * reader (the JS chunker, the i18n usage finder, locale modules) keeps one AST to read.
 *
 * Why: Babel is a large JavaScript parser, and a cold index pays for V8 to compile it on every
 * isolate that parses, before it runs fast. oxc is Rust, ready at once: on the dev corpus's
 * 1,319 JS/TS files (3.3 MB) a first pass took 0.35 s and 0.37 s of CPU where Babel took 1.1 s
 * and 2.5 s of CPU (its compile threads included).
 *
 * oxc is only used where it agrees with Babel: a script oxc reports any error for (a syntax
 * error, Flow, a semantic error Babel would have recovered from and warned about) is parsed by
 * Babel as before. Where the native binding is missing (a platform without a prebuilt one) or
 * `FATHOM_JS_PARSER=babel` is set, Babel parses everything. The conversion below gives the
 * readers the nodes they read: chunks and usages are the same either way (test/unit/oxc.test.ts
 * compares them over every fixture; bench/parser-identity.ts over whole corpora).
 *
 * The binding is loaded directly (`@oxc-parser/binding-<platform>`), not through oxc-parser's
 * ES-module wrapper, so that the CommonJS bundles (CLI, extension, worker) can require it.
 */
import type * as t from '@babel/types';
import { isMainThread, resourceLimits } from 'node:worker_threads';
import { errText } from '../util/errors';
import { parseRaw, type RawBinding } from './oxc-raw';

interface OxcComment {
  type: 'Line' | 'Block';
  value: string;
  start: number;
  end: number;
}

interface OxcResult {
  program: string;
  comments: OxcComment[];
  errors: Array<{ message: string }>;
}

interface Binding extends RawBinding {
  parseSync(filename: string, source: string, options: Record<string, unknown>): OxcResult;
}

/** The prebuilt binding packages oxc publishes, by `platform-arch` (Linux: glibc first, then musl). */
const BINDINGS: Readonly<Record<string, readonly string[]>> = {
  'linux-x64': ['@oxc-parser/binding-linux-x64-gnu', '@oxc-parser/binding-linux-x64-musl'],
  'linux-arm64': ['@oxc-parser/binding-linux-arm64-gnu', '@oxc-parser/binding-linux-arm64-musl'],
  'darwin-x64': ['@oxc-parser/binding-darwin-x64'],
  'darwin-arm64': ['@oxc-parser/binding-darwin-arm64'],
  'win32-x64': ['@oxc-parser/binding-win32-x64-msvc'],
  'win32-arm64': ['@oxc-parser/binding-win32-arm64-msvc'],
};

let binding: Binding | null | undefined;
let problem: string | undefined;
let forced: boolean | undefined;

/**
 * The native stack oxc may use on this thread. oxc's parser recurses with the input's nesting
 * and has no stack guard: a script nested deep enough (24 KB of `(` in a worker thread of 4 MB)
 * overflows the thread's native stack, a segfault that takes the whole process down, where
 * Babel throws a RangeError the chunker catches. Measured: nesting costs oxc up to ~340 bytes of
 * stack a character of source (parentheses, the worst found: 12,000 levels crash a 4 MB stack,
 * 270,000 levels pass in 256 MB); `STACK_BYTES_PER_CHAR` keeps a margin over that, and a script
 * longer than this thread's stack allows goes to Babel. A worker thread's stack is its
 * `resourceLimits.stackSizeMb` (4 by default; Fathom's threads are started with
 * `THREAD_STACK_MB`); a main thread is taken as 4 MB (Linux gives it 8).
 */
export const STACK_BYTES_PER_CHAR = 512;

/**
 * The stack (MB) Fathom starts its worker and chunk threads with: with 256 MB oxc parses any
 * script under the chunking cap (512 KB); with Node's default 4 MB, only those under 8 KB.
 * Virtual memory: only the pages a deep script touches are committed.
 */
export const THREAD_STACK_MB = 256;

const stackBudget = (!isMainThread && resourceLimits.stackSizeMb ? resourceLimits.stackSizeMb : 4) * 2 ** 20;

/** The longest script oxc parses on this thread (characters); longer ones go to Babel. */
export function oxcMaxChars(): number {
  return Math.floor(stackBudget / STACK_BYTES_PER_CHAR);
}

function load(): Binding | null {
  if (binding !== undefined) return binding;
  binding = null;
  if (process.env.FATHOM_JS_PARSER === 'babel') {
    problem = 'FATHOM_JS_PARSER=babel';
    return null;
  }
  const names = BINDINGS[`${process.platform}-${process.arch}`];
  if (!names) {
    problem = `no prebuilt oxc parser for ${process.platform}-${process.arch}`;
    return null;
  }
  const errors: string[] = [];
  for (const name of names) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const b = require(name) as Binding;
      if (typeof b.parseSync === 'function') return (binding = b);
      errors.push(`${name}: no parseSync`);
    } catch (err) {
      errors.push(`${name}: ${errText(err)}`);
    }
  }
  problem = `the oxc parser did not load (${errors.join('; ')})`;
  return null;
}

/**
 * Scripts with most kinds of node, for `warmUp`: TypeScript and JSX, classes, private names,
 * optional chains, every kind of literal, patterns, templates, modules.
 */
export const WARM_UP: ReadonlyArray<readonly ['ts' | 'tsx' | 'jsx', string]> = [
  [
    'ts',
    `import x, { y as z } from './a';
export interface I<T> { a?: T; readonly b: string[]; m(p: number): void }
export type U = { k: 'a' | 1 } & Partial<I<number>>;
enum E { A = 1, B }
@dec() export abstract class C<T> extends D implements I<T> {
  #p = 1n; static s = /re/g; declare q: number; accessor r = null;
  constructor(private readonly v: T) { super(); }
  get g() { return this.#p ?? a?.b?.[c]?.(d)!; }
  abstract am(): void;
  async *gen<K extends keyof T>(...rest: K[]): AsyncGenerator<K> { for await (const k of rest) yield k as K; }
}
export default function f({ a, b: [c, ...d] = [] }: any, e = \`t\${1 + 2}\`) { label: while (true) { try { throw new Error(); } catch { break label; } finally { void 0; } } }
const o = { m() {}, get p() { return 1; }, set p(v) {}, [k]: true, ...s, n: -1.5e3, 'q': \`\${o}\` };
export const arrow = async (p?: string): Promise<void> => { await import('./b'); };
namespace N { export declare const x: number; }
declare module 'm' { export function g(): void; }
`,
  ],
  [
    'jsx',
    `import React from 'react';
export const App = ({ items, t }) => <div className="a" {...rest}>{items?.map((i) => <Item key={i.id} label={t('k.' + i)} />)}<>{'x'}</></div>;
module.exports = { App, re: /x/i, n: null, b: false, big: 10n };
`,
  ],
];

let warmed = false;

/**
 * Parses and converts `WARM_UP` before the thread's first script (not when the binding loads: a
 * thread that only asks `oxcStatus` parses nothing). V8 optimizes the AST walk soon after
 * it gets hot, with the node shapes it has seen; every new shape after that threw the optimized
 * code away (9 times on a cold index of 1,100 files). Having seen many shapes first, it compiles
 * once, for any shape. A warm-up that fails changes nothing.
 */
function warmUp(b: Binding): void {
  if (warmed) return;
  warmed = true;
  for (const [lang, code] of WARM_UP) {
    try {
      const r = parseWith(b, lang, code);
      if (!r.errors.length) toBabel(r.program, lang !== 'jsx');
    } catch {
      // nothing to warm
    }
  }
}

/** Whether scripts are parsed by oxc (else by Babel alone), and why not. */
export function oxcStatus(): { enabled: boolean; problem?: string } {
  if (forced === false) return { enabled: false, problem: 'turned off' };
  const b = load();
  return b ? { enabled: true } : { enabled: false, problem };
}

/** Turns oxc off (false) or back to the default (undefined): Babel-only runs for comparisons. */
export function useOxc(on: boolean | undefined): void {
  forced = on === false ? false : undefined;
}

/** Scripts oxc parsed, left to Babel (oxc reported an error), and left to Babel unread (longer than `oxcMaxChars`), in this thread. */
export const counts = { parsed: 0, declined: 0, tooLong: 0 };

const FILENAME = { ts: 'a.ts', tsx: 'a.tsx', jsx: 'a.jsx' } as const;

interface Parsed {
  program: Node;
  comments: OxcComment[];
  errors: unknown[];
}

/**
 * oxc's AST of `code` in its ESTree shape: through raw transfer where this thread has it
 * (`oxc-raw.ts`), else as JSON. Throws when the binding does.
 */
function parseWith(b: Binding, lang: 'ts' | 'tsx' | 'jsx', code: string): Parsed {
  // astType 'js' for plain scripts: no TypeScript fields (all empty there), a fifth less to read
  const options = { lang, astType: lang === 'jsx' ? 'js' : 'ts', sourceType: 'unambiguous', preserveParens: false, showSemanticErrors: true };
  const raw = parseRaw(b, FILENAME[lang], code, options);
  if (raw) return raw;
  const r = b.parseSync(FILENAME[lang], code, options);
  // JSON the binding cut short throws here
  return { program: r.errors.length ? ({} as Node) : (JSON.parse(r.program) as { node: Node }).node, comments: r.comments, errors: r.errors };
}

/**
 * The script's AST in Babel's shape, or undefined when oxc is not available or reports any
 * error for it (the caller then parses with Babel).
 */
export function oxcParse(code: string, typescript: boolean, jsx: boolean): t.File | undefined {
  if (forced === false) return undefined;
  const b = load();
  if (!b) return undefined;
  if (code.length > oxcMaxChars()) {
    counts.tooLong++;
    return undefined;
  }
  // a lone surrogate (a UTF-16 file can hold one) reaches oxc as U+FFFD: the string values it
  // gives (i18n keys) would differ from the text's
  if (!(code as string & { isWellFormed(): boolean }).isWellFormed()) {
    counts.declined++;
    return undefined;
  }
  warmUp(b);
  const lang = typescript ? (jsx ? 'tsx' : 'ts') : 'jsx';
  let r: Parsed | undefined;
  try {
    r = parseWith(b, lang, code);
    // a chain too long for `unchain` throws: Babel says what it makes of the script
    if (!r.errors.length) toBabel(r.program, typescript);
  } catch {
    r = undefined;
  }
  if (!r || r.errors.length) {
    counts.declined++;
    return undefined;
  }
  const program = r.program;
  counts.parsed++;
  program.start = 0;
  program.end = code.length;
  // `#!/usr/bin/env node`: Babel's InterpreterDirective, and not a comment (oxc lists it as one)
  const hashbang = program.hashbang as Node | null | undefined;
  if (hashbang) program.interpreter = { type: 'InterpreterDirective', start: hashbang.start, end: hashbang.end, value: hashbang.value };
  delete program.hashbang;
  const comments: Array<{ type: string; value: string; start: number; end: number }> = [];
  for (const c of r.comments) if (!hashbang || c.start !== hashbang.start) comments.push({ type: c.type === 'Line' ? 'CommentLine' : 'CommentBlock', value: c.value, start: c.start, end: c.end });
  return { type: 'File', start: 0, end: code.length, program, comments, errors: [] } as unknown as t.File;
}

type Node = Record<string, unknown> & { type: string; start: number; end: number };

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

/** Babel's names for an ESTree Literal. */
function literal(n: Node): void {
  const v = n.value;
  if (typeof v === 'string') n.type = 'StringLiteral';
  else if (typeof v === 'number') n.type = 'NumericLiteral';
  else if (typeof v === 'boolean') n.type = 'BooleanLiteral';
  else if (n.regex) {
    const re = n.regex as { pattern: string; flags: string };
    n.type = 'RegExpLiteral';
    n.pattern = re.pattern;
    n.flags = re.flags;
    delete n.regex;
    delete n.value;
  } else if (n.bigint != null) {
    n.type = 'BigIntLiteral';
    n.value = n.bigint;
    delete n.bigint;
  } else n.type = 'NullLiteral';
}

/** Moves a function's (FunctionExpression `value`) parameters and body onto the method node, as Babel has them. */
function flattenMethod(n: Node): void {
  const f = n.value as Node;
  n.params = f.params;
  n.body = f.body;
  n.async = f.async;
  n.generator = f.generator;
  if (f.typeParameters) n.typeParameters = f.typeParameters;
  if (f.returnType) n.returnType = f.returnType;
  delete n.value;
}

/** `#x` → Babel's PrivateName (the `#`) around an Identifier (the name). */
function privateName(n: Node): void {
  n.type = 'PrivateName';
  n.id = { type: 'Identifier', name: n.name, start: n.start + 1, end: n.end };
  delete n.name;
}

/**
 * An optional chain without its ChainExpression: Babel marks every member access and call from
 * the first `?.` up as OptionalMemberExpression / OptionalCallExpression.
 */
function unchain(n: Node): Node {
  const key = n.type === 'MemberExpression' ? 'object' : n.type === 'CallExpression' ? 'callee' : n.type === 'TSNonNullExpression' ? 'expression' : undefined;
  if (!key) return n;
  const below = unchain(n[key] as Node);
  n[key] = below;
  if (n.type === 'TSNonNullExpression') {
    // `a?.b!.c`: the chain goes on through the `!`, which keeps its own type
    if (below.type === 'OptionalMemberExpression' || below.type === 'OptionalCallExpression' || below.optionalChain === true) n.optionalChain = true;
    return n;
  }
  const optionalBelow = below.type === 'OptionalMemberExpression' || below.type === 'OptionalCallExpression' || below.optionalChain === true;
  if (n.optional || optionalBelow) n.type = n.type === 'MemberExpression' ? 'OptionalMemberExpression' : 'OptionalCallExpression';
  return n;
}

/** Leading `'use strict'`-like statements → Babel's `directives` (they are not in `body` there). */
function directives(n: Node): void {
  const body = n.body as Node[];
  let k = 0;
  while (k < body.length && typeof body[k].directive === 'string') k++;
  // pushed, not mapped: `map` makes a holey array, and the AST walks (here and in the readers),
  // optimized for the packed arrays JSON.parse makes, were thrown away at each new array kind
  const list: Node[] = [];
  for (let i = 0; i < k; i++) {
    const s = body[i];
    const e = s.expression as Node;
    list.push({ type: 'Directive', start: s.start, end: s.end, value: { type: 'DirectiveLiteral', start: e.start, end: e.end, value: s.directive } } as Node);
  }
  n.directives = list;
  if (k) n.body = body.slice(k);
}

/**
 * `namespace a.b.c {}`: oxc names it with a qualified name around one block; Babel nests one
 * TSModuleDeclaration per name, each from its name to the block's end.
 */
function nestModule(n: Node): void {
  const ids: Node[] = [];
  let q = n.id as Node;
  while (q.type === 'TSQualifiedName') {
    ids.unshift(q.right as Node);
    q = q.left as Node;
  }
  ids.unshift(q);
  let body = n.body as Node | undefined;
  for (let i = ids.length - 1; i >= 1; i--) body = { type: 'TSModuleDeclaration', start: ids[i].start, end: n.end, id: ids[i], body } as Node;
  n.id = ids[0];
  n.body = body;
}

/** Babel starts a decorated class (and an export of one) at its first decorator; oxc at `class`. */
function decoratedStart(n: Node, cls: Node): void {
  const d = cls.decorators as Node[] | undefined;
  if (d?.length && d[0].start < n.start) n.start = d[0].start;
}

/** The node types `convert` rewrites; every other node is only walked through. */
const CONVERTED = new Set([
  'Literal',
  'Property',
  'MethodDefinition',
  'TSAbstractMethodDefinition',
  'PropertyDefinition',
  'TSAbstractPropertyDefinition',
  'AccessorProperty',
  'TSAbstractAccessorProperty',
  'PrivateIdentifier',
  'TemplateElement',
  'ImportExpression',
  'TSEnumDeclaration',
  'TSModuleDeclaration',
  'ClassDeclaration',
  'ClassExpression',
  'ExportNamedDeclaration',
  'ExportDefaultDeclaration',
  'BlockStatement',
]);

/**
 * Rewrites an oxc (ESTree + TS-ESTree) AST in place into the Babel node shapes Fathom reads.
 * The walk is kept apart from the rewrites (`convert`, `pushChildren`): it sees every node
 * shape there is, and V8 optimized it again after each new shape or rare node type; as one
 * large function that cost ~1 s of compiler time a cold index (node --trace-opt), more than
 * the walk itself.
 */
function toBabel(root: Node, ts: boolean): void {
  directives(root);
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (CONVERTED.has(n.type) && convert(n, ts)) continue;
    pushChildren(n, stack);
  }
}

/** The child nodes of `n` onto the stack (an optional chain unwrapped on the way, see `unchain`). */
function pushChildren(n: Node, stack: Node[]): void {
  for (const k in n) {
    const v = n[k];
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        let c = v[i] as unknown;
        if (!isNode(c)) continue;
        if (c.type === 'ChainExpression') c = v[i] = unchain(c.expression as Node);
        stack.push(c as Node);
      }
    } else if (isNode(v)) {
      const c = v.type === 'ChainExpression' ? (n[k] = unchain(v.expression as Node)) : v;
      stack.push(c as Node);
    }
  }
}

/** Rewrites node `n` into Babel's shape; true when its children need no walk (a leaf). */
function convert(n: Node, ts: boolean): boolean {
  switch (n.type) {
    case 'Literal':
      literal(n);
      return true;
    case 'Property':
      if (n.method || n.kind === 'get' || n.kind === 'set') {
        n.type = 'ObjectMethod';
        n.kind = n.kind === 'init' ? 'method' : n.kind;
        flattenMethod(n);
      } else n.type = 'ObjectProperty';
      return false;
    case 'MethodDefinition':
    case 'TSAbstractMethodDefinition': {
      const f = n.value as Node;
      if (n.type === 'TSAbstractMethodDefinition') n.abstract = true;
      n.type = (n.key as Node).type === 'PrivateIdentifier' ? 'ClassPrivateMethod' : f.body == null ? 'TSDeclareMethod' : 'ClassMethod';
      flattenMethod(n);
      return false;
    }
    case 'PropertyDefinition':
    case 'TSAbstractPropertyDefinition':
      n.type = (n.key as Node).type === 'PrivateIdentifier' ? 'ClassPrivateProperty' : 'ClassProperty';
      return false;
    case 'AccessorProperty':
    case 'TSAbstractAccessorProperty':
      n.type = 'ClassAccessorProperty';
      return false;
    case 'PrivateIdentifier':
      privateName(n);
      return true;
    case 'TemplateElement':
      // a TS-ESTree span holds the delimiters (`` `x${ ``); Babel 7's (and plain ESTree's) only the text
      if (ts) {
        n.start += 1;
        n.end -= n.tail ? 1 : 2;
      }
      return true;
    case 'ImportExpression':
      n.type = 'CallExpression';
      n.callee = { type: 'Import', start: n.start, end: n.start + 6 };
      n.arguments = n.options ? [n.source, n.options] : [n.source];
      delete n.source;
      delete n.options;
      delete n.phase;
      return false;
    case 'TSEnumDeclaration': {
      const body = n.body as Node | undefined;
      if (body && Array.isArray(body.members)) {
        n.members = body.members;
        delete n.body;
      }
      return false;
    }
    case 'TSModuleDeclaration':
      if ((n.id as Node | undefined)?.type === 'TSQualifiedName') nestModule(n);
      return false;
    case 'ClassDeclaration':
    case 'ClassExpression':
      decoratedStart(n, n);
      return false;
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration':
      // `@D export class A {}`: Babel starts the export (and the class) at the decorator
      if (isNode(n.declaration)) decoratedStart(n, n.declaration);
      return false;
    case 'BlockStatement': {
      const body = n.body as Node[];
      if (body.length && typeof body[0].directive === 'string') directives(n);
      else n.directives = [];
      return false;
    }
    default:
      return false;
  }
}
