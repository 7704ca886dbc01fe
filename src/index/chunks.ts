/**
 * The engine's chunks by docId (`ChunkTable`), and the columnar form a store keeps them in
 * (`StoredChunks`), read in place: a loaded store allocates nothing per chunk. A stored chunk is
 * made into a plain `Chunk` object only when asked for (`get`: a search result, a context
 * window, the i18n feed), each time anew; the filters, the embedding tiers and Find Similar's
 * own-piece test read its fields without its text (`facts`, `head`). Chunks added or replaced
 * since the load are kept as the objects they are.
 *
 * Stored form (two files of a store generation, see store.ts):
 * - texts: every chunk's text, UTF-8, one after the other in docId order;
 * - chunks: per chunk a varint-prefixed run of strings (id, symbol, parent, signature, header,
 *   and the JSON of any other field: split, links, meta), then fixed-width columns — path, language
 *   and kind as ids into name tables, start/end positions, tokens, flags — the start offsets of
 *   each chunk's strings and text, the sha1 of each embedded text that has a vector (so that a
 *   load hashes nothing), the docIds sorted by chunk id (lookups by id without a map), and a
 *   JSON trailer with the tables and the sections' places.
 */
import type { Chunk, ChunkKind } from '../chunkers/types';

/** A chunk without its text (what filters, tiers and span tests read). */
export type ChunkHead = Omit<Chunk, 'text'>;
/** What a filter reads (see fusion.ts `DocFacts`). */
export interface ChunkFacts {
  path: string;
  language: string;
  kind: string;
}

/** u32 fields per stored row. */
const W = 10;
const F_PATH = 0;
const F_LK = 1;
const F_START = 2; // offset, line, column
const F_END = 5; // offset, line, column
const F_TOKENS = 8;
const F_FLAGS = 9;
/** The path id of an empty slot (a docId freed by a removal). */
const DEAD = 0xffffffff;
const FLAG_COMPLETE = 1;
const FLAG_HASH = 2;
/** The fields kept in a row's strings; every other own field goes into its JSON "extra" string. */
const KNOWN = new Set(['id', 'path', 'language', 'kind', 'symbol', 'parent', 'signature', 'header', 'text', 'start', 'end', 'tokens', 'complete']);

const MAGIC = 0x4b484346; // "FCHK" little-endian
/** Format of the chunks section itself (the store's version says which sections there are). */
export const CHUNKS_FORMAT = 1;

interface Trailer {
  format: number;
  rows: number;
  paths: string[];
  languages: string[];
  kinds: string[];
  /** Byte offsets in the file: the strings blob is [0, strings). */
  strings: number;
  cols: number;
  strStart: number;
  textStart: number;
  hashes: number;
  idOrder: number;
  /** Live rows: the length of idOrder. */
  live: number;
}

const bad = (why: string): never => {
  throw new Error(why);
};

/** Reads a varint at `p` of `buf`: [value, next position]. */
function varint(buf: Uint8Array, p: number, end: number): [number, number] {
  let v = 0;
  let mul = 1;
  for (;;) {
    if (p >= end) bad('a string runs past its chunk');
    const b = buf[p++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, p];
    mul *= 128;
    if (mul > 2 ** 42) bad('a string length is too long');
  }
}

/**
 * The views of a chunks section's columns, checked: every section where the trailer says and of
 * its size, every offset in order and inside its blob, every name id in its table. Throws why not.
 */
