/**
 * Locale files: which files hold messages, for which locale and namespace, and every string
 * leaf in them with the exact range of its key and value.
 *
 * Identification (a path alone):
 *   `en.json`, `fr-CA.json`, `zh_Hans.json`      locale from the name;
 *   `core_fr.json`, `messages.de.json`           a prefix, then the locale (no namespace);
 *   `locales/de/common.json`                     locale from the folder, namespace `common`
 *                                                (`locales/de/admin/users.json` → `admin/users`,
 *                                                `locales/de/index.json` → no namespace).
 * Locale codes are checked against ISO 639-1 (+ region/script variants, json-classify.ts's
 * list), so `common.json` or `lib/es/x.json`-style folders are not locales unless the content
 * is a dictionary too: discovery also asks the JSON classifier for `i18n`. With `localeGlobs`,
 * a file matching a glob is a locale file, whatever its shape.
 *
 * Docusaurus' `locales/base/<plugin>.json` (the English source, with `"<key>___DESCRIPTION"`
 * translator notes) is locale `en` (see `identifyLocale`).
 *
 * Parsing: jsonc-parser's `parseTree` (comments and trailing commas allowed); nested and flat
 * dotted keys give the same dotted key; string leaves of arrays are `a.0`, `a.1`. Docusaurus'
 * `___DESCRIPTION` entries are no keys; a file of message objects (`{"k": {"message": "…",
 * "description": "…"}}`, see `messageObjects`) has `k` as key and the text as value. A file that
 * does not parse is reported (`malformed`) and skipped whole; a key defined twice in one file
 * (JSON duplicate keys, or `"a.b"` next to `a: {b}`) is reported (`duplicate`) and the last one
 * wins, as `JSON.parse` does.
 *
 * JS/TS locale modules (`src/locale/lang/es.js`, `i18n/fr.ts`): inside an i18n folder only, the
 * object literal of `export default`, `module.exports =` or an exported top-level const, when
 * most of its members are strings.
 *
 * Vue SFC `<i18n>` blocks: JSON/JSON5/JSONC content; top-level keys are locales, or the whole
 * block is one locale with `<i18n locale="fr">`. YAML blocks (`lang="yaml"`) are read as YAML
 * (formats/yaml.ts), JSON5 beyond JSONC through formats/json5.ts. `<i18n src="…">` is reported
 * (`unsupported`) and skipped.
 */
import type * as t from '@babel/types';
import { parse as parseSfc, type SFCBlock } from '@vue/compiler-sfc';
import * as jsonc from 'jsonc-parser';
import { classifyJson, classifyJsonPath, isLocaleName } from '../parse/json-classify';
import { MAX_JSON_DEPTH, scanDepth } from '../parse/json-tree';
import { SourceText } from '../parse/source-text';
import { chromeFormat } from './formats/chrome';
import { JSON_FILE } from './formats/index';
import { json5Leaves } from './formats/json5';
import { yamlLeaves } from './formats/yaml';
import { canonicalLocale, identifyStem, inI18nDir, type LocaleIdentity } from './locale-code';
import type { I18nProblem, Leaf, LocaleEntry, LocaleFile, LocaleValue, ScriptLocale } from './types';
import { parseScriptAst } from './script-usages';

export { canonicalLocale, isLocaleCode, type LocaleIdentity } from './locale-code';
export { formatOf, readLocaleFormat } from './formats/index';

/** A thread's reading of a locale module, back with its line table. */
export function withLines(read: ScriptLocale, text: string): LocaleFile | undefined {
  return read ? { ...read, lines: new SourceText(text) } : undefined;
}

/** An entry with its exact positions, as lookups return it. */
export function toLocaleValue(e: LocaleEntry, lines: SourceText): LocaleValue {
  return {
    locale: e.locale,
    file: e.file,
    value: e.value,
    range: { start: lines.position(e.vs), end: lines.position(e.ve) },
    keyRange: { start: lines.position(e.ks), end: lines.position(e.ke) },
  };
}

const LOCALE_EXT = JSON_FILE;

/**
 * The locale (and namespace) a path names, or undefined. Does not look at the content, except
 * that a `base` folder's file (below) is confirmed by `readLocaleJson`.
 *
 * Docusaurus (`@docusaurus/theme-translations`, and sites laid out like it) keeps the English
 * source of `locales/<lang>/<plugin>.json` in `locales/base/<plugin>.json`: locale `en`,
 * namespace the plugin, when its folder is an i18n folder's `base` and (readLocaleJson) it holds
 * translator notes `"<key>___DESCRIPTION"`. A project with both `base/` and `en/` has two English
 * sources; Docusaurus' own packages have no `en/`.
 */
export function identifyLocale(rel: string): LocaleIdentity | undefined {
  const parts = rel.split('/');
  const name = parts.pop() ?? '';
  if (!LOCALE_EXT.test(name)) return undefined;
  const stem = name.replace(LOCALE_EXT, '');
  const id = identifyStem(parts, stem);
  if (id) return id;
  const n = parts.length;
  if (n >= 2 && parts[n - 1] === 'base' && I18N_DIRS.has(parts[n - 2].toLowerCase())) return { locale: 'en', namespace: stem, from: 'folder', base: true };
  return undefined;
}

