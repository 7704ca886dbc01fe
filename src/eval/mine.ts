/**
 * Gold queries mined from an indexed workspace, the way the prior art built its evaluations:
 *   js:       exported JS/TS symbols, as `words (identifier)` — `zoom control (getZoomControl)`;
 *   python, go, rust, java, csharp, c, cpp, php, ruby (the tree-sitter languages, one route
 *             each): their public top-level units the same way — `select autoescape
 *             (select_autoescape)`, `new engine (NewEngine)`; public as the language says it
 *             (Python: no leading `_`; Go: a capital; Rust: `pub`; Java, C#: `public`);
 *   vue:      component names `zoom control (KZoomControl)`, and the name Nuxt registers one
 *             under (`base button (BaseButton)`); composables `use layers (useLayers)`;
 *   registration: `global registration of k-panel (KPanel)` → the file that registers the
 *             component under that name (`app.component('k-panel', KPanel)`, `Vue.component(…)`,
 *             `const ElButton = withInstall(Button)`: javascript.ts's findRegistrations, literal
 *             names only), its call text as the symbol;
 *   i18n:     an i18n value → the file that defines it;
 *   schema:   `field X with component Y` → the schema defining it, Y as the JSON chunker reads it
 *             (`component`, Formily's `x-component`, `widget`, inline `ui:widget` / `ui:field`,
 *             `field.component`: meta.component of a schema-property chunk);
 *   markdown: a heading → its file;
 *   ui:       the words a user sees (a source-locale value of an i18n key the code uses, as the
 *             engine's i18n feed attached it to the chunk) → the code file that shows them.
 * A query whose answer is ambiguous (the same symbol, value or heading in several files) is
 * left out, so every gold query has exactly one right file.
 */
import { findRegistrations } from '../chunkers/javascript';
import { declaredKind } from '../chunkers/declared';
import { ALSO_NAMED_META, type Chunk } from '../chunkers/types';
import { nameToWords } from '../chunkers/vue';
import type { Engine } from '../index/engine';
import { I18N_TEXT_META } from '../index/rank/phrase';

export type Route = 'js' | 'vue' | 'registration' | 'i18n' | 'schema' | 'markdown' | 'ui' | 'python' | 'go' | 'rust' | 'java' | 'csharp' | 'c' | 'cpp' | 'php' | 'ruby';

export interface GoldQuery {
  query: string;
  /** The file that answers it (workspace-relative). */
  file: string;
  /** Text that a right chunk contains (sym_hit), when there is one. */
  symbol?: string;
  route: Route | string;
}

/** `getZoomControl` → `zoom control` (the prior art's query shape drops a leading get/set). */
const words = (id: string) =>
  nameToWords(id.replace(/^use(?=[A-Z])/, 'use '))
    .replace(/^(?:get|set) (?=\S)/, '')
    .replace(/\s+/g, ' ')
    .trim();

export function mineGold(engine: Engine, options: { perRoute?: number } = {}): GoldQuery[] {
  const candidates = new Map<string, { q: GoldQuery; files: Set<string> }>();
  // one key per query text, whatever the route: a query with two right files is not a gold query
  const offer = (q: GoldQuery, key = q.query.toLowerCase()) => {
    const c = candidates.get(key);
    if (c) c.files.add(q.file);
    else candidates.set(key, { q, files: new Set([q.file]) });
  };
  for (const chunk of engine.chunks) {
    if (!chunk) continue;
    mineChunk(chunk, offer);
  }
  const byRoute = new Map<string, GoldQuery[]>();
  for (const { q, files } of candidates.values()) {
    if (files.size !== 1) continue;
    const list = byRoute.get(q.route) ?? [];
    list.push(q);
    byRoute.set(q.route, list);
  }
  const out: GoldQuery[] = [];
  const cap = options.perRoute ?? 300;
  for (const [, list] of [...byRoute].sort()) {
    list.sort((a, b) => (a.file + a.query < b.file + b.query ? -1 : 1));
    // an even, deterministic sample across the route
    const n = Math.min(cap, list.length);
    for (let i = 0; i < n; i++) out.push(list[Math.floor((i * list.length) / n)]);
  }
  return out;
}

