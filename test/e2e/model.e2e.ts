/**
 * Search by meaning without a hunt for settings, in code-server:
 * - with no setting, Fathom's own model (shipped in the VSIX) embeds and search is hybrid;
 * - a VSIX packed with `--model` (the shared cost model: all-MiniLM-L6-v2's shape and tokenizer,
 *   random weights — fine for "it loads and search is hybrid") searches hybrid with no setting;
 * - without a bundled model Fathom asks once; "Not now" is remembered across a window reload,
 *   and "Model Settings…" in the status menu shows the model settings (code-server is a remote
 *   window: they live under the Remote tab);
 * - "Use a local folder…" with the tiny test model folder makes search hybrid.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { listZip } from '../../scripts/vsix.mjs';
import { log, openSidebar, repoRoot, useSession, waitFor, type Session } from './harness';

const PROMPT = 'Search by meaning needs a 23 MB model. Download it?';
const TINY_MODEL = path.join(repoRoot, 'test', 'fixtures', 'models', 'fathom-tiny-bert');

/** The shared cost model, when this checkout has it: $FATHOM_COST_MODEL, ../shared next to the repository or to its main worktree. */
function costModel(): string | undefined {
  const candidates = [process.env.FATHOM_COST_MODEL, path.join(repoRoot, '..', 'shared', 'models', 'minilm-l6-costmodel')];
  const common = spawnSync('git', ['-C', repoRoot, 'rev-parse', '--path-format=absolute', '--git-common-dir'], { encoding: 'utf8' });
  if (common.status === 0 && common.stdout.trim()) candidates.push(path.join(path.dirname(common.stdout.trim()), '..', 'shared', 'models', 'minilm-l6-costmodel'));
  return candidates.find((d): d is string => !!d && fs.existsSync(path.join(d, 'onnx', 'model_quantized.onnx')));
}

/** Searches in the sidebar until the summary says `mode` (results are refreshed as vectors arrive). */
async function searchMode(view: FrameLocator, query: string, mode: 'hybrid' | 'keyword'): Promise<void> {
  await view.locator('#fathom-query').fill(query);
  await waitFor(`results of "${query}" in ${mode} mode`, async () => {
    const q = await view.locator('#fathom-results').getAttribute('data-query');
    const m = await view.locator('#fathom-summary').getAttribute('data-mode');
    const n = await view.locator('.fathom-result').count();
    return q === query && m === mode && n > 0 ? true : undefined;
  }, 60_000);
}

/** The notification toast whose message is `text`. */
const toast = (s: Session, text: string) => s.page.locator('.notification-toast', { has: s.page.locator('.notification-list-item-message', { hasText: text }) });

async function statusMenuPick(s: Session, label: string): Promise<void> {
  await s.page.locator('.statusbar-item', { hasText: 'Fathom' }).first().click();
  const row = s.page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
}

