/**
 * Chrome / WebExtension `_locales/<locale>/messages.json`: each member is a message whose key is
 * its name and whose value is its `message` (`description` and `placeholders` are not messages).
 * Code names them with `chrome.i18n.getMessage('name')` and manifests with `__MSG_name__`.
 */
import * as jsonc from 'jsonc-parser';
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, unreadable, type LocaleFormat } from './common';

const PATH = /(?:^|\/)_locales\/([^/]+)\/messages\.json$/i;

export function chromeLocale(rel: string): string | undefined {
  const m = PATH.exec(rel);
  return m && isLocaleCode(m[1]) ? canonicalLocale(m[1]) : undefined;
}

export const chromeFormat: LocaleFormat = {
  name: 'WebExtension messages.json',
  extensions: ['json'],
  claims(rel, ctx) {
    return PATH.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const locale = chromeLocale(rel);
    if (!locale) return unreadable(rel, text, 'unknown-locale', '_locales/<folder>/messages.json whose folder is no locale code: not read');
    const src = new SourceText(text);
    const errors: jsonc.ParseError[] = [];
    const root = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length || !root || root.type !== 'object') {
      const line = errors.length ? src.position(errors[0].offset).line : undefined;
      return unreadable(rel, text, 'malformed', `messages.json does not parse${errors.length ? ` (${jsonc.printParseErrorCode(errors[0].error)} at line ${line})` : ': not an object'}: not read`, line);
    }
    const leaves: Leaf[] = [];
    const problems: I18nProblem[] = [];
    for (const p of root.children ?? []) {
      const [k, v] = p.children ?? [];
      if (!k || !v) continue;
      const msg = v.type === 'object' ? v.children?.find((c) => c.children?.[0]?.value === 'message')?.children?.[1] : undefined;
      if (!msg || msg.type !== 'string') {
        problems.push({ kind: 'malformed', file: rel, line: src.position(k.offset).line, message: `message "${String(k.value)}" has no "message" string: skipped` });
        continue;
      }
      leaves.push({ path: String(k.value), value: String(msg.value), vs: msg.offset + 1, ve: msg.offset + msg.length - 1, ks: k.offset + 1, ke: k.offset + k.length - 1 });
    }
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, undefined, src, rel, problems), problems };
  },
};
