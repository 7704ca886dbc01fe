// The keyword index's compound scanner (src/index/terms.ts `CompoundScanner.scan`), in
// WebAssembly: built by esbuild.mjs into dist/fathom-compounds.wasm. A chunk thread scans every
// chunk's text for the compounds the keyword index looks up; in JavaScript that loop was
// compiled again in each thread, in WebAssembly it runs at full speed from the first chunk.
//
// The text is in memory as UTF-16 code units. `classes` is a 65,536-byte table of the code
// units' classes (terms.ts `table`: 0 separator, 7 joiner, 255 not known yet); a unit not known
// yet, or a surrogate (classed per pair), is asked of the JavaScript side (`classAt`), and a
// unit's answer kept.

@external("env", "classAt")
declare function classAt(i: i32): i32;

const SEP = 0;
const JOIN = 7;
const UNKNOWN = 255;

let classes: usize = 0;

export function init(table: usize): void {
  classes = table;
}

@inline function unit(text: usize, i: i32): u32 {
  return <u32>load<u16>(text + (<usize>i << 1));
}

@inline function classOf(text: usize, i: i32, u: u32): i32 {
  const c = <i32>load<u8>(classes + <usize>u);
  if (c != UNKNOWN) return c;
  const k = classAt(i);
  if (u - 0xd800 >= 0x800) store<u8>(classes + <usize>u, <u8>k); // a surrogate's class depends on its pair
  return k;
}

/**
 * The compounds of text[0, n): (start, end, hash) triples at `out`, i32 each; returns their
 * count. The same cuts and hashes as `CompoundScanner.scan`.
 */
export function scan(text: usize, n: i32, out: usize): i32 {
  let k = 0;
  let i = 0;
  while (i < n) {
    let u = unit(text, i);
    let c = classOf(text, i, u);
    if (c == SEP || c == JOIN) {
      i++;
      continue;
    }
    const start = i;
    let h = 0;
    while (true) {
      while (i < n) {
        u = unit(text, i);
        c = classOf(text, i, u);
        if (c == SEP || c == JOIN) break;
        h = h * 31 + <i32>u;
        i++;
      }
      if (c == JOIN && i + 1 < n) {
        const v = unit(text, i + 1);
        const d = classOf(text, i + 1, v);
        if (d != SEP && d != JOIN) {
          h = h * 31 + <i32>u;
          i++;
          continue;
        }
      }
      break;
    }
    const at = out + <usize>k * 12;
    store<i32>(at, start);
    store<i32>(at, i, 4);
    store<i32>(at, h, 8);
    k++;
  }
  return k;
}
