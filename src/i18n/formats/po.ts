/**
 * gettext PO/POT (`locales/fr/messages.po`, `locale/de/LC_MESSAGES/django.po`, `fr.po`,
 * `messages.pot`). The key is the `msgid`, as Lingui and gettext use it; with a `msgctxt` it is
 * `<msgctxt>|<msgid>`. The value is the `msgstr`; plural forms are `msgstr[0]` under the msgid and
 * `msgstr[n]` under `<msgid>_<n>` (a plural suffix, so usages of the msgid name them all). An
 * untranslated entry (empty msgstr) has no value in that locale; a POT template gives each msgid
 * as its own value in the locale `und` (undetermined).
 *
 * The locale comes from the path, else from the header's `Language:`. The parser is this file's:
 * the npm PO parsers (gettext-parser, pofile) keep no positions, and PO is a line format: every
 * line is a comment, a keyword with a quoted C string, or a continuation string. A line that is
 * none of these is reported (`malformed`, with its line) and the entry it is in is skipped; the
 * rest of the file is read. `#~` obsolete entries are not messages.
 */
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, identifyStem, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf, LocaleFile } from '../types';
import { buildEntries, extensionTest, type LocaleFormat } from './common';

const EXTENSIONS = ['po', 'pot'];
const EXT = extensionTest(EXTENSIONS);

interface Str {
  value: string;
  /** Offsets inside the first and last quotes. */
  s: number;
  e: number;
}

interface Entry {
  ctx?: Str;
  id?: Str;
  plural?: Str;
  strs: Map<number, Str>;
  line: number;
  bad: boolean;
  fuzzy: boolean;
}

/**
 * A C-quoted PO string `"…"` at `[from, to)` of `text` (`to` = end of line), or undefined. The
 * value is built from slices between escapes: appending it a character at a time made a rope of
 * one 32-byte node per character, which the index kept (a 300 MB folder of PO files held 0.7 GB
 * of them).
 */
function quoted(text: string, from: number, to: number): { value: string; s: number; e: number } | undefined {
  let i = from;
  while (i < to && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  if (text.charCodeAt(i) !== 34) return undefined;
  const s = i + 1;
  let parts: string[] | undefined;
  let run = s;
  for (i = s; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      while (j < to && (text[j] === ' ' || text[j] === '\t' || text[j] === '\r')) j++;
      if (j !== to) return undefined;
      const tail = text.slice(run, i);
      return { value: parts ? (parts.push(tail), parts.join('')) : tail, s, e: i };
    }
    if (c === 92 && i + 1 < to) {
      (parts ??= []).push(text.slice(run, i));
      const n = text[++i];
      parts.push(n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n === 'a' ? '\x07' : n === 'b' ? '\b' : n === 'f' ? '\f' : n === 'v' ? '\v' : n);
      run = i + 1;
    }
  }
  return undefined;
}

export function readPo(rel: string, text: string, locale: string | undefined, namespace: string | undefined, template: boolean): LocaleFile {
  const src = new SourceText(text);
  const problems: I18nProblem[] = [];
  const entries = parseEntries(rel, text, problems);
  const { leaves, headerLang } = poLeaves(entries, template);
  let loc = template ? 'und' : locale;
  if (!loc && headerLang && (isLocaleCode(headerLang) || GETTEXT_LOCALE.test(headerLang))) loc = canonicalLocale(headerLang);
  if (!loc) return { file: rel, lines: src, entries: [], problems: [...problems, { kind: 'unknown-locale', file: rel, message: 'PO file with no locale in its path or its Language header: not read' }] };
  return { file: rel, lines: src, entries: buildEntries(leaves, loc, namespace, src, rel, problems), problems };
}

/** The state of `parseEntries`: the entries so far, the one being read, the string a continuation line extends. */
interface PoParse {
  rel: string;
  text: string;
  problems: I18nProblem[];
  entries: Entry[];
  cur?: Entry;
  last?: Str;
  /** A `#, fuzzy` comment was read: the next entry is fuzzy. */
  fuzzyNext: boolean;
}

/**
 * The entries of a PO text, line by line: blank, a comment, a continuation string, or a keyword
 * with its string. A line that does not parse marks its entry bad (said in `problems`).
 */
function parseEntries(rel: string, text: string, problems: I18nProblem[]): Entry[] {
  // every field set from the start: one object shape through the parse
  const p: PoParse = { rel, text, problems, entries: [], cur: undefined, last: undefined, fuzzyNext: false };
  let line = 0;
  for (let off = 0; off <= text.length; ) {
    let end = text.indexOf('\n', off);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(off, end).replace(/\r$/, '');
    const lineEnd = off + raw.length;
    const trimmed = raw.trimStart();
    const lead = off + (raw.length - trimmed.length);
    if (!trimmed) {
      p.last = undefined;
    } else if (trimmed.startsWith('#')) {
      if (trimmed.startsWith('#,') && /\bfuzzy\b/.test(trimmed)) p.fuzzyNext = true;
      p.last = undefined; // `#~` obsolete entries and comments are no messages
    } else if (trimmed.startsWith('"')) continuationLine(p, lead, lineEnd, line);
    else keywordLine(p, trimmed, lead, lineEnd, line);
    off = end + 1;
  }
  return p.entries;
}

