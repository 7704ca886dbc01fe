/**
 * Builds an `I18nIndex` from a folder on disk: the file walker's files (.gitignore honoured),
 * of which only what can matter is read — package.json files (apps), JSON files that a locale
 * could live in, Vue SFCs and scripts (usages). Unreadable or undecodable files are recorded as
 * problems, never thrown.
 */
import * as fs from 'node:fs';
import picomatch from 'picomatch';
import { decodeBytes } from '../chunkers/decode';
import { walkFiles } from '../workspace/files';
import { I18nIndex, type I18nIndexOptions } from './index';
import { frameworkOf } from './frameworks/index';
import { formatOf, identifyLocale } from './locales';
import type { I18nOptions } from './types';

const SCRIPT = /\.(?:[cm]?[jt]sx?|vue)$/i;
const JSONISH = /\.(?:json|jsonc|json5)$/i;

/** The locale-glob test, or undefined without globs. Globs are relative to the root, `/`-separated. */
export function globMatcher(globs: string[] | undefined): ((rel: string) => boolean) | undefined {
  const list = (globs ?? []).flatMap((g) => g.split(',')).map((g) => g.trim()).filter(Boolean);
  if (!list.length) return undefined;
  return picomatch(list, { dot: true });
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

/** Reads `rel` of `root` into the index (or records why it could not). */
export function readInto(index: I18nIndex, abs: string, rel: string, size: number, opts: I18nOptions = {}): boolean {
  const isJson = JSONISH.test(rel) || formatOf(rel, { matchesGlobs: index.options.matchesGlobs }) !== undefined;
  const cap = isJson ? (opts.maxLocaleBytes ?? 20 * 1024 * 1024) : (opts.maxCodeBytes ?? 1024 * 1024);
  if (size > cap) {
    if (isJson) index.setProblem(rel, { kind: 'unreadable', file: rel, message: `${size} bytes, over the ${cap}-byte cap: skipped` });
    return false;
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(abs);
  } catch (err) {
    index.setProblem(rel, { kind: 'unreadable', file: rel, message: `unreadable: ${(err as Error).message}` });
    return false;
  }
  const d = decodeBytes(bytes);
  if (d.text === undefined) {
    if (isJson) index.setProblem(rel, { kind: 'unreadable', file: rel, message: `binary: ${d.binary ?? ''}` });
    return false;
  }
  index.setFile(rel, d.text);
  return true;
}

type LoadOptions = I18nOptions & Omit<I18nIndexOptions, 'matchesGlobs'>;

/** Walks `root` and reads its locale and code files into a new index, pausing (yield) after each file read. */
function* readFolder(root: string, opts: LoadOptions): Generator<void, LoadedI18n> {
  const t0 = performance.now();
  const matchesGlobs = globMatcher(opts.localeGlobs);
  const index = new I18nIndex({ ...opts, matchesGlobs });
  let filesRead = 0;
  const files = walkFiles(root);
  // package.json files first: apps are known before any locale file is grouped
  files.sort((a, b) => Number(!a.rel.endsWith('package.json')) - Number(!b.rel.endsWith('package.json')));
  for (const f of files) {
    if (!wantsFile(f.rel, matchesGlobs)) continue;
    if (readInto(index, f.abs, f.rel, f.size, opts)) filesRead++;
    yield;
  }
  return { index, filesRead, ms: performance.now() - t0 };
}

/**
 * The same as `loadI18nIndex`, giving the event loop a turn every `everyMs` of work (default
 * 20 ms) so that a worker keeps answering other requests while it reads a large folder; stops
 * with the signal's reason once `signal` aborts.
 */
export async function loadI18nIndexAsync(root: string, opts: LoadOptions = {}, signal?: AbortSignal, everyMs = 20): Promise<LoadedI18n> {
  const steps = readFolder(root, opts);
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

/** The i18n index of `root`, read from disk. */
export function loadI18nIndex(root: string, opts: LoadOptions = {}): LoadedI18n {
  const steps = readFolder(root, opts);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}
