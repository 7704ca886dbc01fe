/**
 * Training pairs for Fathom's code-search model: (the first sentence of a unit's doc comment or
 * docstring, the unit's code with that sentence removed), cut with Fathom's own chunkers from
 * the sources that train/fetch.sh unpacked (Debian's python3-*, golang-*-dev, librust-*-dev,
 * node-* packages) and from TypeScript's and Node's type declarations in node_modules.
 *
 *   node --import tsx train/extract.ts --data DIR --out pairs.jsonl [--exclude-tree DIR]... [--manifest FILE]
 *
 * Each output line: {"l": language, "p": package, "f": file (its path in the package), "q": query
 * terms, "c": code terms, "h": hash}. `f` lets train.py fill a batch with the units of one file,
 * whose siblings are the negatives a search has to tell apart.
 * Terms are Fathom's model terms (src/index/model-terms.ts), the same function the runtime
 * calls, so that training and search tokenize alike. `--exclude-tree DIR` chunks DIR the same
 * way and drops every training unit whose normalized text hash occurs there, so that any
 * evaluation folder can be checked against the training set (the count dropped is printed).
 * Units whose code or sentence occurs twice are kept once.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, prepareLanguagesFor, type Chunk } from '../src/chunkers/index';
import { modelTerms } from '../src/index/model-terms';

interface Args {
  data: string;
  out: string;
  manifest?: string;
  exclude: string[];
  limitPerPackage: number;
  npm: string[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = { data: '', out: '', exclude: [], limitPerPackage: 400, npm: [] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const v = argv[++i];
    if (v === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--data') a.data = v;
    else if (flag === '--out') a.out = v;
    else if (flag === '--manifest') a.manifest = v;
    else if (flag === '--exclude-tree') a.exclude.push(v);
    else if (flag === '--limit-per-package') a.limitPerPackage = Number(v);
    else if (flag === '--npm') a.npm.push(v);
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!a.data || !a.out) throw new Error('usage: extract.ts --data DIR --out pairs.jsonl [--exclude-tree DIR]... [--manifest FILE]');
  return a;
}

const CODE_EXT: Record<string, RegExp> = {
  python: /\.py$/,
  go: /\.go$/,
  rust: /\.rs$/,
  js: /\.(?:m?js|cjs|ts|mts|cts|tsx|jsx)$/,
};
const SKIP_PATH = /(?:^|\/)(?:node_modules|tests?|testing|testdata|__tests__|spec|examples?|benches|fixtures?|vendor|dist\/umd)\/|_test\.go$|(?:^|\/)test_[^/]*\.py$|\.min\.js$|\.spec\.[jt]s$|\.test\.[jt]s$/;
const MAX_FILE_BYTES = 256 * 1024;

function* walk(dir: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(abs);
    else if (e.isFile()) yield abs;
  }
}

/** The first sentence of a doc text (comment markers removed): 4+ words, at most 300 characters. */
export function firstSentence(doc: string): string | undefined {
  const para = doc.trim().split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(?:\s|$)/.exec(para);
  const s = (m ? m[1] : para).trim();
  if (/^[@:{]|^(?:TODO|FIXME|XXX|Deprecated|Copyright|SPDX|eslint|istanbul|jshint|noinspection)\b/i.test(s)) return undefined;
  if (/https?:\/\/|[{}<>=;]/.test(s)) return undefined;
  return s.split(/\s+/).length >= 4 && s.length <= 300 ? s : undefined;
}

/** Doc sentences found in a chunk: where each documented unit starts (doc start) and its sentence. */
interface DocUnit {
  start: number;
  sentence: string;
}

const DOC_PATTERNS: Record<string, RegExp> = {
  // a def/class line, then its docstring
  python: /^[ \t]*(?:async\s+)?(?:def|class)\s+\w+[^\n]*:\s*\n\s*[rRuU]?("""|''')([\s\S]*?)\1/gm,
  // // lines right before func/type/var/const
  go: /((?:^[ \t]*\/\/[^\n]*\n)+)[ \t]*(?:func|type|var|const)\s/gm,
  // /// lines (attributes may follow) before an item
  rust: /((?:^[ \t]*\/\/\/[^\n]*\n)+)(?:[ \t]*#\[[^\n]*\n)*[ \t]*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|const\s+|unsafe\s+|extern\s+"[^"]*"\s+)*(?:fn|struct|enum|trait|type|impl|mod|macro_rules!|const|static)\b/gm,
  // /** … */ before a declaration or member
  js: /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*(?=(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:public\s+|private\s+|protected\s+|static\s+|readonly\s+|async\s+|get\s+|set\s+)*(?:function\b|class\b|interface\b|type\b|enum\b|const\b|let\b|var\b|namespace\b|[\w$]+\s*[(<:?=]))/g,
};

function docText(lang: string, m: RegExpMatchArray): string {
  if (lang === 'python') return m[2];
  if (lang === 'go') return m[1].replace(/^[ \t]*\/\/ ?/gm, '');
  if (lang === 'rust') return m[1].replace(/^[ \t]*\/\/\/ ?/gm, '');
  const body = m[1].replace(/^\s*\* ?/gm, '');
  const summary = /@summary\s+([^\n]+)/.exec(body);
  return summary ? summary[1] : body.split(/\n\s*@/)[0];
}

export function docUnits(lang: string, text: string): DocUnit[] {
  const re = DOC_PATTERNS[lang];
  const out: DocUnit[] = [];
  for (const m of text.matchAll(re)) {
    const doc = docText(lang, m);
    if (lang === 'go' && /^(?:go:|\+build|nolint)/.test(doc.trim())) continue;
    const s = firstSentence(doc);
    if (s) out.push({ start: m.index ?? 0, sentence: s });
  }
  return out;
}

/** A regex for `sentence` as written in a comment: its words with whitespace, `*`, `//`, `#` between them. */
function sentencePattern(sentence: string): RegExp {
  const words = sentence.split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(words.join('(?:[\\s*]|//|#)+'), 'g');
}

/** The normalized text hash `--exclude-tree` compares: lowercase, whitespace collapsed. */
export function unitHash(text: string): string {
  return crypto.createHash('sha1').update(text.toLowerCase().replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16);
}

function languageOfFile(rel: string): string | undefined {
  for (const [lang, re] of Object.entries(CODE_EXT)) if (re.test(rel)) return lang;
  return undefined;
}

/** Units (doc start → next doc start) of one file's chunks, each with its sentence and the code without it. */
function* pairsOfFile(rel: string, text: string, lang: string): Generator<{ sentence: string; code: string; original: string }> {
  const r = chunkFile(rel, text, { maxTokens: 512 });
  for (const chunk of r.chunks as Chunk[]) {
    const units = docUnits(lang, chunk.text);
    for (let i = 0; i < units.length; i++) {
      const u = units[i];
      const end = i + 1 < units.length ? units[i + 1].start : chunk.text.length;
      const original = chunk.text.slice(u.start, end);
      const code = original.replace(sentencePattern(u.sentence), '');
      if (code === original) continue;
      yield { sentence: u.sentence, code: `${chunk.header}\n${code}`, original };
    }
  }
}

/** Hashes of every doc unit and every chunk of a folder (for --exclude-tree). */
function treeHashes(dir: string): Set<string> {
  const out = new Set<string>();
  for (const abs of walk(dir)) {
    const rel = path.relative(dir, abs).split(path.sep).join('/');
    const lang = languageOfFile(rel);
    if (!lang) continue;
    let text: string;
    try {
      if (fs.statSync(abs).size > MAX_FILE_BYTES) continue;
      text = fs.readFileSync(abs, 'utf8');
    } catch {
      continue;
    }
    for (const p of pairsOfFile(rel, text, lang)) out.add(unitHash(p.original));
    for (const c of chunkFile(rel, text, { maxTokens: 512 }).chunks) out.add(unitHash(c.text));
  }
  return out;
}

interface Source {
  lang: string;
  pkg: string;
  version: string;
  root: string;
}

function sources(data: string, npmDirs: string[]): Source[] {
  const out: Source[] = [];
  const versions = new Map<string, string>();
  const list = path.join(__dirname, 'debian-packages.txt');
  for (const line of fs.readFileSync(list, 'utf8').split('\n')) {
    const m = /^(\w+) ([^=\s]+)=(\S+)$/.exec(line.trim());
    if (m) versions.set(m[2], m[3]);
  }
  for (const lang of Object.keys(CODE_EXT)) {
    const dir = path.join(data, 'src', lang);
    if (!fs.existsSync(dir)) continue;
    for (const pkg of fs.readdirSync(dir).sort()) out.push({ lang, pkg, version: versions.get(pkg) ?? '?', root: path.join(dir, pkg) });
  }
  // npm: TypeScript's own lib.*.d.ts and Node's type declarations, from this repo's node_modules,
  // and every package a --npm folder (train/npm-packages.json installed there) holds at its top level
  const npmPackage = (nm: string, name: string) => {
    const pj = path.join(nm, name, 'package.json');
    if (!seen.has(name) && fs.existsSync(pj)) {
      seen.add(name);
      out.push({ lang: 'js', pkg: `npm:${name}`, version: JSON.parse(fs.readFileSync(pj, 'utf8')).version, root: path.join(nm, name) });
    }
  };
  const seen = new Set<string>();
  for (const name of ['typescript', '@types/node']) npmPackage(path.join(__dirname, '..', 'node_modules'), name);
  for (const dir of npmDirs) {
    const nm = path.join(dir, 'node_modules');
    const pinned = Object.keys((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {}).sort();
    for (const name of pinned) npmPackage(nm, name);
  }
  return out;
}

/** A source's licence: npm's `license` field, or the first `License:` of a Debian package's copyright file. */
function licenseOf(src: Source): string {
  try {
    if (src.pkg.startsWith('npm:')) {
      const l = (JSON.parse(fs.readFileSync(path.join(src.root, 'package.json'), 'utf8')) as { license?: unknown }).license;
      return typeof l === 'string' ? l : l && typeof l === 'object' && 'type' in l ? String((l as { type: unknown }).type) : '?';
    }
    const copyright = fs.readFileSync(path.join(src.root, 'usr', 'share', 'doc', src.pkg, 'copyright'), 'utf8');
    const all = [...copyright.matchAll(/^License:\s*(\S[^\n]*)$/gm)].map((m) => m[1].trim());
    return all.length ? [...new Set(all)].slice(0, 3).join(' / ') : '?';
  } catch {
    return '?';
  }
}

/**
 * Open-source licences a training source may have (SPDX ids, and BSD-0-Clause, which some
 * packages write for 0BSD). Debian's main archive is free software by policy; an npm package
 * says what it is in its `license` field, and some say "SEE LICENSE IN …" (a vendor's own
 * terms), "UNLICENSED" or nothing: those are left out, so the model is trained on open code only.
 */
const OPEN_LICENCES = new Set(
  [
    '0BSD', 'BSD-0-Clause', 'AFL-2.1', 'AFL-3.0', 'Apache-2.0', 'Artistic-2.0', 'BlueOak-1.0.0', 'BSD-2-Clause', 'BSD-3-Clause', 'BSL-1.0',
    'CC0-1.0', 'CC-BY-3.0', 'CC-BY-4.0', 'EPL-1.0', 'EPL-2.0', 'GPL-2.0', 'GPL-2.0-only', 'GPL-2.0-or-later', 'GPL-3.0',
    'GPL-3.0-only', 'GPL-3.0-or-later', 'ISC', 'LGPL-2.1', 'LGPL-2.1-only', 'LGPL-2.1-or-later', 'LGPL-3.0',
    'LGPL-3.0-only', 'LGPL-3.0-or-later', 'MIT', 'MIT-0', 'MPL-2.0', 'Python-2.0', 'Unlicense', 'UPL-1.0', 'WTFPL', 'Zlib',
  ].map((id) => id.toLowerCase()),
);

/**
 * Whether an npm `license` expression is open source: SPDX ids joined by OR (one open
 * alternative is enough) and AND (every part must be open), parentheses allowed, `+` and
 * `WITH <exception>` ignored. Anything else (a URL, "SEE LICENSE IN …", "UNLICENSED", "?") is not.
 */
export function isOpenLicence(expr: string): boolean {
  const tokens = expr.replace(/\bWITH\s+[\w.-]+/gi, '').match(/\(|\)|[^\s()]+/g) ?? [];
  let i = 0;
  const orExpr = (): boolean => {
    let open = andExpr();
    while (/^or$/i.test(tokens[i] ?? '')) {
      i++;
      open = andExpr() || open;
    }
    return open;
  };
  const andExpr = (): boolean => {
    let open = term();
    while (/^and$/i.test(tokens[i] ?? '')) {
      i++;
      open = term() && open;
    }
    return open;
  };
  const term = (): boolean => {
    const t = tokens[i++];
    if (t === '(') {
      const open = orExpr();
      if (tokens[i++] !== ')') return false;
      return open;
    }
    return t !== undefined && OPEN_LICENCES.has(t.replace(/\+$/, '').toLowerCase());
  };
  const open = orExpr();
  return open && i === tokens.length;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  await prepareLanguagesFor(['a.py', 'a.go', 'a.rs', 'a.ts', 'a.js']);
  const excluded = new Set<string>();
  for (const dir of args.exclude) {
    const before = excluded.size;
    for (const h of treeHashes(dir)) excluded.add(h);
    process.stderr.write(`[extract] --exclude-tree ${dir}: ${excluded.size - before} unit hashes\n`);
  }
  // written synchronously: the loop below never yields, so a stream would hold everything in memory
  const out = fs.openSync(args.out, 'w');
  const seenCode = new Set<string>();
  const seenQuery = new Map<string, number>();
  const manifest: Array<{ language: string; package: string; version: string; license: string; pairs: number }> = [];
  let dropped = 0;
  let total = 0;
  const t0 = Date.now();
  const all = sources(args.data, args.npm);
  for (const [n, src] of all.entries()) {
    if (n % 200 === 0) process.stderr.write(`[extract] ${n}/${all.length} packages, ${total} pairs, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    const licence = licenseOf(src);
    if (src.pkg.startsWith('npm:') && !isOpenLicence(licence)) {
      process.stderr.write(`[extract] left out ${src.pkg}@${src.version}: its licence "${licence}" is not an open-source licence\n`);
      continue;
    }
    let pairs = 0;
    for (const abs of walk(src.root)) {
      if (pairs >= args.limitPerPackage) break;
      const rel = path.relative(src.root, abs).split(path.sep).join('/');
      if (SKIP_PATH.test(rel)) continue;
      const lang = languageOfFile(rel);
      if (lang !== src.lang) continue;
      let text: string;
      try {
        if (fs.lstatSync(abs).size > MAX_FILE_BYTES) continue;
        text = fs.readFileSync(abs, 'utf8');
      } catch {
        continue;
      }
      let found;
      try {
        found = [...pairsOfFile(rel, text, lang)];
      } catch (err) {
        process.stderr.write(`[extract] skipped ${src.pkg}/${rel}: ${(err as Error).message}\n`);
        continue;
      }
      for (const p of found) {
        if (excluded.has(unitHash(p.original))) {
          dropped++;
          continue;
        }
        const h = unitHash(p.code);
        if (seenCode.has(h)) continue;
        seenCode.add(h);
        const qk = p.sentence.toLowerCase();
        const n = seenQuery.get(qk) ?? 0;
        if (n >= 2) continue; // boilerplate sentences ("Returns the value.") teach little
        seenQuery.set(qk, n + 1);
        const q = modelTerms(p.sentence);
        const c = modelTerms(p.code);
        if (q.length < 2 || c.length < 3) continue;
        fs.writeSync(out, `${JSON.stringify({ l: lang, p: src.pkg, f: rel, q, c, h })}\n`);
        pairs++;
        total++;
      }
    }
    if (pairs) manifest.push({ language: src.lang, package: src.pkg, version: src.version, license: licence, pairs });
  }
  fs.closeSync(out);
  if (args.manifest) fs.writeFileSync(args.manifest, `${JSON.stringify({ pairs: total, excludedByTree: dropped, sources: manifest }, null, 1)}\n`);
  const byLang: Record<string, number> = {};
  for (const m of manifest) byLang[m.language] = (byLang[m.language] ?? 0) + m.pairs;
  process.stderr.write(`[extract] ${total} pairs from ${manifest.length} packages (${JSON.stringify(byLang)}), ${dropped} dropped by --exclude-tree, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`[extract] ${(err as Error).stack}\n`);
    process.exit(1);
  });
}
