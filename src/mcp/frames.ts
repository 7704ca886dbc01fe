/**
 * Newline-delimited JSON-RPC frames from stdin, each at most `max` bytes. The MCP SDK's stdio
 * transport closes itself when one line passes its 10 MiB buffer (the server then ends with
 * "closed" and the client gets no reply); here such a frame is dropped as it streams in (never
 * held whole), answered with a JSON-RPC error, and the next frames are served.
 */
import { EventEmitter } from 'node:events';

export const MAX_FRAME_BYTES = 10 * 1024 * 1024;
/** The start of a dropped frame kept to find its request id. */
const HEAD_BYTES = 4096;

export type FrameId = string | number | null;

/** The `id` of a request from the start of its text (before its "params"), or null. */
export function frameId(head: string): FrameId {
  const params = head.indexOf('"params"');
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(params === -1 ? head : head.slice(0, params));
  if (!m) return null;
  try {
    const v: unknown = JSON.parse(m[1]);
    return typeof v === 'string' || typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

/**
 * A stand-in for stdin that the transport reads ('data', 'error', pause): it emits whole lines
 * (newline included) of at most `max` bytes, and calls `rejected` for each longer line instead.
 */
export class FrameLimiter extends EventEmitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private head = '';

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly rejected: (bytes: number, id: FrameId) => void,
    private readonly max = MAX_FRAME_BYTES,
  ) {
    super();
    input.on('data', (chunk: Buffer | string) => this.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.on('error', (err) => this.emit('error', err));
  }

  pause(): this {
    this.input.pause();
    return this;
  }

  resume(): this {
    this.input.resume();
    return this;
  }

  /** Takes the next bytes of the stream. */
  feed(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      const textBytes = this.size + piece.length - (nl === -1 ? 0 : 1);
      if (!this.dropping && textBytes > this.max) {
        this.dropping = true;
        this.head = Buffer.concat([...this.parts, piece]).subarray(0, HEAD_BYTES).toString('utf8');
        this.parts = [];
      }
      this.size += piece.length;
      if (!this.dropping) this.parts.push(piece);
      if (nl === -1) continue;
      if (this.dropping) this.rejected(this.size - 1, frameId(this.head));
      else this.emit('data', this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts));
      this.parts = [];
      this.size = 0;
      this.dropping = false;
      this.head = '';
    }
  }
}
