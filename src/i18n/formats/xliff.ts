/**
 * XLIFF 1.2 and 2.0 (`messages.es.xlf`, `messages.xlf`, `.xliff`): the unit id is the key
 * (`<trans-unit id>` in 1.2, `<unit id>` in 2.0, whose `<segment>`s are joined), the `<source>`
 * a value in the source locale and the `<target>` one in the target locale. Locales come from
 * the file (`source-language`/`target-language` on `<file>` in 1.2, `srcLang`/`trgLang` on
 * `<xliff>` in 2.0), the target falling back to the path (`messages.es.xlf`).
 *
 * Every translation file repeats the sources: they are `derived` values, kept only when no
 * other file gives that key in the source locale (Angular's `messages.xlf`). Inline markup is
 * shown as written in the app: `<x equiv-text="{{ n }}">` as `{{ n }}`, else `{id}`; `<g>`/`<pc>`
 * by their content. Parsed with htmlparser2 in XML mode (start and end offsets on every node);
 * a file with no `<xliff>` root, or units without an id, is reported; so is an element never
 * closed (htmlparser2 would close it silently, giving a unit the rest of the file): with its
 * line and column, and the file is not read.
 */
import { canonicalLocale, identifyStem, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat, unreadable } from './common';
import { child, inner, shown, tags, readXml, type XNode } from './xml';

const EXTENSIONS = ['xlf', 'xliff'];
const EXT = extensionTest(EXTENSIONS);

export const xliffFormat: LocaleFormat = {
  name: 'XLIFF',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    return EXT.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const xml = readXml(rel, text, 'XLIFF');
    if ('problem' in xml) return xml.problem;
    const { doc, src } = xml;
    const root = [...tags(doc, 'xliff')][0];
    if (!root) return unreadable(rel, text, 'malformed', 'no <xliff> root element: not read');
    const problems: I18nProblem[] = [];
    const v2 = (root.attribs?.version ?? '').startsWith('2');
    const parts = rel.split('/');
    const byPath = identifyStem(parts.slice(0, -1), parts[parts.length - 1].replace(EXT, ''))?.locale;
    const leaves: Leaf[] = [];
    const norm = (l: string | undefined) => (l && isLocaleCode(l) ? canonicalLocale(l) : undefined);
    for (const file of tags(root, 'file')) {
      const srcLang = norm(v2 ? root.attribs?.srcLang : file.attribs?.['source-language']) ?? 'und';
      const trgLang = norm(v2 ? root.attribs?.trgLang : file.attribs?.['target-language']) ?? (byPath !== srcLang ? byPath : undefined);
      for (const unit of tags(file, v2 ? 'unit' : 'trans-unit')) {
        const id = unit.attribs?.id;
        const line = src.position(unit.startIndex ?? 0).line;
        if (!id) {
          problems.push({ kind: 'malformed', file: rel, line, message: `a ${v2 ? '<unit>' : '<trans-unit>'} without an id: skipped` });
          continue;
        }
        // the id attribute's text is the key's range
        const open = text.slice(unit.startIndex ?? 0, text.indexOf('>', unit.startIndex ?? 0));
        const m = /\bid\s*=\s*(["'])/.exec(open);
        const ks = (unit.startIndex ?? 0) + (m ? m.index + m[0].length : 0);
        const ke = ks + (m ? id.length : 0);
        const holders = v2 ? [...tags(unit, 'segment')] : [unit];
        for (const [what, lang] of [['source', srcLang], ['target', trgLang]] as const) {
          if (!lang) continue;
          const els = holders.map((h) => child(h, what)).filter((x): x is XNode => !!x);
          if (!els.length) continue;
          const value = els.map(shown).join('');
          if (what === 'target' && !value.trim()) continue;
          const [vs] = inner(text, els[0]);
          const [, ve] = inner(text, els[els.length - 1]);
          leaves.push({ path: id, value, vs, ve, ks, ke, locale: lang, derived: what === 'source' && !!trgLang });
        }
      }
    }
    return { file: rel, lines: src, entries: buildEntries(leaves, '', undefined, src, rel, problems), problems };
  },
};
