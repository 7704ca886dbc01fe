/**
 * Key usages per framework (test/fixtures/i18n-frameworks/ and the usage files of
 * test/fixtures/i18n-formats/): each usage with its exact range (the key's text in the file, or
 * the whole expression for a template with ternaries), its key resolved (namespaces, scopes,
 * lazy keys), and the keys it names found from their values.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { I18nIndex, Usage } from '../../src/i18n/i18n-index';
import { railsLazyScope } from '../../src/i18n/frameworks/rails';
import { identifyLocale, readLocaleJson } from '../../src/i18n/locales';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import type { Chunk } from '../../src/chunkers/types';
import { i18nFeed } from '../../src/index/i18n-feed';

const FW = path.join(__dirname, '..', 'fixtures', 'i18n-frameworks');
const FMT = path.join(__dirname, '..', 'fixtures', 'i18n-formats');
const cache = new Map<string, I18nIndex>();
const load = (dir: string, opts: { functions?: string[] } = {}) => {
  const id = `${dir}\0${JSON.stringify(opts)}`;
  let ix = cache.get(id);
  if (!ix) cache.set(id, (ix = loadI18nIndex(dir, opts).index));
  return ix;
};

/** `file:line:col via key=text` of every usage of one file (columns 1-based), the text read at the range's offsets. */
function usagesOf(dir: string, rel: string, opts: { functions?: string[] } = {}): string[] {
  const text = fs.readFileSync(path.join(dir, rel), 'utf8');
  return findUsages(rel, text, opts).map((u: Usage) => {
    const before = text.slice(0, u.range.start.offset).split('\n');
    assert.equal(u.range.start.line, before.length);
    assert.equal(u.range.start.column, before[before.length - 1].length);
    const ns = u.namespace ? `${u.namespace}:` : '';
    return `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${ns}${u.key}${u.dynamic ? '*' : ''}=${text.slice(u.range.start.offset, u.range.end.offset)}`;
  });
}

/** The files using `key` (as a lookup of its value finds it). */
function usedBy(dir: string, value: string, opts: { functions?: string[] } = {}): string[] {
  const [c] = load(dir, opts).lookupLexical(value).candidates;
  assert.ok(c, `"${value}" is found`);
  return c.usages.map((u) => `${u.file}:${u.range.start.line}`);
}

