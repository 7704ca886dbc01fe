/**
 * Glob matching that cannot backtrack. Plain Node.
 *
 * A regex compiled from `*d*d*d*d*q` backtracks exponentially on a long path segment (picomatch
 * took seconds at three stars and never ended at five), and globs come from places a cloned
 * repository controls (`.vscode/settings.json`). Here a glob is parsed into path segments of
 * tokens and matched without a regex: within a segment by the two-pointer wildcard algorithm
 * (back up only to the last `*`, so O(pattern × segment) at worst), across segments the same
 * way with `**` as the star over whole segments. Braces are expanded first, with a bound.
 *
 * Syntax (picomatch's, with `dot: true`; the property test checks agreement):
 * `*` any run of characters but `/`; `?` one character but `/`; `[abc]`, `[a-z]`, `[!a]`/`[^a]`
 * one character of (not of) a set; `**` as a whole segment any number of segments, none
 * included (`a/**` also matches `a`); `{a,b}` alternatives, nested; `\x` the character x; a
 * leading `!` negates; a leading `./` is dropped. `**` inside a segment (`a**`) is `*`. Other
 * extglob syntax is literal. Two differences from picomatch 4: `[!a]` negates (as in VS Code and
 * POSIX; picomatch reads a set holding `!`), and a trailing `/**` always matches the folder itself
 * (picomatch: only after a segment without `*`).
 * Options: `basename` matches a pattern without `/` against the last path segment.
 */

import { errText } from '../util/errors';

export class GlobError extends Error {}

/** Longest pattern accepted (characters). */
export const MAX_GLOB_LENGTH = 2000;
/** Most alternatives one pattern's braces may expand to. */
export const MAX_GLOB_ALTERNATIVES = 1024;

/** Marks where a brace alternative was spliced in; parsing skips it. */
const SEAM = '\u0000';

type Tok = { t: 'lit'; c: string } | { t: 'any' } | { t: 'star' } | { t: 'set'; neg: boolean; items: Array<[string, string]> };
/** A path segment of a pattern: `**`, or alternatives (from braces) of token lists. */
type Seg = { globstar: true } | { globstar: false; alts: Tok[][] };

export interface GlobOptions {
  /** A pattern without `/` is matched against the path's last segment. */
  basename?: boolean;
}

/** Checks the bounds; throws GlobError with a message fit for a user. */
function checkLength(pattern: string): void {
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new GlobError(`the glob is ${pattern.length} characters long, over the limit of ${MAX_GLOB_LENGTH}: ${pattern.slice(0, 40)}…`);
  }
}

/**
 * Expands `{a,b}` (nested) into alternatives, at most MAX_GLOB_ALTERNATIVES. A brace without a
 * top-level comma, or unclosed, is literal. Escapes are kept for the parser.
 */
export function expandBraces(pattern: string): string[] {
  return expand(pattern).map((p) => p.split(SEAM).join(''));
}

/**
 * With `slashOnly`, only groups holding a `/` are expanded (the others are expanded per path
 * segment later, so `src/{a,b}/*.{js,ts}` makes 2 + 2 alternatives, not 2 × 2).
 */
function expand(pattern: string, slashOnly = false): string[] {
  // find the first brace group with a top-level comma
  let depth = 0;
  let open = -1;
  const commas: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '[') {
      const end = classEnd(pattern, i);
      if (end > 0) {
        i = end;
        continue;
      }
    }
    if (ch === '{') {
      if (depth === 0) {
        open = i;
        commas.length = 0;
      }
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) {
        if (commas.length && (!slashOnly || pattern.slice(open, i).includes('/'))) {
          const pre = pattern.slice(0, open);
          const post = pattern.slice(i + 1);
          const parts: string[] = [];
          let from = open + 1;
          for (const c of commas) {
            parts.push(pattern.slice(from, c));
            from = c + 1;
          }
          parts.push(pattern.slice(from, i));
          const tails = expand(post, slashOnly);
          const out: string[] = [];
          for (const p of parts) {
            for (const mid of expand(p, slashOnly)) {
              for (const t of tails) {
                // a mark at the seams, so that `*{,x}*` is two stars, never a `**` segment
                out.push(`${pre}${SEAM}${mid}${SEAM}${t}`);
                if (out.length > MAX_GLOB_ALTERNATIVES) {
                  throw new GlobError(`the glob's braces expand to over ${MAX_GLOB_ALTERNATIVES} alternatives: ${pattern.slice(0, 40)}${pattern.length > 40 ? '…' : ''}`);
                }
              }
            }
          }
          return out;
        }
        // `{x}` without a comma is literal (and with slashOnly, a group without `/` is left for
        // later): look for a group further on
        return expand(pattern.slice(i + 1), slashOnly).map((t) => pattern.slice(0, i + 1) + t);
      }
    } else if (ch === ',' && depth === 1) commas.push(i);
  }
  return [pattern];
}

/** Index of the `]` closing the class opened at `i`, or -1 when it is not a class. */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '!' || p[j] === '^') j++;
  if (p[j] === ']') j++; // a leading ] is a member
  for (; j < p.length; j++) {
    if (p[j] === '\\') {
      j++;
      continue;
    }
    if (p[j] === '/') return -1;
    if (p[j] === ']') return j;
  }
  return -1;
}

function parseSegment(text: string): Seg {
  let a = 0;
  let b = text.length;
  while (a < b && text[a] === SEAM) a++;
  while (b > a && text[b - 1] === SEAM) b--;
  if (text.slice(a, b) === '**') return { globstar: true };
  return { globstar: false, alts: expand(text).map(parseTokens) };
}

