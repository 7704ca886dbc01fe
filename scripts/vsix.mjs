// Reads a VSIX's table of contents (a VSIX is a zip): entry names with their sizes, from the
// zip's central directory. Enough for `npm run package` to print the largest entries and for
// tests to check what a package carries, with no unzip tool or zip library needed.
import * as fs from 'node:fs';

/**
 * @param {string} file path to a .vsix (zip) file
 * @returns {{ name: string, size: number, compressed: number }[]}
 */
export function listZip(file) {
  const buf = fs.readFileSync(file);
  // End of central directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error(`${file}: not a zip file (no end of central directory record)`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${file}: damaged central directory at entry ${n}`);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    entries.push({ name: buf.toString('utf8', p + 46, p + 46 + nameLen), size, compressed });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}
