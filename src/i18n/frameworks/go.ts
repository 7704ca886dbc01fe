/**
 * Go: go-i18n v2's message ids in Go code, and Hugo's (or any Go template's) translate calls —
 * the keys of formats/toml.ts's files (and of Hugo's YAML or JSON ones).
 * - Go (`.go`): the `MessageID` field of a `LocalizeConfig{…}` literal and the `ID` field of a
 *   `Message{…}` literal: `localizer.MustLocalize(&i18n.LocalizeConfig{MessageID: "k"})`,
 *   `DefaultMessage: &i18n.Message{ID: "k", Other: "…"}`. The type is qualified by `i18n.` or
 *   by the name go-i18n is imported as (none when it is dot-imported); the id is an interpreted
 *   `"…"` or raw `` `…` `` string, and `"a." + x` is a dynamic key under its prefix.
 * - Templates (`.tmpl`, `.gotmpl`, `.gohtml`; `.html`, as in Hugo's `layouts/`, through
 *   frameworks/angular.ts): inside `{{ … }}`, `i18n "k"`, `T "k"` and `lang.Translate "k"` (with
 *   more arguments, in parens `(i18n "k")`), and `"k" | i18n`; `i18n (printf "m%d" .x)` is a
 *   dynamic key under the format's prefix.
 * A scanner (no Go parser is maintained on npm) that skips `//` and `/* *\/` comments (a `//` in
 * a string is none) and template comments `{{/* … *\/}}`.
 */
import type { Raw } from '../types';
import { inRanges, type Framework } from './common';

