/**
 * i18n lookup on the fixture workspaces of test/fixtures/i18n/: discovery, merged keys, exact
 * ranges, usages through the AST, ranking per kind of match, problems, hover, the string under
 * the cursor, and the semantic last resort on the tiny shipped model.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createTransformersEmbedder, type TransformersEmbedder } from '../../src/index/embedder';
import { I18nIndex, stringAt, type Candidate, type LocaleValue, type Usage } from '../../src/i18n/i18n-index';
import { canonicalLocale, identifyLocale } from '../../src/i18n/locales';
import { boundedDistance, normalize, placeholderPattern } from '../../src/i18n/normalize';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';

const FIX = path.join(__dirname, '..', 'fixtures', 'i18n');
const load = (ws: string) => loadI18nIndex(path.join(FIX, ws)).index;
const read = (ws: string, rel: string) => fs.readFileSync(path.join(FIX, ws, rel), 'utf8');
const byLocale = (c: Candidate) => Object.fromEntries(c.locales.map((l) => [l.locale, l.value]));

/** Every range of a candidate is exact: the text at its offsets, and lines/columns agree. */
function checkRanges(ws: string, c: Candidate): void {
  const at = (file: string, r: LocaleValue['range']) => {
    const text = read(ws, file);
    const lines = text.slice(0, r.start.offset).split(/\r\n|\n|\r/);
    assert.equal(r.start.line, lines.length, `${file}: line of offset ${r.start.offset}`);
    assert.equal(r.start.column, lines[lines.length - 1].length, `${file}: column of offset ${r.start.offset}`);
    return text.slice(r.start.offset, r.end.offset);
  };
  for (const l of c.locales) {
    assert.equal(at(l.file, l.range), JSON.stringify(l.value).slice(1, -1), `${l.file}:${l.range.start.line}`);
    const k = at(l.file, l.keyRange);
    assert.ok(c.path === k || c.path.endsWith(`.${k}`), `key text ${k} of ${c.path}`);
  }
  for (const u of c.usages) {
    if (u.dynamic) continue;
    const k = at(u.file, u.range);
    assert.ok(k.endsWith(u.key) || u.key.endsWith(k), `usage text ${k} of ${u.key}`);
  }
}

const usageAt = (us: Usage[]) => us.map((u) => `${u.file}:${u.range.start.line}${u.dynamic ? '*' : ''}`);

describe('i18n: locale identification and normalization', () => {
  it('tells locales from file names and folders, and refuses names that are no locale', () => {
    assert.deepEqual(identifyLocale('en.json'), { locale: 'en', from: 'name' });
    assert.deepEqual(identifyLocale('locales/core_fr.json'), { locale: 'fr', from: 'name' });
    assert.deepEqual(identifyLocale('i18n/fr-CA.json'), { locale: 'fr-CA', from: 'name' });
    assert.deepEqual(identifyLocale('zh_Hans.json'), { locale: 'zh-Hans', from: 'name' });
    assert.deepEqual(identifyLocale('locales/de/common.json'), { locale: 'de', namespace: 'common', from: 'folder' });
    assert.deepEqual(identifyLocale('locales/pt_BR/admin/users.json'), { locale: 'pt-BR', namespace: 'admin/users', from: 'folder' });
    assert.equal(identifyLocale('locales/common.json'), undefined);
    assert.equal(identifyLocale('src/settings.json'), undefined);
    assert.equal(identifyLocale('locales/en.yaml'), undefined);
    assert.equal(canonicalLocale('PT_br'), 'pt-BR');
  });

  it('normalizes case, diacritics, punctuation, tags and placeholders', () => {
    assert.equal(normalize('  Créer un  ÉVÉNEMENT ! '), 'creer un evenement');
    assert.equal(normalize('Save <b>now</b>&nbsp;!'), 'save now');
    for (const v of ['Hello {name}!', 'Hello {{ name }}', 'Hello %s', 'Hello %(name)s', 'Hello @:user.name', 'Hello ${name}']) {
      assert.equal(normalize(v), 'hello \u0001', v);
    }
    assert.ok(placeholderPattern(normalize('Hello {name}, welcome back!'))!.test(normalize('Hello Anna Maria, welcome back')));
    assert.ok(!placeholderPattern(normalize('Hello {name}, welcome back!'))!.test(normalize('Goodbye Anna, welcome back')));
    assert.equal(boundedDistance('evenement', 'evenemnet', 2), 1);
    assert.equal(boundedDistance('create', 'crete', 1), 1);
    assert.equal(boundedDistance('abcdef', 'uvwxyz', 2), 3);
  });
});

