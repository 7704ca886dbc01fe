/**
 * Host-side cost of one sidebar results post, on real hits: what the extension host's thread
 * does per query (group by file, cut snippets, find highlights, serialize the message) next to
 * the floor of posting the raw hits unprocessed (serializing them), in the same run (a ratio).
 * The search itself runs in the worker; its time is printed for scale.
 *
 *   node bench/setup-corpus.mjs        # once: the dev corpus in bench/.corpus
 *   node --import tsx bench/view.ts [--dir bench/.corpus/element-ui] [--k 50] [--rounds 5]
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine } from '../src/index/engine';
import type { WorkerHit } from '../src/service/protocol';
import { groupHits } from '../src/editor/results';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const dir = path.resolve(arg('dir', path.join(__dirname, '.corpus', 'element-ui')));
const k = Number(arg('k', '50'));
const rounds = Number(arg('rounds', '5'));
const QUERIES = ['router navigation guard', 'validate form field rules', 'date picker format', 'table column sort', 'upload file progress', 'dialog close on escape', 'tooltip placement', 'select remote search', 'tree node expand', 'input number step', 'message box confirm', 'pagination page size', 'i18n locale messages', 'color picker alpha', 'cascader lazy load', 'scroll bar wrap', 'menu collapse transition', 'tabs add remove', 'loading directive fullscreen', 'popover trigger hover'];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function main(): Promise<void> {
  const engine = new Engine();
  const t0 = performance.now();
  for await (const p of engine.indexFolder(dir, { embed: false })) void p;
  process.stdout.write(`indexed ${dir}: ${engine.files.size} files, ${engine.chunkCount} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s (keyword-only)\n`);
  const search: number[] = [];
  const host: number[] = [];
  const floor: number[] = [];
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of QUERIES) {
      let t = performance.now();
      const hits: WorkerHit[] = (await engine.search(q, { k })).map((h) => ({ ...h, root: dir }));
      search.push(performance.now() - t);
      t = performance.now();
      const msg = JSON.stringify({ type: 'results', seq: 1, query: q, groups: groupHits(hits, q), total: hits.length, ms: 0, partial: false, mode: 'keyword' });
      host.push(performance.now() - t);
      bytes = Math.max(bytes, msg.length);
      t = performance.now();
      JSON.stringify(hits);
      floor.push(performance.now() - t);
    }
  }
  const row = (name: string, xs: number[]) => process.stdout.write(`${name.padEnd(38)} p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms  p95 ${pct(xs, 95).toFixed(2).padStart(7)} ms  max ${Math.max(...xs).toFixed(2).padStart(7)} ms\n`);
  process.stdout.write(`${QUERIES.length} queries × ${rounds} rounds, k = ${k}\n`);
  row('search (worker thread, for scale)', search);
  row('host: group + snippets + serialize', host);
  row('floor: serialize the raw hits', floor);
  process.stdout.write(`ratio host / floor (p50): ${(pct(host, 50) / pct(floor, 50)).toFixed(2)}; largest message ${(bytes / 1024).toFixed(1)} KB\n`);
}

void main();
