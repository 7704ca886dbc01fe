/**
 * The sidebar's result tree, as pure functions the webview (media/view.ts) runs: the file
 * groups the host posted, with the locale files either kept as files or folded into one
 * "Translations" group, and which groups are open. No DOM, no `vscode`, no Node: it is bundled
 * into the page.
 */
import type { Range, ViewGroup, ViewHit } from './messages';

/** A group as the page draws it: a file, or all locale files folded together. */
export interface TreeGroup {
  /** Stable across refreshes: `file:<root>\0<path>`, or `translations`. */
  id: string;
  /** A file's path, or `Translations`. */
  label: string;
  folder?: string;
  /** Set for the folded group: how many locale files it holds. */
  files?: number;
  translations: boolean;
  hits: ViewHit[];
  /** The locale (or '' for an unnamed one) of each hit of a folded group, in hit order. */
  locales?: string[];
  /** Each hit's file, for a folded group (its rows say which file). */
  paths?: string[];
  open: boolean;
}

export const TRANSLATIONS_ID = 'translations';

/**
 * Groups → tree. `fold`: the locale files become one `Translations` group, at the place of
 * the best of them. `opened`: what the user toggled (group id → open); without a choice a
 * file is open, and the folded group is closed — unless it is the only group.
 */
export function buildTree(groups: ViewGroup[], fold: boolean, opened: ReadonlyMap<string, boolean> = new Map()): TreeGroup[] {
  const out: TreeGroup[] = [];
  let folded: TreeGroup | undefined;
  for (const g of groups) {
    if (fold && g.locale !== undefined) {
      if (!folded) {
        folded = { id: TRANSLATIONS_ID, label: 'Translations', files: 0, translations: true, hits: [], locales: [], paths: [], open: false };
        out.push(folded);
      }
      folded.files!++;
      for (const h of g.hits) {
        folded.hits.push(h);
        folded.locales!.push(g.locale);
        folded.paths!.push(g.path);
      }
      continue;
    }
    const id = `file:${g.root}\u0000${g.path}`;
    out.push({ id, label: g.path, folder: g.folder, translations: g.locale !== undefined, hits: g.hits, open: opened.get(id) ?? true });
  }
  if (folded) folded.open = opened.get(TRANSLATIONS_ID) ?? out.length === 1;
  return out;
}

/** Splits `text` into plain and highlighted pieces, for a renderer that sets textContent only. */
export function splitHighlights(text: string, ranges: Range[]): Array<{ text: string; mark: boolean }> {
  const out: Array<{ text: string; mark: boolean }> = [];
  let at = 0;
  for (const [s0, e0] of ranges) {
    const s = Math.max(at, Math.min(s0, text.length));
    const e = Math.max(s, Math.min(e0, text.length));
    if (s > at) out.push({ text: text.slice(at, s), mark: false });
    if (e > s) out.push({ text: text.slice(s, e), mark: true });
    at = e;
  }
  if (at < text.length) out.push({ text: text.slice(at), mark: false });
  return out;
}
