/**
 * The sidebar's webview script (bundled by esbuild into dist/media/view.js, run in the
 * webview's page under a strict CSP). It renders what the host posts (src/ui/messages.ts) and
 * posts back what the user does. Workspace text is only ever set with `textContent`: a file
 * holding `<script>` or `<img onerror>` renders as text.
 */
import { navigate } from '../src/ui/keys';
import type { HostToView, ViewGroup, ViewHit, ViewIndexState, ViewToHost } from '../src/ui/messages';
import { splitHighlights } from '../src/ui/results';

interface VsCodeApi {
  postMessage(m: ViewToHost): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const query = $<HTMLInputElement>('fathom-query');
const language = $<HTMLSelectElement>('fathom-language');
const paths = $<HTMLInputElement>('fathom-paths');
const results = $<HTMLDivElement>('fathom-results');
const summary = $<HTMLDivElement>('fathom-summary');

interface Saved {
  query: string;
  language: string;
  paths: string;
}
const saved = vscode.getState() as Partial<Saved> | undefined;
if (saved) {
  query.value = typeof saved.query === 'string' ? saved.query : '';
  language.value = typeof saved.language === 'string' ? saved.language : '';
  paths.value = typeof saved.paths === 'string' ? saved.paths : '';
}

let seq = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let items: HTMLElement[] = [];
let hits: ViewHit[] = [];
let indexState: ViewIndexState | undefined;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function icon(name: string): HTMLSpanElement {
  const s = el('span', `codicon codicon-${name}`);
  s.setAttribute('aria-hidden', 'true');
  return s;
}

function search(now = false): void {
  if (timer) clearTimeout(timer);
  const send = () => {
    timer = undefined;
    vscode.setState({ query: query.value, language: language.value, paths: paths.value } satisfies Saved);
    vscode.postMessage({ type: 'search', seq: ++seq, query: query.value, filters: { language: language.value, paths: paths.value } });
  };
  if (now) send();
  else timer = setTimeout(send, 150);
}

query.addEventListener('input', () => search());
paths.addEventListener('input', () => search());
language.addEventListener('change', () => search(true));

function focusResult(i: number): void {
  items.forEach((it, j) => {
    it.tabIndex = j === i ? 0 : -1;
    it.setAttribute('aria-selected', String(j === i));
  });
  items[i]?.focus();
  items[i]?.scrollIntoView({ block: 'nearest' });
}

function act(key: string, current: number, ev: KeyboardEvent): void {
  const a = navigate(key, current, items.length);
  switch (a.kind) {
    case 'focus':
      focusResult(a.index);
      break;
    case 'query':
      query.focus();
      break;
    case 'open':
      if (current < 0 && key === 'Enter') {
        search(true);
        break;
      }
      if (hits[a.index]) vscode.postMessage({ type: 'open', key: hits[a.index].key, preview: a.preview });
      break;
    case 'similar':
      if (hits[a.index]) vscode.postMessage({ type: 'similar', key: hits[a.index].key });
      break;
    case 'none':
      return;
  }
  ev.preventDefault();
}

query.addEventListener('keydown', (ev) => {
  if (ev.key === 'ArrowDown' || ev.key === 'PageDown' || ev.key === 'Enter') act(ev.key, -1, ev);
});
results.addEventListener('keydown', (ev) => {
  const i = items.indexOf(document.activeElement as HTMLElement);
  if (i >= 0) act(ev.key, i, ev);
});

$('fathom-cancel').addEventListener('click', () => vscode.postMessage({ type: 'cancelIndex' }));
$('fathom-pause').addEventListener('click', () => vscode.postMessage({ type: indexState?.paused ? 'resume' : 'pause' }));
$('fathom-model-download').addEventListener('click', () => vscode.postMessage({ type: 'modelAction', action: 'download' }));
$('fathom-model-local').addEventListener('click', () => vscode.postMessage({ type: 'modelAction', action: 'local' }));

function renderState(s: ViewIndexState): void {
  indexState = s;
  const iconEl = $('fathom-state-icon');
  iconEl.className = `codicon ${s.unavailable ? 'codicon-circle-slash' : s.paused ? 'codicon-debug-pause' : s.indexing ? 'codicon-sync codicon-modifier-spin' : 'codicon-database'}`;
  $('fathom-state-text').textContent = s.text;
  $('fathom-state').dataset.indexing = String(s.indexing);
  const pause = $<HTMLButtonElement>('fathom-pause');
  pause.hidden = !s.indexing && !s.paused;
  pause.setAttribute('aria-label', s.paused ? 'Resume indexing' : 'Pause indexing');
  pause.title = s.paused ? 'Resume indexing' : 'Pause indexing';
  pause.firstElementChild!.className = `codicon ${s.paused ? 'codicon-debug-start' : 'codicon-debug-pause'}`;
  $<HTMLButtonElement>('fathom-cancel').hidden = !s.indexing;
  const progress = $('fathom-progress');
  progress.hidden = !s.indexing || s.percent === undefined;
  // CSSOM, not a style attribute: allowed by the CSP's style-src
  $('fathom-progress-bar').style.width = `${s.percent ?? 0}%`;
  const warn = $('fathom-warning');
  warn.hidden = !s.warning;
  warn.title = s.warningDetail ?? s.warning ?? '';
  $('fathom-warning-text').textContent = s.warning ?? '';
  $<HTMLButtonElement>('fathom-model-download').hidden = !s.modelActions;
  $<HTMLButtonElement>('fathom-model-local').hidden = !s.modelActions;
}

function renderHit(h: ViewHit, index: number): HTMLElement {
  const item = el('div', 'fathom-result');
  item.id = `fathom-result-${index}`;
  item.setAttribute('role', 'option');
  item.setAttribute('aria-selected', 'false');
  item.tabIndex = index === 0 ? 0 : -1;
  item.dataset.key = h.key;
  item.dataset.path = h.path;
  item.dataset.startLine = String(h.start.line);
  item.dataset.startColumn = String(h.start.column);
  item.dataset.endLine = String(h.end.line);
  item.dataset.endColumn = String(h.end.column);
  item.dataset.kind = h.kind;
  item.title = `${h.header}\nLines ${h.start.line}–${h.end.line} · ${h.kind}\nWhy it ranked: ${h.why}`;
  item.setAttribute('aria-label', `${h.symbol ?? h.kind} in ${h.path}, lines ${h.start.line} to ${h.end.line}`);

  const head = el('div', 'fathom-result-head');
  head.append(icon(kindIcon(h.kind)));
  head.append(el('span', 'fathom-breadcrumb', h.breadcrumb));
  head.append(el('span', 'fathom-lines', `${h.start.line}–${h.end.line}`));
  const similar = el('button', 'fathom-icon-button fathom-similar');
  similar.type = 'button';
  similar.tabIndex = -1;
  similar.title = 'Find similar (S)';
  similar.setAttribute('aria-label', `Find chunks similar to ${h.symbol ?? h.kind} in ${h.path}`);
  similar.append(icon('search-fuzzy'));
  similar.addEventListener('click', (ev) => {
    ev.stopPropagation();
    vscode.postMessage({ type: 'similar', key: h.key });
  });
  head.append(similar);
  item.append(head);

  const pre = el('pre', 'fathom-snippet');
  for (const part of splitHighlights(h.snippet, h.highlights)) pre.append(part.mark ? el('mark', undefined, part.text) : document.createTextNode(part.text));
  item.append(pre);

  item.addEventListener('click', () => {
    focusResult(index);
    vscode.postMessage({ type: 'open', key: h.key, preview: false });
  });
  return item;
}

function kindIcon(kind: string): string {
  switch (kind) {
    case 'function':
    case 'method':
      return 'symbol-method';
    case 'class':
      return 'symbol-class';
    case 'interface':
    case 'type':
      return 'symbol-interface';
    case 'property':
    case 'schema-property':
      return 'symbol-property';
    case 'const':
      return 'symbol-constant';
    case 'enum':
      return 'symbol-enum';
    case 'section':
    case 'front-matter':
      return 'symbol-text';
    case 'code-block':
      return 'code';
    case 'i18n-section':
    case 'i18n-labels':
    case 'i18n-block':
      return 'globe';
    case 'template':
      return 'symbol-misc';
    case 'style':
      return 'symbol-color';
    default:
      return 'symbol-field';
  }
}

function renderGroup(g: ViewGroup, start: number): HTMLElement {
  const group = el('div', 'fathom-group');
  group.setAttribute('role', 'group');
  group.setAttribute('aria-label', `${g.path}, ${g.hits.length} result${g.hits.length === 1 ? '' : 's'}`);
  group.dataset.path = g.path;
  const head = el('div', 'fathom-group-head');
  head.append(icon('file'));
  const slash = g.path.lastIndexOf('/');
  head.append(el('span', 'fathom-file-name', g.path.slice(slash + 1)));
  if (slash > 0) head.append(el('span', 'fathom-file-dir', g.path.slice(0, slash)));
  if (g.folder) head.append(el('span', 'fathom-file-folder', g.folder));
  head.append(el('span', 'fathom-count', String(g.hits.length)));
  group.append(head);
  g.hits.forEach((h, i) => group.append(renderHit(h, start + i)));
  return group;
}

let lastSignature = '';

function renderResults(m: Extract<HostToView, { type: 'results' }>): void {
  if (m.seq !== -1 && m.seq < seq) return; // older than what the box holds
  // The same results again (the index grew, nothing moved): keep the list, and the focus in it.
  const signature = JSON.stringify([m.title, m.groups.map((g) => g.hits.map((h) => [h.key, h.snippet, h.why]))]);
  const focusedKey = (document.activeElement as HTMLElement | null)?.dataset?.key;
  if (signature !== lastSignature) {
    lastSignature = signature;
    results.replaceChildren();
    hits = [];
    for (const g of m.groups) {
      results.append(renderGroup(g, hits.length));
      hits.push(...g.hits);
    }
    items = [...results.querySelectorAll<HTMLElement>('.fathom-result')];
    // a refresh while the user walks the list: the focus stays on the same result
    const again = focusedKey ? hits.findIndex((h) => h.key === focusedKey) : -1;
    if (again >= 0) focusResult(again);
  }
  results.dataset.seq = String(m.seq);
  results.dataset.query = m.query;
  if (m.title && query.value) {
    // Find Similar results: the box no longer describes what is shown
    query.value = '';
    vscode.setState({ query: '', language: language.value, paths: paths.value } satisfies Saved);
  }
  results.dataset.total = String(m.total);
  const files = m.groups.length;
  const parts: string[] = [];
  if (m.title) parts.push(m.title);
  if (!m.query.trim() && !m.title) {
    summary.textContent = '';
    return;
  }
  parts.push(m.total ? `${m.total} result${m.total === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}` : 'No results');
  if (!m.title) parts.push(`${m.ms} ms`);
  if (m.mode === 'keyword') parts.push('keyword-only');
  if (m.partial) parts.push('index still building');
  summary.textContent = parts.join(' · ');
  summary.dataset.mode = m.mode;
}

window.addEventListener('message', (ev: MessageEvent<HostToView>) => {
  const m = ev.data;
  switch (m?.type) {
    case 'state':
      renderState(m.state);
      break;
    case 'results':
      renderResults(m);
      break;
    case 'error':
      if (m.seq >= seq) summary.textContent = `Search failed: ${m.message}`;
      break;
    case 'setQuery':
      query.value = m.query;
      if (m.focus) query.focus();
      search(true);
      break;
  }
});

vscode.postMessage({ type: 'ready' });
if (query.value.trim()) search(true);
