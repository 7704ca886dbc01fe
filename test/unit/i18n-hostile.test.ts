/**
 * The usage scanners and locale readers on large hostile files: a file of one long line, many
 * comments between many matches, a TOML list of tens of thousands of tables. Each of these took
 * from half a minute to minutes before (a look back to the line's start per match, a linear
 * look through the comments per match, a table's members listed again per assignment); each must
 * answer, whole, well inside the test's time.
 */
import { strict as assert } from 'node:assert';
import { readLocaleFormat } from '../../src/i18n/formats/index';
import { findUsages } from '../../src/i18n/usages';
import { readLocaleScript, readSfcLocales } from '../../src/i18n/locales';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

describe('i18n: large hostile files answer', function () {
  this.timeout(30_000);

  it('C#: 1 MB on one line (generated or minified), every usage found', function () {
    const text = 'var x = Resources.Key; L["k"]; '.repeat(33_000);
    const us = findUsages('Gen/Big.cs', text);
    assert.equal(us.length, 66_000);
    assert.equal(us.filter((u) => u.key === 'Key').length, 33_000);
  });

  it('Go: 4.5 MB of go-i18n literals, each line ending in a comment', function () {
    const text = 'm := i18n.LocalizeConfig{MessageID: "k"} // x\n'.repeat(100_000);
    assert.equal(findUsages('cmd/big.go', text).length, 100_000);
  });

  it('TOML: 60,000 [[i18n]] elements, every one a message', function () {
    let text = '';
    for (let i = 0; i < 60_000; i++) text += `[[i18n]]\nid = "key${i}"\ntranslation = "Value ${i}"\n`;
    const lf = readLocaleFormat('i18n/fr.toml', text);
    assert.equal(lf?.entries.length, 60_000);
    assert.deepEqual(lf.problems, []);
    assert.equal(lf.entries[59_999].value, 'Value 59999');
  });

  it('TOML: a syntax error on each of 100,000 lines is reported per line, the rest read', function () {
    let text = '';
    for (let i = 0; i < 50_000; i++) text += `ok${i} = "x"\nbad${i} = \n`;
    const lf = readLocaleFormat('i18n/de.toml', text);
    assert.equal(lf?.problems.length, 50_000);
    assert.equal(lf.problems[49_999].line, 100_000);
    assert.equal(lf.entries.length, 50_000);
  });
});

/** A "billion laughs" YAML: 9 levels of 10 aliases, each level ten of the one before (10^9 leaves). */
function aliasBomb(): string {
  const names = 'abcdefghi';
  let text = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n`;
  for (let i = 1; i < names.length; i++) text += `${names[i]}: &${names[i]} [${Array(10).fill(`*${names[i - 1]}`).join(',')}]\n`;
  return text;
}

describe('i18n: inputs that expand or nest without bound are reported', function () {
  this.timeout(30_000);

  it('YAML: an alias bomb is reported as malformed and not read', function () {
    const lf = readLocaleFormat('locales/en.yml', aliasBomb());
    assert.equal(lf?.entries.length, 0);
    assert.equal(lf.problems.length, 1);
    assert.equal(lf.problems[0].kind, 'malformed');
    assert.match(lf.problems[0].message, /aliases expand to more than \d+ nodes/);
  });

  it('YAML: an alias bomb in a Vue <i18n lang="yaml"> block is reported, the block skipped', function () {
    const block = aliasBomb()
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n');
    const lf = readSfcLocales('src/App.vue', `<template><p>{{ $t('x') }}</p></template>\n<i18n lang="yaml">\nen:\n${block}\n</i18n>\n`);
    assert.equal(lf?.entries.length ?? 0, 0);
    assert.match(lf?.problems[0]?.message ?? '', /block does not parse \(its aliases expand to more than \d+ nodes/);
  });

  it('YAML: aliases that expand a little are still followed', function () {
    const lf = readLocaleFormat('locales/en.yml', 'base: &b\n  ok: OK\n  no: "No"\none:\n  <<: *b\ntwo:\n  <<: *b\n');
    assert.deepEqual(lf?.problems, []);
    assert.equal(lf.entries.length, 6);
  });

  it('TOML: a key of 20,000 dotted parts and 20,000 nested arrays are each a reported line, the rest read', function () {
    const parts = Array.from({ length: 20_000 }, (_, i) => `k${i % 10}`).join('.');
    const text = `ok = "fine"\n${parts} = "x"\nnest = ${'['.repeat(20_000)}${']'.repeat(20_000)}\nlast = "end"\n`;
    const lf = readLocaleFormat('i18n/fr.toml', text);
    assert.deepEqual(
      lf?.entries.map((e) => e.value),
      ['fine', 'end'],
    );
    assert.deepEqual(
      lf.problems.map((p) => [p.line, /more than 128/.test(p.message)]),
      [
        [2, true],
        [3, true],
      ],
    );
  });
});

describe('i18n: a check over many dynamic usages and many keys', function () {
  this.timeout(60_000);

  it('5,000 `t(`k.${x}`)` calls against 30,000 keys: every key under k. used, the others unused', function () {
    const en: Record<string, Record<string, string>> = { k: {}, other: {} };
    for (let i = 0; i < 30_000; i++) en.k[`key${i}`] = `Value ${i}`;
    for (let i = 0; i < 3; i++) en.other[`o${i}`] = `Other ${i}`;
    let code = '';
    for (let i = 0; i < 5_000; i++) code += `t(\`k.\${x${i}}\`);\n`;
    const files = { 'src/locales/en.json': JSON.stringify(en), 'src/app.js': `import { t } from 'i18next';\n${code}` };
    const report = loadI18nIndex(new MemoryFileSource(files)).index.health();
    assert.equal(report.keys, 30_003);
    assert.deepEqual(
      report.findings.filter((f) => f.kind === 'unused').map((f) => f.key),
      ['other.o0', 'other.o1', 'other.o2'],
    );
  });
});