describe('i18n usages: Svelte, Angular, Ember', () => {
  const sv = path.join(FW, 'svelte');
  it('Svelte: $_ / $t / $format in markup and script, $_({id}), a ternary template yielding both keys', () => {
    assert.deepEqual(usagesOf(sv, 'src/lib/Page.svelte'), [
      "3:24 $format page.subtitle=page.subtitle",
      "7:10 $_ page.title=page.title",
      "8:14 $t list.edit_error=`list.${editing ? 'edit' : 'delete'}_error`",
      "8:14 $t list.delete_error=`list.${editing ? 'edit' : 'delete'}_error`",
      '9:18 $_ page.subtitle=page.subtitle',
    ]);
    assert.deepEqual(usedBy(sv, 'Suppression impossible'), ['src/lib/Page.svelte:8']);
    assert.deepEqual(usedBy(sv, 'Amusez-vous'), ['src/lib/Page.svelte:3', 'src/lib/Page.svelte:9']);
  });

  const ng = path.join(FW, 'angular');
  it('Angular: | translate (with params), [translate], translate attribute content, *transloco read scope; comments skipped', () => {
    assert.deepEqual(usagesOf(ng, 'src/app/home.component.html'), [
      '1:9 | translate HOME.TITLE=HOME.TITLE',
      '2:14 | translate HOME.HELLO=HOME.HELLO',
      '3:20 [translate] HOME.TITLE=HOME.TITLE',
      '4:17 translate HOME.HELLO=HOME.HELLO',
      '7:12 *transloco t admin.users=users',
    ]);
    assert.deepEqual(usagesOf(ng, 'src/app/home.component.ts'), ['7:43 this.translate.instant HOME.TITLE=HOME.TITLE', '8:25 this.translate.get HOME.HELLO=HOME.HELLO']);
    assert.deepEqual(usedBy(ng, 'Usuarios'), ['src/app/home.component.html:7']);
  });

  it("Angular inline templates: a component's template: string (backtick or quoted) is read as a template, every range mapped back into the .ts exactly", () => {
    const ngi = path.join(FW, 'angular-inline');
    assert.deepEqual(usagesOf(ngi, 'src/app.component.ts'), [
      '8:15 | translate HOME.TITLE=HOME.TITLE',
      // a pipe whose key is on its own line
      '11:12 | translate HOME.SELECT=HOME.SELECT',
      // attr="'K' | translate" and [title]="'K' | translate"
      '13:24 | translate HOME.SELECT=HOME.SELECT',
      '13:60 | translate HOME.HINT=HOME.HINT',
      // the translate directive, the key as the element's content (trimmed)
      '16:25 translate HOME.SELECT=HOME.SELECT',
      // after a ${} placeholder; the commented pipe above is skipped
      '18:28 | translate HOME.HINT=HOME.HINT',
      '26:20 translate.get HOME.TITLE=HOME.TITLE',
      // a quoted template with escaped quotes: the range is the key's text in the source
      '32:22 | translate HOME.QUOTED=HOME.QUOTED',
      '32:67 translate HOME.HINT=HOME.HINT',
    ]);
    assert.deepEqual(usedBy(ngi, 'Changer de langue'), ['src/app.component.ts:11', 'src/app.component.ts:13', 'src/app.component.ts:16']);
  });

  it('Ember/Handlebars: {{t "k"}}, (t "k") sub-expressions, named params; a path key is not static', () => {
    const em = path.join(FW, 'ember');
    assert.deepEqual(usagesOf(em, 'app/templates/application.hbs'), ['1:11 {{t}} nav.home=nav.home', "2:15 {{t}} nav.greeting=nav.greeting", '3:11 {{t}} nav.home=nav.home']);
    assert.deepEqual(usedBy(em, 'Startseite'), ['app/templates/application.hbs:1', 'app/templates/application.hbs:3']);
  });
});

