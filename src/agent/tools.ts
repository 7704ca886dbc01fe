/**
 * Fathom's tools for coding agents — `search`, `similar`, `context`, `i18n`, `read`,
 * `definitions`, `references`, `files`, `status` — as
 * plain functions over open folders (`AgentFolder`). The MCP server (src/mcp/server.ts) and the
 * extension's language-model tools (answered by the worker) both call `runTool`, so an agent
 * gets the same answer from either.
 *
 * Every answer is a text (one block per hit: `path:start-end`, kind and symbol, why it ranked,
 * the chunk in a fence) and the same facts as structured data. Answers are cut to a token
 * budget (default 2,000) counted with the embedding model's WordPiece tokenizer over the text
 * the agent reads; `search` and `similar` give a `nextCursor` when more hits were left out.
 * Bad input is a `ToolError` (the host turns it into an error result), never a crash.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { CHUNK_KINDS, type Chunk } from '../chunkers/types';
import { chunkFile, languageOf } from '../chunkers/index';
import { prepareLanguagesFor } from '../chunkers/treesitter';
import { globProblem, splitGlobList } from '../workspace/glob';
import type { SearchHit } from '../index/engine';
import type { Candidate, LookupResult } from '../i18n/types';
import { defaultTokenCounter, type TokenCounter } from '../tokenizer/wordpiece';
import { analyzeQuery } from './agent-query';
import { terms } from '../index/terms';
import { unitKey as cutUnitKey } from '../index/rank/pieces';
import { unitNames } from '../index/rank/names';
import { EXACT_MODES, hasIdentifier, PatternError, pathFilter, scanChunks, symbolNames, type ExactMode, type FileMatches } from './exact';
import { bestLines, rankFiles, type RankedFile } from './file-rank';
import type { AgentFolder, FolderState } from './folder';
import { relativeIn } from '../util/paths';
import { escapeRegExp } from '../util/regexp';
import { declaredKind } from '../chunkers/declared';

export const DEFAULT_MAX_TOKENS = 2000;
/** Files of a `detail: "files"` answer when k is not given (the budget usually cuts first). */
export const DEFAULT_FILES = 50;
/** Files of a files answer that get excerpt lines under them (the rest: their line only). */
export const EXCERPT_FILES = 15;
/** The deepest a cursor may page into a ranking. */
const MAX_DEPTH = 500;

/** Bad input (a path outside the folder, an unknown mode, a stale cursor): shown to the agent as is. */
export class ToolError extends Error {}

// ---------------------------------------------------------------------------------------------
// Input schemas (zod: the MCP server validates with them; their JSON Schema is in package.json)

const stringOrList = (what: string) => z.union([z.string(), z.array(z.string())]).optional().describe(what);
const maxTokens = z
  .number()
  .int()
  .min(100)
  .max(100_000)
  .optional()
  .describe(`Token budget of the whole answer, notes included (default ${DEFAULT_MAX_TOKENS}): about 4 characters of text per token (Fathom counts with its WordPiece tokenizer). The smallest budget still answers: the first hit is cut to fit.`);

/** With several folders, which one answers (every tool takes it). */
const folderArg = z
  .string()
  .min(1)
  .max(4000)
  .optional()
  .describe('Only this open folder (its path, or its name as answers show it before each path). Default: every open folder; a relative path that several folders hold is refused until folder says which.');
const globArg = stringOrList('Path globs relative to the folder, e.g. "src/**" or ["*.ts", "!**/*.test.ts"]; a glob without "/" matches file names anywhere.');
const symbolArg = z
  .string()
  .min(1)
  .max(500)
  .describe('A symbol name exactly as written in code, e.g. "getZoomControl", or qualified by its type as the language writes it: "Map.zoomIn", "Arg::new", "Logger#log", "(*Engine).ServeHTTP", "App\\Log\\Handler" (a module or package in front, "clap::Command", may be left out; a bare last part matches every type\'s).');

export const inputShapes = {
  search: {
    query: z.string().min(1).max(4000).describe('What to find: words, an identifier, a question, or a displayed string. In mode exact / identifier / regex: the text, identifier or JavaScript regex to match in each line.'),
    k: z.number().int().min(1).max(50).optional().describe(`Most hits in this answer (files: default ${DEFAULT_FILES}; chunks: default 10; at most 50); the token budget may cut earlier.`),
    glob: globArg,
    language: stringOrList('Languages, e.g. "typescript", "python", "vue", "markdown", "json".'),
    kind: stringOrList('Chunk kinds, e.g. "function", "class", "method", "section", "schema-property", "i18n-section".'),
    mode: z
      .enum(['hybrid', 'keyword', 'dense', 'exact', 'identifier', 'regex'])
      .optional()
      .describe(
        'hybrid (default: keyword and meaning fused), keyword, dense (meaning only; needs the embedding model); or a match that says "no match" when nothing holds it: exact (the text as written, case-sensitive), identifier (the text as a whole identifier, never inside a longer one), regex (a JavaScript regular expression per line; one that runs over 2 s is stopped and refused). The three match modes answer files with their matching lines.',
      ),
    detail: z
      .enum(['files', 'chunks'])
      .optional()
      .describe(`files (default): one line per file (path:start-end, kind and symbol of its best place) with its best line(s), many files per answer, k files (default ${DEFAULT_FILES}); chunks: one block per hit with the whole chunk, k chunks (default 10). Match modes always answer files.`),
    maxTokens,
    cursor: z.string().max(2000).optional().describe('The nextCursor of a previous answer to the same query: the hits after it.'),
    folder: folderArg,
  },
  similar: {
    path: z.string().min(1).max(4000).describe('A file of the folder (relative to it, or absolute).'),
    line: z.number().int().min(1).describe('A 1-based line in it: the chunk holding it is the source.'),
    k: z.number().int().min(1).max(50).optional().describe('Most hits (default 10).'),
    maxTokens,
    cursor: z.string().max(2000).optional().describe('The nextCursor of a previous answer for the same place.'),
    folder: folderArg,
  },
  context: {
    path: z.string().min(1).max(4000).describe('A file of the folder (relative to it, or absolute).'),
    line: z.number().int().min(1).optional().describe('A 1-based line: its enclosing unit. Give line, or startLine (and endLine): one of the two is required.'),
    startLine: z.number().int().min(1).optional().describe('Or a range of 1-based lines (with endLine): the units it touches. Required when line is not given.'),
    endLine: z.number().int().min(1).optional(),
    window: z.number().int().min(0).max(10).optional().describe('Neighbouring chunks on each side (default 1).'),
    maxTokens,
    folder: folderArg,
  },
  i18n: {
    text: z.string().min(1).max(4000).optional().describe('A displayed string in any locale: the keys whose value matches it.'),
    key: z.string().min(1).max(1000).optional().describe('Or an i18n key (a.b.c, ns:key): its value in every locale and its usages.'),
    fromFile: z.string().max(4000).optional().describe("The file the string comes from: its app's keys rank first."),
    k: z.number().int().min(1).max(50).optional().describe('Most keys (default 10).'),
    locales: stringOrList('Only these locales, e.g. "de" or ["en", "pt-BR"] (default: every locale; a long key is cut to the matched and source locales first).'),
    maxTokens,
    folder: folderArg,
  },
  read: {
    path: z.string().min(1).max(4000).describe('A file of the folder (relative to it, or absolute); links out of the folder are not followed.'),
    startLine: z.number().int().min(1).optional().describe('First 1-based line (default 1).'),
    endLine: z.number().int().min(1).optional().describe('Last line (default: the end of the file); the budget may cut earlier, and the answer says where to go on.'),
    maxTokens,
    folder: folderArg,
  },
  definitions: {
    symbol: symbolArg,
    kind: stringOrList('Only these chunk kinds, e.g. "function", "class", "method".'),
    glob: globArg,
    k: z.number().int().min(1).max(50).optional().describe('Most definitions (default 10).'),
    maxTokens,
    folder: folderArg,
  },
  references: {
    symbol: symbolArg,
    glob: globArg,
    maxTokens,
    cursor: z.string().max(2000).optional().describe('The nextCursor of a previous answer for the same symbol: the files after it.'),
    folder: folderArg,
  },
  files: {
    glob: globArg,
    maxTokens,
    cursor: z.string().max(2000).optional().describe('The nextCursor of a previous answer with the same glob: the files after it.'),
    folder: folderArg,
  },
  status: { folder: folderArg },
} as const;

export type ToolName = keyof typeof inputShapes;
export const TOOL_NAMES = Object.keys(inputShapes) as ToolName[];

/** How search scores read, the same with one folder or several. */
export const SCORE_SCALE = 'Scores are on one scale, 0 to 1: a hit\'s score relative to the best hit of its folder\'s ranking (1 = the best; match modes: 1 for every file); with several folders the hits interleave by it, each folder weighed by how much of the query its best hit holds (the best folder\'s best hit 1).';

export const descriptions: Record<ToolName, { title: string; description: string }> = {
  search: {
    title: 'Search the workspace',
    description: `Find code, docs, schemas and i18n strings in the workspace by meaning and by name at once (hybrid search: keywords fused with Fathom's own embedding model, which ships with Fathom and needs no download; keyword-only where a folder has no model; over structure-aware chunks: functions, classes, methods, Markdown sections, JSON schema properties, i18n sections). A task or commit-style sentence works as a query: its identifiers and content words are searched, and files rank by all their matching chunks and their path. Default detail "files": one line per file (path:startLine-endLine, kind and symbol of its best place) with its best line(s) and other places, many files in one answer; detail "chunks": one block per hit with the whole chunk and why it ranked. Modes exact, identifier and regex match text as written and say "no match" when nothing holds it. ${SCORE_SCALE} Cut to a token budget; nextCursor pages on. Use it before reading files, then \`context\` on a line for its enclosing unit, \`read\` for lines.`,
  },
  similar: {
    title: 'Find similar code',
    description: "Chunks like the one at path:line (by Fathom's own embedding model when the folder has it, else by its text): other implementations, duplicates, related tests and docs.",
  },
  context: {
    title: 'Context around a line',
    description:
      'Needs path and a line (or startLine and endLine). The unit that encloses that line or range of a file (its function, method, class, section…, whole even when it was cut into pieces), its parent (class, section) and its neighbouring units; for Markdown, the section with its code blocks.',
  },
  i18n: {
    title: 'Find an i18n key',
    description: 'Where is this displayed string defined? Give text (a translation in any locale) or key: the matching keys, their value in every locale with file:line, and their usages in code.',
  },
  read: {
    title: 'Read lines of a file',
    description: 'The lines startLine..endLine of a file of the open folder (the whole file by default), cut to the token budget at a line; the answer says which line to go on from. Only files of the folder: paths outside it and links out of it are refused.',
  },
  definitions: {
    title: 'Where a symbol is defined',
    description: 'The units (functions, classes, methods, types, constants…) whose name is exactly this symbol, as the chunkers parsed them, each whole with path:startLine-endLine (a class too large for one chunk: its whole range, shown by its head up to its first member); "no match" when none is named so (no near names).',
  },
  references: {
    title: 'Where a symbol is used',
    description: 'Every line that holds this symbol as a whole identifier (never inside a longer name), by file, its definitions marked; "no match" when no line holds it. Cut to the token budget; nextCursor pages on by file.',
  },
  files: {
    title: 'List files',
    description: 'The indexed files of the open folder(s), in path order, optionally only those matching globs ("src/**", "*.py", "!**/test/**"), with the total; cut to the token budget, nextCursor pages on.',
  },
  status: {
    title: 'Index status',
    description: 'The open folders: files, chunks, vectors, whether indexing is still running (answers then cover what is indexed so far), keyword-only reason, how edits are followed.',
  },
};

/**
 * The descriptions as this server answers now: a folder without the embedding model searches by
 * keyword only, and its tools must not promise meaning.
 */
