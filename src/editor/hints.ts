/**
 * Which files the worker should embed first, per folder: the visible editors (the active one
 * first), then the most recently edited or opened files. Pure: the extension feeds it editor
 * events (src/commands/embed-hints.ts) and sends `prioritize` when a folder's list changed.
 */

/** Recently touched files kept per folder. */
export const RECENT_LIMIT = 50;

export class EmbedHints {
  /** root → workspace-relative paths, most recent first. */
  private readonly recent = new Map<string, string[]>();
  private readonly sent = new Map<string, string>();

  /** A file was edited, saved or opened: it moves to the front of its folder's list. */
  touch(root: string, rel: string): void {
    const list = (this.recent.get(root) ?? []).filter((p) => p !== rel);
    list.unshift(rel);
    if (list.length > RECENT_LIMIT) list.length = RECENT_LIMIT;
    this.recent.set(root, list);
  }

  /** The hint of one folder: its visible editors (in the given order), then its recent files. */
  hintFor(root: string, visible: ReadonlyArray<{ root: string; rel: string }>): string[] {
    const out = visible.filter((v) => v.root === root).map((v) => v.rel);
    for (const p of this.recent.get(root) ?? []) if (!out.includes(p)) out.push(p);
    return out;
  }

  /**
   * The folders whose hint differs from what was last sent, with the new hint (and records it
   * as sent): `roots` are the open folders.
   */
  changes(roots: readonly string[], visible: ReadonlyArray<{ root: string; rel: string }>): Array<{ root: string; paths: string[] }> {
    const out: Array<{ root: string; paths: string[] }> = [];
    for (const root of roots) {
      const paths = this.hintFor(root, visible);
      const key = paths.join('\n');
      if ((this.sent.get(root) ?? '') === key) continue;
      this.sent.set(root, key);
      out.push({ root, paths });
    }
    return out;
  }

  /** Forgets what was sent (the worker restarted or was re-initialized: send everything again). */
  resend(): void {
    this.sent.clear();
  }
}
