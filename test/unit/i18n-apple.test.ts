/**
 * Apple localization (src/i18n/formats/apple.ts, src/i18n/frameworks/apple.ts): `.strings`
 * tables in `<lang>.lproj` folders and Xcode String Catalogs read with exact ranges, and the
 * keys Swift / Objective-C name (Foundation's functions, SwiftUI's views); the text a user sees
 * finds its key in every locale and the code that shows it.
 */
import { strict as assert } from 'node:assert';
import { appleStringsFormat, xcstringsFormat } from '../../src/i18n/formats/apple';
import { formatOf, readLocaleFormat } from '../../src/i18n/formats/index';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based); `ns:key` when namespaced, `…` after a dynamic key. */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.namespace ? `${u.namespace}:` : ''}${u.key}${u.dynamic ? '…' : ''}=${text.slice(u.range.start.offset, u.range.end.offset)}`);
}

/** `locale key=value [key text|value text]` of each entry of a file, and its problems as `kind:line`. */
function read(rel: string, text: string): { entries: string[]; problems: string[] } {
  const lf = readLocaleFormat(rel, text);
  assert.ok(lf, `${rel} is read`);
  return {
    entries: lf.entries.map((e) => `${e.locale}${e.namespace ? ` ${e.namespace}:` : ' '}${e.path}=${e.value} [${text.slice(e.ks, e.ke)}|${text.slice(e.vs, e.ve)}]${e.also ? ` also ${e.also.join(' / ')}` : ''}`),
    problems: lf.problems.map((p) => `${p.kind}:${p.line ?? '-'}`),
  };
}

const catalog = JSON.stringify(
  {
    sourceLanguage: 'en',
    strings: {
      'Hello, world!': { localizations: { fr: { stringUnit: { state: 'translated', value: 'Bonjour, le monde !' } } } },
      items_count: {
        localizations: {
          en: { variations: { plural: { one: { stringUnit: { state: 'translated', value: '%lld item' } }, other: { stringUnit: { state: 'translated', value: '%lld items' } } } } },
          'pt-BR': { stringUnit: { state: 'translated', value: '%lld itens' } },
        },
      },
      '•': { shouldTranslate: false },
    },
    version: '1.0',
  },
  null,
  2,
);

describe('i18n: Apple .strings, String Catalogs, Swift and Objective-C', function () {
  it('.strings: the .lproj folder is the locale (Base: und), the table the namespace (Localizable: none); stringsdict stays unsupported', function () {
    assert.equal(formatOf('App/en.lproj/Localizable.strings'), appleStringsFormat);
    assert.equal(formatOf('App/Base.lproj/Main.strings'), appleStringsFormat);
    assert.equal(formatOf('App/notes/Readme.strings'), undefined, 'no .lproj folder: no locale file');
    assert.equal(formatOf('App/en.lproj/Localizable.stringsdict')?.name, 'unsupported');
    const globbed = { matchesGlobs: (rel: string) => rel.startsWith('Resources/') };
    assert.equal(formatOf('Resources/Translations.strings', globbed), appleStringsFormat, 'with globs: what they match');
    assert.deepEqual(readLocaleFormat('Resources/fr.strings', '"ok" = "D\'accord";', globbed)?.entries.map((e) => `${e.locale} ${e.path}=${e.value}`), ["fr ok=D'accord"], 'no .lproj: the locale the path names');
    assert.equal(formatOf('App/en.lproj/Localizable.strings', { matchesGlobs: () => false }), undefined, 'with globs: only what they match');
    assert.equal(formatOf('App/Localizable.xcstrings'), xcstringsFormat);
    assert.deepEqual(read('App/zh-Hans.lproj/Localizable.strings', '"ok" = "好";').entries, ['zh-Hans ok=好 [ok|好]']);
    assert.deepEqual(read('App/pt_BR.lproj/Settings.strings', '"ok" = "OK";').entries, ['pt-BR Settings:ok=OK [ok|OK]']);
    assert.deepEqual(read('App/Base.lproj/Main.strings', '"abc-12.text" = "Sign in";').entries, ['und Main:abc-12.text=Sign in [abc-12.text|Sign in]']);
    assert.deepEqual(read('App/English.lproj/Localizable.strings', 'ok = OK;').entries, ['en ok=OK [ok|OK]']);
  });

  it('.strings: comments, escapes (\\U00e9, \\", \\n), unquoted keys and values, a key alone, exact ranges; a key defined twice is said', function () {
    const text = [
      '/* The greeting',
      '   on the first screen */',
      '"welcome_title" = "Bienvenue, \\"invité\\"";',
      '// a line comment: "not" = "a key";',
      'cafe_label   =   "Caf\\U00e9\\nou th\\u00e9";',
      'app.version = 1.0;',
      '"ok";',
      '"welcome_title" = "Salut";',
    ].join('\n');
    const { entries, problems } = read('App/fr.lproj/Localizable.strings', text);
    assert.deepEqual(entries, [
      'fr welcome_title=Salut [welcome_title|Salut]',
      'fr cafe_label=Café\nou thé [cafe_label|Caf\\U00e9\\nou th\\u00e9]',
      'fr app.version=1.0 [app.version|1.0]',
      'fr ok=ok [ok|ok]',
    ]);
    assert.deepEqual(problems, ['duplicate:8']);
  });

  it('.strings: a file that does not parse is one malformed problem at its line (missing ;, XML property list, unclosed string); the other tables are still read', function () {
    assert.deepEqual(read('App/fr.lproj/Localizable.strings', '"a" = "b";\n"c" = "d"\n"e" = "f";').problems, ['malformed:2']);
    assert.deepEqual(read('App/fr.lproj/Localizable.strings', '"a" = "b";\n"c" = "d').problems, ['malformed:2']);
    assert.deepEqual(read('App/fr.lproj/Localizable.strings', '<?xml version="1.0"?>\n<plist><dict/></plist>').problems, ['malformed:1']);
    const { index } = loadI18nIndex(
      new MemoryFileSource({
        'App/de.lproj/Localizable.strings': '"save" = "Sichern"\n"cancel" = "Abbrechen";',
        'App/fr.lproj/Localizable.strings': '"save" = "Enregistrer";',
      }),
    );
    assert.deepEqual(
      index.problems.map((p) => `${p.file}:${p.line} ${p.kind}: ${p.message}`),
      ['App/de.lproj/Localizable.strings:1 malformed: .strings does not parse: expected ";" after "save" at line 1, column 19: not read'],
    );
    assert.equal(index.lookupLexical('Enregistrer').candidates[0]?.key, 'save');
  });

  it('.strings: a UTF-16LE table (with its BOM) is read', function () {
    const text = '/* UTF-16 */\n"greeting" = "Grüß dich";\n';
    const bytes = new Uint8Array(Buffer.from('\ufeff' + text, 'utf16le'));
    assert.deepEqual([...bytes.subarray(0, 4)], [0xff, 0xfe, 0x2f, 0x00]);
    const { index } = loadI18nIndex(new MemoryFileSource({ 'App/de.lproj/Localizable.strings': bytes }));
    const c = index.lookupLexical('Grüß dich').candidates[0];
    assert.equal(c?.key, 'greeting');
    assert.deepEqual(c.locales.map((l) => `${l.locale} ${l.range.start.line}:${l.range.start.column}-${l.range.end.column}`), ['de 2:14-23']);
    assert.deepEqual(index.problems, []);
  });

  it('String Catalog: every locale of a key, a plural shows its other form (and the others as also), a key with no source value is its own source value', function () {
    const { entries, problems } = read('App/Localizable.xcstrings', catalog);
    assert.deepEqual(entries, [
      'fr Hello, world!=Bonjour, le monde ! [Hello, world!|Bonjour, le monde !]',
      'en Hello, world!=Hello, world! [Hello, world!|Hello, world!]',
      'en items_count=%lld items [items_count|%lld items] also %lld item',
      'pt-BR items_count=%lld itens [items_count|%lld itens]',
      'en •=• [•|•]',
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(read('App/Settings.xcstrings', catalog).entries[0], 'fr Settings:Hello, world!=Bonjour, le monde ! [Hello, world!|Bonjour, le monde !]');
    assert.deepEqual(read('App/Localizable.xcstrings', '{"sourceLanguage": "en", "strings": {"a": {}\n').problems, ['malformed:2']);
    assert.deepEqual(read('App/Localizable.xcstrings', '{"strings": {}}').problems, ['malformed:-']);
  });

  it('Swift and Objective-C: Foundation calls with their tables, SwiftUI views and modifiers; comments, Text(verbatim:) and variables are not usages; interpolation is dynamic', function () {
    const swift = [
      'let title = NSLocalizedString("settings.title", tableName: "Settings", comment: "")',
      'let plain = NSLocalizedString("welcome_title",',
      '                              tableName: "Localizable", comment: "Shown first")',
      'let s = String(localized: "items_count", table: "Catalog")',
      'let k = LocalizedStringKey("key.k"); let r = LocalizedStringResource("key.r")',
      'let b = Bundle.main.localizedString(forKey: "bundle.key", value: nil, table: nil)',
      'Text("Hello, world!") // Text("commented")',
      '/* Button("block comment") */ Button("Save") { save() }',
      'Label("Inbox", systemImage: "tray"); Toggle("Wi-Fi", isOn: $on); TextField("Name", text: $name)',
      'Section("General") { Link("Help", destination: URL(string: "https://example.com/*")!) }',
      'Picker("Color", selection: $c) {}; Menu("More") {}',
      'List {}.navigationTitle("Inbox").alert("Delete?", isPresented: $show) {}',
      'Text(verbatim: "v1.0"); Text(name); Text("Hello \\(user.name ?? "you")!")',
    ].join('\n');
    assert.deepEqual(usages('App/ContentView.swift', swift), [
      '1:32 NSLocalizedString Settings:settings.title=settings.title',
      '2:32 NSLocalizedString welcome_title=welcome_title',
      '4:28 String(localized:) Catalog:items_count=items_count',
      '5:29 LocalizedStringKey key.k=key.k',
      '5:71 LocalizedStringResource key.r=key.r',
      '6:46 .localizedString(forKey:) bundle.key=bundle.key',
      '7:7 Text Hello, world!=Hello, world!',
      '8:39 Button Save=Save',
      '9:8 Label Inbox=Inbox',
      '9:46 Toggle Wi-Fi=Wi-Fi',
      '9:77 TextField Name=Name',
      '10:10 Section General=General',
      '10:28 Link Help=Help',
      '11:9 Picker Color=Color',
      '11:42 Menu More=More',
      '12:26 .navigationTitle Inbox=Inbox',
      '12:41 .alert Delete?=Delete?',
      '13:43 Text Hello …=Hello \\(user.name ?? "you")!',
    ]);
    const objc = [
      'self.title = NSLocalizedString(@"settings.title", @"Title");',
      'label.text = NSLocalizedStringFromTable(@"ok", @"Settings", nil);',
      '// NSLocalizedString(@"commented", nil);',
      'NSString *s = [[NSBundle mainBundle] localizedStringForKey:@"bundle.key" value:@"" table:@"Extra"];',
    ].join('\n');
    assert.deepEqual(usages('App/ViewController.m', objc), [
      '1:34 NSLocalizedString settings.title=settings.title',
      '2:43 NSLocalizedStringFromTable Settings:ok=ok',
      '4:62 localizedStringForKey: Extra:bundle.key=bundle.key',
    ]);
    assert.deepEqual(usages('App/Bridge.mm', 'auto s = NSLocalizedString(@"cpp", nil);'), ['1:30 NSLocalizedString cpp=cpp']);
  });

  it('end to end, .strings: a French text finds its key in en and fr, a table\'s key its namespace, and the Swift that shows them', function () {
    const swift = [
      'struct ContentView: View {',
      '  var body: some View {',
      '    Text("welcome_title")',
      '    Button(NSLocalizedString("sign_out", tableName: "Settings", comment: "")) {}',
      '    Text("welcome_title").font(.title)',
      '  }',
      '}',
    ].join('\n');
    const files = {
      'App/en.lproj/Localizable.strings': '/* Home */\n"welcome_title" = "Welcome";\n',
      'App/fr.lproj/Localizable.strings': '/* Accueil */\n"welcome_title" = "Bienvenue";\n',
      'App/en.lproj/Settings.strings': '"sign_out" = "Sign out";\n',
      'App/fr.lproj/Settings.strings': '"sign_out" = "Se déconnecter";\n',
      'App/ContentView.swift': swift,
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const c = index.lookupLexical('Bienvenue').candidates[0];
    assert.equal(c?.key, 'welcome_title');
    assert.deepEqual(c.locales.map((l) => `${l.locale} ${l.file}:${l.range.start.line}`), ['en App/en.lproj/Localizable.strings:2', 'fr App/fr.lproj/Localizable.strings:2']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['App/ContentView.swift:3', 'App/ContentView.swift:5']);
    const s = index.lookupLexical('Se déconnecter').candidates[0];
    assert.equal(s?.key, 'Settings:sign_out');
    assert.deepEqual(s.locales.map((l) => l.locale), ['en', 'fr']);
    assert.deepEqual(s.usages.map((u) => `${u.file}:${u.range.start.line}`), ['App/ContentView.swift:4']);
    assert.deepEqual(index.problems, []);
  });

  it('end to end, String Catalog: a French text finds the SwiftUI Text keyed by its English, and the plural its String(localized:)', function () {
    const swift = ['VStack {', '  Text("Hello, world!")', '  Text(String(localized: "items_count"))', '}'].join('\n');
    const { index } = loadI18nIndex(new MemoryFileSource({ 'App/Localizable.xcstrings': catalog, 'App/Views/Home.swift': swift }));
    const c = index.lookupLexical('Bonjour, le monde !').candidates[0];
    assert.equal(c?.key, 'Hello, world!');
    assert.deepEqual(c.locales.map((l) => `${l.locale}=${l.value}`), ['en=Hello, world!', 'fr=Bonjour, le monde !']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['App/Views/Home.swift:2']);
    const p = index.lookupLexical('%lld itens').candidates[0];
    assert.equal(p?.key, 'items_count');
    assert.deepEqual(p.locales.map((l) => l.locale), ['en', 'pt-BR']);
    assert.deepEqual(p.usages.map((u) => `${u.file}:${u.range.start.line}`), ['App/Views/Home.swift:3']);
    assert.deepEqual(index.problems, []);
  });
});
