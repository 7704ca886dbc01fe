/**
 * Search hits → what the sidebar and the quick pick show: grouped by file (in rank order of
 * each file's best hit), a short snippet around the first match with the matched words
 * highlighted, and why each hit ranked. Pure: no `vscode`, no DOM.
 */
import type { Chunk } from '../chunkers/types';
import type { FilterSpec } from '../index/fusion';
import type { WorkerHit } from '../service/protocol';
import { splitGlobList } from '../workspace/glob';
import type { Range, ViewFilters, ViewGroup, ViewHit } from './messages';

/** English words that would light up half of every snippet ("in" inside "gain", "Formatting"). */
const STOP_WORDS = new Set(['an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'how', 'in', 'into', 'is', 'it', 'of', 'on', 'or', 'that', 'the', 'this', 'to', 'was', 'what', 'when', 'where', 'which', 'with']);

/**
 * The words of a query worth highlighting: identifier-like runs of 2+ characters, and the
 * parts of camelCase / snake_case identifiers, lowercased, longest first; English stop words
 * are left out unless the query has nothing else.
 */
export function queryTerms(query: string): string[] {
  const all = queryTermsWithStopWords(query);
  const content = all.filter((t) => !STOP_WORDS.has(t));
  return content.length ? content : all;
}

function queryTermsWithStopWords(query: string): string[] {
  const out = new Set<string>();
  for (const word of query.match(/[\p{L}\p{N}_$]+/gu) ?? []) {
    const add = (w: string) => {
      if (w.length >= 2) out.add(w.toLowerCase());
    };
    add(word);
    for (const part of word.split(/_+|(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u)) add(part);
  }
  return [...out].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/** Every occurrence of every term in `text` (case-insensitive), merged into sorted, disjoint ranges. */
export function highlightRanges(text: string, terms: string[]): Range[] {
  if (!terms.length || !text) return [];
  const lower = text.toLowerCase();
  // toLowerCase can change the length of some characters (İ): then offsets would drift.
  if (lower.length !== text.length) return [];
  const found: Range[] = [];
  for (const t of terms) {
    for (let i = lower.indexOf(t); i !== -1; i = lower.indexOf(t, i + t.length)) found.push([i, i + t.length]);
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Range[] = [];
  for (const r of found) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

export interface Snippet {
  text: string;
  /** 1-based file line of the snippet's first line. */
  line: number;
  highlights: Range[];
}

/**
 * A few lines of the chunk: from the line before the first match (or the chunk's start),
 * at most `maxLines` lines of at most `maxLineLength` characters, blank lines at the edges
 * dropped, the common indentation removed.
 */
export function snippetOf(chunk: Pick<Chunk, 'text' | 'start'>, terms: string[], options: { maxLines?: number; maxLineLength?: number } = {}): Snippet {
  const maxLines = options.maxLines ?? 6;
  const maxLen = options.maxLineLength ?? 160;
  const lines = chunk.text.split(/\r\n|\r|\n/);
  // the line of the first match: one indexOf per term over the whole text, not per line
  const lower = chunk.text.toLowerCase();
  let at = -1;
  if (lower.length === chunk.text.length) {
    for (const t of terms) {
      const i = lower.indexOf(t);
      if (i !== -1 && (at === -1 || i < at)) at = i;
    }
  }
  let first = at <= 0 ? 0 : (chunk.text.slice(0, at).match(/\r\n|\r|\n/g)?.length ?? 0) - 1;
  if (first < 0) first = 0;
  while (first < lines.length - 1 && !lines[first].trim()) first++;
  let picked = lines.slice(first, first + maxLines);
  while (picked.length > 1 && !picked[picked.length - 1].trim()) picked.pop();
  const indent = Math.min(...picked.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length));
  if (Number.isFinite(indent) && indent > 0) picked = picked.map((l) => l.slice(Math.min(indent, /^[ \t]*/.exec(l)![0].length)));
  picked = picked.map((l) => (l.length > maxLen ? `${l.slice(0, maxLen - 1)}…` : l.replace(/\s+$/, '')));
  const text = picked.join('\n');
  return { text, line: chunk.start.line + first, highlights: highlightRanges(text, terms) };
}

/** Why a hit ranked, in words. */
export function whyText(why: WorkerHit['why']): string {
  const parts = [`fused score ${why.fused.toFixed(4)}`];
  if (why.keyword !== undefined) parts.push(`keyword rank #${why.keyword}`);
  if (why.dense !== undefined) parts.push(`meaning rank #${why.dense}`);
  if (why.keyword === undefined && why.dense !== undefined) parts.push('no keyword match');
  if (why.dense === undefined && why.keyword !== undefined) parts.push('no vector match');
  return parts.join(' · ');
}

/**
 * The breadcrumb without its comment marker and without the file path the group heading
 * already shows: `// src/map/zoom.js :: getZoomControl` → `getZoomControl`. A header that does
 * not start with the path is kept whole (marker removed).
 */
export function breadcrumbOf(header: string, path: string): string {
  const bare = header.replace(/^\s*(?:\/\/|#+|<!--|\/\*)\s*/, '').replace(/\s*(?:-->|\*\/)\s*$/, '');
  if (!bare.startsWith(path)) return bare;
  const rest = bare.slice(path.length).replace(/^\s*(?:::|>|—|-|:)\s*/, '');
  return rest || bare;
}

export const hitKey = (h: Pick<WorkerHit, 'root' | 'chunk'>): string => `${h.root}\u0000${h.chunk.id}`;

export function toViewHit(h: WorkerHit, terms: string[]): ViewHit {
  const s = snippetOf(h.chunk, terms);
  return {
    key: hitKey(h),
    root: h.root,
    path: h.chunk.path,
    header: h.chunk.header,
    breadcrumb: breadcrumbOf(h.chunk.header, h.chunk.path),
    kind: h.chunk.kind,
    symbol: h.chunk.symbol,
    start: { line: h.chunk.start.line, column: h.chunk.start.column },
    end: { line: h.chunk.end.line, column: h.chunk.end.column },
    snippet: s.text,
    snippetLine: s.line,
    highlights: s.highlights,
    why: whyText(h.why),
  };
}

/**
 * Groups hits by file, files in the order of their best hit, hits of a file in rank order.
 * `folderName` names a root (shown when there are several).
 */
export function groupHits(hits: WorkerHit[], query: string, folderName?: (root: string) => string | undefined): ViewGroup[] {
  const terms = queryTerms(query);
  const groups = new Map<string, ViewGroup>();
  for (const h of hits) {
    const k = `${h.root}\u0000${h.chunk.path}`;
    let g = groups.get(k);
    if (!g) {
      g = { root: h.root, folder: folderName?.(h.root), path: h.chunk.path, hits: [] };
      groups.set(k, g);
    }
    g.hits.push(toViewHit(h, terms));
  }
  return [...groups.values()];
}

/**
 * The sidebar's filters as the engine's: the language, and comma/newline-separated globs
 * (`!` excludes; commas inside braces belong to the glob). Globs are trimmed; empty ones dropped.
 */
export function filterSpecOf(f: ViewFilters | undefined): FilterSpec | undefined {
  if (!f) return undefined;
  const globs = splitGlobList(f.paths).filter((g) => g !== '!');
  const spec: FilterSpec = {};
  if (globs.length) spec.pathGlob = globs;
  if (f.language.trim()) spec.language = [f.language.trim()];
  return spec.pathGlob || spec.language ? spec : undefined;
}

/** Splits `text` into plain and highlighted pieces, for a renderer that sets textContent only. */
export function splitHighlights(text: string, ranges: Range[]): Array<{ text: string; mark: boolean }> {
  const out: Array<{ text: string; mark: boolean }> = [];
  let at = 0;
  for (const [s0, e0] of ranges) {
    const s = Math.max(at, Math.min(s0, text.length));
    const e = Math.max(s, Math.min(e0, text.length));
    if (s > at) out.push({ text: text.slice(at, s), mark: false });
    if (e > s) out.push({ text: text.slice(s, e), mark: true });
    at = e;
  }
  if (at < text.length) out.push({ text: text.slice(at), mark: false });
  return out;
}
