/**
 * The JSON chunker's view of a file: jsonc-parser's tree, re-expressed with what cutting by
 * offsets needs to know about the text between the values.
 *
 * A chunk is a whole value, or a run of consecutive members / elements of one container, so for
 * each container we record whether its separators are sound (exactly one comma between two
 * items, one colon between a key and its value, nothing else but whitespace and comments) and
 * whether the whole value's text parses strictly (`clean`: no trailing comma, no recovered
 * error inside). A container that is not clean is never emitted whole: the cut descends into it.
 */
import * as jsonc from 'jsonc-parser';
import { isWs } from './source-text';

/** Deeper bracket nesting than this is refused before jsonc-parser (it recurses per level). */
export const MAX_JSON_DEPTH = 500;

export type JType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export interface JValue {
  type: JType;
  start: number;
  end: number;
  /** Members (object) or elements (array); empty for scalars. */
  items: JItem[];
  /** `sepOk[k]`: exactly one comma (and only whitespace / comments) between items k and k+1. */
  sepOk: boolean[];
  /** `sepTok[k]`: tokens between items k and k+1 when known without counting (no comment), else -1. */
  sepTok: number[];
  /** The value's own text, alone, parses as strict JSON (comments allowed). */
  clean: boolean;
  /** Scalar value as parsed (for classification). */
  value?: unknown;
  /** Memo: tokens of [start, end), -1 when not counted yet. */
  tok: number;
  /** Memo for runs in long single-line containers: prefix sums of item + separator tokens. */
  prefix?: Float64Array;
  itemTok?: Float64Array;
  /** Memo: length and tokens of this container's own path symbol. */
  symLen?: number;
  symTok?: number;
}

export interface JItem {
  /** Member key; undefined for an array element. */
  key?: string;
  /** Where a chunk holding this item (first in its run) starts: leading comments included. */
  lead: number;
  /** Start of the key (member) or of the value (element). */
  start: number;
  /** End of the value. */
  end: number;
  value: JValue;
  /** A member's `"key" : value` syntax is sound (exactly one colon, nothing else). */
  ok: boolean;
  /** Memo: tokens of the key as a symbol segment, whether it is quoted (`["a.b"]`), and long. */
  keyTok?: number;
  keyQuoted?: boolean;
  keyLong?: boolean;
}

export interface JsonTree {
  root: JValue | undefined;
  /** jsonc-parser's own tree, offsets relative to the parsed slice. */
  node: jsonc.Node | undefined;
  errors: jsonc.ParseError[];
  /** Non-blank characters that lie in no value and no separator: content a recovery would lose. */
  lost: number;
  /** Non-blank characters of the parsed range (comments included). */
  nonBlank: number;
  /** Offset where a whole-root chunk may start: leading comments before the root included. */
  rootLead: number;
  duplicates: Array<{ key: string; path: Array<string | number>; offset: number }>;
}

export interface DepthScan {
  maxDepth: number;
  nonBlank: number;
}

/**
 * Bracket depth of `text[from, to)` as jsonc-parser's scanner sees it (strings end at a quote
 * or a line break, comments skipped), and how many non-blank characters there are. Linear,
 * no recursion: this is what lets us refuse 10,000 nested arrays before the recursive parser
 * sees them.
 */
export function scanDepth(text: string, from = 0, to = text.length, stopAt = Infinity): DepthScan {
  let depth = 0;
  let maxDepth = 0;
  let nonBlank = 0;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const s = i;
      i++;
      while (i < to) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) {
          i++;
          break;
        } else if (d === 10 || d === 13) break;
        else i++;
      }
      if (i > to) i = to;
      nonBlank += i - s;
      continue;
    }
    if (c === 47 /* / */ && i + 1 < to) {
      const n = text.charCodeAt(i + 1);
      if (n === 47) {
        const s = i;
        while (i < to && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
        nonBlank += i - s;
        continue;
      }
      if (n === 42 /* * */) {
        const e = text.indexOf('*/', i + 2);
        const stop = e < 0 || e + 2 > to ? to : e + 2;
        nonBlank += stop - i;
        i = stop;
        continue;
      }
    }
    if (c === 91 || c === 123) {
      depth++;
      if (depth > maxDepth) {
        maxDepth = depth;
        if (maxDepth > stopAt) return { maxDepth, nonBlank };
      }
    } else if (c === 93 || c === 125) {
      if (depth > 0) depth--;
    }
    if (!isWs(c)) nonBlank++;
    i++;
  }
  return { maxDepth, nonBlank };
}

