// The corpus of bench/agent.ts: real changes with their subject lines and the files they touch,
// from Debian source packages (the patches in debian/patches carry a Subject or Description
// and touch upstream files), each unpacked WITHOUT its patches applied: the state before the
// changes. Nothing here is the dev corpus (bench/.corpus).
//
//   node bench/agent-setup.mjs [--force]
//
// apt-get runs with a private state folder (bench/.agent/apt/) and one `deb-src` line for the
// mirror and suite this machine's apt already uses, so the system's apt configuration is never
// touched. Packages whose sources the mirror does not serve are listed as unreachable in
// bench/.agent/status.json (and by the benchmark), never silently dropped.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cache = path.join(here, '.agent');
const force = process.argv.includes('--force');

/**
 * Chosen for their languages (Python, JavaScript, Go) and for carrying patches that touch
 * upstream sources, before any result was seen; never tuned on. The order is the report's.
 * The second row came later, because five of the first ten have no sources on the mirror:
 * packages whose sources the mirror serves and whose debian/patches are many and mostly carry
 * a subject (chosen by patch count and subjects, before any retrieval result was seen).
 */
export const PACKAGES = [
  'python-django', 'jinja2', 'pylint', 'node-webpack', 'python-urllib3', 'requests', 'flask', 'node-axios', 'node-undici', 'golang-github-spf13-cobra',
  'prometheus', 'syncthing', 'rclone', 'docker.io', 'python-cryptography', 'calibre',
];

/**
 * Folders of a tree that neither retriever searches, besides debian/. Debian's calibre repack
 * bundles data as extra tarballs — 7,800 translation catalogues (630 MB), hyphenation
 * dictionaries, MathJax — that are not calibre's own source (none of its patches touches them),
 * and indexing them would take this 2-core machine most of an hour.
 */
export const EXCLUDE = { calibre: ['translations', 'translations-git', 'hyphenation-git', 'mathjax-git'] };

const log = (m) => console.error(`[agent-setup] ${m}`);

function mirror() {
  const files = ['/etc/apt/sources.list', ...(fs.existsSync('/etc/apt/sources.list.d') ? fs.readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`) : [])];
  for (const f of files) {
    let text = '';
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    // deb822: "URIs: …" and "Suites: bookworm bookworm-updates"
    const uri = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text)?.[1];
    const suite = /^Suites:\s*(\S+)/m.exec(text)?.[1];
    if (uri && suite) return { uri, suite };
    const line = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+(\S+)\s/m.exec(text);
    if (line) return { uri: line[1], suite: line[2] };
  }
  return undefined;
}

function apt(args, cwd) {
  const a = path.join(cache, 'apt');
  const opts = [
    '-o', `Dir::Etc::SourceList=${path.join(a, 'sources.list')}`,
    '-o', 'Dir::Etc::SourceParts=/dev/null',
    '-o', `Dir::State::Lists=${path.join(a, 'lists')}`,
    '-o', `Dir::Cache=${path.join(a, 'cache')}`,
  ];
  return spawnSync('apt-get', [...opts, ...args], { cwd, encoding: 'utf8', timeout: 300_000 });
}

function main() {
  fs.mkdirSync(cache, { recursive: true });
  const statusFile = path.join(cache, 'status.json');
  // trees already unpacked are kept (a package added to the list fetches only itself)
  const previous = !force && fs.existsSync(statusFile) ? JSON.parse(fs.readFileSync(statusFile, 'utf8')) : undefined;
  if (previous && JSON.stringify(previous.packages) === JSON.stringify(PACKAGES) && Object.entries(previous.trees).every(([pkg, t]) => JSON.stringify(t.exclude ?? []) === JSON.stringify(EXCLUDE[pkg] ?? []))) {
    log(`cached: ${Object.keys(previous.trees).length} source trees (${statusFile}); --force to fetch again`);
    return;
  }
  const kept = Object.fromEntries(Object.entries(previous?.trees ?? {}).filter(([pkg, t]) => PACKAGES.includes(pkg) && fs.existsSync(path.join(cache, t.dir))));
  if (spawnSync('apt-get', ['--version']).status !== 0 || spawnSync('dpkg-source', ['--help']).status !== 0) {
    log('apt-get and dpkg-source (Debian) are needed; nothing fetched');
    process.exit(1);
  }
  const m = mirror();
  if (!m) {
    log('no Debian mirror found in /etc/apt: nothing fetched');
    process.exit(1);
  }
  const a = path.join(cache, 'apt');
  for (const d of ['lists/partial', 'cache/archives/partial']) fs.mkdirSync(path.join(a, d), { recursive: true });
  fs.writeFileSync(path.join(a, 'sources.list'), `deb-src ${m.uri} ${m.suite} main\n`);
  log(`deb-src ${m.uri} ${m.suite} main (private apt state in ${a})`);
  const up = apt(['update']);
  if (up.status !== 0) {
    log(`apt-get update failed: ${(up.stderr || up.stdout).trim().split('\n').slice(-3).join(' | ')}`);
    process.exit(1);
  }
  const trees = {};
  const unreachable = {};
  for (const pkg of PACKAGES) {
    if (kept[pkg]) {
      const { exclude: _old, ...tree } = kept[pkg];
      trees[pkg] = { ...tree, ...(EXCLUDE[pkg] ? { exclude: EXCLUDE[pkg] } : {}) };
      log(`${pkg}: ${kept[pkg].version} kept`);
      continue;
    }
    const dl = path.join(cache, 'src', pkg);
    fs.rmSync(dl, { recursive: true, force: true });
    fs.mkdirSync(dl, { recursive: true });
    const r = apt(['source', '--download-only', pkg], dl);
    const dsc = fs.readdirSync(dl).find((f) => f.endsWith('.dsc'));
    if (r.status !== 0 || !dsc) {
      unreachable[pkg] = ((r.stderr || r.stdout || '').match(/E: .*/g) ?? ['apt-get source failed']).slice(0, 2).join(' ');
      log(`${pkg}: not reachable: ${unreachable[pkg]}`);
      fs.rmSync(dl, { recursive: true, force: true });
      continue;
    }
    const tree = path.join(dl, 'tree');
    const x = spawnSync('dpkg-source', ['-x', '--skip-patches', dsc, 'tree'], { cwd: dl, encoding: 'utf8' });
    if (x.status !== 0 || !fs.existsSync(tree)) {
      unreachable[pkg] = `dpkg-source failed: ${(x.stderr || '').trim().split('\n').pop()}`;
      log(`${pkg}: ${unreachable[pkg]}`);
      continue;
    }
    for (const f of fs.readdirSync(dl)) if (f !== 'tree') fs.rmSync(path.join(dl, f), { force: true }); // keep the tree only
    trees[pkg] = { dir: path.relative(cache, tree), version: dsc.replace(/^[^_]+_/, '').replace(/\.dsc$/, ''), ...(EXCLUDE[pkg] ? { exclude: EXCLUDE[pkg] } : {}) };
    log(`${pkg}: ${trees[pkg].version} unpacked without its patches`);
  }
  fs.writeFileSync(statusFile, `${JSON.stringify({ packages: PACKAGES, mirror: m, trees, unreachable }, null, 2)}\n`);
}

main();
