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
 * Parsing: jsonc-parser's `parseTree` (comments and trailing commas allowed); nested and flat
 * dotted keys give the same dotted key; string leaves of arrays are `a.0`, `a.1`. A file that
 * does not parse is reported (`malformed`) and skipped whole; a key defined twice in one file
 * (JSON duplicate keys, or `"a.b"` next to `a: {b}`) is reported (`duplicate`) and the last one
 * wins, as `JSON.parse` does.
 *
 * Vue SFC `<i18n>` blocks: JSON/JSON5/JSONC content; top-level keys are locales, or the whole
 * block is one locale with `<i18n locale="fr">`. YAML blocks and `<i18n src="…">` are reported
 * (`unsupported`) and skipped.
 */
import { parse as parseSfc } from '@vue/compiler-sfc';
import * as jsonc from 'jsonc-parser';
import { classifyJson, classifyJsonPath, isLocaleTag } from '../chunkers/json-classify';
import { SourceText } from '../chunkers/source';
import type { I18nProblem, LocaleValue } from './types';

export interface LocaleIdentity {
  locale: string;
  namespace?: string;
  /** How it was told: from the file name, or from a folder. */
  from: 'name' | 'folder';
}

/**
 * One string leaf of a locale file. Ranges are kept as offsets (inside the quotes) and turned
 * into positions only for the candidates a lookup returns (`toLocaleValue`): a 50,000-key set
 * has hundreds of thousands of leaves, and four position objects each would dominate the heap.
 */
export interface LocaleEntry {
  locale: string;
  file: string;
  value: string;
  namespace?: string;
  /** Dotted key path. */
  path: string;
  /** Value text `[vs, ve)` and property name text `[ks, ke)`, inside their quotes. */
  vs: number;
  ve: number;
  ks: number;
  ke: number;
}

