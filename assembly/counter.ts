// The token counter's ASCII fast path (src/tokenizer/wordpiece.ts `walk`), in WebAssembly.
//
// AssemblyScript, built by esbuild.mjs into dist/fathom-counter.wasm. Why: on a cold index each
// chunk thread counted ~5M characters with the JavaScript counter, most of it before V8 had
// optimized it (its counting loop was compiled 4–5 times a thread); WebAssembly runs at full
// speed from the first call. The counts are the JavaScript counter's exactly
// (test/unit/tokenizer-wasm.test.ts compares the two).
//
// The text is in memory as UTF-16 code units (the JavaScript side copies each range in). A
// segment that is not printable ASCII is counted by the JavaScript side (`slow`), which has the
// full normalization pipeline. Memory is laid out by the JavaScript side (`init`); this module
// allocates nothing.

@external("env", "slow")
declare function slow(start: i32, end: i32): i32;

// the two tries of the vocabulary's [0-9a-z] tokens (AlnumTrie's arrays)
let startKeys: usize = 0;
let startVals: usize = 0;
let startTerm: usize = 0;
let startMask: u32 = 0;
let contKeys: usize = 0;
let contVals: usize = 0;
let contTerm: usize = 0;
let contMask: u32 = 0;
let maxWordChars: i32 = 100;
// the special tokens of printable ASCII, longest first: [length u8][bytes]…
let specials: usize = 0;
let specialsCount: i32 = 0;
// the words seen: an open-addressing table of 16-byte slots (hash, 1 + arena offset, length,
// count), at most half full, and the arena of their characters (one byte each: [0-9A-Za-z])
let seen: usize = 0;
let seenBits: u32 = 0;
let seenWords: i32 = 0;
let arena: usize = 0;
let arenaSize: i32 = 0;
let arenaTop: i32 = 0;
// segments written by the last walk with a sink
let segCount: i32 = 0;

export function init(
  sk: usize, sv: usize, st: usize, sm: u32,
  ck: usize, cv: usize, ct: usize, cm: u32,
  maxChars: i32, sp: usize, spCount: i32,
  seenAt: usize, bits: u32, arenaAt: usize, arenaBytes: i32,
): void {
  startKeys = sk; startVals = sv; startTerm = st; startMask = sm;
  contKeys = ck; contVals = cv; contTerm = ct; contMask = cm;
  maxWordChars = maxChars; specials = sp; specialsCount = spCount;
  seen = seenAt; seenBits = bits; arena = arenaAt; arenaSize = arenaBytes;
  seenWords = 0; // the table starts zeroed (fresh memory): not written, so its pages stay untouched until used
  arenaTop = 0;
}

export function segments(): i32 {
  return segCount;
}

function clearSeen(): void {
  memory.fill(seen, 0, (<usize>1 << seenBits) << 4);
  seenWords = 0;
  arenaTop = 0;
}

@inline function isSpace(c: u32): bool {
  return c == 32 || c == 10 || c == 9 || c == 13;
}

@inline function alnumIndex(c: u32): i32 {
  // [0-9] 0‥9, [a-z] and [A-Z] (lowercased) 10‥35, else -1
  if (c - 48 < 10) return <i32>(c - 48);
  const l = c | 32;
  if (l - 97 < 26) return <i32>(l - 87);
  return -1;
}

@inline function unit(text: usize, i: i32): u32 {
  return <u32>load<u16>(text + (<usize>i << 1));
}

/** The child of a trie's node by key (node × 36 + character + 1), or 0 (AlnumTrie.child). */
@inline function child(keys: usize, vals: usize, mask: u32, key: i32): i32 {
  let at = ((<u32>key * 0x9e3779b1) >>> 15) & mask;
  while (true) {
    const k = load<i32>(keys + (<usize>at << 2));
    if (k == key) return load<i32>(vals + (<usize>at << 2));
    if (k == 0) return 0;
    at = (at + 1) & mask;
  }
}

/** The end of the longest token of a trie at `from` in the word text[w, w + len), or -1. */
function longest(text: usize, w: i32, len: i32, from: i32, cont: bool): i32 {
  const keys = cont ? contKeys : startKeys;
  const vals = cont ? contVals : startVals;
  const term = cont ? contTerm : startTerm;
  const mask = cont ? contMask : startMask;
  let node = 0;
  let best = -1;
  for (let j = from; j < len; j++) {
    node = child(keys, vals, mask, node * 36 + alnumIndex(unit(text, w + j)) + 1);
    if (node == 0) break;
    if (load<u8>(term + <usize>node)) best = j + 1;
  }
  return best;
}

