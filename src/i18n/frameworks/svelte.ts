/**
 * Svelte (`.svelte`): svelte-i18n's `$_('k')`, `$t('k')`, `$format('k')`, `$json('k')` and
 * `$_({ id: 'k' })`, plus the script's usages of any JS library (i18next `t`, typesafe
 * wrappers), in markup and `<script>` alike. Parsed with `svelte/compiler`'s `parse` (the
 * modern AST: every expression carries its offsets in the file); each key argument's text is
 * read with the JS rules (literals, ternaries, dynamic prefixes).
 */
import { parse } from 'svelte/compiler';
import { keysInExpression, scriptUsages, walkAst } from '../script-usages';
import type { Raw } from '../types';
import type { Framework } from './common';

const STORES = new Set(['$_', '$t', '$format', '$json', '$date', '$l', '$LL']);

interface SNode {
  type: string;
  start?: number;
  end?: number;
  callee?: SNode & { name?: string };
  arguments?: SNode[];
  properties?: Array<SNode & { key?: SNode & { name?: string; value?: unknown }; value?: SNode }>;
  content?: SNode & { start?: number; end?: number };
  attributes?: Array<{ name?: string; value?: unknown }>;
}

export const svelteFramework: Framework = {
  name: 'Svelte',
  claims: (rel) => /\.svelte$/i.test(rel),
  find(_rel, text, opts) {
    const out: Raw[] = [];
    const ast = parse(text, { modern: true }) as unknown as { instance?: SNode; module?: SNode; fragment?: SNode };
    const storeCall = (n: SNode) => {
      if (n.type !== 'CallExpression' || n.callee?.type !== 'Identifier' || !STORES.has(n.callee.name ?? '')) return;
      const a = n.arguments?.[0];
      if (!a || a.start == null || a.end == null) return;
      let arg: SNode = a;
      if (a.type === 'ObjectExpression') {
        const id = a.properties?.find((p) => p.key?.name === 'id' || p.key?.value === 'id')?.value;
        if (!id) return;
        arg = id;
      }
      for (const k of keysInExpression(text.slice(arg.start!, arg.end!), arg.start!)) out.push({ ...k, via: n.callee.name ?? '' });
    };
    // markup: every expression node of the fragment
    if (ast.fragment) walkAst(ast.fragment, (n) => storeCall(n as unknown as SNode));
    for (const s of [ast.module, ast.instance]) {
      const c = s?.content;
      if (!c || c.start == null || c.end == null) continue;
      const code = text.slice(c.start, c.end);
      // the script: store calls, and any JS library's calls (the JS rules), without counting one twice
      walkAst(c, (n) => storeCall(n as unknown as SNode));
      const lang = (s as unknown as { attributes?: Array<{ name: string; value: unknown }> }).attributes?.find((a) => a.name === 'lang');
      const ts = JSON.stringify(lang?.value ?? '').includes('ts');
      for (const r of scriptUsages(code, c.start, ts, false, opts)) if (!STORES.has(r.via)) out.push(r);
    }
    return out;
  },
};