/** Docusaurus' translator notes (`"theme.x___DESCRIPTION": "The label of …"`): not a translation, not a key. */
export const DESCRIPTION_SUFFIX = '___DESCRIPTION';

const SCRIPT_EXT = /\.(?:[cm]?[jt]s)$/i;
const I18N_DIRS = new Set(['locales', 'locale', '_locales', 'i18n', 'l10n', 'lang', 'langs', 'language', 'languages', 'translations', 'translation', 'messages', 'intl', 'nls', 'dictionaries', 'dictionary']);

/**
 * A script that is a locale module (`src/locale/lang/es.js`, `i18n/fr.ts`,
 * `locales/de/common.js`): only inside an i18n folder (`locale/`, `lang/`, `i18n/` …), since a
 * folder like `es/` next to scripts is usually a build format, not Spanish.
 */
export function identifyLocaleScript(rel: string): LocaleIdentity | undefined {
  if (!SCRIPT_EXT.test(rel) || /\.d\.[cm]?ts$/i.test(rel)) return undefined;
  const dirs = rel.split('/').slice(0, -1).map((d) => d.toLowerCase());
  if (!dirs.some((d) => I18N_DIRS.has(d))) return undefined;
  return identifyLocale(rel.replace(SCRIPT_EXT, '.json'));
}

const MAX_DEPTH = 64;

/** A node's text range; a string node spans its quotes, the range is what is inside them. */
function rangeOf(node: jsonc.Node, base: number): [number, number] {
  const inner = node.type === 'string' && node.length >= 2 ? 1 : 0;
  return [base + node.offset + inner, base + node.offset + node.length - inner];
}

const isTree = (type: string | undefined) => type === 'object' || type === 'array' || type === 'ObjectExpression' || type === 'ArrayExpression';

/**
 * Members of one object whose key comes again later, when one of the two is an object or array:
 * member index → the index of the last member with that key. By JSON's (and JavaScript's)
 * last-one-wins rule the earlier value is replaced whole, so `{"d": {"a": "x"}, "d": "flat"}`
 * has no `d.a`. (Two strings under one key are left to the per-path check, which says both values.)
 */
function shadowedMembers(members: Array<{ key: string | undefined; subtree: boolean; at: number }>): Map<number, number> {
  const last = new Map<string, number>();
  members.forEach((m, i) => {
    if (m.key !== undefined) last.set(m.key, i);
  });
  const out = new Map<number, number>();
  members.forEach((m, i) => {
    if (m.key === undefined) return;
    const j = last.get(m.key)!;
    if (j !== i && (m.subtree || members[j].subtree)) out.set(i, j);
  });
  return out;
}

/** Every string leaf under `root` (an object), keys joined with `.`; depth-limited, iterative. */
function leaves(root: jsonc.Node, problems: I18nProblem[], file: string, lineOf: (off: number) => number): Leaf[] {
  const out: Leaf[] = [];
  const stack: Array<{ node: jsonc.Node; prefix: string; depth: number; keyNode?: jsonc.Node }> = [{ node: root, prefix: '', depth: 0 }];
  let deep = false;
  while (stack.length) {
    const { node, prefix, depth, keyNode } = stack.pop()!;
    if (node.type === 'string') {
      if (keyNode) {
        const [vs, ve] = rangeOf(node, 0);
        const [ks, ke] = rangeOf(keyNode, 0);
        out.push({ path: prefix, value: String(node.value), vs, ve, ks, ke });
      }
      continue;
    }
    if (node.type !== 'object' && node.type !== 'array') continue;
    if (depth >= MAX_DEPTH) {
      if (!deep) problems.push({ kind: 'unsupported', file, line: lineOf(node.offset), message: `nesting deeper than ${MAX_DEPTH} levels is skipped` });
      deep = true;
      continue;
    }
    const kids = node.children ?? [];
    const shadowed = node.type === 'object' ? shadowedMembers(kids.map((c) => ({ key: c.children?.[0] ? String(c.children[0].value) : undefined, subtree: isTree(c.children?.[1]?.type), at: c.offset }))) : undefined;
    for (let i = kids.length - 1; i >= 0; i--) {
      const c = kids[i];
      if (node.type === 'object') {
        const k = c.children?.[0];
        const v = c.children?.[1];
        if (!k || !v) continue;
        const seg = String(k.value);
        const later = shadowed?.get(i);
        if (later !== undefined) {
          // JSON's last-one-wins replaces the whole earlier value: its keys are gone
          const at = prefix ? `${prefix}.${seg}` : seg;
          problems.push({ kind: 'duplicate', file, line: lineOf(kids[later].offset), message: `key "${at}" is defined twice (lines ${lineOf(c.offset)} and ${lineOf(kids[later].offset)}); the last one wins, so the keys under the first one are gone` });
          continue;
        }
        stack.push({ node: v, prefix: prefix ? `${prefix}.${seg}` : seg, depth: depth + 1, keyNode: k });
      } else {
        // array elements: `a.0`; the key range is the element's own
        stack.push({ node: c, prefix: `${prefix}.${i}`, depth: depth + 1, keyNode: c });
      }
    }
  }
  return out;
}

