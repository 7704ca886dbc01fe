/**
 * Laravel: `__('file.key')`, `trans('file.key')`, `trans_choice('file.key', n)`,
 * `Lang::get/choice('file.key')`, `app('translator')->get(…)` in PHP (php-parser's AST, with
 * positions), and in Blade templates (`.blade.php`, which no PHP parser reads) the same calls
 * plus `@lang('k')` and `@choice('k', n)`, found by a scanner that skips `{{-- --}}` comments.
 * A key with an interpolation (`"messages.$x"`) is dynamic with its static prefix.
 */
import { Engine } from 'php-parser';
import type { Raw } from '../usages';
import { commentMask, scanCalls, type Framework } from './common';

const FUNCS = new Set(['__', 'trans', 'trans_choice', '_t', 'lang']);
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
    if (!/__|trans|Lang::|@lang|@choice/.test(text)) return out;
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
      if (w.kind === 'name' && FUNCS.has(String(w.name))) via = String(w.name);
      else if (w.kind === 'staticlookup' && w.what?.kind === 'name' && /(?:^|\\)Lang$/.test(String(w.what.name)) && /^(?:get|choice|has)$/.test(String(w.offset?.name))) via = `Lang::${w.offset?.name}`;
      if (!via) return;
      const a = n.arguments?.[0];
      if (!a?.loc) return;
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
