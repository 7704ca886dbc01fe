/**
 * Apple localization (iOS, macOS): `.strings` tables and Xcode 15 String Catalogs.
 *
 * `.strings` (`en.lproj/Localizable.strings`, `pt-BR.lproj/Settings.strings`): old-style
 * property-list strings, `"key" = "value";`. Keys and values are quoted (escapes `\"`, `\\`,
 * `\n`, `\t`, `\r`, `\'`, `\U00e9` / `\u00e9` with up to 4 hex digits, as CoreFoundation reads
 * them; any other escaped character stands for itself) or unquoted (`[A-Za-z0-9_.$:/-]+`);
 * `"key";` alone is its own value; `/* … *\/` and `//` comments. The parser is this file's (the
 * npm ones keep no positions). The locale is the `.lproj` folder's (`zh-Hans.lproj`; the legacy
 * `English.lproj` is `en`; `Base.lproj`, the base internationalization, is `und`); with locale
 * globs, the files they match (the `.lproj` folder's locale, else one the path names:
 * `Resources/fr.strings`). A UTF-16 table is decoded by its BOM before it gets here. A file that
 * does not parse (a missing `;`, an XML or binary property list) is reported with the line where
 * it stops and not read: Apple's loader rejects the whole table.
 *
 * String Catalogs (`Localizable.xcstrings`): JSON holding every locale, parsed with
 * jsonc-parser's tree (offsets on every node). Each key's `localizations.<locale>.stringUnit.value`
 * is its value in that locale; a plural or device variation (`variations.plural.one`, …, nested
 * or not) shows its `other` form (else its first) and the other forms as `also`. A key with no
 * localization in the catalog's `sourceLanguage` shows the key itself there (SwiftUI's
 * `Text("Hello")` is keyed by its English text): its source value is the key, at the key's range.
 * A file that does not parse, or has no `strings` object or `sourceLanguage`, is reported with
 * its line; a localization whose name is no locale code is reported once per file.
 *
 * The namespace of both is the table name (the file's stem), as `NSLocalizedString(…,
 * tableName:)` and `String(localized:table:)` name it; the default table `Localizable` has none.
 */
import * as jsonc from 'jsonc-parser';
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, identifyStem, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, unreadable, type LocaleFormat } from './common';

const STRINGS_EXTENSIONS = ['strings'];
const STRINGS = extensionTest(STRINGS_EXTENSIONS);
const XCSTRINGS_EXTENSIONS = ['xcstrings'];
const XCSTRINGS = extensionTest(XCSTRINGS_EXTENSIONS);

/** `.lproj` folders named by language before Xcode took locale codes. */
const LEGACY_LPROJ = new Map([['English', 'en'], ['French', 'fr'], ['German', 'de'], ['Italian', 'it'], ['Japanese', 'ja'], ['Spanish', 'es'], ['Dutch', 'nl']]);

/** The locale of the `<lang>.lproj` folder a file is in: `pt-BR.lproj` → `pt-BR`, `Base.lproj` → `und`. */
function lprojLocale(rel: string): string | undefined {
  const parts = rel.split('/');
  const dir = parts.length > 1 ? /^(.+)\.lproj$/i.exec(parts[parts.length - 2]) : null;
  if (!dir) return undefined;
  const code = dir[1];
  if (code.toLowerCase() === 'base') return 'und';
  return isLocaleCode(code) ? canonicalLocale(code) : LEGACY_LPROJ.get(code);
}

/** The table a file is (its stem), as code names it; the default table `Localizable` is no namespace. */
function tableOf(rel: string, ext: RegExp): string | undefined {
  const stem = rel.slice(rel.lastIndexOf('/') + 1).replace(ext, '');
  return stem === 'Localizable' ? undefined : stem;
}

/** Where and why a `.strings` file stops parsing. */
class StringsError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const UNQUOTED = /[A-Za-z0-9_.$:/-]/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

/** The messages of a `.strings` table; throws a StringsError where it does not parse. */
function parseStrings(text: string): Leaf[] {
  if (/^\s*<(?:\?xml|!DOCTYPE|plist)/.test(text)) throw new StringsError('an XML property list, not the text format', 0);
  if (text.startsWith('bplist')) throw new StringsError('a binary property list, not the text format', 0);
  const n = text.length;
  let i = 0;
  const skipBlanks = () => {
    for (;;) {
      while (i < n && /\s/.test(text[i])) i++;
      if (text.startsWith('//', i)) {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? n : nl + 1;
      } else if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i + 2);
        if (end < 0) throw new StringsError('a comment is never closed', i);
        i = end + 2;
      } else return;
    }
  };
  /** A quoted or unquoted string at `i`: its value and the offsets of its text (inside any quotes). */
  const token = (what: string): { value: string; s: number; e: number } => {
    skipBlanks();
    const s = i;
    if (text[i] !== '"') {
      while (i < n && UNQUOTED.test(text[i])) i++;
      if (i === s) throw new StringsError(`expected ${what}`, i);
      return { value: text.slice(s, i), s, e: i };
    }
    const parts: string[] = [];
    let run = ++i;
    for (; i < n; i++) {
      if (text[i] === '"') {
        parts.push(text.slice(run, i));
        const e = i++;
        return { value: parts.join(''), s: s + 1, e };
      }
      if (text[i] !== '\\') continue;
      parts.push(text.slice(run, i));
      const c = text[++i] ?? '';
      const hex = c === 'U' || c === 'u' ? /^[0-9a-fA-F]{1,4}/.exec(text.slice(i + 1, i + 5))?.[0] : undefined;
      if (hex) {
        parts.push(String.fromCharCode(parseInt(hex, 16)));
        i += hex.length;
      } else parts.push(ESCAPES[c] ?? c);
      run = i + 1;
    }
    throw new StringsError('a string is never closed', s);
  };
  const leaves: Leaf[] = [];
  for (skipBlanks(); i < n; skipBlanks()) {
    const key = token('a key');
    // a missing `;` is said where it belongs: after the value
    let end = i;
    skipBlanks();
    let value = key;
    if (text[i] === '=') {
      i++;
      value = token(`the value of "${key.value}"`);
      end = i;
      skipBlanks();
    }
    if (text[i] !== ';') throw new StringsError(`expected ";" after "${key.value}"`, end);
    i++;
    leaves.push({ path: key.value, value: value.value, vs: value.s, ve: value.e, ks: key.s, ke: key.e });
  }
  return leaves;
}

