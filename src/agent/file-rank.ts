/**
 * Files, not chunks, for an agent: which files of a folder a task points at, each with the
 * place and line(s) that made it rank. An agent given 2,000 tokens is better served by thirty
 * candidate files with their best line than by the whole text of two chunks: it opens the
 * files it picks (the `context` tool, or its own reader).
 *
 * `rankFiles` fuses several chunk rankings into one file ranking:
 * - the main query (agent-query.ts: content words and identifiers), deep (`MAIN_DEPTH` chunks);
 * - each identifier of the query on its own (`IDENT_DEPTH` chunks), since one of them usually
 *   names the place that changes;
 * - path terms: a query term that is (a part of) a file's path — `archive` for
 *   django/utils/archive.py — scores by how rare it is among the folder's paths (idf), and can
 *   bring in a file that no chunk ranking reached.
 * - file names: a query token written like a file name (`docker.service`) or a folder path
 *   (`pkg/signal`) brings in the files of that name or under that folder;
 * - what kind of file it is (`filePrior`): for a task sentence, a change log, a translated copy
 *   of a file (`man-pages/uk/man1/x.1` next to `man-pages/man1/x.1`) and the project's meta
 *   files (issue templates, contributing guides) weigh less: a change is made in code, tests and
 *   docs, and those files merely mention everything. A task about tests (`Skip network tests`)
 *   weighs test files up;
 * - a task about dependencies (`Remove run-time dependency on cffi`): the manifests (setup.cfg,
 *   package.json, go.mod, Cargo.toml …) ranked on their own as well;
 * - the files that import the module a task names (`Disable Consul`: a first file is in
 *   discovery/consul, and discovery/install/install.go imports it), when few files do
 *   (imports.ts): a part that is plugged in is also changed where it is registered.
 * A file's score from one ranking adds its chunks' reciprocal ranks with a decay (the best
 * chunk counts whole, the next half, …), so a file with several good chunks beats a file with
 * one, but not a file with a much better one.
 *
 * `bestLines` picks the lines of a chunk that hold the most of the query's terms (identifier
 * terms weigh more than words), the excerpt shown under the file.
 */
import type { Chunk } from '../chunkers/types';
import { isProsePath, type FilterSpec } from '../index/rank/fusion';
import type { SearchHit, SearchMode } from '../index/engine';
import { sStem, terms } from '../index/terms';
import { isLocaleCode } from '../i18n/locale-code';
import type { AgentQuery } from './agent-query';
import type { AgentFolder } from './folder';
import { importersOf } from './imports';

/** Chunks of the main ranking that count towards file scores. */
export const MAIN_DEPTH = 200;
/** Chunks of each identifier's own ranking. */
export const IDENT_DEPTH = 40;
/**
 * A chunk at rank r adds U · (K + 1) / (K + r) to its file (U: the worth of a rank-1 chunk,
 * whatever K). The first ten ranks of a many-word query say little about which is better, so
 * they stay close (K 10) and a file's other chunks decide; an identifier's own ranking, and a
 * short query (an identifier, two words), mean their first ranks: K 1, steep.
 */
const SENTENCE_RANK_K = 10;
const SHORT_RANK_K = 1;
const U = 1 / (SENTENCE_RANK_K + 1);
/** Weight of a file's j-th best chunk within one ranking: DECAY^j. */
const DECAY = 0.5;
/** Weight of one ranking by an identifier, relative to the main query's. */
const IDENT_WEIGHT = 1;
/** A path term as rare as can be is worth this share of a rank-1 chunk. */
const PATH_WEIGHT = 0.6;
/** Path bonus (in idf shares) below which a file no ranking reached is not brought in. */
const MIN_PATH_ONLY = 0.1;
/** A file the query names (`docker.service`) is worth this share of a rank-1 chunk; a file under a folder it names, `FOLDER_NAME_WEIGHT`. */
const FILE_NAME_WEIGHT = 2;
const FOLDER_NAME_WEIGHT = 0.5;
/** Score factor of a change log, a translated copy, a project meta file (task sentences only). */
const INCIDENTAL_FACTOR = 0.3;
/**
 * Score factor of a prose file (Markdown, reStructuredText, text, man pages, docs/ but code) and
 * of a translation file, for a task sentence not about docs / translations. Measured on the
 * tuning half of bench/agent.ts (57 tasks, recall@5): prose 1 → 0.50, 0.5 → 0.52, 0.3 → 0.53,
 * 0.2 → 0.54 (one task more; 0.3 kept: a doc a behaviour task names still comes in); locale
 * files 0.5: no change there (none of those tasks changes one), kept for the case the issue saw
 * (`compose a new post` answered locales/pt-BR.json first).
 */
