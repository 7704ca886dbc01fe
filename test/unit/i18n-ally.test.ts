/**
 * i18n Ally's own configuration (src/i18n/ally.ts): a project set up for that extension
 * (`.vscode/settings.json`, `.vscode/i18n-ally-custom-framework.yml`) works with no Fathom
 * setting — its custom usage regexes find usages (run on RE2JS, linear time; what RE2 cannot run
 * is refused with a problem), its `localesPaths` are the locale globs and its `sourceLanguage`
 * the source of key health — and Fathom's own settings win.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ALLY_CUSTOM, MAX_REGEX_LENGTH, patternUsages, readAllyConfig } from '../../src/i18n/ally';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { FolderSession } from '../../src/service/session';

const DIR = path.join(__dirname, '..', 'fixtures', 'i18n-frameworks', 'ally-custom');
const where = (l: Array<{ file: string; range: { start: { line: number; column: number } }; via: string }>) => l.map((u) => `${u.file}:${u.range.start.line}:${u.range.start.column} ${u.via}`);

describe("i18n Ally's configuration", () => {
  it('the custom framework\'s usageMatchRegex finds customT(\'key\') in .vue and .ts, the key\'s exact range', () => {
    const { index } = loadI18nIndex(DIR);
    assert.deepEqual(where(index.lookupKey('project').candidates[0].usages), ['src/App.vue:2:17 usageMatchRegex']);
    assert.deepEqual(where(index.lookupKey('nested.foo.bar').candidates[0].usages), ['src/App.vue:9:22 usageMatchRegex', 'src/index.ts:1:19 usageMatchRegex']);
    // the framework's own usages are still found beside it (monopoly: false)
    assert.deepEqual(where(index.lookupKey('menu.title').candidates[0].usages), ['src/index.ts:2:13 t']);
    const text = fs.readFileSync(path.join(DIR, 'src', 'index.ts'), 'utf8');
    const u = index.lookupKey('nested.foo.bar').candidates[0].usages[1];
    assert.equal(text.slice(u.range.start.offset, u.range.end.offset), 'nested.foo.bar');
    assert.equal(index.health().findings.filter((f) => f.kind === 'unused').length, 0);
  });

  it('sourceLanguage is the locale key health checks against; localesPaths are the locale globs', () => {
    const { index } = loadI18nIndex(DIR);
    const h = index.health();
    assert.deepEqual(h.sourceLocales, { '': 'fr' });
    // "Menu" is the same in both: English is reported as identical to the French source
    assert.deepEqual(
      h.findings.filter((f) => f.kind === 'identical').map((f) => `${f.key} ${f.locales?.join(',')}`),
      ['menu.title en'],
    );
  });

  it("Fathom's own settings win: its locale globs replace localesPaths, its functions add to the regexes", () => {
    const { index } = loadI18nIndex(DIR, { localeGlobs: ['locales/en.json'], functions: ['tr'] });
    assert.deepEqual(
      index.lookupKey('project').candidates[0].locales.map((l) => l.locale),
      ['en'],
    );
    assert.equal(index.lookupKey('project').candidates[0].usages.length, 1);
  });

  it('monopoly: in its languages only the custom regexes find usages; languageIds limit where they run', () => {
    const patterns = { regexes: [readAllyConfig((rel) => (rel === ALLY_CUSTOM ? 'usageMatchRegex: "tr\\\\(\'({key})\'\\\\)"\nlanguageIds: [typescript]\nmonopoly: true\n' : undefined)).patterns!.regexes[0]], languageIds: ['typescript'], monopoly: true };
    const code = "t('a.b'); tr('c.d');";
    assert.deepEqual(findUsages('x.ts', code, { patterns }).map((u) => u.key), ['c.d']);
    assert.deepEqual(findUsages('x.js', code, { patterns }).map((u) => u.key), ['a.b']);
  });

  it('regexes RE2 cannot run, over the bound or without {key} are refused with a problem; none is run on a backtracking engine', () => {
    const yml = [
      'usageMatchRegex:',
      `  - "(\\\\w)\\\\1({key})"`, // a backreference
      `  - "(?<=x)({key})"`, // a lookbehind
      `  - "${'a'.repeat(MAX_REGEX_LENGTH)}({key})"`,
      `  - "customT\\\\(\\"[a-z]+\\"\\\\)"`, // no {key}
      `  - "({key})((a|a)*)*!"`,
    ].join('\n');
    const c = readAllyConfig((rel) => (rel === ALLY_CUSTOM ? yml : undefined));
    assert.equal(c.problems.length, 4, JSON.stringify(c.problems));
    assert.match(c.problems[0].message, /linear time/);
    assert.match(c.problems[1].message, /linear time/);
    assert.match(c.problems[2].message, /over 500/);
    assert.match(c.problems[3].message, /no \{key\}/);
    assert.equal(c.patterns?.regexes.length, 1);
    // exponential for a backtracking engine; RE2JS answers in one pass
    const hostile = `${'a'.repeat(50_000)}x`;
    assert.deepEqual(patternUsages(c.patterns!, hostile), []);
    assert.deepEqual(patternUsages(c.patterns!, '(ok!').map((k) => k.key), ['ok']);
  });

  it('a language id whose files Fathom reads no usages in is reported, not silently skipped', () => {
    const c = readAllyConfig((rel) => (rel === ALLY_CUSTOM ? 'usageMatchRegex: "tr\\\\(\'({key})\'\\\\)"\nlanguageIds: [typescript, plaintext]\n' : undefined));
    assert.deepEqual(c.patterns?.languageIds, ['typescript', 'plaintext']);
    assert.deepEqual(c.problems.map((p) => p.message), ['languageIds plaintext: no usages are looked for in this language']);
  });

  it('a refused regex is a problem of the index (fathom i18n --check prints it)', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-ally-'));
    try {
      fs.mkdirSync(path.join(tmp, '.vscode'));
      fs.writeFileSync(path.join(tmp, ALLY_CUSTOM), 'usageMatchRegex: "(?<=x)({key})"\n');
      fs.writeFileSync(path.join(tmp, 'en.json'), '{"a": "A"}');
      const { index } = loadI18nIndex(tmp);
      assert.deepEqual(
        index.problems.map((p) => `${p.file} ${p.kind}`),
        ['.vscode/i18n-ally-custom-framework.yml unsupported'],
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the session (what the editor and `fathom i18n --key` ask) reads them too, and sees an edited custom framework', async function () {
    this.timeout(60_000);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-ally-'));
    fs.cpSync(DIR, tmp, { recursive: true });
    const session = await FolderSession.open(tmp);
    try {
      const first = await session.i18n({ op: 'key', key: 'project' });
      assert.deepEqual(where(first.result.candidates[0].usages), ['src/App.vue:2:17 usageMatchRegex']);
      fs.writeFileSync(path.join(tmp, ALLY_CUSTOM), 'usageMatchRegex: "otherT\\\\(\'({key})\'\\\\)"\n');
      const second = await session.i18n({ op: 'key', key: 'project' });
      assert.deepEqual(second.result.candidates[0].usages, []);
    } finally {
      await session.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
