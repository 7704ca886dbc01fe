import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { chunkFile, type Chunk, type FileChunks } from '../../src/chunkers/index';
import { frontMatterTitle } from '../../src/chunkers/markdown';
import { trimRange } from '../../src/parse/source-text';
import { checkAll } from '../helpers/invariants';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'markdown');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

/** The only overlap allowed: a code block inside the section chunk it is linked to. */
const mayNest = (inner: Chunk, outer: Chunk) =>
  inner.kind === 'code-block' && outer.kind === 'section' && inner.links?.section === outer.id;

/** Over budget only a code block (never cut) or a section piece that is exactly one oversize fence. */
const mayExceedIn = (chunks: Chunk[]) => (c: Chunk) =>
  c.kind === 'code-block' ||
  (c.kind === 'section' &&
    chunks.some((d) => d.kind === 'code-block' && d.links?.section === c.id && d.start.offset === c.start.offset && d.end.offset === c.end.offset));

interface MdNode {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: MdNode[];
}

/** The oracle: the same CommonMark + GFM + front matter parse, read independently of the chunker. */
function parse(text: string): MdNode {
  const root = fromMarkdown(text, {
    extensions: [frontmatter(['yaml', 'toml']), gfm()],
    mdastExtensions: [frontmatterFromMarkdown(['yaml', 'toml']), gfmFromMarkdown()],
  }) as MdNode;
  // micromark-extension-frontmatter bug: a first line `---` or `+++` that is never closed is
  // tried as front matter up to the end of the file, a concrete construct, so micromark starts
  // no list or block quote on any later line (they come out as paragraphs, their headings at
  // the top level); the attempt fails at the end but those decisions stay. Without front
  // matter, the parse without the extension is the CommonMark + GFM one.
  const first = root.children?.[0]?.type;
  if (first !== 'yaml' && first !== 'toml' && /^(?:---|\+\+\+)/.test(text)) {
    return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MdNode;
  }
  return root;
}

/**
 * The code nodes under `node` as ranges, in document order. micromark splits an indented code
 * block that starts on the line closing a container (`> # h` + `    a` + `    b`, or after an
 * empty list item) into one node per line, where CommonMark (commonmark.js, markdown-it) has
 * one block: indented siblings with only whitespace between — never two blocks in CommonMark,
 * the first would take the second — are joined back. An indented node starts at its indent, a
 * fenced one at its fence.
 */
function codeRanges(node: MdNode, text: string, out: { start: number; end: number }[] = []): { start: number; end: number }[] {
  let prev: { start: number; end: number } | undefined;
  for (const c of node.children ?? []) {
    if (c.type !== 'code') {
      prev = undefined;
      codeRanges(c, text, out);
      continue;
    }
    const r = { start: c.position!.start.offset!, end: c.position!.end.offset! };
    const indented = /[ \t]/.test(text[r.start] ?? '');
    if (prev && indented && !/\S/.test(text.slice(prev.end, r.start))) prev.end = r.end;
    else {
      out.push(r);
      prev = indented ? r : undefined;
    }
  }
  return out;
}

/**
 * Everything a Markdown result must satisfy, as a list of violations: the generic invariants,
 * no fallback, code fences whole and bound both ways to the one section chunk holding them,
 * sections starting at every top-level heading and never crossing one.
 */
