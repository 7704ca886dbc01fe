/**
 * The i18n index of one workspace folder: every locale file's messages merged by key (one key
 * → its value in every locale), every usage of a key in code, and lookups both ways.
 *
 *   lookupString("Créer un événement") → candidates, best first, each with the kind of match:
 *     exact       the value, trimmed, as written;
 *     normalized  equal after `normalize` (case, whitespace, punctuation, diacritics, HTML tags,
 *                 placeholders), or a value with placeholders whose literal parts frame the
 *                 query (`Hello {name}` ← "Hello Anna"), or one form of a `a | b` plural;
 *     fuzzy       token overlap (idf-weighted Dice) with typos: a query token that is not in
 *                 the vocabulary matches the tokens within a small edit distance (1 up to 7
 *                 characters, 2 beyond), found through a one-deletion index and checked with a
 *                 bounded Damerau-Levenshtein, never by scanning the vocabulary;
 *     semantic    dense similarity (the Embedder) — only when nothing above matched, and only
 *                 when an Embedder is given; otherwise `semanticUnavailable` says why.
 *   lookupKey("a.b.c") → the key in every locale and its usages (`ns:key` too).
 *   hover(file, text, offset) → the usage under the offset and its translations.
 *
 * Within a kind, candidates rank by score, then keys of the app of `fromFile` first (monorepo),
 * then keys with usages, then by key. Files are added with `setFile` (text) and dropped with
 * `deleteFile`; the lookup structures are rebuilt lazily at the next query after a locale file
 * changed (usages alone are cheaper: only their table is rebuilt).
 */
import { SourceText } from '../parse/source-text';
import { formatOf, readLocaleFormat, readLocaleJson, readLocaleScript, readSfcLocales, toLocaleValue, withLines } from './locales';
import { boundedDistance, deletions, hasPlaceholder, normalize, PLACEHOLDER, placeholderPattern, tokens, typoBudget } from './normalize';
import type { Candidate, HoverResult, I18nDiagnostic, I18nProblem, LocaleEntry, LocaleFile, LookupOptions, LookupResult, MatchKind, ScriptLocale, TextEmbedder, Usage, UsageOptions, UsagePatterns } from './types';
import { checkHealth, sourceLocaleOf, type HealthReport } from './health';
import { findUsages } from './usages';
import { own } from './formats/common';
import { undefinedIsNoFinding } from './frameworks/index';
import { columnsToEntries, entriesToColumns, type EntryColumns } from './snapshot-codec';

/** A JS/TS module (`setFile` may read it as a locale module). */
const SCRIPT_EXT = /\.[cm]?[jt]s$/;

export * from './types';
export type { HealthFinding, HealthReport } from './health';
export { stringAt } from './cursor';
export { normalize } from './normalize';

interface Group {
  id: number;
  app: string;
  component?: string;
  namespace?: string;
  path: string;
  values: LocaleEntry[];
}

interface Built {
  groups: Group[];
  /** value id → group id, and the value. */
  vGroup: Int32Array;
  vValue: LocaleEntry[];
  /**
   * Normal form → value id(s) (a lone id as a number: most values are unique). Exact matches
   * are the ones among them whose trimmed text is the query (one map, not two: at 200,000
   * values the hashing of long keys is most of the build).
   */
  norm: Map<string, number | number[]>;
  /** The texts a value is also shown as: a resolved linked message, its plural forms. */
  vAlso: Map<number, string[]>;
  postings: Map<string, number[]>;
  /** Sum of the idf weights of each value's tokens. */
  vWeight: Float64Array;
  /** Values with placeholders (their normal form), for the wildcard match. */
  vNorm: string[];
  vPattern: Array<RegExp | undefined | null>;
  /** One-character deletions of vocabulary tokens → tokens: built on the first query token not in the vocabulary. */
  deletes?: Map<string, string[]>;
  /** `ns\0path` (ns '' for none) → groups; `\0path` also holds every namespaced group of that path. */
  byCanon: Map<string, number[]>;
  namespaces: Set<string>;
  appsWithKeys: Set<string>;
  problems: I18nProblem[];
  /** Built on demand by the health checks: every proper key prefix, keys named inside values. */
  parents?: Set<string>;
  referenced?: Set<string>;
}

interface UsageTable {
  byCanon: Map<string, Usage[]>;
  /**
   * The dynamic usages (`t(`k.${x}`)`) by their key prefix, and the prefixes' lengths: a key asks
   * once per distinct prefix length, not once per dynamic usage (5,000 of them against 30,000 keys
   * took 19 s and 1.35 GB in a check).
   */
  dynamic: Map<string, Usage[]>;
  dynamicLengths: number[];
}

const RANK: Record<MatchKind, number> = { exact: 0, key: 0, normalized: 1, fuzzy: 2, semantic: 3 };
const PLURAL_SUFFIX = /_(?:zero|one|two|few|many|other|plural|\d+)$/;
export const FUZZY_THRESHOLD = 0.5;

function canon(ns: string | undefined, path: string): string {
  return `${ns ?? ''}\0${path}`;
}

/**
 * The canonical keys a static usage may name: as written; without a namespace, also with its
 * first segment as one (vue-i18n's per-folder namespaces `common.save`, i18n Ally's
 * `translation.title`); a namespace written with dots also as i18n Ally writes a folder's
 * (`pages.home:title` → `pages/home`) and as a namespace then a key prefix
 * (`useTranslation('translation.foo')` then `t('bar')` → `translation:foo.bar`).
 */
function usageCanons(namespace: string | undefined, key: string): string[] {
  const out = [canon(namespace, key)];
  if (!namespace) {
    const dot = key.indexOf('.');
    if (dot > 0) out.push(canon(key.slice(0, dot), key.slice(dot + 1)));
  } else if (namespace.includes('.')) {
    out.push(canon(namespace.replace(/\./g, '/'), key));
    for (let i = namespace.indexOf('.'); i > 0; i = namespace.indexOf('.', i + 1)) out.push(canon(namespace.slice(0, i), `${namespace.slice(i + 1)}.${key}`));
  }
  return out;
}

/**
 * Bump when what `setFile` extracts from a file changes (locale discovery, entries, usages,
 * problems): a stored snapshot of another version is not trusted and the files are read again.
 * 3: Android, Apple, .NET, TOML (Hugo, go-i18n) and Qt Linguist files read, and usages found
 *    in Java, Kotlin, JSP, Swift, Objective-C, C#, VB, Razor, XAML, Go, Go templates, Rust,
 *    C++, QML and PyQt, which version 2 left unread or reported as unsupported.
 * 4: an Angular component's inline `template:` read as a template, Lingui msgids of every macro
 *    form, fluent-vue's `v-t:id` and `$ta`, `getMessage` destructured from `chrome.i18n` (all missed);
 *    a local object named `translate`, a local `t` that translates nothing: no usages; a
 *    WebExtension manifest's `__MSG_name__`.
 */
export const I18N_SNAPSHOT_VERSION = 4;

/** A locale file in the snapshot: its entries as columns (`cols`; as objects, `entries`, when a position does not fit one), its line table's starts. */
export interface StoredLocaleFile {
  file: string;
  problems: I18nProblem[];
  component?: boolean;
  lineStarts: number[];
  cols?: EntryColumns;
  entries?: LocaleEntry[];
}

