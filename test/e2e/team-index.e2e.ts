/**
 * The team index in a real VS Code (code-server + Chromium) against a real PostgreSQL server
 * (Debian's package, started in a temp folder by test/helpers/real-pg.ts): the sample workspace
 * is pushed with the built CLI (`dist/cli.js index <dir> --store postgres://…`, with Fathom's own
 * model, as a CI job does), and code-server opens a copy of it with `fathom.index.remote` in the
 * user settings.
 *
 * How a result shows where it came from: the push chunks at the default 256 tokens, the editor
 * at 32 (`fathom.chunking.maxTokens`), so the same passage is one whole-function chunk in the
 * team index and a few lines in the local index. A file unchanged since the push is answered
 * by the server (the whole function); a file edited locally, or any file while the server is
 * down, by the local index (a few lines). The status bar's tooltip says which; while the server
 * cannot answer, the sidebar and the status bar say so too.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { pgBin, startRealPg, type RealPg } from '../helpers/real-pg';
import { defaultFixture, log, openSidebar, prepare, repoRoot, useSession, waitFor, type Session } from './harness';

const QUERY = 'stored notes are damaged starting empty';
const FILE = 'src/api/client.js';
/** `loadNotes` in the fixture's src/api/client.js: one chunk at 256 tokens (the push), several at 32 (the editor). */
const TEAM_CHUNK = { start: 4, end: 13 };
/** `formatDistance` in src/utils/format.js, likewise. */
const FORMAT = { query: 'formatDistance KM_PER_MILE miles', file: 'src/utils/format.js', start: 4, end: 9 };

/** Searches `query` in the sidebar (again, when it is already there) and waits for this search's results. */
async function search(view: FrameLocator, query: string, timeoutMs = 30_000): Promise<void> {
  const results = view.locator('#fathom-results');
  const before = Number((await results.getAttribute('data-seq')) ?? '0');
  const box = view.locator('#fathom-query');
  await box.fill('');
  await box.fill(query);
  await waitFor(`results of "${query}"`, async () => ((await results.getAttribute('data-query')) === query && Number((await results.getAttribute('data-seq')) ?? '0') > before ? true : undefined), timeoutMs);
}

/** The line ranges of the hits of `file` in the sidebar's results, as "start-end". */
async function rangesOf(view: FrameLocator, file: string): Promise<string[]> {
  const items = view.locator(`.fathom-result[data-path="${file}"]`);
  const out: string[] = [];
  for (let i = 0; i < (await items.count()); i++) out.push(`${await items.nth(i).getAttribute('data-start-line')}-${await items.nth(i).getAttribute('data-end-line')}`);
  return out;
}

/** The status bar item's tooltip as the user sees it: hovers the item and reads the hover. */
async function statusTooltip(s: Session): Promise<string> {
  const item = s.page.locator('.statusbar-item', { hasText: 'Fathom' }).first();
  await s.page.mouse.move(0, 0);
  await s.page.locator('.workbench-hover').first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
  await item.hover();
  const hover = s.page.locator('.workbench-hover').first();
  await hover.waitFor({ timeout: 10_000 });
  return (await hover.innerText()).replace(/\s+/g, ' ');
}

