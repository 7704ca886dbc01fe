/**
 * The fallback for any other text file, and for files whose own chunker gave up: paragraphs
 * (blank-line runs) are the natural cut, then lines, then words.
 */
import type { ChunkContext } from './context';
import type { Chunk } from './types';

const COMMENT_PREFIX: Record<string, string> = {
  python: '#',
  ruby: '#',
  shellscript: '#',
  yaml: '#',
  toml: '#',
  perl: '#',
  r: '#',
  dockerfile: '#',
  makefile: '#',
  sql: '--',
  lua: '--',
  haskell: '--',
  html: '<!--',
  xml: '<!--',
  vue: '<!--',
  markdown: '',
  plaintext: '',
};

/** The breadcrumb line in the file's own comment syntax: `// a/b.js :: sym`, `# a/b.py`, `<!-- x -->`. */
export function commentHeader(language: string, body: string): string {
  const p = COMMENT_PREFIX[language] ?? '//';
  if (p === '<!--') return `<!-- ${body} -->`;
  return p ? `${p} ${body}` : body;
}

/** Offsets where a paragraph starts: the first line after a run of blank lines. */
export function paragraphStarts(text: string, start = 0, end = text.length): number[] {
  const out: number[] = [];
  const re = /(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)\s*/g;
  re.lastIndex = start;
  for (let m = re.exec(text); m && m.index < end; m = re.exec(text)) {
    const at = m.index + m[0].length;
    if (at < end) out.push(at);
  }
  return out;
}

export function chunkText(ctx: ChunkContext, range = { start: 0, end: ctx.text.length }): Chunk[] {
  const header = commentHeader(ctx.language, ctx.path);
  const pieces = ctx.pack(range, header, paragraphStarts(ctx.text, range.start, range.end));
  return pieces.map((p, index) =>
    ctx.make({
      kind: 'text',
      start: p.start,
      end: p.end,
      header,
      complete: false,
      split: pieces.length > 1 ? { index, total: pieces.length } : undefined,
    }),
  );
}
