/**
 * Markdown by its block structure (markdown-it, CommonMark + GFM tables, HTML blocks on), with
 * YAML/TOML front matter detected here. markdown-it gives every block token a line map
 * `[first, end)`; Markdown blocks are line-based, so a block's exact offsets are the trimmed
 * range from its first line to its last, read off the SourceText line table (markdown-it
 * normalizes `\r\n`, lone `\r` and NUL without changing line numbers, and SourceText breaks
 * lines at the same three line ends). Every chunk is a slice of the source.
 *
 * Only the block parse runs over the whole file; the inline parser runs on heading texts
 * alone, which is what makes this fast (inline rules are most of markdown-it's parse time).
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
 *     HTML blocks, link reference definitions …), within a block that alone is over budget at
 *     lines; pieces keep the header and record `split`;
 *   every code block (fenced or indented, at any depth: in lists, block quotes) → also a
 *     'code-block' chunk of its own, never cut, even over budget (then the section piece
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
 *
 * markdown-it is set right where its block structure differs from CommonMark (commonmark.js)
 * or from GFM as GitHub and micromark read it; each wrapped rule below says where.
 * GFM extensions other than tables and strikethrough are not parsed: a footnote definition is a
 * paragraph (after a blank line, its indented continuation is then an indented code block),
 * but a footnote call the document defines is dropped from a heading's text, as in mdast;
 * autolink literals and task lists change no block. MDX import/export lines are paragraphs.
 */
import MarkdownIt from 'markdown-it';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';
import type { ChunkContext } from './context';
import { isWs, type Range } from '../parse/source-text';
import type { Chunk } from './types';
import { errText } from '../util/errors';

type Token = MarkdownIt.Token;
type RuleBlock = MarkdownIt.ParserBlock.RuleBlock;
type StateBlock = Parameters<RuleBlock>[0];

