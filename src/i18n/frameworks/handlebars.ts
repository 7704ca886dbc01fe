/**
 * Ember / Handlebars templates (`.hbs`, `.handlebars`): ember-intl's `{{t 'k'}}`, `(t 'k')` in
 * sub-expressions and block params, and `{{t-html 'k'}}`. Parsed with @glimmer/syntax (Ember's
 * own template parser, offsets on every node); a key that is a path (`{{t this.key}}`) is not
 * static and not reported.
 */
import { preprocess, traverse } from '@glimmer/syntax';
import type { Raw } from '../usages';
import type { Framework } from './common';

const HELPERS = new Set(['t', 't-html', 'intl-t', 'translate']);

interface GNode {
  path: { type: string; original?: string };
  params: Array<{ type: string; value?: unknown; loc: { getStart(): { offset: number | null }; getEnd(): { offset: number | null } } }>;
}

export const handlebarsFramework: Framework = {
  name: 'Handlebars',
  claims: (rel) => /\.(?:hbs|handlebars)$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    const ast = preprocess(text, { mode: 'codemod' });
    const visit = (n: GNode) => {
      if (n.path.type !== 'PathExpression' || !HELPERS.has(n.path.original ?? '')) return;
      const p = n.params[0];
      if (!p || p.type !== 'StringLiteral' || typeof p.value !== 'string') return;
      const s = p.loc.getStart().offset;
      const e = p.loc.getEnd().offset;
      if (s == null || e == null) return;
      out.push({ key: p.value, dynamic: false, via: `{{${n.path.original}}}`, start: s + 1, end: e - 1 });
    };
    traverse(ast, {
      MustacheStatement: (n) => visit(n as unknown as GNode),
      SubExpression: (n) => visit(n as unknown as GNode),
      BlockStatement: (n) => visit(n as unknown as GNode),
    });
    return out;
  },
};
