/**
 * .NET resources (src/i18n/formats/resx.ts, src/i18n/frameworks/dotnet.ts): `.resx` / `.resw`
 * files read with exact key and value ranges, their culture from the name (or a `.resw`'s
 * folder), the neutral file as `und`; the usages of their keys in C#, VB, Razor and XAML; and a
 * displayed text found back to its key, its locales and the code that uses it.
 */
import { strict as assert } from 'node:assert';
import { formatOf } from '../../src/i18n/formats/index';
import { resxFormat, resxLocale } from '../../src/i18n/formats/resx';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based; dynamic ones marked). */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.key}=${text.slice(u.range.start.offset, u.range.end.offset)}${u.dynamic ? ' (dynamic)' : ''}`);
}

/** A .resx file of these string resources, with the usual header. */
const resx = (entries: Array<[string, string]>) =>
  [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<root>',
    '  <resheader name="resmimetype"><value>text/microsoft-resx</value></resheader>',
    ...entries.map(([k, v]) => `  <data name="${k}" xml:space="preserve">\n    <value>${v}</value>\n  </data>`),
    '</root>',
    '',
  ].join('\n');

describe('i18n: .NET resources (.resx / .resw)', function () {
  it('reads <data> strings with exact key and value ranges and entities decoded; skips non-text data, designer bookkeeping and the header', function () {
    const text = [
      '<?xml version="1.0" encoding="utf-8"?>',
      '<root>',
      '  <xsd:schema id="root" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:element name="root" /></xsd:schema>',
      '  <resheader name="resmimetype"><value>text/microsoft-resx</value></resheader>',
      '  <assembly alias="System.Drawing" name="System.Drawing, Version=4.0.0.0" />',
      '  <data name="SignOut" xml:space="preserve">',
      '    <value>Sign out &amp; leave</value>',
      '    <comment>The menu item</comment>',
      '  </data>',
      '  <data name="Logo" type="System.Drawing.Bitmap, System.Drawing" mimetype="application/x-microsoft.net.object.bytearray.base64"><value>iVBORw0KGgo=</value></data>',
      '  <data name="Typed" type="System.String, mscorlib"><value>Typed &lt;text&gt;</value></data>',
      '  <data name="Empty" xml:space="preserve"><value /></data>',
      '  <data name="&gt;&gt;label1.Name" xml:space="preserve"><value>label1</value></data>',
      '  <metadata name="toolTip1.TrayLocation" type="System.Drawing.Point"><value>17, 17</value></metadata>',
      '</root>',
    ].join('\r\n');
    const lf = resxFormat.read('Properties/Resources.resx', text, {});
    assert.ok(lf);
    assert.deepEqual(lf.problems, []);
    assert.deepEqual(
      lf.entries.map((e) => `${e.locale} ${e.path}=${e.value} [${text.slice(e.ks, e.ke)}] [${text.slice(e.vs, e.ve)}] line ${lf.lines.position(e.ks).line}`),
      [
        'und SignOut=Sign out & leave [SignOut] [Sign out &amp; leave] line 6',
        'und Typed=Typed <text> [Typed] [Typed &lt;text&gt;] line 11',
        'und Empty= [Empty] [] line 12',
      ],
    );
    const iconOnly = '<?xml version="1.0" encoding="utf-8"?>\n<root>\n  <data name="$this.Icon" type="System.Drawing.Icon, System.Drawing" mimetype="application/x-microsoft.net.object.bytearray.base64"><value>AAABAA==</value></data>\n</root>\n';
    assert.equal(resxFormat.read('Forms/MainForm.resx', iconOnly, {}), undefined, 'a .resx with no string resources is no locale file');
  });

  it('a multi-line value reads as an XML reader gives it (\\n line ends); a key twice is reported', function () {
    const text = resx([['Body', 'Line one\r\nLine two'], ['Body', 'Again']]);
    const lf = resxFormat.read('Strings.de.resx', text, {});
    assert.deepEqual(lf?.entries.map((e) => `${e.locale} ${e.path}=${e.value}`), ['de Body=Again']);
    assert.deepEqual(lf?.problems.map((p) => `${p.kind} ${p.line}`), ['duplicate 8']);
    assert.equal(resxFormat.read('Strings.resx', resx([['Body', 'Line one\r\nLine two']]), {})?.entries[0].value, 'Line one\nLine two');
  });

  it('the culture: from the name (Strings.fr, Resources.pt-BR, Strings.zh-Hans), a .resw folder (Strings/en-US, language-fr); else neutral und', function () {
    const cases: Record<string, string> = {
      'Properties/Resources.resx': 'und',
      'Resources/Strings.fr.resx': 'fr',
      'Resources/Resources.pt-BR.resx': 'pt-BR',
      'Strings.zh-Hans.resx': 'zh-Hans',
      'Resources/Views/Home/Index.es.resx': 'es',
      'Forms/MainForm.resx': 'und',
      'My.Project.Strings.resx': 'und',
      'IT/Strings.resx': 'und',
      'App/Strings/en-US/Resources.resw': 'en-US',
      'App/Strings/language-fr/Resources.resw': 'fr',
      'App/Strings/Resources.resw': 'und',
    };
    for (const [rel, locale] of Object.entries(cases)) assert.equal(resxLocale(rel), locale, rel);
    assert.equal(formatOf('Properties/Resources.fr.resx')?.name, '.NET resources');
    assert.equal(formatOf('Strings/de-DE/Resources.resw')?.name, '.NET resources');
    assert.equal(formatOf('Properties/Resources.Designer.cs'), undefined, 'the generated class is code');
    const globs = (rel: string) => rel.startsWith('i18n/');
    assert.equal(formatOf('i18n/Strings.fr.resx', { matchesGlobs: globs })?.name, '.NET resources');
    assert.equal(formatOf('Properties/Resources.fr.resx', { matchesGlobs: globs }), undefined, 'with globs, only what they match');
  });

  it('a file that is not well-formed, or has no <root>, is one malformed problem with its line; the other files are still read', function () {
    const broken = resx([['SignOut', 'Abmelden']]).replace('</value>\n  </data>', '\n  </data>');
    const { index } = loadI18nIndex(
      new MemoryFileSource({
        'Properties/Resources.resx': resx([['SignOut', 'Sign out']]),
        'Properties/Resources.de.resx': broken,
        'Properties/Resources.it.resx': '<?xml version="1.0"?>\n<resources><string name="a">x</string></resources>\n',
        'Properties/Resources.fr.resx': resx([['SignOut', 'Se déconnecter']]),
      }),
    );
    assert.deepEqual(index.problems.map((p) => `${p.kind} ${p.file}:${p.line ?? '-'} ${p.message}`), [
      'malformed Properties/Resources.de.resx:5 .NET resources are not well-formed: <value> at line 5, column 5 is never closed: not read',
      'malformed Properties/Resources.it.resx:- no <root> element: not read',
    ]);
    assert.deepEqual(index.lookupLexical('Se déconnecter').candidates[0]?.locales.map((l) => `${l.locale}=${l.value}`), ['fr=Se déconnecter', 'und=Sign out']);
  });

  it('C#: the generated class (Resources.Key, Properties.Resources.Key, App.Resources.Strings.Key), GetString, localizers, data annotations; not the class itself, its members, calls, types or comments', function () {
    const cs = [
      'using MyApp.Properties;',
      'using R = MyApp.Resources.Strings;',
      'namespace MyApp.Resources.Strings;',
      'public class LoginModel {',
      '  [Required(ErrorMessageResourceName = "Required", ErrorMessageResourceType = typeof(Resources))]',
      '  [Display(Name = "Email", Prompt = "EmailHint", ResourceType = typeof(App.Resources.SharedStrings))]',
      '  public string Email { get; set; }',
      '  [Display(Name = "Not a key")]',
      '  public string Other { get; set; }',
      '  void Show() {',
      '    label.Text = Properties.Resources.SignOut; // Resources.Commented',
      '    var t = Resources.ResourceManager.GetString("Greeting", Resources.Culture);',
      '    var x = App.Resources.Strings.Title.ToUpper() + nameof(Resources.Welcome);',
      '    /* Strings.Block */ var y = _localizer["Hello"] + Localizer[@"Say ""hi"""] + L["Abp"] + T["Orchard"];',
      '    var z = _localizer[$"Status_{s}"] + SharedLocalizer.GetString("Shared") + Strings.Format("x") + messages.Count;',
      '  }',
      '}',
    ].join('\n');
    assert.deepEqual(usages('Pages/Login.cshtml.cs', cs), [
      '5:41 ErrorMessageResourceName Required=Required',
      '6:20 Display(Name) Email=Email',
      '6:38 Display(Prompt) EmailHint=EmailHint',
      '11:39 Resources SignOut=SignOut',
      '12:50 GetString Greeting=Greeting',
      '13:35 Strings Title=Title',
      '13:70 Resources Welcome=Welcome',
      '14:45 _localizer[] Hello=Hello',
      '14:67 Localizer[] Say "hi"=Say ""hi""',
      '14:85 L[] Abp=Abp',
      '14:96 T[] Orchard=Orchard',
      '15:26 _localizer[] Status_=Status_ (dynamic)',
      '15:68 GetString Shared=Shared',
    ]);
    const designer = [
      '[global::System.CodeDom.Compiler.GeneratedCodeAttribute("System.Resources.Tools.StronglyTypedResourceBuilder", "17.0.0.0")]',
      'internal class Resources {',
      '  internal static string SignOut { get { return ResourceManager.GetString("SignOut", resourceCulture); } }',
      '}',
    ].join('\n');
    assert.deepEqual(usages('Properties/Resources.Designer.cs', designer), [], 'the class generated from a .resx defines its keys');
  });

  it('Razor, VB and XAML: @Localizer / @Resources, comments of each language, x:Static of a resource class, x:Uid', function () {
    const razor = [
      '@inject IViewLocalizer Localizer',
      '@using MyApp.Resources',
      '<a href="https://example.org">@Localizer["Home"]</a> <span>@SharedResource.About</span>',
      '@* <p>@Localizer["Hidden"]</p> *@',
      '@{',
      '  // var c = Localizer["Commented"];',
      '  var v = L["Kept"]; /* T["Block"] */',
      '}',
    ].join('\n');
    assert.deepEqual(usages('Views/Home/Index.cshtml', razor), ['3:43 Localizer[] Home=Home', '3:76 SharedResource About=About', '7:14 L[] Kept=Kept']);
    assert.deepEqual(usages('Pages/Counter.razor', '<h1>@Loc["Title"] @Localizer["Counter"]</h1>'), ['1:31 Localizer[] Counter=Counter']);
    const vb = ['Dim s = My.Resources.Hello \' My.Resources.Commented', 'Dim t = rm.GetString("Bye")', '<Display(Name:="Email", ResourceType:=GetType(Resources))>'].join('\n');
    assert.deepEqual(usages('Forms/Main.vb', vb), ['1:22 Resources Hello=Hello', '2:23 GetString Bye=Bye', '3:17 Display(Name) Email=Email']);
    const xaml = [
      '<Window xmlns:p="clr-namespace:App.Properties">',
      '  <TextBlock Text="{x:Static p:Resources.Title}" />',
      '  <Button Content="{Binding Source={x:Static res:AppResources.Save}}" />',
      '  <!-- <TextBlock Text="{x:Static p:Resources.Commented}" /> -->',
      '  <TextBlock x:Uid="Greeting" Height="{x:Static SystemParameters.CaptionHeight}" />',
      '  <Window.Resources><x:String x:Key="k">Resources.NotAKey</x:String></Window.Resources>',
      '</Window>',
    ].join('\n');
    assert.deepEqual(usages('MainWindow.xaml', xaml), ['2:42 x:Static Title=Title', '3:63 x:Static Save=Save', '5:21 x:Uid Greeting.=Greeting (dynamic)']);
  });

  it('end to end: a French text finds its key in the neutral and French .resx, and its usages in C# and Razor', function () {
    const files = {
      'Properties/Resources.resx': resx([['SignOut', 'Sign out'], ['Welcome', 'Welcome back']]),
      'Properties/Resources.fr.resx': resx([['SignOut', 'Se déconnecter'], ['Welcome', 'Bon retour']]),
      'Properties/Resources.Designer.cs': '// <auto-generated> by System.Resources.Tools.StronglyTypedResourceBuilder\ninternal static string SignOut => ResourceManager.GetString("SignOut", resourceCulture);\n',
      'Forms/MainForm.cs': 'partial class MainForm {\n  void Init() {\n    signOut.Text = Properties.Resources.SignOut;\n  }\n}\n',
      'Views/Shared/_Layout.cshtml': '@inject IViewLocalizer Localizer\n<h1>@Localizer["Welcome"]</h1>\n',
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const out = index.lookupLexical('Se déconnecter').candidates[0];
    assert.equal(out?.key, 'SignOut');
    assert.deepEqual(out.locales.map((l) => `${l.locale}=${l.value} ${l.file}:${l.range.start.line}`), ['fr=Se déconnecter Properties/Resources.fr.resx:5', 'und=Sign out Properties/Resources.resx:5']);
    assert.deepEqual(out.usages.map((u) => `${u.file}:${u.range.start.line} ${u.via}`), ['Forms/MainForm.cs:3 Resources']);
    const welcome = index.lookupLexical('Bon retour').candidates[0];
    assert.equal(welcome?.key, 'Welcome');
    assert.deepEqual(welcome.usages.map((u) => `${u.file}:${u.range.start.line} ${u.via}`), ['Views/Shared/_Layout.cshtml:2 Localizer[]']);
    assert.deepEqual(index.problems, []);
  });
});