export const appleStringsFormat: LocaleFormat = {
  name: 'Apple .strings',
  extensions: STRINGS_EXTENSIONS,
  claims(rel, ctx) {
    if (!STRINGS.test(rel)) return false;
    return ctx.matchesGlobs ? ctx.matchesGlobs(rel) : lprojLocale(rel) !== undefined;
  },
  read(rel, text) {
    const parts = rel.split('/');
    const locale = lprojLocale(rel) ?? identifyStem(parts.slice(0, -1), parts[parts.length - 1].replace(STRINGS, ''))?.locale;
    if (!locale) return undefined;
    const src = new SourceText(text);
    let leaves: Leaf[];
    try {
      leaves = parseStrings(text);
    } catch (err) {
      if (!(err instanceof StringsError)) throw err;
      const at = src.position(err.at);
      return unreadable(rel, text, 'malformed', `.strings does not parse: ${err.message} at line ${at.line}, column ${at.column + 1}: not read`, at.line);
    }
    const problems: I18nProblem[] = [];
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, tableOf(rel, STRINGS), src, rel, problems), problems };
  },
};

/** The string-unit values a localization (or a variation case) shows: its own, then its variations' (`other` first in each). */
function shownValues(node: jsonc.Node | undefined): jsonc.Node[] {
  if (node?.type !== 'object') return [];
  const out: jsonc.Node[] = [];
  const own = jsonc.findNodeAtLocation(node, ['stringUnit', 'value']);
  if (own?.type === 'string') out.push(own);
  for (const kind of jsonc.findNodeAtLocation(node, ['variations'])?.children ?? []) {
    const cases = kind.children?.[1]?.children ?? [];
    const other = (c: jsonc.Node) => Number(c.children?.[0]?.value === 'other');
    for (const c of [...cases].sort((a, b) => other(b) - other(a))) out.push(...shownValues(c.children?.[1]));
  }
  return out;
}

export const xcstringsFormat: LocaleFormat = {
  name: 'Xcode String Catalog',
  extensions: XCSTRINGS_EXTENSIONS,
  claims(rel, ctx) {
    return XCSTRINGS.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const src = new SourceText(text);
    const errors: jsonc.ParseError[] = [];
    const root = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length || root?.type !== 'object') {
      const line = errors.length ? src.position(errors[0].offset).line : undefined;
      return unreadable(rel, text, 'malformed', `String Catalog does not parse${errors.length ? ` (${jsonc.printParseErrorCode(errors[0].error)} at line ${line})` : ': not an object'}: not read`, line);
    }
    const strings = jsonc.findNodeAtLocation(root, ['strings']);
    if (strings?.type !== 'object') return unreadable(rel, text, 'malformed', 'String Catalog without a "strings" object: not read');
    const declared = jsonc.findNodeAtLocation(root, ['sourceLanguage'])?.value;
    if (typeof declared !== 'string' || !isLocaleCode(declared)) return unreadable(rel, text, 'malformed', 'String Catalog without a sourceLanguage locale: not read');
    const source = canonicalLocale(declared);
    const problems: I18nProblem[] = [];
    const unknown = new Set<string>();
    const leaves: Leaf[] = [];
    for (const member of strings.children ?? []) {
      const [k, entry] = member.children ?? [];
      if (!k || entry?.type !== 'object') continue;
      const key = String(k.value);
      const ks = k.offset + 1;
      const ke = k.offset + k.length - 1;
      let inSource = false;
      for (const loc of jsonc.findNodeAtLocation(entry, ['localizations'])?.children ?? []) {
        const [lk, lv] = loc.children ?? [];
        if (!lk) continue;
        const code = String(lk.value);
        if (!isLocaleCode(code)) {
          if (!unknown.has(code)) problems.push({ kind: 'unknown-locale', file: rel, line: src.position(lk.offset).line, message: `localization "${code}" is no locale code: skipped` });
          unknown.add(code);
          continue;
        }
        const [shown, ...forms] = shownValues(lv);
        if (!shown) continue;
        const locale = canonicalLocale(code);
        const value = String(shown.value);
        inSource ||= locale === source;
        const also = [...new Set(forms.map((f) => String(f.value)))].filter((v) => v !== value);
        leaves.push({ path: key, value, vs: shown.offset + 1, ve: shown.offset + shown.length - 1, ks, ke, locale, also });
      }
      if (!inSource) leaves.push({ path: key, value: key, vs: ks, ve: ke, ks, ke, locale: source });
    }
    return { file: rel, lines: src, entries: buildEntries(leaves, source, tableOf(rel, XCSTRINGS), src, rel, problems), problems };
  },
};
