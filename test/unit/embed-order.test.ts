import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Embedder } from '../../src/index/embedder';
import { EmbedQueue, embedTier } from '../../src/index/embed-order';
import { Engine } from '../../src/index/engine';
import { WorkerState } from '../../src/service/worker';
import { EmbedHints } from '../../src/editor/hints';

/** Records the paths of the chunks in each embed call (its header starts `// <path>`-ish: we map texts back). */
function recordingEmbedder(): Embedder & { calls: string[][] } {
  const e = {
    id: 'order-test',
    dims: 4,
    calls: [] as string[][],
    async embed(texts: string[]) {
      e.calls.push(texts);
      return texts.map(() => new Float32Array([1, 0, 0, 0]));
    },
    async dispose() {},
  };
  return e;
}

function workspace(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-order-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const drain = async (gen: AsyncGenerator<unknown>) => {
  for await (const _ of gen) void _;
};

describe('embedding order', () => {
  it('tiers: code first, then docs/config/tests, then locale files and fixtures', () => {
    assert.equal(embedTier('src/map/zoom.js', 'javascript'), 1);
    assert.equal(embedTier('src/App.vue', 'vue'), 1);
    assert.equal(embedTier('pkg/server/handler.go', 'go'), 1);
    assert.equal(embedTier('README.md', 'markdown'), 2);
    assert.equal(embedTier('tsconfig.json', 'json', 'config'), 2);
    assert.equal(embedTier('test/unit/zoom.test.ts', 'typescript'), 2);
    assert.equal(embedTier('src/zoom.spec.js', 'javascript'), 2);
    assert.equal(embedTier('locales/fr.json', 'json', 'i18n'), 3);
    assert.equal(embedTier('src/locale/lang/es.js', 'javascript'), 3);
    assert.equal(embedTier('test/fixtures/users.json', 'json', 'fixture'), 3);
    assert.equal(embedTier('src/__snapshots__/App.spec.js.snap', 'plaintext'), 3);
    assert.equal(embedTier('src/__mocks__/api.js', 'javascript'), 3);
  });

  it('EmbedQueue gives tier 0 first, insertion order within a tier, and re-tiers in O(1)', () => {
    const q = new EmbedQueue();
    q.add(1, 3);
    q.add(2, 1);
    q.add(3, 2);
    q.add(4, 1);
    assert.deepEqual(q.take(10), [2, 4, 3, 1]);
    assert.ok(q.move(1, 0));
    assert.deepEqual(q.take(2), [1, 2]);
    assert.ok(q.delete(2));
    assert.equal(q.move(2, 0), false, 'a deleted id is not re-added by move');
    assert.deepEqual([...q], [1, 4, 3]);
    assert.deepEqual(q.counts(), [1, 1, 1, 0]);
    assert.equal(q.size, 3);
  });

  it('the engine embeds code before docs before locale files, and hinted files before all', async () => {
    const dir = workspace({
      'locales/en.json': JSON.stringify({ app: { title: 'Mapping app', save: 'Save the map', cancel: 'Cancel' } }),
      'locales/fr.json': JSON.stringify({ app: { title: 'Carte', save: 'Enregistrer la carte', cancel: 'Annuler' } }),
      'docs/guide.md': '# Guide\n\nHow to zoom the map.\n',
      'src/zoom.js': 'export function zoomIn(map) {\n  return map.zoom + 1;\n}\n',
      'src/pan.js': 'export function panTo(map, x, y) {\n  return { ...map, x, y };\n}\n',
    });
    try {
      const emb = recordingEmbedder();
      const engine = new Engine({ embedder: emb });
      await drain(engine.indexFolder(dir, { embed: false }));
      engine.setPriority(['docs/guide.md']);
      const order = [...(engine as unknown as { catalog: { pendingEmbed: EmbedQueue } }).catalog.pendingEmbed].map((id) => engine.chunks.get(id)!.path);
      const firstOf = (p: string) => order.indexOf(p);
      const lastOf = (p: string) => order.lastIndexOf(p);
      assert.equal(order[0], 'docs/guide.md', `hinted first: ${order.join(', ')}`);
      assert.ok(lastOf('src/zoom.js') < firstOf('locales/en.json') && lastOf('src/pan.js') < firstOf('locales/fr.json'), `code before locales: ${order.join(', ')}`);
      assert.deepEqual(engine.pendingByTier().map((n) => n > 0), [true, true, false, true]);
      // the hint moves on: the guide goes back to its own tier (after the code)
      engine.setPriority(['src/pan.js']);
      const order2 = [...(engine as unknown as { catalog: { pendingEmbed: EmbedQueue } }).catalog.pendingEmbed].map((id) => engine.chunks.get(id)!.path);
      assert.equal(order2[0], 'src/pan.js');
      assert.ok(order2.indexOf('docs/guide.md') > order2.lastIndexOf('src/zoom.js') && order2.indexOf('docs/guide.md') < order2.indexOf('locales/en.json'), order2.join(', '));
      // embedding follows that order, batch by batch
      await drain(engine.embedPending());
      const embedded = emb.calls.flat();
      assert.match(embedded[0], /src\/pan\.js/);
      assert.match(embedded[embedded.length - 1], /locales\//);
      assert.equal(engine.pendingVectors, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('search is hybrid over what is embedded so far', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`src/m${i}.js`] = `export function handler${i}(request) {\n  return request.id + ${i};\n}\n`;
    const dir = workspace(files);
    try {
      const emb = recordingEmbedder();
      const engine = new Engine({ embedder: emb });
      await drain(engine.indexFolder(dir, { embed: false }));
      const gen = engine.embedPending();
      await gen.next(); // one batch of 32
      assert.ok(engine.pendingVectors > 0 && engine.vectors!.count > 0, `partly embedded: ${engine.vectors!.count} of ${engine.chunkCount}`);
      const hits = await engine.search('handler request', { k: 50 });
      assert.ok(hits.some((h) => h.why.dense !== undefined), 'dense ranks over the embedded part');
      assert.ok(hits.some((h) => h.why.dense === undefined && h.why.keyword !== undefined), 'keyword hits for the rest');
      await drain(gen);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedding hints: editor → worker', () => {
  it('EmbedHints: visible editors first, then recently touched files; only changed hints are sent', () => {
    const h = new EmbedHints();
    h.touch('/a', 'src/old.js');
    h.touch('/a', 'src/new.js');
    h.touch('/b', 'lib/x.go');
    const visible = [{ root: '/a', rel: 'src/open.vue' }];
    assert.deepEqual(h.hintFor('/a', visible), ['src/open.vue', 'src/new.js', 'src/old.js']);
    assert.deepEqual(h.changes(['/a', '/b'], visible), [
      { root: '/a', paths: ['src/open.vue', 'src/new.js', 'src/old.js'] },
      { root: '/b', paths: ['lib/x.go'] },
    ]);
    assert.deepEqual(h.changes(['/a', '/b'], visible), [], 'nothing changed: nothing sent');
    h.touch('/a', 'src/old.js');
    assert.deepEqual(h.changes(['/a', '/b'], visible), [{ root: '/a', paths: ['src/open.vue', 'src/old.js', 'src/new.js'] }]);
    h.resend();
    assert.equal(h.changes(['/a', '/b'], visible).length, 2);
    for (let i = 0; i < 80; i++) h.touch('/c', `f${i}.js`);
    assert.equal(h.hintFor('/c', []).length, 50, 'the recent list is bounded');
  });

  it('the worker keeps a hint sent before the folder opens and applies it when it opens', async () => {
    const dir = workspace({ 'src/a.js': 'export const a = 1;\n', 'src/b.js': 'export const b = 2;\n' });
    const posted: Array<{ type: string; id?: number; result?: unknown }> = [];
    const state = new WorkerState((m) => posted.push(m as never));
    try {
      await state.handle({ type: 'prioritize', id: 1, root: dir, paths: ['src/b.js'] });
      assert.deepEqual(posted.find((m) => m.id === 1)?.result, { pendingVectors: 0 });
      await state.handle({ type: 'index', id: 2, root: dir, storeDir: path.join(dir, '.fathom') });
      const engine = (state as unknown as { folders: { indexed: Map<string, { engine: Engine }> } }).folders.indexed.get(path.resolve(dir))!.engine;
      assert.deepEqual(engine.priority, ['src/b.js']);
      await state.handle({ type: 'prioritize', id: 3, root: dir, paths: ['src/a.js'] });
      assert.deepEqual(engine.priority, ['src/a.js'], 'an open folder takes a new hint at once');
    } finally {
      await (state as unknown as { dispose(): Promise<void> }).dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
