/**
 * Locale codes (BCP-47, as projects spell them in file and folder names) and what a path says
 * about its locale and namespace — shared by every locale format.
 *
 * A code is a language (ISO 639-1 and a few 3-letter codes, json-classify.ts's list), then
 * optionally a script (`Latn`, `Hant`: ISO 15924 codes CLDR uses, so `en_core` is no script), a
 * region (`TW`, `BR`, `419`) and registered variants (`valencia`, `1996`), joined by `-` or `_`:
 * `en`, `pt_BR`, `sr-Latn`, `zh-Hant-TW`, `es-419`, `ca-valencia`, `de-CH-1996`. Variants come
 * from a short list of registered ones (a 4-character one starting with a digit is always a
 * variant): `es-module` is no locale. gettext's POSIX modifiers are read too: `sr@latin` is
 * `sr-Latn`, `ca@valencia` is `ca-valencia`.
 */
import { isLocaleTag, isScript } from '../parse/json-classify';

export interface LocaleIdentity {
  locale: string;
  namespace?: string;
  /** How it was told: from the file name, or from a folder. */
  from: 'name' | 'folder';
  /**
   * Docusaurus' `locales/base/<plugin>.json`: the English source with translator notes, told by
   * its folder and confirmed by its content (`"<key>___DESCRIPTION"` entries).
   */
  base?: true;
}

/** IANA-registered variants seen in real projects' file names. */
const VARIANTS = new Set([
  'valencia', 'posix', 'pinyin', 'fonipa', 'rozaj', 'nedis', 'biske', 'arevela', 'arevmda', 'monoton', 'polyton',
  'saaho', 'scotland', 'tarask', 'ekavsk', 'ijekavsk', 'wadegile', 'hepburn', 'baku1926', 'boont', 'njiva', 'osojs',
  'solba', 'lipaw', 'luna1918', 'petr1708', 'scouse', 'alalc97', 'basiceng', 'oxendict', 'aluku', 'emodeng', 'metelko',
]);

const MODIFIER_SCRIPTS: Record<string, string> = { latin: 'Latn', cyrillic: 'Cyrl', devanagari: 'Deva', arabic: 'Arab', hebrew: 'Hebr', javanese: 'Java', iqtelif: 'Latn' };

/** `sr@latin` → `sr-Latn`, `ca_ES@valencia` → `ca-ES-valencia` (gettext's POSIX modifier), else as given. */
function fromPosix(s: string): string {
  const at = s.indexOf('@');
  if (at < 0) return s;
  const mod = s.slice(at + 1).toLowerCase();
  const base = s.slice(0, at);
  const script = MODIFIER_SCRIPTS[mod];
  if (!script) return `${base}-${mod}`;
  const [lang, ...rest] = base.split(/[-_]/);
  return [lang, script, ...rest].join('-');
}

/** `en`, `pt_BR`, `sr-Latn`, `zh-Hant-TW`, `es-419`, `ca-valencia`, `sr@latin`: a locale code on its own. */
export function isLocaleCode(code: string): boolean {
  if (!code || code.length > 40) return false;
  const s = fromPosix(code);
  if (s.includes('@')) return false;
  const parts = s.split(/[-_]/);
  if (!isLocaleTag(parts[0]) || !/^[a-z]{2,3}$/i.test(parts[0])) return false;
  let i = 1;
  if (i < parts.length && isScript(parts[i])) i++;
  if (i < parts.length && /^(?:[a-z]{2}|\d{3})$/i.test(parts[i])) i++;
  let variants = 0;
  while (i < parts.length && variants < 2 && (VARIANTS.has(parts[i].toLowerCase()) || /^\d[a-z\d]{3}$/i.test(parts[i]))) {
    i++;
    variants++;
  }
  return i === parts.length;
}

/** `pt_br` → `pt-BR`, `zh_hans` → `zh-Hans`, `EN` → `en`, `ca-VALENCIA` → `ca-valencia`: one spelling per locale. */
export function canonicalLocale(tag: string): string {
  const parts = fromPosix(tag).split(/[-_]/);
  return parts
    .map((p, i) => {
      if (i === 0) return p.toLowerCase();
      if (i === 1 && isScript(p)) return p[0].toUpperCase() + p.slice(1).toLowerCase();
      if (/^(?:[a-z]{2}|\d{3})$/i.test(p)) return p.toUpperCase();
      return p.toLowerCase();
    })
    .join('-');
}

/**
 * The locale (and namespace) a path names, given the file's stem (its name without the format's
 * extension): the stem itself (`en`, `zh-Hant-TW`, `sr@latin`), a folder (`locales/de/common` →
 * `de`, namespace `common`; `locales/pt-BR/…`, `locale/sr@latin/LC_MESSAGES/…`), a prefix then
 * the code (`core_fr`, `core_pt_BR`, `messages.de`, `i18n_en_US`; the longest code wins, so
 * `app_zh_Hant_TW` is `zh-Hant-TW`, not Twi), or else the code then a suffix (`pt-BR.messages`,
 * and in an i18n folder `locales/en_core`; the longest code again).
 */
export function identifyStem(dirs: string[], stem: string): LocaleIdentity | undefined {
  if (isLocaleCode(stem)) return { locale: canonicalLocale(stem), from: 'name' };
  for (let i = dirs.length - 1; i >= 0; i--) {
    if (isLocaleCode(dirs[i])) {
      const ns = [...dirs.slice(i + 1), stem].join('/');
      return { locale: canonicalLocale(dirs[i]), namespace: ns === 'index' ? undefined : ns, from: 'folder' };
    }
  }
  const sep = (c: string) => c === '.' || c === '_' || c === '-';
  for (let i = 1; i < stem.length - 1; i++) {
    if (sep(stem[i - 1]) && isLocaleCode(stem.slice(i))) return { locale: canonicalLocale(stem.slice(i)), from: 'name' };
  }
  // code first: a lone language (`es-module`, `my_test`, `id_rsa`) only inside an i18n folder
  const i18nDir = dirs.some((d) => I18N_DIRS.has(d.toLowerCase()));
  for (let i = stem.length - 2; i >= 2; i--) {
    if (!sep(stem[i]) || !isLocaleCode(stem.slice(0, i))) continue;
    if (i18nDir || /[-_@]/.test(stem.slice(0, i))) return { locale: canonicalLocale(stem.slice(0, i)), from: 'name' };
  }
  return undefined;
}

/** Folders whose files are messages (a locale file's usual homes). */
export const I18N_DIRS = new Set([
  'locales', 'locale', '_locales', 'i18n', '_i18n', 'l10n', 'lang', 'langs', 'language', 'languages', 'translations',
  'translation', 'messages', 'intl', 'nls', 'dictionaries', 'dictionary', 'po',
]);

/** Is some folder of `rel` an i18n folder (`locales/`, `lang/`, `i18n/`, `config/locales/` …)? */
export function inI18nDir(rel: string): boolean {
  const dirs = rel.split('/').slice(0, -1);
  return dirs.some((d) => I18N_DIRS.has(d.toLowerCase()));
}
