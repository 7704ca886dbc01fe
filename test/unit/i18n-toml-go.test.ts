/**
 * TOML locale files (src/i18n/formats/toml.ts: Hugo's `i18n/<lang>.toml`, go-i18n's
 * `active.<lang>.toml`) and their usages in Go code and Go / Hugo templates
 * (src/i18n/frameworks/go.ts): the text a user sees finds its message in every locale file and
 * the code that shows it.
 */
import { strict as assert } from 'node:assert';
import { formatOf, readLocaleFormat } from '../../src/i18n/formats/index';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based; `*` marks a dynamic key). */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.key}${u.dynamic ? '*' : ''}=${text.slice(u.range.start.offset, u.range.end.offset)}`);
}

/** Each entry as `locale path=value (also …) @value's range key@key's range`. */
function entries(rel: string, text: string): string[] {
  const lf = readLocaleFormat(rel, text);
  assert.ok(lf, `${rel} is read`);
  assert.deepEqual(lf.problems, []);
  return lf.entries.map((e) => `${e.locale} ${e.path}=${e.value}${e.also ? ` (also ${e.also.join(' / ')})` : ''} @${text.slice(e.vs, e.ve)} key@${text.slice(e.ks, e.ke)}`);
}

describe('i18n: TOML locale files, Go and Hugo templates', function () {
  it("Hugo: flat keys, inline tables, plural tables, nested keys and quoted keys, with exact ranges; other values are no messages", function () {
    const toml = [
      '# French',
      'home = "Accueil"',
      'readMore = { other = "Lire la suite" }',
      '"sign in" = \'Connexion\'',
      'weight = 3',
      'updated = 1979-05-27 07:32:00Z',
      'tags = ["a", "b",',
      '  "c"]',
      '',
      '[wordCount]',
      'one = "{{ .Count }} mot"',
      'other = "{{ .Count }} mots" # a comment',
      '',
      '[footer.links]',
      'about = "À propos"',
      'legal.terms = "Conditions"',
      '',
      '[footer.links.contact]',
      'other = "Contact"',
    ].join('\n');
    assert.deepEqual(entries('i18n/fr.toml', toml), [
      'fr home=Accueil @Accueil key@home',
      'fr readMore=Lire la suite @Lire la suite key@readMore',
      'fr sign in=Connexion @Connexion key@sign in',
      'fr wordCount={{ .Count }} mots (also {{ .Count }} mot) @{{ .Count }} mots key@wordCount',
      'fr footer.links.about=À propos @À propos key@about',
      'fr footer.links.legal.terms=Conditions @Conditions key@legal.terms',
      'fr footer.links.contact=Contact @Contact key@footer.links.contact',
    ]);
    assert.deepEqual(entries('themes/ananke/i18n/de.toml', 'home = "Startseite"'), ['de home=Startseite @Startseite key@home']);
  });

  it('strings: escapes, literal strings, multi-line strings (the first newline trimmed, a line-ending backslash joins)', function () {
    const toml = [
      'escaped = "Tab\\there, \\"quoted\\", back\\\\slash, \\u00e9t\\u00E9 \\U0001F600"',
      "literal = 'C:\\Users\\{{ .Name }}'",
      'multi = """',
      'Bonjour,',
      'le monde"""',
      'joined = """Un \\',
      '    texte"""',
      "raw = '''",
      "Pas d'\\échappement'''",
      'quotes = """Il a dit "oui"""""',
    ].join('\n');
    assert.deepEqual(entries('i18n/fr.toml', toml), [
      'fr escaped=Tab\there, "quoted", back\\slash, été 😀 @Tab\\there, \\"quoted\\", back\\\\slash, \\u00e9t\\u00E9 \\U0001F600 key@escaped',
      'fr literal=C:\\Users\\{{ .Name }} @C:\\Users\\{{ .Name }} key@literal',
      'fr multi=Bonjour,\nle monde @Bonjour,\nle monde key@multi',
      'fr joined=Un texte @Un \\\n    texte key@joined',
      "fr raw=Pas d'\\échappement @Pas d'\\échappement key@raw",
      'fr quotes=Il a dit "oui"" @Il a dit "oui"" key@quotes',
    ]);
    const crlf = '\uFEFFhome = "Accueil"\r\nmulti = """\r\nUn\r\ndeux"""\r\n';
    assert.deepEqual(entries('i18n/fr.toml', crlf), ['fr home=Accueil @Accueil key@home', 'fr multi=Un\ndeux @Un\r\ndeux key@multi'], 'a byte order mark, CRLF line breaks');
  });

  it("go-i18n tables (description and hash are no texts), plain ids, and Hugo's older [[i18n]] id / translation array; other arrays of tables hold no messages", function () {
    const active = [
      '[PersonCats]',
      'description = "The number of cats a person has"',
      'hash = "sha1-4d1e5b4b"',
      'one = "{{.Name}} a {{.Count}} chat."',
      'other = "{{.Name}} a {{.Count}} chats."',
      '',
      '[HelloPerson]',
      'hash = "sha1-5b49bfdad81fedaeefb224b0ffc2acc58b09cff5"',
      'other = "Bonjour {{.Name}}"',
    ].join('\n');
    assert.deepEqual(entries('active.fr.toml', active), [
      'fr PersonCats={{.Name}} a {{.Count}} chats. (also {{.Name}} a {{.Count}} chat.) @{{.Name}} a {{.Count}} chats. key@PersonCats',
      'fr HelloPerson=Bonjour {{.Name}} @Bonjour {{.Name}} key@HelloPerson',
    ]);
    assert.deepEqual(entries('translate.es.toml', 'Goodbye = "Adiós"'), ['es Goodbye=Adiós @Adiós key@Goodbye']);
    assert.deepEqual(entries('locales/zh-Hans.toml', '[Cats]\nother = "猫"'), ['zh-Hans Cats=猫 @猫 key@Cats']);
    const legacy = [
      '[[i18n]]',
      'id = "home"',
      'translation = "Startseite"',
      '',
      '[[i18n]]',
      'id = "posts"',
      'translation = { one = "Beitrag", other = "Beiträge" }',
      '',
      '[[menu]]',
      'name = "Start"',
    ].join('\n');
    assert.deepEqual(entries('i18n/de.toml', legacy), [
      'de home=Startseite @Startseite key@home',
      'de posts=Beiträge (also Beitrag) @Beiträge key@posts',
    ]);
  });

  it('only TOML files that name a locale are read: Cargo.toml, pyproject.toml, Hugo’s config and a crate in a `ja/` folder are not; with globs, what they match', function () {
    for (const rel of ['Cargo.toml', 'pyproject.toml', 'config.toml', 'hugo.toml', 'crates/ja/Cargo.toml', 'config/_default/menus.en.toml']) {
      assert.equal(formatOf(rel), undefined, rel);
    }
    for (const rel of ['i18n/en.toml', 'themes/t/i18n/de.toml', 'active.fr.toml', 'translate.fr.toml', 'locales/en.toml', 'config/locales/pt-BR.toml']) {
      assert.equal(formatOf(rel)?.name, 'TOML', rel);
    }
    const matchesGlobs = (rel: string) => rel.startsWith('strings/');
    assert.equal(formatOf('i18n/en.toml', { matchesGlobs }), undefined);
    assert.equal(readLocaleFormat('strings/en.toml', 'a = "A"', { matchesGlobs })?.entries[0].path, 'a');
    assert.match(readLocaleFormat('strings/app.toml', 'a = "A"', { matchesGlobs })?.problems[0].message ?? '', /holds no messages of a known locale/);
  });

  it('a syntax error is a problem with its line: a line-local one skips that line (a broken header, the keys under it), an unterminated multi-line string keeps the file from being read', function () {
    const toml = ['ok = "Oui"', 'open = "never closed', 'bare = Bonjour', '[broken', 'lost = "perdu"', '[good]', 'other = "Bien"', 'esc = "a\\qb"'].join('\n');
    const lf = readLocaleFormat('i18n/fr.toml', toml);
    assert.deepEqual(
      lf?.entries.map((e) => `${e.path}=${e.value}`),
      ['ok=Oui', 'good.other=Bien', 'good.esc=a\\qb'],
    );
    assert.deepEqual(
      lf?.problems.map((p) => `${p.kind} ${p.line} ${p.message}`),
      [
        'malformed 2 TOML syntax error at line 2: the " string does not close on its line; that line is skipped',
        'malformed 3 TOML syntax error at line 3: a value that is no TOML (a text needs quotes); that line is skipped',
        'malformed 4 TOML syntax error at line 4: "]" expected to close the table header; the keys under that header are skipped',
        'malformed 8 TOML: bad escape "\\q" at line 8: kept as written',
      ],
    );
    const broken = readLocaleFormat('i18n/fr.toml', 'ok = "Oui"\nlong = """\nnever\ncloses\n');
    assert.deepEqual(broken?.entries, []);
    assert.deepEqual(
      broken?.problems.map((p) => `${p.kind} ${p.line} ${p.message}`),
      ['malformed 2 TOML does not parse (the """ string never closes at line 2): not read'],
    );
    const array = readLocaleFormat('i18n/fr.toml', 'a = "A"\nlist = [1, 2\nb = "B"\n');
    assert.deepEqual(array?.entries, [], 'an array that never closes: where it ends is unknown');
    assert.equal(array?.problems[0].line, 3);
  });

  it('Go: MessageID of a LocalizeConfig and ID of a Message literal (go-i18n imported under any name, raw strings, a dynamic suffix); comments and other structs are not', function () {
    const go = [
      'package main',
      '',
      'import (',
      '\t"fmt"',
      '',
      '\tgoi18n "github.com/nicksnyder/go-i18n/v2/i18n"',
      ')',
      '',
      'func greet(localizer *goi18n.Localizer, code string) {',
      '\tfmt.Println("https://example.com") // goi18n.Message{ID: "lineComment"}',
      '\tfmt.Println(localizer.MustLocalize(&goi18n.LocalizeConfig{MessageID: "HelloWorld"}))',
      '\tlocalizer.MustLocalize(&goi18n.LocalizeConfig{',
      '\t\tDefaultMessage: &goi18n.Message{',
      '\t\t\tID:    `PersonCats`,',
      '\t\t\tOther: "{{.Name}} has {{.Count}} cats.",',
      '\t\t},',
      '\t\tPluralCount: 2,',
      '\t})',
      '\t/* i18n.LocalizeConfig{MessageID: "blockComment"} */',
      '\t_ = i18n.LocalizeConfig{MessageID: "errors." + code, TemplateData: map[string]string{"ID": "x"}}',
      '\t_ = &pb.Message{ID: "123"}',
      '\t_ = &goi18n.Message{Description: "ID: \\"no\\"", ID: "Bye"}',
      '}',
    ].join('\n');
    assert.deepEqual(usages('cmd/app/main.go', go), [
      '11:72 LocalizeConfig.MessageID HelloWorld=HelloWorld',
      '14:12 Message.ID PersonCats=PersonCats',
      '20:38 LocalizeConfig.MessageID errors.*=errors.',
      '22:54 Message.ID Bye=Bye',
    ]);
    assert.deepEqual(usages('dot.go', 'import . "github.com/nicksnyder/go-i18n/v2/i18n"\nvar m = &Message{ID: "Dot"}'), ['2:23 Message.ID Dot=Dot']);
  });

  it('Hugo and Go templates: i18n / T / lang.Translate calls, in parens and piped, a printf prefix; template comments and text outside actions are not', function () {
    const tpl = [
      '<nav>',
      '  {{/* {{ i18n "commented" }} */}}',
      '  <a href="/">{{ i18n "home" }}</a> {{ T "readMore" . }} {{- "signOut" | i18n -}}',
      '  {{ $label := "posts" | T }} {{ if eq (i18n "empty") "" }}{{ end }}',
      '  {{ i18n (printf "month%d" .Date.Month) }} {{ lang.Translate "search" }} {{ printf "%s" "notKey" | i18n }}',
      '  {{ T `raw` }} T "outside an action"',
      '</nav>',
    ].join('\n');
    const expected = [
      '3:24 i18n home=home',
      '3:43 T readMore=readMore',
      '3:63 | i18n signOut=signOut',
      '4:17 | T posts=posts',
      '4:47 i18n empty=empty',
      '5:20 i18n month*=month%d',
      '5:64 lang.Translate search=search',
      '6:9 T raw=raw',
    ];
    assert.deepEqual(usages('layouts/partials/header.html', tpl), expected, 'Hugo layouts are .html, read with the other HTML template rules');
    assert.deepEqual(usages('templates/base.gohtml', tpl), expected);
    assert.deepEqual(usages('site/layouts/_default/list.gotmpl', '{{ i18n "x" }}'), ['1:10 i18n x=x']);
  });

  it('a Hugo site: a French text finds its key in both locale files and the layout that shows it', function () {
    const files = {
      'hugo.toml': 'baseURL = "https://example.org/"\ndefaultContentLanguage = "en"\n',
      'i18n/en.toml': 'home = "Home"\n\n[signOut]\nother = "Sign out"\n',
      'i18n/fr.toml': 'home = "Accueil"\n\n[signOut]\nother = "Se déconnecter"\n',
      'layouts/partials/header.html': '<header>\n  <a href="/">{{ i18n "home" }}</a>\n  <button>{{ i18n "signOut" }}</button>\n</header>\n',
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const c = index.lookupLexical('Se déconnecter').candidates[0];
    assert.equal(c?.key, 'signOut');
    assert.deepEqual(c.locales.map((l) => `${l.locale}=${l.value}`).sort(), ['en=Sign out', 'fr=Se déconnecter']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['layouts/partials/header.html:3']);
    assert.deepEqual(index.problems, []);
    assert.deepEqual([...index.localeFiles].sort(), ['i18n/en.toml', 'i18n/fr.toml']);
  });

  it('a go-i18n app: a French text finds its message id in active.fr.toml and the Go code that localizes it', function () {
    const files = {
      'go.mod': 'module example.com/app\n',
      'active.en.toml': '[PersonCats]\ndescription = "How many cats"\none = "{{.Name}} has {{.Count}} cat."\nother = "{{.Name}} has {{.Count}} cats."\n',
      'active.fr.toml': '[PersonCats]\nhash = "sha1-1"\none = "{{.Name}} a {{.Count}} chat."\nother = "{{.Name}} a {{.Count}} chats."\n',
      'main.go': [
        'package main',
        '',
        'import "github.com/nicksnyder/go-i18n/v2/i18n"',
        '',
        'func cats(l *i18n.Localizer) string {',
        '\treturn l.MustLocalize(&i18n.LocalizeConfig{MessageID: "PersonCats", PluralCount: 2})',
        '}',
        '',
      ].join('\n'),
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const c = index.lookupLexical('{{.Name}} a {{.Count}} chat.').candidates[0];
    assert.equal(c?.key, 'PersonCats');
    assert.deepEqual(c.locales.map((l) => `${l.locale}=${l.value}`).sort(), ['en={{.Name}} has {{.Count}} cats.', 'fr={{.Name}} a {{.Count}} chats.']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`), ['main.go:6']);
    assert.deepEqual(index.problems, []);
  });
});
