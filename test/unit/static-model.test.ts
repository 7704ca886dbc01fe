import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createEmbedder, embedText } from '../../src/index/embedder';
import { Engine } from '../../src/index/engine';
import { packCompounds } from '../../src/index/terms';
import { bundledModelPath, loadStaticModel, StaticEmbedder, STATIC_MODEL_NAME } from '../../src/index/static-model';

/** Writes a model file in the format train/train.py exports (int8 rows, one scale per row). */
function writeModel(file: string, vocab: string[], q: number[][], c: number[][], extra: Record<string, unknown> = {}): void {
  const dims = q[0].length;
  let hb = Buffer.from(JSON.stringify({ format: 'fathom-static-model', version: 1, dims, vocab, ...extra }));
  hb = Buffer.concat([hb, Buffer.alloc((((-hb.length - 8) % 4) + 4) % 4, 0x20)]);
  const quant = (rows: number[][]) => {
    const scales = new Float32Array(rows.length);
    const ints = new Int8Array(rows.length * dims);
    rows.forEach((r, i) => {
      const m = Math.max(...r.map(Math.abs)) / 127 || 1;
      scales[i] = m;
      r.forEach((x, k) => (ints[i * dims + k] = Math.round(x / m)));
    });
    return { scales, ints };
  };
  const qq = quant(q);
  const cq = quant(c);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(hb.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from('FTHM'), len, hb, Buffer.from(qq.scales.buffer), Buffer.from(cq.scales.buffer), Buffer.from(qq.ints.buffer), Buffer.from(cq.ints.buffer)]));
}

