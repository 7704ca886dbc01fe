/**
 * Deep and large inputs once the size cap is raised: time per input, and the Markdown ratio
 * (100,000 headings vs 20,000: 5x the input, linear means ~5x the time).
 * A deep JSON gives way to the text chunker, which cuts its one enormous word of punctuation:
 * the 50k → 100k brackets ratio says whether that is linear.
 *   npm run bench:deep    (ROWS=N sets the size of the truncated JSON, default 200,000 rows)
 */
import { chunkFile } from '../src/chunkers/index';

const cap = { maxFileBytes: 200 << 20 };
function time(name: string, path: string, text: string): number {
  const t0 = process.hrtime.bigint();
  let line: string;
  try {
    const r = chunkFile(path, text, cap);
    line = `${r.chunks.length} chunks${r.skipped ? `, skipped ${r.skipped.reason}` : ''}${r.fallback ? `, text fallback (${r.fallback.slice(0, 60)})` : ''}`;
  } catch (err) {
    line = `THREW ${(err as Error).message.slice(0, 80)}`;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`${name.padEnd(34)} ${(text.length / 1e6).toFixed(2).padStart(6)} MB  ${ms.toFixed(0).padStart(7)} ms  ${line}`);
  return ms;
}

const md = (n: number) => Array.from({ length: n }, (_, i) => `## Heading ${i}\n\nParagraph ${i} with a few words.\n`).join('\n');
time('markdown warm-up 2,000 headings', 'w.md', md(2000));
const a = time('markdown 20,000 headings', 'a.md', md(20_000));
const b = time('markdown 100,000 headings', 'b.md', md(100_000));
console.log(`markdown ratio 100k/20k: ${(b / a).toFixed(1)}x (input 5.0x; linear ~5x)`);

const d1 = time('json 50,000-deep brackets', 'deep1.json', '['.repeat(50_000) + ']'.repeat(50_000));
const d2 = time('json 100,000-deep brackets', 'deep.json', '['.repeat(100_000) + ']'.repeat(100_000));
console.log(`deep brackets ratio 100k/50k: ${(d2 / d1).toFixed(1)}x (input 2.0x; linear ~2x)`);
time('json 100,000-deep objects', 'deep2.json', '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000));
const big = JSON.stringify(Array.from({ length: Number(process.env.ROWS ?? 200_000) }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'], nested: { deep: { value: i } } })));
time('json truncated (90% of an array)', 'big.json', big.slice(0, Math.floor(big.length * 0.9)));