const PROSE_FACTOR = 0.3;
const LOCALE_FACTOR = 0.5;
/** Score factor of a file that is not a test, when the task is about tests. */
const NOT_TEST_FACTOR = 0.5;
/** Weight of the ranking of manifests alone, when the task is about dependencies. */
const MANIFEST_WEIGHT = 1;
const MANIFEST_GLOBS = ['package.json', 'setup.py', 'setup.cfg', 'pyproject.toml', 'requirements*.txt', 'Pipfile', 'go.mod', 'Cargo.toml', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'Gemfile', '*.gemspec', 'composer.json', '*.csproj'];
/**
 * A file that imports the module a task names (see `namedModule`) gets this share of a rank-1
 * chunk, if at most `MAX_IMPORTERS` files import it. Measured on bench/agent.ts (recall@5 over
 * the first 5 distinct files, tuning / held-out): 0.501 / 0.477 without, 0.519 / 0.481 with
 * (weight 1 or 2 the same; no repository lower on either half).
 */
const IMPORTER_WEIGHT = 1;
const MAX_IMPORTERS = 8;
/** Files ranked at most (the deepest a cursor pages). */
export const MAX_FILES = 500;

export interface RankedFile {
  path: string;
  score: number;
  /** The file's chunks that ranked, best first (at least one: the excerpt's). */
  hits: SearchHit[];
  /** Query terms found in the path. */
  pathTerms: string[];
}

const pathTermCache = new Map<string, string[]>();

function pathTermsOf(p: string): string[] {
  let t = pathTermCache.get(p);
  if (!t) {
    if (pathTermCache.size > 500_000) pathTermCache.clear();
    const set = new Set<string>();
    for (const x of terms(p.replace(/\.[A-Za-z0-9]+$/, ''))) {
      set.add(x);
      set.add(sStem(x));
    }
    t = [...set];
    pathTermCache.set(p, t);
  }
  return t;
}

