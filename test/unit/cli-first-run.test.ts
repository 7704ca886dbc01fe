/**
 * The CLI as a new user meets it, through the built bundle (bin/fathom.js → dist/cli.js): a store
 * remembers the model it was embedded with, an answer says when it is keyword-only (also in
 * --json) and why, once; an argument error is one line and where to read more; each command has
 * its own --help; hits carry one documented relevance scale; an i18n lookup lists the matched and
 * source locales, then the usages, then the rest; progress keeps coming in a log.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_MAX_FILE_BYTES } from '../../src/chunkers/types';
import { progressPrinter, PROGRESS_EVERY_MS, relevance, SKIP_LINES, withFlagHints } from '../../src/cli';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const TINY = path.join(ROOT, 'test', 'fixtures', 'models', 'fathom-tiny-bert');

describe('CLI: the first run (dist/cli.js)', function () {
  this.timeout(120_000);
  let tmp: string;
  let dir: string;
  let cache: string;
  const fathom = (args: string[]) => {
    // no model from the environment, and an empty download cache: only what the flags or the store say
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, FATHOM_MODEL_PATH: '', FATHOM_MODEL_CACHE: cache } });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  before(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-first-'));
    dir = path.join(tmp, 'app');
    cache = path.join(tmp, 'cache');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(cache);
    fs.writeFileSync(path.join(dir, 'src', 'zoom.ts'), 'export function getZoomControl(map: Map) {\n  return map.zoom;\n}\n\nexport function resetZoom(map: Map) {\n  map.zoom = 1;\n}\n');
    fs.writeFileSync(path.join(dir, 'src', 'pan.ts'), 'export function panTo(map: Map, x: number, y: number) {\n  map.center = { x, y };\n}\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a transformers.js model is fused with Fathom’s own for a query in words, and alone with --model-alone', () => {
    const ix = fathom(['index', dir, '--model-path', TINY]);
    assert.equal(ix.code, 0, ix.err);
    const whys = (extra: string[]) => {
      const s = fathom(['search', 'set the zoom of the map back to one', '--dir', dir, '--json', ...extra]);
      assert.equal(s.code, 0, s.err);
      return s.out.trim().split('\n').map((l) => JSON.parse(l).why as { reranker?: string; reranked?: number; model?: string; dense?: number });
    };
    const fusedWhy = whys([]);
    assert.ok(fusedWhy.some((w) => w.reranker === 'fathom-code-search' && w.reranked !== undefined), JSON.stringify(fusedWhy));
    assert.ok(fusedWhy.some((w) => w.dense !== undefined && w.model === 'fathom-tiny-bert'), JSON.stringify(fusedWhy));
    const aloneWhy = whys(['--model-alone']);
    assert.ok(aloneWhy.length > 0 && aloneWhy.every((w) => w.reranker === undefined && w.reranked === undefined), JSON.stringify(aloneWhy));
    // the text output names the model that re-ranked
    const text = fathom(['search', 'set the zoom of the map back to one', '--dir', dir]);
    assert.match(text.out, /re-ranked from place \d+ by fathom-code-search/);
  });

  it('a store remembers its model (id, folder, dimensions, hash): search and similar use it without --model-path', () => {
    const model = path.join(tmp, 'models', 'fathom-tiny-bert');
    fs.cpSync(TINY, model, { recursive: true });
    const ix = fathom(['index', dir, '--model-path', model]);
    assert.equal(ix.code, 0, ix.err);
    assert.match(ix.out, /\d+ vectors/);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, '.fathom', 'manifest.json'), 'utf8'));
    assert.equal(manifest.model.id, 'fathom-tiny-bert:q8:256');
    assert.equal(manifest.model.path, model);
    assert.equal(manifest.model.dims, 32);
    assert.match(manifest.model.hash, /^sha256:[0-9a-f]{64}$/);

    const s = fathom(['search', 'zoom', '--dir', dir, '--json']);
    assert.equal(s.code, 0, s.err);
    const hits = s.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(hits.length > 0);
    assert.ok(hits.every((h) => h.keywordOnly === undefined), s.out);
    assert.ok(hits.some((h) => h.why.dense !== undefined), 'the dense list took part');
    assert.doesNotMatch(s.err, /keyword-only/);
    const sim = fathom(['similar', `${path.join(dir, 'src', 'zoom.ts')}:2`, '--dir', dir]);
    assert.equal(sim.code, 0, sim.err);
    assert.doesNotMatch(sim.err, /keyword-only/);

    // the weights changed under the store: said, and keyword-only, never vectors of two models mixed
    fs.copyFileSync(path.join(model, 'onnx', 'model.onnx'), path.join(model, 'onnx', 'model_quantized.onnx'));
    const changed = fathom(['search', 'zoom', '--dir', dir, '--json']);
    assert.equal(changed.code, 0, changed.err);
    assert.match(JSON.parse(changed.out.split('\n')[0]).keywordOnly, /weights file changed since/);

    // the model folder is gone: one line that says which model and how to give it
    fs.rmSync(model, { recursive: true });
    const gone = fathom(['search', 'zoom', '--dir', dir]);
    assert.equal(gone.code, 0, gone.err);
    const said = gone.err.split('\n').filter((l) => /keyword-only/.test(l));
    assert.equal(said.length, 1, gone.err);
    // (whether the default model loads here or not: it is not the store's)
    assert.ok(said[0].startsWith(`keyword-only: this index was embedded with fathom-tiny-bert:q8:256 from ${model}, which is not there any more`), said[0]);
    assert.match(said[0], /give --model-path DIR holding that model/);
    // and a model given explicitly still wins
    const given = fathom(['search', 'zoom', '--dir', dir, '--model-path', TINY, '--json']);
    assert.equal(given.code, 0, given.err);
    assert.ok(given.out.trim().split('\n').every((l) => JSON.parse(l).keywordOnly === undefined));
  });

  it('a store whose model the folder does not record (an editor-saved one) is never re-embedded by a search with another default model', () => {
    assert.equal(fathom(['index', dir, '--model-path', TINY]).code, 0);
    const file = path.join(dir, '.fathom', 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete manifest.model.path;
    delete manifest.model.hash;
    fs.writeFileSync(file, JSON.stringify(manifest));
    // the default model (Fathom's own, shipped) loads, and is not the store's
    const s = fathom(['search', 'zoom', '--dir', dir]);
    assert.equal(s.code, 0, s.err);
    assert.match(s.err, /^keyword-only: this index was embedded with fathom-tiny-bert:q8:256, not with the default \S+: give --model-path DIR holding that model, or run fathom index to embed again with \S+ \(or --no-embed\)$/m);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).model.id, 'fathom-tiny-bert:q8:256', 'the stored vectors are kept');
    assert.doesNotMatch(s.err, /embedding \d+/);
  });

  it('keyword-only is said once, on stderr, naming --allow-download; --json hits carry it', () => {
    // a transformers.js model that is not there (Fathom's own model ships with it)
    const ix = fathom(['index', dir, '--model', 'Xenova/all-MiniLM-L6-v2']);
    assert.equal(ix.code, 0, ix.err);
    const lines = (ix.out + ix.err).split('\n').filter((l) => /No embedding model/.test(l));
    assert.equal(lines.length, 1, ix.out + ix.err);
    assert.match(lines[0], /^keyword-only: .*--allow-download/);
    assert.doesNotMatch(lines[0], /Allow downloads/);
    assert.match(ix.out, /keyword-only in/);
    const s = fathom(['search', 'zoom', '--dir', dir, '--json', '--model', 'Xenova/all-MiniLM-L6-v2']);
    const hits = s.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(hits.length > 0 && hits.every((h) => /--allow-download/.test(h.keywordOnly)), s.out);
    assert.equal(s.err, '', 'with --json, stderr stays quiet');
    const off = fathom(['search', 'zoom', '--dir', dir, '--json', '--no-embed']);
    assert.equal(JSON.parse(off.out.split('\n')[0]).keywordOnly, 'embedding is off (--no-embed)');
    // no hit: still one line that says the answer was keyword-only
    const none = fathom(['search', 'qqzzxxnothinglikethis', '--dir', dir, '--json', '--no-embed']);
    assert.equal(none.code, 0, none.err);
    assert.deepEqual(none.out.trim().split('\n').map((l) => JSON.parse(l)), [{ noHits: true, keywordOnly: 'embedding is off (--no-embed)' }]);
  });

  it('an argument error is its line and `run fathom <command> --help`; each command has its own --help', () => {
    const bad = fathom(['search', 'zoom', '--dir', dir, '--kk', '3']);
    assert.equal(bad.code, 2);
    assert.equal(bad.err, 'fathom: unknown option --kk for fathom search\nrun fathom search --help\n');
    assert.equal(bad.out, '');
    const none = fathom(['serch', 'zoom']);
    assert.equal(none.code, 2);
    assert.equal(none.err, 'fathom: unknown command: serch\nrun fathom --help\n');
    for (const cmd of ['chunk', 'index', 'search', 'similar', 'batch', 'eval', 'i18n', 'mcp']) {
      const h = fathom([cmd, '--help']);
      assert.equal(h.code, 0, cmd);
      assert.ok(h.out.startsWith(`Usage:${cmd === 'i18n' ? '\n' : ''}`), h.out);
      assert.match(h.out, new RegExp(`fathom ${cmd} `));
      assert.ok(!/fathom (chunk|index|search|similar|batch|eval|i18n|mcp) /.test(h.out.replace(new RegExp(`fathom ${cmd} `, 'g'), '')), `${cmd} --help shows only ${cmd}: ${h.out}`);
    }
    // the real cap, from the code
    assert.match(fathom(['chunk', '--help']).out, new RegExp(`--max-file-kb N +skip files larger than N KiB \\(default ${DEFAULT_MAX_FILE_BYTES / 1024}\\)`));
    const all = fathom(['--help']);
    assert.equal(all.code, 0);
    assert.match(all.out, /Run fathom <command> --help/);
    assert.match(fathom(['help', 'similar']).out, /^Usage: fathom similar/);
  });

  it('an empty answer is said on stderr (stdout stays empty), an empty query is a usage error', () => {
    const none = fathom(['search', 'qqzzxxnothinglikethis', '--dir', dir, '--no-embed']);
    assert.equal(none.code, 0, none.err);
    assert.equal(none.out, '');
    assert.match(none.err, /^no results for "qqzzxxnothinglikethis"$/m);
    const narrowed = fathom(['search', 'zoom', '--dir', dir, '--no-embed', '--glob', 'lib/**']);
    assert.equal(narrowed.code, 0, narrowed.err);
    assert.equal(narrowed.out, '');
    assert.match(narrowed.err, /^no results for "zoom" with --glob$/m);
    const found = fathom(['search', 'zoom', '--dir', dir, '--no-embed']);
    assert.doesNotMatch(found.err, /no results/);
    for (const q of ['', '   ']) {
      const empty = fathom(['search', q, '--dir', dir, '--no-embed']);
      assert.equal(empty.code, 2, `query ${JSON.stringify(q)}`);
      assert.match(empty.err, /the query is empty/);
    }
    // nothing above the similarity floor: said too (keyword-only Find Similar, a chunk with no term in common)
    fs.writeFileSync(path.join(dir, 'src', 'lone.ts'), 'export const qqzzxx = 1;\n');
    const lone = fathom(['similar', 'src/lone.ts:1', '--dir', dir, '--no-embed']);
    assert.equal(lone.code, 0, lone.err);
    assert.equal(lone.out, '');
    assert.match(lone.err, /^nothing similar enough to src\/lone\.ts:1$/m);
  });

  it('search filters that can never match are refused with the reason and the valid values, not answered with "no results"', () => {
    const refused = (extra: string[], re: RegExp) => {
      const r = fathom(['search', 'zoom', '--dir', dir, '--no-embed', ...extra]);
      assert.equal(r.code, 2, `${extra.join(' ')}: ${r.err}`);
      assert.equal(r.out, '');
      assert.match(r.err, re);
    };
    refused(['--glob', '['], /--glob: a "\[" is never closed by "\]" \(in "\["\)/);
    refused(['--glob', 'src/*.{ts'], /a "\{" is never closed by "\}"/);
    refused(['--kind', 'funcion'], /--kind: unknown kind "funcion"; the kinds are function, class, method/);
    refused(['--language', 'typescirpt'], /--language: no indexed file is in "typescirpt"; the languages here are typescript/);
    // a skipped file (an image) is in no language a filter can ask for
    fs.writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]));
    refused(['--language', 'png'], /--language: no indexed file is in "png"; the languages here are typescript$/m);
    fs.rmSync(path.join(dir, 'logo.png'));
    // the valid forms still answer: a brace list with a comma is one glob, a negated glob, any case
    // of a language, a kind (zoom.ts's two small functions are one `group` chunk)
    for (const extra of [['--glob', 'src/*.{ts,js}'], ['--glob', '!**/pan.ts'], ['--language', 'TypeScript'], ['--kind', 'group']]) {
      const ok = fathom(['search', 'zoom', '--dir', dir, '--no-embed', ...extra]);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /src\/zoom\.ts/, extra.join(' '));
    }
  });

  it('search: relevance 0-100 on one scale (the best hit 100), no unexplained "#17"; ranks named when both lists ranked a hit', () => {
    fathom(['index', dir, '--model-path', TINY]);
    const t = fathom(['search', 'zoom', '--dir', dir]);
    assert.equal(t.code, 0, t.err);
    const rows = t.out.trim().split('\n');
    assert.match(rows[0], /\(relevance 100(; keyword rank \d+, meaning rank \d+ by [\w/.-]+)?\)$/);
    assert.doesNotMatch(t.out, /#\d/);
    assert.ok(rows.some((r) => /keyword rank \d+, meaning rank \d+/.test(r)), t.out);
    for (const cmd of [
      ['search', 'zoom', '--dir', dir, '--json'],
      ['similar', `${path.join(dir, 'src', 'zoom.ts')}:2`, '--dir', dir, '--json'],
    ]) {
      const hits = fathom(cmd).out.trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(hits[0].relevance, 100, cmd.join(' '));
      assert.ok(hits.every((h) => h.relevance >= 0 && h.relevance <= 100));
      assert.ok(hits.every((h, i) => i === 0 || h.relevance <= hits[i - 1].relevance));
    }
  });

  it('search: a function cut in pieces is one hit, shown from its start, naming the lines that ranked it', () => {
    const body = Array.from({ length: 60 }, (_, i) => `  const delay${i} = backoffRetryWait(attempt, ${i}); // retry the upload after backoff`).join('\n');
    fs.writeFileSync(path.join(dir, 'src', 'upload.js'), `/** Sends a local file to the storage bucket. */\nexport function uploadFile(path, bucket) {\n  let attempt = 0;\n${body}\n}\n`);
    assert.equal(fathom(['index', dir, '--no-embed']).code, 0);
    const t = fathom(['search', 'retry the upload after a backoff wait', '--dir', dir, '--no-embed']);
    assert.equal(t.code, 0, t.err);
    const rows = t.out.trim().split('\n').filter((r) => r.includes('uploadFile'));
    assert.equal(rows.length, 1, t.out);
    assert.match(rows[0], /src\/upload\.js:1-\d+ +function uploadFile .*ranked by lines \d+-\d+\)$/, t.out);
    const hit = fathom(['search', 'retry the upload after a backoff wait', '--dir', dir, '--no-embed', '--json']).out.trim().split('\n').map((l) => JSON.parse(l))[0];
    assert.equal(hit.startLine, 1);
    assert.ok(hit.why.rankedBy.startLine >= hit.endLine, JSON.stringify(hit.why));
    assert.ok(hit.moreInFile.some((m: { startLine: number }) => m.startLine === hit.why.rankedBy.startLine), 'the piece that ranked is under more in this file');
  });

  it('i18n "<value>": the matched and source locales, then the usages, then the other locales', () => {
    const loc = path.join(dir, 'src', 'locales');
    fs.mkdirSync(loc);
    const values: Record<string, string> = { cy: 'Cadw', de: 'Speichern', en: 'Save', fr: 'Enregistrer', it: 'Salva' };
    for (const [l, v] of Object.entries(values)) fs.writeFileSync(path.join(loc, `${l}.json`), JSON.stringify({ save: v }));
    fs.writeFileSync(path.join(dir, 'src', 'App.vue'), "<template><button>{{ $t('save') }}</button></template>\n");
    const r = fathom(['i18n', 'Enregistrer', '--dir', dir, '--no-embed']);
    assert.equal(r.code, 0, r.err);
    const order = r.out.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0]);
    assert.deepEqual(order, ['fr', 'en', 'used', 'cy', 'de', 'it']);
  });
});

