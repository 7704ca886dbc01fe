/**
 * Memory of the i18n index of a folder: the locale and code files read into a new index
 * (`loadI18nIndex`), then a full GC, then the heap in use.
 *
 *   node --expose-gc --import tsx bench/i18n-memory.ts <dir>
 *
 * Prints files read, locale entries, the characters of their keys and values, time, heap in use
 * and heap per entry. Run it on a build before and after a change (same folder, same machine).
 */
import { loadI18nIndex } from '../src/i18n/workspace';
import type { I18nIndex } from '../src/i18n/i18n-index';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node --expose-gc --import tsx bench/i18n-memory.ts <dir>\n');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) process.stderr.write('warning: run with --expose-gc: the heap is measured without a full GC\n');
gc?.();
const base = process.memoryUsage().heapUsed;
const t0 = performance.now();
const r = loadI18nIndex(dir);
const ms = performance.now() - t0;
gc?.();
const heap = process.memoryUsage().heapUsed - base;
let entries = 0;
let chars = 0;
for (const lf of (r.index as unknown as { locales: Map<string, { entries: Array<{ path: string; value: string }> }> }).locales.values()) {
  entries += lf.entries.length;
  for (const e of lf.entries) chars += e.path.length + e.value.length;
}
const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
process.stdout.write(`files ${r.filesRead}\tentries ${entries}\tkey+value chars ${chars}\t${(ms / 1000).toFixed(1)} s\theap ${mb(heap)} MB\t${entries ? Math.round(heap / entries) : 0} B/entry\n`);
// the index stays alive until here
void (r.index as I18nIndex).revision;
