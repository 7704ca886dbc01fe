/**
 * The folder session's i18n index is fed by the index run itself: the UI text the code shows
 * through its keys is searchable once the run is done (no i18n question needed first), and the
 * first i18n question reads no file again.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { I18N_TEXT_META } from '../../src/index/rank/phrase';
import type { LookupResult } from '../../src/i18n/types';
import { FolderSession } from '../../src/service/session';
import { MemoryFileSource } from '../../src/workspace/source';
import { counting } from '../helpers/counting-source';

const drain = async <T>(gen: AsyncGenerator<T>): Promise<void> => {
  for await (const _ of gen) void _;
};

const FILES = {
  'package.json': '{"name":"app"}',
  'locales/en.json': JSON.stringify({ space: { go: 'Launch the rocket', stop: 'Abort the countdown' } }),
  'locales/fr.json': JSON.stringify({ space: { go: 'Lancer la fusée', stop: 'Annuler le compte à rebours' } }),
  'src/launch.js': "export function onPress() { return i18n.t('space.go') }\n",
  'src/halt.js': "export function onHalt() { return i18n.t('space.stop') }\n",
  'my-locales/es.json': JSON.stringify({ space: { go: 'Lanzar el cohete' } }),
};

describe('FolderSession: the i18n index is built by the index run', function () {
  it('code is found by the UI text of its keys right after indexing, and the first lookup reads nothing again', async function () {
    const src = counting(new MemoryFileSource(FILES));
    const s = await FolderSession.open('/memory', { source: src });
    await drain(s.index({ embed: false }));
    const hits = await s.search('rocket');
    assert.ok(hits.some((h) => h.chunk.path === 'src/launch.js'), hits.map((h) => h.chunk.path).join(', '));
    const before = Object.fromEntries(src.reads);
    assert.ok(Object.values(before).every((n) => n === 1), JSON.stringify(before));
    const r = (await s.i18n({ op: 'string', text: 'Lancer la fusée' })).result as LookupResult;
    assert.equal(r.candidates[0]?.key, 'space.go');
    assert.deepEqual(r.candidates[0].usages.map((u) => u.file), ['src/launch.js']);
    assert.deepEqual(Object.fromEntries(src.reads), before, 'the lookup read no file');
    await s.close();
  });

  it('the i18n settings given to the run (locale globs, functions) are the ones the index is built with', async function () {
    const src = counting(new MemoryFileSource({ ...FILES, 'src/t.js': "export const x = () => tr('space.stop')\n" }));
    const s = await FolderSession.open('/memory', { source: src });
    const config = { localeGlobs: ['my-locales/*.json', 'locales/*.json'], functions: ['tr'] };
    await drain(s.index({ embed: false, i18n: config }));
    const reads = Object.fromEntries(src.reads);
    const r = (await s.i18n({ op: 'key', key: 'space.go' }, config)).result as LookupResult;
    assert.deepEqual(r.candidates[0]?.locales.map((l) => l.locale), ['en', 'es', 'fr']);
    const stop = (await s.i18n({ op: 'key', key: 'space.stop' }, config)).result as LookupResult;
    assert.deepEqual(stop.candidates[0]?.usages.map((u) => u.file), ['src/halt.js', 'src/t.js']);
    assert.deepEqual(Object.fromEntries(src.reads), reads, 'same settings: nothing read again');
    await s.close();
  });

  it('a run saves its store once, with the i18n text, and asking for searchable i18n after it writes nothing again', async function () {
    const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-save-'));
    try {
      const s = await FolderSession.open('/memory', { source: new MemoryFileSource(FILES), storeDir });
      await drain(s.index({ embed: false }));
      const manifest = () => JSON.parse(fs.readFileSync(path.join(storeDir, 'manifest.json'), 'utf8')) as { generation: number };
      assert.equal(manifest().generation, 1, 'saved once, at the end of the run');
      await s.searchableI18n();
      await s.close();
      assert.equal(manifest().generation, 1, 'the i18n text was in that save: no second one');
      // and the saved index has it: a session that loads the store finds the code by its UI text
      const again = await FolderSession.open('/memory', { source: new MemoryFileSource(FILES), storeDir });
      const launch = [...again.engine.chunks].find((c) => c?.path === 'src/launch.js');
      assert.equal(launch?.meta?.[I18N_TEXT_META], 'Launch the rocket');
      await again.close();
    } finally {
      fs.rmSync(storeDir, { recursive: true, force: true });
    }
  });

  it('the lookup tables: built and saved with the run by default; with i18nTables false, left to the first lookup, which answers the same and stores them', async function () {
    const tablesIn = (dir: string) => 'tables' in (JSON.parse(fs.readFileSync(path.join(dir, 'i18n.json'), 'utf8')) as { state: object }).state;
    const answer = async (s: FolderSession) => {
      const r = (await s.i18n({ op: 'string', text: 'Annuler le compte à rebours' })).result as LookupResult;
      return r.candidates.map((c) => `${c.key} ${c.match} ${c.locales.map((l) => l.locale).join(',')} ${c.usages.map((u) => u.file).join(',')}`);
    };
    const dirs = [true, false].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-tables-')));
    try {
      const answers: string[][] = [];
      for (const [i, i18nTables] of [true, false].entries()) {
        const s = await FolderSession.open('/memory', { source: new MemoryFileSource(FILES), storeDir: dirs[i] });
        await drain(s.index({ embed: false, i18nTables }));
        await s.close();
        assert.equal(tablesIn(dirs[i]), i18nTables, `i18nTables ${i18nTables}: tables saved with the run`);
        const again = await FolderSession.open('/memory', { source: new MemoryFileSource(FILES), storeDir: dirs[i] });
        answers.push(await answer(again));
        await again.close();
        assert.ok(tablesIn(dirs[i]), 'after a lookup the tables are stored');
      }
      assert.deepEqual(answers[1], answers[0]);
      assert.ok(answers[0][0]?.startsWith('space.stop '), answers[0].join(' | '));
    } finally {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});
