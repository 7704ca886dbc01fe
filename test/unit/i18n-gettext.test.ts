/**
 * gettext beyond JS (src/i18n/frameworks/gettext.ts, src/i18n/formats/po.ts): the usages of a
 * message id in Python (Django, Flask-Babel) and in Django / Jinja templates, found from the
 * text a user sees; Django's layout of PO catalogs (a locale folder above `LC_MESSAGES` for
 * any language, a compiled `.mo` beside each `.po`).
 */
import { strict as assert } from 'node:assert';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based). */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.key}=${text.slice(u.range.start.offset, u.range.end.offset)}`);
}

const po = (lang: string, entries: Array<[string, string, string?]>) =>
  `msgid ""\nmsgstr ""\n"Language: ${lang}\\n"\n\n` + entries.map(([id, str, ctx]) => `${ctx ? `msgctxt "${ctx}"\n` : ''}msgid "${id}"\nmsgstr "${str}"\n`).join('\n');

describe('i18n: gettext in Python and Django / Jinja templates', function () {
  it('Python: _, gettext, gettext_lazy, ngettext, translation.gettext, u/r prefixes and triple quotes; pgettext keyed by its context; comments, f-strings and other _ calls are not usages', function () {
    const py = [
      'from django.utils.translation import gettext_lazy as _, pgettext',
      "REQUIRED = _('This field is required.')",
      'label = gettext_lazy(u"Save")  # _("not this")',
      "# _('a comment')",
      'n = ngettext("One item", "%(n)s items", count)',
      'x = translation.gettext(r"Raw text")',
      "month = pgettext('month name', 'May')",
      'doc = _("""Long',
      'text""")',
      'f = _(f"Hello {name}")',
      'y = obj._(value)',
    ].join('\n');
    assert.deepEqual(usages('app/forms.py', py), [
      '2:15 _ This field is required.=This field is required.',
      '3:24 gettext_lazy Save=Save',
      '5:15 ngettext One item=One item',
      '6:27 gettext Raw text=Raw text',
      '7:33 pgettext month name|May=May',
      '8:12 _ Long\ntext=Long\ntext',
    ]);
  });

  it('templates: Django trans / translate tags (with a context), gettext calls in {{ }}; {# comments #} skipped; an .html file keeps its Angular usages too', function () {
    const html = [
      "<input value=\"{% translate 'Save and add another' %}\">",
      '{% trans "Log out" %} {# {% trans "commented" %} #}',
      '{% translate "May" context "month name" %}',
      "<p>{{ _('Welcome back') }}</p> <span translate>app.title</span>",
    ].join('\n');
    assert.deepEqual(usages('templates/base.html', html), [
      '1:29 trans Save and add another=Save and add another',
      '2:11 trans Log out=Log out',
      '3:15 trans month name|May=May',
      '4:10 _ Welcome back=Welcome back',
      '4:48 translate app.title=app.title',
    ]);
    assert.deepEqual(usages('templates/mail.jinja2', "{{ gettext('Reset your password') }}"), ['1:13 gettext Reset your password=Reset your password']);
    // blocktranslate: the message id makemessages writes (variables as %(name)s, % doubled, trimmed lines joined, the singular of a plural)
    const blocks = [
      '<p>{% blocktranslate with username=original %}Enter a new password for <strong>{{ username }}</strong>.{% endblocktranslate %}</p>',
      '{% blocktranslate count counter=n %}{{ counter }} result{% plural %}{{ counter }} results{% endblocktranslate %}',
      '{% blocktrans trimmed context "login" %}',
      '  You are signed in as {{ user }}, 100% sure.',
      '  Not you?',
      '{% endblocktrans %}',
      '{% blocktranslate %}Total: {{ amount|floatformat }}{% endblocktranslate %}',
    ].join('\n');
    assert.deepEqual(
      findUsages('templates/account.html', blocks).map((u) => `${u.range.start.line} ${u.via} ${u.key}`),
      ['1 blocktranslate Enter a new password for <strong>%(username)s</strong>.', '2 blocktranslate %(counter)s result', '3 blocktranslate login|You are signed in as %(user)s, 100%% sure. Not you?'],
      'a body with a filter is no message id: not a usage',
    );
  });

  it('WordPress: __, _e, esc_html__, _n (the singular), _x / _nx keyed by their context, in PHP; the plugin\'s languages/<domain>-<locale>.po finds them', function () {
    const php = [
      '<?php',
      "echo esc_html__( 'Settings saved.', 'myplugin' );",
      "_e( 'Save Changes', 'myplugin' );",
      "printf( _n( '%s item', '%s items', $n, 'myplugin' ), $n );",
      "$label = _x( 'Post', 'noun', 'myplugin' );",
      "$l2 = _nx( '%s post', '%s posts', $n, 'noun', 'myplugin' );",
      "// __( 'commented' )",
      "$other = translate_this( 'not a key' );",
    ].join('\n');
    assert.deepEqual(usages('includes/admin.php', php), [
      '2:19 esc_html__ Settings saved.=Settings saved.',
      '3:6 _e Save Changes=Save Changes',
      '4:14 _n %s item=%s item',
      '5:15 _x noun|Post=Post',
      '6:13 _nx noun|%s post=%s post',
    ]);
    const files = {
      'languages/myplugin-fr_FR.po': po('fr_FR', [['Settings saved.', 'Réglages enregistrés.'], ['Post', 'Article', 'noun']]),
      'includes/admin.php': php,
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const saved = index.lookupLexical('Réglages enregistrés.').candidates[0];
    assert.equal(saved?.key, 'Settings saved.');
    assert.deepEqual(saved.usages.map((u) => `${u.file}:${u.range.start.line}`), ['includes/admin.php:2']);
    const post = index.lookupLexical('Article').candidates[0];
    assert.equal(post?.key, 'noun|Post');
    assert.deepEqual(post.usages.map((u) => `${u.file}:${u.range.start.line}`), ['includes/admin.php:5']);
  });

  it("Django's catalogs: a locale folder of any language above LC_MESSAGES (dsb), a header's Language, the .mo beside a .po said nothing of; the text finds its key in every locale and its usages", function () {
    const files = {
      'app/locale/de/LC_MESSAGES/django.po': po('de', [['This field is required.', 'Dieses Feld ist zwingend erforderlich.']]),
      'app/locale/de/LC_MESSAGES/django.mo': new Uint8Array([0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0]),
      'app/locale/dsb/LC_MESSAGES/django.po': po('dsb', [['This field is required.', 'Toś to pólo jo trěbne.']]),
      'app/locale/dsb/LC_MESSAGES/django.mo': new Uint8Array([0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0]),
      'other/translations/catalog.po': po('hsb', [['This field is required.', 'Tute polo je trěbne.']]),
      'lonely/locale/fr/LC_MESSAGES/django.mo': new Uint8Array([0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0]),
      'app/forms.py': "from django.utils.translation import gettext_lazy as _\nREQUIRED = _('This field is required.')\n",
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const r = index.lookupLexical('Dieses Feld ist zwingend erforderlich.');
    const c = r.candidates[0];
    assert.equal(c?.key, 'This field is required.');
    assert.deepEqual(c.locales.map((l) => l.locale), ['de', 'dsb', 'hsb']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['app/forms.py:2']);
    const problems = index.problems.map((p) => `${p.file}: ${p.kind}`);
    assert.deepEqual(problems, ['lonely/locale/fr/LC_MESSAGES/django.mo: unsupported'], 'only the .mo without its .po is said');
  });
});
