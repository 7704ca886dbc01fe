/**
 * Markdown by its syntax tree (mdast-util-from-markdown: CommonMark + GFM + YAML/TOML front
 * matter), which gives exact offsets for every node, so every chunk is a slice of the source.
 *
 * Units:
 *   front matter (`---` YAML or `+++` TOML at the very start) → one 'front-matter' chunk,
 *     symbol `front matter`, header `<path> > front matter`;
 *   a section = a top-level heading (ATX or setext) and everything up to the next top-level
 *     heading of any level; the content before the first heading is a section too (header just
 *     the path, no symbol). Headings inside block quotes or lists are not section boundaries.
 *     Header `<path> > H1 > H2 > …` from the heading stack, headings as plain text (inline
 *     markup, links and code reduced to their text, inline HTML dropped); symbol `H1 > H2 > …`.
 *     A section over budget is cut at its top-level blocks (paragraphs, lists, tables, code,
 *     HTML blocks …), within a block that alone is over budget at lines; pieces keep the
 *     header and record `split`;
 *   every code block (fenced or indented, at any depth: in lists, block quotes, footnotes) →
 *     also a 'code-block' chunk of its own, never cut, even over budget (then the section piece
 *     holding it is over budget too). Header `<section header> [code: <lang>]` (`[code]` with
 *     no language), symbol the section's, `meta.lang` / `meta.info` from the fence's info
 *     string. It nests inside the section chunk (or piece) holding it — the only overlap —
 *     and the two are bound both ways: `links.section` on the code block, `links.codeBlocks`
 *     on the section.
 * A front matter `title` (YAML `title: …`, TOML `title = "…"`) stands for the H1 when the
 * document has no top-level H1: it is then the first breadcrumb and symbol element of every
 * section, the one before the first heading included.
 * A breadcrumb whose header would take more than half the budget is shortened (long headings
 * clipped, then the middle levels elided); the symbol always keeps the full heading path.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';
import type { ChunkContext } from './context';
import { trimRange, type Range } from './source';
import type { Chunk } from './types';

/** The few mdast fields we read; any node (frontmatter `toml` included) fits. */
interface MdNode {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: MdNode[];
  depth?: number;
  value?: string;
  lang?: string | null;
  meta?: string | null;
}

interface CodeRange extends Range {
  lang?: string;
  info?: string;
}

interface Section {
  start: number;
  end: number;
  /** Breadcrumb elements: the heading stack's plain texts (front matter title first, maybe). */
  path: string[];
  /** Starts of the top-level blocks after the heading: where a long section is cut. */
  boundaries: number[];
  codes: CodeRange[];
}

const FRONT_MATTER = ['yaml', 'toml'] as const;
const PARSE_OPTIONS = {
  extensions: [frontmatter([...FRONT_MATTER]), gfm()],
  mdastExtensions: [frontmatterFromMarkdown([...FRONT_MATTER]), gfmFromMarkdown()],
};

/** Nodes holding phrasing (or table rows) only: no code block can be inside. */
const LEAF_CONTAINERS = new Set(['paragraph', 'heading', 'table', 'tableRow', 'tableCell']);