/** Leaves → entries, a key defined twice reported once (the last wins). */
function toEntries(ls: Leaf[], locale: string, namespace: string | undefined, src: SourceText, base: number, file: string, problems: I18nProblem[]): LocaleEntry[] {
  const byPath = new Map<string, number>();
  const out: LocaleEntry[] = [];
  for (const l of ls) {
    if (l.path.endsWith(DESCRIPTION_SUFFIX)) continue;
    const e: LocaleEntry = { locale, file, value: l.value, namespace, path: l.path, vs: base + l.vs, ve: base + l.ve, ks: base + l.ks, ke: base + l.ke };
    const prev = byPath.get(l.path);
    if (prev !== undefined) {
      const p = out[prev];
      const pl = src.position(p.ks).line;
      const el = src.position(e.ks).line;
      problems.push({
        kind: 'duplicate',
        file,
        line: el,
        message: `key "${l.path}" is defined twice${locale ? ` for ${locale}` : ''} (lines ${pl} and ${el}${p.value === e.value ? ', same value' : `: "${p.value}" and "${e.value}"`}); the last one wins`,
      });
      out[prev] = e;
    } else {
      byPath.set(l.path, out.length);
      out.push(e);
    }
  }
  return out;
}

/** Leaves that each carry their locale (a multi-locale block) → entries, per locale. */
function toEntriesByLocale(ls: Leaf[], fallback: string, src: SourceText, file: string, problems: I18nProblem[]): LocaleEntry[] {
  const by = new Map<string, Leaf[]>();
  for (const l of ls) {
    const loc = l.locale ?? fallback;
    const list = by.get(loc);
    if (list) list.push(l);
    else by.set(loc, [l]);
  }
  return [...by].flatMap(([loc, list]) => toEntries(list, loc, undefined, src, 0, file, problems));
}

interface Scan {
  error?: { offset: number; message: string };
  isObject: boolean;
  leaves: Leaf[];
  /** Leaf values of any type, and those that are strings (the dictionary shape). */
  total: number;
  strings: number;
  topKeys: Set<string>;
  tooDeep?: number;
  /** Keys given twice in one object whose earlier value was dropped (last one wins). */
  shadowed?: Array<{ path: string; ks: number; laterKs: number; lost: number }>;
}

/** An open object or array of `scanLeaves`' walk. */
interface Frame {
  isArray: boolean;
  index: number;
  prefix: string;
  key: string;
  ks: number;
  ke: number;
  /** Members seen in this object: key → the range of leaves they produced, and the key's offset. */
  members?: Map<string, { start: number; end: number; ks: number }>;
  cur?: { key: string; start: number; ks: number };
}

/** A key given twice in one object: the leaves of its earlier and of its later value. */
interface Dup {
  path: string;
  earlier: { start: number; end: number; ks: number };
  later: { start: number; ks: number };
  laterEnd: number;
}

/**
 * Every string leaf of a JSON text in one pass of jsonc-parser's visitor — no parse tree: a
 * 50,000-key locale file would otherwise make millions of short-lived nodes.
 */
