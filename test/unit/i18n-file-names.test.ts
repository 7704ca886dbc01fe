/**
 * Which names are locale files, decided in one place: each format of src/i18n/formats declares
 * its extensions, and `isLocaleFileName` (built from them) is what the session (does a change
 * touch locale data?) and the editor's diagnostics (is a file worth asking about?) both use.
 * Before, each had a hand-written extension regex, and the two disagreed.
 */
import * as assert from 'node:assert/strict';
import { extensionTest } from '../../src/i18n/formats/common';
import { FORMATS, formatOf, isLocaleFileName, JSON_FILE, LOCALE_EXTENSION } from '../../src/i18n/formats/index';
import { FolderSession } from '../../src/service/session';
import { wantsDiagnostics } from '../../src/editor/i18n-diagnostics';
import { MemoryFileSource } from '../../src/workspace/source';

/** A file of each format, as `formatOf` should give it to that format. */
const SAMPLE: Record<string, string> = {
  'WebExtension messages.json': '_locales/fr/messages.json',
  YAML: 'config/locales/fr.yml',
  'gettext PO': 'locale/de/LC_MESSAGES/django.po',
  '.properties': 'src/main/resources/messages_fr.properties',
  XLIFF: 'src/locale/messages.fr.xlf',
  Fluent: 'l10n/en-US/main.ftl',
  'PHP array': 'lang/en/messages.php',
  'Flutter ARB': 'lib/l10n/app_en.arb',
  'Android string resources': 'app/src/main/res/values-fr/strings.xml',
  'Apple .strings': 'en.lproj/Localizable.strings',
  'Xcode String Catalog': 'Resources/Localizable.xcstrings',
  '.NET resources': 'Resources/Strings.fr.resx',
  'Qt Linguist': 'translations/myapp_de.ts',
  TOML: 'locales/en.toml',
  unsupported: 'en.lproj/Localizable.stringsdict',
};

/**
 * Names, and whether each is a locale file by its name. The columns on the right are what the two
 * hand-written regexes picked before (S: the session's, D: the diagnostics' without a usage in the
 * text); `*` marks a name on which they disagreed or missed a locale file, and what is right now.
 */
const NAMES: Array<[name: string, locale: boolean, before: string]> = [
  ['locales/en.json', true, 'S D'],
  ['package.json', true, 'S D'], // any JSON, as both had it (package.json sets the apps)
  ['tsconfig.json', true, 'S D'],
  ['settings/en.jsonc', true, '- D *'], // a JSONC locale file, read by locales.ts: the session missed its deletion
  ['locales/en.json5', true, 'S D'],
  ['_locales/fr/messages.json', true, 'S D'],
  ['config/locales/fr.yml', true, 'S D'],
  ['.github/workflows/ci.yaml', true, 'S D'], // any YAML, as both had it
  ['locale/de/LC_MESSAGES/django.po', true, 'S D'],
  ['locale/django.pot', true, '- D *'], // a PO template, read by the PO format: the session missed it
  ['locale/de/LC_MESSAGES/django.mo', false, '- -'], // unsupported: no messages, only a problem
  ['src/main/resources/messages_fr.properties', true, 'S D'],
  ['l10n/en-US/main.ftl', true, 'S D'],
  ['lib/l10n/app_en.arb', true, 'S D'],
  ['src/locale/messages.fr.xlf', true, 'S D'],
  ['i18n/de.xliff', true, 'S D'],
  ['app/src/main/res/values/strings.xml', true, 'S - *'], // Android strings: the editor asked only when the text looked like code using keys
  ['app/src/main/res/values-fr/strings.xml', true, 'S - *'],
  ['app/src/main/res/layout/main.xml', false, 'S - *'], // a layout names keys (code, asked when it does); no locale data: the session refreshed every chunk for it
  ['pom.xml', false, 'S - *'], // same: no locale file
  ['en.lproj/Localizable.strings', true, 'S D'],
  ['Resources/Localizable.xcstrings', true, 'S D'],
  ['en.lproj/Localizable.stringsdict', false, '- -'], // unsupported
  ['config/fr.ini', false, '- -'], // unsupported
  ['Resources/Strings.fr.resx', true, 'S D'],
  ['Strings/en-US/Resources.resw', true, 'S D'],
  ['locales/en.toml', true, 'S D'],
  ['Cargo.toml', true, 'S D'], // any TOML, as both had it
  ['lang/en/messages.php', true, '- - *'], // a Laravel locale array: neither picked it
  ['app/Http/Controllers/HomeController.php', false, '- -'],
  ['resources/views/home.blade.php', false, '- -'],
  ['translations/myapp_de.ts', true, '- - *'], // Qt Linguist: neither picked it
  ['src/app.ts', false, '- -'],
  ['src/App.vue', false, '- -'],
  ['README.md', false, '- -'],
];

/** The two hand-written regexes this replaces (service/session.ts, ui/i18n-diagnostics.ts), kept to check the `before` column. */
const OLD_SESSION = /\.(?:json5?|ya?ml|po|properties|ftl|arb|xlf|xliff|xml|strings|xcstrings|resx|resw|toml)$/i;
const OLD_EDITOR = /\.(?:json5?|jsonc|ya?ml|pot?|properties|xlf|xliff|ftl|arb|strings|xcstrings|resx|resw|toml)$/i;

