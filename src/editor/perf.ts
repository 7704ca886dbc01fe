/**
 * What the extension measures about itself on the extension host's thread, and logs so an
 * end-to-end run can read it from the log file:
 * - the longest synchronous piece of Fathom's own work (every event handler and command
 *   body is wrapped with `timed`), and
 * - the longest event-loop stall seen while the first index ran (`monitorEventLoopDelay`:
 *   that counts everything on the thread, other extensions too — an upper bound for Fathom).
 */
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

export class HostTimings {
  /** When the extension activated (performance.now()). */
  readonly t0 = performance.now();
  private longest = { ms: 0, what: '' };
  private histogram: IntervalHistogram | undefined;

  /** Runs `fn`, remembering how long it held the thread (its synchronous part). */
  timed<T>(what: string, fn: () => T): T {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      const ms = performance.now() - t0;
      if (ms > this.longest.ms) this.longest = { ms, what };
    }
  }

  /** Wraps a listener with `timed`. */
  wrap<A extends unknown[]>(what: string, fn: (...args: A) => void): (...args: A) => void {
    return (...args: A) => this.timed(what, () => fn(...args));
  }

  /** Milliseconds since activation. */
  sinceActivation(): number {
    return performance.now() - this.t0;
  }

  get longestTask(): { ms: number; what: string } {
    return { ...this.longest };
  }

  /** Starts watching event-loop delay (10 ms resolution). */
  startStallMonitor(): void {
    if (this.histogram) return;
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
  }

  private beforeMark: number | undefined;

  /**
   * Starts a new window (the first index began): what the monitor saw until now (the editor
   * starting up, other extensions activating) is kept apart as `beforeMaxMs`.
   */
  markStallWindow(): void {
    if (!this.histogram || this.beforeMark !== undefined) return;
    this.beforeMark = this.histogram.max / 1e6;
    this.histogram.reset();
  }

  /** Stops the monitor: the longest stall and the 99th percentile, ms (undefined when not started). */
  stopStallMonitor(): { maxMs: number; p99Ms: number; meanMs: number; beforeMaxMs?: number } | undefined {
    const h = this.histogram;
    if (!h) return undefined;
    h.disable();
    this.histogram = undefined;
    // the histogram counts delay beyond the timer's own resolution, in ns
    return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, meanMs: h.mean / 1e6, beforeMaxMs: this.beforeMark };
  }
}