function scanLeaves(text: string): Scan {
  const walk = new LeafWalk(text);
  jsonc.visit(text, walk.visitor(), { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  walk.closeOpen();
  dropShadowed(walk.scan, walk.dups);
  return walk.scan;
}

/** `scanLeaves`' visitor: the open objects and arrays, the leaves found, the keys given twice. */
class LeafWalk {
  readonly scan: Scan = { isObject: false, leaves: [], total: 0, strings: 0, topKeys: new Set() };
  // JSON's last-one-wins: a key given twice in one object keeps only the later value, the whole
  // earlier one (its leaves) is dropped — `{"d": {"a": "x"}, "d": "flat"}` has no `d.a`
  readonly dups: Dup[] = [];
  private readonly stack: Frame[] = [];

  constructor(private readonly text: string) {}

  /** The callbacks for jsonc-parser (none returns false: that would skip an object's content). */
  visitor(): jsonc.JSONVisitor {
    return {
      onObjectBegin: (off, len) => this.begin(false, off, len),
      onArrayBegin: (off, len) => this.begin(true, off, len),
      onObjectEnd: () => {
        const f = this.stack.pop();
        if (f) this.closeMember(f);
      },
      onArrayEnd: () => void this.stack.pop(),
      onObjectProperty: (property, off, len) => this.property(property, off, len),
      onLiteralValue: (value: unknown, off, len) => this.literal(value, off, len),
      onError: (error, off) => {
        this.scan.error ??= { offset: off, message: jsonc.printParseErrorCode(error) };
      },
    };
  }

  /** A truncated file: its open members end here. */
  closeOpen(): void {
    for (const f of this.stack) this.closeMember(f);
  }

  /** The member being read in `f` ends: the range of leaves it produced is recorded (and closes a duplicate's later value). */
  private closeMember(f: Frame): void {
    if (!f.cur) return;
    const m = { start: f.cur.start, end: this.scan.leaves.length, ks: f.cur.ks };
    const open = this.dups.find((d) => d.laterEnd < 0 && d.later.start === f.cur!.start && d.later.ks === f.cur!.ks);
    if (open) open.laterEnd = m.end;
    (f.members ??= new Map()).set(f.cur.key, m);
    f.cur = undefined;
  }

  /** The path and key range of a value starting at [off, off+len) in the current frame. */
  private child(off: number, len: number): { path: string; ks: number; ke: number } | undefined {
    const f = this.stack[this.stack.length - 1];
    if (!f) return undefined;
    if (f.isArray) {
      const seg = String(f.index++);
      return { path: f.prefix ? `${f.prefix}.${seg}` : seg, ks: off, ke: off + len };
    }
    return { path: f.prefix ? `${f.prefix}.${f.key}` : f.key, ks: f.ks, ke: f.ke };
  }

  private begin(isArray: boolean, off: number, len: number): void {
    if (!this.stack.length && !isArray && this.scan.total === 0) this.scan.isObject = true;
    const c = this.child(off, len);
    if (this.stack.length >= MAX_DEPTH && this.scan.tooDeep === undefined) this.scan.tooDeep = off;
    this.stack.push({ isArray, index: 0, prefix: c?.path ?? '', key: '', ks: 0, ke: 0 });
  }

  private property(property: string, off: number, len: number): void {
    const f = this.stack[this.stack.length - 1];
    this.closeMember(f);
    f.key = property;
    const quoted = this.text.charCodeAt(off) === 34;
    f.ks = quoted ? off + 1 : off;
    f.ke = quoted ? off + len - 1 : off + len;
    const earlier = f.members?.get(property);
    if (earlier) this.dups.push({ path: f.prefix ? `${f.prefix}.${property}` : property, earlier, later: { start: this.scan.leaves.length, ks: f.ks }, laterEnd: -1 });
    f.cur = { key: property, start: this.scan.leaves.length, ks: f.ks };
    if (this.stack.length === 1 && this.scan.topKeys.size < 64) this.scan.topKeys.add(property);
  }

  private literal(value: unknown, off: number, len: number): void {
    const c = this.child(off, len);
    this.scan.total++;
    if (typeof value !== 'string') return;
    this.scan.strings++;
    // an array element's "key" is the element itself
    const inArray = this.stack[this.stack.length - 1]?.isArray;
    if (c && this.stack.length <= MAX_DEPTH) this.scan.leaves.push({ path: c.path, value, vs: off + 1, ve: off + len - 1, ks: inArray ? off + 1 : c.ks, ke: inArray ? off + len - 1 : c.ke });
  }
}

/** The leaves of the earlier value of a key given twice are dropped (last one wins) and said in `scan.shadowed`. */
function dropShadowed(scan: Scan, dups: Dup[]): void {
  const drop = new Set<number>();
  for (const d of dups) {
    const laterEnd = d.laterEnd < 0 ? scan.leaves.length : d.laterEnd;
    const single = (a: number, b: number) => b - a === 1 && scan.leaves[a].path === d.path;
    // two strings under one key: the per-path check reports both values; keep that
    if (single(d.earlier.start, d.earlier.end) && single(d.later.start, laterEnd)) continue;
    if (d.earlier.end === d.earlier.start) continue; // nothing of the earlier value is lost
    for (let i = d.earlier.start; i < d.earlier.end; i++) drop.add(i);
    (scan.shadowed ??= []).push({ path: d.path, ks: d.earlier.ks, laterKs: d.later.ks, lost: d.earlier.end - d.earlier.start });
  }
  if (drop.size) scan.leaves = scan.leaves.filter((_, i) => !drop.has(i));
}

/** Fields of a message object that hold its text, and those that hold notes for translators. */
const MESSAGE_FIELDS = new Set(['message', 'defaultMessage', 'string', 'translation']);
const NOTE_FIELDS = new Set(['description', 'developer_comment', 'notes', 'context']);

/**
 * A file of message objects — `{"theme.x": {"message": "Copy", "description": "…"}}` (a
 * Docusaurus site's `i18n/<lang>/code.json`, FormatJS' extracted and Crowdin/Smartling/Transifex
 * formats: `defaultMessage`, `string` next to `description`, `developer_comment`): each key's
 * value is its text field, its notes are no values. Only when every leaf is such a field of an
 * object and there are at least two messages. The key range is the object's own key when the
 * text is its first field (else the text field's name). Else undefined (the leaves as they are).
 */
function messageObjects(ls: Leaf[], text: string): Leaf[] | undefined {
  const out: Leaf[] = [];
  for (const l of ls) {
    const dot = l.path.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const field = l.path.slice(dot + 1);
    if (NOTE_FIELDS.has(field)) continue;
    if (!MESSAGE_FIELDS.has(field)) return undefined;
    const key = l.path.slice(0, dot);
    // the object's key just before its first field: looked for in a short window only (a key
    // written with escapes is not found, and no search runs back through a large file)
    const quoted = JSON.stringify(key);
    const from = Math.max(0, l.ks - quoted.length - 256);
    const rel = text.slice(from, l.ks).lastIndexOf(quoted);
    const at = rel < 0 ? -1 : from + rel;
    const own = at >= 0 && /^\s*:\s*\{[^"]*"?$/.test(text.slice(at + quoted.length, l.ks));
    out.push({ ...l, path: key, ks: own ? at + 1 : l.ks, ke: own ? at + quoted.length - 1 : l.ke });
  }
  return out.length >= 2 && new Set(out.map((l) => l.path)).size === out.length ? out : undefined;
}

/** The classifier's rule for a locale-named file: a dictionary of mostly strings, no schema. */
function dictionaryShape(scan: Scan): boolean {
  const schemaish = scan.topKeys.has('$schema') || scan.topKeys.has('properties') || scan.topKeys.has('definitions');
  return scan.total > 0 && scan.strings / scan.total >= 0.6 && !schemaish;
}

/** Files up to this size are classified with the JSON chunker's classifier on a full tree; larger ones by their scanned shape. */
const CLASSIFY_TREE_MAX = 256 * 1024;

function parseJson(text: string): { root: jsonc.Node | undefined; error?: { offset: number; message: string } } {
  const errors: jsonc.ParseError[] = [];
  const root = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length) return { root, error: { offset: errors[0].offset, message: jsonc.printParseErrorCode(errors[0].error) } };
  return { root };
}

export interface DiscoverOptions {
  /** When set, the locale file test: true for files that match the user's globs. */
  matchesGlobs?: (rel: string) => boolean;
}

/**
 * The locale messages of one JSON file, or undefined when it is not a locale file. A file that
 * is a locale file by its path but does not parse comes back with a `malformed` problem and no
 * entries.
 */
export function readLocaleJson(rel: string, text: string, opts: DiscoverOptions = {}): LocaleFile | undefined {
  if (!LOCALE_EXT.test(rel)) return undefined;
  const globbed = opts.matchesGlobs ? opts.matchesGlobs(rel) : undefined;
  if (globbed === false) return undefined;
  // WebExtension `_locales/<locale>/messages.json`: a message's key is its name, its value its `message`
  if (chromeFormat.claims(rel, opts)) return chromeFormat.read(rel, text, opts);
  const id = identifyLocale(rel);
  if (!globbed) {
    if (!id) return undefined;
    // `locales/base/x.json` is Docusaurus' English source only with its translator notes
    if (id.base && !text.includes(`${DESCRIPTION_SUFFIX}"`)) return undefined;
    const byPath = classifyJsonPath(rel);
    // `locales/en/settings.json` is an i18next namespace, not a settings file
    if (byPath === 'manifest' || (byPath === 'config' && !(id?.from === 'folder' && inI18nDir(rel)))) return undefined;
  }
  const problems: I18nProblem[] = [];
  const src = new SourceText(text);
  if (!id) {
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'unknown-locale', file: rel, message: 'matches the locale globs, but no locale code is in its name or folders: skipped' }] };
  }
  // jsonc-parser recurses: a nesting that would overflow it is refused before parsing
  if (scanDepth(text, 0, text.length, MAX_JSON_DEPTH).maxDepth > MAX_JSON_DEPTH) {
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'unsupported', file: rel, message: `nesting deeper than ${MAX_JSON_DEPTH} levels: skipped` }] };
  }
  const scan = scanLeaves(text);
  if (scan.error && /\.json5$/i.test(rel)) {
    // JSON5 beyond comments and trailing commas (unquoted keys, single quotes): read as an expression
    const j5 = json5Leaves(text);
    if (!j5.error && j5.isObject) return { file: rel, lines: src, entries: toEntries(j5.leaves, id.locale, id.namespace, src, 0, rel, problems), problems };
    if (j5.error) scan.error = j5.error;
  }
  if (scan.error) {
    const line = src.position(scan.error.offset).line;
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'malformed', file: rel, line, message: `does not parse (${scan.error.message} at line ${line}): skipped` }] };
  }
  if (!scan.isObject) {
    if (!globbed) return undefined;
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'malformed', file: rel, message: 'is not a JSON object: skipped' }] };
  }
  if (!globbed) {
    if (text.length <= CLASSIFY_TREE_MAX) {
      const cls = classifyJson(rel, jsonc.parseTree(text, [], { allowTrailingComma: true, disallowComments: false }));
      // the classifier knows `en`, `pt-BR`, `zh_Hant_TW`; a BCP-47 name beyond those (`ca-valencia`) is judged by its shape below
      // and an i18next namespace under a locale folder of an i18n folder (`locales/de/settings.json`) by its shape too
      const byShape = id.from === 'folder' ? inI18nDir(rel) : !isLocaleName(rel.slice(rel.lastIndexOf('/') + 1).replace(LOCALE_EXT, ''));
      if (cls !== 'i18n' && (!byShape || !dictionaryShape(scan))) return undefined;
    } else {
      // the classifier's rule for a locale-named file: a dictionary of mostly strings, no schema
      if (!dictionaryShape(scan)) return undefined;
    }
  }
  if (scan.tooDeep !== undefined) problems.push({ kind: 'unsupported', file: rel, line: src.position(scan.tooDeep).line, message: `nesting deeper than ${MAX_DEPTH} levels is skipped` });
  for (const d of scan.shadowed ?? []) {
    const l1 = src.position(d.ks).line;
    const l2 = src.position(d.laterKs).line;
    problems.push({ kind: 'duplicate', file: rel, line: l2, message: `key "${d.path}" is defined twice (lines ${l1} and ${l2}); the last one wins, so the ${d.lost} value(s) under the first one are gone` });
  }
  return { file: rel, lines: src, entries: toEntries(messageObjects(scan.leaves, text) ?? scan.leaves, id.locale, id.namespace, src, 0, rel, problems), problems };
}