describe('i18n: per-file locales (locales/core_en.json, core_fr.json, de.json with comments)', () => {
  const ix = load('per-file');

  it('merges one key across locales, nested keys dotted, comments and trailing commas allowed', () => {
    const [c] = ix.lookupKey('events.create.TITLE').candidates;
    assert.equal(c.match, 'key');
    assert.deepEqual(byLocale(c), { de: 'Ereignis erstellen', en: 'Create event', fr: 'Créer un événement' });
    assert.deepEqual(
      c.locales.map((l) => `${l.locale} ${l.file}:${l.range.start.line}`),
      ['de locales/de.json:5', 'en locales/core_en.json:4', 'fr locales/core_fr.json:4'],
    );
    checkRanges('per-file', c);
  });

  it('finds the key from any locale, exactly', () => {
    for (const q of ['Create event', 'Créer un événement', 'Ereignis erstellen', '  Create event\n']) {
      const [c] = ix.lookupLexical(q).candidates.filter((x) => x.key !== 'LINKED');
      assert.equal(c.key, 'events.create.TITLE', q);
      assert.equal(c.match, 'exact', q);
      assert.equal(c.score, 1);
    }
  });

  it('finds it normalized: case, punctuation, diacritics, HTML, placeholders, plural forms', () => {
    const cases: Array<[string, string]> = [
      ['CREATE EVENT!', 'events.create.TITLE'],
      ['creer un evenement', 'events.create.TITLE'],
      ['Save now', 'events.create.SAVE'],
      ['enregistrer maintenant', 'events.create.SAVE'],
      ['Hello Anna, welcome back!', 'events.create.GREETING'],
      ['Bonjour {name}, bon retour', 'events.create.GREETING'],
      ['12 events selected', 'events.create.COUNT'],
      ['Aucun article!', 'cart.ITEMS'],
      ['3 items', 'cart.ITEMS'],
      ['12 articles', 'cart.ITEMS'],
    ];
    for (const [q, key] of cases) {
      const [c] = ix.lookupLexical(q).candidates;
      assert.ok(c, `nothing for ${q}`);
      assert.equal(c.key, key, q);
      assert.equal(c.match, 'normalized', q);
    }
    // the raw plural form is exact
    assert.equal(ix.lookupLexical('one item').candidates[0].match, 'exact');
    // a linked message shows its target's text: that text finds the linking key too
    assert.deepEqual(ix.lookupLexical('Create event').candidates.map((c) => `${c.key} ${c.match}`), ['events.create.TITLE exact', 'LINKED exact']);
  });

  it('finds it fuzzy: typos and partial strings, ranked below exact and normalized', () => {
    const [typo] = ix.lookupLexical('Crete evnt').candidates;
    assert.equal(typo.key, 'events.create.TITLE');
    assert.equal(typo.match, 'fuzzy');
    assert.ok(typo.score > 0 && typo.score < 0.95);
    const [part] = ix.lookupLexical('No events match').candidates;
    assert.equal(part.key, 'events.list.EMPTY');
    assert.equal(part.match, 'fuzzy');
    assert.equal(ix.lookupLexical('Aucun evenement ne corespond').candidates[0].key, 'events.list.EMPTY');
    // a string that shares nothing finds nothing
    assert.deepEqual(ix.lookupLexical('zebra quantum').candidates, []);
    // exact outranks fuzzy for the same query: "Filter by date" is exact for FILTER, fuzzy for nothing else
    const ranked = ix.lookupLexical('Cancel').candidates;
    assert.equal(ranked[0].key, 'CANCEL');
    assert.equal(ranked[0].match, 'exact');
  });

  it('lists usages found through the AST, static and dynamic with their prefix, at exact ranges', () => {
    const [c] = ix.lookupKey('events.create.TITLE').candidates;
    assert.deepEqual(usageAt(c.usages), ['src/EventForm.vue:3', 'src/EventForm.vue:16', 'src/notify.js:10*']);
    assert.deepEqual(c.usages.map((u) => u.via), ['$t', 'this.$t', 'i18n.t']);
    checkRanges('per-file', c);
    const [empty] = ix.lookupKey('events.list.EMPTY').candidates;
    assert.deepEqual(empty.usages.map((u) => `${u.via}${u.dynamic ? ` ${u.key}` : ''}`), ['v-t', '$t events.list.', 'i18n.t events.']);
    assert.deepEqual(usageAt(ix.lookupKey('events.create.GREETING').candidates[0].usages), ['src/EventForm.vue:6', 'src/notify.js:10*']);
    assert.equal(ix.lookupKey('events.create.GREETING').candidates[0].usages[0].via, '<i18n-t keypath>');
    assert.deepEqual(ix.lookupKey('cart.ITEMS').candidates[0].usages.map((u) => u.via), ['i18n.tc']);
    assert.deepEqual(ix.lookupKey('OK').candidates[0].usages.map((u) => u.via), ['i18n.global.t']);
    // a section: the leaves under it
    assert.deepEqual(ix.lookupKey('events.list').candidates.map((x) => x.key), ['events.list.EMPTY', 'events.list.FILTER']);
  });

  it('reports the malformed file (skipped), the duplicate key and the conflicting value', () => {
    const kinds = ix.problems.map((p) => `${p.kind} ${p.file}:${p.line}`).sort();
    assert.deepEqual(kinds, ['conflict locales/extra_en.json:2', 'duplicate locales/core_en.json:19', 'malformed locales/broken_es.json:5']);
    assert.ok(!ix.localeFiles.includes('locales/broken_es.json'));
    // the last duplicate wins, as JSON.parse does
    assert.equal(byLocale(ix.lookupKey('OK').candidates[0]).en, 'Okay');
    // both values of the conflict stay visible
    assert.deepEqual(ix.lookupKey('CANCEL').candidates[0].locales.filter((l) => l.locale === 'en').map((l) => l.value), ['Cancel', 'Dismiss']);
    assert.equal(ix.lookupLexical('Create event').problems.length, 3);
  });

  it('hovers a $t call: the key, its translations, and a missing key said so', () => {
    const text = read('per-file', 'src/EventForm.vue');
    const at = text.indexOf("$t('events.create.TITLE')") + 6;
    const h = ix.hover('src/EventForm.vue', at, text)!;
    assert.equal(h.usage.key, 'events.create.TITLE');
    assert.equal(h.missing, false);
    assert.deepEqual(byLocale(h.candidates[0]), { de: 'Ereignis erstellen', en: 'Create event', fr: 'Créer un événement' });
    const dyn = ix.hover('src/EventForm.vue', text.indexOf('`events.list.${mode}`') + 3, text)!;
    assert.equal(dyn.usage.dynamic, true);
    assert.deepEqual(dyn.candidates.map((c) => c.key), ['events.list.EMPTY', 'events.list.FILTER']);
    const edited = text.replace("$t('events.create.TITLE')", "$t('events.create.NOPE')");
    const miss = ix.hover('src/EventForm.vue', edited.indexOf('NOPE'), edited)!;
    assert.equal(miss.missing, true);
    assert.equal(ix.hover('src/EventForm.vue', text.indexOf('<form>'), text), undefined);
  });

  it('follows edits: a changed value, a new usage, a deleted locale file', () => {
    const local = load('per-file');
    local.setFile('locales/core_en.json', read('per-file', 'locales/core_en.json').replace('"Create event"', '"Make an event"'));
    assert.equal(local.lookupLexical('Make an event').candidates[0].key, 'events.create.TITLE');
    assert.notEqual(local.lookupLexical('Create event').candidates[0]?.match, 'exact');
    local.setFile('src/extra.ts', "import { t } from './i18n';\nexport const x = t('CANCEL');\n");
    assert.ok(local.lookupKey('CANCEL').candidates[0].usages.some((u) => u.file === 'src/extra.ts'));
    local.deleteFile('locales/de.json');
    assert.equal(byLocale(local.lookupKey('events.create.TITLE').candidates[0]).de, undefined);
  });
});

