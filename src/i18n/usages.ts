/**
 * Usages of i18n keys in code, found on the AST (@babel/parser for scripts and template
 * expressions, @vue/compiler-sfc's template AST for Vue), never by a regex over the text:
 *
 * - calls whose callee is `t`, `$t`, `tc`, `$tc`, `te`, `$te`, `tm`, `$tm` (vue-i18n,
 *   i18next) — plain (`t('a')`), or as a member (`this.$t`, `i18n.t`, `i18next.t`,
 *   `this.$i18n.t`, `vm.$tc`); the first argument is the key;
 * - names bound from `useI18n()`, `useTranslation('ns', {keyPrefix})` (react-i18next) and
 *   `useTranslations('A.B')` / `getTranslations('A.B')` (next-intl), renamed or not
 *   (`const { t: tr } = useI18n()`): their namespace and key prefix apply;
 * - `t('common:save')` and `t('save', { ns: 'common' })` (i18next namespaces);
 * - JSX `i18nKey="a.b"` (react-i18next `<Trans>`);
 * - Vue templates: `$t`/`t` calls in interpolations and in every directive's expression
 *   (`:title`, `v-html`, `@click` …), `v-t="'a.b'"` and `v-t="{ path: 'a.b' }"`,
 *   `<i18n-t keypath="a.b">`, `<i18n path="a.b">` (and their bound `:keypath="'a.b'"`).
 *
 * A key that is not a string constant is **dynamic**: `$t(\`x.${y}\`)` and `$t('x.' + y)` are
 * reported with their static prefix (`x.`); a key with no static prefix at all is not a usage.
 * A file whose text names no translation function at all is not parsed.
 */
import { parse, parseExpression, type ParserPlugin } from '@babel/parser';
import type * as t from '@babel/types';
import { parse as parseSfc } from '@vue/compiler-sfc';
import { BASE_PLUGINS, LENIENT_PARSE } from '../chunkers/javascript';
import { SourceText } from '../chunkers/source';
import type { Usage } from './types';

const T_FUNCS = new Set(['t', '$t', 'tc', '$tc', 'te', '$te', 'tm', '$tm']);
const HOOKS = new Set(['useI18n', 'useTranslation', 'useTranslations', 'getTranslations', 'getFixedT']);
const SCRIPT_EXT = /\.(?:[cm]?[jt]sx?)$/i;
/** Cheap filter before parsing: no translation function, no usage. */
const MAYBE = /\$?\bt[ce]?m?\s*\(|i18nKey|keypath|\bpath\s*=|v-t\b|useTranslation|useI18n|getTranslations|getFixedT/;
const SKIP_KEYS = new Set(['loc', 'start', 'end', 'leadingComments', 'trailingComments', 'innerComments', 'extra', 'range', 'comments', 'tokens', 'errors']);

interface Alias {
  namespace?: string;
  prefix?: string;
}

interface Raw {
  key: string;
  namespace?: string;
  dynamic: boolean;
  via: string;
  start: number;
  end: number;
}

/** Walks every AST node under `root` (children before siblings), calling `visit`. */
export function walkAst(root: unknown, visit: (n: t.Node) => void): void {
  const stack: unknown[] = [root];
  while (stack.length) {
    const n = stack.pop() as Record<string, unknown> | null;
    if (!n || typeof n !== 'object') continue;
    if (typeof n.type === 'string') visit(n as unknown as t.Node);
    const keys = Object.keys(n);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i];
      if (SKIP_KEYS.has(k)) continue;
      const v = n[k];
      if (Array.isArray(v)) {
        for (let j = v.length - 1; j >= 0; j--) if (v[j] && typeof v[j] === 'object') stack.push(v[j]);
      } else if (v && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string') stack.push(v);
    }
  }
}

/** Babel options for a script of this kind (the same recovery as the JS chunker). */
export function parseScriptAst(code: string, typescript: boolean, jsx: boolean): t.File | undefined {
  const base = BASE_PLUGINS;
  const attempts: ParserPlugin[][] = typescript ? [[...base, 'typescript', ...(jsx ? (['jsx'] as ParserPlugin[]) : [])], [...base, 'typescript']] : [[...base, 'jsx'], [...base, 'typescript']];
  for (const plugins of attempts) {
    try {
      return parse(code, {
        ...LENIENT_PARSE,
        plugins,
      });
    } catch {
      continue;
    }
  }
  return undefined;
}

