// `npm run package`: builds the extension and packs it as a VSIX for this platform only.
//
// dist/ bundles everything except transformers.js, onnxruntime and oxc's parser binding
// (esbuild.mjs keeps them external: they load native binaries and files relative to their own
// package), so the VSIX must carry those node_modules, and nothing else. vsce would pack every production
// dependency (the parsers are already inside dist/) and onnxruntime-node's binaries for all
// five platforms (~290 MB), so this script lays out a staging folder first:
//   - package.json without "files" (vsce refuses it next to .vscodeignore) and with only the
//     runtime dependencies;
//   - dist/ (production build, no source maps), resources/, media/, README.md;
//   - node_modules/: the dependency closure of RUNTIME_PACKAGES, hard-linked from the
//     project's node_modules, onnxruntime-node's bin/ reduced to process.platform/arch, and the
//     PRUNED packages (never loaded at run time) reduced to a stub package.json so that
//     `npm ls`, which vsce runs, still sees a complete tree;
//   - the project's .vscodeignore, which drops sources, type declarations and browser builds.
// Then `vsce package --target <platform>` in the staging folder, and a size report.
//
// With `--model DIR`, the VSIX also carries an embedding model under models/<name>/ (name: the
// folder's, or `--model-name`): the files transformers.js needs for the q8 model — config.json,
// tokenizer.json, tokenizer_config.json, special_tokens_map.json when present, and
// onnx/model_quantized.onnx (the fp32 onnx/model.onnx is left out). The extension uses a bundled
// model with no setting at all (src/editor/settings.ts `bundledModel`).
//
// Usage: node scripts/package.mjs [--out FILE] [--no-build] [--quiet] [--model DIR [--model-name NAME]]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listZip } from './vsix.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const quiet = flag('--quiet');
const fail = (msg) => { process.stderr.write(`[package] error: ${msg}\n`); process.exit(2); };
const say = (msg) => { if (!quiet) process.stderr.write(`[package] ${msg}\n`); };

/** Packages that dist/ requires at run time (esbuild.mjs `external`, minus vscode). */
const RUNTIME_PACKAGES = ['@huggingface/transformers'];
/**
 * oxc's prebuilt parser for this platform (src/parse/oxc.ts requires it by name): only the
 * binding, not oxc-parser's JS wrapper and wasm build, which Fathom never loads (the parts of its
 * JS it uses, the raw-transfer deserializers and constants, are bundled in dist/). Without one
 * (a platform oxc has no build for), the VSIX parses scripts with Babel alone.
 */
const OXC_BINDINGS = ['gnu', 'musl', 'msvc', ''].map((abi) => `@oxc-parser/binding-${process.platform}-${process.arch}${abi ? `-${abi}` : ''}`);
const oxcBinding = OXC_BINDINGS.find((n) => fs.existsSync(path.join(root, 'node_modules', n, 'package.json')));
if (oxcBinding) RUNTIME_PACKAGES.push(oxcBinding);
/** In the closure but never loaded by Fathom at run time, with the reason. */
const PRUNED = {
  // transformers.node.{cjs,mjs} inline the ORT web code they use; this package is for browsers.
  'onnxruntime-web': 'browser build; the Node build of transformers.js does not load it',
  // Used only by onnxruntime-node's postinstall (CUDA download), which .npmrc skips.
  'adm-zip': "only onnxruntime-node's install script uses it",
  'global-agent': "only onnxruntime-node's install script uses it",
};
const VSCE_TARGETS = { 'win32-x64': 'win32-x64', 'win32-arm64': 'win32-arm64', 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'linux-arm': 'linux-armhf', 'darwin-x64': 'darwin-x64', 'darwin-arm64': 'darwin-arm64' };

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const manifest = readJson(path.join(root, 'package.json'));
const out = path.resolve(option('--out') ?? path.join(root, `${manifest.name}-${manifest.version}.vsix`));
const stage = path.join(root, 'out', 'vsix-stage');

