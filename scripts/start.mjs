// `npm start`: Fathom in a real VS Code (code-server), from a fresh clone in one command, on the
// bundled sample workspace or on any folder. Installs dependencies if they are missing, builds
// and packs the VSIX (scripts/package.mjs), installs code-server and what it needs
// (scripts/setup-code-server.sh, cached), installs the VSIX into a dedicated extensions dir
// (out/code-server/), starts code-server on 127.0.0.1 opened on the folder, prints the URL to
// open, and runs until Ctrl-C.
//
//   npm start [-- <folder>] [-- --port N]   the editor (PORT=N works too; default: a free port)
//   npm run demo:cli                        = npm start -- --cli: the CLI chunker over
//                                           sample-workspace/, every chunk and the statistics
//   npm start -- --smoke                    every step of a newcomer's run, then checks that
//                                           code-server answers /healthz with Fathom installed,
//                                           stops it and exits 0 (non-zero with the log's tail
//                                           otherwise): what CI runs on a fresh clone
//
// Output: one line per step; what the steps print (npm, vsce, apt-get, code-server) goes to
// out/code-server/start.log, and its tail is shown when a step fails.
//
// Env: FATHOM_START_STATE (state folder instead of out/code-server: user data, extensions,
// logs), FATHOM_START_VSIX (install this VSIX instead of packing one: the tests reuse theirs),
// FATHOM_E2E_CACHE (where code-server is installed and cached, default ~/.cache/fathom-e2e:
// read by scripts/setup-code-server.sh).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

// Arguments: --cli, --smoke, --port N, and at most one folder.
const portArg = args.indexOf('--port');
const positional = args.filter((a, i) => !a.startsWith('--') && !(portArg >= 0 && i === portArg + 1));
const unknown = args.filter((a) => a.startsWith('--') && !['--cli', '--smoke', '--port'].includes(a));
if (unknown.length || positional.length > 1) {
  console.error(`usage: npm start [-- <folder>] [-- --port N] [-- --smoke]   (${unknown.length ? `unknown option ${unknown[0]}` : `one folder, got ${positional.length}`})`);
  process.exit(2);
}
const smoke = args.includes('--smoke');
const workspace = path.resolve(positional[0] ?? path.join(root, 'sample-workspace'));
if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) {
  console.error(`npm start: ${workspace} is not a folder`);
  process.exit(2);
}

const state = path.resolve(process.env.FATHOM_START_STATE || path.join(root, 'out', 'code-server'));
fs.mkdirSync(state, { recursive: true });
const startLog = path.join(state, 'start.log');
fs.writeFileSync(startLog, '');
const started = Date.now();
/** A path as short as it is clear: relative when under the current folder. */
const shown = (p) => (path.relative(process.cwd(), p).startsWith('..') ? p : path.relative(process.cwd(), p) || p);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
/** The last lines of a log file, for a failure message. */
const tail = (file, lines = 25) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : `(no ${file})`);

/** One step: a line on stderr; the command's own output into start.log (its tail shown if it fails). */
const run = (what, cmd, argv, opts = {}) => {
  process.stderr.write(`fathom: ${what}…\n`);
  fs.appendFileSync(startLog, `\n$ ${cmd} ${argv.join(' ')}\n`);
  const out = fs.openSync(startLog, 'a');
  const r = spawnSync(cmd, argv, { cwd: root, stdio: ['ignore', opts.capture ? 'pipe' : out, out], encoding: 'utf8', ...opts });
  fs.closeSync(out);
  if (r.status !== 0) {
    if (opts.capture) fs.appendFileSync(startLog, r.stdout ?? '');
    console.error(`${tail(startLog)}\nfathom: ${what} failed (exit ${r.status ?? r.signal}); the whole output: ${shown(startLog)}`);
    process.exit(r.status || 1);
  }
  if (opts.capture) fs.appendFileSync(startLog, r.stdout);
  return r;
};

if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) run('installing the npm packages (npm ci, first run only)', 'npm', ['ci', '--no-audit', '--no-fund']);

if (args.includes('--cli')) {
  const cli = (argv) => spawnSync('node', argv, { cwd: root, stdio: 'inherit' }).status === 0 || process.exit(1);
  run('building', 'node', ['esbuild.mjs']);
  cli(['bin/fathom.js', 'chunk', workspace]);
  cli(['bin/fathom.js', 'chunk', workspace, '--stats']);
  process.exit(0);
}

const userDataDir = path.join(state, 'user-data');
const extensionsDir = path.join(state, 'extensions');
fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });

