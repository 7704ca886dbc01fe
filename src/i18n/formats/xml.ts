/**
 * XML reading shared by the locale formats that are XML (XLIFF, Android string resources, .NET
 * .resx): htmlparser2's DOM in XML mode, with start and end offsets on every node, and the few
 * walks they need. `unclosed` finds an element htmlparser2 would close silently (giving a
 * message the rest of the file), so that a reader reports the file instead.
 *
 * htmlparser2 keeps its open elements in an array it shifts onto, so its parse is quadratic in the
 * nesting depth (200,000 nested elements in a .resx `<value>`: 32 s). No locale file nests deep:
 * one nested more than MAX_DEPTH elements, measured by a linear scan first, is reported, not read.
 */
import { Parser, parseDocument } from 'htmlparser2';
import { SourceText } from '../../parse/source-text';
import { errText, unreadable } from './common';
import type { LocaleFile } from '../types';

const MAX_DEPTH = 1_000;

/** The deepest element nesting of an XML text (comments, CDATA, declarations skipped), and where it passed `limit`, lexically. */
export function xmlDepth(text: string, limit = MAX_DEPTH): { depth: number; at?: number } {
  let depth = 0;
  let max = 0;
  let at: number | undefined;
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', i + 1)) {
    const c = text[i + 1];
    if (text.startsWith('<!--', i)) {
      const e = text.indexOf('-->', i + 4);
      if (e < 0) break;
      i = e + 2;
    } else if (text.startsWith('<![CDATA[', i)) {
      const e = text.indexOf(']]>', i + 9);
      if (e < 0) break;
      i = e + 2;
    } else if (c === '/') depth = Math.max(0, depth - 1);
    else if (c !== '?' && c !== '!') {
      const e = text.indexOf('>', i + 1);
      if (e < 0) break;
      if (text[e - 1] !== '/') {
        depth++;
        if (depth > max) max = depth;
        if (depth > limit && at === undefined) at = i;
      }
      i = e;
    }
  }
  return { depth: max, at };
}

export interface XNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: XNode[];
  startIndex: number | null;
  endIndex: number | null;
}

export function shown(n: XNode): string {
  if (n.type === 'text' || n.type === 'cdata') return n.type === 'cdata' ? (n.children ?? []).map(shown).join('') : (n.data ?? '');
  if (n.type !== 'tag') return '';
  const a = n.attribs ?? {};
  if (n.name === 'x' || n.name === 'ph' || n.name === 'bx' || n.name === 'ex') return a['equiv-text'] ?? a.equiv ?? a.disp ?? `{${a.id ?? ''}}`;
  return (n.children ?? []).map(shown).join('');
}

export function* tags(n: XNode, name?: string): Generator<XNode> {
  const stack = [...(n.children ?? [])].reverse();
  while (stack.length) {
    const c = stack.pop()!;
    if (c.type !== 'tag') continue;
    if (!name || c.name === name) yield c;
    for (let i = (c.children ?? []).length - 1; i >= 0; i--) stack.push(c.children![i]);
  }
}

export function child(n: XNode, name: string): XNode | undefined {
  return (n.children ?? []).find((c) => c.type === 'tag' && c.name === name);
}

/** Inside an element's tags: `[after <tag …>, before </tag>)`. */
export function inner(text: string, n: XNode): [number, number] {
  const s = text.indexOf('>', n.startIndex ?? 0) + 1;
  const e = text.lastIndexOf('<', n.endIndex ?? s);
  return e >= s ? [s, e] : [s, s];
}

/** The first element that is never closed (its close implied by a parent's or the end of the file): its name and offset. */
export function unclosed(text: string): { name: string; at: number } | undefined {
  const open: Array<{ name: string; at: number; selfClosing: boolean }> = [];
  let found: { name: string; at: number } | undefined;
  const parser = new Parser(
    {
      onopentag(name) {
        // a self-closing `<x …/>` is closed "implied" too: told by its `/>` (endIndex is its `>`)
        open.push({ name, at: parser.startIndex, selfClosing: text[parser.endIndex - 1] === '/' });
      },
      onclosetag(_name, isImplied) {
        const el = open.pop();
        if (isImplied && el && !el.selfClosing && (!found || el.at < found.at)) found = { name: el.name, at: el.at };
      },
    },
    { xmlMode: true },
  );
  parser.end(text);
  return found;
}

/** The DOM of an XML text, every node with its start and end offsets; throws on what htmlparser2 cannot read. */
export function parseXml(text: string): XNode {
  return parseDocument(text, { xmlMode: true, withStartIndices: true, withEndIndices: true }) as unknown as XNode;
}

/**
 * A locale file's XML DOM and line table, or the file as one `malformed` problem when it does not
 * parse or an element is never closed (htmlparser2 would close it silently, giving a message
 * the rest of the file). `what` names the format in the message (`XLIFF`, `.NET resources`),
 * `are` when it is a plural.
 */
export function readXml(rel: string, text: string, what: string, are = false): { doc: XNode; src: SourceText } | { problem: LocaleFile } {
  let doc: XNode;
  const deep = xmlDepth(text);
  if (deep.at !== undefined) {
    const line = new SourceText(text).position(deep.at).line;
    return { problem: unreadable(rel, text, 'malformed', `${what} ${are ? 'nest' : 'nests'} elements ${deep.depth} deep (more than ${MAX_DEPTH}, from line ${line}): not read`, line) };
  }
  try {
    doc = parseXml(text);
  } catch (err) {
    return { problem: unreadable(rel, text, 'malformed', `${what} ${are ? 'do' : 'does'} not parse (${errText(err)}): not read`) };
  }
  const src = new SourceText(text);
  const open = unclosed(text);
  if (open) {
    const at = src.position(open.at);
    return { problem: unreadable(rel, text, 'malformed', `${what} ${are ? 'are' : 'is'} not well-formed: <${open.name}> at line ${at.line}, column ${at.column + 1} is never closed: not read`, at.line) };
  }
  return { doc, src };
}
