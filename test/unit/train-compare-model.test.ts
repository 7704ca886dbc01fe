import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.join(__dirname, '..', '..', 'train', 'compare-model.ts');
const SHIPPED = path.join(__dirname, '..', '..', 'resources', 'model', 'fathom-code-search.bin');

/** A model file of Fathom's format: FTHM, u32 header length, the JSON header, the rows. */
function modelFile(dir: string, name: string, header: object, rows: Buffer): string {
  const h = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(h.length);
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat([Buffer.from('FTHM'), len, h, rows]));
  return file;
}

const compare = (a: string, b: string) => spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, a, b], { encoding: 'utf8' });

describe('train/compare-model.ts: is a rebuilt model the shipped one', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-model-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const header = { format: 'fathom-static-model', version: 1, dims: 2, vocab: ['<unk>', 'route'], seconds: 117, settings: { seed: 7, batch: 512 } };
  // 2 terms × 2 dims: a float scale and a float weight per term (16 bytes), then an int8 row per term and tower (8)
  const rows = Buffer.from(Array.from({ length: 24 }, (_, i) => i + 1));

  it('the same rows and header but the training time and a setting added since at its neutral value: the same model', () => {
    const a = modelFile(dir, 'a.bin', header, rows);
    const b = modelFile(dir, 'b.bin', { ...header, seconds: 162, settings: { ...header.settings, overlap_weight: 0, tie: 'none' } }, Buffer.from(rows));
    const r = compare(a, b);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /the same model/);
  });

  it('one byte of a row, a setting or the vocabulary changed: another model, and what differs', () => {
    const a = modelFile(dir, 'a.bin', header, rows);
    const changed = Buffer.from(rows);
    changed[5] ^= 1;
    const r1 = compare(modelFile(dir, 'b.bin', header, changed), a);
    assert.equal(r1.status, 1);
    assert.match(r1.stdout, /rows: 1 of 24 bytes differ/);
    const r2 = compare(modelFile(dir, 'c.bin', { ...header, settings: { ...header.settings, tie: 'full' } }, rows), a);
    assert.equal(r2.status, 1);
    assert.match(r2.stdout, /header settings/);
    const r3 = compare(modelFile(dir, 'd.bin', { ...header, vocab: ['<unk>', 'router'] }, rows), a);
    assert.equal(r3.status, 1);
    assert.match(r3.stdout, /header vocab/);
  });

  it('a file that is not a model, or one cut short: exit 2 and why; the shipped model is the same as itself', () => {
    const bad = path.join(dir, 'x.bin');
    fs.writeFileSync(bad, 'not a model');
    const r = compare(bad, SHIPPED);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /not a Fathom model file/);
    const cut = compare(modelFile(dir, 'cut.bin', header, rows.subarray(0, 20)), SHIPPED);
    assert.equal(cut.status, 2);
    assert.match(cut.stderr, /expected for 2 terms × 2 dimensions/);
    assert.equal(compare(SHIPPED, SHIPPED).status, 0);
  });
});
