/**
 * The data of i18n, in one file below everything else in i18n/ (the formats, the framework
 * extractors, locales.ts and usages.ts all import it; it imports none of them):
 * - what a lookup answers: plain, serializable (it crosses the worker protocol as is);
 * - what the locale readers and usage extractors give back (`LocaleFile`, `LocaleEntry`, `Leaf`,
 *   `Raw`) and the options they take: declared here, not in locales.ts or usages.ts, so that
 *   formats/ and frameworks/ need nothing from the files that register them.
 *
 * Vocabulary:
 * - a **locale file** holds one locale's messages (`en.json`, `core_fr.json`,
 *   `locales/de/common.json`), or several locales at once (a Vue SFC `<i18n>` block whose
 *   top-level keys are locales);
 * - a **key** is the dotted path of a string leaf (`events.create.TITLE`); nested objects and
 *   flat dotted keys (`"a.b.c": "x"`) give the same key;
 * - a **namespace** is the file name under a per-locale folder (`locales/de/common.json` →
 *   `common`), shown i18next-style as `common:save`;
 * - an **app** is the folder of the nearest package.json (`''` for the workspace root):
 *   each app's keys are its own in a monorepo;
 * - a **key group** merges one key's values in every locale of one app (and one SFC, for
 *   component-local `<i18n>` messages);
 * - a **usage** is a place in code that names a key (`$t('a.b')`, `v-t`, `<i18n-t keypath>` …).
 *
 * Positions: offsets in UTF-16 code units of the file's text (BOM removed), lines 1-based,
 * columns 0-based, as everywhere in Fathom.
 */
import type { Position, SourceText } from '../parse/source-text';

export interface TextRange {
  start: Position;
  end: Position;
}

/** How a candidate matched a looked-up string (best first), or `key` for a key lookup. */
export type MatchKind = 'exact' | 'normalized' | 'fuzzy' | 'semantic' | 'key';

export interface LocaleValue {
  locale: string;
  /** Workspace-relative path with `/`. */
  file: string;
  value: string;
  /** The value's text inside its quotes (what a jump selects). */
  range: TextRange;
  /** The property name's text inside its quotes (the last segment of the key). */
  keyRange: TextRange;
}

export interface Usage {
  file: string;
  /** The static key as written (namespace and `keyPrefix` resolved), or the static prefix of a dynamic key. */
  key: string;
  namespace?: string;
  /** `$t(\`x.${y}\`)`: only `key` (= the static prefix, here `x.`) is known. */
  dynamic: boolean;
  /** What names the key: `$t`, `t`, `this.$t`, `i18n.t`, `v-t`, `i18n-t keypath`, `i18nKey` … */
  via: string;
  /** The key's text in the source (inside its quotes), or the whole expression when dynamic. */
  range: TextRange;
}

export interface Candidate {
  /** Shown key: `a.b.c`, or `ns:a.b.c` for a namespaced key. */
  key: string;
  /** The key path without namespace. */
  path: string;
  namespace?: string;
  /** App folder (nearest package.json), `''` for the workspace root. */
  app: string;
  /** Set for component-local messages: the `.vue` file whose `<i18n>` block defines them. */
  component?: string;
  match: MatchKind;
  /** 1 for exact; in (0, 1] otherwise, higher is closer. */
  score: number;
  /** The locale value that matched (absent for `key`). */
  matched?: { locale: string; value: string; file: string };
  /** The key's value in every locale, sorted by locale. */
  locales: LocaleValue[];
  usages: Usage[];
}

export type ProblemKind = 'malformed' | 'duplicate' | 'conflict' | 'unsupported' | 'unreadable' | 'unknown-locale';

export interface I18nProblem {
  kind: ProblemKind;
  file: string;
  line?: number;
  message: string;
}

export interface LookupResult {
  candidates: Candidate[];
  /** Problems of the locale files behind the answer (malformed files, duplicates, conflicts …). */
  problems: I18nProblem[];
  /** Why semantic matching did not run although nothing else matched (no model, too many values …). */
  semanticUnavailable?: string;
}

export interface HoverResult {
  /** The usage under the offset. */
  usage: Usage;
  /** The key groups it names: one for a static key (none when the key is missing), those under the prefix for a dynamic one. */
  candidates: Candidate[];
  /** A static key that no locale defines. */
  missing: boolean;
}

