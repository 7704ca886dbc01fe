import { strict as assert } from 'node:assert';
import { diversify, type Ranked } from '../../src/index/rank/diversify';
import { shownPiece, FIRST_PIECE_SHARE } from '../../src/index/rank/pieces';
import { chunkFile, resolveOptions } from '../../src/chunkers/index';
import { Engine, keywordFieldsOf, withoutTwinCodeBlocks } from '../../src/index/engine';
import { phraseFirst, proximityOrder, shownForm, shownHash, wholeValue } from '../../src/index/rank/phrase';
import { i18nFeed, sourceLocale } from '../../src/index/i18n-feed';
import { KeywordIndex } from '../../src/index/keyword';
import { I18nIndex } from '../../src/i18n/i18n-index';
import { mineGold } from '../../src/eval/mine';
import { NAMED_FIELDS, namedLayout } from '../helpers/named-layout';
import { loadStaticModel } from '../../src/index/static-model';

/** Issue 12's classes of ranking failures on unseen workspaces, one behaviour each. */

const stat = { size: 1, mtimeMs: 1 };
const bytes = (s: string) => new TextEncoder().encode(s);

/** An engine (keyword-only) and an i18n index over the same files; the feed is left to the test. */
function withI18nIndex(files: Record<string, string>): { engine: Engine; index: I18nIndex } {
  const engine = new Engine({ noEmbedderReason: 'test' });
  const index = new I18nIndex();
  for (const [rel, text] of Object.entries(files)) {
    engine.updateFile(rel, bytes(text), stat);
    index.setFile(rel, text);
  }
  return { engine, index };
}

describe('keyword scoring: coverage, compounds, code synonyms', () => {
  it('a chunk holding every query word beats one with a boosted symbol and half of them', () => {
    const make = (coverage?: number) => {
      const ix = new KeywordIndex({ coverage });
      ix.add(1, { path: 'src/components/TextField.vue', header: '<!-- src/components/TextField.vue — text field [template] -->', symbol: 'TextField', text: '<input class="text-field" :value="value">' });
      ix.add(2, { path: 'src/components/TextField.vue', header: '<!-- src/components/TextField.vue — text field [script] -->', symbol: 'TextField.props', text: 'props: { value: String, label: String }' });
      ix.add(3, { path: 'schemas/event.json', header: '// schemas/event.json :: properties.title', symbol: 'properties.title', text: '"title": { "type": "string", "field": { "component": "TextField", "label": "Title" } }' });
      for (let i = 0; i < 30; i++) ix.add(10 + i, { path: `src/other${i}.js`, header: `// src/other${i}.js :: f${i}`, symbol: `f${i}`, text: `function f${i}() { return ${i} }` });
      return ix.search('field title with component TextField', { k: 3 }).map((h) => h.docId);
    };
    assert.equal(make()[0], 3, 'the schema property first');
    assert.notEqual(make(0)[0], 3, 'without coverage the boosted symbol wins (what the test guards against)');
  });

  it('the rarest word\'s chunks stay BM25 candidates: one locale entry with "anzeigen" among 300 symbols named version', () => {
    const ix = new KeywordIndex();
    ix.add(1, { path: 'locales/de.json', header: '// locales/de.json :: Show help…Deprecated', symbol: 'Show help…Deprecated', text: '"Show help": "Hilfe anzeigen",\n"Show version number": "Version anzeigen",\n"Deprecated": "Veraltet"' });
    for (let i = 0; i < 300; i++) ix.add(10 + i, { path: `src/v${i}/index.js`, header: `// src/v${i}/index.js :: version`, symbol: 'version', text: `export function version() { return ${i} }` });
    for (let i = 0; i < 2000; i++) ix.add(1000 + i, { path: `src/m${i}.js`, header: `// src/m${i}.js :: m${i}`, symbol: `m${i}`, text: `export const m${i} = ${i}` });
    const hits = ix.search('Version anzeigen', { k: 5 });
    assert.equal(hits[0]?.docId, 1, JSON.stringify(hits));
  });

  it('"log out" finds logout, "dark mode" finds darkMode, dark-mode and DarkMode', () => {
    const ix = new KeywordIndex();
    ix.add(1, { path: 'src/auth.js', symbol: 'logout', text: 'export function logout() { session.end() }' });
    ix.add(2, { path: 'src/theme.js', symbol: 'darkMode', text: 'const darkMode = ref(false)' });
    ix.add(3, { path: 'src/theme.css', text: '.dark-mode { color: white }' });
    ix.add(4, { path: 'src/DarkMode.vue', symbol: 'DarkMode', text: '<div>theme</div>' });
    ix.add(5, { path: 'src/log.js', symbol: 'log', text: 'export function log(x) { console.log(x) }' });
    assert.equal(ix.search('log out', { k: 1 })[0]?.docId, 1);
    assert.deepEqual(new Set(ix.search('dark mode', { k: 3 }).map((h) => h.docId)), new Set([2, 3, 4]));
    const off = new KeywordIndex({ compounds: false });
    off.add(1, { path: 'src/auth.js', symbol: 'logout', text: 'export function logout() { session.end() }' });
    assert.equal(off.search('log out', { k: 1 }).length, 0, 'without compounds nothing matches');
  });

  it('"sign in" finds login through the code-synonym table; a word named like an Object member is no synonym', () => {
    const ix = new KeywordIndex();
    ix.add(1, { path: 'src/auth.js', symbol: 'login', text: 'export async function login(user, password) {}' });
    ix.add(2, { path: 'src/x.js', symbol: 'constructor', text: 'class X { constructor() {} }' });
    assert.equal(ix.search('sign in', { k: 1 })[0]?.docId, 1);
    assert.equal(new KeywordIndex({ synonyms: false }).search('sign in').length, 0);
    assert.equal(ix.search('constructor __proto__ toString', { k: 1 })[0]?.docId, 2);
  });
});

