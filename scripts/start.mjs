// `npm start`: Fathom's main job on the bundled sample workspace, from a fresh clone in one
// command. Installs dependencies if they are missing, builds and packs the VSIX
// (scripts/package.mjs), installs code-server and what it needs (scripts/setup-code-server.sh,
// cached), installs the VSIX into a dedicated extensions dir (out/code-server/), starts
// code-server on 127.0.0.1 opened on sample-workspace/, prints the URL to open, and runs until
// Ctrl-C.
//
//   npm start [-- --port N]     the editor (PORT=N works too; default: a free port)
//   npm run demo:cli            = npm start -- --cli: the CLI chunker over sample-workspace/,
//                               every chunk and the per-language statistics, no editor
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const run = (cmd, argv, opts = {}) => {
  process.stderr.write(`$ ${cmd} ${argv.join(' ')}\n`);
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
  return r;
};

if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) run('npm', ['ci', '--no-audit', '--no-fund']);

if (args.includes('--cli')) {
  run('node', ['esbuild.mjs']);
  run('node', ['bin/fathom.js', 'chunk', 'sample-workspace']);
  run('node', ['bin/fathom.js', 'chunk', 'sample-workspace', '--stats']);
  process.exit(0);
}

const state = path.join(root, 'out', 'code-server');
const vsix = path.join(state, 'fathom.vsix');
const userDataDir = path.join(state, 'user-data');
const extensionsDir = path.join(state, 'extensions');
const workspace = path.join(root, 'sample-workspace');
fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });

run('node', ['scripts/package.mjs', '--out', vsix, '--quiet']);
const setup = run('bash', ['scripts/setup-code-server.sh'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
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
run(process.execPath, [entry, ...common, '--install-extension', vsix, '--force']);

const portArg = args.indexOf('--port');
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

const server = spawn(process.execPath, [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', workspace], {
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true, // its own process group: Ctrl-C ends code-server and its extension hosts
});
const serverLog = fs.createWriteStream(path.join(state, 'code-server.log'));
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);
const stop = (signal) => {
  try { process.kill(-server.pid, signal); } catch { /* already gone */ }
};
process.on('SIGINT', () => stop('SIGTERM'));
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('exit', () => stop('SIGKILL'));
server.on('exit', (code, signal) => {
  console.error(`code-server stopped (${signal ?? code}); its log: ${path.relative(root, path.join(state, 'code-server.log'))}`);
  process.exit(signal === 'SIGTERM' ? 0 : code ?? 1);
});

const healthy = () => new Promise((resolve) => {
  const req = http.get(`http://127.0.0.1:${port}/healthz`, (res) => { res.resume(); resolve(res.statusCode === 200); });
  req.on('error', () => resolve(false));
});
for (let i = 0; !(await healthy()); i++) {
  if (i > 240) { console.error('code-server did not answer within 60 s; see out/code-server/code-server.log'); stop('SIGKILL'); process.exit(1); }
  await new Promise((r) => setTimeout(r, 250));
}
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
console.log(`
Fathom is running in VS Code (code-server) on the sample workspace:

    ${url}

Open it in a browser on this machine (from elsewhere: ssh -L ${port}:127.0.0.1:${port} …).
Fathom activates when the workbench has loaded; F1 → "Fathom: …" lists its commands.
Ctrl-C stops it. The CLI demo without an editor: npm run demo:cli
`);