describe('i18n: per-folder namespaces (public/locales/<lng>/<ns>.json, i18next)', () => {
  const ix = load('namespaces');

  it('keys are ns:key, found by ns:key, ns.key and the bare key', () => {
    for (const k of ['common:save', 'common.save', 'save']) {
      const [c] = ix.lookupKey(k).candidates;
      assert.equal(c.key, 'common:save', k);
      assert.equal(c.namespace, 'common');
      assert.deepEqual(byLocale(c), { en: 'Save', fr: 'Enregistrer' });
    }
    assert.equal(ix.lookupLexical('Paramètres').candidates[0].key, 'common:nav.settings');
    assert.equal(ix.lookupLexical('Welcome, Ann!').candidates[0].key, 'common:welcome');
  });

  it('resolves useTranslation namespaces and keyPrefix, ns: options, ns: prefixes, <Trans i18nKey>, plural suffixes', () => {
    const lines = (k: string) => ix.lookupKey(k).candidates[0].usages.map((u) => u.range.start.line);
    assert.deepEqual(lines('auth:login.title'), [8]);
    assert.deepEqual(lines('common:save'), [9, 13]);
    assert.deepEqual(lines('common:nav.home'), [10]);
    assert.deepEqual(lines('common:welcome'), [12]);
    assert.deepEqual(lines('auth:item_one'), [11]);
    assert.deepEqual(lines('auth:item_other'), [11]);
    checkRanges('namespaces', ix.lookupKey('common:save').candidates[0]);
  });
});

