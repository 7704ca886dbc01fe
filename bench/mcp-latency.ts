/**
 * How long an agent waits for `fathom mcp` while it indexes a large tree and saves: the
 * `status` tool is called every 200 ms through the official SDK client from the server's start
 * until `--after` seconds after its first pass ended (a file is added to the tree 3 s after that
 * pass, and removed at the end: the save that follows a change is measured too). Printed per
 * tree and build: when the first pass ended, how many vectors the index had then, and the
 * latency of the calls (p50, p95, max, calls over 1 s). A call that waits is one the server
 * did not answer because its thread was busy (a save, the i18n index's snapshot).
 *
 *   node bench/agent-setup.mjs && node esbuild.mjs && node --import tsx bench/mcp-latency.ts [--only PKG,…] [--after S] [--baseline DIR]
 *
 * Trees: those bench/agent-setup.mjs unpacked (default python-django and calibre: 6,543 and
 * 15,713 files). Each run indexes from nothing into a temporary store, with the server's
 * defaults (Fathom's own model). `--baseline DIR`: the same with DIR/dist/cli.js (a checkout of
 * an earlier Fathom, built), run right after, side by side.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const CACHE = path.join(__dirname, '.agent');

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Run {
  indexedAfter: number;
  vectorsAtIndexed: number;
  chunks: number;
  latencies: number[];
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};

async function measure(cli: string, dir: string, afterS: number, ext: string): Promise<Run> {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcp-latency-'));
  const added = path.join(dir, `fathom-bench-added${ext}`);
  const t = new StdioClientTransport({ command: process.execPath, args: ['--max-old-space-size=14000', cli, 'mcp', '--dir', dir, '--store', store], stderr: 'ignore' });
  const client = new Client({ name: 'fathom-bench', version: '1' });
  const t0 = Date.now();
  const latencies: number[] = [];
  let indexedAt = 0;
  let vectorsAtIndexed = 0;
  let chunks = 0;
  let addedAt = 0;
  try {
    await client.connect(t);
    for (;;) {
      const s = Date.now();
      const r = await client.callTool({ name: 'status', arguments: {} }, undefined, { timeout: 900_000 });
      latencies.push(Date.now() - s);
      const f = (r.structuredContent as { folders?: Array<{ indexing?: unknown; vectors: number; chunks: number }> } | undefined)?.folders?.[0];
      if (!indexedAt && f && !f.indexing) {
        indexedAt = Date.now();
        vectorsAtIndexed = f.vectors;
        chunks = f.chunks;
      }
      if (indexedAt && !addedAt && Date.now() - indexedAt > 3000) {
        fs.writeFileSync(added, '# added while the server runs (bench/mcp-latency.ts)\n');
        addedAt = Date.now();
      }
      if (indexedAt && Date.now() - indexedAt > afterS * 1000) break;
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    await client.close().catch(() => undefined);
    fs.rmSync(added, { force: true });
    fs.rmSync(store, { recursive: true, force: true });
  }
  return { indexedAfter: (indexedAt - t0) / 1000, vectorsAtIndexed, chunks, latencies };
}

async function main(): Promise<void> {
  const only = (argValue('--only') ?? 'python-django,calibre').split(',');
  const afterS = Number(argValue('--after') ?? 20);
  const baseline = argValue('--baseline');
  const builds: Array<[string, string]> = [['this build', path.join(__dirname, '..', 'dist', 'cli.js')]];
  if (baseline) builds.push([`baseline ${baseline}`, path.join(path.resolve(baseline), 'dist', 'cli.js')]);
  for (const [, cli] of builds) if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build it first (node esbuild.mjs)`);
  console.log(`status latency of fathom mcp, from its start to ${afterS} s after its first pass (a file added 3 s after it), calls every 200 ms`);
  console.log(`${'tree'.padEnd(16)} ${'build'.padEnd(30)} ${'pass s'.padStart(7)} ${'vectors then'.padStart(16)} ${'calls'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'max ms'.padStart(8)} ${'> 1 s'.padStart(6)}`);
  for (const pkg of only) {
    const dir = path.join(CACHE, 'src', pkg, 'tree');
    if (!fs.existsSync(dir)) {
      console.log(`${pkg}: not unpacked (node bench/agent-setup.mjs)`);
      continue;
    }
    const ext = pkg.startsWith('python') || pkg === 'calibre' ? '.py' : pkg.startsWith('node') ? '.js' : '.go';
    const maxes: number[] = [];
    for (const [name, cli] of builds) {
      const r = await measure(cli, dir, afterS, ext);
      maxes.push(Math.max(...r.latencies));
      console.log(
        `${pkg.padEnd(16)} ${name.padEnd(30)} ${r.indexedAfter.toFixed(1).padStart(7)} ${`${r.vectorsAtIndexed}/${r.chunks}`.padStart(16)} ${String(r.latencies.length).padStart(6)} ${String(pct(r.latencies, 0.5)).padStart(7)} ${String(pct(r.latencies, 0.95)).padStart(7)} ${String(Math.max(...r.latencies)).padStart(8)} ${String(r.latencies.filter((x) => x > 1000).length).padStart(6)}`,
      );
    }
    if (maxes.length === 2) console.log(`${pkg.padEnd(16)} max latency, this build / baseline: ${(maxes[0] / maxes[1]).toFixed(2)}x`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