describe('Fathom in code-server: a VSIX with a bundled model searches by meaning with no settings', function () {
  this.timeout(240_000);
  const vsix = path.join(repoRoot, '.e2e', 'fathom-bundled-model.vsix');
  const model = costModel();
  before(function () {
    this.timeout(240_000);
    if (!model) {
      log('skipped: the shared cost model (../shared/models/minilm-l6-costmodel or $FATHOM_COST_MODEL) is not here');
      this.skip();
    }
    fs.mkdirSync(path.dirname(vsix), { recursive: true });
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'package.mjs'), '--model', model!, '--out', vsix], { cwd: repoRoot, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`package --model failed (exit ${r.status}):\n${r.stderr}`);
    log(`packaged with the model in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${r.stdout.split('\n').slice(0, 2).join('; ')}`);
  });
  // no model id either: a bundled model is used with no setting at all (the harness sets one for the other sessions)
  const fathom = useSession({ name: 'bundled-model', vsix, settings: { 'fathom.model.id': undefined } });

  it('the VSIX carries the model under models/, and Fathom uses it: hybrid results, no setting touched, no prompt', async () => {
    const names = listZip(vsix).map((e) => e.name);
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']) assert.ok(names.includes(`extension/models/minilm-l6-costmodel/${f}`), `${f} in the VSIX`);
    assert.ok(!names.includes('extension/models/minilm-l6-costmodel/onnx/model.onnx'), 'the fp32 model stays out');
    const s = fathom();
    const settings = fs.readFileSync(path.join(s.userDataDir, 'User', 'settings.json'), 'utf8');
    assert.doesNotMatch(settings, /fathom\./, 'no Fathom setting in the user settings');
    const text = await s.waitForLog('Fathom', /embedding with minilm-l6-costmodel/, 120_000);
    assert.match(text, /model: .* from .*models[\\/]minilm-l6-costmodel \(bundled with the extension\)/);
    const view = await openSidebar(s);
    await searchMode(view, 'format distance in miles', 'hybrid');
    await s.waitForLog('Fathom', /indexed workspace: \d+ files .*\d+ vectors/, 120_000);
    assert.doesNotMatch(s.readLog('Fathom'), /asking for the model/);
    assert.equal((await s.notifications()).filter((n) => n.includes(PROMPT)).length, 0, 'no download prompt');
    assert.equal(await view.locator('#fathom-warning').isVisible(), false, 'no keyword-only line');
    await s.screenshot('sidebar-hybrid');
  });
});

describe("Fathom in code-server: with no model setting at all, Fathom's own model searches by meaning", function () {
  this.timeout(240_000);
  // the plain VSIX (no model folder) and no fathom.model.id: what a user who installs Fathom gets
  const fathom = useSession({ name: 'own-model', settings: { 'fathom.model.id': undefined } });

  it('embeds with fathom-code-search from the installation: hybrid results, no prompt, no keyword-only line', async () => {
    const s = fathom();
    assert.doesNotMatch(fs.readFileSync(path.join(s.userDataDir, 'User', 'settings.json'), 'utf8'), /fathom\./, 'no Fathom setting in the user settings');
    const text = await s.waitForLog('Fathom', /embedding with fathom-code-search/, 120_000);
    assert.match(text, /model: fathom-code-search from .*fathom-code-search\.bin/);
    await s.waitForLog('Fathom', /indexed workspace: \d+ files .*\d+ vectors/, 120_000);
    const view = await openSidebar(s);
    await searchMode(view, 'format distance in miles', 'hybrid');
    assert.doesNotMatch(s.readLog('Fathom'), /asking for the model/);
    assert.equal((await s.notifications()).filter((n) => n.includes(PROMPT)).length, 0, 'no download prompt');
    assert.equal(await view.locator('#fathom-warning').isVisible(), false, 'no keyword-only line');
    await s.screenshot('sidebar-hybrid');
  });
});

/** A workspace of `files` JS files of a few functions each: enough chunks that embedding with a transformers.js model takes a while. */
function manyChunksWorkspace(files: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-e2e-many-chunks-'));
  fs.mkdirSync(path.join(dir, 'src'));
  const words = ['distance', 'route', 'marker', 'tile', 'zoom', 'layer', 'popup', 'scale', 'legend', 'cluster'];
  for (let i = 0; i < files; i++) {
    const w = words[i % words.length];
    const fns = Array.from({ length: 6 }, (_, j) => `/** Computes the ${w} ${j} of a map view number ${i}. */\nexport function ${w}${i}_${j}(view, options = {}) {\n  const value = view.${w} * ${j + 1} + (options.offset ?? ${i});\n  return Math.round(value * 100) / 100;\n}\n`);
    fs.writeFileSync(path.join(dir, 'src', `${w}-${i}.js`), fns.join('\n'));
  }
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'many-chunks', version: '1.0.0' }));
  return dir;
}

