/**
 * Where a workspace folder's files come from: the one read policy of Fathom.
 *
 * A `FileSource` lists a folder's files (`walk`, with the walker's rules: `.gitignore` files at
 * every level, the always-skipped folders, the folder's `FileSelection`), judges single paths
 * with the same rules (`filter`, for watcher updates), and reads one file (`read`): stat, the
 * size cap compared in BYTES against the file's size (never against a decoded length), then
 * the bytes, their sha1 and their decoded text (UTF-8 with BOM removed, UTF-16 by its BOM,
 * invalid UTF-8 replaced and counted, binary refused with the reason). Every consumer (the
 * engine, the i18n index) gets the same decoded text from one read.
 *
 * Two implementations: `NodeFileSource` (a folder on disk, what the worker and the CLI use)
 * and `MemoryFileSource` (a map of paths to contents, for tests: no temp folders).
 */
import { sha1Hex } from '../util/hash';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeBytes, type Decoded } from '../parse/decode';
import { toRel } from '../util/paths';
import { createPathFilter, walkFiles, walkFilesAsync, type FileSelection, type WalkedFile, type WalkProblem } from './files';

export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** A file listed by `walk`: its folder-relative path with `/`, and its stat. */
export interface SourceFile extends FileStat {
  rel: string;
}

/** A file read: the bytes' sha1 and their decoded text (`decoded.text` undefined: binary). */
export interface FileContent {
  rel: string;
  stat: FileStat;
  bytes: Uint8Array;
  hash: string;
  decoded: Decoded;
}

/** Why a file was not read: larger than the cap (in bytes), gone, or unreadable. */
export interface FileNotRead {
  rel: string;
  stat?: FileStat;
  reason: 'too-large' | 'missing' | 'unreadable';
  detail: string;
}

export type ReadResult = ({ ok: true } & FileContent) | ({ ok: false } & FileNotRead);

export interface FileSource {
  /** What the folder is called in messages (its absolute path for a folder on disk). */
  readonly root: string;
  /** The folder's files in a stable (sorted) order; folders and files it could not read go to `problems`. */
  walk(selection?: FileSelection, problems?: WalkProblem[], signal?: AbortSignal): SourceFile[];
  /** `walk`, giving the event loop turns while it lists, so that `signal` can abort it from a message. */
  walkAsync(selection?: FileSelection, problems?: WalkProblem[], signal?: AbortSignal): Promise<SourceFile[]>;
  /** The walk's rules for single paths (a new filter per batch of changes: an edited `.gitignore` is seen). */
  filter(selection?: FileSelection): (rel: string) => boolean;
  stat(rel: string): FileStat | undefined;
  /** Reads one file unless its size is over `maxBytes` (bytes, default: no cap). Never throws. */
  read(rel: string, maxBytes?: number): ReadResult;
}

export const hashBytes = sha1Hex;


/** The one read policy over a stat and a byte reader (both implementations use it). */
function readWith(rel: string, stat: FileStat | undefined, maxBytes: number | undefined, readBytes: () => Uint8Array): ReadResult {
  if (!stat) return { ok: false, rel, reason: 'missing', detail: 'no such file' };
  if (maxBytes !== undefined && stat.size > maxBytes) {
    return { ok: false, rel, stat, reason: 'too-large', detail: `${stat.size} bytes, over the ${maxBytes}-byte cap` };
  }
  let bytes: Uint8Array;
  try {
    bytes = readBytes();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, rel, reason: 'missing', detail: 'deleted while being read' };
    return { ok: false, rel, stat, reason: 'unreadable', detail: (err as Error).message };
  }
  // the file may have grown between stat and read: the cap holds for what was read
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
    return { ok: false, rel, stat: { ...stat, size: bytes.byteLength }, reason: 'too-large', detail: `${bytes.byteLength} bytes, over the ${maxBytes}-byte cap` };
  }
  return { ok: true, rel, stat: { ...stat, size: bytes.byteLength }, bytes, hash: hashBytes(bytes), decoded: decodeBytes(bytes) };
}

/**
 * O_NOFOLLOW where the platform has it (not Windows: there the lstat check is the guard), and
 * O_NONBLOCK so that opening a FIFO that replaced a file never waits for a writer (fstat then
 * refuses it; a regular file ignores the flag).
 */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
const LINK_DETAIL = 'a symbolic link (links are not followed)';

/**
 * A folder on disk. Links are never followed, at the walk (files.ts) and at every read and stat
 * since: a file replaced by a link while Fathom watches (`ln -s /etc/passwd LICENSE`), or a
 * folder on the way replaced by one, is not read — the real path of the file's folder must be
 * the folder's own, and the file itself is opened with O_NOFOLLOW and checked with fstat.
 */
