/**
 * i18n lookup benchmark: a generated 50,000-key locale set (four locales, five namespaces per
 * locale, keys nested up to six levels, values of 2–9 words with placeholders and markup now and
 * then) plus code files using the keys, in a temp folder. Measures
 *   - the index build: walk + read + parse of every file, then the lookup structures;
 *   - lookup latency p50/p95/max for exact, normalized, fuzzy (typo + dropped word) and key
 *     queries, taken from the generated values;
 *   - side by side, the same queries answered by a linear scan over precomputed normal forms
 *     and token sets (what an index-less lookup costs), and the ratio.
 *
 *   node --import tsx bench/i18n.ts [--keys 50000] [--locales 4] [--queries 300] [--json]
 *
 * Generation is seeded: every run builds the same set.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gc } from './gc';
import { rng } from './rng';
import type { I18nIndex } from '../src/i18n/i18n-index';
import { normalize, tokens } from '../src/i18n/normalize';
import { loadI18nIndex } from '../src/i18n/workspace';

interface Args {
  keys: number;
  locales: number;
  queries: number;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { keys: 50_000, locales: 4, queries: 300, json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`${k} needs a positive integer`);
      return v;
    };
    if (k === '--keys') a.keys = num();
    else if (k === '--locales') a.locales = Math.min(8, num());
    else if (k === '--queries') a.queries = num();
    else if (k === '--json') a.json = true;
    else throw new Error(`unknown option ${k}; usage: node --import tsx bench/i18n.ts [--keys N] [--locales N] [--queries N] [--json]`);
  }
  return a;
}

const LOCALES = ['en', 'fr', 'de', 'es', 'it', 'pt-BR', 'nl', 'pl'];
const NAMESPACES = ['common', 'admin', 'shop', 'account', 'errors'];
const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'ba', 'de', 'fi', 'go', 'hu', 'ja', 'ké', 'lé', 'mö', 'nü', 'ça', 'pr', 'st', 'tr', 'an', 'el', 'is', 'or', 'um'];

/** A vocabulary of pseudo-words per locale (accents included), 4,000 words each. */
function vocabulary(r: () => number, n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    const len = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < len; i++) w += SYL[Math.floor(r() * SYL.length)];
    out.add(w);
  }
  return [...out];
}

interface Generated {
  dir: string;
  values: Array<{ key: string; value: string }>;
  files: number;
  bytes: number;
}

export function generate(a: Args): Generated {
  const r = rng(42);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-bench-'));
  const locales = LOCALES.slice(0, a.locales);
  const vocab = locales.map(() => vocabulary(r, 4000));
  const perNs = Math.ceil(a.keys / NAMESPACES.length);
  const values: Generated['values'] = [];
  let files = 0;
  let bytes = 0;
  const keyPaths: string[][] = [];
  for (let i = 0; i < perNs; i++) {
    const depth = 1 + Math.floor(r() * 6);
    const p: string[] = [];
    for (let d = 0; d < depth - 1; d++) p.push(`s${Math.floor(r() * (d === 0 ? 40 : 12))}`);
    p.push(`k${i}`);
    keyPaths.push(p);
  }
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"bench"}');
  for (const [li, loc] of locales.entries()) {
    for (const ns of NAMESPACES) {
      const root: Record<string, unknown> = {};
      for (const [i, p] of keyPaths.entries()) {
        const words = 2 + Math.floor(r() * 8);
        const ws: string[] = [];
        for (let w = 0; w < words; w++) ws.push(vocab[li][Math.floor(Math.pow(r(), 1.6) * vocab[li].length)]);
        let v = ws.join(' ');
        v = v[0].toUpperCase() + v.slice(1);
        const roll = r();
        if (roll < 0.08) v = `${v} {name}`;
        else if (roll < 0.12) v = `<b>${v}</b>`;
        else if (roll < 0.2) v = `${v}.`;
        let o = root;
        for (let d = 0; d < p.length - 1; d++) o = (o[p[d]] ??= {}) as Record<string, unknown>;
        o[p[p.length - 1]] = v;
        if (i < a.keys / NAMESPACES.length) values.push({ key: `${ns}:${p.join('.')}`, value: v });
      }
      const file = path.join(dir, 'locales', loc, `${ns}.json`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const text = JSON.stringify(root, null, 2);
      fs.writeFileSync(file, text);
      files++;
      bytes += Buffer.byteLength(text);
    }
  }
  // code using the keys: 400 files of 25 calls each
  for (let f = 0; f < 400; f++) {
    const lines = ["import { useTranslation } from 'react-i18next';", 'export function C() {', "  const { t } = useTranslation('common');", '  return ['];
    for (let c = 0; c < 25; c++) lines.push(`    t('${keyPaths[Math.floor(r() * keyPaths.length)].join('.')}'),`);
    lines.push('  ];', '}', '');
    const file = path.join(dir, 'src', `c${f}.tsx`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, lines.join('\n'));
    files++;
  }
  return { dir, values, files, bytes };
}

