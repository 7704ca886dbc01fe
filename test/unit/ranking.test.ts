import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createEmbedder } from '../../src/index/embedder';
import { Engine, type IndexProgress } from '../../src/index/engine';
import type { GoldQuery } from '../../src/eval/mine';

/**
 * The ranking fixture: a small crisis-map workspace (JS, Vue Options API and <script setup>,
 * i18n in three locales, JSON Schemas with form components, Markdown docs) and the expected
 * answer of each query, per route (test/fixtures/ranking.gold.jsonl, outside the workspace so
 * it is not indexed). Keyword search must put the right file first and, where the query names a
 * symbol, a chunk holding it; the tiny test model must not push any answer out of the top 10.
 */
const ROOT = path.join(__dirname, '..', 'fixtures', 'ranking');
const GOLD: GoldQuery[] = fs
  .readFileSync(path.join(__dirname, '..', 'fixtures', 'ranking.gold.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as GoldQuery);

async function index(engine: Engine): Promise<void> {
  const gen: AsyncGenerator<IndexProgress> = engine.indexFolder(ROOT);
  for await (const _ of gen) void _;
}

describe('ranking fixture: expected top results per route', () => {
  const keyword = new Engine({ noEmbedderReason: 'keyword-only test' });
  before(() => index(keyword));

  it('covers every route', () => {
    assert.deepEqual([...new Set(GOLD.map((g) => g.route))].sort(), ['i18n', 'js', 'markdown', 'schema', 'vue']);
  });

  for (const g of GOLD) {
    it(`keyword [${g.route}] "${g.query}" → ${g.file}`, async () => {
      const hits = await keyword.search(g.query, { k: 10, mode: 'keyword' });
      assert.ok(hits.length > 0, 'no results');
      assert.equal(hits[0].chunk.path, g.file, `top: ${hits.slice(0, 3).map((h) => `${h.chunk.path} ${h.chunk.symbol ?? ''}`).join(' | ')}`);
      if (g.symbol) {
        const c = hits[0].chunk;
        const named = c.symbol === g.symbol || c.symbol?.endsWith(`.${g.symbol}`);
        assert.ok(named || c.text.includes(g.symbol), `the first chunk (${c.symbol}) is not ${g.symbol} and does not hold it`);
      }
    });
  }

  it('a string in any locale finds the file of that locale first, the same key in the others next', async () => {
    const fr = await keyword.search('Quelle est sa gravité ?', { k: 5, mode: 'keyword' });
    assert.equal(fr[0].chunk.path, 'locales/fr.json');
    assert.match(fr[0].chunk.header, /events/);
    const de = await keyword.search('Wie schwer ist es?', { k: 5, mode: 'keyword' });
    assert.equal(de[0].chunk.path, 'locales/de.json');
  });

  it('a phrase written as in the file ranks above chunks that only share its words', async () => {
    const e = new Engine({ noEmbedderReason: 'test' });
    const put = (rel: string, text: string) => e.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
    put('langs/hr.json', '{"BA": "Bosna i Hercegovina", "AG": "Antigva i Barbuda"}');
    put('langs/es.json', '{"BA": "Bosnia y Herzegovina", "AG": "Antigua y Barbuda"}');
    put('langs/en.json', '{"BA": "Bosnia and Herzegovina", "AG": "Antigua and Barbuda"}');
    put('langs/pt.json', '{"BA": "Bósnia e Herzegovina", "AG": "Antígua e Barbuda"}');
    put('langs/it.json', '{"BA": "Bosnia ed Erzegovina", "AG": "Antigua e Barbuda"}');
    const top = async (q: string) => (await e.search(q, { k: 5, mode: 'keyword' }))[0]?.chunk.path;
    assert.equal(await top('Bosnia y Herzegovina'), 'langs/es.json');
    assert.equal(await top('Antígua e Barbuda'), 'langs/pt.json', 'accents as written win');
    assert.equal(await top('antigua e barbuda'), 'langs/it.json', 'then the phrase ignoring case');
    assert.equal(await top('Bosnia and Herzegovina'), 'langs/en.json');
  });

  describe('with the tiny test model (hybrid)', () => {
    let fresh: Engine;
    before(async () => {
      const r = await createEmbedder({ localModelPath: path.join(__dirname, '..', 'fixtures', 'models', 'fathom-tiny-bert') });
      if ('error' in r) assert.fail(r.error);
      fresh = new Engine({ embedder: r.embedder });
      await index(fresh);
    });
    after(() => fresh?.embedder?.dispose());

    it('keeps every answer within the top 10 and most in the top 3', async () => {
      assert.ok(fresh.vectors && fresh.vectors.count === fresh.chunkCount, 'every chunk has a vector');
      let top3 = 0;
      for (const g of GOLD) {
        const hits = await fresh.search(g.query, { k: 10 });
        const rank = hits.findIndex((h) => h.chunk.path === g.file);
        assert.ok(rank >= 0, `"${g.query}": ${g.file} not in the hybrid top 10`);
        assert.ok(hits.every((h) => h.why.fused > 0));
        if (rank < 3) top3++;
      }
      assert.ok(top3 / GOLD.length >= 0.9, `hybrid hit@3 ${top3}/${GOLD.length}`);
    });
  });
});