/** What lies between two values: separators, comments, and anything that should not be there. */
interface Gap {
  commas: number;
  colons: number;
  /** Stray brackets and extra separators: not content, but the gap is not sound. */
  stray: number;
  /** Other non-blank characters (letters, digits, strings): content lost to the parse. */
  lost: number;
  /** Start of the first comment after the first comma that starts on a later line (or, with
   *  `anyComment`, of the first comment at all); -1 when there is none. */
  lead: number;
  comments: boolean;
}

function scanGap(text: string, from: number, to: number, anyComment: boolean): Gap {
  const g: Gap = { commas: 0, colons: 0, stray: 0, lost: 0, lead: -1, comments: false };
  let newlineAfterComma = anyComment;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      if (g.commas > 0 || anyComment) newlineAfterComma = true;
      i++;
      continue;
    }
    if (isWs(c)) {
      i++;
      continue;
    }
    if (c === 47 && i + 1 < to && (text.charCodeAt(i + 1) === 47 || text.charCodeAt(i + 1) === 42)) {
      if (g.lead < 0 && newlineAfterComma && (anyComment || g.commas > 0)) g.lead = i;
      g.comments = true;
      if (text.charCodeAt(i + 1) === 47) {
        while (i < to && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
      } else {
        const e = text.indexOf('*/', i + 2);
        i = e < 0 || e + 2 > to ? to : e + 2;
      }
      continue;
    }
    if (c === 44) g.commas++;
    else if (c === 58) g.colons++;
    else if (c === 91 || c === 93 || c === 123 || c === 125) g.stray++;
    else g.lost++;
    i++;
  }
  return g;
}

interface BuildState {
  text: string;
  base: number;
  lost: number;
  duplicates: JsonTree['duplicates'];
  path: Array<string | number>;
}

/** The value at `node` with its items, recursively, and whether its text is sound (`clean`). */
function build(node: jsonc.Node, st: BuildState): JValue {
  const start = node.offset + st.base;
  const end = start + node.length;
  const v: JValue = { type: node.type as JType, start, end, items: [], sepOk: [], sepTok: [], clean: true, tok: -1 };
  if (node.type !== 'object' && node.type !== 'array') return scalar(v, node);
  const isObject = node.type === 'object';
  const itemsOk = isObject ? buildMembers(node, v, st) : buildElements(node, v, st);
  const closed = node.length >= 2 && st.text.charCodeAt(end - 1) === (isObject ? 125 : 93);
  const separatorsOk = checkSeparators(v, closed, st);
  v.clean = itemsOk && separatorsOk && closed;
  return v;
}

function scalar(v: JValue, node: jsonc.Node): JValue {
  if (node.type === 'property') {
    // Cannot happen for a value position; treat as an unusable scalar.
    v.type = 'null';
    v.clean = false;
    return v;
  }
  v.value = node.value;
  return v;
}

/**
 * An object's members into `v.items`, each value built; duplicate keys recorded. False when a
 * member's `"key" : value` syntax is not sound.
 */
function buildMembers(node: jsonc.Node, v: JValue, st: BuildState): boolean {
  const seen = new Set<string>();
  let ok = true;
  for (const child of node.children ?? []) {
    const keyNode = child.children?.[0];
    const valueNode = child.children?.[1];
    if (!keyNode || !valueNode) continue; // a key without value: its text ends up in a gap (lost)
    const key = String(keyNode.value);
    const keyStart = keyNode.offset + st.base;
    const keyEnd = keyStart + keyNode.length;
    if (seen.has(key)) st.duplicates.push({ key, path: [...st.path], offset: keyStart });
    else seen.add(key);
    const g = scanGap(st.text, keyEnd, valueNode.offset + st.base, false);
    const colonOk = g.colons === 1 && g.commas === 0 && g.stray === 0 && g.lost === 0;
    st.lost += g.lost;
    st.path.push(key);
    const value = build(valueNode, st);
    st.path.pop();
    if (!colonOk) ok = false;
    v.items.push({ key, lead: keyStart, start: keyStart, end: value.end, value, ok: colonOk });
  }
  return ok;
}

