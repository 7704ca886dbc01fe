/**
 * Locale formats beyond JSON/JS (test/fixtures/i18n-formats/, one small workspace per format):
 * for each, a value in any locale finds its key, the key has its value in every locale, every
 * range is the exact text in the file (lines and columns agreeing with offsets), and what cannot
 * be read is reported as a problem.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { I18nIndex, type Candidate, type TextRange } from '../../src/i18n/i18n-index';
import { canonicalLocale, identifyLocale, isLocaleCode } from '../../src/i18n/locales';
import { parseProperties } from '../../src/i18n/formats/properties';
import { poFormat } from '../../src/i18n/formats/po';
import { loadI18nIndex } from '../../src/i18n/workspace';

const FIX = path.join(__dirname, '..', 'fixtures', 'i18n-formats');
const cache = new Map<string, I18nIndex>();
const load = (ws: string) => {
  let ix = cache.get(ws);
  if (!ix) cache.set(ws, (ix = loadI18nIndex(path.join(FIX, ws)).index));
  return ix;
};
const byLocale = (c: Candidate) => Object.fromEntries(c.locales.map((l) => [l.locale, l.value]));

/** The file text at a range; asserts the range's line/column agree with its offset. */
function textAt(ws: string, file: string, r: TextRange): string {
  const text = fs.readFileSync(path.join(FIX, ws, file), 'utf8');
  const before = text.slice(0, r.start.offset).split(/\r\n|\n|\r/);
  assert.equal(r.start.line, before.length, `${file}: line of offset ${r.start.offset}`);
  assert.equal(r.start.column, before[before.length - 1].length, `${file}: column of offset ${r.start.offset}`);
  return text.slice(r.start.offset, r.end.offset);
}

/** Looks `value` up: exactly one exact candidate, `key`, with these values; returns it. */
function finds(ws: string, value: string, key: string, values: Record<string, string>): Candidate {
  const { candidates } = load(ws).lookupLexical(value);
  const c = candidates.find((x) => x.match === 'exact');
  assert.ok(c, `${ws}: "${value}" has an exact match (got ${candidates.map((x) => `${x.key}/${x.match}`).join(', ')})`);
  assert.equal(c.key, key);
  assert.deepEqual(byLocale(c), values);
  return c;
}

const problems = (ws: string) => load(ws).problems.map((p) => `${p.kind} ${p.file}:${p.line ?? '-'}`).sort();

