/**
 * The `definitions` tool on constants: does `{ symbol: NAME }` answer with the place that
 * defines NAME, when NAME is a module-level constant or variable (`MAX_RETRIES = 3` in Python, a
 * `const`/`let`/`var` at a JS/TS file's top level, a name of a Go `const`/`var` declaration)?
 * The index keeps most of these as module code, not as units of their own.
 *
 *   node bench/agent-setup.mjs && node esbuild.mjs && node --import tsx bench/definitions.ts [--baseline DIR] [--n 60] [--only PKG,…]
 *
 * Trees: those bench/agent-setup.mjs unpacked (bench/.agent/status.json: Django, Jinja, pylint,
 * webpack, cobra, Prometheus, Syncthing, rclone, docker.io, cryptography, calibre). In each, the
 * candidates are found by line patterns (a Python assignment at column 0 outside triple-quoted
 * strings, a JS/TS top-level `const|let|var NAME =` not a `require`, a name opening a spec in a Go
 * `const ( … )` / `var ( … )` block or after `const|var` at a line's start; no tests, vendor,
 * testdata or debian/, no minified file: one Fathom leaves out), and a seeded sample of `--n` per language is asked of `fathom mcp` (the
 * built CLI, `--no-embed`: definitions reads no model; its index in bench/.agent/definitions/)
 * through the official SDK client. Found: an
 * answer whose path is the candidate's file and whose line range holds its line. `--baseline
 * DIR`: the same questions to DIR/dist/cli.js (a checkout of an earlier Fathom, built), side by side.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { hash } from './rng';

const CACHE = path.join(__dirname, '.agent');
const SEED = 35;
type Lang = 'py' | 'js' | 'go';
interface Candidate {
  name: string;
  file: string;
  line: number;
  lang: Lang;
}

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || ['node_modules', 'debian', 'vendor', 'testdata', 'test', 'tests'].includes(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(full);
    else if (e.isFile()) yield full;
  }
}

/** The module-level constants and variables a file defines, by line patterns (see the header). */
export function candidatesOf(rel: string, text: string): Candidate[] {
  const lang: Lang | undefined = /\.py$/.test(rel) ? 'py' : /\.(?:[cm]?js|ts)$/.test(rel) && !rel.endsWith('.d.ts') ? 'js' : rel.endsWith('.go') && !rel.endsWith('_test.go') ? 'go' : undefined;
  if (!lang || /(?:^|\/)test_[^/]*$|\.(?:test|spec)\.[^/]*$/.test(rel)) return [];
  // minified or generated (a line over 1,000 characters): a file Fathom does not index
  if (/[^\n]{1001}/.test(text)) return [];
  const out: Candidate[] = [];
  let inString = false;
  let block = false;
  text.split('\n').forEach((l, i) => {
    let m: RegExpExecArray | null = null;
    if (lang === 'py') {
      if (!inString) m = /^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)/.exec(l);
      if (((l.match(/"""|'''/g) ?? []).length & 1) === 1) inString = !inString;
    } else if (lang === 'js') {
      m = /^(?:const|let|var) ([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?!require\()/.exec(l);
    } else {
      if (/^(?:const|var) \($/.test(l)) block = true;
      else if (block && l === ')') block = false;
      else if (block) m = /^\t([A-Za-z_]\w*)\b(?:\s*(?:[\w.*[\]]+\s*)?=|\s*$)/.exec(l);
      else m = /^(?:const|var) ([A-Za-z_]\w*)\b/.exec(l);
    }
    if (m && m[1] !== '_') out.push({ name: m[1], file: rel, line: i + 1, lang });
  });
  return out;
}

async function ask(cli: string, tree: string, store: string, sample: Candidate[]): Promise<number> {
  // the index beside the bench's others, one per build (not <tree>/.fathom: the trees are shared with bench/agent.ts)
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--dir', tree, '--store', store, '--no-embed'], stderr: 'pipe', env: { ...process.env, FATHOM_MODEL_PATH: '' } as Record<string, string> });
  const client = new Client({ name: 'fathom-bench-definitions', version: '0.0.0' });
  await client.connect(transport);
  try {
    for (let waited = 0; waited < 600_000; waited += 250) {
      // (a large tree's first pass ends with its store's save, which holds the server for a while: calibre's ~1 min)
      const st = (await client.callTool({ name: 'status', arguments: {} }, undefined, { timeout: 600_000 })) as { structuredContent?: { folders: Array<{ indexing?: unknown }> } };
      if (!st.structuredContent?.folders.some((f) => f.indexing)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    let found = 0;
    for (const c of sample) {
      const r = (await client.callTool({ name: 'definitions', arguments: { symbol: c.name } }, undefined, { timeout: 600_000 })) as { structuredContent?: { definitions?: Array<{ path: string; startLine: number; endLine: number }> } };
      if ((r.structuredContent?.definitions ?? []).some((d) => d.path === c.file && d.startLine <= c.line && c.line <= d.endLine)) found++;
    }
    return found;
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const statusFile = path.join(CACHE, 'status.json');
  if (!fs.existsSync(statusFile)) throw new Error('bench/.agent/status.json is missing: run node bench/agent-setup.mjs first');
  const trees = (JSON.parse(fs.readFileSync(statusFile, 'utf8')) as { trees: Record<string, { dir: string }> }).trees;
  const n = Number(argValue('--n') ?? 60);
  const only = argValue('--only')?.split(',');
  const cli = path.join(__dirname, '..', 'dist', 'cli.js');
  const baseline = argValue('--baseline');
  const baseCli = baseline ? path.resolve(baseline, 'dist', 'cli.js') : undefined;
  for (const c of [cli, baseCli]) if (c && !fs.existsSync(c)) throw new Error(`${c} is missing: build it (node esbuild.mjs)`);
  console.log(`definitions of module-level constants: found at their line / asked (${n} per language and tree, seeded)`);
  console.log(`${'tree'.padEnd(28)} ${'lang'.padEnd(4)} ${'candidates'.padStart(10)} ${'this build'.padStart(12)}${baseCli ? ` ${'baseline'.padStart(12)}` : ''}`);
  for (const [pkg, t] of Object.entries(trees)) {
    if (only && !only.includes(pkg)) continue;
    const tree = path.join(CACHE, t.dir);
    const all: Candidate[] = [];
    for (const f of walk(tree)) {
      const rel = path.relative(tree, f).split(path.sep).join('/');
      if (fs.statSync(f).size > 512 * 1024) continue;
      all.push(...candidatesOf(rel, fs.readFileSync(f, 'utf8')));
    }
    for (const lang of ['py', 'js', 'go'] as const) {
      const mine = all.filter((c) => c.lang === lang);
      // one candidate per name (a name defined in several files answers with all of them: any counts)
      const byName = new Map<string, Candidate>();
      for (const c of mine) if (!byName.has(c.name)) byName.set(c.name, c);
      const sample = [...byName.values()].sort((a, b) => hash(`${pkg}\0${a.name}`, SEED) - hash(`${pkg}\0${b.name}`, SEED)).slice(0, n);
      if (sample.length < 5) continue;
      const now = await ask(cli, tree, path.join(CACHE, 'definitions', 'this-build', pkg), sample);
      const before = baseCli ? await ask(baseCli, tree, path.join(CACHE, 'definitions', 'baseline', pkg), sample) : undefined;
      const pct = (x: number) => `${x} (${((100 * x) / sample.length).toFixed(0)}%)`;
      console.log(`${pkg.padEnd(28)} ${lang.padEnd(4)} ${String(mine.length).padStart(10)} ${pct(now).padStart(12)}${before !== undefined ? ` ${pct(before).padStart(12)}` : ''}   of ${sample.length}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
