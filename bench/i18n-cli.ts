/**
 * `fathom i18n "<string>"` from a terminal, process start included: a generated ~1,000-file app
 * (Vue SFCs and TS modules using `$t`/`t`, 20 locale files of 600 nested keys each, Markdown
 * docs, JSON config) in a temp folder, indexed once (`fathom index --no-embed`), then N lookups
 * of values taken from the locales, each a new `node bin/fathom.js i18n … --no-embed` process.
 * Prints p50/p95/max of the wall time per lookup (and of a `fathom help` run: the floor of
 * process start and bundle load).
 *
 *   node --import tsx bench/i18n-cli.ts [--files 1000] [--runs 20] [--cli path/to/bin/fathom.js]… [--json]
 *
 * `--cli` runs another build (e.g. an older checkout) on the same generated app; given twice or
 * more, each build indexes into its own store and the lookups alternate between them, so a
 * before/after comparison shares one machine load (the last line gives the ratios). `node -e 0`
 * is timed too: process start alone on this machine. Generation is seeded: every run builds the
 * same app.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { rng } from './rng';

interface Args {
  files: number;
  runs: number;
  clis: string[];
  json: boolean;
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { files: 1000, runs: 20, clis: [], json: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`${k} needs a positive integer`);
      return v;
    };
    if (k === '--files') a.files = num();
    else if (k === '--runs') a.runs = num();
    else if (k === '--cli') a.clis.push(path.resolve(argv[++i] ?? ''));
    else if (k === '--json') a.json = true;
    else if (k === '--keep') a.keep = true;
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.clis.length) a.clis.push(path.join(__dirname, '..', 'bin', 'fathom.js'));
  return a;
}

const LOCALES = ['en', 'fr', 'de', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'nb', 'pl', 'cs', 'sk', 'hu', 'ro', 'tr', 'el', 'ja', 'ko'];
const WORDS = 'event map layer zoom search filter save cancel delete create update share export import account profile settings language theme notice warning error retry upload download folder file name title description date time place route track marker area region country city street review comment reply like follow friend group member invite join leave'.split(' ');

/** Writes the app into `dir`; returns some locale values to look up. */
function generate(dir: string, files: number, rand: () => number): string[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const phrase = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const keys: string[] = [];
  const tree: Record<string, Record<string, Record<string, string>>> = {};
  for (let i = 0; i < 600; i++) {
    const [a, b, c] = [`section${i % 12}`, `group${i % 7}`, `key${i}`];
    keys.push(`${a}.${b}.${c}`);
    ((tree[a] ??= {})[b] ??= {})[c] = '';
  }
  const values = new Map<string, string[]>();
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  write('package.json', JSON.stringify({ name: 'bench-app', version: '1.0.0', dependencies: { vue: '^3.5.0', 'vue-i18n': '^10.0.0' } }, null, 2));
  for (const loc of LOCALES) {
    const obj: Record<string, Record<string, Record<string, string>>> = {};
    const vals: string[] = [];
    for (const k of keys) {
      const [a, b, c] = k.split('.');
      const v = `${loc === 'en' ? '' : `${loc} `}${phrase(2 + Math.floor(rand() * 6))}${rand() < 0.1 ? ' {count}' : ''}`;
      ((obj[a] ??= {})[b] ??= {})[c] = v;
      vals.push(v);
    }
    values.set(loc, vals);
    write(`src/locales/${loc}.json`, JSON.stringify(obj, null, 2));
  }
  let n = 1 + LOCALES.length;
  for (let i = 0; n < files; i++, n++) {
    const kind = i % 10;
    const ks = Array.from({ length: 4 }, () => pick(keys));
    if (kind < 4) {
      write(
        `src/components/${pick(WORDS)}/Comp${i}.vue`,
        `<template>\n  <div class="comp-${i}">\n    <h2>{{ $t('${ks[0]}') }}</h2>\n    <button v-t="'${ks[1]}'" @click="go${i}" />\n    <i18n-t keypath="${ks[2]}" tag="p" />\n  </div>\n</template>\n\n<script setup lang="ts">\nimport { useI18n } from 'vue-i18n'\nconst { t } = useI18n()\nfunction go${i}() {\n  return t('${ks[3]}', { count: ${i} })\n}\n</script>\n\n<style scoped>\n.comp-${i} { margin: ${i % 16}px; }\n</style>\n`,
      );
    } else if (kind < 8) {
      const fns = ks.map((k, j) => `export function ${pick(WORDS)}${i}_${j}(input: number): string {\n  const n = input * ${j} + ${i}\n  if (n > 10) return i18n.global.t('${k}', { n })\n  return String(n - ${i})\n}\n`).join('\n');
      write(`src/services/${pick(WORDS)}/mod${i}.ts`, `import { i18n } from '../../i18n'\n\n${fns}`);
    } else if (kind === 8) {
      write(`docs/${pick(WORDS)}/page${i}.md`, `# ${phrase(3)}\n\n${phrase(40)}.\n\n## ${phrase(2)}\n\n${phrase(60)}.\n\n\`\`\`ts\nconst x${i} = ${i}\n\`\`\`\n`);
    } else {
      write(`config/${pick(WORDS)}-${i}.json`, JSON.stringify({ id: i, name: phrase(2), enabled: rand() < 0.5, limits: { max: i * 3, min: i } }, null, 2));
    }
  }
  // queries: exact values of several locales
  const out: string[] = [];
  for (let i = 0; i < 200; i++) out.push(pick(values.get(pick(LOCALES))!));
  return out;
}