describe('fathom mcp (dist/cli.js): what it says while the first index builds', function () {
  this.timeout(60_000);
  it('says it is serving and indexing, then "indexed N files … in", never "ready" before the index is done', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcp-'));
    try {
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(tmp, `f${i}.ts`), `export function f${i}() {\n  return ${i};\n}\n`);
      const child = spawn(process.execPath, [BIN, 'mcp', '--dir', tmp, '--no-embed'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          if (/indexed \d+ files/.test(err)) resolve();
        });
        child.on('exit', () => reject(new Error(`exited early: ${err}`)));
      });
      child.stdin.end(); // the client leaves: the server closes
      await new Promise((r) => child.once('exit', r));
      const lines = err.trim().split('\n');
      assert.doesNotMatch(err, /ready in/);
      const serving = lines.findIndex((l) => /serving .* over stdio; indexing in the background/.test(l));
      const indexed = lines.findIndex((l) => /indexed 20 files, \d+ chunks in/.test(l));
      assert.ok(serving >= 0 && indexed > serving, err);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('fathom index (dist/cli.js): many files it cannot use', function () {
  this.timeout(60_000);
  it('names the first SKIP_LINES unreadable or non-regular files, then counts the rest in one line', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-skips-'));
    try {
      fs.writeFileSync(path.join(tmp, 'a.ts'), 'export const a = 1;\n');
      for (let i = 0; i < SKIP_LINES + 15; i++) fs.symlinkSync(path.join(tmp, `missing-${i}`), path.join(tmp, `link-${i}.ts`));
      const r = spawnSync(process.execPath, [BIN, 'index', tmp, '--no-embed'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const named = r.stderr.split('\n').filter((l) => /^skipped link-\d+\.ts: /.test(l));
      assert.equal(named.length, SKIP_LINES, r.stderr);
      assert.match(r.stderr, /^skipped 15 more files that could not be read or are not regular files/m);
      assert.match(r.stdout, new RegExp(`indexed 1 files \\(${SKIP_LINES + 15} skipped\\)`));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('fathom mcp (dist/cli.js): SIGTERM while the first index builds', function () {
  this.timeout(120_000);
  it('stops: the folder closed, "closed" said, exit 0, with the client still holding stdin open', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-mcp-term-'));
    try {
      // enough files that the first pass is still running when the signal comes
      for (let i = 0; i < 1500; i++) fs.writeFileSync(path.join(tmp, `f${i}.ts`), `/** Returns ${i}. */\nexport function f${i}(a: number, b: number) {\n  return a * ${i} + b;\n}\n`.repeat(4));
      const child = spawn(process.execPath, [BIN, 'mcp', '--dir', tmp, '--no-embed'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      await new Promise<void>((resolve) => {
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          if (/serving .* over stdio/.test(err)) resolve();
        });
      });
      child.kill('SIGTERM');
      // it used to go on running (stdin open, the first pass's threads busy): a hang, not a slow exit
      const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 60_000).unref())]);
      if (code === 'running') child.kill('SIGKILL');
      assert.equal(code, 0, err);
      assert.match(err, /fathom mcp: closed/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('CLI: pieces', () => {
  it('progress off a terminal: a line when a phase starts, then at least every 5 s or 10%, never minutes of silence', () => {
    const lines: Array<{ at: number; s: string }> = [];
    let now = 0;
    const show = progressPrinter((s) => lines.push({ at: now, s }), false, () => now);
    const total = 5636;
    // a slow embed: 136 s, a progress event every 100 ms, but uneven (nothing for 20 s at first)
    now = 1000;
    show({ phase: 'embed', filesDone: 0, filesTotal: 10, chunksEmbedded: 32, chunksToEmbed: total, rate: 1 });
    for (let t = 21_000; t <= 136_000; t += 100) {
      now = t;
      show({ phase: 'embed', filesDone: 0, filesTotal: 10, chunksEmbedded: Math.round(32 + ((t - 21_000) / 115_000) * (total - 32)), chunksToEmbed: total, rate: 41 });
    }
    show({ phase: 'done', filesDone: 10, filesTotal: 10, chunksEmbedded: total, chunksToEmbed: total, rate: 0 });
    assert.match(lines[0].s, /^embedding 32\/5636 chunks/);
    assert.equal(lines[lines.length - 1].s, 'done: 10 files\n');
    for (let i = 1; i < lines.length - 1; i++) assert.ok(lines[i].at - lines[i - 1].at <= PROGRESS_EVERY_MS || i === 1, `gap before line ${i}: ${lines[i].at - lines[i - 1].at} ms`);
    // the first event after the 20 s silence prints at once; then about every 5 s: 115 s / 5 s
    assert.ok(lines.length >= 20 && lines.length <= 40, `${lines.length} lines`);
    assert.ok(lines.every((l) => l.s.endsWith('\n') && !l.s.includes('\r')));
  });

  it('progress on a terminal: redrawn in place', () => {
    const out: string[] = [];
    const show = progressPrinter((s) => out.push(s), true, () => 0);
    show({ phase: 'embed', filesDone: 0, filesTotal: 1, chunksEmbedded: 1, chunksToEmbed: 2, rate: 1 });
    show({ phase: 'embed', filesDone: 0, filesTotal: 1, chunksEmbedded: 2, chunksToEmbed: 2, rate: 1 });
    assert.equal(out.length, 2);
    assert.ok(out.every((s) => s.startsWith('\r\x1b[K')));
  });

  it('relevance: a share of the best score, 0-100, whatever the raw scale', () => {
    assert.equal(relevance(0.0164, 0.0164), 100);
    assert.equal(relevance(46.8, 93.6), 50);
    assert.equal(relevance(0.3, 0), 0);
    assert.equal(relevance(-1, 2), 0);
  });

  it('a model error names the flags, not the editor setting', () => {
    const msg = withFlagHints('No embedding model: "m" (q8) not found: /x/config.json is missing, and downloading is off. Allow downloads, or point the local model folder at a copy of the model (config.json).');
    assert.match(msg, /Add --allow-download, or give --model-path DIR holding a copy of the model \(config\.json\)\.$/);
    assert.match(withFlagHints('No embedding model: the local model folder /m does not exist and downloading is off.'), /\(--allow-download may fetch it\)\.$/);
  });
});
