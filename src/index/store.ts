/**
 * Persistence of an Engine in a storage folder.
 *
 * Layout: `manifest.json` names one generation of data files (`catalog.<g>.jsonl`,
 * `chunks.<g>.bin` + `texts.<g>.bin`, `keyword.<g>.json` + `keyword.<g>.bin` + `lexicon.<g>.bin` +
 * `postings.<g>.bin`, `vectors.<g>.bin`)
 * with their sizes and CRC-32 checksums. A save writes a new generation (each file to a temp
 * name, then renamed), then replaces the manifest atomically, then deletes the old generation: a
 * crash or a full disk at any point leaves the previous index loadable.
 *
 * Sections, and how each loads (bench/store.ts: the costs at 100k and 1M chunks):
 * - catalog: JSON lines, read in 8 MB blocks and checked as they stream (never one string).
 * - chunks and texts: columnar (chunks.ts), read whole and kept as they are: the chunks are
 *   made into objects only when asked for, so a load parses no JSON and allocates nothing per
 *   chunk; the hashes of the embedded texts are stored, not recomputed.
 * - keyword: the KeywordIndex snapshot: names as JSON; the records as one binary block that
 *   the index adopts in place (records are views of it); the vocabulary as a term table (a hash
 *   table over the terms' bytes, lexicon.ts) and the postings as laid out in memory (offsets per
 *   term and slot, then internal ids), both read in place: a load builds no vocabulary map, no
 *   string per term and no postings (version 5 built both: ~75% of its load), and FlexSearch is
 *   not rebuilt (that was 87% of version 3's load time and most of its memory).
 * - vectors: one float32 scale a row, the int8 rows, then one presence byte a row (version 7):
 *   dequantized into one Float32Array in one pass (`readVectors`). The ann file below holds int8
 *   codes of its own, no float rows.
 * - ann: the dense IVF index as it is held (ivf.ts `export`; empty when there is none): loaded
 *   instead of rebuilt (94–130 s at 1M rows). Derived from the vectors, so one that fails its
 *   checksum or its checks, or misses a row with a vector (stale), is left out with a note and
 *   built again when a dense search needs it; the rest of the store still loads.
 *
 * Loading never re-chunks or re-embeds. A store that is corrupt, truncated, of another
 * format or of a newer version is not trusted: `load` says why and the caller rebuilds.
 * Versions 3 and 4 (chunks as JSON lines, sha1 checksums) and 5 (vocabulary as JSON, postings
 * built on load) and 6 (float32 vector rows) are read as well and written as 7 on the next save. A lock file keeps two processes (two windows on one workspace) from writing at once.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { CHUNKER_VERSION, type Chunk } from '../chunkers/types';
import { chunkSections, StoredChunks } from './chunks';
import { Engine, type FileRecord } from './engine';
import { IvfIndex } from './ivf';
import type { KeywordSnapshot } from './keyword';
import { exportBinaryAsync, type LayoutThreadOptions } from './layout-thread';
import { VectorStore } from './vectors';

export const STORE_FORMAT = 'fathom-index';
/**
 * 7: vectors stored as int8 rows with one float32 scale (the row's max |x|) each (scales first, then the rows, then
 *    the presence flags): dims + 4 bytes a row instead of 4 × dims (a 128-dimension store
 *    +30% over keyword-only became +8%); dequantized into the Float32Array on load (cosine to
 *    the original ≥ 0.9999 for unit vectors; `quantizeRows`);
 * 6: the keyword index's vocabulary as a term table and its postings, both read in place
 *    (`lexicon`, `postings`); the vocabulary left out of `keyword.<g>.json`;
 * 5: chunks columnar with their texts in a file of their own (chunks.ts), read in place; the
 *    embedded texts' hashes stored; CRC-32 checksums (zlib's: several times sha1's speed, and
 *    every byte of a 1M-chunk store, 1.1 GB, is checked on load);
 * 4: vectors file as the float rows first, then the presence flags (read in place into one
 *    Float32Array, no copy); the keyword index is imported without rebuilding FlexSearch;
 * 3: catalog and chunks as JSON lines (one string per chunk, not one for the whole store);
 * 2: Python, Go, Rust and Java chunked by tree-sitter (version 1 holds text chunks for them).
 */
export const STORE_VERSION = 7;
/** The oldest version this one reads (3 and 4: chunks as JSON lines; 3‥5: the keyword postings built on load; 3‥6: float32 vector rows; written as 7 on the next save). */
const OLDEST_READ = 3;

export interface FileEntry {
  name: string;
  bytes: number;
  /** Versions 3 and 4. */
  sha1?: string;
  /** Version 5: CRC-32 of the file, 8 hex digits. */
  crc32?: string;
}

type FileKey = 'catalog' | 'chunks' | 'texts' | 'keyword' | 'keywordData' | 'lexicon' | 'postings' | 'vectors' | 'ann';

interface Manifest {
  format: string;
  version: number;
  generation: number;
  savedAt: string;
  /** The vectors' model; `path` and `hash` when the saver knew them (`SaveOptions.modelSource`). */
  model: StoredModel | null;
  /** `version`: the chunkers' (CHUNKER_VERSION); none before it was stored. */
  chunking: { maxTokens: number; maxFileBytes: number; overlap?: number; version?: number };
  /** `texts` from version 5 on, `lexicon`, `postings` and `ann` from 6 on. */
  files: Record<FileKey, FileEntry>;
  /**
   * The id of the i18n snapshot (the session's i18n.json) whose text the chunks hold, when the
   * saver knew it (see `SaveOptions.i18nFed`): a session that loads both and changes nothing
   * need not give every chunk its i18n text again.
   */
  i18nFed?: string;
}

