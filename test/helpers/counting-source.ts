/** A file source that counts the reads of each path (to show a file is read once, or not again). */
import type { FileSource, ReadResult } from '../../src/workspace/source';

export function counting(inner: FileSource): FileSource & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  return {
    root: inner.root,
    reads,
    walk: (sel, problems) => inner.walk(sel, problems),
    walkAsync: (sel, problems, signal) => inner.walkAsync(sel, problems, signal),
    filter: (sel) => inner.filter(sel),
    stat: (rel) => inner.stat(rel),
    read: (rel, max): ReadResult => {
      reads.set(rel, (reads.get(rel) ?? 0) + 1);
      return inner.read(rel, max);
    },
  };
}