export function describeTools(folders: AgentFolder[]): Record<ToolName, { title: string; description: string }> {
  const reason = folders.map((f) => f.state().keywordOnlyReason).find(Boolean);
  if (!reason) return descriptions;
  return {
    ...descriptions,
    search: {
      title: descriptions.search.title,
      description: descriptions.search.description
        .replace(/by meaning and by name at once \(hybrid search: [^;]*; keyword-only where a folder has no model; over/, 'by name and words (keyword search only on this server: no embedding model; over')
        .replace(/$/, ` Keyword-only here: ${reason}.`),
    },
    similar: { title: descriptions.similar.title, description: 'Chunks like the one at path:line, by its text (keyword-only on this server: no embedding model): other implementations, duplicates, related tests and docs.' },
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (structuredContent)

const why = z.object({
  keyword: z.number().optional(),
  dense: z.number().optional(),
  /** The model behind the meaning rank or the re-ranking (set on every such hit by a folder with a model). */
  model: z.string().optional(),
  fused: z.number(),
  /** A query in words was re-ranked by learned features (src/index/rank/rerank.ts): this hit's place in the fused order before. */
  reranked: z.number().optional(),
  /** The model that re-ranked, when it is not `model`: Fathom's own beside another model. */
  reranker: z.string().optional(),
  /** A function cut in pieces is shown from its start (src/index/rank/pieces.ts): the lines of the piece that ranked it. */
  rankedBy: z.object({ startLine: z.number(), endLine: z.number() }).optional(),
});
const hit = z.object({
  folder: z.string(),
  path: z.string(),
  startLine: z.number(),
  endLine: z.number(),
  kind: z.string(),
  symbol: z.string().nullable(),
  language: z.string(),
  header: z.string(),
  text: z.string(),
  score: z.number().describe(SCORE_SCALE),
  why,
  truncated: z.boolean().optional(),
  /** detail "files": the best lines of the file's best place (also in `text`), its other places, the query terms in its path. */
  lines: z.array(z.object({ line: z.number(), text: z.string() })).optional(),
  more: z.array(z.object({ startLine: z.number(), endLine: z.number(), kind: z.string(), symbol: z.string().nullable() })).optional(),
  pathMatch: z.array(z.string()).optional(),
});
const folderState = z.object({
  root: z.string(),
  files: z.number(),
  skipped: z.number(),
  chunks: z.number(),
  vectors: z.number(),
  pendingVectors: z.number(),
  indexing: z.object({ phase: z.string(), filesDone: z.number(), filesTotal: z.number() }).optional(),
  embedding: z.boolean().optional(),
  keywordOnlyReason: z.string().optional(),
  model: z.string().optional(),
  companion: z.string().optional(),
  store: z.string(),
  watching: z.string(),
  lastUpdate: z.string().optional(),
});
const budget = { tokens: z.number(), maxTokens: z.number(), note: z.string().optional() };
const unit = z.object({ role: z.string(), path: z.string(), startLine: z.number(), endLine: z.number(), kind: z.string(), symbol: z.string().nullable(), text: z.string(), truncated: z.boolean().optional() });

export const outputShapes = {
  search: { hits: z.array(hit), nextCursor: z.string().optional(), ...budget },
  similar: { source: z.object({ path: z.string(), startLine: z.number(), endLine: z.number(), symbol: z.string().nullable() }), hits: z.array(hit), nextCursor: z.string().optional(), ...budget },
  context: { folder: z.string(), path: z.string(), units: z.array(unit), ...budget },
  i18n: {
    candidates: z.array(
      z.object({
        folder: z.string(),
        key: z.string(),
        match: z.string(),
        score: z.number(),
        locales: z.array(z.object({ locale: z.string(), file: z.string(), line: z.number(), value: z.string() })),
        usages: z.array(z.object({ file: z.string(), line: z.number(), via: z.string(), dynamic: z.boolean() })),
        truncated: z.boolean().optional(),
      }),
    ),
    problems: z.array(z.string()),
    ...budget,
  },
  read: { folder: z.string(), path: z.string(), startLine: z.number(), endLine: z.number(), totalLines: z.number(), text: z.string(), nextStartLine: z.number().optional(), truncated: z.boolean().optional(), ...budget },
  definitions: { definitions: z.array(unit.omit({ role: true }).extend({ folder: z.string() })), ...budget },
  references: { hits: z.array(hit), nextCursor: z.string().optional(), ...budget },
  files: { files: z.array(z.object({ folder: z.string(), path: z.string() })), total: z.number(), nextCursor: z.string().optional(), ...budget },
  status: { folders: z.array(folderState) },
} as const;

// ---------------------------------------------------------------------------------------------
// Running a tool

export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

export interface ToolEnv {
  folders: AgentFolder[];
  counter?: TokenCounter;
}

function parse<N extends ToolName>(name: N, args: unknown): ArgsOf<N> {
  const r = z.object(inputShapes[name]).strict().safeParse(args ?? {});
  if (!r.success) throw new ToolError(`invalid arguments for ${name}: ${r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`);
  return r.data as unknown as ArgsOf<N>;
}

/**
 * Runs one tool on arguments as the agent sent them (validated here, whatever the host did).
 * Throws `ToolError` for bad input; anything else is a bug the host reports.
 */
export async function runTool(name: string, args: unknown, env: ToolEnv): Promise<ToolAnswer> {
  if (!TOOL_NAMES.includes(name as ToolName)) throw new ToolError(`unknown tool "${name}": the tools are ${TOOL_NAMES.join(', ')}`);
  if (!env.folders.length) throw new ToolError('no folder is open in Fathom yet (indexing starts when a folder opens)');
  const counter = env.counter ?? defaultTokenCounter();
  const scope = (a: { folder?: string }) => pickFolders(env.folders, a.folder);
  switch (name as ToolName) {
    case 'search': {
      const a = parse('search', args);
      return search(a, scope(a), counter);
    }
    case 'similar': {
      const a = parse('similar', args);
      return similar(a, scope(a), counter);
    }
    case 'context': {
      const a = parse('context', args);
      return context(a, scope(a), counter);
    }
    case 'i18n': {
      const a = parse('i18n', args);
      return i18n(a, scope(a), counter);
    }
    case 'read': {
      const a = parse('read', args);
      return read(a, scope(a), counter);
    }
    case 'definitions': {
      const a = parse('definitions', args);
      return definitions(a, scope(a), counter);
    }
    case 'references': {
      const a = parse('references', args);
      return references(a, scope(a), counter);
    }
    case 'files': {
      const a = parse('files', args);
      return files(a, scope(a), counter);
    }
    case 'status': {
      const a = parse('status', args);
      return status(scope(a));
    }
  }
}

/**
 * The folders a call is answered from: all, or the one `folder` names (its path, absolute or
 * as given to the server, or its name); a name that fits none, or several, is refused with the
 * candidates.
 */
export function pickFolders(folders: AgentFolder[], folder: string | undefined): AgentFolder[] {
  if (folder === undefined) return folders;
  const want = folder.trim().replace(/\\/g, '/').replace(/\/+$/, '');
  const byPath = folders.filter((f) => path.resolve(f.root) === path.resolve(want));
  if (byPath.length) return byPath;
  const byName = folders.filter((f) => path.basename(f.root) === want);
  if (byName.length === 1) return byName;
  const list = folders.map((f) => f.root).join(', ');
  if (byName.length > 1) throw new ToolError(`folder "${folder}" names ${byName.length} open folders (${byName.map((f) => f.root).join(', ')}): give its full path`);
  throw new ToolError(`no open folder is "${folder}": the folders are ${list}`);
}

type ArgsOf<N extends ToolName> = z.infer<z.ZodObject<(typeof inputShapes)[N]>>;
type SearchArgs = ArgsOf<'search'>;
type SimilarArgs = ArgsOf<'similar'>;
type ContextArgs = ArgsOf<'context'>;
type I18nArgs = ArgsOf<'i18n'>;
type ReadArgs = ArgsOf<'read'>;
type DefinitionsArgs = ArgsOf<'definitions'>;
type ReferencesArgs = ArgsOf<'references'>;
type FilesArgs = ArgsOf<'files'>;

const list = (v: string | string[] | undefined): string[] | undefined => {
  if (v === undefined) return undefined;
  const items = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
};

// --- cursors: which ranking (a fingerprint of the request) and how far into it ---------------

function fingerprint(parts: unknown): string {
  const s = JSON.stringify(parts);
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

function encodeCursor(fp: string, offset: number): string {
  return Buffer.from(JSON.stringify({ f: fp, o: offset })).toString('base64url');
}

function decodeCursor(cursor: string | undefined, fp: string, maxDepth = MAX_DEPTH): number {
  if (cursor === undefined) return 0;
  let parsed: { f?: unknown; o?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw new ToolError('cursor is not one Fathom gave: pass the nextCursor of the previous answer as it was');
  }
  if (typeof parsed.o !== 'number' || !Number.isInteger(parsed.o) || parsed.o < 0 || parsed.o > maxDepth) throw new ToolError('cursor is not one Fathom gave: pass the nextCursor of the previous answer as it was');
  if (parsed.f !== fp) throw new ToolError('cursor belongs to another request: repeat the same query, filters and mode with it, or leave it out');
  return parsed.o;
}

// --- the text blocks ---------------------------------------------------------------------------

function fence(text: string, lang: string): string {
  let ticks = 3;
  for (const m of text.matchAll(/`{3,}/g)) ticks = Math.max(ticks, m[0].length + 1);
  const f = '`'.repeat(ticks);
  return `${f}${lang}\n${text}\n${f}`;
}

const FENCE_LANG: Record<string, string> = {
  ...{ javascript: 'js', typescript: 'ts', python: 'python', go: 'go', rust: 'rust', java: 'java', vue: 'vue', json: 'json', markdown: 'markdown', text: '' },
  ...{ csharp: 'csharp', c: 'c', cpp: 'cpp', php: 'php', ruby: 'ruby', kotlin: 'kotlin', swift: 'swift', scala: 'scala', svelte: 'svelte', shellscript: 'sh' },
  ...{ yaml: 'yaml', toml: 'toml', ini: 'ini', xml: 'xml', html: 'html', css: 'css', scss: 'scss', less: 'less', sql: 'sql', lua: 'lua' },
};

/** Why a hit ranked, and its score on the answers' one scale (SCORE_SCALE), as in `score`. */
function whyWords(w: SearchHit['why'], score: number): string {
  const parts = [w.keyword ? `keyword #${w.keyword}` : '', w.dense ? `meaning #${w.dense}${w.model ? ` by ${w.model}` : ''}` : '', w.reranked ? `re-ranked from #${w.reranked}${w.reranker ? ` by ${w.reranker}` : ''}` : '', w.rankedBy ? `ranked by lines ${w.rankedBy.startLine}-${w.rankedBy.endLine}` : ''].filter(Boolean);
  return `${parts.join(', ') || 'ranked'} (score ${score.toFixed(2)})`;
}

function shownPath(folders: AgentFolder[], root: string, rel: string): string {
  return folders.length > 1 ? `${path.basename(root)}/${rel}` : rel;
}

/** Cuts `text` to whole lines that fit `tokens`; false when not even one line fits. */
function cutToTokens(text: string, tokens: number, counter: TokenCounter): string | undefined {
  const lines = text.split('\n');
  let used = 0;
  let n = 0;
  for (; n < lines.length; n++) {
    const t = counter.count(lines[n]) + 1;
    if (used + t > tokens) break;
    used += t;
  }
  return n ? lines.slice(0, n).join('\n') : undefined;
}

/** The longest prefix of one line that fits `tokens` (with an ellipsis), '' when none does. */
function cutChars(line: string, tokens: number, counter: TokenCounter): string {
  let lo = 0;
  let hi = line.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(`${line.slice(0, mid)}…`) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return lo ? `${line.slice(0, lo)}…` : '';
}

interface Block<T> {
  text: string;
  tokens: number;
  data: T;
  truncated?: boolean;
}

/**
 * Packs blocks into the budget in order: whole blocks while they fit; the first block that
 * does not fit is cut (its maker is asked again with the room left) when nothing was packed
 * yet, so an answer is never empty because one chunk is large.
 */
function pack<T>(head: string, makers: Array<(room: number) => Block<T> | undefined>, maxTokens: number, counter: TokenCounter): { text: string; tokens: number; blocks: Array<Block<T>> } {
  let tokens = head ? counter.count(head) : 0;
  const parts: string[] = head ? [head] : [];
  const blocks: Array<Block<T>> = [];
  for (const make of makers) {
    const room = maxTokens - tokens;
    let b = make(Number.POSITIVE_INFINITY);
    if (b && b.tokens > room) b = blocks.length ? undefined : make(room);
    if (!b || b.tokens > room) break;
    parts.push(b.text);
    tokens += b.tokens;
    blocks.push(b);
  }
  return { text: parts.join('\n\n'), tokens, blocks };
}

/** A titled, fenced block, cut to whole lines when it exceeds `room`. */
function fencedBlock<T>(title: string, body: string, lang: string, room: number, counter: TokenCounter, data: (text: string, truncated: boolean) => T): Block<T> | undefined {
  const full = `${title}\n${fence(body, lang)}`;
  const tokens = counter.count(full);
  if (tokens <= room) return { text: full, tokens, data: data(body, false) };
  const cut = cutToTokens(body, room - counter.count(`${title}\n${fence('', lang)}\n(cut to the budget)`), counter);
  if (!cut) {
    // not one line of the body fits: the title alone (where it is and what), never nothing
    const bare = `${title}\n(its text left out by the budget)`;
    const t = counter.count(bare);
    return t <= room ? { text: bare, tokens: t, data: data('', true), truncated: true } : undefined;
  }
  const text = `${title}\n${fence(cut, lang)}\n(cut to the budget)`;
  return { text, tokens: counter.count(text), data: data(cut, true), truncated: true };
}

function hitBlock(folders: AgentFolder[], root: string, h: SearchHit, rank: number, counter: TokenCounter, room: number, cache: SourceCache = new Map()): Block<z.infer<typeof hit>> | undefined {
  const c = h.chunk;
  const title = `## ${rank}. ${shownPath(folders, root, c.path)}:${c.start.line}-${c.end.line} · ${c.kind}${c.symbol ? ` ${c.symbol}` : ''}${c.split ? ` [part ${c.split.index + 1}/${c.split.total}]` : ''}\nwhy: ${whyWords(h.why, h.score)}`;
  const body = leadingIndent(folders.find((f) => f.root === root), c.path, c.start, c.text, cache) + c.text;
  return fencedBlock(title, body, FENCE_LANG[c.language] ?? '', room, counter, (text, truncated) => hitData(root, h, truncated, text));
}

function hitData(root: string, h: SearchHit, truncated: boolean, text?: string): z.infer<typeof hit> {
  const c = h.chunk;
  return {
    folder: root,
    path: c.path,
    startLine: c.start.line,
    endLine: c.end.line,
    kind: c.kind,
    symbol: c.symbol ?? null,
    language: c.language,
    header: c.header,
    text: text ?? c.text,
    score: h.score,
    why: h.why,
    ...(truncated ? { truncated: true } : {}),
  };
}

/** "Still indexing" / keyword-only notes that every answer starts with when they apply. */
function stateNote(folders: AgentFolder[]): string {
  const notes: string[] = [];
  for (const f of folders) {
    const s = f.state();
    const name = folders.length > 1 ? `${path.basename(s.root)}: ` : '';
    if (s.indexing?.phase === 'load') notes.push(`${name}still loading the stored index: this answer covers what is loaded so far.`);
    else if (s.indexing) notes.push(`${name}still indexing (${s.indexing.filesDone}/${s.indexing.filesTotal || '?'} files): this answer covers what is indexed so far.`);
  }
  return notes.join('\n');
}

/** Folders whose keyword-only reason an answer has given already: said once, then `status` has it. */
const keywordOnlyTold = new WeakSet<AgentFolder>();

/** The keyword-only explanation, in the first answer of a folder only (status always has it). */
function keywordOnlyNote(folders: AgentFolder[]): string {
  const f = folders.find((x) => x.state().keywordOnlyReason && !keywordOnlyTold.has(x));
  if (!f) return '';
  for (const x of folders) keywordOnlyTold.add(x);
  return `keyword-only (${f.state().keywordOnlyReason}); said once, \`status\` repeats it.`;
}

/** The notes were left out after all: the next answer says it. */
function forgetKeywordOnly(folders: AgentFolder[]): void {
  for (const x of folders) keywordOnlyTold.delete(x);
}

async function rankedHits(folders: AgentFolder[], query: string, run: (f: AgentFolder, depth: number) => Promise<SearchHit[]>, depth: number): Promise<Array<{ root: string; hit: SearchHit }>> {
  const lists: SearchHit[][] = [];
  for (const f of folders) lists.push(relativeScores(await run(f, depth)));
  const weights = folderWeights(query, lists.map((l) => l[0]?.chunk));
  const all: Array<{ root: string; hit: SearchHit }> = [];
  folders.forEach((f, i) => {
    for (const h of lists[i]) all.push({ root: f.root, hit: weights[i] === 1 ? h : { ...h, score: h.score * weights[i] } });
  });
  if (folders.length > 1) all.sort((a, b) => b.hit.score - a.hit.score);
  return all.slice(0, depth);
}

/** The power of a folder's query coverage in its weight (folderWeights). */
const FOLDER_COVERAGE_POWER = 2;

/**
 * With several folders, each folder's scores (relative to its own best: SCORE_SCALE) are
 * weighed by how much of the query its best hit holds: (the share of the query's terms in that
 * hit's text and path / the largest share among the folders)^FOLDER_COVERAGE_POWER. Without
 * it every folder's best hit scored 1, so the folders took turns at the top whatever they hold.
 * Measured with `bench/agent.ts --pairs` (its trees two at a time as one workspace; recall@5 over
 * the first 5 files, tuning / held-out half): each task asked of its own folder alone 0.501 /
 * 0.477; of both, by relative score 0.394 / 0.328, weighed so 0.444 / 0.383. The power was chosen
 * on the tuning half with a scratch harness over the file ranking: 1 → 0.423, 2 → 0.429,
 * 3 → 0.431 (terms weighed by their idf: 0.438; not kept).
 */
export function folderWeights(query: string, bests: Array<Chunk | undefined>): number[] {
  if (bests.length < 2) return bests.map(() => 1);
  const q = analyzeQuery(query);
  const wanted = new Set(terms(q.text || q.raw));
  if (!wanted.size) return bests.map(() => 1);
  const cover = bests.map((c) => {
    if (!c) return 0;
    const have = new Set(terms(`${c.text} ${c.path}`));
    let n = 0;
    for (const t of wanted) if (have.has(t)) n++;
    return n / wanted.size;
  });
  const most = Math.max(...cover);
  return most > 0 ? cover.map((c) => (c / most) ** FOLDER_COVERAGE_POWER) : bests.map(() => 1);
}

/**
 * One score scale (SCORE_SCALE): each hit's score over the best of its ranking, so that 1 is
 * a folder's best hit whether one folder answers or several (a fused score of 0.016 and a
 * keyword score of 111 are not comparable; their ranks within their folder are).
 */
export function relativeScores(hits: SearchHit[]): SearchHit[] {
  const top = hits.reduce((m, h) => Math.max(m, h.score), 0);
  return hits.map((h) => ({ ...h, score: top > 0 ? h.score / top : 0 }));
}

function hitsAnswer(
  folders: AgentFolder[],
  ranked: Array<{ root: string; hit: SearchHit }>,
  offset: number,
  k: number,
  depth: number,
  maxTokens: number,
  head: string,
  fp: string,
  counter: TokenCounter,
): { text: string; structured: { hits: Array<z.infer<typeof hit>>; nextCursor?: string; tokens: number; maxTokens: number; note?: string } } {
  const page = ranked.slice(offset, offset + k);
  // room for the closing note with its cursor, so that the whole answer stays in the budget
  const reserve = counter.count(`(${page.length} more of this page left out by the ${maxTokens}-token budget: call again with cursor "${encodeCursor(fp, MAX_DEPTH)}")`) + 2;
  const cache: SourceCache = new Map();
  const makers = page.map((r, i) => (room: number) => hitBlock(folders, r.root, r.hit, offset + i + 1, counter, room, cache));
  let packed = pack(head, makers, Math.max(0, maxTokens - reserve), counter);
  if (!packed.blocks.length && page.length && head) {
    // the notes took the room of the first hit: the hit matters more
    packed = pack('', makers, Math.max(0, maxTokens - reserve), counter);
    forgetKeywordOnly(folders);
  }
  const count = packed.blocks.length;
  const shown = page.slice(0, count);
  const hits = packed.blocks.map((b) => b.data);
  const next = offset + count;
  const more = next < ranked.length || (ranked.length >= depth && depth < MAX_DEPTH);
  const nextCursor = count && more && next < MAX_DEPTH ? encodeCursor(fp, next) : undefined;
  let text = packed.text;
  let note: string | undefined;
  if (!shown.length) {
    note = page.length ? 'the first hit does not fit the token budget: raise maxTokens' : offset ? 'no more hits' : 'no hits';
    text = [head, note].filter(Boolean).join('\n\n');
  } else if (nextCursor) {
    const left = count < page.length ? `${page.length - count} more of this page left out by the ${maxTokens}-token budget` : 'more hits';
    note = `${left}: call again with cursor "${nextCursor}"`;
    text = `${text}\n\n(${note})`;
  }
  return { text, structured: { hits, nextCursor, tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

async function search(a: SearchArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  const mode = a.mode ?? 'hybrid';
  if (!['hybrid', 'keyword', 'dense', ...EXACT_MODES].includes(mode)) throw new ToolError(`unknown mode "${String(mode)}": use hybrid, keyword, dense, exact, identifier or regex`);
  if (!a.query.trim()) throw new ToolError('query is empty');
  if (mode === 'exact' || mode === 'identifier' || mode === 'regex') return searchExact(a, folders, counter, mode, checkedFilters(a, folders));
  if (mode === 'dense') {
    const without = folders.map((f) => f.state()).find((s) => s.keywordOnlyReason);
    if (without) throw new ToolError(`mode "dense" needs the embedding model, and ${without.root} has none (${without.keywordOnlyReason}): use hybrid or keyword`);
  }
  const filters = checkedFilters(a, folders);
  if ((a.detail ?? 'files') === 'files') return searchFiles(a, folders, counter, mode, filters);
  const k = a.k ?? 10;
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;
  const fp = fingerprint(['search', a.query, filters, mode]);
  const offset = decodeCursor(a.cursor, fp);
  const depth = Math.min(MAX_DEPTH, offset + k);
  const ranked = await rankedHits(folders, a.query, (f, d) => f.search(a.query, { k: d, mode, filters }), depth);
  const notes = [stateNote(folders), mode === 'hybrid' ? keywordOnlyNote(folders) : ''];
  const answer = hitsAnswer(folders, ranked, offset, k, depth, maxTokens, notes.filter(Boolean).join('\n'), fp, counter);
  return { text: answer.text, structured: answer.structured };
}

/**
 * The search filters, refused with the valid values when they can never match: a kind no
 * chunker makes, a language no indexed file has, a glob that does not compile or has an
 * unclosed `[` or `{` (a silent "no hits" would send the agent looking elsewhere).
 */
function checkedFilters(a: { glob?: string | string[]; language?: string | string[]; kind?: string | string[] }, folders: AgentFolder[]): { pathGlob?: string[]; language?: string[]; kind?: string[] } {
  // a glob list splits at commas outside braces: "src/*.{js,ts}" is one glob
  const globs = typeof a.glob === 'string' ? splitGlobList(a.glob) : list(a.glob);
  const filters = { pathGlob: globs?.length ? globs : undefined, language: list(a.language), kind: list(a.kind) };
  const badKinds = (filters.kind ?? []).filter((k) => !(CHUNK_KINDS as readonly string[]).includes(k));
  if (badKinds.length) throw new ToolError(`unknown kind ${badKinds.map((k) => JSON.stringify(k)).join(', ')}: the kinds are ${CHUNK_KINDS.join(', ')}`);
  if (filters.language) {
    const present = new Set<string>();
    for (const f of folders) for (const p of f.paths?.() ?? []) present.add(languageOf(p));
    const badLangs = filters.language.filter((l) => !present.has(l.toLowerCase()));
    // a folder that cannot list its files (the team index) is not second-guessed
    if (badLangs.length && present.size) throw new ToolError(`no indexed file is in language ${badLangs.map((l) => JSON.stringify(l)).join(', ')}: the languages here are ${[...present].sort().join(', ')}`);
  }
  for (const g of filters.pathGlob ?? []) {
    const problem = globProblem(g);
    if (problem) throw new ToolError(`invalid glob ${JSON.stringify(g)}: ${problem} (e.g. "src/**", "*.ts", "!**/*.test.ts", "src/*.{js,ts}")`);
  }
  return filters;
}

/** Excerpt lines under each of the first files: 2 for the first few, then 1. */
const excerptLines = (rank: number) => (rank <= 5 ? 2 : rank <= EXCERPT_FILES ? 1 : 0);
/** Other places of a file listed on its "also" line (files with excerpts only). */
const MORE_PLACES = 3;

/**
 * `detail: "files"`: the files the query points at (file-rank.ts), one line each —
 * `N. path:start-end · kind symbol` of its best place — with that place's best line(s) and the
 * file's other places under the first `EXCERPT_FILES` files, as many files as the budget holds.
 */
async function searchFiles(a: SearchArgs, folders: AgentFolder[], counter: TokenCounter, mode: 'hybrid' | 'keyword' | 'dense', filters: { pathGlob?: string[]; language?: string[]; kind?: string[] }): Promise<ToolAnswer> {
  const q = analyzeQuery(a.query);
  const k = a.k ?? DEFAULT_FILES;
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;
  const fp = fingerprint(['search-files', a.query, filters, mode]);
  const offset = decodeCursor(a.cursor, fp);
  const ranked: Array<{ root: string; file: RankedFile }> = [];
  // one file past the page: whether there are more
  const limit = Math.min(MAX_DEPTH, offset + k) + 1;
  const lists: RankedFile[][] = [];
  for (const f of folders) lists.push(await rankFiles(f, q, { mode, filters, limit }));
  // several folders: each weighed by how much of the query its best place holds (folderWeights)
  const weights = folderWeights(a.query, lists.map((l) => l[0]?.hits[0]?.chunk));
  folders.forEach((f, i) => {
    // one scale (SCORE_SCALE): relative to the folder's best file
    const top = lists[i].reduce((m, x) => Math.max(m, x.score), 0);
    for (const file of lists[i]) ranked.push({ root: f.root, file: { ...file, score: top > 0 ? (file.score / top) * weights[i] : 0 } });
  });
  if (folders.length > 1) ranked.sort((x, y) => y.file.score - x.file.score);
  const notes = [stateNote(folders), mode === 'hybrid' ? keywordOnlyNote(folders) : ''];
  if (q.text && q.text !== q.raw) notes.push(`searched: ${q.text}`);
  const head = notes.filter(Boolean).join('\n');
  const page = ranked.slice(offset, offset + k);
  const reserve = counter.count(`(more files: call again with cursor "${encodeCursor(fp, MAX_DEPTH)}")`) + 2;
  const room = Math.max(0, maxTokens - reserve);
  const parts: string[] = head ? [head, ''] : [];
  let tokens = head ? counter.count(head) : 0;
  const hits: Array<z.infer<typeof hit>> = [];
  for (let i = 0; i < page.length; i++) {
    const { root, file } = page[i];
    const rank = offset + i + 1;
    const best = file.hits[0];
    const c = best.chunk;
    const lines = excerptLines(rank) ? bestLines(c, q, excerptLines(rank)) : [];
    const more = excerptLines(rank) ? file.hits.slice(1, 1 + MORE_PLACES).map((h) => h.chunk) : [];
    const block = [
      `${rank}. ${shownPath(folders, root, c.path)}:${c.start.line}-${c.end.line} · ${c.kind}${c.symbol ? ` ${c.symbol}` : ''}${file.pathTerms.length && !best.why.fused ? ' (path)' : ''}`,
      ...lines.map((l) => `   ${l.line}: ${l.text}`),
      ...(more.length ? [`   also: ${more.map((m) => `${m.start.line}-${m.end.line}${m.symbol ? ` ${m.symbol}` : ''}`).join(', ')}`] : []),
    ].join('\n');
    let shownBlock = block;
    let t = counter.count(block);
    let shownLines = lines;
    let shownMore = more;
    if (tokens + t > room) {
      if (hits.length) break;
      // the first file must answer: its place line alone, then without the notes, then cut
      shownLines = [];
      shownMore = [];
      shownBlock = block.split('\n')[0];
      t = counter.count(shownBlock);
      if (tokens + t > room && head) {
        parts.length = 0;
        tokens = 0;
        forgetKeywordOnly(folders);
      }
      if (t > room) shownBlock = cutChars(shownBlock, room, counter);
      t = counter.count(shownBlock);
      if (!shownBlock || t > room) break;
    }
    tokens += t;
    parts.push(shownBlock);
    hits.push({
      ...hitData(root, best, shownLines.length < lines.length, shownLines.map((l) => l.text).join('\n')),
      score: file.score,
      lines: shownLines,
      ...(shownMore.length ? { more: shownMore.map((m) => ({ startLine: m.start.line, endLine: m.end.line, kind: m.kind, symbol: m.symbol ?? null })) } : {}),
      ...(file.pathTerms.length ? { pathMatch: file.pathTerms } : {}),
    });
  }
  const next = offset + hits.length;
  const nextCursor = hits.length && next < ranked.length && next < MAX_DEPTH ? encodeCursor(fp, next) : undefined;
  let text = parts.join('\n').trim();
  let note: string | undefined;
  if (!hits.length) {
    note = page.length ? 'the first file does not fit the token budget: raise maxTokens' : offset ? 'no more files' : 'no hits';
    text = [head, note].filter(Boolean).join('\n\n');
  } else if (nextCursor) {
    note = `more files: call again with cursor "${nextCursor}"`;
    text = `${text}\n\n(${note})`;
  }
  return { text, structured: { hits, nextCursor, tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

// --- paths -------------------------------------------------------------------------------------

/** The folder and folder-relative path of `p` (relative to a folder, or absolute); a ToolError outside every folder. */
export function resolvePath(folders: AgentFolder[], p: string): { folder: AgentFolder; rel: string } {
  const clean = p.trim().replace(/\\/g, '/');
  const inside = relativeIn;
  if (path.isAbsolute(clean)) {
    for (const f of folders) {
      const rel = inside(f.root, path.resolve(clean));
      if (rel) return { folder: f, rel };
    }
    throw new ToolError(`${p} is outside the open folder${folders.length > 1 ? 's' : ''} (${folders.map((f) => f.root).join(', ')})`);
  }
  // relative: to a folder; with several folders, a file that one of them has, or "<folder name>/<path>"
  const candidates: Array<{ folder: AgentFolder; rel: string }> = [];
  for (const f of folders) {
    const rel = inside(f.root, path.resolve(f.root, clean));
    if (rel) candidates.push({ folder: f, rel });
    const [first, ...rest] = clean.split('/');
    if (folders.length > 1 && first === path.basename(f.root) && rest.length) {
      const r2 = inside(f.root, path.resolve(f.root, rest.join('/')));
      if (r2) candidates.push({ folder: f, rel: r2 });
    }
  }
  if (!candidates.length) throw new ToolError(`${p} is outside the open folder${folders.length > 1 ? 's' : ''} (${folders.map((f) => f.root).join(', ')})`);
  const known = candidates.filter((c) => c.folder.chunksOf(c.rel) !== undefined);
  const holders = [...new Set(known.map((c) => c.folder))];
  if (holders.length > 1) {
    // a bare path that several folders hold: which one is the agent's to say, never a guess
    throw new ToolError(`${p} is in ${holders.length} open folders: give folder (one of ${holders.map((f) => JSON.stringify(path.basename(f.root))).join(', ')}), or write the path as ${holders.map((f) => `${path.basename(f.root)}/${known.find((c) => c.folder === f)!.rel}`).join(' or ')}`);
  }
  // with several folders done indexing, a path none holds is said so (not "not indexed in" the first of them)
  const candidateFolders = new Set(candidates.map((c) => c.folder));
  if (!known.length && candidateFolders.size > 1 && ![...candidateFolders].some((f) => f.state().indexing)) {
    throw new ToolError(`${p} is not indexed in any of the open folders (${[...candidateFolders].map((f) => f.root).join(', ')}): no such file, or ignored; \`files\` lists them`);
  }
  return known[0] ?? candidates[0];
}

function requireChunks(folder: AgentFolder, rel: string): Chunk[] {
  const chunks = folder.chunksOf(rel);
  if (chunks === undefined) {
    const s = folder.state();
    throw new ToolError(`${rel} is not indexed in ${folder.root}${s.indexing ? ' (yet: indexing is still running)' : ' (no such file, or ignored)'}`);
  }
  if (!chunks.length) {
    const skip = folder.skipOf(rel);
    throw new ToolError(`${rel} has no chunks${skip ? `: skipped, ${skip.reason} (${skip.detail})` : ''}`);
  }
  return chunks;
}

function lineCheck(rel: string, chunks: Chunk[], line: number): void {
  const last = Math.max(...chunks.map((c) => c.end.line));
  if (line > last) throw new ToolError(`line ${line} is past the last indexed line of ${rel} (${last})`);
}

async function similar(a: SimilarArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  const { folder, rel } = resolvePath(folders, a.path);
  const chunks = requireChunks(folder, rel);
  lineCheck(rel, chunks, a.line);
  const source = innermostAt(chunks, a.line);
  if (!source) throw new ToolError(`no chunk of ${rel} holds line ${a.line} (it is blank or between units)`);
  const k = a.k ?? 10;
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;
  const fp = fingerprint(['similar', folder.root, rel, a.line]);
  const offset = decodeCursor(a.cursor, fp);
  const depth = Math.min(MAX_DEPTH, offset + k);
  const hits = relativeScores(await folder.similar({ path: rel, line: a.line }, { k: depth })).map((h) => ({ root: folder.root, hit: h }));
  const head = [stateNote(folders), `like ${shownPath(folders, folder.root, rel)}:${source.start.line}-${source.end.line} · ${source.kind}${source.symbol ? ` ${source.symbol}` : ''}`].filter(Boolean).join('\n');
  const answer = hitsAnswer(folders, hits, offset, k, depth, maxTokens, head, fp, counter);
  return { text: answer.text, structured: { source: { path: rel, startLine: source.start.line, endLine: source.end.line, symbol: source.symbol ?? null }, ...answer.structured } };
}

// --- context -----------------------------------------------------------------------------------

function innermostAt(chunks: Chunk[], line: number): Chunk | undefined {
  let best: Chunk | undefined;
  for (const c of chunks) {
    if (c.start.line <= line && c.end.line >= line && (!best || c.end.offset - c.start.offset < best.end.offset - best.start.offset)) best = c;
  }
  return best;
}

/** The chunks of one unit cut into pieces (same symbol and kind, `split`), or just the chunk. */
function piecesOf(chunks: Chunk[], c: Chunk): Chunk[] {
  if (!c.split) return [c];
  const key = cutUnitKey(c);
  return chunks.filter((x) => x.split && cutUnitKey(x) === key);
}

/**
 * Text of chunks put back together in file order: overlaps (a section's nested code block)
 * once, the whitespace between them as line breaks and indentation (chunks are exact slices
 * and only whitespace lies outside them, so the text is the file's, up to blank-line spacing).
 */
export function stitch(parts: Chunk[]): { text: string; start: Chunk['start']; end: Chunk['end'] } {
  const sorted = [...parts].sort((a, b) => a.start.offset - b.start.offset);
  let text = '';
  let end = sorted[0].start;
  let endPos = sorted[0].end;
  for (const c of sorted) {
    if (c.end.offset <= end.offset && text) continue; // inside what is there already
    if (!text) text = c.text;
    else if (c.start.offset < end.offset) text += c.text.slice(end.offset - c.start.offset);
    else {
      const gap = c.start.line > end.line ? '\n'.repeat(c.start.line - end.line) + ' '.repeat(c.start.column) : ' '.repeat(Math.max(1, c.start.column - end.column));
      text += gap + c.text;
    }
    end = c.end;
    if (c.end.offset >= endPos.offset) endPos = c.end;
  }
  return { text, start: sorted[0].start, end: endPos };
}

/** Files read for `leadingIndent` within one answer (several units of one file read it once). */
type SourceCache = Map<string, string | undefined>;

/**
 * The whitespace in front of a unit's first line. A chunk's text starts at its first token (`def`,
 * `///`, `pub fn`), so a method's first line came without the indentation its other lines keep;
 * the block shows the lines as the file has them. '' when the unit starts its line, when code
 * precedes it there, or when the file cannot be read or no longer holds the text there.
 */
export function leadingIndent(f: AgentFolder | undefined, rel: string, start: Chunk['start'], text: string, cache: SourceCache): string {
  if (!start.column || !f?.readFile) return '';
  const key = `${f.root}\0${rel}`;
  if (!cache.has(key)) {
    const r = f.readFile(rel, MAX_READ_BYTES);
    cache.set(key, r.ok ? r.decoded.text : undefined);
  }
  const src = cache.get(key);
  const head = text.slice(0, 64);
  if (src === undefined || src.slice(start.offset, start.offset + head.length) !== head) return '';
  const prefix = src.slice(src.lastIndexOf('\n', start.offset - 1) + 1, start.offset);
  return /^[ \t]+$/.test(prefix) ? prefix : '';
}

interface ContextUnit {
  role: string;
  chunks: Chunk[];
}

function parentOf(chunks: Chunk[], c: Chunk): Chunk[] {
  if (c.kind === 'code-block') {
    const section = c.links?.section ? chunks.find((x) => x.id === c.links!.section) : undefined;
    return section ? piecesOf(chunks, section) : [];
  }
  let parent = c.parent;
  if (!parent && c.language === 'markdown' && c.symbol?.includes(' > ')) parent = c.symbol.slice(0, c.symbol.lastIndexOf(' > '));
  if (!parent && c.symbol?.includes('.') && c.language !== 'markdown' && c.language !== 'json') parent = c.symbol.slice(0, c.symbol.lastIndexOf('.'));
  if (!parent) return [];
  const own = chunks.filter((x) => x.symbol === parent && x.kind !== 'code-block');
  if (!own.length) return [];
  // a parent cut into pieces: the piece that opens it (signature, heading) is what helps
  const first = own.sort((a, b) => a.start.offset - b.start.offset)[0];
  return [first];
}

async function context(a: ContextArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  const { folder, rel } = resolvePath(folders, a.path);
  const chunks = requireChunks(folder, rel);
  const hasRange = a.startLine !== undefined || a.endLine !== undefined;
  if (a.line === undefined && !hasRange) throw new ToolError('give line, or startLine and endLine');
  if (a.line !== undefined && hasRange) throw new ToolError('give line or startLine/endLine, not both');
  const startLine = a.line ?? a.startLine ?? a.endLine!;
  const endLine = a.line ?? a.endLine ?? a.startLine!;
  if (endLine < startLine) throw new ToolError(`endLine ${endLine} is before startLine ${startLine}`);
  lineCheck(rel, chunks, startLine);
  const window = a.window ?? 1;
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;

  // the enclosing units: innermost chunk per line of the range, then whole (all its pieces)
  const outer = chunks.filter((c) => c.kind !== 'code-block');
  let hitChunks: Chunk[];
  if (startLine === endLine) {
    const c = innermostAt(chunks, startLine);
    // a code block's own chunk: the unit is its section (which reassembles it with its code)
    hitChunks = c ? [c.kind === 'code-block' && c.links?.section ? (chunks.find((x) => x.id === c.links!.section) ?? c) : c] : [];
  } else hitChunks = outer.filter((c) => c.start.line <= endLine && c.end.line >= startLine);
  if (!hitChunks.length) {
    // a blank line between units: the nearest unit after it, else before it
    const after = outer.find((c) => c.start.line > endLine);
    const before = [...outer].reverse().find((c) => c.end.line < startLine);
    const near = after ?? before;
    if (!near) throw new ToolError(`no chunk of ${rel} is near line ${startLine}`);
    hitChunks = [near];
  }
  const unitChunks = [...new Set(hitChunks.flatMap((c) => piecesOf(chunks, c)))];
  const units: ContextUnit[] = [];
  const unitText = stitch(unitChunks.concat(unitChunks.flatMap((c) => (c.links?.codeBlocks ?? []).map((id) => chunks.find((x) => x.id === id)).filter((x): x is Chunk => !!x))));
  units.push({ role: 'unit', chunks: unitChunks });
  const used = new Set(unitChunks.map((c) => c.id));
  const parent = parentOf(chunks, hitChunks[0]).filter((c) => !used.has(c.id));
  if (parent.length) units.push({ role: 'parent', chunks: parent });
  for (const c of parent) used.add(c.id);
  // neighbours: the units before and after, in file order (code-block chunks are inside sections)
  const order = outer.filter((c) => !c.split || c.split.index === 0 || used.has(c.id));
  const firstAt = order.findIndex((c) => used.has(c.id) && unitChunks.includes(c));
  const lastAt = order.length - 1 - [...order].reverse().findIndex((c) => unitChunks.includes(c));
  const before = firstAt >= 0 ? order.slice(Math.max(0, firstAt - window), firstAt).filter((c) => !used.has(c.id)) : [];
  const after = firstAt >= 0 ? order.slice(lastAt + 1, lastAt + 1 + window).filter((c) => !used.has(c.id)) : [];
  for (const c of before) units.push({ role: 'before', chunks: piecesOf(chunks, c) });
  for (const c of after) units.push({ role: 'after', chunks: piecesOf(chunks, c) });

  const shown = shownPath(folders, folder.root, rel);
  const lang = FENCE_LANG[hitChunks[0].language] ?? '';
  const cache: SourceCache = new Map();
  const blockOf = (u: ContextUnit) => (room: number) => {
    const st = u.role === 'unit' ? unitText : stitch(u.chunks);
    const c = u.chunks[0];
    const title = `## ${u.role}: ${shown}:${st.start.line}-${st.end.line} · ${c.kind}${c.symbol ? ` ${c.symbol}` : ''}`;
    return fencedBlock(title, leadingIndent(folder, rel, st.start, st.text, cache) + st.text, lang, room, counter, (text, truncated): z.infer<typeof unit> => ({
      role: u.role,
      path: rel,
      startLine: st.start.line,
      endLine: st.end.line,
      kind: c.kind,
      symbol: c.symbol ?? null,
      text,
      ...(truncated ? { truncated: true } : {}),
    }));
  };
  // the unit first (cut if it must), then parent and neighbours while they fit
  const reserve = counter.count(`(${units.length} more unit(s) (${units.map((u) => u.role).join(', ')}) left out by the ${maxTokens}-token budget)`) + 2;
  const packed = pack(stateNote(folders), units.map(blockOf), Math.max(0, maxTokens - reserve), counter);
  let text = packed.text;
  let note: string | undefined;
  const count = packed.blocks.length;
  if (count < units.length) {
    note = `${units.length - count} more unit(s) (${units.slice(count).map((u) => u.role).join(', ')}) left out by the ${maxTokens}-token budget`;
    text = `${text}\n\n(${note})`;
  }
  return { text, structured: { folder: folder.root, path: rel, units: packed.blocks.map((b) => b.data), tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

// --- i18n ---------------------------------------------------------------------------------------

/** The source locale among a key's locales: `en`, else the template `und`, else an `en-*`. */
function sourceLocale(c: Candidate): string | undefined {
  const names = c.locales.map((l) => l.locale);
  return names.find((l) => l === 'en') ?? names.find((l) => l === 'und') ?? names.filter((l) => l.startsWith('en-')).sort()[0];
}

type CandidateData = z.infer<typeof outputShapes.i18n.candidates>[number];

/**
 * One key's block: its heading, then locale lines (the matched and source locales first, then
 * the others), then its usages, as many lines as `room` holds — a key is cut, never dropped for
 * its size; what was left out is said on its last line.
 */
function candidateBlock(folders: AgentFolder[], root: string, c: Candidate, room: number, counter: TokenCounter): Block<CandidateData> | undefined {
  const head = `## ${c.key} · ${c.match}${c.match === 'key' ? '' : ` ${c.score.toFixed(2)}`}${c.matched ? ` (${c.matched.locale}: "${c.matched.value}")` : ''}${c.app ? ` · app ${c.app}` : ''}${c.component ? ` · component ${c.component}` : ''}`;
  const src = sourceLocale(c);
  const rank = (l: Candidate['locales'][number]) => (l.locale === c.matched?.locale ? 0 : l.locale === src ? 1 : 2);
  const locales = c.locales.map((l, i) => ({ l, i })).sort((x, y) => rank(x.l) - rank(y.l) || x.i - y.i).map((x) => x.l);
  const lines: Array<{ text: string; locale?: Candidate['locales'][number]; usage?: Candidate['usages'][number] }> = [
    ...locales.map((l) => ({ text: `- ${l.locale}: ${JSON.stringify(l.value)}  ${shownPath(folders, root, l.file)}:${l.range.start.line}`, locale: l })),
    ...c.usages.map((u) => ({ text: `- used: ${shownPath(folders, root, u.file)}:${u.range.start.line}  ${u.via}${u.dynamic ? ` (dynamic, prefix "${u.key}")` : ''}`, usage: u })),
  ];
  if (!c.usages.length) lines.push({ text: '- used: nowhere found' });
  let tokens = counter.count(head);
  const kept: typeof lines = [];
  const leftNote = (n: number) => `- (${n} more line(s) of this key left out by the budget: the locales filter or a larger maxTokens shows them)`;
  for (let i = 0; i < lines.length; i++) {
    const t = counter.count(lines[i].text);
    const rest = lines.length - i - 1;
    const tail = rest ? counter.count(leftNote(rest)) : 0;
    if (tokens + t + tail > room) break;
    tokens += t;
    kept.push(lines[i]);
  }
  const left = lines.length - kept.length;
  const text = [head, ...kept.map((l) => l.text), ...(left ? [leftNote(left)] : [])].join('\n');
  const total = counter.count(text);
  if (total > room && kept.length === 0) {
    if (counter.count(head) > room) return undefined;
    return { text: head, tokens: counter.count(head), data: candidateData(root, c, [], []), truncated: true };
  }
  return {
    text,
    tokens: total,
    data: candidateData(root, c, kept.flatMap((l) => (l.locale ? [l.locale] : [])), kept.flatMap((l) => (l.usage ? [l.usage] : []))),
    ...(left ? { truncated: true } : {}),
  };
}

function candidateData(root: string, c: Candidate, locales: Candidate['locales'], usages: Candidate['usages']): CandidateData {
  return {
    folder: root,
    key: c.key,
    match: c.match,
    score: c.score,
    locales: locales.map((l) => ({ locale: l.locale, file: l.file, line: l.range.start.line, value: l.value })),
    usages: usages.map((u) => ({ file: u.file, line: u.range.start.line, via: u.via, dynamic: u.dynamic })),
    ...(locales.length < c.locales.length || usages.length < c.usages.length ? { truncated: true } : {}),
  };
}

async function i18n(a: I18nArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  if ((a.text === undefined) === (a.key === undefined)) throw new ToolError('give text (a displayed string) or key, one of the two');
  const limit = a.k ?? 10;
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;
  const wanted = list(a.locales)?.map((l) => l.toLowerCase());
  const from = a.fromFile !== undefined ? resolvePath(folders, a.fromFile) : undefined;
  const results: Array<{ root: string; r: LookupResult }> = [];
  for (const f of from ? [from.folder] : folders) {
    const ask = a.key !== undefined ? { op: 'key' as const, key: a.key, fromFile: from?.rel, limit } : { op: 'string' as const, text: a.text!, fromFile: from?.rel, limit };
    results.push({ root: f.root, r: await f.i18n(ask) });
  }
  let all = results.flatMap(({ root, r }) => r.candidates.map((c) => ({ root, c }))).sort((x, y) => y.c.score - x.c.score).slice(0, limit);
  if (wanted) {
    const known = new Set(all.flatMap(({ c }) => c.locales.map((l) => l.locale.toLowerCase())));
    const unknown = wanted.filter((l) => !known.has(l));
    if (all.length && unknown.length === wanted.length) throw new ToolError(`no matching key has locale ${unknown.map((l) => JSON.stringify(l)).join(', ')}: its locales are ${[...known].sort().join(', ')}`);
    all = all.map(({ root, c }) => ({ root, c: { ...c, locales: c.locales.filter((l) => wanted.includes(l.locale.toLowerCase())) } }));
  }
  const problems = results.flatMap(({ r }) => r.problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.kind}: ${p.message}`));
  const semantic = results.map(({ r }) => r.semanticUnavailable).find(Boolean);
  const head = [stateNote(folders), all.length ? '' : `no key found for ${a.key !== undefined ? `key ${a.key}` : JSON.stringify(a.text)}${semantic ? ` (${semantic})` : ''}`].filter(Boolean).join('\n');
  const reserve = counter.count(`(${all.length} more key(s) left out by the ${maxTokens}-token budget)`) + 2;
  const packed = pack(
    head,
    all.map(({ root, c }) => (room: number) => candidateBlock(folders, root, c, room, counter)),
    Math.max(0, maxTokens - reserve),
    counter,
  );
  let text = packed.text;
  if (problems.length) {
    const p = `problems in locale files: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (+${problems.length - 5})` : ''}`;
    if (counter.count(p) + packed.tokens + reserve <= maxTokens) text = `${text}\n\n${p}`;
  }
  const kept = packed.blocks.length;
  const candidates = packed.blocks.map((b) => b.data);
  const note = kept < all.length ? `${all.length - kept} more key(s) left out by the ${maxTokens}-token budget` : undefined;
  if (note) text = `${text}\n\n(${note})`;
  return { text, structured: { candidates, problems, tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

// --- exact matches: search modes exact / identifier / regex, references, definitions ------------

/** Matching lines shown under a file (search) and at most under one file (references). */
const EXACT_LINES = 3;
const REFERENCE_LINES = 30;

/** The watcher's reported changes applied first (search, similar and i18n do this inside the folder). */
async function refreshed(folders: AgentFolder[]): Promise<void> {
  for (const f of folders) await f.refresh?.();
}

/** Every chunk of a folder, or a ToolError when the host cannot list them. */
function chunksOfFolder(f: AgentFolder): Iterable<Chunk> {
  if (!f.allChunks) throw new ToolError(`${f.root} cannot be scanned for exact matches here (its index lists no chunks): use mode hybrid or keyword`);
  return f.allChunks();
}

function scanFolders(folders: AgentFolder[], mode: ExactMode, pattern: string, accept: (p: string) => boolean, chunkOk?: (c: Chunk) => boolean): Array<{ root: string; file: FileMatches }> {
  const out: Array<{ root: string; file: FileMatches }> = [];
  for (const f of folders) {
    let files: FileMatches[];
    try {
      files = scanChunks(chunksOfFolder(f), mode, pattern, { accept, chunkOk });
    } catch (err) {
      if (err instanceof PatternError) throw new ToolError(err.message);
      throw err;
    }
    for (const file of files) out.push({ root: f.root, file });
  }
  return out;
}

/** A chunk that may hold the line defining `name`: named so, a member's chunk holding its cut container's declaration, or a C typedef of that name (`definitionLines` takes one line per unit: a later piece of a unit only uses the name, a docstring's example, a field typed by it). */
const isDefinitionOf = (c: Chunk, name: string) => !!c.symbol && !PROSE_KINDS.has(c.kind) && (symbolNames(c.symbol).includes(name) || holdsDeclarationOf(c, name) || typedefName(c) === name);

/** The unit a chunk is a piece of, in its file: a split unit's pieces, or a cut container's own fragments, are one. */
const unitKey = (c: Chunk) => (c.kind === 'fragment' ? `f\0${c.symbol}` : c.split ? `s\0${c.symbol}\0${c.split.total}` : `c\0${c.id}`);

/** A member's chunk that a cut container's declaration joined (`X.first` opening with `class X … {`): it holds X's definition line. */
function holdsDeclarationOf(c: Chunk, name: string): boolean {
  const dot = c.symbol ? c.symbol.lastIndexOf('.') : -1;
  if (dot <= 0 || !symbolNames(c.symbol!.slice(0, dot)).includes(name)) return false;
  return !!declaredKind(c.text, name);
}

/** A line that is a comment (`//`, `#`, `/*`, ` * `, `--`, a docstring's quotes): a doc comment naming the unit is not its definition. */
const COMMENT_LINE = /^\s*(?:\/\/|#|\/\*|\*|--|"""|''')/;

/** The lines that define `name`: in a unit named so, the first of its lines that holds the name, past its doc comment. */
function definitionLines(file: FileMatches, name: string, symbolOk: (symbol: string) => boolean = () => true): Set<number> {
  const first = new Map<string, number>();
  const firstCode = new Map<string, number>();
  // one line per unit: its first line holding the name that is code (else its first), whichever piece holds it
  for (const m of [...file.lines].sort((a, b) => a.line - b.line)) {
    if (!isDefinitionOf(m.chunk, name) || !symbolOk(m.chunk.symbol!)) continue;
    const key = unitKey(m.chunk);
    if (!first.has(key)) first.set(key, m.line);
    if (!firstCode.has(key) && !COMMENT_LINE.test(m.text)) firstCode.set(key, m.line);
  }
  return new Set([...first.keys()].map((id) => firstCode.get(id) ?? first.get(id)!));
}

/**
 * Files with their matching lines, one block each (`N. path:line · kind symbol (n lines)`, then
 * up to `perFile` lines), as many files as the budget holds; nextCursor pages by file.
 */
function linesAnswer(
  folders: AgentFolder[],
  found: Array<{ root: string; file: FileMatches }>,
  opts: { offset: number; k: number; maxTokens: number; head: string; fp: string; perFile: number; none: string; mark?: (m: FileMatches['lines'][number]) => string },
  counter: TokenCounter,
): ToolAnswer {
  const { offset, k, maxTokens, fp, perFile } = opts;
  const page = found.slice(offset, offset + k);
  const reserve = counter.count(`(more files: call again with cursor "${encodeCursor(fp, MAX_DEPTH)}")`) + 2;
  const room = Math.max(0, maxTokens - reserve);
  const parts: string[] = opts.head ? [opts.head, ''] : [];
  let tokens = opts.head ? counter.count(opts.head) + 1 : 0;
  const hits: Array<z.infer<typeof hit>> = [];
  for (let i = 0; i < page.length; i++) {
    const { root, file } = page[i];
    const first = file.lines[0];
    const c = first.chunk;
    const title = `${offset + i + 1}. ${shownPath(folders, root, file.path)}:${first.line} · ${c.kind}${c.symbol ? ` ${c.symbol}` : ''} (${file.lines.length} matching line${file.lines.length === 1 ? '' : 's'})`;
    const lineText = (m: FileMatches['lines'][number]) => `   ${m.line}: ${m.text.trim().slice(0, 300)}${opts.mark?.(m) ?? ''}`;
    let shown = file.lines.slice(0, perFile);
    const blockOf = (ls: typeof shown) => {
      const rest = file.lines.length - ls.length;
      return [title, ...ls.map(lineText), ...(rest ? [`   also lines: ${file.lines.slice(ls.length, ls.length + 12).map((m) => m.line).join(', ')}${rest > 12 ? ` (+${rest - 12})` : ''}`] : [])].join('\n');
    };
    let block = blockOf(shown);
    let t = counter.count(block);
    while (tokens + t > room && shown.length) {
      shown = shown.slice(0, hits.length ? 0 : shown.length - 1);
      block = blockOf(shown);
      t = counter.count(block);
      if (hits.length) break;
    }
    if (tokens + t > room) {
      if (hits.length) break;
      block = cutChars(title, Math.max(0, room - tokens), counter);
      t = counter.count(block);
      if (!block) break;
    }
    tokens += t;
    parts.push(block);
    hits.push({
      folder: root,
      path: file.path,
      startLine: first.line,
      endLine: file.lines[file.lines.length - 1].line,
      kind: c.kind,
      symbol: c.symbol ?? null,
      language: c.language,
      header: c.header,
      text: shown.map((m) => m.text).join('\n'),
      score: 1,
      why: { fused: 1 },
      lines: shown.map((m) => ({ line: m.line, text: m.text })),
      ...(shown.length < file.lines.length ? { truncated: true } : {}),
    });
  }
  const next = offset + hits.length;
  const nextCursor = hits.length && next < found.length && next < MAX_DEPTH ? encodeCursor(fp, next) : undefined;
  let text = parts.join('\n').trim();
  let note: string | undefined;
  if (!hits.length) {
    note = page.length ? 'the first file does not fit the token budget: raise maxTokens' : offset ? 'no more files' : opts.none;
    text = [opts.head, note].filter(Boolean).join('\n\n');
  } else if (nextCursor) {
    note = `${found.length - next} more file(s): call again with cursor "${nextCursor}"`;
    text = `${text}\n\n(${note})`;
  }
  return { text, structured: { hits, nextCursor, tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

/** Search modes exact / identifier / regex: the files whose lines hold the query, "no match" when none. */
async function searchExact(a: SearchArgs, folders: AgentFolder[], counter: TokenCounter, mode: ExactMode, filters: { pathGlob?: string[]; language?: string[]; kind?: string[] }): Promise<ToolAnswer> {
  await refreshed(folders);
  const pattern = mode === 'regex' ? a.query : a.query.trim();
  const langs = filters.language?.map((l) => l.toLowerCase());
  const chunkOk = (c: Chunk) => (!langs || langs.includes(c.language)) && (!filters.kind || filters.kind.includes(c.kind));
  const found = scanFolders(folders, mode, pattern, pathFilter(filters.pathGlob), filters.language || filters.kind ? chunkOk : undefined);
  // the files that define it first (an identifier), then those that hold it most, then by path
  const defines = (x: FileMatches) => (mode === 'identifier' && definitionLines(x, pattern).size ? 1 : 0);
  found.sort((x, y) => defines(y.file) - defines(x.file) || y.file.lines.length - x.file.lines.length || x.file.path.localeCompare(y.file.path));
  const fp = fingerprint(['search-exact', a.query, filters, mode]);
  const offset = decodeCursor(a.cursor, fp);
  const what = mode === 'regex' ? `regex ${JSON.stringify(pattern)}` : `${mode === 'exact' ? 'text' : 'identifier'} ${JSON.stringify(pattern)}`;
  const head = [stateNote(folders), found.length ? `${found.length} file(s) hold ${what}` : ''].filter(Boolean).join('\n');
  return linesAnswer(folders, found, { offset, k: a.k ?? DEFAULT_FILES, maxTokens: a.maxTokens ?? DEFAULT_MAX_TOKENS, head, fp, perFile: EXACT_LINES, none: `no match: no indexed line holds ${what}` }, counter);
}

/** Every line holding the symbol as a whole identifier, by file; its definitions marked. */
async function references(a: ReferencesArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  await refreshed(folders);
  const name = a.symbol.trim();
  const filters = checkedFilters({ glob: a.glob }, folders);
  // a qualified symbol (Map.zoomIn, Arg::new) is used by its last name (`map.zoomIn()` does not
  // name the type); its definition is the member of that type, and the lines that write the
  // type with it (`Arg::new(`) put their files first
  const asked = askedNames(name);
  const used = asked.leaf;
  const owner = /^[\w$]+[!?]?$/.test(used) ? asked.names[asked.names.length - 1].split('.').slice(-2, -1)[0] : undefined;
  const ownerOk = (symbol: string) => !owner || asked.names.some((n) => symbol === n || symbol.endsWith(`.${n}`));
  const written = owner ? new RegExp(`${wholeName(owner)}\\s*(?:::|\\.|->|#)\\s*${wholeName(used)}`) : undefined;
  const found = scanFolders(folders, 'identifier', used, pathFilter(filters.pathGlob));
  const defs = new Map(found.map((x) => [x.file, definitionLines(x.file, used, ownerOk)]));
  const members: DefinitionMatch = { name: used, nameOk: (symbol) => !!symbol && symbolNames(symbol).includes(used) && ownerOk(symbol), kindOk: (kind) => !PROSE_KINDS.has(kind) && kind !== 'fragment' };
  await memberDefinitionLines(folders, found, members, defs);
  const lineDefs = new Map<FileMatches['lines'][number], boolean>();
  for (const [file, lines] of defs) for (const m of file.lines) if (lines.has(m.line)) lineDefs.set(m, true);
  const isDef = (m: FileMatches['lines'][number]) => lineDefs.has(m);
  const qualified = new Map(found.map((x) => [x.file, written ? x.file.lines.filter((m) => written.test(m.text)).length : 0]));
  // the files that define it first, then those that write it with its type, then those that use it most
  found.sort((x, y) => (defs.get(y.file)!.size ? 1 : 0) - (defs.get(x.file)!.size ? 1 : 0) || qualified.get(y.file)! - qualified.get(x.file)! || y.file.lines.length - x.file.lines.length || x.file.path.localeCompare(y.file.path));
  const fp = fingerprint(['references', name, filters]);
  const offset = decodeCursor(a.cursor, fp);
  const total = found.reduce((n, x) => n + x.file.lines.length, 0);
  const head = [stateNote(folders), found.length ? `${total} line(s) in ${found.length} file(s) hold ${JSON.stringify(used)} as a whole identifier` : ''].filter(Boolean).join('\n');
  return linesAnswer(
    folders,
    found,
    { offset, k: MAX_DEPTH, maxTokens: a.maxTokens ?? DEFAULT_MAX_TOKENS, head, fp, perFile: REFERENCE_LINES, none: `no match: no indexed line holds ${JSON.stringify(used)} as a whole identifier`, mark: (m) => (isDef(m) ? '  (definition)' : '') },
    counter,
  );
}

/** `name` as a whole identifier in a regex: not inside a longer one (Ruby's `renew!` and `active?` end with their mark). */
const wholeName = (name: string) => `(?<![\\w$])${escapeRegExp(name)}(?![\\w$!?])`;

/**
 * Whether a line may declare `name` (a code line, not a use of it): `name(…) {`, `name(…):`, `def name`,
 * `fn name`, `func (r) name`, `function name`, `name: function`, `name = (…) =>`, `const name =`,
 * `NAME = 3` at a line's start … A cheap test before
 * a file is parsed again: a use (`new Compiler(`, `x.run()`) is not one.
 */
export function mayDefine(line: string, name: string): boolean {
  if (COMMENT_LINE.test(line)) return false;
  const n = wholeName(name);
  return (
    new RegExp(`\\b(?:def|fn|fun|func|function|sub|class|struct|interface|trait|enum|type)\\s+(?:\\([^)]*\\)\\s*|self\\.)?${n}`).test(line) ||
    // modifiers and a return type in front (`public static int name(…) {`, `async name() {`), then the parameters and a body
    new RegExp(`^\\s*(?:[\\w<>\\[\\],.*&?:@]+\\s+)*\\*?\\s*${n}\\s*(?:<[^>]*>)?\\s*\\([^;]*(?:\\{|:|=>)\\s*$`).test(line) ||
    new RegExp(`^\\s*['"]?${n}['"]?\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\(|\\w+\\s*=>)`).test(line) ||
    // a constant or variable: `const TTL = …`, `var retries int`, `MAX_RETRIES = 3`, `MAX: int = 3`, a Go block's `\tA = iota`
    new RegExp(`\\b(?:const|let|var)\\s+${n}`).test(line) ||
    new RegExp(`^\\s*${n}\\s*(?::[^=]*)?=(?![=>])`).test(line) ||
    // a Go block's spec with no value (`\tStateBusy` after an iota) or with a type (`\tretries int`)
    new RegExp(`^\\t${n}(?:\\s+[\\w.*[\\]]+)?\\s*(?://.*)?$`).test(line)
  );
}

/** The names of a group of small siblings: `X.{a, b}` → `X.a`, `X.b`. */
function groupNames(symbol: string | undefined): string[] {
  const m = symbol ? /^(.*?)\{([^{}]+)\}$/.exec(symbol) : null;
  return m ? m[2].split(',').map((n) => `${m[1]}${n.trim()}`) : [];
}

/** Most files parsed again in one `references` call for the members of whole units that define the name. */
const MAX_REFERENCE_PARSES = 50;

/**
 * A member of a whole unit (a small class is one chunk: its methods have none of their own)
 * defines the name too: the files whose containers hold a line that may declare it, with no
 * definition found among their chunks, are parsed again as `definitions` does
 * (`memberDefinitions`), and each unit found adds its first code line holding the name to `defs`.
 */
async function memberDefinitionLines(folders: AgentFolder[], found: Array<{ root: string; file: FileMatches }>, match: DefinitionMatch, defs: Map<FileMatches, Set<number>>): Promise<void> {
  const todo = found.filter((x) => !defs.get(x.file)!.size && x.file.lines.some((m) => MEMBER_HOLDERS.has(m.chunk.kind) && mayDefine(m.text, match.name))).slice(0, MAX_REFERENCE_PARSES);
  for (const f of folders) {
    const mine = new Map(todo.filter((x) => x.root === f.root).map((x) => [x.file.path, x.file]));
    if (!mine.size || !f.readFile) continue;
    const holders = new Map([...mine].map(([p, file]) => [p, [...new Set(file.lines.map((m) => m.chunk))].filter((c) => MEMBER_HOLDERS.has(c.kind))]));
    const units: Definition[] = [];
    await memberDefinitions(f, [...mine.keys()], holders, match, units);
    for (const d of units) {
      const file = mine.get(d.path)!;
      const inside = file.lines.filter((m) => m.line >= d.startLine && m.line <= d.endLine).sort((a, b) => a.line - b.line);
      const line = inside.find((m) => !COMMENT_LINE.test(m.text)) ?? inside[0];
      if (line) defs.get(file)!.add(line.line);
    }
  }
}

/** Chunk kinds that are prose or data, never a symbol's definition. */
const PROSE_KINDS = new Set<string>(['section', 'code-block', 'front-matter', 'text', 'i18n-block', 'i18n-section', 'i18n-labels', 'json', 'manifest']);

/** A member found inside a whole unit is re-parsed at this chunk budget (tokens), so the chunkers cut the unit into its members. */
const MEMBER_BUDGET = 48;
/** Kinds of chunk that hold units of their own (a class's methods, a group of small functions, a Vue script's methods): only these are parsed again for members; a function's chunk merely using the name is not. */
const MEMBER_HOLDERS = new Set<string>(['class', 'struct', 'impl', 'trait', 'interface', 'namespace', 'object', 'module', 'group', 'enum', 'type', 'fragment', 'template', 'script']);
/** Most files re-parsed for members in one call (the rest are said). */
const MAX_MEMBER_FILES = 200;

interface Definition {
  folder: AgentFolder;
  path: string;
  language: string;
  kind: string;
  symbol: string;
  startLine: number;
  endLine: number;
  text: string;
  /** Where `text` starts in the file (its first line's indentation is shown from there). */
  start?: Chunk['start'];
}

/**
 * The units named exactly `symbol` (or whose last name is it), each whole: the chunks named so,
 * and members of whole units (a small class is one chunk: its methods have no chunk of their
 * own) found by parsing again, with the same chunkers at a small budget, the files whose units
 * hold the name.
 */
async function definitions(a: DefinitionsArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  await refreshed(folders);
  const name = a.symbol.trim();
  const filters = checkedFilters({ glob: a.glob, kind: a.kind }, folders);
  const accept = pathFilter(filters.pathGlob);
  const asked = askedNames(name);
  const match: DefinitionMatch = {
    name: asked.leaf,
    kindOk: (kind) => !PROSE_KINDS.has(kind) && kind !== 'fragment' && (!filters.kind || filters.kind.includes(kind)),
    // the name, its last segment, or its tail of whole segments (`Logger.log` names `Monolog.Logger.log`)
    nameOk: (symbol) => !!symbol && asked.names.some((n) => symbol === n || symbol.endsWith(`.${n}`) || symbolNames(symbol).includes(n)),
  };
  const defs: Definition[] = [];
  const notes: string[] = [];
  for (const f of folders) {
    const holders = indexedDefinitions(f, match, accept, defs);
    const paths = [...holders.keys()].sort();
    if (paths.length > MAX_MEMBER_FILES) notes.push(`${paths.length - MAX_MEMBER_FILES} file(s) holding the name were not searched for members (over ${MAX_MEMBER_FILES})`);
    if (f.readFile && paths.length) await memberDefinitions(f, paths.slice(0, MAX_MEMBER_FILES), holders, match, defs);
  }
  // the exact full name first, then by path and line
  const exact = (d: Definition) => (asked.names.includes(d.symbol) ? 0 : 1);
  defs.sort((x, y) => exact(x) - exact(y) || x.path.localeCompare(y.path) || x.startLine - y.startLine);
  return definitionsAnswer(defs, name, [stateNote(folders), ...notes].filter(Boolean).join('\n'), folders, a.k ?? 10, a.maxTokens ?? DEFAULT_MAX_TOKENS, counter);
}

/**
 * The names a symbol asked for answers to. Units are named `Type.member` whatever the language
 * writes (`Arg::new` in Rust, `Foo#bar` in Ruby docs, `$obj->m` and `Monolog\Logger` in PHP,
 * `(*Engine).ServeHTTP` in Go): those separators read as a dot. A qualifier of modules or
 * packages (`clap::Command`, `jinja2.Environment`, `std::fs::read_to_string`: lowercase segments
 * in front) names no unit, so the name without it answers too; a type's (`Arg.new`) is kept.
 * `leaf`: the last segment, what a unit's text holds.
 */
export function askedNames(asked: string): { names: string[]; leaf: string } {
  // Go's method expression `(*Engine).ServeHTTP` / `(Engine).ServeHTTP`: the type's name
  const dotted = asked.replace(/^\(\s*\*?\s*([\w.]+)\s*\)\./, '$1.').replace(/::|->|#|\\/g, '.').replace(/^\.+|\.+$/g, '');
  const names = new Set([asked, dotted]);
  const parts = dotted.split('.').filter(Boolean);
  while (parts.length > 1 && /^[a-z_][\w$]*$/.test(parts[0])) {
    parts.shift();
    names.add(parts.join('.'));
  }
  return { names: [...names].filter(Boolean), leaf: parts[parts.length - 1] ?? asked };
}

/** The name asked for (its last segment: what holders' text must contain), and which units' symbols and kinds answer it. */
interface DefinitionMatch {
  name: string;
  nameOk: (symbol: string | undefined) => boolean;
  kindOk: (kind: string) => boolean;
}

/** The units the index holds under the name (whole, its pieces stitched), added to `defs`; returns the files whose containers (classes …) hold the name, with those chunks, to look for members in. */
function indexedDefinitions(f: AgentFolder, match: DefinitionMatch, accept: (path: string) => boolean, defs: Definition[]): Map<string, Chunk[]> {
  const seen = new Set<string>();
  const holders = new Map<string, Chunk[]>();
  // files with a container that was cut into its members (its own lines are fragments named by it)
  const split = new Set<string>();
  for (const c of chunksOfFolder(f)) {
    if (PROSE_KINDS.has(c.kind) || !accept(c.path)) continue;
    if (splitContainerOf(c, match)) split.add(c.path);
    if ((unitNames(c).some(match.nameOk) || match.nameOk(typedefName(c))) && match.kindOk(c.kind)) {
      const pieces = piecesOf(f.chunksOf(c.path) ?? [c], c);
      const key = `${c.path}\0${pieces[0].id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const st = stitch(pieces);
      defs.push({ folder: f, path: c.path, language: c.language, kind: c.kind, symbol: c.symbol!, startLine: st.start.line, endLine: st.end.line, text: st.text, start: st.start });
    } else if (MEMBER_HOLDERS.has(c.kind) && c.text.includes(match.name) && hasIdentifier(c.text, match.name)) {
      let list = holders.get(c.path);
      if (!list) holders.set(c.path, (list = []));
      list.push(c);
    }
  }
  for (const p of [...split].sort()) splitContainers(f, p, match, defs);
  return holders;
}

/** The name a C typedef gives the type it defines (`typedef struct hashtable { … } hashtable_t;`: hashtable_t), which the code uses more than its tag. */
function typedefName(c: Chunk): string | undefined {
  if ((c.language !== 'c' && c.language !== 'cpp') || !/^(?:struct|union|enum|class)$/.test(c.kind) || !/^\s*typedef\b/m.test(c.text.slice(0, 2000))) return undefined;
  return /\}\s*(\w+)\s*;\s*$/.exec(c.text)?.[1];
}

/** The container named as asked that chunk `c` is a piece of, when it was cut: a fragment named by it (its own lines), or a member `X.y` (X asked). */
function splitContainerOf(c: Chunk, match: DefinitionMatch): string | undefined {
  if (!c.symbol) return undefined;
  if (c.kind === 'fragment') return match.nameOk(c.symbol) ? c.symbol : undefined;
  const dot = c.symbol.lastIndexOf('.');
  return dot > 0 && match.nameOk(c.symbol.slice(0, dot)) ? c.symbol.slice(0, dot) : undefined;
}

/**
 * A container too large for one chunk is cut into its members' chunks (`X.method` …) and its own
 * leftover lines (declaration, docstring, fields: fragments named `X`, or the declaration joined
 * to the first member's chunk). Its definition: from its first to its last piece, shown by its
 * own head (the declaration and what follows it up to the first member).
 */
function splitContainers(f: AgentFolder, p: string, match: DefinitionMatch, defs: Definition[], parsed?: { chunks: Chunk[]; source: string }): void {
  const chunks = (parsed?.chunks ?? f.chunksOf(p) ?? []).filter((c) => !PROSE_KINDS.has(c.kind) && c.symbol);
  const names = new Set(chunks.map((c) => splitContainerOf(c, match)).filter((n): n is string => !!n));
  for (const symbol of names) {
    // a unit named so that is whole already is listed (by the caller)
    if (defs.some((d) => d.folder === f && d.path === p && d.symbol === symbol)) continue;
    const own = chunks.filter((c) => c.kind === 'fragment' && c.symbol === symbol);
    const members = chunks.filter((c) => c.kind !== 'fragment' && c.symbol!.startsWith(`${symbol}.`));
    const pieces = [...own, ...members].sort((a, b) => a.start.offset - b.start.offset);
    if (!pieces.length) continue;
    const first = pieces[0];
    const last = pieces.reduce((m, c) => (c.end.offset > m.end.offset ? c : m));
    // the head: its own lines from the first piece up to its first member (the first piece itself when the declaration joined a member)
    const headEnd = own.includes(first) ? pieces.findIndex((c) => !own.includes(c)) : 1;
    const head = stitch(pieces.slice(0, headEnd < 0 ? pieces.length : headEnd));
    const declared = declaredKind(head.text, symbol.slice(symbol.lastIndexOf('.') + 1));
    // a declaration joined to a member: only when the member's chunk holds it (else `X.y` may name an object's key, a namespace …)
    if (!own.length && !declared) continue;
    const kind = declared ?? 'class';
    if (!match.kindOk(kind)) continue;
    // cut only by parsing again at a small budget (it was within one chunk of the index): small, shown whole
    const text = parsed ? parsed.source.slice(first.start.offset, last.end.offset) : head.text;
    defs.push({ folder: f, path: p, language: first.language, kind, symbol, startLine: first.start.line, endLine: last.end.line, text, start: first.start });
  }
}

/**
 * Members named so inside the holders' files (chunked again at a small budget, so that a member is
 * a unit of its own, and with every declaration a unit: a one-line constant the index keeps as
 * module code, `MAX_RETRIES = 3`, is found too), added to `defs` unless listed already.
 */
async function memberDefinitions(f: AgentFolder, paths: string[], holders: Map<string, Chunk[]>, match: DefinitionMatch, defs: Definition[]): Promise<void> {
  await prepareLanguagesFor(paths);
  for (const p of paths) {
    const r = f.readFile!(p, MAX_READ_BYTES);
    if (!r.ok || r.decoded.text === undefined) continue;
    const text = r.decoded.text;
    const units = new Map<string, Chunk[]>();
    const parsed = chunkFile(p, text, { maxTokens: MEMBER_BUDGET, declarations: true }).chunks;
    for (const c of parsed) {
      // small siblings are grouped even at this budget (`{defaultPrefixMatching, defaultCommandSorting}`, two one-line constants): the group defines each
      if (!(match.nameOk(c.symbol) || (c.kind === 'group' && groupNames(c.symbol).some(match.nameOk))) || !match.kindOk(c.kind)) continue;
      let list = units.get(c.symbol!);
      if (!list) units.set(c.symbol!, (list = []));
      list.push(c);
    }
    for (const [symbol, pieces] of units) {
      const start = pieces.reduce((m, c) => (c.start.offset < m.start.offset ? c : m)).start;
      const end = pieces.reduce((m, c) => (c.end.offset > m.end.offset ? c : m)).end;
      // a unit the index names so already (a whole chunk of its own) is listed once
      if (defs.some((d) => d.folder === f && d.path === p && d.startLine <= start.line && d.endLine >= end.line && d.symbol === symbol)) continue;
      let body = text.slice(start.offset, end.offset);
      let endLine = end.line;
      // the last member's last piece runs to its container's end: its closing line is not the member's
      // (module code has no closing line: a Go `const ( … )` block found in it keeps its `)`)
      const container = holders.get(p)!.find((c) => c.kind !== 'module' && c.start.offset <= start.offset && c.end.offset === end.offset && c.symbol !== symbol);
      const lines = body.split('\n');
      if (container && lines.length > 2 && /^\s*(\}|\};|end|\)|\]);?\s*$/.test(lines[lines.length - 1])) {
        body = lines.slice(0, -1).join('\n');
        endLine--;
      }
      defs.push({ folder: f, path: p, language: pieces[0].language, kind: pieces[0].kind, symbol, startLine: start.line, endLine, text: body, start });
    }
    // a type inside one chunk of the index (a namespace of one small class) is cut at this budget too: found the same way
    splitContainers(f, p, match, defs, { chunks: parsed, source: text });
  }
}

/** The definitions as the answer gives them: fenced blocks within the token budget, what was left out said; "no match" when none. */
function definitionsAnswer(defs: Definition[], name: string, head: string, folders: AgentFolder[], k: number, maxTokens: number, counter: TokenCounter): ToolAnswer {
  if (!defs.length) {
    const note = `no match: no unit is named ${JSON.stringify(name)} (exact names only; search mode "identifier" finds the lines that hold it)`;
    const text = [head, note].filter(Boolean).join('\n\n');
    return { text, structured: { definitions: [], tokens: counter.count(text), maxTokens, note } };
  }
  const shownDefs = defs.slice(0, k);
  const reserve = counter.count(`(${defs.length} more definition(s) left out (k ${k}) by the ${maxTokens}-token budget)`) + 2;
  const cache: SourceCache = new Map();
  const makers = shownDefs.map((d) => (room: number) => {
    const title = `## ${shownPath(folders, d.folder.root, d.path)}:${d.startLine}-${d.endLine} · ${d.kind} ${d.symbol}`;
    return fencedBlock(title, (d.start ? leadingIndent(d.folder, d.path, d.start, d.text, cache) : '') + d.text, FENCE_LANG[d.language] ?? '', room, counter, (text, truncated) => ({ folder: d.folder.root, path: d.path, startLine: d.startLine, endLine: d.endLine, kind: d.kind, symbol: d.symbol, text, ...(truncated ? { truncated: true } : {}) }));
  });
  const packed = pack(head, makers, Math.max(0, maxTokens - reserve), counter);
  let text = packed.text;
  const left = defs.length - packed.blocks.length;
  const note = left ? `${left} more definition(s) left out${defs.length > k ? ` (k ${k})` : ''}${packed.blocks.length < shownDefs.length ? ` by the ${maxTokens}-token budget` : ''}` : undefined;
  if (note) text = `${text}\n\n(${note})`;
  return { text, structured: { definitions: packed.blocks.map((b) => b.data), tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

// --- read ----------------------------------------------------------------------------------------

/** Largest file `read` opens (bytes). */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

async function read(a: ReadArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  await refreshed(folders);
  const { folder, rel } = resolvePath(folders, a.path);
  if (folder.chunksOf(rel) === undefined) {
    throw new ToolError(`${rel} is not a file of ${folder.root}'s index${folder.state().indexing ? ' (yet: indexing is still running)' : ' (no such file, or ignored)'}: \`files\` lists them`);
  }
  if (!folder.readFile) throw new ToolError(`${folder.root} cannot read files here (its index holds no file contents): use \`context\``);
  const r = folder.readFile(rel, MAX_READ_BYTES);
  if (!r.ok) throw new ToolError(`${rel} was not read: ${r.detail}`);
  if (r.decoded.text === undefined) throw new ToolError(`${rel} is not text (${r.decoded.binary ?? 'binary'})`);
  const lines = r.decoded.text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const start = a.startLine ?? 1;
  const end = Math.min(a.endLine ?? total, total);
  if (start > total) throw new ToolError(`startLine ${start} is past the end of ${rel} (${total} line${total === 1 ? '' : 's'})`);
  if (a.endLine !== undefined && a.endLine < start) throw new ToolError(`endLine ${a.endLine} is before startLine ${start}`);
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;
  const shown = shownPath(folders, folder.root, rel);
  const lang = FENCE_LANG[languageOf(rel)] ?? '';
  const head = stateNote(folders);
  const wanted = lines.slice(start - 1, end);
  const titleOf = (last: number) => `## ${shown}:${start}-${last} (of ${total} lines)`;
  const tail = (from: number) => `(lines ${from}-${end} left out by the ${maxTokens}-token budget: call again with startLine ${from})`;
  const fixed = counter.count([head, titleOf(end), fence('', lang), tail(end)].filter(Boolean).join('\n')) + 4;
  let body = wanted.join('\n');
  let last = end;
  if (fixed + counter.count(body) > maxTokens) {
    const cut = cutToTokens(body, Math.max(0, maxTokens - fixed), counter);
    if (cut !== undefined) {
      body = cut;
      last = start + cut.split('\n').length - 1;
    } else {
      // not one whole line fits: the first line cut, marked
      body = cutChars(wanted[0], Math.max(1, maxTokens - fixed), counter);
      last = start;
    }
  }
  const parts = [head, `${titleOf(last)}\n${fence(body, lang)}`].filter(Boolean);
  const more = last < end ? last + 1 : undefined;
  const note = more ? tail(more).slice(1, -1) : body.endsWith('…') && last === start && wanted[0] !== body ? `line ${start} cut to the ${maxTokens}-token budget` : undefined;
  if (note) parts.push(`(${note})`);
  const text = parts.join('\n\n');
  return {
    text,
    structured: { folder: folder.root, path: rel, startLine: start, endLine: last, totalLines: total, text: body, ...(more ? { nextStartLine: more, truncated: true } : {}), tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) },
  };
}

// --- files ---------------------------------------------------------------------------------------

async function files(a: FilesArgs, folders: AgentFolder[], counter: TokenCounter): Promise<ToolAnswer> {
  await refreshed(folders);
  const filters = checkedFilters({ glob: a.glob }, folders);
  const accept = pathFilter(filters.pathGlob);
  const all: Array<{ root: string; path: string }> = [];
  for (const f of folders) {
    if (!f.paths) throw new ToolError(`${f.root} cannot list its files here`);
    for (const p of [...f.paths()].sort()) if (accept(p)) all.push({ root: f.root, path: p });
  }
  const maxTokens = a.maxTokens ?? DEFAULT_MAX_TOKENS;
  const fp = fingerprint(['files', filters, folders.map((f) => f.root)]);
  const offset = decodeCursor(a.cursor, fp, Number.MAX_SAFE_INTEGER);
  const head = [stateNote(folders), `${all.length} indexed file(s)${filters.pathGlob ? ` match ${filters.pathGlob.join(', ')}` : ''}${offset ? `; from #${offset + 1}` : ''}`].filter(Boolean).join('\n');
  const reserve = counter.count(`(${all.length} more file(s): call again with cursor "${encodeCursor(fp, all.length)}")`) + 2;
  let tokens = counter.count(head);
  const shown: typeof all = [];
  for (let i = offset; i < all.length; i++) {
    const line = shownPath(folders, all[i].root, all[i].path);
    const t = counter.count(line) + 1;
    if (tokens + t > maxTokens - reserve) break;
    tokens += t;
    shown.push(all[i]);
  }
  const next = offset + shown.length;
  const nextCursor = next < all.length && shown.length ? encodeCursor(fp, next) : undefined;
  let text = [head, shown.map((x) => shownPath(folders, x.root, x.path)).join('\n')].filter(Boolean).join('\n\n');
  let note: string | undefined;
  if (!all.length) note = filters.pathGlob ? 'no match: no indexed file matches the glob' : 'no indexed file yet';
  else if (nextCursor) note = `${all.length - next} more file(s): call again with cursor "${nextCursor}"`;
  else if (!shown.length) note = offset >= all.length ? 'no more files' : 'not one path fits the token budget: raise maxTokens';
  if (note) text = `${text}\n\n(${note})`;
  return { text, structured: { files: shown.map((x) => ({ folder: x.root, path: x.path })), total: all.length, nextCursor, tokens: counter.count(text), maxTokens, ...(note ? { note } : {}) } };
}

// --- status -------------------------------------------------------------------------------------

function statusLine(s: FolderState): string {
  const lines = [
    `${s.root}: ${s.files} files (${s.skipped} skipped), ${s.chunks} chunks, ${s.vectors} vectors${s.pendingVectors ? ` (${s.pendingVectors} to compute${s.embedding ? ', computing' : ''})` : ''}`,
    s.indexing ? `  indexing: ${s.indexing.phase} ${s.indexing.filesDone}/${s.indexing.filesTotal || '?'} files — answers cover what is indexed so far` : '  indexing: done',
    s.keywordOnlyReason ? `  keyword-only: ${s.keywordOnlyReason}` : '',
    s.model ? `  meaning: ${s.model}${s.companion ? `, with ${s.companion} beside it (a query in words is re-ranked by it)` : ''}` : '',
    `  store: ${s.store}`,
    `  edits: ${s.watching}${s.lastUpdate ? `, last applied ${s.lastUpdate}` : ''}`,
  ];
  return lines.filter(Boolean).join('\n');
}

function status(folders: AgentFolder[]): ToolAnswer {
  const states = folders.map((f) => f.state());
  return { text: states.map(statusLine).join('\n'), structured: { folders: states.map((s) => JSON.parse(JSON.stringify(s)) as FolderState) } };
}
