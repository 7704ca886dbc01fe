/**
 * The team index's push reads through the folder's read policy: a file that became a link
 * between the walk and its read (`ln -s /etc/passwd b.js`) is refused and named, never pushed.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { pushFolder } from '../../src/index/pgstore';

const SECRET = 'zqxSecretOutsidePgWord';

describe('fault: a team-index push never reads a link made after the walk', function () {
  this.timeout(120_000);
  let tmp: string;
  let db: PGlite;
  before(async () => {
    db = await PGlite.create({ extensions: { vector } });
  });
  after(async () => {
    await db?.close();
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pglink-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a file replaced by a link to a file outside, after the walk, is skipped and named; its target is not in the index', async () => {
    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(tmp, 'passwd'), `root:x:0:0:${SECRET}:/root:/bin/bash\n`);
    fs.writeFileSync(path.join(ws, 'a.js'), 'export function alphaPushed () {\n  return 1\n}\n');
    fs.writeFileSync(path.join(ws, 'b.js'), 'export function betaPushed () {\n  return 2\n}\n');
    let swapped = false;
    // the push checks its signal before each file it reads, after the walk: the swap happens there
    const signal = {
      throwIfAborted() {
        if (swapped) return;
        swapped = true;
        fs.rmSync(path.join(ws, 'b.js'));
        fs.symlinkSync(path.join(tmp, 'passwd'), path.join(ws, 'b.js'));
      },
    } as unknown as AbortSignal;
    const stats = await pushFolder(db, ws, { signal });
    assert.ok(swapped);
    const leaked = await db.query<{ n: number }>(`select count(*)::int as n from fathom_chunks where chunk::text like '%${SECRET}%'`);
    assert.equal(leaked.rows[0].n, 0, 'the link target was pushed');
    assert.ok(stats.skippedFiles?.some((s) => s.path === 'b.js' && /link/.test(s.reason)), JSON.stringify(stats.skippedFiles));
    const pushed = await db.query<{ path: string }>('select path from fathom_files order by path');
    assert.deepEqual(pushed.rows.map((r) => r.path), ['a.js']);
  });
});
