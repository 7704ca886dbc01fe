/**
 * The one entry to chunking: `chunkFile(path, text, options)` picks the chunker by extension
 * and content, and never throws. A structural chunker that cannot parse gives way to the text
 * chunker and the file's record says why; binary, minified, oversized and empty files are
 * skipped with the reason recorded.
 */
import { defaultTokenCounter, TokenizerMissingError, type TokenCounter } from '../tokenizer/wordpiece';
import { FallbackError, type Chunker, type ResolvedOptions } from './chunker';
import { ChunkContext } from './context';
import { chunkTreeSitter } from './code-ast';
import { chunkJavaScript } from './javascript';
import { chunkJson, DEFAULT_JSON_CATEGORIES } from './json';
import { CHUNKER_OF, LANGUAGE_BY_EXTENSION, LANGUAGE_BY_FILE_NAME, table, type ChunkerName } from './languages';
import { chunkMarkdown } from './markdown';
import { chunkText } from './text';
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_LINE_LENGTH,
  DEFAULT_MAX_TOKENS,
  type ChunkOptions,
  type FileChunks,
  type SkipReason,
} from './types';
import { chunkVue } from './vue';
import { errText } from '../util/errors';

export * from './types';
export { decodeBytes, type Decoded } from '../parse/decode';
export { prepareLanguagesFor, treeSitterLanguageOf } from './treesitter';

export { FallbackError, type Chunker, type ChunkerOutput, type ResolvedOptions } from './chunker';

/** The chunker of each structure-finding kind in the language registry (languages.ts). */
const CHUNKERS: Readonly<Record<ChunkerName, Chunker>> = {
  javascript: chunkJavaScript,
  vue: chunkVue,
  json: chunkJson,
  markdown: chunkMarkdown,
  'tree-sitter': chunkTreeSitter,
};

/** Language id → its structural chunker (the others are cut by the text chunker). */
const STRUCTURAL = table(Object.entries(CHUNKER_OF).map(([language, name]) => [language, CHUNKERS[name]] as const));

/** Generated or minified by name: never worth indexing. */
const GENERATED_NAME = /(?:\.min\.(?:js|mjs|cjs|css)|\.map|-lock\.json|\.lock|\.bundle\.js|\.chunk\.js)$/i;
const GENERATED_BASENAMES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml']);

export function languageOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const byName = LANGUAGE_BY_FILE_NAME.get(base);
  if (byName) return byName;
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return 'plaintext';
  return LANGUAGE_BY_EXTENSION[base.slice(dot + 1)] ?? base.slice(dot + 1);
}

/**
 * The options with their defaults. Without `counter`, the default counter is loaded when a
 * chunk is first counted, not here: an engine whose files are all chunked on a chunk pool's
 * thread never needs one on its own thread (loading it, the vocabulary's JSON and set, was
 * 0.2 s of the CLI's main thread on every cold index).
 */
export function resolveOptions(options: ChunkOptions = {}, counter?: TokenCounter): ResolvedOptions {
  const resolved = {
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    maxLineLength: options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH,
    jsonCategories: new Set(options.jsonCategories ?? DEFAULT_JSON_CATEGORIES),
    overlap: Math.max(0, options.overlap ?? 0),
    declarations: !!options.declarations,
  };
  if (counter) return { ...resolved, counter };
  return Object.defineProperty(resolved, 'counter', { get: defaultTokenCounter, enumerable: true }) as typeof resolved & { counter: TokenCounter };
}