/**
 * The model a store's vectors come from: its id and dimensions, and, when the saver knew them,
 * the folder it was loaded from and a hash of its weights file, so a later run on the store can
 * load the same model without being told (the CLI does).
 */
export interface StoredModel {
  id: string;
  dims: number;
  /** The model folder the vectors were embedded with. */
  path?: string;
  /** `sha256:<hex>` of its weights file (`onnx/…`). */
  hash?: string;
}

export interface SaveOptions {
  /** Recorded in the manifest (`Manifest.i18nFed`). */
  i18nFed?: string;
  /** Where the embedder's model was loaded from and its hash: recorded with the model in the manifest. */
  modelSource?: { path?: string; hash?: string };
  /** `saveStoreAsync`'s thread for the keyword layout (layout-thread.ts): its script, its threshold, a fallback's reason. */
  layoutThread?: LayoutThreadOptions;
}

/** CRC-32 (zlib's polynomial) of `data`, continuing from `crc`: zlib's own where Node has it (20.15+), else a table. */
export const crc32: (data: Uint8Array, crc?: number) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (data, crc = 0) => (zlib as unknown as { crc32(d: Uint8Array, c: number): number }).crc32(data, crc) : crc32Table;

let CRC_TABLE: Int32Array | undefined;
/** The same CRC-32 in JavaScript (for a Node without zlib.crc32; tested against it). */
export function crc32Table(data: Uint8Array, crc = 0): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c;
    }
  }
  const t = CRC_TABLE;
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0');

/** A running checksum of the kind a file entry names (crc32 from version 5, sha1 before). */
function checker(e: FileEntry): { update(b: Uint8Array): void; ok(): boolean } {
  if (e.crc32 !== undefined) {
    let c = 0;
    return { update: (b) => void (c = crc32(b, c)), ok: () => hex8(c) === e.crc32 };
  }
  const sha = createHash('sha1');
  return { update: (b) => void sha.update(b), ok: () => sha.digest('hex') === e.sha1 };
}

export class StoreLockedError extends Error {}

/**
 * The store folder cannot be written (read-only, full, a file in the way). The index in memory
 * is still good: a caller that only searches can go on without saving.
 */
export class StoreWriteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * `saveStoreAsync` stopped because the engine changed while it wrote (a file applied between two
 * of its steps): nothing of it is kept, the previous generation stays, and the caller saves again
 * later. Not a write failure: the store can be written.
 */
export class StoreChangedError extends Error {}

/** Writes one buffer to a file descriptor (a parameter so tests can make the disk fill up). */
export type WriteFn = (fd: number, data: Uint8Array) => void;

const writeAll: WriteFn = (fd, data) => {
  let off = 0;
  while (off < data.byteLength) off += fs.writeSync(fd, data, off, data.byteLength - off);
};

/**
 * `parts` as the buffers a file is written in: small parts gathered into ~4 MB writes, large
 * ones as they are (no copy), with the running size and CRC-32 of what was handed out. No part
 * of the store has to exist as one string: 1M chunks make ~700 MB of JSON, past V8's largest
 * string. The buffers handed out are never changed afterwards (a write may still be in flight).
 */
class Gatherer {
  crc = 0;
  bytes = 0;

  *buffers(parts: Iterable<string | Uint8Array>): Generator<Buffer> {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = (buf: Buffer): Buffer => {
      this.crc = crc32(buf, this.crc);
      this.bytes += buf.byteLength;
      return buf;
    };
    for (const part of parts) {
      const buf = typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part.buffer, part.byteOffset, part.byteLength);
      if (buf.byteLength >= 1 << 20) {
        if (pendingBytes) yield take(pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
        yield take(buf);
        continue;
      }
      pending.push(buf);
      pendingBytes += buf.byteLength;
      if (pendingBytes >= 4 << 20) {
        yield take(pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pendingBytes) yield take(pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes));
  }

  entry(): { bytes: number; crc32: string } {
    return { bytes: this.bytes, crc32: hex8(this.crc) };
  }
}

/** Writes `parts` to `file` through a temp file (fsync, then rename), checksumming and counting as it goes. */
function writeAtomic(file: string, parts: Iterable<string | Uint8Array>, write: WriteFn = writeAll): { bytes: number; crc32: string } {
  const tmp = `${file}.tmp-${process.pid}`;
  const g = new Gatherer();
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      for (const buf of g.buffers(parts)) write(fd, buf);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    return g.entry();
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * `writeAtomic` with the writes in libuv's thread pool: the next buffer is made (serialized) on
 * this thread while the last one is written, so the kernel's copying overlaps the save's own
 * work instead of following it (a cold index's save, 45 MB on the dev corpus, spent ~40% of its
 * time in write(2), on the one busy core).
 */
export async function writeAtomicAsync(file: string, parts: Iterable<string | Uint8Array>): Promise<{ bytes: number; crc32: string }> {
  const w = await writeTempAsync(file, parts);
  await w.commit;
  return w.entry;
}

/**
 * The writing half of `writeAtomicAsync`: resolves once every byte is written to the temp file,
 * with `commit` (fsync, close, rename) still going on in the thread pool, so that a save goes on
 * serializing its next file meanwhile and the fsyncs of its files wait on the disk together
 * rather than one after the other (a cold index's save spent half its time waiting on them,
 * idle, one file at a time). `commit` removes the temp file when it fails.
 */
async function writeTempAsync(file: string, parts: Iterable<string | Uint8Array>): Promise<{ entry: { bytes: number; crc32: string }; commit: Promise<void> }> {
  const tmp = `${file}.tmp-${process.pid}`;
  const g = new Gatherer();
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(tmp, 'w');
    let inFlight: Promise<void> | undefined;
    try {
      for (const buf of g.buffers(parts)) {
        if (inFlight) await inFlight;
        inFlight = writeAllAsync(fh, buf);
      }
      if (inFlight) await inFlight;
    } finally {
      // the serialization may have thrown with a write in flight: let it end before closing
      if (inFlight) await inFlight.catch(() => undefined);
    }
  } catch (err) {
    await fh?.close().catch(() => undefined);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  const handle = fh;
  const commit = (async () => {
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, file);
  })().catch((err: unknown) => {
    fs.rmSync(tmp, { force: true });
    throw err;
  });
  return { entry: g.entry(), commit };
}

async function writeAllAsync(fh: fs.promises.FileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.byteLength) off += (await fh.write(data, off, data.byteLength - off)).bytesWritten;
}

