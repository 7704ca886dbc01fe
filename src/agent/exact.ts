/**
 * Exact matches over a folder's parsed units, for the agent tools that must be able to say "no
 * match": `search` in mode exact / identifier / regex, `references` and `definitions`.
 *
 * The chunks are exact slices of their files and only whitespace lies outside them, so their
 * lines are the file's lines (a chunk that starts mid-line holds that line from its first
 * non-blank character). Overlapping chunks (a section and its code block) give a line once,
 * with the innermost unit's kind and symbol.
 *
 * - exact: the text as written, case-sensitive, inside one line;
 * - identifier: the text as a whole identifier — not inside a longer one (`fn` never matches
 *   `SECRETDIRCANARY_fn`, `getZoom` never matches `getZoomControl`);
 * - regex: a JavaScript regular expression tested on each line. A pattern can backtrack
 *   exponentially (`(a+)+$`), so the whole scan runs in a `vm` context with a time limit
 *   (`REGEX_TIME_MS`): a pattern that runs over it is stopped and refused with a message, never
 *   a hung server. Patterns are at most `MAX_PATTERN` characters.
 */
import * as vm from 'node:vm';
import type { Chunk } from '../chunkers/types';
import { compileGlob } from '../workspace/glob';

export type ExactMode = 'exact' | 'identifier' | 'regex';
export const EXACT_MODES: readonly ExactMode[] = ['exact', 'identifier', 'regex'];

/** Longest regex accepted (characters). */
export const MAX_PATTERN = 1000;
/** Most time a regex scan of one folder may take before it is stopped, ms. */
export const REGEX_TIME_MS = 2000;
/** Lines longer than this are tested on their first `MAX_LINE` characters (minified files). */
export const MAX_LINE = 4000;

/** A pattern the scan refuses (bad regex, too slow): its message is for the agent. */
export class PatternError extends Error {}

/** One matching line of a file, with the innermost unit holding it. */
export interface LineMatch {
  line: number;
  text: string;
  chunk: Chunk;
}

/** A file's matching lines in line order. */
export interface FileMatches {
  path: string;
  lines: LineMatch[];
}

const IDENT = /[\p{L}\p{N}_$]/u;

/** Whether `name` occurs in `line` as a whole identifier (no identifier character on either side). */
export function hasIdentifier(line: string, name: string): boolean {
  if (!name) return false;
  for (let at = line.indexOf(name); at >= 0; at = line.indexOf(name, at + 1)) {
    const before = at > 0 ? line[at - 1] : '';
    const after = line[at + name.length] ?? '';
    const headIdent = IDENT.test(name[0]);
    const tailIdent = IDENT.test(name[name.length - 1]);
    if ((!headIdent || !before || !IDENT.test(before)) && (!tailIdent || !after || !IDENT.test(after))) return true;
  }
  return false;
}

/**
 * A path filter from globs as the search filter reads them: `!glob` excludes, a glob without
 * `/` matches file names anywhere. Globs are checked by the caller (they compile).
 */
export function pathFilter(globs: string[] | undefined): (path: string) => boolean {
  const list = (globs ?? []).map((g) => g.trim()).filter((g) => g && g !== '!');
  if (!list.length) return () => true;
  const compile = (gs: string[]) => (gs.length ? gs.map((g) => compileGlob(g.startsWith('./') ? g.slice(2) : g, { basename: !g.includes('/') })) : undefined);
  const inc = compile(list.filter((g) => !g.startsWith('!')));
  const exc = compile(list.filter((g) => g.startsWith('!')).map((g) => g.slice(1)));
  return (p) => (!inc || inc.some((m) => m(p))) && !(exc && exc.some((m) => m(p)));
}

/** The chunks to scan: those of the accepted paths, grouped by path. */
function byPath(chunks: Iterable<Chunk>, accept: (path: string) => boolean, chunkOk: (c: Chunk) => boolean): Map<string, Chunk[]> {
  const out = new Map<string, Chunk[]>();
  const memo = new Map<string, boolean>();
  for (const c of chunks) {
    let ok = memo.get(c.path);
    if (ok === undefined) memo.set(c.path, (ok = accept(c.path)));
    if (!ok || !chunkOk(c)) continue;
    let list = out.get(c.path);
    if (!list) out.set(c.path, (list = []));
    list.push(c);
  }
  return out;
}

