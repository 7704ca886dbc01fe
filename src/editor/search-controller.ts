/**
 * The host side of the sidebar's search view, without `vscode`: handles what the webview posts
 * (validated by `parseViewMessage`), runs searches through an injected `search`, and posts back
 * grouped results. src/views/search-view.ts only connects it to a `WebviewView`.
 *
 * - Results of a query older than the newest one asked for are dropped (the page's `seq`);
 *   a search superseded in the worker rejects with a CancelledError — dropped silently.
 * - While the index grows (first index, vectors arriving) `refresh()` re-runs the query shown,
 *   so keyword results come first and the fused ranking replaces them as vectors arrive; a
 *   refresh that finds nothing while a folder is re-indexed keeps the results shown.
 * - `open`/`similar` name a result by key; only results this controller posted can be opened.
 */
import type { SearchOptions } from '../index/engine';
import type { WorkerHit } from '../service/protocol';
import { parseViewMessage, type HostToView, type ViewFilters, type ViewIndexState } from './messages';
import { filterSpecOf, groupHits, hitKey, queryNote } from './results';
import { errText, isCancelled } from '../util/errors';

export interface SearchControllerDeps {
  search(query: string, options: SearchOptions): Promise<WorkerHit[]>;
  post(message: HostToView): void;
  open(hit: WorkerHit, preview: boolean): void | Promise<void>;
  similar(hit: WorkerHit): void | Promise<void>;
  cancelIndex(): void;
  pause(): void;
  resume(): void;
  /** A model button of the keyword-only line. */
  modelAction?(action: 'download' | 'local'): void;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  /** Folder name of a root (shown when the workspace has several folders). */
  folderName?(root: string): string | undefined;
  /** Search options from settings (k, rrfK, mode). */
  options?(): SearchOptions;
  /** Is the index still being built (results are then partial)? */
  isIndexing?(): boolean;
  /** Is there a model (hybrid), or keyword-only? */
  hasVectors?(): boolean;
  now?(): number;
  /** Runs `fn` (synchronous host work: grouping and posting results), measured by the caller. */
  measure?<T>(what: string, fn: () => T): T;
  /** Called once, with the time of the first results that had hits. */
  onFirstResults?(ms: number, query: string): void;
}


/** The note of Find Similar results found keyword-only, once a model answers. */
export const SIMILAR_STALE_NOTE = 'Found by shared words, before the model was ready: run Find Similar again to compare by meaning.';

export class SearchController {
  private newestSeq = -1;
  private current: { seq: number; query: string; filters: ViewFilters } | undefined;
  private shown: { seq: number; query: string; title?: string; hits: WorkerHit[]; mode?: 'hybrid' | 'keyword'; staleSaid?: boolean } | undefined;
  private readonly byKey = new Map<string, WorkerHit>();
  private state: ViewIndexState | undefined;
  private firstResultsSeen = false;
  /** Counts the page's loads: a search the page before asked for is not answered to this one. */
  private page = 0;

  constructor(private readonly deps: SearchControllerDeps) {}

  /** Everything the webview posts comes in here. */
  async handle(raw: unknown): Promise<void> {
    const m = parseViewMessage(raw);
    if (typeof m === 'string') {
      this.deps.log('warn', `search view: dropped a malformed message (${m})`);
      return;
    }
    switch (m.type) {
      case 'ready':
        // a new page (the view was hidden and shown again: its script starts over) counts its
        // queries from 1 again: without this its queries were dropped as replays of older ones
        // until it had typed as many as the page before it
        this.newestSeq = -1;
        this.page++;
        if (this.state) this.deps.post({ type: 'state', state: this.state });
        if (this.shown) this.postResults(this.shown.seq, this.shown.query, this.shown.hits, 0, this.shown.title);
        return;
      case 'search':
        if (m.seq <= this.newestSeq) return; // a replay of an older query
        this.newestSeq = m.seq;
        this.current = { seq: m.seq, query: m.query, filters: m.filters };
        return this.run(m.seq, m.query, m.filters);
      case 'open':
      case 'similar': {
        const hit = this.byKey.get(m.key);
        if (!hit) {
          this.deps.log('warn', `search view: no result ${JSON.stringify(m.key.slice(0, 80))} to ${m.type} (the results changed)`);
          return;
        }
        try {
          await (m.type === 'open' ? this.deps.open(hit, m.preview) : this.deps.similar(hit));
        } catch (e) {
          this.deps.log('error', `could not ${m.type === 'open' ? 'open' : 'find chunks similar to'} ${hit.chunk.path}: ${errText(e)}`);
        }
        return;
      }
      case 'cancelIndex':
        return this.deps.cancelIndex();
      case 'pause':
        return this.deps.pause();
      case 'resume':
        return this.deps.resume();
      case 'modelAction':
        return this.deps.modelAction?.(m.action);
    }
  }

