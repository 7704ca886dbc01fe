/**
 * Persistence of an Engine in a storage folder.
 *
 * Layout: `manifest.json` names one generation of data files (`catalog.<g>.jsonl`,
 * `chunks.<g>.jsonl` (one JSON value a line), `keyword.<g>.json` + `keyword.<g>.bin`, `vectors.<g>.bin`) with their
 * sizes and sha1 checksums. A save writes a new generation (each file to a temp name, then
 * renamed), then replaces the manifest atomically, then deletes the old generation: a crash
 * or a full disk at any point leaves the previous index loadable.
 *
 * Loading never re-chunks or re-embeds. A store that is corrupt, truncated, of another
 * format or of a newer version is not trusted: `load` says why and the caller rebuilds.
 * A lock file keeps two processes (two windows on one workspace) from writing at once.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Chunk } from '../chunkers/types';
import { Engine, hashText, type FileRecord } from './engine';
import type { KeywordSnapshot } from './keyword';
import { VectorStore } from './vectors';

export const STORE_FORMAT = 'fathom-index';
/** 2: catalog and chunks as JSON lines (one string per chunk, not one for the whole store). */
export const STORE_VERSION = 2;

interface FileEntry {
  name: string;
  bytes: number;
  sha1: string;
}

interface Manifest {
  format: string;
  version: number;
  generation: number;
  savedAt: string;
  model: { id: string; dims: number } | null;
  chunking: { maxTokens: number; maxFileBytes: number };
  files: Record<'catalog' | 'chunks' | 'keyword' | 'keywordData' | 'vectors', FileEntry>;
}

export class StoreLockedError extends Error {}

/** Writes one buffer to a file descriptor (a parameter so tests can make the disk fill up). */
export type WriteFn = (fd: number, data: Uint8Array) => void;

const writeAll: WriteFn = (fd, data) => {
  let off = 0;
  while (off < data.byteLength) off += fs.writeSync(fd, data, off, data.byteLength - off);
};

/**
 * Writes `parts` to `file` through a temp file (fsync, then rename), hashing and counting as it
 * goes, so that no part of the store has to exist as one string: 1M chunks make ~700 MB of
 * JSON, past V8's largest string. Parts are gathered into ~4 MB writes.
 */
function writeAtomic(file: string, parts: Iterable<string | Uint8Array>, write: WriteFn = writeAll): { bytes: number; sha1: string } {
  const tmp = `${file}.tmp-${process.pid}`;
  const sha = createHash('sha1');
  let bytes = 0;
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = () => {
        if (!pendingBytes) return;
        const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
        sha.update(buf);
        write(fd, buf);
        bytes += buf.byteLength;
        pending = [];
        pendingBytes = 0;
      };
      for (const part of parts) {
        const buf = typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part.buffer, part.byteOffset, part.byteLength);
        pending.push(buf);
        pendingBytes += buf.byteLength;
        if (pendingBytes >= 4 << 20) flush();
      }
      flush();
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    return { bytes, sha1: sha.digest('hex') };
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** One JSON value a line (`null` for an empty slot): written lazily, read line by line. */
function* jsonLines(items: Iterable<unknown>): Generator<string> {
  for (const x of items) yield `${JSON.stringify(x ?? null)}\n`;
}

function parseJsonLines<T>(buf: Buffer, name: string): T[] {
  const out: T[] = [];
  let start = 0;
  while (start < buf.byteLength) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.byteLength;
    if (end > start) {
      try {
        out.push(JSON.parse(buf.toString('utf8', start, end)) as T);
      } catch {
        throw new Error(`${name}: line ${out.length + 1} is not JSON`);
      }
    }
    start = end + 1;
  }
  return out;
}

/** Takes the store's lock, or throws StoreLockedError naming the holder. Returns the release. */
export function lockStore(dir: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, 'lock');
  const me = JSON.stringify({ pid: process.pid, host: os.hostname(), at: new Date().toISOString() });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, me, { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid?: number; host?: string } = {};
      try {
        holder = JSON.parse(fs.readFileSync(lock, 'utf8')) as typeof holder;
      } catch {
        holder = {}; // an unreadable lock file is stale: its writer died mid-write
      }
      const alive = holder.host === os.hostname() && typeof holder.pid === 'number' && isAlive(holder.pid);
      if (alive) throw new StoreLockedError(`the index in ${dir} is in use by process ${holder.pid}`);
      fs.rmSync(lock, { force: true }); // stale: its process is gone
    }
  }
  throw new StoreLockedError(`could not take the lock of ${dir}`);
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Saves the engine into `dir` (the caller holds the lock). A failure (a full disk, a folder
 * that became read-only) throws a clear error and leaves the previous generation in place.
 */
