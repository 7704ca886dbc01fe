/**
 * Builds an `I18nIndex` from a folder's FileSource: the walk's files (.gitignore and the
 * folder's file selection honoured), of which only what can matter is read — package.json
 * files (apps), JSON files that a locale could live in, Vue SFCs and scripts (usages).
 * Unreadable or undecodable files are recorded as problems, never thrown. `feedI18n` applies
 * one read of the FileSource (the same one the engine chunks) to an index.
 */
import type { FileSelection } from '../workspace/files';
import { compileGlobs, splitGlobList } from '../workspace/glob';
import { NodeFileSource, type FileSource, type ReadResult } from '../workspace/source';
import { allyReader, readAllyConfig, withAlly } from './ally';
import { I18nIndex, type I18nIndexOptions } from './i18n-index';
import { JSON_FILE } from './formats/index';
import { frameworkOf } from './frameworks/index';
import { formatOf, identifyLocale } from './locales';
import type { I18nOptions, ScriptLocale, Usage } from './types';

const SCRIPT = /\.(?:[cm]?[jt]sx?|vue)$/i;
const JSONISH = JSON_FILE;

/** The locale-glob test, or undefined without globs. Globs are relative to the root, `/`-separated. */
export function globMatcher(globs: string[] | undefined): ((rel: string) => boolean) | undefined {
  const list = (globs ?? []).flatMap(splitGlobList);
  if (!list.length) return undefined;
  return compileGlobs(list);
}

/** Is this file one the i18n index reads? */
export function wantsFile(rel: string, matchesGlobs?: (rel: string) => boolean): boolean {
  const lower = rel.toLowerCase();
  if (lower === 'package.json' || lower.endsWith('/package.json')) return true;
  if (formatOf(rel, { matchesGlobs })) return true;
  if (SCRIPT.test(lower)) return !lower.endsWith('.min.js') && !lower.endsWith('.d.ts');
  if (frameworkOf(rel)) return true;
  if (JSONISH.test(lower)) return matchesGlobs ? matchesGlobs(rel) : identifyLocale(rel) !== undefined;
  return false;
}

export interface LoadedI18n {
  index: I18nIndex;
  filesRead: number;
  ms: number;
}

/** A locale-format file (JSON, or another format `formatOf` knows), as opposed to code. */
function isLocaleFormat(rel: string, matchesGlobs?: (rel: string) => boolean): boolean {
  return JSONISH.test(rel) || formatOf(rel, { matchesGlobs }) !== undefined;
}

/** The read cap of an i18n file, in bytes: locale files may be large, code files less so. */
export function i18nCap(rel: string, opts: I18nOptions = {}, matchesGlobs?: (rel: string) => boolean): number {
  return isLocaleFormat(rel, matchesGlobs) ? (opts.maxLocaleBytes ?? 20 * 1024 * 1024) : (opts.maxCodeBytes ?? 1024 * 1024);
}

/**
 * Applies one read of the FileSource to the index: the decoded text in, or why it could not
 * be read as a problem (for locale files; a code file that cannot be read only loses its
 * usages), or the file dropped when it is gone. True when the text went in.
 */
export function feedI18n(index: I18nIndex, r: ReadResult, opts: I18nOptions = {}, usages?: Usage[], script?: ScriptLocale, source?: Pick<FileSource, 'stat'>): boolean {
  const isJson = isLocaleFormat(r.rel, index.options.matchesGlobs);
  const cap = i18nCap(r.rel, opts, index.options.matchesGlobs);
  if (!r.ok) {
    if (r.reason === 'missing') index.deleteFile(r.rel);
    else if (isJson) index.setProblem(r.rel, { kind: 'unreadable', file: r.rel, message: r.reason === 'too-large' ? `${r.detail}: skipped` : `unreadable: ${r.detail}` });
    else index.deleteFile(r.rel);
    return false;
  }
  if (r.stat.size > cap) {
    if (isJson) index.setProblem(r.rel, { kind: 'unreadable', file: r.rel, message: `${r.stat.size} bytes, over the ${cap}-byte cap: skipped` });
    else index.deleteFile(r.rel);
    return false;
  }
  if (r.decoded.text === undefined) {
    // a format Fathom does not read says so; a compiled gettext catalog beside the .po it was
    // compiled from says nothing (the .po is read: Django ships both, a problem line for each .mo)
    if (/\.mo$/i.test(r.rel) && source?.stat(r.rel.replace(/\.mo$/i, '.po'))) index.deleteFile(r.rel);
    else if (formatOf(r.rel, { matchesGlobs: index.options.matchesGlobs })?.name === 'unsupported') index.setFile(r.rel, '', usages, script);
    else if (isJson) index.setProblem(r.rel, { kind: 'unreadable', file: r.rel, message: `binary: ${r.decoded.binary ?? ''}` });
    else index.deleteFile(r.rel);
    return false;
  }
  index.setFile(r.rel, r.decoded.text, usages, script);
  return true;
}

export type LoadOptions = I18nOptions & Omit<I18nIndexOptions, 'matchesGlobs'> & { selection?: FileSelection };

/** A new, empty index with the loader's options (locale globs compiled). */
export function newI18nIndex(opts: LoadOptions = {}): I18nIndex {
  return new I18nIndex({ ...opts, matchesGlobs: globMatcher(opts.localeGlobs) });
}

/** Walks the source and reads its locale and code files into a new index, pausing (yield) after each file read. */
function* readFolder(source: FileSource, given: LoadOptions): Generator<void, LoadedI18n> {
  const t0 = performance.now();
  // i18n Ally's settings (.vscode/settings.json, its custom framework), under Fathom's own
  const opts = withAlly(given, readAllyConfig(allyReader(source)));
  const index = newI18nIndex(opts);
  const matchesGlobs = index.options.matchesGlobs;
  let filesRead = 0;
  const files = source.walk(opts.selection);
  // package.json files first: apps are known before any locale file is grouped
  files.sort((a, b) => Number(!a.rel.endsWith('package.json')) - Number(!b.rel.endsWith('package.json')));
  for (const f of files) {
    if (!wantsFile(f.rel, matchesGlobs)) continue;
    if (feedI18n(index, source.read(f.rel, i18nCap(f.rel, opts, matchesGlobs)), opts, undefined, undefined, source)) filesRead++;
    yield;
  }
  return { index, filesRead, ms: performance.now() - t0 };
}

const sourceOf = (s: FileSource | string): FileSource => (typeof s === 'string' ? new NodeFileSource(s) : s);

/**
 * The same as `loadI18nIndex`, giving the event loop a turn every `everyMs` of work (default
 * 20 ms) so that a worker keeps answering other requests while it reads a large folder; stops
 * with the signal's reason once `signal` aborts.
 */
export async function loadI18nIndexAsync(source: FileSource | string, opts: LoadOptions = {}, signal?: AbortSignal, everyMs = 20): Promise<LoadedI18n> {
  const steps = readFolder(sourceOf(source), opts);
  let slice = performance.now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (performance.now() - slice > everyMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      slice = performance.now();
    }
  }
}

/** The i18n index of a folder (a path: on disk), read through its FileSource. */
export function loadI18nIndex(source: FileSource | string, opts: LoadOptions = {}): LoadedI18n {
  const steps = readFolder(sourceOf(source), opts);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}
