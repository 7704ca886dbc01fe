/**
 * The fallback for any other text file, and for files whose own chunker gave up: paragraphs
 * (blank-line runs) are the natural cut, then lines, then words.
 */
import type { ChunkContext } from './context';
import { COMMENT_PREFIX, DEFAULT_COMMENT } from './languages';
import type { Chunk } from './types';

/** The breadcrumb line in the file's own comment syntax (languages.ts): `// a/b.js :: sym`, `# a/b.py`, `<!-- x -->`. */
export function commentHeader(language: string, body: string): string {
  const p = COMMENT_PREFIX[language] ?? DEFAULT_COMMENT;
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
