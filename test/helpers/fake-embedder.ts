import type { Embedder } from '../../src/index/embedder';
import { dequantizeRows, quantizeRows } from '../../src/index/store';

/** A deterministic fake embedder (bag of character trigrams, 64 dims) that counts what it embeds. */
export function fakeEmbedder(): Embedder & { embedded: number } {
  const dims = 64;
  const e = {
    id: 'fake-trigram',
    dims,
    embedded: 0,
    async embed(texts: string[]) {
      e.embedded += texts.length;
      return texts.map((t) => {
        const v = new Float32Array(dims);
        const s = t.toLowerCase();
        for (let i = 0; i + 3 <= s.length; i++) v[(s.charCodeAt(i) * 31 + s.charCodeAt(i + 1) * 7 + s.charCodeAt(i + 2)) % dims] += 1;
        let n = 0;
        for (const x of v) n += x * x;
        n = Math.sqrt(n) || 1;
        for (let i = 0; i < dims; i++) v[i] /= n;
        // rows the store's int8 encoding holds exactly: a saved and loaded store answers as before
        const q = quantizeRows(v, 1, dims);
        return dequantizeRows(q.scales, q.rows, 1, dims);
      });
    },
    async dispose() {},
  };
  return e;
}
