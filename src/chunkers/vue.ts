/**
 * Vue single-file components (@vue/compiler-sfc): each block goes to its own splitter and no
 * chunk ever mixes blocks.
 *   <script>, <script setup> → the JS/TS chunker, on the block's offsets inside the .vue file;
 *     Options API entries are units named `KZoomControl.methods.zoomIn`.
 *   <template> → split on element boundaries, never inside a tag.
 *   <style> → its own chunk(s), cut at rule boundaries when long.
 *   <i18n> (vue-i18n custom block, JSON) → the JSON chunker as an i18n dictionary.
 * Header: `<!-- <rel_path> — zoom control [template] -->`, the component name in words.
 */
import { parse as parseSfc, type SFCBlock, type SFCDescriptor, type SFCScriptBlock, type SFCStyleBlock, type SFCTemplateBlock } from '@vue/compiler-sfc';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';
import type { ChunkContext } from './context';
import { chunkScript } from './javascript';
import { chunkJsonRange } from './json';
import { trimRange, type Range } from '../parse/source-text';
import { paragraphStarts } from './text';
import { ALSO_NAMED_META, SEARCH_TERMS_META, type Chunk } from './types';
import { errText } from '../util/errors';

/** `KZoomControl` → `zoom control`; `k-zoom-control` → `k zoom control`; `XMLParser` → `xml parser`. */
export function nameToWords(name: string): string {
  const dropped = name.replace(/^[A-Z](?=[A-Z][a-z])/, '');
  return dropped
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[-_.]+/g, ' ')
    .trim()
    .toLowerCase();
}