/** The object literal a locale module exports: `export default {…}`, `module.exports = {…}`, or a top-level const exported by name. */
function exportedObject(ast: t.File): t.ObjectExpression | undefined {
  const consts = new Map<string, t.Node>();
  let exported: t.Node | undefined;
  for (const st of ast.program.body) {
    const decl = st.type === 'ExportNamedDeclaration' && st.declaration?.type === 'VariableDeclaration' ? st.declaration : st;
    if (decl.type === 'VariableDeclaration') {
      // `const en = {…}` or `export const en = {…}`, then `export default en`
      for (const d of decl.declarations) if (d.id.type === 'Identifier' && d.init) consts.set(d.id.name, d.init);
    } else if (st.type === 'ExportDefaultDeclaration') exported = st.declaration;
    else if (st.type === 'ExportNamedDeclaration' && !st.source) {
      // a bundler's output (element-plus `es/locale/lang/en.mjs`): `var English = {…}; export { English as default };`
      for (const sp of st.specifiers) {
        if (sp.type === 'ExportSpecifier' && (sp.exported.type === 'Identifier' ? sp.exported.name : sp.exported.value) === 'default') exported = sp.local;
      }
    } else if (st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression') {
      // module.exports = …, and the CommonJS build's exports.default / exports["default"] / module.exports.default = …
      const l = st.expression.left;
      if (l.type !== 'MemberExpression') continue;
      const name = (n: t.Node, computed: boolean): string | undefined => (!computed && n.type === 'Identifier' ? n.name : n.type === 'StringLiteral' ? n.value : undefined);
      const prop = name(l.property, l.computed);
      const isModuleExports = (n: t.Node) => n.type === 'MemberExpression' && n.object.type === 'Identifier' && n.object.name === 'module' && name(n.property, n.computed) === 'exports';
      if (l.object.type === 'Identifier' && l.object.name === 'module' && prop === 'exports') exported = st.expression.right;
      else if (prop === 'default' && ((l.object.type === 'Identifier' && l.object.name === 'exports') || isModuleExports(l.object))) exported = st.expression.right;
    }
  }
  let n: t.Node | undefined = exported;
  for (let i = 0; i < 3 && n; i++) {
    if (n.type === 'TSAsExpression' || n.type === 'TSSatisfiesExpression') n = n.expression;
    else if (n.type === 'Identifier') n = consts.get(n.name);
    else break;
  }
  return n?.type === 'ObjectExpression' ? n : undefined;
}

