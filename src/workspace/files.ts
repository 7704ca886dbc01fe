/**
 * Which files of a folder Fathom looks at: everything below it except version-control and
 * dependency folders, what `.gitignore` files (at every level) exclude, and what a
 * `FileSelection` (the editor's `files.exclude`/`search.exclude` and Fathom's own
 * include/exclude settings, passed by the extension) leaves out. Plain Node.
 *
 * The same rules judge one path at a time (`createPathFilter`), for the file watcher's
 * updates: a file the walk would not list is never indexed by an update either.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { compileGlobs } from './glob';
import { toRel } from '../util/paths';

const ALWAYS_SKIPPED = new Set(['.git', '.hg', '.svn', 'node_modules', '.fathom']);

export interface WalkedFile {
  /** Path relative to the root, with `/`. */
  rel: string;
  abs: string;
  size: number;
  /** The modification time the walk's stat saw (the index compares it with the stored one). */
  mtimeMs: number;
}

export interface WalkProblem {
  rel: string;
  reason: string;
  /** `not-regular`: a symlink (not followed), FIFO, socket or device; else unreadable. */
  kind?: 'unreadable' | 'not-regular';
}

/** Why an entry that is neither a folder nor a regular file is not read. */
export function notRegularReason(e: { isSymbolicLink(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (e.isSymbolicLink()) return 'a symbolic link (links are not followed)';
  if (e.isFIFO()) return 'a named pipe (FIFO), not a regular file';
  if (e.isSocket()) return 'a socket, not a regular file';
  if (e.isCharacterDevice()) return 'a character device, not a regular file';
  if (e.isBlockDevice()) return 'a block device, not a regular file';
  return 'not a regular file';
}

/**
 * Globs over the folder-relative path (`/`-separated), matched as VS Code matches
 * `files.exclude`: against the whole relative path (`*.log` is top-level only, `**\/*.log`
 * anywhere), dot files included. An excluded folder excludes everything under it.
 */
export interface FileSelection {
  /** When non-empty, only files matching one of these are indexed. */
  include?: string[];
  exclude?: string[];
}

export interface CompiledSelection {
  /** False for a file or folder an exclude glob matches. */
  allowed(rel: string, isDir: boolean): boolean;
}

export function compileSelection(sel: FileSelection = {}): CompiledSelection {
  const clean = (list: string[] | undefined) => (list ?? []).map((g) => g.trim().replace(/^\.\//, '').replace(/\/+$/, '')).filter((g) => g.length > 0);
  const inc = clean(sel.include);
  const exc = clean(sel.exclude);
  // linear-time globs (glob.ts): these come from settings a cloned repository can set
  const incM = inc.length ? compileGlobs(inc) : undefined;
  const excM = exc.length ? compileGlobs(exc) : undefined;
  return {
    allowed: (rel, isDir) => {
      if (excM && excM(rel)) return false;
      if (!isDir && incM && !incM(rel)) return false;
      return true;
    },
  };
}

type Rules = Array<{ base: string; ig: Ignore }>;

/**
 * The walk itself, depth first in sorted order, without recursion (a folder tree as deep as
 * the OS allows is fine): yields after each folder it lists, so a driver can give the event
 * loop a turn there (`walkFilesAsync`). `signal` is checked between entries.
 */
/** Lines longer than this are compiled alone first: V8 refuses a regular expression that large. */
const LONG_PATTERN = 1000;

/**
 * The rules of a `.gitignore` text. The `ignore` package turns each pattern into a regular
 * expression when a path is first tested, so a pattern V8 cannot compile ("Regular expression
 * too large": one 40,000-character line) would fail the whole walk there; a long pattern is
 * compiled alone first, and one that fails is left out and reported through `leftOut`.
 */
export function gitignoreRules(text: string, leftOut?: (pattern: string, why: string, line: number) => void): Ignore {
  const lines = text.split(/\r?\n/);
  if (!lines.some((l) => l.length > LONG_PATTERN)) return ignore().add(text);
  const kept: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.length > LONG_PATTERN) {
      try {
        // a negated pattern compiles to the same expression without its `!`; a positive rule is
        // always tested, so this compiles it
        ignore().add(line.replace(/^!/, '')).ignores('a');
      } catch (err) {
        leftOut?.(line, (err as Error).message.replace(/^Invalid regular expression: \/[\s\S]*\/\w*: /, ''), i + 1);
        continue;
      }
    }
    kept.push(line);
  }
  return ignore().add(kept.join('\n'));
}

/** A long text cut to its start and length, for a message. */
function shorten(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function* walkSteps(root: string, out: WalkedFile[], problems: WalkProblem[], selection?: FileSelection, signal?: AbortSignal): Generator<void, void> {
  const sel = compileSelection(selection);
  const list = (dirAbs: string, dirRel: string, rules: Rules): { entries: fs.Dirent[]; rules: Rules } => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      problems.push({ rel: dirRel || '.', reason: `unreadable folder: ${(err as Error).message}` });
      return { entries: [], rules };
    }
    const here = entries.find((e) => e.name === '.gitignore' && e.isFile());
    if (here) {
      try {
        const rel = `${dirRel ? `${dirRel}/` : ''}.gitignore`;
        const ig = gitignoreRules(fs.readFileSync(path.join(dirAbs, '.gitignore'), 'utf8'), (pattern, why, line) =>
          problems.push({ rel: `${rel}:${line}`, reason: `pattern left out (${why}): ${shorten(pattern)}` }),
        );
        rules = [...rules, { base: dirRel, ig }];
      } catch (err) {
        problems.push({ rel: `${dirRel ? `${dirRel}/` : ''}.gitignore`, reason: `unreadable: ${(err as Error).message}` });
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries, rules };
  };
  const stack: Array<{ dirAbs: string; dirRel: string; rules: Rules; entries: fs.Dirent[]; next: number }> = [];
  const open = (dirAbs: string, dirRel: string, rules: Rules) => stack.push({ dirAbs, dirRel, ...list(dirAbs, dirRel, rules), next: 0 });
  open(path.resolve(root), '', []);
  yield;
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.next >= top.entries.length) {
      stack.pop();
      continue;
    }
    const e = top.entries[top.next++];
    signal?.throwIfAborted();
    if (ALWAYS_SKIPPED.has(e.name)) continue;
    const rel = top.dirRel ? `${top.dirRel}/${e.name}` : e.name;
    const isDir = e.isDirectory();
    if (ignored(top.rules, rel, isDir) || !sel.allowed(rel, isDir)) continue;
    const abs = path.join(top.dirAbs, e.name);
    if (isDir) {
      open(abs, rel, top.rules);
      yield;
    } else if (e.isFile()) {
      try {
        const st = fs.statSync(abs);
        out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
      } catch (err) {
        problems.push({ rel, reason: `unreadable: ${(err as Error).message}` });
      }
    } else problems.push({ rel, reason: notRegularReason(e), kind: 'not-regular' }); // a visible skip, never read
  }
}

