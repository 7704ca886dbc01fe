/**
 * The i18n readers and scanners in what users run: `fathom i18n --check` through the built
 * bundle (dist/cli.js, whose parsers load lazily from their own files) must find what the
 * sources find, in every format and framework fixture. A lazy chunk that cannot load (php-parser's
 * `Engine` was undefined in the bundle: "is not a constructor") fails here.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { IndexClient } from '../../src/service/client';

const ROOT = path.join(__dirname, '..', '..');
const BROKEN_LOAD = /is not a constructor|is not a function|Cannot find module|lazy-[\w-]+\.js|Cannot read properties of undefined/;

describe('i18n through the built bundle (dist/cli.js): every format and framework fixture', function () {
  this.timeout(300_000);
  let tmp: string;
  before(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-bundle-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const fixtures = ['i18n-formats', 'i18n-frameworks'].flatMap((group) =>
    fs
      .readdirSync(path.join(ROOT, 'test', 'fixtures', group))
      .filter((n) => n !== 'unreadable' && fs.statSync(path.join(ROOT, 'test', 'fixtures', group, n)).isDirectory())
      .map((n) => path.join(group, n)),
  );

  for (const rel of fixtures) {
    it(`${rel}: the same keys and usages as the sources, no parser that fails to load`, () => {
      const dir = path.join(ROOT, 'test', 'fixtures', rel);
      const store = path.join(tmp, rel.replace(/\W+/g, '-'));
      const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), 'i18n', '--check', '--json', '--dir', dir, '--no-embed', '--store', store], { encoding: 'utf8', timeout: 120_000 });
      assert.ok(r.status === 0 || r.status === 1, `exit ${r.status}: ${r.stderr}`);
      assert.doesNotMatch(r.stdout + r.stderr, BROKEN_LOAD);
      const summary = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { summary?: { keys: number; usages: number } })
        .find((l) => l.summary)?.summary;
      assert.ok(summary, r.stdout);
      const { index } = loadI18nIndex(dir);
      const sources = index.health();
      assert.equal(summary.keys, sources.keys, `keys: bundle ${summary.keys}, sources ${sources.keys}`);
      assert.equal(summary.usages, sources.usages, `usages: bundle ${summary.usages}, sources ${sources.usages}`);
    });
  }
});

/**
 * The extension's side: dist/worker.js (the bundle the extension starts) answers every key of every
 * fixture as the sources do, locales and usages alike. A parser the bundle cannot load (PHP's, the
 * Fluent and Glimmer parsers, …) leaves a fixture's keys or usages out here.
 */
describe("i18n through the extension's worker bundle (dist/worker.js): every format and framework fixture", function () {
  this.timeout(300_000);
  let client: IndexClient;
  before(async () => {
    const worker = path.join(ROOT, 'dist', 'worker.js');
    if (!fs.existsSync(worker)) throw new Error('dist/worker.js is missing: `npm test` builds it first (npm run build)');
    client = new IndexClient(worker, { initialBackoffMs: 50 });
    await client.init({});
  });
  after(async () => client?.dispose());

  const fixtures = ['i18n-formats', 'i18n-frameworks'].flatMap((group) =>
    fs
      .readdirSync(path.join(ROOT, 'test', 'fixtures', group))
      .filter((n) => n !== 'unreadable' && fs.statSync(path.join(ROOT, 'test', 'fixtures', group, n)).isDirectory())
      .map((n) => path.join(group, n)),
  );
  const show = (r: { candidates: Array<{ key: string; locales: Array<{ locale: string; value: string; file: string }>; usages: Array<{ file: string; range: { start: { line: number } }; via: string }> }> }) =>
    r.candidates.slice(0, 1).map((c) => ({ key: c.key, locales: c.locales.map((l) => `${l.locale} ${l.file} ${l.value}`), usages: c.usages.map((u) => `${u.file}:${u.range.start.line} ${u.via}`) }));

  for (const rel of fixtures) {
    it(`${rel}: every key with the same locales and usages as the sources`, async () => {
      const dir = path.join(ROOT, 'test', 'fixtures', rel);
      const { index } = loadI18nIndex(dir);
      const keys = [...index.keyValues().keys()];
      assert.ok(keys.length > 0, `${rel} has keys from the sources`);
      for (const key of keys) {
        const r = await client.i18nKey(dir, key);
        assert.doesNotMatch(JSON.stringify(r.problems), BROKEN_LOAD);
        assert.deepEqual(show(r), show(index.lookupKey(key)), `${rel}: ${key}`);
      }
    });
  }
});

/**
 * What the generic comparisons above cannot see (the sources could be wrong the same way): the
 * expected answers of the fixtures of issue-36's items, from dist/cli.js.
 */