/** The messages of a locale module (JS/TS exporting an object of strings), or undefined. */
export function readLocaleScript(rel: string, text: string, globbed = false): LocaleFile | undefined {
  const id = globbed ? identifyLocale(rel.replace(SCRIPT_EXT, '.json')) : identifyLocaleScript(rel);
  if (!id) return undefined;
  const ast = parseScriptAst(text, /ts$/i.test(rel), false);
  const obj = ast && exportedObject(ast);
  if (!obj) return undefined;
  const src = new SourceText(text);
  const problems: I18nProblem[] = [];
  const { leaves, others, spreads } = moduleLeaves(obj, src, rel, problems);
  // a module of messages is mostly strings (functions and imports are not messages; a spread is
  // another object's messages, said below)
  if (!leaves.length || leaves.length < (leaves.length + others) * 0.6) return undefined;
  for (const sp of spreads.sort((a, b) => a.start! - b.start!)) {
    const line = src.position(sp.start!).line;
    problems.push({ kind: 'unsupported', file: rel, line, message: `"${text.slice(sp.start!, Math.min(sp.end!, sp.start! + 60))}" spreads in another object: its messages are not read from this file (only its own members are)` });
  }
  leaves.sort((a, b) => a.vs - b.vs);
  return { file: rel, lines: src, entries: moduleEntries(leaves, id, rel, src, problems), problems };
}

/** A value of a locale module's object still to read, under its key path (`prefix`) and key range. */
interface ModuleItem {
  node: t.Node;
  prefix: string;
  depth: number;
  ks: number;
  ke: number;
}

/** What `moduleLeaves` finds: the string leaves, how many values are something else, the spreads (`{ ...en }`). */
interface ModuleWalk {
  leaves: Leaf[];
  others: number;
  spreads: t.SpreadElement[];
  stack: ModuleItem[];
}

