// Bundles the extension entry, the worker entry, the chunk pool's thread (chunk-worker.js), the CLI
// and media/ into dist/.
// `vscode` stays external (the editor provides it); everything else is bundled, so the VSIX
// and the CLI need no node_modules at run time.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import * as path from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// @vue/compiler-sfc carries optional template engines (consolidate) that Fathom never calls.
const optionalEngines = ["atpl","babel-core","bracket-template","coffee-script","dot","dustjs-linkedin","eco","ect","ejs","haml-coffee","hamlet","hamljs","handlebars","hogan.js","htmling","jazz","jqtpl","just","liquor","lodash","marko","mote","mustache","plates","ractive","react","react-dom/server","slm","squirrelly","teacup/lib/express","templayed","toffee","twig","twing","underscore","vash","velocityjs","walrus","whiskers"];

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  // transformers.js and onnxruntime load native binaries and files relative to their own
  // package: they stay in node_modules (the VSIX ships them), never inside the bundle.
  // oxc's parser is a native binding per platform, required by name (src/parse/oxc.ts).
  external: ['vscode', '@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web', 'sharp', '@oxc-parser/*', ...optionalEngines],
  // jsonc-parser's UMD build requires its parts dynamically; its ESM build bundles cleanly.
  mainFields: ['module', 'main'],
  logLevel: 'info',
};

// The CLI loads the packages it imports (parsers, the MCP SDK, pg…) on first use, each from its
// own file dist/lazy-<package>.js: a process answering `fathom i18n` from the stored index then
// compiles a few hundred KB instead of the whole 7 MB (see `lazyPackages` below).
// Small packages on every path stay in cli.js; tree-sitter's runtime finds its files beside it.
const cliEager = ['jsonc-parser', 'ignore', '@vscode/tree-sitter-wasm'];
// Packages whose objects meet (the MCP SDK checks the zod schemas the sources give it) share one file.
const cliTogether = [['zod', '@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js']];

// The chunk pool's thread (chunk-worker.js) loads its parsers the same way, from the same files: a
// thread that meets no .vue file never compiles @vue/compiler-sfc (2.4 MB), one that meets no
// Markdown never compiles markdown-it. Its start (compiling the bundle) is on a cold index's path.
const lazy = lazyPackages('dist', cliEager, cliTogether);

const builds = [
  { entryPoints: { extension: 'src/extension.ts', worker: 'src/service/worker.ts' }, outdir: 'dist', ...common },
  { entryPoints: { cli: 'src/cli.ts', 'chunk-worker': 'src/service/chunk-worker.ts', 'layout-worker': 'src/index/layout-worker.ts' }, outdir: 'dist', ...common, plugins: [lazy] },
  // the sidebar's webview script: runs in the browser page of the webview, not in Node
  { entryPoints: { view: 'media/view.ts' }, outdir: 'dist/media', bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: !production, minify: production, logLevel: 'info' },
];

/**
 * An esbuild plugin: every package the sources import (not the packages' own imports, not Node
 * built-ins, not `external`, not `eager`) is bundled into its own file `<outdir>/lazy-<name>.js`,
 * and the importer gets a stand-in that loads that file on first use: on the first access to
 * one of its exports (the names are listed at build time by loading the bundle once), or the
 * first call of a package whose export is a function or class. Same code, loaded later.
 */
function lazyPackages(outdir, eager, together = []) {
  const requireBuilt = createRequire(import.meta.url);
  const builtins = new Set(builtinModules);
  const pkgOf = (p) => p.split('/').slice(0, p.startsWith('@') ? 2 : 1).join('/');
  const skip = new Set([...common.external, ...eager]);
  const made = new Map();
  /** One file per group of specifiers: it exports an object, specifier → that package's exports. */
  const groupFile = (specs) => {
    const name = specs[0];
    if (!made.has(name)) {
      const file = `lazy-${name.replace(/^@/, '').replace(/[^a-zA-Z0-9]+/g, '-')}.js`;
      const contents = `module.exports = {\n${specs.map((s) => `  ${JSON.stringify(s)}: require(${JSON.stringify(s)}),\n`).join('')}};\n`;
      made.set(
        name,
        esbuild.build({ ...common, logLevel: 'warning', stdin: { contents, resolveDir: process.cwd(), loader: 'js' }, outfile: path.join(outdir, file) }).then(() => {
          const abs = path.resolve(outdir, file);
          delete requireBuilt.cache[abs];
          return { file, exports: requireBuilt(abs) };
        }),
      );
    }
    return made.get(name);
  };
  const bundleOf = async (spec) => {
    const { file, exports } = await groupFile(together.find((g) => g.includes(spec)) ?? [spec]);
    const m = exports[spec];
    const fn = typeof m === 'function';
    return { file, fn, esModule: !!m.__esModule, keys: Object.keys(m).filter((k) => k !== 'default' || !fn) };
  };
  return {
    name: 'lazy-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.namespace !== 'file' || !args.importer || args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        if (args.path.startsWith('node:') || builtins.has(args.path) || skip.has(args.path) || skip.has(pkgOf(args.path))) return undefined;
        return { path: args.path, namespace: 'lazy-package' };
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-package' }, async (args) => {
        const { file, fn, esModule, keys } = await bundleOf(args.path);
        const load = `let m;\nconst load = () => m || (m = require(require('node:path').join(__dirname, ${JSON.stringify(file)}))[${JSON.stringify(args.path)}]);\n`;
        const contents = fn
          ? `${load}const esModule = ${esModule};\n` +
            // the export names on the stand-in itself, as getters: esbuild's __toESM copies own properties
            // (a Proxy without them gave \`import { Engine } from 'php-parser'\` undefined in the bundle)
            `const target = function () {};\nfor (const k of ${JSON.stringify(keys.filter((k) => k !== 'prototype' && k !== 'length' && k !== 'name'))}) Object.defineProperty(target, k, { enumerable: true, configurable: true, get: () => load()[k] });\n` +
            `const stub = new Proxy(target, {\n  apply: (_, self, a) => Reflect.apply(load(), self, a),\n  construct: (_, a, nt) => Reflect.construct(load(), a, nt === stub ? load() : nt),\n  get: (_, k) => (k === '__esModule' ? esModule : load()[k]),\n  has: (_, k) => k in load(),\n});\nmodule.exports = stub;\n`
          : `${load}${esModule ? "Object.defineProperty(exports, '__esModule', { value: true });\n" : ''}for (const k of ${JSON.stringify(keys)}) Object.defineProperty(exports, k, { enumerable: true, get: () => load()[k] });\n`;
        return { contents, loader: 'js' };
      });
    },
  };
}

