/**
 * Search hits → what the sidebar and the quick pick show: grouped by file (in rank order of
 * each file's best hit), a short snippet around the first match with the matched words
 * highlighted, and why each hit ranked. Pure: no `vscode`, no DOM.
 */
import type { Chunk } from '../chunkers/types';
import type { FilterSpec } from '../index/rank/fusion';
import type { WorkerHit } from '../service/protocol';
import { identifyLocale, identifyLocaleScript } from '../i18n/locales';
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

/** Why a hit ranked, with the numbers: "keyword rank #1 · meaning rank #3 · fused score 0.0164". For the details line. */
export function whyText(why: WorkerHit['why']): string {
  const parts: string[] = [];
  if (why.keyword !== undefined) parts.push(`keyword rank #${why.keyword}`);
  if (why.dense !== undefined) parts.push(`meaning rank #${why.dense}${why.model ? ` (${why.model})` : ''}`);
  if (why.keyword === undefined && why.dense !== undefined) parts.push('no keyword match');
  if (why.dense === undefined && why.keyword !== undefined && why.reranked === undefined) parts.push('no vector match');
  parts.push(`fused score ${why.fused.toFixed(4)}`);
  if (why.reranked !== undefined) parts.push(`re-ranked from #${why.reranked}${why.reranker ? ` (${why.reranker})` : why.dense === undefined && why.model ? ` (${why.model})` : ''}`);
  // a function cut in pieces is shown from its start; the piece that ranked is named
  if (why.rankedBy) parts.push(`ranked by lines ${why.rankedBy.startLine}–${why.rankedBy.endLine} of it`);
  return parts.join(' · ');
}

const lower = (s: string | undefined) => (s ?? '').toLowerCase();

/**
 * Why a hit ranked, in words: what of it matched the query — its **name** (the symbol or the
 * key), **words** of its text, its **file path**, its **meaning** (the dense ranking) — as
 * "matched name + meaning". For a Find Similar result: "83% similar" (with vectors) or "shares
 * words" (keyword-only).
 */
export function whyWords(h: Pick<WorkerHit, 'chunk' | 'why' | 'score'>, terms: string[], similar = false): string {
  if (similar) return h.why.dense !== undefined ? `${Math.round(Math.max(0, Math.min(1, h.score)) * 100)}% similar` : 'shares words';
  const shows = h.why.keyword !== undefined ? shownValueMatching(h.chunk, terms) : undefined;
  // the code shows the query's text (a translated label it uses): that value is why it ranked
  if (shows !== undefined) return `shows "${shows.length > SHOWN_MAX ? `${shows.slice(0, SHOWN_MAX - 1)}…` : shows}"${h.why.dense !== undefined ? ' + meaning' : ''}`;
  const parts: string[] = [];
  if (h.why.keyword !== undefined) {
    const name = lower(h.chunk.symbol);
    const text = lower(h.chunk.text);
    if (terms.some((t) => name.includes(t))) parts.push('name');
    if (terms.some((t) => text.includes(t) && !name.includes(t))) parts.push('words');
    if (!parts.length) parts.push(terms.some((t) => lower(h.chunk.path).includes(t)) ? 'file path' : 'words');
  }
  if (h.why.dense !== undefined) parts.push('meaning');
  return `matched ${parts.join(' + ')}`;
}

/** The longest shown value quoted in a row's "why" (longer ones end in …). */
const SHOWN_MAX = 48;

/**
 * The value a chunk shows on screen (the i18n text of the keys its code uses, kept in
 * `meta.i18nText` by the index, one value a line) that holds every word of the query, or more
 * of them than the chunk's own name and text do; the one holding most; undefined when none does.
 */
export function shownValueMatching(chunk: Pick<Chunk, 'symbol' | 'text' | 'meta'>, terms: string[]): string | undefined {
  const shown = chunk.meta?.i18nText;
  if (typeof shown !== 'string' || !terms.length) return undefined;
  const own = `${lower(chunk.symbol)}\n${lower(chunk.text)}`;
  const inOwn = terms.filter((t) => own.includes(t)).length;
  // the value holding most terms; between equals, the one holding more as whole words
  // ("Block domain" shows "Block domain {0}", not "Blocked domains"), then the shorter
  let best: { value: string; n: number; whole: number } | undefined;
  for (const value of shown.split('\n')) {
    const v = lower(value);
    const n = terms.filter((t) => v.includes(t)).length;
    if (!(n === terms.length || n > inOwn) || n === 0) continue;
    const words = new Set(v.split(/[^\p{L}\p{N}]+/u));
    const whole = terms.filter((t) => words.has(t)).length;
    const better = !best || n > best.n || (n === best.n && (whole > best.whole || (whole === best.whole && value.trim().length < best.value.length)));
    if (better) best = { value: value.trim(), n, whole };
  }
  return best?.value;
}

