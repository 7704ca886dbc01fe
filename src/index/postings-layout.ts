/**
 * The keyword index's postings laid out in typed arrays (`BasePostings`): what an import or a
 * cold run's bulk load builds in memory, and what a binary snapshot stores (store version 6).
 * Apart from keyword.ts, needing only the term table (lexicon.ts), so that a save can lay a
 * snapshot out on a thread of its own (`layout-thread.ts`) while it writes the chunks.
 */
import { Lexicon } from './lexicon';

/** A record's header: path, language and kind, and the four fields' term counts (keyword.ts). */
export const HEADER = 6;
/** FlexSearch's slots a term: 0 symbol, 1 path or header, 2–8 the text by position. */
export const RESOLUTION = 9;

/**
 * The FlexSearch slot of each of a record's terms (into `out`): 0 for a term in the symbol, 1
 * in the path or header, 2–8 for a text term by its position among the text's terms.
 */
export function slotsInto(rec: Uint32Array, out: Uint8Array): void {
  let textTerms = 0;
  for (let j = HEADER + 1; j < rec.length; j += 2) if ((rec[j] & 0xffffff) === 0) textTerms++;
  let t = 0;
  for (let u = 0, j = HEADER; j < rec.length; u++, j += 2) {
    const p = rec[j + 1];
    if (p & 255) out[u] = 0;
    else if (p & 0xffff00) out[u] = 1;
    else out[u] = 2 + Math.min(RESOLUTION - 3, Math.floor(((RESOLUTION - 2) * t++) / textTerms));
  }
}

/**
 * Postings of imported documents: for term t and slot s, `ids[offsets[t·9 + s] ‥ offsets[t·9 + s + 1])`
 * are internal ids in insertion order; `live[i]` is cleared when imported document i is removed
 * (its internal id may then be reused by a document that FlexSearch holds). `bytes` holds
 * `offsets` then `ids` (what a binary snapshot stores).
 */
export interface BasePostings {
  terms: number;
  offsets: Uint32Array;
  ids: Int32Array;
  live: Uint8Array;
  bytes: Uint8Array;
}

/**
 * The postings of documents 0‥D−1 over terms 0‥V−1 (`rec(i)` their records; undefined: removed,
 * not live), in two passes: per term and slot a count, then the ids, in id order.
 */
export function layoutPostings(D: number, V: number, rec: (i: number) => Uint32Array | undefined): BasePostings {
  const O = V * RESOLUTION + 1;
  const counts = new Uint32Array(O);
  const slots = new Uint8Array(256);
  const slotsOf = (r: Uint32Array): Uint8Array => {
    const U = (r.length - HEADER) / 2;
    const out = U <= slots.length ? slots : new Uint8Array(U);
    slotsInto(r, out);
    return out;
  };
  const live = new Uint8Array(D);
  for (let i = 0; i < D; i++) {
    const r = rec(i);
    if (!r) continue;
    live[i] = 1;
    const sl = slotsOf(r);
    for (let u = 0, j = HEADER; j < r.length; u++, j += 2) counts[r[j] * RESOLUTION + sl[u] + 1]++;
  }
  for (let x = 1; x < O; x++) counts[x] += counts[x - 1];
  const P = counts[O - 1];
  const buf = new ArrayBuffer(4 * (O + P));
  const offsets = new Uint32Array(buf, 0, O);
  offsets.set(counts);
  const ids = new Int32Array(buf, 4 * O, P);
  const fill = counts; // reused as the fill pointers
  for (let i = 0; i < D; i++) {
    const r = rec(i);
    if (!r) continue;
    const sl = slotsOf(r);
    for (let u = 0, j = HEADER; j < r.length; u++, j += 2) ids[fill[r[j] * RESOLUTION + sl[u]]++] = i;
  }
  return { terms: V, offsets, ids, live, bytes: new Uint8Array(buf) };
}

/** A binary snapshot's two laid-out parts: the postings (`layoutPostings`'s bytes) and the term table. */
export interface BinaryLayout {
  postings: Uint8Array;
  lexicon: Uint8Array;
}

/**
 * The postings and term table of a snapshot's records: `body` holds the `D` records one after
 * the other (`counts[d]` terms each, in pairs after the header) over the terms `vocab`.
 */
export function layoutBinary(D: number, counts: Uint32Array, body: Uint32Array, vocab: readonly string[]): BinaryLayout {
  const starts = new Uint32Array(D + 1);
  for (let x = 0; x < D; x++) starts[x + 1] = starts[x] + HEADER + 2 * counts[x];
  const postings = layoutPostings(D, vocab.length, (x) => body.subarray(starts[x], starts[x + 1]));
  return { postings: postings.bytes, lexicon: Lexicon.build(vocab) };
}
