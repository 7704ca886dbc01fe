/**
 * TOML locale files: Hugo's `i18n/en.toml` (a theme's too, `themes/<t>/i18n/de.toml`) and
 * go-i18n v2's `active.fr.toml`, `translate.fr.toml`, `locales/en.toml`.
 *
 * The locale is the path's (`identifyStem`: `en`, `active.fr`, `zh-Hans`); a locale folder
 * counts only inside an i18n folder (`crates/ja/Cargo.toml` is a crate), and Hugo's `config/`
 * folder holds settings (`config/_default/menus.en.toml`), not messages. Any other TOML
 * (`Cargo.toml`, `pyproject.toml`, Hugo's `config.toml`) is no locale file; with locale globs,
 * what they match is.
 *
 * A message is a string (`key = "text"`; a dotted or nested key `[a.b]` + `c = "…"` is `a.b.c`),
 * or a table whose members are all plural forms (`zero one two few many other`), go-i18n's
 * `description` and `hash` (no texts), and go-i18n v1's `id` / `translation`: `[key]` with
 * `other = "…"`, `key = { other = "…" }`, and `[[i18n]]` elements `id = "key"` +
 * `translation = "…"` (the `id` names the key). Its text is its `other` form (else its first),
 * the other forms are its other texts. Other arrays and arrays of tables (Hugo menus) hold none.
 *
 * The reader is this file's (the npm TOML parsers keep no positions): basic strings with their
 * escapes, literal strings, both multi-line forms (a newline right after the opening delimiter
 * trimmed, a line-ending backslash in `"""` too, a CRLF in one a newline), quoted and dotted
 * keys, inline tables, `#` comments; other values (numbers, booleans, dates, arrays) are skipped.
 * Ranges are inside the quotes; a key's range is the key as written (a `[table]` message's: the
 * table name).
 *
 * A syntax error is one `malformed` problem with its line. When the statement it is in lies on
 * that line, only that line is skipped (a broken `[table]` header: with the keys under it, whose
 * table is unknown) and the rest of the file is read. When it lies in a statement that spans
 * lines (an unterminated `"""`, an array or inline table that never closes), where that statement
 * ends is unknown: the file is reported and not read. A bad escape is reported and kept as written.
 */
import { SourceText } from '../../parse/source-text';
import { identifyStem, inI18nDir } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, extensionTest, type LocaleFormat, unreadable } from './common';

const EXTENSIONS = ['toml'];
const EXT = extensionTest(EXTENSIONS);
/** CLDR's plural categories, as go-i18n and Hugo name a message's forms. */
const FORMS = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);
/** What a message table may hold besides its forms: go-i18n's notes, go-i18n v1's id and text. */
const MESSAGE_MEMBERS = new Set([...FORMS, 'description', 'hash', 'id', 'translation']);
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
const BARE_KEY = /[A-Za-z0-9_-]+/y;
/**
 * Bounds on a key's parts and on nested arrays and inline tables: a table's members are listed by
 * their path's prefixes, so a key of 20,000 parts took 75 s and 4 GB. Past them the statement is
 * a syntax error (reported, its line skipped).
 */
const MAX_KEY_PARTS = 128;
const MAX_NESTING = 128;
/** A value that is no string, array or table: a boolean, a number, a date or time (skipped). */
const SCALAR = /(?:true|false|[+-]?(?:inf|nan)|[+-]?\d[\w.:+-]*(?: \d\d:[\w.:+-]*)?)(?=[\s,\]}#]|$)/y;

/** A key's segment: its name, its offsets (inside quotes), and where the written key holding it starts. */
interface Seg {
  name: string;
  s: number;
  e: number;
  from: number;
  /** The element of an array of tables (`[[i18n]]`) that a path goes through. */
  elem?: true;
}

interface Str {
  value: string;
  s: number;
  e: number;
}

/** A key and its value: a string, or (`str` undefined) anything else, kept as a member of its table. */
interface Assignment {
  path: Seg[];
  str?: Str;
}

class TomlError extends Error {
  constructor(
    message: string,
    readonly at: number,
    /** Its statement's end is unknown (an unterminated multi-line string): nothing after it can be read. */
    readonly unbounded = false,
  ) {
    super(message);
  }
}

/** The locale of a TOML path; undefined when it is no locale file (see the module comment), unless the locale globs matched it. */
function tomlLocale(rel: string, globbed: boolean): string | undefined {
  const dirs = rel.split('/');
  const stem = dirs.pop()!.replace(EXT, '');
  const id = identifyStem(dirs, stem);
  if (!id || globbed) return id?.locale;
  return (id.from === 'folder' || dirs.includes('config')) && !inI18nDir(rel) ? undefined : id.locale;
}