describe('i18n formats: locale codes (BCP-47)', () => {
  it('accepts scripts, regions, UN M.49 regions and registered variants; refuses look-alikes', () => {
    for (const ok of ['en', 'pt_BR', 'sr-Latn', 'zh-Hant-TW', 'es-419', 'ca-valencia', 'de-CH-1996', 'en-us']) assert.ok(isLocaleCode(ok), ok);
    for (const no of ['es-module', 'common', 'en-xx-yy-zz', 'index', 'app']) assert.ok(!isLocaleCode(no), no);
    assert.equal(canonicalLocale('zh_hant_tw'), 'zh-Hant-TW');
    assert.equal(canonicalLocale('CA-VALENCIA'), 'ca-valencia');
    assert.equal(canonicalLocale('es-419'), 'es-419');
    // the longest code wins in a prefixed name: zh-Hant-TW, not Twi (`tw`)
    assert.deepEqual(identifyLocale('i18n/app_zh_Hant_TW.json'), { locale: 'zh-Hant-TW', from: 'name' });
  });

  it('tells the locale from a path in every usual spelling (prefix_ll_CC, ll-CC, ll_Script_CC, folders, gettext modifiers)', () => {
    const cases: Record<string, [string, string?] | undefined> = {
      'core_pt_BR.json': ['pt-BR'],
      'locales/core_pt_BR.json': ['pt-BR'],
      'i18n/messages.pt-BR.json': ['pt-BR'],
      'pt-BR.json': ['pt-BR'],
      'pt_br.json': ['pt-BR'],
      'zh_Hans_CN.json': ['zh-Hans-CN'],
      'app_sr_Latn_RS.json': ['sr-Latn-RS'],
      'az-Cyrl-AZ.json': ['az-Cyrl-AZ'],
      'locales/pt-BR/common.json': ['pt-BR', 'common'],
      'locales/pt_BR/admin/users.json': ['pt-BR', 'admin/users'],
      'public/locales/zh-Hant-TW/app.json': ['zh-Hant-TW', 'app'],
      'sr@latin.json': ['sr-Latn'],
      'ca@valencia.json': ['ca-valencia'],
      'pt-BR.messages.json': ['pt-BR'],
      'en_US_core.json': ['en-US'],
      // code then a word, a lone language: only inside an i18n folder
      'locales/en_core.json': ['en'],
      // four letters after a language are a script only when they are one (not en-Core, fr-Main)
      'en_core.json': undefined,
      'fr_main.json': undefined,
      'es-module.json': undefined,
      'my_test.json': undefined,
      'id_rsa.json': undefined,
      'common.json': undefined,
    };
    for (const [file, want] of Object.entries(cases)) {
      const got = identifyLocale(file);
      assert.deepEqual(got && [got.locale, got.namespace].filter((x) => x !== undefined), want && want.filter((x) => x !== undefined), file);
    }
    for (const no of ['en-core', 'fr_Main', 'de-user']) assert.ok(!isLocaleCode(no), no);
    assert.equal(canonicalLocale('sr@latin'), 'sr-Latn');
    assert.equal(canonicalLocale('sr_RS@latin'), 'sr-Latn-RS');
    assert.equal(canonicalLocale('uz_cyrl'), 'uz-Cyrl');
  });

  it('reads ca-valencia.json, sr-Latn.json, zh-Hant-TW.json, es-419.json as locales', () => {
    const [c] = load('bcp47').lookupKey('greeting').candidates;
    assert.deepEqual(byLocale(c), { 'ca-valencia': 'Bon dia', en: 'Hello', 'es-419': 'Hola', 'sr-Latn': 'Zdravo', 'zh-Hant-TW': '你好' });
    for (const l of c.locales) assert.equal(textAt('bcp47', l.file, l.range), l.value);
    finds('bcp47', 'Bon dia', 'greeting', byLocale(c));
  });
});

