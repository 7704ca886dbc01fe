/**
 * The sidebar's host-side message handling (src/editor/search-controller.ts) with fake search and
 * a recorded post: what the webview would receive, without an editor.
 */
import * as assert from 'node:assert/strict';
import { CancelledError } from '../../src/service/client';
import type { SearchOptions } from '../../src/index/engine';
import type { WorkerHit } from '../../src/service/protocol';
import type { HostToView } from '../../src/editor/messages';
import { SearchController, SIMILAR_STALE_NOTE } from '../../src/editor/search-controller';
import { chunk, hit } from '../helpers/hits';

const filters = { language: '', paths: '' };

function setup(search: (q: string, o: SearchOptions) => Promise<WorkerHit[]>, hasVectors?: () => boolean) {
  const posted: HostToView[] = [];
  const opened: Array<{ hit: WorkerHit; preview: boolean }> = [];
  const logs: string[] = [];
  const calls: string[] = [];
  const first: string[] = [];
  const ctl = new SearchController({
    search,
    post: (m) => posted.push(m),
    open: (h, preview) => void opened.push({ hit: h, preview }),
    similar: (h) => void calls.push(`similar ${h.chunk.path}`),
    cancelIndex: () => void calls.push('cancel'),
    pause: () => void calls.push('pause'),
    resume: () => void calls.push('resume'),
    log: (level, m) => void logs.push(`${level}: ${m}`),
    options: () => ({ k: 7, rrfK: 30 }),
    onFirstResults: (_ms, q) => void first.push(q),
    hasVectors,
  });
  const results = () => posted.filter((m): m is Extract<HostToView, { type: 'results' }> => m.type === 'results');
  return { ctl, posted, opened, logs, calls, results, first };
}

