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
 * - react-intl / FormatJS: the `id` of `formatMessage({ id })` (`intl.formatMessage`, a
 *   `formatMessage` destructured from `useIntl()`, renamed or not, `formatHTMLMessage`), of
 *   `<FormattedMessage id>` / `<FormattedHTMLMessage id>`, of each message of
 *   `defineMessages({ k: { id } })` and of `defineMessage({ id })`; `formatMessage(messages.k)`
 *   and `<FormattedMessage {...messages.k} />` name the id that `messages` (a `defineMessages`
 *   of the same file) gives `k`;
 * - Docusaurus (`@docusaurus/Translate`): `translate({ id, message })` and
 *   `<Translate id="…">Text</Translate>`; without an `id`, the message (the children's text) is
 *   the key, as Docusaurus has it;
 * - Vue templates: `$t`/`t` calls in interpolations and in every directive's expression
 *   (`:title`, `v-html`, `@click` …), `v-t="'a.b'"` and `v-t="{ path: 'a.b' }"`,
 *   `<i18n-t keypath="a.b">`, `<i18n path="a.b">` (and their bound `:keypath="'a.b'"`).
 *
 * A key that is not a string constant is **dynamic**: `$t(\`x.${y}\`)` and `$t('x.' + y)` are
 * reported with their static prefix (`x.`); a key with no static prefix at all is not a usage.
 * A file whose text names no translation function at all is not parsed.
 *
 * Below the extractors of frameworks/ (Svelte's reads its scripts with `scriptUsages`); usages.ts
 * picks the extractor of a file.
 */
import { parse, parseExpression } from '@babel/parser';
import type * as t from '@babel/types';
import { parse as parseSfc } from '@vue/compiler-sfc';
import { parseScript } from '../parse/script';
import { ngTemplateUsages } from './frameworks/angular';
import type { Raw, UsageOptions } from './types';

const T_FUNCS = new Set(['t', '$t', 'tc', '$tc', 'te', '$te', 'tm', '$tm', '$ta']);
const HOOKS = new Set(['useI18n', 'useTranslation', 'useTranslations', 'getTranslations', 'getFixedT', 'useScopedI18n', 'getScopedI18n', 'getI18n']);
/** next-intl's `t.rich('k')`, `t.markup('k')`, `t.raw('k')`, `t.has('k')` on a bound `t`. */
const T_METHODS = new Set(['rich', 'markup', 'raw', 'has']);
/**
 * Methods that take a key when called on an object whose name says what it is:
 * ngx-translate `translate.instant/get/stream('K')`, transloco `transloco.translate('k')`,
 * WebExtensions `chrome.i18n.getMessage('name')`, Fluent `l10n.getString('id')`, UI5
 * `getResourceBundle().getText('key')`, Lingui `i18n._('id')`, fluent-vue `fluent.format('id')`.
 * A method destructured from such an object (`const { getMessage } = chrome.i18n`) takes a key too.
 */
const KEY_METHODS: Array<{ method: RegExp; object: RegExp }> = [
  { method: /^(?:instant|get|stream|translate|selectTranslate|selectTranslation)$/, object: /translat|transloco/i },
  { method: /^getMessage$/, object: /\bi18n$/ },
  { method: /^(?:getString|formatValue|setAttributes)$/, object: /l10n/i },
  { method: /^getText$/, object: /bundle|i18n/i },
  { method: /^_$/, object: /\bi18n$/ },
  { method: /^(?:format|formatAttrs)$/, object: /(?:^|\.)\$?fluent$/ },
];
const SCRIPT_EXT = /\.(?:[cm]?[jt]sx?)$/i;
/** JSX attributes that name a key: react-i18next `i18nKey`, a wrapper's `keypath`/`i18n-key`, Fluent `<Localized id>`. */
const JSX_KEY_ATTRS = new Set(['i18nKey', 'keypath', 'keyPath', 'i18n-key', 'tKey', 'translationKey', 'messageKey']);
/**
 * Cheap filter before parsing: no translation function, no usage. Every attribute of
 * `JSX_KEY_ATTRS` lets a file through: a component whose only key is a wrapper's `tKey` (or
 * `translationKey`, `messageKey`, `keyPath`) had its usages found only when it also called
 * something the rest of the filter names.
 */
const MAYBE = new RegExp(
  `${/\$?\bt[ce]?m?\s*[(`.]|\$ta\s*\(|i18nKey|keypath|\bpath\s*=|v-t\b|useTranslation|useI18n|getTranslations|getFixedT|ScopedI18n|getI18n|instant|translate|Translate|getMessage|getString|getText|l10n|Localized|transloco|\bi18n\._|@lingui\/|formatMessage|formatHTMLMessage|Formatted(?:HTML)?Message|defineMessages?\b/.source}|${[...JSX_KEY_ATTRS].map((a) => `\\b${a}\\b`).join('|')}`,
);
/** react-intl's formatting functions that take a message descriptor (`{ id, defaultMessage }`). */
const INTL_FUNCS = new Set(['formatMessage', 'formatHTMLMessage']);
/** react-intl's components whose `id` is a message id. */
const INTL_ELEMENTS = new Set(['FormattedMessage', 'FormattedHTMLMessage']);

const SKIP_KEYS = new Set(['loc', 'start', 'end', 'leadingComments', 'trailingComments', 'innerComments', 'extra', 'range', 'comments', 'tokens', 'errors']);

interface Alias {
  namespace?: string;
  prefix?: string;
}

/** A name bound from an i18n hook, and the function (or program) it is bound in. */
interface AliasDecl extends Alias {
  scopeStart: number;
  scopeEnd: number;
  at: number;
}

/**
 * The hook bindings of one script: `resolve(name, at)` is the binding of `name` visible at
 * offset `at` — the one of the innermost function containing `at` (two components of one file
 * each have their own `const t = useTranslations('A')`); `at` undefined (a template) takes the
 * top-level one, else the first.
 */
class Aliases {
  private readonly decls = new Map<string, AliasDecl[]>();
  /** react-intl: the names `formatMessage` goes by in this script (`const { formatMessage: fm } = useIntl()`). */
  readonly intl = new Set(INTL_FUNCS);
  /** react-intl: `const messages = defineMessages({ k: { id } })` → `messages` → `k` → the id's node. */
  readonly descriptors = new Map<string, Map<string, t.Node>>();
  /** Key methods destructured from their object: `const { getMessage } = chrome.i18n` → `getMessage`. */
  readonly keyFns = new Set<string>();
  /**
   * Names this script binds to something of its own, never a framework's: a variable holding an
   * object, array or literal (`const translate = {}`: its `.get('k')` is no ngx-translate call),
   * a function or class it declares. Key methods on them are not usages.
   */
  readonly own = new Set<string>();
  /** A `t` (or `$t` …) this script defines as a function that calls no translation API: its calls are not usages. */
  readonly localFns = new Set<string>();
  add(name: string, d: AliasDecl): void {
    const l = this.decls.get(name);
    if (l) l.push(d);
    else this.decls.set(name, [d]);
  }
  has(name: string): boolean {
    return this.decls.has(name);
  }
  resolve(name: string, at?: number): Alias | undefined {
    const l = this.decls.get(name);
    if (!l) return undefined;
    if (at === undefined) return l.reduce((a, b) => (b.scopeEnd - b.scopeStart > a.scopeEnd - a.scopeStart ? b : a));
    let best: AliasDecl | undefined;
    for (const d of l) {
      if (at < d.scopeStart || at > d.scopeEnd) continue;
      if (!best || d.scopeEnd - d.scopeStart < best.scopeEnd - best.scopeStart || (d.scopeStart === best.scopeStart && d.at <= at && d.at > best.at)) best = d;
    }
    return best;
  }
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

/** The script's AST with the same recovery as the JS chunker, or undefined when it does not parse. */
export function parseScriptAst(code: string, typescript: boolean, jsx: boolean): t.File | undefined {
  try {
    return parseScript(code, { typescript, jsx }).ast;
  } catch {
    return undefined;
  }
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

/** The strings an expression can only be: a literal, or a (nested) ternary of literals. */
function choices(n: t.Node, depth = 0): string[] | undefined {
  const s = stringValue(n);
  if (s !== undefined) return [s];
  if (n.type === 'ConditionalExpression' && depth < 4) {
    const a = choices(n.consequent, depth + 1);
    const b = a && choices(n.alternate, depth + 1);
    return a && b ? [...a, ...b] : undefined;
  }
  return undefined;
}

/**
 * The keys a key argument names: one static (`'a.b'`), or each of a template whose
 * placeholders are ternaries of literals (`` `list.${a ? 'edit' : 'delete'}_error` `` → both),
 * or one dynamic key with its static prefix.
 */
function keysOf(n: t.Node | undefined | null): Array<{ key: string; dynamic: boolean; start: number; end: number }> {
  if (!n || n.start == null || n.end == null) return [];
  if (n.type === 'TemplateLiteral' && n.expressions.length) {
    let keys: string[] | undefined = [n.quasis[0]?.value.cooked ?? ''];
    for (let i = 0; keys && i < n.expressions.length; i++) {
      const c = choices(n.expressions[i] as t.Node);
      const tail = n.quasis[i + 1]?.value.cooked ?? '';
      keys = c && keys.length * c.length <= 16 ? keys.flatMap((k) => c.map((x) => k + x + tail)) : undefined;
    }
    if (keys) return [...new Set(keys)].map((key) => ({ key, dynamic: false, start: n.start!, end: n.end! }));
  }
  if (n.type === 'ConditionalExpression') {
    const c = choices(n);
    if (c) return [...new Set(c)].map((key) => ({ key, dynamic: false, start: n.start!, end: n.end! }));
  }
  const k = keyOf(n);
  return k ? [k] : [];
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
  return stringValue(propNode(obj, name));
}

/** The value node of property `name` of an object literal (not computed), or undefined. */
function propNode(obj: t.Node | undefined | null, name: string): t.Node | undefined {
  if (obj?.type !== 'ObjectExpression') return undefined;
  for (const p of obj.properties) {
    if (p.type !== 'ObjectProperty' || p.computed) continue;
    const k = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'StringLiteral' ? p.key.value : undefined;
    if (k === name) return p.value as t.Node;
  }
  return undefined;
}

/** `defineMessages({ k: { id: 'a.b' } })` → `k` → the node of `'a.b'`. */
function descriptorIds(arg: t.Node | undefined): Map<string, t.Node> {
  const out = new Map<string, t.Node>();
  if (arg?.type !== 'ObjectExpression') return out;
  for (const p of arg.properties) {
    if (p.type !== 'ObjectProperty' || p.computed) continue;
    const k = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'StringLiteral' ? p.key.value : undefined;
    const id = propNode(p.value as t.Node, 'id');
    if (k !== undefined && id) out.set(k, id);
  }
  return out;
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
  if (callee === 'useTranslations' || callee === 'getTranslations' || callee === 'useScopedI18n' || callee === 'getScopedI18n') {
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

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod']);

/** Names bound from the i18n hooks, with the namespace/prefix they imply and the function they are bound in. */
function collectAliases(ast: t.Node, into: Aliases, off = 0, later?: t.Node[], code?: string): void {
  const fns: Array<[number, number]> = [];
  const found: Array<{ name: string; ctx: Alias; at: number }> = [];
  walkAst(ast, (n) => {
    if (later && SCANNED.has(n.type)) later.push(n);
    if (FUNCTION_TYPES.has(n.type) && n.start != null && n.end != null) fns.push([n.start, n.end]);
    if ((n.type === 'FunctionDeclaration' || n.type === 'ClassDeclaration') && n.id) {
      into.own.add(n.id.name);
      if (n.type === 'FunctionDeclaration' && T_FUNCS.has(n.id.name) && code !== undefined && !translates(n.body, code)) into.localFns.add(n.id.name);
    }
    if (n.type !== 'VariableDeclarator' || !n.init) return;
    if (n.id.type === 'Identifier' && OWN_VALUES.has(n.init.type)) {
      into.own.add(n.id.name);
      const f = n.init;
      if (T_FUNCS.has(n.id.name) && code !== undefined && (f.type === 'ArrowFunctionExpression' || f.type === 'FunctionExpression') && !translates(f.body, code)) into.localFns.add(n.id.name);
    }
    let init: t.Node = n.init;
    if (init.type === 'AwaitExpression') init = init.argument;
    // `const { getMessage } = chrome.i18n`: a key method taken from its object
    if (n.id.type === 'ObjectPattern' && code !== undefined && init.start != null && init.end != null && (init.type === 'MemberExpression' || init.type === 'Identifier')) {
      const obj = code.slice(init.start, init.end).replace(/\s+/g, '');
      for (const p of n.id.properties) {
        if (p.type !== 'ObjectProperty' || p.computed || p.key.type !== 'Identifier' || p.value.type !== 'Identifier') continue;
        const method = p.key.name;
        if (KEY_METHODS.some((m) => m.method.test(method) && m.object.test(obj))) into.keyFns.add(p.value.name);
      }
    }
    // react-intl: `const { formatMessage: fm } = useIntl()` (or `= intl`, `= this.props.intl`)
    if (n.id.type === 'ObjectPattern') {
      for (const p of n.id.properties) {
        if (p.type === 'ObjectProperty' && !p.computed && p.key.type === 'Identifier' && INTL_FUNCS.has(p.key.name) && p.value.type === 'Identifier') into.intl.add(p.value.name);
      }
    }
    // react-intl: `const messages = defineMessages({ k: { id } })`
    if (n.id.type === 'Identifier' && init.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'defineMessages') {
      into.descriptors.set(n.id.name, descriptorIds(init.arguments[0] as t.Node | undefined));
    }
    if (init.type !== 'CallExpression' || init.callee.type !== 'Identifier' || !HOOKS.has(init.callee.name)) return;
    const ctx = hookContext(init);
    const at = n.start ?? 0;
    if (n.id.type === 'Identifier') {
      // next-intl: const t = useTranslations('A'); i18next: const t = getFixedT(…); next-international: useScopedI18n('s')
      if (init.callee.name !== 'useI18n' && init.callee.name !== 'useTranslation') found.push({ name: n.id.name, ctx, at });
      return;
    }
    if (n.id.type !== 'ObjectPattern') return;
    for (const p of n.id.properties) {
      if (p.type !== 'ObjectProperty' || p.computed || p.key.type !== 'Identifier') continue;
      const local = p.value.type === 'Identifier' ? p.value.name : p.value.type === 'AssignmentPattern' && p.value.left.type === 'Identifier' ? p.value.left.name : undefined;
      if (local && T_FUNCS.has(p.key.name)) found.push({ name: local, ctx, at });
    }
  });
  for (const f of found) {
    let scope: [number, number] = [-Infinity, Infinity];
    for (const r of fns) if (r[0] <= f.at && f.at <= r[1] && r[1] - r[0] < scope[1] - scope[0]) scope = r;
    into.add(f.name, { ...f.ctx, scopeStart: scope[0] + off, scopeEnd: scope[1] + off, at: f.at + off });
  }
}

/** Initializers that make a variable the script's own value (not a service of a framework). */
const OWN_VALUES = new Set(['ObjectExpression', 'ArrayExpression', 'StringLiteral', 'NumericLiteral', 'BooleanLiteral', 'NullLiteral', 'TemplateLiteral', 'ArrowFunctionExpression', 'FunctionExpression', 'ClassExpression']);

/** Does a function body name a translation API (a wrapper of one), by the prefilter's test? */
function translates(body: t.Node, code: string): boolean {
  return body.start != null && body.end != null && MAYBE.test(code.slice(body.start, body.end));
}

/** The identifier a member chain starts from (`translate` of `translate.get`), if any. */
function rootName(n: t.Node): string | undefined {
  let o: t.Node = n;
  while (o.type === 'MemberExpression' || o.type === 'OptionalMemberExpression') o = o.object;
  return o.type === 'Identifier' ? o.name : undefined;
}

/** `a.b.c(…)` → `a.b`: the object a method is called on, as written (short). */
function objectText(c: t.Node, code: string): string {
  if ((c.type !== 'MemberExpression' && c.type !== 'OptionalMemberExpression') || c.object.start == null) return '';
  return code.slice(c.object.start, c.object.end!).replace(/\s+/g, '');
}


interface ScanContext {
  aliases: Aliases;
  /** The project's own translate functions, by full callee text (`translate`, `i18n.tr`). */
  functions: Set<string>;
  /** `@lingui/*` is imported: `t\`msgid\`` and `<Trans>msgid</Trans>` name msgids. */
  lingui: boolean;
  /** `@docusaurus/Translate` is imported: `translate({ message })` and `<Translate>Text</Translate>` without an id name their message. */
  docusaurus: boolean;
  /** Positions of aliases are resolved (false in a Vue template, whose offsets are the file's). */
  scoped: boolean;
}

/** Usages in one parsed script or expression; offsets of `ast` are relative to `code`, which starts at `off`. */
function scan(ast: t.Node, code: string, off: number, ctx: ScanContext, out: Raw[]): void {
  walkAst(ast, scanner(code, off, ctx, out));
}

/** The node types `scanner` looks at (collectAliases hands them over from its own walk). */
const SCANNED = new Set(['CallExpression', 'OptionalCallExpression', 'TaggedTemplateExpression', 'JSXAttribute', 'JSXOpeningElement', 'JSXElement']);

/**
 * A script's aliases, then its usages, in one walk of its AST: the alias walk keeps the nodes
 * the usage scan looks at, in walk order, and the scan visits just those once every alias is
 * known (as a second walk did).
 */
function aliasesThenScan(ast: t.Node, code: string, off: number, ctx: ScanContext, out: Raw[]): void {
  const later: t.Node[] = [];
  collectAliases(ast, ctx.aliases, off, later, code);
  const visit = scanner(code, off, ctx, out);
  for (const n of later) visit(n);
}

/** What the usage scan's steps share: the script (its text and offset), what the scan knows, where usages go. */
interface Scanning {
  code: string;
  off: number;
  ctx: ScanContext;
  out: Raw[];
}

/** The usage scan's visitor (see `scan`): every usage a node makes goes to `out`. */
function scanner(code: string, off: number, ctx: ScanContext, out: Raw[]): (n: t.Node) => void {
  const s: Scanning = { code, off, ctx, out };
  return (n) => {
    if (n.type === 'CallExpression' || n.type === 'OptionalCallExpression') callUsages(s, n);
    else if (n.type === 'TaggedTemplateExpression') linguiTagUsage(s, n);
    else if (n.type === 'JSXAttribute') jsxKeyAttributeUsages(s, n);
    else if (n.type === 'JSXOpeningElement') jsxElementIdUsages(s, n);
    else if (n.type === 'JSXElement') {
      const name = n.openingElement.name.type === 'JSXIdentifier' ? n.openingElement.name.name : undefined;
      if (ctx.docusaurus && name === 'Translate') docusaurusTranslateUsage(s, n);
      else if (ctx.lingui && name === 'Trans') linguiTransUsage(s, n);
    }
  };
}

/** The keys `arg` names, each a usage via `via`: its namespace split off (else `ns`, else the alias'), the alias' key prefix put on. */
function pushKeys(s: Scanning, arg: t.Node | undefined, via: string, ns: string | undefined, alias: Alias | undefined): void {
  for (const k of keysOf(arg)) {
    const { key, namespace } = splitNamespace(k.key, k.dynamic, ns ?? alias?.namespace);
    s.out.push({ key: alias?.prefix ? alias.prefix + key : key, namespace, dynamic: k.dynamic, via, start: s.off + k.start, end: s.off + k.end });
  }
}

/** A react-intl message descriptor: `{ id: 'k' }` inline, or `messages.k` of a `defineMessages` in this script. */
function descriptorUsage(s: Scanning, arg: t.Node | undefined, via: string): void {
  if (!arg) return;
  if (arg.type === 'ObjectExpression') return pushKeys(s, propNode(arg, 'id'), via, undefined, undefined);
  if (arg.type === 'MemberExpression' && arg.object.type === 'Identifier' && arg.start != null && arg.end != null) {
    const prop = !arg.computed && arg.property.type === 'Identifier' ? arg.property.name : stringValue(arg.property);
    const id = prop === undefined ? undefined : s.ctx.aliases.descriptors.get(arg.object.name)?.get(prop);
    const key = stringValue(id);
    if (key !== undefined) s.out.push({ key, dynamic: false, via, start: s.off + arg.start, end: s.off + arg.end });
  }
}

type Call = t.CallExpression | t.OptionalCallExpression;
type Callee = { name: string; via: string };

/**
 * The usages of a call, tried from the most specific form to the plainest: a message
 * descriptor, an object argument (an inline template, Docusaurus' `translate`), the project's
 * own functions, a method of a translation object, a translate function.
 */
function callUsages(s: Scanning, n: Call): void {
  const cal = calleeName(n.callee, s.code);
  if (!cal) return;
  const arg0 = n.arguments[0] as t.Node | undefined;
  if (descriptorCallUsages(s, n, cal, arg0) || objectCallUsages(s, n, cal, arg0)) return;
  const ns = propString(n.arguments[1] as t.Node | undefined, 'ns');
  const at = s.ctx.scoped ? s.off + (n.start ?? 0) : undefined;
  const full = n.callee.start != null ? s.code.slice(n.callee.start, n.callee.end!).replace(/\s+/g, '') : cal.name;
  if (s.ctx.functions.has(full) || s.ctx.functions.has(cal.name)) return pushKeys(s, arg0, cal.via, ns, undefined);
  if (keyMethodCallUsages(s, n, cal, arg0, ns, at)) return;
  translateCallUsages(s, n, cal, arg0, ns, at);
}

/** Calls that take a message descriptor (Lingui, react-intl): true when `n` is one. */
function descriptorCallUsages(s: Scanning, n: Call, cal: Callee, arg0: t.Node | undefined): boolean {
  // Lingui: msg({ id, message, context }), defineMessage({ … }), i18n._({ … }): the id, else the message (with its context)
  if (s.ctx.lingui && arg0?.type === 'ObjectExpression' && (LINGUI_DESCRIPTOR_CALLS.has(cal.name) || (cal.name === '_' && /\bi18n$/.test(objectText(n.callee, s.code))))) {
    linguiDescriptor(arg0, cal.via, s.off, s.out);
    return true;
  }
  // react-intl: intl.formatMessage({ id }) / formatMessage(messages.k), defineMessages({ k: { id } }), defineMessage({ id })
  if (INTL_FUNCS.has(cal.name) || (n.callee.type === 'Identifier' && s.ctx.aliases.intl.has(cal.name))) {
    descriptorUsage(s, arg0, cal.via);
    return true;
  }
  if (cal.name === 'defineMessages' && arg0?.type === 'ObjectExpression') {
    for (const id of descriptorIds(arg0).values()) pushKeys(s, id, cal.via, undefined, undefined);
    return true;
  }
  if (cal.name === 'defineMessage' && arg0?.type === 'ObjectExpression') {
    descriptorUsage(s, arg0, cal.via);
    return true;
  }
  return false;
}

/** Calls whose object argument holds the key (Angular's `@Component`, Docusaurus' `translate`): true when `n` is one. */
function objectCallUsages(s: Scanning, n: Call, cal: Callee, arg0: t.Node | undefined): boolean {
  if (arg0?.type !== 'ObjectExpression') return false;
  // Angular: @Component({ template: `…` }) — the inline template read as a template, its
  // offsets mapped back into the script (escapes and `${}` placeholders accounted for)
  if (cal.name === 'Component') {
    const tpl = propNode(arg0, 'template');
    const inline = tpl ? inlineText(tpl, s.code) : undefined;
    if (inline) for (const r of ngTemplateUsages(inline.text)) s.out.push({ ...r, start: s.off + inline.at(r.start), end: s.off + inline.at(r.end) });
    return true;
  }
  // Docusaurus: translate({ id: 'theme.x', message: 'Copy' }); without an id the message is the key
  if (n.callee.type === 'Identifier' && cal.name === 'translate') {
    const id = propNode(arg0, 'id');
    if (id) pushKeys(s, id, cal.via, undefined, undefined);
    else if (s.ctx.docusaurus) pushKeys(s, propNode(arg0, 'message'), cal.via, undefined, undefined);
    return true;
  }
  return false;
}

/** A method of a translation object: next-intl's `t.rich('k')` on a bound `t`, ngx-translate's `translate.instant('k')` and the like (`KEY_METHODS`). True when `n` is one. */
function keyMethodCallUsages(s: Scanning, n: Call, cal: Callee, arg0: t.Node | undefined, ns: string | undefined, at: number | undefined): boolean {
  const c = n.callee;
  if (c.type !== 'MemberExpression' && c.type !== 'OptionalMemberExpression') return false;
  if (!c.computed && c.property.type === 'Identifier' && T_METHODS.has(c.property.name) && c.object.type === 'Identifier') {
    const alias = s.ctx.aliases.resolve(c.object.name, at);
    if (alias || T_FUNCS.has(c.object.name)) {
      pushKeys(s, arg0, `${c.object.name}.${c.property.name}`, ns, alias);
      return true;
    }
  }
  const obj = objectText(c, s.code);
  const root = rootName(c.object);
  if (!(root && s.ctx.aliases.own.has(root)) && KEY_METHODS.some((m) => m.method.test(cal.name) && m.object.test(obj))) {
    // Fluent `l10n.setAttributes(el, 'id')`: the id is the second argument
    pushKeys(s, (cal.name === 'setAttributes' ? n.arguments[1] : arg0) as t.Node | undefined, cal.via, ns, undefined);
    return true;
  }
  return false;
}

/** A call of a translate function: `t`, `$t` …, a name bound from a hook, a key method destructured from its object. */
function translateCallUsages(s: Scanning, n: Call, cal: Callee, arg0: t.Node | undefined, ns: string | undefined, at: number | undefined): void {
  const aliases = s.ctx.aliases;
  if (n.callee.type === 'Identifier' && aliases.keyFns.has(cal.name)) return pushKeys(s, arg0, cal.via, ns, undefined);
  const alias = n.callee.type === 'Identifier' ? aliases.resolve(cal.name, at) : undefined;
  if (!alias && !T_FUNCS.has(cal.name)) return;
  // a `t` of the script's own that translates nothing (`const t = (s) => s.trim()`) is not the framework's
  if (!alias && n.callee.type === 'Identifier' && aliases.localFns.has(cal.name)) return;
  // Lingui's `t({ id: 'msg' })` / `t({ message: 'Hello', context: 'button' })`
  if (s.ctx.lingui && arg0?.type === 'ObjectExpression') return linguiDescriptor(arg0, cal.via, s.off, s.out);
  pushKeys(s, arg0, cal.via, ns, alias);
}

/**
 * Lingui: t`Welcome back`, msg`…`, defineMessage`…` — the msgid is the template's text, a
 * placeholder named by its variable (`${name}` → {name}), others numbered ({0})
 */
function linguiTagUsage(s: Scanning, n: t.TaggedTemplateExpression): void {
  if (!s.ctx.lingui || n.tag.type !== 'Identifier' || !LINGUI_TAGS.has(n.tag.name)) return;
  const q = n.quasi;
  let pos = 0;
  const ph = (e: t.Node) => (e.type === 'Identifier' ? `{${e.name}}` : `{${pos++}}`);
  if (q.start != null && q.end != null) s.out.push({ key: q.quasis.map((x, i) => (i ? ph(q.expressions[i - 1] as t.Node) : '') + (x.value.cooked ?? '')).join(''), dynamic: false, via: `${n.tag.name}\``, start: s.off + q.start + 1, end: s.off + q.end - 1 });
}

/** A JSX attribute that names a key (`i18nKey="k"`, `keypath`, …; `JSX_KEY_ATTRS`), in the namespace of its element. */
function jsxKeyAttributeUsages(s: Scanning, n: t.JSXAttribute): void {
  if (n.name.type !== 'JSXIdentifier' || !JSX_KEY_ATTRS.has(n.name.name)) return; // `id`: only on <Localized>, handled at the element
  const v = n.value?.type === 'JSXExpressionContainer' ? n.value.expression : n.value;
  const { ns, tAlias } = jsxKeyScope(s, n);
  for (const k of keysOf(v as t.Node | undefined)) {
    const split = splitNamespace(k.key, k.dynamic, ns ?? tAlias?.namespace);
    const key = tAlias?.prefix && split.namespace === (ns ?? tAlias.namespace) ? tAlias.prefix + split.key : split.key;
    s.out.push({ ...split, key, dynamic: k.dynamic, via: n.name.name, start: s.off + k.start, end: s.off + k.end });
  }
}

/**
 * The namespace a key attribute's element gives it: `<Trans i18nKey="k" ns="common">`, the
 * element's ns attribute; `<Trans t={t} i18nKey="k">`, the namespace (and keyPrefix) of the hook
 * that bound that `t` (`useTranslation('pages/home')`).
 */
function jsxKeyScope(s: Scanning, n: t.JSXAttribute): { ns: string | undefined; tAlias: Alias | undefined } {
  let ns: string | undefined;
  let tAlias: Alias | undefined;
  const el = jsxOwner.get(n);
  if (!el) return { ns, tAlias };
  for (const a of el.attributes) {
    if (a.type !== 'JSXAttribute' || a.name.type !== 'JSXIdentifier') continue;
    if (a.name.name === 'ns') ns = stringValue(a.value?.type === 'JSXExpressionContainer' ? (a.value.expression as t.Node) : a.value);
    if (a.name.name === 't' && a.value?.type === 'JSXExpressionContainer' && a.value.expression.type === 'Identifier') {
      tAlias = s.ctx.aliases.resolve(a.value.expression.name, s.ctx.scoped ? s.off + (a.start ?? 0) : undefined);
    }
  }
  return { ns, tAlias };
}

/**
 * An element's `id` that is a message id (Fluent `<Localized id>`, Lingui `<Trans id>`, react-intl
 * `<FormattedMessage id>` or its spread descriptor, Docusaurus `<Translate id>`). Records the
 * element of each attribute first, for `jsxKeyScope` (the walk passes the element before its attributes).
 */
function jsxElementIdUsages(s: Scanning, n: t.JSXOpeningElement): void {
  for (const a of n.attributes) if (a.type === 'JSXAttribute') jsxOwner.set(a, n);
  const name = n.name.type === 'JSXIdentifier' ? n.name.name : '';
  // react-intl `<FormattedMessage {...messages.k} />`
  if (INTL_ELEMENTS.has(name)) for (const a of n.attributes) if (a.type === 'JSXSpreadAttribute') descriptorUsage(s, a.argument, `<${name}>`);
  if (name === 'Localized' || (name === 'Trans' && s.ctx.lingui) || INTL_ELEMENTS.has(name) || name === 'Translate') {
    const id = n.attributes.find((a): a is t.JSXAttribute => a.type === 'JSXAttribute' && a.name.type === 'JSXIdentifier' && a.name.name === 'id');
    const v = id?.value?.type === 'JSXExpressionContainer' ? id.value.expression : id?.value;
    for (const k of keysOf(v as t.Node | undefined)) s.out.push({ key: k.key, dynamic: k.dynamic, via: `<${name} id>`, start: s.off + k.start, end: s.off + k.end });
  }
}

/** Docusaurus `<Translate>Copy</Translate>` (no id): the message is the key. */
function docusaurusTranslateUsage(s: Scanning, n: t.JSXElement): void {
  if (n.openingElement.attributes.some((a) => a.type === 'JSXAttribute' && a.name.type === 'JSXIdentifier' && a.name.name === 'id')) return;
  const kids = n.children.filter((c) => !(c.type === 'JSXText' && !c.value.trim()));
  const c0 = kids.length === 1 ? kids[0] : undefined;
  if (c0?.type === 'JSXText' && c0.start != null) {
    const lead = c0.value.length - c0.value.trimStart().length;
    const text = c0.value.trim().replace(/\s+/g, ' ');
    s.out.push({ key: text, dynamic: false, via: '<Translate>', start: s.off + c0.start + lead, end: s.off + c0.start + lead + c0.value.trim().length });
  } else if (c0?.type === 'JSXExpressionContainer') {
    for (const k of keysOf(c0.expression as t.Node)) if (!k.dynamic) s.out.push({ key: k.key, dynamic: false, via: '<Translate>', start: s.off + k.start, end: s.off + k.end });
  }
}

/**
 * Lingui `<Trans>Hello <b>{name}</b></Trans>` (no id): the msgid is made of the children as
 * Lingui's macro makes it (`Hello <0>{name}</0>`), with the `context` attribute if any.
 */
function linguiTransUsage(s: Scanning, n: t.JSXElement): void {
  const attrs = n.openingElement.attributes;
  if (attrs.some((a) => a.type === 'JSXAttribute' && a.name.type === 'JSXIdentifier' && (a.name.name === 'id' || a.name.name === 'i18nKey'))) return;
  const m = linguiChildren(n.children);
  if (!m) return;
  const context = attrs.find((a): a is t.JSXAttribute => a.type === 'JSXAttribute' && a.name.type === 'JSXIdentifier' && a.name.name === 'context');
  const cv = context ? stringValue((context.value?.type === 'JSXExpressionContainer' ? context.value.expression : context.value) as t.Node) : undefined;
  s.out.push({ key: cv ? `${cv}|${m.text}` : m.text, dynamic: false, via: '<Trans>', start: s.off + m.start, end: s.off + m.end });
}

/**
 * The text a string or template literal holds, with the source offset of each of its characters
 * (`at(i)`; `at(text.length)` is the literal's end): escapes are decoded (`\'`, `\n`, `\u{…}`,
 * a line continuation), and a template's `${…}` stands as one space.
 */
export function inlineText(n: t.Node, code: string): { text: string; at: (i: number) => number } | undefined {
  const parts: Array<[number, number]> = [];
  if (n.type === 'StringLiteral' && n.start != null && n.end != null) parts.push([n.start + 1, n.end - 1]);
  else if (n.type === 'TemplateLiteral') for (const q of n.quasis) if (q.start != null && q.end != null) parts.push([q.start, q.end]);
  if (!parts.length) return undefined;
  let text = '';
  const map: number[] = [];
  for (const [pi, [s, e]] of parts.entries()) {
    if (pi) {
      text += ' ';
      map.push(s - 1);
    }
    for (let i = s; i < e; ) {
      const c = code[i];
      if (c !== '\\' || i + 1 >= e) {
        text += c;
        map.push(i);
        i++;
        continue;
      }
      const d = code[i + 1];
      let len = 2;
      let out: string;
      if (d === '\n' || d === '\u2028' || d === '\u2029') out = '';
      else if (d === '\r') {
        out = '';
        if (code[i + 2] === '\n') len = 3;
      } else if (d === 'x' && /^[0-9a-f]{2}$/i.test(code.slice(i + 2, i + 4))) {
        out = String.fromCharCode(parseInt(code.slice(i + 2, i + 4), 16));
        len = 4;
      } else if (d === 'u') {
        const m = /^\{([0-9a-f]{1,6})\}|^([0-9a-f]{4})/i.exec(code.slice(i + 2, i + 10));
        const cp = m ? parseInt(m[1] ?? m[2], 16) : NaN;
        out = m && cp <= 0x10ffff ? String.fromCodePoint(cp) : 'u';
        len = m ? 2 + m[0].length : 2;
      } else out = ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' } as Record<string, string>)[d] ?? d;
      for (let k = 0; k < out.length; k++) map.push(i);
      text += out;
      i += len;
    }
  }
  const end = parts[parts.length - 1][1];
  return { text, at: (i) => (i < map.length ? map[i] : end) };
}

/** Lingui's calls taking a message descriptor, and its tags whose template is a message. */
const LINGUI_DESCRIPTOR_CALLS = new Set(['msg', 'defineMessage']);
const LINGUI_TAGS = new Set(['t', 'msg', 'defineMessage']);

/**
 * A Lingui message descriptor `{ id, message, context }`: the id when there is one, else the
 * message, as `context|message` with a context (the key the PO reader gives a msgctxt).
 */
function linguiDescriptor(obj: t.ObjectExpression, via: string, off: number, out: Raw[]): void {
  const id = propNode(obj, 'id');
  const idKey = stringValue(id);
  if (id && idKey !== undefined) {
    out.push({ key: idKey, dynamic: false, via, start: off + id.start! + (id.type === 'StringLiteral' || id.type === 'TemplateLiteral' ? 1 : 0), end: off + id.end! - (id.type === 'StringLiteral' || id.type === 'TemplateLiteral' ? 1 : 0) });
    return;
  }
  const message = propNode(obj, 'message');
  const text = stringValue(message);
  if (!message || text === undefined) return;
  const context = propString(obj, 'context');
  out.push({ key: context !== undefined ? `${context}|${text}` : text, dynamic: false, via, start: off + message.start! + 1, end: off + message.end! - 1 });
}

/**
 * The msgid Lingui's macro makes of `<Trans>` children: text with its whitespace collapsed, a
 * variable as `{name}`, another expression as `{0}`, an element as `<0>…</0>` (`<0/>` empty),
 * numbered in order; with its range in the script (first to last non-blank child). Undefined
 * for children it cannot name (a spread) or none.
 */
function linguiChildren(children: t.Node[]): { text: string; start: number; end: number } | undefined {
  let el = 0;
  let pos = 0;
  let ok = true;
  const walk = (kids: t.Node[]): string =>
    kids
      .map((c) => {
        if (c.type === 'JSXText') return c.value;
        if (c.type === 'JSXExpressionContainer') {
          const e = c.expression;
          if (e.type === 'JSXEmptyExpression') return '';
          const sv = stringValue(e);
          if (sv !== undefined) return sv;
          return e.type === 'Identifier' ? `{${e.name}}` : `{${pos++}}`;
        }
        if (c.type === 'JSXElement') {
          const i = el++;
          return c.children.length ? `<${i}>${walk(c.children)}</${i}>` : `<${i}/>`;
        }
        if (c.type === 'JSXFragment') return walk(c.children);
        ok = false;
        return '';
      })
      .join('');
  const text = walk(children).replace(/\s+/g, ' ').trim();
  const shown = children.filter((c) => !(c.type === 'JSXText' && !c.value.trim()));
  if (!ok || !text || !shown.length) return undefined;
  const first = shown[0];
  const last = shown[shown.length - 1];
  const lead = first.type === 'JSXText' ? first.value.length - first.value.trimStart().length : 0;
  const trail = last.type === 'JSXText' ? last.value.length - last.value.trimEnd().length : 0;
  return { text, start: first.start! + lead, end: last.end! - trail };
}

/** JSX attribute → its element (set as the walk passes the element, before its attributes). */
const jsxOwner = new WeakMap<t.Node, t.JSXOpeningElement>();

interface TNode {
  type: number;
  tag?: string;
  name?: string;
  loc: { start: { offset: number }; end: { offset: number } };
  props?: TNode[];
  children?: TNode[];
  content?: TNode | string;
  exp?: { content: string; loc: { start: { offset: number } } };
  arg?: { content?: string; isStatic?: boolean; loc?: { start: { offset: number }; end: { offset: number } } };
  value?: { content: string; loc: { start: { offset: number }; end: { offset: number } } };
}

const KEYPATH_TAGS = new Set(['i18n-t', 'i18n', 'i18nt', 'translation']);
const KEYPATH_ATTRS = new Set(['keypath', 'path']);

/** A tag that is a custom component (a wrapper of `<i18n-t>` passing `keypath`): PascalCase or with a dash. */
const isComponentTag = (tag: string) => /^[A-Z]/.test(tag) || tag.includes('-');

function scanTemplate(root: TNode, text: string, ctx: ScanContext, out: Raw[]): void {
  const expr = (code: string, start: number, via?: string) => {
    if (!MAYBE.test(code) && !via) return;
    const ast = parseTemplateExpression(code);
    if (!ast) return;
    if (via) {
      // v-t="'a.b'" / v-t="{ path: 'a.b' }" / :keypath="'a.b'"
      const node = ast.type === 'ObjectExpression' ? (ast.properties.find((p) => p.type === 'ObjectProperty' && !p.computed && p.key.type === 'Identifier' && p.key.name === 'path') as t.ObjectProperty | undefined)?.value : ast;
      for (const k of keysOf(node as t.Node | undefined)) out.push({ key: k.key, dynamic: k.dynamic, via, start: start + k.start, end: start + k.end });
      return;
    }
    scan(ast, code, start, ctx, out);
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
      const keyAttr = (name: string) => (KEYPATH_TAGS.has(tag) && KEYPATH_ATTRS.has(name.toLowerCase())) || (isComponentTag(n.tag ?? '') && (name.toLowerCase() === 'keypath' || name === 'i18nKey' || name.toLowerCase() === 'i18n-key'));
      for (const p of n.props ?? []) {
        if (p.type === 6 && keyAttr(p.name ?? '') && p.value) {
          const v = p.value;
          const q = text[v.loc.start.offset];
          const inner = q === '"' || q === "'" ? 1 : 0;
          out.push({ key: v.content, dynamic: false, via: `<${n.tag} ${p.name}>`, start: v.loc.start.offset + inner, end: v.loc.end.offset - inner });
        } else if (p.type === 7 && p.name === 't' && p.arg?.isStatic && p.arg.content && p.arg.loc) {
          // fluent-vue's directive: `v-t:message-id` (its value, if any, is the message's arguments)
          out.push({ key: p.arg.content, dynamic: false, via: 'v-t:', start: p.arg.loc.start.offset, end: p.arg.loc.end.offset });
          if (p.exp && typeof p.exp.content === 'string') expr(p.exp.content, p.exp.loc.start.offset);
        } else if (p.type === 7 && p.exp && typeof p.exp.content === 'string') {
          if (p.name === 'for' || p.name === 'slot') continue;
          if (p.name === 't') expr(p.exp.content, p.exp.loc.start.offset, 'v-t');
          else if (p.name === 'bind' && keyAttr(p.arg?.content ?? '')) expr(p.exp.content, p.exp.loc.start.offset, `<${n.tag} :${p.arg?.content}>`);
          else expr(p.exp.content, p.exp.loc.start.offset);
        }
      }
    }
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
}

/** Usages in a script's text (JS/TS, or a `<script>` of a Svelte/Vue file at `off`): what frameworks/ extractors call. */
export function scriptUsages(code: string, off: number, typescript: boolean, jsx: boolean, opts: UsageOptions = {}): Raw[] {
  const raws: Raw[] = [];
  const ast = parseScriptAst(code, typescript, jsx);
  if (!ast) return raws;
  const ctx = scanContext(code, opts);
  aliasesThenScan(ast, code, off, ctx, raws);
  return raws;
}

function scanContext(text: string, opts: UsageOptions): ScanContext {
  return { aliases: new Aliases(), functions: new Set(opts.functions ?? []), lingui: /@lingui\//.test(text), docusaurus: /@docusaurus\/Translate\b/.test(text), scoped: true };
}

/** The prefilter with the project's own functions. */
function maybe(text: string, opts: UsageOptions): boolean {
  return MAYBE.test(text) || (opts.functions ?? []).some((f) => text.includes(`${f.slice(f.lastIndexOf('.') + 1)}(`));
}

/** Does `jsUsages` read this path (a JS/TS module or a Vue SFC)? Other files go to the extractors of frameworks/. */
export function isScriptOrVue(rel: string): boolean {
  const lower = rel.toLowerCase();
  return lower.endsWith('.vue') || SCRIPT_EXT.test(lower);
}

/**
 * Usages in a JS/TS module or a Vue SFC, as offsets in `text`; none for other files. Never
 * throws: a file the parsers cannot read keeps what was found before (its locale data, if any,
 * is read elsewhere).
 */
export function jsUsages(rel: string, text: string, opts: UsageOptions = {}): Raw[] {
  const lower = rel.toLowerCase();
  const isVue = lower.endsWith('.vue');
  if (!isVue && !SCRIPT_EXT.test(lower)) return [];
  if (!maybe(text, opts)) return [];
  const raws: Raw[] = [];
  const ctx = scanContext(text, opts);
  try {
    if (!isVue) {
      const ext = lower.slice(lower.lastIndexOf('.') + 1);
      const ts = ext.includes('ts');
      const ast = parseScriptAst(text, ts, ext.endsWith('x') || !ts);
      if (!ast) return [];
      aliasesThenScan(ast, text, 0, ctx, raws);
      return raws;
    }
    const { descriptor } = parseSfc(text, { filename: rel, sourceMap: false, ignoreEmpty: false });
    for (const s of [descriptor.script, descriptor.scriptSetup]) {
      if (!s) continue;
      const lang = String(s.lang ?? 'js');
      const ast = parseScriptAst(s.content, lang.startsWith('ts'), lang.endsWith('x') || lang === 'js');
      if (!ast) continue;
      aliasesThenScan(ast, s.content, s.loc.start.offset, ctx, raws);
    }
    const tpl = descriptor.template;
    if (tpl?.ast && (!tpl.lang || tpl.lang === 'html')) scanTemplate(tpl.ast as unknown as TNode, text, { ...ctx, scoped: false }, raws);
  } catch {
    return raws;
  }
  return raws;
}

/**
 * The keys an argument's source text names (a literal, a template with ternaries, a dynamic
 * prefix), parsed with Babel; offsets + `off`. For extractors whose own parser gives the
 * argument's text (Svelte) rather than a Babel node.
 */
export function keysInExpression(code: string, off: number): Array<{ key: string; dynamic: boolean; start: number; end: number }> {
  let ast: t.Node;
  try {
    ast = parseExpression(code, { plugins: ['typescript'], errorRecovery: false });
  } catch {
    return [];
  }
  return keysOf(ast).map((k) => ({ ...k, start: off + k.start, end: off + k.end }));
}
