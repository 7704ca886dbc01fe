/**
 * Qt Linguist translations (`translations/app_fr.ts`, `i18n/myapp_de_DE.ts`): XML with a `<TS>`
 * root, `<context>`s of `<message>`s, each a `<source>` and its `<translation>`. The extension is
 * TypeScript's too, so a path is claimed only by a Qt name, `<app>_<locale>.ts` (a name that is a
 * locale on its own, `zh_CN.ts` or `i18n/fr.ts`, is a TypeScript locale module's and is left to
 * src/i18n/locales.ts), and with locale globs only when they match it too; the file is read only
 * when its text is a `<TS>` document (after a BOM, `<?xml …?>` and `<!DOCTYPE TS>`).
 *
 * The key is the source text, as Qt's `tr("&File")` names it (frameworks/qt.ts); the context is
 * no namespace, since code names it only sometimes: the same source in two contexts is one key,
 * its other translations other texts of it. Each message gives the source in the file's
 * `sourcelanguage` (else `en`) as a `derived` value (kept only when no file gives that locale
 * first-hand, as XLIFF's sources), and the translation in its `language` (else the name's
 * locale), unless empty; an `obsolete` or `vanished` message is no longer in the app and is
 * skipped. A numerus message is its last `<numerusform>`, the other forms its other texts (a
 * `<lengthvariant>` likewise: the first is the value). `<comment>`s are no texts. A value keeps
 * Qt's `&` mnemonic as written, and the text without it (`&&` is a `&`) is another text of it, so
 * "File" finds `&File`. Parsed with htmlparser2 in XML mode (entities decoded); an element never
 * closed is reported with its line and column, and the file is not read.
 */
import { canonicalLocale, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat } from './common';
import { child, inner, shown, tags, readXml, type XNode } from './xml';

const EXTENSIONS = ['ts'];
const EXT = extensionTest(EXTENSIONS);
/** The start of a Qt Linguist file: an optional BOM, XML declaration and doctype, then the `<TS>` root. */
const TS_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE\s+TS\b[^>]*>\s*)?<TS[\s>]/;

/** The locale of a Qt translation's name, `<app>_<locale>.ts` (`app_fr.ts` → `fr`, `myapp_de_DE.ts` → `de-DE`), or undefined. */
export function qtNameLocale(rel: string): string | undefined {
  if (!EXT.test(rel)) return undefined;
  const stem = rel.slice(rel.lastIndexOf('/') + 1).replace(EXT, '');
  if (isLocaleCode(stem)) return undefined;
  for (let i = stem.indexOf('_'); i > 0; i = stem.indexOf('_', i + 1)) {
    const code = stem.slice(i + 1);
    if (/^[a-z]{2,3}(?:_|$)/.test(code) && isLocaleCode(code)) return canonicalLocale(code);
  }
  return undefined;
}

/** The text without Qt's `&` mnemonic markers (`&&` stands for `&`). */
const withoutMnemonic = (s: string) => s.replace(/&(&?)/g, '$1');

/** An element's `<lengthvariant>`s (the first is the longest, the one shown when it fits), else the element. */
function variants(el: XNode): XNode[] {
  const vs = (el.children ?? []).filter((c) => c.type === 'tag' && c.name === 'lengthvariant');
  return vs.length ? vs : [el];
}

const norm = (l: string | undefined) => (l && isLocaleCode(l) ? canonicalLocale(l) : undefined);

export const qtTsFormat: LocaleFormat = {
  name: 'Qt Linguist',
  extensions: EXTENSIONS,
  sharedExtension: true,
  claims(rel, ctx) {
    return qtNameLocale(rel) !== undefined && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    if (!TS_ROOT.test(text)) return undefined;
    const xml = readXml(rel, text, 'Qt Linguist file');
    if ('problem' in xml) return xml.problem;
    const { doc, src } = xml;
    const root = [...tags(doc, 'TS')][0];
    const locale = norm(root?.attribs?.language) ?? qtNameLocale(rel);
    if (!root || !locale) return undefined;
    const sourceLocale = norm(root.attribs?.sourcelanguage) ?? 'en';
    const leaves: Leaf[] = [];
    /** `locale\0key` → its leaf: a source repeated in another context adds its other translation as another text. */
    const seen = new Map<string, Leaf>();
    const add = (leaf: Leaf, others: string[]) => {
      const texts = [...others, withoutMnemonic(leaf.value)];
      const prev = seen.get(`${leaf.locale}\0${leaf.path}`);
      if (prev) texts.unshift(leaf.value);
      const base = prev ?? leaf;
      const also = [...new Set([...(base.also ?? []), ...texts])].filter((t) => t && t !== base.value);
      if (also.length) base.also = also;
      if (prev) return;
      seen.set(`${leaf.locale}\0${leaf.path}`, leaf);
      leaves.push(leaf);
    };
    for (const msg of tags(root, 'message')) {
      const source = child(msg, 'source');
      const translation = child(msg, 'translation');
      const type = translation?.attribs?.type;
      const key = source ? shown(source) : '';
      if (!source || !key || type === 'obsolete' || type === 'vanished') continue;
      const [ks, ke] = inner(text, source);
      const forms = translation ? (translation.children ?? []).filter((c) => c.type === 'tag' && c.name === 'numerusform') : [];
      const shownForms = (forms.length ? forms : translation ? [translation] : []).map(variants);
      const main = shownForms[shownForms.length - 1]?.[0];
      const value = main ? shown(main) : '';
      if (value) {
        const [vs, ve] = inner(text, main);
        add({ path: key, value, vs, ve, ks, ke, locale }, shownForms.flat().map(shown));
      }
      if (sourceLocale !== locale || !value) add({ path: key, value: key, vs: ks, ve: ke, ks, ke, locale: sourceLocale, derived: true }, []);
    }
    const problems: I18nProblem[] = [];
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, undefined, src, rel, problems), problems };
  },
};
