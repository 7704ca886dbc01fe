/**
 * A walk can be cancelled by a message: the async walk gives the event loop turns while it
 * lists folders, so an abort that arrives as an event (a worker's `cancel` message) stops it;
 * the same order and files as the synchronous walk otherwise. The in-memory source honours the
 * signal too.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { walkFiles, walkFilesAsync } from '../../src/workspace/files';
import { MemoryFileSource, NodeFileSource } from '../../src/workspace/source';

describe('walk: cancellable while it lists', function () {
  let root: string;
  before(function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-walk-'));
    // 400 folders of 2 files, and a deep chain of 300 folders (no recursion limit)
    for (let i = 0; i < 400; i++) {
      const d = path.join(root, `d${String(i).padStart(3, '0')}`);
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'a.ts'), 'export const a = 1;\n');
      fs.writeFileSync(path.join(d, 'b.md'), '# b\n');
    }
    let deep = path.join(root, 'deep');
    for (let i = 0; i < 300; i++) deep = path.join(deep, 'x');
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(path.join(deep, 'leaf.js'), 'x;\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('lists the same files in the same order as the synchronous walk', async function () {
    const sync = walkFiles(root).map((f) => f.rel);
    const async = (await walkFilesAsync(root, [], undefined, undefined, 0)).map((f) => f.rel);
    assert.equal(sync.length, 801);
    assert.deepEqual(async, sync);
    assert.ok(sync.includes(`deep/${'x/'.repeat(300)}leaf.js`));
  });

  it('an abort that arrives as an event stops the async walk; the synchronous one cannot see it', async function () {
    const late = new AbortController();
    setImmediate(() => late.abort(new Error('cancelled by a message')));
    assert.equal(walkFiles(root, [], undefined, late.signal).length, 801, 'the event cannot run during a synchronous walk');

    const ac = new AbortController();
    setImmediate(() => ac.abort(new Error('cancelled by a message')));
    await assert.rejects(walkFilesAsync(root, [], undefined, ac.signal, 0), /cancelled by a message/);
  });

  it('the file sources pass the signal on: on disk and in memory', async function () {
    const ac = new AbortController();
    setImmediate(() => ac.abort(new Error('stop')));
    await assert.rejects(new NodeFileSource(root).walkAsync(undefined, [], ac.signal), /stop/);

    const mem = new MemoryFileSource({ 'a.ts': 'a', 'b.ts': 'b' });
    const done = new AbortController();
    done.abort(new Error('already stopped'));
    assert.throws(() => mem.walk(undefined, [], done.signal), /already stopped/);
    const later = new AbortController();
    const p = mem.walkAsync(undefined, [], later.signal);
    later.abort(new Error('stopped before listing'));
    await assert.rejects(p, /stopped before listing/);
    assert.deepEqual((await mem.walkAsync()).map((f) => f.rel), ['a.ts', 'b.ts']);
  });
});