/** A chunk's kind in words, for the context line. */
const KIND_WORDS: Partial<Record<string, string>> = {
  'i18n-section': 'translations',
  'i18n-labels': 'translations',
  'i18n-block': 'translations',
  'schema-property': 'schema property',
  'code-block': 'code block',
  'front-matter': 'front matter',
  group: 'members',
  module: 'top-level code',
  json: 'JSON',
};
export const kindWords = (kind: string): string => KIND_WORDS[kind] ?? kind;

/**
 * What a result row shows, symbol first: `title` (the symbol, short: `methods.{zoomIn, zoomOut}`,
 * `Zoom`, `<template>`) and `context` (where in the file, in words: `script · members`,
 * `Sample mapping app › Zoom`). The file path is the group's heading; the full breadcrumb is
 * the row's tooltip.
 */
export function rowLabel(chunk: Pick<Chunk, 'path' | 'kind' | 'symbol' | 'header'>): { title: string; context: string } {
  const kind = kindWords(chunk.kind);
  const rest = breadcrumbOf(chunk.header, chunk.path);
  const file = chunk.path.slice(chunk.path.lastIndexOf('/') + 1);
  const stem = file.replace(/\.[^.]+$/, '');
  const sym = chunk.symbol?.trim();
  if (chunk.kind === 'section' || chunk.kind === 'code-block' || chunk.kind === 'front-matter') {
    const parts = (sym ?? '').split(' > ').map((p) => p.trim()).filter(Boolean);
    const title = parts.pop() ?? kind;
    const code = chunk.kind === 'code-block' ? /\[code(?::\s*([^\]]+))?\]\s*$/.exec(rest) : null;
    return { title: code ? `${title} · code${code[1] ? ` (${code[1]})` : ''}` : title, context: parts.join(' › ') || kind };
  }
  // a Vue block: `zoom control [script setup] :: KZoomControl.methods.onZoomEnd`, `layer panel [template]`
  const block = /\[([\w -]+)\](?:\s*::|\s*$)/.exec(rest)?.[1];
  if (block !== undefined) {
    const member = /::\s*(.+)$/.exec(rest)?.[1]?.trim();
    if (!member) return { title: `<${block.split(' ')[0]}>`, context: block.includes(' ') ? block : '' };
    let title = member.startsWith(`${stem}.`) ? member.slice(stem.length + 1) : member;
    if (/^\{[^{}]*\}$/.test(title)) title = title.slice(1, -1);
    return { title, context: `${block} · ${kind}` };
  }
  if (sym) return { title: sym, context: kind };
  return { title: kind, context: '' };
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

export function toViewHit(h: WorkerHit, terms: string[], similar = false): ViewHit {
  const s = snippetOf(h.chunk, terms);
  const label = rowLabel(h.chunk);
  return {
    key: hitKey(h),
    root: h.root,
    path: h.chunk.path,
    header: h.chunk.header,
    breadcrumb: breadcrumbOf(h.chunk.header, h.chunk.path),
    title: label.title,
    context: label.context,
    kind: h.chunk.kind,
    symbol: h.chunk.symbol,
    start: { line: h.chunk.start.line, column: h.chunk.start.column },
    end: { line: h.chunk.end.line, column: h.chunk.end.column },
    snippet: s.text,
    snippetLine: s.line,
    highlights: s.highlights,
    why: whyWords(h, terms, similar),
    whyDetail: similar ? (h.why.dense !== undefined ? `cosine similarity ${h.score.toFixed(3)}` : `keyword score ${h.score.toFixed(2)}`) : whyText(h.why),
  };
}

const TRANSLATION_KINDS = new Set(['i18n-section', 'i18n-labels']);