describe('Fathom in code-server: while a transformers.js model embeds', function () {
  this.timeout(300_000);
  const model = costModel();
  const fixture = manyChunksWorkspace(250);
  before(function () {
    if (!model) {
      log('skipped: the shared cost model (../shared/models/minilm-l6-costmodel or $FATHOM_COST_MODEL) is not here');
      this.skip();
    }
  });
  after(() => fs.rmSync(fixture, { recursive: true, force: true }));
  // the cost model (all-MiniLM-L6-v2's shape, random weights) embeds at MiniLM's pace: seconds to minutes here
  const fathom = useSession({ name: 'embedding-progress', fixture, settings: { 'fathom.model.localPath': model } });

  it('the sidebar\'s progress line is whole at the default width, the status label has no "..", and results become hybrid without a new search', async () => {
    const s = fathom();
    const view = await openSidebar(s);
    const state = view.locator('#fathom-state-text');
    const text = await waitFor('the sidebar to say it is embedding', async () => {
      const t = (await state.innerText().catch(() => '')).trim();
      return /^Embedding \d+% \([\d,]+ \/ [\d,]+ chunks\)/.test(t) ? t : undefined;
    }, 120_000, 100);
    // never cut: the whole line is laid out (it wraps), no ellipsis, nothing scrolled out of view
    const box = await state.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, overflow: el.ownerDocument.defaultView?.getComputedStyle(el).textOverflow, height: el.getBoundingClientRect().height }));
    assert.ok(box.scroll <= box.client + 1, `the progress line overflows its box: ${JSON.stringify(box)} "${text}"`);
    assert.notEqual(box.overflow, 'ellipsis');
    const label = (await s.page.locator('.statusbar-item', { hasText: 'Fathom' }).first().getAttribute('aria-label')) ?? '';
    assert.doesNotMatch(label, /\.\./, `status bar label: ${label}`);
    await s.screenshot('embedding-progress');
    // a search while embedding runs: its summary is not left saying keyword-only once vectors are there
    await view.locator('#fathom-query').fill('round the zoom value of a map view');
    await waitFor('results while embedding', async () => ((await view.locator('.fathom-result').count()) > 0 ? true : undefined), 60_000);
    await waitFor('the same results to become hybrid with no new search', async () => ((await view.locator('#fathom-summary').getAttribute('data-mode')) === 'hybrid' ? true : undefined), 240_000, 500);
    assert.doesNotMatch(await view.locator('#fathom-summary').innerText(), /keyword-only/i);
    assert.equal(await view.locator('#fathom-query').inputValue(), 'round the zoom value of a map view');
  });
});

describe('Fathom in code-server: the model prompt answered "Not now", and Model Settings from the status menu', function () {
  this.timeout(240_000);
  const fathom = useSession({ name: 'model-not-now' });

  it('asks once; "Not now" is remembered across a reload', async () => {
    const s = fathom();
    const t = toast(s, PROMPT);
    await t.waitFor({ timeout: 90_000 });
    for (const b of ['Download', 'Not now', 'Use a local folder…']) assert.equal(await t.locator('.monaco-button', { hasText: b }).count(), 1, `button ${b}`);
    await s.screenshot('prompt');
    await t.locator('.monaco-button', { hasText: 'Not now' }).click();
    await s.waitForLog('Fathom', /model: "Not now" remembered/);
    await t.waitFor({ state: 'detached', timeout: 10_000 });
    // the sidebar's keyword-only line is one short line with the same actions as buttons
    const view = await openSidebar(s);
    await view.locator('#fathom-warning').waitFor({ timeout: 30_000 });
    assert.equal((await view.locator('#fathom-warning-text').innerText()).trim(), 'Keyword-only: no embedding model yet.');
    assert.ok(await view.locator('#fathom-model-download').isVisible());
    assert.ok(await view.locator('#fathom-model-local').isVisible());
    assert.match((await view.locator('#fathom-warning').getAttribute('title')) ?? '', /No embedding model/, 'the details in the tooltip');
    await s.screenshot('keyword-only-line');
    await s.runCommand('Developer: Reload Window');
    await s.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    // the new window's log (a new extension host): it has no "remembered" line of its own
    const after = await waitFor('Fathom to start again after the reload', () => {
      const text = s.readLog('Fathom');
      return text.includes('searching keyword-only') && !text.includes('"Not now" remembered') ? text : undefined;
    }, 120_000);
    assert.doesNotMatch(after, /asking for the model/, 'not asked again');
    assert.equal((await s.notifications()).filter((n) => n.includes(PROMPT)).length, 0);
  });

  it('"Model Settings…" in the status menu shows the fathom.model settings', async () => {
    const s = fathom();
    await statusMenuPick(s, 'Model Settings…');
    const editor = s.page.locator('.settings-editor');
    await editor.waitFor({ timeout: 15_000 });
    await waitFor('the model settings in the settings editor', async () => {
      const labels = await editor.locator('.setting-item-contents .setting-item-label').allInnerTexts();
      return labels.some((l) => /Allow Download/.test(l)) && labels.some((l) => /Local Path/.test(l)) ? labels : undefined;
    }, 20_000);
    assert.equal(await editor.locator('.no-results-message', { hasText: /No Settings Found/ }).isVisible().catch(() => false), false);
    await s.screenshot('model-settings');
  });
});