/** What an index holds per file, as plain data (the store keeps it: `exportState`/`importState`). */
export interface I18nSnapshot {
  apps: string[];
  locales: StoredLocaleFile[];
  usages: Array<[string, Usage[]]>;
  problems: Array<[string, I18nProblem[]]>;
  /** The lookup tables, when they were built from exactly this content (see `I18nTables`). */
  tables?: I18nTables;
}

/**
 * The built lookup tables as plain data: what costs most to build (grouping by key, the normal
 * form and tokens of every value), so that a process answering one question from the store (the
 * CLI) does not rebuild them. Locale entries are referred to by their number over `locales` in
 * order, each file's entries in order. What is quick to derive (the normal-form map, idf
 * weights, key map) is derived on import; the typo index is built when a query needs it.
 */
export interface I18nTables {
  /** app, component file or null, namespace or null, key path, the group's entries. */
  groups: Array<[string, string | null, string | null, string, number[]]>;
  /** The normal form of each value, values numbered over the groups in order. */
  vNorm: string[];
  /** A value's other texts (linked message resolved, plural forms) with their normal forms. */
  also: Array<[number, string[], string[]]>;
  /** Token → the values holding it. */
  postings: [string[], number[][]];
  problems: I18nProblem[];
}

export interface I18nIndexOptions {
  localeGlobs?: string[];
  /** Compiled test of `localeGlobs` (the workspace loader passes it). */
  matchesGlobs?: (rel: string) => boolean;
  /** Most distinct values embedded for the semantic fallback (default 20,000). */
  semanticMaxValues?: number;
  /** Semantic candidates below this cosine similarity are dropped (default 0.25). */
  semanticMinScore?: number;
  /** A project's own translate functions (`translate`, `i18n.tr`): their first argument is a key. */
  functions?: string[];
  /** i18n Ally's custom framework: usage regexes (ally.ts). */
  patterns?: UsagePatterns;
  /** The locale the key health checks the others against when the scope has it (i18n Ally's `sourceLanguage`). */
  sourceLanguage?: string;
  /** Problems of the configuration (a refused regex), shown with the locale files' problems. */
  configProblems?: I18nProblem[];
}

/** Precomputed parts of the tables (from a stored `I18nTables`). */
interface TablesPre {
  vNorm: string[];
  also: Map<number, string[]>;
  alsoNorm: Map<number, string[]>;
  postings: Map<string, number[]>;
}

/** The lookup tables of `groups` (their values sorted): computed, or completed from `pre`. */
function tablesOf(groups: Group[], problems: I18nProblem[], pre?: TablesPre): Built {
  const v = valueTables(groups, pre);
  const keys = keyTables(groups);
  return {
    groups,
    vGroup: v.vGroup,
    vValue: v.vValue,
    norm: v.norm,
    vAlso: v.vAlso,
    postings: v.postings,
    vWeight: valueWeights(v.postings, v.vValue.length),
    vNorm: v.vNorm,
    vPattern: new Array(v.vValue.length).fill(null),
    byCanon: keys.byCanon,
    namespaces: keys.namespaces,
    appsWithKeys: keys.appsWithKeys,
    problems,
  };
}

/** The tables of the values, numbered over the groups in order (see `Built`). */
type ValueTables = Pick<Built, 'vGroup' | 'vValue' | 'vNorm' | 'norm' | 'vAlso' | 'postings'>;

/** Every value's group, normal form, other texts and tokens: computed, or the stored ones of `pre` taken. */
function valueTables(groups: Group[], pre: TablesPre | undefined): ValueTables {
  let nValues = 0;
  for (const g of groups) nValues += g.values.length;
  const vt: ValueTables = { vGroup: new Int32Array(nValues), vValue: new Array(nValues), vNorm: new Array(nValues), norm: new Map(), vAlso: new Map(), postings: pre?.postings ?? new Map() };
  const resolveLinks = pre ? undefined : linkResolver(groups);
  let vid = 0;
  for (const g of groups) {
    for (const v of g.values) {
      vt.vGroup[vid] = g.id;
      vt.vValue[vid] = v;
      if (pre) storedValue(vt, pre, vid, v.value.trim());
      else computedValue(vt, vid, g, v, resolveLinks!);
      vid++;
    }
  }
  return vt;
}

/** A value whose normal form is empty (`!!!`, `%s`) is found by its text alone. */
const normKey = (raw: string, n: string) => n || `\u0002${raw}`;

/** `v` under `k` of a map of one value or a list (a value given twice in a row is kept once). */
function putNorm(m: Map<string, number | number[]>, k: string, v: number): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, v);
  else if (typeof l === 'number') {
    if (l !== v) m.set(k, [l, v]);
  } else if (l[l.length - 1] !== v) l.push(v);
}

/** `v` at the end of `k`'s list, unless it is there last already. */
function pushUnique(m: Map<string, number[]>, k: string, v: number): void {
  const l = m.get(k);
  if (!l) m.set(k, [v]);
  else if (l[l.length - 1] !== v) l.push(v);
}

/** Value `vid`'s normal form and other texts as a stored `I18nTables` has them (its postings are `pre`'s already). */
function storedValue(vt: ValueTables, pre: TablesPre, vid: number, raw: string): void {
  vt.vNorm[vid] = pre.vNorm[vid];
  putNorm(vt.norm, normKey(raw, vt.vNorm[vid]), vid);
  const also = pre.also.get(vid);
  if (also) {
    vt.vAlso.set(vid, also);
    const an = pre.alsoNorm.get(vid)!;
    for (let i = 0; i < also.length; i++) putNorm(vt.norm, normKey(also[i], an[i]), vid);
  }
}

/** Value `vid`'s normal form, its other texts (a linked message resolved, the reader's, plural forms) and its tokens' postings. */
function computedValue(vt: ValueTables, vid: number, g: Group, v: LocaleEntry, resolveLinks: (g: Group, v: LocaleEntry) => string | undefined): void {
  const raw = v.value.trim();
  const n = normalize(raw);
  vt.vNorm[vid] = n;
  putNorm(vt.norm, normKey(raw, n), vid);
  const also: string[] = [];
  const linked = resolveLinks(g, v);
  if (linked) also.push(linked);
  if (v.also) also.push(...v.also);
  // vue-i18n plurals: "no apples | one apple | {count} apples"
  if (raw.includes('|')) for (const form of raw.split(/\s*\|\s*/)) if (form) also.push(form);
  if (also.length) {
    vt.vAlso.set(vid, also);
    for (const a of also) putNorm(vt.norm, normKey(a, normalize(a)), vid);
  }
  // pushUnique() skips a token already posted for this value: the postings stay unique
  for (const t of tokens(n)) pushUnique(vt.postings, t, vid);
}

/**
 * vue-i18n linked messages (`@:events.create.TITLE`, `@.lower:key`): the text shown is the
 * target's value in the same locale and app, so that text finds the linking key too. The
 * resolver gives a value's text with its links resolved, undefined when it has none that resolve.
 */