/** markdown-it's environment of one parse: its link references, and ours. */
interface Env {
  /** First lines of the top-level link reference definitions, which leave no token. */
  definitions: number[];
  /** The block tokens, and the GFM footnote labels they define (lowercase), read when needed. */
  tokens: Token[];
  footnotes?: Set<string>;
  /** markdown-it's link reference definitions, by normalized label. */
  references?: Record<string, unknown>;
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

/**
 * One shared parser. CommonMark with GFM tables (block) and strikethrough (inline, for heading
 * texts). The core `inline` rule is off: block tokens only, headings are parsed inline on
 * demand (`headingText`); `text_join` only post-processes inline children, so it goes too.
 * maxNesting as markdown-it's default preset (CommonMark's preset stops at 20 levels, which a
 * list in a list in a quote reaches quickly; below the limit markdown-it drops blocks).
 */
function createParser(): MarkdownIt {
  const md = new MarkdownIt('commonmark', { html: true, maxNesting: 100 } as MarkdownIt.Options).enable(['table', 'strikethrough']);
  md.core.ruler.disable(['inline', 'text_join']);
  // Nothing is rendered: link destinations need no URL normalization, and no scheme makes a link
  // reference definition invalid (markdown-it's XSS filter would turn `[x]: javascript:…` into a
  // paragraph, which CommonMark does not).
  md.normalizeLink = (url) => url;
  md.validateLink = () => true;
  // markdown-it's own rules, taken before any is wrapped; then the wrappers, in this order
  const orig = originalBlockRules(md);
  gfmTables(md, orig);
  quoteMarkerIndent(md, orig);
  htmlBlockEndsTable(md, orig);
  definitionsOpenParagraphs(md, orig);
  lazyLinesStartNoBlock(md);
  return md;
}

interface BlockRule {
  name: string;
  fn: RuleBlock;
  alt: string[];
}

/** markdown-it's block rules, to wrap some (it exports no rule functions). */
function blockRuleList(md: MarkdownIt): BlockRule[] {
  return (md.block.ruler as unknown as { __rules__?: BlockRule[] }).__rules__ ?? [];
}

type OriginalRules = Record<'table' | 'reference' | 'paragraph' | 'lheading' | 'htmlBlock' | 'blockquote' | 'fence' | 'hr' | 'list' | 'heading', RuleBlock>;

/** The block rule functions of markdown-it that the wrappers below call. */
function originalBlockRules(md: MarkdownIt): OriginalRules {
  const rules = blockRuleList(md);
  function blockRule(name: string): RuleBlock {
    const fn = rules.find((r) => r.name === name)?.fn;
    if (!fn) throw new Error(`markdown-it has no block rule ${name}`);
    return fn;
  }
  return {
    table: blockRule('table'),
    reference: blockRule('reference'),
    paragraph: blockRule('paragraph'),
    lheading: blockRule('lheading'),
    htmlBlock: blockRule('html_block'),
    blockquote: blockRule('blockquote'),
    fence: blockRule('fence'),
    hr: blockRule('hr'),
    list: blockRule('list'),
    heading: blockRule('heading'),
  };
}

function gfmTables(md: MarkdownIt, orig: OriginalRules): void {
  // GFM as GitHub (and micromark) read it: a table's header row is paragraph text, so no line that
  // starts another block (`~~~ |`, `# a | b`, `> a | b`, `- a | b` …) is one; a delimiter row
  // with neither `|` nor `:` (`---`) is a setext underline or a thematic break (markdown-it tries
  // tables first, and would make `a |` + `--` a table); a header row needs no `|` (`abc` + `:-`
  // is a table of one column, which markdown-it does not read).
  const otherStarts = [orig.fence, orig.blockquote, orig.hr, orig.list, orig.heading, orig.htmlBlock];
  md.block.ruler.at(
    'table',
    (state, startLine, endLine, silent) => {
      if (!orig.table(state, startLine, endLine, true)) return pipelessTable(state, startLine, endLine, silent, otherStarts);
      const row = state.src.slice(state.bMarks[startLine + 1] + state.tShift[startLine + 1], state.eMarks[startLine + 1]);
      if (!row.includes('|') && !row.includes(':')) return false;
      if (otherStarts.some((rule) => rule(state, startLine, endLine, true))) return false;
      return silent || orig.table(state, startLine, endLine, false);
    },
    { alt: ['paragraph', 'reference'] },
  );
}

/** A one-column table whose header row has no `|`: its extent, as markdown-it's table rule finds it. */
function pipelessTable(state: StateBlock, startLine: number, endLine: number, silent: boolean, otherStarts: RuleBlock[]): boolean {
  const l = startLine + 1;
  if (l >= endLine || state.sCount[startLine] - state.blkIndent >= 4) return false;
  if (state.sCount[l] < state.blkIndent || state.sCount[l] - state.blkIndent >= 4) return false;
  const line = (i: number) => state.src.slice(state.bMarks[i] + state.tShift[i], state.eMarks[i]);
  // One delimiter cell with a `|` or a `:`; `- |` is a list item.
  const delimiter = line(l);
  if (line(startLine).includes('|') || /^-[ \t]/.test(delimiter)) return false;
  if (!/^(?:\|[ \t]*:?-+:?|:-+:?|:?-+:?[ \t]*\|)[ \t]*\|?[ \t]*$/.test(delimiter)) return false;
  if (otherStarts.some((rule) => rule(state, startLine, endLine, true))) return false;
  if (silent) return true;
  const parentType = state.parentType;
  state.parentType = 'table' as typeof parentType;
  const terminators = state.md.block.ruler.getRules('blockquote');
  let next = startLine + 2;
  for (; next < endLine; next++) {
    if (state.sCount[next] < state.blkIndent || state.isEmpty(next) || state.sCount[next] - state.blkIndent >= 4) break;
    if (terminators.some((rule) => rule(state, next, endLine, true))) break;
  }
  state.parentType = parentType;
  state.push('table_open', 'table', 1).map = [startLine, next];
  state.push('table_close', 'table', -1);
  state.line = next;
  return true;
}

function quoteMarkerIndent(md: MarkdownIt, orig: OriginalRules): void {
  // CommonMark: a `>` indented 4 or more is no block quote marker; its line is a lazy
  // continuation (or, after an empty quote line, no part of the quote). markdown-it checks the
  // indentation on a quote's first line only: hide such a `>` from it, pointing the line's
  // content start at the blank before it, for the time the rule runs.
  md.block.ruler.at(
    'blockquote',
    (state, startLine, endLine, silent) => {
      if (silent) return orig.blockquote(state, startLine, endLine, silent);
      const hidden: number[] = [];
      for (let l = startLine + 1; l < endLine && !state.isEmpty(l); l++) {
        if (state.sCount[l] - state.blkIndent >= 4 && state.src.charCodeAt(state.bMarks[l] + state.tShift[l]) === 0x3e) {
          state.tShift[l]--;
          hidden.push(l);
        }
      }
      try {
        return orig.blockquote(state, startLine, endLine, silent);
      } finally {
        for (const l of hidden) state.tShift[l]++;
      }
    },
    { alt: ['paragraph', 'reference', 'blockquote', 'list'] },
  );
}

function htmlBlockEndsTable(md: MarkdownIt, orig: OriginalRules): void {
  // GFM as micromark reads it: a table is no paragraph, so any HTML block ends it, `<b>` too (an
  // HTML block that cannot interrupt a paragraph); markdown-it would take the line as a row.
  md.block.ruler.at(
    'html_block',
    (state, startLine, endLine, silent) => {
      if (!silent || (state.parentType as string) !== 'table') return orig.htmlBlock(state, startLine, endLine, silent);
      // Asked whether one starts here, without the paragraph restriction: try it, then undo it.
      const [line, count] = [state.line, state.tokens.length];
      const starts = orig.htmlBlock(state, startLine, endLine, false);
      state.line = line;
      state.tokens.length = count;
      return starts;
    },
    { alt: ['paragraph', 'reference', 'blockquote'] },
  );
}

function definitionsOpenParagraphs(md: MarkdownIt, orig: OriginalRules): void {
  // CommonMark reads link reference definitions off the start of a paragraph: a line right after
  // a definition that cannot interrupt a paragraph continues that paragraph — which may then be a
  // setext heading, spanning the definitions too (as in mdast). markdown-it starts a new block
  // there instead: an indented line would be code, `<custom-tag>` an HTML block, `2.` a list.
  md.block.ruler.at('reference', (state, startLine, endLine, silent) => {
    if (!orig.reference(state, startLine, endLine, silent)) return false;
    if (silent) return true;
    const defs = (state.env as Env).definitions;
    if (state.level === 0) defs.push(startLine);
    for (;;) {
      const l = state.line;
      if (l >= endLine || state.isEmpty(l)) return true;
      // As markdown-it's paragraph rule: a line indented 4 or more, or already lazy in a block
      // quote (sCount -1), continues the paragraph; another may start a block or a definition.
      if (state.sCount[l] < 0 || state.sCount[l] - state.blkIndent >= 4) break;
      if (orig.reference(state, l, endLine, false)) {
        if (state.level === 0) defs.push(l);
        continue;
      }
      const parentType = state.parentType;
      state.parentType = 'paragraph';
      const interrupts = state.md.block.ruler.getRules('paragraph').some((rule) => rule(state, l, endLine, true));
      state.parentType = parentType;
      if (interrupts) return true;
      break;
    }
    // A continuation line: lheading takes it even indented (as a paragraph's later line would be).
    const l = state.line;
    const sCount = state.sCount[l];
    state.sCount[l] = state.blkIndent;
    const heading = orig.lheading(state, l, endLine, false);
    state.sCount[l] = sCount;
    if (!heading) orig.paragraph(state, l, endLine, false);
    else if (!/^(?:=+|-+)[ \t]*$/.test(state.src.slice(state.bMarks[l] + state.tShift[l], state.eMarks[l]))) {
      // As micromark: unless its first line looks like an underline itself (`[a]: /u` + `-` + `=`).
      state.tokens[state.tokens.length - 3].map![0] = startLine;
    }
    return true;
  });
}

function lazyLinesStartNoBlock(md: MarkdownIt): void {
  // A line a block quote has taken as a lazy continuation (sCount -1) can end no block inside it:
  // the outer quote already found, at the line's real indentation, that it starts none.
  // markdown-it checks it again in a nested quote with the indentation lost, so in
  // `> > a` + `> b` + `    c` the indented `c` would start a block (code, or a fence …).
  for (const r of blockRuleList(md).filter((x) => x.alt.includes('blockquote'))) {
    const fn = r.fn;
    md.block.ruler.at(r.name, (state, startLine, endLine, silent) => !(silent && state.sCount[startLine] < 0) && fn(state, startLine, endLine, silent), {
      alt: r.alt,
    });
  }
}

let parser: MarkdownIt | undefined;
/** The parser, set up on first use: loading this module (the CLI's i18n path does) costs nothing. */
const mdParser = (): MarkdownIt => (parser ??= createParser());


export function chunkMarkdown(ctx: ChunkContext, _opts: ResolvedOptions): ChunkerOutput {
  const doc = parseMarkdown(ctx);
  const out: Chunk[] = [];
  // Front matter: its own chunk; its title may stand for a missing H1.
  const base: { depth: number; text: string }[] = [];
  let from = 0;
  if (doc.fm) {
    out.push(...frontMatterChunks(ctx, doc.fm));
    const title = frontMatterTitle(doc.fm.format, doc.fm.value);
    if (title && !doc.tokens.some((t) => t.type === 'heading_open' && t.level === 0 && t.tag === 'h1')) base.push({ depth: 0, text: title });
    from = doc.fm.end;
  }
  const sections = sectionsOf(ctx, doc, base, from);
  // Section chunks first (ids come from content), then the code blocks, then the links.
  const made = sections.map((s) => {
    const header = breadcrumb(ctx, s.path);
    const symbol = s.path.length ? s.path.join(' > ') : undefined;
    const pieces = ctx.emitUnit({ kind: 'section', start: s.start, end: s.end, header, symbol, complete: true }, s.boundaries, s.codes);
    return { s, header, symbol, pieces };
  });
  for (const { s, header, symbol, pieces } of made) out.push(...withCodeBlocks(ctx, s.codes, header, symbol, pieces));
  return { chunks: out };
}

/** A parsed Markdown file: its front matter, the rest's tokens (parsed alone), and the line the rest starts at. */
interface ParsedMarkdown {
  fm: FrontMatter | undefined;
  /** The line the parsed text starts at: token lines are shifted by it. */
  firstLine: number;
  env: Env;
  tokens: Token[];
}

/** Parses the file, its front matter left out: the rest is parsed alone, its line numbers shifted by the front matter's lines. */
function parseMarkdown(ctx: ChunkContext): ParsedMarkdown {
  const text = ctx.text;
  const fm = frontMatter(ctx);
  const firstLine = fm ? fm.lines : 0;
  const env: Env = { definitions: [], tokens: [] };
  let tokens: Token[];
  try {
    tokens = env.tokens = mdParser().parse(firstLine ? text.slice(ctx.src.lineStarts[firstLine] ?? text.length) : text, env);
  } catch (err) {
    throw new FallbackError(`Markdown parse failed: ${errText(err)}`);
  }
  return { fm, firstLine, env, tokens };
}

function frontMatterChunks(ctx: ChunkContext, fm: FrontMatter): Chunk[] {
  return ctx.emitUnit({
    kind: 'front-matter',
    start: 0,
    end: fm.end,
    header: `${ctx.path} > front matter`,
    symbol: 'front matter',
    complete: true,
    meta: { format: fm.format },
  });
}

/**
 * The sections that tile the file from `from`: [from, first heading), [heading, next heading) …,
 * each with its heading path (under `base`), its cut points (its top-level blocks, and the link
 * reference definitions, which leave no token) and its code blocks.
 */
function sectionsOf(ctx: ChunkContext, { firstLine, env, tokens }: ParsedMarkdown, base: { depth: number; text: string }[], from: number): Section[] {
  const text = ctx.text;
  const stack = [...base];
  const sections: Section[] = [];
  let cur: Section = { start: from, end: text.length, path: stack.map((s) => s.text), boundaries: [], codes: [] };
  const defs = env.definitions;
  let d = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'fence' || t.type === 'code_block') {
      const code = codeRange(ctx, t, firstLine);
      if (code) cur.codes.push(code);
    }
    if (t.level !== 0 || t.nesting === -1 || !t.map) continue;
    const first = t.map[0] + firstLine;
    while (d < defs.length && defs[d] + firstLine < first) cur.boundaries.push(lineContentStart(ctx, defs[d++] + firstLine));
    const start = lineContentStart(ctx, first);
    if (t.type === 'heading_open') {
      cur.end = start;
      sections.push(cur);
      const depth = Number(t.tag.slice(1));
      while (stack.length && stack[stack.length - 1].depth >= depth) stack.pop();
      stack.push({ depth, text: headingText(tokens[i + 1], env) });
      cur = { start, end: text.length, path: stack.map((s) => s.text), boundaries: [], codes: [] };
    } else {
      cur.boundaries.push(start);
    }
  }
  while (d < defs.length) cur.boundaries.push(lineContentStart(ctx, defs[d++] + firstLine));
  sections.push(cur);
  return sections;
}

