/**
 * The error vocabulary every layer shares: the text of any thrown value, and the one error a
 * stopped operation throws (an aborted index run, a superseded search, a stopped embedding).
 */

/** The message of an Error, or the thrown value as text. */
export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The error a stopped operation throws or rejects with; `cancelled` survives structured cloning. */
export class CancelledError extends Error {
  readonly cancelled = true;
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/** A CancelledError, or its copy after crossing a thread (an object with `cancelled: true`). */
export function isCancelled(err: unknown): boolean {
  return err instanceof CancelledError || (typeof err === 'object' && err !== null && (err as { cancelled?: unknown }).cancelled === true);
}