describe('i18n usages: React, Next.js and custom functions', () => {
  it('next-intl: each useTranslations/getTranslations binding applies to its own function; t.rich too', () => {
    const ni = path.join(FW, 'nextintl');
    assert.deepEqual(usagesOf(ni, 'app/page.tsx'), ['6:18 t Index.title=title', '6:35 t.rich Index.rich=rich', '11:18 t About.title=title', '16:22 t About.title=title']);
    assert.deepEqual(usedBy(ni, 'Über uns'), ['app/page.tsx:11', 'app/page.tsx:16']);
    assert.deepEqual(usedBy(ni, 'Lies <b>das</b>'), ['app/page.tsx:6']);
  });

  it('i18next: t("ns:key"), t("key", {ns}), <Trans i18nKey ns>: exactly one namespace each', () => {
    const ix = path.join(FW, 'i18next');
    assert.deepEqual(usagesOf(ix, 'src/App.jsx'), ['7:19 t common:save=common:save', '8:15 t settings:title=title', '9:23 i18nKey common:welcome=welcome']);
    assert.deepEqual(usedBy(ix, 'Einstellungen'), ['src/App.jsx:8']);
    assert.deepEqual(usedBy(ix, 'Willkommen, <1>{{name}}</1>'), ['src/App.jsx:9']);
  });

  it('i18next default namespace: t("k") and <Trans i18nKey> with and without "translation:"; <Trans t={t}> takes the namespace of its t', () => {
    const dn = path.join(FW, 'i18next-default');
    assert.deepEqual(usagesOf(dn, 'src/App.jsx'), ['7:14 t foo.bar=foo.bar', '8:23 i18nKey foo.bar=foo.bar', '9:23 i18nKey translation:title=translation:title']);
    assert.deepEqual(usagesOf(dn, 'src/Home.jsx'), ['5:32 i18nKey pages/home:title=title']);
    assert.deepEqual(usedBy(dn, "Barre de l'espace par défaut"), ['src/App.jsx:7', 'src/App.jsx:8']);
    // `t` comes from useTranslation('pages/home'): the default namespace's title is not used there
    assert.deepEqual(usedBy(dn, 'Titre par défaut'), ['src/App.jsx:9']);
    assert.deepEqual(usedBy(dn, "Titre de l'accueil"), ['src/Home.jsx:5']);
    assert.deepEqual(findUsages('a.jsx', "const { t } = useTranslation('ns1', { keyPrefix: 'p' });\nconst x = <Trans t={t} i18nKey=\"k\" />;").map((u) => `${u.namespace}:${u.key}`), ['ns1:p.k']);
  });

  it("i18next as i18n Ally writes it: translation.title (the namespace as first segment), pages.home:title (a folder namespace with dots), useTranslation(['translation.foo']) then t('bar'); no finding", () => {
    const ia = path.join(FW, 'i18next-ally');
    const ix = load(ia);
    const usedIn = (key: string) => ix.lookupKey(key).candidates[0].usages.map((u) => `${u.range.start.line} ${u.via}`);
    assert.deepEqual(usedIn('translation:foo.bar'), ['33 t']);
    assert.deepEqual(usedIn('pages/home:title'), ['34 t', '35 t', '40 t', '53 i18nKey']);
    assert.deepEqual(usedIn('translation:title'), ['7 t', '41 t', '46 t', '54 i18nKey']);
    assert.deepEqual(usedIn('translation:description.part1'), ['14 i18nKey', '26 i18nKey']);
    assert.deepEqual(usedIn('translation:description.part2'), ['24 t', '25 i18nKey']);
    assert.deepEqual(ix.health().findings, []);
  });

  it('next-international: useScopedI18n("scope") prefixes its t', () => {
    const nx = path.join(FW, 'nextinternational');
    assert.deepEqual(usagesOf(nx, 'app/page.tsx'), ['6:17 t hello=hello', '6:36 scopedT scope.more.title=title']);
    assert.deepEqual(usedBy(nx, 'Plus de titre'), ['app/page.tsx:6']);
  });

  it('a wrapper component passing keypath, and a project function named in the options', () => {
    const cu = path.join(FW, 'custom');
    assert.deepEqual(usagesOf(cu, 'src/Menu.vue'), ['2:27 <MyTranslation keypath> menu.open=menu.open']);
    assert.deepEqual(usagesOf(cu, 'src/Menu.vue', { functions: ['translate'] }), ['2:27 <MyTranslation keypath> menu.open=menu.open', '3:20 translate menu.close=menu.close']);
    assert.deepEqual(usedBy(cu, 'Fermer', { functions: ['translate'] }), ['src/Menu.vue:3']);
    assert.deepEqual(usedBy(cu, 'Fermer'), []);
  });

  it('a component whose only key is a wrapper attribute (tKey, translationKey, messageKey, keyPath, i18n-key, keypath) gets past the prefilter', () => {
    for (const attr of ['tKey', 'translationKey', 'messageKey', 'keyPath', 'i18n-key', 'keypath', 'i18nKey']) {
      const code = `import { Label } from './Label';\nexport const A = () => <Label ${attr}="menu.open" />;\n`;
      assert.deepEqual(findUsages('src/A.jsx', code).map((u) => `${u.key} ${u.via}`), [`menu.open ${attr}`], attr);
    }
    // a word that only contains one of them is not one
    assert.deepEqual(findUsages('src/B.js', 'export const getKey = (o) => o.getKey();\n'), []);
  });

  it('a template literal of ternaries names each key; an unbounded one stays dynamic with its prefix', () => {
    const code = "t(`list.${a ? 'edit' : b ? 'move' : 'delete'}_error`); t(`status.${s}`);";
    assert.deepEqual(
      findUsages('x.js', code).map((u) => `${u.key}${u.dynamic ? '*' : ''}`),
      ['list.edit_error', 'list.move_error', 'list.delete_error', 'status.*'],
    );
  });
});