describe('i18n formats: YAML', () => {
  it('vue-i18n YAML files: plain, double- and single-quoted and block scalars, each range exact', () => {
    const c = finds('vue-yaml', 'Planificateur d\'événements', 'app.title', { en: 'Event planner', fr: "Planificateur d'événements" });
    assert.deepEqual(c.locales.map((l) => textAt('vue-yaml', l.file, l.range)), ['Event planner', "Planificateur d'événements"]);
    const g = finds('vue-yaml', 'Hello, {name}!', 'app.greeting', { en: 'Hello, {name}!', fr: 'Bonjour, {name} !' });
    assert.equal(textAt('vue-yaml', g.locales[0].file, g.locales[0].range), 'Hello, {name}!');
    assert.equal(textAt('vue-yaml', g.locales[0].file, g.locales[0].keyRange), 'greeting');
    // 'It''s here': the value unescaped, the range inside the quotes
    const n = finds('vue-yaml', "It's here", 'app.notice', { en: "It's here", fr: "C'est ici" });
    assert.equal(textAt('vue-yaml', n.locales[0].file, n.locales[0].range), "It''s here");
    const [h] = load('vue-yaml').lookupKey('app.help').candidates;
    assert.equal(textAt('vue-yaml', h.locales[0].file, h.locales[0].range), 'Read the guide\n    before you start');
    assert.equal(h.locales[0].range.start.line, 7);
  });

  it('SFC <i18n lang="yaml">: top-level locales, component-local, with its usage', () => {
    const c = finds('vue-yaml', 'Au revoir', 'local.bye', { en: 'Goodbye', fr: 'Au revoir' });
    assert.equal(c.component, 'src/components/Hello.vue');
    assert.deepEqual(c.locales.map((l) => `${l.range.start.line}:${textAt('vue-yaml', l.file, l.range)}`), ['14:Goodbye', '17:Au revoir']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/components/Hello.vue:3']);
    assert.deepEqual(problems('vue-yaml'), []);
  });

  it('Rails: the root key is the locale (config/locales/en.yml → users.index.title), Jekyll _i18n/', () => {
    const c = finds('rails', 'Tous les utilisateurs', 'users.index.title', { en: 'All users', fr: 'Tous les utilisateurs' });
    assert.deepEqual(c.locales.map((l) => `${l.file}:${l.range.start.line}:${textAt('rails', l.file, l.range)}`), ['config/locales/en.yml:4:All users', 'config/locales/fr.yml:4:Tous les utilisateurs']);
    assert.equal(load('rails').lookupKey('en.users.index.title').candidates.length, 0);
    finds('jekyll', 'À propos', 'nav.about', { en: 'About us', fr: 'À propos' });
  });

  it('a YAML locale file that does not parse is reported with its line, never silently absent', () => {
    assert.deepEqual(problems('unreadable'), ['malformed locales/en.yaml:3', 'unsupported locales/fr.ini:-']);
    const p = load('unreadable').problems.find((x) => x.file === 'locales/en.yaml')!;
    assert.match(p.message, /^YAML does not parse \(.+\): not read$/);
    // the readable neighbour still answers
    finds('unreadable', 'ok', 'title', { de: 'ok' });
  });
});

describe('i18n formats: JSON5, gettext, .properties', () => {
  it('JSON5: unquoted keys, single quotes, comments, trailing commas; numbers are no messages', () => {
    const c = finds('json5', 'Datei öffnen', 'menu.open', { de: 'Datei öffnen', en: 'Open file' });
    for (const l of c.locales) assert.equal(textAt('json5', l.file, l.range), l.value);
    assert.equal(textAt('json5', c.locales[1].file, c.locales[1].keyRange), 'open');
    assert.equal(load('json5').lookupKey('count').candidates.length, 0);
  });

  it('PO: the key is the msgid, msgctxt and plural forms kept, multi-line strings joined; the compiled messages.js is no locale', () => {
    const ix = load('lingui');
    const c = finds('lingui', 'Bon retour', 'Welcome back', { en: 'Welcome back', fr: 'Bon retour' });
    assert.deepEqual(c.locales.map((l) => `${l.file}:${l.range.start.line}:${textAt('lingui', l.file, l.range)}`), ['src/locales/en/messages.po:8:Welcome back', 'src/locales/fr/messages.po:6:Bon retour']);
    finds('lingui', 'Ouvrir', 'button|Open', { en: 'Open', fr: 'Ouvrir' });
    finds('lingui', 'Un fichier', 'One file', { en: 'One file', fr: 'Un fichier' });
    finds('lingui', '{count} fichiers', 'One file_1', { en: '{count} files', fr: '{count} fichiers' });
    finds('lingui', 'First part, second part', 'Long text', { en: 'First part, second part' });
    // untranslated (empty msgstr) has no value; a broken line skips its entry only
    assert.equal(ix.lookupKey('Untranslated').candidates.length, 0);
    finds('lingui', 'Après la coupure', 'After the break', { fr: 'Après la coupure' });
    assert.deepEqual(problems('lingui'), ['malformed src/locales/fr/messages.po:20']);
    // Lingui usages: t`…` and <Trans>…</Trans> name the msgid
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}:${u.via}:${textAt('lingui', u.file, u.range)}`), ['src/App.tsx:4:t`:Welcome back', 'src/App.tsx:5:<Trans>:Welcome back']);
    // messages.js next to messages.po: not a second English
    assert.equal(ix.lookupKey('messages.Welcome back').candidates.length, 0);
  });

  it('PO: C escapes in msgid and msgstr (quotes, newlines, tabs, backslashes), across continuation lines', () => {
    const po = ['msgid ""', 'msgstr "Language: de\\n"', '', 'msgid "Say \\"hi\\"\\tnow"', 'msgstr ""', '"Sag \\"hallo\\"\\t"', '"jetzt\\\\\\n"', '', 'msgid "plain words that are long enough to be sliced"', 'msgstr "schlichte Worte, lang genug, um geschnitten zu werden"', ''].join('\n');
    const lf = poFormat.read('po/de.po', po, {});
    assert.deepEqual(lf?.entries.map((e) => [e.locale, e.path, e.value]), [
      ['de', 'Say "hi"\tnow', 'Sag "hallo"\tjetzt\\\n'],
      ['de', 'plain words that are long enough to be sliced', 'schlichte Worte, lang genug, um geschnitten zu werden'],
    ]);
    assert.deepEqual(lf?.problems, []);
  });

  it('.properties: separators, escapes, \\u, continuation lines; the default bundle is locale und', () => {
    const c = finds('ui5', 'Bestand', 'appTitle', { de: 'Bestand', en: 'Inventory', und: 'Inventory' });
    assert.deepEqual(c.locales.map((l) => textAt('ui5', l.file, l.range)), ['Bestand', 'Inventory', 'Inventory']);
    finds('ui5', 'Grüße\tand\\more', 'escaped', { de: 'Grüße\tand\\more' });
    const [long] = load('ui5').lookupKey('long').candidates;
    assert.equal(long.locales[0].value, 'First line second line');
    assert.equal(textAt('ui5', long.locales[0].file, long.locales[0].range), 'First line \\\n     second line');
    assert.deepEqual(problems('ui5'), ['malformed webapp/i18n/i18n_de.properties:5']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}:${textAt('ui5', u.file, u.range)}`), ['webapp/view/Main.view.xml:2:appTitle']);
    // what the parser makes of `key value` and `key:value` with no blanks
    assert.deepEqual(parseProperties('x', 'a b\nc:d\n  e = f \\\n').leaves.map((l) => [l.path, l.value]), [['a', 'b'], ['c', 'd'], ['e', 'f ']]);
  });
});

describe('i18n formats: XLIFF, Fluent, PHP, ARB, WebExtension', () => {
  it('XLIFF 1.2 and 2.0: the unit id is the key, source and target locales from the file, inline <x> shown as its equiv-text', () => {
    const c = finds('angular', 'Gira de héroes', 'heroTitle', { 'en-US': 'Tour of Heroes', es: 'Gira de héroes', fr: 'Tour des héros' });
    // the source comes from messages.xlf alone, not repeated by each translation
    assert.deepEqual(c.locales.map((l) => `${l.file}:${l.range.start.line}:${textAt('angular', l.file, l.range)}`), [
      'src/locale/messages.xlf:6:Tour of Heroes',
      'src/locale/messages.es.xlf:7:Gira de héroes',
      'src/locale/messages.fr.xlf:7:Tour des héros',
    ]);
    assert.equal(textAt('angular', c.locales[1].file, c.locales[1].keyRange), 'heroTitle');
    finds('angular', 'Encontrados {{ count }} héroes', 'heroCount', { 'en-US': 'Found {{ count }} heroes', es: 'Encontrados {{ count }} héroes' });
    assert.deepEqual(problems('angular'), ['malformed src/locale/messages.es.xlf:13']);
  });

  it('XLIFF with an element never closed: reported with its line and column, the file not read (not partly, silently)', () => {
    const ok = '<?xml version="1.0"?>\n<xliff version="1.2">\n  <file source-language="en" target-language="de">\n    <body>\n      <trans-unit id="a">\n        <source>Save</source>\n        <target>Speichern</target>\n      </trans-unit>\n';
    const ix = new I18nIndex();
    ix.setFile('locale/messages.de.xlf', `${ok}      <trans-unit id="b">\n        <source>Open</source>\n        <target>Öffnen\n      </trans-unit>\n    </body>\n  </file>\n</xliff>\n`);
    ix.setFile('locale/messages.fr.xlf', ok.replace('target-language="de"', 'target-language="fr"').replace('Speichern', 'Enregistrer') + '    </body>\n  </file>\n</xliff>\n');
    assert.deepEqual(ix.problems.map((p) => `${p.kind} ${p.file}:${p.line} ${p.message}`), ['malformed locale/messages.de.xlf:11 XLIFF is not well-formed: <target> at line 11, column 9 is never closed: not read']);
    assert.deepEqual(ix.localeFiles, ['locale/messages.fr.xlf']);
    assert.deepEqual(byLocale(ix.lookupKey('a').candidates[0]), { en: 'Save', fr: 'Enregistrer' });
  });

  it('Fluent: ids, attributes, terms, select variants (each variant finds its message), junk reported', () => {
    const c = finds('fluent', 'Bonjour, {$userName} !', 'hello-user', { 'en-US': 'Hello, {$userName}!', fr: 'Bonjour, {$userName} !' });
    assert.deepEqual(c.locales.map((l) => textAt('fluent', l.file, l.range)), ['Hello, {$userName}!', 'Bonjour, {$userName} !']);
    finds('fluent', 'Salutation', 'hello-user.title', { 'en-US': 'Greeting', fr: 'Salutation' });
    finds('fluent', 'Firefox', '-brand-name', { 'en-US': 'Firefox' });
    const [p] = load('fluent').lookupLexical('added a new photo').candidates;
    assert.equal(p.key, 'shared-photos');
    assert.equal(p.match, 'exact');
    assert.deepEqual(problems('fluent'), ['malformed locales/fr/main.ftl:4']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}:${u.via}:${textAt('fluent', u.file, u.range)}`), ['src/app.jsx:5:<Localized id>:hello-user']);
  });

  it('Laravel PHP arrays: lang/<locale>/<file>.php → file.key, nested arrays, parse errors reported', () => {
    const c = finds('laravel', 'Bienvenue, :name', 'messages.welcome', { en: 'Welcome, :name', fr: 'Bienvenue, :name' });
    assert.deepEqual(c.locales.map((l) => `${l.range.start.line}:${textAt('laravel', l.file, l.range)}:${textAt('laravel', l.file, l.keyRange)}`), ['4:Welcome, :name:welcome', '4:Bienvenue, :name:welcome']);
    const d = finds('laravel', 'Deep "value"', 'messages.nested.deep', { en: 'Deep "value"', fr: 'Valeur profonde' });
    assert.equal(textAt('laravel', d.locales[0].file, d.locales[0].range), 'Deep \\"value\\"');
    assert.deepEqual(problems('laravel'), ['malformed resources/lang/fr/broken.php:6']);
    assert.equal(load('laravel').lookupKey('messages.computed').candidates.length, 0);
  });

  it('Flutter ARB: @key metadata and @@locale are no messages; the locale from @@locale or the name', () => {
    const c = finds('flutter', '¡Hola Mundo!', 'helloWorld', { en: 'Hello World!', es: '¡Hola Mundo!' });
    assert.deepEqual(c.locales.map((l) => textAt('flutter', l.file, l.range)), ['Hello World!', '¡Hola Mundo!']);
    assert.equal(load('flutter').lookupKey('@helloWorld').candidates.length, 0);
    assert.equal(load('flutter').lookupLexical('The conventional greeting').candidates.filter((x) => x.match === 'exact').length, 0);
  });

  it('WebExtension _locales/<locale>/messages.json: key = message name, value = its message', () => {
    const c = finds('chrome', 'Salvar todas as abas', 'saveTabs', { en: 'Save all tabs', 'pt-BR': 'Salvar todas as abas' });
    assert.deepEqual(c.locales.map((l) => textAt('chrome', l.file, l.keyRange)), ['saveTabs', 'saveTabs']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}:${u.via}`), ['src/popup.js:2:browser.i18n.getMessage']);
    assert.equal(load('chrome').lookupKey('messages:extName.message').candidates.length, 0);
    assert.deepEqual(problems('chrome'), ['malformed _locales/en/messages.json:9']);
  });
});