export function chunkMarkdown(ctx: ChunkContext, _opts: ResolvedOptions): ChunkerOutput {
  const text = ctx.text;
  let root: MdNode;
  try {
    root = fromMarkdown(text, PARSE_OPTIONS) as MdNode;
  } catch (err) {
    throw new FallbackError(`Markdown parse failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const blocks = root.children ?? [];
  const out: Chunk[] = [];

  // Front matter: its own chunk; its title may stand for a missing H1.
  let i = 0;
  let from = 0;
  const base: { depth: number; text: string }[] = [];
  if (blocks.length && (blocks[0].type === 'yaml' || blocks[0].type === 'toml')) {
    const fm = blocks[0];
    const r = rangeOf(fm);
    out.push(
      ...ctx.emitUnit({
        kind: 'front-matter',
        start: r.start,
        end: r.end,
        header: `${ctx.path} > front matter`,
        symbol: 'front matter',
        complete: true,
        meta: { format: fm.type },
      }),
    );
    const title = frontMatterTitle(fm.type, fm.value ?? '');
    if (title && !blocks.some((b) => b.type === 'heading' && b.depth === 1)) base.push({ depth: 0, text: title });
    i = 1;
    from = r.end;
  }

  // Sections tile the rest of the file: [from, first heading), [heading, next heading) …
  const stack = [...base];
  const sections: Section[] = [];
  let cur: Section = { start: from, end: text.length, path: stack.map((s) => s.text), boundaries: [], codes: [] };
  for (; i < blocks.length; i++) {
    const b = blocks[i];
    const r = rangeOf(b);
    if (b.type === 'heading') {
      cur.end = r.start;
      sections.push(cur);
      const depth = b.depth ?? 1;
      while (stack.length && stack[stack.length - 1].depth >= depth) stack.pop();
      stack.push({ depth, text: headingText(b) });
      cur = { start: r.start, end: text.length, path: stack.map((s) => s.text), boundaries: [], codes: [] };
    } else {
      cur.boundaries.push(r.start);
      collectCode(b, text, cur.codes);
    }
  }
  sections.push(cur);

  // Section chunks first (ids come from content), then the code blocks, then the links.
  const made = sections.map((s) => {
    const header = breadcrumb(ctx, s.path);
    const symbol = s.path.length ? s.path.join(' > ') : undefined;
    const pieces = ctx.emitUnit({ kind: 'section', start: s.start, end: s.end, header, symbol, complete: true }, s.boundaries, s.codes);
    return { s, header, symbol, pieces };
  });
  for (const { s, header, symbol, pieces } of made) {
    const codesOf = new Map<Chunk, string[]>();
    let p = 0;
    const blocksHere: Chunk[] = [];
    for (const c of s.codes) {
      while (p < pieces.length && pieces[p].end.offset < c.end) p++;
      const piece = pieces[p];
      if (!piece || piece.start.offset > c.start) {
        // pack never cuts inside an unbreakable range: reaching this is a bug, not a file problem.
        throw new Error(`code block at offset ${c.start} is not inside one section piece`);
      }
      const meta: Record<string, unknown> = {};
      if (c.lang) meta.lang = c.lang;
      if (c.info) meta.info = c.info;
      const block = ctx.make({
        kind: 'code-block',
        start: c.start,
        end: c.end,
        header: `${header} [code${c.lang ? `: ${clip(c.lang, 24)}` : ''}]`,
        symbol,
        complete: true,
        meta: c.lang || c.info ? meta : undefined,
        links: { section: piece.id },
      });
      blocksHere.push(block);
      const ids = codesOf.get(piece) ?? [];
      ids.push(block.id);
      codesOf.set(piece, ids);
    }
    let b = 0;
    for (const piece of pieces) {
      const ids = codesOf.get(piece);
      if (ids) piece.links = { codeBlocks: ids };
      out.push(piece);
      while (b < blocksHere.length && blocksHere[b].end.offset <= piece.end.offset) out.push(blocksHere[b++]);
    }
  }
  return { chunks: out };
}

function rangeOf(node: MdNode): Range {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) throw new FallbackError(`Markdown parser gave a ${node.type} node without offsets`);
  return { start, end };
}

/** Every code node under `node` (itself included), in document order, trimmed like pack's pieces. */
function collectCode(node: MdNode, text: string, into: CodeRange[]): void {
  if (node.type === 'code') {
    const r = rangeOf(node);
    const t = trimRange(text, r.start, r.end);
    if (t.start >= t.end) return;
    const code: CodeRange = t;
    const lang = node.lang?.trim();
    if (lang) code.lang = lang;
    const info = node.meta?.trim();
    if (info) code.info = info;
    into.push(code);
    return;
  }
  if (!node.children || LEAF_CONTAINERS.has(node.type)) return;
  for (const c of node.children) collectCode(c, text, into);
}

function headingText(node: MdNode): string {
  return toString(node, { includeHtml: false }).replace(/\s+/g, ' ').trim() || '(untitled)';
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * `<path> > H1 > H2 …`, shortened when it would take more than half the budget: headings
 * clipped to 40 characters, then only the innermost one kept (`<path> > … > H3`), clipped
 * shorter and shorter, and at worst the path alone.
 */
function breadcrumb(ctx: ChunkContext, path: string[]): string {
  const full = [ctx.path, ...path].join(' > ');
  if (!path.length) return full;
  const limit = ctx.maxTokens / 2;
  if (ctx.headerCost(full) <= limit) return full;
  const clipped = [ctx.path, ...path.map((p) => clip(p, 40))].join(' > ');
  if (ctx.headerCost(clipped) <= limit) return clipped;
  const inner = path[path.length - 1];
  for (let max = 40; max >= 4; max >>= 1) {
    const h = [ctx.path, ...(path.length > 1 ? ['…'] : []), clip(inner, max)].join(' > ');
    if (ctx.headerCost(h) <= limit) return h;
  }
  return ctx.path;
}

/** The document title of YAML (`title: …`) or TOML (`title = "…"`) front matter, top-level key only. */
export function frontMatterTitle(format: string, value: string): string | undefined {
  let raw: string | undefined;
  if (format === 'yaml') raw = /^title[ \t]*:[ \t]*(.*)$/m.exec(value)?.[1];
  else {
    // TOML: only the keys before the first [table] header are top-level.
    const top = value.split(/^[ \t]*\[/m)[0];
    raw = /^title[ \t]*=[ \t]*(.*)$/m.exec(top)?.[1];
  }
  if (raw === undefined) return undefined;
  raw = raw.trim();
  let title: string | undefined;
  if (raw.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"/.exec(raw);
    title = m?.[1].replace(/\\(.)/g, '$1');
  } else if (raw.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'/.exec(raw);
    title = m?.[1].replace(/''/g, "'");
  } else if (format === 'yaml' && raw && !/^[|>[{&*!%@`]/.test(raw)) {
    title = raw.replace(/[ \t]+#.*$/, '');
  }
  title = title?.replace(/\s+/g, ' ').trim();
  return title || undefined;
}