function pascal(base: string): string {
  return base
    .split(/[-_.\s]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** Component name: `name:` in the options / defineOptions, else the file name in PascalCase. */
export function componentName(path: string, scripts: string[]): string {
  for (const s of scripts) {
    const m = /(?:export\s+default|defineComponent\s*\(|defineOptions\s*\(|Vue\.extend\s*\()[\s\S]*?\bname\s*:\s*(['"`])([\w$-]+)\1/.exec(s);
    if (m) return m[2];
  }
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.vue$/i, '');
  if (base.toLowerCase() === 'index') {
    const dir = path.split('/').slice(-2, -1)[0];
    if (dir) return pascal(dir);
  }
  return pascal(base);
}

/** `BaseButton` → base, button; `k-zoom-control` → k, zoom, control. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[-_.\s]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * The name Nuxt registers a component under when it sits in a folder below `components/`: the
 * folders and the file name in PascalCase, the trailing folders the file name already starts
 * with not repeated (Nuxt's rule): `components/base/Button.vue` → BaseButton,
 * `components/base/BaseButton.vue` → BaseButton, `components/form/input/index.vue` → FormInput.
 * Undefined directly under `components/` (the file name is the name) and outside it.
 */
export function nuxtComponentName(path: string): string | undefined {
  const parts = path.split('/');
  const at = parts.lastIndexOf('components');
  if (at < 0) return undefined;
  const dirs = parts.slice(at + 1, -1);
  let file = parts[parts.length - 1].replace(/\.vue$/i, '');
  if (file.toLowerCase() === 'index' && dirs.length) file = dirs.pop()!;
  if (!dirs.length || !/^[\w-]+$/.test(file) || dirs.some((d) => !/^[\w-]+$/.test(d))) return undefined;
  const fileWords = nameParts(file).join('/');
  let keep = dirs.length;
  for (let i = dirs.length - 1; i >= 0; i--) {
    const suffix = dirs.slice(i).flatMap(nameParts).join('/');
    if (fileWords === suffix || fileWords.startsWith(`${suffix}/`)) keep = i;
  }
  return [...dirs.slice(0, keep), file].map(pascal).join('');
}

/** The content ranges of every block: what no chunk may straddle. */
export function vueBlockRanges(text: string): Array<{ block: string; start: number; end: number }> {
  const { descriptor } = parseSfc(text, { sourceMap: false, ignoreEmpty: false });
  const blocks: SFCBlock[] = [
    ...(descriptor.template ? [descriptor.template] : []),
    ...(descriptor.script ? [descriptor.script] : []),
    ...(descriptor.scriptSetup ? [descriptor.scriptSetup] : []),
    ...descriptor.styles,
    ...descriptor.customBlocks,
  ];
  return blocks.map((b) => ({ block: b.type, start: b.loc.start.offset, end: b.loc.end.offset }));
}

/** End of the start tag that begins at `start` (quotes respected). */
function startTagEnd(text: string, start: number, limit: number): number {
  let quote = 0;
  for (let i = start + 1; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) quote = c;
    else if (c === 62) return i + 1;
  }
  return limit;
}

/**
 * Says where non-whitespace text lies outside every block (start tag, content, end tag) and
 * outside comments, or undefined when none does.
 */
function textOutsideBlocks(text: string, blocks: SFCBlock[]): string | undefined {
  const spans = blocks
    .map((b) => {
      const open = text.lastIndexOf('<', Math.max(0, b.loc.start.offset - 1));
      let end = b.loc.end.offset;
      if (text.startsWith('</', end)) {
        const gt = text.indexOf('>', end);
        end = gt < 0 ? text.length : gt + 1;
      }
      return [open < 0 ? b.loc.start.offset : open, end] as const;
    })
    .sort((a, b) => a[0] - b[0]);
  let at = 0;
  const check = (from: number, to: number): string | undefined => {
    const gap = text.slice(from, to).replace(/<!--[\s\S]*?-->/g, '');
    const m = /\S/.exec(gap);
    if (!m) return undefined;
    const line = text.slice(0, from).split(/\r\n|\r|\n/).length + gap.slice(0, m.index).split(/\r\n|\r|\n/).length - 1;
    return `text from line ${line} lies in no block`;
  };
  for (const [s, e] of spans) {
    if (s > at) {
      const r = check(at, s);
      if (r) return r;
    }
    at = Math.max(at, e);
  }
  return check(at, text.length);
}

interface TemplateNode {
  type: number;
  loc: { start: { offset: number }; end: { offset: number } };
  children?: TemplateNode[];
}

export function chunkVue(ctx: ChunkContext, opts: ResolvedOptions): ChunkerOutput {
  const { descriptor, warnings } = parseVue(ctx);
  const scripts = [descriptor.script, descriptor.scriptSetup].filter((b): b is NonNullable<typeof b> => !!b);
  const sfc = new SfcChunks(ctx, componentName(ctx.path, scripts.map((s) => s.content)), warnings);
  if (descriptor.template) sfc.template(descriptor.template);
  for (const s of scripts) sfc.script(s, s === descriptor.scriptSetup);
  for (const st of descriptor.styles) sfc.style(st);
  for (const b of descriptor.customBlocks) sfc.custom(b, opts);
  const alias = nuxtComponentName(ctx.path);
  if (alias) sfc.alsoNamed(alias);
  sfc.chunks.sort((a, b) => a.start.offset - b.start.offset);
  return { chunks: sfc.chunks, warnings, category: vueApi(scripts, descriptor.scriptSetup) };
}

/**
 * Parses the SFC; its recovered errors become a warning. Throws FallbackError (indexed as text)
 * when no block parses, or when the errors would drop text outside every block.
 */
function parseVue(ctx: ChunkContext): { descriptor: SFCDescriptor; warnings: string[] } {
  const text = ctx.text;
  const { descriptor, errors } = parseSfc(text, { filename: ctx.path, sourceMap: false, ignoreEmpty: false });
  const warnings: string[] = [];
  if (errors.length) {
    const first = errors[0];
    const msg = errText(first);
    const blocks = [descriptor.template, descriptor.script, descriptor.scriptSetup, ...descriptor.styles].filter(Boolean);
    if (!blocks.length) throw new FallbackError(`Vue SFC does not parse: ${msg}`);
    // An unclosed block (a file mid-edit: `<script setup>` never closed) comes back empty, its
    // text lost: when text outside every block would be dropped, the file is indexed as text.
    const lost = textOutsideBlocks(text, [...blocks, ...descriptor.customBlocks] as SFCBlock[]);
    if (lost) throw new FallbackError(`Vue SFC with an unclosed or unreadable block (${msg}): ${lost}`);
    warnings.push(`recovered ${errors.length} SFC error(s): ${msg}`);
  }
  return { descriptor, warnings };
}

/** Which API the component's scripts use (the file's category): `script-setup`, `composition`, `options`, `script`, or `template-only`. */
function vueApi(scripts: SFCScriptBlock[], setupBlock: SFCScriptBlock | null): string {
  let api = 'template-only';
  for (const s of scripts) {
    if (s === setupBlock) api = 'script-setup';
    else if (api !== 'script-setup') api = /\bsetup\s*\(/.test(s.content) ? 'composition' : /export\s+default|defineComponent|Vue\.extend/.test(s.content) ? 'options' : 'script';
  }
  return api;
}

/** The chunks of one SFC's blocks, each block on its own; `warnings` gets what a block's chunker says. */
class SfcChunks {
  readonly chunks: Chunk[] = [];
  private readonly words: string;

  constructor(
    private readonly ctx: ChunkContext,
    /** The component's name: the symbol of its blocks' chunks. */
    private readonly name: string,
    private readonly warnings: string[],
  ) {
    this.words = nameToWords(name);
  }

  /** The component's chunks (their symbol its name) are also `alias` (see ALSO_NAMED_META); a name that is the component's own adds nothing. */
  alsoNamed(alias: string): void {
    if (alias === this.name) return;
    for (const c of this.chunks) {
      if (c.symbol !== this.name) continue;
      const had = c.meta?.[SEARCH_TERMS_META];
      c.meta = { ...c.meta, [ALSO_NAMED_META]: [alias], [SEARCH_TERMS_META]: typeof had === 'string' ? `${had}\n${alias}` : alias };
    }
  }

  private header(block: string, symbol?: string): string {
    return `<!-- ${this.ctx.path} — ${this.words} [${block}]${symbol && symbol !== this.name ? ` :: ${symbol}` : ''} -->`;
  }

  /** A block packed into chunks at `boundaries`, never cut inside `unbreakable`. */
  private plainBlock(block: string, r: Range, kind: Chunk['kind'], boundaries: number[], meta: Record<string, unknown>, unbreakable: Range[] = []): void {
    const h = this.header(block);
    const pieces = this.ctx.pack(r, h, boundaries, unbreakable);
    pieces.forEach((p, index) =>
      this.chunks.push(
        this.ctx.make({
          kind,
          start: p.start,
          end: p.end,
          header: h,
          symbol: this.name,
          complete: pieces.length === 1,
          split: pieces.length > 1 ? { index, total: pieces.length } : undefined,
          meta,
        }),
      ),
    );
  }

  /** <template>: element boundaries as cut points, start tags and interpolations unbreakable. */
  template(tpl: SFCTemplateBlock): void {
    const text = this.ctx.text;
    const r = { start: tpl.loc.start.offset, end: tpl.loc.end.offset };
    const boundaries: number[] = [];
    const unbreakable: Range[] = [];
    const walk = (nodes: TemplateNode[] | undefined) => {
      for (const n of nodes ?? []) {
        const s = n.loc.start.offset;
        const e = n.loc.end.offset;
        boundaries.push(s, e);
        if (n.type === 1) unbreakable.push({ start: s, end: startTagEnd(text, s, e) });
        else if (n.type === 5 || n.type === 3) unbreakable.push({ start: s, end: e }); // {{ }} and comments
        walk(n.children);
      }
    };
    walk((tpl.ast as unknown as TemplateNode | undefined)?.children);
    this.plainBlock('template', r, 'template', boundaries, { block: 'template', ...(tpl.lang ? { lang: tpl.lang } : {}) }, unbreakable);
  }

  /** <script> and <script setup>: the JS/TS chunker on the block's own offsets. */
  script(s: SFCScriptBlock, setup: boolean): void {
    const block = setup ? 'script setup' : 'script';
    const lang = s.lang ?? 'js';
    const out = chunkScript(this.ctx, {
      start: s.loc.start.offset,
      end: s.loc.end.offset,
      typescript: lang === 'ts' || lang === 'tsx',
      jsx: lang === 'tsx' || lang === 'jsx',
      defaultName: this.name,
      moduleSymbol: this.name,
      header: (symbol) => this.header(block, symbol),
      meta: { block, lang },
    });
    for (const c of out.chunks) c.language = lang === 'ts' || lang === 'tsx' ? 'vue-ts' : 'vue';
    this.chunks.push(...out.chunks);
    this.warnings.push(...(out.warnings ?? []));
  }

  /** <style>: its own chunk(s), cut between rules when long. */
  style(st: SFCStyleBlock): void {
    const r = trimRange(this.ctx.text, st.loc.start.offset, st.loc.end.offset);
    this.plainBlock('style', r, 'style', paragraphStarts(this.ctx.text, r.start, r.end), { block: 'style', lang: st.lang ?? 'css', scoped: !!st.scoped });
  }

  /** Custom blocks: <i18n> as a JSON dictionary; anything else as text of its block. */
  custom(b: SFCBlock, opts: ResolvedOptions): void {
    const r = { start: b.loc.start.offset, end: b.loc.end.offset };
    const lang = typeof b.attrs.lang === 'string' ? b.attrs.lang : 'json';
    if (b.type === 'i18n' && (lang === 'json' || lang === 'json5')) {
      const out = chunkJsonRange(this.ctx, r, 'i18n', opts, (symbol) => this.header('i18n', symbol));
      if (out) {
        for (const c of out.chunks) {
          c.kind = c.kind === 'i18n-labels' ? 'i18n-labels' : 'i18n-section';
          c.meta = { ...(c.meta ?? {}), block: 'i18n' };
        }
        this.chunks.push(...out.chunks);
        this.warnings.push(...(out.warnings ?? []));
        return;
      }
      this.warnings.push('<i18n> block is not valid JSON: indexed as text');
    }
    this.plainBlock(b.type, r, b.type === 'i18n' ? 'i18n-block' : 'fragment', paragraphStarts(this.ctx.text, r.start, r.end), { block: b.type, lang });
  }
}