// media/ assets (the view's CSS, icons) as they are; its TypeScript is built above.
fs.mkdirSync('dist/media', { recursive: true });
for (const f of fs.existsSync('media') ? fs.readdirSync('media') : []) {
  if (!f.endsWith('.ts') && f !== 'tsconfig.json' && fs.statSync(`media/${f}`).isFile()) fs.copyFileSync(`media/${f}`, `dist/media/${f}`);
}
// The codicon font for the webview, shipped from dist/ (node_modules is not in the webview's reach).
for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/media/${f}`);

// Tree-sitter's runtime and the grammars Fathom uses (src/chunkers/treesitter.ts looks in
// dist/tree-sitter/ first): only these files of @vscode/tree-sitter-wasm ship. The grammars are
// those the language registry names (src/chunkers/languages.ts, read by loading it here).
const { treeSitterWasmFiles } = await loadSource('src/chunkers/languages.ts');
fs.mkdirSync('dist/tree-sitter', { recursive: true });
for (const f of treeSitterWasmFiles()) {
  const from = `node_modules/@vscode/tree-sitter-wasm/wasm/${f}.wasm`;
  if (!fs.existsSync(from)) throw new Error(`${from} does not exist: src/chunkers/languages.ts names a grammar @vscode/tree-sitter-wasm does not ship`);
  fs.copyFileSync(from, `dist/tree-sitter/${f}.wasm`);
}

/** A TypeScript source's exports, bundled in memory (no file written) and loaded as an ES module. */
async function loadSource(file) {
  const { outputFiles } = await esbuild.build({ entryPoints: [file], bundle: true, write: false, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
}

// The shipped tokenizer's token-counter tables (src/tokenizer/wordpiece.ts DEFAULT_TABLES_FILE):
// each chunk thread reads them at its start instead of building them from tokenizer.json.
async function writeTokenizerTables() {
  const tmp = path.join('dist', `.tables-${process.pid}.cjs`);
  try {
    const contents = `require('./src/tokenizer/wordpiece').writeDefaultCounterTables(${JSON.stringify(path.resolve('dist'))});`;
    await esbuild.build({ ...common, logLevel: 'warning', sourcemap: false, stdin: { contents, resolveDir: process.cwd(), loader: 'js' }, outfile: tmp });
    createRequire(import.meta.url)(path.resolve(tmp));
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  for (const b of builds) await esbuild.build(b);
}

// The token counter's counting loop in WebAssembly (src/tokenizer/wordpiece.ts COUNTER_WASM_FILE),
// compiled from assembly/counter.ts (AssemblyScript).
// And the keyword index's compound scanner (src/index/terms.ts COMPOUNDS_WASM_FILE), from
// assembly/compounds.ts.
async function buildWasm() {
  const { default: asc } = await import('assemblyscript/asc');
  for (const [source, out] of [['assembly/counter.ts', 'dist/fathom-counter.wasm'], ['assembly/compounds.ts', 'dist/fathom-compounds.wasm']]) {
    const { error, stderr } = await asc.main([source, '-O3', '--runtime', 'stub', '--noAssert', '--use', 'abort=', '--initialMemory', '1', '-o', out]);
    if (error) throw new Error(`${source} did not compile: ${error.message}\n${stderr.toString()}`);
  }
}
await buildWasm();
await writeTokenizerTables();