/** Why a text should not be chunked at all, or undefined when it should. */
export function skipReason(
  path: string,
  text: string,
  language: string,
  opts: ResolvedOptions,
): { reason: SkipReason; detail: string } | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  // the cap is in bytes (UTF-8, as the file would be on disk): a UTF-16 code unit is 1 to 3
  // bytes, so the exact count is only needed between the two bounds
  if (text.length * 3 > opts.maxFileBytes) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > opts.maxFileBytes) return { reason: 'too-large', detail: `${bytes} bytes (UTF-8), over the ${opts.maxFileBytes}-byte cap` };
  }
  if (GENERATED_BASENAMES.has(base) || GENERATED_NAME.test(base)) {
    return { reason: 'minified', detail: 'generated or minified by its name' };
  }
  const probe = text.length > 8192 ? text.slice(0, 8192) : text;
  if (probe.includes('\0')) return { reason: 'binary', detail: 'contains NUL characters' };
  if (!/\S/.test(text)) return { reason: 'empty', detail: text.length ? 'whitespace only' : 'empty file' };
  // Minified or generated: most of the text sits on very long lines. JSON is exempt (its
  // structure is cut by offsets, whatever the line lengths); prose gets a wider margin.
  if (language !== 'json') {
    const limit = language === 'markdown' || language === 'plaintext' ? opts.maxLineLength * 10 : opts.maxLineLength;
    const { longest, longChars } = longLines(text, limit);
    if (longest > limit && longChars >= text.length * 0.5) {
      return { reason: 'minified', detail: `minified or generated: lines up to ${longest} characters` };
    }
  }
  return undefined;
}

/**
 * The longest line of `text` and the characters on lines longer than `limit` (a line ends at
 * `\n` or `\r`). Lines found with `indexOf` where the text has no `\r` (most files): a loop
 * over every character here ran cold on each chunk thread and was optimized 3 times a thread.
 */
export function longLines(text: string, limit: number): { longest: number; longChars: number } {
  let longChars = 0;
  let longest = 0;
  let lineStart = 0;
  if (!text.includes('\r')) {
    for (;;) {
      const nl = text.indexOf('\n', lineStart);
      const len = (nl < 0 ? text.length : nl) - lineStart;
      if (len > longest) longest = len;
      if (len > limit) longChars += len;
      if (nl < 0) return { longest, longChars };
      lineStart = nl + 1;
    }
  }
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 10 || c === 13) {
      const len = i - lineStart;
      if (len > longest) longest = len;
      if (len > limit) longChars += len;
      lineStart = i + 1;
    }
  }
  return { longest, longChars };
}

/**
 * Chunks one file. `path` is workspace-relative with `/`; `text` is the file's text with any
 * BOM already removed (see decodeBytes). Never throws for a file's sake: a file no chunker can
 * cut is reported skipped. The one error let through is TokenizerMissingError, a broken install,
 * which would otherwise skip every file.
 */
export function chunkFile(path: string, text: string, options: ChunkOptions | ResolvedOptions = {}): FileChunks {
  const opts = 'counter' in options ? (options as ResolvedOptions) : resolveOptions(options as ChunkOptions);
  const language = languageOf(path);
  const result: FileChunks = { path, language, chunks: [], warnings: [] };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const skip = skipReason(path, text, language, opts);
  if (skip) {
    result.skipped = skip;
    return result;
  }
  const chunker = STRUCTURAL[language];
  if (chunker) {
    try {
      const ctx = new ChunkContext(path, language, text, opts.counter, opts.maxTokens);
      ctx.declarations = opts.declarations;
      const out = chunker(ctx, opts);
      result.chunks = out.chunks;
      if (out.category) result.category = out.category;
      if (out.warnings) result.warnings.push(...out.warnings);
      if (out.skipped) result.skipped = out.skipped;
      return result;
    } catch (err) {
      if (err instanceof TokenizerMissingError) throw err;
      const message = errText(err);
      result.fallback = err instanceof FallbackError ? message : `internal error in the ${language} chunker: ${message}`;
      result.warnings.push(`${language} chunker gave way to the text chunker: ${result.fallback}`);
    }
  }
  try {
    result.chunks = chunkText(new ChunkContext(path, language, text, opts.counter, opts.maxTokens));
  } catch (err) {
    if (err instanceof TokenizerMissingError) throw err;
    // Only a bug can bring us here; the file is reported, never lost silently.
    result.chunks = [];
    result.skipped = { reason: 'unsupported', detail: `text chunker failed: ${errText(err)}` };
  }
  return result;
}
