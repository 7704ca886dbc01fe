/**
 * Smoke: the packaged VSIX installs into code-server, Fathom activates in the extension host,
 * and a command that goes through the worker thread (which must find transformers.js and
 * onnxruntime in the VSIX's node_modules) writes chunk lines to the Fathom log.
 */
import * as assert from 'node:assert/strict';
import { useSession } from './harness';

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
    await s.screenshot('chunks-logged');
  });
});