describe('i18n: flat dotted keys and seven-level nesting', () => {
  it('a flat "a.b.c" and a nested a/b/c are one key', () => {
    const ix = load('flat');
    const [c] = ix.lookupKey('a.b.c').candidates;
    assert.deepEqual(byLocale(c), { en: 'Flat value', fr: 'Valeur à plat', 'pt-BR': 'Valor plano' });
    assert.deepEqual(c.usages.map((u) => u.file), ['use.ts']);
    checkRanges('flat', c);
    assert.deepEqual(byLocale(ix.lookupKey('menu.file.open').candidates[0]), { en: 'Open file…', fr: 'Ouvrir le fichier…' });
    assert.equal(ix.lookupKey('menu.file.open').candidates[0].usages.length, 1);
  });

  it('seven levels deep, and common.json (no locale) is not a locale file', () => {
    const ix = load('deep');
    const [c] = ix.lookupKey('l1.l2.l3.l4.l5.l6.l7').candidates;
    assert.deepEqual(byLocale(c), { en: 'Seven levels deep', fr: 'Sept niveaux de profondeur' });
    checkRanges('deep', c);
    assert.deepEqual(ix.localeFiles, ['locales/en.json', 'locales/fr.json']);
    assert.deepEqual(ix.lookupLexical('Not a locale: common.json names no locale').candidates, []);
    assert.equal(ix.lookupLexical('sept niveaux').candidates[0].match, 'fuzzy');
  });
});

