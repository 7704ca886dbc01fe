/**
 * How the worker paces its long loops and its events: a pause that holds every index and embed
 * loop at its next checkpoint (searches are still answered meanwhile), and a throttle that sends
 * the status at most every so often unless asked to send it at once.
 */

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The worker's `pause` / `resume`: the long loops wait at `checkpoint` while paused. */
export class PauseGate {
  private held = false;
  private waiters: Array<() => void> = [];

  get paused(): boolean {
    return this.held;
  }

  pause(): void {
    this.held = true;
  }

  /** Ends the pause: every loop waiting at a checkpoint goes on. */
  resume(): void {
    this.held = false;
    for (const w of this.waiters.splice(0)) w();
  }

  /** Gives the event loop a turn, then waits while paused; throws once `signal` aborts. */
  readonly checkpoint = async (signal: AbortSignal): Promise<void> => {
    await turn();
    while (this.held) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done);
      });
    }
    signal.throwIfAborted();
  };
}

/** Calls `send` at once when asked `now`, else at most once every `ms` (the calls in between make one). */
export class Throttle {
  private timer: NodeJS.Timeout | undefined;
  private last = 0;

  constructor(
    private readonly send: () => void,
    private readonly ms: number,
  ) {}

  push(now = false): void {
    const send = () => {
      this.timer = undefined;
      this.last = Date.now();
      this.send();
    };
    if (now) {
      if (this.timer) clearTimeout(this.timer);
      send();
    } else if (!this.timer) {
      this.timer = setTimeout(send, Math.max(0, this.ms - (Date.now() - this.last)));
    }
  }

  /** Drops a send that is waiting. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

/**
 * A set of jobs in flight that others wait for (the folders being opened: searches wait for
 * them). `begin` adds one and gives the function that ends it (once or more: the same end).
 */
export class InFlight {
  private readonly jobs = new Set<Promise<void>>();

  begin(): () => void {
    let end!: () => void;
    const job = new Promise<void>((resolve) => (end = resolve));
    this.jobs.add(job);
    return () => {
      this.jobs.delete(job);
      end();
    };
  }

  /** Resolves when every job in flight now has ended. */
  settled(): Promise<unknown> {
    return Promise.all(this.jobs);
  }
}