/** One JSON value a line (`null` for an empty slot): written lazily, read line by line. */
function* jsonLines(items: Iterable<unknown>): Generator<string> {
  for (const x of items) yield `${JSON.stringify(x ?? null)}\n`;
}

function sizeProblem(e: FileEntry, bytes: number): string {
  return bytes < e.bytes ? `${e.name} is truncated (${bytes} of ${e.bytes} bytes)` : `${e.name} has ${bytes} bytes, not the ${e.bytes} its manifest says`;
}

/**
 * The JSON lines of `file`, read in blocks (never the whole file in memory: 1M chunks are ~850
 * MB of JSON), checked against the manifest's size and sha1 as they stream. Throws on a line
 * that is not JSON and, after the last line, on a wrong size or checksum.
 */
export function readJsonLines<T>(file: string, e: FileEntry, blockBytes = 8 << 20): T[] {
  const out: T[] = [];
  const sha = checker(e);
  const fd = fs.openSync(file, 'r');
  let bytes = 0;
  try {
    const block = Buffer.allocUnsafe(blockBytes);
    let carry: Buffer | undefined;
    const line = (buf: Buffer, from: number, to: number) => {
      if (to <= from) return;
      try {
        out.push(JSON.parse(buf.toString('utf8', from, to)) as T);
      } catch {
        throw new Error(`${e.name}: line ${out.length + 1} is not JSON`);
      }
    };
    for (;;) {
      const n = fs.readSync(fd, block, 0, block.byteLength, null);
      if (n === 0) break;
      bytes += n;
      sha.update(block.subarray(0, n));
      const buf = block.subarray(0, n);
      let start = 0;
      if (carry) {
        // a line begun in the previous block: joined with its end
        const nl = buf.indexOf(10);
        if (nl < 0) {
          carry = Buffer.concat([carry, buf]);
          continue;
        }
        const whole = Buffer.concat([carry, buf.subarray(0, nl)]);
        carry = undefined;
        line(whole, 0, whole.byteLength);
        start = nl + 1;
      }
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl < 0) break;
        line(buf, start, nl);
        start = nl + 1;
      }
      if (start < buf.byteLength) carry = Buffer.from(buf.subarray(start));
    }
    if (bytes !== e.bytes) throw new Error(sizeProblem(e, bytes));
    if (!sha.ok()) throw new Error(`${e.name} fails its checksum`);
    if (carry) line(carry, 0, carry.byteLength);
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

/**
 * The identity of this process in a lock: its pid, and on Linux its start time (field 22 of
 * /proc/<pid>/stat, clock ticks since boot) and the boot id. A pid alone cannot tell a live
 * holder from a dead one whose pid was reused — after a container restart in a fresh pid
 * namespace Fathom is pid 1 again, as its dead predecessor was — but a pid with a different
 * start time (or boot) is another process.
 */
export interface LockHolder {
  pid?: number;
  host?: string;
  /** Start time of the process (Linux), a decimal string of clock ticks since boot. */
  start?: string;
  boot?: string;
  at?: string;
}

/** The start time of process `pid` (Linux), or undefined where /proc is not there. */
export function processStartTime(pid: number | 'self'): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

let myIdentity: LockHolder | undefined;
function me(): LockHolder {
  myIdentity ??= { pid: process.pid, host: os.hostname(), start: processStartTime('self'), boot: bootId() };
  return myIdentity;
}

/**
 * Is the process named in a lock still running? Same host and a live pid, and — where the lock
 * records a start time and /proc can tell — the same start time and boot: a reused pid is not
 * its holder. The same process (another thread of it) counts as alive.
 */
export function lockHolderAlive(holder: LockHolder): boolean {
  const self = me();
  if (holder.host !== self.host || typeof holder.pid !== 'number' || !Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.boot && self.boot && holder.boot !== self.boot) return false; // written before a reboot
  if (holder.pid === process.pid) return holder.start === undefined || self.start === undefined || holder.start === self.start;
  if (!isAlive(holder.pid)) return false;
  if (holder.start !== undefined) {
    const now = processStartTime(holder.pid);
    if (now !== undefined && now !== holder.start) return false; // the pid now names another process
  }
  return true;
}

