/**
 * Java / SAPUI5 resource bundles (`i18n_en.properties`, `messages_de_DE.properties`,
 * `i18n/i18n.properties`). The syntax is java.util.Properties': `#`/`!` comments, `key=value`,
 * `key: value` or `key value`, a line ending in an odd number of backslashes continues on the
 * next (leading blanks there dropped), escapes `\t \n \r \f \uXXXX` and `\<char>`. The parser is
 * this file's (the npm ones keep no positions); a value's range runs from its first character to
 * the end of its last continuation line.
 *
 * Only bundles are read: a locale suffix after `_` (`_en`, `_pt_BR`), or a bundle's base file
 * (no suffix: the default messages, locale `und`) inside an i18n folder. `gradle.properties` or
 * `application.properties` are no locale files. A malformed `\u` escape is reported (with its
 * line) and kept as written.
 */
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, inI18nDir, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat } from './common';

const EXTENSIONS = ['properties'];
const EXT = extensionTest(EXTENSIONS);

/** The bundle locale of a path: `i18n_en_US` → `en-US`, a base bundle in an i18n folder → `und`. */
export function propertiesLocale(rel: string): string | undefined {
  const name = rel.slice(rel.lastIndexOf('/') + 1).replace(EXT, '');
  const parts = name.split('_');
  for (let i = 1; i < parts.length; i++) {
    const code = parts.slice(i).join('_');
    if (isLocaleCode(code)) return canonicalLocale(code);
  }
  if (isLocaleCode(name)) return canonicalLocale(name);
  return inI18nDir(rel) || /^(?:i18n|messages?|messagebundle)$/i.test(name) ? 'und' : undefined;
}

export function parseProperties(rel: string, text: string): { leaves: Leaf[]; problems: I18nProblem[] } {
  const leaves: Leaf[] = [];
  const problems: I18nProblem[] = [];
  const src = new SourceText(text);
  const n = text.length;
  let i = 0;
  const isBlank = (c: string) => c === ' ' || c === '\t' || c === '\f';
  const isEol = (c: string) => c === '\n' || c === '\r';
  const skipEol = () => {
    if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else i++;
  };
  while (i < n) {
    // a natural line: leading blanks, then a comment, a blank line, or a key
    while (i < n && isBlank(text[i])) i++;
    if (i >= n) break;
    if (isEol(text[i])) {
      skipEol();
      continue;
    }
    if (text[i] === '#' || text[i] === '!') {
      while (i < n && !isEol(text[i])) i++;
      continue;
    }
    /** Reads escaped text until a stop character (for the key) or the logical line's end. */
    const read = (stopAtSep: boolean): { value: string; s: number; e: number } => {
      const s = i;
      let out = '';
      let e = i;
      while (i < n) {
        const c = text[i];
        if (isEol(c)) break;
        if (stopAtSep && (c === '=' || c === ':' || isBlank(c))) break;
        if (c === '\\') {
          if (i + 1 >= n) {
            i++;
            break;
          }
          const d = text[i + 1];
          if (isEol(d)) {
            // a continuation: the next line's leading blanks are dropped
            i++;
            skipEol();
            while (i < n && isBlank(text[i])) i++;
            continue;
          }
          i += 2;
          if (d === 'u') {
            const hex = text.slice(i, i + 4);
            if (/^[0-9a-fA-F]{4}$/.test(hex)) {
              out += String.fromCharCode(parseInt(hex, 16));
              i += 4;
            } else {
              problems.push({ kind: 'malformed', file: rel, line: src.position(i - 2).line, message: `bad \\u escape "\\u${hex}": kept as written` });
              out += '\\u';
            }
          } else out += d === 't' ? '\t' : d === 'n' ? '\n' : d === 'r' ? '\r' : d === 'f' ? '\f' : d;
          e = i;
          continue;
        }
        out += c;
        i++;
        e = i;
      }
      return { value: out, s, e };
    };
    const key = read(true);
    while (i < n && isBlank(text[i])) i++;
    if (text[i] === '=' || text[i] === ':') i++;
    while (i < n && isBlank(text[i])) i++;
    const value = read(false);
    // trailing blanks are part of a value in Java; the range stops at its last character
    let ve = value.e;
    while (ve > value.s && isBlank(text[ve - 1])) ve--;
    if (key.value) leaves.push({ path: key.value, value: value.value, vs: value.s, ve: Math.max(value.s, ve), ks: key.s, ke: key.e });
  }
  return { leaves, problems };
}

export const propertiesFormat: LocaleFormat = {
  name: '.properties',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    if (!EXT.test(rel)) return false;
    if (ctx.matchesGlobs) return ctx.matchesGlobs(rel);
    return propertiesLocale(rel) !== undefined;
  },
  read(rel, text) {
    const locale = propertiesLocale(rel);
    if (!locale) return undefined;
    const src = new SourceText(text);
    const { leaves, problems } = parseProperties(rel, text);
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, undefined, src, rel, problems), problems };
  },
};
