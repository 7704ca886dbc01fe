import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import {
  createTransformersEmbedder,
  defaultThreads,
  embedText,
  rawSessionEmbed,
  type CreateEmbedderResult,
  type EmbedderOptions,
  type TransformersEmbedder,
} from '../../src/index/embedder';
import type { Chunk } from '../../src/chunkers/types';
import { VectorStore } from '../../src/index/vectors';

/**
 * The Embedder on the tiny BERT the project ships (test/fixtures/models/fathom-tiny-bert, made by
 * scripts/make-tiny-model.py): real all-MiniLM-L6-v2 tokenizer, tiny random encoder whose mean-
 * pooled vectors behave like a bag of tokens. Loaded through `createTransformersEmbedder`, the product's path.
 */
const MODELS = path.join(__dirname, '..', 'fixtures', 'models');
const TINY = 'fathom-tiny-bert';

async function load(options: EmbedderOptions = {}): Promise<TransformersEmbedder> {
  const r = await createTransformersEmbedder({ localModelPath: MODELS, model: TINY, ...options });
  if ('error' in r) assert.fail(r.error);
  return r.embedder;
}

function errorOf(r: CreateEmbedderResult): string {
  assert.ok('error' in r, 'expected { error }');
  return r.error;
}

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: Float32Array): number => Math.sqrt(dot(a, a));
const maxDiff = (a: Float32Array[], b: Float32Array[]): number =>
  Math.max(...a.map((v, i) => Math.max(...v.map((x, k) => Math.abs(x - b[i][k])))));

const TEXTS = [
  '// src/map/zoom.ts :: ZoomControl.zoomIn\nzoomIn() { this.map.setZoom(this.map.getZoom() + 1); }',
  '<!-- components/KZoomControl.vue — zoom control [template] -->\n<button @click="zoomIn">+</button>',
  'docs/setup.md > Install\nRun npm install, then npm start to open the sample workspace.',
  '// locales/core_en.json :: events.create\n{"title": "Create event", "save": "Save"}',
  '',
  'x',
  'Café crème à l\'été — naïve façade 中文 😀',
  'word '.repeat(700),
  ...Array.from({ length: 13 }, (_, i) => `function f${i}(a, b) { return a * ${i} + b; } // helper number ${i}`),
];

