/**
 * The PostgreSQL team index next to the local engine, on the same folder, in one run.
 *
 *   node --import tsx bench/pg.ts                    # 10k chunks, hybrid
 *   node --max-old-space-size=8000 --import tsx bench/pg.ts --chunks 10000,100000 --no-dense
 *
 * The folder: JS/TS/Markdown files of npm packages installed with the project (not the dev
 * corpus), copied into a temp folder until the local engine holds `--chunks` chunks. The database:
 * PGlite (PostgreSQL in WASM, with pgvector) in-process — a real server would do the same SQL
 * with more cores. Vectors: a 384-dimension bag of character trigrams (cheap and shaped by the
 * text; the cost model would take hours for 100k chunks), the same for both sides, so dense
 * agreement compares pgvector's HNSW with the local exact scan on identical vectors.
 *
 * `--baseline DIR`: also push the same folder with DIR's src/index/pgstore.ts (another checkout,
 * e.g. the main branch before a change) into a second database (another PGlite, or with --server a
 * second database on the same server, through DIR's connectPg), timed in the same run, and search
 * it with DIR's pgSearch (rows marked `base`, `keyword base` on one kept connection as `keyword`
 * is), interleaved query by query with the new code.
 * `--max-postings A,B`: extra keyword rows with these candidate budgets (PG_MAX_POSTINGS is the default row).
 * `--queries N` mined queries (default 100).
 * The `keyword` row searches as a client does, on one connection that keeps the postings and chunks
 * it read while the index's generation stays; `keyword cold` reads everything from the server.
 * `--server`: a real PostgreSQL server instead of PGlite: Debian's PostgreSQL (initdb/pg_ctl under
 * /usr/lib/postgresql, as in the tests) started in a temp folder, over TCP with the pg client. It has
 * no pgvector, so dense search is the int8 codes scored in the client (`status` mode int8-codes).
 * `--static`: Fathom's own model (128-dim static embedder) on both sides instead of the trigrams.
 *
 *   node --max-old-space-size=8000 --import tsx bench/pg.ts --server --static --chunks 100000
 *
 * Prints: index time (local indexFolder vs pushFolder, where the push's time went, and an
 * incremental re-push after editing 1% of the files), search p50/p95 per mode, and agreement on
 * mined queries: overlap@10 of the result lists (the local side undiversified, as the remote answer
 * is) and the share with the same first hit. The mined queries are split in two halves (even/odd):
 * nothing here is tuned on them, both halves are printed to show the spread.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { hash } from './rng';
import { mineGold } from '../src/eval/mine';
import type { Embedder } from '../src/index/embedder';
import { Engine, type SearchHit, type SearchMode } from '../src/index/engine';
import { connectPg, PG_MAX_POSTINGS, pgSearch, pgStatus, pushFolder, type Sql } from '../src/index/pgstore';
import { loadStaticModel } from '../src/index/static-model';
import { pgBin, startRealPg, type RealPg } from '../test/helpers/real-pg';
import { walkFiles } from '../src/workspace/files';

const ROOT = path.join(__dirname, '..');
const log = (s: string) => process.stderr.write(`${s}\n`);

function trigramEmbedder(dims = 384): Embedder {
  return {
    id: `trigram-${dims}`,
    dims,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = new Float32Array(dims);
        const s = t.toLowerCase();
        for (let i = 0; i + 3 <= s.length; i++) v[(s.charCodeAt(i) * 961 + s.charCodeAt(i + 1) * 31 + s.charCodeAt(i + 2)) % dims] += 1;
        let n = 0;
        for (const x of v) n += x * x;
        n = Math.sqrt(n) || 1;
        for (let i = 0; i < dims; i++) v[i] /= n;
        return v;
      });
    },
    async dispose() {},
  };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const key = (h: SearchHit) => `${h.chunk.path}:${h.chunk.start.line}`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = (f: string) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : undefined);
  const targets = (at('--chunks') ?? '10000').split(',').map(Number);
  const dense = !argv.includes('--no-dense');
  const nq = Number(at('--queries') ?? 100);
  const sources = walkFiles(path.join(ROOT, 'node_modules'))
    .filter((f) => /\.(m?js|ts|md)$/.test(f.rel) && !/\.min\.|\.d\.ts$|dist\/.*\.(cjs|mjs)$/.test(f.rel) && f.size < 100_000)
    .sort((a, b) => hash(a.rel) - hash(b.rel));
  const rows: string[] = [];
  let server: RealPg | undefined;
  if (argv.includes('--server')) {
    const bin = pgBin();
    if (!bin) throw new Error('--server: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
    server = await startRealPg(bin);
    log(`real PostgreSQL server at ${server.url}`);
  }
  const own = argv.includes('--static') ? loadStaticModel() : undefined;
  if (own && 'error' in own) throw new Error(own.error);
  const where = server ? 'a real PostgreSQL 15 server over TCP' : 'PGlite in-process';
  try {
  for (const [ti, target] of targets.entries()) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pgbench-'));
    const embedder = dense ? (own && 'embedder' in own ? own.embedder : trigramEmbedder()) : undefined;
    const local = new Engine({ embedder });
    // copy files until the local engine reaches the target
    let used = 0;
    for (const f of sources) {
      if (local.chunkCount >= target) break;
      const to = path.join(dir, f.rel);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(f.abs, to);
      local.updateFile(f.rel, fs.readFileSync(to), { size: f.size, mtimeMs: 0 });
      used++;
    }
    // the timed local index: a fresh engine from disk
    const fresh = new Engine({ embedder });
    let t0 = performance.now();
    for await (const _ of fresh.indexFolder(dir)) void _;
    const localS = (performance.now() - t0) / 1000;
    log(`${target}: ${used} files, ${fresh.chunkCount} chunks; local index ${localS.toFixed(1)} s`);
    let db: Sql & { end?: () => Promise<void>; close?: () => Promise<void> };
    if (server) {
      const admin = await connectPg(server.url);
      await admin.query(`create database bench_${ti}`);
      await admin.end();
      db = await connectPg(server.url.replace(/\/postgres$/, `/bench_${ti}`));
    } else db = await PGlite.create({ extensions: { vector } });
    t0 = performance.now();
    const pushed = await pushFolder(db, dir, { embedder });
    const pgS = (performance.now() - t0) / 1000;
    log(`  pushed in ${pgS.toFixed(1)} s: ${JSON.stringify(pushed)}`);
    if (embedder) log(`  dense path: ${(await pgStatus(db)).mode}`);
    let baseS: number | undefined;
    const baseline = at('--baseline');
    let db0: Sql & { end?: () => Promise<void>; close?: () => Promise<void> } | undefined;
    let old: { pushFolder: typeof pushFolder; pgSearch: typeof pgSearch; connectPg: typeof connectPg } | undefined;
    if (baseline) {
      old = (await import(path.resolve(baseline, 'src/index/pgstore.ts'))) as { pushFolder: typeof pushFolder; pgSearch: typeof pgSearch; connectPg: typeof connectPg };
      if (server) {
        const admin = await connectPg(server.url);
        await admin.query(`create database bench_base_${ti}`);
        await admin.end();
        db0 = await old.connectPg(server.url.replace(/\/postgres$/, `/bench_base_${ti}`));
      } else db0 = await PGlite.create({ extensions: { vector } });
      t0 = performance.now();
      await old.pushFolder(db0, dir, { embedder });
      baseS = (performance.now() - t0) / 1000;
      log(`  baseline push (${baseline}) ${baseS.toFixed(1)} s`);
    }
    // incremental: 1% of the files edited, pushed again
    const edited = walkFiles(dir).filter((_, i) => i % 100 === 7);
    for (const f of edited) fs.appendFileSync(f.abs, '\n// edited for the incremental push\n');
    t0 = performance.now();
    const again = await pushFolder(db, dir, { embedder });
    const pgIncS = (performance.now() - t0) / 1000;
    if (old && db0) await old.pushFolder(db0, dir, { embedder });
    log(`  re-pushed ${edited.length} edited files in ${pgIncS.toFixed(1)} s: ${JSON.stringify(again)}`);
    for (const f of edited) fresh.updateFile(f.rel, fs.readFileSync(f.abs), { size: fs.statSync(f.abs).size, mtimeMs: 0 });
    for await (const _ of fresh.embedPending()) void _;
    const gold = mineGold(fresh).slice(0, nq);
    const budgets = (at('--max-postings') ?? '').split(',').filter(Boolean).map(Number);
    type Row = { mode: SearchMode; label: string; search: (q: string) => Promise<SearchHit[]> };
    const runs: Row[] = [];
    for (const mode of (dense ? ['keyword', 'dense', 'hybrid'] : ['keyword']) as SearchMode[]) {
      runs.push({ mode, label: mode, search: (q) => pgSearch(db, q, { k: 10, mode, embedder, diversify: false }) });
      if (old && db0) runs.push({ mode, label: `${mode} base`, search: (q) => old.pgSearch(db0, q, { k: 10, mode, embedder, diversify: false }) });
      if (mode === 'keyword') runs.push({ mode, label: 'keyword cold', search: (q) => pgSearch(db, q, { k: 10, mode, embedder, diversify: false, cold: true }) });
      if (mode === 'keyword') for (const mp of budgets) runs.push({ mode, label: `keyword@${mp}`, search: (q) => pgSearch(db, q, { k: 10, mode, embedder, diversify: false, maxPostings: mp }) });
    }
    const ms = (x: number) => `${(x / 1000).toFixed(1)} s`;
    rows.push(`${String(fresh.chunkCount).padEnd(8)} index: local ${localS.toFixed(1)} s, pg push ${pgS.toFixed(1)} s (${(pgS / localS).toFixed(1)}x local; chunk ${ms(pushed.ms?.chunk ?? 0)}, embed ${ms(pushed.ms?.embed ?? 0)}, write ${ms(pushed.ms?.write ?? 0)}, index build + vacuum ${ms(pushed.ms?.finish ?? 0)}), ${pushed.batches} transactions${baseS === undefined ? '' : `; baseline push ${baseS.toFixed(1)} s (new/baseline ${(pgS / baseS).toFixed(2)})`}; re-push of ${edited.length} edited files ${pgIncS.toFixed(1)} s (${again.written} written, ${again.unchanged} unchanged)`);
    log(rows[rows.length - 1]);
    // all rows query by query, interleaved, so that load on the machine falls on each alike
    const stat = runs.map(() => ({ lt: [] as number[], rt: [] as number[], overlap: [0, 0], top1: [0, 0], half: [0, 0] }));
    for (const [qi, g] of gold.entries()) {
      const localAns = new Map<SearchMode, { hits: SearchHit[]; ms: number }>();
      for (const [ri, run] of runs.entries()) {
        let a = localAns.get(run.mode);
        if (!a) {
          const t = performance.now();
          const hits = await fresh.search(g.query, { k: 10, mode: run.mode, diversify: false });
          a = { hits, ms: performance.now() - t };
          localAns.set(run.mode, a);
        }
        const st = stat[ri];
        st.lt.push(a.ms);
        const t = performance.now();
        const b = await run.search(g.query);
        st.rt.push(performance.now() - t);
        const la = new Set(a.hits.map(key));
        const hh = qi % 2;
        st.half[hh]++;
        st.overlap[hh] += b.filter((h) => la.has(key(h))).length / Math.max(1, a.hits.length);
        if (a.hits[0] && b[0] && key(a.hits[0]) === key(b[0])) st.top1[hh]++;
      }
    }
    for (const [ri, run] of runs.entries()) {
      const { lt, rt, overlap, top1, half } = stat[ri];
      const both = (xs: number[]) => `${((xs[0] + xs[1]) / gold.length).toFixed(3)} (halves ${(xs[0] / Math.max(1, half[0])).toFixed(3)} / ${(xs[1] / Math.max(1, half[1])).toFixed(3)})`;
      rows.push(
        `${String(fresh.chunkCount).padEnd(8)} ${run.label.padEnd(14)} local p50/p95 ${pct(lt, 50).toFixed(2)} / ${pct(lt, 95).toFixed(2)} ms   pg p50/p95 ${pct(rt, 50).toFixed(2)} / ${pct(rt, 95).toFixed(2)} ms (${(pct(rt, 50) / pct(lt, 50)).toFixed(1)}x / ${(pct(rt, 95) / pct(lt, 95)).toFixed(1)}x local)   overlap@10 ${both(overlap)}  same top-1 ${both(top1)}  (${gold.length} queries)`,
      );
      log(rows[rows.length - 1]);
    }
    await (db.end ?? db.close)?.call(db);
    if (db0) await (db0.end ?? db0.close)?.call(db0);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  } finally {
    server?.remove();
  }
  process.stdout.write(`\nPOSTGRESQL (${where}) vs LOCAL, same folder and vectors (keyword candidate budget ${PG_MAX_POSTINGS} postings)\n${rows.join('\n')}\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
