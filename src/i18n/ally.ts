/**
 * i18n Ally's own configuration, read so that a project set up for that extension works with no
 * Fathom setting:
 *
 * - `.vscode/settings.json` (JSONC): `i18n-ally.localesPaths` (folders, or globs, relative to
 *   the root; a string may list several with commas) become locale globs (`<path>/**`);
 *   `i18n-ally.sourceLanguage` is the locale the key health checks the others against;
 *   `i18n-ally.enabledFrameworks`, when set without `custom`, turns the custom framework off (as
 *   in i18n Ally). `i18n-ally.keystyle` (`nested`/`flat`) and `i18n-ally.namespace` need nothing:
 *   Fathom gives a nested and a flat dotted key the same key, and takes the namespace from the
 *   file's path (`locales/en/common.json` → `common`) either way.
 * - `.vscode/i18n-ally-custom-framework.yml`: `usageMatchRegex` (one or a list; `{key}` stands
 *   for a key, the first group is the key), `languageIds` (the VS Code languages it applies to;
 *   none: every file whose usages are looked for) and `monopoly` (in those languages, only the
 *   custom regexes find usages).
 *
 * The regexes come from a cloned repository: they run on RE2JS, whose matching is linear in the
 * text (no backtracking), each at most `MAX_REGEX_LENGTH` characters and `MAX_REGEXES` of them;
 * one RE2 cannot run (a backreference, a lookaround) or that is over a bound is refused with a
 * problem naming it, never run on JavaScript's backtracking engine.
 *
 * Fathom's own settings win: its locale globs replace i18n Ally's; its translate functions
 * are added to the custom regexes (both find usages).
 */
import * as jsonc from 'jsonc-parser';
import { RE2JS } from 're2js';
import { parse as parseYaml } from 'yaml';
import { canonicalLocale } from './locale-code';
import type { FileSource } from '../workspace/source';
import type { I18nProblem, UsagePatterns } from './types';

export type { UsagePatterns } from './types';

export const ALLY_SETTINGS = '.vscode/settings.json';
export const ALLY_CUSTOM = '.vscode/i18n-ally-custom-framework.yml';
/** The files i18n Ally's configuration is read from. */
export const ALLY_FILES = [ALLY_SETTINGS, ALLY_CUSTOM];
/** Longest custom regex read (characters, before `{key}` is replaced). */
export const MAX_REGEX_LENGTH = 500;
/** Most custom regexes read. */
export const MAX_REGEXES = 32;
/** Largest configuration file read (bytes). */
export const MAX_CONFIG_BYTES = 256 * 1024;
/**
 * What `{key}` stands for: i18n Ally's default key matcher (word characters, dots, spaces,
 * dashes, brackets, slashes and colons), lazily.
 */
const KEY_PATTERN = '[\\w.\\- \\[\\]/:]*?';

/** What i18n Ally's configuration gives Fathom. */
export interface AllyConfig {
  localeGlobs?: string[];
  sourceLanguage?: string;
  patterns?: UsagePatterns;
  /** What was refused or could not be read (shown with the locale files' problems). */
  problems: I18nProblem[];
}

/** A root-relative file's text, undefined when there is none, or why it was not read. */
export type ConfigReader = (rel: string) => string | undefined | { notRead: string };

/** Reads i18n Ally's configuration files through `read`. Never throws. */
export function readAllyConfig(read: ConfigReader): AllyConfig {
  const out: AllyConfig = { problems: [] };
  const text = (rel: string): string | undefined => {
    const r = read(rel);
    if (typeof r === 'object') out.problems.push({ kind: 'unreadable', file: rel, message: `${r.notRead}: i18n Ally's settings in it are not read` });
    return typeof r === 'string' ? r : undefined;
  };
  const settingsText = text(ALLY_SETTINGS);
  let enabled: string[] | undefined;
  if (settingsText !== undefined) {
    const errors: jsonc.ParseError[] = [];
    const s = jsonc.parse(settingsText, errors, { allowTrailingComma: true, disallowComments: false }) as Record<string, unknown> | undefined;
    if (!s || typeof s !== 'object' || Array.isArray(s)) {
      if (settingsText.includes('i18n-ally.')) out.problems.push({ kind: 'malformed', file: ALLY_SETTINGS, message: "does not parse as a JSON object: i18n Ally's settings in it are not read" });
    } else {
      const paths = stringList(s['i18n-ally.localesPaths']).flatMap((p) => p.split(','));
      const globs: string[] = [];
      for (const raw of paths) {
        const p = raw.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
        if (!p) continue;
        if (p.startsWith('/') || /^[a-z]:/i.test(p) || p.split('/').includes('..')) {
          out.problems.push({ kind: 'unsupported', file: ALLY_SETTINGS, message: `i18n-ally.localesPaths "${p}" is outside the folder: not read` });
          continue;
        }
        globs.push(p === '.' ? '**' : `${p}/**`);
      }
      if (globs.length) out.localeGlobs = globs;
      const src = s['i18n-ally.sourceLanguage'];
      if (typeof src === 'string' && src.trim()) out.sourceLanguage = canonicalLocale(src.trim());
      if (s['i18n-ally.enabledFrameworks'] !== undefined) enabled = stringList(s['i18n-ally.enabledFrameworks']);
    }
  }
  const customText = enabled && !enabled.includes('custom') ? undefined : text(ALLY_CUSTOM);
  if (customText !== undefined) readCustom(customText, out);
  return out;
}

function stringList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

