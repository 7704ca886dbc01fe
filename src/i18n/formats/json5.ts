/**
 * JSON5 (`en.json5`, `<i18n lang="json5">`): unquoted and single-quoted keys, single-quoted
 * strings, hex numbers, `+`/`Infinity`, comments and trailing commas. jsonc-parser reads only
 * comments and trailing commas of these, and the `json5` package keeps no positions; JSON5 is a
 * subset of an ECMAScript expression, so @babel/parser (already the usages' parser) reads it
 * with exact ranges. JSON files that jsonc-parser reads never come here.
 */
import { parseExpression } from '@babel/parser';
import type * as t from '@babel/types';
import { errText } from './common';
import type { Leaf } from '../types';

const MAX_DEPTH = 64;

export interface ObjectLeaves {
  leaves: Leaf[];
  /** Members that are neither strings nor objects/arrays of them. */
  others: number;
}

/** Every string leaf of an object literal (Babel AST), keys joined with `.`; offsets + `base`. */
export function objectLeaves(obj: t.ObjectExpression, base = 0): ObjectLeaves {
  const leaves: Leaf[] = [];
  let others = 0;
  const stack: Array<{ node: t.Node; prefix: string; depth: number; ks: number; ke: number }> = [{ node: obj, prefix: '', depth: 0, ks: 0, ke: 0 }];
  while (stack.length) {
    const { node, prefix, depth, ks, ke } = stack.pop()!;
    if (node.type === 'StringLiteral' || (node.type === 'TemplateLiteral' && node.expressions.length === 0)) {
      const value = node.type === 'StringLiteral' ? node.value : (node.quasis[0]?.value.cooked ?? '');
      if (prefix) leaves.push({ path: prefix, value, vs: base + node.start! + 1, ve: base + node.end! - 1, ks, ke });
      continue;
    }
    if (depth >= MAX_DEPTH) continue;
    if (node.type === 'ObjectExpression') {
      for (let i = node.properties.length - 1; i >= 0; i--) {
        const p = node.properties[i];
        if (p.type !== 'ObjectProperty' || p.computed) {
          others++;
          continue;
        }
        const k = p.key;
        const seg = k.type === 'Identifier' ? k.name : k.type === 'StringLiteral' ? k.value : k.type === 'NumericLiteral' ? String(k.value) : undefined;
        if (seg === undefined) continue;
        const inner = k.type === 'StringLiteral' ? 1 : 0;
        stack.push({ node: p.value, prefix: prefix ? `${prefix}.${seg}` : seg, depth: depth + 1, ks: base + k.start! + inner, ke: base + k.end! - inner });
      }
    } else if (node.type === 'ArrayExpression') {
      node.elements.forEach((el, i) => {
        if (el) stack.push({ node: el, prefix: `${prefix}.${i}`, depth: depth + 1, ks: base + el.start!, ke: base + el.end! });
      });
    } else others++;
  }
  leaves.sort((a, b) => a.vs - b.vs);
  return { leaves, others };
}

/** The string leaves of a JSON5 text, or why it does not parse (offset relative to the text). */
export function json5Leaves(text: string, base = 0): { leaves: Leaf[]; isObject: boolean; error?: { offset: number; message: string } } {
  let ast: t.Expression;
  try {
    ast = parseExpression(text, { errorRecovery: false });
  } catch (err) {
    const pos = (err as { pos?: number }).pos;
    return { leaves: [], isObject: false, error: { offset: typeof pos === 'number' ? pos : 0, message: errText(err).replace(/\s*\(\d+:\d+\)$/, '') } };
  }
  if (ast.type !== 'ObjectExpression') return { leaves: [], isObject: false };
  return { leaves: objectLeaves(ast, base).leaves, isObject: true };
}