/** A section's pieces, each followed by the code blocks it holds; pieces and code blocks link to each other. */
function withCodeBlocks(ctx: ChunkContext, codes: CodeRange[], header: string, symbol: string | undefined, pieces: Chunk[]): Chunk[] {
  const out: Chunk[] = [];
  const codesOf = new Map<Chunk, string[]>();
  let p = 0;
  const blocksHere: Chunk[] = [];
  for (const c of codes) {
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
  return out;
}

/** Offset of the first non-whitespace character of line `li` (its end if there is none). */
function lineContentStart(ctx: ChunkContext, li: number): number {
  const text = ctx.text;
  const end = ctx.src.lineEnd(li);
  let p = ctx.src.lineStarts[li];
  while (p < end && isWs(text.charCodeAt(p))) p++;
  return p;
}

/**
 * The exact, trimmed range of a `fence` or `code_block` token at any depth. Its first line may
 * carry container prefixes (`> `, `- `, `1. `): a fence starts at its marker (backticks and
 * tildes never occur in a prefix), an indented block where its first content line — the
 * line's tail — starts. It ends at its last line's end, trimmed: the closing marker, else the
 * last content line (an unclosed fence in a block quote keeps a last `>` line, as in mdast).
 */
function codeRange(ctx: ChunkContext, t: Token, lineBase: number): CodeRange | undefined {
  const { text, src } = ctx;
  const [first, endLine] = [t.map![0] + lineBase, t.map![1] + lineBase];
  let start: number;
  if (t.type === 'fence') {
    start = text.indexOf(t.markup, src.lineStarts[first]);
    if (start < 0 || start >= src.lineEnd(first)) throw new FallbackError(`fence marker not found on line ${first + 1}`);
  } else {
    const nl = t.content.indexOf('\n');
    const line = nl < 0 ? t.content : t.content.slice(0, nl);
    let k = 0;
    while (k < line.length && isWs(line.charCodeAt(k))) k++;
    start = src.lineEnd(first) - (line.length - k);
  }
  let end = src.lineEnd(endLine - 1);
  while (end > start && isWs(text.charCodeAt(end - 1))) end--;
  if (start >= end) return undefined;
  const code: CodeRange = { start, end };
  if (t.type === 'fence') {
    // As CommonMark: the info string's first word is the language, the rest its meta; both
    // with backslash escapes and character references decoded.
    const info = t.info.trim();
    const ws = info.search(/[ \t]/);
    const lang = mdParser().utils.unescapeAll(ws < 0 ? info : info.slice(0, ws));
    const rest = ws < 0 ? '' : mdParser().utils.unescapeAll(info.slice(ws).trim());
    if (lang) code.lang = lang;
    if (rest) code.info = rest;
  }
  return code;
}

/**
 * A heading's plain text: its inline content parsed by markdown-it's inline parser (with the
 * document's link references), then text, escapes, entities and code spans kept, emphasis,
 * strikethrough and link markup dropped (a link or an image stands for its text), inline HTML
 * dropped, whitespace collapsed. A GFM footnote call (`[^1]`) whose footnote the document
 * defines is dropped too, as mdast has it: a reference without text.
 */
function headingText(inline: Token | undefined, env: Env): string {
  let s = '';
  if (inline && inline.type === 'inline') {
    // First the footnotes, out of the link references: `[^1]` must not parse as a link.
    if (inline.content.includes('[^')) footnotes(env);
    const children: Token[] = [];
    const md = mdParser();
    md.inline.parse(inline.content, md, env, children);
    s = plainText(children, env);
  }
  return s.replace(/\s+/g, ' ').trim() || '(untitled)';
}

const FOOTNOTE_CALL = /\[\^([^\]\s]+)\]/g;
const FOOTNOTE_DEFINITION = /^[ \t]*\[\^([^\]\s]+)\]:/gm;

