/**
 * YAML locale files (`.yml`/`.yaml`): vue-i18n `locales/en.yaml`, Rails `config/locales/en.yml`
 * (the locale as the root key, `en: {…}`), Jekyll `_i18n/fr.yml`, and the content of a Vue SFC
 * `<i18n lang="yaml">` block. Parsed with the `yaml` package's `parseDocument`, whose nodes keep
 * their source ranges: a value's range is inside its quotes (quoted scalars), the scalar itself
 * (plain), or the block's text after its `|`/`>` header line.
 *
 * A root map whose keys are all locale codes and whose values are maps is a multi-locale file
 * (Rails, SFC blocks): each top key is a locale. Aliases are followed (`<<: *base` merges too).
 * A document that does not parse is reported (`malformed`, with its line) and skipped whole, and
 * so is one whose aliases expand past a bound (ALIAS_SLACK: an alias bomb).
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node as YNode } from 'yaml';
import { SourceText } from '../../parse/source-text';
import { canonicalLocale, identifyStem, inI18nDir, isLocaleCode } from '../locale-code';
import type { I18nProblem, Leaf, LocaleFile } from '../types';
import { buildEntries, errText, extensionTest, type LocaleFormat, unreadable } from './common';

const EXTENSIONS = ['yaml', 'yml'];
const EXT = extensionTest(EXTENSIONS);
const MAX_DEPTH = 64;
/**
 * Nodes a walk may visit, beyond one per character: without aliases a document has fewer nodes
 * than characters, so only aliases go past it. A "billion laughs" file (9 levels of 10 aliases in
 * 483 bytes) expands to 10^9 leaves; past the bound the file is reported and not read.
 */
const ALIAS_SLACK = 10_000;

/** `[vs, ve)` of a scalar's text: inside quotes, after a block header. */
function scalarRange(text: string, node: YNode, base: number): [number, number] {
  const [s, e] = node.range ?? [0, 0];
  const type = (node as { type?: string }).type;
  if (type === 'QUOTE_DOUBLE' || type === 'QUOTE_SINGLE') return [base + s + 1, base + e - 1];
  if (type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') {
    let i = text.indexOf('\n', s);
    if (i < 0 || i >= e) return [base + s, base + e];
    i++;
    while (i < e && (text[i] === ' ' || text[i] === '\t')) i++;
    let j = e;
    while (j > i && (text[j - 1] === '\n' || text[j - 1] === '\r')) j--;
    return [base + i, base + j];
  }
  return [base + s, base + e];
}

export interface YamlScan {
  leaves: Leaf[];
  /** Leaf values of any type, and those that are strings. */
  total: number;
  strings: number;
  error?: { offset: number; message: string };
  /** The root map's keys, when they are all locale codes over maps. */
  multiLocale: boolean;
}

/**
 * Every string leaf of a YAML text (offsets relative to `base`, the text's place in its file),
 * keys joined with `.`; with `multiLocale` (a root of locale codes), each leaf carries its locale.
 */