/** A template expression (`$t('a')`, or `@click` statements) parsed as an expression, else as statements. */
export function parseTemplateExpression(code: string): t.Node | undefined {
  try {
    return parseExpression(code, { plugins: ['typescript'], errorRecovery: true });
  } catch {
    try {
      return parse(code, { plugins: ['typescript'], errorRecovery: true, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true }).program;
    } catch {
      return undefined;
    }
  }
}

function stringValue(n: t.Node | undefined | null): string | undefined {
  if (!n) return undefined;
  if (n.type === 'StringLiteral') return n.value;
  if (n.type === 'TemplateLiteral' && n.expressions.length === 0) return n.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

/** The key named by a key argument: static (`'a.b'`), or dynamic with its static prefix. */
function keyOf(n: t.Node | undefined | null): { key: string; dynamic: boolean; start: number; end: number } | undefined {
  if (!n || n.start == null || n.end == null) return undefined;
  const s = stringValue(n);
  if (s !== undefined) return { key: s, dynamic: false, start: n.start + 1, end: n.end - 1 };
  if (n.type === 'TemplateLiteral') {
    const prefix = n.quasis[0]?.value.cooked ?? '';
    return prefix ? { key: prefix, dynamic: true, start: n.start, end: n.end } : undefined;
  }
  if (n.type === 'BinaryExpression' && n.operator === '+') {
    let left: t.Node = n;
    while (left.type === 'BinaryExpression' && left.operator === '+') left = left.left;
    const prefix = stringValue(left);
    return prefix ? { key: prefix, dynamic: true, start: n.start, end: n.end } : undefined;
  }
  return undefined;
}

function propString(obj: t.Node | undefined, name: string): string | undefined {
  if (obj?.type !== 'ObjectExpression') return undefined;
  for (const p of obj.properties) {
    if (p.type !== 'ObjectProperty' || p.computed) continue;
    const k = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'StringLiteral' ? p.key.value : undefined;
    if (k === name) return stringValue(p.value);
  }
  return undefined;
}

function calleeName(c: t.Node, code: string): { name: string; via: string } | undefined {
  if (c.type === 'Identifier') return { name: c.name, via: c.name };
  if (c.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier') {
    const via = code.slice(c.start!, c.end!).replace(/\s+/g, '');
    return { name: c.property.name, via: via.length > 40 ? c.property.name : via };
  }
  if (c.type === 'OptionalMemberExpression' && !c.computed && c.property.type === 'Identifier') return { name: c.property.name, via: c.property.name };
  return undefined;
}

/** i18next's `ns:key` (the namespace separator), else the namespace the call implies. */
function splitNamespace(raw: string, dynamic: boolean, namespace: string | undefined): { key: string; namespace?: string } {
  const m = /^([\w./-]+):(?!\s)(.*)$/s.exec(raw);
  if (m && (!dynamic || m[2])) return { key: m[2], namespace: m[1] };
  return { key: raw, namespace };
}

/** `useTranslation('ns', { keyPrefix })` / `useTranslations('A.B')` → what its `t` implies. */
function hookContext(call: t.CallExpression): Alias {
  const callee = call.callee.type === 'Identifier' ? call.callee.name : '';
  const a0 = call.arguments[0] as t.Node | undefined;
  if (callee === 'useTranslations' || callee === 'getTranslations') {
    const ns = stringValue(a0) ?? propString(a0, 'namespace');
    return ns ? { prefix: `${ns}.` } : {};
  }
  if (callee === 'useTranslation' || callee === 'getFixedT') {
    const a = callee === 'getFixedT' ? (call.arguments[1] as t.Node | undefined) : a0;
    const ns = stringValue(a) ?? (a?.type === 'ArrayExpression' ? stringValue(a.elements[0] as t.Node) : undefined);
    const kp = propString(call.arguments[callee === 'getFixedT' ? 2 : 1] as t.Node | undefined, 'keyPrefix');
    return { namespace: ns, prefix: kp ? `${kp}.` : undefined };
  }
  return {};
}

/** Names bound from the i18n hooks, with the namespace/prefix they imply. */
function collectAliases(ast: t.Node, into: Map<string, Alias>): void {
  walkAst(ast, (n) => {
    if (n.type !== 'VariableDeclarator' || !n.init) return;
    let init: t.Node = n.init;
    if (init.type === 'AwaitExpression') init = init.argument;
    if (init.type !== 'CallExpression' || init.callee.type !== 'Identifier' || !HOOKS.has(init.callee.name)) return;
    const ctx = hookContext(init);
    if (n.id.type === 'Identifier') {
      // next-intl: const t = useTranslations('A'); i18next: const t = getFixedT(…)
      if (init.callee.name !== 'useI18n' && init.callee.name !== 'useTranslation') into.set(n.id.name, ctx);
      return;
    }
    if (n.id.type !== 'ObjectPattern') return;
    for (const p of n.id.properties) {
      if (p.type !== 'ObjectProperty' || p.computed || p.key.type !== 'Identifier') continue;
      const local = p.value.type === 'Identifier' ? p.value.name : p.value.type === 'AssignmentPattern' && p.value.left.type === 'Identifier' ? p.value.left.name : undefined;
      if (local && T_FUNCS.has(p.key.name)) into.set(local, ctx);
    }
  });
}

/** Usages in one parsed script or expression; offsets of `ast` are relative to `code`, which starts at `off`. */
function scan(ast: t.Node, code: string, off: number, aliases: Map<string, Alias>, out: Raw[]): void {
  walkAst(ast, (n) => {
    if (n.type === 'CallExpression' || n.type === 'OptionalCallExpression') {
      const cal = calleeName(n.callee, code);
      if (!cal) return;
      const alias = n.callee.type === 'Identifier' ? aliases.get(cal.name) : undefined;
      if (!alias && !T_FUNCS.has(cal.name)) return;
      const k = keyOf(n.arguments[0] as t.Node | undefined);
      if (!k) return;
      const { key, namespace } = splitNamespace(k.key, k.dynamic, propString(n.arguments[1] as t.Node | undefined, 'ns') ?? alias?.namespace);
      out.push({ key: alias?.prefix ? alias.prefix + key : key, namespace, dynamic: k.dynamic, via: cal.via, start: off + k.start, end: off + k.end });
    } else if (n.type === 'JSXAttribute' && n.name.type === 'JSXIdentifier' && n.name.name === 'i18nKey') {
      const v = n.value?.type === 'JSXExpressionContainer' ? n.value.expression : n.value;
      const k = keyOf(v as t.Node | undefined);
      if (k) out.push({ ...splitNamespace(k.key, k.dynamic, undefined), dynamic: k.dynamic, via: 'i18nKey', start: off + k.start, end: off + k.end });
    }
  });
}

interface TNode {
  type: number;
  tag?: string;
  name?: string;
  loc: { start: { offset: number }; end: { offset: number } };
  props?: TNode[];
  children?: TNode[];
  content?: TNode | string;
  exp?: { content: string; loc: { start: { offset: number } } };
  arg?: { content?: string };
  value?: { content: string; loc: { start: { offset: number }; end: { offset: number } } };
}

const KEYPATH_TAGS = new Set(['i18n-t', 'i18n', 'i18nt', 'translation']);
const KEYPATH_ATTRS = new Set(['keypath', 'path']);

function scanTemplate(root: TNode, text: string, aliases: Map<string, Alias>, out: Raw[]): void {
  const expr = (code: string, start: number, via?: string) => {
    if (!MAYBE.test(code) && !via) return;
    const ast = parseTemplateExpression(code);
    if (!ast) return;
    if (via) {
      // v-t="'a.b'" / v-t="{ path: 'a.b' }" / :keypath="'a.b'"
      const node = ast.type === 'ObjectExpression' ? (ast.properties.find((p) => p.type === 'ObjectProperty' && !p.computed && p.key.type === 'Identifier' && p.key.name === 'path') as t.ObjectProperty | undefined)?.value : ast;
      const k = keyOf(node as t.Node | undefined);
      if (k) out.push({ key: k.key, dynamic: k.dynamic, via, start: start + k.start, end: start + k.end });
      return;
    }
    scan(ast, code, start, aliases, out);
  };
  const stack: TNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 5 && n.content && typeof n.content === 'object') {
      const c = n.content as TNode & { content: string };
      if (typeof c.content === 'string') expr(c.content, c.loc.start.offset);
    }
    if (n.type === 1) {
      const tag = (n.tag ?? '').toLowerCase();
      for (const p of n.props ?? []) {
        if (p.type === 6 && KEYPATH_TAGS.has(tag) && KEYPATH_ATTRS.has((p.name ?? '').toLowerCase()) && p.value) {
          const v = p.value;
          const q = text[v.loc.start.offset];
          const inner = q === '"' || q === "'" ? 1 : 0;
          out.push({ key: v.content, dynamic: false, via: `<${n.tag} ${p.name}>`, start: v.loc.start.offset + inner, end: v.loc.end.offset - inner });
        } else if (p.type === 7 && p.exp && typeof p.exp.content === 'string') {
          if (p.name === 'for' || p.name === 'slot') continue;
          if (p.name === 't') expr(p.exp.content, p.exp.loc.start.offset, 'v-t');
          else if (p.name === 'bind' && KEYPATH_TAGS.has(tag) && KEYPATH_ATTRS.has((p.arg?.content ?? '').toLowerCase())) expr(p.exp.content, p.exp.loc.start.offset, `<${n.tag} :${p.arg?.content}>`);
          else expr(p.exp.content, p.exp.loc.start.offset);
        }
      }
    }
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
}

