/**
 * Key health (`I18nIndex.health`, `fathom i18n --check`) on test/fixtures/i18n-health, which has
 * one defect of each kind next to keys that look like defects but are not (plural forms, a
 * dynamic prefix, a linked message's target).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatHealth, sourceLocaleOf } from '../../src/i18n/health';
import { I18nIndex } from '../../src/i18n/i18n-index';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';
import { diagnosticView, wantsDiagnostics } from '../../src/editor/i18n-diagnostics';

const ROOT = path.join(__dirname, '..', '..');
const FIX = path.join(__dirname, '..', 'fixtures');
const WS = path.join(FIX, 'i18n-health');

describe('i18n key health', () => {
  const report = loadI18nIndex(WS).index.health();
  const rows = report.findings.map((f) => `${f.kind} ${f.key} ${f.file}:${f.line}:${f.column}${f.locales ? ` ${f.locales.join(',')}` : ''}`);

  it('finds each kind of defect, with its place, and nothing else', () => {
    assert.deepEqual(rows, [
      'undefined nav.contact src/App.vue:5:13',
      'missing save src/locales/en.json:15:12 fr',
      'unused old.banner src/locales/en.json:13:16',
      'identical nav.about src/locales/fr.json:4:15 fr',
      'identical brand src/locales/fr.json:16:13 fr',
    ]);
    assert.deepEqual(report.counts, { undefined: 1, missing: 1, 'only-in': 0, unused: 1, identical: 2 });
    assert.deepEqual(report.sourceLocales, { '': 'en' });
  });

  it('respects dynamic prefixes (status.*), plural forms (items → items_one/_other) and linked messages (@:save)', () => {
    for (const k of ['status.open', 'status.closed', 'items_one', 'items_other', 'items', 'save', 'linked']) {
      assert.ok(!report.findings.some((f) => (f.kind === 'unused' || f.kind === 'undefined') && f.key === k), k);
    }
  });

  it('with no `en`, the default messages (und: Android values/) are the source, before a regional English: missing and identical are said against them; a string not to translate is never missing', () => {
    const res = (body: string) => `<resources>${body}</resources>`;
    const files = {
      'app/src/main/res/values/strings.xml': res('<string name="ok">OK</string><string name="cancel">Cancel</string><string name="title">Notes</string><string name="brand" translatable="false">Fathom Notes</string>'),
      'app/src/main/res/values-fr/strings.xml': res('<string name="ok">OK</string><string name="title">Notes (fr)</string>'),
      'app/src/main/res/values-de/strings.xml': res('<string name="ok">OK</string><string name="cancel">Abbrechen</string><string name="title">Notizen</string>'),
      'app/src/main/java/A.kt': 'val a = getString(R.string.ok) + getString(R.string.cancel) + getString(R.string.title) + getString(R.string.brand)',
    };
    const report = loadI18nIndex(new MemoryFileSource(files)).index.health();
    assert.deepEqual(report.sourceLocales, { '': 'und' });
    assert.deepEqual(
      report.findings.map((f) => `${f.kind} ${f.key} ${f.file} ${f.locales?.join(',') ?? ''}`),
      ['missing cancel app/src/main/res/values/strings.xml fr', 'identical ok app/src/main/res/values-de/strings.xml de', 'identical ok app/src/main/res/values-fr/strings.xml fr'],
    );
    // a regional folder holds what it adapts: a key its language has is not missing there
    const regional = loadI18nIndex(new MemoryFileSource({ ...files, 'app/src/main/res/values-fr-rCA/strings.xml': res('<string name="title">Notes (Québec)</string>') })).index.health();
    assert.deepEqual(
      regional.findings.filter((f) => f.kind === 'missing').map((f) => `${f.key} ${f.locales!.join(',')}`),
      ['cancel fr,fr-CA'],
    );
    // before a regional English (Android's values-en-rGB/ adapts values/), after `en`
    assert.equal(sourceLocaleOf(new Map([['en-GB', 1], ['und', 3], ['fr', 3]])), 'und');
    assert.equal(sourceLocaleOf(new Map([['en', 1], ['und', 3]])), 'en');
    assert.equal(sourceLocaleOf(new Map([['en-GB', 1], ['fr', 3]])), 'en-GB');
  });

  it('a key the source locale lacks is one finding, "only in: cy", never also missing or unused', () => {
    const files = {
      'src/locales/en.json': JSON.stringify({ save: 'Save' }),
      'src/locales/fr.json': JSON.stringify({ save: 'Enregistrer', common: { confirm_dialog: { title: 'Confirmer' } } }),
      'src/locales/cy.json': JSON.stringify({ save: 'Cadw', common: { confirm_dialog: { title: 'Cadarnhau' } } }),
      'src/App.vue': `<template><button>{{ $t('save') }}</button></template>`,
    };
    const report = loadI18nIndex(new MemoryFileSource(files)).index.health();
    assert.deepEqual(
      report.findings.map((f) => `${f.kind} ${f.key} ${f.locales?.join(',') ?? ''}`),
      ['only-in common.confirm_dialog.title cy,fr'],
    );
    assert.equal(report.counts['only-in'], 1);
    const text = formatHealth(report, false);
    assert.match(text, /^only-in {4}src\/locales\/\w\w\.json:\d+:\d+ {2}common\.confirm_dialog\.title {2}\(only in: cy, fr; not in the source locale\)$/m);
    assert.match(text, /0 missing, 0 unused, 0 identical to the source locale \(en\); 1 only in some translations/);
  });

  it("undefined leaves out what the app's build checks (Android R.string / @string, .NET's resource class) and SwiftUI literals; calls by a string are reported", () => {
    const files = {
      'app/src/main/res/values/strings.xml': '<resources><string name="ok">OK</string></resources>',
      'app/src/main/java/A.kt': 'val a = getString(R.string.gone)\nval b = bundle.getString("gone.too")\n',
      'app/src/main/res/layout/main.xml': '<Button android:text="@string/gone_xml"/>',
      'Properties/Resources.resx': '<root><data name="Ok" xml:space="preserve"><value>OK</value></data></root>',
      'Forms/Main.cs': 'var icon = Properties.Resources.AppIcon;\nvar t = manager.GetString("Missing");\n',
      'App/en.lproj/Localizable.strings': '"ok" = "OK";',
      'App/ContentView.swift': 'Text("Hello, world")\nlet s = NSLocalizedString("missing.key", comment: "")\n',
    };
    const undef = loadI18nIndex(new MemoryFileSource(files))
      .index.health()
      .findings.filter((f) => f.kind === 'undefined')
      .map((f) => `${f.key} ${f.file}:${f.line}`);
    assert.deepEqual(undef.sort(), ['Missing Forms/Main.cs:2', 'gone.too app/src/main/java/A.kt:2', 'missing.key App/ContentView.swift:2']);
  });

  it('CLI: exit 1 with undefined or missing keys, 0 on a healthy workspace; --json lines', () => {
    const run = (dir: string, json = false) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), 'i18n', '--check', '--dir', dir, ...(json ? ['--json'] : [])], { encoding: 'utf8' });
    const bad = run(WS);
    assert.equal(bad.status, 1, bad.stderr);
    assert.match(bad.stdout, /^undefined {2}src\/App\.vue:5:13 {2}nav\.contact {2}\(\$t: no locale defines it\)$/m);
    assert.match(bad.stdout, /1 undefined, 1 missing, 1 unused, 2 identical to the source locale \(en\)/);
    const lines = run(WS, true).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines[0], { kind: 'undefined', key: 'nav.contact', file: 'src/App.vue', line: 5, column: 13, via: '$t' });
    assert.deepEqual((lines[lines.length - 1].summary as Record<string, unknown>).undefined, 1);
    // every key of the svelte fixture is used and in both locales
    const good = run(path.join(FIX, 'i18n-frameworks', 'svelte'));
    assert.equal(good.status, 0, good.stdout + good.stderr);
    assert.match(good.stdout, /0 undefined, 0 missing, 0 unused/);
    const usage = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), 'i18n', '--check', 'x', '--dir', WS], { encoding: 'utf8' });
    assert.equal(usage.status, 2);
  });
});

describe('i18n key health: the text report', () => {
  it('keeps each finding on one line: a key or value with a newline, tab or ESC shows them escaped', () => {
    const ix = new I18nIndex();
    ix.setFile('locales/en.json', JSON.stringify({ 'two\nlines': 'A\nB', same: 'Same' }));
    ix.setFile('locales/fr.json', JSON.stringify({ same: 'Same' }));
    ix.setFile('src/a.js', "export const x = () => [i18n.t('bad\\nkey\\t\\u001b[31m'), i18n.t('same')]\n");
    const report = ix.health();
    const text = formatHealth(report, false);
    const lines = text.trimEnd().split('\n').filter(Boolean);
    assert.equal(lines.length, report.findings.length + 1, text);
    assert.ok(lines.some((l) => l.startsWith('undefined ') && l.includes('bad\\nkey\\t\\u001b[31m')), text);
    assert.ok(lines.some((l) => l.startsWith('missing ') && l.includes('two\\nlines')), text);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(text), 'no control character but the line ends');
    // --json keeps the key as it is (JSON escapes it)
    const json = formatHealth(report, true).trimEnd().split('\n').map((l) => JSON.parse(l) as { key?: string });
    assert.ok(json.some((f) => f.key === 'bad\nkey\t\u001b[31m'));
  });
});

describe('i18n diagnostics (what the editor shows)', () => {
  const ix = loadI18nIndex(WS).index;

  it('a usage of an undefined key: its range, and the quick fix opens the nearest source-locale entry', () => {
    const ds = ix.diagnostics('src/App.vue');
    assert.deepEqual(
      ds.map((d) => `${d.kind} ${d.key} ${d.range.start.line}:${d.range.start.column}-${d.range.end.column} → ${d.source?.file}:${d.source?.range.start.line} ${d.source?.locale}`),
      ['undefined nav.contact 5:12-23 → src/locales/en.json:3 en'],
    );
    // the editor's unsaved text counts: a defined key there is no diagnostic, a new typo is
    const edited = fs.readFileSync(path.join(WS, 'src/App.vue'), 'utf8').replace("'nav.contact'", "'nav.home'").replace("'brand'", "'brnd'");
    assert.deepEqual(ix.diagnostics('src/App.vue', edited).map((d) => d.key), ['brnd']);
  });

  it('unused entries of a locale file; the fix of a translation opens the source value', () => {
    const fr = ix.diagnostics('src/locales/fr.json');
    assert.deepEqual(fr.map((d) => `${d.kind} ${d.key} ${d.range.start.line}:${d.range.start.column} → ${d.source?.file}:${d.source?.range.start.line}`), ['unused old.banner 13:5 → src/locales/en.json:13']);
    const en = ix.diagnostics('src/locales/en.json');
    assert.deepEqual(en.map((d) => `${d.kind} ${d.key} ${d.source === undefined}`), ['unused old.banner true']);
  });

  it('the editor view: severity, faded hint, quick fix title and target', () => {
    const [d] = ix.diagnostics('src/App.vue');
    const v = diagnosticView(d);
    assert.deepEqual({ ...v, fix: undefined }, { startLine: 4, startCharacter: 12, endLine: 4, endCharacter: 23, message: 'i18n key "nav.contact" is defined in no locale (Fathom)', severity: 'warning', code: 'i18n-undefined', fix: undefined });
    assert.equal(v.fix?.title, 'Open the en locale where "nav.contact" belongs (src/locales/en.json)');
    assert.equal(v.fix?.target.file, 'src/locales/en.json');
    assert.equal(diagnosticView(ix.diagnostics('src/locales/fr.json')[0]).severity, 'hint');
    assert.ok(wantsDiagnostics('src/a.ts', "t('x')") && !wantsDiagnostics('src/a.ts', 'const x = 1') && wantsDiagnostics('locales/en.yml', ''));
    // a generic array type is no indexer by a key: TypeScript files without i18n are not sent to the worker
    assert.ok(!wantsDiagnostics('src/a.ts', 'const xs: T[] = []; let l: L[];') && wantsDiagnostics('Views/Home.cshtml', '<h1>@Localizer["Welcome"]</h1>') && wantsDiagnostics('Pages/A.cs', 'var s = L["Hello"];'));
  });
});
