import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { CHUNKER_VERSION } from '../../src/chunkers/types';
import { Engine } from '../../src/index/engine';
import type { SearchHit } from '../../src/index/engine';
import { phraseFirst, proximityOrder, proximityText } from '../../src/index/rank/phrase';
import { loadStaticModel } from '../../src/index/static-model';
import { plainWordsQueries } from '../helpers/plain-queries';
import { agreement, hitKey as key } from '../helpers/agreement';
import { connectPg, isConnectionLoss, migrate, overlayHits, pgSearch, PG_SCHEMA_VERSION, pushFolder, RemoteIndex, searchWithOverlay, type RemoteState, type Sql } from '../../src/index/pgstore';
import { mineGold } from '../../src/eval/mine';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { NAMED_FIELDS, NAMESAKES, namedLayout, namesakeLayout, NUXT_NAMES, nuxtLayout } from '../helpers/named-layout';
import { codeNames, namesakesFirst, unitNames } from '../../src/index/rank/names';
import { WorkerState } from '../../src/service/worker';

/** Every term's document frequency, counted from the chunks' records (what `fathom_terms` must hold). */
async function countedTerms(db: Sql): Promise<Map<string, number>> {
  const r = await db.query<{ term: string; n: number }>('select t as term, count(*)::int as n from fathom_chunks, unnest(rec_terms) as u(t) group by t');
  return new Map(r.rows.map((x) => [x.term, x.n]));
}
async function storedTerms(db: Sql): Promise<Map<string, number>> {
  const r = await db.query<{ term: string; df: number }>('select term, df from fathom_terms');
  return new Map(r.rows.map((x) => [x.term, x.df]));
}
/** The derived tables and totals agree with the chunks: document frequencies, postings, count, field lengths. */
async function assertConsistent(db: Sql, what = ''): Promise<void> {
  assert.deepEqual(await storedTerms(db), await countedTerms(db), `document frequencies ${what}`);
  const diff = await db.query<{ n: number }>(
    `select count(*)::int as n from ((select term, id from fathom_postings except all select t, id from fathom_chunks, unnest(rec_terms) as u(t))
      union all (select t, id from fathom_chunks, unnest(rec_terms) as u(t) except all select term, id from fathom_postings)) d`,
  );
  assert.equal(diff.rows[0].n, 0, `postings = the chunks' terms ${what}`);
  const t = (await db.query<{ n: string; l: string }>("select count(*)::text as n, coalesce(sum(lens[1]), 0) || ',' || coalesce(sum(lens[2]), 0) || ',' || coalesce(sum(lens[3]), 0) || ',' || coalesce(sum(lens[4]), 0) as l from fathom_chunks")).rows[0];
  const m = new Map((await db.query<{ key: string; value: string }>("select key, value from fathom_meta where key in ('chunks', 'len_sums')")).rows.map((r) => [r.key, r.value]));
  assert.deepEqual([m.get('chunks'), m.get('len_sums')], [t.n, t.l], `chunk count and field length sums ${what}`);
}

const REPO = path.join(__dirname, '..', '..');

function copyTree(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}


async function freshDb(): Promise<PGlite> {
  const db = await PGlite.create({ extensions: { vector } });
  return db;
}

let schemas = 0;
/**
 * An empty index inside the file's one database (starting PGlite takes seconds): a schema of its
 * own first on the search path (pgvector's types stay found in `public`), dropped afterwards.
 * PGlite has one session, so this holds for its socket server's clients too.
 */
async function scratchIndex<T>(db: PGlite, body: () => Promise<T>): Promise<T> {
  const name = `scratch_${++schemas}`;
  await db.query(`create schema ${name}`);
  await db.query(`set search_path = ${name}, public`);
  try {
    return await body();
  } finally {
    await db.query('set search_path = public');
    await db.query(`drop schema ${name} cascade`);
  }
}

