/**
 * PHP array locale files: Laravel `resources/lang/<locale>/<file>.php` and `lang/<locale>/<file>.php`
 * (`return ['welcome' => 'Welcome, :name', 'nested' => [...]]`, or an array assigned to a
 * variable and returned). The key is `<file>.<key>` as `__('file.key')` names it; a file in a
 * sub-folder is `admin/users.key`. Parsed with php-parser (positions on); a parse error is
 * reported with its line, and what the parser recovered is still read. Strings with
 * interpolation or concatenation are not messages of their own (counted, not read).
 */
import { Engine } from 'php-parser';
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, I18N_DIRS, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, errText, extensionTest, type LocaleFormat, unreadable } from './common';

const EXTENSIONS = ['php'];
const EXT = extensionTest(EXTENSIONS);

interface PNode {
  kind: string;
  value?: unknown;
  raw?: string;
  items?: PNode[];
  key?: PNode | null;
  expr?: PNode;
  children?: PNode[];
  left?: PNode;
  right?: PNode;
  loc?: { start: { offset: number; line: number }; end: { offset: number } } | null;
  name?: string | PNode;
}

/** `lang/en/auth.php` → locale `en`, prefix `auth`; undefined when no i18n folder then a locale folder. */
export function phpLocale(rel: string): { locale: string; prefix: string } | undefined {
  if (rel.endsWith('.blade.php')) return undefined;
  const parts = rel.split('/');
  for (let i = parts.length - 2; i >= 1; i--) {
    if (isLocaleCode(parts[i]) && parts.slice(0, i).some((d) => I18N_DIRS.has(d.toLowerCase()))) {
      return { locale: canonicalLocale(parts[i]), prefix: [...parts.slice(i + 1, -1), parts[parts.length - 1].replace(EXT, '')].join('/') };
    }
  }
  return undefined;
}

function strOf(n: PNode | null | undefined): string | undefined {
  return n && (n.kind === 'string' || n.kind === 'nowdoc') && typeof n.value === 'string' ? n.value : undefined;
}

export const phpFormat: LocaleFormat = {
  name: 'PHP array',
  extensions: EXTENSIONS,
  sharedExtension: true,
  claims(rel, ctx) {
    if (!EXT.test(rel)) return false;
    if (ctx.matchesGlobs) return ctx.matchesGlobs(rel);
    return phpLocale(rel) !== undefined;
  },
  read(rel, text) {
    const id = phpLocale(rel);
    if (!id) return unreadable(rel, text, 'unknown-locale', 'PHP file with no lang/<locale>/ folder in its path: not read');
    let ast: PNode & { errors?: Array<{ message: string; line?: number }> };
    try {
      const engine = new Engine({ parser: { extractDoc: false, php8: true, suppressErrors: true }, ast: { withPositions: true } });
      ast = engine.parseCode(text, rel) as unknown as PNode & { errors?: Array<{ message: string; line?: number }> };
    } catch (err) {
      return unreadable(rel, text, 'malformed', `PHP does not parse (${errText(err)}): not read`);
    }
    const src = new SourceText(text);
    const problems: I18nProblem[] = [];
    for (const e of (ast.errors ?? []).slice(0, 1)) problems.push({ kind: 'malformed', file: rel, line: e.line, message: `PHP does not parse (${e.message.replace(/^Parse Error : /, '')}): what could be read is kept` });
    // the returned array, directly or through a variable
    const vars = new Map<string, PNode>();
    let arr: PNode | undefined;
    for (const st of ast.children ?? []) {
      const ex = st.kind === 'expressionstatement' ? st.expr : undefined;
      if (ex?.kind === 'assign' && ex.left?.kind === 'variable' && ex.right?.kind === 'array') vars.set(String(ex.left.name), ex.right);
      if (st.kind === 'return' && st.expr) arr = st.expr.kind === 'array' ? st.expr : st.expr.kind === 'variable' ? vars.get(String(st.expr.name)) : undefined;
    }
    if (!arr) return { file: rel, lines: src, entries: [], problems: [...problems, { kind: 'unsupported', file: rel, message: 'no returned array of messages: not read' }] };
    const leaves: Leaf[] = [];
    const walk = (a: PNode, prefix: string, depth: number) => {
      if (depth > 64) return;
      for (const it of a.items ?? []) {
        if (it.kind !== 'entry' || !it.key || !it.value) continue;
        const k = it.key as PNode;
        const seg = strOf(k) ?? (k.kind === 'number' ? String(k.value) : undefined);
        if (seg === undefined || !k.loc) continue;
        const path = `${prefix}.${seg}`;
        const inner = k.kind === 'string' ? 1 : 0;
        const v = it.value as PNode;
        if (v.kind === 'array') walk(v, path, depth + 1);
        else {
          const s = strOf(v);
          if (s === undefined || !v.loc) continue;
          const q = v.kind === 'string' ? 1 : 0;
          leaves.push({ path, value: s, vs: v.loc.start.offset + q, ve: v.loc.end.offset - q, ks: k.loc.start.offset + inner, ke: k.loc.end.offset - inner });
        }
      }
    };
    walk(arr, id.prefix, 0);
    return { file: rel, lines: src, entries: buildEntries(leaves, id.locale, undefined, src, rel, problems), problems };
  },
};
