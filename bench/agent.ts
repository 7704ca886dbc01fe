/**
 * Agent-style retrieval: does the `search` tool's answer (2,000 tokens by default) put a file
 * that a real change touched in front of the agent, given the change's subject line as the
 * task? Against ripgrep in the same run (the task's words, files ranked by match count, its
 * output cut to the same 2,000 tokens). Then `fathom mcp` through the protocol: server start to
 * first answer, and warm search latency.
 *
 *   node bench/agent-setup.mjs && node --import tsx bench/agent.ts [--json] [--protocol-only] [--no-protocol] [--dev-only] [--baseline DIR] [--misses] [--only PKG,…] [--pairs] [--model FILE]
 *
 * --pairs: the trees opened two at a time (each with the next in the list), as a workspace of
 * several folders; each task asked of its own folder alone and of both, recall@5 side by side:
 * what interleaving two folders' rankings costs.
 * (--dev-only: the tuning half alone, for trying changes without seeing the held-out half.
 * --baseline DIR: a checkout of an earlier Fathom (e.g. `git worktree add --detach /tmp/base main`,
 * with node_modules linked); its search tool answers over the same open folder, as the "base"
 * column, so before and after come from one run. --misses: each tuning-half task with a gold file
 * not among the first 5 files of the answer, with the files answered instead. --only: these packages alone.)
 *
 * Tasks: every patch in debian/patches of the Debian source packages that bench/agent-setup.mjs
 * unpacked without their patches (the state before the changes; a patch applied after others in
 * a series sees the release, not the earlier patches). The task is the patch's Subject (or the
 * first line of its Description), with tags like "[PATCH]" dropped; the gold files are the
 * files it modifies that exist before it (not debian/, not files it creates). A patch without
 * a subject or without such a file is no task (counted). Half the tasks, by a hash of
 * package/patch, are held out: both halves are reported, neither was looked at to tune.
 *
 * debian/ (the patches themselves, with their subjects and diffs) is searched by neither
 * retriever. Fathom runs as it does by default: hybrid with its own model (bundled, no
 * download; `--no-embed`: keyword-only); the "keyword" column is the same tool asked with mode
 * "keyword" in the same run (what a folder without the model answers: the former figure).
 * The measure is `r@5`: the share of a task's gold files among the first 5 distinct files of
 * the 2,000-token answer, averaged. Beside it: `hit` (a gold file anywhere in the answer, 40–50
 * files: too loose to steer by), `recall` (share of the gold files in the answer), `top5` (a gold
 * file among the first 5 distinct files of the unbudgeted ranking).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LocalFolder } from '../src/mcp/folder';
import { createEmbedder, type Embedder } from '../src/index/embedder';
import { DEFAULT_MAX_TOKENS, runTool } from '../src/agent/tools';
import { defaultTokenCounter } from '../src/tokenizer/wordpiece';
import { hash } from './rng';

const ROOT = path.join(__dirname, '..');
const CACHE = path.join(__dirname, '.agent');
const json = process.argv.includes('--json');
/** `--model FILE`: another model file of Fathom's format instead of the bundled one (its stores apart). */
const modelFile = process.argv.includes('--model') ? path.resolve(process.argv[process.argv.indexOf('--model') + 1]) : undefined;
const modelStore = modelFile ? `index-model-${path.basename(modelFile, '.bin')}` : 'index-model';
const say = (m: string) => process.stderr.write(`${m}\n`);

interface Task {
  pkg: string;
  patch: string;
  subject: string;
  gold: string[];
  split: 'dev' | 'held-out';
}

interface Status {
  /** exclude: folders besides debian/ that neither retriever searches (bench/agent-setup.mjs says why). */
  trees: Record<string, { dir: string; version: string; exclude?: string[] }>;
  unreachable: Record<string, string>;
}

const STOP = new Set('the and for with from that this into when not are was were has have use uses used can its also add added fix fixed fixes make made more than only via all any but new on of to in a an is be as by at or it if do'.split(' '));

