/**
 * Flutter ARB (`lib/l10n/app_en.arb`, `intl_fr.arb`): a JSON object whose string members are
 * messages; `@key` members are their metadata and `@@locale` the file's locale (else the name's
 * code). Parsed with jsonc-parser's tree (offsets on every node); a file that does not parse is
 * reported with its line.
 */
import * as jsonc from 'jsonc-parser';
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, identifyStem, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat, unreadable } from './common';

const EXTENSIONS = ['arb'];
const EXT = extensionTest(EXTENSIONS);

export const arbFormat: LocaleFormat = {
  name: 'Flutter ARB',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    return EXT.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const src = new SourceText(text);
    const errors: jsonc.ParseError[] = [];
    const root = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length || !root || root.type !== 'object') {
      const line = errors.length ? src.position(errors[0].offset).line : undefined;
      return unreadable(rel, text, 'malformed', `ARB does not parse${errors.length ? ` (${jsonc.printParseErrorCode(errors[0].error)} at line ${line})` : ': not an object'}: not read`, line);
    }
    const leaves: Leaf[] = [];
    let declared: string | undefined;
    for (const p of root.children ?? []) {
      const [k, v] = p.children ?? [];
      if (!k || !v) continue;
      const name = String(k.value);
      if (name === '@@locale' && v.type === 'string') declared = String(v.value);
      if (name.startsWith('@') || v.type !== 'string') continue;
      leaves.push({ path: name, value: String(v.value), vs: v.offset + 1, ve: v.offset + v.length - 1, ks: k.offset + 1, ke: k.offset + k.length - 1 });
    }
    const parts = rel.split('/');
    const locale = declared && isLocaleCode(declared) ? canonicalLocale(declared) : identifyStem(parts.slice(0, -1), parts[parts.length - 1].replace(EXT, ''))?.locale;
    if (!locale) return unreadable(rel, text, 'unknown-locale', 'ARB file with no @@locale and no locale code in its name: not read');
    const problems: I18nProblem[] = [];
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, undefined, src, rel, problems), problems };
  },
};
