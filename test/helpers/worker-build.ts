/**
 * The worker tests run the CURRENT source, never a stale dist/ bundle: the first test that
 * asks builds src/service/worker.ts (and the chunk pool's thread, chunk-worker.ts) with esbuild (the options of esbuild.mjs) into a temp
 * folder, once per test process (about 2 s). The tree-sitter wasm files are found through
 * node_modules (src/chunkers/treesitter.ts looks there when dist/tree-sitter/ is not next to
 * the bundle).
 */
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

let built: string | undefined;

/** esbuild.mjs's externals: @vue/compiler-sfc's optional template engines (never called) among them. */
function optionalEngines(): string[] {
  const src = fs.readFileSync(path.join(__dirname, '../../esbuild.mjs'), 'utf8');
  const m = /const optionalEngines = (\[[^\]]*\])/.exec(src);
  return m ? (JSON.parse(m[1]) as string[]) : [];
}

export function currentWorker(): string {
  if (built && fs.existsSync(built)) return built;
  // under out/ (git-ignored), two levels below the repo: the tokenizer's resources/, the
  // bundle's externals (transformers.js, onnxruntime) and the tree-sitter grammars resolve
  // from there as from dist/
  const cache = path.join(__dirname, '../../out');
  fs.mkdirSync(cache, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cache, 'fathom-test-worker-'));
  const out = path.join(dir, 'worker.js');
  bundleWorkers(dir);
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  built = out;
  return out;
}

/** Bundles worker.js and chunk-worker.js (the current source, esbuild.mjs's options) into `dir`. */
export function bundleWorkers(dir: string): void {
  // the chunk pool's thread beside it, as esbuild.mjs puts dist/chunk-worker.js beside dist/worker.js
  esbuild.buildSync({
    entryPoints: { worker: path.join(__dirname, '../../src/service/worker.ts'), 'chunk-worker': path.join(__dirname, '../../src/service/chunk-worker.ts') },
    outdir: dir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode', '@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web', 'sharp', ...optionalEngines()],
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
}
