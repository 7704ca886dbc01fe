/**
 * The chunk invariants of ARCHITECTURE.md as reusable checks. Each returns a list of
 * violations (empty = fine) so property tests can print the first counterexample.
 */
import * as jsonc from 'jsonc-parser';
import { SourceText } from '../parse/source-text';
import type { Chunk, FileChunks } from './types';

/** 1. Text is the exact slice; lines/columns agree with offsets. */
export function checkPositions(source: string, chunks: Chunk[]): string[] {
  const src = new SourceText(source);
  const out: string[] = [];
  for (const c of chunks) {
    if (source.slice(c.start.offset, c.end.offset) !== c.text) out.push(`${c.id}: text is not source.slice(start, end)`);
    for (const p of [c.start, c.end]) {
      const q = src.position(p.offset);
      if (q.line !== p.line || q.column !== p.column) out.push(`${c.id}: position ${JSON.stringify(p)} should be ${JSON.stringify(q)}`);
    }
  }
  return out;
}

/** 2a. No two chunks overlap, except those allowed to nest (a code block inside its section). */
export function checkNoOverlap(chunks: Chunk[], mayNest: (inner: Chunk, outer: Chunk) => boolean = () => false): string[] {
  const out: string[] = [];
  const sorted = [...chunks].sort((a, b) => a.start.offset - b.start.offset || b.end.offset - a.end.offset);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j].start.offset < sorted[i].end.offset; j++) {
      const a = sorted[i];
      const b = sorted[j];
      const nested = b.end.offset <= a.end.offset && mayNest(b, a);
      if (!nested) out.push(`${a.id} [${a.start.offset},${a.end.offset}) overlaps ${b.id} [${b.start.offset},${b.end.offset})`);
    }
  }
  return out;
}

/** 2b. Every non-whitespace character of [from, to) lies inside some chunk. */
export function checkCoverage(source: string, chunks: Chunk[], from = 0, to = source.length): string[] {
  const covered = new Uint8Array(source.length + 1);
  for (const c of chunks) covered.fill(1, c.start.offset, c.end.offset);
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    if (!covered[i] && /\S/.test(source[i])) {
      const line = new SourceText(source).position(i).line;
      out.push(`offset ${i} (line ${line}, ${JSON.stringify(source.slice(i, i + 20))}) is in no chunk`);
      break;
    }
  }
  return out;
}

/** 3. A JSON chunk's text parses on its own (as a value, or wrapped as members / elements). */
export function checkJsonParses(chunks: Chunk[]): string[] {
  const out: string[] = [];
  for (const c of chunks) {
    if (c.language !== 'json' && !c.meta?.jsonWrap && c.meta?.block !== 'i18n') continue;
    const wrap = (c.meta?.jsonWrap as string | undefined) ?? '';
    const body = wrap ? `${wrap[0]}${c.text}${wrap[1]}` : c.text;
    const errors: jsonc.ParseError[] = [];
    jsonc.parse(body, errors, { allowTrailingComma: false, disallowComments: false });
    if (errors.length) out.push(`${c.id} (${c.symbol}) does not parse: ${jsonc.printParseErrorCode(errors[0].error)}`);
  }
  return out;
}

/** 4. Nothing over budget unless it is a piece that cannot be cut further; split pieces are consistent. */
export function checkBudget(chunks: Chunk[], maxTokens: number, mayExceed: (c: Chunk) => boolean = () => false): string[] {
  const out: string[] = [];
  for (const c of chunks) {
    if (c.tokens > maxTokens && !mayExceed(c)) out.push(`${c.id} (${c.symbol}) has ${c.tokens} tokens > ${maxTokens}`);
    if (c.split) {
      if (c.complete) out.push(`${c.id}: a split piece cannot be complete`);
      if (c.split.index < 0 || c.split.index >= c.split.total || c.split.total < 2) out.push(`${c.id}: bad split ${JSON.stringify(c.split)}`);
    }
  }
  return out;
}

/** All the generic checks for one file's result. */
export function checkAll(source: string, result: FileChunks, maxTokens: number, opts: {
  coverage?: boolean;
  mayNest?: (inner: Chunk, outer: Chunk) => boolean;
  mayExceed?: (c: Chunk) => boolean;
} = {}): string[] {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  return [
    ...checkPositions(text, result.chunks),
    ...checkNoOverlap(result.chunks, opts.mayNest),
    ...(opts.coverage === false || result.skipped ? [] : checkCoverage(text, result.chunks)),
    ...checkJsonParses(result.chunks),
    ...checkBudget(result.chunks, maxTokens, opts.mayExceed),
  ];
}