function stats(ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1] };
}

function run(cli: string | undefined, args: string[]): { ms: number; status: number | null; stdout: string; stderr: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, cli ? [cli, ...args] : args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Stats {
  p50: number;
  p95: number;
  max: number;
}

function main(): void {
  const a = parseArgs(process.argv.slice(2));
  for (const cli of a.clis) if (!fs.existsSync(cli)) throw new Error(`${cli} is missing (npm run build first)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-cli-'));
  const stores = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-cli-stores-'));
  try {
    const queries = generate(dir, a.files, rng(20261201));
    const count = (d: string): number => fs.readdirSync(d, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? count(path.join(d, e.name)) : 1), 0);
    const nFiles = count(dir);
    const per = a.clis.map((cli, i) => {
      // one store per build: each reads what it wrote
      const store = path.join(stores, String(i));
      const idx = run(cli, ['index', dir, '--no-embed', '--store', store]);
      if (idx.status !== 0) throw new Error(`fathom index failed: ${idx.stderr}`);
      // the first lookup may build what the index run did not (then it is kept): reported apart
      const first = run(cli, ['i18n', queries[0], '--dir', dir, '--store', store, '--no-embed', '--json']);
      if (first.status !== 0) throw new Error(`fathom i18n failed: ${first.stderr}`);
      return { cli, store, indexMs: Math.round(idx.ms), firstLookupMs: Math.round(first.ms), look: [] as number[], help: [] as number[], found: 0 };
    });
    const bare: number[] = [];
    for (let i = 0; i < a.runs; i++) {
      bare.push(run(undefined, ['-e', '0']).ms);
      for (const p of per) {
        p.help.push(run(p.cli, ['help']).ms);
        const r = run(p.cli, ['i18n', queries[(i + 1) % queries.length], '--dir', dir, '--store', p.store, '--no-embed', '--json']);
        if (r.status !== 0) throw new Error(`fathom i18n failed: ${r.stderr}`);
        if (r.stdout.trim()) p.found++;
        p.look.push(r.ms);
      }
    }
    const res = per.map((p) => ({ cli: p.cli, files: nFiles, runs: a.runs, indexMs: p.indexMs, firstLookupMs: p.firstLookupMs, found: p.found, lookup: stats(p.look), help: stats(p.help) }));
    const node = stats(bare);
    if (a.json) {
      for (const r of res) process.stdout.write(`${JSON.stringify({ ...r, node })}\n`);
      return;
    }
    const f = (s: Stats) => `p50 ${s.p50.toFixed(0)} ms  p95 ${s.p95.toFixed(0)} ms  max ${s.max.toFixed(0)} ms`;
    process.stdout.write(`fathom i18n on a generated ${nFiles}-file app (${LOCALES.length} locales × 600 keys), ${a.runs} runs, process start included\n`);
    process.stdout.write(`  node -e 0      ${f(node)}  (process start alone)\n`);
    for (const r of res) {
      process.stdout.write(
        `  cli            ${r.cli}\n` +
          `    index (once)   ${r.indexMs} ms\n` +
          `    first lookup   ${r.firstLookupMs} ms\n` +
          `    lookup         ${f(r.lookup)}  (${r.found}/${a.runs} found a key)\n` +
          `    fathom help    ${f(r.help)}  (process start + bundle load: the floor)\n`,
      );
    }
    if (res.length > 1) {
      const [b, ...rest] = res;
      for (const r of rest) process.stdout.write(`  ${path.relative(process.cwd(), r.cli) || r.cli} / ${path.relative(process.cwd(), b.cli) || b.cli}: lookup p50 ×${(r.lookup.p50 / b.lookup.p50).toFixed(2)}, p95 ×${(r.lookup.p95 / b.lookup.p95).toFixed(2)}\n`);
    }
  } finally {
    fs.rmSync(stores, { recursive: true, force: true });
    if (!a.keep) fs.rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`kept ${dir}\n`);
  }
}

main();
