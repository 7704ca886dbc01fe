/**
 * Rust (`.rs`): the keys of rust-i18n's locale files (`locales/en.yml`, JSON or TOML), of Fluent
 * (`.ftl`, src/i18n/formats/fluent.ts) and of gettext catalogs (`.po`) as code names them.
 * - rust-i18n: `t!("k")`, `t!("k", name = …)`, `t!("k", locale = "fr")`;
 * - Fluent through i18n-embed: `fl!(loader, "id")` (the id is the second argument, after any
 *   loader expression: `LANGUAGE_LOADER`, `&*LOADER`, `loader()`), `fl!(loader, "id", "attr")`
 *   (key `id.attr`, as the Fluent reader keys an attribute), and a loader's `get("id")`,
 *   `get_attr("id", "attr")` (on a receiver named like one: `map.get("k")` is no key) and
 *   `get_args("id", …)` (`get_args_concrete`, `get_args_fluent`) on any receiver;
 * - gettext (gettext-rs, the tr crate): `gettext("Text")`, `ngettext("one", "many", n)` (the
 *   singular is the key), `pgettext("ctx", "Text")` and `npgettext` (key `ctx|Text`, as the PO
 *   reader keys a msgctxt), also as macros (`gettext!(…)`); `tr!("Text")`, `tr!("ctx" => "Text")`,
 *   `tr!("one" | "many" % n)`.
 * A key is a string literal: `"…"` with Rust's escapes, raw `r"…"` and `r#"…"#`; a key made at
 * run time (`t!(key)`, `t!(&format!(…))`) is none. A scanner, as for the other non-JS languages,
 * that skips `//` and (nested) `/* *\/` comments, found outside string and character literals
 * (`"http://…"` opens none). The lexing helpers here serve frameworks/qt.ts too.
 */
import type { Raw } from '../types';
import { commentTest, type Framework } from './common';

export interface Literal {
  value: string;
  /** Offsets inside the quotes. */
  s: number;
  e: number;
  /** The offset after the literal (its closing quote, and a raw string's `#`s). */
  end: number;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v' };
const CODE_POINT = /u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|([0-7]{1,3})/y;

/**
 * The escape at `text[at]` (a backslash): the text it stands for and its length. Rust's
 * `\u{e9}`, C's and Python's `\u00e9` / `\U000000e9`, `\x41`, octal `\101` (and `\0`), `\n` and
 * the other letters of C; a backslash before a line break joins the lines; any other character
 * stands for itself (`\"`, `\\`).
 */
export function escapeAt(text: string, at: number): [string, number] {
  CODE_POINT.lastIndex = at + 1;
  const m = CODE_POINT.exec(text);
  const cp = m ? parseInt(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5], m[5] ? 8 : 16) : -1;
  if (m && cp <= 0x10ffff) return [String.fromCodePoint(cp), 1 + m[0].length];
  const d = text[at + 1] ?? '';
  if (d === '\r' && text[at + 2] === '\n') return ['', 3];
  if (d === '\n') return ['', 2];
  return [SIMPLE_ESCAPES[d] ?? d, 2];
}

/** The Rust string literal at `text[at]` (`"…"`, raw `r"…"` / `r#"…"#`, either after a `b`), or undefined. */
export function rustLiteral(text: string, at: number): Literal | undefined {
  const i = text[at] === 'b' ? at + 1 : at;
  if (text[i] === 'r') {
    let q = i + 1;
    while (text[q] === '#') q++;
    if (text[q] !== '"') return undefined;
    const close = `"${'#'.repeat(q - i - 1)}`;
    const e = text.indexOf(close, q + 1);
    return e < 0 ? undefined : { value: text.slice(q + 1, e), s: q + 1, e, end: e + close.length };
  }
  if (text[i] !== '"') return undefined;
  let value = '';
  for (let k = i + 1; k < text.length; k++) {
    const c = text[k];
    if (c === '"') return { value, s: i + 1, e: k, end: k + 1 };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const [s, len] = escapeAt(text, k);
    value += s;
    k += len - 1;
    // a continued line: Rust drops the next line's indentation too
    if (s === '') while (/\s/.test(text[k + 1] ?? '')) k++;
  }
  return undefined;
}

