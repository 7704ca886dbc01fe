// Bundles the extension entry, the worker entry, the chunk pool's thread (chunk-worker.js), the CLI
// and media/ into dist/.
// `vscode` stays external (the editor provides it); everything else is bundled, so the VSIX
// and the CLI need no node_modules at run time.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';

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
  external: ['vscode', '@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web', 'sharp', ...optionalEngines],
  // jsonc-parser's UMD build requires its parts dynamically; its ESM build bundles cleanly.
  mainFields: ['module', 'main'],
  logLevel: 'info',
};

const builds = [
  { entryPoints: { extension: 'src/extension.ts', worker: 'src/service/worker.ts', 'chunk-worker': 'src/service/chunk-worker.ts', cli: 'src/cli.ts' }, outdir: 'dist', ...common },
  // the sidebar's webview script: runs in the browser page of the webview, not in Node
  { entryPoints: { view: 'media/view.ts' }, outdir: 'dist/media', bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: !production, minify: production, logLevel: 'info' },
];

// media/ assets (the view's CSS, icons) as they are; its TypeScript is built above.
fs.mkdirSync('dist/media', { recursive: true });
for (const f of fs.existsSync('media') ? fs.readdirSync('media') : []) {
  if (!f.endsWith('.ts') && f !== 'tsconfig.json' && fs.statSync(`media/${f}`).isFile()) fs.copyFileSync(`media/${f}`, `dist/media/${f}`);
}
// The codicon font for the webview, shipped from dist/ (node_modules is not in the webview's reach).
for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/media/${f}`);

// Tree-sitter's runtime and the grammars Fathom uses (src/chunkers/treesitter.ts looks in
// dist/tree-sitter/ first): only these files of @vscode/tree-sitter-wasm ship.
const treeSitterWasm = ['tree-sitter', 'tree-sitter-python', 'tree-sitter-go', 'tree-sitter-rust', 'tree-sitter-java'];
fs.mkdirSync('dist/tree-sitter', { recursive: true });
for (const f of treeSitterWasm) fs.copyFileSync(`node_modules/@vscode/tree-sitter-wasm/wasm/${f}.wasm`, `dist/tree-sitter/${f}.wasm`);

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  for (const b of builds) await esbuild.build(b);
}