/** Languages the tree-sitter chunkers cut: a route each for their public top-level units. */
const TREE_SITTER_ROUTES = new Set(['python', 'go', 'rust', 'java', 'csharp', 'c', 'cpp', 'php', 'ruby']);
/** A type's declaration line (PHP, C#, Java): its name. */
const TYPE_DECLARATION = /^[ \t]*(?:(?:abstract|public|internal|static|final|sealed|partial|readonly)\s+)*(?:class|interface|trait|enum|record|struct)\s+(\w+)/gm;
/** Declared kinds that are types of their own (not an `impl` or a namespace of a type declared elsewhere). */
const CONTAINER_KINDS = new Set(['class', 'struct', 'interface', 'trait', 'enum', 'record']);
/** Languages whose units are named with their namespace in front. */
const NAMESPACED = new Set(['php', 'csharp']);
/** Units worth a query of their own (not a file's leftover code or an impl block; a group of small units: each member). */
const UNIT_KINDS = new Set(['function', 'class', 'struct', 'interface', 'trait', 'enum', 'type']);

/**
 * A top-level type too large for one chunk (most Java and C# classes, a large Python class) has no
 * chunk of its own: its head is a fragment named by it, or its declaration opens its first
 * member's chunk (`Jsoup.Jsoup` starting `public class Jsoup {`). The name of the type whose
 * declaration chunk `c` holds, if it is one of those.
 */
function splitContainer(c: Chunk): string | undefined {
  if (!c.symbol || (c.split && c.split.index > 0)) return undefined;
  const parts = c.symbol.split('.');
  // (a fragment of a namespace's own lines is named by the namespace: the declaration test below tells)
  const name = c.kind === 'fragment' ? parts[parts.length - 1] : c.kind === 'method' && parts.length >= 2 ? parts[parts.length - 2] : undefined;
  if (!name || !/^\w+$/.test(name)) return undefined;
  const kind = declaredKind(c.text, name);
  return kind && CONTAINER_KINDS.has(kind) ? name : undefined;
}