/**
 * The locale of a locale file (`locales/fr.json` → `fr`, `src/lang/es.js` → `es`), `''` for a
 * translations file whose name says no locale, undefined for every other file. Decided on
 * the chunk: a JSON chunk the chunker calls translations, or a script in an i18n folder.
 */
export function localeOf(chunk: Pick<Chunk, 'path' | 'kind' | 'language'>): string | undefined {
  if (chunk.language === 'json') return TRANSLATION_KINDS.has(chunk.kind) ? (identifyLocale(chunk.path)?.locale ?? '') : undefined;
  return identifyLocaleScript(chunk.path)?.locale;
}

/**
 * Groups hits by file, files in the order of their best hit, hits of a file in rank order.
 * `folderName` names a root (shown when there are several).
 */
export function groupHits(hits: WorkerHit[], query: string, folderName?: (root: string) => string | undefined, similar = false): ViewGroup[] {
  const terms = queryTerms(query);
  const groups = new Map<string, ViewGroup>();
  for (const h of hits) {
    const k = `${h.root}\u0000${h.chunk.path}`;
    let g = groups.get(k);
    if (!g) {
      g = { root: h.root, folder: folderName?.(h.root), path: h.chunk.path, hits: [] };
      const locale = localeOf(h.chunk);
      if (locale !== undefined) g.locale = locale;
      groups.set(k, g);
    }
    g.hits.push(toViewHit(h, terms, similar));
  }
  return [...groups.values()];
}

/**
 * Why a query found nothing, or what of it was ignored, when its form explains it: only
 * punctuation, or a regular expression (Fathom matches words and names, and reads neither).
 * Undefined for an ordinary query.
 */
export function queryNote(query: string, total: number): string | undefined {
  const q = query.trim();
  if (!q) return undefined;
  if (!/[\p{L}\p{N}]/u.test(q)) return `“${q.length > 40 ? `${q.slice(0, 39)}…` : q}” has no letters or digits: Fathom searches words and names, and ignores punctuation.`;
  if (looksLikeRegex(q)) {
    return total
      ? 'Regular expressions are not read: these results match the words in the query.'
      : 'Regular expressions are not read: Fathom matches words and names (the built-in Search view takes a regex).';
  }
  return undefined;
}

/** `\w+Service`, `get.*Zoom`, `^import`, `(foo|bar)`, `/zoom\d/i`: a query written as a regex. */
export function looksLikeRegex(q: string): boolean {
  return /^\/.+\/[dgimsuy]*$/.test(q) || /\\[wdsbWDSB]|\.[*+?]|\[[^\]]*\][*+?]|\(\?[:=!<]|^\^\S|\S\$$|\w\|\w|\(\w+\|/.test(q);
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

export { splitHighlights } from './result-tree';

/**
 * A "Fathom: Search" palette row: the symbol first (`label`, after a codicon), why it ranked
 * in words (`description`), and the symbol in full, the file and the line range (`detail`) —
 * never the chunk's first line (`methods: {`, three backticks).
 */
export function paletteRow(h: WorkerHit, terms: string[], folder?: string): { label: string; description: string; detail: string } {
  const l = rowLabel(h.chunk);
  const where = `${folder ? `${folder} · ` : ''}${h.chunk.path}:${h.chunk.start.line}${h.chunk.end.line !== h.chunk.start.line ? `–${h.chunk.end.line}` : ''}`;
  const full = h.chunk.symbol && h.chunk.symbol !== l.title ? h.chunk.symbol : l.context;
  return {
    label: `$(${KIND_ICONS[h.chunk.kind] ?? 'symbol-field'}) ${l.title}`,
    description: whyWords(h, terms),
    detail: full ? `${full} · ${where}` : where,
  };
}

const KIND_ICONS: Partial<Record<string, string>> = {
  function: 'symbol-method',
  method: 'symbol-method',
  class: 'symbol-class',
  interface: 'symbol-interface',
  type: 'symbol-interface',
  property: 'symbol-property',
  const: 'symbol-constant',
  enum: 'symbol-enum',
  section: 'symbol-text',
  'front-matter': 'symbol-text',
  'code-block': 'code',
  'i18n-section': 'globe',
  'i18n-labels': 'globe',
  'i18n-block': 'globe',
  'schema-property': 'symbol-property',
  template: 'symbol-misc',
  style: 'symbol-color',
};