/** A string alone on its line: the rest of the last msgid/msgstr; after anything else it marks the entry bad. */
function continuationLine(p: PoParse, lead: number, lineEnd: number, line: number): void {
  const q = quoted(p.text, lead, lineEnd);
  if (q && p.last) {
    p.last.value += q.value;
    p.last.e = q.e;
  } else if (p.cur) {
    p.cur.bad = true;
    p.problems.push({ kind: 'malformed', file: p.rel, line, message: `PO line ${line} is not a continuation of a msgid/msgstr: the entry is skipped` });
  }
}

/** A new entry at `line`, unless the current one has no msgstr yet and parses (its msgctxt came first, say). */
function startEntry(p: PoParse, line: number): Entry {
  if (!p.cur || p.cur.strs.size || p.cur.bad) {
    p.cur = { strs: new Map(), line, bad: false, fuzzy: p.fuzzyNext };
    p.entries.push(p.cur);
    p.fuzzyNext = false;
  }
  return p.cur;
}

/** `msgctxt`, `msgid`, `msgid_plural` or `msgstr[n]` with its quoted string; anything else marks the entry bad. */
function keywordLine(p: PoParse, trimmed: string, lead: number, lineEnd: number, line: number): void {
  const m = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)(?=[\s"])/.exec(trimmed);
  const q = m ? quoted(p.text, lead + m[0].length, lineEnd) : undefined;
  if (!m || !q) {
    const e = startEntry(p, line);
    e.bad = true;
    p.last = undefined;
    p.problems.push({ kind: 'malformed', file: p.rel, line, message: `PO line ${line} does not parse (${JSON.stringify(trimmed.slice(0, 40))}): the entry is skipped` });
    return;
  }
  const kw = m[1];
  const str: Str = { value: q.value, s: q.s, e: q.e };
  const cur = p.cur;
  if (kw === 'msgctxt') startEntry(p, line).ctx = str;
  else if (kw === 'msgid') {
    const e = cur && !cur.id && !cur.strs.size && !cur.bad ? cur : startEntry(p, line);
    e.id = str;
    e.line = line;
  } else if (kw === 'msgid_plural' && cur) cur.plural = str;
  else if (cur) cur.strs.set(m[2] !== undefined ? Number(m[2]) : 0, str);
  p.last = str;
}

/** The messages of the entries that parse (a template's msgids as their own values), and the header's `Language:`. */
function poLeaves(entries: Entry[], template: boolean): { leaves: Leaf[]; headerLang: string | undefined } {
  const leaves: Leaf[] = [];
  let headerLang: string | undefined;
  for (const e of entries) {
    if (e.bad || !e.id) continue;
    if (e.id.value === '') {
      // the header: `Language: fr`
      const lang = /^Language:\s*([^\s\\]+)/m.exec(e.strs.get(0)?.value ?? '');
      if (lang) headerLang = lang[1];
      continue;
    }
    const key = e.ctx ? `${e.ctx.value}|${e.id.value}` : e.id.value;
    if (template) {
      leaves.push({ path: key, value: e.id.value, vs: e.id.s, ve: e.id.e, ks: e.id.s, ke: e.id.e });
      continue;
    }
    for (const [n, s] of [...e.strs.entries()].sort((a, b) => a[0] - b[0])) {
      if (!s.value) continue;
      leaves.push({ path: n === 0 ? key : `${key}_${n}`, value: s.value, vs: s.s, ve: s.e, ks: e.id.s, ke: e.id.e });
    }
  }
  return { leaves, headerLang };
}

/**
 * A well-formed gettext locale (`dsb`, `pt_BR`, `sr@latin`, `ca@valencia`): taken where gettext
 * names the locale (a PO header's `Language:`, the folder above `LC_MESSAGES`) even when the
 * language is not one of the common codes a path is otherwise matched against.
 */
const GETTEXT_LOCALE = /^[a-z]{2,3}(?:[_-](?:[A-Za-z]{4}|[A-Za-z]{2}|\d{3}))?(?:@[a-z]+)?$/;

export const poFormat: LocaleFormat = {
  name: 'gettext PO',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    return EXT.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const parts = rel.split('/');
    const name = parts[parts.length - 1];
    const dirs = parts.slice(0, -1).filter((d) => d !== 'LC_MESSAGES');
    const id = identifyStem(dirs, name.replace(EXT, ''));
    // gettext's own layout: the folder above `LC_MESSAGES` is the locale, whatever language it is
    // (Django's `locale/dsb/LC_MESSAGES/django.po`: Lower Sorbian, in no list of common codes)
    const lc = parts.lastIndexOf('LC_MESSAGES');
    const above = lc > 0 ? parts[lc - 1] : undefined;
    const locale = id?.locale ?? (above && GETTEXT_LOCALE.test(above) ? canonicalLocale(above) : undefined);
    // gettext domains (`messages`, `django`) are not namespaces the code names
    return readPo(rel, text, locale, undefined, /\.pot$/i.test(name));
  },
};