/** Whether the top-level unit `name` of chunk `c` is public as its language says (other languages: every one). */
function isPublic(c: Chunk, name: string): boolean {
  if (c.language === 'python') return !name.startsWith('_');
  if (c.language === 'go') return /^[A-Z]/.test(name);
  // its declaration: the first line naming it that is not a comment, an attribute or an annotation
  const named = new RegExp(`\\b${name}\\b`);
  const decl = c.text.split('\n').find((l) => named.test(l) && !/^\s*(?:\/\/|\/\*|\*|#\[|@|\[)/.test(l)) ?? '';
  if (c.language === 'rust') return /^\s*pub\b/.test(decl);
  if (c.language === 'java' || c.language === 'csharp') return /\bpublic\b/.test(decl);
  return true;
}

function mineChunk(c: Chunk, offer: (q: GoldQuery, key?: string) => void): void {
  const file = c.path;
  if ((c.language === 'javascript' || c.language === 'typescript') && c.symbol && c.complete) {
    const exported = /^(?:\/\*[\s\S]*?\*\/\s*|\/\/.*\n\s*|@[\w.]+(?:\([^)]*\))?\s*)*export\s/.test(c.text);
    const top = !c.symbol.includes('.') && !c.symbol.startsWith('{');
    if (exported && top && /^[A-Za-z_$][\w$]*$/.test(c.symbol) && c.symbol.length > 3) {
      const route = /\/composables?\/|^use[A-Z]/.test(file) || /^use[A-Z]/.test(c.symbol) ? 'vue' : 'js';
      offer({ query: `${words(c.symbol)} (${c.symbol})`, file, symbol: c.symbol, route });
    }
  }
  if (TREE_SITTER_ROUTES.has(c.language) && c.complete && !c.split) {
    // a unit of its own, or the members of a group of small ones
    // a namespace's unit is named by it (PHP, C#: `Monolog.Handler.NullHandler`): its own name is the last
    const members = c.kind === 'group' && Array.isArray(c.meta?.members) ? (c.meta.members as unknown[]).filter((m): m is string => typeof m === 'string') : UNIT_KINDS.has(c.kind) && c.symbol ? [NAMESPACED.has(c.language) ? c.symbol.split('.').pop()! : c.symbol] : [];
    for (const name of members) {
      if (/^[A-Za-z_]\w{3,}$/.test(name) && isPublic(c, name)) offer({ query: `${words(name)} (${name})`, file, symbol: name, route: c.language });
    }
  }
  const container = TREE_SITTER_ROUTES.has(c.language) ? splitContainer(c) : undefined;
  if (container && /^[A-Za-z_]\w{3,}$/.test(container) && isPublic(c, container)) offer({ query: `${words(container)} (${container})`, file, symbol: container, route: c.language });
  // a namespace small enough for one chunk (a PHP or C# file of one class): the types it declares
  if (NAMESPACED.has(c.language) && c.kind === 'namespace' && c.complete && !c.split) {
    for (const m of c.text.matchAll(TYPE_DECLARATION)) {
      const name = m[1];
      if (/^[A-Za-z_]\w{3,}$/.test(name) && isPublic(c, name)) offer({ query: `${words(name)} (${name})`, file, symbol: name, route: c.language });
    }
  }
  if (c.language.startsWith('vue') && c.kind === 'template' && c.symbol && !c.split) {
    offer({ query: `${words(c.symbol)} (${c.symbol})`, file, symbol: c.symbol, route: 'vue' });
    // the name Nuxt registers it under (`components/base/Button.vue`: BaseButton), as the pages that use it write it
    const also = c.meta?.[ALSO_NAMED_META];
    if (Array.isArray(also)) for (const n of also) if (typeof n === 'string') offer({ query: `${words(n)} (${n})`, file, symbol: c.symbol, route: 'vue' });
  }
  if (c.language.startsWith('vue') || c.language === 'javascript' || c.language === 'typescript') {
    for (const r of findRegistrations(c.text)) {
      if (r.literal) offer({ query: `global registration of ${r.name} (${r.component})`, file, symbol: r.call, route: 'registration' });
    }
  }
  if ((c.kind === 'i18n-section' || c.kind === 'i18n-labels') && c.language === 'json') {
    for (const m of c.text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.){12,120})"/g)) {
      // Docusaurus' `"<key>___DESCRIPTION"`: a translator's note, no value anyone sees
      if (m[1].endsWith('___DESCRIPTION')) continue;
      const value = m[2].replace(/\\"/g, '"');
      if (/\s/.test(value) && !/[{}<>]|https?:/.test(value)) offer({ query: value, file, symbol: value, route: 'i18n' });
    }
  }
  const component = c.meta?.component;
  if (c.kind === 'schema-property' && c.symbol && typeof component === 'string' && (!c.split || c.split.index === 0)) {
    const field = c.symbol.split('.').pop()!;
    offer({ query: `field ${field} with component ${component.split('/').pop()}`, file, symbol: `"${field}"`, route: 'schema' });
  }
  const shown = c.meta?.[I18N_TEXT_META];
  if (typeof shown === 'string') {
    // its own key space: the same text is also an i18n query (→ its locale file)
    for (const value of shown.split('\n')) {
      const v = value.replace(/\{[^}]*\}/g, ' ').replace(/\s+/g, ' ').trim();
      if (v.length >= 6 && v.length <= 120 && /\p{L}{2}/u.test(v) && !/[<>]|https?:/.test(v)) offer({ query: v, file, route: 'ui' }, `ui\0${v.toLowerCase()}`);
    }
  }
  if (c.language === 'markdown' && c.kind === 'section' && c.symbol && (!c.split || c.split.index === 0)) {
    const heading = c.symbol.split(' > ').pop()!.trim();
    // no sym_hit text: the heading's plain text is not what its Markdown source reads (`code`, links)
    if (heading.length >= 6 && heading.split(/\s+/).length >= 2) offer({ query: heading, file, route: 'markdown' });
  }
}
