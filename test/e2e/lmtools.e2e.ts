/**
 * Fathom's language-model tools in a real VS Code (code-server 1.100 + Chromium): a test-only
 * extension (fixtures/lm-probe) calls `vscode.lm.invokeTool('fathom_search', …)` as an agent
 * would, with a token budget in `tokenizationOptions`; the worker answers with the expected
 * chunk (src/utils/format.js, formatDistance) in the budget. A path outside the folder is a
 * tool failure with a clear message. The MCP server definition provider needs VS Code 1.101+:
 * here it is feature-detected away, and the log says so (its own path is not exercised).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { useSession } from './harness';
import { defaultTokenCounter } from '../../src/tokenizer/wordpiece';

const PROBE = path.join(__dirname, 'fixtures', 'lm-probe');

describe('language-model tools (vscode.lm.invokeTool)', function () {
  const fathom = useSession({ name: 'lm-tools', extraExtensions: [PROBE] });

  it('fathom_search answers the expected file and line within the invocation budget', async () => {
    const s = fathom();
    const flog = await s.waitForLog('Fathom', /first index done/, 120_000);
    assert.match(flog, /language-model tools: registered fathom_search, fathom_similar, fathom_context, fathom_i18n, fathom_read, fathom_definitions, fathom_references, fathom_files, fathom_status/);
    assert.match(flog, /MCP server definition: needs VS Code 1\.101 or later \(this is 1\.100\.\d+\), not offered/);
    await s.runCommand('LM Probe: Invoke Fathom Search');
    const log = await s.waitForLog('LM Probe', /fathom_search (answered|failed)[\s\S]*--- end of answer/, 60_000);
    assert.match(log, /tools: fathom_search, fathom_similar, fathom_context, fathom_i18n, fathom_read, fathom_definitions, fathom_references, fathom_files, fathom_status/);
    const answer = /fathom_search answered:\n([\s\S]*?)\n--- end of answer/.exec(log)?.[1];
    assert.ok(answer, `an answer, not a failure: ${log}`);
    const logged = answer.split('\n').map((l) => l.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \[info\] /, '')).join('\n');
    // the default answer (detail "files"): the file's line with its best place, its best line under it
    assert.match(logged, /^1\. src\/utils\/format\.js:\d+-\d+ · function formatDistance\n(?: {3}\d+: .*\n)? {3}\d+: export function formatDistance\(km, locale = 'en'\)/m);
    // the budget came from tokenizationOptions (600), counted with Fathom's tokenizer
    assert.ok(defaultTokenCounter().count(logged) <= 600, `${defaultTokenCounter().count(logged)} tokens`);
    await s.waitForLog('Fathom', /language-model tool fathom_search: answered in \d+ ms/);
  });

  it('a path outside the folder is a tool failure with a clear message, not a crash', async () => {
    const s = fathom();
    await s.runCommand('LM Probe: Invoke Fathom Context Outside');
    const log = await s.waitForLog('LM Probe', /fathom_context failed: .*outside the open folder/, 60_000);
    assert.match(log, /\/etc\/passwd is outside the open folder/);
    await s.runCommand('LM Probe: Invoke Fathom Search');
    await s.waitForLog('LM Probe', /fathom_search answered:[\s\S]*fathom_search answered:/, 60_000);
  });
});
