import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import { mineGold } from '../../src/eval/mine';
import { evaluate } from '../../src/eval/evaluate';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const fathom = (args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FATHOM_MODEL_PATH: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('index, search, batch, eval (CLI and evaluation)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-search-'));
    fs.cpSync(path.join(ROOT, 'sample-workspace'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('mines gold queries of every route and scores a perfect keyword run on the sample workspace', async () => {
    const engine = new Engine();
    for await (const _ of engine.indexFolder(dir)) void _;
    const gold = mineGold(engine);
    const routes = new Set(gold.map((g) => g.route));
    for (const r of ['js', 'vue', 'i18n', 'schema', 'markdown']) assert.ok(routes.has(r), `no ${r} query mined: ${JSON.stringify(gold)}`);
    assert.ok(gold.some((g) => g.query === 'zoom control (getZoomControl)' && g.file === 'src/map/zoom.js'));
    assert.ok(gold.some((g) => g.query === 'field name with component KTextField' && g.file === 'schemas/events/create.json'));
    const report = await evaluate(engine, gold, ['keyword']);
    assert.equal(report.keyword!.all.hit5, 1);
    // a wrong gold file scores 0: the metric can fail
    const wrong = await evaluate(engine, [{ query: 'zoom control (getZoomControl)', file: 'README.txt', route: 'js' }], ['keyword']);
    assert.equal(wrong.keyword!.all.hit10, 0);
  });

  it('indexes, then searches from the stored index, keyword-only when there is no model', () => {
    const idx = fathom(['index', dir, '--no-embed']);
    assert.equal(idx.code, 0, idx.err);
    assert.match(idx.out, /indexed 9 files \(1 skipped\), \d+ chunks, keyword-only/);
    assert.ok(fs.existsSync(path.join(dir, '.fathom', 'manifest.json')));
    const s = fathom(['search', 'zoom control (getZoomControl)', '--dir', dir, '--json', '--k', '3', '--no-embed']);
    assert.equal(s.code, 0, s.err);
    const hits = s.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(hits.length, 3);
    assert.equal(hits[0].file, 'src/map/zoom.js');
    assert.deepEqual(Object.keys(hits[0]).slice(0, 5), ['file', 'startLine', 'endLine', 'text', 'score']);
    assert.equal(hits[0].why.keyword, 1);
  });

  it('search --json shows what a result stands for: the same key in other locales (alsoIn), its file past the per-file cap (moreInFile)', () => {
    assert.equal(fathom(['index', dir, '--no-embed']).code, 0);
    const search = (q: string) => fathom(['search', q, '--dir', dir, '--json', '--k', '5', '--no-embed']).out.trim().split('\n').map((l) => JSON.parse(l));
    const zoom = search('zoom')[0];
    assert.ok(zoom.moreInFile?.length > 0, JSON.stringify(zoom));
    for (const m of zoom.moreInFile) assert.equal(m.file, zoom.file);
    assert.deepEqual(Object.keys(zoom.moreInFile[0]), ['file', 'startLine', 'endLine']);
    const layers = search('Search layers');
    const en = layers.find((h) => h.file === 'locales/core_en.json');
    assert.ok(en?.alsoIn?.some((x: { file: string }) => x.file === 'locales/core_fr.json'), JSON.stringify(layers));
    assert.ok(!layers.some((h) => h.file === 'locales/core_fr.json'), 'the other locale is folded, not a result of its own');
  });

  it('finds similar chunks for a <file>:<line> given relative to --dir, and refuses a file outside it', () => {
    // the process runs in the project's root, which has no src/map/zoom.js: the path is the folder's
    const r = fathom(['similar', 'src/map/zoom.js:7', '--dir', dir, '--json', '--no-embed']);
    assert.equal(r.code, 0, r.err);
    const outside = fathom(['similar', `${path.join(ROOT, 'package.json')}:1`, '--dir', dir, '--no-embed']);
    assert.notEqual(outside.code, 0);
    assert.match(outside.err, /is not inside/);
    assert.doesNotMatch(outside.err, /\n\s+at /, 'no stack trace');
  });

  it('answers a batch of queries in the documented format', () => {
    const io = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-batch-'));
    const q = path.join(io, 'q.jsonl');
    const out = path.join(io, 'out.jsonl');
    fs.writeFileSync(q, `${JSON.stringify({ id: 'a', query: 'Rechercher des couches' })}\n${JSON.stringify({ id: 7, query: 'Adding a language' })}\n`);
    const r = fathom(['batch', '--dir', dir, '--queries', q, '--out', out, '--k', '2', '--mode', 'keyword', '--no-embed']);
    assert.equal(r.code, 0, r.err);
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.id), ['a', 7]);
    // --mode keyword: each line says the answer is keyword-only, and why
    assert.deepEqual(Object.keys(lines[0]), ['id', 'results', 'keywordOnly']);
    assert.equal(lines[0].keywordOnly, '--mode keyword');
    assert.deepEqual(Object.keys(lines[0].results[0]), ['file', 'startLine', 'endLine', 'text', 'score']);
    assert.equal(lines[0].results[0].file, 'locales/core_fr.json');
    assert.equal(lines[1].results[0].file, 'docs/i18n.md');
    const dense = fathom(['batch', '--dir', dir, '--queries', q, '--out', out, '--mode', 'dense', '--no-embed']);
    assert.equal(dense.code, 2);
    assert.match(dense.err, /dense needs an embedding model/);
  });

  it('refuses a second writer while the store is locked', () => {
    const lock = path.join(dir, '.fathom', 'lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname() }));
    const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
    fs.rmSync(lock);
    assert.equal(r.code, 1);
    assert.match(r.err, /in use by process/);
  });
});