describe('i18n: Ember templates nested past what Glimmer parses', function () {
  this.timeout(30_000);

  it('6,000 nested {{#if}}: the usages inside are found, at their offsets', function () {
    const mid = `{{t "deep.key"}} {{!-- {{t "commented"}} --}}{{my-input label=(t 'sub.key')}}\n`;
    const text = '{{#if a}}\n'.repeat(6_000) + mid + '{{/if}}\n'.repeat(6_000);
    const us = findUsages('app/templates/deep.hbs', text);
    assert.deepEqual(
      us.map((u) => [u.key, text.slice(u.range.start.offset, u.range.end.offset)]),
      [
        ['deep.key', 'deep.key'],
        ['sub.key', 'sub.key'],
      ],
    );
  });

  it('the lexical scan finds what Glimmer finds in an ordinary template', function () {
    const text = `<p>{{t "a.b"}}</p>\n{{#if x}}{{t-html 'c' count=1}}{{/if}}\n{{!-- {{t "no"}} --}}{{! {{t "no2"}} }}\n<Foo @label={{t "d"}} @x={{concat (t "e") "f"}} />\n`;
    const glimmer = findUsages('app/templates/a.hbs', text).map((u) => [u.key, u.range.start.offset, u.range.end.offset]);
    const nested = '{{#if a}}'.repeat(300);
    const deep = findUsages('app/templates/a.hbs', nested + text + '{{/if}}'.repeat(300)).map((u) => [u.key, u.range.start.offset - nested.length, u.range.end.offset - nested.length]);
    assert.deepEqual(glimmer.map((g) => g[0]), ['a.b', 'c', 'd', 'e']);
    assert.deepEqual(deep, glimmer);
  });
});

describe('i18n: a monorepo of 1,000 packages', function () {
  this.timeout(60_000);

  it('every package keeps its own usages; --key and the check answer', function () {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1_000; i++) {
      const p = `packages/p${i}`;
      files[`${p}/package.json`] = JSON.stringify({ name: `p${i}` });
      files[`${p}/src/locales/en.json`] = JSON.stringify({ title: `Title ${i}`, save: 'Save' });
      files[`${p}/src/locales/fr.json`] = JSON.stringify({ title: `Titre ${i}`, save: 'Enregistrer' });
      files[`${p}/src/app.js`] = `import { t } from 'i18next';\nt('title');\nt('save');\n`;
    }
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const found = index.lookupKey('title', { limit: 2_000 }).candidates;
    assert.equal(found.length, 1_000);
    for (const c of found) assert.deepEqual(c.usages.map((u) => u.file), [`${c.app}/src/app.js`]);
    const report = index.health();
    assert.equal(report.keys, 2_000);
    assert.deepEqual(report.counts, { undefined: 0, unused: 0, missing: 0, identical: 0, 'only-in': 0 });
  });
});

describe('i18n: XML locale files nested without bound', function () {
  this.timeout(30_000);

  it('.resx: 200,000 nested elements in one <value> are reported, not read', function () {
    const n = 200_000;
    const text = `<?xml version="1.0"?>\n<root>\n<data name="a"><value>${'<x>'.repeat(n)}${'</x>'.repeat(n)}</value></data>\n</root>\n`;
    const lf = readLocaleFormat('Resources/Strings.fr.resx', text);
    assert.equal(lf?.entries.length, 0);
    assert.deepEqual(
      lf.problems.map((p) => [p.kind, p.line]),
      [['malformed', 3]],
    );
    assert.match(lf.problems[0].message, /nest elements \d+ deep \(more than 1000/);
  });

  it('Android: 100,000 nested <b> are reported; 900 nested, with comments and CDATA, are read', function () {
    const n = 100_000;
    const deep = `<resources>\n<string name="a">${'<b>'.repeat(n)}x${'</b>'.repeat(n)}</string>\n</resources>\n`;
    const lf = readLocaleFormat('app/src/main/res/values-fr/strings.xml', deep);
    assert.equal(lf?.problems[0]?.kind, 'malformed');
    const ok = `<resources>\n<!-- <a><a><a> -->\n<string name="a">${'<b>'.repeat(900)}<![CDATA[<i><i>]]>x<br/>${'</b>'.repeat(900)}</string>\n</resources>\n`;
    const read = readLocaleFormat('app/src/main/res/values-fr/strings.xml', ok);
    assert.deepEqual(read?.problems, []);
    assert.equal(read.entries.length, 1);
  });
});

describe('i18n: a JS locale module that spreads another one', function () {
  it('`export default { ...en, hola: "Hola" }`: its own member read, the spread reported', function () {
    const lf = readLocaleScript('src/locales/es.js', `import en from './en';\nexport default {\n  ...en,\n  hola: 'Hola',\n};\n`);
    assert.deepEqual(
      lf?.entries.map((e) => [e.locale, e.path, e.value]),
      [['es', 'hola', 'Hola']],
    );
    assert.deepEqual(
      lf.problems.map((p) => [p.kind, p.line]),
      [['unsupported', 3]],
    );
    assert.match(lf.problems[0].message, /"\.\.\.en" spreads in another object/);
  });
});