describe('i18n: Vue SFC <i18n> blocks', () => {
  const ix = load('sfc');

  it('reads top-level-locale blocks, <i18n locale="fr" lang="json5"> and the YAML block', () => {
    const [c] = ix.lookupLexical('Bonjour le monde').candidates;
    assert.equal(c.key, 'hello');
    assert.equal(c.component, 'src/components/Greeting.vue');
    assert.deepEqual(byLocale(c), { de: 'Hallo Welt', en: 'Hello world', fr: 'Bonjour le monde' });
    checkRanges('sfc', c);
    assert.deepEqual(ix.problems.map((p) => `${p.kind} ${p.file}:${p.line}`), []);
    const [extra] = ix.lookupKey('extra').candidates;
    assert.deepEqual(byLocale(extra), { en: 'Extra' });
    assert.equal(extra.locales[0].range.start.line, 28);
    checkRanges('sfc', extra);
  });

  it('component-local messages: each component uses its own, and a lookup from a component ranks its own first', () => {
    const [own, other] = ix.lookupKey('hello', { fromFile: 'src/components/Other.vue' }).candidates;
    assert.equal(own.component, 'src/components/Other.vue');
    assert.deepEqual(own.usages.map((u) => u.file), ['src/components/Other.vue']);
    assert.deepEqual(other.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/components/Greeting.vue:3']);
    assert.deepEqual(ix.lookupKey('bye').candidates[0].usages.map((u) => u.via), ['v-t']);
    assert.deepEqual(usageAt(findUsages('src/components/Greeting.vue', read('sfc', 'src/components/Greeting.vue'))), [
      'src/components/Greeting.vue:3',
      'src/components/Greeting.vue:4',
      'src/components/Greeting.vue:5',
    ]);
  });
});

describe('i18n: locale modules (JS/TS exporting an object of messages)', () => {
  const ix = load('js-locales');

  it('reads export default, module.exports and an exported const, only inside i18n folders', () => {
    assert.deepEqual(ix.localeFiles, ['src/i18n/fr.ts', 'src/locale/lang/en.js', 'src/locale/lang/es.js']);
    const [c] = ix.lookupLexical('Hoy').candidates;
    assert.equal(c.key, 'el.datepicker.today');
    assert.deepEqual(byLocale(c), { en: 'Today', es: 'Hoy', fr: "Aujourd'hui" });
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/Picker.vue:2']);
    checkRanges('js-locales', c);
    checkRanges('js-locales', ix.lookupKey('el.datepicker.selectDate').candidates[0]);
    checkRanges('js-locales', ix.lookupKey('el.table.sumText').candidates[0]);
    // lib/es/index.js is a build folder, not Spanish; src/locale/index.js exports no messages
    assert.deepEqual(ix.lookupLexical('Not Spanish').candidates, []);
  });
});

describe('i18n: a two-app monorepo', () => {
  const ix = load('monorepo');

  it('keeps each app’s keys apart, attaches usages within their app, and prefers the app of fromFile', () => {
    const shop = ix.lookupLexical('Save changes', { fromFile: 'apps/shop/src/cart.js' }).candidates;
    assert.deepEqual(shop.map((c) => c.app), ['apps/shop', 'apps/admin']);
    assert.deepEqual(shop[0].usages.map((u) => u.file), ['apps/shop/src/cart.js']);
    assert.deepEqual(shop[1].usages.map((u) => u.file), ['apps/admin/src/Users.vue']);
    const admin = ix.lookupLexical('Save changes', { fromFile: 'apps/admin/src/Users.vue' }).candidates;
    assert.deepEqual(admin.map((c) => c.app), ['apps/admin', 'apps/shop']);
    assert.deepEqual(ix.lookupKey('title').candidates.map((c) => byLocale(c).fr), ['Administration', 'Boutique']);
    assert.equal(ix.lookupLexical('Boutique').candidates.length, 1);
    // an app appears when its package.json does
    const grown = load('monorepo');
    grown.setFile('apps/admin/src/sub/package.json', '{"name": "sub"}');
    grown.setFile('apps/admin/src/sub/locales/en.json', '{"title": "Sub app"}');
    grown.setFile('apps/admin/src/sub/Page.vue', "<template><h1>{{ $t('title') }}</h1></template>");
    const titles = grown.lookupKey('title').candidates;
    assert.deepEqual(titles.map((c) => c.app), ['apps/admin', 'apps/admin/src/sub', 'apps/shop']);
    assert.deepEqual(titles[1].usages.map((u) => u.file), ['apps/admin/src/sub/Page.vue']);
    assert.ok(!titles[0].usages.some((u) => u.file.includes('/sub/')));
    grown.deleteFile('apps/admin/src/sub/package.json');
    assert.deepEqual(grown.lookupKey('title').candidates.map((c) => c.app), ['apps/admin', 'apps/shop']);
    const h = ix.hover('apps/admin/src/Users.vue', read('monorepo', 'apps/admin/src/Users.vue').indexOf("'title'") + 1)!;
    assert.deepEqual(h.candidates.map((c) => c.app), ['apps/admin']);
  });
});

describe('i18n: the string under the cursor', () => {
  it('finds template text, attribute values and string literals in a .vue file', () => {
    const text = read('per-file', 'src/EventForm.vue');
    const at = (needle: string, d = 1) => text.indexOf(needle) + d;
    const tt = stringAt(text, 'vue', at('Create event</button>', 3))!;
    assert.deepEqual([tt.text, tt.kind], ['Create event', 'template-text']);
    assert.equal(text.slice(tt.range.start.offset, tt.range.end.offset), 'Create event');
    const lit = stringAt(text, 'vue', at("'events.create.SAVE'", 3))!;
    assert.deepEqual([lit.text, lit.kind], ['events.create.SAVE', 'string']);
    assert.equal(text.slice(lit.range.start.offset, lit.range.end.offset), 'events.create.SAVE');
    const attr = stringAt(text, 'vue', at('tag="p"', 5))!;
    assert.deepEqual([attr.text, attr.kind], ['p', 'attribute']);
    const inScript = stringAt(text, 'vue', at("'saved'", 2))!;
    assert.deepEqual([inScript.text, inScript.kind], ['saved', 'string']);
    assert.equal(stringAt(text, 'vue', at('<form>', 2)), undefined);
    const sel = stringAt(text, 'vue', 0, { start: at('Create event</button>', 0), end: at('Create event</button>', 6) })!;
    assert.deepEqual([sel.text, sel.kind], ['Create', 'selection']);
    const padded = stringAt('x =   Save  ;', 'text', 0, { start: 3, end: 12 })!;
    assert.deepEqual([padded.text, padded.range.start.offset, padded.range.end.offset], ['Save', 6, 10]);
  });

  it('finds strings in JS/TSX, JSON and plain text, and the key behind them is one lookup away', () => {
    const ix = load('per-file');
    const js = "const a = `Filter by date`;\nconst b = <p>\n  Cancel\n</p>;\n";
    assert.equal(stringAt(js, 'javascriptreact', 14)!.text, 'Filter by date');
    assert.deepEqual([stringAt(js, 'a.jsx', js.indexOf('Cancel') + 2)!.text, stringAt(js, 'a.jsx', js.indexOf('Cancel') + 2)!.kind], ['Cancel', 'jsx-text']);
    assert.equal(ix.lookupLexical(stringAt(js, 'a.jsx', 14)!.text).candidates[0].key, 'events.list.FILTER');
    const json = read('per-file', 'locales/core_fr.json');
    const s = stringAt(json, 'json', json.indexOf('Annuler') + 1)!;
    assert.deepEqual([s.text, s.kind], ['Annuler', 'json-string']);
    const html = '<div class="x">  Créer un événement </div>';
    assert.equal(stringAt(html, 'html', html.indexOf('Créer') + 2)!.text, 'Créer un événement');
    assert.equal(stringAt(html, 'html', 13)!.text, 'x');
  });
});

describe('i18n: semantic matching as the last resort (tiny shipped model)', function () {
  let embedder: TransformersEmbedder;
  before(async () => {
    const r = await createTransformersEmbedder({ localModelPath: path.join(__dirname, '..', 'fixtures', 'models'), model: 'fathom-tiny-bert' });
    if ('error' in r) assert.fail(r.error);
    embedder = r.embedder;
  });
  after(async () => embedder?.dispose());

  const ix = new I18nIndex();
  ix.setFile('locales/en.json', JSON.stringify({ map: { zoomIn: 'Zoom in', zoomOut: 'Zoom out' }, layers: { remove: 'Delete the layer' } }, null, 2));

  it('runs only when nothing lexical matched, and ranks by similarity', async () => {
    assert.deepEqual(ix.lookupLexical('zooming').candidates, []);
    const r = await ix.lookupString('zooming', { embedder });
    assert.equal(r.candidates[0].match, 'semantic');
    assert.ok(r.candidates[0].key.startsWith('map.zoom'), r.candidates[0].key);
    assert.equal((await ix.lookupString('layering removal', { embedder })).candidates[0].key, 'layers.remove');
    // a lexical hit never goes to the model
    assert.equal((await ix.lookupString('Zoom in', { embedder })).candidates[0].match, 'exact');
  });

  it('without an embedder says semantic is unavailable, and does not throw', async () => {
    const r = await ix.lookupString('zooming');
    assert.deepEqual(r.candidates, []);
    assert.match(r.semanticUnavailable!, /unavailable/);
  });
});

describe('i18n: bad input', () => {
  it('never throws on broken files and says what it skipped', () => {
    const ix = new I18nIndex();
    const bad = ['', '{', '[1,2]', '"x"', '{"a": {"b": ', '\u0000\u0001', '{"a": 1, "b": true, "c": null}', '{'.repeat(5000)];
    bad.forEach((t, i) => ix.setFile(`locales/x${i}/en.json`, t));
    ix.setFile('src/a.vue', '<template><p>{{ $t("k") }}</p></template>\n<script>export default {</script>\n<i18n>{"en": {"k": }</i18n>');
    ix.setFile('src/z.vue', '<template><p>{{ $t(</p></template><i18n>{"en": {"k": "v"}}</i18n>');
    ix.setFile('locales/deep/en.json', '{"a":'.repeat(100_000));
    ix.setFile('src/deep.vue', `<template><p></p></template><i18n>${'{"a":'.repeat(100_000)}</i18n>`);
    ix.setFile('src/b.ts', 'const x = t(\'a.b\'; function (');
    ix.setFile('src/c.js', 't(`${x}`); t(key); t()');
    assert.ok(ix.problems.some((p) => p.kind === 'malformed' && p.file === 'src/a.vue'));
    assert.ok(ix.problems.some((p) => p.kind === 'malformed' && p.file === 'locales/x1/en.json'));
    assert.ok(ix.problems.some((p) => p.kind === 'unsupported' && p.file === 'locales/deep/en.json'));
    assert.ok(ix.problems.some((p) => p.kind === 'unsupported' && p.file === 'src/deep.vue'));
    assert.deepEqual(ix.lookupLexical('anything').candidates, []);
    assert.deepEqual(findUsages('src/c.js', 't(`${x}`); t(key); t()'), []);
  });

  it('honours locale globs: a matching file is a locale file whatever its shape; others are not', () => {
    const ix = new I18nIndex({ matchesGlobs: (rel) => rel.startsWith('translations/') });
    ix.setFile('translations/de.json', '{"k": "v", "n": 1}');
    ix.setFile('locales/en.json', '{"k": "Hello there"}');
    ix.setFile('translations/strings.json', '{"k": "v"}');
    assert.deepEqual(ix.localeFiles, ['translations/de.json']);
    assert.deepEqual(ix.problems.map((p) => p.kind), ['unknown-locale']);
  });
});

describe('i18n: ties between templates', () => {
  it('of two templates that match equally, the more specific one comes first', () => {
    const ix = new I18nIndex();
    // the less specific key sorts first by name, and is defined first
    ix.setFile('locales/it.json', JSON.stringify({ aLock: 'Blocca {0}', lockDomain: 'Blocca dominio {0}' }));
    ix.setFile('locales/en.json', JSON.stringify({ aLock: 'Block {0}', lockDomain: 'Block domain {0}' }));
    const got = ix.lookupLexical('Blocca dominio Mastodon').candidates.map((c) => [c.key, c.match, c.score]);
    assert.deepEqual(got.slice(0, 2), [
      ['lockDomain', 'normalized', 0.9],
      ['aLock', 'normalized', 0.9],
    ]);
    // the limit keeps the more specific one
    assert.deepEqual(ix.lookupLexical('Blocca dominio Mastodon', { limit: 1 }).candidates.map((c) => c.key), ['lockDomain']);
  });
});

describe('i18n: locale modules as bundlers and compilers write them', () => {
  const MODULES: Record<string, string> = {
    // element-plus es/ build: a var, then an export list naming it default
    'es/locale/lang/en.mjs': 'var English = {\n  name: "en",\n  el: { colorpicker: { confirm: "OK", clear: "Clear" } }\n};\n\nexport { English as default };\n',
    // its CommonJS build
    'lib/locale/lang/fr.js': '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nvar French = {\n  name: "fr",\n  el: { colorpicker: { confirm: "Confirmer", clear: "Effacer" } }\n};\nexports["default"] = French;\n',
    'src/locales/de.js': 'const de = { el: { colorpicker: { confirm: "Bestätigen", clear: "Leeren" } } };\nmodule.exports.default = de;\n',
    'src/locales/nl.ts': 'export const nl = {\n  el: { colorpicker: { confirm: "Bevestigen", clear: "Wissen" } },\n};\nexport default nl;\n',
    'src/locales/it.ts': 'const it = { el: { colorpicker: { confirm: "Conferma", clear: "Pulisci" } } } as const;\nexport default it;\n',
    // not messages: an export list without default, a re-export
    'src/locales/index.ts': 'const all = { a: "x", b: "y" };\nexport { all };\nexport { default as en } from "./en";\n',
  };
  it('reads `var X = {…}; export { X as default }`, exports["default"] = X, and an exported const exported as default', () => {
    const ix = new I18nIndex();
    for (const [f, t] of Object.entries(MODULES)) ix.setFile(f, t);
    assert.deepEqual(ix.localeFiles, ['es/locale/lang/en.mjs', 'lib/locale/lang/fr.js', 'src/locales/de.js', 'src/locales/it.ts', 'src/locales/nl.ts']);
    const [c] = ix.lookupLexical('Effacer').candidates;
    assert.equal(c.key, 'el.colorpicker.clear');
    assert.deepEqual(byLocale(c), { de: 'Leeren', en: 'Clear', fr: 'Effacer', it: 'Pulisci', nl: 'Wissen' });
    for (const l of c.locales) {
      const lines = MODULES[l.file].split('\n');
      assert.equal(lines[l.range.start.line - 1].slice(l.range.start.column, l.range.end.column), l.value, `${l.file}: the range is the value`);
    }
  });
});
