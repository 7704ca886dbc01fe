/**
 * Store version 6: the keyword index's term table and postings stored and read in place
 * (src/index/lexicon.ts, keyword.ts `export({ binary: true })`).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import { crc32, loadStore, saveStore, STORE_VERSION } from '../../src/index/store';
import { writeLegacyStore } from '../helpers/legacy-store';

const SAMPLE = path.join(__dirname, '..', '..', 'sample-workspace');
const QUERIES = ['zoom control', 'tooltip', 'useState effect', 'schema field label', 'KZoomControl', 'locale messages'];

async function drain(gen: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of gen) void _;
}

const answers = async (e: Engine) => {
  const out: string[] = [];
  for (const q of QUERIES) out.push(`${q}: ${(await e.search(q, { k: 10, mode: 'keyword' })).map((h) => `${h.chunk.id} ${h.score}`).join(', ')}`);
  return out;
};

const put = (e: Engine, rel: string, text: string) => e.updateFile(rel, Buffer.from(text), { size: Buffer.byteLength(text), mtimeMs: 1 });

describe('store v6: keyword term table and postings read in place', () => {
  let dir: string;
  let store: string;
  let a: Engine;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-v6-'));
    fs.cpSync(SAMPLE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
    store = path.join(dir, '.fathom');
    a = new Engine({ noEmbedderReason: 'test' });
    await drain(a.indexFolder(dir));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('round trip: the same answers and vocabulary; edits after the load (removals of stored documents, new terms) answer as on the original', async () => {
    saveStore(store, a);
    const b = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, b), { ok: true });
    assert.deepEqual(await answers(b), await answers(a));
    assert.equal(b.keyword.vocabularySize, a.keyword.vocabularySize);
    for (const e of [a, b]) {
      put(e, 'src/new-zoom.js', 'export function zoomControlTooltipBrandNew() { return useState(zoomlevelxyz); }\n');
      e.removeFile([...e.files.keys()].find((p) => /zoom/i.test(p))!);
    }
    assert.deepEqual(await answers(b), await answers(a));
    assert.equal(b.keyword.vocabularySize, a.keyword.vocabularySize);
    // saved again from the loaded engine, and loaded: still the same
    saveStore(store, b);
    const c = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, c), { ok: true });
    assert.deepEqual(await answers(c), await answers(a));
  });

  it('a version 5 store (vocabulary as JSON, no postings) loads to the same answers and is saved as the current version', async () => {
    writeLegacyStore(store, a, 5);
    const b = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, b), { ok: true });
    assert.deepEqual(await answers(b), await answers(a));
    saveStore(store, b);
    const m = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
    assert.equal(m.version, STORE_VERSION);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(store, m.files.keyword.name), 'utf8')).vocab, [], 'the vocabulary left the JSON');
    const c = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, c), { ok: true });
    assert.deepEqual(await answers(c), await answers(a));
  });

  it('a term table or postings section damaged past its checksum (the checksum made to match): refused with the reason, the engine empty, or loaded and searched without a throw', async () => {
    saveStore(store, a);
    const mfile = path.join(store, 'manifest.json');
    const good = fs.readFileSync(mfile, 'utf8');
    const m = JSON.parse(good);
    let refused = 0;
    let loaded = 0;
    for (const key of ['lexicon', 'postings'] as const) {
      const file = path.join(store, m.files[key].name);
      const bytes = fs.readFileSync(file);
      const write = (b: Buffer) => {
        fs.writeFileSync(file, b);
        fs.writeFileSync(mfile, JSON.stringify({ ...m, files: { ...m.files, [key]: { ...m.files[key], bytes: b.byteLength, crc32: crc32(b).toString(16).padStart(8, '0') } } }));
      };
      const step = Math.max(1, Math.floor(bytes.byteLength / 60));
      for (let at = 0; at < bytes.byteLength; at += step) {
        const b = Buffer.from(bytes);
        b[at] ^= 0x81;
        write(b);
        const e = new Engine({ noEmbedderReason: 'test' });
        const r = loadStore(store, e);
        if (r.ok) {
          loaded++;
          await answers(e);
        } else {
          refused++;
          assert.match(r.reason, /the stored index is damaged: keyword index snapshot rejected: /, r.reason);
          assert.equal(e.chunkCount, 0);
          assert.equal(e.keyword.size, 0);
        }
      }
      for (const len of [0, 4, bytes.byteLength - 4]) {
        write(bytes.subarray(0, len));
        assert.equal(loadStore(store, new Engine({ noEmbedderReason: 'test' })).ok, false, `${key} cut at ${len}`);
      }
      fs.writeFileSync(file, bytes);
      fs.writeFileSync(mfile, good);
    }
    assert.ok(refused > 60, `${refused} refused, ${loaded} loaded`);
    const e = new Engine({ noEmbedderReason: 'test' });
    assert.deepEqual(loadStore(store, e), { ok: true });
    assert.deepEqual(await answers(e), await answers(a));
  });
});