  /** The index state changed: shown at the top of the view. */
  setState(state: ViewIndexState): void {
    this.state = state;
    this.deps.post({ type: 'state', state });
    // Find Similar results found keyword-only are not re-run as the index grows: once a model
    // answers, their "keyword-only" summary says it was so when they were found, and how to
    // compare by meaning, instead of staying on screen as if still true
    const s = this.shown;
    if (s?.title !== undefined && s.mode === 'keyword' && !s.staleSaid && this.deps.hasVectors?.()) {
      s.staleSaid = true;
      this.postResults(s.seq, s.query, s.hits, 0, s.title);
    }
  }

  /** Re-runs the query shown (the index grew or changed). No-op without one. */
  refresh(): Promise<void> {
    const c = this.current;
    if (!c || !c.query.trim() || this.shown?.title) return Promise.resolve();
    return this.run(c.seq, c.query, c.filters, true);
  }

  /** Shows hits that did not come from the query box (Find Similar). */
  showResults(title: string, hits: WorkerHit[], query = ''): void {
    this.current = undefined;
    this.shown = { seq: -1, query, title, hits };
    this.remember(hits);
    this.postResults(-1, query, hits, 0, title);
  }

  private remember(hits: WorkerHit[]): void {
    this.byKey.clear();
    for (const h of hits) this.byKey.set(hitKey(h), h);
  }

  private async run(seq: number, query: string, filters: ViewFilters, refreshing = false): Promise<void> {
    const now = this.deps.now ?? Date.now;
    if (!query.trim()) {
      this.shown = { seq, query, hits: [] };
      this.remember([]);
      this.postResults(seq, query, [], 0);
      return;
    }
    const t0 = now();
    const page = this.page;
    let hits: WorkerHit[];
    try {
      hits = await this.deps.search(query, { ...this.deps.options?.(), filters: filterSpecOf(filters) });
    } catch (e) {
      if (isCancelled(e) || seq < this.newestSeq || page !== this.page) return;
      this.deps.post({ type: 'error', seq, message: errText(e) });
      return;
    }
    if (seq < this.newestSeq || page !== this.page) return; // a newer query was asked for meanwhile, or by a newer page
    // A re-run while a folder is re-indexed from scratch (a model or chunking setting changed, the
    // store was reset) met an index still filling up and answered nothing: the list the user was
    // reading was cleared for no visible reason. Keep it until the index answers again.
    const shown = this.shown;
    if (refreshing && !hits.length && shown && shown.query === query && shown.title === undefined && shown.hits.length && this.deps.isIndexing?.()) {
      this.deps.log('info', `search view: kept the ${shown.hits.length} results of "${query.slice(0, 80)}" while the index fills up again (its refresh found none yet)`);
      return;
    }
    const ms = now() - t0;
    this.shown = { seq, query, hits };
    this.remember(hits);
    this.postResults(seq, query, hits, ms);
    if (hits.length && !this.firstResultsSeen) {
      this.firstResultsSeen = true;
      this.deps.onFirstResults?.(ms, query);
    }
  }

  private postResults(seq: number, query: string, hits: WorkerHit[], ms: number, title?: string): void {
    if (this.deps.measure) this.deps.measure('post results', () => this.postResultsNow(seq, query, hits, ms, title));
    else this.postResultsNow(seq, query, hits, ms, title);
  }

  private postResultsNow(seq: number, query: string, hits: WorkerHit[], ms: number, title?: string): void {
    const stale = title !== undefined && this.shown?.staleSaid === true && this.shown.hits === hits;
    const mode = stale ? 'keyword' : hits.some((h) => h.why.dense !== undefined) || this.deps.hasVectors?.() ? 'hybrid' : 'keyword';
    if (this.shown?.hits === hits) this.shown.mode = mode;
    this.deps.post({
      type: 'results',
      seq,
      query,
      title,
      groups: groupHits(hits, query, this.deps.folderName, title !== undefined),
      total: hits.length,
      ms: Math.round(ms),
      partial: this.deps.isIndexing?.() ?? false,
      mode,
      note:
        title === undefined
          ? queryNote(query, hits.length)
          : stale
            ? SIMILAR_STALE_NOTE
            : hits.length
              ? undefined
              : 'Nothing is similar enough (results must be close in meaning, or share many words).',
    });
  }
}