export interface LocaleFile {
  file: string;
  entries: LocaleEntry[];
  problems: I18nProblem[];
  /** Set for a Vue SFC's `<i18n>` messages (component-local). */
  component?: boolean;
  /** The file's line table (offsets → positions). */
  lines: SourceText;
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

const LOCALE_EXT = /\.(?:json|jsonc|json5)$/i;

/** `pt_br` → `pt-BR`, `zh_hans` → `zh-Hans`, `EN` → `en`: one spelling per locale. */
export function canonicalLocale(tag: string): string {
  const parts = tag.split(/[-_]/);
  return parts
    .map((p, i) => (i === 0 ? p.toLowerCase() : p.length === 4 ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p.toUpperCase()))
    .join('-');
}

/** The locale (and namespace) a path names, or undefined. Does not look at the content. */
export function identifyLocale(rel: string): LocaleIdentity | undefined {
  const parts = rel.split('/');
  const name = parts.pop() ?? '';
  if (!LOCALE_EXT.test(name)) return undefined;
  const stem = name.replace(LOCALE_EXT, '');
  if (isLocaleTag(stem)) return { locale: canonicalLocale(stem), from: 'name' };
  for (let i = parts.length - 1; i >= 0; i--) {
    if (isLocaleTag(parts[i])) {
      const ns = [...parts.slice(i + 1), stem].join('/');
      return { locale: canonicalLocale(parts[i]), namespace: ns === 'index' ? undefined : ns, from: 'folder' };
    }
  }
  // a prefix, then the tag: `core_fr`, `messages.de`, `app-pt_BR`
  for (let i = stem.length - 2; i > 0; i--) {
    const c = stem[i - 1];
    if ((c === '.' || c === '_' || c === '-') && isLocaleTag(stem.slice(i))) return { locale: canonicalLocale(stem.slice(i)), from: 'name' };
  }
  return undefined;
}

const MAX_DEPTH = 64;

/** A node's text range; a string node spans its quotes, the range is what is inside them. */
function rangeOf(node: jsonc.Node, base: number): [number, number] {
  const inner = node.type === 'string' && node.length >= 2 ? 1 : 0;
  return [base + node.offset + inner, base + node.offset + node.length - inner];
}

interface Leaf {
  path: string;
  value: string;
  valueNode: jsonc.Node;
  keyNode: jsonc.Node;
}

/** Every string leaf under `root` (an object), keys joined with `.`; depth-limited, iterative. */
function leaves(root: jsonc.Node, problems: I18nProblem[], file: string, lineOf: (off: number) => number): Leaf[] {
  const out: Leaf[] = [];
  const stack: Array<{ node: jsonc.Node; prefix: string; depth: number; keyNode?: jsonc.Node }> = [{ node: root, prefix: '', depth: 0 }];
  let deep = false;
  while (stack.length) {
    const { node, prefix, depth, keyNode } = stack.pop()!;
    if (node.type === 'string') {
      if (keyNode) out.push({ path: prefix, value: String(node.value), valueNode: node, keyNode });
      continue;
    }
    if (node.type !== 'object' && node.type !== 'array') continue;
    if (depth >= MAX_DEPTH) {
      if (!deep) problems.push({ kind: 'unsupported', file, line: lineOf(node.offset), message: `nesting deeper than ${MAX_DEPTH} levels is skipped` });
      deep = true;
      continue;
    }
    const kids = node.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) {
      const c = kids[i];
      if (node.type === 'object') {
        const k = c.children?.[0];
        const v = c.children?.[1];
        if (!k || !v) continue;
        const seg = String(k.value);
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
    const [vs, ve] = rangeOf(l.valueNode, base);
    const [ks, ke] = rangeOf(l.keyNode, base);
    const e: LocaleEntry = { locale, file, value: l.value, namespace, path: l.path, vs, ve, ks, ke };
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
  const id = identifyLocale(rel);
  if (!globbed) {
    if (!id) return undefined;
    const byPath = classifyJsonPath(rel);
    if (byPath === 'manifest' || byPath === 'config') return undefined;
  }
  const problems: I18nProblem[] = [];
  const src = new SourceText(text);
  if (!id) {
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'unknown-locale', file: rel, message: 'matches the locale globs, but no locale code is in its name or folders: skipped' }] };
  }
  const { root, error } = parseJson(text);
  if (error) {
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'malformed', file: rel, line: src.position(error.offset).line, message: `does not parse (${error.message} at line ${src.position(error.offset).line}): skipped` }] };
  }
  if (!root || root.type !== 'object') {
    if (!globbed) return undefined;
    return { file: rel, lines: src, entries: [], problems: [{ kind: 'malformed', file: rel, message: 'is not a JSON object: skipped' }] };
  }
  if (!globbed && classifyJson(rel, root) !== 'i18n') return undefined;
  const ls = leaves(root, problems, rel, (o) => src.position(o).line);
  return { file: rel, lines: src, entries: toEntries(ls, id.locale, id.namespace, src, 0, rel, problems), problems };
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
  const src = new SourceText(text);
  const problems: I18nProblem[] = [];
  const entries: LocaleEntry[] = [];
  for (const b of blocks) {
    const line = b.loc.start.line;
    const lang = String(b.attrs.lang ?? 'json').toLowerCase();
    if (b.attrs.src) {
      problems.push({ kind: 'unsupported', file: rel, line, message: `<i18n src="${String(b.attrs.src)}"> is not followed: skipped` });
      continue;
    }
    if (lang !== 'json' && lang !== 'json5' && lang !== 'jsonc') {
      problems.push({ kind: 'unsupported', file: rel, line, message: `<i18n lang="${lang}"> is not supported (JSON, JSON5 with JSON syntax, JSONC): skipped` });
      continue;
    }
    const base = b.loc.start.offset;
    const { root, error } = parseJson(b.content);
    if (error || !root || root.type !== 'object') {
      const at = error ? src.position(base + error.offset).line : line;
      problems.push({ kind: 'malformed', file: rel, line: at, message: `<i18n> block does not parse${error ? ` (${error.message} at line ${at})` : ': not an object'}: skipped` });
      continue;
    }
    const locale = typeof b.attrs.locale === 'string' ? b.attrs.locale : undefined;
    if (locale) {
      entries.push(...toEntries(leaves(root, problems, rel, (o) => src.position(base + o).line), canonicalLocale(locale), undefined, src, base, rel, problems));
      continue;
    }
    for (const p of root.children ?? []) {
      const k = p.children?.[0];
      const v = p.children?.[1];
      if (!k || !v) continue;
      if (v.type !== 'object') {
        problems.push({ kind: 'unsupported', file: rel, line: src.position(base + k.offset).line, message: `<i18n> top-level "${String(k.value)}" is not a locale object: skipped` });
        continue;
      }
      entries.push(...toEntries(leaves(v, problems, rel, (o) => src.position(base + o).line), canonicalLocale(String(k.value)), undefined, src, base, rel, problems));
    }
  }
  return { file: rel, lines: src, entries, problems, component: true };
}
