/**
 * The index state in words, for the status bar item and the top of the sidebar: indexing
 * progress (percentage of files, then of vectors), then counts; a warning when searching
 * keyword-only, with why. Pure: from the worker's status and its last progress events.
 */
import type { IndexProgress } from '../index/engine';
import type { WorkerStatus } from '../service/protocol';
import type { ViewIndexState } from './messages';

export interface IndexStateModel extends ViewIndexState {
  /** Status bar text, with codicons (`$(sync~spin) Fathom 42%`). */
  barText: string;
  /** Status bar tooltip (plain text, several lines). */
  tooltip: string;
}

/** The warning line while the team index (`fathom.index.remote`) cannot answer. */
export const TEAM_INDEX_DOWN = 'The team index cannot answer: searching the local index.';

/** 12345 → "12,345". Not toLocaleString: its first call loads ICU data, ~100 ms on the host's thread. */
const fmt = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** What is said besides the counts: the keyword-only advice, or why searching is local only. */
interface StateOptions {
  advice?: string;
  adviceDetail?: string;
  modelActions?: boolean;
  unavailable?: string;
}

/** The warning line and its details, as `ViewIndexState` carries them. */
type WarningInfo = Pick<ViewIndexState, 'warningDetail' | 'modelActions'>;

type Remote = NonNullable<WorkerStatus['remote']>;

/**
 * `progress`: the last progress event of each root still running (the caller drops a root's
 * entry when its phase is `done`). `advice`: the keyword-only warning to show, if any.
 */
export function indexState(status: WorkerStatus | undefined, progress: ReadonlyMap<string, IndexProgress>, opts: StateOptions = {}): IndexStateModel {
  if (opts.unavailable) {
    return { text: opts.unavailable, indexing: false, paused: false, unavailable: opts.unavailable, barText: '$(circle-slash) Fathom', tooltip: `Fathom: ${opts.unavailable}` };
  }
  const folders = status?.folders ?? [];
  const { files, skipped, chunks, vectors } = folderTotals(folders);
  const paused = status?.paused ?? false;
  const running = [...progress.values()].filter((p) => p.phase !== 'done');
  const { warning, warningInfo, remoteDown } = warningOf(status, opts);
  // The embedded share: search is hybrid over the chunks that have a vector so far.
  const share = chunks ? Math.floor((100 * Math.min(vectors, chunks)) / chunks) : 0;
  const partly = !!status?.model && vectors < chunks;
  const counts = `${fmt(files)} files · ${fmt(chunks)} chunks${status?.model ? ` · ${fmt(vectors)} vectors${partly ? ` (${share}% embedded)` : ''}` : ''}`;
  const lines = tooltipLines(status, opts, `${counts}${skipped ? ` (${fmt(skipped)} files skipped)` : ''}`, paused);
  if (!status) {
    return { text: 'Starting…', indexing: true, paused, barText: '$(sync~spin) Fathom', tooltip: 'Fathom is starting', warning, ...warningInfo };
  }
  if (running.length) return progressState(status, running, { paused, share, lines, warning, warningInfo });
  const indexing = folders.some((f) => f.indexing);
  return {
    text: indexing ? `Indexing… ${counts}` : counts,
    indexing,
    paused,
    warning,
    ...warningInfo,
    barText: `${warning ? '$(warning)' : '$(search)'} Fathom${opts.advice ? ': keyword-only' : remoteDown ? ': local only' : ''}`,
    tooltip: lines.join('\n'),
  };
}

/** The files, skipped files, chunks and vectors of all folders. */
function folderTotals(folders: WorkerStatus['folders']): { files: number; skipped: number; chunks: number; vectors: number } {
  return {
    files: folders.reduce((a, f) => a + f.files, 0),
    skipped: folders.reduce((a, f) => a + f.skipped, 0),
    chunks: folders.reduce((a, f) => a + f.chunks, 0),
    vectors: folders.reduce((a, f) => a + f.vectors, 0),
  };
}

/**
 * The warning to show: the keyword-only advice, with its model buttons, else the team index that
 * cannot answer (searches are local) — said where it is seen, not only in the tooltip.
 */