/** Folds a file's per-chunk line hits into one entry per line (the innermost chunk wins). */
function fold(path: string, hits: Array<{ chunk: Chunk; index: number; text: string }>): FileMatches {
  const lines = new Map<number, LineMatch>();
  for (const h of hits) {
    const line = h.chunk.start.line + h.index;
    const had = lines.get(line);
    const span = (c: Chunk) => c.end.offset - c.start.offset;
    if (!had || span(h.chunk) < span(had.chunk)) lines.set(line, { line, text: had && had.text.length > h.text.length ? had.text : h.text, chunk: h.chunk });
  }
  return { path, lines: [...lines.values()].sort((a, b) => a.line - b.line) };
}

/**
 * The lines of `chunks` that match `pattern` in `mode`, by file (files in path order). A regex
 * that does not compile, or runs over `REGEX_TIME_MS`, is a `PatternError`.
 */
export function scanChunks(chunks: Iterable<Chunk>, mode: ExactMode, pattern: string, options: { accept?: (path: string) => boolean; chunkOk?: (c: Chunk) => boolean } = {}): FileMatches[] {
  const files = byPath(chunks, options.accept ?? (() => true), options.chunkOk ?? (() => true));
  const paths = [...files.keys()].sort();
  const out: FileMatches[] = [];
  if (mode === 'regex') {
    const list: Chunk[] = paths.flatMap((p) => files.get(p)!);
    const found = regexScan(list.map((c) => c.text), pattern);
    const hits = new Map<string, Array<{ chunk: Chunk; index: number; text: string }>>();
    for (let i = 0; i < found.length; i += 2) {
      const chunk = list[found[i]];
      const text = chunk.text.split('\n')[found[i + 1]];
      let h = hits.get(chunk.path);
      if (!h) hits.set(chunk.path, (h = []));
      h.push({ chunk, index: found[i + 1], text });
    }
    for (const p of paths) if (hits.has(p)) out.push(fold(p, hits.get(p)!));
    return out;
  }
  const test = mode === 'exact' ? (line: string) => line.includes(pattern) : (line: string) => hasIdentifier(line, pattern);
  for (const p of paths) {
    const hits: Array<{ chunk: Chunk; index: number; text: string }> = [];
    for (const chunk of files.get(p)!) {
      const text = chunk.text;
      if (!text.includes(pattern)) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) if (test(lines[i])) hits.push({ chunk, index: i, text: lines[i] });
    }
    if (hits.length) out.push(fold(p, hits));
  }
  return out;
}

const REGEX_SCAN = `
(() => {
  const re = new RegExp(pattern, flags);
  const found = [];
  for (let i = 0; i < texts.length; i++) {
    const lines = texts[i].split('\\n');
    for (let j = 0; j < lines.length; j++) {
      const line = lines[j].length > maxLine ? lines[j].slice(0, maxLine) : lines[j];
      if (re.test(line)) found.push(i, j);
    }
  }
  return found;
})()`;
let regexScript: vm.Script | undefined;

/** [text index, line index, …] of the lines of `texts` matching `pattern`, run under a time limit. */
export function regexScan(texts: string[], pattern: string, timeMs = REGEX_TIME_MS): number[] {
  if (pattern.length > MAX_PATTERN) throw new PatternError(`the regex is ${pattern.length} characters long, over the limit of ${MAX_PATTERN}`);
  // flags: none but u when the pattern needs it (\p{…}); a line is tested on its own, so no g/m
  const flags = /\\[pP]\{/.test(pattern) ? 'u' : '';
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    throw new PatternError(`invalid regex ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
  regexScript ??= new vm.Script(REGEX_SCAN, { filename: 'fathom-regex-scan.js' });
  const context = vm.createContext({ texts, pattern, flags, maxLine: MAX_LINE });
  try {
    const found = regexScript.runInContext(context, { timeout: timeMs }) as unknown as ArrayLike<number>;
    return Array.from(found);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new PatternError(`the regex ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)} ran over ${timeMs} ms and was stopped (nested quantifiers such as (a+)+ backtrack without end): simplify it, or use mode "exact" or "identifier"`);
    }
    throw err;
  }
}

/**
 * The last name of a symbol: `Map.zoomIn` → `zoomIn`, `a::b` → `b`, `A > B` (a heading) stays
 * whole; each name of a list (a Go `const ( A = 1; B = 2 )` block `A, B`, `var a = 1, b = 2`).
 */
export function symbolNames(symbol: string): string[] {
  const names = new Set([symbol]);
  const last = symbol.split(/\.|::|#|\//).pop();
  if (last) names.add(last);
  // (a group `X.{a, b}` is not: its members are found by parsing it again, each its own unit)
  if (/^[\w$]+(?:\s*,\s*[\w$]+)+$/.test(symbol)) for (const n of symbol.split(',')) names.add(n.trim());
  return [...names];
}
