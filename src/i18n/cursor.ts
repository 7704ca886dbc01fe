/**
 * "The string under the cursor", for the editor's "Where is this string defined?" command:
 * a pure function of a document's text, its language and an offset, so the command is a thin
 * layer (no `vscode` here) and the same answer is tested in plain Node.
 *
 * - JS/TS/JSX/TSX: the innermost string literal, template literal part, or JSX text holding
 *   the offset (Babel AST);
 * - Vue: in `<template>`, the text node (trimmed), the attribute value, or a string literal
 *   inside an interpolation / directive expression; in `<script>`, as JS/TS; in `<i18n>`, as JSON;
 * - JSON: the string node (jsonc-parser);
 * - anything else (HTML, Markdown, …): a quoted string on the line, else the text between
 *   `>` and `<`, else the line itself, trimmed.
 * A non-empty selection wins over all of this: its text is returned as is (kind `selection`).
 */
import type * as t from '@babel/types';
import { parse as parseSfc } from '@vue/compiler-sfc';
import * as jsonc from 'jsonc-parser';
import { SourceText } from '../parse/source-text';
import type { StringAtResult } from './types';
import { parseScriptAst, parseTemplateExpression, walkAst } from './script-usages';

type Lang = 'script' | 'vue' | 'json' | 'other';

/** VS Code language ids (`typescriptreact`) and file names (`a.tsx`) both work. */
function langOf(language: string): { lang: Lang; ts: boolean; jsx: boolean } {
  const l = language.toLowerCase();
  const ext = l.includes('.') ? l.slice(l.lastIndexOf('.') + 1) : l;
  if (ext === 'vue') return { lang: 'vue', ts: false, jsx: false };
  if (['json', 'jsonc', 'json5'].includes(ext)) return { lang: 'json', ts: false, jsx: false };
  if (['javascript', 'js', 'mjs', 'cjs', 'jsx', 'javascriptreact'].includes(ext)) return { lang: 'script', ts: false, jsx: true };
  if (['typescript', 'ts', 'mts', 'cts'].includes(ext)) return { lang: 'script', ts: true, jsx: false };
  if (['tsx', 'typescriptreact'].includes(ext)) return { lang: 'script', ts: true, jsx: true };
  return { lang: 'other', ts: false, jsx: false };
}

interface Hit {
  text: string;
  start: number;
  end: number;
  kind: StringAtResult['kind'];
}

/** The innermost string-ish node of a Babel AST holding `offset` (AST offsets relative to `base`). */
function inScriptAst(ast: t.Node, base: number, offset: number, source: string): Hit | undefined {
  let best: Hit | undefined;
  const consider = (h: Hit) => {
    if (offset < h.start || offset > h.end) return;
    if (!best || h.end - h.start <= best.end - best.start) best = h;
  };
  walkAst(ast, (n) => {
    if (n.start == null || n.end == null) return;
    const s = base + n.start;
    const e = base + n.end;
    if (offset < s || offset > e) return;
    if (n.type === 'StringLiteral') consider({ text: n.value, start: s + 1, end: e - 1, kind: 'string' });
    else if (n.type === 'TemplateElement') consider({ text: n.value.cooked ?? n.value.raw, start: s, end: e, kind: 'template-literal' });
    else if (n.type === 'JSXText') {
      const raw = source.slice(s, e);
      const lead = raw.length - raw.trimStart().length;
      const text = raw.trim();
      if (text) consider({ text: text.replace(/\s+/g, ' '), start: s + lead, end: s + lead + text.length, kind: 'jsx-text' });
    }
  });
  return best;
}

function inScript(text: string, start: number, end: number, offset: number, ts: boolean, jsx: boolean): Hit | undefined {
  const ast = parseScriptAst(text.slice(start, end), ts, jsx);
  return ast ? inScriptAst(ast, start, offset, text) : undefined;
}

function inJson(text: string, start: number, end: number, offset: number): Hit | undefined {
  const root = jsonc.parseTree(text.slice(start, end), [], { allowTrailingComma: true, disallowComments: false });
  if (!root) return undefined;
  const n = jsonc.findNodeAtOffset(root, offset - start, true);
  if (n?.type !== 'string') return undefined;
  return { text: String(n.value), start: start + n.offset + 1, end: start + n.offset + n.length - 1, kind: 'json-string' };
}

interface TNode {
  type: number;
  loc: { start: { offset: number }; end: { offset: number } };
  props?: TNode[];
  children?: TNode[];
  content?: TNode | string;
  exp?: { content: string; loc: { start: { offset: number }; end: { offset: number } } };
  value?: { content: string; loc: { start: { offset: number }; end: { offset: number } } };
}