/**
 * Takes the store's lock, or throws StoreLockedError naming the holder. Returns the release.
 * A folder that cannot be written (read-only, full) throws StoreWriteError.
 */
/** Files a Fathom store holds: its manifest, its data generations, the i18n index, the lock. */
const OWN_FILE = /^(?:manifest\.json|lock|i18n\.json|(?:catalog|chunks|texts|keyword|keywordData|lexicon|postings|vectors|ann)\.[\w-]+\.(?:jsonl|json|bin)|.*\.tmp[\w.-]*)$/;

/**
 * Refuses (StoreWriteError) a store folder Fathom must not write in, before anything is written:
 * - inside the folder `root` but reached through a link that leads out of it (a committed
 *   `.fathom -> ../victim`): writing there would overwrite files outside the folder;
 * - a folder that holds a `manifest.json` or `i18n.json` that is not Fathom's: never overwritten.
 */
export function checkStorePlace(root: string, dir: string): void {
  const rel = path.relative(root, dir);
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
    // each folder from the root down to the store: a link there leads elsewhere
    let at = root;
    for (const part of rel.split(path.sep)) {
      at = path.join(at, part);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(at);
      } catch {
        break; // not there yet: created as a plain folder
      }
      if (!st.isSymbolicLink()) continue;
      let target = '';
      try {
        target = fs.realpathSync.native(at);
      } catch {
        target = fs.readlinkSync(at);
      }
      const realRoot = fs.realpathSync.native(root);
      const inside = path.relative(realRoot, target);
      if (inside.startsWith('..') || path.isAbsolute(inside)) {
        throw new StoreWriteError(`the index folder ${dir} goes through a link to ${target}, outside ${root}: Fathom does not write there (remove the link, or give --store DIR)`, 'ELINKOUT');
      }
    }
  }
  for (const name of ['manifest.json', 'i18n.json']) {
    const file = path.join(dir, name);
    let text: string;
    try {
      if (!fs.lstatSync(file).isFile()) throw new StoreWriteError(`${file} is not a file Fathom wrote: the index folder ${dir} is not used`, 'ENOTOWN');
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if (err instanceof StoreWriteError) throw err;
      continue; // none
    }
    let own: boolean;
    try {
      const v = JSON.parse(text) as { format?: unknown; version?: unknown; keys?: unknown };
      own = name === 'manifest.json' ? v?.format === STORE_FORMAT : isFathomI18n(v);
    } catch {
      // not JSON: Fathom's own file damaged (a crash mid-write, a bad disk), rebuilt as before;
      // the files this guards are other tools' JSON (a package's manifest.json), which parse
      own = true;
    }
    if (!own) throw new StoreWriteError(`${file} is not Fathom's (it would be overwritten): the index folder ${dir} is not used; give --store DIR for an empty or Fathom folder`, 'ENOTOWN');
  }
  // a folder of other things (`--store ~/Documents`): Fathom writes only into an empty folder or its own
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // not there yet
  }
  const foreign = names.filter((n) => !OWN_FILE.test(n));
  if (foreign.length && !names.includes('manifest.json') && !names.includes('i18n.json')) {
    throw new StoreWriteError(`the index folder ${dir} holds files that are not Fathom's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}): give --store DIR for an empty or Fathom folder`, 'ENOTOWN');
  }
}

/** A stored i18n index (service/session.ts writes it with format 'fathom-i18n'). */
function isFathomI18n(v: unknown): boolean {
  return !!v && typeof v === 'object' && (v as { format?: unknown }).format === 'fathom-i18n';
}