function checkMarkdown(source: string, result: FileChunks, maxTokens: number): string[] {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const chunks = result.chunks;
  const out = checkAll(source, result, maxTokens, { mayNest, mayExceed: mayExceedIn(chunks) });
  if (result.fallback !== undefined) return [`fell back: ${result.fallback}`, ...out];
  if (result.skipped) return out;
  const byId = new Map(chunks.map((c) => [c.id, c]));
  if (byId.size !== chunks.length) out.push('duplicate ids');
  const sections = chunks.filter((c) => c.kind === 'section');
  const blocks = chunks.filter((c) => c.kind === 'code-block');
  for (const c of chunks) {
    if (!['section', 'code-block', 'front-matter'].includes(c.kind)) out.push(`${c.id}: unexpected kind ${c.kind}`);
    if (c.complete !== (c.split === undefined)) out.push(`${c.id}: complete ${c.complete} but split ${JSON.stringify(c.split)}`);
  }
  // Both-way links.
  for (const b of blocks) {
    const s = b.links?.section ? byId.get(b.links.section) : undefined;
    if (!s || s.kind !== 'section') out.push(`${b.id}: code block not linked to a section chunk`);
    else {
      if (!(s.start.offset <= b.start.offset && b.end.offset <= s.end.offset)) out.push(`${b.id}: not inside its section ${s.id}`);
      if (!s.links?.codeBlocks?.includes(b.id)) out.push(`${b.id}: its section ${s.id} does not list it`);
      if (b.symbol !== s.symbol) out.push(`${b.id}: symbol ${b.symbol} differs from its section's ${s.symbol}`);
      if (!b.header.startsWith(`${s.header} [code`)) out.push(`${b.id}: header ${b.header} does not extend ${s.header}`);
    }
    if (b.split) out.push(`${b.id}: a code block was cut`);
  }
  for (const s of sections) {
    for (const id of s.links?.codeBlocks ?? []) {
      if (byId.get(id)?.links?.section !== s.id) out.push(`${s.id}: lists ${id}, which does not name it back`);
    }
    if (s.links?.codeBlocks?.length === 0) out.push(`${s.id}: empty codeBlocks list`);
  }
  // Code fences never cut: each code node (trimmed) is exactly one code-block chunk and lies in one section chunk.
  const root = parse(text);
  const codes = codeRanges(root, text).map((r) => trimRange(text, r.start, r.end));
  if (codes.length !== blocks.length) out.push(`${codes.length} code nodes but ${blocks.length} code-block chunks`);
  for (const r of codes) {
    const same = blocks.filter((b) => b.start.offset === r.start && b.end.offset === r.end);
    const holders = sections.filter((s) => s.start.offset <= r.start && r.end <= s.end.offset);
    const touching = sections.filter((s) => s.start.offset < r.end && r.start < s.end.offset);
    if (same.length !== 1) out.push(`code node [${r.start},${r.end}) is ${same.length} code-block chunks`);
    if (holders.length !== 1 || touching.length !== 1) out.push(`code node [${r.start},${r.end}) is cut across section chunks`);
    else if (same.length === 1 && same[0].links?.section !== holders[0].id) out.push(`code node [${r.start},${r.end}) linked to another section`);
  }
  // Sections: every top-level heading starts a section chunk; no section chunk crosses one.
  for (const h of (root.children ?? []).filter((n) => n.type === 'heading')) {
    const at = h.position!.start.offset!;
    if (!sections.some((s) => s.start.offset === at)) out.push(`no section chunk starts at the heading at ${at}`);
    const crossing = chunks.find((c) => c.kind !== 'code-block' && c.start.offset < at && at < c.end.offset);
    if (crossing) out.push(`${crossing.id} crosses the heading at ${at}`);
  }
  const fm = root.children?.[0];
  const fmChunks = chunks.filter((c) => c.kind === 'front-matter');
  if (fm && (fm.type === 'yaml' || fm.type === 'toml')) {
    if (!fmChunks.length || fmChunks[0].start.offset !== 0) out.push('front matter is not a front-matter chunk at 0');
  } else if (fmChunks.length) out.push('front-matter chunk without front matter');
  return out;
}

function chunk(file: string, source: string, maxTokens = 256): FileChunks {
  const result = chunkFile(file, source, { maxTokens });
  const violations = checkMarkdown(source, result, maxTokens);
  assert.deepEqual(violations, [], `${file}: ${violations.slice(0, 5).join('; ')}`);
  return result;
}

interface Row {
  kind: string;
  symbol?: string;
  header: string;
  lines: [number, number];
  split?: [number, number];
  meta?: Record<string, unknown>;
  /** Indices (in the result) of the code blocks a section lists. */
  codeBlocks?: number[];
  /** Index (in the result) of the section a code block names. */
  section?: number;
}

/** A result as comparable rows, ids replaced by indices so links can be written down. */
function rows(result: FileChunks): Row[] {
  const index = new Map(result.chunks.map((c, i) => [c.id, i]));
  return result.chunks.map((c) => {
    const r: Row = { kind: c.kind, header: c.header, lines: [c.start.line, c.end.line] };
    if (c.symbol !== undefined) r.symbol = c.symbol;
    if (c.split) r.split = [c.split.index, c.split.total];
    if (c.meta) r.meta = c.meta;
    if (c.links?.codeBlocks) r.codeBlocks = c.links.codeBlocks.map((id) => index.get(id)!);
    if (c.links?.section) r.section = index.get(c.links.section);
    return r;
  });
}

