/**
 * `fathom mcp` through the official SDK's Client over stdio (the built CLI, as an agent runs
 * it), and the tools in-process on a LocalFolder (indexing in progress, context stitching).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, startMcp, type ToolResult } from '../helpers/mcp-client';
import { LocalFolder } from '../../src/mcp/folder';
import { loadStaticModel } from '../../src/index/static-model';
import { Engine } from '../../src/index/engine';
import { loadStore } from '../../src/index/store';
import { runTool, stitch, ToolError } from '../../src/agent/tools';
import { defaultTokenCounter } from '../../src/tokenizer/wordpiece';
import type { Chunk } from '../../src/chunkers/types';


function copySample(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcp-'));
  fs.cpSync(path.join(ROOT, 'sample-workspace'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fathom mcp over stdio (SDK client)', function () {
  this.timeout(60_000);
  let dir: string;
  let client: Client;
  let stderr: () => string = () => '';
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

  before(async () => {
    dir = copySample();
    const session = await startMcp([dir], { waitMs: 10_000 });
    client = session.client;
    stderr = session.stderr;
  });
  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the nine tools, each with input and output schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['context', 'definitions', 'files', 'i18n', 'read', 'references', 'search', 'similar', 'status']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
      assert.ok(t.description && t.description.length > 40, t.name);
    }
    const search = tools.find((t) => t.name === 'search')!;
    assert.deepEqual(Object.keys(search.inputSchema.properties!).sort(), ['cursor', 'detail', 'folder', 'glob', 'k', 'kind', 'language', 'maxTokens', 'mode', 'query']);
    assert.deepEqual(search.inputSchema.required, ['query']);
  });

  it('search detail "chunks": one block per hit with path:start-end, kind, symbol, why and the chunk; structured hits alike', async () => {
    const r = await call('search', { query: 'zoom control (getZoomControl)', k: 3, detail: 'chunks' });
    assert.ok(!r.isError, r.content[0]?.text);
    const text = r.content[0].text;
    assert.match(text, /## 1\. src\/map\/zoom\.js:3-11 · function getZoomControl\nwhy: keyword #1/);
    assert.match(text, /export function getZoomControl \(map, options = \{\}\)/);
    const hits = r.structuredContent!.hits as Array<{ path: string; startLine: number; endLine: number; symbol: string; kind: string; text: string; why: { keyword?: number } }>;
    assert.equal(hits.length, 3);
    assert.deepEqual([hits[0].path, hits[0].startLine, hits[0].endLine, hits[0].symbol, hits[0].kind], ['src/map/zoom.js', 3, 11, 'getZoomControl', 'function']);
    assert.equal(hits[0].why.keyword, 1);
    assert.equal((text.match(/^## \d+\. /gm) ?? []).length, 3, 'one block per hit');
    assert.match(text, /keyword-only/);
  });

  it('search (default detail "files"): one line per file with its best place and best line(s), each file once', async () => {
    const r = await call('search', { query: 'getZoomControl' });
    assert.ok(!r.isError, r.content[0]?.text);
    const text = r.content[0].text;
    assert.match(text, /^1\. src\/map\/zoom\.js:3-11 · function getZoomControl\n(?: {3}\d+: .*\n)? {3}6: export function getZoomControl \(map, options = \{\}\) \{$/m);
    const hits = r.structuredContent!.hits as Array<{ path: string; startLine: number; symbol: string; lines: Array<{ line: number; text: string }>; more?: unknown[] }>;
    assert.ok(hits.length >= 3, `${hits.length} files`);
    assert.equal(new Set(hits.map((h) => h.path)).size, hits.length, 'each file once');
    assert.deepEqual([hits[0].path, hits[0].startLine, hits[0].symbol], ['src/map/zoom.js', 3, 'getZoomControl']);
    assert.ok(hits[0].lines.some((l) => l.line === 6 && l.text === 'export function getZoomControl (map, options = {}) {'), JSON.stringify(hits[0].lines));
    assert.equal((text.match(/^\d+\. /gm) ?? []).length, hits.length, 'one numbered line per file');
    assert.doesNotMatch(text, /```/, 'no chunk text');
    assert.equal(r.structuredContent!.tokens, defaultTokenCounter().count(text));
  });

  it('search "files": a commit-style sentence is searched by its identifiers and content words, tracker references and change-log words dropped', async () => {
    const r = await call('search', { query: 'Fixed #4711 -- Made getZoomControl() reuse the registered instance instead of creating it again.' });
    assert.ok(!r.isError, r.content[0]?.text);
    const searched = /^searched: (.*)$/m.exec(r.content[0].text)?.[1];
    assert.equal(searched, 'getZoomControl reuse registered instance creating');
    const hits = r.structuredContent!.hits as Array<{ path: string; symbol: string }>;
    assert.equal(hits[0].path, 'src/map/zoom.js');
  });

  it('search "files": cut to maxTokens, nextCursor gives the following files', async () => {
    const counter = defaultTokenCounter();
    const full = await call('search', { query: 'zoom', maxTokens: 100_000 });
    const all = (full.structuredContent!.hits as Array<{ path: string }>).map((h) => h.path);
    assert.ok(all.length >= 3, `${all.length} files`);
    const small = await call('search', { query: 'zoom', maxTokens: 250 });
    assert.ok(counter.count(small.content[0].text) <= 250);
    const first = (small.structuredContent!.hits as Array<{ path: string }>).map((h) => h.path);
    assert.ok(first.length >= 1 && first.length < all.length, `${first.length} of ${all.length}`);
    assert.deepEqual(first, all.slice(0, first.length));
    const cursor = small.structuredContent!.nextCursor as string;
    assert.match(small.content[0].text, /more files: call again with cursor/);
    const next = await call('search', { query: 'zoom', maxTokens: 250, cursor });
    const second = (next.structuredContent!.hits as Array<{ path: string }>).map((h) => h.path);
    assert.deepEqual(second, all.slice(first.length, first.length + second.length));
    assert.match(next.content[0].text, new RegExp(`^${first.length + 1}\\. `, 'm'), 'ranks go on');
    const chunkCursor = await call('search', { query: 'zoom', cursor, detail: 'chunks' });
    assert.equal(chunkCursor.isError, true, 'a files cursor is not a chunks cursor');
  });

  it('search: cut to maxTokens (counted with the WordPiece tokenizer), nextCursor gives the following hits', async () => {
    const counter = defaultTokenCounter();
    const full = await call('search', { query: 'zoom', k: 10, maxTokens: 100_000, detail: 'chunks' });
    const all = (full.structuredContent!.hits as Array<{ path: string; startLine: number }>).map((h) => `${h.path}:${h.startLine}`);
    assert.ok(all.length >= 4, `${all.length} hits`);
    const small = await call('search', { query: 'zoom', k: 10, maxTokens: 300, detail: 'chunks' });
    const text = small.content[0].text;
    assert.ok(counter.count(text) <= 300, `${counter.count(text)} tokens`);
    assert.equal(small.structuredContent!.tokens, counter.count(text));
    const first = (small.structuredContent!.hits as Array<{ path: string; startLine: number }>).map((h) => `${h.path}:${h.startLine}`);
    assert.ok(first.length >= 1 && first.length < all.length, `${first.length} of ${all.length}`);
    assert.deepEqual(first, all.slice(0, first.length));
    const cursor = small.structuredContent!.nextCursor as string;
    assert.ok(cursor, 'a nextCursor');
    assert.match(text, /cursor/);
    const next = await call('search', { query: 'zoom', k: 10, maxTokens: 300, cursor, detail: 'chunks' });
    const second = (next.structuredContent!.hits as Array<{ path: string; startLine: number }>).map((h) => `${h.path}:${h.startLine}`);
    assert.deepEqual(second, all.slice(first.length, first.length + second.length));
    assert.match(next.content[0].text, new RegExp(`## ${first.length + 1}\\. `), 'ranks go on');
    // a cursor is for its own query
    const other = await call('search', { query: 'layers', cursor, detail: 'chunks' });
    assert.equal(other.isError, true);
    assert.match(other.content[0].text, /cursor belongs to another request/);
    const junk = await call('search', { query: 'zoom', cursor: 'not-a-cursor', detail: 'chunks' });
    assert.equal(junk.isError, true);
    assert.match(junk.content[0].text, /cursor is not one Fathom gave/);
  });

  it('search: a tiny budget still shows the best hit, cut to whole lines and marked', async () => {
    const r = await call('search', { query: 'zoom control (getZoomControl)', k: 1, maxTokens: 130, detail: 'chunks' });
    assert.ok(!r.isError, r.content[0].text);
    const hit = (r.structuredContent!.hits as Array<{ text: string; truncated?: boolean }>)[0];
    assert.equal(hit.truncated, true);
    assert.ok(defaultTokenCounter().count(r.content[0].text) <= 130);
    assert.match(r.content[0].text, /cut to the budget/);
  });

  it('search: filters by glob, language and kind', async () => {
    const r = await call('search', { query: 'zoom', glob: '*.vue', kind: ['template', 'script'], k: 10 });
    const hits = r.structuredContent!.hits as Array<{ path: string; kind: string; language: string }>;
    assert.ok(hits.length > 0);
    for (const h of hits) {
      assert.match(h.path, /\.vue$/);
      assert.ok(['template', 'script'].includes(h.kind), h.kind);
    }
    const md = await call('search', { query: 'zoom', language: 'markdown' });
    for (const h of md.structuredContent!.hits as Array<{ language: string }>) assert.equal(h.language, 'markdown');
  });

  it('bad input is a tool error with a clear message, and the server keeps answering', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search', { query: 'x', mode: 'fuzzy' }, /mode/],
      ['search', { query: 'x', k: 51 }, /k/],
      ['search', { query: 'x', mode: 'dense' }, /dense.*embedding model/],
      ['search', {}, /query/],
      ['similar', { path: '../../etc/passwd', line: 1 }, /outside the open folder/],
      ['context', { path: '/etc/passwd', line: 1 }, /outside the open folder/],
      ['context', { path: 'src/map/zoom.js' }, /give line/],
      ['context', { path: 'src/map/zoom.js', line: 9999 }, /past the last indexed line/],
      ['similar', { path: 'no/such/file.ts', line: 1 }, /not indexed/],
      ['i18n', {}, /text.*or key/],
      ['i18n', { text: 'a', key: 'b' }, /one of the two/],
    ];
    for (const [name, args, re] of cases) {
      const r = await call(name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${r.content[0]?.text}`);
      assert.match(r.content[0].text, re, `${name} ${JSON.stringify(args)}`);
      assert.doesNotMatch(r.content[0].text, /\n\s+at /, 'no stack trace');
    }
    const ok = await call('status', {});
    assert.ok(!ok.isError);
  });

  it('similar: chunks like the one at path:line, never the source itself', async () => {
    const r = await call('similar', { path: 'src/map/zoom.js', line: 5, k: 5 });
    assert.ok(!r.isError, r.content[0].text);
    const s = r.structuredContent!;
    assert.deepEqual(s.source, { path: 'src/map/zoom.js', startLine: 3, endLine: 11, symbol: 'getZoomControl' });
    const hits = s.hits as Array<{ path: string; startLine: number }>;
    assert.ok(hits.length > 0);
    assert.ok(!hits.some((h) => h.path === 'src/map/zoom.js' && h.startLine === 3));
    assert.match(r.content[0].text, /^like src\/map\/zoom\.js:3-11/m);
  });

  it('context: a Markdown code block gives its section with the code, the parent section too', async () => {
    const r = await call('context', { path: 'docs/i18n.md', line: 15 });
    assert.ok(!r.isError, r.content[0].text);
    const units = r.structuredContent!.units as Array<{ role: string; symbol: string; text: string; startLine: number; endLine: number }>;
    const unit = units.find((u) => u.role === 'unit')!;
    assert.equal(unit.symbol, 'Translations > Adding a language');
    assert.match(unit.text, /^## Adding a language[\s\S]*```bash\ncp locales\/core_en\.json locales\/core_de\.json\n```$/);
    assert.equal((unit.text.match(/cp locales/g) ?? []).length, 1, 'the code block once');
    const parent = units.find((u) => u.role === 'parent');
    assert.equal(parent?.symbol, 'Translations');
    // the same with an absolute path and a range
    const r2 = await call('context', { path: path.join(dir, 'docs/i18n.md'), startLine: 9, endLine: 10, window: 0 });
    assert.equal((r2.structuredContent!.units as Array<{ symbol: string }>)[0].symbol, 'Translations > Adding a language');
  });

  it('context: the enclosing function with neighbours within the window', async () => {
    const r = await call('context', { path: 'src/map/zoom.js', line: 7, window: 2 });
    const units = r.structuredContent!.units as Array<{ role: string; symbol: string | null }>;
    assert.equal(units[0].role, 'unit');
    assert.equal(units[0].symbol, 'getZoomControl');
    assert.match(r.content[0].text, /## unit: src\/map\/zoom\.js:3-11 · function getZoomControl/);
  });

  it('i18n: a displayed string finds its key with every locale and usages; a key too', async () => {
    const en = JSON.parse(fs.readFileSync(path.join(dir, 'locales/core_en.json'), 'utf8')) as Record<string, unknown>;
    const firstLeaf = (o: unknown, prefix = ''): [string, string] => {
      for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
        if (typeof v === 'string') return [prefix + k, v];
        if (v && typeof v === 'object') return firstLeaf(v, `${prefix}${k}.`);
      }
      throw new Error('no leaf');
    };
    const [key, value] = firstLeaf(en);
    const r = await call('i18n', { text: value });
    assert.ok(!r.isError, r.content[0].text);
    const c = (r.structuredContent!.candidates as Array<{ key: string; match: string; locales: Array<{ locale: string; file: string }> }>)[0];
    assert.equal(c.key, key);
    assert.equal(c.match, 'exact');
    assert.ok(c.locales.some((l) => l.locale === 'fr' && l.file === 'locales/core_fr.json'));
    assert.match(r.content[0].text, new RegExp(`## ${key.replace(/\./g, '\\.')} · exact`));
    const byKey = await call('i18n', { key });
    assert.equal((byKey.structuredContent!.candidates as Array<{ key: string; match: string }>)[0].match, 'key');
    const none = await call('i18n', { text: 'zzqx nothing like this anywhere' });
    assert.ok(!none.isError);
    assert.match(none.content[0].text, /no key found/);
  });

  it('status: files, chunks, vectors, keyword-only reason, the watcher', async () => {
    const r = await call('status', {});
    const f = (r.structuredContent!.folders as Array<Record<string, unknown>>)[0];
    assert.equal(f.root, fs.realpathSync(dir) === dir ? dir : f.root);
    assert.ok((f.files as number) >= 9);
    assert.ok((f.chunks as number) > 10);
    assert.equal(f.vectors, 0);
    assert.match(String(f.keywordOnlyReason), /--no-embed/);
    assert.equal(f.model, undefined, 'no model ranks by meaning');
    assert.doesNotMatch(r.content[0].text, /meaning:/);
    assert.equal(f.watching, 'watching for changes');
    assert.match(r.content[0].text, /indexing: done/);
  });

  it('a file written while the server runs is found by the next search, an edit replaces it, a deletion removes it', async () => {
    const q = 'quuxFrobnicateWidget';
    const before = await call('search', { query: q });
    assert.ok(!(before.structuredContent!.hits as Array<{ symbol: string }>).some((h) => h.symbol === q));
    fs.writeFileSync(path.join(dir, 'src/map/fresh.js'), 'export function quuxFrobnicateWidget (a) {\n  return a * 2\n}\n');
    const find = async (query: string, want: boolean) => {
      for (let i = 0; i < 100; i++) {
        const r = await call('search', { query });
        const hits = r.structuredContent!.hits as Array<{ path: string; text: string }>;
        if (hits.some((h) => h.path === 'src/map/fresh.js') === want) return hits;
        await sleep(100);
      }
      throw new Error(`"${query}" ${want ? 'never found' : 'still found'} (stderr: ${stderr()})`);
    };
    const hits = await find(q, true);
    assert.equal(hits[0].path, 'src/map/fresh.js');
    fs.writeFileSync(path.join(dir, 'src/map/fresh.js'), 'export function zorpBlatherHandle (a) {\n  return a * 3\n}\n');
    await find('zorpBlatherHandle', true);
    await find(q, false);
    fs.rmSync(path.join(dir, 'src/map/fresh.js'));
    await find('zorpBlatherHandle', false);
    assert.match(stderr(), /updated/);
  });

  it('logs only to stderr: stdout carried nothing but the protocol', () => {
    // the SDK client parses every stdout line as JSON-RPC; a stray line would have failed a call
    assert.match(stderr(), /fathom mcp: serving/);
  });
});

describe('MCP tools in-process (LocalFolder)', () => {
  it('answers while the first pass indexes, and says so', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcp-busy-'));
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(dir, `m${i}.js`), `export function handler${i} (x) {\n  return x + ${i}\n}\n`);
    const f = LocalFolder.open(dir, { watch: false, log: () => undefined });
    try {
      f.start();
      const during = await runTool('search', { query: 'handler1' }, { folders: [f] });
      assert.match(during.text, /still (indexing \(\d+\/(\d+|\?) files\)|loading the stored index): this answer covers what is (indexed|loaded) so far/);
      const st = await runTool('status', {}, { folders: [f] });
      assert.ok((st.structured.folders as Array<{ indexing?: unknown }>)[0].indexing, 'status shows indexing');
      await f.indexed;
      const after = await runTool('search', { query: 'handler1' }, { folders: [f] });
      assert.doesNotMatch(after.text, /still indexing/);
      assert.equal((after.structured.hits as Array<{ symbol: string }>)[0].symbol, 'handler1');
    } finally {
      await f.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("with Fathom's own model the first pass embeds as it indexes: when it is over, every chunk has its vector and the store is saved with them", async () => {
    const m = loadStaticModel();
    if ('error' in m) throw new Error(m.error);
    const dir = copySample();
    const store = path.join(dir, '.fathom');
    const f = LocalFolder.open(dir, { watch: false, embedder: m.embedder, log: () => undefined });
    try {
      f.start();
      await f.indexed;
      const e = f.engine!;
      assert.ok(e.chunkCount > 20);
      // no second pass over the chunks after the first (which saved the whole store again per batch of vectors)
      assert.equal(e.pendingVectors, 0);
      assert.equal(e.vectors?.count, e.chunkCount);
      const saved = new Engine({ embedder: m.embedder });
      assert.equal(loadStore(store, saved).ok, true);
      assert.equal(saved.chunkCount, e.chunkCount);
      assert.equal(saved.vectors?.count, e.chunkCount);
    } finally {
      await f.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a store locked by another process: indexed in memory, said in status, never a crash', async () => {
    const dir = copySample();
    const store = path.join(dir, '.fathom');
    fs.mkdirSync(store, { recursive: true });
    // a live process (this one's parent) holds the lock
    fs.writeFileSync(path.join(store, 'lock'), JSON.stringify({ pid: process.ppid, host: os.hostname(), at: new Date().toISOString() }));
    const f = LocalFolder.open(dir, { watch: false });
    try {
      f.start();
      await f.indexed;
      const st = await runTool('status', {}, { folders: [f] });
      assert.match((st.structured.folders as Array<{ store: string }>)[0].store, /in memory only/);
      const r = await runTool('search', { query: 'zoom' }, { folders: [f] });
      assert.ok((r.structured.hits as unknown[]).length > 0);
    } finally {
      await f.close();
      assert.ok(fs.existsSync(path.join(store, 'lock')), 'the other process keeps its lock');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('unknown tools and unknown arguments are ToolErrors', async () => {
    const dir = copySample();
    const f = LocalFolder.open(dir, { watch: false });
    try {
      await assert.rejects(runTool('grep', {}, { folders: [f] }), (e: unknown) => e instanceof ToolError && /unknown tool "grep"/.test(e.message));
      await assert.rejects(runTool('search', { query: 'x', limit: 3 }, { folders: [f] }), (e: unknown) => e instanceof ToolError && /limit/.test(e.message));
      await assert.rejects(runTool('search', { query: 'x', mode: 'fuzzy' }, { folders: [f] }), (e: unknown) => e instanceof ToolError && /mode/.test(e.message));
    } finally {
      await f.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stitch puts pieces back in file order, an overlap once, whitespace as lines', () => {
    const mk = (text: string, so: number, sl: number, sc: number, eo: number, el: number, ec: number): Chunk => ({
      id: `${so}`,
      path: 'a.md',
      language: 'markdown',
      kind: 'section',
      header: '',
      text,
      start: { offset: so, line: sl, column: sc },
      end: { offset: eo, line: el, column: ec },
      tokens: 1,
      complete: false,
    });
    const src = '# A\n\npara one\n\n```js\nx()\n```\n\n  tail';
    const a = mk('# A\n\npara one', 0, 1, 0, 13, 3, 8);
    const code = mk('```js\nx()\n```', 15, 5, 0, 28, 7, 3);
    const tail = mk('tail', 32, 9, 2, 36, 9, 6);
    const whole = mk(src.slice(0, 28), 0, 1, 0, 28, 7, 3);
    assert.equal(stitch([tail, code, a]).text, src);
    assert.equal(stitch([whole, code]).text, src.slice(0, 28), 'a nested code block is not repeated');
  });
});
