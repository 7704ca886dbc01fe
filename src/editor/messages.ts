/**
 * The one typed protocol between the sidebar's webview (media/view.ts, in the browser) and its
 * host side (src/views/search-view.ts, with the pure logic in src/editor/search-controller.ts).
 * Like src/service/protocol.ts: plain structured-clone data, defined once, imported by both.
 *
 * The webview is a page that renders workspace text: the host never trusts what it posts.
 * `parseViewMessage` checks every message from it; anything malformed is dropped (and logged).
 */

// ---------------------------------------------------------------------------------------------
// Shared data

/** The filters of the sidebar: kind of file (a language, or '' for any) and path globs. */
export interface ViewFilters {
  /** Language id as the index records it (`javascript`, `vue`, `markdown`, …); '' = any. */
  language: string;
  /** Comma-separated globs; `!` in front excludes (`src/**, !**\/*.test.ts`). */
  paths: string;
}

/** A highlight inside a snippet: [start, end) in UTF-16 units of the snippet's text. */
export type Range = [number, number];

/** One result as the webview shows it: everything already cut to size on the host. */
export interface ViewHit {
  /** Stable key: root + chunk id. */
  key: string;
  root: string;
  path: string;
  /** Breadcrumb (`src/map/zoom.js :: getZoomControl`) and kind (`function`). */
  header: string;
  /** The header without the path (the group shows it): `getZoomControl`. */
  breadcrumb: string;
  /** What the row shows first: the symbol, short (`methods.onZoomEnd`, `Zoom`, `<template>`). */
  title: string;
  /** Where in the file, in words (`script · method`, `Sample mapping app › Zoom`); may be ''. */
  context: string;
  kind: string;
  symbol?: string;
  /** 1-based lines, 0-based columns, as in a chunk. */
  start: { line: number; column: number };
  end: { line: number; column: number };
  /** A few lines of the chunk, the first match near the top. */
  snippet: string;
  /** 1-based line of the snippet's first line. */
  snippetLine: number;
  highlights: Range[];
  /** Why it ranked, in words: "matched name + meaning", "83% similar". */
  why: string;
  /** The numbers behind it, for the details line: "keyword rank #1 · meaning rank #3 · fused score 0.0325". */
  whyDetail: string;
}

export interface ViewGroup {
  root: string;
  /** Folder name, shown in multi-root workspaces. */
  folder?: string;
  path: string;
  /** Set for a locale file: its locale (`fr`), or '' when its name says none. The page can fold these into one group. */
  locale?: string;
  hits: ViewHit[];
}

/** The index state shown at the top of the view. */
export interface ViewIndexState {
  /** One line: "Indexing 42% (120 / 300 files)", "1,234 files · 5,678 chunks". */
  text: string;
  indexing: boolean;
  /** 0–100 while indexing. */
  percent?: number;
  paused: boolean;
  /** Set when searching keyword-only, or locally because the team index cannot answer: one short line. */
  warning?: string;
  /** The warning's details (the worker's reason), for its tooltip. */
  warningDetail?: string;
  /** The warning offers the model actions as buttons: "Download" and "Use a local folder…". */
  modelActions?: boolean;
  /** No folder can be indexed (no workspace, virtual workspace): why. */
  unavailable?: string;
}

// ---------------------------------------------------------------------------------------------
// Webview → host

export type ViewToHost =
  /** The page loaded: the host answers with `state` (and the last results, if any). */
  | { type: 'ready' }
  /** Search; `seq` increases with every query the page sends. An empty query clears. */
  | { type: 'search'; seq: number; query: string; filters: ViewFilters }
  /** Open a result with its exact range selected. */
  | { type: 'open'; key: string; preview: boolean }
  /** "Find similar" on a result. */
  | { type: 'similar'; key: string }
  | { type: 'cancelIndex' }
  | { type: 'pause' }
  | { type: 'resume' }
  /** A button of the keyword-only line: download the model, or choose a local model folder. */
  | { type: 'modelAction'; action: 'download' | 'local' };

// ---------------------------------------------------------------------------------------------
// Host → webview

export type HostToView =
  | { type: 'state'; state: ViewIndexState }
  /**
   * Results of query `seq` (or of a Find Similar, `seq` -1, with `title`). `partial`: the
   * index was still being built when they were computed (they are refreshed as it grows).
   */
  | {
      type: 'results';
      seq: number;
      query: string;
      title?: string;
      groups: ViewGroup[];
      total: number;
      ms: number;
      partial: boolean;
      mode: 'hybrid' | 'keyword';
      /** Why nothing matched, or what of the query was ignored (only punctuation, a regex). */
      note?: string;
    }
  | { type: 'error'; seq: number; message: string }
  /** Put `query` in the box (and focus it). */
  | { type: 'setQuery'; query: string; focus: boolean };

// ---------------------------------------------------------------------------------------------
// Validation of what the page posts

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

/** The message if it is a well-formed `ViewToHost`, else a string saying what is wrong. */
export function parseViewMessage(m: unknown): ViewToHost | string {
  if (!isObj(m) || typeof m.type !== 'string') return 'not a message object';
  switch (m.type) {
    case 'ready':
    case 'cancelIndex':
    case 'pause':
    case 'resume':
      return { type: m.type };
    case 'search': {
      const f = m.filters;
      if (typeof m.seq !== 'number' || !Number.isSafeInteger(m.seq)) return 'search: seq must be an integer';
      if (!str(m.query, 10_000)) return 'search: query must be a string of at most 10,000 characters';
      if (!isObj(f) || !str(f.language, 100) || !str(f.paths, 2_000)) return 'search: filters must be {language, paths} strings';
      return { type: 'search', seq: m.seq, query: m.query, filters: { language: f.language, paths: f.paths } };
    }
    case 'open':
      if (!str(m.key, 4_000)) return 'open: key must be a string';
      return { type: 'open', key: m.key, preview: m.preview === true };
    case 'similar':
      if (!str(m.key, 4_000)) return 'similar: key must be a string';
      return { type: 'similar', key: m.key };
    case 'modelAction':
      if (m.action !== 'download' && m.action !== 'local') return 'modelAction: action must be "download" or "local"';
      return { type: 'modelAction', action: m.action };
    default:
      return `unknown message type ${JSON.stringify(String(m.type).slice(0, 40))}`;
  }
}
