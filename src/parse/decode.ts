/**
 * Bytes → text, saying what was done: UTF-8 (BOM removed), UTF-16 by its BOM, invalid UTF-8
 * decoded with replacement characters (and a warning), binary content refused.
 */
export interface Decoded {
  /** The text, BOM removed; undefined when the bytes are binary. */
  text?: string;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary';
  bom: boolean;
  /** Set when invalid sequences were replaced by U+FFFD. */
  replaced?: number;
  /** Why the bytes were refused as text. */
  binary?: string;
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function decodeBytes(bytes: Uint8Array): Decoded {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le', bom: true };
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be', bom: true };
  }
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  const probe = body.subarray(0, 8192);
  let nul = 0;
  let control = 0;
  for (const b of probe) {
    if (b === 0) nul++;
    else if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) control++;
  }
  if (nul > 0) return { encoding: 'binary', bom, binary: 'NUL bytes in the first 8 KB' };
  if (probe.length > 0 && control / probe.length > 0.1) {
    return { encoding: 'binary', bom, binary: `${control} control bytes in the first ${probe.length}` };
  }
  try {
    return { text: strict.decode(body), encoding: 'utf-8', bom };
  } catch {
    const text = lenient.decode(body);
    let replaced = 0;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0xfffd) replaced++;
    if (replaced > text.length * 0.1) {
      return { encoding: 'binary', bom, binary: `not UTF-8: ${replaced} invalid sequences` };
    }
    return { text, encoding: 'utf-8', bom, replaced };
  }
}
