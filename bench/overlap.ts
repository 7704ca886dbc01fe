/**
 * Does overlap between the pieces of a cut unit help keyword retrieval? A small experiment on
 * the Python/Go/Rust part of the bench corpus (or any folder):
 *
 *   node --import tsx bench/overlap.ts [dir] [--overlaps 0,32,64] [--queries 600]
 *
 * Queries are mined once, from the chunks made without overlap: windows of two consecutive
 * non-blank lines inside units that had to be cut (the only place overlap changes anything),
 * sampled evenly over all such windows — so about one in seven straddles a cut, the others lie
 * inside a piece. A query is the window's distinct identifiers (3+ characters, no keywords),
 * and its answer is the window's file. For every overlap setting the same queries run against
 * a keyword-only engine over the same files: hit@1, hit@5 and MRR (file level, top 10), and
 * win@5, the share whose top-5 chunks include one containing the whole window. Printed, not
 * asserted: the numbers decide the default.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, decodeBytes, prepareLanguagesFor, treeSitterLanguageOf } from '../src/chunkers/index';
import { Engine } from '../src/index/engine';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const dir = path.resolve(args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--'))) ?? path.join(__dirname, '.corpus'));
const overlaps = flag('--overlaps', '0,32,64').split(',').map(Number);
const maxQueries = Number(flag('--queries', '600'));

const KEYWORDS = new Set('def class return self none true false import from pass elif else while for with try except finally raise yield lambda async await func package type struct interface var const range map chan go defer select case switch default break continue nil err string int bool impl pub let mut use mod trait enum match loop crate super where ref move dyn static unsafe extern some ok box vec new fn len and not or'.split(' '));

function* walk(d: string): Generator<string> {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(d, e.name);
    if (e.isDirectory()) yield* walk(full);
    else if (e.isFile() && treeSitterLanguageOf(e.name)) yield full;
  }
}

interface Query {
  query: string;
  file: string;
  window: string;
  atCut: boolean;
}

async function main() {
  if (!fs.existsSync(dir)) throw new Error(`no folder ${dir}: run node bench/setup-corpus.mjs first`);
  const files = [...walk(dir)].map((abs) => ({ rel: path.relative(dir, abs).split(path.sep).join('/'), bytes: fs.readFileSync(abs) }));
  await prepareLanguagesFor(files.map((f) => f.rel));

  // Mine windows from cut units, chunked without overlap.
  const windows: Query[] = [];
  for (const f of files) {
    const text = decodeBytes(f.bytes).text;
    if (text === undefined) continue;
    const r = chunkFile(f.rel, text, { overlap: 0 });
    const lines = text.split(/\r\n|\r|\n/);
    // a cut unit spans from its first piece's start line to its last piece's end line
    const units = new Map<string, { from: number; to: number; cuts: Set<number> }>();
    for (const c of r.chunks) {
      if (!c.split || c.kind === 'module' || c.kind === 'text') continue;
      const key = `${c.kind}\0${c.symbol}`;
      const u = units.get(key) ?? { from: c.start.line, to: c.end.line, cuts: new Set<number>() };
      u.from = Math.min(u.from, c.start.line);
      u.to = Math.max(u.to, c.end.line);
      if (c.split.index > 0) u.cuts.add(c.start.line);
      units.set(key, u);
    }
    for (const u of units.values()) {
      for (let ln = u.from; ln < u.to; ln++) {
        const a = lines[ln - 1].trim();
        const b = lines[ln].trim();
        if (!a || !b) continue;
        const ids = [...new Set(`${a} ${b}`.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? [])].filter((w) => !KEYWORDS.has(w.toLowerCase()));
        if (ids.length < 3) continue;
        windows.push({ query: ids.slice(0, 8).join(' '), file: f.rel, window: `${a}\n${b}`, atCut: u.cuts.has(ln + 1) });
      }
    }
  }
  const seen = new Set<string>();
  const unique = windows.filter((w) => !seen.has(w.query) && seen.add(w.query));
  const sample = (list: Query[]) => {
    const n = Math.min(maxQueries, list.length);
    return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
  };
  const everywhere = sample(unique);
  const atCuts = sample(unique.filter((q) => q.atCut));
  console.log(`${files.length} Python/Go/Rust files under ${dir}; ${unique.length} windows in cut units, ${unique.filter((q) => q.atCut).length} of them straddle a cut`);
  const engines = overlaps.map((overlap) => {
    const engine = new Engine({ chunk: { overlap }, noEmbedderReason: 'keyword-only experiment' });
    for (const f of files) engine.updateFile(f.rel, f.bytes, { size: f.bytes.length, mtimeMs: 0 });
    return { overlap, engine };
  });
  for (const [title, queries] of [['windows sampled evenly over cut units', everywhere], ['only windows that straddle a cut', atCuts]] as const) {
    await report(title, queries, engines);
  }
}

async function report(title: string, queries: readonly Query[], engines: Array<{ overlap: number; engine: Engine }>) {
  const n = queries.length;
  console.log(`\n${title}: ${n} queries (${queries.filter((q) => q.atCut).length} straddle a cut)`);
  const rows: string[][] = [];
  for (const { overlap, engine } of engines) {
    const score = { hit1: 0, hit5: 0, mrr: 0, win5: 0, cutWin5: 0, cut: 0 };
    for (const q of queries) {
      const hits = await engine.search(q.query, { k: 10, mode: 'keyword' });
      const first = hits.findIndex((h) => h.chunk.path === q.file);
      if (first === 0) score.hit1++;
      if (first >= 0 && first < 5) score.hit5++;
      if (first >= 0) score.mrr += 1 / (first + 1);
      const win = hits.slice(0, 5).some((h) => h.chunk.path === q.file && containsWindow(h.chunk.text, q.window));
      if (win) score.win5++;
      if (q.atCut) {
        score.cut++;
        if (win) score.cutWin5++;
      }
    }
    const chunks = engine.chunkCount;
    rows.push([String(overlap), String(chunks), (score.hit1 / n).toFixed(3), (score.hit5 / n).toFixed(3), (score.mrr / n).toFixed(3), (score.win5 / n).toFixed(3), score.cut ? (score.cutWin5 / score.cut).toFixed(3) : '-']);
  }
  const head = ['overlap tok', 'chunks', 'hit@1', 'hit@5', 'MRR', 'win@5', 'win@5 at cuts'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  console.log([head, ...rows].map((r) => r.map((c, i) => c.padStart(widths[i])).join('  ')).join('\n'));
}


/** Both lines of the window in the chunk, on consecutive lines (indentation ignored). */
function containsWindow(text: string, window: string): boolean {
  const [a, b] = window.split('\n');
  const lines = text.split(/\r\n|\r|\n/).map((l) => l.trim());
  for (let i = 0; i + 1 < lines.length; i++) if (lines[i] === a && lines[i + 1] === b) return true;
  return false;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