/** The subject of a patch: DEP-3 Subject (with its folded lines) or Description's first line. */
export function patchSubject(text: string): string | undefined {
  const head = text.split(/\n(?:---|diff |Index: )/)[0];
  const subj = /^Subject:[ \t]*(.*(?:\n[ \t]+\S.*)*)/im.exec(head);
  const desc = /^Description:[ \t]*(.*)/im.exec(head);
  const raw = subj?.[1] ?? desc?.[1];
  if (!raw) return undefined;
  const s = raw.replace(/\n[ \t]+/g, ' ').replace(/^(\s*\[[^\]]*\]\s*)+/, '').trim();
  return s || undefined;
}

/** Files a patch changes (paths without their a/ b/ prefix), from its +++/--- lines. */
export function patchFiles(text: string): { modified: string[]; created: string[] } {
  const modified = new Set<string>();
  const created = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    if (!lines[i].startsWith('--- ') || !lines[i + 1].startsWith('+++ ')) continue;
    const from = lines[i].slice(4).split('\t')[0].trim();
    const to = lines[i + 1].slice(4).split('\t')[0].trim();
    const strip = (p: string) => p.replace(/^[^/]+\//, '');
    if (to === '/dev/null') continue; // deleted: not a place to edit
    if (from === '/dev/null') created.add(strip(to));
    else modified.add(strip(to));
  }
  return { modified: [...modified], created: [...created] };
}

