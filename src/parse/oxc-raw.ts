/**
 * oxc's "raw transfer": the parser writes its AST into a buffer shared with JavaScript, and
 * oxc's generated deserializer builds the ESTree objects straight from it, instead of the binding
 * serializing the AST to JSON and `JSON.parse` reading it back (8 bytes of JSON a byte of source).
 * Same objects (bench/parser-identity.ts; the JSON path stays as the fallback), about three times
 * faster: parse and deserialize of langsmith's 1,098 scripts (4.7 MB), warm, 183–286 ms against
 * 603–725 ms through JSON.
 *
 * oxc-parser enables it only on Node ≥ 22, which can make a typed array over its whole 6 GiB
 * buffer. It needs no more than views under 4 GiB, which Node 20 makes as well: the buffer is
 * allocated here and handed to the binding the way oxc-parser's own `raw-transfer/common.js`
 * does. Only virtual memory: the pages the parser writes are the ones committed. Where the
 * buffer cannot be had (an address space or overcommit limit, a runtime that refuses an
 * ArrayBuffer this large) or a parse through it throws, this thread goes back to JSON for good,
 * and `rawTransferProblem()` says why. `FATHOM_OXC_RAW=0` turns it off. A thread that stops
 * parsing lets its buffer go after `IDLE_MS`, as oxc-parser does.
 */
import { BLOCK_ALIGN, BLOCK_SIZE, BUFFER_SIZE, ACTIVE_SIZE, IS_TS_FLAG_POS } from 'oxc-parser/src-js/generated/constants';
import { errText } from '../util/errors';

export interface RawBinding {
  parseRawSync?(filename: string, block: Uint8Array, sourceStart: number, sourceByteLen: number, options: Record<string, unknown>): void;
  getBufferOffset?(buffer: Uint8Array): number;
}

/** What a deserializer gives: the program and comments in oxc's ESTree shape, and the errors. */
export interface RawResult {
  program: Record<string, unknown> & { type: string; start: number; end: number };
  comments: Array<{ type: 'Line' | 'Block'; value: string; start: number; end: number }>;
  errors: unknown[];
}

type Deserialize = (buffer: Uint8Array, sourceText: string, sourceStartPos: number, sourceByteLen: number) => RawResult;

interface Buffers {
  buffer: Uint8Array & { int32: Int32Array; float64: Float64Array };
  block: Uint8Array;
}

let buffers: Buffers | null | undefined;
let problem: string | undefined;
let deserializeJs: Deserialize | undefined;
let deserializeTs: Deserialize | undefined;
const encoder = new TextEncoder();

let off = false;

/**
 * A thread that has not parsed for this long lets its buffer go (the pages the parser wrote stay
 * committed while it is held; a pool thread can idle for hours), as oxc-parser does; the next
 * parse makes a new one.
 */
const IDLE_MS = 10_000;
let lastUse = 0;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function touch(): void {
  lastUse = Date.now();
  if (!idleTimer) idleTimer = setTimeout(sweep, IDLE_MS).unref();
}

function sweep(): void {
  const idle = Date.now() - lastUse;
  if (idle >= IDLE_MS) {
    idleTimer = undefined;
    if (buffers) buffers = undefined;
  } else idleTimer = setTimeout(sweep, IDLE_MS - idle).unref();
}

/** Turns raw transfer off (false) or back to the default (undefined): JSON-path runs for comparisons. */
export function useRawTransfer(on: boolean | undefined): void {
  off = on === false;
}

/** Why raw transfer is not used on this thread (undefined while it is, or before the first parse). */
export function rawTransferProblem(): string | undefined {
  return problem;
}

function giveUp(why: string): null {
  problem = why;
  buffers = null;
  return null;
}

function setUp(b: RawBinding): Buffers | null {
  if (buffers !== undefined) return buffers;
  if (process.env.FATHOM_OXC_RAW === '0') return giveUp('FATHOM_OXC_RAW=0');
  if (typeof b.parseRawSync !== 'function' || typeof b.getBufferOffset !== 'function') return giveUp('the oxc binding has no raw transfer');
  if (!isLittleEndian()) return giveUp('raw transfer needs a little-endian machine');
  try {
    const ab = new ArrayBuffer(BLOCK_SIZE + BLOCK_ALIGN);
    // the offset of the 4 GiB-aligned block inside the buffer; a view under 4 GiB is enough to find it
    const offset = b.getBufferOffset(new Uint8Array(ab, 0, Math.min(ab.byteLength, 2 ** 32 - 1)));
    const buffer = new Uint8Array(ab, offset, BUFFER_SIZE) as Buffers['buffer'];
    buffer.int32 = new Int32Array(ab, offset, BUFFER_SIZE / 4);
    buffer.float64 = new Float64Array(ab, offset, BUFFER_SIZE / 8);
    buffers = { buffer, block: new Uint8Array(ab, offset, BLOCK_SIZE) };
    return buffers;
  } catch (err) {
    return giveUp(`no buffer for raw transfer: ${errText(err)}`);
  }
}

function isLittleEndian(): boolean {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
}

/**
 * Parses `code` through raw transfer: the AST in oxc's ESTree shape, as the JSON path gives it
 * (RegExp and BigInt literal values excepted: they are objects here, null there). Null when raw
 * transfer is not available on this thread: the caller takes the JSON path.
 */
export function parseRaw(b: RawBinding, filename: string, code: string, options: Record<string, unknown>): RawResult | null {
  if (off) return null;
  const bufs = setUp(b);
  if (!bufs) return null;
  touch();
  // room for the source's UTF-8 at the end of the active region (3 bytes a UTF-16 unit at most)
  const max = code.length * 3;
  if (max > 2 ** 30) return null;
  const start = ACTIVE_SIZE - max;
  try {
    const { read, written } = encoder.encodeInto(code, new Uint8Array(bufs.buffer.buffer, bufs.buffer.byteOffset + start, max));
    if (read !== code.length) return null;
    b.parseRawSync!(filename, bufs.block, start, written, options);
    const js = bufs.buffer[IS_TS_FLAG_POS] === 0;
    return deserializer(js)(bufs.buffer, code, start, written);
  } catch (err) {
    return giveUp(`raw transfer failed: ${errText(err)}`);
  }
}

function deserializer(js: boolean): Deserialize {
  // the generated deserializers are large (160 KB each): loaded when first needed
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (js) return (deserializeJs ??= (require('oxc-parser/src-js/generated/deserialize/js') as { deserialize: Deserialize }).deserialize);
  return (deserializeTs ??= (require('oxc-parser/src-js/generated/deserialize/ts') as { deserialize: Deserialize }).deserialize);
  /* eslint-enable @typescript-eslint/no-require-imports */
}