/** An array's elements into `v.items`, each built (an element has no syntax of its own: true). */
function buildElements(node: jsonc.Node, v: JValue, st: BuildState): boolean {
  for (const child of node.children ?? []) {
    st.path.push(v.items.length);
    const value = build(child, st);
    st.path.pop();
    v.items.push({ lead: value.start, start: value.start, end: value.end, value, ok: true });
  }
  return true;
}

/**
 * The separators of a container: before the first item, between items (`sepOk`, `sepTok`; a
 * comment on its own line after a comma becomes the next item's `lead`), after the last. False
 * when any is unsound or an item is not clean.
 */
function checkSeparators(v: JValue, closed: boolean, st: BuildState): boolean {
  const text = st.text;
  const items = v.items;
  let clean = true;
  let prevEnd = v.start + 1;
  for (let k = 0; k < items.length; k++) {
    const it = items[k];
    if (it.start < prevEnd) {
      // Overlapping recovery artefact: never put these two in one run.
      if (k > 0) {
        v.sepOk.push(false);
        v.sepTok.push(-1);
      }
      clean = false;
      prevEnd = Math.max(prevEnd, it.end);
      continue;
    }
    const g = scanGap(text, prevEnd, it.start, k === 0);
    st.lost += g.lost;
    if (k > 0) {
      const ok = g.commas === 1 && g.colons === 0 && g.stray === 0 && g.lost === 0;
      v.sepOk.push(ok);
      v.sepTok.push(g.comments || g.lost ? -1 : g.commas + g.colons + g.stray);
      if (!ok) clean = false;
    } else if (g.commas || g.colons || g.stray || g.lost) clean = false;
    if (g.lead >= 0) it.lead = g.lead;
    if (!it.ok || !it.value.clean) clean = false;
    prevEnd = it.end;
  }
  return tailSound(v, prevEnd, closed, st) && clean;
}

/** After the last item, up to the closing bracket (or the end when it is missing): only blanks and comments. */
function tailSound(v: JValue, prevEnd: number, closed: boolean, st: BuildState): boolean {
  const tailEnd = closed ? v.end - 1 : v.end;
  if (tailEnd < prevEnd) return false;
  const g = scanGap(st.text, prevEnd, tailEnd, false);
  st.lost += g.lost;
  return !(g.commas || g.colons || g.stray || g.lost);
}

/**
 * Parses `text[from, to)` (JSONC: comments and trailing commas read) into a JsonTree with
 * absolute offsets. The caller must have checked the depth first (see scanDepth).
 */
export function parseJsonTree(text: string, from = 0, to = text.length, nonBlank = -1): JsonTree {
  const slice = from === 0 && to === text.length ? text : text.slice(from, to);
  const errors: jsonc.ParseError[] = [];
  const node = jsonc.parseTree(slice, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const st: BuildState = { text, base: from, lost: 0, duplicates: [], path: [] };
  const root = node ? build(node, st) : undefined;
  let rootLead = root ? root.start : from;
  if (root) {
    const before = scanGap(text, from, root.start, true);
    const after = scanGap(text, root.end, to, true);
    st.lost += before.lost + after.lost;
    if (before.lead >= 0 && !before.commas && !before.colons && !before.stray && !before.lost) rootLead = before.lead;
  }
  return {
    root,
    node,
    errors,
    lost: st.lost,
    nonBlank: nonBlank >= 0 ? nonBlank : scanDepth(text, from, to).nonBlank,
    rootLead,
    duplicates: st.duplicates,
  };
}