/** The file ranking of one folder for an analysed query. */
export async function rankFiles(folder: AgentFolder, q: AgentQuery, options: { mode: SearchMode; filters: FilterSpec; depth?: number; limit?: number }): Promise<RankedFile[]> {
  const { mode, filters } = options;
  const byFile = new Map<string, { score: number; hits: Map<number, SearchHit>; pathTerms: string[] }>();
  const entry = (p: string) => {
    let e = byFile.get(p);
    if (!e) byFile.set(p, (e = { score: 0, hits: new Map(), pathTerms: [] }));
    return e;
  };
  const addRanking = (hits: SearchHit[], weight: number, K: number) => {
    const seen = new Map<string, number>();
    hits.forEach((h, i) => {
      const j = seen.get(h.chunk.path) ?? 0;
      seen.set(h.chunk.path, j + 1);
      const e = entry(h.chunk.path);
      e.score += (weight * U * (K + 1) * DECAY ** j) / (K + i + 1);
      if (!e.hits.has(h.docId)) e.hits.set(h.docId, h);
    });
  };
  const text = q.text || q.raw;
  // the chunks in their fused order: the learned re-ranking (rank/rerank.ts) orders chunks for a
  // reader of chunks; summed into files here it did not help (bench/agent.ts recall@5, tuning /
  // held-out: 0.47 / 0.49 with it, 0.50 / 0.48 without)
  addRanking(await folder.search(text, { k: options.depth ?? MAIN_DEPTH, mode, filters, diversify: false, rerank: false }), 1, q.passThrough ? SHORT_RANK_K : SENTENCE_RANK_K);
  if (!q.passThrough) {
    for (const id of q.identifiers) addRanking(await folder.search(id, { k: IDENT_DEPTH, mode, filters, diversify: false }), IDENT_WEIGHT / Math.max(1, q.identifiers.length / 2), SHORT_RANK_K);
  }
  // a filter's verdict on a file is the engine's: only its hits pass
  const filtered = !!(filters.pathGlob || filters.language?.length || filters.kind?.length);
  // a task about dependencies: the manifests, ranked on their own
  if (q.aboutDependencies && !filtered) addRanking(await folder.search(text, { k: IDENT_DEPTH, mode, filters: { pathGlob: MANIFEST_GLOBS }, diversify: false, rerank: false }), MANIFEST_WEIGHT, SHORT_RANK_K);
  // path terms, weighted by their rarity among the folder's paths
  const paths = folder.paths?.();
  const all = new Set<string>();
  if (paths && (q.pathTerms.size || q.fileNames.length || !q.passThrough)) {
    const wanted = q.pathTerms;
    const df = new Map<string, number>();
    const matched: Array<[string, string[]]> = [];
    let n = 0;
    for (const p of paths) {
      n++;
      all.add(p);
      const named = q.fileNames.length ? nameMatch(p, q.fileNames) : 0;
      if (named && (!filtered || byFile.has(p))) entry(p).score += named * U;
      const mine = pathTermsOf(p).filter((t) => wanted.has(t));
      if (!mine.length) continue;
      matched.push([p, mine]);
      for (const t of mine) df.set(t, (df.get(t) ?? 0) + 1);
    }
    const maxIdf = Math.log(1 + n);
    // in units of a sentence's rank-1 chunk, whatever the query's K
    const unit = PATH_WEIGHT * U;
    for (const [p, mine] of matched) {
      // s-stems of a term are the same concept: count a term and its stem once
      const concepts = new Set(mine.map(sStem));
      let bonus = 0;
      for (const c of concepts) bonus += ((wanted.get(c) ?? 0) * Math.log(1 + n / (df.get(c) ?? n))) / maxIdf;
      const e = byFile.get(p);
      if (!e && filtered) continue;
      if (!e && bonus < MIN_PATH_ONLY) continue; // a word most paths hold brings no file in
      const x = e ?? entry(p);
      x.score += unit * bonus;
      x.pathTerms = [...concepts];
    }
  }
  for (const [p, e] of byFile) e.score *= filePrior(p, q, all);
  // the module a task is about — the folder of one of its first files, when the task names that
  // folder ("Disable Consul": discovery/consul) — is changed where it is imported too: its registry
  // (discovery/install/install.go, backend/all/all.go), the files that list it; a one-word query
  // asks for the places of that word alone, and a filter's verdict is the engine's
  if (!filtered && folder.readFile && folder.fileHash && all.size && q.raw.split(/\s+/).length >= 2) {
    const module = namedModule(byFile, q);
    if (module) {
      const read = folder.readFile.bind(folder);
      const importers = importersOf(module, all, folder.fileHash.bind(folder), (p, max) => {
        const r = read(p, max);
        return r.ok ? r.decoded.text : undefined;
      });
      // imported from many places it is a library the task names, not a part it switches
      if (importers && importers.length <= MAX_IMPORTERS) for (const p of importers) (byFile.get(p) ?? entry(p)).score += IMPORTER_WEIGHT * U * filePrior(p, q, all);
    }
  }
  const sorted = [...byFile].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1));
  const out: RankedFile[] = [];
  for (const [p, e] of sorted) {
    if (out.length >= (options.limit ?? MAX_FILES)) break;
    let hits = [...e.hits.values()];
    if (!hits.length) {
      // reached by its path only: its chunk that holds the most query terms (found only for
      // files that make the list: a common path word matches thousands)
      const chunks = folder.chunksOf(p) ?? [];
      if (!chunks.length) continue;
      hits = [{ chunk: bestChunk(chunks, q), docId: -1, score: 0, why: { fused: 0 } }];
    }
    out.push({ path: p, score: e.score, hits, pathTerms: e.pathTerms });
  }
  return out;
}

