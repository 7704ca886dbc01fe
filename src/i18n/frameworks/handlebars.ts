/**
 * Ember / Handlebars templates (`.hbs`, `.handlebars`): ember-intl's `{{t 'k'}}`, `(t 'k')` in
 * sub-expressions and block params, and `{{t-html 'k'}}`. Parsed with @glimmer/syntax (Ember's
 * own template parser, offsets on every node); a key that is a path (`{{t this.key}}`) is not
 * static and not reported.
 *
 * Glimmer's parser recurses per nested block and slows down with depth (6,000 nested `{{#if}}`
 * took 20 s, and past ~1,000 levels it overflows the stack, losing every usage). A template whose
 * blocks nest deeper than MAX_NESTING, or that Glimmer cannot parse, is read by a linear lexical
 * scan instead: the helper calls inside each mustache (comments skipped).
 */
import { preprocess, traverse } from '@glimmer/syntax';
import type { Raw } from '../types';
import type { Framework } from './common';

const HELPERS = new Set(['t', 't-html', 'intl-t', 'translate']);
const MAX_NESTING = 200;
/** A helper call opening a mustache (`{{t `, `{{#t `, `{{~t `) or a sub-expression (`(t `), its first argument a string. */
const CALL = /(?:^\s*~?[#]?\s*|\(\s*)(t|t-html|intl-t|translate)\s+(?:"([^"]*)"|'([^']*)')/g;

/** The deepest nesting of `{{#…}}` blocks, read lexically (comments and their contents not skipped: an upper bound is enough). */
function blockDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = text.indexOf('{{'); i >= 0; i = text.indexOf('{{', i + 2)) {
    let j = i + 2;
    if (text[j] === '~') j++;
    if (text[j] === '#') max = Math.max(max, ++depth);
    else if (text[j] === '/') depth = Math.max(0, depth - 1);
  }
  return max;
}

/** The helper calls of each mustache, found lexically: linear in the text, at any nesting. */
export function scanMustaches(text: string): Raw[] {
  const out: Raw[] = [];
  let i = text.indexOf('{{');
  while (i >= 0) {
    if (text.startsWith('{{!--', i) || text.startsWith('{{~!--', i)) {
      const e = text.indexOf('--', i + 5);
      const close = e < 0 ? -1 : text.indexOf('}}', e);
      i = close < 0 ? -1 : text.indexOf('{{', close + 2);
      continue;
    }
    const close = text.indexOf('}}', i + 2);
    if (close < 0) break;
    const body = text.slice(i + 2, close);
    if (!/^~?!/.test(body)) {
      CALL.lastIndex = 0;
      for (let m = CALL.exec(body); m; m = CALL.exec(body)) {
        const value = m[2] ?? m[3];
        const end = i + 2 + m.index + m[0].length - 1;
        out.push({ key: value, dynamic: false, via: `{{${m[1]}}}`, start: end - value.length, end });
        CALL.lastIndex = m.index + m[0].length;
      }
    }
    i = text.indexOf('{{', close + 2);
  }
  return out;
}

interface GNode {
  path: { type: string; original?: string };
  params: Array<{ type: string; value?: unknown; loc: { getStart(): { offset: number | null }; getEnd(): { offset: number | null } } }>;
}

export const handlebarsFramework: Framework = {
  name: 'Handlebars',
  claims: (rel) => /\.(?:hbs|handlebars)$/i.test(rel),
  find(_rel, text) {
    if (blockDepth(text) > MAX_NESTING) return scanMustaches(text);
    const out: Raw[] = [];
    let ast: ReturnType<typeof preprocess>;
    try {
      ast = preprocess(text, { mode: 'codemod' });
    } catch (err) {
      // a template Glimmer overflows on or rejects: its helper calls, read lexically
      if (err instanceof RangeError) return scanMustaches(text);
      throw err;
    }
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