export function lockStore(dir: string): () => void {
  const lock = path.join(dir, 'lock');
  const mine = JSON.stringify({ ...me(), at: new Date().toISOString() });
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw storeWriteError(dir, err, 'cannot create the index folder');
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, mine, { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        fs.rmSync(lock, { force: true }); // a lock file half-written on a full disk is ours to remove
        throw storeWriteError(dir, err, 'cannot take the lock');
      }
      let holder: LockHolder = {};
      try {
        holder = JSON.parse(fs.readFileSync(lock, 'utf8')) as LockHolder;
        if (!holder || typeof holder !== 'object') holder = {};
      } catch {
        holder = {}; // an unreadable lock file is stale: its writer died mid-write
      }
      if (lockHolderAlive(holder)) throw new StoreLockedError(`the index in ${dir} is in use by process ${holder.pid}`);
      try {
        fs.rmSync(lock, { force: true }); // stale: its process is gone
      } catch (e) {
        throw storeWriteError(dir, e, 'cannot remove a stale lock');
      }
    }
  }
  throw new StoreLockedError(`could not take the lock of ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a folder could not be written, in words. */
function writeFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOSPC' || code === 'EDQUOT'
    ? 'the disk is full'
    : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? 'the folder cannot be written'
      : code === 'ENOTDIR' || code === 'EEXIST'
        ? 'a file is in the way'
        : 'writing failed';
}

function storeWriteError(dir: string, err: unknown, what: string): StoreWriteError {
  const code = (err as NodeJS.ErrnoException).code;
  return new StoreWriteError(`${what} in ${dir}: ${writeFailure(err)} (${(err as Error).message})`, code);
}

/** One file of a save: its name and its parts, answered with its entry once written. */
type SaveStep = readonly [name: string, parts: Iterable<string | Uint8Array>];

/**
 * The files of generation `g`, in order, one step a file; the manifest is what it returns. One
 * sequence for both drivers (`saveStore`, `saveStoreAsync`), which write each step's file and
 * hand back its entry.
 */
function* saveSteps(engine: Engine, g: number, options: SaveOptions = {}, keywordSnapshot: () => KeywordSnapshot = () => engine.keyword.export({ binary: true })): Generator<SaveStep, Manifest, FileEntry> {
  const catalog = yield [`catalog.${g}.jsonl`, jsonLines(engine.files.values())];
  // the texts first: the chunks section records where each one starts
  const sections = chunkSections(engine.chunks, (id) => (engine.vectors?.has(id) ? engine.textHashOf(id) : undefined));
  const texts = yield [`texts.${g}.bin`, sections.texts()];
  const chunks = yield [`chunks.${g}.bin`, sections.chunks()];
  const snap = keywordSnapshot();
  const { data, lexicon: lexiconData, postings: postingsData, ...meta } = snap;
  const keyword = yield [`keyword.${g}.json`, [JSON.stringify(meta)]];
  const keywordData = yield [`keyword.${g}.bin`, [data]];
  const lexicon = yield [`lexicon.${g}.bin`, [lexiconData ?? new Uint8Array(0)]];
  const postings = yield [`postings.${g}.bin`, [postingsData ?? new Uint8Array(0)]];
  const vx = engine.vectors?.export();
  // the scales first (aligned for a Float32Array view), then the int8 rows, then the presence flags
  const q = vx ? quantizeRows(vx.data, vx.rows, engine.vectors!.dims) : undefined;
  const vectors = yield [`vectors.${g}.bin`, vx && q ? [new Uint8Array(q.scales.buffer), new Uint8Array(q.rows.buffer), vx.present] : []];
  // the dense (IVF) index as it is held, when there is one (empty: none, or one being built)
  const ann = yield [`ann.${g}.bin`, engine.vectors?.ann?.export() ?? []];
  return {
    format: STORE_FORMAT,
    version: STORE_VERSION,
    generation: g,
    savedAt: new Date().toISOString(),
    model: engine.embedder && engine.vectors ? { id: engine.embedder.id, dims: engine.vectors.dims, ...definedOnly(options.modelSource ?? {}) } : null,
    chunking: { maxTokens: engine.chunkOptions.maxTokens, maxFileBytes: engine.chunkOptions.maxFileBytes, overlap: engine.chunkOptions.overlap, version: CHUNKER_VERSION },
    files: { catalog, chunks, texts, keyword, keywordData, lexicon, postings, vectors, ann },
    ...(options.i18nFed !== undefined ? { i18nFed: options.i18nFed } : {}),
  };
}

/**
 * Symmetric per-row int8 quantization: q = round(127 x / m), m = max |x| of the row (0 for a
 * zero row), stored as float32 with the row. `dequantizeRows` gives q × (m / 127). Storing m
 * itself (not m / 127) makes the round trip idempotent: a row that came out of
 * `dequantizeRows` quantizes to the same q and m again, so a store saved again after a load
 * answers exactly as before. For unit vectors of 128–384 dimensions the dequantized row keeps a
 * cosine ≥ 0.9999 to the original.
 */
export function quantizeRows(data: Float32Array, rows: number, dims: number): { scales: Float32Array; rows: Int8Array } {
  const scales = new Float32Array(rows);
  const out = new Int8Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    const off = r * dims;
    let max = 0;
    let nan = false;
    for (let k = 0; k < dims; k++) {
      const a = Math.abs(data[off + k]);
      if (a > max) max = a;
      else if (a !== a) nan = true;
    }
    // a row with NaN or an infinity has no int8 form: stored with a NaN scale, so it loads as NaN
    // and never scores (as its float row never did), not as another, finite vector
    if (nan || max === Infinity) {
      scales[r] = NaN;
      continue;
    }
    scales[r] = max;
    if (max === 0) continue;
    const inv = 127 / max;
    for (let k = 0; k < dims; k++) out[off + k] = Math.round(data[off + k] * inv);
  }
  return { scales, rows: out };
}

/** The float rows of `quantizeRows`'s output. */
export function dequantizeRows(scales: Float32Array, ints: Int8Array, rows: number, dims: number): Float32Array {
  const data = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    const s = scales[r] / 127;
    const off = r * dims;
    for (let k = 0; k < dims; k++) data[off + k] = ints[off + k] * s;
  }
  return data;
}

/** The folder made, and the generation a save in it writes. */
function nextGeneration(dir: string): number {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw storeWriteError(dir, err, 'could not save the index');
  }
  const old = readManifest(dir);
  return (old && Number.isSafeInteger(old.generation) && old.generation >= 0 ? old.generation : 0) + 1;
}

/** A save that failed: the files it wrote go, and the error says why (the previous generation stays). */
function saveFailed(dir: string, written: string[], err: unknown): StoreWriteError {
  for (const f of written) fs.rmSync(f, { force: true });
  const code = (err as NodeJS.ErrnoException).code;
  return new StoreWriteError(`could not save the index in ${dir}: ${writeFailure(err)} (${(err as Error).message}); the previous index is kept`, code);
}

/**
 * The new generation `g` is committed: the old one's files can go, and so can the temp files of
 * a save that was killed midway (the caller holds the lock: no other save is writing them now).
 */
function dropOtherGenerations(dir: string, g: number): void {
  for (const name of fs.readdirSync(dir)) {
    const m = /\.(\d+)\.(jsonl?|bin)$/.exec(name);
    if ((m && Number(m[1]) !== g) || /\.tmp-\d+$/.test(name)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * Saves the engine into `dir` (the caller holds the lock). A failure (a full disk, a folder
 * that became read-only) throws a clear error and leaves the previous generation in place.
 */
export function saveStore(dir: string, engine: Engine, options: { write?: WriteFn } & SaveOptions = {}): void {
  const g = nextGeneration(dir);
  const written: string[] = [];
  try {
    const steps = saveSteps(engine, g, options);
    let step = steps.next();
    while (!step.done) {
      const [name, parts] = step.value;
      const file = path.join(dir, name);
      const entry = { name, ...writeAtomic(file, parts, options.write) };
      written.push(file); // only files this save created: a failed write removed its own temp file
      step = steps.next(entry);
    }
    writeAtomic(path.join(dir, 'manifest.json'), [JSON.stringify(step.value, null, 2)], options.write);
  } catch (err) {
    throw saveFailed(dir, written, err);
  }
  dropOtherGenerations(dir, g);
}

/**
 * `saveStore` with the writes in libuv's thread pool, overlapping the serialization (see
 * `writeAtomicAsync`), and the event loop free between its files: a server answers meanwhile.
 * An engine that changes before it is done (its `revision` moves between two steps) ends it with
 * `StoreChangedError`: the files it wrote are removed and the previous generation stays, so a
 * store never mixes two states of the index.
 */
export async function saveStoreAsync(dir: string, engine: Engine, options: SaveOptions = {}): Promise<void> {
  const g = nextGeneration(dir);
  const written: string[] = [];
  const revision = engine.revision;
  const unchanged = () => {
    if (engine.revision !== revision) throw new StoreChangedError(`the index changed while it was being saved in ${dir}`);
  };
  // each data file's fsync and rename, going on while the next file is serialized; all of them
  // are done before the manifest that names the new generation is written
  const commits: Array<Promise<void>> = [];
  // the keyword snapshot's layout goes on on another thread (layout-thread.ts) while the chunks
  // are serialized here; the step after the chunks' file waits for it
  let keyword: KeywordSnapshot | undefined;
  let keywordReady: Promise<void> = Promise.resolve();
  try {
    keywordReady = exportBinaryAsync(engine.keyword, options.layoutThread).then((k) => void (keyword = k));
    keywordReady.catch(() => undefined); // awaited below
    const steps = saveSteps(engine, g, options, () => {
      if (!keyword) throw new Error('the keyword snapshot was asked for before its layout was done');
      return keyword;
    });
    let step = steps.next();
    while (!step.done) {
      const [name, parts] = step.value;
      const file = path.join(dir, name);
      const w = await writeTempAsync(file, parts);
      // a file is this save's own once renamed (a failed rename leaves what had the name alone)
      const commit = w.commit.then(() => void written.push(file));
      commit.catch(() => undefined); // awaited below; a failure before that must not go unhandled
      commits.push(commit);
      if (name.startsWith('chunks.')) await keywordReady;
      unchanged();
      step = steps.next({ name, ...w.entry });
    }
    await Promise.all(commits);
    unchanged(); // the last point where another state can have come in: the manifest commits this one
    await writeAtomicAsync(path.join(dir, 'manifest.json'), [JSON.stringify(step.value, null, 2)]);
  } catch (err) {
    // the commits still going on end (or remove their temp files) before the written files go
    await Promise.allSettled([...commits, keywordReady]);
    // (the serialization is lazy, interleaved with the writes: an index changed under it may
    // also have made it throw, which is the same case and not a failure to write)
    if (err instanceof StoreChangedError || engine.revision !== revision) {
      for (const f of written) fs.rmSync(f, { force: true });
      throw err instanceof StoreChangedError ? err : new StoreChangedError(`the index changed while it was being saved in ${dir}`);
    }
    throw saveFailed(dir, written, err);
  }
  dropOtherGenerations(dir, g);
}

/**
 * Records in the stored manifest that its chunks hold the i18n text of snapshot `id`
 * (`Manifest.i18nFed`), without writing the store again: for a session that gave every chunk its
 * i18n text again and changed none (an i18n index rebuilt). Throws when the manifest cannot be
 * read or written.
 */
export function recordI18nFed(dir: string, id: string): void {
  const m = readManifest(dir);
  if (!m || typeof m !== 'object') throw new Error(`no readable manifest in ${dir}`);
  writeAtomic(path.join(dir, 'manifest.json'), [JSON.stringify({ ...m, i18nFed: id }, null, 2)]);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The model recorded in the manifest of store `dir`: undefined when there is no readable
 * manifest or it holds no vectors (a keyword-only store), or its model record is damaged.
 */
export function readStoredModel(dir: string): StoredModel | undefined {
  const m = readManifest(dir) as unknown;
  if (!isObject(m) || !isObject(m.model)) return undefined;
  const { id, dims, path: p, hash } = m.model;
  if (typeof id !== 'string' || !id || !isCount(dims) || dims === 0) return undefined;
  return { id, dims, ...(typeof p === 'string' ? { path: p } : {}), ...(typeof hash === 'string' ? { hash } : {}) };
}

function readManifest(dir: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return undefined; // missing or unreadable: there is no usable store, which load() reports
  }
}

const FILE_KEYS = ['catalog', 'chunks', 'keyword', 'keywordData', 'vectors'] as const;
/** Version 5's files (the chunks' texts in a file of their own). */
const FILE_KEYS_5 = [...FILE_KEYS, 'texts'] as const;
/** Version 6's files (the keyword vocabulary and postings, read in place). */
const FILE_KEYS_6 = [...FILE_KEYS_5, 'lexicon', 'postings', 'ann'] as const;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/**
 * What is wrong with a parsed manifest of this format and version, or undefined: every field
 * is checked for presence and type, so a damaged manifest is a rebuild with its reason, never a
 * TypeError later. Data file names must be plain names inside the store folder.
 */
export function manifestProblem(m: Record<string, unknown>): string | undefined {
  const v5 = typeof m.version === 'number' && m.version >= 5;
  if (!isCount(m.generation)) return 'its "generation" is missing or not a whole number';
  if (typeof m.savedAt !== 'string') return 'its "savedAt" is missing or not a string';
  if (m.model !== null) {
    if (!isObject(m.model)) return 'its "model" is missing or not an object';
    if (typeof m.model.id !== 'string' || !m.model.id) return 'its "model.id" is missing or not a string';
    if (!isCount(m.model.dims) || m.model.dims === 0) return 'its "model.dims" is missing or not a positive whole number';
    if (m.model.path !== undefined && typeof m.model.path !== 'string') return 'its "model.path" is not a string';
    if (m.model.hash !== undefined && typeof m.model.hash !== 'string') return 'its "model.hash" is not a string';
  }
  const c = m.chunking;
  if (!isObject(c)) return 'its "chunking" is missing or not an object';
  if (!isCount(c.maxTokens)) return 'its "chunking.maxTokens" is missing or not a whole number';
  if (!isCount(c.maxFileBytes)) return 'its "chunking.maxFileBytes" is missing or not a whole number';
  if (c.overlap !== undefined && c.overlap !== null && !isCount(c.overlap)) return 'its "chunking.overlap" is not a whole number';
  if (c.version !== undefined && !isCount(c.version)) return 'its "chunking.version" is not a whole number';
  if (!isObject(m.files)) return 'its "files" is missing or not an object';
  for (const k of typeof m.version === 'number' && m.version >= 6 ? FILE_KEYS_6 : v5 ? FILE_KEYS_5 : FILE_KEYS) {
    const e = m.files[k];
    if (!isObject(e)) return `its "files.${k}" is missing or not an object`;
    if (typeof e.name !== 'string' || !/^[\w-][\w.-]*$/.test(e.name) || e.name.includes('..')) return `its "files.${k}.name" is missing or not a file name of the store`;
    if (!isCount(e.bytes)) return `its "files.${k}.bytes" is missing or not a whole number`;
    if (v5) {
      if (typeof e.crc32 !== 'string' || !/^[0-9a-f]{8}$/.test(e.crc32)) return `its "files.${k}.crc32" is missing or not a CRC-32`;
    } else if (typeof e.sha1 !== 'string' || !/^[0-9a-f]{40}$/.test(e.sha1)) return `its "files.${k}.sha1" is missing or not a sha1`;
  }
  return undefined;
}

/**
 * The vectors section of a store of `version` (its bytes checked against the manifest) as a
 * VectorStore of `dims`; throws when the size is not a whole number of rows.
 * - 7: float32 scales[rows], int8 rows[rows × dims], presence[rows]: dequantized into one new
 *   Float32Array; the presence flags copied out, so the file's bytes (a quarter of the floats'
 *   size: 390 MB at 1M × 384) are not kept alive by them once the load is done;
 * - 4‥6: float32 rows[rows × dims], then presence[rows]: both read in place, no copy;
 * - 3: presence[rows], then the rows (unaligned): copied out.
 * bench/store-vectors.ts: its time at 100k rows, versions 6 and 7 side by side.
 */
export function readVectors(vbuf: Uint8Array, dims: number, version: number): VectorStore {
  if (version >= 7) {
    const rows = vbuf.byteLength / (1 + 4 + dims);
    if (!Number.isInteger(rows)) throw new Error('vectors file has a size that is not a whole number of rows');
    // copied into an aligned buffer of its own when the read one is not 4-byte aligned
    const head = vbuf.byteOffset % 4 === 0 ? vbuf : Uint8Array.from(vbuf);
    const scales = new Float32Array(head.buffer, head.byteOffset, rows);
    const ints = new Int8Array(head.buffer, head.byteOffset + 4 * rows, rows * dims);
    const present = new Uint8Array(head.buffer, head.byteOffset + (4 + dims) * rows, rows).slice();
    return VectorStore.adopt(dims, rows, present, dequantizeRows(scales, ints, rows, dims));
  }
  const rows = vbuf.byteLength / (1 + 4 * dims);
  if (!Number.isInteger(rows)) throw new Error('vectors file has a size that is not a whole number of rows');
  const floats = rows * dims;
  if (version === 3) {
    // presence flags first, then the rows (unaligned): copied out
    const present = new Uint8Array(vbuf.subarray(0, rows));
    const data = new Float32Array(vbuf.buffer.slice(vbuf.byteOffset + rows, vbuf.byteOffset + vbuf.byteLength));
    return VectorStore.adopt(dims, rows, present, data);
  }
  const data = new Float32Array(vbuf.buffer, vbuf.byteOffset, floats);
  const present = new Uint8Array(vbuf.buffer, vbuf.byteOffset + 4 * floats, rows);
  return VectorStore.adopt(dims, rows, present, data);
}

/** `note`: what was left out of a load that still succeeded (a stored dense index that did not fit: rebuilt when needed). */
export type LoadResult = { ok: true; note?: string; i18nFed?: string } | { ok: false; reason: string };

/**
 * Loads `dir` into `engine` (fresh, constructed with the same model and chunking options).
 * Returns why the store cannot be trusted instead of throwing; the engine is then untouched.
 */
export function loadStore(dir: string, engine: Engine): LoadResult {
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) return { ok: false, reason: 'no stored index' };
  const raw = readManifest(dir) as unknown;
  if (!isObject(raw) || raw.format !== STORE_FORMAT) return { ok: false, reason: 'the stored manifest is unreadable or of another format' };
  if (typeof raw.version !== 'number') return { ok: false, reason: 'the stored manifest is damaged: its "version" is missing or not a number' };
  if (raw.version > STORE_VERSION) return { ok: false, reason: `the stored index is version ${raw.version}, newer than this Fathom's ${STORE_VERSION}` };
  if (raw.version < OLDEST_READ) return { ok: false, reason: `the stored index is version ${raw.version}, older than ${OLDEST_READ}` };
  const problem = manifestProblem(raw);
  if (problem) return { ok: false, reason: `the stored manifest is damaged: ${problem}` };
  const m = raw as unknown as Manifest;
  const wantModel = engine.embedder && engine.vectors ? { id: engine.embedder.id, dims: engine.vectors.dims } : null;
  if (m.model !== null && wantModel !== null && (m.model.id !== wantModel.id || m.model.dims !== wantModel.dims)) {
    return { ok: false, reason: `the stored vectors come from ${m.model.id} (${m.model.dims} dimensions), not ${wantModel.id} (${wantModel.dims})` };
  }
  if (m.chunking.maxTokens !== engine.chunkOptions.maxTokens || m.chunking.maxFileBytes !== engine.chunkOptions.maxFileBytes || (m.chunking.overlap ?? 0) !== engine.chunkOptions.overlap) {
    return { ok: false, reason: 'the chunking settings changed since the index was stored' };
  }
  const read = (e: FileEntry): Buffer => {
    const buf = fs.readFileSync(path.join(dir, e.name));
    if (buf.byteLength !== e.bytes) throw new Error(sizeProblem(e, buf.byteLength));
    const sum = checker(e);
    sum.update(buf);
    if (!sum.ok()) throw new Error(`${e.name} fails its checksum`);
    // typed views need aligned memory: a small file's Buffer may sit anywhere in a shared pool
    if (buf.byteOffset % 8 === 0) return buf;
    const copy = Buffer.from(new ArrayBuffer(buf.byteLength));
    buf.copy(copy);
    return copy;
  };
  try {
    const catalog = readJsonLines<FileRecord>(path.join(dir, m.files.catalog.name), m.files.catalog);
    // version 5: the chunks read in place; 3 and 4: JSON lines, made into objects (saved as 5 next time)
    const chunks =
      m.version >= 5 ? new StoredChunks(read(m.files.chunks), read(m.files.texts), m.files.chunks.name) : readJsonLines<Chunk | null>(path.join(dir, m.files.chunks.name), m.files.chunks);
    const kmeta = JSON.parse(read(m.files.keyword).toString('utf8')) as Omit<KeywordSnapshot, 'data' | 'lexicon' | 'postings'>;
    const view = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    const kdata = view(read(m.files.keywordData));
    // version 6: the vocabulary and the postings read in place; before: made from the vocabulary and the records
    const lexicon = m.version >= 6 ? view(read(m.files.lexicon)) : undefined;
    const postings = m.version >= 6 ? view(read(m.files.postings)) : undefined;
    const vbuf = read(m.files.vectors);
    // every byte was checked against the manifest's checksums just now
    engine.keyword.import({ ...kmeta, data: kdata, lexicon, postings }, { adopt: true, checked: true });
    let vectors: VectorStore | undefined;
    if (m.model && engine.vectors && vbuf.byteLength) vectors = readVectors(vbuf, m.model.dims, m.version);
    // the stored dense index: it can be built again from the vectors, so one that does not fit is left out, not a rebuild
    // (a manifest naming a file that is not there is the manifest's damage: refused like any other)
    let note: string | undefined;
    if (m.version >= 6) {
      if (!fs.existsSync(path.join(dir, m.files.ann.name))) throw new Error(`${m.files.ann.name} is missing`);
      if (vectors && m.files.ann.bytes > 0) {
        try {
          note = vectors.adoptAnn(IvfIndex.read(read(m.files.ann), vectors.dims));
        } catch (err) {
          note = (err as Error).message;
        }
        if (note) note = `the stored dense index was left out (${note}); it is built again when needed`;
      }
    }
    engine.restore(catalog, chunks, vectors);
    // chunked by other chunkers (an older Fathom): searched as it is, and every file chunked again on the next pass
    const cut = m.chunking.version ?? 0;
    if (cut !== CHUNKER_VERSION) {
      engine.staleAll();
      const again = `the stored index was cut by ${cut ? `chunkers of version ${cut}` : "an earlier Fathom's chunkers"}, not this Fathom's (version ${CHUNKER_VERSION}): every file is chunked again on the next index pass, keeping the vectors of unchanged text`;
      note = note ? `${note}; ${again}` : again;
    }
    const fed = typeof m.i18nFed === 'string' ? { i18nFed: m.i18nFed } : {};
    return note ? { ok: true, note, ...fed } : { ok: true, ...fed };
  } catch (err) {
    engine.reset();
    return { ok: false, reason: `the stored index is damaged: ${(err as Error).message}` };
  }
}