export class NodeFileSource implements FileSource {
  readonly root: string;
  /** The root's real path (the root itself may be reached through a link: the user opened it). */
  private realRoot: string | undefined;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Why `rel` is not read as a file inside the folder (a link on its way), or undefined. */
  private throughLink(rel: string): string | undefined {
    try {
      this.realRoot ??= fs.realpathSync.native(this.root);
      const dir = path.dirname(path.join(this.root, rel));
      const want = path.dirname(path.join(this.realRoot, rel));
      if (dir !== this.root && fs.realpathSync.native(dir) !== want) return `a path through ${LINK_DETAIL}`;
      if (fs.lstatSync(path.join(this.root, rel)).isSymbolicLink()) return LINK_DETAIL;
    } catch {
      // gone: the read says so
    }
    return undefined;
  }

  walk(selection?: FileSelection, problems: WalkProblem[] = [], signal?: AbortSignal): SourceFile[] {
    return this.withStats(walkFiles(this.root, problems, selection, signal));
  }

  async walkAsync(selection?: FileSelection, problems: WalkProblem[] = [], signal?: AbortSignal): Promise<SourceFile[]> {
    return this.withStats(await walkFilesAsync(this.root, problems, selection, signal));
  }

  /** The walk's files with the size and mtime its own stat saw (a second stat of each file cost ~5 µs a file, at a cold index's start). */
  private withStats(files: WalkedFile[]): SourceFile[] {
    return files.map((f) => ({ rel: f.rel, size: f.size, mtimeMs: f.mtimeMs }));
  }

  filter(selection?: FileSelection): (rel: string) => boolean {
    return createPathFilter(this.root, selection);
  }

  stat(rel: string): FileStat | undefined {
    try {
      // a link is no file of the folder's (its target is never read)
      if (this.throughLink(rel)) return undefined;
      const st = fs.lstatSync(path.join(this.root, rel));
      return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
    } catch {
      return undefined; // gone (or unreadable: read says which)
    }
  }

  read(rel: string, maxBytes?: number): ReadResult {
    const abs = path.join(this.root, rel);
    const link = this.throughLink(rel);
    if (link) return { ok: false, rel, reason: 'unreadable', detail: link };
    let fd: number;
    try {
      fd = fs.openSync(abs, OPEN_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { ok: false, rel, reason: 'missing', detail: 'no such file' };
      // O_NOFOLLOW on a link that appeared since the check
      if (code === 'ELOOP' || code === 'EMLINK') return { ok: false, rel, reason: 'unreadable', detail: LINK_DETAIL };
      return { ok: false, rel, reason: 'unreadable', detail: (err as Error).message };
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return { ok: false, rel, reason: 'unreadable', detail: 'not a regular file' };
      return readWith(rel, { size: st.size, mtimeMs: st.mtimeMs }, maxBytes, () => fs.readFileSync(fd));
    } catch (err) {
      return { ok: false, rel, reason: 'unreadable', detail: (err as Error).message };
    } finally {
      fs.closeSync(fd);
    }
  }
}

/**
 * A folder in memory: paths (relative, `/`) → contents. The walk applies the same rules as on
 * disk (`.gitignore` files held in the map, the always-skipped folders, the selection).
 */
export class MemoryFileSource implements FileSource {
  readonly root: string;
  private readonly files = new Map<string, { bytes: Uint8Array; mtimeMs: number }>();
  private clock = 1;

  constructor(files: Record<string, string | Uint8Array> = {}, root = '/memory') {
    this.root = root;
    for (const [rel, content] of Object.entries(files)) this.set(rel, content);
  }

  /** Adds or replaces a file (a new mtime each time, as an edit on disk would). */
  set(rel: string, content: string | Uint8Array, mtimeMs?: number): void {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    this.files.set(toRel(rel), { bytes, mtimeMs: mtimeMs ?? this.clock++ });
  }

  delete(rel: string): boolean {
    return this.files.delete(toRel(rel));
  }

  walk(selection?: FileSelection, _problems?: WalkProblem[], signal?: AbortSignal): SourceFile[] {
    const wanted = this.filter(selection);
    const out: SourceFile[] = [];
    for (const [rel, f] of this.files) {
      signal?.throwIfAborted();
      if (wanted(rel)) out.push({ rel, size: f.bytes.byteLength, mtimeMs: f.mtimeMs });
    }
    return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  }

  async walkAsync(selection?: FileSelection, problems?: WalkProblem[], signal?: AbortSignal): Promise<SourceFile[]> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    return this.walk(selection, problems, signal);
  }

  filter(selection?: FileSelection): (rel: string) => boolean {
    return createPathFilter(this.root, selection, (rel) => {
      const f = this.files.get(rel);
      return f ? new TextDecoder().decode(f.bytes) : undefined;
    });
  }

  stat(rel: string): FileStat | undefined {
    const f = this.files.get(toRel(rel));
    return f ? { size: f.bytes.byteLength, mtimeMs: f.mtimeMs } : undefined;
  }

  read(rel: string, maxBytes?: number): ReadResult {
    const key = toRel(rel);
    return readWith(key, this.stat(key), maxBytes, () => this.files.get(key)!.bytes);
  }
}