function sections(buf: Buffer, texts: Buffer) {
  if (buf.byteLength < 8 || buf.readUInt32LE(buf.byteLength - 4) !== MAGIC) bad('not a chunks section');
  const tlen = buf.readUInt32LE(buf.byteLength - 8);
  if (tlen > buf.byteLength - 8) bad('its trailer is cut');
  let t: Trailer;
  try {
    t = JSON.parse(buf.toString('utf8', buf.byteLength - 8 - tlen, buf.byteLength - 8)) as Trailer;
  } catch {
    return bad('its trailer is not JSON');
  }
  if (!t || typeof t !== 'object' || t.format !== CHUNKS_FORMAT) bad(`its format is not ${CHUNKS_FORMAT}`);
  const n = t.rows;
  const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (!isCount(n) || !isCount(t.live) || t.live > n) bad('bad row counts');
  for (const k of ['paths', 'languages', 'kinds'] as const) if (!Array.isArray(t[k]) || !t[k].every((s) => typeof s === 'string')) bad(`bad ${k} table`);
  const end = buf.byteLength - 8 - tlen;
  const at = (key: 'cols' | 'strStart' | 'textStart' | 'hashes' | 'idOrder', bytes: number, align: number): number => {
    const o = t[key];
    if (!isCount(o) || o % align !== 0 || o < t.strings || o + bytes > end) bad(`its ${key} section is out of place`);
    return o;
  };
  if (!isCount(t.strings) || t.strings > end) bad('its strings section is out of place');
  const ab = buf.buffer;
  const base = buf.byteOffset;
  if (base % 8 !== 0) bad('unaligned buffer'); // the caller gives a Buffer of its own
  const cols = new Uint32Array(ab, base + at('cols', 4 * W * n, 4), W * n);
  const strStart = new Float64Array(ab, base + at('strStart', 8 * (n + 1), 8), n + 1);
  const textStart = new Float64Array(ab, base + at('textStart', 8 * (n + 1), 8), n + 1);
  const hashes = new Uint8Array(ab, base + at('hashes', 20 * n, 1), 20 * n);
  const idOrder = new Uint32Array(ab, base + at('idOrder', 4 * t.live, 4), t.live);
  if (strStart[0] !== 0 || strStart[n] !== t.strings) bad('its string offsets do not add up');
  if (textStart[0] !== 0 || textStart[n] !== texts.byteLength) bad('its text offsets do not match the texts section');
  let live = 0;
  const P = t.paths.length;
  const L = t.languages.length;
  const K = t.kinds.length;
  for (let i = 0; i < n; i++) {
    if (!(strStart[i + 1] >= strStart[i]) || !(textStart[i + 1] >= textStart[i])) bad('its offsets are out of order');
    const p = cols[i * W + F_PATH];
    if (p === DEAD) continue;
    live++;
    const lk = cols[i * W + F_LK];
    if (p >= P || lk >>> 16 >= L || (lk & 0xffff) >= K) bad('a name id is out of range');
    // its six strings end where the next chunk's begin
    let q = strStart[i];
    const e = strStart[i + 1];
    for (let f = 0; f < 6; f++) {
      const [len1, r] = varint(buf, q, e);
      q = r + Math.max(0, len1 - 1);
    }
    if (q !== e) bad('a chunk\'s strings do not fill its place');
  }
  if (live !== t.live) bad('its live rows do not add up');
  for (let j = 0; j < t.live; j++) {
    const d = idOrder[j];
    if (d >= n || cols[d * W + F_PATH] === DEAD) bad('its id order names an empty row');
  }
  return { t, cols, strStart, textStart, hashes, idOrder };
}

/**
 * The stored chunks of one store generation, over the two files' bytes (kept whole, read in
 * place). Throws, saying what is wrong, when the sections do not fit together.
 */
export class StoredChunks {
  readonly rows: number;
  readonly live: number;
  readonly paths: readonly string[];
  readonly languages: readonly string[];
  readonly kinds: readonly string[];
  private readonly cols: Uint32Array;
  private readonly strStart: Float64Array;
  private readonly textStart: Float64Array;
  private readonly hashes: Uint8Array;
  private readonly idOrder: Uint32Array;

  constructor(
    private readonly buf: Buffer,
    private readonly texts: Buffer,
    name = 'chunks',
  ) {
    let v: ReturnType<typeof sections>;
    try {
      v = sections(buf, texts);
    } catch (err) {
      throw new Error(`${name}: ${(err as Error).message}`);
    }
    this.rows = v.t.rows;
    this.live = v.t.live;
    this.paths = v.t.paths;
    this.languages = v.t.languages;
    this.kinds = v.t.kinds;
    this.cols = v.cols;
    this.strStart = v.strStart;
    this.textStart = v.textStart;
    this.hashes = v.hashes;
    this.idOrder = v.idOrder;
  }

  alive(i: number): boolean {
    return i >= 0 && i < this.rows && this.cols[i * W + F_PATH] !== DEAD;
  }