let vsix = process.env.FATHOM_START_VSIX ? path.resolve(process.env.FATHOM_START_VSIX) : undefined;
if (!vsix) {
  vsix = path.join(state, 'fathom.vsix');
  run('building and packing the extension (scripts/package.mjs)', 'node', ['scripts/package.mjs', '--out', vsix, '--quiet']);
}
const setup = run('setting up code-server (scripts/setup-code-server.sh; the first run installs Debian packages and code-server: minutes)', 'bash', ['scripts/setup-code-server.sh'], { capture: true });
const codeServerDir = setup.stdout.trim().split('\n').pop();
const entry = path.join(codeServerDir, 'out', 'node', 'entry.js');

// code-server otherwise reads and writes ~/.config/code-server/config.yaml.
const config = path.join(state, 'config.yaml');
fs.writeFileSync(config, 'auth: none\ncert: false\n');
const settings = path.join(userDataDir, 'User', 'settings.json');
if (!fs.existsSync(settings)) {
  fs.writeFileSync(settings, `${JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'extensions.autoCheckUpdates': false }, null, 2)}\n`);
}
const common = ['--config', config, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
run('installing the extension into code-server', process.execPath, [entry, ...common, '--install-extension', vsix, '--force']);

const wanted = Number(portArg >= 0 ? args[portArg + 1] : process.env.PORT ?? 0);
if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535) {
  console.error(`bad port: ${portArg >= 0 ? args[portArg + 1] : process.env.PORT}`);
  process.exit(2);
}
const port = wanted || (await new Promise((resolve, reject) => {
  const srv = net.createServer();
  srv.on('error', reject);
  srv.listen(0, '127.0.0.1', () => { const { port: p } = srv.address(); srv.close(() => resolve(p)); });
}));

process.stderr.write('fathom: starting code-server…\n');
const server = spawn(process.execPath, [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', workspace], {
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true, // its own process group: Ctrl-C ends code-server and its extension hosts
});
const logFile = path.join(state, 'code-server.log');
const serverLog = fs.createWriteStream(logFile);
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);
const stop = (signal) => {
  try { process.kill(-server.pid, signal); } catch { /* already gone */ }
};
/** Fails the run: what went wrong, the tail of code-server's log, where the whole log is. */
const fail = (why) => {
  serverLog.end();
  stop('SIGKILL');
  console.error(`${tail(logFile)}\nfathom: ${why}; code-server's whole log: ${shown(logFile)}`);
  process.exit(1);
};
let smokeDone = false;
process.on('SIGINT', () => stop('SIGTERM'));
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('exit', () => stop('SIGKILL'));
server.on('exit', (code, signal) => {
  if (smokeDone) return;
  if (smoke) fail(`code-server exited (${signal ?? code}) before it answered /healthz`);
  console.error(`code-server stopped (${signal ?? code}); its log: ${shown(logFile)}`);
  process.exit(signal === 'SIGTERM' ? 0 : code ?? 1);
});

const healthy = () => new Promise((resolve) => {
  const req = http.get(`http://127.0.0.1:${port}/healthz`, (res) => { res.resume(); resolve(res.statusCode === 200); });
  req.on('error', () => resolve(false));
  req.setTimeout(2000, () => req.destroy());
});
for (let i = 0; !(await healthy()); i++) {
  if (i > 240) fail('code-server did not answer /healthz within 60 s');
  await new Promise((r) => setTimeout(r, 250));
}

if (smoke) {
  // The same question a user's VS Code answers: which extensions are installed in this
  // extensions dir. Fathom's id is publisher.name from package.json.
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const id = `${pkg.publisher}.${pkg.name}`;
  const listed = spawnSync(process.execPath, [entry, ...common, '--list-extensions', '--show-versions'], { encoding: 'utf8' });
  fs.appendFileSync(startLog, `\n$ code-server --list-extensions --show-versions\n${listed.stdout}${listed.stderr}`);
  const installed = listed.stdout.split('\n').find((l) => l.toLowerCase().startsWith(`${id.toLowerCase()}@`));
  if (listed.status !== 0 || !installed) fail(`${id} is not among code-server's installed extensions (--list-extensions: ${listed.stdout.trim().split('\n').join(', ') || 'none'})`);
  smokeDone = true;
  const gone = new Promise((resolve) => server.once('exit', resolve));
  stop('SIGTERM');
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 10_000))]); // then SIGKILL on exit
  console.log(`fathom: smoke test passed in ${elapsed()}: code-server answered /healthz on port ${port}, ${installed.trim()} installed; stopped it`);
  process.exit(0);
}
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
const what = workspace === path.join(root, 'sample-workspace') ? 'the sample workspace' : workspace;
console.log(`
Fathom is running in VS Code (code-server) on ${what} (ready in ${elapsed()}):

    ${url}

Open it in a browser on this machine (from elsewhere: ssh -L ${port}:127.0.0.1:${port} …).
F1 → "Fathom: …" lists its commands. Ctrl-C stops it. Output of the steps: ${shown(startLog)}
`);
