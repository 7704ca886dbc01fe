/**
 * i18n in a real VS Code (code-server + Chromium): right-click an English string written out in
 * a `.vue` template → "Where is this string defined?" (the editor's own context menu) → pick the
 * English, then the French value → the locale file opens with exactly the value selected
 * (checked in the status bar and in Fathom's log line of the revealed range); "Fathom: Find
 * i18n Key" from the palette; hovering a `$t('key')` shows the translations, and its locale link
 * opens that locale's line; a `$t('…')` of a key no locale defines is underlined as a warning,
 * and `fathom.i18n.diagnostics.enabled: false` takes the warning away (true brings it back).
 *
 * Fixture: test/fixtures/e2e-workspace (src/components/EmptyNotes.vue, locales/{en,de,fr}.json).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useSession, waitFor, type Session } from './harness';

const VUE = 'src/components/EmptyNotes.vue';
const PICKER = '.quick-input-widget';

/** Where `value` is in a locale file: its 1-based line and 0-based columns (inside the quotes). */
function valueAt(s: Session, file: string, value: string): { line: number; start: number; end: number } {
  const lines = fs.readFileSync(path.join(s.workspace, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(`"${value}"`));
  assert.ok(i >= 0, `${value} in ${file}`);
  const start = lines[i].indexOf(`"${value}"`) + 1;
  return { line: i + 1, start, end: start + value.length };
}

/** The editor's selection as the status bar shows it: "Ln 7, Col 41 (27 selected)". */
async function selectionStatus(s: Session): Promise<{ line: number; col: number; selected: number }> {
  return waitFor('a selection in the status bar', async () => {
    const text = (await s.page.locator('[id="status.editor.selection"]').innerText().catch(() => '')).trim();
    const m = /Ln (\d+), Col (\d+)(?: \((\d+) selected\))?/.exec(text);
    return m && m[3] ? { line: Number(m[1]), col: Number(m[2]), selected: Number(m[3]) } : undefined;
  });
}

const activeTab = async (s: Session) => (await s.page.locator('.tabs-container .tab.active').first().innerText()).trim();

async function activate(s: Session, rel: string): Promise<void> {
  const name = path.basename(rel);
  const tab = s.page.locator('.tabs-container .tab', { hasText: name }).first();
  if (await tab.isVisible()) await tab.click();
  else await s.openFile(rel);
  await waitFor(`${name} to be the active editor`, async () => ((await activeTab(s)).includes(name) ? true : undefined));
}

/** Screen point of a column (0-based) on the editor line holding `lineText` (monospace font). */
async function pointAt(s: Session, lineText: string, needle: string): Promise<{ x: number; y: number }> {
  const line = s.page.locator('.editor-instance .view-lines .view-line', { hasText: lineText }).first();
  await line.waitFor();
  const span = line.locator(':scope > span').first();
  const shown = (await span.innerText()).replace(/\u00a0/g, ' ');
  const box = await span.boundingBox();
  assert.ok(box, 'the line is on screen');
  const col = shown.indexOf(needle);
  assert.ok(col >= 0, `${needle} on the line "${shown}"`);
  const cw = box.width / shown.length;
  return { x: box.x + (col + Math.min(2, needle.length / 2)) * cw, y: box.y + box.height / 2 };
}

/** Right-click on `needle` in the .vue template, choose "Where is this string defined?", wait for the answer picker. */
async function whereDefinedFromContextMenu(s: Session, lineText: string, needle: string): Promise<string> {
  await activate(s, VUE);
  const p = await pointAt(s, lineText, needle);
  await s.page.mouse.click(p.x, p.y); // the cursor on the text, nothing selected
  await s.page.mouse.click(p.x, p.y, { button: 'right' });
  const item = s.page.locator('.monaco-menu .action-item', { hasText: 'Where is this string defined?' }).first();
  await item.waitFor({ timeout: 10_000 });
  await s.screenshot('context-menu');
  await item.click();
  const title = s.page.locator(`${PICKER} .quick-input-title`);
  await title.filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
  return (await title.innerText()).trim();
}

/** Clicks the picker row of `file`, then checks the editor: that file, exactly `value` selected, and the log line. */
async function pickAndCheck(s: Session, file: string, value: string, what: string): Promise<void> {
  const row = s.page.locator(`${PICKER} .monaco-list-row`, { hasText: file }).first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
  await waitFor(`${file} to be the active editor`, async () => ((await activeTab(s)).includes(path.basename(file)) ? true : undefined));
  const v = valueAt(s, file, value);
  const sel = await selectionStatus(s);
  // the status bar shows the cursor (the selection's end) with 1-based columns
  assert.deepEqual(sel, { line: v.line, col: v.end + 1, selected: value.length }, `selection in ${file}`);
  await s.waitForLog('Fathom', new RegExp(`i18n: opened ${file.replace(/[.]/g, '\\.')} ${v.line}:${v.start}-${v.line}:${v.end} \\(${what}\\)`));
}

describe('Fathom in code-server: i18n lookup, context menu and hover', function () {
  this.timeout(180_000);
  const fathom = useSession({ name: 'i18n' });

  it('right-click a string in a .vue template → "Where is this string defined?" → the English, then the French value, selected', async () => {
    const s = fathom();
    const title = await whereDefinedFromContextMenu(s, 'No notes match your search.', 'match');
    assert.equal(title, '“No notes match your search.” is search.empty (the only exact match)');
    const rows = await s.page.locator(`${PICKER} .monaco-list-row`).allInnerTexts();
    assert.ok(rows.some((r) => r.includes('exact · search.empty')), `the candidate header is listed:\n${rows.join('\n')}`);
    assert.ok(rows.some((r) => r.includes('src/App.vue:11')), 'the usage in App.vue is listed');
    await s.screenshot('answer-picker');
    await s.waitForLog('Fathom', /i18n: looking up the template-text at src\/components\/EmptyNotes\.vue 3:7-3:34/);
    await pickAndCheck(s, 'locales/en.json', 'No notes match your search.', 'en value of search\\.empty');
    await s.screenshot('en-selected');

    const again = await whereDefinedFromContextMenu(s, 'No notes match your search.', 'notes');
    assert.match(again, /is search\.empty/);
    await pickAndCheck(s, 'locales/fr.json', 'Aucune note ne correspond à votre recherche.', 'fr value of search\\.empty');
    await s.screenshot('fr-selected');
    const log = await s.readLog('Fathom');
    for (const m of log.matchAll(/i18n: (“No notes match your search\.”: .*)/g)) process.stderr.write(`      [measure] ${m[1]}\n`);
  });

  it('on the key of a $t(\'…\') call, the answer is that key', async () => {
    const s = fathom();
    const title = await whereDefinedFromContextMenu(s, "$t('search.placeholder')", 'placeholder');
    assert.equal(title, '“search.placeholder” is search.placeholder (the only key of that name)');
    const rows = await s.page.locator(`${PICKER} .monaco-list-row`).allInnerTexts();
    assert.ok(rows.some((r) => r.includes('key · search.placeholder')), `the key is the first candidate:\n${rows.join('\n')}`);
    assert.ok(rows.some((r) => r.includes('fr: Chercher des sentiers ou des régions')), 'its French value is listed');
    await s.page.keyboard.press('Escape');
  });

  it('text that no locale holds: an information message naming it', async () => {
    const s = fathom();
    await s.runCommand('Fathom: Find i18n Key');
    const input = s.page.locator(`${PICKER} .quick-input-box input`);
    await input.waitFor();
    await input.fill('zebra quantum teapot');
    await s.page.keyboard.press('Enter');
    const note = await waitFor('the information message', async () => (await s.notifications()).find((n) => n.includes('zebra quantum teapot')));
    assert.match(note, /no i18n key holds “zebra quantum teapot” in any locale\./);
    assert.doesNotMatch(note, /model|semantic|config\.json/, 'one short sentence: the details are in the log');
    await s.waitForLog('Fathom', /i18n: “zebra quantum teapot”: no exact, normalized or fuzzy match; semantic matching did not run: /);
    await s.screenshot('nothing-found');
  });

  it('"Fathom: Find i18n Key" looks up typed text and opens a usage', async () => {
    const s = fathom();
    await s.runCommand('Fathom: Find i18n Key');
    const input = s.page.locator(`${PICKER} .quick-input-box input`);
    await input.waitFor();
    await input.fill('Trail notes');
    await s.page.keyboard.press('Enter');
    const title = s.page.locator(`${PICKER} .quick-input-title`, { hasText: 'Trail notes' });
    await title.waitFor({ timeout: 20_000 });
    assert.equal((await title.innerText()).trim(), '“Trail notes” is app.title (the only exact match)');
    const row = s.page.locator(`${PICKER} .monaco-list-row`, { hasText: 'src/App.vue:3' }).first();
    await row.click();
    await waitFor('App.vue to be the active editor', async () => ((await activeTab(s)).includes('App.vue') ? true : undefined));
    const sel = await selectionStatus(s);
    const line = fs.readFileSync(path.join(s.workspace, 'src/App.vue'), 'utf8').split('\n')[2];
    assert.deepEqual(sel, { line: 3, col: line.indexOf("'app.title'") + 1 + 'app.title'.length + 1, selected: 'app.title'.length });
  });

  it('hovering $t(\'app.title\') shows its translations; the fr link opens fr.json at the value', async () => {
    const s = fathom();
    await activate(s, 'src/App.vue');
    const p = await pointAt(s, "$t('app.title')", 'app.title');
    await s.page.mouse.move(p.x - 5, p.y);
    await s.page.mouse.move(p.x, p.y);
    const hover = s.page.locator('.monaco-hover:visible', { hasText: 'Carnet de randonnée' }).first();
    await hover.waitFor({ timeout: 20_000 });
    const text = await hover.innerText();
    for (const v of ['app.title', 'Trail notes', 'Wandernotizen', 'Carnet de randonnée']) assert.ok(text.includes(v), `${v} in the hover:\n${text}`);
    await s.screenshot('hover');
    await hover.locator('a', { hasText: /^fr$/ }).first().click();
    await waitFor('fr.json to be the active editor', async () => ((await activeTab(s)).includes('fr.json') ? true : undefined));
    const v = valueAt(s, 'locales/fr.json', 'Carnet de randonnée');
    assert.deepEqual(await selectionStatus(s), { line: v.line, col: v.end + 1, selected: 'Carnet de randonnée'.length });
    await s.waitForLog('Fathom', new RegExp(`i18n: opened locales/fr\\.json ${v.line}:${v.start}-${v.line}:${v.end} \\(fr value of app\\.title\\)`));
  });

  it('a key no locale defines is a warning; fathom.i18n.diagnostics.enabled off clears it, on brings it back', async () => {
    const s = fathom();
    const rel = 'src/components/Undefined.vue';
    fs.writeFileSync(path.join(s.workspace, rel), "<template>\n  <p>{{ $t('nowhere.defined') }}</p>\n</template>\n");
    await s.openFile(rel);
    const squiggles = s.page.locator('.editor-instance .squiggly-warning');
    const count = () => squiggles.count();
    await waitFor('the warning on the undefined key', async () => ((await count()) > 0 ? true : undefined), 30_000);
    await s.screenshot('diagnostic-warning');
    await s.updateSettings({ 'fathom.i18n.diagnostics.enabled': false });
    await activate(s, rel);
    await waitFor('the warning to go', async () => ((await count()) === 0 ? true : undefined), 30_000);
    await s.screenshot('diagnostics-off');
    await s.updateSettings({ 'fathom.i18n.diagnostics.enabled': true });
    await activate(s, rel);
    await waitFor('the warning to come back', async () => ((await count()) > 0 ? true : undefined), 30_000);
  });
});
