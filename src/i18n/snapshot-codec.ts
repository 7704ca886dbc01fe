/**
 * A locale file's entries in the i18n snapshot (I18N_SNAPSHOT_VERSION 2 on): as columns.
 *
 * Version 1 wrote every entry as an object that repeated its file, its locale and eight field
 * names. On Debian's calibre source (3,952 locale files, 1.2 million values) the entries were
 * 256 MB of the snapshot's 517 MB of JSON, parsed on every CLI search. Columns of plain strings
 * and numbers are what JSON.parse reads fastest; nothing is decoded in JavaScript.
 */
import type { LocaleEntry } from './types';

/** Entries of one file as columns; `extra`: the optional fields an entry has, by entry. */
export interface EntryColumns {
  n: number;
  /** One locale for every entry, or one an entry. */
  locale: string | string[];
  value: string[];
  path: string[];
  /** vs, ve, ks, ke of each entry, one after the other. */
  at: number[];
  extra: Array<[number, Partial<Pick<LocaleEntry, 'namespace' | 'also' | 'derived' | 'fixed' | 'file'>>]>;
}

const isU32 = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;

/** `entries` of file `file` as columns, or undefined when a position is not a whole number (kept as objects then). */
export function entriesToColumns(file: string, entries: readonly LocaleEntry[]): EntryColumns | undefined {
  const n = entries.length;
  const at: number[] = new Array(4 * n);
  const value: string[] = new Array(n);
  const path: string[] = new Array(n);
  const locales: string[] = new Array(n);
  const extra: EntryColumns['extra'] = [];
  let oneLocale = true;
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    if (!isU32(e.vs) || !isU32(e.ve) || !isU32(e.ks) || !isU32(e.ke)) return undefined;
    at[4 * i] = e.vs;
    at[4 * i + 1] = e.ve;
    at[4 * i + 2] = e.ks;
    at[4 * i + 3] = e.ke;
    value[i] = e.value;
    path[i] = e.path;
    locales[i] = e.locale;
    if (e.locale !== locales[0]) oneLocale = false;
    // the optional fields of LocaleEntry (its type lists them all)
    if (e.namespace !== undefined || e.also !== undefined || e.derived !== undefined || e.fixed !== undefined || e.file !== file) {
      const more: EntryColumns['extra'][number][1] = {};
      if (e.namespace !== undefined) more.namespace = e.namespace;
      if (e.also !== undefined) more.also = e.also;
      if (e.derived !== undefined) more.derived = e.derived;
      if (e.fixed !== undefined) more.fixed = e.fixed;
      if (e.file !== file) more.file = e.file;
      extra.push([i, more]);
    }
  }
  return { n, locale: oneLocale && n > 0 ? locales[0] : locales, value, path, at, extra };
}

/** The entries of `c` (file `file`); throws on columns that do not fit together. */
export function columnsToEntries(file: string, c: EntryColumns): LocaleEntry[] {
  const arr = Array.isArray;
  const bad = () => new Error(`damaged locale entries of ${file}`);
  if (!c || !isU32(c.n) || !arr(c.value) || !arr(c.path) || !arr(c.at) || !arr(c.extra) || c.value.length !== c.n || c.path.length !== c.n || c.at.length !== 4 * c.n) throw bad();
  if (typeof c.locale !== 'string' && !(arr(c.locale) && c.locale.length === c.n)) throw bad();
  const out: LocaleEntry[] = new Array(c.n);
  for (let i = 0; i < c.n; i++) {
    const locale = typeof c.locale === 'string' ? c.locale : c.locale[i];
    const value = c.value[i];
    const path = c.path[i];
    const vs = c.at[4 * i];
    const ve = c.at[4 * i + 1];
    const ks = c.at[4 * i + 2];
    const ke = c.at[4 * i + 3];
    if (typeof locale !== 'string' || typeof value !== 'string' || typeof path !== 'string' || !isU32(vs) || !isU32(ve) || !isU32(ks) || !isU32(ke)) throw bad();
    out[i] = { locale, file, value, path, vs, ve, ks, ke };
  }
  for (const x of c.extra) {
    if (!arr(x) || !isU32(x[0]) || x[0] >= c.n || typeof x[1] !== 'object' || x[1] === null) throw bad();
    const m = x[1];
    const e = out[x[0]];
    if (typeof m.namespace === 'string') e.namespace = m.namespace;
    if (arr(m.also)) e.also = m.also;
    if (typeof m.derived === 'boolean') e.derived = m.derived;
    if (typeof m.fixed === 'boolean') e.fixed = m.fixed;
    if (typeof m.file === 'string') e.file = m.file;
  }
  return out;
}