/** Normalized and fuzzy variants of a value, as a user would type or see them. */
function variants(v: string, r: () => number): { normalized: string; fuzzy: string } {
  const plain = v.replace(/<\/?b>/g, '').replace(' {name}', ' Anna');
  const normalized = `  ${plain.toUpperCase().normalize('NFKD').replace(/\p{M}/gu, '')}!`;
  const words = plain.replace(/[.!]/g, '').split(' ');
  if (words.length > 3) words.splice(Math.floor(r() * words.length), 1);
  // one typo (a swapped pair) in the longest word
  let li = 0;
  for (let i = 1; i < words.length; i++) if (words[i].length > words[li].length) li = i;
  const w = words[li];
  if (w.length >= 5) {
    const at = 1 + Math.floor(r() * (w.length - 3));
    words[li] = w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2);
  }
  return { normalized, fuzzy: words.join(' ') };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

interface Row {
  kind: string;
  n: number;
  p50: number;
  p95: number;
  max: number;
  /** Share of queries whose expected key is the first candidate. */
  top1: number;
  scanP50?: number;
  ratio?: number;
  /** p50 of the process CPU time per query (steadier than wall time on a loaded machine). */
  cpuP50: number;
}

/** Wall time, and this process's CPU time (user + system): on a shared machine the CPU time is the steadier figure. */
function time<T>(fn: () => T): { ms: number; cpuMs: number; v: T } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const v = fn();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, v };
}

/** The index-less baseline: a scan of precomputed normal forms (and token sets, for fuzzy). */
function linearScan(norms: string[], toks: Array<Set<string>>, q: string, fuzzy: boolean): number {
  const nq = normalize(q);
  if (!fuzzy) {
    let best = -1;
    for (let i = 0; i < norms.length; i++) if (norms[i] === nq) best = i;
    return best;
  }
  const qt = tokens(nq);
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < toks.length; i++) {
    let hit = 0;
    for (const t of qt) if (toks[i].has(t)) hit++;
    const s = (2 * hit) / (qt.length + toks[i].size);
    if (s > bestScore) {
      bestScore = s;
      best = i;
    }
  }
  return best;
}