/** How many of the best-scored files may name the module a task is about. */
const MODULE_FROM_FIRST = 3;

/**
 * The module a task is about: the folder of the best-scored file whose folder the query names (its
 * last segment is a path term of the query), among the first `MODULE_FROM_FIRST` files.
 */
function namedModule(byFile: Map<string, { score: number }>, q: AgentQuery): string | undefined {
  // the first few in the final order (score, then path), kept as they come: no sort of every file
  const first: Array<[string, number]> = [];
  for (const [p, e] of byFile) {
    first.push([p, e.score]);
    first.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (first.length > MODULE_FROM_FIRST) first.pop();
  }
  for (const [p] of first) {
    const dir = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '';
    const name = dir.slice(dir.lastIndexOf('/') + 1).toLowerCase();
    if (name && (q.pathTerms.has(name) || q.pathTerms.has(sStem(name)))) return dir;
  }
  return undefined;
}

/** How strongly `p` is named by the query's file names: a file of that name, or under that folder. */
function nameMatch(p: string, names: string[]): number {
  const lower = p.toLowerCase();
  const base = lower.slice(lower.lastIndexOf('/') + 1);
  let best = 0;
  for (const n of names) {
    if (base === n || lower === n || lower.endsWith(`/${n}`)) return FILE_NAME_WEIGHT;
    if (n.includes('/') && (lower.startsWith(`${n}/`) || lower.includes(`/${n}/`))) best = FOLDER_NAME_WEIGHT;
  }
  return best;
}

const CHANGE_LOG = /^(?:change[-_]?log|changes|news|history|whats[-_]?new|release[-_]?notes)(?:\.[a-z]+)?$/i;
const META = /(?:^|\/)(?:\.github\/|contributing(?:\.[a-z]+)?$|code[-_]of[-_]conduct(?:\.[a-z]+)?$|security\.md$|authors(?:\.[a-z]+)?$|contributors(?:\.[a-z]+)?$)/i;
const TEST_DIR = /^(?:tests?|__tests__|testsuite|testing|spec|specs|e2e|integration-tests?)$/i;
const TEST_FILE = /(?:^test_|_test\.|[._-](?:test|spec)s?\.[a-z]+$|^tests?\.[a-z]+$|Tests?\.[a-z]+$)/;

const LOCALE_DIR = /^(?:locales?|i18n|l10n|translations?|lang|langs|po)$/i;

/** Prose documentation (one definition with search's ranking). */
export { isProsePath };

/** A translation file: gettext catalogues, or a file under a locales / i18n / translations folder. */
export function isLocalePath(p: string): boolean {
  const parts = p.split('/');
  const base = parts.pop() ?? '';
  return /\.(?:po|pot|mo|xliff|xlf|strings|resx)$/i.test(base) || parts.some((d) => LOCALE_DIR.test(d));
}

/** A test file: under a test folder or named like one (`test_x.py`, `x_test.go`, `x.spec.ts`, `XTest.java`). */
export function isTestPath(p: string): boolean {
  const parts = p.split('/');
  const base = parts.pop() ?? '';
  return parts.some((d) => TEST_DIR.test(d)) || TEST_FILE.test(base);
}

/**
 * A translated copy: a folder of the path is a locale other than English (`uk`, `pt_BR`) and
 * the same path exists with another locale there, or without that folder.
 */
