/**
 * `fathom` — the same core as the extension, from a terminal, with no `vscode` dependency.
 *
 *   fathom chunk <dir|file> [--json] [--stats] [--max-tokens N] [--max-file-kb N]
 *                           [--json-categories a,b,…]
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { chunkFile, decodeBytes, languageOf, prepareLanguagesFor, resolveOptions, type FileChunks, type ResolvedOptions } from './chunkers/index';
import { formatStats, StatsCollector } from './chunkers/stats';
import { CHUNK_KINDS, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS_HELP } from './chunkers/types';
import { createEmbedder, type Embedder, type EmbedderDtype } from './index/embedder';
import { isStaticModel, loadStaticModel } from './index/static-model';
import { threadsEmbed, type Engine, type IndexProgress, type SearchHit, type SearchMode } from './index/engine';
import type { FilterSpec } from './index/rank/fusion';
import { notRegularReason, walkFiles, type WalkedFile, type WalkProblem } from './workspace/files';
import { GlobError, globProblem, splitGlobList } from './workspace/glob';
import { readStoredModel, StoreLockedError, StoreWriteError } from './index/store';
import { TokenizerMissingError } from './tokenizer/wordpiece';
import { connectPg, isPgUrl, PgStoreError, pgStatus, pushFolder, redact, searchWithOverlay } from './index/pgstore';
import { FolderSession } from './service/session';
import { evaluate, formatReport } from './eval/evaluate';
import { mineGold, type GoldQuery } from './eval/mine';
import type { Candidate, LocaleValue, LookupResult } from './i18n/i18n-index';
import { orderLocales } from './editor/i18n';
import { formatHealth, healthExitCode } from './i18n/health';
import { loadI18nIndex } from './i18n/workspace';
import { defaultPoolSize, sharedChunkPool } from './service/chunk-pool';
import { version as fathomVersion } from '../package.json';
import { relativeIn } from './util/paths';
import { enginePaths } from './agent/folder';

const DEFAULT_MAX_FILE_KB = DEFAULT_MAX_FILE_BYTES / 1024;
/** `fathom index` names this many unreadable or non-regular files, then counts the rest. */
export const SKIP_LINES = 20;

const MODEL_HELP = `  --no-embed         keyword-only: load no embedding model
  --model-path DIR   a local model folder (or FATHOM_MODEL_PATH); default: the model the store was indexed with
  --model ID         the model's id (a Hub name, or a folder name under --model-path)
  --allow-download   may download the model from the Hugging Face Hub (cached in ~/.cache/fathom/models)
  --model-alone      a transformers.js model without Fathom's own beside it (by default Fathom's
                     model weighs, scores and re-ranks a query in words, the other model's ranking joins)`;

const SCORE_HELP = `  Each hit shows its relevance: 0-100, its score as a share of the best hit's score in this
  answer (the best is 100). --json also gives the raw "score" (search: the fused score, 0-1 where
  Fathom's own model took part (keyword and meaning scores combined; a query in words re-ranked
  by learned features, the best 1), else reciprocal-rank; similar: cosine similarity, or the keyword score when keyword-only) and "keywordOnly"
  (the reason, when no embedding model answered; with no hit, one {"noHits":true,"keywordOnly"} line).
  With no hit, the text output says so on stderr ("no results for …") and stdout stays empty.`;

/** Each command's own --help: its synopsis and its options. */
const HELP: Record<string, string> = {
  chunk: `Usage: fathom chunk <dir|file> [--json] [--stats] [--max-tokens N] [--max-file-kb N] [--json-categories a,b]

  --json             one JSON object per chunk per line; one {"skipped","reason"} line per skipped file
  --stats            per-language statistics and invariant checks (with --json: one JSON object)
  --max-tokens N     token budget per chunk, header included (default ${DEFAULT_MAX_TOKENS_HELP})
  --max-file-kb N    skip files larger than N KiB (default ${DEFAULT_MAX_FILE_KB})
  --json-categories  JSON categories to index (default schema,i18n,docs-meta,config,other;
                     also manifest, fixture)`,
  index: `Usage: fathom index <dir> [--store DIR|postgres://…] [--no-embed] [--model-path DIR] [--model ID] [--allow-download]

  --store DIR        where the index is kept (default <dir>/.fathom), or a postgres:// team index
${MODEL_HELP}
  The store records the model it was embedded with (id, folder, dimensions, file hash): later
  commands on it use that model unless told otherwise.`,
  search: `Usage: fathom search "<query>" [--dir DIR] [--store DIR|postgres://…] [--json] [--k 10] [--mode hybrid|keyword|dense] [--glob G] [--language L] [--kind K]

  --dir DIR          the folder (default .)
  --k N              hits at most (default 10)
  --mode M           hybrid (default), keyword or dense
  --glob G           only paths matching G (comma-separated; !G excludes)
  --language L       only these languages (comma-separated)
  --kind K           only these chunk kinds (comma-separated)
  --json             one JSON object per hit per line
${MODEL_HELP}

${SCORE_HELP}`,
  similar: `Usage: fathom similar <file>:<line> [--dir DIR] [--json] [--k 10]

  --dir DIR          the folder (default .)
  --k N              hits at most (default 10)
  --json             one JSON object per hit per line
${MODEL_HELP}

${SCORE_HELP}`,
  batch: `Usage: fathom batch --dir DIR --queries q.jsonl --out results.jsonl [--k 10] [--mode hybrid|keyword|dense]

  --queries FILE     one {"id","query"} object per line
  --out FILE         one {"id","results"} object per query per line
${MODEL_HELP}`,
  eval: `Usage: fathom eval <dir> [--gold gold.jsonl] [--json] [--write-gold FILE]

  --gold FILE        one {"query","file"} object per line (default: mined from the folder)
  --write-gold FILE  write the gold queries used
${MODEL_HELP}`,
  i18n: `Usage:
  fathom i18n "<string>" [--dir DIR] [--store DIR] [--json] [--k 10] [--from FILE] [--locales GLOB]… [--no-embed] [--model-path DIR]
  fathom i18n --key a.b.c [--dir DIR] [--store DIR] [--json] [--from FILE] [--locales GLOB]…
  fathom i18n --check [--dir DIR] [--json] [--locales GLOB]… [--functions NAME,…]

  A lookup lists each key with the matched and source locales first, then where it is used,
  then the other locales.
  --from FILE        rank keys used in or near FILE first
  --locales GLOB     the locale files (repeatable; default: found in the folder)
  --check            the health report: missing, unused, only in some translations, problems
  --functions NAME   more translation functions to read usages from`,
  mcp: `Usage: fathom mcp [--dir DIR]… [--store DIR] [--no-embed] [--model-path DIR] [--model ID] [--allow-download]

  Serves the agent tools over stdio (MCP). It answers at once, while the first index builds.
${MODEL_HELP}`,
  status: `Usage: fathom status --store postgres://… [--json]

  Says what a team index is: its schema version, how it searches (pgvector HNSW, int8 codes without pgvector, or keyword-only),
  its files, chunks and vectors, the server's version and whether pgvector is installed.
  --json             one JSON object`,
};

const USAGE = `Usage:
${Object.values(HELP)
  .flatMap((h) => h.split('\n').filter((l) => /^(Usage: )?\s*fathom /.test(l)))
  .map((l) => `  ${l.replace(/^Usage: /, '').trim()}`)
  .join('\n')}

Run fathom <command> --help for a command's options.`;

class UsageError extends Error {}
/** The folder's default store is a plain file: an expected failure (exit 1), not a usage error. */
class StoreFileError extends Error {}

/** The command being run, for the hint after a usage error (`run fathom <command> --help`). */
let currentCommand = '';

interface Args {
  command: string;
  positional: string[];
  flags: Map<string, string | true>;
  /** Every value of a repeatable flag (`--locales a --locales b`), in order. */
  lists: Map<string, string[]>;
}

