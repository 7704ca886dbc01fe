/**
 * Rust's i18n usages (src/i18n/frameworks/rust.ts: rust-i18n, Fluent through i18n-embed,
 * gettext) and Qt Linguist: its `.ts` translation files (src/i18n/formats/qt.ts), which share
 * their extension with TypeScript, and the `tr()` / `qsTr()` that name their sources in C++,
 * QML and PyQt (src/i18n/frameworks/qt.ts).
 */
import { strict as assert } from 'node:assert';
import { formatOf, readLocaleFormat } from '../../src/i18n/formats/index';
import { qtNameLocale } from '../../src/i18n/formats/qt';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { wantsDiagnostics } from '../../src/editor/i18n-diagnostics';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based). */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.key}=${text.slice(u.range.start.offset, u.range.end.offset)}`);
}

const ts = (attrs: string, contexts: string) => `<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1"${attrs}>\n${contexts}</TS>\n`;

describe('i18n: Rust usages', function () {
  it('rust-i18n t!, i18n-embed fl! and a loader’s get / get_args, gettext, tr!: exact ranges; comments (nested), "http://…" and character literals are no comments', function () {
    const rs = [
      'let a = t!("hello");',
      'let b = t!("greet", name = "Ann"); let c = t!("bye", locale = "fr");',
      'let url = "http://example.com"; let d = t!("after.url");',
      '// t!("commented")',
      '/* outer /* inner */ t!("nested") */ let e = fl!(LANGUAGE_LOADER, "hello-world");',
      'let f = fl!(loader, "greeting", name = "x"); let g = fl!(crate::LOADER, "btn", "title");',
      'let h = LANGUAGE_LOADER.get("menu-file"); let i = loader.get_args("with-args", args); let j = map.get("nope");',
      'let k = gettext("Open"); let l = ngettext("One file", "{} files", n); let m = pgettext("menu", "Quit");',
      'let n = tr!("Save"); let o = tr!("verb" => "Close"); let p = tr!("one item" | "{n} items" % n);',
      "let q = '\"'; let r = t!(\"after.char\"); fn x<'a>(s: &'a str) -> String { t!(\"life\") }",
    ].join('\n');
    assert.deepEqual(usages('src/main.rs', rs), [
      '1:13 t! hello=hello',
      '2:13 t! greet=greet',
      '2:48 t! bye=bye',
      '3:45 t! after.url=after.url',
      '5:68 fl! hello-world=hello-world',
      '6:22 fl! greeting=greeting',
      '6:74 fl! btn.title=btn',
      '7:30 get menu-file=menu-file',
      '7:68 get_args with-args=with-args',
      '8:18 gettext Open=Open',
      '8:44 ngettext One file=One file',
      '8:97 pgettext menu|Quit=Quit',
      '9:14 tr! Save=Save',
      '9:45 tr! verb|Close=Close',
      '9:67 tr! one item=one item',
      '10:26 t! after.char=after.char',
      '10:77 t! life=life',
    ]);
  });

  it('string forms: escapes, raw r"…" and r#"…"#, a continued line; a key made at run time is none', function () {
    const rs = ['let a = t!(r"raw\\n"); let b = t!(r#"say "hi" // no comment"#);', 'let c = t!("caf\\u{e9} \\"q\\"\\t"); let d = t!(key); let e = t!(&format!("a.{}", x));', 'let f = gettext!("multi\\', '    line"); let g = t!("last");'].join('\n');
    assert.deepEqual(usages('src/lib.rs', rs), [
      '1:14 t! raw\\n=raw\\n',
      '1:37 t! say "hi" // no comment=say "hi" // no comment',
      '2:13 t! café "q"\t=caf\\u{e9} \\"q\\"\\t',
      '3:19 gettext multiline=multi\\\n    line',
      '4:25 t! last=last',
    ]);
  });

  it('a rust-i18n app: a French text finds the key in locales/*.yml and the t! that shows it', function () {
    const files = {
      'locales/en.yml': '_version: 1\nhello: Hello, %{name}!\nmenu:\n  quit: Quit\n',
      'locales/fr.yml': '_version: 1\nhello: Bonjour, %{name} !\nmenu:\n  quit: Quitter\n',
      'src/main.rs': 'rust_i18n::i18n!("locales");\n\nfn main() {\n    // t!("hello") in a comment is not a usage\n    println!("{}", t!("hello", name = "Ann"));\n    let q = t!("menu.quit");\n}\n',
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const c = index.lookupLexical('Bonjour, Ann !').candidates[0];
    assert.equal(c?.key, 'hello');
    assert.deepEqual(c.locales.map((l) => `${l.locale}=${l.value}`).sort(), ['en=Hello, %{name}!', 'fr=Bonjour, %{name} !']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/main.rs:5']);
    assert.deepEqual(index.lookupLexical('Quitter').candidates[0]?.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/main.rs:6']);
    assert.ok(wantsDiagnostics('src/main.rs', files['src/main.rs']), 'the editor asks for the diagnostics of a .rs file');
  });
});

describe('i18n: Qt Linguist', function () {
  it('a .ts file: each message’s source (derived, in the source language) and translation; numerus forms, length variants, unfinished / obsolete / vanished, & mnemonics, entities; exact ranges', function () {
    const xml = ts(
      ' language="fr_FR" sourcelanguage="en"',
      [
        '<context>',
        '    <name>MainWindow</name>',
        '    <message>',
        '        <location filename="../src/mainwindow.cpp" line="12"/>',
        '        <source>&amp;File</source>',
        '        <comment>menu</comment>',
        '        <extracomment>The file menu</extracomment>',
        '        <translation>&amp;Fichier</translation>',
        '    </message>',
        '    <message numerus="yes">',
        '        <source>%n file(s)</source>',
        '        <translation>',
        '            <numerusform>%n fichier</numerusform>',
        '            <numerusform>%n fichiers</numerusform>',
        '        </translation>',
        '    </message>',
        '    <message><source>Draft</source><translation type="unfinished"></translation></message>',
        '    <message><source>Save &amp;&amp; exit</source><translation type="unfinished">Enregistrer &amp;&amp; quitter</translation></message>',
        '    <message><source>Old</source><translation type="vanished">Vieux</translation></message>',
        '    <message><source>Gone</source><translation type="obsolete">Parti</translation></message>',
        '    <message><source>Print</source><translation variants="yes"><lengthvariant>Imprimer le document</lengthvariant><lengthvariant>Imprimer</lengthvariant></translation></message>',
        '    <message><source>&lt;b&gt;Don&apos;t&lt;/b&gt;</source><translation>&lt;b&gt;Ne pas&lt;/b&gt;</translation></message>',
        '</context>',
        '<context>',
        '    <name>Dialog</name>',
        '    <message><source>&amp;File</source><translation>&amp;Fichier</translation></message>',
        '    <message><source>Open</source><translation>Ouvrir</translation></message>',
        '</context>',
        '<context>',
        '    <name>Toolbar</name>',
        '    <message><source>Open</source><translation>Ouvrir…</translation></message>',
        '</context>',
        '',
      ].join('\n'),
    );
    const lf = readLocaleFormat('translations/app_fr.ts', xml);
    assert.ok(lf);
    assert.deepEqual(lf.problems, [], 'the same source in two contexts is one key, no duplicate');
    const shown = lf.entries.map((e) => `${e.locale}${e.derived ? ' (derived)' : ''} ${e.path}=${e.value}${e.also ? ` (also ${e.also.join(' / ')})` : ''} @${xml.slice(e.vs, e.ve)} key@${xml.slice(e.ks, e.ke)}`);
    assert.deepEqual(shown, [
      'fr-FR &File=&Fichier (also Fichier) @&amp;Fichier key@&amp;File',
      'en (derived) &File=&File (also File) @&amp;File key@&amp;File',
      'fr-FR %n file(s)=%n fichiers (also %n fichier) @%n fichiers key@%n file(s)',
      'en (derived) %n file(s)=%n file(s) @%n file(s) key@%n file(s)',
      'en (derived) Draft=Draft @Draft key@Draft',
      'fr-FR Save && exit=Enregistrer && quitter (also Enregistrer & quitter) @Enregistrer &amp;&amp; quitter key@Save &amp;&amp; exit',
      'en (derived) Save && exit=Save && exit (also Save & exit) @Save &amp;&amp; exit key@Save &amp;&amp; exit',
      'fr-FR Print=Imprimer le document (also Imprimer) @Imprimer le document key@Print',
      'en (derived) Print=Print @Print key@Print',
      "fr-FR <b>Don't</b>=<b>Ne pas</b> @&lt;b&gt;Ne pas&lt;/b&gt; key@&lt;b&gt;Don&apos;t&lt;/b&gt;",
      "en (derived) <b>Don't</b>=<b>Don't</b> @&lt;b&gt;Don&apos;t&lt;/b&gt; key@&lt;b&gt;Don&apos;t&lt;/b&gt;",
      'fr-FR Open=Ouvrir (also Ouvrir…) @Ouvrir key@Open',
      'en (derived) Open=Open @Open key@Open',
    ]);
  });

  it('the locale from the name when the file names none; a file that is not well-formed is reported with its line', function () {
    const plain = ts('', '<context><name>C</name><message><source>Yes</source><translation>Ja</translation></message></context>\n');
    assert.deepEqual(readLocaleFormat('i18n/myapp_de_DE.ts', plain)?.entries.map((e) => `${e.locale}=${e.value}`), ['de-DE=Ja', 'en=Yes']);
    const broken = readLocaleFormat('i18n/myapp_de.ts', ts(' language="de"', '<context><name>C</name><message><source>Yes</source><translation>Ja</message></context>\n'));
    assert.deepEqual(broken?.entries, []);
    assert.match(broken?.problems[0].message ?? '', /<translation> at line 4, column 53 is never closed/);
  });

  it('a TypeScript .ts is not taken: only `<app>_<locale>.ts` names are claimed (with globs, when they match), and read only when the text is a <TS> document', function () {
    assert.equal(qtNameLocale('translations/app_fr.ts'), 'fr');
    assert.equal(qtNameLocale('i18n/myapp_pt_BR.ts'), 'pt-BR');
    assert.equal(formatOf('translations/app_fr.ts')?.name, 'Qt Linguist');
    assert.equal(formatOf('translations/app_fr.ts', { matchesGlobs: (rel) => rel.startsWith('translations/') })?.name, 'Qt Linguist');
    assert.equal(formatOf('translations/app_fr.ts', { matchesGlobs: () => false }), undefined, 'with globs, only what they match');
    for (const rel of ['src/i18n/fr.ts', 'src/locale/zh_CN.ts', 'src/translations/en.ts', 'src/app.ts', 'src/user_test.ts']) assert.equal(formatOf(rel), undefined, rel);
    assert.equal(readLocaleFormat('src/app_fr.ts', "export const fr = { title: 'Titre' };\n"), undefined, 'TypeScript under a Qt name is no Qt file');
    // a TypeScript file under a Qt-like name keeps its usages; a TypeScript locale module is still read as one
    const { index } = loadI18nIndex(
      new MemoryFileSource({
        'package.json': '{"name": "web"}',
        'src/app_fr.ts': "import { t } from './i18n';\nexport const title = t('menu.file');\n",
        'src/i18n/fr.ts': "export default { menu: { file: 'Fichier' } };\n",
        // a TypeScript locale module under a Qt-like name: the Qt reader finds no <TS>, the module is read
        'src/i18n/messages_es.ts': "export default { menu: { file: 'Archivo' } };\n",
        'translations/app_de.ts': ts(' language="de"', '<context><name>C</name><message><source>Yes</source><translation>Ja</translation></message></context>\n'),
      }),
    );
    assert.deepEqual(index.localeFiles, ['src/i18n/fr.ts', 'src/i18n/messages_es.ts', 'translations/app_de.ts']);
    assert.deepEqual(
      index.lookupLexical('Archivo').candidates[0]?.locales.map((l) => `${l.locale}=${l.value}`),
      ['es=Archivo', 'fr=Fichier'],
    );
    const c = index.lookupLexical('Fichier').candidates[0];
    assert.equal(c?.key, 'menu.file');
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/app_fr.ts:2']);
    assert.deepEqual(index.problems, []);
  });

  it('usages: tr, QObject::tr, translate, QT_TR_NOOP, QT_TRANSLATE_NOOP in C++ (raw and joined literals); qsTr, qsTranslate in QML; self.tr, translate, _translate in PyQt; comments are not', function () {
    const cpp = [
      'auto a = tr("&File");',
      'auto b = QObject::tr("Open " "file");',
      'auto url = "http://x"; auto c = QCoreApplication::translate("MainWindow", "Quit");',
      '// tr("commented") /* tr("also") */',
      'const char *d = QT_TR_NOOP("Noop"); const char *e = QT_TRANSLATE_NOOP("Ctx", "Tnoop");',
      'auto f = str("x"); auto g = obj.tr("no"); auto h = tr(R"(raw "q" // no comment)");',
      'auto i = qApp->translate("C", "Via app"); char q = \'"\'; auto j = tr("after\\tchar");',
      '/* tr("block") */ auto k = MyWidget::tr("%n item(s)", "comment", n);',
    ].join('\n');
    assert.deepEqual(usages('src/mainwindow.cpp', cpp), [
      '1:14 tr &File=&File',
      '2:23 QObject::tr Open file=Open " "file',
      '3:76 QCoreApplication::translate Quit=Quit',
      '5:29 QT_TR_NOOP Noop=Noop',
      '5:79 QT_TRANSLATE_NOOP Tnoop=Tnoop',
      '6:58 tr raw "q" // no comment=raw "q" // no comment',
      '7:32 translate Via app=Via app',
      '7:70 tr after\tchar=after\\tchar',
      '8:42 MyWidget::tr %n item(s)=%n item(s)',
    ]);
    assert.deepEqual(usages('src/dialog.h', 'QString title() const { return tr("Settings"); }'), ['1:36 tr Settings=Settings']);
    const qml = ['Button { text: qsTr("Quit") } // qsTr("commented")', "Label { text: qsTranslate('Main', 'Hello') + url } property string url: \"http://x\"", 'property var items: [QT_TR_NOOP("Red"), QT_TRANSLATE_NOOP("Colors", "Blue")]'].join('\n');
    assert.deepEqual(usages('qml/Main.qml', qml), ['1:22 qsTr Quit=Quit', '2:36 qsTranslate Hello=Hello', '3:34 QT_TR_NOOP Red=Red', '3:70 QT_TRANSLATE_NOOP Blue=Blue']);
    const py = [
      'self.setWindowTitle(self.tr("Main"))',
      '_translate = QtCore.QCoreApplication.translate',
      'MainWindow.setWindowTitle(_translate("MainWindow", "Title"))',
      '# self.tr("commented")',
      "x = '#'; y = self.tr('After hash')",
      'z = QCoreApplication.translate("Ctx", "Long "',
      '    "text")',
      'w = _("gettext too")',
    ].join('\n');
    assert.deepEqual(usages('app/main.py', py), [
      '1:30 self.tr Main=Main',
      '3:53 _translate Title=Title',
      '5:23 self.tr After hash=After hash',
      '6:40 QCoreApplication.translate Long text=Long "\n    "text',
      '8:8 _ gettext too=gettext too',
    ]);
  });

  it('a Qt app: the French text (or the source without its & mnemonic) finds the source key, its locales and the C++ and QML that show it', function () {
    const message = (source: string, translation: string) => `    <message>\n        <source>${source}</source>\n        <translation>${translation}</translation>\n    </message>\n`;
    const files = {
      'CMakeLists.txt': 'qt_add_translations(app TS_FILES translations/app_fr.ts translations/app_de.ts)\n',
      'translations/app_fr.ts': ts(' language="fr_FR" sourcelanguage="en_US"', `<context>\n    <name>MainWindow</name>\n${message('&amp;File', '&amp;Fichier')}</context>\n<context>\n    <name>Main</name>\n${message('Quit', 'Quitter')}</context>\n`),
      'translations/app_de.ts': ts(' language="de_DE" sourcelanguage="en_US"', `<context>\n    <name>MainWindow</name>\n${message('&amp;File', '&amp;Datei')}</context>\n`),
      'src/mainwindow.cpp': '#include "mainwindow.h"\n\nMainWindow::MainWindow() {\n    // tr("&File") here is a comment\n    fileMenu = menuBar()->addMenu(tr("&File"));\n}\n',
      'qml/Main.qml': 'import QtQuick\n\nButton {\n    text: qsTr("Quit")\n}\n',
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    assert.deepEqual(index.localeFiles, ['translations/app_de.ts', 'translations/app_fr.ts']);
    assert.deepEqual(index.problems, []);
    const file = index.lookupLexical('Fichier').candidates[0];
    assert.equal(file?.key, '&File');
    assert.deepEqual(file.locales.map((l) => `${l.locale}=${l.value}`).sort(), ['de-DE=&Datei', 'en-US=&File', 'fr-FR=&Fichier']);
    assert.deepEqual(file.usages.map((u) => `${u.file}:${u.range.start.line}`), ['src/mainwindow.cpp:5']);
    assert.equal(index.lookupLexical('File').candidates[0]?.key, '&File', 'the source without its mnemonic');
    const quit = index.lookupLexical('Quitter').candidates[0];
    assert.equal(quit?.key, 'Quit');
    assert.deepEqual(quit.usages.map((u) => `${u.file}:${u.range.start.line}`), ['qml/Main.qml:4']);
    assert.ok(wantsDiagnostics('qml/Main.qml', files['qml/Main.qml']) && wantsDiagnostics('src/mainwindow.cpp', files['src/mainwindow.cpp']));
  });
});
