/**
 * Retrieval quality of an indexed workspace against gold queries, per route and per mode:
 * hit@K = the gold file among the files of the top-K chunks; sym_hit@5 = the gold symbol's
 * text inside one of the top-5 chunks, its breadcrumb header included (the header is part of
 * the chunk as it is embedded and shown: a Vue component's chunks name it in theirs,
 * `<!-- src/KZoomControl.vue — zoom control [template] -->`, as the prior art's chunks carry their
 * header in their text); MRR = reciprocal rank of the first chunk from the gold file (0 past the
 * top 10). The definitions of ../shared/PRIOR_ART.md §3.
 */
import type { Chunk } from '../chunkers/types';
import type { Engine, SearchMode } from '../index/engine';
import type { GoldQuery } from './mine';

/** Whether a chunk holds a gold symbol's text: in its text or in its breadcrumb header. */
export function holdsSymbol(chunk: Pick<Chunk, 'header' | 'text'>, symbol: string): boolean {
  return chunk.text.includes(symbol) || chunk.header.includes(symbol);
}

export interface RouteScores {
  queries: number;
  hit3: number;
  hit5: number;
  hit10: number;
  symHit5: number;
  mrr: number;
}

export type EvalReport = Record<SearchMode, Record<string, RouteScores>>;

export async function evaluate(engine: Engine, gold: GoldQuery[], modes: SearchMode[]): Promise<Partial<EvalReport>> {
  const report: Partial<EvalReport> = {};
  for (const mode of modes) {
    const sums = new Map<string, RouteScores>();
    const add = (route: string, s: Omit<RouteScores, 'queries'>) => {
      for (const key of [route, 'all']) {
        const t = sums.get(key) ?? { queries: 0, hit3: 0, hit5: 0, hit10: 0, symHit5: 0, mrr: 0 };
        t.queries++;
        t.hit3 += s.hit3;
        t.hit5 += s.hit5;
        t.hit10 += s.hit10;
        t.symHit5 += s.symHit5;
        t.mrr += s.mrr;
        sums.set(key, t);
      }
    };
    for (const g of gold) {
      const hits = await engine.search(g.query, { k: 10, mode });
      const first = hits.findIndex((h) => h.chunk.path === g.file);
      const within = (k: number) => (first >= 0 && first < k ? 1 : 0);
      const sym = g.symbol ? hits.slice(0, 5).some((h) => holdsSymbol(h.chunk, g.symbol!)) : first >= 0 && first < 5;
      add(g.route, { hit3: within(3), hit5: within(5), hit10: within(10), symHit5: sym ? 1 : 0, mrr: first >= 0 ? 1 / (first + 1) : 0 });
    }
    const routes: Record<string, RouteScores> = {};
    for (const [route, t] of [...sums].sort((a, b) => (a[0] === 'all' ? 1 : b[0] === 'all' ? -1 : a[0] < b[0] ? -1 : 1))) {
      const n = t.queries || 1;
      routes[route] = { queries: t.queries, hit3: t.hit3 / n, hit5: t.hit5 / n, hit10: t.hit10 / n, symHit5: t.symHit5 / n, mrr: t.mrr / n };
    }
    report[mode] = routes;
  }
  return report;
}

export function formatReport(report: Partial<EvalReport>): string {
  const head = ['mode', 'route', 'queries', 'hit@3', 'hit@5', 'hit@10', 'sym_hit@5', 'MRR'];
  const rows: string[][] = [];
  for (const [mode, routes] of Object.entries(report)) {
    for (const [route, s] of Object.entries(routes ?? {})) {
      rows.push([mode, route, String(s.queries), s.hit3.toFixed(3), s.hit5.toFixed(3), s.hit10.toFixed(3), s.symHit5.toFixed(3), s.mrr.toFixed(3)]);
    }
  }
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < 2 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}