  path(i: number): string {
    return this.paths[this.cols[i * W + F_PATH]];
  }

  facts(i: number): ChunkFacts {
    const lk = this.cols[i * W + F_LK];
    return { path: this.paths[this.cols[i * W + F_PATH]], language: this.languages[lk >>> 16], kind: this.kinds[lk & 0xffff] };
  }

  text(i: number): string {
    return this.texts.toString('utf8', this.textStart[i], this.textStart[i + 1]);
  }

  /** The row's strings: id, symbol, parent, signature, header, extra (undefined when absent). */
  private strings(i: number): Array<string | undefined> {
    const out: Array<string | undefined> = [];
    const end = this.strStart[i + 1];
    let p = this.strStart[i];
    for (let f = 0; f < 6; f++) {
      const [len1, q] = varint(this.buf, p, end);
      if (len1 === 0) {
        out.push(undefined);
        p = q;
        continue;
      }
      if (q + len1 - 1 > end) bad('a string runs past its chunk');
      out.push(this.buf.toString('utf8', q, q + len1 - 1));
      p = q + len1 - 1;
    }
    return out;
  }

  /** The id of row `i` (no other string decoded). */
  id(i: number): string {
    const end = this.strStart[i + 1];
    const [len1, q] = varint(this.buf, this.strStart[i], end);
    return this.buf.toString('utf8', q, q + len1 - 1);
  }

  head(i: number): ChunkHead {
    const c = this.cols;
    const o = i * W;
    const [id, symbol, parent, signature, header, extra] = this.strings(i);
    const lk = c[o + F_LK];
    const h: ChunkHead = {
      id: id!,
      path: this.paths[c[o + F_PATH]],
      language: this.languages[lk >>> 16],
      kind: this.kinds[lk & 0xffff] as ChunkKind,
      header: header!,
      start: { offset: c[o + F_START], line: c[o + F_START + 1], column: c[o + F_START + 2] },
      end: { offset: c[o + F_END], line: c[o + F_END + 1], column: c[o + F_END + 2] },
      tokens: c[o + F_TOKENS],
      complete: (c[o + F_FLAGS] & FLAG_COMPLETE) !== 0,
    };
    if (symbol !== undefined) h.symbol = symbol;
    if (parent !== undefined) h.parent = parent;
    if (signature !== undefined) h.signature = signature;
    if (extra !== undefined) {
      try {
        Object.assign(h, JSON.parse(extra) as object);
      } catch {
        // only a store damaged past its checksum gets here: the chunk without its extra fields
      }
    }
    return h;
  }

  chunk(i: number): Chunk {
    const h = this.head(i) as Chunk;
    h.text = this.text(i);
    return h;
  }

  hasHash(i: number): boolean {
    return (this.cols[i * W + F_FLAGS] & FLAG_HASH) !== 0;
  }

  /** The stored sha1 (hex) of the embedded text of row `i`, when it had a vector. */
  hash(i: number): string | undefined {
    if (!(this.cols[i * W + F_FLAGS] & FLAG_HASH)) return undefined;
    return Buffer.from(this.hashes.buffer, this.hashes.byteOffset + 20 * i, 20).toString('hex');
  }

