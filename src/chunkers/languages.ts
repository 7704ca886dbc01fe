/**
 * The one list of languages Fathom knows: each entry says which files are the language, how its
 * structure is found (its own chunker, or a tree-sitter grammar and the rules in code-ast.ts),
 * the comment syntax of its breadcrumb header, and whether it is source code (embedded first).
 * Every table of the chunkers, the embedding order and the build's list of grammar files
 * (esbuild.mjs bundles this file to read it) is derived from it here.
 *
 * Adding a language: an entry below, and for a tree-sitter language its rules in code-ast.ts
 * (`RULES`, keyed by `rules`) and the grammar's name in @vscode/tree-sitter-wasm's wasm/ folder.
 *
 * A file whose extension no entry lists is the language named by its extension (`x.pl` is `pl`):
 * so an entry without extensions (perl, haskell) only serves a file `x.perl`, `x.haskell`.
 * This file imports nothing: the build evaluates it on its own.
 */

/** The chunkers that find structure; a language with none is cut by the text chunker. */
export type ChunkerName = 'javascript' | 'vue' | 'json' | 'markdown' | 'tree-sitter';

/** How a language's chunks are ordered for embedding (see index/embed-order.ts). */
export type EmbedClass =
  /** source code: tier 1 (2 under a test folder), tier 3 in a locale folder */
  | 'code'
  /** data that may be a locale dictionary (JSON, YAML): tier 3 in a locale folder, else 2 */
  | 'data'
  /** docs, config, anything else: tier 2 */
  | 'other';

export interface LanguageEntry {
  /** Fathom's language id (chunks' `language`). */
  readonly id: string;
  /** File extensions, lower-case, without the dot. */
  readonly extensions: readonly string[];
  /** Whole file names (lower-case) that are this language whatever their extension: `dockerfile`. */
  readonly fileNames?: readonly string[];
  /** The chunker that finds its structure; absent: the text chunker. */
  readonly chunker?: ChunkerName;
  /** The tree-sitter grammar, `tree-sitter-<grammar>.wasm` (with chunker 'tree-sitter'). */
  readonly grammar?: string;
  /** The key of its rules in code-ast.ts `RULES` (with chunker 'tree-sitter'). */
  readonly rules?: string;
  /**
   * How the breadcrumb header is written: a line-comment prefix (`//`, `#`, `--`), `<!--` for
   * `<!-- header -->`, or '' for the bare header (prose). The text and tree-sitter chunkers use it.
   */
  readonly comment: string;
  readonly embed: EmbedClass;
}

/** The breadcrumb of a language no entry names (`x.pl` is language `pl`). */
export const DEFAULT_COMMENT = '//';

const ts = (id: string, extensions: string[], grammar: string, comment: string, rules = id): LanguageEntry => ({
  id,
  extensions,
  chunker: 'tree-sitter',
  grammar,
  rules,
  comment,
  embed: 'code',
});

export const LANGUAGE_REGISTRY: readonly LanguageEntry[] = [
  { id: 'javascript', extensions: ['js', 'mjs', 'cjs', 'jsx'], chunker: 'javascript', comment: '//', embed: 'code' },
  { id: 'typescript', extensions: ['ts', 'mts', 'cts', 'tsx'], chunker: 'javascript', comment: '//', embed: 'code' },
  { id: 'vue', extensions: ['vue'], chunker: 'vue', comment: '<!--', embed: 'code' },
  { id: 'json', extensions: ['json', 'jsonc', 'json5', 'webmanifest'], chunker: 'json', comment: '//', embed: 'data' },
  { id: 'markdown', extensions: ['md', 'markdown', 'mdx'], chunker: 'markdown', comment: '', embed: 'other' },

  ts('python', ['py', 'pyi'], 'python', '#'),
  ts('go', ['go'], 'go', '//'),
  ts('rust', ['rs'], 'rust', '//'),
  ts('java', ['java'], 'java', '//'),
  ts('csharp', ['cs'], 'c-sharp', '//'),
  // C is parsed by the C++ grammar with the C++ rules (a superset for what chunking needs)
  ts('c', ['c', 'h'], 'cpp', '//', 'cpp'),
  ts('cpp', ['cc', 'cpp', 'cxx', 'hh', 'hpp', 'hxx'], 'cpp', '//'),
  ts('php', ['php'], 'php', '//'),
  ts('ruby', ['rb'], 'ruby', '#'),

  { id: 'kotlin', extensions: ['kt'], comment: '//', embed: 'code' },
  { id: 'swift', extensions: ['swift'], comment: '//', embed: 'code' },
  { id: 'scala', extensions: ['scala'], comment: '//', embed: 'code' },
  { id: 'svelte', extensions: ['svelte'], comment: '//', embed: 'code' },

  { id: 'shellscript', extensions: ['sh', 'bash', 'zsh'], comment: '#', embed: 'other' },
  { id: 'yaml', extensions: ['yml', 'yaml'], comment: '#', embed: 'data' },
  { id: 'toml', extensions: ['toml'], comment: '#', embed: 'other' },
  { id: 'ini', extensions: ['ini'], comment: '//', embed: 'other' },
  { id: 'xml', extensions: ['xml'], comment: '<!--', embed: 'other' },
  { id: 'html', extensions: ['html', 'htm'], comment: '<!--', embed: 'other' },
  { id: 'css', extensions: ['css'], comment: '//', embed: 'other' },
  { id: 'scss', extensions: ['scss'], comment: '//', embed: 'other' },
  { id: 'less', extensions: ['less'], comment: '//', embed: 'other' },
  { id: 'sql', extensions: ['sql'], comment: '--', embed: 'other' },
  { id: 'lua', extensions: ['lua'], comment: '--', embed: 'other' },
  { id: 'plaintext', extensions: ['txt'], comment: '', embed: 'other' },
  { id: 'restructuredtext', extensions: ['rst'], comment: '//', embed: 'other' },
  { id: 'dockerfile', extensions: [], fileNames: ['dockerfile'], comment: '#', embed: 'other' },
  { id: 'makefile', extensions: [], fileNames: ['makefile'], comment: '#', embed: 'other' },
  { id: 'r', extensions: ['r'], comment: '#', embed: 'other' },
  // `.pl` and `.hs` files are still languages `pl` and `hs` (`//` headers): listing those
  // extensions here would change their chunks
  { id: 'perl', extensions: [], comment: '#', embed: 'other' },
  { id: 'haskell', extensions: [], comment: '--', embed: 'other' },
];