describe("Fathom's own model (static-model)", function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-static-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads queries with the query table and chunks with the code table, 1 + ln(tf) per term, unit length', async () => {
    const file = path.join(dir, 'm.bin');
    // row 0 is <unk>; "client" and "test" differ between the towers
    writeModel(file, ['<unk>', 'client', 'test', 'zoom'], [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]]);
    const r = loadStaticModel(file);
    assert.ok('embedder' in r, JSON.stringify(r));
    const e = r.embedder;
    assert.equal(e.dims, 3);
    assert.match(e.id, new RegExp(`^${STATIC_MODEL_NAME}@[0-9a-f]{12}$`));
    const [q] = await e.embed(['client'], undefined, { query: true });
    const [c] = await e.embed(['client']);
    assert.deepEqual([...q].map((x) => Math.round(x * 1000) / 1000), [1, 0, 0]);
    assert.deepEqual([...c].map((x) => Math.round(x * 1000) / 1000), [0, 1, 0]);
    // "test test zoom": test counts 1 + ln 2 times, zoom once
    const [v] = await e.embed(['test test zoom'], undefined, { query: true });
    const w = 1 + Math.log(2);
    const n = Math.hypot(w, 1);
    assert.ok(Math.abs(v[1] - w / n) < 0.01 && Math.abs(v[2] - 1 / n) < 0.01, `${[...v]}`);
    // unknown words only: a zero vector, not NaN
    const [z] = await e.embed(['qwertyuiop'], undefined, { query: true });
    assert.deepEqual([...z], [0, 0, 0]);
  });

  it('in a hybrid search, its cosine and the keyword score are combined by value (a chunk far ahead on meaning passes one barely ahead on words), not by rank', async () => {
    const file = path.join(dir, 'fusion.bin');
    // the query's words point along x and y; of the chunks, only "drain" points there too
    writeModel(file, ['<unk>', 'socket', 'close', 'drain'], [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 1], [0, 0, 1], [1, 1, 0]]);
    const r = loadStaticModel(file);
    assert.ok('embedder' in r, JSON.stringify(r));
    const ws = path.join(dir, 'fusion-ws');
    fs.mkdirSync(ws, { recursive: true });
    // words: beta first (both words, shortest), alpha a close second, gamma far behind (one word)
    fs.writeFileSync(path.join(ws, 'beta.txt'), 'socket close\n');
    fs.writeFileSync(path.join(ws, 'alpha.txt'), 'socket close drain\n');
    fs.writeFileSync(path.join(ws, 'gamma.txt'), 'socket lorem ipsum dolor sit amet consectetur adipiscing\n');
    const engine = new Engine({ embedder: r.embedder });
    for await (const _ of engine.indexFolder(ws)) void _;
    for await (const _ of engine.embedPending()) void _;
    const q = 'socket close quickly please';
    const words = (await engine.search(q, { k: 3, mode: 'keyword' })).map((h) => h.chunk.path);
    assert.deepEqual(words, ['beta.txt', 'alpha.txt', 'gamma.txt']);
    // the fused order (the learned re-ranking after it is rerank.test.ts's)
    const hits = await engine.search(q, { k: 3, rerank: false });
    // RRF (1 / (60 + rank), the model's list at 0.5) would keep beta first: 1/61 + 0.5/62 > 1/62 + 0.5/61
    assert.deepEqual(hits.map((h) => h.chunk.path), ['alpha.txt', 'beta.txt', 'gamma.txt']);
    assert.deepEqual({ keyword: hits[0].why.keyword, dense: hits[0].why.dense }, { keyword: 2, dense: 1 });
    // scores on one scale, 0..1 (prose, as .txt is, weighs 0.85 of its fused score)
    assert.ok(hits.every((h) => h.score >= 0 && h.why.fused <= 1 && Math.abs(h.score - 0.85 * h.why.fused) < 1e-9), JSON.stringify(hits.map((h) => [h.score, h.why])));
    // a query the model mostly does not know (1 word of 4: another language, say) is the keyword ranking alone
    assert.equal(r.embedder.coverage('dolor ipsum lorem socket'), 0.25);
    assert.equal(r.embedder.coverage(q), 0.5);
    const foreign = await engine.search('dolor ipsum lorem socket', { k: 3 });
    assert.equal(foreign[0]?.chunk.path, 'gamma.txt');
    assert.ok(foreign.every((h) => h.why.dense === undefined && h.why.keyword !== undefined), JSON.stringify(foreign.map((h) => h.why)));
  });

  it("weighs a query's words in the keyword list of a hybrid search as its query rows do (length over the median's, ^0.5, within 0.25..2); keyword mode as before", async () => {
    const file = path.join(dir, 'weights.bin');
    // query rows: "cookie" 4 times the median's length, "create" and "value" a sixteenth of it (the vocabulary is S-stemmed, as modelTerms reads)
    const vocab = ['<unk>', 'cookie', 'create', 'value', 'session', 'lorem', 'ipsum', 'dolor'];
    const q = [[0, 0, 0], [4, 0, 0], [0, 1 / 16, 0], [0, 0, 1 / 16], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]];
    writeModel(file, vocab, q, q.map((row, i) => (i ? [1, i, 0] : row)));
    const r = loadStaticModel(file);
    assert.ok('embedder' in r, JSON.stringify(r));
    const e = r.embedder;
    assert.equal(e.queryTermWeight('cookie'), 2);
    assert.equal(e.queryTermWeight('create'), 0.25);
    assert.equal(e.queryTermWeight('session'), 1);
    assert.equal(e.queryTermWeight('creates'), 0.25, 'looked up as the model reads it (S-stemmed)');
    assert.equal(e.queryTermWeight('qwertyuiop'), 1, 'a word the model does not know');
    const ws = path.join(dir, 'weights-ws');
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'form.txt'), 'creates value\n');
    fs.writeFileSync(path.join(ws, 'jar.txt'), 'cookie lorem\n');
    for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(ws, `other${i}.txt`), `ipsum dolor ${i}\n`);
    const engine = new Engine({ embedder: e });
    for await (const _ of engine.indexFolder(ws)) void _;
    for await (const _ of engine.embedPending()) void _;
    const query = 'creates a cookie value';
    const byWords = (await engine.search(query, { k: 3, mode: 'keyword' })).map((h) => h.chunk.path);
    assert.equal(byWords[0], 'form.txt', 'every word at 1: two words of the query beat one');
    const hybrid = await engine.search(query, { k: 3 });
    const keywordRank = (p: string) => hybrid.find((h) => h.chunk.path === p)?.why.keyword;
    assert.deepEqual([keywordRank('jar.txt'), keywordRank('form.txt')], [1, 2], JSON.stringify(hybrid.map((h) => [h.chunk.path, h.why])));
  });

  it('vectorInto writes the same bits as vector, at any offset of a shared buffer', () => {
    const r = loadStaticModel();
    assert.ok('embedder' in r, JSON.stringify(r));
    const e = r.embedder;
    const texts = ['def parse_cookie(header):\n    return dict(p.split("=", 1) for p in header.split("; "))', 'qwertyuiop', 'export function route(path) { return router.match(path); }'];
    const out = new Float32Array(texts.length * e.dims);
    texts.forEach((t, i) => e.vectorInto(t, out, i * e.dims));
    texts.forEach((t, i) => assert.deepEqual(Buffer.from(out.buffer, i * e.dims * 4, e.dims * 4), Buffer.from(e.vector(t).buffer)));
    // what a chunk thread is given: the file, the id, and the parts (the rows shared, not copied)
    const t = e.inThreads;
    assert.equal(t.file, e.source);
    assert.equal(t.id, e.id);
    assert.equal(t.shared?.data, e.shared.data);
    const again = new StaticEmbedder(e.source, t.shared!);
    assert.equal(again.id, e.id);
    texts.forEach((x) => assert.deepEqual(Buffer.from(again.vector(x).buffer), Buffer.from(e.vector(x).buffer)));
  });

  it("chunkVectorInto (a chunk thread's: from the compounds scanned for the keyword index) writes the bits vector(embedText(chunk)) does", () => {
    const r = loadStaticModel();
    assert.ok('embedder' in r, JSON.stringify(r));
    const e = r.embedder;
    const long = Array.from({ length: 300 }, (_, i) => `getUserName${i % 7} user_names.routes/${i}`).join(' ');
    const chunks = [
      { header: 'src/server/http.py > RequestHandler.get_cookie', text: 'def get_cookie(self, name):\n    """Returns the cookies."""\n    return self.request.cookies.get(name)' },
      { header: 'docs/ünïcödé.md > Ärger', text: 'Crème brûlée: naïve café — 日本語のテキスト, ÉCOLE straße HTTPServer v2.0 $scope _private __init__' },
      { header: '', text: 'qwertyuiop' },
      { header: 'a.ts > x', text: '' },
      // past MAX_MODEL_TERMS (512): the cut falls inside a compound's terms
      { header: 'long.ts > many', text: long },
      { header: 'long.ts > many', text: `x ${long}` },
    ];
    for (const wasm of [true, false]) {
      // a fresh embedder: its compound table starts empty, and the second pass finds every compound in it
      const fresh = new StaticEmbedder(e.source, e.shared);
      for (let pass = 0; pass < 2; pass++) {
        const packed = packCompounds(chunks, { wasm });
        const out = new Float32Array(chunks.length * e.dims);
        let at = 0;
        chunks.forEach((c, i) => (at = fresh.chunkVectorInto(c.header, c.text, packed, at, out, i * e.dims)));
        assert.equal(at, packed.length, 'every chunk\'s compounds read');
        chunks.forEach((c, i) => assert.deepEqual(Buffer.from(out.buffer, i * e.dims * 4, e.dims * 4), Buffer.from(e.vector(embedText(c)).buffer), `chunk ${i}, wasm ${wasm}, pass ${pass}`));
      }
    }
  });

  it('says why a file cannot be read instead of throwing', () => {
    const bad = path.join(dir, 'bad.bin');
    fs.writeFileSync(bad, 'not a model');
    const r = loadStaticModel(bad);
    assert.ok('error' in r && /not a Fathom model file/.test(r.error), JSON.stringify(r));
    const cut = path.join(dir, 'cut.bin');
    writeModel(cut, ['<unk>', 'a1'], [[0, 0], [1, 1]], [[0, 0], [1, 1]]);
    fs.writeFileSync(cut, fs.readFileSync(cut).subarray(0, -3));
    const r2 = loadStaticModel(cut);
    assert.ok('error' in r2 && /bytes, \d+ expected/.test(r2.error), JSON.stringify(r2));
    assert.throws(() => new StaticEmbedder('x', Buffer.from('FTHM\xff\xff\xff\x7f', 'latin1')), /cut short/);
  });

  it('ships with Fathom and is what createEmbedder gives with no model asked', async () => {
    const shipped = bundledModelPath();
    assert.ok(shipped && fs.existsSync(shipped), 'resources/model/fathom-code-search.bin is missing');
    const r = await createEmbedder();
    assert.ok('embedder' in r, JSON.stringify(r));
    assert.equal(r.embedder.source, shipped);
    assert.ok(r.embedder.id.startsWith(`${STATIC_MODEL_NAME}@`));
    // it has learned something: a doc sentence lands nearer its code than unrelated code
    const [q] = await r.embedder.embed(['Parse a JSON string into an object'], undefined, { query: true });
    const [good, bad] = await r.embedder.embed(['function parseJson(text) { return JSON.parse(text); }', 'function drawCircle(ctx, radius) { ctx.arc(0, 0, radius, 0, 2 * Math.PI); }']);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
    assert.ok(dot(q, good) > dot(q, bad), `${dot(q, good)} vs ${dot(q, bad)}`);
  });
});

