/**
 * `fathom mcp` as it runs by default — with Fathom's own model, every chunk embedded — through
 * the official SDK client, which checks each answer's structuredContent against the tool's output
 * schema once it has listed the tools (startMcp lists them first, as an agent does). The other SDK tests run keyword-only (`--no-embed`): a hybrid hit carries more (the
 * model behind its meaning rank), and an answer its schema refuses reaches the agent as an error
 * (-32602), not as hits.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, startMcp, type ToolResult } from '../helpers/mcp-client';

describe('fathom mcp with its own model (the default), SDK client', function () {
  this.timeout(120_000);
  let dir: string;
  let client: Client;
  let call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcp-model-'));
    fs.cpSync(path.join(ROOT, 'sample-workspace'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
    ({ client, call } = await startMcp([dir], { model: true, waitMs: 60_000 }));
  });
  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the folder has its vectors and status names the model: searches are hybrid, not keyword-only', async () => {
    const s = await call('status', {});
    const f = (s.structuredContent!.folders as Array<{ chunks: number; vectors: number; pendingVectors: number; model?: string; keywordOnlyReason?: string }>)[0];
    assert.ok(f.chunks > 0);
    assert.equal(f.vectors, f.chunks, s.content[0].text);
    assert.equal(f.pendingVectors, 0);
    // status names the model that ranks by meaning
    assert.match(f.model ?? '', /^fathom-code-search@[0-9a-f]+$/);
    assert.equal(f.keywordOnlyReason, undefined);
    assert.match(s.content[0].text, /^ {2}meaning: fathom-code-search@[0-9a-f]+$/m);
  });

  it('search in every detail and mode answers within its schema; a hit with a meaning rank names the model', async () => {
    for (const args of [
      { query: 'zoom the map in and out' },
      { query: 'zoom the map in and out', detail: 'chunks' },
      { query: 'zoom the map in and out', detail: 'chunks', mode: 'dense', k: 3 },
      { query: 'zoom the map in and out', mode: 'keyword' },
      { query: 'zoom the map in and out', maxTokens: 100 },
    ]) {
      const r = await call('search', args);
      assert.ok(!r.isError, `${JSON.stringify(args)}: ${r.content[0]?.text}`);
      assert.ok((r.structuredContent!.hits as unknown[]).length > 0, JSON.stringify(args));
    }
    const r = await call('search', { query: 'zoom the map in and out', detail: 'chunks', k: 5 });
    const hits = r.structuredContent!.hits as Array<{ why: { dense?: number; model?: string; reranked?: number } }>;
    const meaning = hits.filter((h) => h.why.dense !== undefined);
    assert.ok(meaning.length > 0, 'some hit has a meaning rank');
    for (const h of meaning) assert.equal(h.why.model, 'fathom-code-search');
    assert.match(r.content[0].text, /why: (?:keyword #\d+, )?meaning #\d+ by fathom-code-search/);
    // a query in words is re-ranked (rank/rerank.ts): each hit says its place before
    assert.ok(hits.every((h) => typeof h.why.reranked === 'number'), JSON.stringify(hits.map((h) => h.why)));
    assert.match(r.content[0].text, /why: [^\n]*re-ranked from #\d+ \(score/);
  });

  it('similar, context, definitions, references, read, files, i18n and status answer within their schemas', async () => {
    for (const [name, args] of [
      ['similar', { path: 'src/map/zoom.js', line: 6 }],
      ['context', { path: 'src/map/zoom.js', line: 6 }],
      ['definitions', { symbol: 'getZoomControl' }],
      ['references', { symbol: 'getZoomControl' }],
      ['read', { path: 'src/map/zoom.js', startLine: 1, endLine: 5 }],
      ['files', { glob: 'src/**/*.js' }],
      ['i18n', { text: 'Zoom in' }],
      ['status', {}],
    ] as const) {
      const r = await call(name, args);
      assert.ok(!r.isError, `${name}: ${r.content[0]?.text}`);
      assert.ok(r.structuredContent, name);
    }
  });
});