/**
 * Lists the files under `root`, in a stable (sorted) order. `signal` is checked between
 * entries: an aborted walk throws its reason (in one synchronous run it can only be aborted
 * from this thread: use `walkFilesAsync` where a message must be able to cancel it).
 */
export function walkFiles(root: string, problems: WalkProblem[] = [], selection?: FileSelection, signal?: AbortSignal): WalkedFile[] {
  const out: WalkedFile[] = [];
  for (const _ of walkSteps(root, out, problems, selection, signal)) void _;
  return out;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `walkFiles`, giving the event loop a turn every `everyMs` of listing (between folders), so a
 * cancel message reaches the thread and aborts `signal` while a huge tree is listed.
 */
export async function walkFilesAsync(root: string, problems: WalkProblem[] = [], selection?: FileSelection, signal?: AbortSignal, everyMs = 20): Promise<WalkedFile[]> {
  const out: WalkedFile[] = [];
  let slice = -Infinity; // a first turn right away: a cancel already on its way is seen before any listing
  for (const _ of walkSteps(root, out, problems, selection, signal)) {
    if (performance.now() - slice < everyMs) continue;
    await turn();
    signal?.throwIfAborted();
    slice = performance.now();
  }
  return out;
}

function ignored(rules: Rules, rel: string, isDir: boolean): boolean {
  for (const r of rules) {
    const sub = r.base ? rel.slice(r.base.length + 1) : rel;
    if (r.ig.ignores(isDir ? `${sub}/` : sub)) return true;
  }
  return false;
}

/**
 * Judges single paths with the walk's rules (always-skipped folders, `.gitignore` files of
 * every ancestor folder, the selection), reading each folder's `.gitignore` once per filter
 * (from disk under `root`, or through `readText`: the in-memory file source).
 * Make a new filter per batch of changes, so that an edited `.gitignore` is seen.
 */
export function createPathFilter(root: string, selection?: FileSelection, readText?: (rel: string) => string | undefined): (rel: string) => boolean {
  const rootAbs = path.resolve(root);
  // a .gitignore that is a link is not read, as at the walk (its target may lie outside the folder)
  const read = readText ?? ((rel: string) => (fs.lstatSync(path.join(rootAbs, rel)).isFile() ? fs.readFileSync(path.join(rootAbs, rel), 'utf8') : undefined));
  const sel = compileSelection(selection);
  const rulesOf = new Map<string, Array<{ base: string; ig: Ignore }>>();
  const rulesFor = (dirRel: string): Array<{ base: string; ig: Ignore }> => {
    const cached = rulesOf.get(dirRel);
    if (cached) return cached;
    const parent = dirRel === '' ? [] : rulesFor(dirRel.includes('/') ? dirRel.slice(0, dirRel.lastIndexOf('/')) : '');
    let rules = parent;
    try {
      const text = read(dirRel ? `${dirRel}/.gitignore` : '.gitignore');
      // a pattern no regular expression can hold is left out (the walk reports it)
      if (text !== undefined) rules = [...parent, { base: dirRel, ig: gitignoreRules(text) }];
    } catch {
      rules = parent; // no .gitignore in this folder (or unreadable: the walk reports that)
    }
    rulesOf.set(dirRel, rules);
    return rules;
  };
  return (relIn: string) => {
    const rel = toRel(relIn);
    if (!rel || rel.startsWith('../')) return false;
    const parts = rel.split('/');
    let dir = '';
    for (let i = 0; i < parts.length; i++) {
      const isDir = i < parts.length - 1;
      const sub = dir ? `${dir}/${parts[i]}` : parts[i];
      if (ALWAYS_SKIPPED.has(parts[i])) return false;
      if (ignored(rulesFor(dir), sub, isDir) || !sel.allowed(sub, isDir)) return false;
      dir = sub;
    }
    return true;
  };
}