function parseTokens(raw: string): Tok[] {
  let a = 0;
  let b = raw.length;
  while (a < b && raw[a] === SEAM) a++;
  while (b > a && raw[b - 1] === SEAM) b--;
  const s = raw.slice(a, b);
  const toks: Tok[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === SEAM) continue;
    if (ch === '\\' && i + 1 < s.length) {
      toks.push({ t: 'lit', c: s[++i] });
    } else if (ch === '*') {
      if (toks[toks.length - 1]?.t !== 'star') toks.push({ t: 'star' });
    } else if (ch === '?') toks.push({ t: 'any' });
    else if (ch === '[') {
      const end = classEnd(s, i);
      if (end < 0) {
        toks.push({ t: 'lit', c: ch });
        continue;
      }
      let j = i + 1;
      let neg = false;
      if (s[j] === '!' || s[j] === '^') {
        neg = true;
        j++;
      }
      const items: Array<[string, string]> = [];
      while (j < end) {
        let a = s[j];
        if (a === '\\' && j + 1 < end) a = s[++j];
        j++;
        if (s[j] === '-' && j + 1 < end) {
          let b = s[j + 1];
          j += 2;
          if (b === '\\' && j < end) b = s[j++];
          items.push([a, b]);
        } else items.push([a, a]);
      }
      toks.push({ t: 'set', neg, items });
      i = end;
    } else toks.push({ t: 'lit', c: ch });
  }
  return toks;
}

function tokMatches(tok: Tok, c: string): boolean {
  switch (tok.t) {
    case 'lit':
      return tok.c === c;
    case 'any':
      return true;
    case 'set': {
      let inSet = false;
      for (const [a, b] of tok.items) {
        if (c >= a && c <= b) {
          inSet = true;
          break;
        }
      }
      return inSet !== tok.neg;
    }
    default:
      return false;
  }
}

/** Does one segment's tokens match `s` (no `/` in it)? Two pointers: O(|toks| × |s|) at worst. */
function matchSegment(toks: Tok[], s: string): boolean {
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = 0;
  while (i < s.length) {
    if (p < toks.length && toks[p].t === 'star') {
      starP = p++;
      starI = i;
    } else if (p < toks.length && tokMatches(toks[p], s[i])) {
      p++;
      i++;
    } else if (starP >= 0) {
      p = starP + 1;
      i = ++starI;
    } else return false;
  }
  while (p < toks.length && toks[p].t === 'star') p++;
  return p === toks.length;
}

/** Do the pattern segments match the path segments? The same two pointers, `**` the star. */
function matchSegments(segs: Seg[], parts: string[]): boolean {
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = 0;
  while (i < parts.length) {
    const seg = segs[p];
    if (p < segs.length && seg.globstar) {
      starP = p++;
      starI = i;
    } else if (p < segs.length && !seg.globstar && seg.alts.some((toks) => matchSegment(toks, parts[i]))) {
      p++;
      i++;
    } else if (starP >= 0) {
      p = starP + 1;
      i = ++starI;
    } else return false;
  }
  while (p < segs.length && segs[p].globstar) p++;
  return p === segs.length;
}

/**
 * Compiles one glob into a predicate over `/`-separated relative paths. Throws GlobError for a
 * pattern over the bounds.
 */
export function compileGlob(pattern: string, options: GlobOptions = {}): (path: string) => boolean {
  checkLength(pattern);
  let negated = false;
  let body = pattern;
  if (body.startsWith('!') && !body.startsWith('!(')) {
    negated = true;
    body = body.slice(1);
  }
  while (body.startsWith('./')) body = body.slice(2);
  const alternatives = expand(body, true).map((alt) => {
    const base = options.basename === true && !alt.includes('/');
    const segs = alt.split('/').map(parseSegment);
    return { base, segs };
  });
  const test = (path: string): boolean => {
    const parts = path.split('/');
    for (const a of alternatives) {
      if (a.base ? matchSegments(a.segs, [parts[parts.length - 1]]) : matchSegments(a.segs, parts)) return true;
    }
    return false;
  };
  return negated ? (path) => !test(path) : test;
}

/**
 * Why a glob can never be what its writer meant, or undefined: over the bounds (`compileGlob`
 * throws), or a `[` or `{` never closed (read as literal characters, which silently matches
 * nothing). For a filter a person or an agent typed: refused with this reason, not a silent
 * "no results".
 */
export function globProblem(glob: string): string | undefined {
  try {
    compileGlob(glob);
  } catch (err) {
    return errText(err);
  }
  let square = false;
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '\\') i++;
    else if (square) square = ch !== ']' || glob[i - 1] === '[' || (glob[i - 1] === '!' && glob[i - 2] === '[');
    else if (ch === '[') square = true;
    else if (ch === '{') braces++;
    else if (ch === '}') braces = Math.max(0, braces - 1);
  }
  if (square) return 'a "[" is never closed by "]"';
  if (braces) return 'a "{" is never closed by "}"';
  return undefined;
}

/** One predicate for a list of globs: true when any matches. */
export function compileGlobs(patterns: string[], options: GlobOptions = {}): (path: string) => boolean {
  const tests = patterns.map((p) => compileGlob(p, options));
  return (path) => tests.some((t) => t(path));
}

/**
 * Splits a comma- (and newline-) separated list of globs, leaving the commas inside braces
 * alone (`src/*.{js,ts}, !**\/*.test.ts` is two globs). Items are trimmed; empty ones dropped.
 */
export function splitGlobList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === '{') depth++;
    else if (ch === '}' && depth > 0) depth--;
    else if (ch === '\n' || (ch === ',' && depth === 0)) {
      out.push(text.slice(from, i));
      from = i + 1;
      depth = 0;
    }
  }
  out.push(text.slice(from));
  return out.map((g) => g.trim()).filter(Boolean);
}
