/**
 * The sidebar's webview script (bundled by esbuild into dist/media/view.js, run in the
 * webview's page under a strict CSP). It renders what the host posts (src/editor/messages.ts) and
 * posts back what the user does. Workspace text is only ever set with `textContent`: a file
 * holding `<script>` or `<img onerror>` renders as text.
 */
import { navigate } from '../src/editor/keys';
import type { HostToView, ViewHit, ViewIndexState, ViewToHost } from '../src/editor/messages';
import { buildTree, splitHighlights, type TreeGroup } from '../src/editor/result-tree';

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
const translations = $<HTMLButtonElement>('fathom-translations');
const collapse = $<HTMLButtonElement>('fathom-collapse');

interface Saved {
  query: string;
  language: string;
  paths: string;
  /** Locale files folded into one Translations group. */
  fold: boolean;
  /** Groups the user opened or closed: [id, open]. */
  opened: Array<[string, boolean]>;
}
const saved = vscode.getState() as Partial<Saved> | undefined;
let fold = true;
const opened = new Map<string, boolean>();
if (saved) {
  query.value = typeof saved.query === 'string' ? saved.query : '';
  language.value = typeof saved.language === 'string' ? saved.language : '';
  paths.value = typeof saved.paths === 'string' ? saved.paths : '';
  if (typeof saved.fold === 'boolean') fold = saved.fold;
  if (Array.isArray(saved.opened)) for (const e of saved.opened.slice(-200)) if (Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'boolean') opened.set(e[0], e[1]);
}

function saveState(): void {
  vscode.setState({ query: query.value, language: language.value, paths: paths.value, fold, opened: [...opened].slice(-200) } satisfies Saved);
}

function showFold(): void {
  translations.setAttribute('aria-pressed', String(fold));
  const label = fold ? 'Locale files are folded into one Translations group: show them as files' : 'Fold locale files into one Translations group';
  translations.title = label;
  translations.setAttribute('aria-label', label);
}
showFold();

let seq = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
/** The rows the keyboard walks, in order: group headings and the results of open groups. */
let items: HTMLElement[] = [];
let hits: ViewHit[] = [];
let tree: TreeGroup[] = [];
let hitOf = new Map<HTMLElement, ViewHit>();
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
    saveState();
    vscode.postMessage({ type: 'search', seq: ++seq, query: query.value, filters: { language: language.value, paths: paths.value } });
  };
  if (now) send();
  else timer = setTimeout(send, 150);
}

query.addEventListener('input', () => search());
paths.addEventListener('input', () => search());
language.addEventListener('change', () => search(true));
translations.addEventListener('click', () => {
  fold = !fold;
  showFold();
  saveState();
  draw();
  if (last) renderSummary(last);
});
collapse.addEventListener('click', () => {
  const anyOpen = tree.some((g) => g.open);
  for (const g of tree) opened.set(g.id, !anyOpen);
  saveState();
  draw();
  collapse.title = anyOpen ? 'Expand all' : 'Collapse all';
  collapse.setAttribute('aria-label', collapse.title);
  collapse.firstElementChild!.className = `codicon ${anyOpen ? 'codicon-expand-all' : 'codicon-collapse-all'}`;
});

function focusItem(i: number): void {
  if (i < 0 || i >= items.length) return;
  items.forEach((it, j) => {
    it.tabIndex = j === i ? 0 : -1;
    it.setAttribute('aria-selected', String(j === i));
  });
  items[i].focus();
  items[i].scrollIntoView({ block: 'nearest' });
}

const groupOfHead = (it: HTMLElement | undefined) => (it?.dataset.group ? tree.find((g) => g.id === it.dataset.group) : undefined);

