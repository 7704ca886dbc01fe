/**
 * Chunking benchmark: Fathom's `chunkFile` against LangChain's RecursiveCharacterTextSplitter,
 * side by side over the same files held in memory, plus Fathom's WordPiece counter against
 * transformers.js's tokenizer (speed, and exact agreement of the counts on every file).
 *
 *   node --import tsx bench/chunk.ts [corpusDir] [--passes N] [--json]
 *
 * The corpus (default bench/.corpus, built by bench/setup-corpus.mjs) is read and decoded first,
 * so disk I/O is never timed. Each engine then runs one warm-up pass (JIT) and N timed passes;
 * the medians are reported. Files that Fathom refuses before chunking (over the size cap,
 * minified) are left out of every engine's set, so all engines do the same files. See
 * bench/README.md for how to read the numbers.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { gc } from './gc';
import { chunkFile, decodeBytes, languageOf, prepareLanguagesFor, resolveOptions, skipReason } from '../src/chunkers/index';
import { defaultTokenCounter, resourcesDir } from '../src/tokenizer/wordpiece';

// ---------------------------------------------------------------------------------------------
// Options

interface Args {
  corpusDir: string;
  passes: number;
  json: boolean;
}

const USAGE = 'usage: node --import tsx bench/chunk.ts [corpusDir] [--passes N] [--json]';

/** A mistake of the caller (bad option, no corpus): reported without a stack trace. */
class UsageError extends Error {}

function parseArgs(argv: string[]): Args {
  const args: Args = { corpusDir: path.join(__dirname, '.corpus'), passes: 3, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') args.json = true;
    else if (a === '--passes' || a.startsWith('--passes=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new UsageError(`--passes needs a positive integer, got ${v}`);
      args.passes = n;
    } else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}\n${USAGE}`);
    else args.corpusDir = path.resolve(a);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// Corpus

/** Languages reported separately, in this order; anything else is "other". */
const GROUPS = ['vue', 'javascript', 'typescript', 'json', 'markdown', 'python', 'go', 'rust', 'java', 'other'] as const;
type Group = (typeof GROUPS)[number];

interface CorpusFile {
  rel: string;
  text: string;
  bytes: number;
  group: Group;
}

interface Excluded {
  rel: string;
  reason: string;
  detail: string;
}

function groupOf(language: string): Group {
  return (GROUPS as readonly string[]).includes(language) ? (language as Group) : 'other';
}

function* walk(dir: string, base = dir): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue; // .stamp and the like
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full, base);
    else if (entry.isFile()) yield path.relative(base, full).split(path.sep).join('/');
  }
}

function loadCorpus(dir: string): { files: CorpusFile[]; binary: Excluded[] } {
  if (!fs.existsSync(dir)) {
    throw new UsageError(`no corpus at ${dir}: run \`node bench/setup-corpus.mjs\` first (or npm run bench:chunk)`);
  }
  const files: CorpusFile[] = [];
  const binary: Excluded[] = [];
  for (const rel of walk(dir)) {
    const bytes = fs.readFileSync(path.join(dir, rel));
    const decoded = decodeBytes(bytes);
    if (decoded.text === undefined) {
      binary.push({ rel, reason: 'binary', detail: decoded.binary ?? '' });
      continue;
    }
    files.push({ rel, text: decoded.text, bytes: bytes.length, group: groupOf(languageOf(rel)) });
  }
  return { files, binary };
}

// ---------------------------------------------------------------------------------------------
// Engines and measurement

/** One file's work: how many pieces it gave and their summed size (tokens or characters). */
interface Work {
  pieces: number;
  size: number;
  fallback?: boolean;
  skipped?: boolean;
}

interface Engine {
  name: string;
  what: string;
  /** What `size` counts. */
  unit: 'tokens' | 'chars' | 'tokens (with [CLS]/[SEP])';
  /** Synchronous engines skip the await, which would otherwise be part of what is timed. */
  sync?: (f: CorpusFile) => Work;
  async?: (f: CorpusFile) => Promise<Work>;
}

interface GroupStats {
  files: number;
  bytes: number;
  pieces: number;
  size: number;
  fallbacks: number;
  skipped: number;
  /** Seconds of each timed pass, summed over the group's files. */
  passSeconds: number[];
  warmupSeconds: number;
}