/** Every string leaf of a locale module's object (depth-limited, iterative); a key given twice over an object is reported in `problems`. */
function moduleLeaves(obj: t.ObjectExpression, src: SourceText, rel: string, problems: I18nProblem[]): ModuleWalk {
  const w: ModuleWalk = { leaves: [], others: 0, spreads: [], stack: [{ node: obj, prefix: '', depth: 0, ks: 0, ke: 0 }] };
  while (w.stack.length) {
    const { node, prefix, depth, ks, ke } = w.stack.pop()!;
    if (node.type === 'StringLiteral' || (node.type === 'TemplateLiteral' && node.expressions.length === 0)) {
      const value = node.type === 'StringLiteral' ? node.value : (node.quasis[0]?.value.cooked ?? '');
      if (prefix) w.leaves.push({ path: prefix, value, vs: node.start! + 1, ve: node.end! - 1, ks, ke });
      continue;
    }
    if (depth >= MAX_DEPTH) continue;
    if (node.type === 'ObjectExpression') moduleMembers(w, node, prefix, depth, src, rel, problems);
    else if (node.type === 'ArrayExpression') {
      node.elements.forEach((el, i) => {
        if (el) w.stack.push({ node: el, prefix: `${prefix}.${i}`, depth: depth + 1, ks: el.start!, ke: el.end! });
      });
    } else w.others++;
  }
  return w;
}

/** A member's key when it is a constant: `a`, `'a'`, `1`. */
function memberKey(p: t.ObjectExpression['properties'][number]): string | undefined {
  if (p.type !== 'ObjectProperty' || p.computed) return undefined;
  const k = p.key;
  return k.type === 'Identifier' ? k.name : k.type === 'StringLiteral' ? k.value : k.type === 'NumericLiteral' ? String(k.value) : undefined;
}

/** The members of one object of a locale module, onto the walk's stack (in source order when popped); a spread, a computed member, a shadowed key set aside. */
function moduleMembers(w: ModuleWalk, node: t.ObjectExpression, prefix: string, depth: number, src: SourceText, rel: string, problems: I18nProblem[]): void {
  const shadowed = shadowedMembers(node.properties.map((p) => ({ key: memberKey(p), subtree: p.type === 'ObjectProperty' && isTree(p.value.type), at: p.start! })));
  for (let i = node.properties.length - 1; i >= 0; i--) {
    const p = node.properties[i];
    if (p.type === 'SpreadElement') {
      // `{ ...en, hola: 'Hola' }`: the spread object's messages are its own file's; this one's are read
      w.spreads.push(p);
      continue;
    }
    if (p.type !== 'ObjectProperty' || p.computed) {
      w.others++;
      continue;
    }
    const k = p.key;
    const seg = memberKey(p);
    if (seg === undefined) continue;
    const later = shadowed.get(i);
    if (later !== undefined) {
      const at = prefix ? `${prefix}.${seg}` : seg;
      const l1 = src.position(p.start!).line;
      const l2 = src.position(node.properties[later].start!).line;
      problems.push({ kind: 'duplicate', file: rel, line: l2, message: `key "${at}" is defined twice (lines ${l1} and ${l2}); the last one wins, so the keys under the first one are gone` });
      continue;
    }
    const inner = k.type === 'StringLiteral' ? 1 : 0;
    w.stack.push({ node: p.value, prefix: prefix ? `${prefix}.${seg}` : seg, depth: depth + 1, ks: k.start! + inner, ke: k.end! - inner });
  }
}

/** A locale module's leaves (in source order) → entries, a key path given twice reported once (the last wins). */
function moduleEntries(leaves: Leaf[], id: LocaleIdentity, rel: string, src: SourceText, problems: I18nProblem[]): LocaleEntry[] {
  const byPath = new Map<string, number>();
  const entries: LocaleEntry[] = [];
  for (const l of leaves) {
    const e: LocaleEntry = { locale: id.locale, file: rel, value: l.value, namespace: id.namespace, path: l.path, vs: l.vs, ve: l.ve, ks: l.ks, ke: l.ke };
    const prev = byPath.get(l.path);
    if (prev !== undefined) {
      problems.push({ kind: 'duplicate', file: rel, line: src.position(l.ks).line, message: `key "${l.path}" is defined twice (lines ${src.position(entries[prev].ks).line} and ${src.position(l.ks).line}); the last one wins` });
      entries[prev] = e;
    } else {
      byPath.set(l.path, entries.length);
      entries.push(e);
    }
  }
  return entries;
}

/** The messages of a Vue SFC's `<i18n>` blocks (undefined when it has none). */
export function readSfcLocales(rel: string, text: string): LocaleFile | undefined {
  if (!/<i18n[\s>]/i.test(text)) return undefined;
  let descriptor;
  try {
    descriptor = parseSfc(text, { filename: rel, sourceMap: false, ignoreEmpty: false }).descriptor;
  } catch (err) {
    return { file: rel, lines: new SourceText(text), entries: [], problems: [{ kind: 'malformed', file: rel, message: `Vue SFC does not parse: ${(err as Error).message}` }], component: true };
  }
  const blocks = descriptor.customBlocks.filter((b) => b.type === 'i18n');
  if (!blocks.length) return undefined;
  const read: SfcRead = { rel, src: new SourceText(text), problems: [], entries: [] };
  for (const b of blocks) readI18nBlock(read, b);
  return { file: rel, lines: read.src, entries: read.entries, problems: read.problems, component: true };
}

/** What the `<i18n>` blocks of one SFC give: their entries, their problems. */
interface SfcRead {
  rel: string;
  src: SourceText;
  problems: I18nProblem[];
  entries: LocaleEntry[];
}

