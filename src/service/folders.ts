/**
 * The worker's open folders, by absolute root: the indexed sessions, the i18n-only ones, the
 * running index request's progress and the editor's "embed these first" hints.
 */
import * as path from 'node:path';
import type { IndexProgress } from '../index/engine';
import type { FolderSession } from './session';

export class OpenFolders {
  /** The open folders (`index`ed), by absolute root. */
  readonly indexed = new Map<string, FolderSession>();
  /** Folders asked about by `i18n` without being indexed: storeless sessions (nothing persisted, no lock). */
  readonly i18nOnly = new Map<string, FolderSession>();
  /** The running index request's last progress per root (the agent tools say what is indexed so far). */
  readonly progressOf = new Map<string, IndexProgress>();
  /** The editor's last "embed these first" hint per root (applied when the folder opens). */
  private readonly hints = new Map<string, string[]>();

  /** The indexed folder at `root`; throws when it is not open. */
  get(root: string): FolderSession {
    const f = this.indexed.get(path.resolve(root));
    if (!f) throw new Error(`${root} is not open in Fathom's worker (send "index" first)`);
    return f;
  }

  /** Every open root, indexed ones first, then the i18n-only ones. */
  roots(): string[] {
    return [...this.indexed.keys(), ...this.i18nOnly.keys()];
  }

  /** The editor's hint for `root`: kept for when the folder opens, applied now when it is open. */
  prioritize(rootIn: string, paths: string[]): { pendingVectors: number } {
    const root = path.resolve(rootIn);
    this.hints.set(root, paths);
    const s = this.indexed.get(root);
    s?.engine.setPriority(paths);
    return { pendingVectors: s?.engine.pendingVectors ?? 0 };
  }

  /** The last hint for `root` (none: empty). */
  hintOf(root: string): string[] {
    return this.hints.get(path.resolve(root)) ?? [];
  }

  /** Closes the sessions of `root` (indexed and i18n-only): each stops embedding, saves and releases its lock. Whether one was open. */
  async close(rootIn: string): Promise<boolean> {
    const root = path.resolve(rootIn);
    let closed = false;
    for (const map of [this.indexed, this.i18nOnly]) {
      const s = map.get(root);
      if (!s) continue;
      map.delete(root);
      await s.close();
      closed = true;
    }
    return closed;
  }
}
