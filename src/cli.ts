/**
 * `fathom` — the same core as the extension, from a terminal, with no `vscode` dependency.
 *
 *   fathom chunk <dir|file> [--json] [--stats] [--max-tokens N] [--max-file-kb N]
 *                           [--json-categories a,b,…]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, decodeBytes, resolveOptions, type FileChunks } from './chunkers/index';
import { formatStats, StatsCollector } from './chunkers/stats';
import { walkFiles, type WalkedFile } from './index/files';

const USAGE = `Usage:
  fathom chunk <dir|file> [--json] [--stats] [--max-tokens N] [--max-file-kb N] [--json-categories a,b]

  --json             one JSON object per chunk per line; one {"skipped","reason"} line per skipped file
  --stats            per-language statistics and invariant checks (with --json: one JSON object)
  --max-tokens N     token budget per chunk, header included (default 256)
  --max-file-kb N    skip files larger than N KB (default 200)
  --json-categories  JSON categories to index (default schema,i18n,docs-meta,config,other;
                     also manifest, fixture)`;

class UsageError extends Error {}

interface Args {
  command: string;
  positional: string[];
  flags: Map<string, string | true>;
}

function parseArgs(argv: string[]): Args {
  const [command = '', ...rest] = argv;
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const valued = new Set(['--max-tokens', '--max-file-kb', '--json-categories']);
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a.startsWith('--')) {
      const [k, v] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
      if (valued.has(k)) {
        const val = v ?? rest[++i];
        if (val === undefined) throw new UsageError(`${k} needs a value`);
        flags.set(k, val);
      } else flags.set(k, true);
    } else positional.push(a);
  }
  return { command, positional, flags };
}

function intFlag(args: Args, name: string): number | undefined {
  const v = args.flags.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive integer, got ${String(v)}`);
  return n;
}

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

async function chunkCommand(args: Args): Promise<number> {
  const target = args.positional[0];
  if (!target) throw new UsageError('fathom chunk: which folder or file?');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    throw new UsageError(`fathom chunk: ${target} does not exist`);
  }
  const maxTokens = intFlag(args, '--max-tokens');
  const maxKb = intFlag(args, '--max-file-kb');
  const cats = args.flags.get('--json-categories');
  const opts = resolveOptions({
    maxTokens,
    maxFileBytes: maxKb ? maxKb * 1024 : undefined,
    jsonCategories: typeof cats === 'string' ? cats.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
  });
  const json = args.flags.has('--json');
  const wantStats = args.flags.has('--stats');
  const stats = new StatsCollector(opts.maxTokens);

  let files: WalkedFile[];
  const problems: Array<{ rel: string; reason: string }> = [];
  if (stat.isDirectory()) files = walkFiles(target, problems);
  else {
    const rel = path.relative(process.cwd(), path.resolve(target));
    const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : path.basename(target);
    files = [{ rel: shown.split(path.sep).join('/'), abs: path.resolve(target), size: stat.size }];
  }

  const out = process.stdout;
  const write = (s: string) => {
    if (!out.write(`${s}\n`)) return new Promise<void>((r) => out.once('drain', () => r()));
    return undefined;
  };
  const skip = async (rel: string, reason: string, detail: string) => {
    stats.add({ path: rel, language: '', chunks: [], warnings: [], skipped: { reason: reason as never, detail } }, '');
    if (json && !wantStats) await write(JSON.stringify({ skipped: rel, reason: `${reason}: ${detail}` }));
    else if (!json && !wantStats) await write(`skipped ${rel}: ${reason} (${detail})`);
  };

  for (const p of problems) await skip(p.rel, 'unreadable', p.reason);
  for (const f of files) {
    if (f.size > opts.maxFileBytes) {
      await skip(f.rel, 'too-large', `${f.size} bytes, over the ${opts.maxFileBytes}-byte cap`);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(f.abs);
    } catch (err) {
      await skip(f.rel, 'unreadable', (err as Error).message);
      continue;
    }
    const decoded = decodeBytes(bytes);
    if (decoded.text === undefined) {
      await skip(f.rel, 'binary', decoded.binary ?? 'binary');
      continue;
    }
    const result = chunkFile(f.rel, decoded.text, opts);
    if (decoded.replaced) result.warnings.push(`invalid UTF-8: decoded with ${decoded.replaced} replacement character(s)`);
    if (wantStats) stats.add(result, decoded.text);
    if (result.skipped && !result.chunks.length) {
      if (!wantStats) await skip(f.rel, result.skipped.reason, result.skipped.detail);
      continue;
    }
    if (wantStats) continue;
    if (json) {
      for (const c of result.chunks) await write(chunkLine(c));
    } else {
      for (const c of result.chunks) {
        const split = c.split ? ` [${c.split.index + 1}/${c.split.total}]` : '';
        await write(`${c.path}:${c.start.line}-${c.end.line}  ${c.kind}${c.symbol ? ` ${c.symbol}` : ''}${split}  ${c.tokens} tok`);
      }
      for (const w of result.warnings) process.stderr.write(`warning ${f.rel}: ${w}\n`);
    }
  }
  if (wantStats) {
    const st = stats.result();
    await write(json ? JSON.stringify(st) : formatStats(st));
  }
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  switch (args.command) {
    case 'chunk':
      return chunkCommand(args);
    case '':
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return args.command ? 0 : 2;
    default:
      throw new UsageError(`unknown command: ${args.command}`);
  }
}

/** Runs the CLI and sets the exit code: 0 fine, 1 failure, 2 usage error. */
export function run(argv: string[]): Promise<void> {
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
      if (err instanceof UsageError) {
        process.stderr.write(`fathom: ${err.message}\n\n${USAGE}\n`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`fathom: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}

if (require.main === module) void run(process.argv.slice(2));