const MODEL_FLAGS = ['--no-embed', '--model-path', '--model', '--allow-download', '--model-alone'];
const STORE_FLAGS = ['--store', ...MODEL_FLAGS];

/** Per command: its flags (`=` marks one that takes a value) and how many positional arguments. */
const COMMANDS: Record<string, { flags: string[]; positional: number }> = {
  chunk: { flags: ['--json', '--stats', '--max-tokens=', '--max-file-kb=', '--json-categories='], positional: 1 },
  index: { flags: STORE_FLAGS, positional: 1 },
  search: { flags: ['--dir=', '--json', '--k=', '--mode=', '--glob=', '--language=', '--kind=', ...STORE_FLAGS], positional: 1 },
  similar: { flags: ['--dir=', '--json', '--k=', ...STORE_FLAGS], positional: 1 },
  batch: { flags: ['--dir=', '--queries=', '--out=', '--k=', '--mode=', ...STORE_FLAGS], positional: 0 },
  eval: { flags: ['--gold=', '--json', '--write-gold=', ...STORE_FLAGS], positional: 1 },
  i18n: { flags: ['--dir=', '--json', '--k=', '--from=', '--locales=', '--key=', '--check', '--functions=', ...STORE_FLAGS], positional: 1 },
  mcp: { flags: ['--dir=', ...STORE_FLAGS], positional: 0 },
  status: { flags: ['--store=', '--json'], positional: 0 },
};
const VALUED = new Set(['--store', '--model-path', '--model']);

/**
 * Parses `argv` against the command's own flags: an unknown flag, a value given to a switch, a
 * missing value or a surplus argument is a UsageError (exit 2), never silently ignored.
 * `--` ends the flags (a query may start with `--`).
 */
function parseArgs(argv: string[]): Args {
  const [command = '', ...rest] = argv;
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  const dashes = rest.indexOf('--');
  const spec = COMMANDS[command];
  if (spec) currentCommand = command;
  if (rest.slice(0, dashes < 0 ? undefined : dashes).some((a) => a === '--help' || a === '-h')) return { command: 'help', positional: spec ? [command] : [], flags, lists };
  if (!spec) return { command, positional: rest, flags, lists };
  const valued = new Set(spec.flags.filter((f) => f.endsWith('=') || VALUED.has(f)).map((f) => f.replace(/=$/, '')));
  const switches = new Set(spec.flags.filter((f) => !f.endsWith('=') && !VALUED.has(f)));
  let onlyPositional = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (!onlyPositional && a === '--') {
      onlyPositional = true;
      continue;
    }
    if (!onlyPositional && a.startsWith('--')) {
      const eq = a.indexOf('=');
      const [k, v] = eq >= 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
      if (valued.has(k)) {
        const val = v ?? rest[++i];
        if (val === undefined) throw new UsageError(`${k} needs a value`);
        flags.set(k, val);
        lists.set(k, [...(lists.get(k) ?? []), val]);
      } else if (switches.has(k)) {
        if (v !== undefined) throw new UsageError(`${k} takes no value (got ${k}=${v})`);
        flags.set(k, true);
      } else throw new UsageError(`unknown option ${k} for fathom ${command}`);
    } else positional.push(a);
  }
  if (positional.length > spec.positional) {
    throw new UsageError(
      spec.positional === 0
        ? `fathom ${command} takes no argument besides its options (got ${JSON.stringify(positional[0])})`
        : `fathom ${command} takes ${spec.positional} argument (got ${positional.length}: ${positional.map((p) => JSON.stringify(p)).join(' ')}; quote a query of several words)`,
    );
  }
  return { command, positional, flags, lists };
}