export function yamlLeaves(text: string, base = 0, allowMulti = true): YamlScan {
  const out: YamlScan = { leaves: [], total: 0, strings: 0, multiLocale: false };
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { uniqueKeys: false, merge: true, prettyErrors: false, strict: false });
  } catch (err) {
    out.error = { offset: 0, message: errText(err) };
    return out;
  }
  if (doc.errors.length) {
    const e = doc.errors[0];
    out.error = { offset: e.pos[0], message: e.message.split('\n')[0] };
    return out;
  }
  const root = doc.contents;
  if (!root || !isMap(root)) return out;
  out.multiLocale =
    allowMulti &&
    root.items.length > 0 &&
    root.items.every((p) => isScalar(p.key) && isLocaleCode(String(p.key.value)) && (isMap(p.value) || (isAlias(p.value) && isMap(p.value.resolve(doc)))));
  let budget = text.length + ALIAS_SLACK;
  let exploded = false;
  const walk = (node: YNode | null | undefined, prefix: string, depth: number, ks: number, ke: number, locale: string | undefined): void => {
    if (!node || exploded) return;
    if (--budget < 0) {
      exploded = true;
      return;
    }
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (!target || depth > MAX_DEPTH) return;
      if (isScalar(target)) node = target;
      else return walk(target, prefix, depth + 1, ks, ke, locale);
    }
    if (isScalar(node)) {
      out.total++;
      if (typeof node.value !== 'string' || !prefix) return;
      out.strings++;
      const [vs, ve] = scalarRange(text, node, base);
      out.leaves.push({ path: prefix, value: node.value, vs, ve, ks, ke, locale });
      return;
    }
    if (depth >= MAX_DEPTH) return;
    if (isMap(node)) {
      for (const p of node.items) {
        const k = p.key as YNode | null;
        if (!k || !isScalar(k)) continue;
        const seg = String(k.value);
        if (seg === '<<') {
          // a merge key: the aliased maps' messages are this map's
          const v = p.value as YNode | null;
          const targets = v && isSeq(v) ? v.items : [v];
          for (const t of targets) walk(t as YNode, prefix, depth + 1, ks, ke, locale);
          continue;
        }
        const [kvs, kve] = scalarRange(text, k, base);
        if (depth === 0 && out.multiLocale) walk(p.value as YNode, '', depth + 1, kvs, kve, canonicalLocale(seg));
        else walk(p.value as YNode, prefix ? `${prefix}.${seg}` : seg, depth + 1, kvs, kve, locale);
      }
    } else if (isSeq(node)) {
      node.items.forEach((it, i) => {
        const r = (it as YNode)?.range;
        walk(it as YNode, `${prefix}.${i}`, depth + 1, base + (r?.[0] ?? 0), base + (r?.[1] ?? 0), locale);
      });
    }
  };
  walk(root, '', 0, 0, 0, undefined);
  if (exploded) {
    const first = text.search(/[*]/);
    return { leaves: [], total: 0, strings: 0, multiLocale: false, error: { offset: Math.max(0, first), message: `its aliases expand to more than ${text.length + ALIAS_SLACK} nodes (an alias bomb?)` } };
  }
  return out;
}

/** The locale file of a YAML text, `scan` already made; `locale` is the path's (undefined for a multi-locale file). */
export function yamlFile(rel: string, text: string, src: SourceText, scan: YamlScan, locale: string, namespace: string | undefined): LocaleFile {
  const problems: I18nProblem[] = [];
  return { file: rel, lines: src, entries: buildEntries(scan.leaves, locale, namespace, src, rel, problems), problems };
}

export const yamlFormat: LocaleFormat = {
  name: 'YAML',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    if (!EXT.test(rel)) return false;
    if (ctx.matchesGlobs) return ctx.matchesGlobs(rel);
    if (/(?:^|\/)\.(?:github|gitlab|circleci)\//.test(rel)) return false;
    const parts = rel.split('/');
    const id = identifyStem(parts.slice(0, -1), parts[parts.length - 1].replace(EXT, ''));
    return (!!id && (id.from === 'name' || inI18nDir(rel))) || inI18nDir(rel);
  },
  read(rel, text) {
    const parts = rel.split('/');
    const id = identifyStem(parts.slice(0, -1), parts[parts.length - 1].replace(EXT, ''));
    const src = new SourceText(text);
    const scan = yamlLeaves(text);
    if (scan.error) {
      const line = src.position(scan.error.offset).line;
      return unreadable(rel, text, 'malformed', `YAML does not parse (${scan.error.message} at line ${line}): not read`, line);
    }
    if (!scan.multiLocale) {
      if (!id) return undefined;
      // a YAML file of settings that happens to sit under a locale folder: not messages
      if (!scan.total || scan.strings / scan.total < 0.6) return undefined;
    }
    // Rails: `config/locales/devise.en.yml` holds `en: {devise: …}`; the root key is the locale, no namespace
    return yamlFile(rel, text, src, scan, id?.locale ?? '', scan.multiLocale ? undefined : id?.namespace);
  },
};
