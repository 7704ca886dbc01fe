/**
 * Android string resources (src/i18n/formats/android.ts) and their usages in Kotlin, Java and
 * XML (src/i18n/frameworks/android.ts): the text a user sees finds its resource in every locale
 * folder and the code that shows it.
 */
import { strict as assert } from 'node:assert';
import { androidLocale, androidText } from '../../src/i18n/formats/android';
import { readLocaleFormat } from '../../src/i18n/formats/index';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based). */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.key}=${text.slice(u.range.start.offset, u.range.end.offset)}`);
}

const res = (body: string, attrs = '') => `<?xml version="1.0" encoding="utf-8"?>\n<resources${attrs}>\n${body}\n</resources>\n`;

describe('i18n: Android string resources', function () {
  it('locales from the values folder: a language and region, BCP 47, withdrawn codes, other qualifiers are none', function () {
    assert.equal(androidLocale(''), 'und');
    assert.equal(androidLocale('-fr'), 'fr');
    assert.equal(androidLocale('-pt-rBR'), 'pt-BR');
    assert.equal(androidLocale('-b+sr+Latn'), 'sr-Latn');
    assert.equal(androidLocale('-es-rUS-night'), 'es-US');
    assert.equal(androidLocale('-iw'), 'he', "Android's folder for Hebrew");
    assert.equal(androidLocale('-in-rID'), 'id-ID');
    assert.equal(androidLocale('-night'), 'und');
    assert.equal(androidLocale('-v21'), 'und');
    assert.equal(androidLocale('-sw600dp'), 'und');
  });

  it('values as Android shows them: escapes, quotes, collapsed whitespace', function () {
    assert.equal(androidText("Don\\'t  stop\n   now"), "Don't stop now");
    assert.equal(androidText('"  kept   as is  "'), '  kept   as is  ');
    assert.equal(androidText('Line\\nnext \\@home \\u00e9t\\u00E9 \\"q\\"'), 'Line\nnext @home été "q"');
  });

  it('strings, plurals, arrays and string items with exact ranges; markup by its text; colors and other resources are no messages', function () {
    const xml = res(
      [
        '    <string name="app_name" translatable="false">Notes</string>',
        '    <string name="welcome">Hello, <b>%1$s</b>! You have <xliff:g id="count" example="3">%2$d</xliff:g> notes.</string>',
        '    <string name="amp">Save &amp; exit</string>',
        '    <string name="empty"></string>',
        '    <plurals name="notes_count">',
        '        <item quantity="one">%d note</item>',
        '        <item quantity="other">%d notes</item>',
        '    </plurals>',
        '    <string-array name="sort_orders">',
        '        <item>By date</item>',
        '        <item>By title</item>',
        '    </string-array>',
        '    <item name="legacy" type="string">Old text</item>',
        '    <color name="primary">#ff0000</color>',
      ].join('\n'),
    );
    const lf = readLocaleFormat('app/src/main/res/values-fr/strings.xml', xml);
    assert.ok(lf);
    assert.deepEqual(lf.problems, []);
    const shown = lf.entries.map((e) => `${e.locale} ${e.path}=${e.value}${e.also ? ` (also ${e.also.join(' / ')})` : ''}${e.fixed ? ' (fixed)' : ''} @${xml.slice(e.vs, e.ve)} key@${xml.slice(e.ks, e.ke)}`);
    assert.deepEqual(shown, [
      'fr app_name=Notes (fixed) @Notes key@app_name',
      'fr welcome=Hello, %1$s! You have %2$d notes. @Hello, <b>%1$s</b>! You have <xliff:g id="count" example="3">%2$d</xliff:g> notes. key@welcome',
      'fr amp=Save & exit @Save &amp; exit key@amp',
      'fr notes_count=%d notes (also %d note) @%d notes key@notes_count',
      'fr sort_orders=By date (also By title) @By date key@sort_orders',
      'fr legacy=Old text @Old text key@legacy',
    ]);
    assert.equal(readLocaleFormat('app/src/main/res/values/colors.xml', res('<color name="primary">#ff0000</color>')), undefined);
    assert.equal(readLocaleFormat('app/src/main/res/layout/main.xml', xml), undefined, 'a layout is not a values file');
  });

  it("the default folder is `und`, or the `tools:locale` it declares; a file that is not well-formed is reported with its line", function () {
    assert.equal(readLocaleFormat('res/values/strings.xml', res('<string name="a">A</string>'))?.entries[0].locale, 'und');
    assert.equal(readLocaleFormat('res/values/strings.xml', res('<string name="a">A</string>', ' xmlns:tools="http://schemas.android.com/tools" tools:locale="de"'))?.entries[0].locale, 'de');
    const broken = readLocaleFormat('res/values-de/strings.xml', res('<string name="a">A</string>\n<string name="b">B'));
    assert.deepEqual(broken?.entries, []);
    assert.match(broken?.problems[0].message ?? '', /<string> at line 4, column 1 is never closed/);
  });

  it('usages: R.string / R.plurals / R.array in Kotlin and Java, @string in layouts and the manifest; the platform’s own and comments are not', function () {
    const kt = [
      'setContentView(R.layout.main)',
      'title = getString(R.string.app_name)',
      'Text(stringResource(id = R.string.welcome, name))',
      'val n = resources.getQuantityString(com.example.notes.R.plurals.notes_count, k, k)',
      'val ok = getString(android.R.string.ok)',
      '// getString(R.string.commented)',
      '/* R.array.sort_orders */ val a = R.array.sort_orders',
    ].join('\n');
    assert.deepEqual(usages('app/src/main/java/com/example/notes/MainActivity.kt', kt), [
      '2:28 R.string app_name=app_name',
      '3:35 R.string welcome=welcome',
      '4:65 R.plurals notes_count=notes_count',
      '7:43 R.array sort_orders=sort_orders',
    ]);
    assert.deepEqual(usages('app/src/main/java/Legacy.java', 'label.setText(R.string.app_name);'), ['1:24 R.string app_name=app_name']);
    const layout = ['<LinearLayout xmlns:android="http://schemas.android.com/apk/res/android">', '  <!-- android:text="@string/commented" -->', '  <Button android:text="@string/save" android:contentDescription="@android:string/ok"/>', '</LinearLayout>'].join('\n');
    assert.deepEqual(usages('app/src/main/res/layout/activity_main.xml', layout), ['3:33 @string save=save']);
    assert.deepEqual(usages('app/src/main/AndroidManifest.xml', '<application android:label="@string/app_name"/>'), ['1:37 @string app_name=app_name']);
    assert.deepEqual(usages('app/src/main/res/values/strings.xml', '<string name="x">@string/app_name</string>'), [], 'the values files hold resources, they are not usages');
  });

  it('a French value finds its resource in every locale folder and the Kotlin and layout that show it', function () {
    const files = {
      'app/src/main/res/values/strings.xml': res('    <string name="sign_out">Sign out</string>\n    <string name="app_name">Notes</string>'),
      'app/src/main/res/values-fr/strings.xml': res('    <string name="sign_out">Se déconnecter</string>'),
      'app/src/main/res/values-pt-rBR/strings.xml': res('    <string name="sign_out">Sair</string>'),
      'app/src/main/res/values/colors.xml': res('    <color name="primary">#ff0000</color>'),
      'app/src/main/java/com/example/notes/SettingsFragment.kt': 'class SettingsFragment {\n  fun bind() {\n    button.setText(R.string.sign_out)\n  }\n}\n',
      'app/src/main/res/menu/main.xml': '<menu>\n  <item android:id="@+id/sign_out" android:title="@string/sign_out"/>\n</menu>\n',
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const c = index.lookupLexical('Se déconnecter').candidates[0];
    assert.equal(c?.key, 'sign_out');
    assert.deepEqual(c.locales.map((l) => `${l.locale}=${l.value}`).sort(), ['fr=Se déconnecter', 'pt-BR=Sair', 'und=Sign out']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`).sort(), ['app/src/main/java/com/example/notes/SettingsFragment.kt:3', 'app/src/main/res/menu/main.xml:2']);
    assert.deepEqual(index.problems, []);
    assert.deepEqual([...index.localeFiles].sort(), ['app/src/main/res/values-fr/strings.xml', 'app/src/main/res/values-pt-rBR/strings.xml', 'app/src/main/res/values/strings.xml']);
  });
});
