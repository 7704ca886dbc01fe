/**
 * End-to-end harness: Fathom's packaged VSIX in a real VS Code (code-server) in Debian's
 * Chromium, driven by playwright-core. See test/e2e/README.md for how to write a test.
 *
 * Once per mocha run, `prepare()` installs code-server (scripts/setup-code-server.sh, cached
 * outside the clone) and packs the current build as a VSIX (scripts/package.mjs). Each
 * `launch()` then gets its own temp folder with a copy of a fixture workspace, a fresh
 * user-data dir (settings written before start) and extensions dir (the VSIX installed into
 * it), its own code-server on a free port, and its own browser; `close()` ends both, also
 * after a failed test. Nothing is downloaded at test time.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const EXTENSION_ID = 'fathom.fathom';
/** Where screenshots and the logs of failed sessions go (gitignored). */
export const artifactsDir = path.resolve(process.env.FATHOM_E2E_ARTIFACTS ?? path.join(repoRoot, '.e2e', 'artifacts'));
export const defaultFixture = path.join(repoRoot, 'test', 'fixtures', 'e2e-workspace');
export const CHROMIUM = process.env.FATHOM_E2E_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export type Theme = 'light' | 'dark';
const THEMES: Record<Theme, { name: string; bodyClass: string }> = {
  light: { name: 'Default Light Modern', bodyClass: 'vs' },
  dark: { name: 'Default Dark Modern', bodyClass: 'vs-dark' },
};

/** Settings every session starts with: no welcome page, no telemetry, no update checks. */
const BASE_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'github.gitAuthentication': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
  'security.workspace.trust.startupPrompt': 'never',
  // The editor flows tested here are those of a transformers.js model (the consent prompt, a
  // local folder, a model bundled in the VSIX, keyword-only until one is there): its id is set.
  // Fathom's own model, the default, is tested through the built bundles (test/unit/static-model.test.ts).
  'fathom.model.id': 'Xenova/all-MiniLM-L6-v2',
};