interface EngineResult {
  name: string;
  what: string;
  unit: string;
  groups: Record<string, GroupStats>;
  total: GroupStats;
  memory: { baselineRssMB: number; baselineHeapMB: number; peakRssMB: number; peakHeapMB: number };
}

const MB = 1e6;
const SAMPLE_EVERY = 16;


function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function emptyStats(): GroupStats {
  return { files: 0, bytes: 0, pieces: 0, size: 0, fallbacks: 0, skipped: 0, passSeconds: [], warmupSeconds: 0 };
}

async function measure(engine: Engine, files: CorpusFile[], passes: number, onWarmup?: (f: CorpusFile, w: Work) => void): Promise<EngineResult> {
  gc();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    if (m.rss > peakRss) peakRss = m.rss;
    if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  };

  const groups = new Map<Group, GroupStats>();
  const total = emptyStats();
  for (const g of GROUPS) groups.set(g, emptyStats());
  for (const f of files) {
    const s = groups.get(f.group)!;
    s.files++;
    s.bytes += f.bytes;
    total.files++;
    total.bytes += f.bytes;
  }

  for (let pass = 0; pass <= passes; pass++) {
    const warm = pass === 0;
    const nanos = new Map<Group, number>(GROUPS.map((g) => [g, 0]));
    const wallStart = process.hrtime.bigint();
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      const t0 = process.hrtime.bigint();
      const w = engine.sync ? engine.sync(f) : await engine.async!(f);
      const dt = Number(process.hrtime.bigint() - t0);
      nanos.set(f.group, nanos.get(f.group)! + dt);
      if (warm) {
        const s = groups.get(f.group)!;
        for (const t of [s, total]) {
          t.pieces += w.pieces;
          t.size += w.size;
          if (w.fallback) t.fallbacks++;
          if (w.skipped) t.skipped++;
        }
        onWarmup?.(f, w);
      }
      if (i % SAMPLE_EVERY === 0) sample();
    }
    sample();
    const wall = Number(process.hrtime.bigint() - wallStart) / 1e9;
    for (const g of GROUPS) {
      const s = groups.get(g)!;
      const secs = nanos.get(g)! / 1e9;
      if (warm) s.warmupSeconds = secs;
      else s.passSeconds.push(secs);
    }
    if (warm) total.warmupSeconds = wall;
    else total.passSeconds.push(wall);
    process.stderr.write(`[bench] ${engine.name}: ${warm ? 'warm-up' : `pass ${pass}/${passes}`} ${wall.toFixed(2)} s\n`);
  }

  const out: Record<string, GroupStats> = {};
  for (const g of GROUPS) if (groups.get(g)!.files) out[g] = groups.get(g)!;
  return {
    name: engine.name,
    what: engine.what,
    unit: engine.unit,
    groups: out,
    total,
    memory: {
      baselineRssMB: base.rss / MB,
      baselineHeapMB: base.heapUsed / MB,
      peakRssMB: peakRss / MB,
      peakHeapMB: peakHeap / MB,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// LangChain (installed in bench/corpus/node_modules, not in the project's dependencies)

interface TextSplitter {
  splitText(text: string): Promise<string[]>;
}
interface SplitterParams {
  chunkSize: number;
  chunkOverlap: number;
}
interface TextSplittersModule {
  RecursiveCharacterTextSplitter: {
    new (params: SplitterParams): TextSplitter;
    fromLanguage(language: string, params: SplitterParams): TextSplitter;
  };
}

const LANGCHAIN_PARAMS: SplitterParams = { chunkSize: 800, chunkOverlap: 120 };

function loadLangChain(): { module: TextSplittersModule; version: string } {
  const corpusPkg = path.join(__dirname, 'corpus', 'package.json');
  const req = createRequire(corpusPkg);
  try {
    const module = req('@langchain/textsplitters') as TextSplittersModule;
    const version = (req('@langchain/textsplitters/package.json') as { version: string }).version;
    return { module, version };
  } catch (err) {
    throw new UsageError(
      `@langchain/textsplitters is not installed in bench/corpus/node_modules: run \`node bench/setup-corpus.mjs\` (${(err as Error).message})`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// transformers.js (a devDependency of the project; optional here)

interface HfTokenizer {
  encode(text: string): number[];
}
interface TransformersModule {
  env: { localModelPath: string; allowRemoteModels: boolean; allowLocalModels: boolean };
  AutoTokenizer: { from_pretrained(name: string): Promise<HfTokenizer> };
}

/** The version in the package.json above a resolved entry file (for packages whose exports hide it). */
function packageVersion(entry: string): string {
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name && pkg.version) return pkg.version;
  }
  return '?';
}

async function loadTransformers(): Promise<{ tokenizer: HfTokenizer; version: string; loadSeconds: number } | { error: string }> {
  const spec = '@huggingface/transformers';
  let mod: TransformersModule;
  let version = '?';
  try {
    mod = (await import(spec)) as TransformersModule;
    version = packageVersion(createRequire(__filename).resolve(spec));
  } catch (err) {
    return { error: `${spec} is not installed (${(err as Error).message.split('\n')[0]})` };
  }
  const t0 = performance.now();
  mod.env.localModelPath = resourcesDir() + path.sep;
  mod.env.allowRemoteModels = false;
  mod.env.allowLocalModels = true;
  const tokenizer = await mod.AutoTokenizer.from_pretrained('all-MiniLM-L6-v2');
  return { tokenizer, version, loadSeconds: (performance.now() - t0) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// Report

interface Row {
  engine: string;
  group: string;
  files: number;
  mb: number;
  pieces: number;
  avgSize: number;
  seconds: number;
  warmup: number;
  mbPerS: number;
  piecesPerS: number;
  fallbacks: number;
  skipped: number;
}

function rowsOf(r: EngineResult): Row[] {
  const rows: Row[] = [];
  const entries: Array<[string, GroupStats]> = [...Object.entries(r.groups), ['ALL', r.total]];
  for (const [group, s] of entries) {
    const seconds = median(s.passSeconds);
    rows.push({
      engine: r.name,
      group,
      files: s.files,
      mb: s.bytes / MB,
      pieces: s.pieces,
      avgSize: s.pieces ? s.size / s.pieces : 0,
      seconds,
      warmup: s.warmupSeconds,
      mbPerS: seconds > 0 ? s.bytes / MB / seconds : 0,
      piecesPerS: seconds > 0 ? s.pieces / seconds : 0,
      fallbacks: s.fallbacks,
      skipped: s.skipped,
    });
  }
  return rows;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);
const f1 = (x: number) => x.toFixed(1);

function ratioRows(a: EngineResult, b: EngineResult): Array<{ group: string; a: number; b: number; ratio: number }> {
  const ra = rowsOf(a);
  const rb = new Map(rowsOf(b).map((r) => [r.group, r]));
  return ra.map((r) => {
    const other = rb.get(r.group);
    const bm = other ? other.mbPerS : 0;
    return { group: r.group, a: r.mbPerS, b: bm, ratio: bm > 0 ? r.mbPerS / bm : 0 };
  });
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const err = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

  // 1. Load every file into memory before anything is timed.
  const t0 = performance.now();
  const { files: loaded, binary } = loadCorpus(args.corpusDir);
  const loadSeconds = (performance.now() - t0) / 1000;

  // 2. Fathom's options, resolved once: the tokenizer loads here, not inside the timed passes.
  const t1 = performance.now();
  const opts = resolveOptions();
  const optionsSeconds = (performance.now() - t1) / 1000;
  // Tree-sitter's wasm runtime and grammars (Python, Go, Rust) load once, before any timing.
  const t2 = performance.now();
  await prepareLanguagesFor(loaded.map((f) => f.rel));
  const grammarsSeconds = (performance.now() - t2) / 1000;
  const counter = defaultTokenCounter();

  // 3. Files Fathom refuses before chunking are left out of every engine's set.
  const excluded: Excluded[] = [...binary];
  const files: CorpusFile[] = [];
  for (const f of loaded) {
    const skip = skipReason(f.rel, f.text, languageOf(f.rel), opts);
    if (skip) excluded.push({ rel: f.rel, reason: skip.reason, detail: skip.detail });
    else files.push(f);
  }
  if (files.length === 0) throw new UsageError(`no chunkable file under ${args.corpusDir}`);
  err(`corpus: ${files.length} files (${f2(files.reduce((n, f) => n + f.bytes, 0) / MB)} MB) from ${args.corpusDir}, ${excluded.length} left out; ${args.passes} timed passes each`);

  const { module: lc, version: lcVersion } = loadLangChain();
  const Splitter = lc.RecursiveCharacterTextSplitter;
  const lcJs = Splitter.fromLanguage('js', LANGCHAIN_PARAMS);
  const lcMd = Splitter.fromLanguage('markdown', LANGCHAIN_PARAMS);
  const lcPlain = new Splitter(LANGCHAIN_PARAMS);
  const lcCode: Partial<Record<Group, TextSplitter>> = {
    python: Splitter.fromLanguage('python', LANGCHAIN_PARAMS),
    go: Splitter.fromLanguage('go', LANGCHAIN_PARAMS),
    rust: Splitter.fromLanguage('rust', LANGCHAIN_PARAMS),
    java: Splitter.fromLanguage('java', LANGCHAIN_PARAMS),
  };
  const splitterFor = (g: Group): TextSplitter =>
    g === 'vue' || g === 'javascript' || g === 'typescript' ? lcJs : g === 'markdown' ? lcMd : (lcCode[g] ?? lcPlain);

  const fathom: Engine = {
    name: 'fathom',
    what: `chunkFile(path, text, resolveOptions()) — maxTokens ${opts.maxTokens}, tokenizer ${counter.name}`,
    unit: 'tokens',
    sync: (f) => {
      const r = chunkFile(f.rel, f.text, opts);
      let size = 0;
      for (const c of r.chunks) size += c.tokens;
      return { pieces: r.chunks.length, size, fallback: r.fallback !== undefined, skipped: r.skipped !== undefined };
    },
  };
  const langchain: Engine = {
    name: 'langchain',
    what: `@langchain/textsplitters ${lcVersion} RecursiveCharacterTextSplitter — fromLanguage('js') for vue/js/ts, fromLanguage('markdown') for md, fromLanguage('python'|'go'|'rust'|'java') for those, plain otherwise; chunkSize ${LANGCHAIN_PARAMS.chunkSize}, chunkOverlap ${LANGCHAIN_PARAMS.chunkOverlap} (characters)`,
    unit: 'chars',
    async: async (f) => {
      const parts = await splitterFor(f.group).splitText(f.text);
      let size = 0;
      for (const p of parts) size += p.length;
      return { pieces: parts.length, size };
    },
  };

  // Counts of the warm-up passes, compared file by file below.
  const fathomCounts = new Map<string, number>();
  const hfCounts = new Map<string, number>();
  const counterEngine: Engine = {
    name: 'counter',
    what: `Fathom WordPieceCounter.countWithSpecials (${counter.name}), whole file`,
    unit: 'tokens (with [CLS]/[SEP])',
    sync: (f) => ({ pieces: 1, size: counter.countWithSpecials(f.text) }),
  };

  const results: EngineResult[] = [];
  results.push(await measure(fathom, files, args.passes));
  results.push(await measure(langchain, files, args.passes));
  results.push(await measure(counterEngine, files, args.passes, (f, w) => fathomCounts.set(f.rel, w.size)));

  const hf = await loadTransformers();
  let tokenCheck:
    | { compared: number; differ: number; firstDiff?: { file: string; fathom: number; transformers: number }; tokens: number; charsPerToken: number }
    | { skipped: string };
  let hfVersion = '';
  let hfLoadSeconds = 0;
  if ('error' in hf) {
    err(`transformers.js: ${hf.error}; its timing and the count check are skipped`);
    tokenCheck = { skipped: hf.error };
  } else {
    hfVersion = hf.version;
    hfLoadSeconds = hf.loadSeconds;
    const tokenizer = hf.tokenizer;
    const hfEngine: Engine = {
      name: 'transformers',
      what: `@huggingface/transformers ${hf.version} AutoTokenizer('all-MiniLM-L6-v2').encode, whole file`,
      unit: 'tokens (with [CLS]/[SEP])',
      sync: (f) => ({ pieces: 1, size: tokenizer.encode(f.text).length }),
    };
    results.push(await measure(hfEngine, files, args.passes, (f, w) => hfCounts.set(f.rel, w.size)));
    // The counts must agree on every file, the left-out ones included (they are text too).
    for (const f of loaded) {
      if (!fathomCounts.has(f.rel)) {
        fathomCounts.set(f.rel, counter.countWithSpecials(f.text));
        hfCounts.set(f.rel, tokenizer.encode(f.text).length);
      }
    }
    let differ = 0;
    let firstDiff: { file: string; fathom: number; transformers: number } | undefined;
    let tokens = 0;
    let chars = 0;
    for (const f of loaded) {
      const a = fathomCounts.get(f.rel)!;
      const b = hfCounts.get(f.rel)!;
      tokens += b;
      chars += f.text.length;
      if (a !== b) {
        differ++;
        firstDiff ??= { file: f.rel, fathom: a, transformers: b };
      }
    }
    tokenCheck = { compared: loaded.length, differ, firstDiff, tokens, charsPerToken: chars / tokens };
  }

  const byName = new Map(results.map((r) => [r.name, r]));
  const chunkRatio = ratioRows(byName.get('fathom')!, byName.get('langchain')!);
  const counterRatio = byName.has('transformers') ? ratioRows(byName.get('counter')!, byName.get('transformers')!) : [];

  const excludedByReason: Record<string, number> = {};
  for (const e of excluded) excludedByReason[e.reason] = (excludedByReason[e.reason] ?? 0) + 1;
  const byGroup: Record<string, { files: number; mb: number }> = {};
  for (const f of files) {
    const g = (byGroup[f.group] ??= { files: 0, mb: 0 });
    g.files++;
    g.mb += f.bytes / MB;
  }

  const report = {
    corpus: {
      dir: args.corpusDir,
      files: files.length,
      mb: files.reduce((n, f) => n + f.bytes, 0) / MB,
      byGroup,
      excluded: { count: excluded.length, byReason: excludedByReason, files: excluded },
      loadSeconds,
    },
    machine: { node: process.version, cpus: os.cpus().length, platform: process.platform },
    passes: args.passes,
    units: {
      fathom: `chunk size in WordPiece tokens (header + text, [CLS]/[SEP] included), budget ${opts.maxTokens}`,
      langchain: `chunk size in characters, chunkSize ${LANGCHAIN_PARAMS.chunkSize}, chunkOverlap ${LANGCHAIN_PARAMS.chunkOverlap}`,
    },
    setupSeconds: { fathomResolveOptions: optionsSeconds, treeSitterGrammars: grammarsSeconds, transformersLoad: hfLoadSeconds },
    engines: Object.fromEntries(results.map((r) => [r.name, { what: r.what, unit: r.unit, rows: rowsOf(r), memory: r.memory }])),
    ratios: {
      chunkingMBps_fathom_over_langchain: Object.fromEntries(chunkRatio.map((r) => [r.group, r.ratio])),
      countingMBps_counter_over_transformers: Object.fromEntries(counterRatio.map((r) => [r.group, r.ratio])),
    },
    tokenCheck,
    versions: { langchainTextsplitters: lcVersion, transformers: hfVersion },
  };

  if (args.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const out: string[] = [];
    out.push(`Fathom chunking benchmark — Node ${process.version}, ${report.machine.cpus} CPUs, ${args.passes} timed passes after 1 warm-up, seconds = median`);
    out.push(
      `corpus: ${args.corpusDir}: ${files.length} files, ${f2(report.corpus.mb)} MB (MB = 10^6 bytes of UTF-8), loaded in ${f2(loadSeconds)} s; ` +
        `left out of every engine (Fathom refuses them before chunking): ${excluded.length}` +
        (excluded.length ? ` (${Object.entries(excludedByReason).map(([k, v]) => `${v} ${k}`).join(', ')})` : ''),
    );
    for (const e of excluded.slice(0, 10)) out.push(`  - ${e.rel}: ${e.reason}, ${e.detail}`);
    if (excluded.length > 10) out.push(`  … and ${excluded.length - 10} more (--json lists them all)`);
    out.push('');
    out.push('SIZES ARE NOT IN THE SAME UNIT: Fathom budgets WordPiece tokens (256 per chunk, header and [CLS]/[SEP] included);');
    out.push('LangChain budgets characters (800 per chunk, 120 overlapping). At ~3.1 characters per token the budgets are comparable;');
    out.push('"avg size" below is tokens for fathom, characters for langchain. Fathom "fallback" = files its text chunker did');
    out.push('because the structural chunker could not parse them (the reason is in `fathom chunk` warnings).');
    out.push('');
    for (const r of results) out.push(`${r.name}: ${r.what}`);
    out.push('');
    out.push('CHUNKING');
    const chunkRows = [...rowsOf(byName.get('fathom')!), ...rowsOf(byName.get('langchain')!)];
    out.push(
      table(
        ['engine', 'lang', 'files', 'MB', 'chunks', 'avg size', 'unit', 'fallback', 'warm-up s', 'median s', 'MB/s', 'chunks/s'],
        chunkRows.map((r) => [
          r.engine,
          r.group,
          String(r.files),
          f2(r.mb),
          String(r.pieces),
          f1(r.avgSize),
          r.engine === 'fathom' ? 'tok' : 'chars',
          r.engine === 'fathom' ? String(r.fallbacks) : '-',
          f3(r.warmup),
          f3(r.seconds),
          f2(r.mbPerS),
          r.piecesPerS.toFixed(0),
        ]),
      ),
    );
    out.push('');
    out.push('RATIO Fathom / LangChain, MB/s (> 1: Fathom is faster)');
    out.push(table(['lang', '', 'fathom MB/s', 'langchain MB/s', 'ratio'], chunkRatio.map((r) => [r.group, '', f2(r.a), f2(r.b), f3(r.ratio)])));
    out.push('');
    out.push('TOKEN COUNTING (whole files, [CLS]/[SEP] included)');
    const countRows = results.filter((r) => r.name === 'counter' || r.name === 'transformers').flatMap(rowsOf);
    out.push(
      table(
        ['engine', 'lang', 'files', 'MB', 'tokens', 'warm-up s', 'median s', 'MB/s'],
        countRows.map((r) => [r.engine, r.group, String(r.files), f2(r.mb), String(Math.round(r.avgSize * r.pieces)), f3(r.warmup), f3(r.seconds), f2(r.mbPerS)]),
      ),
    );
    if (counterRatio.length) {
      out.push('');
      out.push('RATIO Fathom counter / transformers.js encode, MB/s (> 1: the counter is faster)');
      out.push(table(['lang', '', 'counter MB/s', 'transformers MB/s', 'ratio'], counterRatio.map((r) => [r.group, '', f2(r.a), f2(r.b), f3(r.ratio)])));
    }
    out.push('');
    if ('skipped' in tokenCheck) out.push(`COUNT CHECK skipped: ${tokenCheck.skipped}`);
    else {
      out.push(
        `COUNT CHECK Fathom counter vs transformers.js on ${tokenCheck.compared} files: ${tokenCheck.differ} differ` +
          (tokenCheck.differ ? '' : ' (all equal)') +
          `; ${tokenCheck.tokens} tokens, ${f2(tokenCheck.charsPerToken)} characters per token`,
      );
      if (tokenCheck.firstDiff) {
        out.push(`  first difference: ${tokenCheck.firstDiff.file}: counter ${tokenCheck.firstDiff.fathom}, transformers.js ${tokenCheck.firstDiff.transformers}`);
      }
    }
    out.push('');
    out.push('MEMORY (process.memoryUsage(), sampled every 16 files; baseline after GC with the corpus loaded; RSS seldom shrinks, so compare heap +MB)');
    out.push(
      table(
        ['engine', '', 'base RSS MB', 'peak RSS MB', 'base heap MB', 'peak heap MB', 'heap +MB'],
        results.map((r) => [
          r.name,
          '',
          f1(r.memory.baselineRssMB),
          f1(r.memory.peakRssMB),
          f1(r.memory.baselineHeapMB),
          f1(r.memory.peakHeapMB),
          f1(r.memory.peakHeapMB - r.memory.baselineHeapMB),
        ]),
      ),
    );
    out.push('');
    out.push(`setup (not timed above): Fathom resolveOptions ${f3(optionsSeconds)} s, tree-sitter grammars ${f3(grammarsSeconds)} s, transformers.js tokenizer load ${f3(hfLoadSeconds)} s`);
    console.log(out.join('\n'));
  }
  if (!('skipped' in tokenCheck) && tokenCheck.differ > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  if (e instanceof UsageError) console.error(`[bench] ${e.message}`);
  else console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