/** WordPiece tokens of the [0-9A-Za-z] word text[from, to), lowercased (wordPieceAlnum). */
function wordPieces(text: usize, from: i32, to: i32): i32 {
  const len = to - from;
  if (len > maxWordChars) return 1; // [UNK]
  let i = 0;
  let pieces = 0;
  while (i < len) {
    const end = longest(text, from, len, i, i != 0);
    if (end < 0) return 1; // the whole word becomes one [UNK]
    pieces++;
    i = end;
  }
  return pieces;
}

/** wordPieces of text[from, to), whose characters hash to `h`, from the words seen when it is one. */
function hashedWord(text: usize, from: i32, to: i32, h: i32): i32 {
  const len = to - from;
  const mask: u32 = (<u32>1 << seenBits) - 1;
  let at = (<u32>h * 0x9e3779b1) >>> (32 - seenBits);
  while (true) {
    const slot = seen + (<usize>at << 4);
    const off = load<i32>(slot, 4);
    if (off == 0) break;
    if (load<i32>(slot) == h && load<i32>(slot, 8) == len) {
      const w = arena + <usize>(off - 1);
      let k = 0;
      while (k < len && <u32>load<u8>(w + <usize>k) == unit(text, from + k)) k++;
      if (k == len) return load<i32>(slot, 12);
    }
    at = (at + 1) & mask;
  }
  const n = wordPieces(text, from, to);
  if (len > arenaSize) return n; // longer than all the room there is: not kept
  if (2 * (seenWords + 1) > (1 << seenBits) || arenaTop + len > arenaSize) {
    clearSeen(); // full: counting again is cheap, the counts never change
    at = (<u32>h * 0x9e3779b1) >>> (32 - seenBits);
  }
  let slot = seen + (<usize>at << 4);
  while (load<i32>(slot, 4) != 0) {
    at = (at + 1) & mask;
    slot = seen + (<usize>at << 4);
  }
  const w = arena + <usize>arenaTop;
  for (let k = 0; k < len; k++) store<u8>(w + <usize>k, <u8>unit(text, from + k));
  store<i32>(slot, h);
  store<i32>(slot, arenaTop + 1, 4);
  store<i32>(slot, len, 8);
  store<i32>(slot, n, 12);
  arenaTop += len;
  seenWords++;
  return n;
}

/** Length of the special token starting at text[i] (a `[`), within text[…, to), or 0. */
function specialAt(text: usize, i: i32, to: i32): i32 {
  let p = specials;
  for (let s = 0; s < specialsCount; s++) {
    const len = <i32>load<u8>(p);
    if (i + len <= to) {
      let k = 0;
      while (k < len && <u32>load<u8>(p + 1 + <usize>k) == unit(text, i + k)) k++;
      if (k == len) return len;
    }
    p += 1 + <usize>len;
  }
  return 0;
}

/**
 * Tokens of text[0, n) (`WordPieceCounter.walk`): ASCII whitespace splits it into segments; a
 * segment of printable ASCII is counted here, any other by `slow`. With `segs` (not 0) every
 * segment's start, end and tokens go there, three i32 each (`segments()` says how many).
 */
export function walk(text: usize, n: i32, segs: usize): i32 {
  let total = 0;
  let count = 0;
  let i = 0;
  while (i < n) {
    let c = unit(text, i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const segStart = i;
    const segTotal = total;
    let wordStart = -1;
    let h = 0;
    for (; i < n; i++) {
      c = unit(text, i);
      if (alnumIndex(c) >= 0) {
        if (wordStart < 0) {
          wordStart = i;
          h = 0;
        }
        h = h * 31 + <i32>c;
        continue;
      }
      if (wordStart >= 0) {
        total += hashedWord(text, wordStart, i, h);
        wordStart = -1;
      }
      if (c - 33 < 94) {
        // printable ASCII that is not alphanumeric: BERT punctuation, one token (a special token too)
        if (c == 91) {
          const len = specialAt(text, i, n);
          if (len) i += len - 1;
        }
        total += 1;
        continue;
      }
      if (isSpace(c)) break;
      // not printable ASCII: the whole segment goes through the full pipeline
      let j = i + 1;
      while (j < n && !isSpace(unit(text, j))) j++;
      total = segTotal + slow(segStart, j);
      i = j;
      break;
    }
    if (wordStart >= 0) total += hashedWord(text, wordStart, i, h);
    if (segs) {
      const at = segs + <usize>count * 12;
      store<i32>(at, segStart);
      store<i32>(at, i, 4);
      store<i32>(at, total - segTotal, 8);
      count++;
    }
  }
  segCount = count;
  return total;
}