function linkResolver(groups: Group[]): (g: Group, v: LocaleEntry) => string | undefined {
  const linkTarget = new Map<string, string>();
  if (groups.some((g) => g.values.some((v) => v.value.includes('@')))) {
    for (const g of groups) for (const v of g.values) if (!g.component) linkTarget.set(`${g.app}\0${v.locale}\0${g.path}`, v.value);
  }
  return (g, v) => {
    if (!linkTarget.size || !v.value.includes('@')) return undefined;
    let changed = false;
    const out = v.value.replace(/@(?:\.(\w+))?:(?:\{'([^']*)'\}|\(?([\w.-]*\w)\)?)/g, (m, mod: string | undefined, quoted: string | undefined, bare: string | undefined) => {
      const target = linkTarget.get(`${g.app}\0${v.locale}\0${quoted ?? bare ?? ''}`);
      if (target === undefined || target.includes('@')) return m;
      changed = true;
      return mod === 'lower' ? target.toLowerCase() : mod === 'upper' ? target.toUpperCase() : mod === 'capitalize' ? target.charAt(0).toUpperCase() + target.slice(1) : target;
    });
    return changed ? out.trim() : undefined;
  };
}

/** Each value's weight: the sum of the idf of its tokens. */
function valueWeights(postings: Map<string, number[]>, nValues: number): Float64Array {
  const N = Math.max(1, nValues);
  const vWeight = new Float64Array(nValues);
  for (const list of postings.values()) {
    const idf = Math.log(1 + N / list.length);
    for (const v of list) vWeight[v] += idf;
  }
  return vWeight;
}

/** The groups by canonical key (`ns\0path`, and `\0path` for a namespaced one too), the namespaces and the apps that have keys. */
function keyTables(groups: Group[]): Pick<Built, 'byCanon' | 'namespaces' | 'appsWithKeys'> {
  const byCanon = new Map<string, number[]>();
  const namespaces = new Set<string>();
  const appsWithKeys = new Set<string>();
  for (const g of groups) {
    if (g.namespace) namespaces.add(g.namespace);
    appsWithKeys.add(g.app);
    pushUnique(byCanon, canon(g.namespace, g.path), g.id);
    if (g.namespace) pushUnique(byCanon, canon(undefined, g.path), g.id);
  }
  return { byCanon, namespaces, appsWithKeys };
}

/** The one-deletion typo index of a vocabulary. */
function typoIndex(vocabulary: Iterable<string>): Map<string, string[]> {
  const deletes = new Map<string, string[]>();
  for (const t of vocabulary) {
    if (typoBudget(t.length) === 0) continue;
    for (const d of deletions(t)) {
      const l = deletes.get(d);
      if (l) l.push(t);
      else deletes.set(d, [t]);
    }
  }
  return deletes;
}

/** `entries` (read from a file just now), their strings made copies that keep no file's text alive (`own`). */
function ownEntries(entries: LocaleEntry[]): LocaleEntry[] {
  for (const e of entries) {
    e.value = own(e.value);
    e.path = own(e.path);
    if (e.also) e.also = e.also.map(own);
  }
  return entries;
}

/** `b` as plain data (see `I18nTables`); `locales` in the order `exportState` writes them. */
function exportTables(b: Built, locales: LocaleFile[]): I18nTables {
  const num = new Map<LocaleEntry, number>();
  for (const lf of locales) for (const e of lf.entries) num.set(e, num.size);
  const also: I18nTables['also'] = [];
  for (const [vid, texts] of b.vAlso) also.push([vid, texts, texts.map(normalize)]);
  return {
    groups: b.groups.map((g) => [g.app, g.component ?? null, g.namespace ?? null, g.path, g.values.map((e) => num.get(e)!)]),
    vNorm: b.vNorm,
    also,
    postings: [[...b.postings.keys()], [...b.postings.values()]],
    problems: b.problems,
  };
}

export class I18nIndex {
  private readonly locales = new Map<string, LocaleFile>();
  private readonly usages = new Map<string, Usage[]>();
  private readonly fileProblems = new Map<string, I18nProblem[]>();
  /** App folders (of package.json files), deepest first. */
  /** The folders of the package.jsons (apps); a Set, and each file's app memoized: a monorepo of 1,000 packages asked every app for every usage of every key (cubic, 40 s a `--key`). */
  private apps = new Set<string>();
  private appCache = new Map<string, string>();
  private built: Built | undefined;
  /** `grouped`'s answer, for the revision it was made at. */
  private grouping: { revision: number; groups: Group[]; problems: I18nProblem[] } | undefined;
  /** The built tables were exported (or imported) since they were built: `tablesUnsaved` is false. */
  private builtSaved = false;
  private usageTable: UsageTable | undefined;
  /** Scratch accumulator of fuzzy scores, one slot per value (zeroed after each query). */
  private acc: Float64Array | undefined;
  private vectors: { embedderId: string; texts: string[]; byText: Map<string, number[]>; vecs: Float32Array[] } | undefined;
  /** Changes since the index was created; `refresh` compares it. */
  revision = 0;

  constructor(readonly options: I18nIndexOptions = {}) {}

  // --- content ------------------------------------------------------------------------------

  /**
   * Adds or replaces one file (workspace-relative path with `/`). Never throws. `usages`: what
   * `findUsages` gives for this text with this index's `functions`, found already (by the chunk
   * pool thread that parsed the file); `script`: its `readLocaleScript` (as `scriptMode` says),
   * read there too.
   */
  setFile(rel: string, text: string, usages?: Usage[], script?: ScriptLocale): void {
    this.revision++;
    const lower = rel.toLowerCase();
    if (lower === 'package.json' || lower.endsWith('/package.json')) this.addApp(rel);
    const hadLocale = this.locales.delete(rel);
    this.fileProblems.delete(rel);
    let lf: LocaleFile | undefined;
    try {
      const format = formatOf(rel, { matchesGlobs: this.options.matchesGlobs });
      const isScript = SCRIPT_EXT.test(lower);
      if (format) lf = readLocaleFormat(rel, text, { matchesGlobs: this.options.matchesGlobs }, format);
      else if (lower.endsWith('.vue')) lf = readSfcLocales(rel, text);
      else if (!isScript) lf = readLocaleJson(rel, text, { matchesGlobs: this.options.matchesGlobs });
      // a script, also one a format claimed by its name and found none of its messages in (an
      // `app_fr.ts` that is TypeScript, not Qt Linguist), may be a locale module
      if (isScript && !lf?.entries.length) {
        const mode = this.globMode(rel);
        const module = script !== undefined ? withLines(script, text) : mode ? readLocaleScript(rel, text, mode === 'globbed') : undefined;
        if (module || !lf) lf = module;
      }
    } catch (err) {
      lf = { file: rel, lines: new SourceText(''), entries: [], problems: [{ kind: 'malformed', file: rel, message: `could not be read as a locale file: ${(err as Error).message}` }] };
    }
    if (lf) {
      // kept: the entries as copies and the line table, not the file's text (held by slices of it, the
      // PO files of a 300 MB folder kept 0.3 GB of text alive)
      if (lf.entries.length) this.locales.set(rel, { ...lf, lines: SourceText.fromLineStarts(lf.lines.lineStarts), entries: ownEntries(lf.entries) });
      if (lf.problems.length) this.fileProblems.set(rel, lf.problems);
    }
    if (hadLocale || lf) this.built = undefined;
    const had = this.usages.delete(rel);
    const u = usages ?? findUsages(rel, text, this.usageOptions());
    if (u.length) this.usages.set(rel, u);
    if (had || u.length) this.usageTable = undefined;
  }