describe('i18n usages: Lingui msgids, WebExtension getMessage, fluent-vue', () => {
  it('Lingui: every msgid form — t`…` with a named placeholder, msg`…`, msg/defineMessage/t/i18n._ descriptors (id, else message with its context), <Trans> children with elements and variables, <Trans id>, <Trans context>', () => {
    const li = path.join(FW, 'lingui');
    assert.deepEqual(usagesOf(li, 'src/App.tsx'), [
      '5:19 msg` Changes saved=Changes saved',
      '6:43 defineMessage Profile updated=Profile updated',
      '7:27 msg auth.logout=auth.logout',
      '8:59 defineMessage button|Open=Open',
      '11:22 t` Hello {name}=Hello ${name}',
      '12:31 t Your account=Your account',
      '13:34 i18n._ app.title=app.title',
      '16:14 <Trans> Welcome back=Welcome back',
      '18:9 <Trans> Read the <0>documentation</0>, {name}.=Read the <a href="/docs">documentation</a>, {name}.',
      '20:18 <Trans id> checkout.title=checkout.title',
      '21:29 <Trans> menu|Open=Open',
    ]);
    // every msgid of the catalogs is used, in both locales
    const ix = load(li);
    assert.equal(ix.keyValues().size, 11);
    assert.deepEqual(ix.health().findings, []);
    assert.deepEqual(usedBy(li, 'Lisez la <0>documentation</0>, {name}.'), ['src/App.tsx:18']);
  });

  it("WebExtension: chrome.i18n.getMessage / browser.i18n.getMessage in a template literal, as an argument, optional-chained, destructured from chrome.i18n; the manifest's __MSG_name__", () => {
    const ce = path.join(FW, 'chrome-extension');
    assert.deepEqual(usagesOf(ce, 'popup.js'), [
      '1:25 chrome.i18n.getMessage errorRemoved=errorRemoved',
      '2:35 chrome.i18n.getMessage showInFolderTitle=showInFolderTitle',
      '3:47 browser.i18n.getMessage savedCount=savedCount',
      '5:28 getMessage tooltip=tooltip',
      '6:52 getMessage optional=optional',
      '7:42 chrome.i18n.getMessage extName=extName',
    ]);
    // the manifest's __MSG_name__ (parsed JSON string values; the predefined __MSG_@@ui_locale__ is none of the extension's)
    assert.deepEqual(usagesOf(ce, 'manifest.json'), ['3:18 __MSG__ extName=extName', '4:25 __MSG__ extDescription=extDescription', '6:39 __MSG__ tooltip=tooltip']);
    assert.deepEqual(load(ce).health().findings, []);
  });

  it("fluent-vue: $t / $ta (a message's attributes used with it), the v-t:id directive, <i18n path>, $fluent.format; a key no .ftl has is undefined", () => {
    const fv = path.join(FW, 'fluent-vue');
    assert.deepEqual(usagesOf(fv, 'src/App.vue'), [
      '4:17 $t test=test',
      '5:23 $ta props=props',
      '8:14 v-t: test=test',
      '9:14 v-t: greeting=greeting',
      '12:17 <i18n path> term=term',
      '26:24 $t test=test',
      '30:23 this.$t user-name=user-name',
      '33:35 this.$fluent.format plain-format=plain-format',
      '36:23 this.$t wrong-key=wrong-key',
    ]);
    assert.deepEqual(load(fv).health().findings.map((f) => `${f.kind} ${f.key}`), ['undefined wrong-key']);
  });
});

describe('i18n usages: no false usage', () => {
  it("a local object named translate, a local t that translates nothing are not the framework's; the injected service and a wrapper still are", () => {
    const fu = path.join(FW, 'false-usages');
    assert.deepEqual(usagesOf(fu, 'src/should_ignore.jsx'), []);
    assert.deepEqual(usagesOf(fu, 'src/should_ignore.vue'), []);
    assert.deepEqual(usagesOf(fu, 'src/helpers.js'), []);
    assert.deepEqual(usagesOf(fu, 'src/app.service.ts'), ['9:36 this.translate.instant HOME.SUBTITLE=HOME.SUBTITLE', '15:27 t wrapped=wrapped', '18:29 translate.instant menu.open=menu.open']);
    // HOME.TITLE is named only by the files that do not use the framework: unused, and nothing undefined
    assert.deepEqual(load(fu).health().findings.map((f) => `${f.kind} ${f.key}`), ['unused HOME.TITLE']);
    // a project that names its own t in the settings has its calls counted
    assert.deepEqual(findUsages('a.js', "function t(s) { return s }\nt('menu.open');", { functions: ['t'] }).map((u) => u.key), ['menu.open']);
  });
});

