/**
 * The keyword snapshot's binary layout made on a thread of its own during a save
 * (src/index/layout-thread.ts): the same snapshot as `export({ binary: true })` in every case:
 * through the thread, and when the thread is missing, dies holding the lent records, or fails.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import { KeywordIndex } from '../../src/index/keyword';
import { exportBinaryAsync } from '../../src/index/layout-thread';
import { saveStore, saveStoreAsync } from '../../src/index/store';

const SAMPLE = path.join(__dirname, '..', '..', 'sample-workspace');

/** An index with holes (removed documents), non-ASCII terms and terms shared across fields. */
function sampleIndex(): KeywordIndex {
  const index = new KeywordIndex();
  const words = ['zoom', 'control', 'getZoomControl', 'tooltip', 'café', 'naïve', 'Ünïcödé', 'map_layer', 'x1', 'render'];
  for (let id = 0; id < 300; id++) {
    const w = (k: number) => words[(id * 7 + k * 3) % words.length];
    index.add(id, { symbol: `${w(0)}${id % 5}`, path: `src/${w(1)}/f${id % 17}.ts`, header: `// src/${w(1)}/f${id % 17}.ts :: ${w(2)}`, text: `${w(3)} ${w(4)} ${w(5)} ${id} ${w(6)}`, language: id % 2 ? 'typescript' : 'vue', kind: id % 3 ? 'function' : 'class' });
  }
  for (let id = 0; id < 300; id += 7) index.remove(id);
  return index;
}

const why: string[] = [];
const onFallback = (w: string) => why.push(w);

describe('layout thread: a keyword snapshot laid out on its own thread', () => {
  beforeEach(() => (why.length = 0));

  it('gives the snapshot the export gives, records and all, and leaves the index as it was', async () => {
    const index = sampleIndex();
    const expected = index.export({ binary: true });
    const snap = await exportBinaryAsync(index, { minDocs: 0, onFallback });
    assert.deepEqual(why, [], 'the thread was used');
    assert.deepEqual(snap, expected);
    assert.ok(snap.data.byteLength > 0 && snap.lexicon!.byteLength > 0 && snap.postings!.byteLength > 0);
    // the records lent to the thread came back: the index exports the same again
    assert.deepEqual(index.export({ binary: true }), expected);
  });

  it('the thread script the build writes (dist/layout-worker.js) gives the same snapshot', async () => {
    const file = path.join(__dirname, '..', '..', 'dist', 'layout-worker.js');
    assert.ok(fs.existsSync(file), 'the build writes dist/layout-worker.js');
    const index = sampleIndex();
    assert.deepEqual(await exportBinaryAsync(index, { minDocs: 0, script: { file }, onFallback }), index.export({ binary: true }));
    assert.deepEqual(why, [], 'the thread was used');
  });

  it('below its threshold, or with no thread script, lays out on this thread', async () => {
    const index = sampleIndex();
    const expected = index.export({ binary: true });
    assert.deepEqual(await exportBinaryAsync(index, { minDocs: index.size + 1, onFallback }), expected);
    // a thread that would fail (and say so) is not even started below the threshold
    const failing = { file: '', eval: `require('node:worker_threads').parentPort.once('message', () => process.exit(3));` };
    assert.deepEqual(await exportBinaryAsync(index, { minDocs: index.size + 1, script: failing, onFallback }), expected);
    assert.deepEqual(await exportBinaryAsync(index, { minDocs: 0, script: null, onFallback }), expected);
    assert.deepEqual(why, []);
  });

  it('a thread that cannot start, dies holding the records, or fails gives the same snapshot, saying why', async () => {
    const index = sampleIndex();
    const expected = index.export({ binary: true });
    const cases: Array<[{ file: string; eval?: string }, RegExp]> = [
      [{ file: path.join(os.tmpdir(), 'fathom-no-such-layout-worker.js') }, /layout thread/],
      [{ file: '', eval: `require('node:worker_threads').parentPort.once('message', () => process.exit(3));` }, /stopped \(exit code 3\)/],
      [{ file: '', eval: `const p = require('node:worker_threads').parentPort; p.once('message', (j) => p.postMessage({ buffer: j.buffer, error: 'boom' }, [j.buffer]));` }, /failed: boom/],
      [{ file: '', eval: `throw new Error('broken thread');` }, /broken thread/],
    ];
    for (const [script, reason] of cases) {
      why.length = 0;
      assert.deepEqual(await exportBinaryAsync(index, { minDocs: 0, script, onFallback }), expected, String(reason));
      assert.equal(why.length, 1, `${reason}: ${why.join('; ')}`);
      assert.match(why[0], reason);
    }
    assert.deepEqual(index.export({ binary: true }), expected);
  });

  it('a save through the thread writes the same store as the synchronous save', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-layout-'));
    try {
      fs.cpSync(SAMPLE, path.join(dir, 'ws'), { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
      const e = new Engine({ noEmbedderReason: 'test' });
      for await (const _ of e.indexFolder(path.join(dir, 'ws'))) void _;
      const sync = path.join(dir, 'sync');
      const threaded = path.join(dir, 'threaded');
      saveStore(sync, e);
      await saveStoreAsync(threaded, e, { layoutThread: { minDocs: 0, onFallback } });
      assert.deepEqual(why, [], 'the thread was used');
      const data = (d: string) => fs.readdirSync(d).filter((f) => f !== 'manifest.json').sort();
      assert.deepEqual(data(threaded), data(sync));
      for (const f of data(sync)) assert.ok(fs.readFileSync(path.join(threaded, f)).equals(fs.readFileSync(path.join(sync, f))), f);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