function inTemplate(root: TNode, text: string, offset: number): Hit | undefined {
  const within = (l: { start: { offset: number }; end: { offset: number } }) => offset >= l.start.offset && offset <= l.end.offset;
  const expr = (code: string, start: number): Hit | undefined => {
    const ast = parseTemplateExpression(code);
    return ast ? inScriptAst(ast, start, offset, text) : undefined;
  };
  let n: TNode | undefined = root;
  while (n) {
    let next: TNode | undefined;
    if (n.type === 1) {
      for (const p of n.props ?? []) {
        if (!within(p.loc)) continue;
        if (p.type === 6 && p.value && within(p.value.loc)) {
          const v = p.value;
          const q = text[v.loc.start.offset];
          const inner = q === '"' || q === "'" ? 1 : 0;
          return { text: v.content, start: v.loc.start.offset + inner, end: v.loc.end.offset - inner, kind: 'attribute' };
        }
        if (p.type === 7 && p.exp && within(p.exp.loc)) return expr(p.exp.content, p.exp.loc.start.offset);
        return undefined;
      }
    }
    if (n.type === 5 && n.content && typeof n.content === 'object') {
      const c = n.content as TNode & { content: string };
      return within(c.loc) ? expr(c.content, c.loc.start.offset) : undefined;
    }
    if (n.type === 2) {
      const raw = text.slice(n.loc.start.offset, n.loc.end.offset);
      const lead = raw.length - raw.trimStart().length;
      const body = raw.trim();
      if (!body) return undefined;
      return { text: body.replace(/\s+/g, ' '), start: n.loc.start.offset + lead, end: n.loc.start.offset + lead + body.length, kind: 'template-text' };
    }
    for (const c of n.children ?? []) {
      if (within(c.loc)) {
        next = c;
        // prefer a non-whitespace text or element over an empty neighbour ending at the offset
        if (c.type !== 2 || text.slice(c.loc.start.offset, c.loc.end.offset).trim()) break;
      }
    }
    n = next;
  }
  return undefined;
}

function inVue(text: string, offset: number): Hit | undefined {
  let descriptor;
  try {
    descriptor = parseSfc(text, { sourceMap: false, ignoreEmpty: false }).descriptor;
  } catch {
    return undefined;
  }
  const within = (b: { loc: { start: { offset: number }; end: { offset: number } } }) => offset >= b.loc.start.offset && offset <= b.loc.end.offset;
  const tpl = descriptor.template;
  if (tpl && within(tpl) && tpl.ast) return inTemplate(tpl.ast as unknown as TNode, text, offset);
  for (const s of [descriptor.script, descriptor.scriptSetup]) {
    if (s && within(s)) {
      const lang = String(s.lang ?? 'js');
      return inScript(text, s.loc.start.offset, s.loc.end.offset, offset, lang.startsWith('ts'), lang.endsWith('x') || lang === 'js');
    }
  }
  for (const b of descriptor.customBlocks) if (b.type === 'i18n' && within(b)) return inJson(text, b.loc.start.offset, b.loc.end.offset, offset);
  return undefined;
}

/** A quoted string around `offset` on its line, else the text between tags, else the line. */
function onLine(text: string, offset: number): Hit | undefined {
  const src = new SourceText(text);
  const li = src.lineIndexAt(Math.min(offset, text.length));
  const ls = src.lineStarts[li];
  const le = src.lineEnd(li);
  const line = text.slice(ls, le);
  const at = offset - ls;
  const quoted = /(["'`])((?:\\.|(?!\1).)*)\1/g;
  for (let m = quoted.exec(line); m; m = quoted.exec(line)) {
    if (at >= m.index && at <= m.index + m[0].length && m[2].trim()) return { text: m[2], start: ls + m.index + 1, end: ls + m.index + 1 + m[2].length, kind: 'string' };
  }
  const gt = line.lastIndexOf('>', at - 1);
  const lt = line.indexOf('<', at);
  if (gt >= 0 && lt >= 0 && gt < lt) {
    const inner = line.slice(gt + 1, lt);
    const body = inner.trim();
    if (body) {
      const lead = inner.length - inner.trimStart().length;
      return { text: body, start: ls + gt + 1 + lead, end: ls + gt + 1 + lead + body.length, kind: 'template-text' };
    }
  }
  const body = line.trim();
  if (!body) return undefined;
  const lead = line.length - line.trimStart().length;
  return { text: body, start: ls + lead, end: ls + lead + body.length, kind: 'line' };
}

/**
 * The string literal or template text at `offset` of a document (`language`: a VS Code
 * language id or a file name), or the selection `[selStart, selEnd)` when it is not empty.
 * Undefined when there is nothing string-like there.
 */
export function stringAt(text: string, language: string, offset: number, selection?: { start: number; end: number }): StringAtResult | undefined {
  const src = new SourceText(text);
  const result = (h: Hit): StringAtResult => ({ text: h.text, range: { start: src.position(h.start), end: src.position(h.end) }, kind: h.kind });
  if (selection && selection.end > selection.start) {
    const raw = text.slice(selection.start, selection.end);
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body) return result({ text: body, start: selection.start + lead, end: selection.start + lead + body.length, kind: 'selection' });
  }
  if (offset < 0 || offset > text.length) return undefined;
  const { lang, ts, jsx } = langOf(language);
  let hit: Hit | undefined;
  try {
    if (lang === 'script') hit = inScript(text, 0, text.length, offset, ts, jsx);
    else if (lang === 'vue') hit = inVue(text, offset);
    else if (lang === 'json') hit = inJson(text, 0, text.length, offset);
  } catch {
    hit = undefined;
  }
  if (!hit && lang === 'other') hit = onLine(text, offset);
  return hit ? result(hit) : undefined;
}