describe('PostgreSQL team index (PGlite with pgvector)', function () {
  this.timeout(600_000);
  let db: PGlite;
  let work: string;

  before(async () => {
    db = await freshDb();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pg-'));
    // real code: the search core and the chunkers of this repository
    copyTree(path.join(REPO, 'src', 'index'), path.join(work, 'ws', 'index'));
    copyTree(path.join(REPO, 'src', 'chunkers'), path.join(work, 'ws', 'chunkers'));
    copyTree(path.join(REPO, 'sample-workspace'), path.join(work, 'ws', 'sample'));
  });
  after(async () => {
    await db?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('migrates a fresh database to the current schema once, and refuses a newer schema', async () => {
    const scratch = db;
    await scratchIndex(db, async () => {
      assert.deepEqual(await migrate(scratch), { from: 0, to: PG_SCHEMA_VERSION });
      assert.deepEqual(await migrate(scratch), { from: PG_SCHEMA_VERSION, to: PG_SCHEMA_VERSION });
      await scratch.query("update fathom_meta set value = '99' where key = 'schema_version'");
      await assert.rejects(migrate(scratch), /schema version 99, newer than this Fathom's/);
      await scratch.query("update fathom_meta set value = 'x' where key = 'schema_version'");
      await assert.rejects(migrate(scratch), /unreadable schema version/);
    });
  });

  it('migrates an index of schema 1 with its data (records, postings, document frequencies made from the stored chunks), answers as a fresh push', async () => {
    const scratch = db;
    const ws = path.join(work, 'ws', 'sample');
    await scratchIndex(db, async () => {
      // the reference: the folder pushed at the current schema
      await pushFolder(scratch, ws);
      const answer = async (q: string) => (await pgSearch(scratch, q, { k: 10, mode: 'keyword' })).map(key);
      const queries = ['zoom control', 'i18n', 'KZoomControl', 'map layer'];
      const before = await Promise.all(queries.map(answer));
      assert.ok(before.every((a) => a.length > 0));
      // the same files and chunks as schema 1 stored them (a tsvector, no records), in a schema of their own
      const current = (await scratch.query<{ s: string }>('select current_schema() as s')).rows[0].s;
      await scratch.query('create schema old_one');
      try {
        await scratch.query('set search_path = old_one, public');
        assert.deepEqual(await migrate(scratch, 1), { from: 0, to: 1 });
        await scratch.query(`insert into fathom_files select path, hash, size, language, record from ${current}.fathom_files`);
        await scratch.query(`insert into fathom_chunks (path, ord, language, kind, text_hash, chunk, tsv) select path, ord, language, kind, text_hash, chunk, to_tsvector('simple', chunk->>'text') from ${current}.fathom_chunks order by id`);
        // (with this Fathom's chunkers' version: the chunks are this Fathom's; an index an earlier one chunked is pushed again, tested below)
        await scratch.query(`insert into fathom_meta select key, value from ${current}.fathom_meta where key in ('chunking', 'chunker')`);
        assert.deepEqual(await migrate(scratch), { from: 1, to: PG_SCHEMA_VERSION });
        assert.equal((await scratch.query<{ n: number }>("select count(*)::int as n from information_schema.columns where table_schema = 'old_one' and column_name = 'tsv'")).rows[0].n, 0, 'the tsvector is gone');
        await assertConsistent(scratch, 'after the migration');
        assert.deepEqual(await Promise.all(queries.map(answer)), before);
        const again = await pushFolder(scratch, ws);
        assert.equal(again.written, 0, 'the migrated index is still current: nothing re-pushed');
        assert.equal(again.rebuilt, undefined);
      } finally {
        await scratch.query(`set search_path = ${current}, public`);
        await scratch.query('drop schema old_one cascade');
      }
    });
  });

  it('a first push builds the postings key once at the end; one that died midway leaves it out and the next push puts it back', async () => {
    const scratch = db;
    const ws = path.join(work, 'ws');
    const hasKey = async () => (await scratch.query<{ n: number }>("select count(*)::int as n from pg_indexes where indexname = 'fathom_postings_key' and schemaname = current_schema()")).rows[0].n === 1;
    await scratchIndex(db, async () => {
      // the push dies when it comes to build the key (after loading every batch)
      let loaded = false;
      const dying: Sql = {
        query: (t: string, p?: unknown[]) => {
          if (/insert into fathom_postings/.test(t)) loaded = true;
          if (loaded && /create unique index if not exists fathom_postings_key/.test(t)) return Promise.reject(new Error('connection lost'));
          return scratch.query(t, p as never[]) as never;
        },
      };
      await assert.rejects(pushFolder(dying, ws), /connection lost/);
      assert.ok((await scratch.query<{ n: number }>('select count(*)::int as n from fathom_files')).rows[0].n > 0, 'a first batch was written');
      assert.equal(await hasKey(), false, 'left out while bulk loading');
      const s = await pushFolder(scratch, ws);
      assert.ok(s.unchanged > 0 && s.written === 0, JSON.stringify(s));
      assert.equal(await hasKey(), true);
      await assertConsistent(scratch, 'after a resumed push');
      const plan = (await scratch.query<Record<string, string>>("explain select id from fathom_postings where term = 'zoom'")).rows.map((r) => Object.values(r)[0]).join('\n');
      assert.match(plan, /fathom_postings_key/, plan);
    });
  });

  it("with Fathom's own model and pgvector, a plain-words hybrid search combines the lists by score as the local engine does", async () => {
    // a database of its own: the push creates pgvector's extension, which a scratch schema would take with it when dropped
    const scratch = await freshDb();
    const ws = path.join(work, 'ws', 'index');
    const loaded = loadStaticModel();
    if ('error' in loaded) throw new Error(loaded.error);
    const emb = loaded.embedder;
    try {
      await pushFolder(scratch, ws, { embedder: emb });
      const local = new Engine({ embedder: emb });
      for await (const _ of local.indexFolder(ws)) void _;
      for await (const _ of local.embedPending()) void _;
      // the words of the indexed code's doc comments, reversed: no chunk holds them as written
      const plain = plainWordsQueries(ws);
      assert.ok(plain.length >= 15, `${plain.length} plain-words queries`);
      // each query searched on both sides: top-1 agreement, overlap@10, and both re-rank it (rank/rerank.ts) or neither
      const compare = async (queries: string[], each?: (remote: SearchHit[], here: SearchHit[]) => void) => {
        let top1 = 0;
        let overlap = 0;
        let reranked = 0;
        for (const t of queries) {
          const remote = await pgSearch(scratch, t, { k: 10, embedder: emb, diversify: false });
          const here = await local.search(t, { k: 10, diversify: false });
          const a = agreement(remote, here);
          // HNSW's candidates are not the exact scan's, and the re-ranking scales the model's
          // cosines over its candidates: a near-tie may swap (the local engine scores the remote's
          // first within 15% of its own first)
          const near = !a.top1 && here[1] && remote[0] && key(here[1]) === key(remote[0]) && here[1].score >= 0.85 * here[0].score;
          top1 += a.top1 || near ? 1 : 0;
          overlap += a.overlap;
          if (remote[0]?.why.reranked !== undefined && here[0]?.why.reranked !== undefined) reranked++;
          assert.equal(remote[0]?.why.reranked === undefined, here[0]?.why.reranked === undefined, t);
          each?.(remote, here);
        }
        return { top1: top1 / queries.length, overlap: overlap / queries.length, reranked };
      };
      const words = await compare(plain);
      assert.ok(words.reranked > 0, 'some plain-words query is re-ranked');
      assert.ok(words.top1 >= 0.9, `top-1 agreement ${words.top1.toFixed(3)}`);
      assert.ok(words.overlap >= 0.9, `overlap@10 ${words.overlap.toFixed(3)}`);
      // the same sentences with a Capitalized word (they name code, the model is not asked): the
      // model's first candidates join the keyword list's in the re-ranking, on both sides
      const named: string[] = [];
      for (const t of plain) {
        const w = t.split(' ');
        const at = w.findIndex((x, i) => i > 0 && /^[a-z]{3,}$/.test(x));
        if (w.length >= 6 && at > 0) named.push(w.map((x, i) => (i === at ? x[0].toUpperCase() + x.slice(1) : x)).join(' '));
      }
      assert.ok(named.length >= 10, `${named.length} sentences naming code`);
      const fromModel = (hits: SearchHit[]) => hits.some((h) => h.why.keyword === undefined && h.why.dense !== undefined && h.why.reranked !== undefined);
      let added = 0;
      const naming = await compare(named, (remote, here) => {
        if (fromModel(remote) && fromModel(here)) added++;
      });
      assert.ok(naming.reranked > 0, 'some sentence naming code is re-ranked');
      assert.ok(added > 0, 'a candidate of the model alone is among some re-ranked answer, on both sides');
      assert.ok(naming.top1 >= 0.9, `top-1 agreement ${naming.top1.toFixed(3)}`);
    } finally {
      await scratch.close();
    }
  });

  it('pushes a folder, then pushes only what changed (by content hash), and gives the local store’s results', async () => {
    const ws = path.join(work, 'ws');
    const emb = fakeEmbedder();
    const first = await pushFolder(db, ws, { embedder: emb });
    assert.ok(first.written > 20 && first.chunks > 100, JSON.stringify(first));
    assert.equal(first.unchanged, 0);
    const n = (await db.query<{ n: number }>('select count(*)::int as n from fathom_chunks')).rows[0].n;
    assert.equal(n, first.chunks);
    const embeddedFirst = emb.embedded;
    assert.ok(embeddedFirst <= first.chunks, 'a text shared by two chunks is embedded once');

    const again = await pushFolder(db, ws, { embedder: emb });
    assert.equal(again.written, 0);
    assert.equal(again.unchanged, first.files);
    assert.equal(emb.embedded, embeddedFirst, 'nothing re-embedded');

    // the local engine on the same folder and embedder
    const local = new Engine({ embedder: emb });
    for await (const _ of local.indexFolder(ws)) void _;
    assert.equal(local.chunkCount, first.chunks, 'the same chunks');
    const gold = mineGold(local).slice(0, 60);
    assert.ok(gold.length >= 30, `${gold.length} mined queries`);
    let top1 = 0;
    let found = 0;
    let denseOverlap = 0;
    let hybridOverlap = 0;
    let keywordOverlap = 0;
    for (const g of gold) {
      const remoteK = await pgSearch(db, g.query, { diversify: false, k: 10, mode: 'keyword' });
      const localK = await local.search(g.query, { k: 10, mode: 'keyword', diversify: false });
      const k = agreement(remoteK, localK);
      top1 += k.top1;
      keywordOverlap += k.overlap;
      if (remoteK.slice(0, 5).some((h) => h.chunk.path === g.file)) found++;
      const remoteD = await pgSearch(db, g.query, { diversify: false, k: 10, mode: 'dense', embedder: emb });
      const localD = await local.search(g.query, { k: 10, mode: 'dense', diversify: false });
      denseOverlap += agreement(remoteD, localD).overlap;
      const remoteH = await pgSearch(db, g.query, { diversify: false, k: 10, embedder: emb });
      hybridOverlap += agreement(remoteH, await local.search(g.query, { k: 10, diversify: false })).overlap;
    }
    const q = gold.length;
    // dense: pgvector HNSW against the local exact scan (both undiversified: the rankings themselves),
    // on the same vectors. HNSW is approximate, its graph random
    // per build, and the 64-dim trigram vectors hold exact ties cut at rank 10 differently
    assert.ok(denseOverlap / q >= 0.9, `dense overlap@10 ${(denseOverlap / q).toFixed(3)}`);
    // keyword: the local ranking over the remote postings (the whole candidate budget is read at
    // this size), so the same lists but for float ties; hybrid adds HNSW's approximation
    assert.ok(found / q >= 0.9, `remote keyword hit@5 ${(found / q).toFixed(3)}`);
    assert.ok(keywordOverlap / q >= 0.97, `keyword overlap@10 ${(keywordOverlap / q).toFixed(3)}`);
    assert.ok(top1 / q >= 0.95, `keyword top-1 agreement ${(top1 / q).toFixed(3)}`);
    assert.ok(hybridOverlap / q >= 0.8, `hybrid overlap@10 ${(hybridOverlap / q).toFixed(3)}`);
    await local.embedder?.dispose();
  });

  it('keyword search is the local ranking: the same lists with filters, and with a small candidate budget', async () => {
    const ws = path.join(work, 'ws');
    await pushFolder(db, ws, { embedder: fakeEmbedder() });
    const local = new Engine();
    for await (const _ of local.indexFolder(ws)) void _;
    const gold = mineGold(local).slice(0, 40);
    const filters = [{ language: ['typescript'] }, { pathGlob: 'chunkers/**' }, { kind: ['function'] }];
    let compared = 0;
    let same = 0;
    for (const g of gold) {
      for (const f of filters) {
        const remote = (await pgSearch(db, g.query, { diversify: false, k: 10, mode: 'keyword', filters: f })).map(key);
        const mine = (await local.search(g.query, { k: 10, mode: 'keyword', diversify: false, filters: f })).map(key);
        // the remote side filters its (4x deeper) candidates after the cut, the local one before:
        // the lists may part at their tail
        assert.equal(remote.length, mine.length, `${g.query} with ${JSON.stringify(f)}`);
        same += remote.filter((k) => mine.includes(k)).length;
        compared += mine.length;
      }
      // a budget of one posting: candidates from the rarest term alone (more only while too few),
      // as the local index does with the same budget
      const remote1 = (await pgSearch(db, g.query, { diversify: false, k: 10, mode: 'keyword', maxPostings: 1 })).map(key);
      const hits1 = local.keyword.search(g.query, { k: 50, maxPostings: 1, shortSymbolsFirst: codeNames(g.query).length > 0 });
      const scoreOf = new Map(hits1.map((h) => [key({ chunk: local.chunks.get(h.docId)! }), h.score]));
      const found = { phrase: false };
      const phrased = phraseFirst(g.query, proximityOrder(g.query, hits1, 50, (id) => proximityText(local.chunks.text(id), local.chunks.get(id))), (id) => local.chunks.text(id), undefined, undefined, found);
      const local1 = namesakesFirst(g.query, phrased, (id) => unitNames(local.chunks.get(id)), found)
        .slice(0, 10)
        .map((id) => key({ chunk: local.chunks.get(id)! }));
      // the same chunks in the same order, except that chunks whose scores differ by less than
      // 0.1% may come in either order: the two sides break ties by their own row order (scores
      // parted by 5% on the sample's schema chunks while the team index left the chunker's
      // search terms out of their records: one `keywordFieldsOf` makes both now)
      assert.deepEqual([...remote1].sort(), [...local1].sort(), `${g.query} with a budget of 1 posting`);
      remote1.forEach((r, i) => {
        if (r !== local1[i]) assert.ok(Math.abs(scoreOf.get(r)! - scoreOf.get(local1[i])!) <= 1e-3 * Math.abs(scoreOf.get(local1[i])!), `${g.query} with a budget of 1 posting: ${r} at ${i} is no tie of ${local1[i]} (${scoreOf.get(r)} vs ${scoreOf.get(local1[i])})`);
      });
    }
    assert.ok(compared > 200, `${compared} filtered results compared`);
    assert.ok(same / compared >= 0.98, `filtered overlap ${(same / compared).toFixed(3)}`);
  });

  it("records its chunkers' version: an earlier Fathom's index is pushed again whole (no vector embedded twice), a newer Fathom's is not overwritten", async () => {
    // a database of its own: the shared one holds an index already, which a scratch schema would find on its search path
    const db = await freshDb();
    try {
      const ws = path.join(work, 'ws', 'sample');
      const emb = fakeEmbedder();
      const first = await pushFolder(db, ws, { embedder: emb });
      const chunker = async () => (await db.query<{ value: string }>("select value from fathom_meta where key = 'chunker'")).rows[0]?.value;
      assert.equal(await chunker(), String(CHUNKER_VERSION));
      assert.equal(first.rechunked, undefined);
      const answer = async () => (await pgSearch(db, 'zoom control', { k: 5, mode: 'keyword' })).map(key);
      const before = await answer();
      // pushed by an earlier Fathom: no version recorded
      await db.query("delete from fathom_meta where key = 'chunker'");
      const embedded = emb.embedded;
      const again = await pushFolder(db, ws, { embedder: emb });
      assert.match(again.rechunked ?? '', /an earlier Fathom's chunkers, this Fathom's are version \d+: every file is pushed again/);
      assert.equal(again.written, first.written, 'every file written again');
      assert.equal(again.chunks, first.chunks);
      assert.equal(emb.embedded, embedded, 'every vector reused: no text changed');
      assert.equal(await chunker(), String(CHUNKER_VERSION));
      assert.deepEqual(await answer(), before);
      const settled = await pushFolder(db, ws, { embedder: emb });
      assert.equal(settled.written, 0);
      assert.equal(settled.rechunked, undefined);
      // pushed by a newer Fathom: refused with the reason, the index left as it is and searchable
      await db.query("update fathom_meta set value = $1 where key = 'chunker'", [String(CHUNKER_VERSION + 1)]);
      await assert.rejects(pushFolder(db, ws, { embedder: emb }), new RegExp(`chunked by a newer Fathom \\(chunker version ${CHUNKER_VERSION + 1}; this one's is ${CHUNKER_VERSION}\\): update Fathom to push to it`));
      assert.deepEqual(await answer(), before);
    } finally {
      await db.close();
    }
  });

  it('presents its answers as the local engine does: locales folded, a cut unit one result shown from its start, at most 3 chunks a file', async () => {
    const ws = path.join(work, 'ws');
    await pushFolder(db, ws, { embedder: fakeEmbedder() });
    const local = new Engine();
    for await (const _ of local.indexFolder(ws)) void _;
    const queries = [...mineGold(local).slice(0, 40).map((g) => g.query), 'Search layers', 'layer panel search', 'zoom in', 'chunk', 'keyword index', ...plainWordsQueries(path.join(ws, 'index'), 15)];
    const chunkKey = (chunk: { path: string; start: { line: number } }) => key({ chunk });
    let folded = 0;
    let capped = 0;
    let shownFromStart = 0;
    let same = 0;
    let compared = 0;
    for (const q of queries) {
      const remote = await pgSearch(db, q, { k: 10, mode: 'keyword' });
      const mine = await local.search(q, { k: 10, mode: 'keyword' });
      const perFile = new Map<string, number>();
      for (const h of remote) perFile.set(h.chunk.path, (perFile.get(h.chunk.path) ?? 0) + 1);
      assert.ok(Math.max(0, ...perFile.values()) <= 3, `${q}: more than 3 chunks of a file`);
      const units = remote.filter((h) => h.chunk.split).map((h) => `${h.chunk.path}\0${h.chunk.symbol}\0${h.chunk.kind}`);
      assert.equal(new Set(units).size, units.length, `${q}: two pieces of one unit`);
      // the same answer: the hits, the locales folded into each, the piece that ranked a unit shown from its start
      const mineByKey = new Map(mine.map((h) => [key(h), h]));
      for (const h of remote) {
        compared++;
        const o = mineByKey.get(key(h));
        if (!o) continue;
        same++;
        assert.deepEqual((h.alsoIn ?? []).map(chunkKey).sort(), (o.alsoIn ?? []).map(chunkKey).sort(), `${q}: ${key(h)} folds the same locales`);
        assert.deepEqual(h.why.rankedBy, o.why.rankedBy, `${q}: ${key(h)} ranked by the same piece`);
      }
      folded += remote.filter((h) => h.alsoIn?.length).length;
      capped += remote.filter((h) => h.moreInFile?.length).length;
      shownFromStart += remote.filter((h) => h.why.rankedBy).length;
    }
    assert.ok(same / compared >= 0.95, `the same hits ${same} of ${compared}`);
    assert.ok(folded > 0, 'a key section in both locales is one result');
    assert.ok(capped > 0, 'a file past the cap lists the rest under more in this file');
    assert.ok(shownFromStart > 0, 'a described unit is shown from its first piece');
    // diversify: false is the plain ranking
    const plain = await pgSearch(db, 'Search layers', { k: 10, mode: 'keyword', diversify: false });
    assert.ok(plain.every((h) => !h.alsoIn && !h.moreInFile));
  });

  /** `files` written to `work/<name>` and pushed to a scratch index; each query's keyword answer (k 5) to `check`. */
  /** `files` written to `work/<name>`; returns that folder. */
  const writeLayout = (name: string, files: Record<string, string>): string => {
    const ws = path.join(work, name);
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    return ws;
  };

  const pushedLayout = async (name: string, files: Record<string, string>, queries: string[], check: (query: string, hits: SearchHit[], said: string) => void) => {
    const ws = writeLayout(name, files);
    await scratchIndex(db, async () => {
      await pushFolder(db, ws);
      for (const query of queries) {
        const hits = await pgSearch(db, query, { k: 5, mode: 'keyword' });
        check(query, hits, `${query}: ${hits.map((h) => `${h.chunk.path} ${h.chunk.symbol}`).join(', ')}`);
      }
    });
  };

  it('a query naming a schema field and its component finds the property first, as the local engine does', async () => {
    const fieldOf = new Map(NAMED_FIELDS.map(([field, comp]) => [`field ${field} with component ${comp}`, field]));
    await pushedLayout('named', namedLayout(), [...fieldOf.keys()], (query, hits, said) => assert.equal(hits[0]?.chunk.symbol, `properties.${fieldOf.get(query)}`, said));
  });

  it('a name the query writes as code finds its namesake first, by exact case, among hundreds that share the word, as the local engine does', async () => {
    const fileOf = new Map(NAMESAKES);
    await pushedLayout('namesakes', namesakeLayout(), [...fileOf.keys()], (query, hits, said) => assert.equal(hits[0]?.chunk.path, fileOf.get(query), said));
  });

  it('an index made again on the same connection (dropped, pushed anew) is answered from its own rows, not from what the connection cached of the one before', async () => {
    // two indexes made one after the other on one connection: each starts a generation of its
    // own; when both started at 1, the second's answers came from the first's cached postings and chunks
    const once = async (name: string, files: Record<string, string>) => {
      const ws = writeLayout(name, files);
      return scratchIndex(db, async () => {
        await pushFolder(db, ws);
        return (await pgSearch(db, 'render widget', { k: 5, mode: 'keyword' })).map((h) => h.chunk.path);
      });
    };
    assert.deepEqual(await once('first-index', { 'src/first.js': 'export function renderWidget() { return 1 }\n' }), ['src/first.js']);
    assert.deepEqual(await once('second-index', { 'lib/second.js': 'export function renderWidget() { return 2 }\n' }), ['lib/second.js']);
  });

  it("a Nuxt app's names no file spells (an anonymous composable's useCart, a component's <BaseButton>, prose/A.vue's one-character A) find what they name first, as the local engine does", async () => {
    const fileOf = new Map(NUXT_NAMES);
    await pushedLayout('nuxt', nuxtLayout(), [...fileOf.keys()], (query, hits, said) => assert.equal(hits[0]?.chunk.path, fileOf.get(query), said));
  });

  it('an edited file is re-pushed alone, a deleted one leaves; unpushed edits are overlaid from the folder', async () => {
    const ws = path.join(work, 'ws');
    const emb = fakeEmbedder();
    await pushFolder(db, ws, { embedder: emb });
    const file = path.join(ws, 'sample', 'src', 'map', 'zoom.js');
    fs.appendFileSync(file, '\nexport function quuxFrobnicate() { return 42; }\n');
    // not pushed yet: the remote index does not know the word, the overlay does
    assert.equal((await pgSearch(db, 'quuxFrobnicate', { k: 5, mode: 'keyword' })).length, 0);
    const over = await searchWithOverlay(db, ws, 'quuxFrobnicate', { k: 5, mode: 'keyword' });
    assert.deepEqual(over.dirty, ['sample/src/map/zoom.js']);
    assert.equal(over.hits[0]?.chunk.path, 'sample/src/map/zoom.js');
    assert.ok(over.hits[0].chunk.text.includes('quuxFrobnicate'));
    // a file deleted locally: its remote chunks are left out of overlaid answers
    const gone = path.join(ws, 'sample', 'docs', 'i18n.md');
    const goneText = fs.readFileSync(gone, 'utf8');
    const word = 'i18n';
    assert.ok((await pgSearch(db, word, { k: 50, mode: 'keyword' })).some((h) => h.chunk.path === 'sample/docs/i18n.md'));
    fs.rmSync(gone);
    const over2 = await searchWithOverlay(db, ws, word, { k: 50, mode: 'keyword' });
    assert.ok(over2.dirty.includes('sample/docs/i18n.md'));
    assert.ok(!over2.hits.some((h) => h.chunk.path === 'sample/docs/i18n.md'));

    const before = emb.embedded;
    // xmin: the transaction that wrote a row; only the edited file's rows may get a new one
    const rowsBefore = new Map((await db.query<{ k: string; x: string }>("select path || ':' || ord as k, xmin::text as x from fathom_chunks")).rows.map((r) => [r.k, r.x]));
    const s = await pushFolder(db, ws, { embedder: emb });
    const rowsAfter = (await db.query<{ k: string; x: string; path: string }>("select path || ':' || ord as k, xmin::text as x, path from fathom_chunks")).rows;
    const rewritten = new Set(rowsAfter.filter((r) => rowsBefore.get(r.k) !== r.x).map((r) => r.path));
    assert.deepEqual([...rewritten], ['sample/src/map/zoom.js'], 'only the edited file\'s rows are written again');
    assert.ok(rowsAfter.length > 100 && ![...rowsBefore.keys()].some((k) => k.startsWith('sample/docs/i18n.md:') && rowsAfter.some((r) => r.k === k)));
    await assertConsistent(db, 'after an edit and a removal');
    assert.equal(s.written, 1);
    assert.equal(s.removed, 1);
    assert.ok(s.reused > 0 && s.embedded < s.chunks, `only the changed chunks are embedded: ${JSON.stringify(s)}`);
    assert.equal(emb.embedded - before, s.embedded);
    const hit = await pgSearch(db, 'quuxFrobnicate', { k: 5, mode: 'keyword' });
    assert.equal(hit[0]?.chunk.path, 'sample/src/map/zoom.js');
    assert.equal((await db.query<{ n: number }>("select count(*)::int as n from fathom_files where path = 'sample/docs/i18n.md'")).rows[0].n, 0);
    fs.writeFileSync(gone, goneText);
  });

  it('refuses vectors of another model instead of mixing them', async () => {
    const other = { ...fakeEmbedder(), id: 'another-model' };
    await assert.rejects(pushFolder(db, path.join(work, 'ws'), { embedder: other }), /holds vectors of fake-trigram, not another-model/);
  });

  it('over TCP with the pg client: the same answers, and two writers at once leave one consistent index', async () => {
    const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 4 });
    await server.start();
    const url = `postgres://postgres@${server.getServerConn()}/postgres`;
    const a = await connectPg(url);
    const b = await connectPg(url);
    try {
      const emb = fakeEmbedder();
      const viaTcp = await pgSearch(a, 'rrf fusion', { k: 10, embedder: emb });
      const inProcess = await pgSearch(db, 'rrf fusion', { k: 10, embedder: emb });
      assert.ok(viaTcp.length > 0);
      assert.deepEqual(viaTcp.map(key), inProcess.map(key));
      // two writers push two different edits of the folder at once
      const ws = path.join(work, 'ws');
      fs.appendFileSync(path.join(ws, 'index', 'rank', 'fusion.ts'), '\n// writerAlphaMarker\n');
      fs.appendFileSync(path.join(ws, 'index', 'vectors.ts'), '\n// writerBetaMarker\n');
      const [sa, sb] = await Promise.all([pushFolder(a, ws, { embedder: emb }), pushFolder(b, ws, { embedder: emb })]);
      assert.equal(sa.written + sb.written >= 2, true, 'both edits written');
      const files = (await a.query<{ n: number }>('select count(*)::int as n from fathom_files')).rows[0].n;
      const local = new Engine({ embedder: emb });
      for await (const _ of local.indexFolder(ws)) void _;
      assert.equal(files, local.files.size);
      const chunks = (await a.query<{ n: number }>('select count(*)::int as n from fathom_chunks')).rows[0].n;
      assert.equal(chunks, local.chunkCount, 'no file written twice or half');
      await assertConsistent(a, 'after two writers at once');
      for (const w of ['writerAlphaMarker', 'writerBetaMarker']) assert.equal((await pgSearch(b, w, { k: 1, mode: 'keyword' }))[0]?.chunk.path.startsWith('index/'), true, w);
    } finally {
      await a.end();
      await b.end();
      await server.stop();
    }
  });

  it('the editor\'s remote index: answers from the server, a locally edited file from the local index, local again when the server is gone', async () => {
    const ws = path.join(work, 'ws');
    const emb = fakeEmbedder();
    await pushFolder(db, ws, { embedder: emb });
    const local = new Engine({ embedder: emb });
    for await (const _ of local.indexFolder(ws)) void _;
    const states: RemoteState[] = [];
    let connects = 0;
    let up = true;
    const remote = new RemoteIndex('postgres://me:secret@db.example/team', {
      connect: async () => {
        connects++;
        if (!up) throw new Error('connect ECONNREFUSED 10.0.0.1:5432');
        return { query: (t: string, p?: unknown[]) => (up ? db.query(t, p as never[]) : Promise.reject(new Error('Connection terminated unexpectedly'))), end: async () => undefined } as never;
      },
      retryMs: 0,
      onState: (st) => states.push(st),
    });
    const search = (q: string, mode: 'keyword' | 'hybrid' = 'keyword') => remote.search(ws, local, q, { k: 10, mode, embedder: emb, localSearch: (k) => local.search(q, { k, mode, diversify: false }) });
    // nothing edited: the remote answer, as pgSearch gives it
    const plain = await search('rrf fusion', 'hybrid');
    assert.deepEqual(plain?.map(key), (await pgSearch(db, 'rrf fusion', { k: 10, embedder: emb })).map(key));
    assert.deepEqual(states.map((s) => [s.ok, s.dirty]), [[true, 0]]);
    assert.ok(!JSON.stringify(states).includes('secret'), 'no password in the state');
    // edited locally, not pushed: the word is only in the local index, and the file's stale
    // remote chunks are left out
    const file = path.join(ws, 'index', 'rank', 'diversify.ts');
    const text = fs.readFileSync(file, 'utf8');
    try {
      fs.writeFileSync(file, `${text}\nexport function zorbquux() { return 'zorbquux'; }\n`);
      local.updateFile('index/rank/diversify.ts', fs.readFileSync(file), { size: 1, mtimeMs: 1 });
      assert.equal((await pgSearch(db, 'zorbquux', { k: 5, mode: 'keyword' })).length, 0, 'not pushed');
      const hits = await search('zorbquux');
      assert.equal(hits?.[0]?.chunk.path, 'index/rank/diversify.ts');
      assert.ok(hits[0].chunk.text.includes('zorbquux'), 'the local chunk, not the stale remote one');
      assert.equal(remote.state.dirty, 1);
      const byName = await search('diversify');
      const fromFile = byName!.filter((h) => h.chunk.path === 'index/rank/diversify.ts');
      assert.ok(fromFile.length > 0);
      const localIds = new Set((await local.search('diversify', { k: 200, mode: 'keyword', diversify: false })).map(key));
      assert.ok(fromFile.every((h) => localIds.has(key(h))), 'the edited file\'s hits all come from the local index');
      // the server goes away: undefined (search locally), said once in the state, tried again later
      up = false;
      const before = connects;
      assert.equal(await search('rrf fusion'), undefined, 'the connection broke, and a new one is refused');
      assert.equal(connects, before + 1, 'a broken connection is replaced once before searching locally');
      assert.equal(await search('rrf fusion'), undefined, 'a new one is refused');
      const down = states.filter((s) => !s.ok);
      assert.equal(down.length, 1, 'one state change for two failed searches');
      assert.match(down[0].problem ?? '', /ECONNREFUSED/, 'why: the server refuses (not that the old connection broke)');
      assert.match(remote.state.problem ?? '', /ECONNREFUSED/);
      assert.equal(down[0].url, 'postgres://me:***@db.example/team');
      up = true;
      assert.ok((await search('rrf fusion'))?.length, 'back once the server is');
      assert.equal(states[states.length - 1].ok, true);
      assert.ok(connects >= 3);
    } finally {
      fs.writeFileSync(file, text);
    }
  });

  it('the editor\'s remote index: a search on a kept connection reads no hashes and no generation of its own; another client\'s push is seen on the next search', async () => {
    const ws = path.join(work, 'ws');
    await pushFolder(db, ws, {});
    const local = new Engine();
    for await (const _ of local.indexFolder(ws)) void _;
    const asked: string[] = [];
    const remote = new RemoteIndex('postgres://ci@db.example/team', {
      connect: async () => ({ query: (t: string, p?: unknown[]) => (asked.push(t), db.query(t, p as never[])), end: async () => undefined }) as never,
    });
    const search = (q: string) => remote.search(ws, local, q, { k: 5, mode: 'keyword', localSearch: (k) => local.search(q, { k, mode: 'keyword' }) });
    assert.ok((await search('rrf fusion'))?.length);
    asked.length = 0;
    assert.ok((await search('overlay hits'))?.length);
    assert.ok(asked.length > 0);
    const own = asked.filter((t) => /fathom_files/.test(t) || /^\s*select value from fathom_meta where key = 'generation'\s*$/.test(t));
    assert.deepEqual(own, [], 'only the search\'s own statements');
    // edited here, then pushed by another client: dirty until the search sees the new generation
    const file = path.join(ws, 'index', 'rank', 'phrase.ts');
    const text = fs.readFileSync(file, 'utf8');
    try {
      fs.writeFileSync(file, `${text}\nexport const pushedLater = 1;\n`);
      local.updateFile('index/rank/phrase.ts', fs.readFileSync(file), { size: 1, mtimeMs: 1 });
      await search('rrf fusion');
      assert.equal(remote.state.dirty, 1);
      await pushFolder(db, ws, {});
      const hits = await search('pushedLater');
      assert.equal(remote.state.dirty, 0, 'the hashes read again once the search saw another generation');
      assert.equal(hits?.[0]?.chunk.path, 'index/rank/phrase.ts');
    } finally {
      fs.writeFileSync(file, text);
      await pushFolder(db, ws, {});
    }
  });

  it('the editor\'s remote index: a file this folder\'s rules leave out is not in its answers, though the team index holds it', async () => {
    const ws = path.join(work, 'ws');
    await pushFolder(db, ws, {});
    const local = new Engine();
    for await (const _ of local.indexFolder(ws)) void _;
    const remote = new RemoteIndex('postgres://ci@db.example/team', { connect: async () => ({ query: (t: string, p?: unknown[]) => db.query(t, p as never[]), end: async () => undefined }) as never });
    let asked = 0;
    const rules = (exclude: string[]) => ({ key: JSON.stringify(exclude), allowed: () => (asked++, (rel: string) => !exclude.some((x) => rel.startsWith(x))) });
    // k 30: the workspace is a copy of src/index, where one file (fusion.ts) can hold ten chunks that name both words
    const search = (exclude: string[]) => remote.search(ws, local, 'rrf fusion', { k: 30, mode: 'keyword', localSearch: (k) => local.search('rrf fusion', { k, mode: 'keyword' }), localRules: rules(exclude) });
    const all = (await search([]))!;
    const folder = all[0].chunk.path; // (a file: a prefix of its path)
    assert.ok(all.some((h) => !h.chunk.path.startsWith(folder)), 'the answer holds other files too');
    const without = (await search([folder]))!;
    assert.ok(without.length > 0, 'other files still answer');
    assert.ok(!without.some((h) => h.chunk.path.startsWith(folder)), `nothing under ${folder}: ${without.map((h) => h.chunk.path).join(', ')}`);
    assert.equal(remote.state.dirty, 0, 'left out is not "changed here"');
    const before = asked;
    await search([folder]);
    assert.equal(asked, before, 'the same rules are not asked again for the same generation');
  });

  it('the editor\'s remote index: two searches at once on a connection the server closed both answer, on a new connection', async () => {
    const ws = path.join(work, 'ws');
    await pushFolder(db, ws, { embedder: fakeEmbedder() });
    const local = new Engine();
    let connects = 0;
    let restarts = 0;
    // each connection works until ended or until the server restarts after it was made
    const remote = new RemoteIndex('postgres://ci@db.example/team', {
      connect: async () => {
        connects++;
        const made = restarts;
        let ended = false;
        await new Promise((r) => setTimeout(r, 5)); // connecting takes a while: the other search fails meanwhile
        return {
          query: (t: string, p?: unknown[]) => (ended || restarts !== made ? Promise.reject(new Error(ended ? 'Client was closed and is not queryable' : 'terminating connection due to administrator command')) : db.query(t, p as never[])),
          end: async () => {
            ended = true;
          },
        } as never;
      },
    });
    const search = (q: string) => remote.search(ws, local, q, { k: 5, mode: 'keyword', localSearch: (k) => local.search(q, { k, mode: 'keyword' }) });
    assert.ok((await search('rrf fusion'))?.length);
    restarts++;
    const [a, b] = await Promise.all([search('rrf fusion'), search('overlay hits')]);
    assert.ok(a?.length && b?.length, `both answered by the server: ${JSON.stringify(remote.state)}`);
    assert.equal(remote.state.ok, true);
    assert.ok(connects <= 3, `one new connection each at most, none ended under the other search (${connects})`);
    await remote.close();
  });

  it('isConnectionLoss: a connection the server or the network closed, not an error of the query', () => {
    const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
    assert.ok(isConnectionLoss(pgError('57P01', 'terminating connection due to administrator command')));
    assert.ok(isConnectionLoss(pgError('08006', 'connection failure')));
    assert.ok(isConnectionLoss(pgError('ECONNRESET', 'read ECONNRESET')));
    assert.ok(isConnectionLoss(new Error('Client has encountered a connection error and is not queryable')));
    assert.ok(isConnectionLoss(new Error('Connection terminated unexpectedly')));
    assert.ok(!isConnectionLoss(pgError('42P01', 'relation "fathom_meta" does not exist')));
    assert.ok(!isConnectionLoss(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')), 'refused: the server is down, a new connection would be refused too');
    assert.ok(!isConnectionLoss(undefined));
  });

  it('overlayHits: a dirty file\'s local hits take their local rank, the remote ones keep theirs', () => {
    const hit = (p: string, line: number) => ({ chunk: { path: p, start: { line } } as never, docId: 0, score: 0, why: { fused: 0 } });
    const remote = [hit('a', 1), hit('b', 1), hit('c', 1)];
    const local = [hit('a', 1), hit('d', 5), hit('b', 1), hit('x', 1)];
    assert.deepEqual(overlayHits(remote, local, new Set(['d']), 10).map(key), ['a:1', 'd:5', 'b:1', 'c:1']);
    assert.deepEqual(overlayHits(remote, local, new Set(['d']), 2).map(key), ['a:1', 'd:5']);
    assert.deepEqual(overlayHits(remote, [], new Set(), 10).map(key), ['a:1', 'b:1', 'c:1']);
  });

  it('the CLI: `index <dir> --store postgres://…` pushes, `search --store postgres://…` answers from it', async () => {
    const bin = path.join(REPO, 'bin', 'fathom.js');
    assert.ok(fs.existsSync(path.join(REPO, 'dist', 'cli.js')), 'dist/cli.js is built (npm test builds it)');
    const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 2 });
    await server.start();
    const url = `postgres://postgres:pw@${server.getServerConn()}/postgres`;
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [bin, ...args], { env: { ...process.env, FATHOM_MODEL_PATH: '' } }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
      });
    try {
      // an empty database again (the CLI's connection is a session of its own: no scratch schema)
      await db.query('drop table if exists fathom_chunks, fathom_files, fathom_terms, fathom_meta cascade');
      const ws = path.join(work, 'ws', 'sample');
      const pushed = await cli('index', ws, '--store', url, '--no-embed');
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.match(pushed.stdout, /pushed \d+ changed files \(0 unchanged, 0 removed\), \d+ chunks written, keyword-only/);
      assert.ok(!pushed.stdout.includes(':pw@'), 'the password is not printed');
      const again = await cli('index', ws, '--store', url, '--no-embed');
      assert.match(again.stdout, /pushed 0 changed files/);
      const found = await cli('search', 'zoom control', '--dir', ws, '--store', url, '--no-embed', '--json');
      assert.equal(found.code, 0, found.stderr);
      const hits = found.stdout.trim().split('\n').map((l) => JSON.parse(l) as { file: string });
      assert.ok(hits.length > 0 && hits.some((h) => h.file === 'src/components/KZoomControl.vue'), found.stdout);
      const empty = await cli('search', 'anything', '--dir', path.join(work, 'ws', 'index'), '--store', `postgres://postgres@${server.getServerConn()}/postgres`, '--no-embed');
      assert.equal(empty.code, 0, 'a folder searched against another folder\'s index still answers (all its files are local edits)');
    } finally {
      await server.stop();
    }
  });

  it('the worker with init.remote: searches answer from the team index, and from the local index once the server is gone, said once', async () => {
    // the database holds the pushed sample folder (the CLI test above)
    const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 2 });
    await server.start();
    const posted: Array<{ type: string; id?: number; result?: unknown; level?: string; message?: string }> = [];
    const state = new WorkerState((m) => posted.push(m as never));
    const ws = path.join(work, 'ws', 'sample');
    const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pg-store-'));
    let stopped = false;
    try {
      await state.handle({ type: 'init', id: 1, options: { remote: `postgres://postgres@${server.getServerConn()}/postgres` } });
      await state.handle({ type: 'index', id: 2, root: ws, storeDir });
      await state.handle({ type: 'search', id: 3, query: 'zoom control', options: { k: 10, mode: 'keyword' } });
      const remoteHits = posted.find((m) => m.id === 3)?.result as Array<{ chunk: { path: string; start: { line: number } } }>;
      assert.deepEqual(remoteHits.map(key), (await pgSearch(db, 'zoom control', { k: 10, mode: 'keyword' })).map(key), 'the team index answered');
      assert.deepEqual(state.status().remote, { url: `postgres://postgres@${server.getServerConn()}/postgres`, ok: true, dirty: 0 });
      await server.stop();
      stopped = true;
      for (const id of [4, 5]) await state.handle({ type: 'search', id, query: 'zoom control', options: { k: 10, mode: 'keyword' } });
      for (const id of [4, 5]) assert.ok((posted.find((m) => m.id === id)?.result as unknown[]).length > 0, 'answered locally');
      const warned = posted.filter((m) => m.type === 'log' && m.level === 'warn' && /team index .* cannot answer/.test(m.message ?? ''));
      assert.equal(warned.length, 1, 'said once');
      assert.match(warned[0].message ?? '', /searching the local index/);
      assert.equal(state.status().remote?.ok, false);
    } finally {
      await (state as unknown as { dispose(): Promise<void> }).dispose();
      if (!stopped) await server.stop();
      fs.rmSync(storeDir, { recursive: true, force: true });
    }
  });

  it('a server that is not there is a clear error naming the URL without its password', async () => {
    await assert.rejects(connectPg('postgres://me:secret@127.0.0.1:1/db'), (err: Error) => /cannot connect to postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/db/.test(err.message) && !err.message.includes('secret'));
  });
});
