/**
 * Results that read well, in a real VS Code (code-server + Chromium), on a workspace with 13
 * locales (test/fixtures/e2e-many-locales): the sidebar's results as a tree of files (symbol
 * first, where second, why in words; collapse and expand), the locale files folded into one
 * "Translations" group and the toggle that shows them as files; a regex or punctuation query
 * saying why; palette rows naming the symbol, file and lines; the i18n answer picker in the
 * order a reader wants with many locales (matched, source, usages, the other locales folded),
 * the more specific of two tied templates first. Screenshots of the sidebar and the picker in
 * the light and the dark theme.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { openSidebar, repoRoot, useSession, waitFor, type Session } from './harness';

const PICKER = '.quick-input-widget';

async function sidebarSearch(view: FrameLocator, query: string, selector: string, timeoutMs = 20_000): Promise<void> {
  await view.locator('#fathom-query').fill(query);
  await waitFor(`results of "${query}"`, async () => ((await view.locator('#fathom-results').getAttribute('data-query')) === query ? true : undefined), timeoutMs);
  await view.locator(selector).first().waitFor({ timeout: timeoutMs });
}

async function cleanShot(s: Session, name: string): Promise<void> {
  await s.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  await s.screenshot(name);
}

/** The picker's rows in the order shown (the list is virtual: DOM order is not display order). */
async function pickerRows(s: Session): Promise<string[]> {
  const rows = s.page.locator(`${PICKER} .monaco-list-row`);
  const n = await rows.count();
  const out: Array<[number, string]> = [];
  for (let i = 0; i < n; i++) {
    const r = rows.nth(i);
    out.push([Number(await r.getAttribute('data-index')), (await r.innerText()).replace(/\s+/g, ' ')]);
  }
  return out.sort((a, b) => a[0] - b[0]).map((x) => x[1]);
}

const indexOfRow = (rows: string[], text: string) => rows.findIndex((r) => r.includes(text));

/** "Fathom: Find i18n Key" for `text`, until the answer picker's title names it. */
async function findKey(s: Session, text: string): Promise<void> {
  await s.runCommand('Fathom: Find i18n Key');
  const input = s.page.locator(`${PICKER} .quick-input-box input`);
  await input.waitFor();
  await input.fill(text);
  await s.page.keyboard.press('Enter');
  await s.page.locator(`${PICKER} .quick-input-title`, { hasText: text }).waitFor({ timeout: 20_000 });
}

async function darkTheme(s: Session): Promise<void> {
  // through the theme picker, as a user does
  await s.runCommand('Preferences: Color Theme');
  const input = s.page.locator(`${PICKER} .quick-input-box input`);
  await input.fill('Default Dark Modern');
  await s.page.locator(`${PICKER} .monaco-list-row`, { hasText: 'Default Dark Modern' }).first().click();
  await s.page.locator('.monaco-workbench.vs-dark').waitFor({ timeout: 15_000 });
}

