/**
 * The i18n index's lookup tables carried by its snapshot (`exportState` / `importState`): a
 * process that answers one question from the store (the CLI) restores them instead of building
 * them, and answers exactly as the index that built them; tables that do not fit the content
 * are not trusted.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { I18nIndex, type I18nSnapshot } from '../../src/i18n/i18n-index';
import { FolderSession } from '../../src/service/session';
import { MemoryFileSource } from '../../src/workspace/source';

const FILES: Record<string, string> = {
  'package.json': '{"name":"app"}',
  'locales/en.json': JSON.stringify({
    events: { create: 'Create an event', list: 'All events', count: 'no events | one event | {n} events', back: '@:events.list', greet: 'Hello {name}, welcome back' },
    nav: { home: 'Home', settings: 'Settings' },
  }),
  'locales/fr.json': JSON.stringify({ events: { create: 'Créer un événement', list: 'Tous les événements', greet: 'Bonjour {name}' }, nav: { home: 'Accueil' } }),
  'locales/de.json': JSON.stringify({ events: { create: 'Veranstaltung erstellen' } }),
  'other/locales/fr.json': JSON.stringify({ events: { create: 'Autre chose' } }),
  'public/locales/en/common.json': JSON.stringify({ save: 'Save changes' }),
  'src/a.js': "export const f = () => [i18n.t('events.create'), i18n.t('nav.home'), i18n.t(`events.${x}`)]\n",
};

const QUERIES = ['Create an event', 'créer un evenement', 'Creat an evnt', 'one event', 'All events', 'Hello Anna, welcome back', 'Save changes', 'Acueil', 'events', 'zzz nothing'];

function indexOf(files: Record<string, string>): I18nIndex {
  const idx = new I18nIndex();
  for (const [rel, text] of Object.entries(files)) idx.setFile(rel, text);
  return idx;
}

/** What a store does with a snapshot: JSON there and back. */
const roundTrip = (s: I18nSnapshot): I18nSnapshot => JSON.parse(JSON.stringify(s)) as I18nSnapshot;

/** The answers as plain data (a snapshot's objects have no `undefined` fields: compared as JSON). */
const answers = (idx: I18nIndex): unknown =>
  JSON.parse(
    JSON.stringify({
      lookups: QUERIES.map((q) => idx.lookupLexical(q, { fromFile: 'src/a.js' })),
      key: idx.lookupKey('events.create'),
      health: idx.health(),
      problems: idx.problems,
    }),
  );

describe('i18n: the lookup tables in the snapshot', function () {
  it('are exported once built, and an index restored with them answers as the one that built them, without building', function () {
    const built = indexOf(FILES);
    assert.equal(built.exportState().tables, undefined, 'nothing built yet: no tables');
    const expected = answers(built);
    assert.equal(built.tablesUnsaved, true);
    const snap = roundTrip(built.exportState());
    assert.equal(built.tablesUnsaved, false);
    assert.ok(snap.tables && snap.tables.groups.length > 0 && snap.tables.vNorm.length > 0);

    const restored = new I18nIndex();
    restored.importState(snap);
    assert.equal(restored.tablesUnsaved, false, 'restored tables need no saving again');
    assert.deepEqual(answers(restored), expected);
    assert.equal(restored.tablesUnsaved, false, 'the answers came from the restored tables: nothing was rebuilt');
    assert.equal(restored.lookupLexical('Creat an evnt').candidates[0]?.key, 'events.create', 'the typo index is built when a query needs it');
  });

  it('a snapshot without tables, or with tables that do not fit, is rebuilt and answers the same', function () {
    const built = indexOf(FILES);
    const expected = answers(built);
    const snap = roundTrip(built.exportState());
    const damaged: Array<(t: NonNullable<I18nSnapshot['tables']>) => void> = [
      (t) => t.groups[0][4].push(1e6),
      (t) => t.vNorm.pop(),
      (t) => t.postings[1][0].push(-1),
      (t) => (t.also[0] = [1e6, [], []]),
      (t) => ((t as { groups: unknown }).groups = 'x'),
    ];
    for (const [i, damage] of damaged.entries()) {
      const s = roundTrip(snap);
      damage(s.tables!);
      const idx = new I18nIndex();
      idx.importState(s);
      assert.deepEqual(answers(idx), expected, `damage ${i}`);
      assert.equal(idx.tablesUnsaved, true, `damage ${i}: the tables were built anew`);
    }
    const bare = roundTrip(snap);
    delete bare.tables;
    const idx = new I18nIndex();
    idx.importState(bare);
    assert.deepEqual(answers(idx), expected);
  });

  it('a change drops the tables from the next snapshot until they are built again', function () {
    const idx = indexOf(FILES);
    idx.lookupLexical('Home');
    idx.setFile('locales/fr.json', JSON.stringify({ nav: { home: 'Maison' } }));
    assert.equal(idx.exportState().tables, undefined);
    assert.equal(idx.lookupLexical('Maison').candidates[0]?.key, 'nav.home');
    const restored = new I18nIndex();
    restored.importState(roundTrip(idx.exportState()));
    assert.equal(restored.lookupLexical('Maison').candidates[0]?.key, 'nav.home');
    assert.equal(restored.lookupLexical('Créer un événement').candidates.length, 0, 'the old French value is gone');
  });

  it('the folder session stores the tables a lookup built, and the next session answers from them', async function () {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-tables-'));
    try {
      const storeDir = path.join(tmp, 'store');
      const mem = new MemoryFileSource(FILES);
      const a = await FolderSession.open('/memory', { source: mem, storeDir, lazyEngine: true });
      await a.i18n({ op: 'string', text: 'Create an event' });
      await a.close();
      const stored = JSON.parse(fs.readFileSync(path.join(storeDir, 'i18n.json'), 'utf8')) as { state: I18nSnapshot };
      assert.ok(stored.state.tables?.groups.length, 'the built tables were saved');
      const b = await FolderSession.open('/memory', { source: mem, storeDir, lazyEngine: true });
      const r = (await b.i18n({ op: 'string', text: 'Tous les événements' })).result as { candidates: Array<{ key: string }> };
      assert.equal(r.candidates[0]?.key, 'events.list');
      await b.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
