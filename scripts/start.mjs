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
//
// Output: one line per step; what the steps print (npm, vsce, apt-get, code-server) goes to
// out/code-server/start.log, and its tail is shown when a step fails.
//
// Env: FATHOM_START_STATE (state folder instead of out/code-server: user data, extensions,
// logs), FATHOM_START_VSIX (install this VSIX instead of packing one: the tests reuse theirs).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

// Arguments: --cli, --port N, and at most one folder.
const portArg = args.indexOf('--port');
const positional = args.filter((a, i) => !a.startsWith('--') && !(portArg >= 0 && i === portArg + 1));
const unknown = args.filter((a) => a.startsWith('--') && a !== '--cli' && a !== '--port');
if (unknown.length || positional.length > 1) {
  console.error(`usage: npm start [-- <folder>] [-- --port N]   (${unknown.length ? `unknown option ${unknown[0]}` : `one folder, got ${positional.length}`})`);
  process.exit(2);
}
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

/** One step: a line on stderr; the command's own output into start.log (its tail shown if it fails). */
const run = (what, cmd, argv, opts = {}) => {
  process.stderr.write(`fathom: ${what}…\n`);
  fs.appendFileSync(startLog, `\n$ ${cmd} ${argv.join(' ')}\n`);
  const out = fs.openSync(startLog, 'a');
  const r = spawnSync(cmd, argv, { cwd: root, stdio: ['ignore', opts.capture ? 'pipe' : out, out], encoding: 'utf8', ...opts });
  fs.closeSync(out);
  if (r.status !== 0) {
    const tail = fs.readFileSync(startLog, 'utf8').trimEnd().split('\n').slice(-25).join('\n');
    console.error(`${tail}\nfathom: ${what} failed (exit ${r.status ?? r.signal}); the whole output: ${shown(startLog)}`);
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
process.on('SIGINT', () => stop('SIGTERM'));
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('exit', () => stop('SIGKILL'));
server.on('exit', (code, signal) => {
  console.error(`code-server stopped (${signal ?? code}); its log: ${shown(logFile)}`);
  process.exit(signal === 'SIGTERM' ? 0 : code ?? 1);
});

const healthy = () => new Promise((resolve) => {
  const req = http.get(`http://127.0.0.1:${port}/healthz`, (res) => { res.resume(); resolve(res.statusCode === 200); });
  req.on('error', () => resolve(false));
});
for (let i = 0; !(await healthy()); i++) {
  if (i > 240) { console.error(`code-server did not answer within 60 s; see ${logFile}`); stop('SIGKILL'); process.exit(1); }
  await new Promise((r) => setTimeout(r, 250));
}
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
const what = workspace === path.join(root, 'sample-workspace') ? 'the sample workspace' : workspace;
console.log(`
Fathom is running in VS Code (code-server) on ${what} (ready in ${elapsed()}):

    ${url}

Open it in a browser on this machine (from elsewhere: ssh -L ${port}:127.0.0.1:${port} …).
F1 → "Fathom: …" lists its commands. Ctrl-C stops it. Output of the steps: ${shown(startLog)}
`);