/** The statements of a TOML text, read from `i` on. */
class Reader {
  /** Past a byte order mark. */
  i: number;
  /** The first bad escape of the current statement (its string is kept as written). */
  badEscape?: TomlError;

  constructor(readonly text: string) {
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  blanks(): void {
    while (this.text[this.i] === ' ' || this.text[this.i] === '\t') this.i++;
  }

  /** Blanks, line breaks and comments: between the items of an array or inline table. */
  gap(): void {
    for (;;) {
      this.blanks();
      const c = this.text[this.i];
      if (c === '\n' || c === '\r') this.i++;
      else if (c === '#') this.skipComment();
      else return;
    }
  }

  skipComment(): void {
    while (this.i < this.text.length && this.text[this.i] !== '\n' && this.text[this.i] !== '\r') this.i++;
  }

  /** The end of a statement: blanks, a comment, then the line's end. */
  eol(): void {
    this.blanks();
    if (this.text[this.i] === '#') this.skipComment();
    const c = this.text[this.i];
    if (c === '\r' && this.text[this.i + 1] === '\n') this.i += 2;
    else if (c === '\n' || c === '\r') this.i++;
    else if (c !== undefined) throw new TomlError(`unexpected "${c}" after the statement`, this.i);
  }

  /** A dotted key (`a`, `a.b`, `"a b".c`, `'x'`). */
  key(): Seg[] {
    const segs: Seg[] = [];
    for (;;) {
      this.blanks();
      const c = this.text[this.i];
      let seg: Omit<Seg, 'from'>;
      if (c === '"' || c === "'") {
        if (this.text.startsWith(c.repeat(3), this.i)) throw new TomlError('a key cannot be a multi-line string', this.i);
        const str = this.string();
        seg = { name: str.value, s: str.s, e: str.e };
      } else {
        BARE_KEY.lastIndex = this.i;
        const m = BARE_KEY.exec(this.text);
        if (!m) throw new TomlError(c === undefined || c === '\n' || c === '\r' ? 'a key is missing' : `unexpected "${c}" where a key belongs`, this.i);
        seg = { name: m[0], s: this.i, e: this.i + m[0].length };
        this.i += m[0].length;
      }
      segs.push({ ...seg, from: segs[0]?.s ?? seg.s });
      if (segs.length > MAX_KEY_PARTS) throw new TomlError(`a key of more than ${MAX_KEY_PARTS} dotted parts`, seg.s);
      this.blanks();
      if (this.text[this.i] !== '.') return segs;
      this.i++;
    }
  }

  /** The string at `i`: basic `"…"`, literal `'…'`, or either multi-line form. */
  string(): Str {
    const t = this.text;
    const q = t[this.i];
    const multi = t.startsWith(q.repeat(3), this.i);
    let i = this.i + (multi ? 3 : 1);
    if (multi && t[i] === '\n') i++;
    else if (multi && t.startsWith('\r\n', i)) i += 2;
    const s = i;
    let value = '';
    for (;;) {
      const c = t[i];
      if (c === undefined || (!multi && (c === '\n' || c === '\r'))) throw new TomlError(multi ? `the ${q.repeat(3)} string never closes` : `the ${q} string does not close on its line`, this.i, multi);
      if (c === q && (!multi || t.startsWith(q.repeat(3), i))) {
        // up to two quotes more before the closing delimiter are text: `"""say "hi""""`
        let e = i;
        while (multi && e - i < 2 && t[e + 3] === q) e++;
        value += q.repeat(e - i);
        this.i = e + (multi ? 3 : 1);
        return { value, s, e };
      }
      if (c !== '\\' || q === "'") {
        // a line break is a newline, whatever the file's
        if (c !== '\r' || t[i + 1] !== '\n') value += c;
        i++;
        continue;
      }
      const d = t[i + 1];
      const lineEnd = multi ? /^[ \t]*\r?\n/.exec(t.slice(i + 1, i + 200)) : null;
      if (lineEnd) {
        // a line-ending backslash: the break and the blanks after it are dropped
        i += 1 + lineEnd[0].length;
        while (/[ \t\r\n]/.test(t[i] ?? '')) i++;
      } else if (d in ESCAPES) {
        value += ESCAPES[d];
        i += 2;
      } else {
        const n = d === 'u' ? 4 : d === 'U' ? 8 : 0;
        const hex = t.slice(i + 2, i + 2 + n);
        const code = n && /^[0-9a-fA-F]+$/.test(hex) && hex.length === n ? parseInt(hex, 16) : -1;
        if (code >= 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
          value += String.fromCodePoint(code);
          i += 2 + n;
        } else {
          this.badEscape ??= new TomlError(`bad escape "\\${d === 'u' || d === 'U' ? d + hex : (d ?? '')}"`, i);
          value += '\\';
          i++;
        }
      }
    }
  }

  /** The value at `i`: a string is recorded under `path`, an inline table's members under theirs; any other value as a member only. */
  value(path: Seg[], out: Assignment[], nesting = 0): void {
    const c = this.text[this.i];
    if (nesting > MAX_NESTING) throw new TomlError(`arrays or inline tables nested more than ${MAX_NESTING} deep`, this.i);
    if (path.length > 4 * MAX_KEY_PARTS) throw new TomlError(`a key path of more than ${4 * MAX_KEY_PARTS} parts`, this.i);
    if (c === '"' || c === "'") {
      out.push({ path, str: this.string() });
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      this.i++;
      out.push({ path });
      // an array's items are no messages: read to find its end, then dropped
      const items: Assignment[] = c === '{' ? out : [];
      for (;;) {
        this.gap();
        if (this.text[this.i] === close) break;
        if (c === '{') {
          const key = this.key();
          if (this.text[this.i] !== '=') throw new TomlError('"=" expected after the key', this.i);
          this.i++;
          this.blanks();
          this.value([...path, ...key], items, nesting + 1);
        } else this.value(path, items, nesting + 1);
        this.gap();
        if (this.text[this.i] !== ',') break;
        this.i++;
      }
      if (this.text[this.i] !== close) throw new TomlError(`"${close}" expected to close the ${c === '{' ? 'inline table' : 'array'}`, this.i);
      this.i++;
    } else {
      SCALAR.lastIndex = this.i;
      const m = SCALAR.exec(this.text);
      if (!m) throw new TomlError(c === undefined || c === '\n' || c === '\r' || c === '#' ? 'a value is missing' : 'a value that is no TOML (a text needs quotes)', this.i);
      out.push({ path });
      this.i += m[0].length;
    }
  }

  /** A `[table]` or `[[array of tables]]` header: the path its keys are under (through each array's last element). */
  header(arrays: Map<string, number>): Seg[] {
    const isArray = this.text.startsWith('[[', this.i);
    this.i += isArray ? 2 : 1;
    const key = this.key();
    const close = isArray ? ']]' : ']';
    if (!this.text.startsWith(close, this.i)) throw new TomlError(`"${close}" expected to close the table header`, this.i);
    this.i += close.length;
    const path: Seg[] = [];
    key.forEach((seg, n) => {
      path.push(seg);
      const id = pathId(path, path.length);
      let count = arrays.get(id);
      if (isArray && n === key.length - 1) arrays.set(id, (count = (count ?? -1) + 1));
      if (count !== undefined) path.push({ ...seg, name: `\u0001${count}`, elem: true });
    });
    return path;
  }
}

function pathId(path: Seg[], n: number): string {
  let id = '';
  for (let i = 0; i < n; i++) id += (i ? '\0' : '') + path[i].name;
  return id;
}

/** The leaf of a message table's members (`owner` its path): undefined when it has no text, or is an array element with no `id`. */
function messageLeaf(owner: Seg[], members: Assignment[]): Leaf | undefined {
  const forms: Array<{ form: string; str: Str }> = [];
  let id: Str | undefined;
  for (const a of members) {
    if (!a.str) continue;
    const [name, form, deeper] = a.path.slice(owner.length).map((s) => s.name);
    if (deeper !== undefined) continue;
    if (name === 'id' && form === undefined) id = a.str;
    else if (form === undefined ? FORMS.has(name) || name === 'translation' : name === 'translation' && FORMS.has(form)) forms.push({ form: form ?? name, str: a.str });
  }
  const main = forms.find((f) => f.form === 'other') ?? forms[0];
  if (!main || (!id && owner.some((s) => s.elem))) return undefined;
  const last = owner[owner.length - 1];
  const also = [...new Set(forms.map((f) => f.str.value))].filter((v) => v && v !== main.str.value);
  return {
    path: id ? id.value : owner.map((s) => s.name).join('.'),
    value: main.str.value,
    vs: main.str.s,
    ve: main.str.e,
    ks: id ? id.s : last.from,
    ke: id ? id.e : last.e,
    ...(also.length ? { also } : {}),
  };
}

/** The messages of the assignments, in file order: plain strings, and message tables (see the module comment). */
function leavesOf(assignments: Assignment[]): Leaf[] {
  const members = new Map<string, Set<string>>();
  for (const a of assignments) {
    for (let d = 1; d < a.path.length; d++) {
      const id = pathId(a.path, d);
      const set = members.get(id) ?? new Set();
      members.set(id, set.add(a.path[d].name));
    }
  }
  // once per table: `[[i18n]]`'s table has a member per element, and asking again for each of
  // their assignments made a file of 20,000 elements take seconds
  const known = new Map<string, boolean>();
  const isMessage = (id: string) => {
    let yes = known.get(id);
    if (yes === undefined) {
      const names = [...(members.get(id) ?? [])];
      yes = names.every((n) => MESSAGE_MEMBERS.has(n)) && names.some((n) => FORMS.has(n) || n === 'translation');
      known.set(id, yes);
    }
    return yes;
  };
  const messages = new Map<string, { owner: Seg[]; members: Assignment[] }>();
  const order: Array<Leaf | { owner: Seg[]; members: Assignment[] }> = [];
  for (const a of assignments) {
    let d = 1;
    while (d < a.path.length && !isMessage(pathId(a.path, d))) d++;
    if (d < a.path.length) {
      const id = pathId(a.path, d);
      const m = messages.get(id);
      if (m) m.members.push(a);
      else {
        const added = { owner: a.path.slice(0, d), members: [a] };
        messages.set(id, added);
        order.push(added);
      }
    } else if (a.str && !a.path.some((s) => s.elem)) {
      const last = a.path[a.path.length - 1];
      order.push({ path: a.path.map((s) => s.name).join('.'), value: a.str.value, vs: a.str.s, ve: a.str.e, ks: last.from, ke: last.e });
    }
  }
  return order.flatMap((o) => ('owner' in o ? (messageLeaf(o.owner, o.members) ?? []) : [o]));
}

/** The messages of a TOML text, its problems, or the error that keeps it from being read at all. */
export function parseToml(rel: string, text: string, src = new SourceText(text)): { leaves: Leaf[]; problems: I18nProblem[]; fatal?: { line: number; message: string } } {
  const r = new Reader(text);
  const problems: I18nProblem[] = [];
  const assignments: Assignment[] = [];
  const arrays = new Map<string, number>();
  /** The current table's path; undefined after a broken header, until the next one. */
  let table: Seg[] | undefined = [];
  while (r.i < text.length) {
    r.blanks();
    const start = r.i;
    const c = text[start];
    if (c === undefined) break;
    r.badEscape = undefined;
    try {
      if (c === '[') {
        table = undefined;
        const header = r.header(arrays);
        r.eol();
        table = header;
      } else if (c === '#' || c === '\n' || c === '\r') r.eol();
      else {
        const key = r.key();
        if (text[r.i] !== '=') throw new TomlError('"=" expected after the key', r.i);
        r.i++;
        r.blanks();
        const found: Assignment[] = [];
        r.value([...(table ?? []), ...key], found);
        r.eol();
        if (table) assignments.push(...found);
      }
      // set by string(): the narrowing of `r.badEscape = undefined` above does not see that
      const bad = r.badEscape as TomlError | undefined;
      if (bad) {
        const line = src.position(bad.at).line;
        problems.push({ kind: 'malformed', file: rel, line, message: `TOML: ${bad.message} at line ${line}: kept as written` });
      }
    } catch (err) {
      if (!(err instanceof TomlError)) throw err;
      const line = src.position(err.at).line;
      if (err.unbounded || /[\r\n]/.test(text.slice(start, err.at))) return { leaves: [], problems, fatal: { line, message: err.message } };
      problems.push({ kind: 'malformed', file: rel, line, message: `TOML syntax error at line ${line}: ${err.message}; ${c === '[' ? 'the keys under that header are' : 'that line is'} skipped` });
      let next = err.at;
      while (next < text.length && text[next] !== '\n' && text[next] !== '\r') next++;
      r.i = next;
    }
  }
  return { leaves: leavesOf(assignments), problems };
}

export const tomlFormat: LocaleFormat = {
  name: 'TOML',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    if (!EXT.test(rel)) return false;
    if (ctx.matchesGlobs) return ctx.matchesGlobs(rel);
    return tomlLocale(rel, false) !== undefined;
  },
  read(rel, text, ctx) {
    const locale = tomlLocale(rel, !!ctx.matchesGlobs);
    if (!locale) return undefined;
    const src = new SourceText(text);
    const { leaves, problems, fatal } = parseToml(rel, text, src);
    if (fatal) return unreadable(rel, text, 'malformed', `TOML does not parse (${fatal.message} at line ${fatal.line}): not read`, fatal.line);
    if (!leaves.length && !problems.length) return undefined;
    return { file: rel, lines: src, entries: buildEntries(leaves, locale, undefined, src, rel, problems), problems };
  },
};