function plainText(tokens: Token[], env: Env): string {
  let s = '';
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
        s += t.content.includes('[^') ? dropFootnoteCalls(t.content, env) : t.content;
        break;
      case 'text_special':
      case 'code_inline':
        s += t.content;
        break;
      case 'softbreak':
      case 'hardbreak':
        s += ' ';
        break;
      case 'image':
        s += plainText(t.children ?? [], env);
        break;
      default:
      // Markup (`*_open`, `*_close`) and html_inline: no text.
    }
  }
  return s;
}

function dropFootnoteCalls(text: string, env: Env): string {
  return text.replace(FOOTNOTE_CALL, (call, label: string) => (footnotes(env).has(label.toLowerCase()) ? '' : call));
}

/**
 * The footnote labels the document defines, lowercase. A `[^x]: url` line, which markdown-it
 * takes for a link reference definition, is a footnote definition to GFM: it leaves the link
 * references, so that `[^x]` parses as text, not as a link.
 */
function footnotes(env: Env): Set<string> {
  if (!env.footnotes) {
    env.footnotes = new Set();
    // markdown-it reads a footnote definition as a paragraph (`[^1]: text`) or, given a URL, as a
    // link reference definition (`[^1]: https://…`, label `^1`).
    const tokens = env.tokens;
    for (let i = 1; i < tokens.length; i++) {
      const t = tokens[i];
      if (t.type === 'inline' && tokens[i - 1].type === 'paragraph_open' && t.content.includes('[^')) {
        for (const m of t.content.matchAll(FOOTNOTE_DEFINITION)) env.footnotes.add(m[1].toLowerCase());
      }
    }
    const refs = env.references ?? {};
    for (const label of Object.keys(refs)) {
      if (label.startsWith('^')) {
        env.footnotes.add(label.slice(1).toLowerCase());
        // A footnote call, not a link to its URL.
        delete refs[label];
      }
    }
  }
  return env.footnotes;
}

