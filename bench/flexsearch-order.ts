/**
 * The benchmarks' baseline scoring, kept out of the product: FlexSearch's own multi-term search
 * over Fathom's keyword index (`suggest: true`: documents matching more query terms first, then
 * the better slot, then the earlier added). No term weighting — `get` counts as much as
 * `getzoomcontrol` — and ties follow insertion order. `score` is 1 / rank. bench/keyword.ts
 * compares it with Fathom's BM25F (`scoring: 'bm25'`, the only scoring the product has).
 */
import { KeywordIndex, type KeywordHit, type KeywordSearchOptions, type QueryPlan } from '../src/index/keyword';

export type Scoring = 'flexsearch' | 'bm25';

export class FlexsearchOrderIndex extends KeywordIndex {
  override search(query: string, options: KeywordSearchOptions & { scoring?: Scoring } = {}): KeywordHit[] {
    this.scoringOfQuery = options.scoring ?? 'bm25';
    try {
      return super.search(query, options);
    } finally {
      this.scoringOfQuery = 'bm25';
    }
  }

  private scoringOfQuery: Scoring = 'bm25';

  protected override rank(plan: QueryPlan, k: number, pass: ((i: number) => boolean) | undefined, options: KeywordSearchOptions): KeywordHit[] {
    if (this.scoringOfQuery !== 'flexsearch') return super.rank(plan, k, pass, options);
    if (this.base) this.baseToFx();
    const known = plan.ids.map((id) => this.vocabStr[id]);
    const N = this.records.length;
    const out: KeywordHit[] = [];
    const push = (i: number) => out.push({ docId: this.extOf[i], score: 1 / (out.length + 1), rank: out.length + 1 });
    if (!pass) {
      for (const i of this.fx.search(known as unknown as string, { limit: k, suggest: true }) as number[]) push(i);
      return out;
    }
    // 4× what is wanted first; when too few pass, everything that matches.
    let checked = 0;
    for (let limit = Math.min(N, k * 4); ; limit = N) {
      const got = this.fx.search(known as unknown as string, { limit, suggest: true }) as number[];
      for (; checked < got.length && out.length < k; checked++) if (pass(got[checked])) push(got[checked]);
      if (out.length >= k || got.length < limit || limit >= N) return out;
    }
  }
}