function run(cmd, argv, cwd) {
  say(`$ ${cmd} ${argv.join(' ')}`);
  const r = spawnSync(cmd, argv, { cwd, stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** Hard-links (or copies, across devices) src into dest; `skip(rel)` prunes files and folders. */
function linkTree(src, dest, skip = () => false, rel = '') {
  let bytes = 0;
  fs.mkdirSync(dest, { recursive: true });
  for (const ent of fs.readdirSync(src, { withFileTypes: true })) {
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (skip(r, ent)) continue;
    const s = path.join(src, ent.name);
    const d = path.join(dest, ent.name);
    const st = fs.statSync(s);
    if (st.isDirectory()) bytes += linkTree(s, d, skip, r);
    else {
      try { fs.linkSync(s, d); } catch { fs.copyFileSync(s, d); }
      bytes += st.size;
    }
  }
  return bytes;
}

/** Node's resolution from a package folder: its own node_modules, then each parent's. */
function resolvePackage(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root || path.dirname(dir) === dir) return undefined;
  }
}

/** The installed dependency closure of `names`, as folders relative to root. */
function closure(names) {
  const seen = new Map(); // rel dir -> package name
  const visit = (name, fromDir, optional) => {
    const dir = resolvePackage(name, fromDir);
    if (!dir) {
      if (optional) return; // e.g. sharp's binaries for other platforms
      throw new Error(`${name} is not installed (needed from ${path.relative(root, fromDir) || '.'}); run npm ci`);
    }
    const rel = path.relative(root, dir);
    if (seen.has(rel)) return;
    seen.set(rel, name);
    if (PRUNED[name]) return;
    const pkg = readJson(path.join(dir, 'package.json'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const n of names) visit(n, root, false);
  return seen;
}

/** The files of a bundled model (relative to its folder); `required` ones must be there. */
const MODEL_FILES = [
  { rel: 'config.json', required: true },
  { rel: 'tokenizer.json', required: true },
  { rel: 'tokenizer_config.json', required: true },
  { rel: 'special_tokens_map.json', required: false },
  { rel: 'onnx/model_quantized.onnx', required: true },
];
const modelDir = option('--model');
if (args.includes('--model') && (!modelDir || modelDir.startsWith('--'))) fail('--model needs a folder');
let model;
if (modelDir) {
  const dir = path.resolve(modelDir);
  const name = option('--model-name') ?? path.basename(dir);
  if (!/^[\w.-]+$/.test(name)) fail(`--model-name ${JSON.stringify(name)}: letters, digits, ".", "-" and "_" only`);
  const missing = MODEL_FILES.filter((f) => f.required && !fs.existsSync(path.join(dir, f.rel))).map((f) => f.rel);
  if (missing.length) fail(`--model ${dir} is not a model folder: ${missing.join(', ')} missing (needs ${MODEL_FILES.filter((f) => f.required).map((f) => f.rel).join(', ')})`);
  model = { dir, name };
}

const platform = `${process.platform}-${process.arch}`;
const target = VSCE_TARGETS[platform];
const started = Date.now();

if (!flag('--no-build')) run(process.execPath, ['esbuild.mjs', '--production'], root);
for (const f of ['dist/extension.js', 'dist/worker.js']) {
  if (!fs.existsSync(path.join(root, f))) throw new Error(`${f} is missing: build first (npm run build)`);
}

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });

// The manifest: what VS Code reads, without the npm-publishing fields vsce rejects or ignores.
const stagedManifest = { ...manifest };
delete stagedManifest.files;
delete stagedManifest.devDependencies;
delete stagedManifest.scripts;
delete stagedManifest.bin;
stagedManifest.dependencies = Object.fromEntries(RUNTIME_PACKAGES.map((n) => [n, manifest.dependencies[n] ?? readJson(path.join(root, 'node_modules', n, 'package.json')).version]));
fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(stagedManifest, null, 2)}\n`);

// dist/cli.js ships too: the editor's MCP server definition (VS Code 1.101+) runs `cli.js mcp`
linkTree(path.join(root, 'dist'), path.join(stage, 'dist'), (r) => r.endsWith('.map'));
for (const dir of ['resources', 'media']) {
  if (fs.existsSync(path.join(root, dir))) linkTree(path.join(root, dir), path.join(stage, dir));
}
if (model) {
  let bytes = 0;
  for (const f of MODEL_FILES) {
    const src = path.join(model.dir, f.rel);
    if (!fs.existsSync(src)) continue;
    const dest = path.join(stage, 'models', model.name, f.rel);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    try { fs.linkSync(src, dest); } catch { fs.copyFileSync(src, dest); }
    bytes += fs.statSync(src).size;
  }
  say(`bundled the model ${model.name} (${(bytes / 1e6).toFixed(1)} MB) from ${model.dir} as models/${model.name}/`);
}
for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md', '.vscodeignore']) {
  if (fs.existsSync(path.join(root, f))) fs.copyFileSync(path.join(root, f), path.join(stage, f));
}

// Native binaries laid out per platform (onnxruntime-node: bin/napi-v6/<platform>/<arch>/).
const otherPlatformBin = (r) => {
  const m = /^bin\/napi-v\d+\/([^/]+)(?:\/([^/]+))?$/.exec(r);
  return m !== null && (m[1] !== process.platform || (m[2] !== undefined && m[2] !== process.arch));
};
let stagedBytes = 0;
for (const [rel, name] of closure(RUNTIME_PACKAGES)) {
  const dest = path.join(stage, rel);
  if (PRUNED[name]) {
    const pkg = readJson(path.join(root, rel, 'package.json'));
    fs.mkdirSync(dest, { recursive: true });
    fs.writeFileSync(path.join(dest, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, description: `Not shipped: ${PRUNED[name]} (scripts/package.mjs).` }, null, 2)}\n`);
    continue;
  }
  stagedBytes += linkTree(path.join(root, rel), dest, (r, ent) => (ent.isDirectory() && ent.name === 'node_modules') || otherPlatformBin(r));
}
say(`staged ${(stagedBytes / 1e6).toFixed(1)} MB of runtime node_modules for ${platform} in ${path.relative(root, stage)}`);

const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
fs.rmSync(out, { force: true });
run(process.execPath, [vsce, 'package', '--out', out, '--skip-license', '--allow-missing-repository', '--no-rewrite-relative-links', ...(target ? ['--target', target] : [])], stage);

const entries = listZip(out);
const size = fs.statSync(out).size;
const unpacked = entries.reduce((s, e) => s + e.size, 0);
console.log(`VSIX ${out}`);
console.log(`size ${(size / 1e6).toFixed(1)} MB (${size} bytes), ${entries.length} entries, ${(unpacked / 1e6).toFixed(1)} MB unpacked, target ${target ?? 'any'}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log('largest entries (unpacked / compressed):');
for (const e of [...entries].sort((a, b) => b.compressed - a.compressed).slice(0, 10)) {
  console.log(`  ${(e.size / 1e6).toFixed(2).padStart(7)} MB / ${(e.compressed / 1e6).toFixed(2).padStart(6)} MB  ${e.name}`);
}
