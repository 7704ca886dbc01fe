/**
 * Text normalization for reverse lookup ("which key shows this string?"). A displayed string
 * rarely equals its source value byte for byte: the UI upper-cases it, the selection took the
 * trailing colon, the value carries `<b>` or `{name}`, the user typed "evenement" for
 * "événement". So values and queries are compared through one normal form:
 *
 * - HTML tags (`<b>`, `</a>`, `<br/>`) are dropped, entities `&amp;` `&nbsp;` … decoded;
 * - placeholders become one marker token `\u0001`: `{name}`, `{0}`, `{{ name }}`, `${x}`,
 *   `%s` `%d` `%1$s` `%(name)s`, `:name` is NOT one (too common in prose), vue-i18n links
 *   `@:linked.key` / `@.lower:key` / `@:{'key'}`, ICU `{count, plural, …}` (the whole brace);
 * - Unicode NFKD, combining marks removed (diacritics), lower case;
 * - punctuation and symbols become spaces, whitespace collapses.
 *
 * Tokens are the normal form's words; runs of CJK characters (no spaces) give character
 * bigrams so that a part of a Chinese or Japanese phrase still finds it.
 */

export const PLACEHOLDER = '\u0001';

const LINKED = /@(?:\.[a-z]+)?:(?:\{[^}]*\}|\(?[\w.$-]+\)?)/gi;
const MUSTACHE = /\{\{[^{}]*\}\}/g;
const DOLLAR_BRACE = /\$\{[^{}]*\}/g;
/** `{name}`, `{0}`, ICU `{count, plural, one {…} other {…}}` (one nesting level). */
const BRACE = /\{(?:[^{}]|\{[^{}]*\})*\}/g;
const PRINTF = /%(?:\d+\$)?(?:\([\w.-]+\))?[-+ 0#]*\d*(?:\.\d+)?[sdifoxXeEgGcu@%]/g;
const TAG = /<\/?[A-Za-z][\w:-]*(?:\s[^<>]*)?\/?>/g;
const ENTITY = /&(#\d+|#x[0-9a-f]+|[a-z]+);/gi;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', mdash: '—', ndash: '–', laquo: '«', raquo: '»', copy: '©' };
/** Combining diacritical marks (the blocks NFKD puts accents in); a plain range class is far faster than \p{M}. */
// eslint-disable-next-line no-misleading-character-class -- a class of lone combining marks, on purpose
const MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+/g;
/** Everything that is neither a letter, a digit nor the placeholder marker. */
// eslint-disable-next-line no-control-regex -- the placeholder marker is a control character on purpose
const NON_WORD = /[^\p{L}\p{N}\u0001]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

function decodeEntity(_m: string, e: string): string {
  if (e[0] === '#') {
    const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : ' ';
  }
  return ENTITIES[e.toLowerCase()] ?? _m;
}

/** Markup and placeholders out (placeholders as the marker), entities decoded. */
function strip(s: string): string {
  let t = s;
  if (t.includes('@')) t = t.replace(LINKED, ` ${PLACEHOLDER} `);
  if (t.includes('{')) t = t.replace(MUSTACHE, ` ${PLACEHOLDER} `).replace(DOLLAR_BRACE, ` ${PLACEHOLDER} `).replace(BRACE, ` ${PLACEHOLDER} `);
  if (t.includes('%')) t = t.replace(PRINTF, (m) => (m === '%%' ? '%' : ` ${PLACEHOLDER} `));
  if (t.includes('<')) t = t.replace(TAG, ' ');
  if (t.includes('&')) t = t.replace(ENTITY, decodeEntity);
  return t;
}

/** The normal form: see the header. Pure ASCII letters and spaces take a fast path. */
const SPECIAL = /[@{%<&]/;
// eslint-disable-next-line no-control-regex -- ASCII fast path
const ASCII = /^[\x00-\x7f]*$/;
// eslint-disable-next-line no-control-regex -- the placeholder marker is a control character on purpose
const ASCII_NON_WORD = /[^a-z0-9\u0001]+/g;

export function normalize(s: string): string {
  let t = SPECIAL.test(s) ? strip(s) : s;
  if (ASCII.test(t)) return t.toLowerCase().replace(ASCII_NON_WORD, ' ').trim();
  t = t.toLowerCase().normalize('NFKD').replace(MARKS, '');
  // accented Latin is ASCII once its marks are gone: the cheap class does
  return (ASCII.test(t) ? t.replace(ASCII_NON_WORD, ' ') : t.replace(NON_WORD, ' ')).trim();
}

/** Tokens of a normal form (as made by `normalize`), placeholder markers left out. */
export function tokens(norm: string): string[] {
  if (!norm) return [];
  if (!CJK.test(norm)) return norm.split(' ').filter((w) => w && w !== PLACEHOLDER);
  const out: string[] = [];
  for (const w of norm.split(' ')) {
    if (!w || w === PLACEHOLDER) continue;
    if (w.length > 1 && CJK.test(w)) {
      const chars = [...w];
      if (chars.length === 1) out.push(w);
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
    } else out.push(w);
  }
  return out;
}

/** Does the normal form carry a placeholder? */
export function hasPlaceholder(norm: string): boolean {
  return norm.includes(PLACEHOLDER);
}

const RE_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/**
 * A value's normal form with each placeholder as a wildcard of one to eight words: `hello
 * \u0001` matches the displayed `hello anna`. Undefined when the value has no placeholder or
 * is only placeholders.
 */
export function placeholderPattern(norm: string): RegExp | undefined {
  if (!hasPlaceholder(norm)) return undefined;
  const parts = norm.split(PLACEHOLDER).map((p) => p.trim());
  if (!parts.some(Boolean)) return undefined;
  const wild = '(?:\\S+(?: \\S+){0,7})';
  const pieces: string[] = [];
  parts.forEach((p, i) => {
    if (i > 0) pieces.push(wild);
    if (p) pieces.push(p.replace(RE_SPECIAL, '\\$&'));
  });
  const src = pieces.join(' ');
  return new RegExp(`^${src}$`);
}

/**
 * Damerau-Levenshtein (optimal string alignment) distance of `a` and `b`, or `max + 1` as soon
 * as it must exceed `max`. O(len · (2·max+1)).
 */
export function boundedDistance(a: string, b: string, max: number): number {
  if (a === b) return 0;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  let prev2 = new Array<number>(lb + 1).fill(0);
  let prev = new Array<number>(lb + 1);
  let cur = new Array<number>(lb + 1);
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    let rowMin = i;
    const lo = Math.max(1, i - max);
    const hi = Math.min(lb, i + max);
    for (let j = 1; j < lo; j++) cur[j] = max + 1;
    for (let j = lo; j <= hi; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    for (let j = hi + 1; j <= lb; j++) cur[j] = max + 1;
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return Math.min(prev[lb], max + 1);
}

/** How many edits a token of this length may take and still count as a typo of another. */
export function typoBudget(len: number): number {
  return len < 4 ? 0 : len < 8 ? 1 : 2;
}

/** The one-character deletions of `w` (for the typo index), `w` itself excluded. */
export function deletions(w: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < w.length; i++) {
    const d = w.slice(0, i) + w.slice(i + 1);
    if (out[out.length - 1] !== d) out.push(d);
  }
  return out;
}