function warningOf(status: WorkerStatus | undefined, opts: StateOptions): { warning?: string; warningInfo: WarningInfo; remoteDown?: Remote } {
  const remoteDown = status?.remote && !status.remote.ok && !status.remote.pending ? status.remote : undefined;
  const warning = opts.advice ?? (remoteDown ? TEAM_INDEX_DOWN : undefined);
  const warningInfo = opts.advice
    ? { warningDetail: opts.adviceDetail, modelActions: opts.modelActions || undefined }
    : remoteDown
      ? { warningDetail: `Team index ${remoteDown.url}: ${remoteDown.problem ?? 'unknown error'}. Fathom tries it again a minute after the failure.` }
      : {};
  return { warning, warningInfo, remoteDown };
}

/** The tooltip's lines: the counts, the model, the advice, paused, the team index, what a click does. */
function tooltipLines(status: WorkerStatus | undefined, opts: StateOptions, counts: string, paused: boolean): string[] {
  const lines = [`Fathom: ${counts}`];
  if (status?.model) lines.push(`Model: ${status.model}`);
  if (opts.advice) lines.push(opts.advice, ...(opts.adviceDetail ? [opts.adviceDetail] : []));
  if (paused) lines.push('Indexing is paused.');
  if (status?.remote) lines.push(remoteLine(status.remote));
  lines.push('Click for pause/resume, rebuild, indexed files and the log.');
  return lines;
}

function remoteLine(remote: Remote): string {
  if (remote.pending) return `Team index: ${remote.url} (connects on the first search)`;
  if (remote.ok) return `Team index: ${remote.url}${remote.dirty ? ` · ${fmt(remote.dirty)} locally changed files searched locally` : ''}`;
  return `Team index ${remote.url} cannot answer (${remote.problem ?? 'unknown error'}): searching the local index`;
}

/** While roots are indexed: the percentage of files (of chunks embedded, when every running root embeds), the time left for one root. */
function progressState(
  status: WorkerStatus,
  running: IndexProgress[],
  s: { paused: boolean; share: number; lines: string[]; warning?: string; warningInfo: WarningInfo },
): IndexStateModel {
  const embedding = running.every((p) => p.phase === 'embed');
  const { done, total } = progressTotals(running, embedding);
  const percent = total ? Math.min(100, Math.floor((100 * done) / total)) : 0;
  const what = embedding
    ? `Embedding ${percent}% (${fmt(done)} / ${fmt(total)} chunks)${status.model ? ` · search by meaning covers ${s.share}%` : ''}`
    : `Indexing ${percent}% (${fmt(done)} / ${fmt(total)} files)`;
  const eta = running.length === 1 && running[0].etaSeconds !== undefined && Number.isFinite(running[0].etaSeconds) ? `, about ${Math.max(1, Math.round(running[0].etaSeconds))} s left` : '';
  const text = `${s.paused ? 'Paused: ' : ''}${what}${eta}`;
  return {
    text,
    indexing: true,
    percent,
    paused: s.paused,
    warning: s.warning,
    ...s.warningInfo,
    barText: `${s.paused ? '$(debug-pause)' : '$(sync~spin)'} Fathom ${embedding && status.model ? `${s.share}% embedded` : `${percent}%`}`,
    tooltip: [`Fathom: ${text}`, ...s.lines.slice(1)].join('\n'),
  };
}

/** Chunks embedded of chunks to embed when embedding, else files done of files (none done while a root scans). */
function progressTotals(running: IndexProgress[], embedding: boolean): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const p of running) {
    if (embedding) {
      done += p.chunksEmbedded;
      total += p.chunksToEmbed;
    } else {
      done += p.phase === 'scan' ? 0 : p.filesDone;
      total += p.filesTotal;
    }
  }
  return { done, total };
}

/**
 * The status item's label for a screen reader: the tooltip's first lines as sentences. A line
 * that already ends a sentence (`…model yet.`) gets no second period (it read "yet..").
 */
export function accessibleLabel(tooltip: string, lines = 3): string {
  return tooltip
    .split('\n')
    .slice(0, lines)
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => (/[.!?…:]$/.test(l) ? l : `${l}.`))
    .join(' ');
}
