/**
 * What every locale format reader shares: the reader interface, leaves → entries (a key defined
 * twice reported once, the last one wins), and the file a reader gives back when it cannot read.
 */
import { SourceText } from '../../parse/source-text';
import type { I18nProblem, Leaf, LocaleEntry, LocaleFile } from '../types';

export interface ReadContext {
  /** The locale-glob test, when the user gave globs. */
  matchesGlobs?: (rel: string) => boolean;
}

/** A locale format: which paths it reads, and how. */
export interface LocaleFormat {
  name: string;
  /**
   * The extensions of its files, lower case, without the dot. Every test that picks locale
   * files by name is built from these (`isLocaleFileName`, formats/index.ts), and so is the
   * format's own extension test (`extensionTest`).
   */
  extensions: readonly string[];
  /**
   * Code shares the extension (`.ts` is TypeScript as well as Qt Linguist, `.php` code as well
   * as a Laravel `lang/<locale>/` array, `.xml` anything as well as Android's `res/values*`): a
   * name is a locale file of this format only when `claims` says so. Unset: the extension alone
   * makes a name a locale file.
   */
  sharedExtension?: boolean;
  /** Could this path be a file of this format (by its path alone)? Cheap: called for every walked file. */
  claims(rel: string, ctx: ReadContext): boolean;
  /** The file's messages, undefined when it is not a locale file after all; never throws. */
  read(rel: string, text: string, ctx: ReadContext): LocaleFile | undefined;
}

/** The test of a path ending in one of `extensions` (lower case, no dot), any case; group 1 is the extension. */
export function extensionTest(extensions: readonly string[]): RegExp {
  return new RegExp(`\\.(${extensions.map((e) => e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`, 'i');
}

/**
 * A copy of `s` that keeps no larger string alive. V8 makes a slice of 13 or more characters a
 * view of the string it was cut from, and a concatenation a rope of its parts: an entry's key
 * or value sliced from a locale file kept the whole file's text in memory for as long as the
 * index lived (I18nIndex.setFile keeps copies). Concatenating a space flattens the string into
 * a new one, and the slice after it is a view of that copy only.
 */
export function own(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** Leaves → entries of one file, duplicates reported (the last one wins). */
export function buildEntries(leaves: Leaf[], locale: string, namespace: string | undefined, src: SourceText, file: string, problems: I18nProblem[]): LocaleEntry[] {
  const byPath = new Map<string, number>();
  const out: LocaleEntry[] = [];
  for (const l of leaves) {
    const loc = l.locale ?? locale;
    const e: LocaleEntry = { locale: loc, file, value: l.value, namespace, path: l.path, vs: l.vs, ve: l.ve, ks: l.ks, ke: l.ke };
    if (l.also?.length) e.also = l.also;
    if (l.derived) e.derived = true;
    if (l.fixed) e.fixed = true;
    const id = `${loc}\0${l.path}`;
    const prev = byPath.get(id);
    if (prev !== undefined) {
      const p = out[prev];
      const pl = src.position(p.ks).line;
      const el = src.position(e.ks).line;
      if (!l.derived) {
        problems.push({
          kind: 'duplicate',
          file,
          line: el,
          message: `key "${l.path}" is defined twice${loc ? ` for ${loc}` : ''} (lines ${pl} and ${el}${p.value === e.value ? ', same value' : `: "${p.value}" and "${e.value}"`}); the last one wins`,
        });
      }
      out[prev] = e;
    } else {
      byPath.set(id, out.length);
      out.push(e);
    }
  }
  return out;
}

/** A file that names a locale but cannot be read: a problem, never silence. */
export function unreadable(file: string, text: string, kind: I18nProblem['kind'], message: string, line?: number): LocaleFile {
  return { file, lines: new SourceText(text), entries: [], problems: [{ kind, file, line, message }] };
}

export { errText } from '../../util/errors';
