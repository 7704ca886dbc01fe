/**
 * What the framework usage extractors share: the extractor interface, and the quoted-string
 * reading of the scanners (for languages with no maintained npm parser, or whose templates
 * none reads: Blade, ERB/HAML/Slim, Dart, Angular templates, UI5 XML views).
 */
import type { Raw, UsageOptions } from '../types';

export interface Framework {
  name: string;
  /** Files of this framework (by path alone). */
  claims(rel: string): boolean;
  /** Every usage in the file's text; may throw (the caller turns that into no usages). */
  find(rel: string, text: string, opts: UsageOptions): Raw[];
}

/**
 * A quoted string literal starting at `text[at]` (`'…'` or `"…"`, backslash escapes): its
 * value and the offsets inside the quotes, or undefined when unterminated on its line.
 */
export function quotedAt(text: string, at: number): { value: string; s: number; e: number; dynamic: boolean } | undefined {
  const q = text[at];
  if (q !== '"' && q !== "'" && q !== '`') return undefined;
  let out = '';
  let dynamic = false;
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === q) return { value: out, s: at + 1, e: i, dynamic };
    if (c === '\n' && q !== '`') return undefined;
    if (c === '\\') {
      out += text[++i] ?? '';
      continue;
    }
    // an interpolation (`#{x}` Ruby, `${x}` Dart/JS, `$x` Dart/PHP) makes the key dynamic: its prefix is what came before
    if ((c === '#' || c === '$') && (q !== "'" || c === '$') && (text[i + 1] === '{' || (c === '$' && /[A-Za-z_]/.test(text[i + 1] ?? '')))) {
      dynamic = true;
      let j = i;
      while (j < text.length && text[j] !== q && text[j] !== '\n') j++;
      return { value: out, s: at + 1, e: j, dynamic };
    }
    out += c;
  }
  return undefined;
}

/** Each match of `re` (global, sticky-free) whose group `g` starts a quoted key: a usage. */
export function scanCalls(text: string, re: RegExp, via: (m: RegExpExecArray) => string, out: Raw[], mapKey: (k: string, m: RegExpExecArray, dynamic: boolean) => { key: string; dynamic: boolean; namespace?: string } | undefined = (k, _m, dynamic) => ({ key: k, dynamic })): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index + m[0].length;
    const q = quotedAt(text, at);
    if (!q) continue;
    if (q.dynamic && !q.value) continue;
    const k = mapKey(q.value, m, q.dynamic);
    if (!k) continue;
    out.push({ key: k.key, namespace: k.namespace, dynamic: k.dynamic, via: via(m), start: q.s, end: q.e });
  }
}

/** Offsets that are inside a comment of these kinds are skipped by the scanners. */
export function commentMask(text: string, kinds: Array<[string, string]>): (off: number) => boolean {
  const ranges: Array<[number, number]> = [];
  for (const [open, close] of kinds) {
    let i = text.indexOf(open);
    while (i >= 0) {
      const e = text.indexOf(close, i + open.length);
      const end = e < 0 ? text.length : e + close.length;
      ranges.push([i, end]);
      i = text.indexOf(open, end);
    }
  }
  return inRanges(ranges);
}

/**
 * A test of "is this offset inside one of the ranges" ([start, end), any order, may overlap):
 * the ranges sorted and merged once, each test a binary search. A scanner asks it for every match;
 * a linear look through the ranges made a file of many comments and many matches quadratic.
 */
export function inRanges(ranges: Array<[number, number]>): (off: number) => boolean {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [s, e] of sorted) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return (off) => {
    let lo = 0;
    let hi = merged.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (merged[mid][1] <= off) lo = mid + 1;
      else hi = mid;
    }
    return lo < merged.length && merged[lo][0] <= off;
  };
}

/**
 * Is an offset inside a comment? Comments are found outside literals (`literalEnd` gives the
 * offset after one starting at an offset): `line` opens one up to the end of its line; with
 * `//`, `/* *\/` opens a block too, which nests when `nested` (as in Rust).
 */
export function commentTest(text: string, literalEnd: (text: string, at: number) => number | undefined, line: '//' | '#', nested = false): (off: number) => boolean {
  // found on the first question: most files a scanner reads have no match to ask about
  let test: ((off: number) => boolean) | undefined;
  const find = (): ((off: number) => boolean) => {
    const ranges: Array<[number, number]> = [];
    for (let i = 0; i < text.length; i++) {
      if (text.startsWith(line, i)) {
        const nl = text.indexOf('\n', i);
        const end = nl < 0 ? text.length : nl;
        ranges.push([i, end]);
        i = end;
      } else if (line === '//' && text.startsWith('/*', i)) {
        let depth = 1;
        let j = i + 2;
        for (; j < text.length && depth > 0; j++) {
          if (text.startsWith('*/', j)) depth--;
          else if (nested && text.startsWith('/*', j)) depth++;
          else continue;
          j++;
        }
        ranges.push([i, j]);
        i = j - 1;
      } else {
        const end = literalEnd(text, i);
        if (end !== undefined) i = end - 1;
      }
    }
    return inRanges(ranges);
  };
  return (off) => (test ??= find())(off);
}