/** A positive whole number written in decimal digits (`0x10`, `1e3`, `5.0`, `-1` are not). */
function intFlag(args: Args, name: string): number | undefined {
  const v = args.flags.get(name);
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^[0-9]+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive whole number, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * The lines of a JSON-lines file as objects: a byte-order mark at the start is dropped, blank
 * lines skipped, and a line that is not a JSON object (`null`, `[]`, `"x"`, broken JSON) is a
 * UsageError naming the file and line.
 */
function readJsonObjects(file: string): Array<{ line: number; value: Record<string, unknown> }> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const out: Array<{ line: number; value: Record<string, unknown> }> = [];
  for (const [i, l] of text.split(/\r?\n/).entries()) {
    if (!l.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch {
      throw new UsageError(`${file}:${i + 1} is not JSON`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError(`${file}:${i + 1} is not a JSON object (got ${l.trim().slice(0, 40)})`);
    out.push({ line: i + 1, value: v as Record<string, unknown> });
  }
  return out;
}

/**
 * Fails now, before any work, when `file` cannot be written: a missing or read-only folder, a
 * folder in its place. Leaves no file behind when there was none.
 */
function checkWritable(flag: string, file: string): void {
  const existed = fs.existsSync(file);
  try {
    if (existed && fs.statSync(file).isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    fs.closeSync(fs.openSync(file, 'a'));
    if (!existed) fs.rmSync(file, { force: true });
  } catch (err) {
    throw new UsageError(`${flag} ${file} cannot be written: ${(err as Error).message}`);
  }
}

/**
 * Text for a terminal: C0 and C1 control characters, DEL and the bidirectional overrides are
 * written as escapes, so workspace text (a chunk's symbol, a locale value, a file name) can
 * never move the cursor, set the title, write the clipboard (OSC 52) or break a line.
 */
export function escapeTerminal(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
const esc = escapeTerminal;

/** The documented `--json` chunk line: exactly these keys, in this order. */
function chunkLine(c: FileChunks['chunks'][number]): string {
  return JSON.stringify({
    path: c.path,
    language: c.language,
    kind: c.kind,
    symbol: c.symbol ?? null,
    header: c.header,
    text: c.text,
    start: c.start,
    end: c.end,
    tokens: c.tokens,
    complete: c.complete,
    split: c.split ?? null,
  });
}

/**
 * Reads a file that must be a regular file: opened without blocking (a FIFO swapped in after
 * the walk does not hang us), checked with fstat, read up to its size (a device that never
 * ends is never read) and at most `cap` bytes.
 */
function readRegularFile(abs: string, cap: number): Buffer {
  const fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(notRegularReason(st));
    const size = Math.min(st.size, cap + 1);
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === size ? buf : buf.subarray(0, off);
  } finally {
    fs.closeSync(fd);
  }
}

async function chunkCommand(args: Args): Promise<number> {
  const { target, stat } = chunkTarget(args);
  const opts = chunkOptions(args);
  const out = new ChunkPrinter(args.flags.has('--json'), args.flags.has('--stats'), opts.maxTokens);
  const problems: WalkProblem[] = [];
  const files = filesToChunk(target, stat, problems);
  for (const p of problems) await out.skip(p.rel, p.kind ?? 'unreadable', p.reason);
  await prepareLanguagesFor(files.map((f) => f.rel)); // tree-sitter grammars, only those needed
  for (const f of files) await chunkOneFile(f, opts, out);
  await out.finish();
  return 0;
}

/** `fathom chunk`'s folder or file, which must exist and be a folder or a regular file. */
function chunkTarget(args: Args): { target: string; stat: fs.Stats } {
  const target = args.positional[0];
  if (!target) throw new UsageError('fathom chunk: which folder or file?');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    throw new UsageError(`fathom chunk: ${target} does not exist`);
  }
  // never read a device, FIFO or socket: /dev/zero never ends, a FIFO blocks forever
  if (!stat.isDirectory() && !stat.isFile()) throw new UsageError(`fathom chunk: ${target} is ${notRegularReason(stat)}`);
  return { target, stat };
}

/** The chunk options from --max-tokens, --max-file-kb and --json-categories. */
function chunkOptions(args: Args): ResolvedOptions {
  const maxTokens = intFlag(args, '--max-tokens');
  const maxKb = intFlag(args, '--max-file-kb');
  const cats = args.flags.get('--json-categories');
  return resolveOptions({
    maxTokens,
    maxFileBytes: maxKb ? maxKb * 1024 : undefined,
    jsonCategories: typeof cats === 'string' ? cats.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
  });
}

/** The folder's files (what cannot be walked into `problems`), or the one file. */
function filesToChunk(target: string, stat: fs.Stats, problems: WalkProblem[]): WalkedFile[] {
  if (stat.isDirectory()) return walkFiles(target, problems);
  return [{ rel: relativeIn(process.cwd(), target) ?? path.basename(target), abs: path.resolve(target), size: stat.size, mtimeMs: stat.mtimeMs }];
}

/** Reads, decodes and chunks one file for `fathom chunk`; a file it cannot read is skipped, and said so. */
async function chunkOneFile(f: WalkedFile, opts: ResolvedOptions, out: ChunkPrinter): Promise<void> {
  if (f.size > opts.maxFileBytes) return out.skip(f.rel, 'too-large', `${f.size} bytes, over the ${opts.maxFileBytes}-byte cap`);
  let bytes: Buffer;
  try {
    bytes = readRegularFile(f.abs, opts.maxFileBytes);
  } catch (err) {
    return out.skip(f.rel, 'unreadable', (err as Error).message);
  }
  const decoded = decodeBytes(bytes);
  if (decoded.text === undefined) return out.skip(f.rel, 'binary', decoded.binary ?? 'binary');
  const result = chunkFile(f.rel, decoded.text, opts);
  if (decoded.replaced) result.warnings.push(`invalid UTF-8: decoded with ${decoded.replaced} replacement character(s)`);
  await out.file(f.rel, result, decoded.text);
}

/**
 * What `fathom chunk` writes on stdout: a line per chunk (--json: a JSON object), a line per
 * skipped file, or with --stats only the statistics at the end. Waits when stdout is full.
 */
class ChunkPrinter {
  private readonly stats: StatsCollector;

  constructor(
    private readonly json: boolean,
    private readonly wantStats: boolean,
    maxTokens: number,
  ) {
    this.stats = new StatsCollector(maxTokens);
  }

  private write(s: string): Promise<void> | undefined {
    if (!process.stdout.write(`${s}\n`)) return new Promise<void>((r) => process.stdout.once('drain', () => r()));
    return undefined;
  }

  async skip(rel: string, reason: string, detail: string): Promise<void> {
    this.stats.add({ path: rel, language: '', chunks: [], warnings: [], skipped: { reason: reason as never, detail } }, '');
    if (this.json && !this.wantStats) await this.write(JSON.stringify({ skipped: rel, reason: `${reason}: ${detail}` }));
    else if (!this.json && !this.wantStats) await this.write(`skipped ${esc(rel)}: ${reason} (${esc(detail)})`);
  }

  /** One file's chunks (or its skip), and its warnings on stderr; with --stats, only counted. */
  async file(rel: string, result: FileChunks, text: string): Promise<void> {
    if (this.wantStats) this.stats.add(result, text);
    if (result.skipped && !result.chunks.length) {
      if (!this.wantStats) await this.skip(rel, result.skipped.reason, result.skipped.detail);
      return;
    }
    if (this.wantStats) return;
    if (this.json) {
      for (const c of result.chunks) await this.write(chunkLine(c));
      return;
    }
    for (const c of result.chunks) {
      const split = c.split ? ` [${c.split.index + 1}/${c.split.total}]` : '';
      await this.write(`${esc(c.path)}:${c.start.line}-${c.end.line}  ${c.kind}${c.symbol ? ` ${esc(c.symbol)}` : ''}${split}  ${c.tokens} tok`);
    }
    for (const w of result.warnings) process.stderr.write(`warning ${esc(rel)}: ${esc(w)}\n`);
  }

  /** With --stats, the statistics (--json: one JSON object). */
  async finish(): Promise<void> {
    if (!this.wantStats) return;
    const st = this.stats.result();
    await this.write(this.json ? JSON.stringify(st) : formatStats(st));
  }
}

// ---------------------------------------------------------------------------------------------
// index, search, similar, batch

function strFlag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

function modeFlag(args: Args): SearchMode {
  const m = strFlag(args, '--mode') ?? 'hybrid';
  if (m !== 'hybrid' && m !== 'keyword' && m !== 'dense') throw new UsageError(`--mode must be hybrid, keyword or dense, got ${m}`);
  return m;
}

/** How often a progress line is repeated when stderr is not a terminal (a log, a CI job): at least every 5 s, or at each 10% step. */
export const PROGRESS_EVERY_MS = 5000;
export const PROGRESS_STEP = 0.1;

/**
 * A progress line on stderr, redrawn in place on a terminal; otherwise a line when a phase
 * starts, then again every PROGRESS_EVERY_MS or PROGRESS_STEP of the phase, whichever comes
 * first, so a long embed in a log never goes quiet for minutes. Quiet when there is nothing to
 * wait for: the scan of an up-to-date index shows nothing unless it takes over half a second,
 * and `done` is only said after something else was.
 */
export function progressPrinter(write: (s: string) => void = (s) => process.stderr.write(s), tty = !!process.stderr.isTTY, now: () => number = Date.now): (p: IndexProgress) => void {
  const t0 = now();
  let lastPhase = '';
  let lastAt = 0;
  let lastShare = 0;
  let shown = false;
  return (p) => {
    if (p.phase === 'chunk' && now() - t0 < 500) return;
    if (p.phase === 'done' && !shown) return;
    shown = true;
    const eta = p.etaSeconds !== undefined && Number.isFinite(p.etaSeconds) ? `, ${Math.ceil(p.etaSeconds)} s left` : '';
    const line =
      p.phase === 'embed'
        ? `embedding ${p.chunksEmbedded}/${p.chunksToEmbed} chunks (${p.rate.toFixed(1)}/s${eta})`
        : p.phase === 'chunk'
          ? `indexing ${p.filesDone}/${p.filesTotal} files (${p.rate.toFixed(0)}/s${eta}${p.threads ? `, chunked on ${p.threads} thread${p.threads > 1 ? 's' : ''}` : ''})`
          : `done: ${p.filesTotal} files`;
    if (tty) {
      write(`\r\x1b[K${line}${p.phase === 'done' ? '\n' : ''}`);
      return;
    }
    const [done, total] = p.phase === 'embed' ? [p.chunksEmbedded, p.chunksToEmbed] : [p.filesDone, p.filesTotal];
    const share = total > 0 ? done / total : 0;
    const t = now();
    if (p.phase !== lastPhase || p.phase === 'done' || t - lastAt >= PROGRESS_EVERY_MS || share - lastShare >= PROGRESS_STEP - 1e-9) {
      write(`${line}\n`);
      lastAt = t;
      lastShare = p.phase !== lastPhase ? share : Math.floor(share / PROGRESS_STEP) * PROGRESS_STEP;
    }
    lastPhase = p.phase;
  };
}

/** A usage error unless `dir` is an existing folder. */
/**
 * A file named on the command line as a path of folder `dir`: relative to the current folder
 * when it exists there, else relative to `dir` (`fathom similar src/a.ts:3 --dir app` means
 * app/src/a.ts when there is no ./src/a.ts); a usage error when it lies outside `dir`.
 */
function fileInFolder(dir: string, file: string): string {
  const candidates = path.isAbsolute(file) ? [file] : [path.resolve(file), path.resolve(dir, file)];
  const existing = candidates.find((c) => fs.existsSync(c)) ?? candidates[candidates.length - 1];
  const rel = relativeIn(dir, existing);
  if (rel === undefined) throw new UsageError(`${file} is not inside ${dir}`);
  return rel;
}

function requireFolder(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new UsageError(`${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new UsageError(`${dir} is not a folder`);
}

/**
 * A model error as the CLI's user needs it: the embedder's message names the editor's setting
 * ("Allow downloads"); here the flags are named.
 */
export function withFlagHints(error: string): string {
  const out = error.replace(/Allow downloads, or point the local model folder at a copy of the model/, 'Add --allow-download, or give --model-path DIR holding a copy of the model');
  return /downloading is off/.test(out) && !out.includes('--allow-download') ? `${out.replace(/\.?$/, '')} (--allow-download may fetch it).` : out;
}

/** `sha256:<hex>` of the weights file of a loaded model, or undefined when it is not a local file. */
function weightsHash(folder: string, dtype: string): string | undefined {
  const file = path.join(folder, 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : dtype === 'fp32' ? 'model.onnx' : `model_${dtype}.onnx`);
  try {
    const h = crypto.createHash('sha256');
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(1 << 20);
      for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
    return `sha256:${h.digest('hex')}`;
  } catch {
    return undefined;
  }
}

type ModelChoice = { embedder: Embedder; modelSource?: { path?: string; hash?: string } } | { error: string };

const modelCache = () => process.env.FATHOM_MODEL_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'fathom', 'models');

/**
 * The embedder for a command: the one --model, --model-path (or FATHOM_MODEL_PATH) and
 * --allow-download ask for; when none of them is given and the store `storeDir` records the
 * model its vectors were embedded with, that one (the same folder, the same id, the same
 * weights), so a search after `fathom index --model-path M` is not silently keyword-only;
 * else the default model. Or why there is none, naming the flags that would give one.
 */
async function embedderFor(args: Args, storeDir?: string, reembed = false): Promise<ModelChoice> {
  const explicit = strFlag(args, '--model') ?? strFlag(args, '--model-path') ?? (process.env.FATHOM_MODEL_PATH || undefined);
  const stored = !explicit && storeDir ? readStoredModel(storeDir) : undefined;
  const said = stored ? `this index was embedded with ${stored.id}${stored.path ? ` from ${stored.path}` : ''}` : '';
  if (stored?.path && fs.existsSync(stored.path) && isStaticModel(stored.id)) {
    const r = loadStaticModel(stored.path);
    if ('error' in r) return { error: `${said}, which cannot be loaded now (${r.error}): give --model-path FILE (or --no-embed)` };
    if (r.embedder.id !== stored.id || r.embedder.dims !== stored.dims) return { error: `${said}, but that file now holds ${r.embedder.id}: run fathom index to embed again (or --no-embed)` };
    return { embedder: r.embedder, modelSource: { path: stored.path, hash: r.embedder.hash } };
  }
  if (stored?.path && fs.existsSync(stored.path)) {
    const [name, dtype, window] = stored.id.split(':');
    const root = stored.path.endsWith(`${path.sep}${name.split('/').join(path.sep)}`) ? stored.path.slice(0, -(name.length + 1)) : stored.path;
    const r = await createEmbedder({
      model: name,
      ...(dtype ? { dtype: dtype as EmbedderDtype } : {}),
      ...(window && /^\d+$/.test(window) ? { maxTokens: Number(window) } : {}),
      localModelPath: root,
      cacheDir: modelCache(),
      alone: args.flags.has('--model-alone'),
    });
    if ('error' in r) return { error: `${said}, which cannot be loaded now (${r.error}): give --model-path DIR (or --no-embed)` };
    const e = r.embedder;
    const hash = stored.hash ? weightsHash(e.source, e.dtype) : undefined;
    const differs = e.id !== stored.id || e.dims !== stored.dims ? `it loads as ${e.id} (${e.dims} dimensions), not ${stored.id} (${stored.dims})` : stored.hash && hash !== stored.hash ? 'its weights file changed since' : undefined;
    if (differs) {
      await e.dispose();
      return { error: `${said}, but ${differs}: delete the store and index again, or give --model-path DIR (or --no-embed)` };
    }
    return { embedder: e, modelSource: { path: stored.path, hash } };
  }
  const r = await createEmbedder({
    model: strFlag(args, '--model'),
    localModelPath: strFlag(args, '--model-path') ?? (process.env.FATHOM_MODEL_PATH || undefined),
    allowDownload: args.flags.has('--allow-download'),
    // downloaded models go to the user's cache, never into node_modules
    cacheDir: modelCache(),
    alone: args.flags.has('--model-alone'),
  });
  const gone = stored?.path ? ', which is not there any more' : '';
  if ('error' in r) return { error: stored ? `${said}${gone}: give --model-path DIR holding that model (or --no-embed)` : withFlagHints(r.error) };
  const e = r.embedder;
  const source = fs.existsSync(e.source) ? { path: path.resolve(e.source), hash: e.hash ?? weightsHash(e.source, e.dtype) } : undefined;
  // the default model is another one than the store's (its folder moved, or the default changed):
  // a command that only reads never re-embeds the whole store behind the user's back
  if (stored && !reembed && (e.id !== stored.id || e.dims !== stored.dims || (stored.hash && source?.hash && source.hash !== stored.hash))) {
    await e.dispose();
    return { error: `${said}${gone}, not with the default ${e.id}: give --model-path DIR holding that model, or run fathom index to embed again with ${e.id} (or --no-embed)` };
  }
  // recorded in the store: the next command on it loads this model without being told
  return { embedder: e, modelSource: source };
}

/**
 * The folder session of `dir` (src/service/session.ts, as the worker opens it): its store
 * loaded when it can be trusted (else rebuilt, saying why), brought up to date with the folder
 * incrementally, saved when it changed, and closed (lock released) before this returns; what
 * the command asks happens on the returned engine.
 */
async function openEngine(dir: string, args: Args, quiet = false, mustSave = false): Promise<{ engine: Engine; storeDir: string }> {
  requireFolder(dir);
  const storeFlag = strFlag(args, '--store');
  const storeDir = path.resolve(storeFlag ?? path.join(dir, '.fathom'));
  // a `.fathom` that is a plain file (no --store given): not a usage error; the folder is
  // answered from memory, saying so, and `index` (whose work is the saved store) fails plainly
  let storeIsFile: string | undefined;
  if (fs.existsSync(storeDir) && !fs.statSync(storeDir).isDirectory()) {
    if (storeFlag !== undefined) throw new UsageError(`--store ${storeDir} is a file, not a folder`);
    storeIsFile = `${storeDir} is a file, not a folder: the index of ${path.resolve(dir)} is not saved`;
    if (mustSave) throw new StoreFileError(`${storeIsFile} (move the file away, or give --store DIR)`);
  }
  const say = (m: string) => {
    if (!quiet) process.stderr.write(`${m}\n`);
  };
  // a batch process: a chunk thread per core (no editor's host to leave a core to)
  const chunkPool = sharedChunkPool({ size: defaultPoolSize(0), log: (level, m) => level !== 'info' && say(m) });
  // no store yet: a cold index, whose chunk threads start now, while the store, model and walk get ready
  if (storeIsFile || !fs.existsSync(storeDir) || fs.readdirSync(storeDir).length === 0) chunkPool.warm();
  let embedder: Embedder | undefined;
  let modelSource: { path?: string; hash?: string } | undefined;
  let noEmbedderReason: string | undefined = 'embedding is off (--no-embed)';
  if (!args.flags.has('--no-embed')) {
    const r = await embedderFor(args, storeDir, mustSave);
    if ('embedder' in r) ({ embedder, modelSource } = r);
    else {
      noEmbedderReason = r.error;
      // said once, here (on stderr); the answer itself says only "keyword-only"
      say(`keyword-only: ${r.error}`);
    }
  }
  // a cold index with Fathom's own model, when the chunk threads embed (engine.ts THREADS_EMBED_FROM):
  // they (warmed above) set it up while the walk runs
  if (embedder?.inThreads && chunkPool.started > 0 && threadsEmbed(chunkPool.size)) chunkPool.warm(embedder.inThreads);
  // A store that cannot be written (read-only mount, full disk) still loads: a command that
  // only reads answers from memory and says once that the index could not be saved.
  const session = await FolderSession.open(dir, { storeDir: storeIsFile ? undefined : storeDir, embedder, noEmbedderReason, modelSource, mustSave, chunkPool,
    // the could-not-save warning is said once, below
    log: (level, m) => (level === 'info' || m.startsWith('the index could not be saved') ? undefined : say(m.replace(/^rebuilding the index of .*?: /, 'rebuilding the index: '))),
  });
  try {
    const show = quiet ? () => undefined : progressPrinter();
    // the save at the end is the async one below (its writes overlap its serialization)
    // no i18n lookup tables: no command that opens the engine looks a string up (`fathom i18n`
    // builds them at its first lookup, and stores them)
    for await (const p of session.index({ saveAtEnd: !mustSave, i18nTables: false })) {
      show(p);
      // the files are all chunked: the chunk threads stop now, their teardown (a heap each)
      // going on while this thread saves, instead of at the process's exit; nothing later in
      // this process chunks (an index run after this one would chunk on this thread)
      if (p.phase === 'done') void chunkPool.close();
    }
    // locale files and the i18n text of the code using each key: what keyword ranking needs of i18n
    await session.searchableI18n();
    if (mustSave) await session.saveAsync({ throwOnError: true });
  } finally {
    await session.close();
  }
  if (session.cannotSave) process.stderr.write(`fathom: warning: the index could not be saved, answering from memory: ${session.cannotSave}\n`);
  if (storeIsFile) process.stderr.write(`fathom: warning: ${esc(storeIsFile)}, answering from memory\n`);
  return { engine: session.engine, storeDir };
}

/** The embedder the flags ask for, or none (keyword-only, saying why on stderr). */
async function optionalEmbedder(args: Args, quiet: boolean): Promise<Embedder | undefined> {
  if (args.flags.has('--no-embed')) return undefined;
  const r = await embedderFor(args);
  if ('embedder' in r) return r.embedder;
  if (!quiet) process.stderr.write(`keyword-only: ${r.error}\n`);
  return undefined;
}

/** `fathom index <dir> --store postgres://…`: pushes the folder into the shared team index. */
async function pushCommand(dir: string, url: string, args: Args): Promise<number> {
  requireFolder(dir);
  const t0 = Date.now();
  const embedder = await optionalEmbedder(args, false);
  const sql = await connectPg(url);
  try {
    const s = await pushFolder(sql, dir, { embedder });
    if (s.rebuilt) process.stderr.write(`rebuilt the remote index: ${s.rebuilt}\n`);
    if (s.rechunked) process.stderr.write(`chunked the remote index again: ${s.rechunked}\n`);
    for (const f of s.skippedFiles ?? []) process.stderr.write(`skipped ${f.path}: ${f.reason}\n`);
    process.stdout.write(
      `pushed ${s.written} changed files (${s.unchanged} unchanged, ${s.removed} removed), ${s.chunks} chunks written, ` +
        `${embedder ? `${s.embedded} embedded, ${s.reused} vectors reused` : 'keyword-only'} in ${((Date.now() - t0) / 1000).toFixed(1)} s; store ${redact(url)}\n`,
    );
  } finally {
    await sql.end();
    await embedder?.dispose();
  }
  return 0;
}

/** `fathom search --store postgres://…`: the team index, with the folder's unpushed edits overlaid. */
async function remoteSearchCommand(query: string, url: string, args: Args): Promise<number> {
  const dir = strFlag(args, '--dir') ?? '.';
  requireFolder(dir);
  const mode = modeFlag(args);
  const json = args.flags.has('--json');
  const embedder = await optionalEmbedder(args, json);
  if (mode === 'dense' && !embedder) throw new UsageError('--mode dense needs an embedding model');
  const sql = await connectPg(url);
  try {
    const { hits, dirty } = await searchWithOverlay(sql, dir, query, { k: intFlag(args, '--k') ?? 10, mode, embedder, filters: searchFilters(args) });
    if (dirty.length && !json) process.stderr.write(`${dirty.length} file(s) differ from the team index: searched from the folder\n`);
    printHits(hits, json, mode === 'keyword' ? '--mode keyword' : embedder ? undefined : args.flags.has('--no-embed') ? 'embedding is off (--no-embed)' : 'no embedding model', noResults(query, args));
  } finally {
    await sql.end();
    await embedder?.dispose();
  }
  return 0;
}

async function indexCommand(args: Args): Promise<number> {
  const dir = args.positional[0];
  if (!dir) throw new UsageError('fathom index: which folder?');
  const store = strFlag(args, '--store');
  if (isPgUrl(store)) return pushCommand(dir, store, args);
  const t0 = Date.now();
  const { engine, storeDir } = await openEngine(dir, args, false, true);
  const files = [...engine.files.values()];
  const skipped = files.filter((f) => f.skipped);
  process.stdout.write(
    `indexed ${files.length - skipped.length} files (${skipped.length} skipped), ${engine.chunkCount} chunks, ` +
      `${engine.vectors ? `${engine.vectors.count} vectors` : `keyword-only${args.flags.has('--no-embed') ? ' (--no-embed)' : ''}`} in ${((Date.now() - t0) / 1000).toFixed(1)} s; store ${storeDir}\n`,
  );
  // what the walk could not read or use (a file, a .gitignore pattern): named, not only counted
  // (the first SKIP_LINES of them: a folder of thousands of broken links gets a count, not a wall)
  const named = skipped.filter((f) => f.skipped!.reason === 'unreadable' || f.skipped!.reason === 'not-regular');
  for (const f of named.slice(0, SKIP_LINES)) process.stderr.write(`skipped ${esc(f.path)}: ${esc(f.skipped!.detail || f.skipped!.reason)}\n`);
  if (named.length > SKIP_LINES) process.stderr.write(`skipped ${named.length - SKIP_LINES} more files that could not be read or are not regular files (links, devices)\n`);
  await engine.embedder?.dispose();
  return 0;
}

/** Why the answer is keyword-only (no model, or `--mode keyword`), or undefined when a model took part. */
function keywordOnlyReason(engine: Engine, mode: SearchMode): string | undefined {
  if (mode === 'keyword') return '--mode keyword';
  return engine.vectors ? undefined : (engine.noEmbedderReason ?? 'no embedding model');
}

function hitLine(h: SearchHit): Record<string, unknown> {
  return { file: h.chunk.path, startLine: h.chunk.start.line, endLine: h.chunk.end.line, text: h.chunk.text, score: h.score };
}

/** A hit's relevance, 0-100: its score as a share of the best hit's score in the answer (the one scale `search` and `similar` print). */
export function relevance(score: number, best: number): number {
  return best > 0 && Number.isFinite(score) ? Math.max(0, Math.min(100, (100 * score) / best)) : 0;
}

/**
 * Prints the hits, text or one JSON line each. `keywordOnly` is why no embedding model
 * answered, when none did: the text output said it on stderr; each JSON line carries it. With
 * no hit the text output says `none` on stderr: an empty answer is said, not silent.
 */
function printHits(hits: SearchHit[], json: boolean, keywordOnly: string | undefined, none: string): void {
  // no hit, no hit line: the JSON output still says that the answer was keyword-only, and why
  if (json && hits.length === 0 && keywordOnly) process.stdout.write(`${JSON.stringify({ noHits: true, keywordOnly })}\n`);
  if (!json && hits.length === 0) process.stderr.write(`${none}\n`);
  const best = hits.reduce((m, h) => Math.max(m, h.score), 0);
  for (const [i, h] of hits.entries()) {
    const rel = relevance(h.score, best);
    if (json) {
      const where = (cs: SearchHit['alsoIn']) => cs?.map((c) => ({ file: c.path, startLine: c.start.line, endLine: c.end.line }));
      // the same key in other locales, and this file's chunks past the per-file cap (diversify.ts)
      const folded = { ...(h.alsoIn?.length ? { alsoIn: where(h.alsoIn) } : {}), ...(h.moreInFile?.length ? { moreInFile: where(h.moreInFile) } : {}) };
      process.stdout.write(`${JSON.stringify({ ...hitLine(h), relevance: Math.round(rel * 10) / 10, symbol: h.chunk.symbol ?? null, kind: h.chunk.kind, header: h.chunk.header, why: h.why, ...(keywordOnly ? { keywordOnly } : {}), ...folded })}\n`);
    } else {
      // the ranks in each list when both lists ranked it or it was re-ranked (else one list's rank is the order shown)
      const { keyword, dense, model, reranked, reranker, rankedBy } = h.why;
      const parts = [
        keyword && (dense || reranked) ? `keyword rank ${keyword}` : '',
        dense && (keyword || reranked) ? `meaning rank ${dense}${model ? ` by ${model}` : ''}` : '',
        reranked ? `re-ranked from place ${reranked}${reranker ? ` by ${reranker}` : !dense && model ? ` by ${model}` : ''}` : '',
        // a function cut in pieces, shown from its start: the piece that ranked it
        rankedBy ? `ranked by lines ${rankedBy.startLine}-${rankedBy.endLine}` : '',
      ].filter(Boolean);
      const why = parts.length ? `; ${parts.join(', ')}` : '';
      process.stdout.write(`${String(i + 1).padStart(2)}. ${esc(h.chunk.path)}:${h.chunk.start.line}-${h.chunk.end.line}  ${h.chunk.kind}${h.chunk.symbol ? ` ${esc(h.chunk.symbol)}` : ''}  (relevance ${rel.toFixed(0)}${why})\n`);
    }
  }
}

/**
 * --glob, --language and --kind as search filters, refused before any work when they can never
 * match what the user meant: a glob over the bounds or with a `[` / `{` never closed, a kind no
 * chunker makes (an unknown language is refused once the folder's languages are known).
 */
function searchFilters(args: Args): FilterSpec {
  const list = (name: string) => strFlag(args, name)?.split(',').map((x) => x.trim()).filter(Boolean);
  const globs = strFlag(args, '--glob') === undefined ? undefined : splitGlobList(strFlag(args, '--glob')!);
  for (const g of globs ?? []) {
    const problem = globProblem(g);
    if (problem) throw new UsageError(`--glob: ${problem} (in ${JSON.stringify(g.length > 80 ? `${g.slice(0, 60)}…` : g)})`);
  }
  const kind = list('--kind');
  const badKinds = (kind ?? []).filter((x) => !(CHUNK_KINDS as readonly string[]).includes(x));
  if (badKinds.length) throw new UsageError(`--kind: unknown kind ${badKinds.map((x) => JSON.stringify(x)).join(', ')}; the kinds are ${CHUNK_KINDS.join(', ')}`);
  return { pathGlob: globs?.length ? globs : undefined, language: list('--language'), kind };
}

/** What an empty answer says: the query, and the filters that narrowed it. */
function noResults(query: string, args: Args): string {
  const filters = ['--glob', '--language', '--kind'].filter((f) => strFlag(args, f) !== undefined);
  return `no results for ${JSON.stringify(query)}${filters.length ? ` with ${filters.join(', ')}` : ''}`;
}

async function searchCommand(args: Args): Promise<number> {
  const query = args.positional[0];
  if (query === undefined) throw new UsageError('fathom search: what query?');
  if (!query.trim()) throw new UsageError('fathom search: the query is empty');
  const store = strFlag(args, '--store');
  if (isPgUrl(store)) return remoteSearchCommand(query, store, args);
  const k = intFlag(args, '--k') ?? 10;
  const mode = modeFlag(args);
  const filters = searchFilters(args);
  const { engine } = await openEngine(strFlag(args, '--dir') ?? '.', args, args.flags.has('--json'));
  if (mode === 'dense' && !engine.vectors) throw new UsageError(`--mode dense needs an embedding model: ${engine.noEmbedderReason}`);
  if (filters.language) {
    // the files that hold chunks (a skipped image or archive is in no language a filter can ask for)
    const present = new Set([...enginePaths(engine)].map(languageOf));
    const bad = filters.language.filter((l) => !present.has(l.toLowerCase()));
    if (bad.length) throw new UsageError(`--language: no indexed file is in ${bad.map((l) => JSON.stringify(l)).join(', ')}; the languages here are ${[...present].sort().join(', ') || 'none'}`);
  }
  const hits = await engine.search(query, { k, mode, filters });
  printHits(hits, args.flags.has('--json'), keywordOnlyReason(engine, mode), noResults(query, args));
  await engine.embedder?.dispose();
  return 0;
}

async function similarCommand(args: Args): Promise<number> {
  const target = args.positional[0];
  const m = target ? /^(.*):(\d+)$/.exec(target) : null;
  if (!m) throw new UsageError('fathom similar: give <file>:<line>');
  const dir = strFlag(args, '--dir') ?? '.';
  const rel = fileInFolder(dir, m[1]);
  const { engine } = await openEngine(dir, args, args.flags.has('--json'));
  if (!engine.files.has(rel)) throw new UsageError(`${rel} is not indexed in ${dir}`);
  if (!engine.chunkAt(rel, Number(m[2]))) throw new UsageError(`no chunk of ${rel} holds line ${m[2]}`);
  const hits = await engine.similar({ path: rel, line: Number(m[2]) }, { k: intFlag(args, '--k') ?? 10 });
  printHits(hits, args.flags.has('--json'), keywordOnlyReason(engine, 'hybrid'), `nothing similar enough to ${rel}:${m[2]}`);
  await engine.embedder?.dispose();
  return 0;
}

/** Whether `b` names the file `a` names (same real path, or the same inode); false when `b` does not exist. */
function sameFile(a: string, b: string): boolean {
  try {
    if (fs.realpathSync(a) === fs.realpathSync(b)) return true;
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

async function batchCommand(args: Args): Promise<number> {
  const dir = strFlag(args, '--dir');
  const queriesFile = strFlag(args, '--queries');
  const out = strFlag(args, '--out');
  if (!dir || !queriesFile || !out) throw new UsageError('fathom batch needs --dir, --queries and --out');
  const k = intFlag(args, '--k') ?? 10;
  const mode = modeFlag(args);
  const queries = readJsonObjects(queriesFile).map(({ line, value: q }) => {
    if (typeof q.query !== 'string') throw new UsageError(`${queriesFile}:${line} has no "query" string`);
    return { id: q.id ?? line, query: q.query };
  });
  // writing the results over the queries would lose them: the same file (by its real path, or
  // a hard link to it) is refused before anything is written
  if (sameFile(queriesFile, out)) throw new UsageError(`--out ${out} is the --queries file: the results would replace the queries`);
  checkWritable('--out', out); // before the work, not after it
  const { engine } = await openEngine(dir, args);
  if (mode === 'dense' && !engine.vectors) throw new UsageError(`--mode dense needs an embedding model: ${engine.noEmbedderReason}`);
  const outLines: string[] = [];
  const keywordOnly = keywordOnlyReason(engine, mode);
  for (const q of queries) {
    const hits = await engine.search(q.query, { k, mode });
    outLines.push(JSON.stringify({ id: q.id, results: hits.map(hitLine), ...(keywordOnly ? { keywordOnly } : {}) }));
  }
  try {
    fs.writeFileSync(out, outLines.length ? `${outLines.join('\n')}\n` : '');
  } catch (err) {
    throw new UsageError(`--out ${out} cannot be written: ${(err as Error).message}`);
  }
  process.stderr.write(`${queries.length} queries → ${out}\n`);
  await engine.embedder?.dispose();
  return 0;
}

async function evalCommand(args: Args): Promise<number> {
  const dir = args.positional[0];
  if (!dir) throw new UsageError('fathom eval: which folder?');
  const goldFile = strFlag(args, '--gold');
  const given = goldFile
    ? readJsonObjects(goldFile).map(({ line, value: g }) => {
        if (typeof g.query !== 'string' || typeof g.file !== 'string') throw new UsageError(`${goldFile}:${line} needs "query" and "file"`);
        return { ...g, route: typeof g.route === 'string' ? g.route : 'gold' } as GoldQuery;
      })
    : undefined;
  const written = strFlag(args, '--write-gold');
  if (written) checkWritable('--write-gold', written);
  const { engine } = await openEngine(dir, args, args.flags.has('--json'));
  const gold: GoldQuery[] = given ?? mineGold(engine);
  if (written) {
    try {
      fs.writeFileSync(written, gold.map((g) => JSON.stringify(g)).join('\n') + '\n');
    } catch (err) {
      throw new UsageError(`--write-gold ${written} cannot be written: ${(err as Error).message}`);
    }
  }
  const modes: SearchMode[] = engine.vectors ? ['keyword', 'dense', 'hybrid'] : ['keyword'];
  const report = await evaluate(engine, gold, modes);
  if (args.flags.has('--json')) process.stdout.write(`${JSON.stringify({ queries: gold.length, modes, noDense: engine.vectors ? undefined : engine.noEmbedderReason, report })}\n`);
  else {
    if (!engine.vectors) process.stdout.write('keyword-only: dense and hybrid need a model\n');
    process.stdout.write(`${gold.length} gold queries${goldFile ? ` from ${goldFile}` : ' mined from the workspace'}\n${formatReport(report)}\n`);
  }
  await engine.embedder?.dispose();
  return 0;
}

// ---------------------------------------------------------------------------------------------
// i18n

/** The documented `--json` line of one candidate: exactly these keys, in this order. */
function i18nLine(c: Candidate): string {
  return JSON.stringify({
    key: c.key,
    match: c.match,
    locales: c.locales.map((l) => ({ locale: l.locale, file: l.file, line: l.range.start.line, value: l.value })),
    // a dynamic usage (`$t(\`x.${y}\`)`) says so, with the static prefix the text output shows
    usages: c.usages.map((u) => (u.dynamic ? { file: u.file, line: u.range.start.line, dynamic: true, prefix: u.key } : { file: u.file, line: u.range.start.line })),
  });
}

/** Problems a lookup prints before its answer, at most (`--check` lists them all). */
const LOOKUP_PROBLEMS_SHOWN = 20;

function printI18n(r: LookupResult, json: boolean): void {
  // a large workspace can have hundreds (Django: a conflict for each word two apps translate alike): the answer must stay in sight
  for (const p of r.problems.slice(0, LOOKUP_PROBLEMS_SHOWN)) process.stderr.write(`problem ${esc(p.file)}${p.line ? `:${p.line}` : ''}: ${p.kind}: ${esc(p.message)}\n`);
  if (r.problems.length > LOOKUP_PROBLEMS_SHOWN) process.stderr.write(`… and ${r.problems.length - LOOKUP_PROBLEMS_SHOWN} more problems: fathom i18n --check lists them all\n`);
  if (r.semanticUnavailable) process.stderr.write(`semantic matching unavailable: ${esc(r.semanticUnavailable)}\n`);
  if (!r.candidates.length) process.stderr.write('no key found\n');
  const out: string[] = [];
  for (const [i, c] of r.candidates.entries()) {
    if (json) {
      out.push(i18nLine(c));
      continue;
    }
    const where = [c.app ? `app ${esc(c.app)}` : '', c.component ? `component ${esc(c.component)}` : ''].filter(Boolean).join(', ');
    const matched = c.matched ? `, ${esc(c.matched.locale)} "${esc(c.matched.value)}"` : '';
    out.push(`${i ? '\n' : ''}${esc(c.key)}  ${c.match}${c.match === 'key' ? '' : ` ${c.score.toFixed(2)}`}${matched}${where ? `  (${where})` : ''}`);
    // as the editor's picker: the matched and source locales, then the usages, then the other locales
    const { ordered, first } = orderLocales(c);
    const locale = (l: LocaleValue) => `  ${esc(l.locale).padEnd(6)} ${esc(l.file)}:${l.range.start.line}:${l.range.start.column + 1}  ${esc(l.value)}`;
    for (const l of ordered.slice(0, first)) out.push(locale(l));
    for (const u of c.usages) out.push(`  used   ${esc(u.file)}:${u.range.start.line}:${u.range.start.column + 1}  ${esc(u.via)}${u.dynamic ? ` (dynamic, prefix "${esc(u.key)}")` : ''}`);
    if (!c.usages.length) out.push('  used   nowhere found');
    for (const l of ordered.slice(first)) out.push(locale(l));
  }
  if (out.length) process.stdout.write(`${out.join('\n')}\n`);
}

async function i18nCommand(args: Args): Promise<number> {
  const key = strFlag(args, '--key');
  const text = args.positional[0];
  const functions = (args.lists.get('--functions') ?? []).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean);
  if (args.flags.has('--check')) {
    if (key !== undefined || text !== undefined) throw new UsageError('fathom i18n --check: takes no "<string>" and no --key');
    const dir = strFlag(args, '--dir') ?? '.';
    requireFolder(dir);
    const { index } = loadI18nIndex(dir, { localeGlobs: args.lists.get('--locales'), functions });
    for (const p of index.problems) process.stderr.write(`problem ${esc(p.file)}${p.line ? `:${p.line}` : ''}: ${p.kind}: ${esc(p.message)}\n`);
    const report = index.health();
    const json = args.flags.has('--json');
    const health = formatHealth(report, json);
    process.stdout.write(json ? health : health.split('\n').map(esc).join('\n')); // keys and values come from the workspace
    return healthExitCode(report);
  }
  if (key === undefined && text === undefined) throw new UsageError('fathom i18n: give a "<string>" or --key a.b.c');
  if (key !== undefined && text !== undefined) throw new UsageError('fathom i18n: give a "<string>" or --key, not both');
  const dir = strFlag(args, '--dir') ?? '.';
  requireFolder(dir);
  const limit = intFlag(args, '--k') ?? 10;
  const from = strFlag(args, '--from');
  const fromFile = from !== undefined ? fileInFolder(dir, from) : undefined;
  const localeGlobs = args.lists.get('--locales');
  // the i18n index is kept in the store folder (only what changed since is read again); the
  // search index is not loaded for a lookup
  const storeDir = path.resolve(strFlag(args, '--store') ?? path.join(dir, '.fathom'));
  let session: FolderSession;
  try {
    session = await FolderSession.open(dir, { storeDir, lazyEngine: true, log: (level, m) => level !== 'info' && process.stderr.write(`${m}\n`) });
  } catch (err) {
    if (!(err instanceof StoreLockedError)) throw err;
    process.stderr.write(`${err.message}: reading the folder without it\n`);
    session = await FolderSession.open(dir);
  }
  let result: LookupResult;
  try {
    if (key !== undefined) result = (await session.i18n({ op: 'key', key, fromFile, limit }, { localeGlobs, functions })).result;
    else {
      result = (await session.i18n({ op: 'string', text: text!, fromFile, limit }, { localeGlobs, functions, lexicalOnly: true })).result;
      // semantic is the last resort: the model is loaded only when nothing else matched
      if (!result.candidates.length && text!.trim()) {
        let embedder: Embedder | undefined;
        let why = 'embedding is off (--no-embed)';
        if (!args.flags.has('--no-embed')) {
          // the lookup loads no search index (lazyEngine): any model may embed the locale values,
          // the store's first
          const r = await embedderFor(args, storeDir, true);
          if ('embedder' in r) embedder = r.embedder;
          else why = r.error;
        }
        result = embedder ? ((await session.i18n({ op: 'string', text: text!, fromFile, limit }, { localeGlobs, functions, embedder })).result) : { ...result, semanticUnavailable: why };
        await embedder?.dispose();
      }
    }
  } finally {
    await session.close();
  }
  printI18n(result, args.flags.has('--json'));
  return 0;
}

// ---------------------------------------------------------------------------------------------
// mcp: the agent server (src/mcp/)

async function mcpCommand(args: Args): Promise<number> {
  if (args.positional.length) throw new UsageError(`fathom mcp takes folders as --dir DIR, not ${args.positional[0]}`);
  const dirs = args.lists.get('--dir') ?? ['.'];
  for (const d of dirs) requireFolder(d);
  const store = strFlag(args, '--store');
  if (store && dirs.length > 1) throw new UsageError('--store takes one folder: with several --dir, each keeps its index in <dir>/.fathom');
  let embedder: Embedder | undefined;
  let noEmbedderReason: string | undefined = 'embedding is off (--no-embed)';
  if (!args.flags.has('--no-embed')) {
    const r = await embedderFor(args, dirs.length === 1 ? path.resolve(store ?? path.join(dirs[0], '.fathom')) : undefined);
    if ('embedder' in r) embedder = r.embedder;
    else {
      noEmbedderReason = r.error;
      process.stderr.write(`fathom mcp: keyword-only: ${r.error}\n`);
    }
  }
  // loaded here: the agent server's tool schemas (zod, the MCP SDK) cost every other command nothing
  const { runMcp } = await import('./mcp/run');
  const code = await runMcp({ dirs, storeDir: store, embedder, noEmbedderReason, version: fathomVersion });
  // the folders are closed and their stores saved: nothing left to wait for (a chunk thread
  // finishing a job of the cancelled first pass, stdin held open by the client) keeps it running
  process.exit(code);
}

/** `fathom status --store postgres://… [--json]`: the team index's schema version, search mode and size. */
async function statusCommand(args: Args): Promise<number> {
  const url = strFlag(args, '--store');
  if (!isPgUrl(url)) throw new UsageError('fathom status: which team index? (--store postgres://…)');
  const sql = await connectPg(url);
  try {
    const s = await pgStatus(sql);
    if (args.flags.has('--json')) {
      process.stdout.write(`${JSON.stringify({ store: redact(url), ...s })}\n`);
      return 0;
    }
    if (s.mode === 'none') {
      process.stdout.write(`no Fathom index in ${redact(url)} (push one with \`fathom index <dir> --store postgres://…\`); PostgreSQL ${s.serverVersion}, pgvector ${s.pgvector}\n`);
      return 0;
    }
    const how =
      s.mode === 'pgvector-hnsw'
        ? `dense search by pgvector HNSW (${s.vectors} vectors of ${s.model})`
        : s.mode === 'int8-codes'
          ? `dense search by int8 codes scored in the client, no pgvector (${s.vectors} vectors of ${s.model})`
          : 'keyword-only (no vectors stored)';
    process.stdout.write(
      `team index ${redact(url)}: schema ${s.schemaVersion} (this Fathom writes ${s.fathomSchemaVersion}), ${s.files} files, ${s.chunks} chunks, ${how}; PostgreSQL ${s.serverVersion}, pgvector ${s.pgvector}\n`,
    );
  } finally {
    await sql.end();
  }
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  switch (args.command) {
    case 'chunk':
      return chunkCommand(args);
    case 'index':
      return indexCommand(args);
    case 'search':
      return searchCommand(args);
    case 'similar':
      return similarCommand(args);
    case 'batch':
      return batchCommand(args);
    case 'eval':
      return evalCommand(args);
    case 'i18n':
      return i18nCommand(args);
    case 'mcp':
      return mcpCommand(args);
    case 'status':
      return statusCommand(args);
    case '':
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${HELP[args.positional[0] ?? ''] ?? USAGE}\n`);
      return args.command ? 0 : 2;
    default:
      throw new UsageError(`unknown command: ${args.command}`);
  }
}

/** An error the PostgreSQL server sent (it carries a SQLSTATE code): its message says it all. */
function isDatabaseError(err: unknown): err is Error {
  return err instanceof Error && typeof (err as { severity?: unknown }).severity === 'string' && typeof (err as { code?: unknown }).code === 'string';
}

/**
 * The CLI is a batch process: V8's default tiering optimizes a function after little type
 * feedback, and on a cold index (Babel, the chunkers, the keyword index, in two threads) it
 * then threw much of that code away and compiled it again (1,063 TurboFan compiles and 412
 * deopts on the dev corpus; a third of the run's CPU was the compiler threads). Waiting ~4x
 * longer before optimizing: whole-process A/B on the dev corpus, 10 pairs, CPU 1.14x less
 * (every pair less), wall 1.07x. Set once, before any worker thread starts (they share the
 * flags); a budget given on node's command line wins. The extension cannot do this: V8's
 * flags are the whole extension host's.
 */
export const CLI_INTERRUPT_BUDGET = 300_000;

/**
 * How much bytecode TurboFan may inline into one optimized function, in all (V8's default: 920
 * bytes). A cold index's compiler threads were ~40% of its CPU on a 1,000-file app, with three
 * isolates (the indexing thread, two chunk threads) each compiling the same parsers and
 * chunkers; with a quarter of the default the compiles are smaller and fewer are thrown away.
 * Measured (bench/cold.ts, same run, 7 rounds): dev corpus wall 0.94x and CPU 0.92x, a
 * 1,100-file app 0.91x / 0.89x; and in one thread, warm (bench/chunk.ts), chunking is not
 * slower (median pass 1.57 s against 1.63–1.69 s; the first pass 2.90 s against 3.26–3.75 s).
 * No inlining at all compiled less still but chunked 1.1x slower once warm. A value given on
 * node's command line wins.
 */
export const CLI_INLINE_BUDGET = 230;

function tuneV8ForBatch(): void {
  const given = (flag: string) => process.execArgv.some((a) => a.replace(/_/g, '-').startsWith(`${flag}=`));
  if (!given('--interrupt-budget')) v8.setFlagsFromString(`--interrupt-budget=${CLI_INTERRUPT_BUDGET}`);
  if (!given('--max-inlined-bytecode-size-cumulative')) v8.setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${CLI_INLINE_BUDGET}`);
}

/** Runs the CLI and sets the exit code: 0 fine, 1 failure, 2 usage error. */
export function run(argv: string[]): Promise<void> {
  tuneV8ForBatch();
  // `fathom chunk … --json | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  return main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError || err instanceof GlobError) {
        // the line that says what is wrong, and where to read more: not the whole usage every time
        process.stderr.write(`fathom: ${esc(err.message)}\nrun fathom ${currentCommand ? `${currentCommand} ` : ''}--help\n`);
        process.exitCode = 2;
      } else if (err instanceof StoreLockedError || err instanceof StoreWriteError || err instanceof StoreFileError || err instanceof PgStoreError || err instanceof TokenizerMissingError || isDatabaseError(err) || (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string')) {
        // expected failures (a lock, a full disk, a system error): the message, no stack trace
        process.stderr.write(`fathom: ${esc(err.message)}\n`);
        process.exitCode = 1;
      } else {
        // a bug: the message; the stack only when asked for
        const e = err instanceof Error ? err : new Error(String(err));
        process.stderr.write(`fathom: internal error: ${esc(e.message)}${process.env.FATHOM_DEBUG ? `\n${e.stack ?? ''}` : ' (FATHOM_DEBUG=1 shows where)'}\n`);
        process.exitCode = 1;
      }
    },
  );
}

if (require.main === module) void run(process.argv.slice(2));