export function log(msg: string): void {
  process.stderr.write(`      [e2e] ${msg}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value other than undefined, or throws `what` timed out. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Once per run: code-server and the VSIX.

export interface Prepared {
  codeServerDir: string;
  vsix: string;
}

let prepared: Promise<Prepared> | undefined;

/**
 * Installs code-server (cached) and packs the current sources as a VSIX, once per process.
 * FATHOM_CODE_SERVER_DIR and FATHOM_E2E_VSIX skip either step with a ready-made one.
 */
export function prepare(): Promise<Prepared> {
  prepared ??= (async () => {
    // Artifacts are per run: a FAILED-*.png left by an earlier run would mislead.
    fs.rmSync(artifactsDir, { recursive: true, force: true });
    let codeServerDir = process.env.FATHOM_CODE_SERVER_DIR;
    if (!codeServerDir) {
      const t0 = Date.now();
      const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'setup-code-server.sh')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`scripts/setup-code-server.sh failed (exit ${r.status ?? r.signal}); its output is above`);
      codeServerDir = r.stdout.trim().split('\n').pop() ?? '';
      log(`code-server ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${codeServerDir}`);
    }
    if (!fs.existsSync(path.join(codeServerDir, 'out', 'node', 'entry.js'))) throw new Error(`no code-server in ${codeServerDir}`);
    let vsix = process.env.FATHOM_E2E_VSIX;
    if (!vsix) {
      const t0 = Date.now();
      vsix = path.join(repoRoot, '.e2e', 'fathom-e2e.vsix');
      fs.mkdirSync(path.dirname(vsix), { recursive: true });
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'package.mjs'), '--out', vsix, '--quiet'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`scripts/package.mjs failed (exit ${r.status ?? r.signal}); its output is above`);
      log(`packaged in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${r.stdout.split('\n').slice(0, 2).join('; ')}`);
    }
    if (!fs.existsSync(vsix)) throw new Error(`no VSIX at ${vsix}`);
    return { codeServerDir, vsix };
  })();
  return prepared;
}

// ---------------------------------------------------------------------------------------------
// One session: a code-server and a browser on a copy of a fixture workspace.

export interface LaunchOptions {
  /** Folder copied as the workspace (default test/fixtures/e2e-workspace). */
  fixture?: string;
  /** User settings merged over the harness defaults, written before code-server starts; a key set to undefined is left unset. */
  settings?: Record<string, unknown>;
  /** Start in light or dark theme (default light). */
  theme?: Theme;
  /**
   * Keep workspace trust on (default off: `--disable-workspace-trust`), for restricted-mode
   * tests: the trust dialog then shows at start; answer it with `answerTrustDialog()`. Pass
   * `waitForActivation: false` too, since an extension without untrusted-workspace support
   * does not activate before the answer (nor after a "No").
   */
  workspaceTrust?: boolean;
  /** Wait for Fathom's activation before returning (default true). */
  waitForActivation?: boolean;
  /** Used in temp-folder and artifact names. */
  name?: string;
  /** Other extensions to install next to Fathom: .vsix files, or folders packed with vsce first. */
  extraExtensions?: string[];
  /** Fathom's VSIX to install instead of the one `prepare()` packed (e.g. one with a bundled model). */
  vsix?: string;
  viewport?: { width: number; height: number };
}

export interface Session {
  page: Page;
  browser: Browser;
  url: string;
  /** The temp copy of the fixture (absolute path). */
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  /** Runs a command by its title from the F1 palette, e.g. 'Fathom: Show Chunks of Active File'. */
  runCommand(title: string): Promise<void>;
  /** Opens a workspace file (path relative to the workspace, `/`) in an editor and waits for its tab. */
  openFile(rel: string): Promise<void>;
  /** The current text of an output channel's log file (e.g. 'Fathom'); '' while it has none. */
  readLog(channel: string): string;
  /** Waits until the channel's log matches `pattern`; returns the whole log. */
  waitForLog(channel: string, pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** The extension host's own log (activation, errors of all extensions). */
  readExtensionHostLog(): string;
  /** Saves a PNG into the artifacts folder and returns its path. */
  screenshot(name: string): Promise<string>;
  /**
   * Merges settings into User/settings.json and makes the running VS Code apply them: code-server
   * does not notice that file changing on disk, so this opens it in the settings JSON editor
   * (which reads it anew), saves it from there and closes it again.
   */
  updateSettings(settings: Record<string, unknown>): Promise<void>;
  /** Switches the color theme and waits until the workbench shows it. */
  setTheme(theme: Theme): Promise<void>;
  /**
   * The contents of a webview contributed by Fathom (sidebar view or panel), as a FrameLocator:
   * code-server nests it as iframe.webview (per view, its src names the extension) >
   * iframe#active-frame (the extension's HTML). `index` picks one when several are open;
   * `extensionId` another extension's.
   */
  webview(opts?: { index?: number; extensionId?: string }): FrameLocator;
  /** Waits for the workspace trust dialog (only with `workspaceTrust: true`) and answers it. */
  answerTrustDialog(trust: boolean): Promise<void>;
  /** Texts of the notification toasts on screen. */
  notifications(): Promise<string[]>;
  /** Closes the browser and ends code-server's process group; keeps logs if `failed`. */
  close(opts?: { failed?: boolean }): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.setTimeout(2000, () => req.destroy());
  });
}

/** A regex matching exactly `text` (surrounding whitespace allowed). */
function exactly(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'shot';
}

function readJsonFile(file: string): Record<string, unknown> {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
}

/** All files below `dir`, recursively. */
function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The newest extension host log folder (U/logs/<time>/exthost<N>/). */
function latestExtHostDir(userDataDir: string): string | undefined {
  const dirs = walk(path.join(userDataDir, 'logs'))
    .filter((f) => path.basename(f) === 'remoteexthost.log' || path.basename(f) === 'exthost.log')
    .map((f) => path.dirname(f));
  return dirs.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
}

/** A .vsix as is; an extension folder packed with vsce into `tmp` (a copy, so nothing is written into the repo). */
export function packFolder(ext: string, tmp: string): string {
  if (ext.endsWith('.vsix')) return ext;
  const copy = path.join(tmp, `pack-${path.basename(ext)}`);
  fs.cpSync(ext, copy, { recursive: true });
  const out = path.join(tmp, `${path.basename(ext)}.vsix`);
  const vsce = path.join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--skip-license', '--allow-missing-repository', '--out', out], { cwd: copy, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vsce package ${ext} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return out;
}

export async function launch(opts: LaunchOptions = {}): Promise<Session> {
  const prepared = await prepare();
  const { codeServerDir } = prepared;
  const vsix = opts.vsix ?? prepared.vsix;
  const name = safeName(opts.name ?? 'session');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `fathom-e2e-${name}-`));
  const workspace = path.join(tmp, 'workspace');
  const userDataDir = path.join(tmp, 'user-data');
  const extensionsDir = path.join(tmp, 'extensions');
  fs.cpSync(opts.fixture ?? defaultFixture, workspace, { recursive: true });
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  const theme = opts.theme ?? 'light';
  const trustSettings = opts.workspaceTrust ? { 'security.workspace.trust.startupPrompt': 'always' } : {};
  // a setting given as undefined is left unset (JSON.stringify drops it), harness default or not
  const userSettings: Record<string, unknown> = { ...BASE_SETTINGS, ...trustSettings, 'workbench.colorTheme': THEMES[theme].name, ...opts.settings };
  fs.writeFileSync(settingsFile, JSON.stringify(userSettings, null, 2));
  // code-server is a remote window: after a reload it takes machine-overridable settings (the
  // model id) from its Machine settings, so the model id is written there too
  const modelId = userSettings['fathom.model.id'];
  fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(modelId === undefined ? {} : { 'fathom.model.id': modelId }, null, 2));
  // code-server otherwise reads and writes ~/.config/code-server/config.yaml.
  const configFile = path.join(tmp, 'config.yaml');
  fs.writeFileSync(configFile, 'auth: none\ncert: false\n');
  const entry = path.join(codeServerDir, 'out', 'node', 'entry.js');
  const common = ['--config', configFile, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

  for (const ext of [vsix, ...(opts.extraExtensions ?? []).map((e) => packFolder(e, tmp))]) {
    const install = spawnSync(process.execPath, [entry, ...common, '--install-extension', ext, '--force'], { encoding: 'utf8' });
    if (install.status !== 0 || !/successfully installed/.test(install.stdout)) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw new Error(`installing ${ext} into code-server failed (exit ${install.status}):\n${install.stdout}\n${install.stderr}`);
    }
  }

  const port = await freePort();
  const serverLog = path.join(tmp, 'code-server.log');
  const out = fs.openSync(serverLog, 'a');
  const args = [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override'];
  if (!opts.workspaceTrust) args.push('--disable-workspace-trust');
  args.push(workspace);
  // detached: its own process group, so close() ends code-server and every host it spawned.
  const server = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  live.add(server);
  server.on('exit', () => live.delete(server));

  let browser: Browser | undefined;
  let closed = false;
  const close = async ({ failed = false }: { failed?: boolean } = {}): Promise<void> => {
    if (closed) return;
    closed = true;
    await browser?.close().catch((err: unknown) => log(`closing the browser: ${String(err)}`));
    killGroup(server, 'SIGTERM');
    const exited = await Promise.race([new Promise<boolean>((r) => (server.exitCode !== null || server.signalCode !== null ? r(true) : server.once('exit', () => r(true)))), sleep(5000).then(() => false)]);
    if (!exited) killGroup(server, 'SIGKILL');
    live.delete(server);
    if (failed || process.env.FATHOM_E2E_KEEP === '1') {
      const keep = path.join(artifactsDir, `${name}-logs`);
      fs.rmSync(keep, { recursive: true, force: true });
      fs.mkdirSync(keep, { recursive: true });
      fs.copyFileSync(serverLog, path.join(keep, 'code-server.log'));
      fs.cpSync(path.join(userDataDir, 'logs'), path.join(keep, 'logs'), { recursive: true });
      log(`logs kept in ${keep}`);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  };

  try {
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
    await waitFor('code-server to listen', async () => {
      if (server.exitCode !== null) throw new Error(`code-server exited (${server.exitCode}):\n${fs.readFileSync(serverLog, 'utf8')}`);
      return (await httpStatus(`http://127.0.0.1:${port}/healthz`)) === 200 ? true : undefined;
    }, 60_000);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => log(`page error: ${err.message}`));
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });

    const readExtensionHostLog = (): string => {
      const dir = latestExtHostDir(userDataDir);
      if (!dir) return '';
      const f = ['remoteexthost.log', 'exthost.log'].map((b) => path.join(dir, b)).find((p) => fs.existsSync(p));
      return f ? fs.readFileSync(f, 'utf8') : '';
    };
    const readLog = (channel: string): string => {
      const dir = latestExtHostDir(userDataDir);
      if (!dir) return '';
      const files = walk(dir);
      const f = files.find((p) => path.basename(p) === `${channel}.log`) ?? files.find((p) => path.basename(p).includes(channel));
      return f ? fs.readFileSync(f, 'utf8') : '';
    };
    const waitForLog = (channel: string, pattern: RegExp | string, timeoutMs = 30_000): Promise<string> =>
      waitFor(`output channel "${channel}" to match ${String(pattern)}`, () => {
        const text = readLog(channel);
        return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
      }, timeoutMs);

    const screenshot = async (shot: string): Promise<string> => {
      fs.mkdirSync(artifactsDir, { recursive: true });
      const file = path.join(artifactsDir, `${name}-${safeName(shot)}.png`);
      await page.screenshot({ path: file });
      log(`screenshot ${file}`);
      return file;
    };

    const quickInput = page.locator('.quick-input-widget');
    const quickInputBox = quickInput.locator('.quick-input-box input');
    // A quick-pick row whose label (and description, when given) is exactly the text: "Fathom: Index"
    // must not pick "Fathom: Index Workspace", nor src/a/index.js pick src/b/index.js.
    const row = (label: string, description?: string): Locator => {
      let rows = quickInput.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exactly(label) }) });
      if (description !== undefined) rows = rows.filter({ has: page.locator('.label-description', { hasText: exactly(description) }) });
      return rows.first();
    };
    const pick = async (prefix: string, text: string, target: Locator, what: string): Promise<void> => {
      await waitFor(what, async () => {
        if (!(await quickInputBox.isVisible())) {
          await page.locator('.monaco-workbench').focus().catch(() => undefined);
          await page.keyboard.press(prefix === '>' ? 'F1' : 'Control+P');
          try {
            await quickInputBox.waitFor({ timeout: 5000 });
          } catch {
            // the key went elsewhere (a dialog or a busy workbench took focus): try again
            await page.keyboard.press('Escape');
            return undefined;
          }
        }
        await quickInputBox.fill(`${prefix}${text}`);
        try {
          await target.waitFor({ timeout: 3000 });
        } catch {
          // Too early (the palette said "No matching commands", or the file index is not ready).
          await page.keyboard.press('Escape');
          return undefined;
        }
        await target.click();
        return true;
      }, 30_000, 500);
    };

    const runCommand = (title: string): Promise<void> => pick('>', title, row(title), `command "${title}" in the palette`);

    const openFile = async (rel: string): Promise<void> => {
      const parts = rel.split('/');
      const base = parts.pop() ?? rel;
      await pick('', rel, row(base, parts.length ? parts.join('/') : undefined), `file "${rel}" in quick open`);
      await page.locator('.tabs-container .tab.active', { hasText: base }).waitFor({ timeout: 15_000 });
      await page.locator('.editor-instance .monaco-editor').first().waitFor({ timeout: 15_000 });
    };

    const updateSettings = async (settings: Record<string, unknown>): Promise<void> => {
      fs.writeFileSync(settingsFile, JSON.stringify({ ...readJsonFile(settingsFile), ...settings }, null, 2));
      await runCommand('Preferences: Open User Settings (JSON)');
      await page.locator('.tabs-container .tab.active', { hasText: 'settings.json' }).waitFor({ timeout: 15_000 });
      await page.locator('.editor-instance .monaco-editor textarea').first().focus();
      await page.keyboard.press('Control+End');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Control+S');
      await page.locator('.tabs-container .tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
      await runCommand('View: Close Editor');
      await page.locator('.tabs-container .tab', { hasText: 'settings.json' }).waitFor({ state: 'detached', timeout: 15_000 });
    };

    const setTheme = async (next: Theme): Promise<void> => {
      await updateSettings({ 'workbench.colorTheme': THEMES[next].name });
      await page.locator(`.monaco-workbench.${THEMES[next].bodyClass}`).waitFor({ timeout: 15_000 });
    };

    const webview = ({ index = 0, extensionId = EXTENSION_ID }: { index?: number; extensionId?: string } = {}): FrameLocator =>
      page.locator(`iframe.webview[src*="extensionId=${extensionId}"]`).nth(index).contentFrame().locator('iframe#active-frame').contentFrame();

    const answerTrustDialog = async (trust: boolean): Promise<void> => {
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 60_000 });
      await dialog.locator('.monaco-button', { hasText: trust ? /^Yes, I trust/ : /^No, I don.t trust/ }).click();
      await dialog.waitFor({ state: 'detached', timeout: 15_000 });
    };

    const notifications = (): Promise<string[]> => page.locator('.notification-toast .notification-list-item-message').allInnerTexts();

    if (opts.waitForActivation ?? true) {
      await waitFor(`${EXTENSION_ID} to activate (extension host log)`, () => {
        const text = readExtensionHostLog();
        const failed = new RegExp(`Activating extension '?${EXTENSION_ID.replace('.', '\\.')}'? failed[^\\n]*`, 'i').exec(text);
        if (failed) throw new Error(`Fathom failed to activate: ${failed[0]}`);
        return text.includes(`_doActivateExtension ${EXTENSION_ID}`) ? true : undefined;
      }, 90_000, 500);
    }

    return {
      page, browser, url, workspace, userDataDir, extensionsDir,
      runCommand, openFile, readLog, waitForLog, readExtensionHostLog, screenshot, updateSettings, setTheme, webview, answerTrustDialog, notifications, close,
    };
  } catch (err) {
    await close({ failed: true });
    throw err;
  }
}