  /**
   * How `setFile` reads a JS/TS file as a locale module: 'globbed' when it matches the locale
   * globs, 'plain' (by its path) without globs, undefined not at all (or not a script).
   */
  scriptMode(rel: string): 'plain' | 'globbed' | undefined {
    if (!SCRIPT_EXT.test(rel.toLowerCase()) || formatOf(rel, { matchesGlobs: this.options.matchesGlobs })) return undefined;
    return this.globMode(rel);
  }

  /** `scriptMode` of a script that is no locale format. */
  private globMode(rel: string): 'plain' | 'globbed' | undefined {
    const m = this.options.matchesGlobs;
    return m ? (m(rel) ? 'globbed' : undefined) : 'plain';
  }

  /** Records a file that could not be read. */
  setProblem(rel: string, problem: I18nProblem): void {
    this.revision++;
    this.fileProblems.set(rel, [problem]);
    this.built = undefined;
  }

  deleteFile(rel: string): void {
    this.revision++;
    const lower = rel.toLowerCase();
    if (lower === 'package.json' || lower.endsWith('/package.json')) {
      const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      this.apps.delete(dir);
      this.appCache.clear();
      this.built = undefined;
      this.usageTable = undefined;
    }
    if (this.locales.delete(rel)) this.built = undefined;
    if (this.fileProblems.delete(rel)) this.built = undefined;
    if (this.usages.delete(rel)) this.usageTable = undefined;
  }

  private addApp(rel: string): void {
    const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (!this.apps.has(dir)) {
      this.apps.add(dir);
      this.appCache.clear();
      this.built = undefined;
      this.usageTable = undefined;
    }
  }

  /** Every file's extracted content, as plain data (no texts kept: line tables only), and the lookup tables when they are built. */
  exportState(): I18nSnapshot {
    const locales = [...this.locales.values()];
    const snap: I18nSnapshot = {
      apps: [...this.apps].sort((a, b) => b.length - a.length),
      locales: locales.map((lf) => {
        const cols = entriesToColumns(lf.file, lf.entries);
        return { file: lf.file, problems: lf.problems, component: lf.component, lineStarts: lf.lines.lineStarts, ...(cols ? { cols } : { entries: lf.entries }) };
      }),
      usages: [...this.usages.entries()],
      problems: [...this.fileProblems.entries()],
    };
    if (this.built) {
      snap.tables = exportTables(this.built, locales);
      this.builtSaved = true;
    }
    return snap;
  }

  /** Lookup tables were built that no `exportState` has carried yet (a store would want them). */
  get tablesUnsaved(): boolean {
    return !!this.built && !this.builtSaved;
  }

  /** Replaces the content with a snapshot of `exportState` (lookup structures rebuilt lazily). */
  importState(s: I18nSnapshot): void {
    // checked before anything is replaced: a damaged snapshot throws and the index is untouched
    const arr = Array.isArray;
    if (!s || !arr(s.apps) || !arr(s.locales) || !arr(s.usages) || !arr(s.problems)) throw new Error('not an i18n snapshot');
    const read: LocaleFile[] = [];
    for (const l of s.locales) {
      if (typeof l?.file !== 'string' || !arr(l.problems) || !arr(l.lineStarts) || (l.cols === undefined && !arr(l.entries))) throw new Error(`damaged locale file record ${String(l?.file)}`);
      const entries = l.cols !== undefined ? columnsToEntries(l.file, l.cols) : l.entries!;
      read.push({ file: l.file, problems: l.problems, ...(l.component !== undefined ? { component: l.component } : {}), entries, lines: SourceText.fromLineStarts(l.lineStarts) });
    }
    for (const u of s.usages) if (!arr(u) || typeof u[0] !== 'string' || !arr(u[1])) throw new Error('damaged usage record');
    for (const p of s.problems) if (!arr(p) || typeof p[0] !== 'string' || !arr(p[1])) throw new Error('damaged problem record');
    this.revision++;
    this.apps = new Set(s.apps);
    this.appCache.clear();
    this.locales.clear();
    for (const lf of read) this.locales.set(lf.file, lf);
    this.usages.clear();
    for (const [f, u] of s.usages) this.usages.set(f, u);
    this.fileProblems.clear();
    for (const [f, p] of s.problems) this.fileProblems.set(f, p);
    this.built = undefined;
    this.usageTable = undefined;
    this.vectors = undefined;
    if (s.tables) {
      try {
        this.built = this.importTables(s.tables);
        this.builtSaved = true;
      } catch {
        this.built = undefined; // tables that do not fit the content are rebuilt at the first question
      }
    }
  }

  /** Restores `exportTables`' output (throws when it does not fit the locale files now held). */
  private importTables(t: I18nTables): Built {
    const arr = Array.isArray;
    if (!t || !arr(t.groups) || !arr(t.vNorm) || !arr(t.also) || !arr(t.postings) || !arr(t.postings[0]) || !arr(t.postings[1]) || !arr(t.problems)) throw new Error('damaged i18n tables');
    const entries: LocaleEntry[] = [];
    for (const lf of this.locales.values()) for (const e of lf.entries) entries.push(e);
    const groups: Group[] = [];
    let nValues = 0;
    for (const g of t.groups) {
      if (!arr(g) || typeof g[0] !== 'string' || typeof g[3] !== 'string' || !arr(g[4])) throw new Error('damaged i18n group');
      const values = g[4].map((i) => {
        const e = entries[i];
        if (!e) throw new Error('i18n tables of other locale files');
        return e;
      });
      groups.push({ id: groups.length, app: g[0], component: g[1] ?? undefined, namespace: g[2] ?? undefined, path: g[3], values });
      nValues += values.length;
    }
    if (t.vNorm.length !== nValues || t.postings[0].length !== t.postings[1].length) throw new Error('i18n tables of other locale files');
    const postings = new Map<string, number[]>();
    for (let i = 0; i < t.postings[0].length; i++) {
      const list = t.postings[1][i];
      if (!arr(list)) throw new Error('damaged i18n postings');
      for (let j = 0; j < list.length; j++) if (!(list[j] >= 0 && list[j] < nValues)) throw new Error('damaged i18n postings');
      postings.set(t.postings[0][i], list);
    }
    const also = new Map<number, string[]>();
    const alsoNorm = new Map<number, string[]>();
    for (const a of t.also) {
      if (!arr(a) || !(a[0] >= 0 && a[0] < nValues) || !arr(a[1]) || !arr(a[2]) || a[1].length !== a[2].length) throw new Error('damaged i18n tables');
      also.set(a[0], a[1]);
      alsoNorm.set(a[0], a[2]);
    }
    return tablesOf(groups, t.problems, { vNorm: t.vNorm, also, alsoNorm, postings });
  }

