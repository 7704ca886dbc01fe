/**
 * File watcher events → batches. A branch switch that touches thousands of files must become
 * one batch, not thousands of worker jobs: events are collected per folder and path, collapsed
 * (the last state of a path wins: create+delete is a delete, delete+create a change), and
 * flushed once no event came for `quietMs`, or at the latest `maxWaitMs` after the first one
 * of the batch (a stream that never pauses still gets indexed). Pure: timers are injected.
 */
import { toRel } from '../util/paths';

export type FileEventKind = 'create' | 'change' | 'delete';

export interface FolderBatch {
  root: string;
  /** Created or changed files (read from disk by the worker). */
  changed: string[];
  /** Deleted files or folders (a folder's delete event names only the folder). */
  deleted: string[];
  /** A `.gitignore` changed: what is ignored may have changed — re-walk the folder. */
  ignoreRulesChanged: boolean;
}

export interface BatcherOptions {
  quietMs?: number;
  maxWaitMs?: number;
  /** Cheap pre-filter (e.g. `.git/` internals); the worker applies the full rules. */
  keep?: (rel: string) => boolean;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
  now?: () => number;
}

export class EventBatcher {
  private readonly pending = new Map<string, Map<string, 'change' | 'delete'>>();
  private timer: unknown;
  private firstAt = 0;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;
  private readonly now: () => number;

  constructor(
    private readonly flushTo: (batches: FolderBatch[]) => void,
    private readonly options: BatcherOptions = {},
  ) {
    this.quietMs = options.quietMs ?? 300;
    this.maxWaitMs = options.maxWaitMs ?? 3000;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout));
    this.now = options.now ?? Date.now;
  }

  /** Paths waiting, all folders together. */
  get size(): number {
    let n = 0;
    for (const m of this.pending.values()) n += m.size;
    return n;
  }

  add(root: string, relIn: string, kind: FileEventKind): void {
    const rel = toRel(relIn.replace(/\\/g, '/'));
    if (!rel || rel.startsWith('../') || (this.options.keep && !this.options.keep(rel))) return;
    let m = this.pending.get(root);
    if (!m) this.pending.set(root, (m = new Map()));
    m.delete(rel); // re-insert: the map's order is the order of the last events
    m.set(rel, kind === 'delete' ? 'delete' : 'change');
    if (this.size === 1) this.firstAt = this.now();
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    const waited = this.now() - this.firstAt;
    const delay = Math.max(0, Math.min(this.quietMs, this.maxWaitMs - waited));
    this.timer = this.setTimer(() => this.flush(), delay);
  }

  /** Sends what is pending now (one batch per folder). */
  flush(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    if (!this.pending.size) return;
    const batches: FolderBatch[] = [];
    for (const [root, m] of this.pending) {
      const b: FolderBatch = { root, changed: [], deleted: [], ignoreRulesChanged: false };
      for (const [rel, state] of m) {
        (state === 'delete' ? b.deleted : b.changed).push(rel);
        if (rel === '.gitignore' || rel.endsWith('/.gitignore')) b.ignoreRulesChanged = true;
      }
      batches.push(b);
    }
    this.pending.clear();
    this.flushTo(batches);
  }

  /** Drops what is pending (on dispose). */
  dispose(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}

/** Merges a batch into one held back (while the folder's index run goes on). */
export function mergeBatch(into: FolderBatch | undefined, b: FolderBatch): FolderBatch {
  if (!into) return { ...b, changed: [...b.changed], deleted: [...b.deleted] };
  const state = new Map<string, 'change' | 'delete'>();
  for (const r of into.changed) state.set(r, 'change');
  for (const r of into.deleted) state.set(r, 'delete');
  for (const r of b.changed) state.set(r, 'change');
  for (const r of b.deleted) state.set(r, 'delete');
  const out: FolderBatch = { root: into.root, changed: [], deleted: [], ignoreRulesChanged: into.ignoreRulesChanged || b.ignoreRulesChanged };
  for (const [r, s] of state) (s === 'delete' ? out.deleted : out.changed).push(r);
  return out;
}

/** Path segments whose events are never worth a batch (the worker skips them anyway). */
const NOISE = new Set(['.git', '.hg', '.svn', 'node_modules', '.fathom']);
export const notNoise = (rel: string): boolean => !rel.split('/').some((s) => NOISE.has(s));