/**
 * Mocha glue: one session for the enclosing describe(). Screenshots every failed test and
 * keeps the logs of the session when any test in it failed.
 *
 *   const fathom = useSession({ settings: { 'fathom.chunking.maxTokens': 64 } });
 *   it('…', async () => { await fathom().runCommand('Fathom: …'); });
 */
export function useSession(opts: LaunchOptions = {}): () => Session {
  let session: Session | undefined;
  let failed = false;
  before(async function () {
    this.timeout(300_000);
    session = await launch({ name: opts.name ?? this.test?.parent?.title ?? 'session', ...opts });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      failed = true;
      await session?.screenshot(`FAILED-${this.currentTest.title}`).catch((err: unknown) => log(`screenshot failed: ${String(err)}`));
    }
  });
  after(async function () {
    this.timeout(60_000);
    await session?.close({ failed });
  });
  return () => {
    if (!session) throw new Error('no e2e session: launch failed or the test runs outside its describe()');
    return session;
  };
}

/** Opens the Fathom view container and returns the search view's frame, its query box ready. */
export async function openSidebar(s: Session): Promise<FrameLocator> {
  const view = s.webview();
  if (!(await view.locator('#fathom-query').isVisible().catch(() => false))) {
    await s.page.locator('.activitybar [aria-label^="Fathom"]').first().click();
  }
  await view.locator('#fathom-query').waitFor({ timeout: 30_000 });
  return view;
}