describe('i18n usages: react-intl (FormatJS) and Docusaurus', () => {
  const ri = path.join(FW, 'reactintl');
  it('react-intl: defineMessages / defineMessage ids; a file naming nothing else gets past the prefilter', () => {
    assert.deepEqual(usagesOf(ri, 'src/messages.ts'), ['4:17 defineMessages app.title=app.title', '5:19 defineMessages app.empty=app.empty', '8:43 defineMessage app.retry=app.retry']);
    assert.deepEqual(usedBy(ri, 'Erneut versuchen'), ['src/messages.ts:8']);
  });

  it('react-intl: intl.formatMessage({id}), <FormattedMessage id>, a renamed formatMessage from useIntl(), messages.k of a defineMessages of the file', () => {
    assert.deepEqual(usagesOf(ri, 'src/Gallery.tsx'), [
      '3:47 defineMessages gallery.upload=gallery.upload',
      '9:52 intl.formatMessage gallery.label=gallery.label',
      '10:29 <FormattedMessage id> gallery.count=gallery.count',
      '11:29 <FormattedMessage> gallery.upload=local.upload',
      '12:19 fm gallery.upload=local.upload',
      '13:17 fm gallery.sort.*=`gallery.sort.${count}`',
    ]);
    assert.deepEqual(usedBy(ri, 'Fotos hochladen'), ['src/Gallery.tsx:3', 'src/Gallery.tsx:11', 'src/Gallery.tsx:12']);
    assert.deepEqual(usedBy(ri, '{count} Fotos'), ['src/Gallery.tsx:10']);
    assert.deepEqual(load(ri).health().counts, { undefined: 0, unused: 0, missing: 0, 'only-in': 0, identical: 0 });
  });

  const du = path.join(FW, 'docusaurus');
  it('Docusaurus: translate({id}), <Translate id>; without an id the message is the key', () => {
    assert.deepEqual(usagesOf(du, 'src/theme/CodeBlock/CopyButton.tsx'), [
      '7:36 translate theme.CodeBlock.copyButtonAriaLabel=theme.CodeBlock.copyButtonAriaLabel',
      '8:36 translate Copy=Copy',
      '10:24 <Translate id> theme.CodeBlock.copied=theme.CodeBlock.copied',
      '13:11 <Translate> Copy=Copy',
    ]);
    assert.deepEqual(usedBy(du, 'Copié'), ['src/theme/CodeBlock/CopyButton.tsx:10']);
    // no import of @docusaurus/Translate: a message without an id is no key, an id still is
    assert.deepEqual(findUsages('a.tsx', "translate({ message: 'Copy' }); translate({ id: 'a.b' }); const x = <Translate>Copy</Translate>;").map((u) => u.key), ['a.b']);
  });

  it('bad input: descriptors without ids, empty elements, computed members, no arguments: no usage, no throw', () => {
    const code = 'formatMessage(); defineMessages(); defineMessages({ a: 1, b: { id: x } }); defineMessage(1); translate(); const a = <FormattedMessage />; const b = <Translate></Translate>; intl.formatMessage(msgs[k]); fm(';
    assert.deepEqual(findUsages('x.tsx', code), []);
    assert.deepEqual(findUsages('x.tsx', code.slice(0, -4)), []);
  });

  it('Docusaurus locales: base/ is the English source, ___DESCRIPTION notes are neither keys nor values', () => {
    const ix = load(du);
    assert.deepEqual(ix.localeFiles, ['locales/base/theme-common.json', 'locales/fr/theme-common.json']);
    assert.deepEqual([...ix.keyValues()].map(([k, v]) => `${k}=${v.map((x) => `${x.locale}:${x.value}`).join('|')}`).sort(), [
      'theme-common:theme.CodeBlock.copied=en:Copied|fr:Copié',
      'theme-common:theme.CodeBlock.copyButtonAriaLabel=en:Copy code to clipboard|fr:Copier le code',
      'theme-common:theme.NotFound.title=en:Page Not Found|fr:Page introuvable',
    ]);
    assert.equal(ix.lookupLexical('The copied button label on code blocks').candidates.length, 0);
    const h = ix.health();
    assert.equal(h.sourceLocales[''], 'en');
    assert.deepEqual(h.findings.filter((f) => f.kind !== 'undefined').map((f) => `${f.kind} ${f.key}`), ['unused theme-common:theme.NotFound.title']);
    // a base folder is a locale only with the translator notes
    assert.deepEqual(identifyLocale('locales/base/theme-common.json'), { locale: 'en', namespace: 'theme-common', from: 'folder', base: true });
    assert.equal(identifyLocale('src/base/theme-common.json'), undefined);
    assert.ok(!ix.localeFiles.includes('other/locales/base/config.json'));
  });

  it('message objects (a Docusaurus site\'s i18n/<lang>/code.json, FormatJS extracted files): the key is the object, its text the value, notes no value', () => {
    const site = path.join(FW, 'docusaurus-site');
    const ix = load(site);
    assert.deepEqual([...ix.keyValues()].map(([k, v]) => `${k}=${v.map((x) => `${x.locale}:${x.value}`).join('|')}`), ['code:homepage.title=fr:Bienvenue', "code:homepage.tagline=fr:Une documentation qui s'écrit toute seule"]);
    assert.deepEqual(usedBy(site, 'Bienvenue'), ['src/pages/index.tsx:6']);
    assert.deepEqual(usedBy(site, "Une documentation qui s'écrit toute seule"), ['src/pages/index.tsx:7']);
    assert.equal(ix.lookupLexical('The tagline under the title').candidates.length, 0);
    assert.deepEqual(ix.health().counts, { undefined: 0, unused: 0, missing: 0, 'only-in': 0, identical: 0 });
    // the key range is the object's key when the text comes first, else the text's field name
    const text = fs.readFileSync(path.join(site, 'i18n/fr/code.json'), 'utf8');
    const keys = readLocaleJson('i18n/fr/code.json', text)!.entries.map((e) => text.slice(e.ks, e.ke));
    assert.deepEqual(keys.sort(), ['homepage.title', 'message']);
    // a dictionary that only has a `message` somewhere, or a single one, stays a dictionary
    const paths = (t: string) => readLocaleJson('locales/en.json', t)!.entries.map((e) => e.path).sort();
    assert.deepEqual(paths('{"errors": {"message": "Error", "code": "Code"}, "ok": {"message": "Fine"}}'), ['errors.code', 'errors.message', 'ok.message']);
    assert.deepEqual(paths('{"errors": {"message": "Error", "description": "Shown on failure"}}'), ['errors.description', 'errors.message']);
    assert.deepEqual(paths('{"a": {"defaultMessage": "A", "description": "x"}, "b": {"defaultMessage": "B"}}'), ['a', 'b']);
  });

  it('the search feed: a chunk using a namespaced key without its namespace gets the source value', () => {
    const rel = 'src/theme/CodeBlock/CopyButton.tsx';
    const text = fs.readFileSync(path.join(du, rel), 'utf8');
    const chunk = { path: rel, text, start: { line: 1, column: 0, offset: 0 }, end: { line: 18, column: 0, offset: text.length } } as unknown as Chunk;
    assert.deepEqual(i18nFeed(load(du)).textFor(chunk)?.split('\n').sort(), ['Copied', 'Copy code to clipboard']);
  });
});