function act(key: string, current: number, ev: KeyboardEvent): void {
  const cur = items[current];
  const head = groupOfHead(cur);
  // a group heading: Enter / Space / ← / → open and close it
  if (head && (key === 'Enter' || key === ' ' || key === 'ArrowLeft' || key === 'ArrowRight')) {
    if (key === 'ArrowRight' && head.open) focusItem(current + 1);
    else if (key !== 'ArrowLeft' || head.open) toggleGroup(head, key === 'ArrowRight' ? true : key === 'ArrowLeft' ? false : !head.open);
    ev.preventDefault();
    return;
  }
  if (cur && !head && key === 'ArrowLeft') {
    // ← on a result: to its group's heading
    const g = cur.closest('.fathom-group')?.querySelector<HTMLElement>('.fathom-group-head');
    if (g) focusItem(items.indexOf(g));
    ev.preventDefault();
    return;
  }
  const a = navigate(key, current, items.length);
  switch (a.kind) {
    case 'focus':
      // from the box, ↓ lands on the first result (not on its file's heading)
      focusItem(current < 0 && key === 'ArrowDown' ? Math.max(0, items.findIndex((it) => hitOf.has(it))) : a.index);
      break;
    case 'query':
      query.focus();
      break;
    case 'open': {
      if (current < 0 && key === 'Enter') {
        search(true);
        break;
      }
      const h = hitOf.get(items[a.index]);
      if (h) vscode.postMessage({ type: 'open', key: h.key, preview: a.preview });
      break;
    }
    case 'similar': {
      const h = hitOf.get(items[a.index]);
      if (h) vscode.postMessage({ type: 'similar', key: h.key });
      break;
    }
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
  $('fathom-state-text').title = s.text;
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

function renderHit(h: ViewHit, index: number, extra?: { locale: string; path: string }): HTMLElement {
  const item = el('div', 'fathom-result');
  item.id = `fathom-result-${index}`;
  item.setAttribute('role', 'treeitem');
  item.setAttribute('aria-level', '2');
  item.setAttribute('aria-selected', 'false');
  item.tabIndex = -1;
  item.dataset.key = h.key;
  item.dataset.path = h.path;
  item.dataset.startLine = String(h.start.line);
  item.dataset.startColumn = String(h.start.column);
  item.dataset.endLine = String(h.end.line);
  item.dataset.endColumn = String(h.end.column);
  item.dataset.kind = h.kind;
  // the details line: the whole breadcrumb, the range, the numbers behind "why"
  item.title = `${h.breadcrumb}\n${h.path}:${h.start.line}–${h.end.line} · ${h.kind}\n${h.why}: ${h.whyDetail}`;
  item.setAttribute('aria-label', `${h.title} in ${h.path}, lines ${h.start.line} to ${h.end.line}, ${h.why}`);

  const head = el('div', 'fathom-result-head');
  head.append(icon(kindIcon(h.kind)));
  head.append(el('span', 'fathom-title', h.title));
  head.append(el('span', 'fathom-lines', `${h.start.line}–${h.end.line}`));
  const similar = el('button', 'fathom-icon-button fathom-similar');
  similar.type = 'button';
  similar.tabIndex = -1;
  similar.title = 'Find similar (S)';
  similar.setAttribute('aria-label', `Find chunks similar to ${h.title} in ${h.path}`);
  similar.append(icon('search-fuzzy'));
  similar.addEventListener('click', (ev) => {
    ev.stopPropagation();
    vscode.postMessage({ type: 'similar', key: h.key });
  });
  head.append(similar);
  item.append(head);

  const sub = el('div', 'fathom-result-sub');
  // a row of the folded Translations group says which locale file it is (the full path is in the tooltip)
  const where = extra ? [extra.locale, extra.path.slice(extra.path.lastIndexOf('/') + 1)].filter(Boolean).join(' · ') : h.context;
  if (where) sub.append(el('span', 'fathom-context', where));
  sub.append(el('span', 'fathom-why', h.why));
  item.append(sub);

  const pre = el('pre', 'fathom-snippet');
  for (const part of splitHighlights(h.snippet, h.highlights)) pre.append(part.mark ? el('mark', undefined, part.text) : document.createTextNode(part.text));
  item.append(pre);

  item.addEventListener('click', () => {
    focusItem(items.indexOf(item));
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

function toggleGroup(g: TreeGroup, open = !g.open): void {
  if (open === g.open) return;
  opened.set(g.id, open);
  saveState();
  draw(g.id);
}

function renderGroup(g: TreeGroup): HTMLElement {
  const group = el('div', 'fathom-group');
  group.dataset.id = g.id;
  group.dataset.path = g.translations && g.files !== undefined ? '' : g.label;
  group.dataset.open = String(g.open);
  if (g.files !== undefined) group.dataset.translations = 'true';
  const n = g.hits.length;
  const head = el('div', 'fathom-group-head');
  head.setAttribute('role', 'treeitem');
  head.setAttribute('aria-level', '1');
  head.setAttribute('aria-expanded', String(g.open));
  head.setAttribute('aria-selected', 'false');
  head.tabIndex = -1;
  head.dataset.group = g.id;
  head.append(icon(g.open ? 'chevron-down' : 'chevron-right'));
  if (g.files !== undefined) {
    head.append(icon('globe'));
    head.append(el('span', 'fathom-file-name', g.label));
    head.append(el('span', 'fathom-file-dir', `${g.files} locale file${g.files === 1 ? '' : 's'}`));
    head.title = `Translations: ${n} result${n === 1 ? '' : 's'} in ${g.files} locale file${g.files === 1 ? '' : 's'} (the globe button shows them as files)`;
  } else {
    head.append(icon(g.translations ? 'globe' : 'file'));
    const slash = g.label.lastIndexOf('/');
    head.append(el('span', 'fathom-file-name', g.label.slice(slash + 1)));
    if (slash > 0) head.append(el('span', 'fathom-file-dir', g.label.slice(0, slash)));
    if (g.folder) head.append(el('span', 'fathom-file-folder', g.folder));
    head.title = g.folder ? `${g.folder}: ${g.label}` : g.label;
  }
  head.setAttribute('aria-label', `${g.files !== undefined ? 'Translations' : g.label}, ${n} result${n === 1 ? '' : 's'}, ${g.open ? 'expanded' : 'collapsed'}`);
  head.append(el('span', 'fathom-count', String(n)));
  head.addEventListener('click', () => {
    focusItem(items.indexOf(head));
    toggleGroup(g);
  });
  group.append(head);
  if (g.open) {
    const list = el('div', 'fathom-group-hits');
    list.setAttribute('role', 'group');
    g.hits.forEach((h, i) => list.append(renderHit(h, hits.length + i, g.locales ? { locale: g.locales[i], path: g.paths![i] } : undefined)));
    group.append(list);
  }
  hits.push(...g.hits);
  return group;
}

/** The results of the last message, drawn as a tree (again, after a toggle); `focusId`: a group heading or result key to keep focused. */
function draw(focusId?: string): void {
  const m = last;
  results.replaceChildren();
  hits = [];
  tree = m ? buildTree(m.groups, fold, opened) : [];
  for (const g of tree) results.append(renderGroup(g));
  items = [...results.querySelectorAll<HTMLElement>('.fathom-group-head, .fathom-result')];
  hitOf = new Map(items.flatMap((it) => (it.dataset.key ? [[it, hits.find((h) => h.key === it.dataset.key)!] as const] : [])));
  if (items.length && !items.some((it) => it.tabIndex === 0)) items[0].tabIndex = 0;
  const again = focusId ? items.findIndex((it) => it.dataset.key === focusId || it.dataset.group === focusId) : -1;
  if (again >= 0) focusItem(again);
}

let lastSignature = '';
let last: Extract<HostToView, { type: 'results' }> | undefined;

function renderResults(m: Extract<HostToView, { type: 'results' }>): void {
  if (m.seq !== -1 && m.seq < seq) return; // older than what the box holds
  // The same results again (the index grew, nothing moved): keep the list, and the focus in it.
  const signature = JSON.stringify([m.title, m.groups.map((g) => g.hits.map((h) => [h.key, h.snippet, h.why]))]);
  const active = document.activeElement as HTMLElement | null;
  const focused = active?.dataset?.key ?? active?.dataset?.group;
  if (signature !== lastSignature) {
    lastSignature = signature;
    last = m;
    draw(focused);
  }
  results.dataset.seq = String(m.seq);
  results.dataset.query = m.query;
  if (m.title && query.value) {
    // Find Similar results: the box no longer describes what is shown
    query.value = '';
    saveState();
  }
  results.dataset.total = String(m.total);
  renderSummary(m);
}

function renderSummary(m: Extract<HostToView, { type: 'results' }>): void {
  const files = m.groups.length;
  const parts: string[] = [];
  if (m.title) parts.push(m.title);
  if (!m.query.trim() && !m.title) {
    summary.textContent = '';
    return;
  }
  const localeFiles = m.groups.filter((g) => g.locale !== undefined).length;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const where = fold && localeFiles ? (files > localeFiles ? `${plural(files - localeFiles, 'file')} and ${plural(localeFiles, 'locale file')}` : plural(localeFiles, 'locale file')) : plural(files, 'file');
  parts.push(m.total ? `${plural(m.total, 'result')} in ${where}` : 'No results');
  if (!m.title) parts.push(`${m.ms} ms`);
  if (m.mode === 'keyword') parts.push('keyword-only');
  if (m.partial) parts.push('index still building');
  summary.replaceChildren(el('span', 'fathom-summary-line', parts.join(' · ')));
  if (m.note) summary.append(el('span', 'fathom-note', m.note));
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
