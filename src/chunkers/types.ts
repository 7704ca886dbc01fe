/**
 * The chunk model: plain, serializable data shared by every chunker, the index, the worker
 * protocol and the CLI. See ARCHITECTURE.md for the invariants every chunk obeys.
 */

import type { Position } from '../parse/source-text';

export type { Position };

export type ChunkKind =
  | 'function'
  | 'class'
  | 'method'
  | 'property'
  | 'const'
  | 'interface'
  | 'type'
  | 'enum'
  | 'namespace'
  | 'struct'
  | 'trait'
  | 'impl'
  | 'macro'
  | 'object'
  | 'group'
  | 'module'
  | 'fragment'
  | 'template'
  | 'script'
  | 'style'
  | 'i18n-block'
  | 'schema-property'
  | 'schema'
  | 'i18n-section'
  | 'i18n-labels'
  | 'manifest'
  | 'json'
  | 'section'
  | 'code-block'
  | 'front-matter'
  | 'text';

/** Every chunk kind the chunkers make (a `kind` filter outside it can never match). */
export const CHUNK_KINDS = ['function', 'class', 'method', 'property', 'const', 'interface', 'type', 'enum', 'namespace', 'struct', 'trait', 'impl', 'macro', 'object', 'group', 'module', 'fragment', 'template', 'script', 'style', 'i18n-block', 'schema-property', 'schema', 'i18n-section', 'i18n-labels', 'manifest', 'json', 'section', 'code-block', 'front-matter', 'text'] as const;
// compile-time check that the list above names every ChunkKind
const kindsComplete: Record<Exclude<ChunkKind, (typeof CHUNK_KINDS)[number]>, never> = {};
void kindsComplete;

export interface SplitInfo {
  /** 0-based index of this piece among the pieces of its unit. */
  index: number;
  total: number;
}

export interface Chunk {
  /** Deterministic: a hash of path, kind, symbol and text. */
  id: string;
  /** Workspace-relative, `/`-separated. */
  path: string;
  language: string;
  kind: ChunkKind;
  /** Qualified symbol (`ZoomControl.zoomIn`, `zoom.methods.zoomIn`, `properties.name`, `H1 > H2`). */
  symbol?: string;
  /** The enclosing unit's symbol, where there is one. */
  parent?: string;
  /** First line of the unit's declaration, where there is one. */
  signature?: string;
  /** The breadcrumb line embedded and indexed with the text. */
  header: string;
  /** Exactly `source.slice(start.offset, end.offset)`. */
  text: string;
  start: Position;
  end: Position;
  /** Model tokens of `header + "\n" + text`, [CLS] and [SEP] included. */
  tokens: number;
  /** A whole semantic unit (function, class, section, schema property …), not a piece of one. */
  complete: boolean;
  /** Present when a unit over budget had to be cut. */
  split?: SplitInfo;
  /** Markdown: a section lists its code blocks' ids; a code block names its section's id. */
  links?: { codeBlocks?: string[]; section?: string };
  /** Chunker-specific facts (Vue block, JSON category, member names …). */
  meta?: Record<string, unknown>;
}

/**
 * `meta[SEARCH_TERMS_META]`: words naming what a chunk *is* that its text does not hold, one
 * line a fact: `global registration KPanel KPanelView` for the chunk that registers a component,
 * `field title component TextField` for a schema property. The keyword index reads them as
 * header words; they are never displayed or embedded (the header and text are).
 */
export const SEARCH_TERMS_META = 'searchTerms';

/**
 * `meta[ALSO_NAMED_META]`: the names a chunk's unit goes by in code other than its symbol, that
 * its file does not spell: Nuxt registers `components/base/Button.vue` as `<BaseButton>`. A
 * query naming one as code (rank/names.ts) finds the unit as it finds its symbol; the names are
 * search terms too.
 */
export const ALSO_NAMED_META = 'alsoNamed';

export type SkipReason =
  | 'empty'
  | 'too-large'
  | 'binary'
  | 'minified'
  | 'invalid-encoding'
  | 'excluded-category'
  | 'unsupported'
  | 'unreadable'
  /** a symlink (never followed), FIFO, socket or device: never read */
  | 'not-regular';

export interface FileChunks {
  path: string;
  language: string;
  /** JSON category, Vue API style, … */
  category?: string;
  chunks: Chunk[];
  /** Set when the file produced no chunks on purpose. */
  skipped?: { reason: SkipReason; detail: string };
  /** Set when the structural chunker gave way to the text chunker, and why. */
  fallback?: string;
  /** Recovered parse errors, duplicate keys, decoding with replacement … visible, never fatal. */
  warnings: string[];
}

export interface ChunkOptions {
  /** Token budget of one chunk, header included, [CLS]/[SEP] included. Default 256. */
  maxTokens?: number;
  /** Files larger than this many bytes (UTF-16 units for text input) are skipped. Default 512 KiB. */
  maxFileBytes?: number;
  /** A line longer than this many characters marks the file as minified/generated. Default 1000. */
  maxLineLength?: number;
  /** JSON categories indexed; default schema, i18n, docs-meta, config, other. */
  jsonCategories?: readonly string[];
  /**
   * Python/Go/Rust: tokens that each piece of a cut unit repeats from the piece before it
   * (whole lines). Default 0: chunks never overlap.
   */
  overlap?: number;
  /**
   * Every declaration at the top level (and in a namespace) is a unit, one-line constants too:
   * `MAX_RETRIES = 3` (Python), `const TTL = 60_000` not exported (JS/TS), the names of a Go
   * `const ( … )` block. The `definitions` tool parses a file again so; the index keeps them as
   * module code. Default false.
   */
  declarations?: boolean;
}

export const DEFAULT_MAX_TOKENS = 256;
/**
 * The chunkers' output version, stored with an index (`chunking.version` of its manifest). A
 * store saved with another (an older Fathom, whose chunkers cut differently) is loaded and
 * answers at once, and every file is chunked again on the next pass, each vector of a chunk
 * whose text did not change kept. Raise it with any change to what a chunker makes of a file
 * (ranges, kinds, symbols, headers, text): test/unit/chunker-version.test.ts fails until the
 * fingerprint it records is updated with it.
 */
export const CHUNKER_VERSION = 5;
/**
 * 512 KiB: big hand-written modules are often the core of a project (pyparsing's core.py is
 * 205 KB with its doc comments removed and holds 93 of the 449 doc queries of
 * bench/ranking.ts py-doc; at 200 KiB it was skipped and those queries could not be answered).
 * GitHub's code search indexes files up to 350 KiB, zoekt up to 2 MiB; minified and generated
 * files are still skipped by their lines (`maxLineLength`).
 */
export const DEFAULT_MAX_FILE_BYTES = 512 * 1024;
export const DEFAULT_MAX_LINE_LENGTH = 1000;