describe('i18n file names: one list of locale-file patterns, built from the formats', function () {
  it('the names whose pick changed are the marked ones: where the two old regexes disagreed or missed a locale file', () => {
    const wrong = NAMES.flatMap(([n, want, before]) => {
      const s = OLD_SESSION.test(n);
      const d = OLD_EDITOR.test(n);
      const out: string[] = [];
      if (`${s ? 'S' : '-'} ${d ? 'D' : '-'}` !== before.slice(0, 3)) out.push(`${n}: before was ${s ? 'S' : '-'} ${d ? 'D' : '-'}`);
      if (before.endsWith('*') !== (s !== d || want !== s)) out.push(`${n}: ${before.endsWith('*') ? 'marked but unchanged' : 'changed but not marked'}`);
      return out;
    });
    assert.deepEqual(wrong, []);
  });


  it('each format declares the extensions of its files, and claims a sample of them', () => {
    assert.deepEqual(
      FORMATS.map((f) => f.name).filter((n) => !SAMPLE[n]),
      [],
      'a format with no sample name here',
    );
    for (const f of FORMATS) {
      const name = SAMPLE[f.name];
      assert.ok(f.extensions.length > 0 && f.extensions.every((e) => /^[a-z0-9]+$/.test(e)), `${f.name}: ${f.extensions.join(', ')}`);
      assert.ok(extensionTest(f.extensions).test(name), `${f.name} declares the extension of ${name}`);
      assert.equal(formatOf(name)?.name, f.name, name);
      // what the format claims ends in an extension it declares
      for (const [n] of NAMES) if (f.claims(n, {})) assert.ok(extensionTest(f.extensions).test(n), `${f.name} claims ${n}`);
    }
  });

  it('the extension test is of whole extensions, any case', () => {
    const t = extensionTest(['po', 'pot']);
    assert.ok(t.test('a/B.PO') && t.test('x.pot') && !t.test('x.potx') && !t.test('xpo') && !t.test('x.po.bak'));
    assert.equal(t.exec('x.POT')?.[1], 'POT');
    assert.ok(JSON_FILE.test('a.json') && JSON_FILE.test('a.JSONC') && JSON_FILE.test('a.json5') && !JSON_FILE.test('a.json6'));
    // the extension alone picks no name that code shares
    assert.ok(!LOCALE_EXTENSION.test('a.ts') && !LOCALE_EXTENSION.test('a.php') && !LOCALE_EXTENSION.test('a.xml'));
  });

  it('a name is a locale file for the session and for the editor alike', () => {
    const wrong = NAMES.filter(([n, want]) => isLocaleFileName(n) !== want || wantsDiagnostics(n, '') !== want).map(([n, want]) => `${n}: want ${want}, session ${isLocaleFileName(n)}, editor ${wantsDiagnostics(n, '')}`);
    assert.deepEqual(wrong, []);
    // every sample of a format that reads messages is a locale file; an unsupported one is not
    for (const f of FORMATS) assert.equal(isLocaleFileName(SAMPLE[f.name]), f.name !== 'unsupported', SAMPLE[f.name]);
  });

  it('the editor asks about an Android strings file that names no key', () => {
    const text = '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n  <string name="hello">Hello</string>\n</resources>\n';
    assert.ok(wantsDiagnostics('app/src/main/res/values/strings.xml', text), 'its unused entries are diagnostics');
    assert.ok(wantsDiagnostics('C:\\work\\app\\src\\main\\res\\values\\strings.xml', text), 'a Windows path');
    assert.ok(!wantsDiagnostics('pom.xml', '<project><modelVersion>4.0.0</modelVersion></project>'));
  });

  it('with locale globs, a name code shares is a locale file when the globs match it', () => {
    const globs = (rel: string) => rel.startsWith('i18n/');
    assert.ok(isLocaleFileName('i18n/fr.xml', globs) && !isLocaleFileName('i18n/fr.xml'));
    assert.ok(!isLocaleFileName('app/src/main/res/values/strings.xml', globs), 'the globs replace discovery');
  });

  describe('the session: deleting a locale file takes its text out of the chunks that used its keys', function () {
    const drain = async <T>(gen: AsyncGenerator<T>): Promise<void> => {
      for await (const _ of gen) void _;
    };
    const CASES: Array<[file: string, text: string, key: string]> = [
      ['lang/en/messages.php', "<?php\nreturn ['go' => 'Launch the rocket'];\n", 'messages.go'],
      ['locales/en.jsonc', '{\n  // the launch screen\n  "space": { "go": "Launch the rocket" }\n}\n', 'space.go'],
      ['locales/en.yml', 'en:\n  space:\n    go: Launch the rocket\n', 'space.go'],
      // a locale module: no name pattern says so, the index knew it before the deletion
      ['src/locales/en.js', "export default { space: { go: 'Launch the rocket' } };\n", 'space.go'],
    ];
    for (const [file, text, key] of CASES) {
      it(file, async () => {
        const src = new MemoryFileSource({ 'package.json': '{"name":"app"}', [file]: text, 'src/launch.js': `export function onPress() { return i18n.t('${key}') }\n` });
        const s = await FolderSession.open('/memory', { source: src });
        try {
          await drain(s.index({ embed: false }));
          assert.ok((await s.search('rocket')).some((h) => h.chunk.path === 'src/launch.js'), 'found by the text of its key');
          src.delete(file);
          s.apply([{ rel: file, deleted: true }]);
          await new Promise((r) => setImmediate(r));
          const hits = (await s.search('rocket')).map((h) => h.chunk.path);
          assert.deepEqual(hits, [], 'the deleted text is gone from src/launch.js');
        } finally {
          await s.close();
        }
      });
    }
  });
});