interface FrontMatter {
  format: 'yaml' | 'toml';
  /** End of the closing marker line. */
  end: number;
  /** Lines it spans, the closing marker's included: the document proper starts at this line. */
  lines: number;
  /** Between the marker lines. */
  value: string;
}

/**
 * Front matter as micromark-extension-frontmatter reads it: `---` (YAML) or `+++` (TOML) at
 * the very start, only spaces or tabs after it on its line, which must end; closed by the same
 * marker alone on a line (trailing spaces or tabs allowed); unclosed, it is no front matter.
 */
function frontMatter(ctx: ChunkContext): FrontMatter | undefined {
  const { text, src } = ctx;
  const c = text.charCodeAt(0);
  if ((c !== 45 && c !== 43) || src.lineCount < 2) return undefined;
  const marker = c === 45 ? '---' : '+++';
  const isMarker = (li: number) => {
    const s = src.lineStarts[li];
    const e = src.lineEnd(li);
    return text.startsWith(marker, s) && isBlankOrTabs(text, s + 3, e);
  };
  if (!isMarker(0)) return undefined;
  for (let li = 1; li < src.lineCount; li++) {
    if (isMarker(li)) {
      return {
        format: c === 45 ? 'yaml' : 'toml',
        end: src.lineEnd(li),
        lines: li + 1,
        value: li > 1 ? text.slice(src.lineStarts[1], src.lineEnd(li - 1)) : '',
      };
    }
  }
  return undefined;
}

function isBlankOrTabs(text: string, start: number, end: number): boolean {
  if (start > end) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
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
