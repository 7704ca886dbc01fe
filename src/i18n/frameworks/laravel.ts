/**
 * Laravel: `__('file.key')`, `trans('file.key')`, `trans_choice('file.key', n)`,
 * `Lang::get/choice('file.key')`, `app('translator')->get(…)` in PHP (php-parser's AST, with
 * positions), and in Blade templates (`.blade.php`, which no PHP parser reads) the same calls
 * plus `@lang('k')` and `@choice('k', n)`, found by a scanner that skips `{{-- --}}` comments.
 * A key with an interpolation (`"messages.$x"`) is dynamic with its static prefix. WordPress's
 * gettext calls too (`__`, `_e`, `esc_html__`, `_x`, `_n` … see WP_FUNCS), and PHP's own gettext
 * extension: `_('id')`, `gettext('id')`, `ngettext('id', 'ids', n)`, `dgettext('domain', 'id')`,
 * `dngettext`, `dcgettext` (see PHP_GETTEXT), keyed by the message id as a PO file has it.
 */
import { Engine } from 'php-parser';
import type { Raw } from '../types';
import { commentMask, scanCalls, type Framework } from './common';

const FUNCS = new Set(['__', 'trans', 'trans_choice', '_t', 'lang']);
/**
 * WordPress's gettext functions (the message id is the key, as in the theme's or plugin's PO
 * files): the id is the first argument; the `_x` family's context is the second (`_nx`: the
 * fourth), keyed `context|id` as the PO reader keys a `msgctxt`.
 */
const WP_FUNCS = new Set(['_e', 'esc_html__', 'esc_html_e', 'esc_attr__', 'esc_attr_e', '_n', '_n_noop']);
const WP_CONTEXT: Record<string, number> = { _x: 1, _ex: 1, esc_html_x: 1, esc_attr_x: 1, _nx: 3, _nx_noop: 2 };
/** PHP's gettext extension: the argument holding the message id (the `d…` forms take the domain first). */
const PHP_GETTEXT: Record<string, number> = { _: 0, gettext: 0, ngettext: 0, dgettext: 1, dngettext: 1, dcgettext: 1 };
const BLADE = /(?:(?<![\w$>:])(?:__|trans|trans_choice)|@lang|@choice|Lang::(?:get|choice|has))\s*\(\s*(?=['"])/g;

interface PNode {
  kind: string;
  what?: PNode & { name?: string; offset?: PNode & { name?: string }; what?: PNode & { name?: string } };
  arguments?: PNode[];
  value?: unknown;
  raw?: string;
  name?: string;
  loc?: { start: { offset: number }; end: { offset: number } } | null;
  [k: string]: unknown;
}

function walk(n: unknown, visit: (n: PNode) => void): void {
  const stack: unknown[] = [n];
  while (stack.length) {
    const x = stack.pop() as PNode | null;
    if (!x || typeof x !== 'object') continue;
    if (typeof x.kind === 'string') visit(x);
    for (const [k, v] of Object.entries(x)) {
      if (k === 'loc' || k === 'leadingComments' || k === 'trailingComments') continue;
      if (Array.isArray(v)) for (const c of v) stack.push(c);
      else if (v && typeof v === 'object') stack.push(v);
    }
  }
}

export const laravelFramework: Framework = {
  name: 'Laravel',
  claims: (rel) => /\.php$/i.test(rel),
  find(rel, text) {
    const out: Raw[] = [];
    if (!/__|trans|Lang::|@lang|@choice|\b_[enx]?\s*\(|\b_nx|\besc_(?:html|attr)_|gettext\s*\(/.test(text)) return out;
    if (/\.blade\.php$/i.test(rel)) {
      const inComment = commentMask(text, [['{{--', '--}}']]);
      const raws: Raw[] = [];
      scanCalls(text, BLADE, (m) => m[0].replace(/\s*\(\s*$/, ''), raws);
      return raws.filter((r) => !inComment(r.start));
    }
    const engine = new Engine({ parser: { extractDoc: false, php8: true, suppressErrors: true }, ast: { withPositions: true } });
    const ast = engine.parseCode(text, rel);
    walk(ast, (n) => {
      if (n.kind !== 'call' || !n.what) return;
      const w = n.what;
      let via: string | undefined;
      if (w.kind === 'name' && (FUNCS.has(String(w.name)) || WP_FUNCS.has(String(w.name)) || String(w.name) in WP_CONTEXT)) via = String(w.name);
      else if (w.kind === 'staticlookup' && w.what?.kind === 'name' && /(?:^|\\)Lang$/.test(String(w.what.name)) && /^(?:get|choice|has)$/.test(String(w.offset?.name))) via = `Lang::${w.offset?.name}`;
      else if (w.kind === 'name' && Object.hasOwn(PHP_GETTEXT, String(w.name).replace(/^\\/, ''))) via = String(w.name).replace(/^\\/, '');
      if (!via) return;
      const a = n.arguments?.[Object.hasOwn(PHP_GETTEXT, via) ? PHP_GETTEXT[via] : 0];
      if (!a?.loc) return;
      const ctxAt = Object.hasOwn(WP_CONTEXT, via) ? WP_CONTEXT[via] : undefined;
      if (ctxAt !== undefined) {
        const c = n.arguments?.[ctxAt];
        if (a.kind === 'string' && typeof a.value === 'string' && c?.kind === 'string' && typeof c.value === 'string') out.push({ key: `${c.value}|${a.value}`, dynamic: false, via, start: a.loc.start.offset + 1, end: a.loc.end.offset - 1 });
        return;
      }
      if (a.kind === 'string' && typeof a.value === 'string') out.push({ key: a.value, dynamic: false, via, start: a.loc.start.offset + 1, end: a.loc.end.offset - 1 });
      else if (a.kind === 'encapsed') {
        const first = (a.value as PNode[] | undefined)?.[0] as (PNode & { expression?: PNode }) | undefined;
        const lit = first?.expression?.kind === 'string' ? String(first.expression.value) : '';
        if (lit) out.push({ key: lit, dynamic: true, via, start: a.loc.start.offset, end: a.loc.end.offset });
      } else if (a.kind === 'bin' && (a as PNode & { type?: string }).type === '.') {
        const left = (a as PNode & { left?: PNode }).left;
        if (left?.kind === 'string' && typeof left.value === 'string' && left.value) out.push({ key: left.value, dynamic: true, via, start: a.loc.start.offset, end: a.loc.end.offset });
      }
    });
    return out;
  },
};
