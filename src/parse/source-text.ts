/**
 * A file's text with a line table: offsets ↔ 1-based lines and 0-based columns, and the
 * helpers every chunker uses to turn ranges into chunks with exact positions.
 *
 * Line breaks are `\r\n`, `\n` and a lone `\r`, as in VS Code's TextDocument, so a position
 * computed here lands on the same character in the editor.
 */

/** A place in a file: UTF-16 offset into the text (BOM removed), 1-based line, 0-based column. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

export class SourceText {
  readonly text: string;
  /** Offset of the first character of each line. */
  readonly lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.lineStarts = starts;
  }

  /**
   * A line table without its text (restored from a store: positions only; `text` is empty, so
   * `lineEnd` and slicing are not available).
   */
  static fromLineStarts(lineStarts: number[]): SourceText {
    const t = Object.create(SourceText.prototype) as { text: string; lineStarts: number[] };
    t.text = '';
    t.lineStarts = lineStarts;
    return t as unknown as SourceText;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line index holding `offset`. */
  lineIndexAt(offset: number): number {
    const s = this.lineStarts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  position(offset: number): Position {
    const li = this.lineIndexAt(offset);
    return { offset, line: li + 1, column: offset - this.lineStarts[li] };
  }

  /** Offset of the end of the line's content (before its line break). */
  lineEnd(lineIndex: number): number {
    if (lineIndex + 1 >= this.lineStarts.length) return this.text.length;
    let e = this.lineStarts[lineIndex + 1];
    if (this.text.charCodeAt(e - 1) === 10) e--;
    if (this.text.charCodeAt(e - 1) === 13) e--;
    return e;
  }
}

export interface Range {
  start: number;
  end: number;
}

export function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xfeff || c === 0xa0;
}

/** Shrinks a range so that it neither starts nor ends with whitespace (may become empty). */
export function trimRange(text: string, start: number, end: number): Range {
  while (start < end && isWs(text.charCodeAt(start))) start++;
  while (end > start && isWs(text.charCodeAt(end - 1))) end--;
  return { start, end };
}

export function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isWs(text.charCodeAt(i))) return false;
  return true;
}
