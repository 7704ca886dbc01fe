/**
 * Tree-sitter grammars for the languages Babel cannot parse (those with a `grammar` in languages.ts:
 * Python, Go, Rust, Java, C#, C/C++, PHP, Ruby), loaded lazily.
 *
 * Runtime and grammars both come from `@vscode/tree-sitter-wasm` (the build VS Code itself
 * ships): the runtime and the grammars are built together at language ABI 15, so they always
 * load together. (`web-tree-sitter` 0.26+ refuses the ABI-14 grammars of `tree-sitter-wasms`,
 * tree-sitter/tree-sitter#5171; the grammar packages' own wasm files need native installs.)
 *
 * Chunking is synchronous, wasm instantiation is not. So whoever chunks (CLI, engine, worker)
 * awaits `prepareLanguagesFor(paths)` first: it loads the runtime and only the grammars those
 * paths need, once per process. `grammar(language)` is then a synchronous lookup; a language
 * that is not loaded (never prepared, or its load failed) says why in `grammarProblem`, and the
 * chunker falls back to the text chunker with that reason.
 *
 * The .wasm files are found next to the bundle (`dist/tree-sitter/`, copied by esbuild.mjs, what
 * the VSIX ships) or in the package under node_modules (tests and tsx runs from source).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language, Parser as ParserType } from '@vscode/tree-sitter-wasm';
import { errText } from '../util/errors';
import { TREE_SITTER_EXTENSIONS, TREE_SITTER_GRAMMARS } from './languages';

export { TREE_SITTER_GRAMMARS } from './languages';

interface Runtime {
  Parser: typeof ParserType;
  Language: typeof Language;
}

interface Loaded {
  language: Language;
  parser: ParserType;
}

let runtime: Promise<Runtime> | undefined;
const pending = new Map<string, Promise<void>>();
const loaded = new Map<string, Loaded>();
const problems = new Map<string, string>();

/** Folders where the .wasm files may be, in order: next to the bundle, then the package. */
export function grammarDirs(): string[] {
  const dirs = [path.join(__dirname, 'tree-sitter')];
  try {
    dirs.push(path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm'));
  } catch {
    // not installed (the VSIX has no node_modules): only the bundled copy can serve
  }
  return dirs;
}

function findWasm(file: string): string {
  const dirs = grammarDirs();
  for (const d of dirs) {
    const p = path.join(d, file);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`${file} not found in ${dirs.join(', ')}`);
}

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const wasm = findWasm('tree-sitter.wasm');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('@vscode/tree-sitter-wasm') as Runtime;
    await mod.Parser.init({ locateFile: () => wasm });
    return mod;
  })();
  return runtime;
}

/** Loads one language's grammar (once); failures are remembered as the language's problem. */
export function prepareLanguage(language: string): Promise<void> {
  const name = TREE_SITTER_GRAMMARS[language];
  if (!name) return Promise.resolve();
  let p = pending.get(language);
  if (!p) {
    p = (async () => {
      try {
        const rt = await loadRuntime();
        const bytes = fs.readFileSync(findWasm(`tree-sitter-${name}.wasm`));
        const lang = await rt.Language.load(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        const parser = new rt.Parser();
        parser.setLanguage(lang);
        loaded.set(language, { language: lang, parser });
        problems.delete(language);
      } catch (err) {
        problems.set(language, `the ${language} grammar failed to load: ${errText(err)}`);
      }
    })();
    pending.set(language, p);
  }
  return p;
}

/** The tree-sitter language of a path by its extension, if Fathom parses it with tree-sitter. */
export function treeSitterLanguageOf(relPath: string): string | undefined {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  return dot > 0 ? TREE_SITTER_EXTENSIONS[base.slice(dot + 1)] : undefined;
}

/**
 * Loads the grammars these paths need (none when no .py/.go/.rs file is among them). Never
 * rejects: a grammar that cannot load is reported by `grammarProblem` and its files fall back.
 */
export async function prepareLanguagesFor(paths: Iterable<string>): Promise<void> {
  const langs = new Set<string>();
  for (const p of paths) {
    const l = treeSitterLanguageOf(p);
    if (l) langs.add(l);
  }
  await Promise.all([...langs].map(prepareLanguage));
}

/** The parser of a loaded language, or undefined (see grammarProblem). Synchronous. */
export function grammar(language: string): Loaded | undefined {
  return loaded.get(language);
}

/** Why a language has no parser right now. */
export function grammarProblem(language: string): string {
  return (
    problems.get(language) ??
    (pending.has(language)
      ? `the ${language} grammar is still loading`
      : `the ${language} grammar is not loaded (prepareLanguagesFor() was not awaited before chunking)`)
  );
}

/** Frees the loaded parsers (wasm memory); the next prepareLanguagesFor loads them again. */
export function disposeLanguages(): void {
  for (const l of loaded.values()) l.parser.delete();
  loaded.clear();
  pending.clear();
  problems.clear();
}
