/**
 * The locale formats beyond JSON, JS/TS modules and Vue SFC blocks (those live in locales.ts):
 * one module each, registered here. `formatOf` picks the reader of a path; `readLocaleFormat`
 * runs it and turns a failure into a problem, never an exception or a silent skip.
 */
import { SourceText } from '../../parse/source-text';
import { identifyStem } from '../locale-code';
import { androidFormat } from './android';
import { appleStringsFormat, xcstringsFormat } from './apple';
import { arbFormat } from './arb';
import { chromeFormat } from './chrome';
import { errText, extensionTest, type LocaleFormat, type ReadContext } from './common';
import { fluentFormat } from './fluent';
import { phpFormat } from './php';
import { poFormat } from './po';
import { propertiesFormat } from './properties';
import { qtTsFormat } from './qt';
import { resxFormat } from './resx';
import { tomlFormat } from './toml';
import { xliffFormat } from './xliff';
import { yamlFormat } from './yaml';
import type { LocaleFile } from '../types';

export type { LocaleFormat, ReadContext } from './common';

/**
 * Locale files Fathom sees but does not read (a locale code in the name or folder): reported as
 * `unsupported`, so an answer never silently lacks them. A `.strings` table is read inside its
 * `<lang>.lproj/` folder (formats/apple.ts); one elsewhere that names a locale is reported.
 */
const UNSUPPORTED_EXTENSIONS = ['strings', 'stringsdict', 'mo', 'ini'];
const UNSUPPORTED = extensionTest(UNSUPPORTED_EXTENSIONS);

const unsupportedFormat: LocaleFormat = {
  name: 'unsupported',
  extensions: UNSUPPORTED_EXTENSIONS,
  claims(rel, ctx) {
    if (!UNSUPPORTED.test(rel)) return false;
    if (ctx.matchesGlobs) return ctx.matchesGlobs(rel);
    const parts = rel.split('/');
    const stem = parts[parts.length - 1].replace(UNSUPPORTED, '');
    // `en.lproj/Localizable.stringsdict`, `fr.ini`, `messages.de.mo`, `strings/fr.strings`
    const dirs = parts.slice(0, -1).map((d) => d.replace(/\.lproj$/i, ''));
    return identifyStem(dirs, stem) !== undefined;
  },
  read(rel) {
    const ext = (UNSUPPORTED.exec(rel)?.[1] ?? '').toLowerCase();
    const what =
      ext === 'mo'
        ? 'a compiled gettext catalog (the .po next to it is read, when there is one)'
        : ext === 'strings'
          ? 'a .strings table outside a <lang>.lproj folder (move it there, or name it with --locales)'
          : `the .${ext} locale format is not supported`;
    return { file: rel, lines: new SourceText(''), entries: [], problems: [{ kind: 'unsupported', file: rel, message: `${what}: not read` }] };
  },
};

/** Most specific first: `_locales/x/messages.json` before any JSON rule (JSON stays in locales.ts). */
export const FORMATS: LocaleFormat[] = [chromeFormat, yamlFormat, poFormat, propertiesFormat, xliffFormat, fluentFormat, phpFormat, arbFormat, androidFormat, appleStringsFormat, xcstringsFormat, resxFormat, qtTsFormat, tomlFormat, unsupportedFormat];

/** JSON, JSONC and JSON5 locale files: read by locales.ts (a locale in the name or folder, or the user's globs), not by a format of this list. */
export const JSON_EXTENSIONS: readonly string[] = ['json', 'jsonc', 'json5'];
export const JSON_FILE = extensionTest(JSON_EXTENSIONS);

/** The formats that read messages: not `unsupported`, whose files hold none a lookup, a chunk's i18n text or a diagnostic could show. */
const READING = FORMATS.filter((f) => f !== unsupportedFormat);

/** Names whose extension alone makes them locale files: JSON's, and those of every format whose extension code does not share. */
export const LOCALE_EXTENSION = extensionTest([...new Set([...JSON_EXTENSIONS, ...READING.filter((f) => !f.sharedExtension).flatMap((f) => f.extensions)])]);

/**
 * Could this path be a locale file, by its name alone (its text may be gone: a deleted file)?
 * An extension of `LOCALE_EXTENSION`, or a path that a format whose extension code shares
 * claims (`res/values/strings.xml`, `lang/en/messages.php`, `app_de.ts`; with the user's
 * locale globs, what they match). What every test outside the index that picks locale files
 * by name is: the session's (does a change touch locale data?) and the editor's (is a file
 * worth asking diagnostics of?). `/` or `\` separators.
 */
export function isLocaleFileName(rel: string, matchesGlobs?: (rel: string) => boolean): boolean {
  const p = rel.replace(/\\/g, '/');
  return LOCALE_EXTENSION.test(p) || READING.some((f) => f.sharedExtension && f.claims(p, { matchesGlobs }));
}

export function formatOf(rel: string, ctx: ReadContext = {}): LocaleFormat | undefined {
  return FORMATS.find((f) => f.claims(rel, ctx));
}

/** The messages of a file in one of the registered formats; undefined when no format claims it or it holds none. */
export function readLocaleFormat(rel: string, text: string, ctx: ReadContext = {}, format = formatOf(rel, ctx)): LocaleFile | undefined {
  if (!format) return undefined;
  try {
    const lf = format.read(rel, text, ctx);
    if (!lf && ctx.matchesGlobs?.(rel)) {
      return { file: rel, lines: new SourceText(text), entries: [], problems: [{ kind: 'unknown-locale', file: rel, message: `matches the locale globs, but as ${format.name} it holds no messages of a known locale: skipped` }] };
    }
    return lf;
  } catch (err) {
    return { file: rel, lines: new SourceText(text), entries: [], problems: [{ kind: 'malformed', file: rel, message: `${format.name} could not be read: ${errText(err)}` }] };
  }
}
