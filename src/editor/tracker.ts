/**
 * The index state as the extension host knows it: the worker's last status, the last progress
 * event of every folder still running, and why Fathom is keyword-only. Listeners (status bar,
 * sidebar) get the state in words (`indexState`) on every change. Pure.
 */
import type { IndexProgress } from '../index/engine';
import type { ProgressEvent, WorkerStatus } from '../service/protocol';
import type { KeywordOnlyAdvice } from './settings';
import { indexState, type IndexStateModel } from './status';

export class IndexTracker {
  status: WorkerStatus | undefined;
  readonly progress = new Map<string, IndexProgress>();
  private advice: KeywordOnlyAdvice | undefined;
  private unavailable: string | undefined;
  private readonly listeners = new Set<(m: IndexStateModel) => void>();
  /** Chunks + vectors at the last change: tells a listener the index content changed. */
  private size = -1;
  private readonly sizeListeners = new Set<() => void>();

  onChange(l: (m: IndexStateModel) => void): { dispose(): void } {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  }

  /** Called when the number of chunks or vectors changed (the index content changed). */
  onContentChange(l: () => void): { dispose(): void } {
    this.sizeListeners.add(l);
    return { dispose: () => this.sizeListeners.delete(l) };
  }

  setStatus(s: WorkerStatus): void {
    this.status = s;
    // a folder no longer open has no progress to show
    for (const root of [...this.progress.keys()]) if (!s.folders.some((f) => f.root === root)) this.progress.delete(root);
    const size = s.folders.reduce((a, f) => a + f.chunks + f.vectors, 0);
    const changed = size !== this.size;
    this.size = size;
    this.fire();
    if (changed) for (const l of [...this.sizeListeners]) l();
  }

  setProgress(e: ProgressEvent): void {
    if (e.progress.phase === 'done') this.progress.delete(e.root);
    else this.progress.set(e.root, e.progress);
    this.fire();
  }

  setAdvice(advice: KeywordOnlyAdvice | undefined): void {
    this.advice = advice;
    this.fire();
  }

  setUnavailable(why: string | undefined): void {
    this.unavailable = why;
    this.fire();
  }

  get indexing(): boolean {
    return this.progress.size > 0 || !!this.status?.folders.some((f) => f.indexing);
  }

  get hasVectors(): boolean {
    return !!this.status?.model && !!this.status.folders.some((f) => f.vectors > 0);
  }

  model(): IndexStateModel {
    return indexState(this.status, this.progress, { advice: this.advice?.text, adviceDetail: this.advice?.detail, modelActions: this.advice?.modelActions, unavailable: this.unavailable });
  }

  private fire(): void {
    const m = this.model();
    for (const l of [...this.listeners]) l(m);
  }
}

/** Runs `fn` at most once per `ms`, the last call always honoured (trailing). */
export function throttle(fn: () => void, ms: number): { (): void; cancel(): void } {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    last = Date.now();
    fn();
  };
  const t = () => {
    if (timer) return;
    const wait = last + ms - Date.now();
    if (wait <= 0) run();
    else timer = setTimeout(run, wait);
  };
  t.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return t;
}
