/**
 * .NET resources: `.resx` (WinForms, WPF, ASP.NET, MAUI) and UWP/WinUI `.resw`. Each `<data
 * name="Key"><value>Text</value></data>` under `<root>` is a message: the key is its `name` (as the
 * generated class `Resources.Key` and `GetString("Key")` name it: frameworks/dotnet.ts), the value
 * the `<value>` text, XML entities decoded and line ends as an XML reader gives them (`\n`); an
 * empty value is kept (.NET shows the empty string, with no fallback). Not text, and not read:
 * a `<data>` with a `type` (other than `System.String`) or a `mimetype` (images, icons, file
 * references, serialized objects), the WinForms designer's `>>control.Name` bookkeeping, and the
 * `<resheader>`, `<assembly>` and `<metadata>` elements.
 *
 * The culture is the last part of the name before the extension (`Strings.fr.resx`,
 * `Resources.pt-BR.resx`, `Strings.zh-Hans.resx`); for `.resw` also the folder
 * (`Strings/en-US/Resources.resw`), and MRT's `language-`/`lang-` qualifier. A file that names
 * no culture holds the neutral resources (`Resources.resx`, the app's default language, usually
 * English): locale `und`. A file with no string resources is no locale file; one that is not
 * well-formed XML, or has no `<root>`, is reported (with the line of an element never closed)
 * and not read. A `<data>` without a name, and a key defined twice, are reported with their line.
 * Keys have no namespace: two resource files of an app share their key names.
 */
import { canonicalLocale, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat, unreadable } from './common';
import { child, inner, shown, tags, readXml, type XNode } from './xml';

const EXTENSIONS = ['resx', 'resw'];
const EXT = extensionTest(EXTENSIONS);
/** MRT's qualifier before a culture (`Strings/language-fr/`, `Resources.lang-fr.resw`). */
const QUALIFIER = /^(?:language|lang)-/i;

/** The culture of a resource file's path (see the module comment): `Strings.fr.resx` → `fr`, none named → `und`. */
export function resxLocale(rel: string): string {
  const parts = rel.split('/');
  const name = parts.pop() ?? '';
  const stem = name.replace(EXT, '');
  const dot = stem.lastIndexOf('.');
  // .NET takes a .resx culture from the name only: a folder `IT/` says nothing
  const places = [dot > 0 ? stem.slice(dot + 1) : '', ...(/\.resw$/i.test(name) ? parts.reverse() : [])];
  for (const p of places) {
    const code = p.replace(QUALIFIER, '');
    if (isLocaleCode(code)) return canonicalLocale(code);
  }
  return 'und';
}

/** The offsets of the `name` attribute's text in an element's start tag (as written, entities and all). */
function nameRange(text: string, el: XNode): [number, number] {
  const at = el.startIndex ?? 0;
  const m = /\bname\s*=\s*(["'])/.exec(text.slice(at, text.indexOf('>', at)));
  if (!m) return [at, at];
  const ks = at + m.index + m[0].length;
  return [ks, text.indexOf(m[1], ks)];
}

export const resxFormat: LocaleFormat = {
  name: '.NET resources',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    return EXT.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const xml = readXml(rel, text, '.NET resources', true);
    if ('problem' in xml) return xml.problem;
    const { doc, src } = xml;
    const root = [...tags(doc, 'root')][0];
    if (!root) return unreadable(rel, text, 'malformed', 'no <root> element: not read');
    const problems: I18nProblem[] = [];
    const leaves: Leaf[] = [];
    for (const el of root.children ?? []) {
      if (el.type !== 'tag' || el.name !== 'data') continue;
      const { name, type, mimetype } = el.attribs ?? {};
      if (mimetype || (type && !/^System\.String\b/.test(type))) continue;
      if (!name) {
        problems.push({ kind: 'malformed', file: rel, line: src.position(el.startIndex ?? 0).line, message: 'a <data> without a name: skipped' });
        continue;
      }
      const value = child(el, 'value');
      if (!value || name.startsWith('>>')) continue;
      const [ks, ke] = nameRange(text, el);
      const [vs, ve] = inner(text, value);
      leaves.push({ path: name, value: shown(value).replace(/\r\n?/g, '\n'), vs, ve, ks, ke });
    }
    if (!leaves.length && !problems.length) return undefined;
    return { file: rel, lines: src, entries: buildEntries(leaves, resxLocale(rel), undefined, src, rel, problems), problems };
  },
};
