/**
 * `npm start -- <folder>`: scripts/start.mjs opens any folder (not only the sample workspace)
 * in code-server with the packed extension, says so in a few lines, and Ctrl-C stops it all.
 * Bounded: every wait has a timeout, and the script's process group is killed in after().
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, artifactsDir, packFolder, prepare, repoRoot, useSession, waitFor } from './harness';

const healthz = (port: number): Promise<number | undefined> =>
  new Promise((resolve) => {
    const req = http.get(`http://127.0.0.1:${port}/healthz`, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.setTimeout(2000, () => req.destroy());
  });

describe('npm start -- <folder>', function () {
  this.timeout(240_000);
  let tmp: string;
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;
  let stdout = '';
  let stderr = '';

  before(async function () {
    this.timeout(300_000);
    await prepare(); // code-server and the VSIX, shared with the other suites
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-e2e-start-'));
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    if (child?.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('refuses a folder that does not exist, with a clear message and exit code 2', async () => {
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const p = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs'), path.join(tmp, 'no-such-folder')], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d: Buffer) => (err += d.toString()));
      p.on('exit', (code) => resolve({ code, err }));
    });
    assert.equal(r.code, 2);
    assert.match(r.err, /no-such-folder is not a folder/);
  });

  it('opens the given folder with Fathom, in a few lines of output, and stops on Ctrl-C', async () => {
    const folder = path.join(tmp, 'my-own-project');
    fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'src', 'ledger.js'), 'export function reconcileLedgerEntries(entries) {\n  return entries.filter((e) => e.amount !== 0);\n}\n');
    fs.writeFileSync(path.join(folder, 'NOTES-own-folder.md'), '# Own folder\n\nOpened by npm start -- <folder>.\n');
    const { vsix } = await prepare();
    child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs'), folder], {
      cwd: repoRoot,
      detached: true, // its own process group, killed as a whole in after()
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FATHOM_START_STATE: path.join(tmp, 'state'), FATHOM_START_VSIX: vsix },
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await waitFor('the URL on stdout', () => {
      if (child!.exitCode !== null) throw new Error(`start.mjs exited ${child!.exitCode}:\n${stdout}\n${stderr}`);
      return /http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+/.exec(stdout)?.[0];
    }, 120_000);
    assert.equal(new URL(url).searchParams.get('folder'), folder, 'the URL opens the given folder');
    const port = Number(new URL(url).port);
    const outputLines = (stdout + stderr).split('\n').filter((l) => l.trim());
    assert.ok(outputLines.length <= 12, `a few lines of output, got ${outputLines.length}:\n${stdout}${stderr}`);
    assert.doesNotMatch(stdout + stderr, /npm warn|^Setting up \S+ \(|Unknown project config/im);
    assert.ok(fs.statSync(path.join(tmp, 'state', 'start.log')).size > 0, 'the steps\' own output went to start.log');

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    // the explorer shows the folder's own files
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'NOTES-own-folder.md' }).waitFor({ timeout: 60_000 });
    // and Fathom indexed it: its log (in the state folder's user data) names the folder
    const logDir = path.join(tmp, 'state', 'user-data', 'logs');
    const fathomLog = await waitFor('Fathom to index the folder', () => {
      const files = fs.existsSync(logDir) ? (fs.readdirSync(logDir, { recursive: true }) as string[]).filter((f) => f.endsWith('Fathom.log')) : [];
      const text = files.map((f) => fs.readFileSync(path.join(logDir, f), 'utf8')).join('\n');
      return /indexed my-own-project: 2 files/.test(text) ? text : undefined;
    }, 90_000);
    assert.match(fathomLog, /indexed my-own-project: 2 files/);
    fs.mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, 'start-own-folder.png') });
    await browser.close();
    browser = undefined;

    // Ctrl-C: start.mjs stops code-server and exits 0
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
    assert.equal(code, 0, `start.mjs exit code after Ctrl-C (${String(code)})`);
    await waitFor('code-server to stop answering', async () => ((await healthz(port)) === undefined ? true : undefined), 15_000);
  });
});

/** Runs scripts/start.mjs to its end (bounded), with extra env; its exit code and output. */
function runStart(argv: string[], env: Record<string, string>, timeoutMs = 240_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs'), ...argv], { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      out += `\n(killed after ${timeoutMs} ms)`;
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('npm start -- --smoke', function () {
  this.timeout(300_000);
  let tmp: string;

  before(async function () {
    this.timeout(300_000);
    await prepare();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-e2e-smoke-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('starts code-server on the sample workspace with Fathom installed, says so, stops it and exits 0', async () => {
    const { vsix } = await prepare();
    const r = await runStart(['--smoke'], { FATHOM_START_STATE: path.join(tmp, 'ok'), FATHOM_START_VSIX: vsix });
    assert.equal(r.code, 0, r.out);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const [, port] = /smoke test passed in \d+ s: code-server answered \/healthz on port (\d+), fathom\.fathom@([\d.]+) installed; stopped it/.exec(r.out) ?? [];
    assert.ok(port, `no smoke line in:\n${r.out}`);
    assert.match(r.out, new RegExp(`fathom\\.fathom@${pkg.version.replace(/\./g, '\\.')} installed`));
    assert.equal(await healthz(Number(port)), undefined, 'code-server still answers after the smoke run');
  });

  it('fails with the reason and the log\'s tail when Fathom is not what got installed', async () => {
    // A VSIX of another extension installs fine: only the check of what is installed can notice.
    const other = packFolder(path.join(repoRoot, 'test', 'e2e', 'fixtures', 'webview-probe'), tmp);
    const r = await runStart(['--smoke'], { FATHOM_START_STATE: path.join(tmp, 'other'), FATHOM_START_VSIX: other });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /fathom: fathom\.fathom is not among code-server's installed extensions \(--list-extensions: fathom-e2e\.webview-probe@0\.0\.1\); code-server's whole log: /);
    assert.doesNotMatch(r.out, /smoke test passed/);
  });
});

/**
 * The code-server that scripts/setup-code-server.sh installs is a whole VS Code: its own
 * TypeScript/JavaScript support runs the tsserver it ships (lib/vscode/extensions/node_modules/
 * typescript). Without it, VS Code says "VS Code's tsserver was deleted by another application"
 * as soon as a TS or JS file opens, and no TypeScript feature works.
 */
describe('VS Code\'s own TypeScript support in the installed code-server', function () {
  const vscode = useSession({ name: 'tsserver' });

  it('runs its bundled tsserver (a type error is underlined) and shows no "tsserver was deleted" error', async () => {
    const s = vscode();
    fs.writeFileSync(path.join(s.workspace, 'src', 'typed.ts'), "export const count: number = 'three';\n");
    await s.openFile('src/typed.ts');
    const deleted = /tsserver was deleted|Could not find bundled tsserver/i;
    // A squiggle under the type error is tsserver's own answer: only a running tsserver gives it.
    await waitFor('tsserver to underline the type error', async () => {
      const shown = (await s.notifications()).find((n) => deleted.test(n));
      if (shown) throw new Error(`VS Code says: ${shown}`);
      const logged = deleted.exec(s.readExtensionHostLog());
      if (logged) throw new Error(`the extension host log says: ${logged[0]}`);
      return (await s.page.locator('.editor-instance .monaco-editor .squiggly-error').count()) > 0 ? true : undefined;
    }, 90_000, 500);
    assert.deepEqual((await s.notifications()).filter((n) => deleted.test(n)), []);
    assert.doesNotMatch(s.readExtensionHostLog(), deleted);
    await s.screenshot('tsserver-type-error');
  });
});
