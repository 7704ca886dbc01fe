/**
 * Apple (Swift, Objective-C: `.swift`, `.m`, `.mm`): the keys of `.strings` tables and String
 * Catalogs (src/i18n/formats/apple.ts) as code names them.
 * - Foundation: `NSLocalizedString("k", …)` (`@"k"` in Objective-C), `NSLocalizedStringFromTable`,
 *   `NSLocalizedStringFromTableInBundle` and `NSLocalizedStringWithDefaultValue` (the table is
 *   their second argument), `String(localized: "k")`, `LocalizedStringKey("k")`,
 *   `LocalizedStringResource("k")`, `bundle.localizedString(forKey: "k", …)` and Objective-C's
 *   `localizedStringForKey:@"k"`;
 * - SwiftUI views and modifiers whose first argument, a string literal, is a LocalizedStringKey:
 *   `Text`, `Button`, `Label`, `Toggle`, `TextField`, `SecureField`, `Section`, `Link`,
 *   `NavigationLink`, `Picker`, `Menu`, `.navigationTitle`, `.alert`, `.confirmationDialog`.
 *   `Text(verbatim: "x")` is not localized, nor is a view given a variable.
 * A call's `tableName: "T"` / `table: "T"` is the namespace `T` (a `.strings` table's or a
 * catalog's stem), the default `Localizable` none. An interpolation `Text("Hello \(name)")` makes
 * the key dynamic, with the text before it as its prefix. A scanner (no Swift or Objective-C
 * parser is maintained on npm) that skips `//` and `/* *\/` comments, found outside string
 * literals (`"https://…"` and `"image/*"` open none).
 */
import type { Raw } from '../types';
import { commentTest, type Framework } from './common';

/** Functions and views whose first argument is the key. */
const FIRST_ARG = 'NSLocalizedString(?:FromTable(?:InBundle)?|WithDefaultValue)?|LocalizedStringKey|LocalizedStringResource|Text|Button|Label|Toggle|TextField|SecureField|Section|Link|NavigationLink|Picker|Menu';
/** Modifiers whose first argument is the key. */
const MODIFIERS = 'navigationTitle|alert|confirmationDialog';
/**
 * A call up to its key's literal; the group that matched names it: a function or view (1), a
 * modifier (2), a labelled argument (3).
 */
const CALL = new RegExp(
  `(?<![\\w.])(${FIRST_ARG})\\s*\\(\\s*@?(?=")` +
    `|(\\.(?:${MODIFIERS}))\\s*\\(\\s*(?=")` +
    `|((?<![\\w.])String\\s*\\(\\s*localized:|\\.localizedString\\s*\\(\\s*forKey:|\\blocalizedStringForKey:)\\s*@?(?=")`,
  'g',
);
/** The SwiftUI views and modifiers of FIRST_ARG and MODIFIERS, as a usage's `via` names them. */
const SWIFTUI = new Set(['Text', 'Button', 'Label', 'Toggle', 'TextField', 'SecureField', 'Section', 'Link', 'NavigationLink', 'Picker', 'Menu', ...MODIFIERS.split('|').map((m) => `.${m}`)]);

/**
 * A SwiftUI view's literal (`Text("Hello")`): its key is the text shown when no table defines
 * it, so a key no locale defines is not an error there (an app that is not localized uses
 * hundreds). Health and the editor's diagnostics leave these out of "undefined".
 */
export function textIsKey(u: { file: string; via: string }): boolean {
  return SWIFTUI.has(u.via) && /\.swift$/i.test(u.file);
}

/** Functions whose second argument is the table. */
const TABLE_SECOND = /^NSLocalizedString(?:From|With)/;

interface Literal {
  value: string;
  /** Offsets inside the quotes. */
  s: number;
  e: number;
  dynamic: boolean;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0' };

/**
 * The string literal at `text[at]` (a `"`): its value, or up to its first interpolation `\(…)`
 * (then dynamic); undefined when unterminated on its line.
 */
function literalAt(text: string, at: number): Literal | undefined {
  let value = '';
  let dynamic = false;
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return { value, s: at + 1, e: i, dynamic };
    if (c === '\n') return undefined;
    if (c !== '\\') {
      if (!dynamic) value += c;
      continue;
    }
    const d = text[++i];
    if (d === '(') {
      const close = closing(text, i + 1);
      if (close === undefined) return undefined;
      dynamic = true;
      i = close;
      continue;
    }
    if (dynamic) continue;
    // `\u{e9}` (Swift), `\u00e9` (C)
    const hex = d === 'u' ? /^\{([0-9a-fA-F]{1,6})\}|^[0-9a-fA-F]{4}/.exec(text.slice(i + 1, i + 9)) : null;
    const cp = hex ? parseInt(hex[1] ?? hex[0], 16) : -1;
    if (hex && cp <= 0x10ffff) {
      value += String.fromCodePoint(cp);
      i += hex[0].length;
    } else value += ESCAPES[d] ?? d;
  }
  return undefined;
}

/** The offset of the bracket that closes the one open before `from` (string literals skipped), or undefined. */
function closing(text: string, from: number): number | undefined {
  let depth = 0;
  for (let i = from; i < text.length && i < from + 4000; i++) {
    const c = text[i];
    if (c === '"') {
      const lit = literalAt(text, i);
      if (!lit) return undefined;
      i = lit.e;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth-- === 0) return i;
  }
  return undefined;
}


/** The table the rest of a call (from after its key) names; the default `Localizable` is no namespace. */
function tableOf(text: string, from: number, via: string): string | undefined {
  const args = text.slice(from, closing(text, from) ?? from);
  const m = TABLE_SECOND.test(via) ? /^\s*,\s*@?"([^"\\\n]*)"/.exec(args) : /\b(?:tableName|table)\s*:\s*@?"([^"\\\n]*)"/.exec(args);
  return m && m[1] !== 'Localizable' ? m[1] : undefined;
}

export const appleFramework: Framework = {
  name: 'Apple',
  claims: (rel) => /\.(?:swift|mm?)$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    const inComment = commentTest(text, (t, i) => (t[i] === '"' ? (literalAt(t, i)?.e ?? i) + 1 : undefined), '//');
    CALL.lastIndex = 0;
    for (let m = CALL.exec(text); m; m = CALL.exec(text)) {
      if (inComment(m.index)) continue;
      const lit = literalAt(text, m.index + m[0].length);
      if (!lit?.value) continue;
      const name = (m[1] ?? m[2] ?? m[3]).replace(/\s+/g, '');
      const via = name.includes('(') ? `${name})` : name;
      out.push({ key: lit.value, namespace: tableOf(text, lit.e + 1, name), dynamic: lit.dynamic, via, start: lit.s, end: lit.e });
    }
    return out;
  },
};