/** A character literal (`'"'`, `'\''`, `'\u{2f}'`); a `'` that starts none is a lifetime (`'a`). */
const CHAR = /'(?:[^\\'\n]|\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.))'/y;

/** The offset after the string or character literal that starts at `text[at]`, or undefined. */
function rustLiteralEnd(text: string, at: number): number | undefined {
  const c = text[at];
  if (c === "'") {
    CHAR.lastIndex = at;
    return CHAR.exec(text) ? CHAR.lastIndex : undefined;
  }
  if (c === '"' || ((c === 'r' || c === 'b') && !/\w/.test(text[at - 1] ?? ''))) return rustLiteral(text, at)?.end;
  return undefined;
}


/** A call up to its first literal; the group that matched names it. */
const CALL = new RegExp(
  [
    // rust-i18n's `t!`, the tr crate's `tr!`
    String.raw`(?<!\w)(t|tr)!\s*[(\[{]\s*`,
    // i18n-embed-fl: the loader argument, then the id
    String.raw`(?<!\w)(fl)!\s*[(\[{]\s*[^,"()\[\]{}]+(?:\(\s*\))?\s*,\s*`,
    String.raw`(?<!\w)\w*(?:loader|Loader|LOADER)\w*(?:\(\))?\s*\.\s*(get|get_attr|get_attr_args)\s*\(\s*`,
    String.raw`\.\s*(get_args|get_args_concrete|get_args_fluent)\s*\(\s*`,
    String.raw`(?<!\w)(gettext|ngettext|pgettext|npgettext)!?\s*\(\s*`,
  ]
    .map((p) => `(?:${p})`)
    .join('|') + '(?=r?#*")',
  'g',
);
/** Calls whose first literal is a context, the message following. */
const CONTEXT_FIRST = new Set(['pgettext', 'npgettext']);
/** Calls whose literal after the id is an attribute. */
const ATTRIBUTE = new Set(['fl', 'get_attr', 'get_attr_args']);
const MACROS = new Set(['t', 'tr', 'fl']);

/** The literal after `from` past the separator `sep` (anchored), or undefined. */
function following(text: string, from: number, sep: RegExp): Literal | undefined {
  const m = sep.exec(text.slice(from, from + 200));
  return m ? rustLiteral(text, from + m[0].length) : undefined;
}

export const rustFramework: Framework = {
  name: 'Rust',
  claims: (rel) => /\.rs$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    if (!/\b(?:t|tr|fl)!|gettext|\.\s*get_(?:args|attr)|(?:loader|Loader|LOADER)\w*(?:\(\))?\s*\.\s*get/.test(text)) return out;
    const inComment = commentTest(text, rustLiteralEnd, '//', true);
    CALL.lastIndex = 0;
    for (let m = CALL.exec(text); m; m = CALL.exec(text)) {
      if (inComment(m.index)) continue;
      const name = m.slice(1).find(Boolean) ?? '';
      let lit = rustLiteral(text, m.index + m[0].length);
      if (!lit?.value) continue;
      let key = lit.value;
      if (CONTEXT_FIRST.has(name) || name === 'tr') {
        const msg = following(text, lit.end, name === 'tr' ? /^\s*=>\s*/ : /^\s*,\s*/);
        if (msg) {
          key = `${lit.value}|${msg.value}`;
          lit = msg;
        } else if (name !== 'tr') continue;
      } else if (ATTRIBUTE.has(name)) {
        const attr = following(text, lit.end, /^\s*,\s*/);
        if (attr?.value) key = `${lit.value}.${attr.value}`;
      }
      out.push({ key, dynamic: false, via: MACROS.has(name) ? `${name}!` : name, start: lit.s, end: lit.e });
    }
    return out;
  },
};