// ---------------------------------------------------------------------------------------------
// The tables the chunkers read, derived from the registry. They have no prototype: a file
// `a.constructor` is language `constructor`, not Object's constructor function.

/** A lookup table without a prototype (only its own keys answer). */
export function table<T>(entries: Iterable<readonly [string, T]>): Readonly<Record<string, T>> {
  const t = Object.create(null) as Record<string, T>;
  for (const [k, v] of entries) t[k] = v;
  return t;
}

/** Language id → its entry. */
export const LANGUAGE_BY_ID: ReadonlyMap<string, LanguageEntry> = new Map(LANGUAGE_REGISTRY.map((l) => [l.id, l]));

/** Extension (lower-case, no dot) → language id. */
export const LANGUAGE_BY_EXTENSION = table(LANGUAGE_REGISTRY.flatMap((l) => l.extensions.map((e) => [e, l.id] as const)));

/** Whole file name (lower-case) → language id. */
export const LANGUAGE_BY_FILE_NAME: ReadonlyMap<string, string> = new Map(LANGUAGE_REGISTRY.flatMap((l) => (l.fileNames ?? []).map((n) => [n, l.id] as const)));

/** Language id → the chunker that finds its structure. */
export const CHUNKER_OF = table(LANGUAGE_REGISTRY.flatMap((l) => (l.chunker ? [[l.id, l.chunker] as const] : [])));

/** Language id → grammar name (`tree-sitter-<name>.wasm`), for the languages parsed by tree-sitter. */
export const TREE_SITTER_GRAMMARS = table(LANGUAGE_REGISTRY.flatMap((l) => (l.grammar ? [[l.id, l.grammar] as const] : [])));

/** Extension → language id, for the languages parsed by tree-sitter only. */
export const TREE_SITTER_EXTENSIONS = table(LANGUAGE_REGISTRY.flatMap((l) => (l.grammar ? l.extensions.map((e) => [e, l.id] as const) : [])));

/** Language id → the key of its rules in code-ast.ts. */
export const RULES_OF = table(LANGUAGE_REGISTRY.flatMap((l) => (l.rules ? [[l.id, l.rules] as const] : [])));

/** Language id → breadcrumb comment syntax (see LanguageEntry.comment); others use DEFAULT_COMMENT. */
export const COMMENT_PREFIX = table(LANGUAGE_REGISTRY.map((l) => [l.id, l.comment] as const));

/** The languages that are source code. */
export const CODE_LANGUAGES: ReadonlySet<string> = new Set(LANGUAGE_REGISTRY.filter((l) => l.embed === 'code').map((l) => l.id));

/** The languages whose files may be locale dictionaries (tier 3 in a locale folder). */
export const DATA_LANGUAGES: ReadonlySet<string> = new Set(LANGUAGE_REGISTRY.filter((l) => l.embed === 'data').map((l) => l.id));

/**
 * The wasm files the build ships in dist/tree-sitter/ (without `.wasm`): the runtime and every
 * grammar an entry names, once each.
 */
export function treeSitterWasmFiles(): string[] {
  return ['tree-sitter', ...new Set(LANGUAGE_REGISTRY.flatMap((l) => (l.grammar ? [`tree-sitter-${l.grammar}`] : [])))];
}