export function loadTasks(status: Status): { tasks: Task[]; dropped: Record<string, number> } {
  const tasks: Task[] = [];
  const dropped: Record<string, number> = { 'no subject': 0, 'no existing file': 0 };
  for (const [pkg, t] of Object.entries(status.trees)) {
    const tree = path.join(CACHE, t.dir);
    const series = path.join(tree, 'debian', 'patches', 'series');
    if (!fs.existsSync(series)) continue;
    for (const line of fs.readFileSync(series, 'utf8').split('\n')) {
      const name = line.replace(/#.*/, '').trim().split(/\s+/)[0];
      if (!name) continue;
      let text: string;
      try {
        text = fs.readFileSync(path.join(tree, 'debian', 'patches', name), 'utf8');
      } catch {
        continue;
      }
      const subject = patchSubject(text);
      const gold = patchFiles(text).modified.filter((f) => !f.startsWith('debian/') && fs.existsSync(path.join(tree, f)));
      if (!subject) dropped['no subject']++;
      else if (!gold.length) dropped['no existing file']++;
      else tasks.push({ pkg, patch: name, subject, gold, split: hash(`${pkg}/${name}`, 15) % 2 ? 'held-out' : 'dev' });
    }
  }
  return { tasks, dropped };
}

// --- the two retrievers ----------------------------------------------------------------------

interface Answer {
  /** Distinct files in the budgeted answer, in order. */
  answer: string[];
  /** The first distinct files of the ranking (unbudgeted), for top-5. */
  ranked: string[];
}

/**
 * The search tool as an agent calls it: `{ query }` alone (the defaults: detail "files", the
 * 2,000-token budget); `keyword`: the same with mode "keyword". `ranked`: the same call with a
 * 100,000-token budget.
 */
async function fathomAnswer(folder: LocalFolder, task: Task, mode: 'default' | 'keyword', tool: typeof runTool = runTool): Promise<Answer> {
  const args = mode === 'default' ? { query: task.subject } : { query: task.subject, mode };
  const a = await tool('search', args, { folders: [folder] });
  const deep = await tool('search', { ...args, k: 50, maxTokens: 100_000 }, { folders: [folder] });
  const files = (s: Record<string, unknown>) => [...new Set((s.hits as Array<{ path: string }>).map((h) => h.path))];
  return { answer: files(a.structured), ranked: files(deep.structured) };
}

/** ripgrep as an agent would run it: the task's words, case-insensitive, output cut to the budget. */
function ripgrepAnswer(tree: string, task: Task, exclude: string[], perFile = Number.POSITIVE_INFINITY): Answer {
  const words = [...new Set(task.subject.toLowerCase().match(/[a-z0-9_]+/g) ?? [])].filter((w) => w.length >= 3 && !STOP.has(w));
  if (!words.length) return { answer: [], ranked: [] };
  const args = ['-n', '-i', '-F', '--no-messages', ...exclude.flatMap((d) => ['-g', `!${d}/`]), '--no-heading', '--with-filename', '--max-columns', '300', ...words.flatMap((w) => ['-e', w]), '.'];
  const r = spawnSync('rg', args, { cwd: tree, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const byFile = new Map<string, string[]>();
  for (const line of (r.stdout ?? '').split('\n')) {
    const m = /^\.?\/?(.+?):(\d+):/.exec(line);
    if (!m) continue;
    const list = byFile.get(m[1]) ?? [];
    list.push(line.replace(/^\.\//, ''));
    byFile.set(m[1], list);
  }
  // files ranked by matches (lines matching any word, as `rg --count` counts), ties by path
  const ranked = [...byFile.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const counter = defaultTokenCounter();
  let used = 0;
  const answer: string[] = [];
  outer: for (const [file, lines] of ranked) {
    for (const l of lines.slice(0, perFile)) {
      const t = counter.count(l) + 1;
      if (used + t > DEFAULT_MAX_TOKENS) break outer;
      used += t;
      if (answer[answer.length - 1] !== file) answer.push(file);
    }
  }
  return { answer, ranked: ranked.map(([f]) => f) };
}

/** The same ranking given as a bare list of paths (`rg -c` style), as many as fit the budget. */
function ripgrepFilesAnswer(full: Answer): Answer {
  const counter = defaultTokenCounter();
  let used = 0;
  const answer: string[] = [];
  for (const f of full.ranked) {
    const t = counter.count(f) + 2;
    if (used + t > DEFAULT_MAX_TOKENS) break;
    used += t;
    answer.push(f);
  }
  return { answer, ranked: full.ranked };
}

interface Score {
  tasks: number;
  hit: number;
  recall: number;
  top5: number;
  /** Share of the gold files among the first 5 distinct files of the (2,000-token) answer: the measure. */
  r5: number;
  /** The best r5 any ranking can reach: a change of n > 5 files has at most 5 of them in the first 5 (5 / n). */
  best: number;
}

function score(tasks: Task[], answers: Map<Task, Answer>): Score | undefined {
  if (!answers.size) return undefined;
  let hit = 0;
  let recall = 0;
  let top5 = 0;
  let r5 = 0;
  let best = 0;
  for (const t of tasks) {
    best += Math.min(5, t.gold.length) / t.gold.length;
    const a = answers.get(t)!;
    r5 += t.gold.filter((g) => a.answer.slice(0, 5).includes(g)).length / t.gold.length;
    const inAnswer = t.gold.filter((g) => a.answer.includes(g)).length;
    hit += inAnswer ? 1 : 0;
    recall += inAnswer / t.gold.length;
    top5 += t.gold.some((g) => a.ranked.slice(0, 5).includes(g)) ? 1 : 0;
  }
  const n = Math.max(1, tasks.length);
  return { tasks: tasks.length, hit: hit / n, recall: recall / n, top5: top5 / n, r5: r5 / n, best: best / n };
}

// --- the protocol --------------------------------------------------------------------------------

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function protocol(tree: string, queries: string[]): Promise<Record<string, number>> {
  const bin = path.join(ROOT, 'bin', 'fathom.js');
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: npm run build first');
  const store = path.join(CACHE, 'protocol-store');
  const run = async (fresh: boolean) => {
    if (fresh) fs.rmSync(store, { recursive: true, force: true });
    const t0 = performance.now();
    // as the server runs by default (with Fathom's own model), unless the bench was asked --no-embed
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--dir', tree, '--store', store, ...(process.argv.includes('--no-embed') ? ['--no-embed'] : [])], stderr: 'ignore' });
    const client = new Client({ name: 'bench-agent', version: '0' });
    await client.connect(transport);
    // as an agent does first; from then on the client checks every answer against its tool's output schema
    await client.listTools();
    const connected = performance.now() - t0;
    const first = (await client.callTool({ name: 'search', arguments: { query: queries[0] } })) as unknown as { content: Array<{ text: string }> };
    const firstAnswer = performance.now() - t0;
    const partial = /still indexing/.test(first.content[0].text);
    // wait for the first pass, then time warm searches
    let ready = 0;
    for (;;) {
      const s = (await client.callTool({ name: 'status', arguments: {} })) as unknown as { structuredContent: { folders: Array<{ indexing?: unknown; pendingVectors: number }> } };
      const f = s.structuredContent.folders[0];
      if (!f.indexing && !ready) ready = performance.now() - t0;
      if (!f.indexing && !f.pendingVectors) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const embedded = performance.now() - t0;
    // interleaved, the same queries: the default answer (detail "files") and the former one (chunks, k 10)
    const lat: number[] = [];
    const latChunks: number[] = [];
    for (const q of [...queries, ...queries].slice(0, Math.max(40, queries.length))) {
      let s = performance.now();
      await client.callTool({ name: 'search', arguments: { query: q } });
      lat.push(performance.now() - s);
      s = performance.now();
      await client.callTool({ name: 'search', arguments: { query: q, detail: 'chunks' } });
      latChunks.push(performance.now() - s);
    }
    await client.close();
    return { connected, firstAnswer, partial: partial ? 1 : 0, ready, embedded, p50: pct(lat, 50), p95: pct(lat, 95), chunksP50: pct(latChunks, 50), chunksP95: pct(latChunks, 95), n: lat.length };
  };
  const cold = await run(true);
  const warm = await run(false);
  return {
    coldConnectMs: cold.connected,
    coldFirstAnswerMs: cold.firstAnswer,
    coldFirstAnswerWhileIndexing: cold.partial,
    coldIndexedMs: cold.ready,
    coldEmbeddedMs: cold.embedded,
    warmStartConnectMs: warm.connected,
    warmStartFirstAnswerMs: warm.firstAnswer,
    warmStartIndexedMs: warm.ready,
    searchP50Ms: warm.p50,
    searchP95Ms: warm.p95,
    chunksSearchP50Ms: warm.chunksP50,
    chunksSearchP95Ms: warm.chunksP95,
    searches: warm.n,
  };
}

/** --pairs: each tree with the next one as one workspace of two folders; a task's r@5 asked of its folder alone and of both. */
async function pairs(status: Status, tasks: Task[], embedder: Embedder | undefined, noModel: string | undefined): Promise<void> {
  const pkgs = Object.keys(status.trees).filter((p) => tasks.some((t) => t.pkg === p));
  const open = (pkg: string) => {
    const tree = path.join(CACHE, status.trees[pkg].dir);
    const folder = LocalFolder.open(tree, { storeDir: path.join(CACHE, embedder ? modelStore : 'index', pkg), watch: false, selection: { exclude: ['debian', ...(status.trees[pkg].exclude ?? [])] }, embedder, noEmbedderReason: noModel });
    folder.start();
    return folder;
  };
  const sums = { one: { dev: 0, 'held-out': 0 }, two: { dev: 0, 'held-out': 0 }, n: { dev: 0, 'held-out': 0 } };
  const r5 = (t: Task, s: Record<string, unknown>, root: string) => {
    const seen: string[] = [];
    for (const h of s.hits as Array<{ folder: string; path: string }>) {
      const key = `${h.folder}\0${h.path}`;
      if (!seen.includes(key)) seen.push(key);
      if (seen.length === 5) break;
    }
    return t.gold.filter((g) => seen.includes(`${root}\0${g}`)).length / t.gold.length;
  };
  const lines: string[] = [];
  for (let i = 0; i < pkgs.length; i += 2) {
    const pair = [pkgs[i], pkgs[i + 1] ?? pkgs[0]];
    const folders = pair.map(open);
    for (const f of folders) await f.indexed;
    while (embedder && folders.some((f) => f.state().pendingVectors)) await new Promise((r) => setTimeout(r, 200));
    const mine = { one: 0, two: 0, n: 0 };
    for (const t of tasks.filter((x) => x.pkg === pair[0] || (x.pkg === pair[1] && i + 1 < pkgs.length))) {
      const own = folders[pair.indexOf(t.pkg)];
      const one = r5(t, (await runTool('search', { query: t.subject }, { folders: [own] })).structured, own.root);
      const two = r5(t, (await runTool('search', { query: t.subject }, { folders })).structured, own.root);
      sums.one[t.split] += one;
      sums.two[t.split] += two;
      sums.n[t.split]++;
      mine.one += one;
      mine.two += two;
      mine.n++;
    }
    lines.push(`${pair.join(' + ').padEnd(40)} ${String(mine.n).padStart(3)}  ${(mine.one / Math.max(1, mine.n)).toFixed(3).padEnd(10)} ${(mine.two / Math.max(1, mine.n)).toFixed(3)}`);
    say(`${pair.join(' + ')}: ${mine.n} tasks`);
    for (const f of folders) await f.close();
  }
  const half = (h: 'dev' | 'held-out') => `${(sums.one[h] / Math.max(1, sums.n[h])).toFixed(3)} -> ${(sums.two[h] / Math.max(1, sums.n[h])).toFixed(3)} (${sums.n[h]} tasks)`;
  process.stdout.write(
    [
      `two folders in one workspace: recall@5 over the first 5 distinct files of the search tool's answer, the task asked of its own folder alone -> of both folders (Fathom ${embedder ? `hybrid, ${embedder.id}` : 'keyword-only'})`,
      `${'pair'.padEnd(40)} ${'n'.padStart(3)}  ${'one folder'.padEnd(10)} two folders`,
      ...lines,
      `tuning half: ${half('dev')}; held-out half: ${half('held-out')}`,
    ].join('\n') + '\n',
  );
}

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// --- main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const statusFile = path.join(CACHE, 'status.json');
  if (!fs.existsSync(statusFile)) throw new Error('bench/.agent/status.json is missing: run node bench/agent-setup.mjs first');
  const status = JSON.parse(fs.readFileSync(statusFile, 'utf8')) as Status;
  if (spawnSync('rg', ['--version']).status !== 0) throw new Error('ripgrep (`rg`, Debian package ripgrep) is needed for the baseline');
  const only = argValue('--only')?.split(',');
  if (only) for (const p of Object.keys(status.trees)) if (!only.includes(p)) delete status.trees[p];
  const loaded = loadTasks(status);
  const { dropped } = loaded;
  const devOnly = process.argv.includes('--dev-only');
  // --dev-only: the held-out tasks are not even run
  const tasks = devOnly ? loaded.tasks.filter((t) => t.split === 'dev') : loaded.tasks;
  const baselineDir = argValue('--baseline');
  // the tools live in src/agent/ (src/mcp/ in checkouts from before they moved below the service)
  const baseToolFile = baselineDir ? ['src/agent/tools.ts', 'src/mcp/tools.ts'].map((f) => path.resolve(baselineDir, f)).find((f) => fs.existsSync(f)) : undefined;
  if (baselineDir && !baseToolFile) throw new Error(`--baseline ${baselineDir}: neither src/agent/tools.ts nor src/mcp/tools.ts is there`);
  const baseTool = baseToolFile ? ((await import(baseToolFile)) as { runTool: typeof runTool }).runTool : undefined;
  const base = new Map<Task, Answer>();
  say(`${tasks.length} tasks from ${Object.keys(status.trees).length} packages (${Object.entries(dropped).map(([k, v]) => `${v} patches: ${k}`).join(', ')}); unreachable: ${Object.keys(status.unreachable).join(', ') || 'none'}`);
  const fathom = new Map<Task, Answer>();
  const keyword = new Map<Task, Answer>();
  let embedder: Embedder | undefined;
  let noModel = process.argv.includes('--no-embed') ? '--no-embed' : undefined;
  if (!noModel) {
    const e = await createEmbedder(modelFile ? { localModelPath: modelFile } : {});
    if ('error' in e) noModel = e.error;
    else embedder = e.embedder;
  }
  say(embedder ? `fathom: hybrid with its own model (${embedder.id})` : `fathom: keyword-only (${noModel})`);
  if (process.argv.includes('--pairs')) {
    await pairs(status, tasks, embedder, noModel);
    await embedder?.dispose();
    return;
  }
  const rg = new Map<Task, Answer>();
  const rgCapped = new Map<Task, Answer>();
  const rgFiles = new Map<Task, Answer>();
  const index: Record<string, { files: number; chunks: number; ms: number }> = {};
  const protocolOnly = process.argv.includes('--protocol-only');
  for (const pkg of protocolOnly ? [] : Object.keys(status.trees)) {
    const mine = tasks.filter((t) => t.pkg === pkg);
    if (!mine.length) continue;
    const tree = path.join(CACHE, status.trees[pkg].dir);
    const t0 = performance.now();
    // debian/ holds the patches themselves (their subjects, their diffs): not the code an agent
    // searches before the change, so neither retriever sees it
    const exclude = ['debian', ...(status.trees[pkg].exclude ?? [])];
    const folder = LocalFolder.open(tree, { storeDir: path.join(CACHE, embedder ? modelStore : 'index', pkg), watch: false, selection: { exclude }, embedder, noEmbedderReason: noModel });
    folder.start();
    await folder.indexed;
    // vectors are computed in the background after the first pass: the answers need them all
    while (embedder && folder.state().pendingVectors) await new Promise((r) => setTimeout(r, 200));
    const st = folder.state();
    index[pkg] = { files: st.files, chunks: st.chunks, ms: performance.now() - t0 };
    say(`${pkg}: ${st.files} files, ${st.chunks} chunks (${Math.round(index[pkg].ms)} ms to load and bring up to date; loaded machine)`);
    for (const t of mine) {
      fathom.set(t, await fathomAnswer(folder, t, 'default'));
      keyword.set(t, await fathomAnswer(folder, t, 'keyword'));
      if (baseTool) base.set(t, await fathomAnswer(folder, t, 'default', baseTool));
      rg.set(t, ripgrepAnswer(tree, t, exclude));
      rgCapped.set(t, ripgrepAnswer(tree, t, exclude, 3)); // as `rg -m 3`: at most 3 lines per file
      rgFiles.set(t, ripgrepFilesAnswer(rg.get(t)!));
    }
    await folder.close();
  }
  const groups: Array<[string, Task[]]> = [
    ['all', tasks],
    ['dev', tasks.filter((t) => t.split === 'dev')],
    ['held-out', tasks.filter((t) => t.split === 'held-out')],
    ...Object.keys(status.trees).flatMap((p): Array<[string, Task[]]> => [
      [p, tasks.filter((t) => t.pkg === p)],
      [`${p} dev`, tasks.filter((t) => t.pkg === p && t.split === 'dev')],
      [`${p} held-out`, tasks.filter((t) => t.pkg === p && t.split === 'held-out')],
    ]).filter(([, ts]) => ts.length),
  ];
  const shownGroups = groups.filter(([name, ts]) => ts.length && !(devOnly && name.endsWith('held-out')));
  const rows = protocolOnly ? [] : shownGroups.map(([name, ts]) => ({ name, fathom: score(ts, fathom)!, base: score(ts, base), keyword: score(ts, keyword)!, ripgrep: score(ts, rg)!, ripgrepCapped: score(ts, rgCapped)!, ripgrepFiles: score(ts, rgFiles)! }));
  if (process.argv.includes('--misses')) {
    for (const t of tasks.filter((x) => x.split === 'dev')) {
      const a = fathom.get(t);
      // a miss: a changed file not among the first 5 files of the answer (the r@5 measure)
      if (!a || t.gold.every((g) => a.answer.slice(0, 5).includes(g))) continue;
      const at = (g: string) => a.ranked.indexOf(g);
      say(`miss ${t.pkg}/${t.patch}: "${t.subject}"\n  gold: ${t.gold.map((g) => `${g} (rank ${at(g) < 0 ? '-' : at(g) + 1})`).join(', ')}; answer ${a.answer.length} files: ${a.answer.slice(0, 6).join(', ')}; rg ${rgFiles.get(t)!.answer.some((g) => t.gold.includes(g)) ? 'hit' : 'miss'}`);
    }
  }
  let proto: Record<string, number> | undefined;
  if (!process.argv.includes('--no-protocol')) {
    // the protocol on the largest JavaScript tree, else the first one
    const pkg = Object.keys(status.trees).find((p) => p.startsWith('node-')) ?? Object.keys(status.trees)[0];
    say(`protocol: fathom mcp on ${pkg}`);
    proto = await protocol(path.join(CACHE, status.trees[pkg].dir), tasks.filter((t) => t.pkg === pkg).map((t) => t.subject).concat(tasks.slice(0, 20).map((t) => t.subject)));
  }
  await embedder?.dispose();
  if (json) {
    process.stdout.write(`${JSON.stringify({ tasks: tasks.length, dropped, unreachable: status.unreachable, versions: Object.fromEntries(Object.entries(status.trees).map(([k, v]) => [k, v.version])), index, rows, protocol: proto })}\n`);
    return;
  }
  const f = (x: number) => x.toFixed(2);
  const lines = [
    `agent retrieval: subject line of a real change → the files it changed (Fathom ${embedder ? `hybrid with its own model ${embedder.id}` : `keyword-only: ${noModel}`}, ${DEFAULT_MAX_TOKENS}-token answer; ripgrep output cut to the same budget)`,
    ...(baselineDir ? [`base: the search tool of ${baselineDir} over the same folders`] : []),
    `packages: ${Object.entries(status.trees).map(([k, v]) => `${k} ${v.version}`).join(', ')}`,
    `unreachable: ${Object.entries(status.unreachable).map(([k, v]) => `${k} (${v})`).join('; ') || 'none'}`,
    `tasks: ${tasks.length}; not tasks: ${Object.entries(dropped).map(([k, v]) => `${v} ${k}`).join(', ')}`,
    '',
    'r@5: share of the changed files among the first 5 distinct files of the answer (the measure); best r@5: the most any ranking can reach (a change of n > 5 files: 5 / n); fathom: the search tool\'s answer to { query }; keyword: the same with mode "keyword" (the former, keyword-only figure); rg r@5: ripgrep\'s ranking (files by match count); rg lines: `rg -n` output (path:line:text) in file-rank order; rg -m3: at most 3 lines per file; rg files: the ranked paths alone. h/r/t5: a changed file in the 2,000-token answer / share of them in it / one in the first 5 of the ranking',
    `${'group'.padEnd(28)} ${'n'.padStart(3)}  ${'fathom r@5'.padEnd(10)} ${'best r@5'.padEnd(8)} ${'keyword r@5'.padEnd(11)} ${'rg r@5'.padEnd(6)} ${baseTool ? `${'base r@5'.padEnd(8)} ` : ''} ${'fathom h/r/t5'.padEnd(16)} ${'keyword h/r/t5'.padEnd(16)} ${'rg lines h/r'.padEnd(12)} ${'rg -m3 h/r'.padEnd(12)} ${'rg files h/r'.padEnd(12)} ${'rg top5'.padEnd(7)}`,
    ...rows.map(
      (r) =>
        `${r.name.padEnd(28)} ${String(r.fathom.tasks).padStart(3)}  ${f(r.fathom.r5).padEnd(10)} ${f(r.fathom.best).padEnd(8)} ${f(r.keyword.r5).padEnd(11)} ${f(r.ripgrepFiles.r5).padEnd(6)} ${r.base ? `${f(r.base.r5).padEnd(8)} ` : ''} ${`${f(r.fathom.hit)}/${f(r.fathom.recall)}/${f(r.fathom.top5)}`.padEnd(16)} ${`${f(r.keyword.hit)}/${f(r.keyword.recall)}/${f(r.keyword.top5)}`.padEnd(16)} ${`${f(r.ripgrep.hit)}/${f(r.ripgrep.recall)}`.padEnd(12)} ${`${f(r.ripgrepCapped.hit)}/${f(r.ripgrepCapped.recall)}`.padEnd(12)} ${`${f(r.ripgrepFiles.hit)}/${f(r.ripgrepFiles.recall)}`.padEnd(12)} ${f(r.ripgrep.top5)}`,
    ),
  ];
  if (proto) {
    lines.push(
      '',
      `fathom mcp over stdio (loaded machine${process.argv.includes('--no-embed') ? ', --no-embed' : ', with its own model'}): cold (no store): connected ${Math.round(proto.coldConnectMs)} ms, first answer ${Math.round(proto.coldFirstAnswerMs)} ms${proto.coldFirstAnswerWhileIndexing ? ' (while indexing, said so)' : ''}, indexed ${Math.round(proto.coldIndexedMs)} ms, every chunk embedded ${Math.round(proto.coldEmbeddedMs)} ms`,
      `  warm start (stored index): connected ${Math.round(proto.warmStartConnectMs)} ms, first answer ${Math.round(proto.warmStartFirstAnswerMs)} ms, up to date ${Math.round(proto.warmStartIndexedMs)} ms`,
      `  warm search through the protocol: p50 ${proto.searchP50Ms.toFixed(1)} ms, p95 ${proto.searchP95Ms.toFixed(1)} ms (${proto.searches} searches, default detail "files"); detail "chunks" interleaved: p50 ${proto.chunksSearchP50Ms.toFixed(1)} ms, p95 ${proto.chunksSearchP95Ms.toFixed(1)} ms`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench/agent: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