function isTranslatedCopy(p: string, all: Set<string>): boolean {
  const parts = p.split('/');
  for (let i = 0; i < parts.length - 1; i++) {
    const seg = parts[i];
    if (seg.length > 12 || /^en$/i.test(seg) || !isLocaleCode(seg)) continue;
    const without = [...parts.slice(0, i), ...parts.slice(i + 1)].join('/');
    if (all.has(without) || all.has([...parts.slice(0, i), 'en', ...parts.slice(i + 1)].join('/'))) return true;
  }
  return false;
}

/** The weight of a file by its kind, for this query (1: no opinion). */
export function filePrior(p: string, q: AgentQuery, all: Set<string>): number {
  let f = 1;
  if (q.aboutTests && !isTestPath(p)) f *= NOT_TEST_FACTOR;
  if (q.passThrough) return f; // a short query says what it wants, a change log included
  const base = p.slice(p.lastIndexOf('/') + 1);
  // a release is recorded in the change log: there it is a place of the task, not a mention
  const releaseLog = q.aboutRelease && CHANGE_LOG.test(base);
  if ((CHANGE_LOG.test(base) && !releaseLog) || META.test(p) || isTranslatedCopy(p, all)) f *= INCIDENTAL_FACTOR;
  // a task about behaviour is done in code (tests are not weighed down: the changes measured
  // touch them as often as the code, and a factor of 0.5 on them lost 0.03 recall@5)
  if (!q.aboutDocs && !releaseLog && isProsePath(p)) f *= PROSE_FACTOR;
  if (!q.aboutTranslations && isLocalePath(p)) f *= LOCALE_FACTOR;
  return f;
}

interface TermWeights {
  weight: Map<string, number>;
}

function termWeights(q: AgentQuery): TermWeights {
  const weight = new Map<string, number>();
  const put = (t: string, w: number) => weight.set(t, Math.max(weight.get(t) ?? 0, w));
  for (const id of q.identifiers) {
    const ts = terms(id);
    ts.forEach((t, i) => put(t, i === 0 && ts.length > 1 ? 3 : 1.5));
  }
  for (const w of q.passThrough ? terms(q.text || q.raw) : q.words) for (const t of terms(w)) put(t, 1);
  return { weight };
}

function lineScore(line: string, tw: TermWeights): number {
  let s = 0;
  const seen = new Set<string>();
  for (const t of terms(line)) {
    if (seen.has(t)) continue;
    seen.add(t);
    s += tw.weight.get(t) ?? tw.weight.get(sStem(t)) ?? 0;
  }
  return s;
}

function bestChunk(chunks: Chunk[], q: AgentQuery): Chunk {
  const tw = termWeights(q);
  let best = chunks[0];
  let bestScore = -1;
  for (const c of chunks) {
    const s = lineScore(`${c.symbol ?? ''} ${c.text.slice(0, 4000)}`, tw);
    if (s > bestScore) {
      best = c;
      bestScore = s;
    }
  }
  return best;
}

export interface Excerpt {
  line: number;
  text: string;
}

/** The `n` lines of `chunk` holding the most query terms (in line order), or its first line. */
export function bestLines(chunk: Chunk, q: AgentQuery, n: number, maxChars = 160): Excerpt[] {
  const tw = termWeights(q);
  const lines = chunk.text.split('\n');
  const scored: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < lines.length && i < 400; i++) {
    if (!lines[i].trim()) continue;
    const s = lineScore(lines[i], tw);
    if (s > 0) scored.push({ i, s });
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  let pick = scored.slice(0, n).map((x) => x.i);
  if (!pick.length) {
    const first = lines.findIndex((l) => l.trim());
    pick = first >= 0 ? [first] : [];
  }
  const cut = (s: string) => {
    const t = s.trim();
    return t.length > maxChars ? `${t.slice(0, maxChars - 1)}…` : t;
  };
  return pick.sort((a, b) => a - b).map((i) => ({ line: chunk.start.line + i, text: cut(lines[i]) }));
}