describe('Embedder (transformers.js, tiny fixture model)', function () {
  let q8: TransformersEmbedder;
  let fp32: TransformersEmbedder;

  before(async () => {
    q8 = await load();
    fp32 = await load({ dtype: 'fp32', localModelPath: path.join(MODELS, TINY), model: undefined });
  });
  after(async () => {
    await q8?.dispose();
    await fp32?.dispose();
  });

  it('loads with the product defaults: q8, 256-token window, half the cores', () => {
    assert.equal(q8.dims, 32);
    assert.equal(q8.dtype, 'q8');
    assert.equal(q8.maxTokens, 256);
    assert.equal(q8.batchSize, 2);
    assert.equal(q8.threads, defaultThreads());
    assert.ok(q8.threads >= 1);
    assert.equal(q8.id, 'fathom-tiny-bert:q8:256');
    // A direct model folder works as well as a folder of model folders.
    assert.equal(fp32.dims, 32);
    assert.equal(fp32.id, 'fathom-tiny-bert:fp32:256');
    assert.notEqual(q8.id, fp32.id);
  });

  it('returns one unit vector per text, in order', async () => {
    for (const e of [q8, fp32]) {
      const vs = await e.embed(TEXTS);
      assert.equal(vs.length, TEXTS.length);
      for (const v of vs) {
        assert.ok(v instanceof Float32Array);
        assert.equal(v.length, e.dims);
        assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
      }
      assert.deepEqual(await e.embed([]), []);
    }
  });

  it('is deterministic', async () => {
    for (const e of [q8, fp32]) {
      const a = await e.embed(TEXTS);
      const b = await e.embed(TEXTS);
      assert.equal(maxDiff(a, b), 0);
    }
  });

  it('gives the same vectors whatever the batching and the order', async () => {
    const small = await load({ dtype: 'fp32', batchSize: 3 });
    const one = await load({ batchSize: 1 });
    try {
      const whole = await fp32.embed(TEXTS);
      assert.ok(maxDiff(whole, await small.embed(TEXTS)) < 1e-5);
      const reversed = await fp32.embed([...TEXTS].reverse());
      assert.ok(maxDiff(whole, reversed.reverse()) < 1e-5);
      const singles = await Promise.all(TEXTS.map(async (t) => (await fp32.embed([t]))[0]));
      assert.ok(maxDiff(whole, singles) < 1e-5);
      // q8 quantizes activations per batch (dynamic quantization), so only nearly the same.
      const q8Whole = await q8.embed(TEXTS);
      const q8One = await one.embed(TEXTS);
      q8Whole.forEach((v, i) => assert.ok(dot(v, q8One[i]) > 0.999, `cos ${dot(v, q8One[i])}`));
      // …and q8 stays close to fp32.
      q8Whole.forEach((v, i) => assert.ok(dot(v, whole[i]) > 0.99, `q8 vs fp32 cos ${dot(v, whole[i])}`));
    } finally {
      await small.dispose();
      await one.dispose();
    }
  });

  it('packs batches by a token budget: fewer rows when the texts are long, the same vectors', async () => {
    const budget = await load({ dtype: 'fp32', batchTokens: 64 });
    try {
      assert.equal(fp32.batchTokens, 512, 'the default budget');
      const long = Array.from({ length: 6 }, (_, i) => `${'zoom map control layer '.repeat(8)} ${i}`);
      const texts = [...TEXTS, ...long];
      const p = budget.prepareBatches(texts);
      assert.deepEqual(p.batches.flatMap((b) => b.indices).sort((x, y) => x - y), texts.map((_, i) => i), 'every text in one batch');
      for (const b of p.batches) assert.ok(b.indices.length === 1 || b.indices.length * b.length <= 64, `${b.indices.length} rows of ${b.length} tokens`);
      assert.ok(p.batches.some((b) => b.indices.length === 1 && b.length > 32), 'a text of over half the budget is a batch alone');
      assert.ok(p.batches.some((b) => b.indices.length > 1), 'short texts share a batch');
      // the count cap still holds with a large budget
      assert.ok(fp32.prepareBatches(texts, 2, 1 << 20).batches.every((b) => b.indices.length <= 2));
      assert.ok(maxDiff(await fp32.embed(texts), await budget.embed(texts)) < 1e-5);
    } finally {
      await budget.dispose();
    }
  });

  it('puts texts that share words closer than unrelated ones', async () => {
    const cases: Array<[string, string, string]> = [
      ['zoom in on the map', 'map zoom control', 'database connection pool timeout'],
      ['save the event title', 'event title saved', 'render the sidebar icons'],
      ['// src/map.ts :: MapView.zoomIn', '// src/map.ts :: MapView.zoomOut', '# Install\nRun npm install'],
    ];
    for (const e of [q8, fp32]) {
      for (const [target, near, far] of cases) {
        const [t, n, f] = await e.embed([target, near, far]);
        assert.ok(dot(t, n) > dot(t, f) + 0.1, `${e.dtype}: "${target}" ~ "${near}" ${dot(t, n)} vs "${far}" ${dot(t, f)}`);
      }
    }
  });

  it('cuts texts to the model window, keeping [SEP] last', async () => {
    const prepared = fp32.prepareBatches(['word '.repeat(700), 'short text']);
    assert.deepEqual(prepared.tokens, [256, 4]);
    assert.equal(prepared.truncated, 1);
    const long = prepared.batches[0];
    assert.equal(long.length, 256);
    assert.equal(long.inputIds[0], 101n); // [CLS]
    assert.equal(long.inputIds[255], 102n); // [SEP]
    // Long texts are tokenized only as far as the window needs, with the same ids as a full
    // tokenization cut to the window.
    const tok = fp32.pipeline.tokenizer;
    const longTexts = [
      'alpha beta, gamma.delta '.repeat(2000),
      'x'.repeat(9000) + ' tail words here '.repeat(300),
      'Café crème 中文字符 naïve\tfaçade\r\n'.repeat(800),
      'a\u00a0b\ufeffc '.repeat(3000),
    ];
    for (const text of longTexts) {
      const full = tok.encode(text);
      const want = [...full.slice(0, 255), full[full.length - 1]];
      const got = fp32.prepareBatches([text]);
      assert.equal(got.truncated, 1);
      assert.deepEqual([...got.batches[0].inputIds].map(Number), want);
    }
    // What lies past the window does not change the vector.
    const head = 'alpha beta gamma '.repeat(100);
    const [a, b] = await fp32.embed([head + 'one two three', head + 'completely different tail words']);
    assert.equal(maxDiff([a], [b]), 0);
    const narrow = await load({ dtype: 'fp32', maxTokens: 16 });
    try {
      assert.equal(narrow.id, 'fathom-tiny-bert:fp32:16');
      const [c, d] = await narrow.embed(['alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi', 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron rho sigma']);
      assert.equal(maxDiff([c], [d]), 0);
      assert.deepEqual(narrow.prepareBatches(['word '.repeat(50)]).tokens, [16]);
    } finally {
      await narrow.dispose();
    }
    // A window wider than the model's position table is narrowed to it.
    const wide = await load({ dtype: 'fp32', maxTokens: 4096 });
    try {
      assert.equal(wide.maxTokens, 512);
    } finally {
      await wide.dispose();
    }
  });

  it('agrees with transformers.js\'s own feature-extraction pipeline (mean pooling, normalized)', async () => {
    const short = TEXTS.filter((t) => t.length < 200); // within the window: no truncation involved
    // one batch for all, as the pipeline's call makes (q8 quantizes activations per batch)
    for (const dtype of ['q8', 'fp32'] as const) {
      const e = await load({ dtype, batchSize: 64, batchTokens: 1 << 20 });
      try {
        const ref = await e.pipeline(short, { pooling: 'mean', normalize: true });
        assert.deepEqual(ref.dims, [short.length, e.dims]);
        const data = ref.data as Float32Array;
        const expected = short.map((_, i) => data.slice(i * e.dims, (i + 1) * e.dims));
        assert.ok(maxDiff(await e.embed(short), expected) < 1e-5, e.dtype);
      } finally {
        await e.dispose();
      }
    }
  });

  it('pads batches without changing vectors: the raw session agrees', async () => {
    for (const e of [q8, fp32]) {
      const prepared = e.prepareBatches(TEXTS);
      // (the batches embed makes: a batch holding rows shorter than its padded length)
      assert.ok(prepared.batches.some((b) => b.indices.length > 1 && b.indices.some((i) => prepared.tokens[i] < b.length)), 'some row is padded');
      const raw = await rawSessionEmbed(e, prepared);
      assert.ok(maxDiff(await e.embed(TEXTS), raw) < 1e-5);
    }
  });

  it('embeds a chunk as header + newline + text', () => {
    const chunk = { header: '// src/a.ts :: f', text: 'function f() {}' } as Chunk;
    assert.equal(embedText(chunk), '// src/a.ts :: f\nfunction f() {}');
  });

  it('stops between batches when aborted, and keeps working after', async () => {
    const e = await load({ batchSize: 2 });
    try {
      const texts = Array.from({ length: 20 }, (_, i) => `text number ${i}`);
      const before = new AbortController();
      before.abort();
      await assert.rejects(e.embed(texts, before.signal), { name: 'AbortError' });

      // Abort while the second batch runs: the third never starts.
      const session = e.session as unknown as { run: (feeds: unknown) => Promise<unknown> };
      const run = session.run.bind(session);
      let calls = 0;
      const ac = new AbortController();
      session.run = (feeds) => {
        if (++calls === 2) ac.abort();
        return run(feeds);
      };
      await assert.rejects(e.embed(texts, ac.signal), { name: 'AbortError' });
      assert.equal(calls, 2);
      session.run = run;

      const vs = await e.embed(texts);
      assert.equal(vs.length, 20);
    } finally {
      await e.dispose();
    }
  });

  it('runs concurrent calls one at a time, each with its own result', async () => {
    const [a, b] = await Promise.all([fp32.embed(TEXTS.slice(0, 5)), fp32.embed(TEXTS.slice(5))]);
    const all = await fp32.embed(TEXTS);
    assert.ok(maxDiff([...a, ...b], all) < 1e-5);
  });

  it('an urgent call (a query) starts before every waiting index call', async () => {
    const started: string[] = [];
    const slow = TEXTS.slice(0, 8);
    const track = (name: string, p: Promise<Float32Array[]>) => p.then((v) => (started.push(name), v));
    const first = track('index-1', q8.embed(slow));
    const second = track('index-2', q8.embed(slow));
    const third = track('index-3', q8.embed(slow));
    const query = track('query', q8.embed(['zoom control'], undefined, { urgent: true }));
    await Promise.all([first, second, third, query]);
    // index-1 was already running; the query overtakes the two that were waiting
    assert.deepEqual(started, ['index-1', 'query', 'index-2', 'index-3']);
  });

  it('scores rows with ONNX Runtime exactly as the JS scan does', async () => {
    const vs = await fp32.embed(TEXTS);
    const dims = vs[0].length;
    const store = new VectorStore(dims, 4);
    vs.forEach((v, i) => store.set(i, v));
    store.delete(3);
    const q = vs[0];
    const { data, rows } = store.matrix();
    assert.equal(rows, TEXTS.length);
    assert.ok(data.length >= rows * dims);
    const fast = await fp32.scoreRows(data, rows, q);
    const slow = store.scores(q);
    assert.equal(fast.length, rows);
    for (let i = 0; i < rows; i++) if (i !== 3) assert.ok(Math.abs(fast[i] - slow[i]) < 1e-5, `row ${i}: ${fast[i]} vs ${slow[i]}`);
    assert.deepEqual(
      store.topK(fast, 5).map((h) => h.docId),
      store.search(q, 5).map((h) => h.docId),
    );
    assert.ok(!store.topK(fast, rows).some((h) => h.docId === 3), 'a deleted row is never returned');
    await assert.rejects(fp32.scoreRows(data.subarray(0, dims), 2, q), /numbers for 2 rows/);
  });

  it('refuses to embed once disposed', async () => {
    const e = await load();
    await e.dispose();
    await e.dispose();
    await assert.rejects(e.embed(['x']), /disposed/);
  });

  describe('without a model it returns the reason instead of throwing', () => {
    it('model not in the local folder and downloads off', async () => {
      const msg = errorOf(await createTransformersEmbedder({ localModelPath: MODELS }));
      assert.match(msg, /^No embedding model: "Xenova\/all-MiniLM-L6-v2" \(q8\) not found/);
      assert.match(msg, /config\.json is missing/);
      assert.match(msg, /downloading is off/);
      assert.match(msg, /onnx\/model_quantized\.onnx/);
    });

    it('no local folder, nothing in the cache, downloads off (the default)', async () => {
      const cacheDir = path.join(MODELS, 'no-such-cache');
      const msg = errorOf(await createTransformersEmbedder({ cacheDir }));
      assert.match(msg, /"Xenova\/all-MiniLM-L6-v2" \(q8\) not found: .*no-such-cache.*config\.json is missing, and downloading is off/);
      assert.match(errorOf(await createTransformersEmbedder({ model: 'fathom/no-such-model' })), /"fathom\/no-such-model" \(q8\) not found.*downloading is off/);
    });

    it('local folder that does not exist', async () => {
      const dir = path.join(MODELS, 'no-such-folder');
      assert.equal(errorOf(await createTransformersEmbedder({ localModelPath: dir })), `No embedding model: the local model folder ${dir} does not exist and downloading is off.`);
    });

    it('model folder without the file of the dtype', async () => {
      const msg = errorOf(await createTransformersEmbedder({ localModelPath: path.join(MODELS, TINY), dtype: 'fp16' }));
      assert.match(msg, /"fathom-tiny-bert" \(fp16\) not found: .*model_fp16\.onnx is missing/);
    });

    it('bad options', async () => {
      assert.match(errorOf(await createTransformersEmbedder({ localModelPath: MODELS, model: TINY, threads: 0 })), /threads must be an integer of at least 1, got 0/);
      assert.match(errorOf(await createTransformersEmbedder({ localModelPath: MODELS, model: TINY, batchSize: 1.5 })), /batchSize/);
      assert.match(errorOf(await createTransformersEmbedder({ localModelPath: MODELS, model: TINY, batchTokens: 0 })), /batchTokens/);
      assert.match(errorOf(await createTransformersEmbedder({ localModelPath: MODELS, model: TINY, maxTokens: 2 })), /maxTokens must be an integer of at least 4/);
      assert.match(errorOf(await createTransformersEmbedder({ localModelPath: MODELS, model: TINY, dtype: 'fp64' as never })), /Unknown embedding dtype "fp64"/);
    });
  });
});