describe('Fathom in code-server: the model prompt answered with a local folder', function () {
  this.timeout(240_000);
  const fathom = useSession({ name: 'model-local-folder' });

  it('"Use a local folder…" with the tiny model folder: search becomes hybrid', async () => {
    const s = fathom();
    const t = toast(s, PROMPT);
    await t.waitFor({ timeout: 90_000 });
    await t.locator('.monaco-button', { hasText: 'Use a local folder…' }).click();
    // code-server's folder dialog is a quick input with a path box
    const input = s.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ timeout: 15_000 });
    // the dialog puts its start folder into the box once it is up: type the path only after that
    // (typed earlier, it ends up behind the start folder: ".../workspace//path")
    await waitFor('the folder dialog to show its start folder', async () => ((await input.inputValue().catch(() => '')) ? true : undefined), 15_000, 200);
    await input.fill(`${TINY_MODEL}/`);
    const again = s.page.locator('.notifications-toasts .monaco-button', { hasText: 'Choose Another…' });
    let closedAt = 0;
    await waitFor('the dialog to accept the folder', async () => {
      if (!(await input.isVisible().catch(() => false))) {
        // accepted; when the dialog took its start folder instead (Enter landed while it was
        // still settling on a path), Fathom says it is no model folder and offers to pick again:
        // the dialog counts as accepted once it has been closed 3 s with no such offer
        if (!(await again.isVisible().catch(() => false))) {
          closedAt ||= Date.now();
          return Date.now() - closedAt >= 3_000 ? true : undefined;
        }
        closedAt = 0;
        await again.click();
        await input.waitFor({ timeout: 15_000 });
        await waitFor('the folder dialog to show its start folder again', async () => ((await input.inputValue().catch(() => '')) ? true : undefined), 15_000, 200);
        await input.fill(`${TINY_MODEL}/`);
        return undefined;
      }
      // type the path again if the dialog replaced it, and accept only once it shows it
      if (!(await input.inputValue().catch(() => '')).startsWith(TINY_MODEL)) {
        await input.fill(`${TINY_MODEL}/`, { timeout: 5_000 }).catch(() => undefined);
        return undefined;
      }
      const ok = s.page.locator('.quick-input-widget .monaco-button', { hasText: 'Use this model folder' });
      if (await ok.isVisible().catch(() => false)) await ok.click();
      else await s.page.keyboard.press('Enter');
      return undefined;
    }, 40_000, 1000);
    const text = await s.waitForLog('Fathom', /embedding with fathom-tiny-bert/, 120_000);
    assert.match(text, /model: "Use a local folder" remembered/);
    assert.match(text, /model folder chosen: .*fathom-tiny-bert/);
    const view = await openSidebar(s);
    await searchMode(view, 'format distance in miles', 'hybrid');
    assert.equal(await view.locator('#fathom-warning').isVisible(), false, 'no keyword-only line any more');
  });
});
