/**
 * The sidebar webview's page: a static shell, a strict Content Security Policy with a nonce,
 * the codicon font and the view's own script and styles (dist/media/). No workspace text is
 * ever put into this HTML: results are drawn by media/view.ts with `textContent` only. The
 * few values interpolated here (URIs, the CSP source, the nonce) are escaped anyway.
 *
 * Stable hooks for tests and for documentation: `#fathom-query`, `#fathom-language`,
 * `#fathom-paths`, `#fathom-translations` (toggle, `aria-pressed`: locale files folded into
 * one group), `#fathom-collapse`, `#fathom-state`, `#fathom-warning` (with `#fathom-model-download`
 * and `#fathom-model-local` when the model is missing), `#fathom-summary`,
 * `#fathom-results`; each group `.fathom-group[data-id][data-path][data-open]` (the folded one
 * `[data-translations]`) with its heading `.fathom-group-head[aria-expanded]`, and each result
 * `.fathom-result[data-path][data-start-line][data-start-column][data-end-line][data-end-column]
 * [data-kind][data-key]` (lines 1-based, columns 0-based, as in a chunk) with `.fathom-title`,
 * `.fathom-context` and `.fathom-why`; the results list carries `data-seq`, `data-query` and
 * `data-total`, the summary `data-mode` (hybrid/keyword).
 */
import { randomBytes } from 'node:crypto';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const makeNonce = (): string => randomBytes(18).toString('hex');

export interface ShellOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
}

/** The kinds of file the filter offers: language ids as the index records them. */
export const LANGUAGE_FILTERS: Array<[string, string]> = [
  ['', 'All files'],
  ['javascript', 'JavaScript'],
  ['typescript', 'TypeScript'],
  ['vue', 'Vue'],
  ['json', 'JSON'],
  ['markdown', 'Markdown'],
  ['plaintext', 'Plain text'],
];

export function csp(o: Pick<ShellOptions, 'cspSource' | 'nonce'>): string {
  return `default-src 'none'; script-src 'nonce-${o.nonce}'; style-src ${o.cspSource}; font-src ${o.cspSource}; img-src ${o.cspSource}`;
}

export function renderShell(o: ShellOptions): string {
  const e = escapeHtml;
  const options = LANGUAGE_FILTERS.map(([v, label]) => `<option value="${e(v)}">${e(label)}</option>`).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${e(csp(o))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${e(o.codiconUri)}" rel="stylesheet">
<link href="${e(o.styleUri)}" rel="stylesheet">
<title>Fathom</title>
</head>
<body>
<header id="fathom-header">
  <div id="fathom-state" role="status" aria-live="polite">
    <span id="fathom-state-icon" class="codicon codicon-sync" aria-hidden="true"></span>
    <span id="fathom-state-text">Starting…</span>
    <button id="fathom-pause" class="fathom-icon-button" type="button" aria-label="Pause indexing" title="Pause indexing" hidden><span class="codicon codicon-debug-pause" aria-hidden="true"></span></button>
    <button id="fathom-cancel" class="fathom-icon-button" type="button" aria-label="Cancel indexing" title="Cancel indexing (what is indexed stays searchable)" hidden><span class="codicon codicon-close" aria-hidden="true"></span></button>
  </div>
  <div id="fathom-progress" hidden><div id="fathom-progress-bar"></div></div>
  <div id="fathom-warning" role="note" hidden><span class="codicon codicon-warning" aria-hidden="true"></span><span id="fathom-warning-text"></span><button id="fathom-model-download" class="fathom-text-button" type="button" hidden>Download</button><button id="fathom-model-local" class="fathom-text-button" type="button" hidden>Local folder…</button></div>
  <div class="fathom-search-row">
    <span class="codicon codicon-search" aria-hidden="true"></span>
    <input id="fathom-query" type="search" placeholder="Search by meaning or name" aria-label="Search the workspace by meaning or by name" autocomplete="off" spellcheck="false">
  </div>
  <div class="fathom-filter-row">
    <select id="fathom-language" aria-label="Kind of file">${options}</select>
    <input id="fathom-paths" type="text" placeholder="Paths: src/**, !**/*.test.ts" aria-label="Path globs to include; a leading ! excludes" autocomplete="off" spellcheck="false">
    <button id="fathom-translations" class="fathom-icon-button fathom-toggle" type="button" aria-pressed="true" aria-label="Fold locale files into one Translations group" title="Fold locale files into one Translations group"><span class="codicon codicon-globe" aria-hidden="true"></span></button>
    <button id="fathom-collapse" class="fathom-icon-button" type="button" aria-label="Collapse all" title="Collapse all"><span class="codicon codicon-collapse-all" aria-hidden="true"></span></button>
  </div>
</header>
<div id="fathom-summary" role="status" aria-live="polite"></div>
<div id="fathom-results" role="tree" aria-label="Search results, grouped by file" tabindex="-1"></div>
<script nonce="${e(o.nonce)}" src="${e(o.scriptUri)}"></script>
</body>
</html>`;
}
