/**
 * SHA-1 in hex of a string (UTF-8) or bytes, one-shot: `crypto.hash` (Node 20.12+) where there
 * is one, 2–3x faster than `createHash().update().digest()` on chunk-sized inputs (a cold index
 * hashes every file and every chunk); the same digest either way.
 */
import * as crypto from 'node:crypto';

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string;
const oneShot = (crypto as unknown as { hash?: OneShot }).hash;

export function sha1Hex(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha1', data, 'hex') : crypto.createHash('sha1').update(data).digest('hex');
}