describe('Fathom in code-server: results that read well (13 locales)', function () {
  this.timeout(180_000);
  const fathom = useSession({ name: 'results', fixture: path.join(repoRoot, 'test', 'fixtures', 'e2e-many-locales') });

  it('the sidebar groups results by file, symbol first, why in words; a file group collapses and expands', async () => {
    const s = fathom();
    await s.waitForLog('Fathom', /first index done: \d+ ms after activation/, 120_000);
    const view = await openSidebar(s);
    await sidebarSearch(view, 'block domain', '.fathom-group[data-path="src/api/domains.js"] .fathom-result');
    const group = view.locator('.fathom-group[data-path="src/api/domains.js"]');
    const first = group.locator('.fathom-result').first();
    assert.equal((await first.locator('.fathom-title').innerText()).trim(), 'blockDomain', 'the symbol is the row title');
    assert.equal((await first.locator('.fathom-context').innerText()).trim(), 'function');
    assert.match((await first.locator('.fathom-why').innerText()).trim(), /^matched (name|words)/);
    assert.match((await first.getAttribute('title')) ?? '', /keyword rank #\d+/, 'the numbers are in the details line');
    assert.doesNotMatch(await first.locator('.fathom-why').innerText(), /fused|rank/);
    // every title is short and distinct enough to read: none repeats the file's breadcrumb
    const titles = await view.locator('.fathom-result .fathom-title').allInnerTexts();
    assert.ok(titles.every((t) => !t.includes('::') && !t.includes('src/')), `titles: ${titles.join(' | ')}`);
    const n = await group.locator('.fathom-result').count();
    assert.ok(n >= 2, 'domains.js has several results');
    await cleanShot(s, 'sidebar-grouped-light');

    await group.locator('.fathom-group-head').click();
    await waitFor('the group to close', async () => ((await group.getAttribute('data-open')) === 'false' ? true : undefined));
    assert.equal(await group.locator('.fathom-result').count(), 0, 'a closed group shows no results');
    assert.equal(await group.locator('.fathom-group-head').getAttribute('aria-expanded'), 'false');
    assert.equal((await group.locator('.fathom-count').innerText()).trim(), String(n), 'its count stays');
    // the keyboard: → opens it again
    await s.page.keyboard.press('ArrowRight');
    await waitFor('the group to open', async () => ((await group.getAttribute('data-open')) === 'true' ? true : undefined));
    assert.equal(await group.locator('.fathom-result').count(), n);
  });

  it('locale files are folded into one closed Translations group; the toggle shows them as files', async () => {
    const s = fathom();
    const view = await openSidebar(s);
    await sidebarSearch(view, 'block domain', '.fathom-group[data-translations]');
    const toggle = view.locator('#fathom-translations');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    const folded = view.locator('.fathom-group[data-translations]');
    assert.equal(await folded.count(), 1, 'one Translations group');
    assert.equal(await folded.getAttribute('data-open'), 'false', 'closed, as code results are there too');
    assert.match(await folded.locator('.fathom-group-head').innerText(), /Translations\s+\d+ locale files/);
    assert.match(await view.locator('#fathom-summary').innerText(), /\d+ results in \d+ files? and \d+ locale files/);
    assert.equal(await view.locator('.fathom-group[data-path^="locales/"]').count(), 0, 'no locale file of its own');
    await folded.locator('.fathom-group-head').click();
    await folded.locator('.fathom-result').first().waitFor();
    const contexts = await folded.locator('.fathom-result .fathom-context').allInnerTexts();
    assert.ok(contexts.some((c) => /^en · en\.json$/.test(c.trim())), `each row names its locale and file: ${contexts.join(' | ')}`);
    await cleanShot(s, 'sidebar-translations-open-light');

    await toggle.click();
    await waitFor('locale files as groups', async () => ((await view.locator('.fathom-group[data-path^="locales/"]').count()) > 1 ? true : undefined));
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.equal(await view.locator('.fathom-group[data-translations]').count(), 0);
    await cleanShot(s, 'sidebar-translations-as-files-light');
    await toggle.click();
    await waitFor('folded again', async () => ((await view.locator('.fathom-group[data-translations]').count()) === 1 ? true : undefined));
  });

  it('a component found through the text it displays says so: shows "<the value>"', async () => {
    const s = fathom();
    const view = await openSidebar(s);
    // the English value of domain.block, typed as a user reads it on screen
    await sidebarSearch(view, 'Block domain', '.fathom-group[data-path="src/components/DomainActions.vue"] .fathom-result');
    const why = (await view.locator('.fathom-group[data-path="src/components/DomainActions.vue"] .fathom-result .fathom-why').allInnerTexts()).map((t) => t.trim());
    assert.ok(why.some((w) => /^shows "Block domain \{0\}"/.test(w)), `why of DomainActions.vue's rows: ${why.join(' | ')}`);
  });

  it('a regex or a query of only punctuation says why', async () => {
    const s = fathom();
    const view = await openSidebar(s);
    await view.locator('#fathom-query').fill('{}();');
    await view.locator('#fathom-summary .fathom-note', { hasText: 'no letters or digits' }).waitFor({ timeout: 15_000 });
    await view.locator('#fathom-query').fill('^block.*Domain$');
    await view.locator('#fathom-summary .fathom-note', { hasText: 'Regular expressions are not read' }).waitFor({ timeout: 15_000 });
  });

  it('palette rows: the symbol, the file and the line range', async () => {
    const s = fathom();
    await s.runCommand('Fathom: Search');
    const input = s.page.locator(`${PICKER} .quick-input-box input`);
    await input.waitFor();
    await input.fill('unblockDomain');
    const row = s.page.locator(`${PICKER} .monaco-list-row`, { hasText: 'src/api/domains.js:' }).first();
    await row.waitFor({ timeout: 15_000 });
    const rows = await pickerRows(s);
    const hit = rows.find((r) => r.includes('unblockDomain') && r.includes('src/api/domains.js:'));
    assert.ok(hit, `a row for unblockDomain:\n${rows.join('\n')}`);
    assert.match(hit, /src\/api\/domains\.js:\d+–\d+/, 'the line range');
    assert.ok(!rows.some((r) => r.includes('export async function')), `no row shows the chunk's first line:\n${rows.join('\n')}`);
    await s.screenshot('palette-rows-light');
    await s.page.keyboard.press('Escape');
  });

  it('the i18n picker with 13 locales: matched and source locale, usages, the other locales folded; the more specific template first', async () => {
    const s = fathom();
    await s.runCommand('Fathom: Find i18n Key');
    const input = s.page.locator(`${PICKER} .quick-input-box input`);
    await input.waitFor();
    const placeholder = (await input.getAttribute('placeholder')) ?? '';
    assert.ok(placeholder && !placeholder.includes('Create an event'), `the placeholder is not the sample's text: ${placeholder}`);
    await s.page.keyboard.press('Escape');

    await findKey(s, 'Blocca dominio Mastodon');
    const rows = await pickerRows(s);
    const at = (t: string) => indexOfRow(rows, t);
    const order = [at('it: Blocca dominio {0}'), at('en: Block domain {0}'), at('src/components/DomainActions.vue:5'), at('11 other locales'), at('it: Blocca {0}')];
    assert.ok(order.every((i) => i >= 0), `every row is there:\n${rows.join('\n')}`);
    assert.deepEqual([...order].sort((a, b) => a - b), order, `matched, source, usage, other locales, then the less specific key:\n${rows.join('\n')}`);
    assert.ok(rows[order[0]].includes('domain.block'), 'the more specific template (domain.block) is the first candidate');
    assert.equal(at('de: Domain {0} blockieren'), -1, 'the other locales are folded');
    await s.screenshot('i18n-picker-light');

    // choosing the folded row unfolds the other locales in place
    await s.page.locator(`${PICKER} .monaco-list-row`, { hasText: '11 other locales' }).first().click();
    await s.page.locator(`${PICKER} .monaco-list-row`, { hasText: 'de: Domain {0} blockieren' }).first().waitFor({ timeout: 10_000 });
    const open = await pickerRows(s);
    assert.equal(indexOfRow(open, '11 other locales'), -1);
    assert.ok(indexOfRow(open, 'ar: ') > indexOfRow(open, 'src/components/DomainActions.vue:5'), 'after the usages');
    await s.screenshot('i18n-picker-unfolded-light');
    await s.page.keyboard.press('Escape');
  });

  it('the hover of $t(\'domain.block\') with 13 locales: English first, six rows, the others one row of links', async () => {
    const s = fathom();
    await s.openFile('src/components/DomainActions.vue');
    const line = s.page.locator('.editor-instance .view-lines .view-line', { hasText: "$t('domain.block'" }).first();
    await line.waitFor();
    const span = line.locator(':scope > span').first();
    const shown = (await span.innerText()).replace(/\u00a0/g, ' ');
    const box = await span.boundingBox();
    assert.ok(box, 'the line is on screen');
    const col = shown.indexOf('domain.block');
    const x = box.x + (col + 3) * (box.width / shown.length);
    const y = box.y + box.height / 2;
    await s.page.mouse.move(x - 5, y);
    await s.page.mouse.move(x, y);
    const hover = s.page.locator('.monaco-hover:visible', { hasText: 'Block domain' }).first();
    await hover.waitFor({ timeout: 20_000 });
    const rows = (await hover.locator('tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    assert.match(rows[1] ?? '', /^en Block domain \{0\}/, `English first:\n${rows.join('\n')}`);
    assert.equal(rows.length, 1 + 6 + 1, `a header, six locales, one row of the others:\n${rows.join('\n')}`);
    assert.match(rows[7], /^7 more /);
    assert.equal(await hover.locator('tr').last().locator('a').count(), 7, 'each other locale is a link');
    await s.screenshot('hover-many-locales-light');
    await s.page.keyboard.press('Escape');
  });

  it('the sidebar and the picker in the dark theme', async () => {
    const s = fathom();
    await darkTheme(s);
    const view = await openSidebar(s);
    await sidebarSearch(view, 'unblock domain', '.fathom-result');
    await cleanShot(s, 'sidebar-grouped-dark');
    await findKey(s, 'Blocca dominio Mastodon');
    await s.screenshot('i18n-picker-dark');
    await s.page.keyboard.press('Escape');
  });
});