describe('i18n usages: Laravel, Rails, Dart, UI5', () => {
  it('Laravel: __(), trans_choice() in PHP (AST), __() / @lang / trans() in Blade', () => {
    const lv = path.join(FMT, 'laravel');
    assert.deepEqual(usagesOf(lv, 'resources/views/welcome.blade.php'), ['1:12 __ messages.welcome=messages.welcome', '2:11 @lang messages.nested.deep=messages.nested.deep', '3:14 trans messages.missing=messages.missing']);
    assert.deepEqual(usagesOf(lv, 'app/Http/HomeController.php'), ['7:30 trans_choice messages.welcome=messages.welcome', '7:58 __ messages.nested.deep=messages.nested.deep']);
    assert.deepEqual(usedBy(lv, 'Valeur profonde'), ['app/Http/HomeController.php:7', 'resources/views/welcome.blade.php:2']);
  });

  it("PHP's gettext: _('id'), gettext('id') (AST, comments skipped), dgettext's id after the domain; PO locales of a PHP app", () => {
    const gp = path.join(FW, 'gettext-php');
    assert.deepEqual(usagesOf(gp, 'index.php'), ['3:9 _ hello_world=hello_world', '4:15 gettext sign_in=sign_in', '6:11 _ hello_world=hello_world']);
    assert.deepEqual(usedBy(gp, '你好世界'), ['index.php:3', 'index.php:6']);
    assert.deepEqual(load(gp).lookupLexical('登录').candidates[0].locales.map((l) => l.locale), ['en-US', 'zh-CN']);
    assert.deepEqual(findUsages('a.php', "<?php echo dgettext('shop', 'cart') . ngettext('item', 'items', 2);").map((u) => `${u.via} ${u.key}`), ['dgettext cart', 'ngettext item']);
  });

  it('Rails: lazy t(".k") from the view path, t "k" without parentheses, I18n.t', () => {
    const rl = path.join(FMT, 'rails');
    assert.deepEqual(usagesOf(rl, 'app/views/users/index.html.erb'), ['1:12 t users.index.title=.title', '2:11 t users.index.empty=.empty', '3:13 I18n.t flash.saved=flash.saved']);
    assert.deepEqual(usedBy(rl, 'Aucun utilisateur'), ['app/views/users/index.html.erb:2']);
    assert.deepEqual(railsLazyScope('app/views/admin/users/_form.html.haml'), { scope: 'admin.users.form', partial: false });
    assert.deepEqual(railsLazyScope('app/controllers/admin/users_controller.rb'), { scope: 'admin.users', partial: true });
  });

  it('Dart: "k".tr(), tr("k"), context.tr("k")', () => {
    const fl = path.join(FMT, 'flutter');
    assert.deepEqual(usagesOf(fl, 'lib/main.dart'), ['5:11 .tr() helloWorld=helloWorld', '6:14 tr itemCount=itemCount', '7:22 context.tr helloWorld=helloWorld']);
    assert.deepEqual(usedBy(fl, '¡Hola Mundo!'), ['lib/main.dart:5', 'lib/main.dart:7']);
    assert.deepEqual(findUsages('a.dart', "// 'x'.tr()\nfinal s = AppLocalizations.of(context)!.helloWorld;").map((u) => `${u.via} ${u.key}`), ['AppLocalizations.of(context)! helloWorld']);
  });

  it('Flutter flutter_i18n: FlutterI18n.translate/plural(context, "k"), I18nText("k"); the key is the second argument', () => {
    const fi = path.join(FW, 'flutter_i18n');
    assert.deepEqual(usagesOf(fi, 'lib/main.dart'), [
      '5:49 FlutterI18n.translate button.label.clickMe=button.label.clickMe',
      '8:6 FlutterI18n.plural button.clicked.times=button.clicked.times',
      '12:15 I18nText title=title',
      '13:47 FlutterI18n.translate title=title',
    ]);
    assert.deepEqual(usedBy(fi, 'Cliccami'), ['lib/main.dart:5']);
    assert.deepEqual(load(fi).lookupLexical('Cliccami').candidates[0].locales.map((l) => l.locale), ['en', 'it']);
  });

  it('UI5 XML views: {i18n>key}', () => {
    assert.deepEqual(usagesOf(path.join(FMT, 'ui5'), 'webapp/view/Main.view.xml'), ['2:22 {i18n>} appTitle=appTitle', '3:23 {i18n>} greeting=greeting']);
  });
});