async function waitForTooltip(s: Session, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  let last = '';
  try {
    return await waitFor(`the status bar tooltip to match ${String(pattern)}`, async () => {
      last = await statusTooltip(s).catch(() => '');
      return pattern.test(last) ? last : undefined;
    }, timeoutMs, 1000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; it said: ${last}`);
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('Fathom in code-server: the team index (fathom.index.remote) on a real PostgreSQL server', function () {
  this.timeout(240_000);
  const bin = pgBin();
  let pg: RealPg | undefined;
  let teamDir = '';
  // filled in before() (the server's port is known only once it runs), read when the session starts
  const settings: Record<string, unknown> = {
    // Fathom's own model, as the push: the team index's vectors and the editor's queries agree
    'fathom.model.id': undefined,
    'fathom.chunking.maxTokens': 32,
  };

  before(async function () {
    this.timeout(300_000);
    if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql: apt-get install postgresql (.ci/run does)');
    await prepare(); // builds dist/ with the VSIX (unless FATHOM_E2E_VSIX is given)
    const cli = path.join(repoRoot, 'dist', 'cli.js');
    if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: npm run build`);
    pg = await startRealPg(bin);
    // the CI job: push a checkout of the sample workspace (a copy: nothing is written into the repo)
    teamDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-e2e-team-'));
    fs.cpSync(defaultFixture, teamDir, { recursive: true });
    const out = execFileSync(process.execPath, [cli, 'index', teamDir, '--store', pg.url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    log(out.trim());
    assert.match(out, /pushed \d+ changed files/);
    settings['fathom.index.remote'] = pg.url;
  });
  after(() => {
    pg?.remove();
    if (teamDir) fs.rmSync(teamDir, { recursive: true, force: true });
  });

  const fathom = useSession({ name: 'team-index', settings });

  it('a search is answered by the team index: its chunk, and the status bar says so', async () => {
    const s = fathom();
    await s.waitForLog('Fathom', /first index done: \d+ ms after activation/, 120_000);
    const view = await openSidebar(s);
    await search(view, QUERY);
    await view.locator(`.fathom-result[data-path="${FILE}"]`).first().waitFor({ timeout: 15_000 });
    const ranges = await rangesOf(view, FILE);
    assert.ok(ranges.includes(`${TEAM_CHUNK.start}-${TEAM_CHUNK.end}`), `the team index's chunk of loadNotes (lines ${TEAM_CHUNK.start}-${TEAM_CHUNK.end}) is in the results; they were ${FILE}: ${ranges.join(', ')}`);
    const tip = await waitForTooltip(s, /Team index: postgres:/);
    assert.match(tip, new RegExp(`Team index: ${escape(pg!.url)}`));
    await s.waitForLog('Fathom', `searching the team index ${pg!.url}`);
    await s.screenshot('team-answer');
  });

  it('a file edited locally since the push is answered from the local index, and the tooltip counts it', async () => {
    const s = fathom();
    const view = await openSidebar(s);
    fs.appendFileSync(path.join(s.workspace, FILE), '\nexport function archiveNotesBeforeWinter(notes) {\n  return notes.filter((n) => n.season !== "winter");\n}\n');
    await waitFor('the edited file in the results', async () => {
      await search(view, 'archiveNotesBeforeWinter');
      return (await view.locator(`.fathom-result[data-path="${FILE}"]`).count()) ? true : undefined;
    }, 30_000, 500);
    // the stale pushed chunk of the edited file is left out: its local chunks answer
    await search(view, QUERY);
    await view.locator(`.fathom-result[data-path="${FILE}"]`).first().waitFor({ timeout: 15_000 });
    const ranges = await rangesOf(view, FILE);
    assert.ok(!ranges.includes(`${TEAM_CHUNK.start}-${TEAM_CHUNK.end}`), `the edited file is answered locally (32-token chunks), not by its pushed chunk; ranges: ${ranges.join(', ')}`);
    await waitForTooltip(s, /Team index: \S+ · 1 locally changed files searched locally/);
  });

  it('the server stopped: the search answers locally at once, the tooltip and the log say why; started again, the team index answers', async () => {
    const s = fathom();
    const view = await openSidebar(s);
    // a file not edited since the push: the team index's chunk while the server runs
    const teamChunk = `${FORMAT.start}-${FORMAT.end}`;
    await search(view, FORMAT.query);
    assert.ok((await rangesOf(view, FORMAT.file)).includes(teamChunk), `the team index answers ${FORMAT.file}: ${(await rangesOf(view, FORMAT.file)).join(', ')}`);

    pg!.stop();
    const t0 = Date.now();
    await search(view, FORMAT.query, 20_000); // an answer, not a hang (a guard: the editor's connect timeout is 5 s)
    log(`search with the server stopped answered in ${Date.now() - t0} ms`);
    const local = await rangesOf(view, FORMAT.file);
    assert.ok(local.length > 0 && !local.includes(teamChunk), `the local index answers (32-token chunks): ${local.join(', ')}`);
    // why, in words: the server refuses connections (not an opaque error of the connection it closed)
    await waitForTooltip(s, new RegExp(`Team index ${escape(pg!.url)} cannot answer \\(cannot connect to ${escape(pg!.url)}: connect ECONNREFUSED [^)]*\\): searching the local index`));
    await s.waitForLog('Fathom', /the team index \S+ cannot answer \(.+\): searching the local index, trying again in a minute/);
    // and where it is seen without hovering: the top of the sidebar and the status bar
    await view.locator('#fathom-warning-text', { hasText: 'The team index cannot answer: searching the local index.' }).waitFor({ timeout: 15_000 });
    await s.page.locator('.statusbar-item', { hasText: 'Fathom: local only' }).first().waitFor({ timeout: 15_000 });
    await s.screenshot('team-down');

    pg!.start();
    // tried again a minute after the failure: the team index answers again
    await waitFor('the team index to answer again', async () => {
      await search(view, FORMAT.query);
      return (await rangesOf(view, FORMAT.file)).includes(teamChunk) ? true : undefined;
    }, 100_000, 5000);
    await waitForTooltip(s, new RegExp(`Team index: ${escape(pg!.url)}`));
    await view.locator('#fathom-warning').waitFor({ state: 'hidden', timeout: 15_000 });
    assert.equal((await s.page.locator('.statusbar-item', { hasText: 'Fathom' }).first().innerText()).trim(), 'Fathom', 'the status bar warning is gone');
  });
});
