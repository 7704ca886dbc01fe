/**
 * Smoke: the packaged VSIX installs into code-server, Fathom activates in the extension host,
 * and a command that goes through the worker thread (which must find transformers.js and
 * onnxruntime in the VSIX's node_modules) writes chunk lines to the Fathom log.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IndexClient } from '../../src/service/client';
import { repoRoot, useSession } from './harness';

describe('smoke: Fathom in code-server', function () {
  const fathom = useSession({ name: 'smoke' });

  it('loads the workbench with Fathom activated and no activation error', async () => {
    const s = fathom();
    await s.page.locator('.explorer-folders-view').waitFor();
    const hostLog = s.readExtensionHostLog();
    assert.match(hostLog, /_doActivateExtension fathom\.fathom/);
    assert.doesNotMatch(hostLog, /Activating extension '?fathom\.fathom'? failed/i);
    await s.screenshot('workbench');
  });

  it('"Fathom: Show Chunks of Active File" logs the chunks of a Vue file', async () => {
    const s = fathom();
    await s.openFile('src/components/SearchBox.vue');
    await s.runCommand('Fathom: Show Chunks of Active File');
    const text = await s.waitForLog('Fathom', /src\/components\/SearchBox\.vue: \d+ chunk\(s\)/);
    const [, count] = /src\/components\/SearchBox\.vue: (\d+) chunk\(s\)/.exec(text) ?? [];
    assert.ok(Number(count) >= 2, `expected the template and script blocks as chunks, got ${count}:\n${text}`);
    // One line per chunk: `  line:col-line:col kind symbol (N tokens)`.
    const chunkLines = text.split('\n').filter((l) => /\d+:\d+-\d+:\d+ \S+ .*\(\d+ tokens\)/.test(l));
    assert.equal(chunkLines.length, Number(count), text);
    assert.ok(chunkLines.some((l) => /template/.test(l)), `no template chunk:\n${text}`);
    assert.doesNotMatch(text, /could not chunk|\[error\]/i);
    // The command reveals the channel: the same lines show in the Output panel.
    await s.page.locator('.part.panel .monaco-editor .view-lines', { hasText: 'SearchBox.vue:' }).first().waitFor({ timeout: 15_000 });
    await s.screenshot('chunks-logged');
  });

  it('the installed VSIX embeds with transformers.js and onnxruntime from its own node_modules', async function () {
    // The worker of the installed extension (not the repo's dist/), run in plain Node: it must
    // resolve @huggingface/transformers, onnxruntime-node (this platform's binary) and sharp
    // from the VSIX's node_modules, there being none above the temp extensions dir.
    const s = fathom();
    const installed = fs.readdirSync(s.extensionsDir).find((d) => d.startsWith('fathom.fathom-'));
    assert.ok(installed, `Fathom is not in ${s.extensionsDir}`);
    const worker = path.join(s.extensionsDir, installed, 'dist', 'worker.js');
    const client = new IndexClient(worker);
    try {
      const st = await client.init({ embedder: { localModelPath: path.join(repoRoot, 'test', 'fixtures', 'models', 'fathom-tiny-bert'), threads: 1 } });
      assert.equal(st.keywordOnlyReason, undefined, `the packaged worker fell back to keyword-only: ${st.keywordOnlyReason}`);
      const r = await client.index(s.workspace, path.join(path.dirname(s.workspace), 'store'));
      assert.ok(r.vectors > 0 && r.vectors === r.chunks, `vectors ${r.vectors} of ${r.chunks} chunks`);
      const hits = await client.search('escape note text before rendering', { k: 5 });
      assert.ok(hits.some((h) => h.why.dense), 'no hit ranked by the dense list');
      // Fathom's own model, found beside the bundle in the VSIX, re-ranks a query in words beside the other model
      assert.ok(hits.some((h) => h.why.reranker === 'fathom-code-search'), `not re-ranked by Fathom's model: ${JSON.stringify(hits.map((h) => h.why))}`);
    } finally {
      await client.dispose();
    }
  });

  it('the installed VSIX holds this platform\'s onnxruntime binary only, and no sources or tests', () => {
    const s = fathom();
    const installed = fs.readdirSync(s.extensionsDir).find((d) => d.startsWith('fathom.fathom-')) ?? '';
    const ext = path.join(s.extensionsDir, installed);
    const files = (fs.readdirSync(ext, { recursive: true }) as string[]).map((f) => f.split(path.sep).join('/'));
    const ortBins = [...new Set(files.filter((f) => /^node_modules\/onnxruntime-node\/bin\/napi-v\d+\/[^/]+\/[^/]+\//.test(f)).map((f) => f.split('/').slice(3, 6).join('/')))];
    assert.deepEqual(ortBins.map((b) => b.split('/').slice(1).join('/')), [`${process.platform}/${process.arch}`]);
    assert.ok(files.some((f) => f.endsWith('onnxruntime_binding.node')), 'no onnxruntime binding');
    for (const f of ['dist/extension.js', 'dist/worker.js', 'package.json', 'node_modules/@huggingface/transformers/package.json']) {
      assert.ok(files.includes(f), `${f} missing from the VSIX`);
    }
    const unwanted = files.filter((f) => /^(src|test|bench|scripts|sample-workspace)\//.test(f) || f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /^node_modules\/onnxruntime-web\/(?!package\.json$)/.test(f));
    assert.deepEqual(unwanted, []);
  });
});
