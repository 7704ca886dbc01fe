/**
 * The editor's side of the agent tools without an editor: the `tool` request answered by the
 * worker (dist/worker.js through IndexClient, the path `vscode.lm.invokeTool` takes), and the
 * `languageModelTools` schemas of package.json kept equal to the tools' own input schemas.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { IndexClient } from '../../src/service/client';
import { descriptions, inputShapes, TOOL_NAMES } from '../../src/agent/tools';

const ROOT = path.join(__dirname, '..', '..');
const WORKER = path.join(ROOT, 'dist', 'worker.js');

describe('agent tools in the editor', () => {
  it('package.json declares each tool as a language-model tool with the tools’ own input schema', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      engines: { vscode: string };
      contributes: { languageModelTools: Array<{ name: string; modelDescription: string; inputSchema: Record<string, unknown> }>; mcpServerDefinitionProviders: Array<{ id: string }> };
    };
    const declared = pkg.contributes.languageModelTools;
    assert.deepEqual(declared.map((t) => t.name), TOOL_NAMES.map((n) => `fathom_${n}`));
    for (const n of TOOL_NAMES) {
      const t = declared.find((d) => d.name === `fathom_${n}`)!;
      const want = z.toJSONSchema(z.object(inputShapes[n]).strict()) as Record<string, unknown>;
      delete want.$schema;
      assert.deepEqual(t.inputSchema, want, `${t.name}: regenerate its inputSchema from src/agent/tools.ts`);
      assert.equal(t.modelDescription, descriptions[n].description);
    }
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders.map((p) => p.id), ['fathom.mcp']);
    // languageModelTools needs 1.95; the range must not admit older editors
    const min = /^\^1\.(\d+)/.exec(pkg.engines.vscode);
    assert.ok(min && Number(min[1]) >= 95, pkg.engines.vscode);
  });

  describe('the worker answers the tool request', function () {
    this.timeout(60_000);
    let tmp: string;
    let client: IndexClient;
    before(async () => {
      if (!fs.existsSync(WORKER)) throw new Error(`${WORKER} is missing: build it first (npm test does)`);
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-lmtools-'));
      fs.cpSync(path.join(ROOT, 'sample-workspace'), path.join(tmp, 'ws'), { recursive: true, filter: (s) => path.basename(s) !== '.fathom' });
      client = new IndexClient(WORKER);
      await client.init({});
    });
    after(async () => {
      await client.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('before any folder is open: a clear refusal, not a failure', async () => {
      const r = await client.tool('search', { query: 'zoom' });
      assert.equal(r.isError, true);
      assert.match(r.text, /no folder is open/);
    });

    it('search, context and status answer as the MCP server does; bad input is isError', async () => {
      const ws = path.join(tmp, 'ws');
      await client.index(ws, path.join(tmp, 'store'));
      const r = await client.tool('search', { query: 'zoom control (getZoomControl)', k: 2, maxTokens: 400, detail: 'chunks' }, { roots: [ws] });
      assert.ok(!r.isError, r.text);
      assert.match(r.text, /## 1\. src\/map\/zoom\.js:3-11 · function getZoomControl/);
      assert.equal((r.structured.hits as Array<{ path: string }>)[0].path, 'src/map/zoom.js');
      assert.ok((r.structured.tokens as number) <= 400);
      // the default answer (files) from the worker's session: the same as the MCP server's
      const files = await client.tool('search', { query: 'getZoomControl' });
      assert.match(files.text, /^1\. src\/map\/zoom\.js:3-11 · function getZoomControl\n(?: {3}\d+: .*\n)? {3}6: export function getZoomControl/m);
      const paths = (files.structured.hits as Array<{ path: string; pathMatch?: string[] }>).map((h) => h.path);
      assert.equal(new Set(paths).size, paths.length, 'each file once');
      const c = await client.tool('context', { path: 'docs/i18n.md', line: 15 });
      assert.match(c.text, /## unit: docs\/i18n\.md:9-16 · section Translations > Adding a language/);
      const s = await client.tool('status', {});
      assert.match(s.text, /indexing: done/);
      const bad = await client.tool('search', { query: 'x', mode: 'fuzzy' });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /mode/);
      const outside = await client.tool('similar', { path: '../../../etc/passwd', line: 1 });
      assert.equal(outside.isError, true);
      assert.match(outside.text, /outside the open folder/);
      const unknown = await client.tool('grep', {});
      assert.match(unknown.text, /unknown tool "grep"/);
      const i = await client.tool('i18n', { key: 'app.title' });
      assert.ok(!i.isError, i.text);
    });

    // the tools added for agents, each as fathom_<name> answers it in the editor (the worker's sessions)
    it('read: a line range of a file; a path outside the folder refused', async () => {
      const r = await client.tool('read', { path: 'src/map/zoom.js', startLine: 6, endLine: 6 });
      assert.ok(!r.isError, r.text);
      assert.equal(r.text, '## src/map/zoom.js:6-6 (of 28 lines)\n```js\nexport function getZoomControl (map, options = {}) {\n```');
      const outside = await client.tool('read', { path: '../../etc/passwd' });
      assert.equal(outside.isError, true);
    });

    it('definitions: the unit named so, a member of a whole class too; a near name is no match', async () => {
      const d = await client.tool('definitions', { symbol: 'zoomOut' });
      assert.ok(!d.isError, d.text);
      assert.deepEqual((d.structured.definitions as Array<{ path: string; startLine: number; endLine: number }>).map((x) => [x.path, x.startLine, x.endLine]).filter((x) => x[0] === 'src/map/zoom.js'), [['src/map/zoom.js', 25, 27]]);
      assert.match((await client.tool('definitions', { symbol: 'getZoom' })).text, /no match/);
    });

    it('references: whole-identifier lines by file, the definition marked', async () => {
      const r = await client.tool('references', { symbol: 'getZoomControl' });
      assert.ok(!r.isError, r.text);
      assert.match(r.text, / {3}6: export function getZoomControl \(map, options = \{\}\) \{ {2}\(definition\)/);
      assert.match((await client.tool('references', { symbol: 'getZoomControlX' })).text, /no match/);
    });

    it('files: listed by glob with the total', async () => {
      const f = await client.tool('files', { glob: 'src/**/*.js' });
      assert.ok(!f.isError, f.text);
      assert.deepEqual((f.structured.files as Array<{ path: string }>).map((x) => x.path), ['src/composables/layers.js', 'src/map/zoom.js']);
      assert.equal(f.structured.total, 2);
    });

    it('search mode identifier: "no match" for a name nothing holds', async () => {
      const r = await client.tool('search', { query: 'SECRETDIRCANARY_fn', mode: 'identifier' });
      assert.ok(!r.isError, r.text);
      assert.match(r.text, /no match/);
    });
  });
});