export function saveStore(dir: string, engine: Engine, options: { write?: WriteFn } = {}): void {
  fs.mkdirSync(dir, { recursive: true });
  const old = readManifest(dir);
  const g = (old && typeof old.generation === 'number' ? old.generation : 0) + 1;
  const written: string[] = [];
  const put = (name: string, parts: Iterable<string | Uint8Array>): FileEntry => {
    const file = path.join(dir, name);
    const entry = { name, ...writeAtomic(file, parts, options.write) };
    written.push(file); // only files this save created: a failed write removed its own temp file
    return entry;
  };
  try {
    const catalog = put(`catalog.${g}.jsonl`, jsonLines(engine.files.values()));
    const chunks = put(`chunks.${g}.jsonl`, jsonLines(engine.chunks));
    const snap = engine.keyword.export();
    const { data, ...meta } = snap;
    const keyword = put(`keyword.${g}.json`, [JSON.stringify(meta)]);
    const keywordData = put(`keyword.${g}.bin`, [data]);
    const vx = engine.vectors?.export();
    const vectors = put(`vectors.${g}.bin`, vx ? [vx.present, new Uint8Array(vx.data.buffer, vx.data.byteOffset, vx.data.byteLength)] : []);
    const manifest: Manifest = {
      format: STORE_FORMAT,
      version: STORE_VERSION,
      generation: g,
      savedAt: new Date().toISOString(),
      model: engine.embedder && engine.vectors ? { id: engine.embedder.id, dims: engine.vectors.dims } : null,
      chunking: { maxTokens: engine.chunkOptions.maxTokens, maxFileBytes: engine.chunkOptions.maxFileBytes },
      files: { catalog, chunks, keyword, keywordData, vectors },
    };
    writeAtomic(path.join(dir, 'manifest.json'), [JSON.stringify(manifest, null, 2)], options.write);
  } catch (err) {
    for (const f of written) fs.rmSync(f, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOSPC' ? 'the disk is full' : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'the folder cannot be written' : 'writing failed';
    throw new Error(`could not save the index in ${dir}: ${why} (${(err as Error).message}); the previous index is kept`);
  }
  // The new generation is committed: the old one's files can go.
  for (const name of fs.readdirSync(dir)) {
    const m = /\.(\d+)\.(jsonl?|bin)$/.exec(name);
    if (m && Number(m[1]) !== g) fs.rmSync(path.join(dir, name), { force: true });
  }
}

function readManifest(dir: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return undefined; // missing or unreadable: there is no usable store, which load() reports
  }
}

export type LoadResult = { ok: true } | { ok: false; reason: string };

/**
 * Loads `dir` into `engine` (fresh, constructed with the same model and chunking options).
 * Returns why the store cannot be trusted instead of throwing; the engine is then untouched.
 */
export function loadStore(dir: string, engine: Engine): LoadResult {
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) return { ok: false, reason: 'no stored index' };
  const m = readManifest(dir);
  if (!m || m.format !== STORE_FORMAT) return { ok: false, reason: 'the stored manifest is unreadable or of another format' };
  if (m.version > STORE_VERSION) return { ok: false, reason: `the stored index is version ${m.version}, newer than this Fathom's ${STORE_VERSION}` };
  if (m.version < STORE_VERSION) return { ok: false, reason: `the stored index is version ${m.version}, older than ${STORE_VERSION}` };
  const wantModel = engine.embedder && engine.vectors ? { id: engine.embedder.id, dims: engine.vectors.dims } : null;
  if (JSON.stringify(m.model) !== JSON.stringify(wantModel) && m.model !== null && wantModel !== null) {
    return { ok: false, reason: `the stored vectors come from ${m.model?.id}, not ${wantModel?.id}` };
  }
  if (m.chunking.maxTokens !== engine.chunkOptions.maxTokens || m.chunking.maxFileBytes !== engine.chunkOptions.maxFileBytes) {
    return { ok: false, reason: 'the chunking settings changed since the index was stored' };
  }
  const read = (e: FileEntry): Buffer => {
    const buf = fs.readFileSync(path.join(dir, e.name));
    if (buf.byteLength !== e.bytes) throw new Error(`${e.name} is truncated (${buf.byteLength} of ${e.bytes} bytes)`);
    if (hashText(buf) !== e.sha1) throw new Error(`${e.name} fails its checksum`);
    return buf;
  };
  try {
    const catalog = parseJsonLines<FileRecord>(read(m.files.catalog), m.files.catalog.name);
    const chunks = parseJsonLines<Chunk | null>(read(m.files.chunks), m.files.chunks.name);
    const kmeta = JSON.parse(read(m.files.keyword).toString('utf8')) as Omit<KeywordSnapshot, 'data'>;
    const kdata = read(m.files.keywordData);
    const vbuf = read(m.files.vectors);
    engine.keyword.import({ ...kmeta, data: new Uint8Array(kdata.buffer, kdata.byteOffset, kdata.byteLength) });
    engine.restore(catalog, chunks);
    if (m.model && engine.vectors && vbuf.byteLength) {
      const rows = vbuf.byteLength / (1 + 4 * m.model.dims);
      if (!Number.isInteger(rows)) throw new Error('vectors file has a size that is not a whole number of rows');
      const present = new Uint8Array(vbuf.subarray(0, rows));
      const data = new Float32Array(vbuf.buffer.slice(vbuf.byteOffset + rows, vbuf.byteOffset + vbuf.byteLength));
      engine.restoreVectors(VectorStore.import(m.model.dims, rows, present, data));
    }
    return { ok: true };
  } catch (err) {
    engine.reset();
    return { ok: false, reason: `the stored index is damaged: ${(err as Error).message}` };
  }
}