function readCustom(text: string, out: AllyConfig): void {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 10 });
  } catch (err) {
    out.problems.push({ kind: 'malformed', file: ALLY_CUSTOM, message: `does not parse as YAML (${(err as Error).message.split('\n')[0]}): its usage regexes are not used` });
    return;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return;
  const d = doc as Record<string, unknown>;
  // keyMatchReg: i18n Ally's older name of usageMatchRegex
  const sources = stringList(d.usageMatchRegex ?? d.keyMatchReg);
  const regexes: string[] = [];
  for (const [i, src] of sources.entries()) {
    if (i >= MAX_REGEXES) {
      out.problems.push({ kind: 'unsupported', file: ALLY_CUSTOM, message: `${sources.length} usage regexes, over ${MAX_REGEXES}: the ${sources.length - MAX_REGEXES} after the ${MAX_REGEXES}th are not used` });
      break;
    }
    const why = refusal(src);
    if (why) out.problems.push({ kind: 'unsupported', file: ALLY_CUSTOM, message: `usageMatchRegex ${JSON.stringify(src.length > 80 ? `${src.slice(0, 80)}…` : src)} ${why}: not used` });
    else regexes.push(withKey(src));
  }
  if (!regexes.length) return;
  const ids = stringList(d.languageIds);
  const unknown = ids.filter((id) => !KNOWN_LANGUAGES.has(id));
  if (unknown.length) out.problems.push({ kind: 'unsupported', file: ALLY_CUSTOM, message: `languageIds ${unknown.join(', ')}: no usages are looked for in ${unknown.length > 1 ? 'these languages' : 'this language'}` });
  out.patterns = { regexes, ...(ids.length ? { languageIds: ids } : {}), ...(d.monopoly === true ? { monopoly: true } : {}) };
}

const withKey = (src: string): string => src.replace(/\{key\}/g, KEY_PATTERN);

/** Why a custom regex is not used, or undefined when it is. */
function refusal(src: string): string | undefined {
  if (src.length > MAX_REGEX_LENGTH) return `is ${src.length} characters, over ${MAX_REGEX_LENGTH}`;
  if (!src.includes('{key}')) return 'has no {key}';
  let re: RE2JS;
  try {
    re = RE2JS.compile(withKey(src), RE2JS.MULTILINE);
  } catch (err) {
    return `cannot run in linear time (${(err as Error).message})`;
  }
  if (re.groupCount() < 1) return 'has no group: the key is its first group, as in ({key})';
  return undefined;
}

/** VS Code's language id of a file, from its name. */
export function languageIdOf(rel: string): string | undefined {
  const lower = rel.toLowerCase();
  if (lower.endsWith('.blade.php')) return 'blade';
  const ext = lower.slice(lower.lastIndexOf('.') + 1);
  return LANGUAGE_IDS[ext];
}

const LANGUAGE_IDS: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascriptreact',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescriptreact',
  vue: 'vue',
  svelte: 'svelte',
  html: 'html',
  htm: 'html',
  hbs: 'handlebars',
  handlebars: 'handlebars',
  php: 'php',
  dart: 'dart',
  py: 'python',
  rb: 'ruby',
  erb: 'erb',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  swift: 'swift',
  m: 'objective-c',
  cs: 'csharp',
  cshtml: 'razor',
};
/** The languages whose files Fathom looks for usages in (the custom regexes run in no other). */
const KNOWN_LANGUAGES = new Set(Object.values(LANGUAGE_IDS));

/** Does `patterns` apply to this file (its language is among the ids, or no ids are given)? */
export function patternsApply(patterns: UsagePatterns, rel: string): boolean {
  if (!patterns.languageIds) return true;
  const id = languageIdOf(rel);
  return id !== undefined && patterns.languageIds.includes(id);
}

const compiled = new Map<string, RE2JS | null>();

function compile(src: string): RE2JS | undefined {
  let re = compiled.get(src);
  if (re === undefined) {
    try {
      re = RE2JS.compile(src, RE2JS.MULTILINE);
    } catch {
      re = null; // refused when the configuration was read; a changed one is read again
    }
    if (compiled.size > 256) compiled.clear();
    compiled.set(src, re);
  }
  return re ?? undefined;
}

/** The keys the custom regexes find in `text` (offsets of the key, the first group): linear in the text per regex. */
export function patternUsages(patterns: UsagePatterns, text: string): Array<{ key: string; start: number; end: number }> {
  const out: Array<{ key: string; start: number; end: number }> = [];
  for (const src of patterns.regexes) {
    const re = compile(src);
    if (!re) continue;
    const m = re.matcher(text);
    while (m.find()) {
      const start = m.start(1);
      const end = m.end(1);
      if (start < 0 || end <= start) continue;
      out.push({ key: text.slice(start, end), start, end });
    }
  }
  return out;
}

/** Fathom's configuration with i18n Ally's folded in: Fathom's own locale globs win. */
export function withAlly<C extends { localeGlobs?: string[]; sourceLanguage?: string; patterns?: UsagePatterns; configProblems?: I18nProblem[] }>(config: C, ally: AllyConfig): C {
  const out: C = { ...config };
  if (!config.localeGlobs?.length && ally.localeGlobs) out.localeGlobs = ally.localeGlobs;
  if (!config.sourceLanguage && ally.sourceLanguage) out.sourceLanguage = ally.sourceLanguage;
  if (!config.patterns && ally.patterns) out.patterns = ally.patterns;
  if (ally.problems.length) out.configProblems = [...(config.configProblems ?? []), ...ally.problems];
  return out;
}

/** `read` for `readAllyConfig` over a FileSource-like reader. */
export function allyReader(source: Pick<FileSource, 'read' | 'stat'>): ConfigReader {
  return (rel) => {
    if (!source.stat(rel)) return undefined;
    const r = source.read(rel, MAX_CONFIG_BYTES);
    if (r.ok) return r.decoded.text ?? { notRead: 'binary' };
    return r.reason === 'missing' ? undefined : { notRead: r.detail };
  };
}
