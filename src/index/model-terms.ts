/**
 * The terms Fathom's own code-search model reads (src/index/static-model.ts): the keyword
 * index's code-aware terms (camelCase, snake_case and paths split, the whole identifier kept,
 * diacritics folded), S-stemmed so that `routes` and `route` share a vector, at most
 * `MAX_MODEL_TERMS` per text. The training pairs (train/extract.ts) are tokenized by this same
 * function, so that what the model learned is what it is asked.
 */
import { terms } from './terms';

/** Terms of one text read by the model at most (the first ones): a chunk of 256 WordPiece tokens has ~150. */
export const MAX_MODEL_TERMS = 512;

export function modelTerms(text: string): string[] {
  const t = terms(text, { stem: true });
  return t.length > MAX_MODEL_TERMS ? t.slice(0, MAX_MODEL_TERMS) : t;
}