describe('keyword scoring: near-namesakes', () => {
  /** Three namesakes; the longer names' texts say a little more of the query (`store`, `session` once more). */
  const namesakes = (namesake?: number) => {
    const ix = new KeywordIndex({ namesake });
    ix.add(1, { path: 'src/store/slice.js', symbol: 'getUserSlice', text: 'export function getUserSlice(store) { return store.state.session.user || store.session }' });
    ix.add(2, { path: 'src/store/list.js', symbol: 'getUserList', text: 'export function getUserList(store) { return store.state.session.user || store.session }' });
    ix.add(3, { path: 'src/store/one.js', symbol: 'getUser', text: 'export function getUser(state) { return state.session.user }' });
    for (let i = 0; i < 30; i++) ix.add(10 + i, { path: `src/other${i}.js`, symbol: `f${i}`, text: `// the first of ${i} from the current list\nfunction f${i}() { return ${i} }` });
    return ix;
  };
  const doc = 'Gets the user of the current session from the store state.';

  it('the identifier whose parts the query names outranks its near-namesakes (getUser over getUserSlice, getUserList)', () => {
    assert.equal(namesakes().search(doc, { k: 3 })[0]?.docId, 3);
    assert.notEqual(namesakes(0).search(doc, { k: 3 })[0]?.docId, 3, 'without the tie-break a longer namesake wins (what the test guards against)');
    assert.notEqual(namesakes().search(doc, { k: 3, namesake: 0 })[0]?.docId, 3, 'the per-query override turns it off too');
  });

  it('a longer identifier wins when the query names all of its parts', () => {
    assert.equal(namesakes().search('get the user slice of the store state', { k: 3 })[0]?.docId, 1);
    assert.equal(namesakes().search('get the user list of the store state', { k: 3 })[0]?.docId, 2);
  });

  it('a symbol named by none of the query words gets nothing from it', () => {
    const ix = new KeywordIndex();
    ix.add(1, { path: 'a.js', symbol: 'alphaBeta', text: 'the user state' });
    ix.add(2, { path: 'b.js', text: 'the user state' });
    const on = ix.search('user state', { k: 2 });
    const off = ix.search('user state', { k: 2, namesake: 0 });
    assert.deepEqual(on, off);
  });
});