const README_ROWS: Row[] = [
  { kind: 'front-matter', symbol: 'front matter', header: 'README.md > front matter', lines: [1, 5], meta: { format: 'yaml' } },
  { kind: 'section', symbol: 'Fathom', header: 'README.md > Fathom', lines: [7, 11] },
  { kind: 'section', symbol: 'Fathom > Installation', header: 'README.md > Fathom > Installation', lines: [13, 20], codeBlocks: [3] },
  { kind: 'code-block', symbol: 'Fathom > Installation', header: 'README.md > Fathom > Installation [code: sh]', lines: [17, 20], meta: { lang: 'sh' }, section: 2 },
  {
    kind: 'section',
    symbol: 'Fathom > Installation > Building from source',
    header: 'README.md > Fathom > Installation > Building from source',
    lines: [22, 30],
    codeBlocks: [5],
  },
  {
    kind: 'code-block',
    symbol: 'Fathom > Installation > Building from source',
    header: 'README.md > Fathom > Installation > Building from source [code: bash]',
    lines: [26, 30],
    meta: { lang: 'bash' },
    section: 4,
  },
  // Inline code in a heading is its plain text; the fence inside the ordered list is a code block;
  // the `### Note` inside the block quote is not a section.
  { kind: 'section', symbol: 'Fathom > Using the fathom CLI', header: 'README.md > Fathom > Using the fathom CLI', lines: [32, 45], codeBlocks: [7] },
  {
    kind: 'code-block',
    symbol: 'Fathom > Using the fathom CLI',
    header: 'README.md > Fathom > Using the fathom CLI [code: sh]',
    lines: [37, 39],
    meta: { lang: 'sh' },
    section: 6,
  },
  // Setext H2, with a GFM table and a task list.
  { kind: 'section', symbol: 'Fathom > Configuration', header: 'README.md > Fathom > Configuration', lines: [47, 56] },
  // Four paragraphs over budget: cut between paragraphs, two and two.
  { kind: 'section', symbol: 'Fathom > How chunking works', header: 'README.md > Fathom > How chunking works', lines: [58, 68], split: [0, 2] },
  { kind: 'section', symbol: 'Fathom > How chunking works', header: 'README.md > Fathom > How chunking works', lines: [70, 77], split: [1, 2] },
  // A TypeScript fence over budget: a piece of its own, whole, and a code block of its own.
  {
    kind: 'section',
    symbol: 'Fathom > How chunking works > The chunk model',
    header: 'README.md > Fathom > How chunking works > The chunk model',
    lines: [79, 81],
    split: [0, 3],
  },
  {
    kind: 'section',
    symbol: 'Fathom > How chunking works > The chunk model',
    header: 'README.md > Fathom > How chunking works > The chunk model',
    lines: [83, 114],
    split: [1, 3],
    codeBlocks: [13],
  },
  {
    kind: 'code-block',
    symbol: 'Fathom > How chunking works > The chunk model',
    header: 'README.md > Fathom > How chunking works > The chunk model [code: ts]',
    lines: [83, 114],
    meta: { lang: 'ts' },
    section: 12,
  },
  {
    kind: 'section',
    symbol: 'Fathom > How chunking works > The chunk model',
    header: 'README.md > Fathom > How chunking works > The chunk model',
    lines: [116, 116],
    split: [2, 3],
  },
  // The HTML block and the link reference definition stay in their section.
  { kind: 'section', symbol: 'Fathom > License', header: 'README.md > Fathom > License', lines: [118, 127] },
];