/** One `<i18n>` block: its text, its offset in the file, its first line, its `locale="…"`. */
interface I18nBlock {
  content: string;
  base: number;
  line: number;
  locale: string | undefined;
}

/** One `<i18n>` block, read by its `lang`: YAML, JSON5 (beyond JSONC), JSON/JSONC; `src="…"` and other languages are said and skipped. */
function readI18nBlock(read: SfcRead, b: SFCBlock): void {
  const line = b.loc.start.line;
  const lang = String(b.attrs.lang ?? 'json').toLowerCase();
  if (b.attrs.src) {
    read.problems.push({ kind: 'unsupported', file: read.rel, line, message: `<i18n src="${String(b.attrs.src)}"> is not followed: skipped` });
    return;
  }
  const block: I18nBlock = { content: b.content, base: b.loc.start.offset, line, locale: typeof b.attrs.locale === 'string' ? b.attrs.locale : undefined };
  if (lang === 'yaml' || lang === 'yml') return yamlBlock(read, block);
  if (lang !== 'json' && lang !== 'json5' && lang !== 'jsonc') {
    read.problems.push({ kind: 'unsupported', file: read.rel, line, message: `<i18n lang="${lang}"> is not supported (JSON, JSON5, JSONC, YAML): skipped` });
    return;
  }
  if (lang === 'json5' && parseJson(b.content).error) return json5Block(read, block);
  jsonBlock(read, block);
}

/** A `lang="yaml"` block: one locale (`locale="…"`), or top-level keys that are locales. */
function yamlBlock(read: SfcRead, { content, base, line, locale }: I18nBlock): void {
  const { rel, src, problems } = read;
  const y = yamlLeaves(content, base, !locale);
  if (y.error) {
    const at = src.position(base + y.error.offset).line;
    problems.push({ kind: 'malformed', file: rel, line: at, message: `<i18n lang="yaml"> block does not parse (${y.error.message} at line ${at}): skipped` });
    return;
  }
  if (!locale && !y.multiLocale) {
    problems.push({ kind: 'unsupported', file: rel, line, message: '<i18n lang="yaml"> block whose top-level keys are not locales (and no locale="…"): skipped' });
    return;
  }
  read.entries.push(...toEntriesByLocale(y.leaves, locale ? canonicalLocale(locale) : '', src, rel, problems));
}

/** A `lang="json5"` block that is no JSONC (unquoted keys, single quotes): one locale, or top-level keys that are locales. */
function json5Block(read: SfcRead, { content, base, locale }: I18nBlock): void {
  const { rel, src, problems } = read;
  const j5 = json5Leaves(content, base);
  if (j5.error || !j5.isObject) {
    const at = src.position(base + (j5.error?.offset ?? 0)).line;
    problems.push({ kind: 'malformed', file: rel, line: at, message: `<i18n lang="json5"> block does not parse${j5.error ? ` (${j5.error.message} at line ${at})` : ': not an object'}: skipped` });
    return;
  }
  if (locale) {
    read.entries.push(...toEntries(j5.leaves, canonicalLocale(locale), undefined, src, 0, rel, problems));
    return;
  }
  // top-level keys are locales: `en.greeting` → locale en, key greeting
  const byLocale = j5.leaves.map((l) => {
    const dot = l.path.indexOf('.');
    return { ...l, locale: canonicalLocale(l.path.slice(0, dot)), path: l.path.slice(dot + 1) };
  });
  read.entries.push(...toEntriesByLocale(byLocale.filter((l) => l.path), '', src, rel, problems));
}

/** A JSON (or JSONC) block: one locale (`locale="…"`), or top-level keys that are locales, each an object. */
function jsonBlock(read: SfcRead, { content, base, line, locale }: I18nBlock): void {
  const { rel, src, problems } = read;
  if (scanDepth(content, 0, content.length, MAX_JSON_DEPTH).maxDepth > MAX_JSON_DEPTH) {
    problems.push({ kind: 'unsupported', file: rel, line, message: `<i18n> block nests deeper than ${MAX_JSON_DEPTH} levels: skipped` });
    return;
  }
  const { root, error } = parseJson(content);
  if (error || !root || root.type !== 'object') {
    const at = error ? src.position(base + error.offset).line : line;
    problems.push({ kind: 'malformed', file: rel, line: at, message: `<i18n> block does not parse${error ? ` (${error.message} at line ${at})` : ': not an object'}: skipped` });
    return;
  }
  const lineOf = (o: number) => src.position(base + o).line;
  if (locale) {
    read.entries.push(...toEntries(leaves(root, problems, rel, lineOf), canonicalLocale(locale), undefined, src, base, rel, problems));
    return;
  }
  for (const p of root.children ?? []) {
    const k = p.children?.[0];
    const v = p.children?.[1];
    if (!k || !v) continue;
    if (v.type !== 'object') {
      problems.push({ kind: 'unsupported', file: rel, line: src.position(base + k.offset).line, message: `<i18n> top-level "${String(k.value)}" is not a locale object: skipped` });
      continue;
    }
    read.entries.push(...toEntries(leaves(v, problems, rel, lineOf), canonicalLocale(String(k.value)), undefined, src, base, rel, problems));
  }
}