describe('diversify: locale folding, code first, per-file cap', () => {
  it('folds one key section across locales, puts the other locale results after the code', () => {
    const list: Ranked[] = [
      { docId: 1, path: 'locales/de.json', symbol: 'user', locale: true },
      { docId: 2, path: 'locales/en.json', symbol: 'user', locale: true },
      { docId: 3, path: 'locales/fr.json', symbol: 'user', locale: true },
      { docId: 4, path: 'locales/fr.json', symbol: 'map', locale: true },
      { docId: 5, path: 'src/UserMenu.vue', locale: false },
      { docId: 6, path: 'src/auth.js', locale: false },
      { docId: 7, path: 'src/other.js', locale: false },
    ];
    const out = diversify(list);
    assert.deepEqual(
      out.map((d) => d.docId),
      [1, 5, 6, 7, 4],
    );
    assert.deepEqual(out[0].folded, [2, 3]);
    assert.deepEqual(
      diversify(list, { codeFirst: false }).map((d) => d.docId),
      [1, 4, 5, 6, 7],
    );
  });

  it('the best locale result keeps its place only when one of its values is the query', () => {
    const list = (verbatim: boolean): Ranked[] => [
      { docId: 1, path: 'locales/de.json', symbol: 'pager', locale: true, verbatim },
      { docId: 2, path: 'src/Pager.vue', locale: false },
      { docId: 3, path: 'src/pages.js', locale: false },
    ];
    assert.deepEqual(diversify(list(true)).map((d) => d.docId), [1, 2, 3]);
    assert.deepEqual(diversify(list(false)).map((d) => d.docId), [2, 3, 1], 'only shared words: the code first');
  });

  it('search: words a translation shares put the code first, the whole value pasted keeps its locale file first', async () => {
    const engine = new Engine({ noEmbedderReason: 'test' });
    const files: Record<string, string> = {
      'package.json': '{"name":"app"}',
      'src/locales/en.json': '{"pager": {"next": "Go to the next page", "prev": "Go to the previous page"}}',
      'src/locales/de.json': '{"pager": {"next": "Zur nächsten Seite", "prev": "Zur vorherigen Seite"}}',
      'src/pager.js': 'export function nextPage(pager) { return pager.go(pager.page + 1) }\n',
    };
    for (const [rel, text] of Object.entries(files)) engine.updateFile(rel, bytes(text), stat);
    const shared = await engine.search('next page', { mode: 'keyword' });
    assert.equal(shared[0]?.chunk.path, 'src/pager.js', shared.map((h) => h.chunk.path).join(', '));
    const pasted = await engine.search('Go to the next page', { mode: 'keyword' });
    assert.equal(pasted[0]?.chunk.path, 'src/locales/en.json', pasted.map((h) => h.chunk.path).join(', '));
  });

  it('a locale result whose value is the query is at most second, behind the best code; one sharing words keeps its place', () => {
    const list = (verbatim: boolean): Ranked[] => [
      ...[1, 2, 3, 4, 5, 6].map((i) => ({ docId: i, path: `src/List${i}.vue`, locale: false })),
      { docId: 7, path: 'locales/en.json', symbol: 'common', locale: true, verbatim },
    ];
    assert.deepEqual(diversify(list(true)).map((d) => d.docId), [1, 7, 2, 3, 4, 5, 6]);
    assert.deepEqual(diversify(list(false)).map((d) => d.docId), [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(diversify(list(true), { codeFirst: false }).map((d) => d.docId), [1, 2, 3, 4, 5, 6, 7], 'no code-first order, no move');
  });

  it('a catalog keyed by the English text: the locale whose value is the query leads, not one holding it as a key', async () => {
    assert.ok(!wholeValue('Show help')!.test('  "Show help": "Hilfe anzeigen",'), 'a key is no value');
    assert.ok(wholeValue('Show help')!.test('  "Show help": "Show help",'));
    assert.ok(wholeValue('Hilfe anzeigen')!.test('  "Show help": "Hilfe anzeigen",'));
    assert.ok(wholeValue('Show help')!.test('show_help: Show help'));
    const list: Ranked[] = [
      { docId: 1, path: 'locales/nn.json', symbol: 'Show help…Show version number', locale: true, verbatim: false },
      { docId: 2, path: 'lib/usage.js', locale: false },
      { docId: 3, path: 'lib/help.js', locale: false },
      { docId: 4, path: 'locales/en.json', symbol: 'Show help…Show hidden options', locale: true, verbatim: true },
    ];
    assert.deepEqual(diversify(list).map((d) => d.docId), [2, 4, 3, 1]);
    const files: Record<string, string> = {
      'locales/en.json': '{\n  "Show help": "Show help",\n  "Show version number": "Show version number"\n}\n',
      'locales/nn.json': '{\n  "Show help": "Vis hjelp",\n  "Show version number": "Vis versjonsnummer"\n}\n',
      'locales/nb.json': '{\n  "Show help": "Vis hjelp",\n  "Show version number": "Vis versjonsnummer"\n}\n',
      'lib/usage.js': "export function usage(y) {\n  return y.option('version', { describe: __('Show version number') })\n}\n",
    };
    const engine = new Engine({ noEmbedderReason: 'test' });
    for (const [rel, text] of Object.entries(files)) engine.updateFile(rel, bytes(text), stat);
    const hits = await engine.search('Show version number', { mode: 'keyword', k: 10 });
    const firstLocale = hits.find((h) => h.chunk.path.startsWith('locales/'));
    assert.equal(firstLocale?.chunk.path, 'locales/en.json', hits.map((h) => h.chunk.path).join(', '));
    assert.ok(hits.indexOf(firstLocale!) <= 1, hits.map((h) => h.chunk.path).join(', '));
  });

  it('search: a value typed verbatim finds its locale entry even when 200 symbols outscore it as BM25 candidates (the i18n index knows the value)', async () => {
    const files: Record<string, string> = {
      'locales/en.json': '{\n  "Show help": "Show help",\n  "Show version number": "Show version number",\n  "Deprecated": "Deprecated"\n}\n',
      'locales/de.json': '{\n  "Show help": "Hilfe anzeigen",\n  "Show version number": "Version anzeigen",\n  "Deprecated": "Veraltet"\n}\n',
    };
    // code whose names hold the query's words: each outscores the locale entry before BM25F's coverage
    for (let i = 0; i < 300; i++) files[`src/v${i}.js`] = `export function showVersionNumber${i}(show, version, number) { return show(version, number, ${i}) }\n`;
    for (let i = 0; i < 600; i++) files[`src/m${i}.js`] = `export const m${i} = ${i}\n`;
    const { engine, index } = withI18nIndex(files);
    const before = await engine.search('Show version number', { mode: 'keyword', k: 10 });
    assert.ok(!before.some((h) => h.chunk.path === 'locales/en.json'), `without the feed it is no candidate: ${before.map((h) => h.chunk.path).join(', ')}`);
    engine.setI18n(i18nFeed(index));
    const hits = await engine.search('Show version number', { mode: 'keyword', k: 10 });
    assert.ok(hits.slice(0, 2).some((h) => h.chunk.path === 'locales/en.json'), hits.map((h) => h.chunk.path).join(', '));
    const words = await engine.search('show version', { mode: 'keyword', k: 10 });
    assert.ok(!words.slice(0, 2).some((h) => h.chunk.path.startsWith('locales/')), `words that are no whole value: code first (${words.map((h) => h.chunk.path).join(', ')})`);
  });

  it('search: a value that six components show finds them and its locale entry in the first five (second)', async () => {
    const files: Record<string, string> = {
      'src/locales/en.json': '{"common": {"confirmDelete": "Are you sure you want to delete this item?", "save": "Save"}}',
      'src/locales/de.json': '{"common": {"confirmDelete": "Möchten Sie diesen Eintrag wirklich löschen?", "save": "Speichern"}}',
    };
    for (const name of ['Users', 'Projects', 'Tags', 'Files', 'Roles', 'Teams']) {
      files[`src/components/${name}List.vue`] = `<template>\n  <ul><li v-for="x in items" :key="x.id">{{ x.name }} <button @click="remove(x)">x</button></li></ul>\n</template>\n<script setup>\nimport { useI18n } from 'vue-i18n'\nconst { t } = useI18n()\nfunction remove(x) {\n  if (!confirm(t('common.confirmDelete'))) return\n  emit('remove', x)\n}\n</script>\n`;
    }
    const { engine, index } = withI18nIndex(files);
    engine.setI18n(i18nFeed(index));
    const hits = await engine.search('Are you sure you want to delete this item?', { mode: 'keyword', k: 10 });
    const paths = hits.map((h) => h.chunk.path);
    assert.match(paths[0], /^src\/components\/\w+List\.vue$/, paths.join(', '));
    assert.equal(paths[1], 'src/locales/en.json', paths.join(', '));
    assert.deepEqual(hits[1].alsoIn?.map((c) => c.path), ['src/locales/de.json'], 'the other locale folded into it');
    assert.equal(new Set(paths.filter((p) => p.endsWith('List.vue'))).size, 6, paths.join(', '));
    // the components show the source locale's text: the German value is its locale entry's alone
    const de = await engine.search('Möchten Sie diesen Eintrag wirklich löschen?', { mode: 'keyword', k: 10 });
    assert.equal(de[0]?.chunk.path, 'src/locales/de.json', de.map((h) => h.chunk.path).join(', '));
  });

  it('keeps at most 3 chunks of one file, the rest reachable from its best one', () => {
    const list: Ranked[] = [1, 2, 3, 4, 5].map((i) => ({ docId: i, path: 'src/Settings.vue', locale: false }));
    list.splice(2, 0, { docId: 9, path: 'src/b.js', locale: false });
    const out = diversify(list);
    assert.deepEqual(
      out.map((d) => d.docId),
      [1, 2, 9, 3],
    );
    assert.deepEqual(out[0].moreInFile, [4, 5]);
  });
});

describe('i18n text searchable with the code that uses the key', () => {
  const files: Record<string, string> = {
    'package.json': '{"name":"app"}',
    'src/locales/en.json': '{"user": {"sign_out": "Sign out of your account", "profile": "Your profile"}}',
    'src/locales/de.json': '{"user": {"sign_out": "Von Ihrem Konto abmelden", "profile": "Ihr Profil"}}',
    'src/locales/fr.json': '{"user": {"sign_out": "Se déconnecter de votre compte", "profile": "Votre profil"}}',
    'src/components/UserMenu.vue': '<template>\n  <button @click="leave">{{ $t(\'user.sign_out\') }}</button>\n</template>\n<script>\nexport default { name: "UserMenu", methods: { leave() { this.$emit("leave") } } }\n</script>\n',
    'src/components/Chip.js': "export const closeLabel = { default: '$app.user.profile' }\n",
    'src/account.js': 'export function account() { return "sign" }\n',
  };

  const setup = () => withI18nIndex(files);

  it('the words a user sees find the component that renders the key, the locale files folded into one result', async () => {
    const { engine, index } = setup();
    const before = await engine.search('sign out from account', { mode: 'keyword' });
    assert.notEqual(before[0]?.chunk.path, 'src/components/UserMenu.vue', 'without the feed the template has none of the words');
    assert.ok(engine.setI18n(i18nFeed(index)) >= 1);
    const hits = await engine.search('sign out from account', { mode: 'keyword' });
    assert.equal(hits[0].chunk.path, 'src/components/UserMenu.vue', hits.map((h) => h.chunk.path).join(', '));
    const locales = hits.filter((h) => h.chunk.path.includes('/locales/'));
    assert.equal(locales.length, 1, `one locale result: ${hits.map((h) => h.chunk.path).join(', ')}`);
    assert.equal(locales[0].alsoIn?.length, 2);
    // searchable, not displayed: the chunk's text and header are what the file holds
    assert.ok(!hits[0].chunk.text.includes('Sign out'));
    assert.ok(!hits[0].chunk.header.includes('Sign out'));
  });

  it('fathom eval mines the words a user sees → the component as its own route, next to the i18n route', () => {
    const { engine, index } = setup();
    assert.ok(!mineGold(engine).some((g) => g.route === 'ui'), 'no feed, no ui query');
    engine.setI18n(i18nFeed(index));
    const gold = mineGold(engine);
    assert.ok(gold.some((g) => g.route === 'ui' && g.query === 'Sign out of your account' && g.file === 'src/components/UserMenu.vue'), JSON.stringify(gold));
    assert.ok(gold.some((g) => g.route === 'i18n' && g.query === 'Sign out of your account' && g.file === 'src/locales/en.json'), 'the same text still asks for its locale file on the i18n route');
  });

  it('a key held as a string literal counts, a leading $namespace segment tried without it', async () => {
    const { engine, index } = setup();
    engine.setI18n(i18nFeed(index));
    const hits = await engine.search('your profile', { mode: 'keyword' });
    assert.ok(
      hits.some((h) => h.chunk.path === 'src/components/Chip.js'),
      hits.map((h) => h.chunk.path).join(', '),
    );
  });

  it('a verbatim translation still finds its locale file in the top 3, and taking the feed away undoes it', async () => {
    const { engine, index } = setup();
    engine.setI18n(i18nFeed(index));
    const hits = await engine.search('Von Ihrem Konto abmelden', { mode: 'keyword' });
    assert.ok(hits.slice(0, 3).some((h) => h.chunk.path === 'src/locales/de.json'));
    assert.ok(engine.setI18n(undefined) >= 1);
    const after = await engine.search('sign out from account', { mode: 'keyword' });
    assert.notEqual(after[0]?.chunk.path, 'src/components/UserMenu.vue');
  });

  it('the source locale is en when there is one, else the default messages (und), else a regional English, else the locale with most values', () => {
    const m = (ls: string[]) => new Map([['a', ls.map((locale) => ({ locale, value: 'x' }))]]);
    assert.equal(sourceLocale(m(['de', 'en-US', 'fr'])), 'en-US');
    assert.equal(sourceLocale(m(['de', 'en', 'en-GB'])), 'en');
    assert.equal(sourceLocale(new Map([['a', [{ locale: 'de' }, { locale: 'fr' }]], ['b', [{ locale: 'fr' }]]])), 'fr');
    // Android's values/ and values-fr/ with the same keys: the default folder is the developer's text
    assert.equal(sourceLocale(new Map([['a', [{ locale: 'fr' }, { locale: 'und' }]], ['b', [{ locale: 'fr' }, { locale: 'und' }]]])), 'und');
    assert.equal(sourceLocale(m(['und', 'en'])), 'en');
    // Android's values/ beside values-en-rGB/: the default is the source, the British one adapts it
    assert.equal(sourceLocale(m(['en-GB', 'und'])), 'und');
  });
});

describe('the words on screen: a chunk that displays the query as one whole value', () => {
  it('phraseFirst: a shown value equal to the query (placeholders, case and spaces aside) is the first tier, one word too', () => {
    const shown: Record<number, string> = { 3: 'Cancel\nConfirm', 4: 'Go to page {0}', 5: 'Confirm the deletion' };
    const text: Record<number, string> = { 1: 'const confirm = () => emit("confirm")', 2: 'function go(page) {}', 3: 'render()', 4: 'render()', 5: 'render()' };
    const order = (q: string) => phraseFirst(q, [1, 2, 3, 4, 5], (id) => text[id], (id) => shown[id]?.split('\n').map(shownForm));
    assert.deepEqual(order('Confirm'), [3, 1, 2, 4, 5], 'the chunk displaying "Confirm" first; a value merely holding the word is no whole value');
    assert.deepEqual(order('go to  Page'), [4, 1, 2, 3, 5]);
    assert.deepEqual(order('confirm the deletion'), [5, 1, 2, 3, 4]);
    assert.deepEqual(phraseFirst('Confirm', [1, 2, 3], (id) => text[id]), [1, 2, 3], 'without displayed strings a one-word query keeps its order');
    assert.deepEqual(phraseFirst('the deletion', [1, 2, 5], (id) => (id === 5 ? 'confirm the deletion' : text[id])), [5, 1, 2], 'a phrase in the text');
    assert.deepEqual(phraseFirst('the deletion', [1, 2, 5], (id) => (id === 5 ? 'confirm the deletion' : text[id]), undefined, 2), [1, 2, 5], 'texts are read to textDepth only');
    assert.equal(shownForm(' {count} items  selected %s '), 'items selected');
  });

  it('shownHash is the hash of shownForm: case, placeholders and runs of spaces aside, any script', () => {
    const same = [
      ['Go to page {0}', 'go to  PAGE'],
      ['Go to page {{n}} now', 'go to page now'],
      ['Hello %1$s and %2$d', 'hello and'],
      ['  Sign out\u00a0 ', 'sign out'],
      ['ÜBER uns', 'über UNS'],
      ['Показать справку', 'показать  СПРАВКУ'],
    ];
    for (const [a, b] of same) {
      assert.equal(shownHash(a), shownHash(b), `${a} / ${b}`);
      assert.equal(shownHash(a), shownHash(shownForm(a)), a);
    }
    assert.notEqual(shownHash('100% sure'), shownHash('100 sure'), 'a lone % is no placeholder');
    assert.notEqual(shownHash('Sign out'), shownHash('Sign in'));
    const feed = i18nFeed({ localeFiles: ['l/en.json'], usagesIn: () => [], keyValues: () => new Map([['pager.go', [{ locale: 'en', value: 'Go to page {0}' }, { locale: 'de', value: 'Gehe zu Seite {0}' }]]]) });
    assert.ok(feed.holdsValue!('go to page'));
    assert.ok(feed.holdsValue!('GEHE ZU SEITE'));
    assert.ok(!feed.holdsValue!('go to'));
  });

  it('a component that displays a one-word label is found even when many chunks use the word in code', async () => {
    const files: Record<string, string> = {
      'src/locales/en.json': '{"table": {"confirm": "Confirm", "reset": "Reset"}}',
      'src/locales/de.json': '{"table": {"confirm": "Bestätigen", "reset": "Zurücksetzen"}}',
      'src/components/FilterPanel.vue': "<template>\n  <div class=\"panel\">\n    <button @click=\"apply\">{{ $t('table.confirm') }}</button>\n    <button @click=\"clear\">{{ $t('table.reset') }}</button>\n  </div>\n</template>\n",
    };
    // sixty chunks that say "confirm" in code, several times each, with it in their names
    for (let i = 0; i < 60; i++) files[`src/dialogs/confirm${i}.js`] = `export function confirmDialog${i}(confirm) {\n  const confirmed = confirm(${i});\n  return confirm && confirmed;\n}\n`;
    const { engine, index } = withI18nIndex(files);
    const before = await engine.search('Confirm', { mode: 'keyword', k: 10 });
    assert.ok(!before.some((h) => h.chunk.path === 'src/components/FilterPanel.vue'), 'without the feed the template holds no word of it');
    engine.setI18n(i18nFeed(index));
    const hits = await engine.search('Confirm', { mode: 'keyword', k: 10 });
    assert.equal(hits[0]?.chunk.path, 'src/components/FilterPanel.vue', hits.map((h) => h.chunk.path).join(', '));
  });
});

describe('a query that names what a chunk is (its search terms)', () => {
  it('phraseFirst: a chunk whose search terms the query holds word for word is the first tier; fewer than 3 terms or one missing word does not count', () => {
    const terms: Record<number, string> = { 3: 'field notes component KTextarea', 4: 'field title', 5: 'global registration k-panel KPanel\nglobal registration k-card components/KCard.vue' };
    const order = (q: string) => phraseFirst(q, [1, 2, 3, 4, 5], () => 'code', undefined, 5, undefined, (id) => terms[id]);
    assert.deepEqual(order('field notes with component KTextarea'), [3, 1, 2, 4, 5]);
    assert.deepEqual(order('field notes with component KSelect'), [1, 2, 3, 4, 5], 'another component: no tier');
    assert.deepEqual(order('field title please'), [1, 2, 3, 4, 5], 'two terms are too few to name a chunk');
    assert.deepEqual(order('global registration of k-panel (KPanel)'), [5, 1, 2, 3, 4], 'any line of its terms; brackets aside');
    assert.deepEqual(order('global registration of k-card (KCard.vue)'), [5, 1, 2, 3, 4], 'a path by its last part');
  });

  it('search: "field <name> with component <C>" finds the schema property before the chunks of the component\'s own file', async () => {
    const engine = new Engine({ noEmbedderReason: 'test' });
    for (const [rel, text] of Object.entries(namedLayout())) engine.updateFile(rel, bytes(text), stat);
    for (const [field, comp] of NAMED_FIELDS) {
      const hits = await engine.search(`field ${field} with component ${comp}`, { mode: 'keyword', k: 10 });
      assert.equal(hits[0]?.chunk.symbol, `properties.${field}`, hits.map((h) => `${h.chunk.path} ${h.chunk.symbol}`).join(', '));
    }
  });

  it('hybrid search with the bundled model: the property first too (the model and its re-ranking read the component\'s style chunk as a field)', async () => {
    const loaded = loadStaticModel();
    if ('error' in loaded) throw new Error(loaded.error);
    const engine = new Engine({ embedder: loaded.embedder });
    for (const [rel, text] of Object.entries(namedLayout())) engine.updateFile(rel, bytes(text), stat);
    for await (const _ of engine.embedPending()) void _;
    for (const [field, comp] of NAMED_FIELDS) {
      const hits = await engine.search(`field ${field} with component ${comp}`, { mode: 'hybrid', k: 10 });
      assert.equal(hits[0]?.chunk.symbol, `properties.${field}`, hits.map((h) => `${h.chunk.path} ${h.chunk.kind} ${h.chunk.symbol}`).join(', '));
    }
  });
});

describe('a Vue component with messages of its own (<i18n> block)', () => {
  it('is code, not a locale file: its template is found by the words it shows and ranks with the code', async () => {
    const sfc =
      '<template>\n  <button class="btn" @click="leave">{{ t(\'signOut\') }}</button>\n</template>\n' +
      "<script setup>\nimport { useI18n } from 'vue-i18n'\nconst { t } = useI18n()\nfunction leave() {}\n</script>\n" +
      '<i18n lang="json">\n{ "en": { "signOut": "Leave the workspace" }, "de": { "signOut": "Arbeitsbereich verlassen" } }\n</i18n>\n';
    const { engine, index } = withI18nIndex({ 'src/components/Logout.vue': sfc, 'src/other.js': 'export function workspace() { return "leave" }\n' });
    assert.deepEqual(index.componentFiles, ['src/components/Logout.vue']);
    const feed = i18nFeed(index);
    assert.ok(!feed.localeFiles.has('src/components/Logout.vue'));
    engine.setI18n(feed);
    const hits = await engine.search('Leave the workspace', { mode: 'keyword' });
    assert.equal(hits[0].chunk.path, 'src/components/Logout.vue');
    assert.equal(hits[0].chunk.kind, 'template', hits.map((h) => `${h.chunk.path} ${h.chunk.kind}`).join(', '));
    const messages = engine.chunks.get(hits.find((h) => h.chunk.kind === 'i18n-section')!.docId)!;
    assert.ok(engine.isLocaleChunk(messages), 'its messages still count as translations');
    assert.ok(!engine.isLocaleChunk(hits[0].chunk), 'its template does not');
  });
});

describe('i18next default namespace', () => {
  it("a usage naming no namespace takes the text of the namespaced key (public/locales/en/translation.json and t('a.b'))", async () => {
    const files: Record<string, string> = {
      'public/locales/en/translation.json': '{"header": {"title": "Welcome back to the dashboard"}}',
      'public/locales/de/translation.json': '{"header": {"title": "Willkommen zurück"}}',
      'src/Header.jsx': "import { useTranslation } from 'react-i18next';\nexport function Header() {\n  const { t } = useTranslation();\n  return <h1 className=\"x\">{t('header.title')}</h1>;\n}\n",
    };
    const { engine, index } = withI18nIndex(files);
    engine.setI18n(i18nFeed(index));
    const hits = await engine.search('Welcome back to the dashboard', { mode: 'keyword' });
    assert.equal(hits[0]?.chunk.path, 'src/Header.jsx', hits.map((h) => h.chunk.path).join(', '));
    assert.equal(hits[0].chunk.meta?.i18nText, 'Welcome back to the dashboard');
    assert.ok(hits.slice(0, 3).some((h) => h.chunk.path === 'public/locales/en/translation.json'), 'the locale file still comes up for its verbatim value');
  });
});

describe('what the keyword index holds of a chunk', () => {
  it('the i18n text and the chunker\'s search terms are header words, the shown header is untouched (local and team index alike)', () => {
    const chunk = { id: 'x', path: 'src/a.js', language: 'javascript', kind: 'function', symbol: 'install', header: '// src/a.js :: install', text: "app.component('k-panel', KPanel)", start: { offset: 0, line: 1, column: 0 }, end: { offset: 33, line: 1, column: 33 }, tokens: 12, complete: true, meta: { i18nText: 'Open the panel', searchTerms: 'global registration k-panel KPanel' } } as unknown as Parameters<typeof keywordFieldsOf>[0];
    const f = keywordFieldsOf(chunk);
    assert.equal(f.header, '// src/a.js :: install\nOpen the panel\nglobal registration k-panel KPanel');
    assert.equal(chunk.header, '// src/a.js :: install');
    assert.equal(f.text, chunk.text);
  });
});

describe('term proximity', () => {
  const text: Record<number, string> = {
    1: 'const user = load(); /* many unrelated words here and there */ render(name)',
    2: 'export function getUserName(u) { return u.name }',
    3: 'function other() {}',
    4: 'the name of the user is shown',
  };
  const hits = (scores: number[]) => scores.map((score, i) => ({ docId: i + 1, score }));

  it('a chunk holding the query words close together rises past a slightly better-scored one that scatters them', () => {
    assert.deepEqual(proximityOrder('user name', hits([1.0, 0.9, 0.8, 0.5]), 10, (id) => text[id]), [2, 1, 3, 4]);
    assert.deepEqual(proximityOrder('user name', hits([2.0, 0.9, 0.8, 0.5]), 10, (id) => text[id]), [1, 2, 3, 4], 'a bonus, not a tier: a much better score stays ahead');
  });

  it('only the first `depth` hits are re-ordered; one-word and long queries keep their order', () => {
    assert.deepEqual(proximityOrder('user name', hits([1.0, 0.9, 0.8, 0.5]), 1, (id) => text[id]), [1, 2, 3, 4]);
    assert.deepEqual(proximityOrder('user', hits([1.0, 0.9, 0.8, 0.5]), 10, (id) => text[id]), [1, 2, 3, 4]);
    assert.deepEqual(proximityOrder('show the user name in the top bar of every page', hits([1.0, 0.9, 0.8, 0.5]), 10, (id) => text[id]), [1, 2, 3, 4]);
  });
});

describe('Markdown code blocks indexed once', () => {
  it('a section piece that is only a code block and the code block chunk are one chunk', async () => {
    const para = Array.from({ length: 40 }, (_, i) => `word${i} of the introduction`).join(' ');
    const code = Array.from({ length: 12 }, (_, i) => `const value${i} = compute(${i});`).join('\n');
    const md = `# Setup\n\n${para}\n\n\`\`\`js\n${code}\n\`\`\`\n`;
    const chunks = chunkFile('docs/setup.md', md, resolveOptions({ maxTokens: 128 })).chunks;
    const key = (c: { start: { offset: number }; end: { offset: number } }) => `${c.start.offset}:${c.end.offset}`;
    const twins = (cs: typeof chunks) => cs.filter((c) => c.kind === 'code-block' && cs.some((s) => s.kind === 'section' && key(s) === key(c)));
    assert.ok(twins(chunks).length > 0, `the chunker gives a twin here: ${chunks.map((c) => `${c.kind} ${key(c)}`).join(', ')}`);
    const kept = withoutTwinCodeBlocks(chunks);
    assert.equal(twins(kept).length, 0);
    assert.equal(kept.length, chunks.length - twins(chunks).length);
    for (const c of kept) for (const id of c.links?.codeBlocks ?? []) assert.ok(kept.some((k) => k.id === id), 'no link to a dropped chunk');
    const e = new Engine({ noEmbedderReason: 'test' });
    e.updateFile('docs/setup.md', bytes(md), stat);
    const hits = await e.search('const value3 compute', { mode: 'keyword' });
    assert.equal(hits.filter((h) => h.chunk.text.includes('value3')).length, 1);
  });
});

describe('the pieces of a cut unit are one result', () => {
  // one function over the chunk budget: its doc comment in the first piece, a body that talks
  // about retry and backoff in the later ones; a short neighbour in the same file
  const body = Array.from({ length: 30 }, (_, i) => (i < 10 ? `  const step${i} = prepare(attempt, ${i});` : `  const delay${i} = backoffRetryWait(attempt, ${i}); // retry the upload after backoff`)).join('\n');
  const js = `/** Sends a local file to the storage bucket, retrying on failure. */\nexport function uploadFile(path, bucket) {\n  let attempt = 0;\n${body}\n  throw new Error('the upload gave up after every retry');\n}\n\nexport function other() {\n  return 1;\n}\n`;
  const engine = () => {
    const e = new Engine({ noEmbedderReason: 'test', chunk: { maxTokens: 96 } });
    e.updateFile('store/upload.js', bytes(js), stat);
    return e;
  };
  const pieces = (e: Engine) => [...e.files.get('store/upload.js')!.docIds].map((id) => e.chunks.head(id)!).filter((c) => c.symbol === 'uploadFile');

  it('the chunker cuts the function here (the test is about pieces)', () => {
    const p = pieces(engine());
    assert.ok(p.length >= 3 && p.every((c) => c.split?.total === p.length), `pieces: ${p.map((c) => `${c.start.line}-${c.end.line} ${JSON.stringify(c.split)}`).join(', ')}`);
  });

  it('a query in words about a later piece shows the function from its first piece, and the unit takes one place', async () => {
    const e = engine();
    const hits = await e.search('retry the upload after a backoff wait', { mode: 'keyword' });
    const mine = hits.filter((h) => h.chunk.symbol === 'uploadFile');
    assert.equal(mine.length, 1, `one result for the function: ${hits.map((h) => `${h.chunk.symbol} ${h.chunk.start.line}`).join(', ')}`);
    assert.equal(mine[0].chunk.split?.index, 0, 'shown by its first piece (its doc comment and declaration)');
    assert.ok(mine[0].chunk.text.includes('export function uploadFile'));
    assert.ok((mine[0].moreInFile ?? []).some((c) => c.symbol === 'uploadFile' && (c.split?.index ?? 0) > 0), 'the pieces that ranked are kept as more in this file');
    const ranked = mine[0].moreInFile![0];
    assert.deepEqual(mine[0].why.rankedBy, { startLine: ranked.start.line, endLine: ranked.end.line }, 'why it ranked names the piece that ranked');
  });

  it('a query found as written in a later piece shows that piece', async () => {
    const e = engine();
    const hits = await e.search('the upload gave up after every retry', { mode: 'keyword' });
    assert.equal(hits[0].chunk.symbol, 'uploadFile');
    assert.ok(hits[0].chunk.text.includes('gave up after every retry'), `the piece that holds it: lines ${hits[0].chunk.start.line}-${hits[0].chunk.end.line}`);
    assert.equal(hits.filter((h) => h.chunk.symbol === 'uploadFile').length, 1);
  });

  it('a name used only inside a later piece shows that piece (its first piece did not match)', async () => {
    const e = engine();
    const hits = await e.search('backoffRetryWait', { mode: 'keyword' });
    assert.equal(hits[0].chunk.symbol, 'uploadFile');
    assert.ok(hits[0].chunk.text.includes('backoffRetryWait'));
    assert.notEqual(hits[0].chunk.split?.index, 0);
    assert.equal(hits[0].why.rankedBy, undefined, 'shown by the piece that ranked: nothing to name');
  });

  it('shownPiece: the first piece wherever the file lists it; by keyword share for a name; the ranked piece for a phrase or prose', () => {
    const piece = (index: number, kind: 'function' | 'section' = 'function') => ({ path: 'a.py', kind, symbol: 'f', split: { index, total: 3 } });
    const heads = new Map<number, ReturnType<typeof piece>>([[10, piece(2)], [11, piece(0)], [12, piece(1)], [20, piece(1, 'section')], [21, piece(0, 'section')]]);
    const head = (id: number) => heads.get(id);
    const files = () => [10, 11, 12, 20, 21]; // not in piece order: the guess misses, the file is read through
    const q = (over: object) => ({ describes: false, phrase: false, ranked: () => false, ...over });
    assert.equal(shownPiece(12, q({ describes: true }), head, files), 11);
    assert.equal(shownPiece(12, q({ describes: true, phrase: false }), head, () => [11, 12, 10]), 11, 'consecutive: found index places back');
    assert.equal(shownPiece(20, q({ describes: true }), head, files), 20, 'a section keeps the piece that ranked');
    const kw = (first: number) => new Map([[12, 10], [11, first]]);
    assert.equal(shownPiece(12, q({ keyword: kw(10 * FIRST_PIECE_SHARE) }), head, files), 11);
    assert.equal(shownPiece(12, q({ keyword: kw(10 * FIRST_PIECE_SHARE - 0.1) }), head, files), 12);
    assert.equal(shownPiece(12, q({ phrase: true, keyword: kw(10) }), head, files), 12);
    assert.equal(shownPiece(12, q({ ranked: (id: number) => id === 11 }), head, files), 11, 'no keyword score: the first piece when it ranked');
  });

  it('diversify: the best ranked piece stands for its unit; the per-file cap counts units', () => {
    const r = (docId: number, path: string, unit?: string): Ranked => ({ docId, path, locale: false, unit });
    const out = diversify([r(1, 'a.py', 'u'), r(2, 'a.py'), r(3, 'a.py', 'u'), r(4, 'a.py'), r(5, 'a.py', 'u'), r(6, 'a.py')]);
    assert.deepEqual(out.map((d) => d.docId), [1, 2, 4]);
    assert.deepEqual(out[0].moreInFile, [3, 5, 6]);
  });
});