describe('search view controller', function () {
  it('a search posts grouped results with the options and filters passed to the engine', async function () {
    let seen: SearchOptions | undefined;
    const t = setup(async (q, o) => {
      seen = o;
      return [hit(chunk('src/zoom.js', `function zoom() {}\n// ${q}`))];
    });
    await t.ctl.handle({ type: 'search', seq: 1, query: 'zoom', filters: { language: 'javascript', paths: 'src/**' } });
    assert.deepEqual(seen, { k: 7, rrfK: 30, filters: { pathGlob: ['src/**'], language: ['javascript'] } });
    const [r] = t.results();
    assert.equal(r.seq, 1);
    assert.equal(r.total, 1);
    assert.equal(r.groups[0].path, 'src/zoom.js');
    assert.equal(r.mode, 'keyword');
    assert.deepEqual(t.first, ['zoom']);
  });

  it('results of an older query that finish late are dropped', async function () {
    const gates: Array<() => void> = [];
    const t = setup((q) => new Promise((resolve) => gates.push(() => resolve([hit(chunk(`${q}.js`, q))]))));
    const a = t.ctl.handle({ type: 'search', seq: 1, query: 'old', filters });
    const b = t.ctl.handle({ type: 'search', seq: 2, query: 'new', filters });
    gates[1]();
    await b;
    gates[0]();
    await a;
    assert.deepEqual(t.results().map((r) => r.query), ['new']);
  });

  it('a superseded (cancelled) search posts nothing; a failing one posts an error', async function () {
    const t = setup(async (q) => {
      if (q === 'cancel') throw new CancelledError();
      throw new Error('worker broke');
    });
    await t.ctl.handle({ type: 'search', seq: 1, query: 'cancel', filters });
    assert.equal(t.posted.length, 0);
    await t.ctl.handle({ type: 'search', seq: 2, query: 'fail', filters });
    assert.deepEqual(t.posted, [{ type: 'error', seq: 2, message: 'worker broke' }]);
  });

  it('an empty query clears without searching; a replayed older seq is ignored', async function () {
    let n = 0;
    const t = setup(async () => {
      n++;
      return [];
    });
    await t.ctl.handle({ type: 'search', seq: 5, query: '   ', filters });
    await t.ctl.handle({ type: 'search', seq: 4, query: 'x', filters });
    assert.equal(n, 0);
    assert.equal(t.results()[0].total, 0);
  });

  it('open names a posted result by key and passes preview; unknown keys and bad messages are logged, not thrown', async function () {
    const h = hit(chunk('a.js', 'alpha'));
    const t = setup(async () => [h]);
    await t.ctl.handle({ type: 'search', seq: 1, query: 'alpha', filters });
    const key = t.results()[0].groups[0].hits[0].key;
    await t.ctl.handle({ type: 'open', key, preview: true });
    assert.equal(t.opened.length, 1);
    assert.equal(t.opened[0].hit, h);
    assert.equal(t.opened[0].preview, true);
    await t.ctl.handle({ type: 'open', key: 'nope' });
    await t.ctl.handle({ type: 'exec', command: 'x' });
    await t.ctl.handle('garbage');
    assert.equal(t.opened.length, 1);
    assert.equal(t.logs.length, 3);
    await t.ctl.handle({ type: 'similar', key });
    await t.ctl.handle({ type: 'cancelIndex' });
    assert.deepEqual(t.calls, ['similar a.js', 'cancel']);
  });

  it('refresh re-runs the query shown as the index grows; ready replays state and results', async function () {
    let grown = false;
    const t = setup(async () => (grown ? [hit(chunk('a.js', 'zoom')), hit(chunk('b.js', 'zoom'))] : [hit(chunk('a.js', 'zoom'))]));
    await t.ctl.handle({ type: 'search', seq: 1, query: 'zoom', filters });
    grown = true;
    await t.ctl.refresh();
    assert.deepEqual(t.results().map((r) => r.total), [1, 2]);
    t.ctl.setState({ text: '2 files', indexing: false, paused: false });
    t.posted.length = 0;
    await t.ctl.handle({ type: 'ready' });
    assert.deepEqual(t.posted.map((m) => m.type), ['state', 'results']);
  });

  it('a refresh that finds nothing while the index fills up again keeps the results shown; a typed query that finds nothing clears them', async function () {
    let answer = [hit(chunk('a.js', 'zoom'))];
    let indexing = false;
    const posted: HostToView[] = [];
    const logs: string[] = [];
    const ctl = new SearchController({
      search: async () => answer,
      post: (m) => posted.push(m),
      open: () => undefined,
      similar: () => undefined,
      cancelIndex: () => undefined,
      pause: () => undefined,
      resume: () => undefined,
      log: (_l, m) => void logs.push(m),
      isIndexing: () => indexing,
    });
    const totals = () => posted.flatMap((m) => (m.type === 'results' ? [m.total] : []));
    await ctl.handle({ type: 'search', seq: 1, query: 'zoom', filters });
    // the store was reset (a setting changed): the index is empty while it fills up again
    answer = [];
    indexing = true;
    await ctl.refresh();
    assert.deepEqual(totals(), [1], 'the list is not cleared by a refresh of an index filling up');
    assert.match(logs.join('\n'), /kept the 1 results of "zoom"/);
    answer = [hit(chunk('a.js', 'zoom')), hit(chunk('b.js', 'zoom'))];
    await ctl.refresh();
    assert.deepEqual(totals(), [1, 2]);
    // done indexing, nothing found: that is the answer
    answer = [];
    indexing = false;
    await ctl.refresh();
    assert.deepEqual(totals(), [1, 2, 0]);
    // a query the user typed is answered as it is, even while indexing
    answer = [hit(chunk('a.js', 'zoom'))];
    await ctl.handle({ type: 'search', seq: 2, query: 'zoom', filters });
    answer = [];
    indexing = true;
    await ctl.handle({ type: 'search', seq: 3, query: 'zoom', filters });
    assert.deepEqual(totals(), [1, 2, 0, 1, 0]);
  });

  it('Find Similar results show with a title, and refresh leaves them alone', async function () {
    let n = 0;
    const t = setup(async () => {
      n++;
      return [];
    });
    t.ctl.showResults('Similar to a.js:1', [hit(chunk('b.js', 'x'))]);
    await t.ctl.refresh();
    assert.equal(n, 0);
    const [r] = t.results();
    assert.equal(r.title, 'Similar to a.js:1');
    assert.equal(r.seq, -1);
  });

  it('Find Similar results found keyword-only say so once a model answers, instead of "keyword-only" staying as if still true', function () {
    let vectors = false;
    const t = setup(async () => [], () => vectors);
    t.ctl.showResults('Similar to a.js:1', [hit(chunk('b.js', 'x'))]);
    const state = { text: 'Embedding 5% (288 / 5,636 chunks)', indexing: true, percent: 5, paused: false };
    t.ctl.setState(state);
    assert.equal(t.results().length, 1, 'no model yet: nothing to say');
    assert.equal(t.results()[0].mode, 'keyword');
    vectors = true;
    t.ctl.setState(state);
    t.ctl.setState(state);
    const r = t.results();
    assert.equal(r.length, 2, 're-posted once, not at every progress event');
    assert.equal(r[1].title, 'Similar to a.js:1');
    assert.equal(r[1].mode, 'keyword', 'they were found by keywords');
    assert.equal(r[1].note, SIMILAR_STALE_NOTE);
    // the page reloads: the same
    void t.ctl.handle({ type: 'ready' });
    assert.equal(t.results()[2].note, SIMILAR_STALE_NOTE);
    // new Find Similar results with the model: no note
    t.ctl.showResults('Similar to c.js:1', [hit(chunk('d.js', 'y'))]);
    assert.equal(t.results()[3].note, undefined);
    assert.equal(t.results()[3].mode, 'hybrid');
  });

  it('a page loaded again (the view hidden and shown) counts its queries from 1: they are answered, not dropped as replays', async function () {
    const t = setup(async (q) => [hit(chunk(`${q}.js`, q))]);
    for (let i = 1; i <= 5; i++) await t.ctl.handle({ type: 'search', seq: i, query: `q${i}`, filters });
    await t.ctl.handle({ type: 'ready' });
    assert.equal(t.results().at(-1)!.query, 'q5', 'the page gets the results shown');
    await t.ctl.handle({ type: 'search', seq: 1, query: 'again', filters });
    assert.equal(t.results().at(-1)!.query, 'again');
    assert.equal(t.results().at(-1)!.seq, 1);
  });

  it("a search the page before asked for, finishing after the page loaded again, is not posted to the new one", async function () {
    const gates: Array<() => void> = [];
    const t = setup((q) => new Promise((resolve) => gates.push(() => resolve([hit(chunk(`${q}.js`, q))]))));
    const old = t.ctl.handle({ type: 'search', seq: 9, query: 'old page', filters });
    await t.ctl.handle({ type: 'ready' });
    gates[0]();
    await old;
    assert.ok(!t.results().some((r) => r.query === 'old page'));
  });
});