describe("Fathom's own model in the built CLI (dist/cli.js): on with no flag, no download", function () {
  this.timeout(120_000);
  const ROOT = path.join(__dirname, '..', '..');
  let tmp: string;
  let dir: string;
  const fathom = (args: string[]) => {
    // nothing from the environment: no model path, an empty download cache
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, FATHOM_MODEL_PATH: '', FATHOM_MODEL_CACHE: path.join(tmp, 'cache') } });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  before(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-own-model-'));
    dir = path.join(tmp, 'app');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'server.py'), 'def serve_forever(app, port):\n    sock = bind(port)\n    while True:\n        handle(app, sock.accept())\n\n\ndef parse_cookie(header):\n    return dict(p.split("=", 1) for p in header.split("; "))\n');
    fs.writeFileSync(path.join(dir, 'tests', 'test_server.py'), 'def test_serve_forever():\n    app = make_app()\n    serve_forever(app, 0)\n');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('indexes with vectors, records the model in the store, and names it in "why it ranked"', () => {
    const ix = fathom(['index', dir]);
    assert.equal(ix.code, 0, ix.err);
    assert.match(ix.out, /[1-9]\d* vectors/);
    assert.doesNotMatch(ix.out + ix.err, /keyword-only/);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, '.fathom', 'manifest.json'), 'utf8'));
    assert.match(manifest.model.id, /^fathom-code-search@[0-9a-f]{12}$/);
    assert.equal(manifest.model.path, bundledModelPath());
    // a sentence in plain words that no chunk holds as written: the model takes part
    const s = fathom(['search', 'keep serving the app on a port', '--dir', dir]);
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /meaning rank \d+ by fathom-code-search/);
    // and its first candidates are re-ranked: each line says its place before
    assert.match(s.out, /re-ranked from place \d+/);
    // implementation above its test when the query is not about tests
    const lines = s.out.split('\n').filter((l) => /^\s*\d+\./.test(l));
    assert.match(lines[0], /src\/server\.py/, s.out);
    const t = fathom(['search', 'test that the app keeps serving', '--dir', dir, '--json']);
    const hits = t.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(hits[0].file, 'tests/test_server.py', t.out);
    assert.ok(hits.every((h) => h.keywordOnly === undefined));
  });

  it('a cold index over the chunk pool\'s thresholds: embedded while the files are chunked (by the threads, or the indexing thread from their compounds: no embedding step after chunking), and the vectors saved are the ones an in-thread run saves, byte for byte', () => {
    const big = path.join(tmp, 'big');
    fs.mkdirSync(big, { recursive: true });
    // 40 files, 320 KB: over the pool's 16 files and 256 KB
    for (let i = 0; i < 40; i++) {
      const fns = Array.from({ length: 40 }, (_, j) => `def handle_request_${i}_${j}(request, session):\n    """Answer request ${j} of module ${i} from the session cache."""\n    value = session.get(request.key, ${j})\n    return render(value, status=${200 + j})\n`).join('\n\n');
      fs.writeFileSync(path.join(big, `module_${i}.py`), fns);
    }
    const run = (threads: string | undefined, store: string) => {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), 'index', big, '--store', store], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, FATHOM_MODEL_PATH: '', FATHOM_CHUNK_THREADS: threads } });
      assert.equal(r.status, 0, r.stderr);
      return r;
    };
    const pooled = run(undefined, path.join(tmp, 'store-pooled'));
    const alone = run('0', path.join(tmp, 'store-alone'));
    // (a chunk-phase line is printed only once the index takes over half a second: said when there is one)
    for (const line of pooled.stderr.split('\n').filter((l) => l.startsWith('indexing '))) assert.match(line, /chunked on \d+ thread/, pooled.stderr);
    assert.doesNotMatch(pooled.stderr, /^embedding /m, 'no embedding step after chunking');
    assert.match(alone.stderr, /^embedding \d+\/\d+ chunks/m, 'in-thread, the vectors are made after chunking');
    const vectorsOf = (store: string) => fs.readFileSync(path.join(store, fs.readdirSync(store).find((f) => /^vectors\.\d+\.bin$/.test(f))!));
    const v = vectorsOf(path.join(tmp, 'store-pooled'));
    assert.ok(v.length > 40 * 40 * 128, `${v.length} bytes of vectors`);
    assert.ok(v.equals(vectorsOf(path.join(tmp, 'store-alone'))));
    assert.match(pooled.stdout, /1600 chunks, 1600 vectors/, pooled.stdout);
  });
});
