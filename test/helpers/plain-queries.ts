import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownModelWeight } from '../../src/index/rank/fusion';

/**
 * Queries in plain words for which Fathom's own model is asked: the first words of the doc
 * comments (`/** Words …`) of the `.ts` files in `dir`, reversed, so that no chunk holds them as
 * written (no phrase tier), kept when `ownModelWeight` asks the model; at most `max`.
 */
export function plainWordsQueries(dir: string, max = 30): string[] {
  const sentences = new Set<string>();
  for (const f of fs.readdirSync(dir).sort()) {
    if (!f.endsWith('.ts')) continue;
    for (const m of fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/\/\*\* ([A-Za-z][a-z ,]{20,80})[.:;(]/g)) {
      const words = m[1].replace(/,/g, ' ').split(/\s+/).filter(Boolean);
      if (words.length >= 4) sentences.add(words.reverse().join(' ').toLowerCase());
    }
  }
  return [...sentences].filter((t) => ownModelWeight(t, false) > 0).slice(0, max);
}
