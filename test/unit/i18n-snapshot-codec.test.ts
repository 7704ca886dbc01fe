/**
 * The i18n snapshot's locale entries as columns (src/i18n/snapshot-codec.ts): what goes in comes
 * out, field for field; damage throws.
 */
import * as assert from 'node:assert/strict';
import type { LocaleEntry } from '../../src/i18n/types';
import { I18nIndex } from '../../src/i18n/i18n-index';
import { columnsToEntries, entriesToColumns } from '../../src/i18n/snapshot-codec';

const FILE = 'locales/fr.json';
const e = (over: Partial<LocaleEntry>): LocaleEntry => ({ locale: 'fr', file: FILE, value: 'Enregistrer', path: 'actions.save', vs: 30, ve: 41, ks: 12, ke: 16, ...over });

describe('i18n snapshot codec', function () {
  it('entries as columns come back field for field: one locale or several, namespaces, plural texts, derived values, values not to translate, an entry of another file', function () {
    const one = [e({}), e({ value: 'Fermer «ça»\n', path: 'actions.close', vs: 60, ve: 73, ks: 44, ke: 49 }), e({ namespace: 'common', also: ['un', 'des'], derived: true, vs: 0xffffffff }), e({ path: 'app_name', fixed: true })];
    const c1 = entriesToColumns(FILE, one)!;
    assert.equal(c1.locale, 'fr', 'one locale for the file: stored once');
    assert.deepEqual(columnsToEntries(FILE, JSON.parse(JSON.stringify(c1))), one);
    const mixed = [e({ locale: 'fr' }), e({ locale: 'de', file: 'other/de.po' }), e({ locale: 'en', value: '' })];
    const c2 = entriesToColumns(FILE, mixed)!;
    assert.deepEqual(c2.locale, ['fr', 'de', 'en']);
    assert.deepEqual(columnsToEntries(FILE, JSON.parse(JSON.stringify(c2))), mixed);
    assert.deepEqual(columnsToEntries(FILE, JSON.parse(JSON.stringify(entriesToColumns(FILE, [])))), []);
  });

  it('an entry whose position is not a uint32 leaves the file as objects (no column)', function () {
    assert.equal(entriesToColumns(FILE, [e({}), e({ vs: -1 })]), undefined);
    assert.equal(entriesToColumns(FILE, [e({ ke: 1.5 })]), undefined);
    assert.equal(entriesToColumns(FILE, [e({ ve: 2 ** 32 })]), undefined);
  });

  it('damaged columns throw: a count, a position or a locale that does not fit', function () {
    const c = entriesToColumns(FILE, [e({}), e({ locale: 'de' })])!;
    assert.throws(() => columnsToEntries(FILE, { ...c, n: 3 }), /damaged locale entries of locales\/fr\.json/);
    assert.throws(() => columnsToEntries(FILE, { ...c, at: c.at.slice(1) }), /damaged/);
    assert.throws(() => columnsToEntries(FILE, { ...c, at: [...c.at.slice(1), -1] }), /damaged/);
    assert.throws(() => columnsToEntries(FILE, { ...c, locale: ['fr'] }), /damaged/);
    assert.throws(() => columnsToEntries(FILE, { ...c, extra: [[5, {}]] }), /damaged/);
  });

  it('an index exported and imported through JSON answers the same (keys, values, positions, usages), and its snapshot is smaller than objects a value', function () {
    const files: Record<string, string> = {};
    for (const l of ['en', 'fr', 'de', 'es']) {
      const doc: Record<string, Record<string, string>> = {};
      for (let i = 0; i < 200; i++) (doc[`section${i % 7}`] ??= {})[`key${i}`] = `${l} message number ${i} for the screen`;
      files[`locales/${l}.json`] = JSON.stringify(doc, null, 2);
    }
    files['src/app.js'] = "export const title = () => t('section3.key3')\n";
    const idx = new I18nIndex();
    for (const [rel, text] of Object.entries(files)) idx.setFile(rel, text);
    // as JSON (a usage's absent namespace is `undefined` in memory, missing after any JSON round trip)
    const answers = (x: I18nIndex) => JSON.parse(JSON.stringify([
      x.lookupLexical('en message number 3 for the screen', { limit: 3 }).candidates.map((c) => [c.key, c.score]),
      x.lookupKey('section3.key3').candidates.map((c) => [c.locales, c.usages]),
      x.usagesOfKey('section3.key3'),
    ]));
    const expected = answers(idx);
    const snap = JSON.parse(JSON.stringify(idx.exportState()));
    const back = new I18nIndex();
    back.importState(snap);
    assert.deepEqual(answers(back), expected);
    const found = expected[1][0] as [Array<{ locale: string }>, unknown[]];
    assert.deepEqual(found[0].map((l) => l.locale), ['de', 'en', 'es', 'fr'], 'the key in every locale');
    assert.equal(found[1].length, 1, 'and its usage');
    const asObjects = JSON.stringify(snap.locales.map((l: { file: string; cols: unknown }) => columnsToEntries(l.file, l.cols as never)));
    assert.ok(JSON.stringify(snap.locales).length < 0.7 * asObjects.length, `${JSON.stringify(snap.locales).length} bytes as columns, ${asObjects.length} as objects`);
  });
});