  /** The live row with chunk id `id` (binary search over the id order), or -1. */
  find(id: string): number {
    let lo = 0;
    let hi = this.live - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const row = this.idOrder[mid];
      const x = this.id(row);
      if (x === id) return row;
      if (x < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The live rows in id order (for a save that keeps them). */
  idOrderView(): Uint32Array {
    return this.idOrder;
  }

  /** For a save: the raw bytes of row `i`'s strings and text, and its fixed fields. */
  raw(i: number): { str: [number, number]; text: [number, number] } {
    return { str: [this.strStart[i], this.strStart[i + 1]], text: [this.textStart[i], this.textStart[i + 1]] };
  }
  get stringsBlob(): Buffer {
    return this.buf;
  }
  get textsBlob(): Buffer {
    return this.texts;
  }
  columns(i: number): Uint32Array {
    return this.cols.subarray(i * W, i * W + W);
  }
  hashBytes(i: number): Uint8Array | undefined {
    return this.cols[i * W + F_FLAGS] & FLAG_HASH ? this.hashes.subarray(20 * i, 20 * i + 20) : undefined;
  }
}

/**
 * The chunks by docId: those of a loaded store (`StoredChunks`, read in place) and those added
 * or replaced since (objects). Slots freed by a removal are empty (`get` gives undefined).
 */
export class ChunkTable implements Iterable<Chunk | undefined> {
  private stored: StoredChunks | undefined;
  /** Per docId: a chunk set since the load, null for an emptied slot, undefined for the stored row (if any). */
  private objs: Array<Chunk | null | undefined> = [];
  /** The docIds of chunks set since the load, by chunk id (the stored ones are found in the store's id order). */
  private added = new Map<string, number>();
  private liveCount = 0;

  get length(): number {
    return this.objs.length;
  }

  /** Live chunks. */
  get count(): number {
    return this.liveCount;
  }

  clear(): void {
    this.stored = undefined;
    this.objs = [];
    this.added.clear();
    this.liveCount = 0;
  }

  /** Takes the rows of a loaded store (replacing everything). */
  adopt(stored: StoredChunks): void {
    this.clear();
    this.stored = stored;
    this.objs = new Array<Chunk | null | undefined>(stored.rows);
    this.liveCount = stored.live;
  }

  /** The stored row behind `docId`, when it is still the chunk there. */
  private storedRow(docId: number): boolean {
    return this.objs[docId] === undefined && this.stored !== undefined && this.stored.alive(docId);
  }

  has(docId: number): boolean {
    const o = this.objs[docId];
    return o !== undefined ? o !== null : this.stored !== undefined && this.stored.alive(docId);
  }

  get(docId: number): Chunk | undefined {
    const o = this.objs[docId];
    if (o !== undefined) return o ?? undefined;
    return this.stored?.alive(docId) ? this.stored.chunk(docId) : undefined;
  }

  /** Everything but the text (no text decoded for a stored chunk). */
  head(docId: number): ChunkHead | undefined {
    const o = this.objs[docId];
    if (o !== undefined) return o ?? undefined;
    return this.stored?.alive(docId) ? this.stored.head(docId) : undefined;
  }

  /** Path, language and kind only. */
  facts(docId: number): ChunkFacts | undefined {
    const o = this.objs[docId];
    if (o !== undefined) return o ?? undefined;
    return this.stored?.alive(docId) ? this.stored.facts(docId) : undefined;
  }

  text(docId: number): string | undefined {
    const o = this.objs[docId];
    if (o !== undefined) return o?.text;
    return this.stored?.alive(docId) ? this.stored.text(docId) : undefined;
  }

  /** The stored sha1 of a stored row's embedded text (see StoredChunks.hash). */
  storedHash(docId: number): string | undefined {
    return this.storedRow(docId) ? this.stored!.hash(docId) : undefined;
  }

  set(docId: number, chunk: Chunk): void {
    if (!Number.isSafeInteger(docId) || docId < 0) throw new RangeError(`bad docId ${docId}`);
    if (this.has(docId)) this.delete(docId);
    while (this.objs.length < docId) this.objs.push(null);
    this.objs[docId] = chunk;
    this.added.set(chunk.id, docId);
    this.liveCount++;
  }

  delete(docId: number): void {
    const o = this.objs[docId];
    if (o === null || docId >= this.objs.length) return;
    if (o === undefined) {
      if (!this.stored?.alive(docId)) return;
    } else if (this.added.get(o.id) === docId) this.added.delete(o.id);
    this.objs[docId] = null;
    this.liveCount--;
  }

  /** The docId of the chunk with id `id`. */
  docIdOf(id: string): number | undefined {
    const d = this.added.get(id);
    if (d !== undefined) return d;
    if (!this.stored) return undefined;
    const row = this.stored.find(id);
    return row >= 0 && this.objs[row] === undefined ? row : undefined;
  }

  keys(): IterableIterator<number> {
    return this.objs.keys();
  }

  *[Symbol.iterator](): Iterator<Chunk | undefined> {
    for (let i = 0; i < this.objs.length; i++) yield this.get(i);
  }

  /** For a save: the stored chunks and whether `docId` is still their row. */
  storedSource(): StoredChunks | undefined {
    return this.stored;
  }
  isStored(docId: number): boolean {
    return this.storedRow(docId);
  }
  /** For a save: the object at `docId` (set since the load), or undefined. */
  object(docId: number): Chunk | undefined {
    return this.objs[docId] ?? undefined;
  }
}

/** Writes a varint-prefixed string (0: absent) into `out`. */
function putString(out: ByteSink, s: string | undefined): void {
  if (s === undefined) {
    out.byte(0);
    return;
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  let v = bytes + 1;
  while (v >= 0x80) {
    out.byte((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.byte(v);
  out.utf8(s, bytes);
}

/** Gathers bytes into 1 MB blocks and ranges of existing buffers (merged when contiguous). */
class ByteSink {
  readonly parts: Uint8Array[] = [];
  private block = Buffer.allocUnsafe(1 << 20);
  private at = 0;
  private blockStart = 0;
  /** A range of an existing buffer not yet pushed (merged with the next one when contiguous). */
  private run: { buf: Buffer; a: number; b: number } | undefined;
  size = 0;

  private flushRun(): void {
    if (!this.run) return;
    this.parts.push(this.run.buf.subarray(this.run.a, this.run.b));
    this.run = undefined;
  }
  private flushBlock(): void {
    if (this.at > this.blockStart) this.parts.push(this.block.subarray(this.blockStart, this.at));
    this.blockStart = this.at;
  }
  private room(n: number): void {
    this.flushRun();
    if (this.at + n <= this.block.byteLength) return;
    this.flushBlock();
    this.block = Buffer.allocUnsafe(Math.max(1 << 20, n));
    this.at = 0;
    this.blockStart = 0;
  }
  byte(b: number): void {
    this.room(1);
    this.block[this.at++] = b;
    this.size++;
  }
  utf8(s: string, bytes: number): void {
    if (bytes > 1 << 16) {
      this.flushBlock();
      this.flushRun();
      this.parts.push(Buffer.from(s, 'utf8'));
    } else {
      this.room(bytes);
      this.at += this.block.write(s, this.at, 'utf8');
    }
    this.size += bytes;
  }
  /** Appends `buf[a, b)`, without copying. */
  range(buf: Buffer, a: number, b: number): void {
    if (b <= a) return;
    if (this.run && this.run.buf === buf && this.run.b === a) this.run.b = b;
    else {
      this.flushBlock();
      this.flushRun();
      this.run = { buf, a, b };
    }
    this.size += b - a;
  }
  bytes(data: Uint8Array): void {
    this.flushBlock();
    this.flushRun();
    if (data.byteLength) this.parts.push(data);
    this.size += data.byteLength;
  }
  /** Everything gathered so far, handed over (the sink starts again empty). */
  take(): Uint8Array[] {
    this.flushBlock();
    this.flushRun();
    return this.parts.splice(0);
  }
}

/**
 * The two files of `table` (texts, chunks) as parts to write, in that order: `texts()` must be
 * consumed first (it records where each text starts). `hashOf(docId)`: the hex sha1 of the
 * embedded text of a chunk that has a vector.
 */
export function chunkSections(table: ChunkTable, hashOf: (docId: number) => string | undefined): { texts: () => Iterable<Uint8Array>; chunks: () => Iterable<Uint8Array> } {
  const textStart = new Float64Array(table.length + 1);
  let textsDone = false;
  function* texts(): Generator<Uint8Array> {
    yield* textSection(table, textStart);
    textsDone = true;
  }
  function* chunks(): Generator<Uint8Array> {
    if (!textsDone) throw new Error('chunk sections: texts first');
    yield* chunkSection(table, hashOf, textStart);
  }
  return { texts, chunks };
}

/** The texts file: every live chunk's text, stored ones copied as bytes; `textStart[i]` is where row i's begins. */
function* textSection(table: ChunkTable, textStart: Float64Array): Generator<Uint8Array> {
  const n = table.length;
  const stored = table.storedSource();
  const sink = new ByteSink();
  const tb = stored?.textsBlob;
  for (let i = 0; i < n; i++) {
    textStart[i] = sink.size;
    if (table.isStored(i)) {
      const [a, b] = stored!.raw(i).text;
      sink.range(tb!, a, b);
    } else {
      const c = table.object(i);
      if (c) sink.utf8(c.text, Buffer.byteLength(c.text, 'utf8'));
    }
    if (sink.parts.length > 64) yield* sink.take();
  }
  textStart[n] = sink.size;
  yield* sink.take();
}

/** The chunks file: each row's strings, then the columns, string starts, text starts, hashes and id order (8-aligned), then the trailer. */
function* chunkSection(table: ChunkTable, hashOf: (docId: number) => string | undefined, textStart: Float64Array): Generator<Uint8Array> {
  const n = table.length;
  const rows = new RowWriter(table);
  for (let i = 0; i < n; i++) {
    rows.strStart[i] = rows.sink.size;
    if (table.isStored(i)) rows.stored(i);
    else if (!rows.fresh(i)) continue; // a dead row: no strings, no hash
    rows.hash(i, hashOf(i));
    if (rows.sink.parts.length > 64) yield* rows.sink.take();
  }
  rows.strStart[n] = rows.sink.size;
  const stringsBytes = rows.sink.size;
  yield* rows.sink.take();
  const idOrder = idOrderOf(table, rows.freshIds, rows.live);
  const at: number[] = [];
  yield* aligned(stringsBytes, [rows.cols, rows.strStart, textStart, rows.hashes, idOrder], at);
  const [colsAt, strAt, textAt, hashAt, orderAt] = at;
  yield* trailerParts({
    format: CHUNKS_FORMAT,
    rows: n,
    live: rows.live,
    paths: rows.paths.list,
    languages: rows.languages.list,
    kinds: rows.kinds.list,
    strings: stringsBytes,
    cols: colsAt,
    strStart: strAt,
    textStart: textAt,
    hashes: hashAt,
    idOrder: orderAt,
  });
}

/** A list of names, each given the next id on first use. */
function nameIds(): { list: string[]; id(s: string): number } {
  const list: string[] = [];
  const ids = new Map<string, number>();
  return {
    list,
    id(s: string): number {
      let x = ids.get(s);
      if (x === undefined) {
        x = list.length;
        ids.set(s, x);
        list.push(s);
      }
      return x;
    },
  };
}

/** Stored name ids → this file's (only the names still used are kept). */
function remap(table: readonly string[], to: ReturnType<typeof nameIds>): (id: number) => number {
  const m = new Int32Array(table.length).fill(-1);
  return (id: number) => (m[id] >= 0 ? m[id] : (m[id] = to.id(table[id])));
}

/** Writes the rows of the chunks file: their columns, strings (in `sink`) and hashes. */
class RowWriter {
  readonly sink = new ByteSink();
  readonly cols: Uint32Array;
  readonly strStart: Float64Array;
  readonly hashes: Uint8Array;
  readonly paths = nameIds();
  readonly languages = nameIds();
  readonly kinds = nameIds();
  /** Rows written that hold a chunk. */
  live = 0;
  /** The ids and rows of the chunks not from the store. */
  readonly freshIds: Array<[string, number]> = [];
  private readonly src: StoredChunks | undefined;
  private readonly sb: Buffer | undefined;
  private readonly sp: ((id: number) => number) | undefined;
  private readonly sl: ((id: number) => number) | undefined;
  private readonly sk: ((id: number) => number) | undefined;

  constructor(private readonly table: ChunkTable) {
    const n = table.length;
    this.cols = new Uint32Array(n * W);
    this.strStart = new Float64Array(n + 1);
    this.hashes = new Uint8Array(20 * n);
    const stored = (this.src = table.storedSource());
    this.sb = stored?.stringsBlob;
    this.sp = stored ? remap(stored.paths, this.paths) : undefined;
    this.sl = stored ? remap(stored.languages, this.languages) : undefined;
    this.sk = stored ? remap(stored.kinds, this.kinds) : undefined;
  }

  /** A row of the store: its columns with the names renumbered, its strings' bytes as they are. */
  stored(i: number): void {
    const stored = this.src!;
    const o = i * W;
    const src = stored.columns(i);
    this.cols.set(src, o);
    this.cols[o + F_PATH] = this.sp!(src[F_PATH]);
    this.cols[o + F_LK] = (this.sl!(src[F_LK] >>> 16) << 16) | this.sk!(src[F_LK] & 0xffff);
    const [a, b] = stored.raw(i).str;
    this.sink.range(this.sb!, a, b);
    this.live++;
  }

  /** A row not from the store, from its chunk object; false: the row is dead (marked so). */
  fresh(i: number): boolean {
    const cols = this.cols;
    const o = i * W;
    const c = this.table.object(i);
    if (!c) {
      cols[o + F_PATH] = DEAD;
      return false;
    }
    this.live++;
    this.freshIds.push([c.id, i]);
    cols[o + F_PATH] = this.paths.id(c.path);
    const lang = this.languages.id(c.language);
    const kind = this.kinds.id(c.kind);
    if (lang > 0xffff || kind > 0xffff) throw new Error('more than 65,536 languages or kinds');
    cols[o + F_LK] = (lang << 16) | kind;
    cols[o + F_START] = c.start.offset;
    cols[o + F_START + 1] = c.start.line;
    cols[o + F_START + 2] = c.start.column;
    cols[o + F_END] = c.end.offset;
    cols[o + F_END + 1] = c.end.line;
    cols[o + F_END + 2] = c.end.column;
    cols[o + F_TOKENS] = c.tokens;
    cols[o + F_FLAGS] = c.complete ? FLAG_COMPLETE : 0;
    let extra: Record<string, unknown> | undefined;
    for (const k of Object.keys(c)) {
      if (KNOWN.has(k) || (c as unknown as Record<string, unknown>)[k] === undefined) continue;
      (extra ??= {})[k] = (c as unknown as Record<string, unknown>)[k];
    }
    const sink = this.sink;
    putString(sink, c.id);
    putString(sink, c.symbol ?? undefined);
    putString(sink, c.parent ?? undefined);
    putString(sink, c.signature ?? undefined);
    putString(sink, c.header);
    putString(sink, extra ? JSON.stringify(extra) : undefined);
    return true;
  }

  /** A live row's hash of its embedded text (`h`: hex sha1), flagged; none or not a sha1: the flag cleared. */
  hash(i: number, h: string | undefined): void {
    const o = i * W;
    if (h !== undefined && /^[0-9a-f]{40}$/.test(h)) {
      this.hashes.set(Buffer.from(h, 'hex'), 20 * i);
      this.cols[o + F_FLAGS] |= FLAG_HASH;
    } else this.cols[o + F_FLAGS] &= ~FLAG_HASH;
  }
}

/** The docIds in id order: the kept stored rows (already in order) merged with the others. */
function idOrderOf(table: ChunkTable, fresh: Array<[string, number]>, live: number): Uint32Array {
  const stored = table.storedSource();
  fresh.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1]));
  const idOrder = new Uint32Array(live);
  let k = 0;
  let f = 0;
  if (stored) {
    for (const row of stored.idOrderView()) {
      if (!table.isStored(row)) continue;
      const id = stored.id(row);
      while (f < fresh.length && fresh[f][0] < id) idOrder[k++] = fresh[f++][1];
      idOrder[k++] = row;
    }
  }
  while (f < fresh.length) idOrder[k++] = fresh[f++][1];
  if (k !== live) throw new Error(`chunk sections: ${k} ids for ${live} chunks`);
  return idOrder;
}

/** `arrays`' bytes, each after the padding that puts it 8-aligned in the file (which has `pos` bytes before them); `at` gets each one's offset. */
function* aligned(pos: number, arrays: ArrayBufferView[], at: number[]): Generator<Uint8Array> {
  for (const a of arrays) {
    const pad = (8 - (pos % 8)) % 8;
    pos += pad;
    yield new Uint8Array(pad);
    at.push(pos);
    pos += a.byteLength;
    yield new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  }
}

/** The trailer's JSON, then its length and the magic number. */
function* trailerParts(trailer: Trailer): Generator<Uint8Array> {
  const json = Buffer.from(JSON.stringify(trailer), 'utf8');
  const foot = Buffer.alloc(8);
  foot.writeUInt32LE(json.byteLength, 0);
  foot.writeUInt32LE(MAGIC, 4);
  yield json;
  yield foot;
}