  /** The app (folder of the nearest package.json) of a file; `''` at the root. */
  appOf(rel: string): string {
    let app = this.appCache.get(rel);
    if (app !== undefined) return app;
    app = '';
    // the nearest folder (or the path itself) that is an app
    for (let d = rel; d; d = d.slice(0, Math.max(0, d.lastIndexOf('/')))) {
      if (this.apps.has(d)) {
        app = d;
        break;
      }
    }
    this.appCache.set(rel, app);
    return app;
  }

  /** Every file the index holds something of (messages, usages or problems). */
  knownFiles(): string[] {
    return [...new Set([...this.locales.keys(), ...this.usages.keys(), ...this.fileProblems.keys()])];
  }

  get localeFiles(): string[] {
    return [...this.locales.keys()].sort();
  }

  /** The locale files that are components with messages of their own (a Vue SFC's `<i18n>` block): code besides their messages. */
  get componentFiles(): string[] {
    return [...this.locales.values()].filter((lf) => lf.component).map((lf) => lf.file).sort();
  }

  get stats(): { localeFiles: number; keys: number; values: number; usages: number; problems: number } {
    const b = this.build();
    let usages = 0;
    for (const u of this.usages.values()) usages += u.length;
    return { localeFiles: this.locales.size, keys: b.groups.length, values: b.vValue.length, usages, problems: b.problems.length };
  }

  get problems(): I18nProblem[] {
    return this.grouped().problems;
  }

  /** What `findUsages` is given for this index (the chunk threads are given the same). */
  usageOptions(): UsageOptions {
    return { functions: this.options.functions, ...(this.options.patterns ? { patterns: this.options.patterns } : {}) };
  }

  /** Builds the lookup tables now (the first lookup builds them otherwise): for a long-lived index that wants its first answer quick. */
  prepareTables(): void {
    this.build();
  }

  // --- building -----------------------------------------------------------------------------