function toUsages(rel: string, text: string, raws: Raw[]): Usage[] {
  if (!raws.length) return [];
  const src = new SourceText(text);
  raws.sort((a, b) => a.start - b.start);
  return raws.map((r) => ({
    file: rel,
    key: r.key,
    namespace: r.namespace,
    dynamic: r.dynamic,
    via: r.via,
    range: { start: src.position(r.start), end: src.position(r.end) },
  }));
}

/** Every key usage in one file (JS/TS/JSX/TSX or Vue SFC); other files have none. Never throws. */
export function findUsages(rel: string, text: string): Usage[] {
  const lower = rel.toLowerCase();
  const isVue = lower.endsWith('.vue');
  if (!isVue && !SCRIPT_EXT.test(lower)) return [];
  if (!MAYBE.test(text)) return [];
  const raws: Raw[] = [];
  const aliases = new Map<string, Alias>();
  try {
    if (!isVue) {
      const ext = lower.slice(lower.lastIndexOf('.') + 1);
      const ts = ext.includes('ts');
      const ast = parseScriptAst(text, ts, ext.endsWith('x') || !ts);
      if (!ast) return [];
      collectAliases(ast, aliases);
      scan(ast, text, 0, aliases, raws);
      return toUsages(rel, text, raws);
    }
    const { descriptor } = parseSfc(text, { filename: rel, sourceMap: false, ignoreEmpty: false });
    for (const s of [descriptor.script, descriptor.scriptSetup]) {
      if (!s) continue;
      const lang = String(s.lang ?? 'js');
      const ast = parseScriptAst(s.content, lang.startsWith('ts'), lang.endsWith('x') || lang === 'js');
      if (!ast) continue;
      collectAliases(ast, aliases);
      scan(ast, s.content, s.loc.start.offset, aliases, raws);
    }
    const tpl = descriptor.template;
    if (tpl?.ast && (!tpl.lang || tpl.lang === 'html')) scanTemplate(tpl.ast as unknown as TNode, text, aliases, raws);
  } catch {
    // a file the parsers cannot read has no usages we can trust; its locale data (if any) is read elsewhere
    return toUsages(rel, text, raws);
  }
  return toUsages(rel, text, raws);
}