describe('Markdown chunker', () => {
  describe('README fixture (front matter, H1–H3, setext, table, fences in several languages)', () => {
    const source = fixture('README.md');
    let result: FileChunks;
    before(() => {
      result = chunk('README.md', source);
    });

    it('gives exactly the expected chunks, links both ways', () => {
      assert.equal(result.language, 'markdown');
      assert.equal(result.fallback, undefined);
      assert.deepEqual(result.warnings, []);
      assert.deepEqual(rows(result), README_ROWS);
    });

    it('ignores the front matter title when the document has an H1', () => {
      assert.ok(result.chunks[0].text.includes('title: "Fathom: structure-aware search"'));
      assert.ok(result.chunks.every((c) => !c.header.includes('structure-aware search')));
    });

    it('keeps the oversize fence whole, over budget only there', () => {
      const c = result.chunks;
      assert.ok(c[13].text.startsWith('```ts\nexport interface Chunk {\n'));
      assert.ok(c[13].text.endsWith('\n}\n```'));
      assert.equal(c[12].text, c[13].text);
      assert.ok(c[13].tokens > 256 && c[12].tokens > 256);
      assert.deepEqual(
        c.filter((x) => x.tokens > 256).map((x) => c.indexOf(x)),
        [12, 13],
      );
    });

    it('makes code blocks exact slices of their fences, nested ones included', () => {
      const c = result.chunks;
      assert.equal(c[3].text, '```sh\nnpm install -g fathom\nfathom --version\n```');
      assert.equal(c[7].text, '```sh\n   fathom chunk src/extension.ts --json\n   ```');
      assert.equal(c[7].complete, true);
      assert.ok(c[6].text.includes('> ### Note'));
    });

    it('cuts a long section between paragraphs', () => {
      const [a, b] = [result.chunks[9], result.chunks[10]];
      assert.ok(a.text.startsWith('## How chunking works\n\nEvery file'));
      assert.ok(a.text.endsWith('The pieces keep the breadcrumb of their unit.'));
      assert.ok(b.text.startsWith('Each chunk carries a breadcrumb line'));
      assert.ok(b.text.endsWith('next to the code it found.'));
    });

    it('gives the same chunks for the CRLF + BOM variant', () => {
      const crlf = fixture('README.crlf-bom.md');
      assert.equal(crlf, `\uFEFF${source.replace(/\n/g, '\r\n')}`, 'fixture must keep its BOM and CRLF (see .gitattributes)');
      const r = chunk('README.md', crlf);
      assert.deepEqual(rows(r), README_ROWS);
      const body = crlf.slice(1);
      r.chunks.forEach((c, i) => {
        assert.equal(c.text, body.slice(c.start.offset, c.end.offset));
        assert.equal(c.text.replace(/\r\n/g, '\n'), result.chunks[i].text);
        assert.ok(!c.text.endsWith('\r'));
      });
    });

    it('is deterministic', () => {
      assert.deepEqual(chunkFile('README.md', source), result);
    });
  });

  describe('getting-started fixture (TOML front matter title, no H1)', () => {
    it('uses the title as the first breadcrumb element', () => {
      const result = chunk('docs/getting-started.md', fixture('getting-started.md'));
      const p = 'docs/getting-started.md';
      assert.deepEqual(rows(result), [
        { kind: 'front-matter', symbol: 'front matter', header: `${p} > front matter`, lines: [1, 7], meta: { format: 'toml' } },
        { kind: 'section', symbol: 'Getting started', header: `${p} > Getting started`, lines: [9, 9] },
        { kind: 'section', symbol: 'Getting started > Index a workspace', header: `${p} > Getting started > Index a workspace`, lines: [11, 15], codeBlocks: [3] },
        // An indented code block: no language, `[code]`.
        { kind: 'code-block', symbol: 'Getting started > Index a workspace', header: `${p} > Getting started > Index a workspace [code]`, lines: [15, 15], section: 2 },
        { kind: 'section', symbol: 'Getting started > Search', header: `${p} > Getting started > Search`, lines: [17, 17] },
        { kind: 'section', symbol: 'Getting started > Search > By name', header: `${p} > Getting started > Search > By name`, lines: [19, 21] },
        { kind: 'section', symbol: 'Getting started > Search > By meaning', header: `${p} > Getting started > Search > By meaning`, lines: [23, 27], codeBlocks: [7] },
        {
          kind: 'code-block',
          symbol: 'Getting started > Search > By meaning',
          header: `${p} > Getting started > Search > By meaning [code: python]`,
          lines: [25, 27],
          meta: { lang: 'python', info: 'title="query.py"' },
          section: 6,
        },
      ]);
      assert.equal(result.chunks[3].text, 'fathom index .');
    });
  });

  describe('sections', () => {
    it('makes the text before the first heading a section with the path as breadcrumb', () => {
      const r = chunk('notes.md', 'Just a note.\n\nAnother paragraph.\n');
      assert.deepEqual(rows(r), [{ kind: 'section', header: 'notes.md', lines: [1, 3] }]);
      assert.equal(r.chunks[0].symbol, undefined);
      assert.equal(r.chunks[0].complete, true);
    });

    it('follows the heading hierarchy, ATX and setext, popping levels', () => {
      const src = 'Top\n===\n\n### Deep\n\ntext\n\nMiddle\n------\n\n#### Deeper ####\n\n# Other\n\n## Leaf\n';
      const r = chunk('h.md', src);
      assert.deepEqual(
        r.chunks.map((c) => c.symbol),
        ['Top', 'Top > Deep', 'Top > Middle', 'Top > Middle > Deeper', 'Other', 'Other > Leaf'],
      );
      assert.equal(r.chunks[3].text, '#### Deeper ####');
    });

    it('renders headings as plain text', () => {
      const r = chunk('p.md', '# The `chunkFile` [entry](https://x.dev) is *really* <kbd>fast</kbd> ~~not~~\n\nbody\n\n#\n\nempty heading\n');
      assert.deepEqual(
        r.chunks.map((c) => c.header),
        ['p.md > The chunkFile entry is really fast not', 'p.md > (untitled)'],
      );
    });

    it('does not cut at headings inside lists, block quotes or code', () => {
      const src = '# A\n\n- # listed\n- item\n\n> ## quoted\n\n```md\n# fenced\n```\n\n    # indented\n\ntail\n';
      const r = chunk('n.md', src);
      assert.deepEqual(r.chunks.map((c) => [c.kind, c.symbol]), [
        ['section', 'A'],
        ['code-block', 'A'],
        ['code-block', 'A'],
      ]);
    });

    it('runs an unclosed fence to the end of the document, headings in it included', () => {
      const src = '# Setup\n\n```sh\nmake\n# not a heading\n\n## nor this\n';
      const r = chunk('u.md', src);
      assert.deepEqual(rows(r), [
        { kind: 'section', symbol: 'Setup', header: 'u.md > Setup', lines: [1, 7], codeBlocks: [1] },
        { kind: 'code-block', symbol: 'Setup', header: 'u.md > Setup [code: sh]', lines: [3, 7], meta: { lang: 'sh' }, section: 0 },
      ]);
    });

    it('uses a YAML title only when there is no H1, for every section', () => {
      const doc = '---\ntitle: \'Ops "runbook"\' # shown in nav\n---\n\nIntro.\n\n## Restart\n\nSteps.\n';
      assert.deepEqual(chunk('ops.md', doc).chunks.map((c) => c.header), [
        'ops.md > front matter',
        'ops.md > Ops "runbook"',
        'ops.md > Ops "runbook" > Restart',
      ]);
      assert.deepEqual(chunk('ops.md', `${doc}\n# Real title\n`).chunks.map((c) => c.header), [
        'ops.md > front matter',
        'ops.md',
        'ops.md > Restart',
        'ops.md > Real title',
      ]);
    });

    it('splits a section with a long list at lines within the list, fence kept whole', () => {
      const items = Array.from({ length: 60 }, (_, i) => `- item ${i} explains one more option of the command line tool`).join('\n');
      const fence = '  ```js\n' + Array.from({ length: 8 }, (_, i) => `  call(${i});`).join('\n') + '\n  ```';
      const src = `## Options\n\n${items}\n- with code:\n\n${fence}\n- last item\n`;
      const r = chunk('l.md', src, 128);
      const pieces = r.chunks.filter((c) => c.kind === 'section');
      assert.ok(pieces.length > 3);
      assert.ok(pieces.every((c) => c.split && c.tokens <= 128));
      const block = r.chunks.find((c) => c.kind === 'code-block')!;
      assert.ok(block.text.startsWith('```js') && block.text.endsWith('```'));
      assert.equal(r.chunks[r.chunks.indexOf(block) - 1].links?.codeBlocks?.[0], block.id);
    });

    it('gives identical code blocks distinct ids', () => {
      const r = chunk('d.md', '# A\n\n```\nx\n```\n\n```\nx\n```\n');
      const ids = r.chunks.filter((c) => c.kind === 'code-block').map((c) => c.id);
      assert.equal(new Set(ids).size, 2);
      assert.deepEqual(r.chunks[0].links?.codeBlocks, ids);
    });

    it('shortens a breadcrumb that would eat the budget, keeping the full symbol', () => {
      const long = 'a heading that goes on and on about many different things';
      const src = `# ${long} one\n\n## ${long} two\n\n### ${long} three\n\nSome text.\n`;
      const r = chunk('s.md', src, 48);
      const last = r.chunks[r.chunks.length - 1];
      assert.equal(last.symbol, `${long} one > ${long} two > ${long} three`);
      assert.ok(last.header.startsWith('s.md > … > '), last.header);
      assert.ok(r.chunks.every((c) => c.tokens <= 48));
    });

    it('puts code in block quotes and indented code in lists into chunks of their own', () => {
      const src = '# Q\n\n> ```py\n> print(1)\n> ```\n\n1. step\n\n       indented code\n';
      const r = chunk('q.md', src);
      const blocks = r.chunks.filter((c) => c.kind === 'code-block').map((c) => c.text);
      assert.deepEqual(blocks, ['```py\n> print(1)\n> ```', 'indented code']);
    });
  });

  describe('hand-picked hard cases', () => {
    const cases: Record<string, string> = {
      tabs: '#\tTab heading\n\n\t```\n\tcode\n\t```\n\n-\tlist\n\n\t\tindented in list\n',
      'nested containers': '# N\n\n> - > ```\n>   > deep\n>   > ```\n>\n> 1. ~~~\n>    x\n',
      'one huge line': `# L\n\n${'many words on one line '.repeat(200)}\n`,
      'one huge word': `# 見出し\n\n${'漢'.repeat(1500)}\n\n${'😀'.repeat(400)}\n`,
      'huge heading': `# ${'word '.repeat(300)}\n\ntext\n`,
      'front matter only': '---\na: 1\n---\n',
      'front matter over budget': `---\n${'key: some value here\n'.repeat(150)}---\n# H\n`,
      mdx: 'import X from "./x"\n\n<X prop={1} />\n\n# Title\n\nexport const y = 1\n',
      'footnote with code': '# F\n\nText[^n].\n\n[^n]: Note.\n\n    ```js\n    in();\n    ```\n',
      'empty fence': '```\n```\n',
      'fences against headings': '# H\n```\nx\n```\n# H2\n~~~\n~~~\n## H3',
      'lone CR': '# A\r\rtext\r```\rcode\r```\r## B\r',
      'html with heading-like lines': '# H\n\n<pre>\n# not heading\n```\n</pre>\n\n<!--\n## hidden\n-->\n',
      'long table': `## T\n\n| k | v |\n|---|---|\n${Array.from({ length: 150 }, (_, i) => `| key${i} | value number ${i} |`).join('\n')}\n`,
      // markdown-it, corrected: a line after a link reference definition continues its paragraph
      // (a setext heading then starts at the definition); a lazy line in a nested quote stays lazy.
      'after definitions': '[a]: /x\n    not code\n\n[b]: /y\n[c]: /z\n  Title\n===\n\n> [d]: /u\n    lazy\n\n- [e]: /v\n<custom-tag>\n',
      'lazy nested quote': '# Q\n\n> > a\n> b\n    ```\n\n> > c\n> d\n    code\n\n    real code\n\n> q\n    >\n    not code\n',
      // GFM tables as GitHub reads them, which markdown-it does not by itself.
      'tables, GFM': 'abc\n:-\nrow\n    code\n\n~~~ |\n| ---\n~~~\n\n| a |\n|---|\n<b>\n```\nin html\n```\n\nx |\n--\n',
      'adjacent fences': `# A\n\n${Array.from({ length: 30 }, (_, i) => `\`\`\`${i % 2 ? 'js' : ''}\nline(${i});\n\`\`\``).join('\n')}\n`,
    };
    for (const [name, src] of Object.entries(cases)) {
      it(name, () => {
        for (const max of [40, 256]) chunk('hard/case.md', src, max);
      });
    }
  });

  describe('frontMatterTitle', () => {
    it('reads top-level YAML and TOML titles only', () => {
      assert.equal(frontMatterTitle('yaml', 'title: Hello world'), 'Hello world');
      assert.equal(frontMatterTitle('yaml', 'a: 1\ntitle: "Say \\"hi\\"" # c\r\nb: 2'), 'Say "hi"');
      assert.equal(frontMatterTitle('yaml', "title: 'It''s'"), "It's");
      assert.equal(frontMatterTitle('yaml', 'title: Plain # comment'), 'Plain');
      assert.equal(frontMatterTitle('yaml', 'meta:\n  title: nested'), undefined);
      assert.equal(frontMatterTitle('yaml', 'title: >\n  folded'), undefined);
      assert.equal(frontMatterTitle('yaml', 'title:'), undefined);
      assert.equal(frontMatterTitle('toml', 'title = "T"\n[x]\ntitle = "no"'), 'T');
      assert.equal(frontMatterTitle('toml', '[x]\ntitle = "no"'), undefined);
      assert.equal(frontMatterTitle('toml', "title = 'lit' # c"), 'lit');
    });
  });

  describe('properties', () => {
    const word = fc.constantFrom(
      'alpha', 'beta', 'gamma', 'chunk', 'fence', 'token', 'section', 'séance', '日本語', 'x',
      'run()', '`tick`', '*em*', '_u_', '[link](http://e.x)', '<b>', '\\#', '#', '##', '---', '```', '~~~', '|', '>', '-', '1.', '[^1]',
    );
    const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((a) => a.join(' '));
    const para = fc.array(words(1, 12), { minLength: 1, maxLength: 6 }).map((l) => l.join('\n'));
    const longPara = fc.array(words(8, 12), { minLength: 10, maxLength: 30 }).map((l) => l.join('\n'));
    const atx = fc.tuple(fc.integer({ min: 1, max: 6 }), words(0, 6), fc.boolean()).map(([n, t, close]) => `${'#'.repeat(n)} ${t}${close ? ' ' + '#'.repeat(n) : ''}`);
    const setext = fc.tuple(words(1, 5), fc.constantFrom('=', '-'), fc.integer({ min: 1, max: 6 })).map(([t, c, n]) => `${t}\n${c.repeat(n)}`);
    const codeLine = fc.oneof(words(0, 8), fc.constantFrom('# looks like a heading', '## also', 'Title', '===', '---', '', '  ', '```', '~~~~', '    indented', '> quote', '- item', '\tx = 1'));
    const fence = fc
      .record({
        ch: fc.constantFrom('```', '~~~', '````'),
        lang: fc.constantFrom('', 'js', 'ts', 'sh', 'python title="a.py"', 'c++', '{.rust}'),
        body: fc.array(codeLine, { maxLength: 12 }),
        long: fc.boolean(),
        closed: fc.boolean(),
      })
      .map(({ ch, lang, body, long, closed }) => {
        const lines = long ? [...body, ...Array.from({ length: 40 }, (_, i) => `const v${i} = compute(${i}, "value", { deep: [${i}] });`)] : body;
        return [`${ch}${lang}`, ...lines, ...(closed ? [ch] : [])].join('\n');
      });
    const indented = fc.array(words(1, 6), { minLength: 1, maxLength: 5 }).map((l) => l.map((x) => `    ${x}`).join('\n'));
    const indent = (s: string, pad: string) => s.split('\n').map((l) => (l ? pad + l : l)).join('\n');
    const list = fc
      .array(fc.tuple(words(1, 6), fc.option(fc.oneof(fence, atx, para), { nil: undefined })), { minLength: 1, maxLength: 5 })
      .chain((items) => fc.constantFrom('- ', '* ', '1. ').map((m) => ({ items, m })))
      .map(({ items, m }) => items.map(([t, sub]) => `${m}${t}${sub ? '\n\n' + indent(sub, ' '.repeat(m.length)) : ''}`).join('\n'));
    const quote = fc.oneof(atx, para, fence).map((s) => s.split('\n').map((l) => `> ${l}`).join('\n'));
    const table = fc.array(fc.tuple(words(1, 2), words(1, 3)), { minLength: 1, maxLength: 5 }).map((r) => ['| a | b |', '|---|:-:|', ...r.map(([x, y]) => `| ${x} | ${y} |`)].join('\n'));
    const html = fc.oneof(para.map((p) => `<div>\n${p}\n</div>`), fc.constant('<!-- a comment\n\n# not a heading -->'));
    // The footnote is closed by a paragraph: indented lines after it would be its content to GFM
    // (micromark), an indented code block to CommonMark (markdown-it has no footnotes).
    const misc = fc.constantFrom('[ref]: http://example.com "Title"', '***', '---', '[^1]: A footnote.\n\n    ```\n    in footnote\n    ```\n\nAfter the note.', '- [x] done\n- [ ] todo');
    const block = fc.oneof(
      { arbitrary: atx, weight: 4 },
      { arbitrary: setext, weight: 1 },
      { arbitrary: para, weight: 4 },
      { arbitrary: longPara, weight: 1 },
      { arbitrary: fence, weight: 3 },
      { arbitrary: indented, weight: 1 },
      { arbitrary: list, weight: 2 },
      { arbitrary: quote, weight: 1 },
      { arbitrary: table, weight: 1 },
      { arbitrary: html, weight: 1 },
      { arbitrary: misc, weight: 1 },
    );
    // Empty list items get a word: micromark reads some as paragraph text where CommonMark
    // (commonmark.js, markdown-it) has an empty item, and the lines after follow the misreading:
    // in a list item or quote that interrupts a paragraph (`a` + `- -`, `a` + `> 1.`), and after
    // an indented code block and a blank line (`-` + `=` there is a setext heading to micromark).
    const EMPTY_ITEM = /^((?:[ \t]*(?:>|[-*+]|\d{1,9}[.)])[ \t]+)*[ \t]*(?:[-*+]|\d{1,9}[.)]))[ \t]*$/gm;
    const THEMATIC_BREAK = /^[ \t>]*([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
    // A lone `<b>` gets a word too: micromark starts an HTML block at such a line where it is a
    // lazy continuation (`1. a` + `<b>` + `b`: one paragraph in the item for CommonMark).
    const LONE_TAG = /^([ \t>]*<b>)[ \t]*$/gm;
    const front = fc.constantFrom('', '---\ntitle: Generated\ntags: [a]\n---\n', '---\nlayout: page\n---\n', '+++\ntitle = "Toml"\n+++\n', '---\nunclosed: true\n');
    const doc = fc
      .record({
        bom: fc.boolean(),
        front,
        blocks: fc.array(fc.tuple(block, fc.constantFrom('\n\n', '\n\n', '\n', '\n\n\n', '\n \n')), { maxLength: 16 }),
        eol: fc.constantFrom('\n', '\n', '\r\n', '\r'),
        trail: fc.constantFrom('', '\n', '\n\n  \n'),
        maxTokens: fc.constantFrom(40, 64, 128, 256),
      })
      .map(({ bom, front, blocks, eol, trail, maxTokens }) => {
        const raw = front + blocks.map(([b, sep]) => b + sep).join('') + trail;
        const body = raw.replace(EMPTY_ITEM, (line, head: string) => (THEMATIC_BREAK.test(line) ? line : `${head} x`)).replace(LONE_TAG, '$1 x');
        return { source: (bom ? '\uFEFF' : '') + body.replace(/\n/g, eol), maxTokens };
      });

    it('never throws and keeps every invariant on generated documents', () => {
      fc.assert(
        fc.property(doc, ({ source, maxTokens }) => {
          const result = chunkFile('docs/gen.md', source, { maxTokens });
          const violations = checkMarkdown(source, result, maxTokens);
          if (violations.length) throw new Error(violations.slice(0, 5).join('\n'));
          // Deterministic, ids included.
          assert.deepEqual(chunkFile('docs/gen.md', source, { maxTokens }), result);
        }),
        { numRuns: 300 },
      );
    });

    it('chunks the same document alike whatever its line ends', () => {
      fc.assert(
        fc.property(doc, fc.constantFrom('\r\n', '\r'), ({ source, maxTokens }, eol) => {
          const lf = source.replace(/\r\n?/g, '\n');
          const a = chunkFile('docs/gen.md', lf, { maxTokens });
          const b = chunkFile('docs/gen.md', lf.replace(/\n/g, eol), { maxTokens });
          const shape = (r: FileChunks) => r.chunks.map((c) => [c.kind, c.symbol, c.header, c.start.line, c.end.line, c.split?.index, c.text.replace(/\r\n?/g, '\n')]);
          assert.deepEqual(shape(b), shape(a));
        }),
        { numRuns: 100 },
      );
    });
  });
});

describe('Markdown chunker: many identical blocks', function () {
  // Identical sections and code blocks share a content id and take suffixes -2, -3, …: probing
  // them from 2 for each made 20,000 identical headings take 44 s; now one pass.
  this.timeout(30_000);
  for (const [name, text, chunks] of [
    ['ATX headings', '# Same\n\nx\n\n'.repeat(20_000), 20_000],
    ['setext headings', 'Same\n====\n\n'.repeat(20_000), 20_000],
    ['bare fence lines', '```\n'.repeat(20_000), 10_244],
  ] as const) {
    it(`20,000 ${name}: every chunk, ids unique`, function () {
      const r = chunkFile('doc.md', text);
      assert.equal(r.chunks.length, chunks);
      assert.equal(new Set(r.chunks.map((c) => c.id)).size, r.chunks.length);
    });
  }
});
