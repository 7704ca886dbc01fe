import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { createEmbedder, type EmbedderOptions } from '../../src/index/embedder';
import { Engine } from '../../src/index/engine';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { runTool } from '../../src/agent/tools';
import { LocalFolder } from '../../src/mcp/folder';
import { besideByScore, OTHER_SHARE } from '../../src/index/rank/beside';
import type { FusedHit } from '../../src/index/rank/fusion';
import type { GoldQuery } from '../../src/eval/mine';
import { STATIC_MODEL_NAME } from '../../src/index/static-model';

/**
 * A transformers.js model with Fathom's own model beside it (`Embedder.companion`): issue 34 asks
 * that all-MiniLM-L6-v2 (or any transformers.js model) stay selectable "alone or fused with
 * Fathom's model". Here on the tiny test model (test/fixtures/models/fathom-tiny-bert), which
 * ranks like a bag of tokens: what is checked is the mechanism, not the quality.
 */
const MODELS = path.join(__dirname, '..', 'fixtures', 'models');
const WORKSPACE = path.join(__dirname, '..', '..', 'sample-workspace');

async function engineWith(options: EmbedderOptions): Promise<Engine> {
  const r = await createEmbedder({ localModelPath: MODELS, model: 'fathom-tiny-bert', ...options });
  if ('error' in r) assert.fail(r.error);
  const e = new Engine({ embedder: r.embedder });
  for await (const _ of e.indexFolder(WORKSPACE)) void _;
  return e;
}

describe('another model with Fathom’s own beside it (Embedder.companion)', () => {
  let fused: Engine;
  let alone: Engine;
  before(async function () {
    this.timeout(60_000);
    fused = await engineWith({});
    alone = await engineWith({ alone: true });
  });
  after(async () => {
    await fused?.embedder?.dispose();
    await alone?.embedder?.dispose();
  });

  it('createEmbedder gives a transformers.js model Fathom’s own as its companion, unless asked alone; Fathom’s own model has none', async () => {
    assert.ok(fused.embedder?.companion?.id.startsWith(STATIC_MODEL_NAME), fused.embedder?.companion?.id);
    assert.equal(alone.embedder?.companion, undefined);
    const own = await createEmbedder({});
    assert.ok('embedder' in own && own.embedder.id.startsWith(STATIC_MODEL_NAME) && own.embedder.companion === undefined);
    // the index stores the other model's vectors only: Fathom's are computed for a query's candidates
    assert.equal(fused.vectors?.dims, fused.embedder?.dims);
    assert.equal(fused.vectors?.count, fused.chunkCount);
  });

  it('a query in words: Fathom’s model re-ranks the keyword and dense candidates, the other model’s ranks join; "why" names both models', async () => {
    const q = 'zoom the map in by one level';
    const hits = await fused.search(q, { k: 10 });
    assert.ok(hits.length > 0);
    assert.ok(hits.some((h) => h.why.reranker === 'fathom-code-search' && h.why.reranked !== undefined), JSON.stringify(hits.map((h) => h.why)));
    for (const h of hits) {
      if (h.why.dense !== undefined) assert.equal(h.why.model, 'fathom-tiny-bert');
      if (h.why.reranked !== undefined) assert.equal(h.why.reranker, 'fathom-code-search');
    }
    // the other model's own ranking took part: its first hit is among the results
    const dense = await fused.search(q, { k: 1, mode: 'dense' });
    assert.ok(hits.some((h) => h.chunk.id === dense[0].chunk.id), `the dense list's first, ${dense[0].chunk.symbol}, is not in the answer`);
    // alone, nothing is re-ranked, and the answer is another
    const plain = await alone.search(q, { k: 10 });
    assert.ok(plain.every((h) => h.why.reranked === undefined && h.why.reranker === undefined));
    assert.notDeepEqual(
      hits.map((h) => h.chunk.id),
      plain.map((h) => h.chunk.id),
    );
  });

  it('a query that names code, and keyword or dense mode, are answered as with the other model alone', async () => {
    for (const [q, mode] of [['getZoomControl', 'hybrid'], ['zoom the map in by one level', 'keyword'], ['zoom the map in by one level', 'dense']] as const) {
      const a = await fused.search(q, { k: 10, mode });
      const b = await alone.search(q, { k: 10, mode });
      assert.deepEqual(
        a.map((h) => [h.chunk.id, h.why]),
        b.map((h) => [h.chunk.id, h.why]),
        `${mode} "${q}"`,
      );
    }
  });
});