/** An editor diagnostic of one file (computed in the worker; the editor only shows it). */
export interface I18nDiagnostic {
  /** `undefined`: a usage of a key no locale defines; `unused`: a locale entry no usage names. */
  kind: 'undefined' | 'unused';
  key: string;
  /** The usage's key text, or the entry's key text. */
  range: TextRange;
  message: string;
  /** The quick fix's target in the source locale (the key's value there, or the nearest key's). */
  source?: { file: string; locale: string; range: TextRange };
}

export interface StringAtResult {
  /** The text as shown: a string literal's value, or template text trimmed. */
  text: string;
  /** The text's range in the document (inside quotes). */
  range: TextRange;
  kind: 'string' | 'template-literal' | 'template-text' | 'attribute' | 'jsx-text' | 'json-string' | 'selection' | 'line';
}

export interface I18nOptions {
  /** Globs (relative to the root) that are locale files, overriding discovery. */
  localeGlobs?: string[];
  /** Skip code files larger than this when looking for usages (default 1 MB). */
  maxCodeBytes?: number;
  /** Skip locale files larger than this (default 20 MB). */
  maxLocaleBytes?: number;
  /** A project's own translate functions (`translate`, `i18n.tr`): their first argument is a key. */
  functions?: string[];
  /** i18n Ally's custom framework: usage regexes (ally.ts). */
  patterns?: UsagePatterns;
  /** The locale key health checks the others against (i18n Ally's `sourceLanguage`). */
  sourceLanguage?: string;
  /** Problems of the configuration (a refused regex), shown with the locale files' problems. */
  configProblems?: I18nProblem[];
}

export interface LookupOptions {
  /** Workspace-relative file the lookup comes from: its app's keys rank first. */
  fromFile?: string;
  /** Candidates at most (default 10). */
  limit?: number;
}

/**
 * What a semantic lookup needs of an embedding model: its vector space's id and `embed`. The
 * index's `Embedder` (index/embedder.ts) is one; declared here so that i18n/ imports nothing
 * from index/.
 */
export interface TextEmbedder {
  readonly id: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** The custom framework's usage regexes, as the index and the chunk threads are given them (plain data; read by ally.ts). */
export interface UsagePatterns {
  /** The regexes with `{key}` replaced, each checked to compile on RE2JS. */
  regexes: string[];
  /** VS Code language ids they apply to; undefined: every file whose usages are looked for. */
  languageIds?: string[];
  /** In those languages, only these regexes find usages. */
  monopoly?: boolean;
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
  /** Other texts this message is shown as (Fluent variants). */
  also?: string[];
  /** A value the file repeats from the source (XLIFF `<source>` in a translation): dropped when another file gives it. */
  derived?: boolean;
  /** A message its author marked as not to translate (Android's `translatable="false"`): key health never says it missing or identical in another locale. */
  fixed?: boolean;
}

/**
 * One message as a reader finds it, before it is an entry of a file: a `LocaleEntry` without
 * the file and namespace (`buildEntries` adds them), whose locale is the file's unless set here
 * (XLIFF source and target, multi-locale YAML and SFC blocks).
 */
export type Leaf = Omit<LocaleEntry, 'locale' | 'file' | 'namespace'> & { locale?: string };

/** A locale file as read: its entries, its problems and its line table. */
export interface LocaleFile {
  file: string;
  entries: LocaleEntry[];
  problems: I18nProblem[];
  /** Set for a Vue SFC's `<i18n>` messages (component-local). */
  component?: boolean;
  /** The file's line table (offsets → positions). */
  lines: SourceText;
}

/** A locale module as a chunk thread read it: the file without its line table (rebuilt from the text). null: not a locale module. */
export type ScriptLocale = Omit<LocaleFile, 'lines'> | null;

/** A usage as an extractor finds it: offsets in the file's text (usages.ts turns them into a `Usage`). */
export interface Raw {
  key: string;
  namespace?: string;
  dynamic: boolean;
  via: string;
  start: number;
  end: number;
}

/** Options of usage extraction. */
export interface UsageOptions {
  /** A project's own translate functions (`translate`, `i18n.tr`, `__`): called with the key first. */
  functions?: string[];
  /**
   * Also read the file as a locale module (`readLocaleScript`, `globbed`: it matched the
   * user's locale globs), where a chunk thread parses it: the indexing thread then never loads
   * Babel (compiling it a second time, in its own isolate, was ~5% of a cold index's CPU).
   */
  localeScript?: 'plain' | 'globbed';
  /** i18n Ally's custom framework (`.vscode/i18n-ally-custom-framework.yml`): usage regexes run on RE2JS. */
  patterns?: UsagePatterns;
}
