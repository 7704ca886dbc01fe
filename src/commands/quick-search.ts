/**
 * "Fathom: Search" in a QuickPick: live (debounced) as you type, each result previewed in the
 * editor as it is highlighted (range selected, focus kept in the picker); accepting opens it,
 * Escape goes back to the editor you were in.
 */
import * as vscode from 'vscode';
import { CancelledError, type IndexClient } from '../service/client';
import type { WorkerHit } from '../service/protocol';
import { paletteRow, queryNote, queryTerms } from '../editor/results';
import { openHit } from './open';
import { errText } from '../util/errors';

interface HitItem extends vscode.QuickPickItem {
  hit?: WorkerHit;
}

export interface QuickSearchDeps {
  client: IndexClient;
  roots(): string[];
  k(): number;
  rrfK(): number;
  log: vscode.LogOutputChannel;
  folderName(root: string): string | undefined;
}

function itemOf(h: WorkerHit, terms: string[], multiRoot: boolean, folderName: (r: string) => string | undefined): HitItem {
  return {
    ...paletteRow(h, terms, multiRoot ? folderName(h.root) : undefined),
    alwaysShow: true, // the engine ranked them: the picker must not filter them again
    hit: h,
  };
}

export async function quickSearch(deps: QuickSearchDeps, initial = ''): Promise<void> {
  const qp = vscode.window.createQuickPick<HitItem>();
  qp.title = 'Fathom: Search';
  qp.placeholder = 'Search the workspace by meaning or by name';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  qp.value = initial;
  const before = vscode.window.activeTextEditor;
  const beforeSel = before?.selection;
  let timer: NodeJS.Timeout | undefined;
  let accepted = false;
  let seq = 0;

  const run = async (q: string) => {
    const mine = ++seq;
    if (!q.trim()) {
      qp.items = [];
      qp.busy = false;
      return;
    }
    qp.busy = true;
    try {
      const hits = await deps.client.search(q, { k: deps.k(), rrfK: deps.rrfK(), roots: deps.roots() });
      if (mine !== seq) return;
      const terms = queryTerms(q);
      const multi = deps.roots().length > 1;
      const items: HitItem[] = hits.map((h) => itemOf(h, terms, multi, deps.folderName));
      // a query of only punctuation, or a regex: say why (nothing matched, or what was ignored)
      const note = queryNote(q, hits.length);
      if (note) items.push({ label: `$(info) ${hits.length ? 'Note' : 'No results'}`, detail: note, alwaysShow: true });
      qp.items = items;
    } catch (e) {
      if (e instanceof CancelledError || mine !== seq) return;
      deps.log.error(`search failed: ${errText(e)}`);
      qp.items = [];
    } finally {
      if (mine === seq) qp.busy = false;
    }
  };

  qp.onDidChangeValue((v) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(v), 150);
  });
  qp.onDidChangeActive((items) => {
    const h = items[0]?.hit;
    if (h) openHit(h, { preview: true, preserveFocus: true }).catch((e: unknown) => deps.log.warn(`preview failed: ${errText(e)}`));
  });
  qp.onDidAccept(() => {
    const h = qp.activeItems[0]?.hit;
    if (!h) return;
    accepted = true;
    qp.hide();
    openHit(h, { preview: false }).catch((e: unknown) => deps.log.error(`could not open ${h.chunk.path}: ${errText(e)}`));
  });
  qp.onDidHide(() => {
    if (timer) clearTimeout(timer);
    qp.dispose();
    if (!accepted && before && !before.document.isClosed) {
      void vscode.window.showTextDocument(before.document, { viewColumn: before.viewColumn, selection: beforeSel, preview: false });
    }
  });
  qp.show();
  if (initial) void run(initial);
}
