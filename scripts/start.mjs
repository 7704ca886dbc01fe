// `npm start`: the main job on the bundled sample workspace, from a fresh clone in one command.
// Installs dependencies if they are missing, builds, and runs Fathom's chunker over
// sample-workspace/, printing what it found and the corpus statistics.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => {
  process.stderr.write(`$ ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) run('npm', ['ci', '--no-audit', '--no-fund']);
run('node', ['esbuild.mjs']);
run('node', ['bin/fathom.js', 'chunk', 'sample-workspace']);
run('node', ['bin/fathom.js', 'chunk', 'sample-workspace', '--stats']);