function main(): void {
  const a = parseArgs(process.argv.slice(2));
  const say = (s: string) => process.stderr.write(`${s}\n`);
  say(`generating ${a.keys} keys × ${a.locales} locales …`);
  const g = generate(a);
  try {
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const load = time(() => loadI18nIndex(g.dir));
    const index: I18nIndex = load.v.index;
    const build = time(() => index.stats);
    gc();
    const heapMb = (process.memoryUsage().heapUsed - heap0) / 1024 / 1024;
    const stats = build.v;
    const r = rng(7);
    const sample = Array.from({ length: a.queries }, () => g.values[Math.floor(r() * g.values.length)]);
    const norms: string[] = [];
    const toks: Array<Set<string>> = [];
    for (const v of g.values) {
      const n = normalize(v.value);
      norms.push(n);
      toks.push(new Set(tokens(n)));
    }
    const rows: Row[] = [];
    const run = (kind: 'exact' | 'normalized' | 'fuzzy' | 'key') => {
      const ms: number[] = [];
      const cpu: number[] = [];
      const scan: number[] = [];
      let top1 = 0;
      for (const [i, s] of sample.entries()) {
        const v = variants(s.value, r);
        const q = kind === 'exact' ? s.value : kind === 'normalized' ? v.normalized : kind === 'fuzzy' ? v.fuzzy : s.key;
        const t = time(() => (kind === 'key' ? index.lookupKey(q) : index.lookupLexical(q)));
        if (i >= 5) {
          // the first few warm the JIT
          ms.push(t.ms);
          cpu.push(t.cpuMs);
        }
        const first = t.v.candidates[0];
        // generated values can repeat; any candidate with the query's value in the first place counts
        if (first && (first.key === s.key || first.locales.some((l) => l.value === s.value))) top1++;
        if (kind !== 'key' && i < 60) scan.push(time(() => linearScan(norms, toks, q, kind === 'fuzzy')).ms);
      }
      const row: Row = { kind, n: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), max: Math.max(...ms), top1: top1 / sample.length, cpuP50: percentile(cpu, 50) };
      if (scan.length) {
        row.scanP50 = percentile(scan, 50);
        row.ratio = row.scanP50 / row.p50;
      }
      rows.push(row);
    };
    for (const k of ['exact', 'normalized', 'fuzzy', 'key'] as const) run(k);
    const out = {
      keys: stats.keys,
      locales: a.locales,
      values: stats.values,
      localeFiles: stats.localeFiles,
      files: g.files,
      localeMB: g.bytes / 1024 / 1024,
      usages: stats.usages,
      readParseMs: load.ms,
      readParseCpuMs: load.cpuMs,
      indexBuildMs: build.ms,
      indexBuildCpuMs: build.cpuMs,
      loadAverage: os.loadavg()[0],
      heapMB: heapMb,
      rows,
    };
    if (a.json) {
      process.stdout.write(`${JSON.stringify(out)}\n`);
      return;
    }
    const f = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
    process.stdout.write(
      `i18n lookup: ${out.keys} keys × ${out.locales} locales = ${out.values} values in ${out.localeFiles} locale files (${out.localeMB.toFixed(1)} MB), ${out.usages} usages in ${g.files - out.localeFiles} code files\n` +
        `build: walk+read+parse ${f(out.readParseMs)} ms (CPU ${f(out.readParseCpuMs)} ms), lookup structures ${f(out.indexBuildMs)} ms (CPU ${f(out.indexBuildCpuMs)} ms), heap +${out.heapMB.toFixed(0)} MB; load average ${out.loadAverage.toFixed(1)} on ${os.cpus().length} cores\n\n` +
        `query        n    p50 ms  p95 ms  max ms  cpu p50  top-1   linear-scan p50 ms  scan/index\n`,
    );
    for (const r of rows) {
      process.stdout.write(
        `${r.kind.padEnd(11)} ${String(r.n).padStart(4)}  ${f(r.p50).padStart(7)} ${f(r.p95).padStart(7)} ${f(r.max).padStart(7)}  ${f(r.cpuP50).padStart(7)}  ${(r.top1 * 100).toFixed(0).padStart(4)}%   ${(r.scanP50 !== undefined ? f(r.scanP50) : '-').padStart(18)}  ${r.ratio !== undefined ? `${r.ratio.toFixed(0)}×` : '-'}\n`,
      );
    }
  } finally {
    fs.rmSync(g.dir, { recursive: true, force: true });
  }
}

if (require.main === module) main();
