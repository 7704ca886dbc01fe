/**
 * Workspace-relative paths, the one form Fathom keeps: `/` separators, no leading `./` or `/`,
 * no trailing `/`. Every conversion from an OS path goes through here.
 */
import * as path from 'node:path';

/** An OS path with `/` separators. */
export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** `p` (already relative) as a folder-relative path: `/`, no leading `./` or `/`, no trailing `/`. */
export function toRel(p: string): string {
  return toPosix(p).replace(/^(?:\.\/)+/, '').replace(/^\/+|\/+$/g, '');
}

/** `target` (absolute, or relative to the process's folder) relative to `root`; undefined when it is outside `root` or is `root`. */
export function relativeIn(root: string, target: string): string | undefined {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  if (!rel || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
  return toPosix(rel);
}