describe('i18n through the built bundle (dist/cli.js): the answers expected', function () {
  this.timeout(300_000);
  let tmp: string;
  before(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-bundle-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const cli = (fixture: string, ...args: string[]) => {
    const dir = path.join(ROOT, 'test', 'fixtures', 'i18n-frameworks', fixture);
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), 'i18n', ...args, '--dir', dir, '--no-embed', '--store', path.join(tmp, fixture)], { encoding: 'utf8', timeout: 120_000 });
    assert.ok(r.status === 0 || r.status === 1, `exit ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  /** `file:line via` of every "used" line of a `--key` answer. */
  const used = (out: string) => out.split('\n').filter((l) => l.trim().startsWith('used ') && !l.includes('used   nowhere found')).map((l) => l.trim().replace(/^used\s+/, '').replace(/:\d+\s+/, ' '));

  it("i18n Ally's custom framework: customT('key') declared in .vscode/i18n-ally-custom-framework.yml is a usage; its sourceLanguage is the source", () => {
    assert.deepEqual(used(cli('ally-custom', '--key', 'nested.foo.bar')), ['src/App.vue:9 usageMatchRegex', 'src/index.ts:1 usageMatchRegex']);
    assert.deepEqual(used(cli('ally-custom', '--key', 'project')), ['src/App.vue:2 usageMatchRegex']);
    const summary = cli('ally-custom', '--check', '--json')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { summary?: { sourceLocales: Record<string, string> } })
      .find((l) => l.summary)?.summary;
    assert.deepEqual(summary?.sourceLocales, { '': 'fr' });
  });

  it("Angular: a component's inline template: pipes (one with the key on its own line), attr pipes, the translate directive's content", () => {
    assert.deepEqual(used(cli('angular-inline', '--key', 'HOME.SELECT')), ['src/app.component.ts:11 | translate', 'src/app.component.ts:13 | translate', 'src/app.component.ts:16 translate']);
    assert.deepEqual(used(cli('angular-inline', '--key', 'HOME.QUOTED')), ['src/app.component.ts:32 | translate']);
  });

  it("i18next: the default namespace as i18n Ally writes its keys (useTranslation(['translation.foo']), pages.home:title); --check finds nothing", () => {
    assert.deepEqual(used(cli('i18next-ally', '--key', 'translation:foo.bar')), ['src/App.jsx:33 t']);
    assert.deepEqual(used(cli('i18next-ally', '--key', 'pages/home:title')), ['src/App.jsx:34 t', 'src/App.jsx:35 t', 'src/App.jsx:40 t', 'src/App.jsx:53 i18nKey']);
    assert.match(cli('i18next-ally', '--check'), /0 undefined, 0 missing, 0 unused/);
  });

  it('Lingui: --key finds every msgid form; --check: every msgid used', () => {
    assert.deepEqual(used(cli('lingui', '--key', 'Read the <0>documentation</0>, {name}.')), ['src/App.tsx:18 <Trans>']);
    assert.deepEqual(used(cli('lingui', '--key', 'button|Open')), ['src/App.tsx:8 defineMessage']);
    assert.deepEqual(used(cli('lingui', '--key', 'Hello {name}')), ['src/App.tsx:11 t`']);
    assert.match(cli('lingui', '--check'), /11 keys, 11 usages: 0 undefined, 0 missing, 0 unused/);
  });

  it('WebExtension getMessage destructured from chrome.i18n, fluent-vue v-t:id and $ta', () => {
    assert.deepEqual(used(cli('chrome-extension', '--key', 'tooltip')), ['manifest.json:6 __MSG__', 'popup.js:5 getMessage']);
    assert.deepEqual(used(cli('chrome-extension', '--key', 'extDescription')), ['manifest.json:4 __MSG__']);
    assert.deepEqual(used(cli('fluent-vue', '--key', 'greeting')), ['src/App.vue:9 v-t:']);
    assert.deepEqual(used(cli('fluent-vue', '--key', 'props.title')), ['src/App.vue:5 $ta']);
    assert.match(cli('fluent-vue', '--check'), /1 undefined, 0 missing, 0 unused/);
  });

  it('no false usage: a local object named translate, a local t that translates nothing', () => {
    assert.match(cli('false-usages', '--check'), /0 undefined, 0 missing, 1 unused/);
    assert.deepEqual(used(cli('false-usages', '--key', 'HOME.TITLE')), []);
  });

  it("gettext PO in a PHP app: every locale of a msgid listed, PHP's _() and gettext() usages found", () => {
    const out = cli('gettext-php', '--key', 'sign_in');
    assert.match(out, /en-US\s+locale\/en_US\/messages\.po/);
    assert.match(out, /zh-CN\s+locale\/zh-CN\/messages\.po/);
    assert.deepEqual(used(out), ['index.php:4 gettext']);
    assert.deepEqual(used(cli('gettext-php', '--key', 'hello_world')), ['index.php:3 _', 'index.php:6 _']);
  });
});