  /**
   * The keys grouped (app, component, namespace, path; each group's values sorted) and the
   * problems with the conflicts: `build` without the lookup tables, which are most of its cost
   * (a normal form and tokens for every value). The search index's i18n text (`keyValues`) at
   * the end of an index run needs only this; the tables wait for the first lookup.
   */
  private grouped(): { groups: Group[]; problems: I18nProblem[] } {
    if (this.built) return this.built;
    if (this.grouping?.revision === this.revision) return this.grouping;
    const groups: Group[] = [];
    /** app\0component\0namespace → key path → group id. */
    const groupIds = new Map<string, Map<string, number>>();
    const problems: I18nProblem[] = [...(this.options.configProblems ?? [])];
    for (const ps of this.fileProblems.values()) problems.push(...ps);
    const files = [...this.locales.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    for (const lf of files) {
      // Lingui's compiled `messages.js` next to its `messages.po` is a build output, not a locale
      if (/\.[cm]?[jt]s$/i.test(lf.file) && this.locales.has(lf.file.replace(/\.[cm]?[jt]s$/i, '.po'))) continue;
      const app = this.appOf(lf.file);
      const component = lf.component ? lf.file : undefined;
      for (const e of lf.entries) {
        const sk = `${app}\0${component ?? ''}\0${e.namespace ?? ''}`;
        let scope = groupIds.get(sk);
        if (!scope) groupIds.set(sk, (scope = new Map()));
        let gid = scope.get(e.path);
        if (gid === undefined) {
          gid = groups.length;
          scope.set(e.path, gid);
          groups.push({ id: gid, app, component, namespace: e.namespace, path: e.path, values: [] });
        }
        const vals = groups[gid].values;
        // XLIFF translations repeat the source: a repeated source value counts only when no file gives it first-hand
        if (e.derived && vals.some((v) => v.locale === e.locale)) continue;
        if (!e.derived && vals.some((v) => v.derived && v.locale === e.locale)) groups[gid].values = vals.filter((v) => !(v.derived && v.locale === e.locale));
        groups[gid].values.push(e);
      }
    }
    // conflicts: one key, one locale, two files, two values
    for (const g of groups) {
      g.values.sort((a, b) => (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : a.file < b.file ? -1 : 1));
      for (let i = 1; i < g.values.length; i++) {
        const a = g.values[i - 1];
        const b = g.values[i];
        if (a.locale === b.locale && a.file !== b.file && a.value !== b.value) {
          problems.push({
            kind: 'conflict',
            file: b.file,
            line: this.lineOf(b),
            message: `key "${display(g)}" (${a.locale}) is "${a.value}" in ${a.file}:${this.lineOf(a)} and "${b.value}" here`,
          });
        }
      }
    }
    this.grouping = { revision: this.revision, groups, problems };
    return this.grouping;
  }

  private build(): Built {
    if (this.built) return this.built;
    const { groups, problems } = this.grouped();
    this.grouping = undefined;
    this.built = tablesOf(groups, problems);
    this.builtSaved = false;
    this.vectors = undefined;
    return this.built;
  }

  private usageIndex(): UsageTable {
    if (this.usageTable) return this.usageTable;
    const byCanon = new Map<string, Usage[]>();
    const dynamic = new Map<string, Usage[]>();
    const add = (k: string, u: Usage) => {
      const l = byCanon.get(k);
      if (l) l.push(u);
      else byCanon.set(k, [u]);
    };
    for (const list of this.usages.values()) {
      for (const u of list) {
        if (u.dynamic) {
          const l = dynamic.get(u.key);
          if (l) l.push(u);
          else dynamic.set(u.key, [u]);
          continue;
        }
        for (const k of usageCanons(u.namespace, u.key)) add(k, u);
      }
    }
    const dynamicLengths = [...new Set([...dynamic.keys()].map((k) => k.length))].sort((a, c) => a - c);
    this.usageTable = { byCanon, dynamic, dynamicLengths };
    return this.usageTable;
  }

  /**
   * The usages that name group `g`: same app (or an app without keys of its own), same component
   * for local messages. With `any`, at most one: whether the key is used (the health check).
   */
  private usagesOf(g: Group, b: Built, any = false): Usage[] {
    const t = this.usageIndex();
    const found = new Set<Usage>();
    const keys = [canon(g.namespace, g.path)];
    if (g.namespace) keys.push(canon(undefined, g.path));
    const base = g.path.replace(PLURAL_SUFFIX, '');
    if (base !== g.path) {
      keys.push(canon(g.namespace, base));
      if (g.namespace) keys.push(canon(undefined, base));
    }
    // a Fluent attribute (`props.title`; a message id has no dot) is used where its message is:
    // fluent-vue's `$ta('props')`, `<Localized id attrs>` and `data-l10n-id` apply the attributes
    const dot = g.path.indexOf('.');
    if (dot > 0 && g.values.some((v) => /\.ftl$/i.test(v.file))) keys.push(canon(g.namespace, g.path.slice(0, dot)));
    const fits = (u: Usage) => {
      if (g.component) return u.file === g.component;
      const app = this.appOf(u.file);
      if (app !== g.app && b.appsWithKeys.has(app)) return false;
      // a component with its own messages for this key uses those
      if (this.locales.get(u.file)?.entries.some((e) => e.path === g.path)) return false;
      return true;
    };
    for (const k of keys) {
      for (const u of t.byCanon.get(k) ?? []) {
        if (!fits(u)) continue;
        found.add(u);
        if (any) return [u];
      }
    }
    if (t.dynamic.size) {
      const qualified = g.namespace ? `${g.namespace}.${g.path}` : undefined;
      for (const full of qualified ? [g.path, qualified] : [g.path]) {
        for (const n of t.dynamicLengths) {
          if (n > full.length) break;
          for (const u of t.dynamic.get(full.slice(0, n)) ?? []) {
            if ((u.namespace && u.namespace !== g.namespace) || !fits(u)) continue;
            found.add(u);
            if (any) return [u];
          }
        }
      }
    }
    return [...found].sort((a, c) => (a.file < c.file ? -1 : a.file > c.file ? 1 : a.range.start.offset - c.range.start.offset));
  }

  private lineOf(e: LocaleEntry): number {
    return this.locales.get(e.file)?.lines.position(e.ks).line ?? 0;
  }

  private candidate(g: Group, b: Built, match: MatchKind, score: number, matched?: LocaleEntry, anyUsage = false): Candidate {
    return {
      key: display(g),
      path: g.path,
      namespace: g.namespace,
      app: g.app,
      component: g.component,
      match,
      score,
      matched: matched ? { locale: matched.locale, value: matched.value, file: matched.file } : undefined,
      locales: g.values.map((e) => toLocaleValue(e, this.locales.get(e.file)!.lines)),
      usages: this.usagesOf(g, b, anyUsage),
    };
  }

  private rank(list: Candidate[], opts: LookupOptions): Candidate[] {
    const specific = new Map<Candidate, number>();
    const specificity = (c: Candidate) => {
      let v = specific.get(c);
      if (v === undefined) specific.set(c, (v = c.matched ? literalLength(normalize(c.matched.value)) : 0));
      return v;
    };
    const app = opts.fromFile !== undefined ? this.appOf(opts.fromFile) : undefined;
    const mine = (c: Candidate) => (c.component !== undefined && c.component === opts.fromFile ? 2 : app !== undefined && c.app === app ? 1 : 0);
    return list
      .sort(
        (a, c) =>
          RANK[a.match] - RANK[c.match] ||
          c.score - a.score ||
          mine(c) - mine(a) ||
          specificity(c) - specificity(a) ||
          Math.min(1, c.usages.length) - Math.min(1, a.usages.length) ||
          (a.key < c.key ? -1 : a.key > c.key ? 1 : a.app < c.app ? -1 : 1),
      )
      .slice(0, opts.limit ?? 10);
  }

  // --- lookups ------------------------------------------------------------------------------

  /** Exact, normalized and fuzzy matches of `text` (no embedding). */
  lookupLexical(text: string, opts: LookupOptions = {}): LookupResult {
    const b = this.build();
    const q = text.trim();
    if (!q) return { candidates: [], problems: b.problems };
    const best = new Map<number, { match: MatchKind; score: number; vid: number }>();
    const offer = (vid: number, match: MatchKind, score: number) => {
      const gid = b.vGroup[vid];
      const cur = best.get(gid);
      if (!cur || RANK[match] < RANK[cur.match] || (RANK[match] === RANK[cur.match] && score > cur.score)) best.set(gid, { match, score, vid });
    };
    const nq = normalize(q);
    for (const vid of ids(b.norm.get(nq || `\u0002${q}`))) {
      const isExact = b.vValue[vid].value.trim() === q || !!b.vAlso.get(vid)?.includes(q);
      offer(vid, isExact ? 'exact' : 'normalized', isExact ? 1 : 0.95);
    }
    this.fuzzy(b, nq, offer);
    return { candidates: this.finish(b, best, opts), problems: b.problems };
  }

  /** The best matches → candidates: ordered cheaply first, usages gathered only for the few kept. */
  private finish(b: Built, best: Map<number, { match: MatchKind; score: number; vid: number }>, opts: LookupOptions): Candidate[] {
    const limit = opts.limit ?? 10;
    const app = opts.fromFile !== undefined ? this.appOf(opts.fromFile) : undefined;
    const mine = (g: Group) => (g.component !== undefined && g.component === opts.fromFile ? 2 : app !== undefined && g.app === app ? 1 : 0);
    const pre = [...best.entries()]
      .map(([gid, m]) => ({ g: b.groups[gid], m, score: round(m.score) }))
      .sort((x, y) => RANK[x.m.match] - RANK[y.m.match] || y.score - x.score || mine(y.g) - mine(x.g) || literalLength(b.vNorm[y.m.vid]) - literalLength(b.vNorm[x.m.vid]));
    // ties at the cut are kept: the final order also looks at usages and keys
    let cut = Math.min(pre.length, limit);
    while (cut < pre.length && cut < limit * 20 && pre[cut].m.match === pre[cut - 1].m.match && pre[cut].score === pre[cut - 1].score && mine(pre[cut].g) === mine(pre[cut - 1].g)) cut++;
    return this.rank(
      pre.slice(0, cut).map((x) => this.candidate(x.g, b, x.m.match, x.score, b.vValue[x.m.vid])),
      opts,
    );
  }

  private fuzzy(b: Built, nq: string, offer: (vid: number, match: MatchKind, score: number) => void): void {
    const qt = [...new Set(tokens(nq))];
    if (!qt.length) return;
    const N = Math.max(1, b.vValue.length);
    if (!this.acc || this.acc.length < b.vValue.length) this.acc = new Float64Array(b.vValue.length);
    const acc = this.acc;
    const touched: number[] = [];
    let qWeight = 0;
    for (const t of qt) {
      const exactList = b.postings.get(t);
      const variants: Array<{ tok: string; w: number }> = [];
      if (exactList) variants.push({ tok: t, w: 1 });
      else {
        const budget = typoBudget(t.length);
        if (budget > 0) {
          const seen = new Set<string>();
          const probe = [t, ...deletions(t)];
          const close = (cand: string) => {
            if (seen.has(cand)) return;
            seen.add(cand);
            const d = boundedDistance(t, cand, Math.max(budget, typoBudget(cand.length)));
            if (d <= Math.max(budget, typoBudget(cand.length))) variants.push({ tok: cand, w: d === 1 ? 0.8 : 0.65 });
          };
          for (const p of probe) {
            if (p !== t && b.postings.has(p) && typoBudget(p.length) > 0) close(p); // the query has one extra character
            for (const cand of (b.deletes ??= typoIndex(b.postings.keys())).get(p) ?? []) close(cand);
          }
        }
      }
      const idfOf = (tok: string) => Math.log(1 + N / b.postings.get(tok)!.length);
      // an unknown token weighs as a rare one: it must count against the match
      const qw = variants.length ? Math.max(...variants.map((v) => idfOf(v.tok))) : Math.log(1 + N);
      qWeight += qw;
      for (const v of variants) {
        const w = v.w * idfOf(v.tok);
        for (const vid of b.postings.get(v.tok)!) {
          if (acc[vid] === 0) touched.push(vid);
          acc[vid] += w;
        }
      }
    }
    for (const vid of touched) {
      const w = acc[vid];
      acc[vid] = 0;
      const dice = (2 * Math.min(w, qWeight)) / (qWeight + b.vWeight[vid]);
      if (dice >= FUZZY_THRESHOLD) offer(vid, 'fuzzy', Math.min(0.9, dice * 0.9));
      // the wildcard match needs every literal token of the value in the query (of one
      // plural form, for `a | b | {n} c`)
      if (!b.vNorm[vid].includes('\u0001')) continue;
      const raw = b.vValue[vid].value;
      const plural = raw.includes('|');
      if (!plural && w < b.vWeight[vid] - 1e-9) continue;
      let re = b.vPattern[vid];
      if (re === null) re = b.vPattern[vid] = plural ? pluralPattern(raw) : placeholderPattern(b.vNorm[vid]);
      if (re && re.test(nq)) offer(vid, 'normalized', 0.9);
    }
  }

  /**
   * Exact, normalized, fuzzy — and semantic when nothing else matched and `embedder` is given
   * (without one, `semanticUnavailable` says so).
   */
  async lookupString(text: string, opts: LookupOptions & { embedder?: TextEmbedder; signal?: AbortSignal } = {}): Promise<LookupResult> {
    const lexical = this.lookupLexical(text, opts);
    if (lexical.candidates.length || !text.trim()) return lexical;
    if (!opts.embedder) return { ...lexical, semanticUnavailable: 'no embedding model: semantic matching is unavailable' };
    const b = this.build();
    const max = this.options.semanticMaxValues ?? 20_000;
    if (!this.vectors || this.vectors.embedderId !== opts.embedder.id) {
      const byText = new Map<string, number[]>();
      for (let vid = 0; vid < b.vValue.length; vid++) {
        const t = b.vValue[vid].value.trim();
        if (!t) continue;
        const l = byText.get(t);
        if (l) l.push(vid);
        else byText.set(t, [vid]);
      }
      if (byText.size > max) return { ...lexical, semanticUnavailable: `${byText.size} distinct values, over the ${max} embedded for semantic matching` };
      const texts = [...byText.keys()];
      const vecs = texts.length ? await opts.embedder.embed(texts, opts.signal) : [];
      this.vectors = { embedderId: opts.embedder.id, texts, byText, vecs };
    }
    const v = this.vectors;
    const [qv] = await opts.embedder.embed([text.trim()], opts.signal);
    const scored = v.vecs.map((vec, i) => ({ i, s: dot(vec, qv) })).sort((a, c) => c.s - a.s);
    const best = new Map<number, { score: number; vid: number }>();
    const floor = this.options.semanticMinScore ?? 0.25;
    for (const { i, s } of scored.slice(0, (opts.limit ?? 10) * 4)) {
      if (s < floor) break;
      for (const vid of v.byText.get(v.texts[i])!) {
        const gid = b.vGroup[vid];
        if (!best.has(gid)) best.set(gid, { score: s, vid });
      }
    }
    const list = [...best.entries()].map(([gid, m]) => this.candidate(b.groups[gid], b, 'semantic', round(Math.max(0, Math.min(1, m.score))), b.vValue[m.vid]));
    return { candidates: this.rank(list, opts), problems: b.problems };
  }

  /**
   * A key's values and usages: `a.b.c` (nested or flat), `ns:a.b` or `ns.a.b` for a namespaced
   * key. When no leaf has that key, the leaves under it (`a.b` → `a.b.c`, `a.b.d`) are returned.
   */
  lookupKey(key: string, opts: LookupOptions = {}): LookupResult {
    const b = this.build();
    const k = key.trim();
    const ids = new Set<number>();
    const addAll = (c: string) => {
      for (const id of b.byCanon.get(c) ?? []) ids.add(id);
    };
    const colon = /^([\w./-]+):(.+)$/.exec(k);
    if (colon) addAll(canon(colon[1], colon[2]));
    addAll(canon(undefined, k));
    const dot = k.indexOf('.');
    if (dot > 0 && b.namespaces.has(k.slice(0, dot))) addAll(canon(k.slice(0, dot), k.slice(dot + 1)));
    if (!ids.size && k) {
      const prefixes = [`${k}.`];
      if (colon) prefixes.push(`${colon[2]}.`);
      for (const g of b.groups) {
        const shown = display(g);
        if (prefixes.some((p) => g.path.startsWith(p) || shown.startsWith(p))) ids.add(g.id);
        if (ids.size >= 200) break;
      }
    }
    const list = [...ids].map((id) => this.candidate(b.groups[id], b, 'key', 1));
    return { candidates: this.rank(list, { ...opts, limit: opts.limit ?? 50 }), problems: b.problems };
  }

  /** The usages found in one file (what the search index attaches to that file's code chunks). */
  usagesIn(file: string): readonly Usage[] {
    return this.usages.get(file) ?? [];
  }

  /**
   * Every key as `lookupKey` takes it (`path`, or `ns:path`), with its value in each locale: what
   * the search index makes searchable with the code that uses the key.
   */
  keyValues(): Map<string, Array<{ locale: string; value: string }>> {
    const out = new Map<string, Array<{ locale: string; value: string }>>();
    for (const g of this.grouped().groups) {
      const key = g.namespace ? `${g.namespace}:${g.path}` : g.path;
      const list = out.get(key) ?? [];
      for (const e of g.values) list.push({ locale: e.locale, value: e.value });
      out.set(key, list);
    }
    return out;
  }

  /**
   * Key health (health.ts): undefined keys, unused keys, keys missing in some locales, values
   * identical to the source locale's.
   */
  health(): HealthReport {
    const b = this.build();
    const defined = this.definedTest(b);
    const undefinedUsages: Usage[] = [];
    let usages = 0;
    for (const list of this.usages.values()) {
      for (const u of list) {
        usages++;
        if (!u.dynamic && !defined(u) && !undefinedIsNoFinding(u)) undefinedUsages.push(u);
      }
    }
    // whether a key is used is all the check reads of its usages
    const groups = b.groups.map((g) => this.candidate(g, b, 'key', 1, undefined, true));
    const fixed = new Set<number>();
    for (const [i, g] of b.groups.entries()) if (g.values.some((v) => v.fixed)) fixed.add(i);
    return checkHealth({ groups, undefinedUsages, usages, referenced: this.referenced(b), fixed, sourceLanguage: this.options.sourceLanguage });
  }

  /**
   * The editor's diagnostics of one file: its usages of keys no locale defines (`text`: the
   * document's current text, else what was read), and — for a locale file — its entries nobody
   * uses. Each carries the quick fix's target: the key's value in the source locale, or for an
   * undefined key the source-locale entry nearest to it (the longest common key prefix).
   */
  diagnostics(file: string, text?: string): I18nDiagnostic[] {
    const b = this.build();
    const out: I18nDiagnostic[] = [];
    const app = this.appOf(file);
    const scopeLocales = new Map<string, number>();
    for (const g of b.groups) if (g.app === app && !g.component) for (const v of g.values) scopeLocales.set(v.locale, (scopeLocales.get(v.locale) ?? 0) + 1);
    const source = sourceLocaleOf(scopeLocales, this.options.sourceLanguage);
    const target = (e: LocaleEntry | undefined) => (e ? { file: e.file, locale: e.locale, range: toLocaleValue(e, this.locales.get(e.file)!.lines).range } : undefined);
    const defined = this.definedTest(b);
    const list = text !== undefined ? findUsages(file, text, this.usageOptions()) : (this.usages.get(file) ?? []);
    for (const u of list) {
      if (u.dynamic || defined(u) || undefinedIsNoFinding(u)) continue;
      const key = u.namespace ? `${u.namespace}:${u.key}` : u.key;
      // the nearest defined key of this app in the source locale: where the new key belongs
      let best: LocaleEntry | undefined;
      let bestLen = -1;
      for (const g of b.groups) {
        if (g.app !== app || g.component || (u.namespace && g.namespace !== u.namespace)) continue;
        const e = g.values.find((v) => v.locale === source);
        if (!e) continue;
        let n = 0;
        const a = g.path.split('.');
        const k = u.key.split('.');
        while (n < a.length && n < k.length && a[n] === k[n]) n++;
        if (n > bestLen) {
          bestLen = n;
          best = e;
        }
      }
      out.push({ kind: 'undefined', key, range: u.range, message: `i18n key "${key}" is defined in no locale`, source: target(best) });
    }
    const lf = this.locales.get(file);
    if (lf) {
      const referenced = this.referenced(b);
      const mine = new Set(lf.entries);
      for (const g of b.groups) {
        const e = g.values.find((v) => mine.has(v));
        if (!e) continue;
        const key = display(g);
        if (referenced.has(key) || referenced.has(g.path) || /_\d+$/.test(g.path) || this.usagesOf(g, b, true).length) continue;
        const src = g.values.find((v) => v.locale === source && v !== e);
        out.push({ kind: 'unused', key, range: toLocaleValue(e, lf.lines).keyRange, message: `i18n key "${key}" is used nowhere`, source: target(src) });
      }
    }
    return out.sort((a, c) => a.range.start.offset - c.range.start.offset);
  }

  /** Keys named inside values: vue-i18n links `@:key`, Fluent `{ -term }`/`{ message }`, i18next nesting `$t(key)`. */
  private referenced(b: Built): Set<string> {
    if (b.referenced) return b.referenced;
    const referenced = new Set<string>();
    for (const v of b.vValue) {
      if (!/[@{$]/.test(v.value)) continue;
      for (const m of v.value.matchAll(/@(?:\.\w+)?:\(?([\w.-]*\w)|\{\s*(-?[A-Za-z][\w-]*(?:\.[\w-]+)?)\s*\}|\$t\(\s*['"]?([\w.:-]+)/g)) referenced.add(m[1] ?? m[2] ?? m[3]);
    }
    return (b.referenced = referenced);
  }

  /**
   * Does a static usage name a defined key: in its app (or its component's own messages), with
   * its namespace or the first segment as one, as a plural base (`items` → `items_one`), or as a
   * parent of messages (`$tm('nav')`)?
   */
  private definedTest(b: Built): (u: Usage) => boolean {
    if (!b.parents) {
      const parents = new Set<string>();
      for (const g of b.groups) {
        for (let i = g.path.indexOf('.'); i > 0; i = g.path.indexOf('.', i + 1)) {
          parents.add(canon(g.namespace, g.path.slice(0, i)));
          if (g.namespace) parents.add(canon(undefined, g.path.slice(0, i)));
        }
      }
      b.parents = parents;
    }
    const parents = b.parents;
    const fits = (g: Group, file: string) => {
      if (g.component) return g.component === file;
      const app = this.appOf(file);
      return g.app === app || !b.appsWithKeys.has(app);
    };
    return (u: Usage) => {
      for (const k of usageCanons(u.namespace, u.key)) {
        if ((b.byCanon.get(k) ?? []).some((id) => fits(b.groups[id], u.file))) return true;
        if (PLURAL_FORMS.some((p) => (b.byCanon.get(k + p) ?? []).some((id) => fits(b.groups[id], u.file)))) return true;
        if (parents.has(k)) return true;
      }
      return false;
    };
  }

  /** Every usage in the workspace of one key (as `lookupKey` resolves it). */
  usagesOfKey(key: string): Usage[] {
    return this.lookupKey(key).candidates.flatMap((c) => c.usages);
  }

  /**
   * The `$t('key')` (or `v-t`, `<i18n-t keypath>` …) under `offset` of a document and its
   * translations. `text` is the document's current text (unsaved edits count); without it, the
   * usages recorded for `file` are used. Undefined when no usage is under the offset.
   */
  hover(file: string, offset: number, text?: string): HoverResult | undefined {
    const list = text !== undefined ? findUsages(file, text, this.usageOptions()) : (this.usages.get(file) ?? []);
    const usage = list.find((u) => offset >= u.range.start.offset && offset <= u.range.end.offset);
    if (!usage) return undefined;
    const b = this.build();
    const key = usage.namespace ? `${usage.namespace}:${usage.key}` : usage.key;
    let candidates: Candidate[];
    if (usage.dynamic) {
      const ids: number[] = [];
      for (const g of b.groups) {
        if ((!usage.namespace || g.namespace === usage.namespace) && g.path.startsWith(usage.key)) ids.push(g.id);
        if (ids.length >= 50) break;
      }
      candidates = this.rank(ids.map((id) => this.candidate(b.groups[id], b, 'key', 1)), { fromFile: file, limit: 50 });
    } else {
      // the component's own messages first, then its app's
      const local = b.groups.filter((g) => g.component === file && g.path === usage.key);
      candidates = local.length ? local.map((g) => this.candidate(g, b, 'key', 1)) : this.lookupKey(key, { fromFile: file }).candidates.filter((c) => !c.path.startsWith(`${usage.key}.`));
      const app = this.appOf(file);
      const mine = candidates.filter((c) => c.app === app || c.component === file);
      if (mine.length) candidates = mine;
    }
    return { usage, candidates, missing: !usage.dynamic && candidates.length === 0 };
  }
}

const PLURAL_FORMS = ['_one', '_other', '_zero', '_two', '_few', '_many', '_plural', '_0', '_1'];

/** One wildcard pattern for the plural forms (`no items | one item | {count} items`) that have placeholders. */
function pluralPattern(raw: string): RegExp | undefined {
  const sources = raw
    .split(/\s*\|\s*/)
    .map((f) => normalize(f))
    .filter(hasPlaceholder)
    .map((n) => placeholderPattern(n)?.source.slice(1, -1))
    .filter((x): x is string => !!x);
  return sources.length ? new RegExp(`^(?:${sources.join('|')})$`) : undefined;
}

function ids(x: number | number[] | undefined): number[] {
  return x === undefined ? [] : typeof x === 'number' ? [x] : x;
}

function display(g: { namespace?: string; path: string }): string {
  return g.namespace ? `${g.namespace}:${g.path}` : g.path;
}

/**
 * How specific a value is: its letters and digits apart from placeholders. Of two templates that
 * match equally ("Blocca {0}" and "Blocca dominio {0}" for "Blocca dominio Mastodon"), the one
 * that spells out more of the text comes first.
 */
function literalLength(norm: string): number {
  return norm.split(PLACEHOLDER).join('').replace(/\s+/g, '').length;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