describe('fathom mcp: status names Fathom’s model beside the other one', () => {
  it('status says the meaning model and the one beside it; with --model-alone, only the first', async function () {
    this.timeout(60_000);
    for (const alone of [false, true]) {
      const r = await createEmbedder({ localModelPath: MODELS, model: 'fathom-tiny-bert', alone });
      if ('error' in r) assert.fail(r.error);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-companion-'));
      fs.cpSync(WORKSPACE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
      const f = LocalFolder.open(dir, { watch: false, embedder: r.embedder, log: () => undefined });
      try {
        f.start();
        await f.indexed;
        const st = await runTool('status', {}, { folders: [f] });
        const folder = (st.structured.folders as Array<{ model?: string; companion?: string }>)[0];
        assert.equal(folder.model, r.embedder.id);
        if (alone) {
          assert.equal(folder.companion, undefined);
          assert.doesNotMatch(st.text, /beside it/);
        } else {
          assert.ok(folder.companion?.startsWith(STATIC_MODEL_NAME), folder.companion);
          assert.match(st.text, /meaning: fathom-tiny-bert\S*, with fathom-code-search\S* beside it/);
        }
      } finally {
        await f.close();
        await r.embedder.dispose();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('besideByScore', () => {
  it('combines Fathom’s order and another model’s cosines by score, a third to the other; keeps the keyword rank and re-ranking, takes the other’s rank', () => {
    assert.equal(OTHER_SHARE, 1 / 3);
    const first: FusedHit[] = [
      { docId: 1, score: 1, why: { fused: 1, keyword: 2, dense: 5, reranked: 3 } },
      { docId: 2, score: 0.5, why: { fused: 0.5, keyword: 1 } },
      { docId: 3, score: 0, why: { fused: 0, dense: 1 } },
    ];
    // the other model: 3 best, then 4 (not in Fathom's order), then 2; 1 has no cosine
    const out = besideByScore(first, { name: 'dense', ids: [3, 4, 2], scores: new Map([[3, 0.9], [4, 0.6], [2, 0.3]]) });
    assert.deepEqual(
      out.map((h) => [h.docId, Math.round(h.score * 1000) / 1000]),
      [[1, 0.667], [2, 0.333], [3, 0.333], [4, 0.167]],
    );
    assert.deepEqual(out[0].why, { fused: out[0].score, keyword: 2, reranked: 3 });
    // a tie keeps Fathom's order; Fathom's own dense rank is not the other model's
    assert.deepEqual(out[1].why, { fused: out[1].score, keyword: 1, dense: 3 });
    assert.deepEqual(out[2].why, { fused: out[2].score, dense: 1 });
    assert.deepEqual(out[3].why, { fused: out[3].score, dense: 2 });
  });
});

describe('the ranking fixture with the tiny model and Fathom’s beside it', () => {
  it('keeps first the answers in words that Fathom’s model alone puts first, where the tiny model alone also did', async function () {
    this.timeout(60_000);
    const root = path.join(__dirname, '..', 'fixtures', 'ranking');
    const gold = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'ranking.gold.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as GoldQuery);
    const engines: Engine[] = [];
    for (const options of [{}, { alone: true }, { localModelPath: undefined, model: undefined }]) {
      const r = await createEmbedder({ localModelPath: MODELS, model: 'fathom-tiny-bert', ...options });
      if ('error' in r) assert.fail(r.error);
      const e = new Engine({ embedder: r.embedder });
      for await (const _ of e.indexFolder(root)) void _;
      engines.push(e);
    }
    const [withOwn, tinyAlone, own] = engines;
    assert.ok(own.embedder?.id.startsWith(STATIC_MODEL_NAME));
    const first = async (e: Engine, q: string) => (await e.search(q, { k: 5 }))[0]?.chunk.path;
    const words = gold.filter((g) => !/[A-Z(]/.test(g.query.slice(1)) && g.query.split(' ').length >= 3);
    assert.ok(words.length >= 5, `${words.length} queries in words`);
    for (const g of words) {
      if ((await first(own, g.query)) !== g.file || (await first(tinyAlone, g.query)) !== g.file) continue;
      assert.equal(await first(withOwn, g.query), g.file, g.query);
    }
    for (const e of engines) await e.embedder?.dispose();
  });
});
