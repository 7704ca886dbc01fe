/**
 * Android string resources (`app/src/main/res/values/strings.xml`, `values-fr/strings.xml`,
 * `values-pt-rBR/`, `values-b+sr+Latn/`): any XML file of a `res/values*` folder that holds
 * `<string>`, `<plurals>` or `<string-array>` (or `<item type="string">`); other values files
 * (colors, dimens, styles) hold none and are no locale files.
 *
 * The locale is the folder's language qualifier (`fr`, `pt-rBR` → `pt-BR`, BCP 47's
 * `b+sr+Latn` → `sr-Latn`); the default `values/` folder is locale `und` (the app's default
 * language, usually English: a lookup shows it as the source when there is no `en`), or the
 * `tools:locale` its `<resources>` declares. Other qualifiers (`-night`, `-v21`, `-land`,
 * `-sw600dp`) are not locales.
 *
 * Keys are the `name`s, as `R.string.<name>` and `@string/<name>` name them (frameworks/
 * android.ts). A value is shown as Android shows it: XML entities decoded, inline markup (`<b>`,
 * `<xliff:g>`) by its text, `\'` `\"` `\n` `\t` `\@` `\?` `\uXXXX` unescaped, and whitespace
 * collapsed outside double quotes (which are dropped). A `<plurals>` is its `other` form (else
 * its last), the other quantities its other texts; a `<string-array>` is its first item, the
 * rest its other texts. A file that is not well-formed XML is reported with its line.
 */
import { canonicalLocale, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat } from './common';
import { inner, shown, tags, readXml, type XNode } from './xml';

/**
 * `…/res/values[-qualifiers]/<file>.xml`, also in a resource root below `res/` (Gradle source
 * sets with several: React Native's `res/devsupport/values/`): the qualifiers.
 */
export const ANDROID_VALUES = /(?:^|\/)res\/(?:[^/]+\/)*values((?:-[^/]+)?)\/[^/]+\.xml$/i;

/** Android's folders keep ISO 639's withdrawn codes (`values-iw` is Hebrew). */
const LEGACY: Record<string, string> = { iw: 'he', in: 'id', ji: 'yi' };

/** The locale of a values folder's qualifiers (`-fr-rCA-night` → `fr-CA`), `und` when they name no language. */
export function androidLocale(qualifiers: string): string {
  const parts = qualifiers.split('-').filter(Boolean);
  const first = parts[0] ?? '';
  if (first.startsWith('b+')) {
    const tag = first.slice(2).split('+').join('-');
    return isLocaleCode(tag) ? canonicalLocale(tag) : 'und';
  }
  if (!/^[a-z]{2,3}$/.test(first) || !isLocaleCode(first)) return 'und';
  const lang = LEGACY[first] ?? first;
  const region = /^r([A-Z]{2}|\d{3})$/.exec(parts[1] ?? '');
  return canonicalLocale(region ? `${lang}-${region[1]}` : lang);
}

/** The text Android shows for a resource's raw text (see the module comment). */
export function androidText(raw: string): string {
  let out = '';
  let quoted = false;
  /** `out` ends in a space that stood for unquoted whitespace (dropped at either end). */
  let space = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < raw.length) {
      const d = raw[++i];
      if (d === 'u' && /^[0-9a-fA-F]{4}$/.test(raw.slice(i + 1, i + 5))) {
        out += String.fromCharCode(parseInt(raw.slice(i + 1, i + 5), 16));
        i += 4;
      } else out += d === 'n' ? '\n' : d === 't' ? '\t' : d;
      space = false;
      continue;
    }
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c === ' ' || c === '\n' || c === '\t' || c === '\r')) {
      if (!space && out) out += ' ';
      space = out.length > 0;
      continue;
    }
    out += c;
    space = false;
  }
  return space ? out.slice(0, -1) : out;
}

/** The offsets of the `name` attribute's text in an element's start tag. */
function nameRange(text: string, el: XNode, name: string): [number, number] {
  const at = el.startIndex ?? 0;
  const open = text.slice(at, text.indexOf('>', at));
  const m = /\bname\s*=\s*(["'])/.exec(open);
  const ks = at + (m ? m.index + m[0].length : 0);
  return [ks, m ? ks + name.length : ks];
}

/** `translatable="false"`: a message the app shows as written in every locale. */
const fixed = (el: XNode): { fixed?: true } => (el.attribs?.translatable === 'false' ? { fixed: true } : {});

const EXTENSIONS = ['xml'];
const EXT = extensionTest(EXTENSIONS);

export const androidFormat: LocaleFormat = {
  name: 'Android string resources',
  extensions: EXTENSIONS,
  sharedExtension: true,
  claims(rel, ctx) {
    if (!EXT.test(rel)) return false;
    if (ctx.matchesGlobs) return ctx.matchesGlobs(rel);
    return ANDROID_VALUES.test(rel);
  },
  read(rel, text) {
    // a values file with no string resources (colors, dimens, styles) is no locale file
    if (!/<(?:string|plurals|string-array)\b|type\s*=\s*["']string/.test(text)) return undefined;
    const xml = readXml(rel, text, 'Android resources', true);
    if ('problem' in xml) return xml.problem;
    const { doc, src } = xml;
    const root = [...tags(doc, 'resources')][0];
    if (!root) return undefined;
    const declared = root.attribs?.['tools:locale'];
    const qualifiers = ANDROID_VALUES.exec(rel)?.[1] ?? '';
    const locale = qualifiers === '' && declared && isLocaleCode(declared) ? canonicalLocale(declared) : androidLocale(qualifiers);
    const problems: I18nProblem[] = [];
    const leaves: Leaf[] = [];
    for (const el of root.children ?? []) {
      if (el.type !== 'tag') continue;
      const name = el.attribs?.name;
      if (!name) continue;
      const [ks, ke] = nameRange(text, el, name);
      const kind = el.name === 'item' && el.attribs?.type === 'string' ? 'string' : el.name;
      if (kind === 'string') {
        const [vs, ve] = inner(text, el);
        const value = androidText(shown(el));
        if (value) leaves.push({ path: name, value, vs, ve, ks, ke, ...fixed(el) });
        continue;
      }
      if (kind !== 'plurals' && kind !== 'string-array') continue;
      const items = (el.children ?? []).filter((c) => c.type === 'tag' && c.name === 'item');
      const texts = items.map((it) => androidText(shown(it)));
      const main = kind === 'plurals' ? Math.max(items.findIndex((it) => it.attribs?.quantity === 'other'), 0) : 0;
      if (!texts[main]) continue;
      const [vs, ve] = inner(text, items[main]);
      const also = texts.filter((t, i) => i !== main && t && t !== texts[main]);
      leaves.push({ path: name, value: texts[main], vs, ve, ks, ke, ...(also.length ? { also } : {}), ...fixed(el) });
    }
    if (!leaves.length) return undefined;
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, undefined, src, rel, problems), problems };
  },
};
