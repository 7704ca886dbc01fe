#!/usr/bin/env node
/**
 * Builds the benchmark corpus, once: installs the pinned packages of bench/corpus/package.json
 * (npm registry only, no install scripts) and copies their interesting text files into
 * bench/.corpus/<package>/<relative path>. Plain Node ESM, no dependencies.
 *
 * Cached: bench/.corpus/.stamp holds the hash of bench/corpus/package.json (+ .npmrc and the
 * copy rules below); when it matches, nothing is done. `--force` rebuilds anyway.
 *
 * Copied: .vue .js .mjs .cjs .ts .tsx (.d.ts too) .json .md .py .go .rs, from the folders that
 * `fathomCorpus.packages` lists for each package. Never copied: nested node_modules, *.min.*,
 * source maps, lockfiles, and code files that are minified or single-line bundles (most of
 * their text on lines over 1,000 characters).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the copy rules change, so that the cached corpus is rebuilt. */
const RULES_VERSION = '2';
const EXTENSIONS = new Set(['.vue', '.js', '.mjs', '.cjs', '.ts', '.tsx', '.json', '.md', '.py', '.go', '.rs']);
const CODE = new Set(['.vue', '.js', '.mjs', '.cjs', '.ts', '.tsx', '.py', '.go', '.rs']);
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml']);
const LONG_LINE = 1000;

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.join(benchDir, 'corpus');
const outDir = path.join(benchDir, '.corpus');
const stampFile = path.join(outDir, '.stamp');
const force = process.argv.includes('--force');

function log(msg) {
  console.log(`[setup-corpus] ${msg}`);
}

function mb(bytes) {
  return (bytes / 1e6).toFixed(2);
}

const pkgJsonText = fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8');
const npmrcPath = path.join(pkgDir, '.npmrc');
const npmrcText = fs.existsSync(npmrcPath) ? fs.readFileSync(npmrcPath, 'utf8') : '';
const hash = createHash('sha256').update(`${RULES_VERSION}\0${pkgJsonText}\0${npmrcText}`).digest('hex');
const manifest = JSON.parse(pkgJsonText);
const selection = manifest.fathomCorpus?.packages ?? {};

function installed() {
  // The splitter is what bench/chunk.ts imports from here: its absence means node_modules is gone.
  return fs.existsSync(path.join(pkgDir, 'node_modules', '@langchain', 'textsplitters', 'package.json'));
}

function npmInstall() {
  log(`npm install --ignore-scripts --no-audit --no-fund   (in ${path.relative(process.cwd(), pkgDir) || '.'})`);
  const t0 = Date.now();
  const r = spawnSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: pkgDir,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (r.status !== 0) {
    console.error(`[setup-corpus] npm install failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
  log(`installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const stamp = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
if (!force && stamp === hash) {
  if (!installed()) npmInstall();
  log(`corpus up to date (${path.relative(process.cwd(), outDir)}, stamp ${hash.slice(0, 12)}): nothing to do`);
  process.exit(0);
}

npmInstall();

/** Most of the text on lines longer than LONG_LINE: a bundle or minified file. */
function minified(text) {
  let longChars = 0;
  let lineStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 10 || c === 13) {
      const len = i - lineStart;
      if (len > LONG_LINE) longChars += len;
      lineStart = i + 1;
    }
  }
  return longChars > 0 && longChars >= text.length * 0.5;
}

/** Why a file is not copied, or '' when it is. */
function rejection(file, name) {
  if (LOCKFILES.has(name)) return 'lockfile';
  if (/\.min\.[a-z]+$/i.test(name)) return 'minified';
  if (name.endsWith('.map')) return 'source map';
  const ext = path.extname(name).toLowerCase();
  if (!EXTENSIONS.has(ext)) return 'extension';
  if (CODE.has(ext) && minified(fs.readFileSync(file, 'utf8'))) return 'minified';
  return '';
}

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === '.git') continue;
      yield* walk(full);
    } else if (entry.isFile()) {
      yield full;
    }
  }
}

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });

const totals = { files: 0, bytes: 0 };
const byExt = new Map();
const rejected = new Map();
const names = Object.keys(selection).sort();
if (names.length === 0) {
  console.error('[setup-corpus] bench/corpus/package.json has no fathomCorpus.packages: nothing to copy');
  process.exit(1);
}
log(`copying ${names.length} packages into ${path.relative(process.cwd(), outDir)}/`);
for (const name of names) {
  const root = path.join(pkgDir, 'node_modules', ...name.split('/'));
  if (!fs.existsSync(root)) {
    console.error(`[setup-corpus] ${name} is listed in fathomCorpus but not installed`);
    process.exit(1);
  }
  const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const parts = selection[name].length ? selection[name] : ['.'];
  let files = 0;
  let bytes = 0;
  for (const part of parts) {
    const start = path.join(root, part);
    if (!fs.existsSync(start)) {
      console.error(`[setup-corpus] ${name}@${version} has no ${part}`);
      process.exit(1);
    }
    const list = fs.statSync(start).isDirectory() ? walk(start) : [start];
    for (const file of list) {
      const why = rejection(file, path.basename(file));
      if (why) {
        if (why !== 'extension') rejected.set(why, (rejected.get(why) ?? 0) + 1);
        continue;
      }
      const rel = path.relative(root, file);
      const dest = path.join(outDir, name, rel);
      if (fs.existsSync(dest)) continue; // listed twice (a file inside a listed folder)
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.copyFileSync(file, dest);
      const size = fs.statSync(file).size;
      files++;
      bytes += size;
      const ext = file.endsWith('.d.ts') ? '.d.ts' : path.extname(file).toLowerCase();
      const e = byExt.get(ext) ?? { files: 0, bytes: 0 };
      e.files++;
      e.bytes += size;
      byExt.set(ext, e);
    }
  }
  totals.files += files;
  totals.bytes += bytes;
  log(`  ${`${name}@${version}`.padEnd(40)} ${String(files).padStart(5)} files ${mb(bytes).padStart(7)} MB   (${parts.join(', ')})`);
}
log(
  `by extension: ${[...byExt.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .map(([ext, e]) => `${ext} ${e.files} (${mb(e.bytes)} MB)`)
    .join(', ')}`,
);
if (rejected.size) log(`left out: ${[...rejected.entries()].map(([why, n]) => `${n} ${why}`).join(', ')}`);
log(`total: ${totals.files} files, ${mb(totals.bytes)} MB`);
fs.writeFileSync(stampFile, `${hash}\n`);
log(`stamp written (${hash.slice(0, 12)})`);