/** The go-i18n v2 import, and the name it is given (`goi18n "…"`, `. "…"`). */
const IMPORT = /(?:^|[\s(;])(?!import\b)(?:([\w.]+)[ \t]+)?"github\.com\/nicksnyder\/go-i18n\/v\d+\/i18n"/m;
/** The field that names the message id, by literal type. */
const ID_FIELD: Record<string, string> = { LocalizeConfig: 'MessageID', Message: 'ID' };
const FIELD = /(?<![\w.])(MessageID|ID)\s*:\s*/y;
/** A translate call in a template action, up to its key (or its `printf` format). */
const CALL = /(?<![\w.$])(i18n|T|lang\.Translate)\s+(\(\s*printf\s+)?(?=["`])/g;
/** A key piped into a translate function at a command's start: `{{ "k" | i18n }}`, `(… "k" | T)`. */
const PIPE = /(?<=(?:\{\{-?|\(|=)\s*)("(?:[^"\\\n]|\\.)*"|`[^`]*`)\s*\|\s*(i18n|T|lang\.Translate)(?![\w.])/g;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };
/** How far into a `Message{…}` / `LocalizeConfig{…}` literal its fields are looked for. */
const LITERAL_SPAN = 4000;

/** Just after the Go (or template) string, rune or comment that starts at `i`; `i` itself when none does. */
function lexemeEnd(text: string, i: number): number {
  const c = text[i];
  const to = (e: number, len: number) => (e < 0 ? text.length : e + len);
  if (c === '/' && text[i + 1] === '/') return to(text.indexOf('\n', i), 0);
  if (c === '/' && text[i + 1] === '*') return to(text.indexOf('*/', i + 2), 2);
  if (c === '`') return to(text.indexOf('`', i + 1), 1);
  if (c !== '"' && c !== "'") return i;
  let j = i + 1;
  while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
  return Math.min(j + 1, text.length);
}

/** The string literal at `at` (interpreted `"…"` or raw `` `…` ``): its value and the offsets inside its quotes. */
function goString(text: string, at: number): { value: string; s: number; e: number } | undefined {
  const q = text[at];
  if (q === '`') {
    const e = text.indexOf('`', at + 1);
    return e < 0 ? undefined : { value: text.slice(at + 1, e), s: at + 1, e };
  }
  if (q !== '"') return undefined;
  let value = '';
  for (let i = at + 1; i < text.length && text[i] !== '\n'; i++) {
    const c = text[i];
    if (c === '"') return { value, s: at + 1, e: i };
    value += c === '\\' ? (ESCAPES[text[++i]] ?? text[i] ?? '') : c;
  }
  return undefined;
}

/** The `MessageID` / `ID` fields of go-i18n's literals in Go code. */
function goCodeUsages(text: string): Raw[] {
  const out: Raw[] = [];
  if (!/MessageID|Message\s*\{/.test(text)) return out;
  const alias = IMPORT.exec(text)?.[1];
  const names = ['i18n', ...(alias && alias !== '.' && alias !== '_' ? [alias] : [])].join('|');
  const literal = new RegExp(`(?<![\\w.])(?:(?:${names})\\.)${alias === '.' ? '?' : ''}(LocalizeConfig|Message)\\s*\\{`, 'g');
  const comments: Array<[number, number]> = [];
  for (let i = 0; i < text.length; ) {
    const e = lexemeEnd(text, i);
    if (e > i && text[i] === '/') comments.push([i, e]);
    i = Math.max(e, i + 1);
  }
  const inComment = inRanges(comments);
  for (let m = literal.exec(text); m; m = literal.exec(text)) {
    if (inComment(m.index)) continue;
    const field = ID_FIELD[m[1]];
    // the literal's own fields: depth 1, strings and comments stepped over
    let depth = 1;
    // (a literal never closed is read no further than LITERAL_SPAN: an unclosed one per line made a file quadratic)
    for (let i = m.index + m[0].length, to = Math.min(text.length, i + LITERAL_SPAN); i < to && depth > 0; ) {
      const end = lexemeEnd(text, i);
      if (end > i) {
        i = end;
        continue;
      }
      const c = text[i];
      if (c === '{' || c === '(' || c === '[') depth++;
      else if (c === '}' || c === ')' || c === ']') depth--;
      FIELD.lastIndex = i;
      const f = depth === 1 ? FIELD.exec(text) : null;
      if (!f) {
        i++;
        continue;
      }
      i += f[0].length;
      const lit = f[1] === field ? goString(text, i) : undefined;
      if (!lit) continue;
      const dynamic = /^\s*\+/.test(text.slice(lit.e + 1, lit.e + 40));
      if (lit.value) out.push({ key: lit.value, dynamic, via: `${m[1]}.${field}`, start: lit.s, end: lit.e });
    }
  }
  return out;
}

/** The template actions `{{ … }}` of a text, as [start, end) ranges; comments `{{/* … *\/}}` are none. */
function actions(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = text.indexOf('{{'); i >= 0; i = text.indexOf('{{', i)) {
    const open = /^\{\{(?:-\s)?\s*/.exec(text.slice(i, i + 40))![0];
    let j = i + open.length;
    if (text.startsWith('/*', j)) {
      const e = text.indexOf('*/', j + 2);
      i = e < 0 ? text.length : e + 2;
      continue;
    }
    while (j < text.length && !text.startsWith('}}', j)) j = Math.max(lexemeEnd(text, j), j + 1);
    out.push([i, j]);
    i = j;
  }
  return out;
}

/** The translate calls of Go template actions (Hugo's `{{ i18n "k" }}`); frameworks/angular.ts adds them for `.html`. */
export function goTemplateUsages(text: string): Raw[] {
  const out: Raw[] = [];
  if (!text.includes('{{') || !/\b(?:i18n|T|lang\.Translate)\b/.test(text)) return out;
  for (const [s, e] of actions(text)) {
    const body = text.slice(s, e);
    CALL.lastIndex = 0;
    for (let m = CALL.exec(body); m; m = CALL.exec(body)) {
      const lit = goString(body, m.index + m[0].length);
      if (!lit) continue;
      // a printf format: the key is its text up to the first verb
      const verb = m[2] ? lit.value.indexOf('%') : -1;
      const key = verb < 0 ? lit.value : lit.value.slice(0, verb);
      if (key) out.push({ key, dynamic: verb >= 0, via: m[1], start: s + lit.s, end: s + lit.e });
    }
    PIPE.lastIndex = 0;
    for (let m = PIPE.exec(body); m; m = PIPE.exec(body)) {
      const lit = goString(body, m.index);
      if (lit?.value) out.push({ key: lit.value, dynamic: false, via: `| ${m[2]}`, start: s + lit.s, end: s + lit.e });
    }
  }
  return out;
}

export const goFramework: Framework = {
  name: 'Go',
  claims: (rel) => /\.(?:go|tmpl|gotmpl|gohtml)$/i.test(rel),
  find: (rel, text) => (/\.go$/i.test(rel) ? goCodeUsages(text) : goTemplateUsages(text)),
};
