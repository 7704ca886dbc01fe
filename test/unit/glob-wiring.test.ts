/**
 * The linear-time glob matcher is the one used everywhere: `search --glob`, the sidebar's path
 * filter, the walk's include/exclude (and the watcher's path filter), i18n `--locales`.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import { filterSpecOf } from '../../src/editor/results';
import { createPathFilter, walkFiles } from '../../src/workspace/files';
import { globMatcher } from '../../src/i18n/workspace';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const LONG = 'd'.repeat(200);
const HOSTILE = '**/*d*d*d*d*d*d*q';

function fathom(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, FATHOM_MODEL_PATH: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr, timedOut: r.error !== undefined };
}

describe('globs: no backtracking anywhere', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-glob-'));
    fs.mkdirSync(path.join(dir, LONG, 'deeper'), { recursive: true });
    fs.writeFileSync(path.join(dir, LONG, 'deeper', 'lighthouse.md'), '# Lighthouse\n\nThe keeper of the lighthouse.\n');
    fs.writeFileSync(path.join(dir, 'a.ts'), 'export const lighthouse = 1;\n');
    fs.writeFileSync(path.join(dir, 'b.js'), 'export const lighthouseB = 2;\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the walk with a hostile include/exclude on a 200-character folder name ends, and the watcher filter too', () => {
    const files = walkFiles(dir, [], { exclude: [HOSTILE], include: [`**/*d*d*d*d*d*d*d*d*x/**`, '**/*.md', '*.ts'] });
    assert.deepEqual(files.map((f) => f.rel), ['a.ts', `${LONG}/deeper/lighthouse.md`]);
    const filter = createPathFilter(dir, { exclude: [HOSTILE] });
    assert.equal(filter(`${LONG}/deeper/lighthouse.md`), true);
    assert.equal(filter(`${LONG}q/x.md`), false);
  });

  it('the walk is cancellable: an aborted signal stops it between entries', () => {
    const ac = new AbortController();
    ac.abort(new Error('cancelled by the test'));
    assert.throws(() => walkFiles(dir, [], undefined, ac.signal), /cancelled by the test/);
  });

  it('the engine search filter (sidebar and CLI) with a hostile glob answers', async () => {
    const e = new Engine({ noEmbedderReason: 'test' });
    for await (const _ of e.indexFolder(dir)) void _;
    // it never matches, so every path is tried in full (a match would end a backtracking search early)
    const hits = await e.search('lighthouse keeper', { k: 5, mode: 'keyword', filters: { pathGlob: ['**/*d*d*d*d*d*d*d/**', `!${HOSTILE}/**`] } });
    assert.deepEqual([...new Set(hits.map((h) => h.chunk.path))], [`${LONG}/deeper/lighthouse.md`]);
  });

  it('the sidebar filter keeps commas inside braces: src/*.{js,ts} is one glob', () => {
    assert.deepEqual(filterSpecOf({ paths: 'src/*.{js,ts}, !**/*.test.ts', language: '' } as never)?.pathGlob, ['src/*.{js,ts}', '!**/*.test.ts']);
    const m = globMatcher(['locales/*.{json,json5},i18n/**']);
    assert.ok(m!('locales/en.json5') && m!('i18n/x/fr.json') && !m!('other/en.json'));
  });

  it('search --glob: a hostile glob on a 200-character folder name answers, a brace glob works', () => {
    const r = fathom(['search', 'lighthouse', '--dir', dir, '--no-embed', '--glob', `!${HOSTILE}/**`]);
    assert.equal(r.timedOut, false, 'search --glob hung');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /lighthouse\.md/);
    const b = fathom(['search', 'lighthouse', '--dir', dir, '--no-embed', '--glob', '*.{ts,js}']);
    assert.equal(b.code, 0, b.err);
    assert.match(b.out, /a\.ts/);
    assert.match(b.out, /b\.js/);
    assert.doesNotMatch(b.out, /lighthouse\.md/);
  });

  it('search --glob of 70,000 characters: exit 2 with a message, no stack trace', () => {
    const r = fathom(['search', 'lighthouse', '--dir', dir, '--no-embed', '--glob', `${'a/'.repeat(35_000)}`]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /--glob: the glob is 70000 characters long, over the limit/);
    assert.doesNotMatch(r.err, /\n\s+at /);
  });
});
