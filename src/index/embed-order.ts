/**
 * The order in which chunks are embedded, so that search by meaning helps early: on 2 cores a
 * first index embeds 30–40 chunks/s, so a 20k-chunk workspace takes 10 minutes, and search
 * is hybrid over what is embedded so far. Tiers, first to last:
 *
 * 0. files the editor hints at (open, visible, recently edited: `Engine.setPriority`);
 * 1. source code (the languages whose `embed` is 'code' in chunkers/languages.ts);
 * 2. docs, config and schemas, test code;
 * 3. locale files (i18n dictionaries, also as JS/TS modules in a locale folder) and fixtures
 *    (test data, mocks, snapshots): many chunks, and the i18n lookup finds their strings
 *    without vectors.
 *
 * Within a tier, the walk's order. Pure: a function of the path, language and JSON category.
 */

import { CODE_LANGUAGES, DATA_LANGUAGES } from '../chunkers/languages';

export const TIERS = 4;
export const HINTED_TIER = 0;

const LOCALE_DIRS = new Set(['locale', 'locales', 'i18n', 'l10n', 'lang', 'langs', 'translations', 'translation']);
const FIXTURE_DIRS = new Set(['fixtures', 'fixture', '__fixtures__', '__mocks__', '__mock__', 'mocks', 'mock', '__snapshots__', 'testdata', 'test-data', 'test_data', 'mock-data', 'mockdata', 'mock_data']);
const TEST_DIRS = new Set(['test', 'tests', '__tests__', '__test__', 'spec', 'specs', 'e2e']);
const FIXTURE_NAME = /\.(?:snap|fixture|fixtures|mock|mocks|stub)\.[\w]+$/i;
const TEST_NAME = /[._-](?:test|spec)\.[\w]+$/i;

/** The tier (0 first) of a file's chunks when the editor does not hint at it. */
export function embedTier(path: string, language: string, category?: string): number {
  const parts = path.toLowerCase().split('/');
  const base = parts.pop() ?? '';
  if (category === 'i18n' || category === 'fixture' || FIXTURE_NAME.test(base)) return 3;
  if (parts.some((d) => FIXTURE_DIRS.has(d))) return 3;
  if (parts.some((d) => LOCALE_DIRS.has(d)) && (DATA_LANGUAGES.has(language) || CODE_LANGUAGES.has(language))) return 3;
  if (CODE_LANGUAGES.has(language)) return parts.some((d) => TEST_DIRS.has(d)) || TEST_NAME.test(base) ? 2 : 1;
  return 2;
}

/**
 * The chunks waiting for a vector, by tier: `take(n)` gives the next n (tier 0 first, then in
 * the order they were added), `move` re-tiers one. Every operation is O(1) but `take`, which is
 * O(n + tiers) — a 1M-chunk backlog is never scanned per batch.
 */
export class EmbedQueue implements Iterable<number> {
  private readonly tiers: Array<Set<number>> = Array.from({ length: TIERS }, () => new Set<number>());
  private readonly tierOf = new Map<number, number>();

  get size(): number {
    return this.tierOf.size;
  }

  has(id: number): boolean {
    return this.tierOf.has(id);
  }

  /** Adds `id` at the end of `tier` (moves it there when it waits already). */
  add(id: number, tier: number): void {
    const t = Math.min(TIERS - 1, Math.max(0, Math.floor(tier)));
    const old = this.tierOf.get(id);
    if (old !== undefined) this.tiers[old].delete(id);
    this.tiers[t].add(id);
    this.tierOf.set(id, t);
  }

  /** Moves a waiting `id` to the end of `tier`; false when it does not wait. */
  move(id: number, tier: number): boolean {
    if (!this.tierOf.has(id)) return false;
    this.add(id, tier);
    return true;
  }

  delete(id: number): boolean {
    const t = this.tierOf.get(id);
    if (t === undefined) return false;
    this.tiers[t].delete(id);
    this.tierOf.delete(id);
    return true;
  }

  clear(): void {
    for (const s of this.tiers) s.clear();
    this.tierOf.clear();
  }

  /** The next `n` ids in embedding order (they stay in the queue until deleted). */
  take(n: number): number[] {
    const out: number[] = [];
    for (const s of this.tiers) {
      for (const id of s) {
        if (out.length >= n) return out;
        out.push(id);
      }
    }
    return out;
  }

  /** How many wait in each tier. */
  counts(): number[] {
    return this.tiers.map((s) => s.size);
  }

  *[Symbol.iterator](): Iterator<number> {
    for (const s of this.tiers) yield* s;
  }
}
