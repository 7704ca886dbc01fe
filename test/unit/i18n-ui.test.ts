/**
 * The editor's i18n answer as plain data (src/editor/i18n.ts): the picker's rows from a real lookup
 * (the e2e fixture workspace through the bundled worker, as the extension asks it), titles and
 * messages, jump ranges, input validation, and the hover markdown with hostile values.
 * The worker is built from the current source (test/helpers/worker-build.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Candidate, HoverResult, LookupResult } from '../../src/i18n/types';
import { IndexClient } from '../../src/service/client';
import { DIAGNOSTICS_SETTING, diagnosticsEnabled } from '../../src/editor/i18n-diagnostics';
import {
  answerEntries,
  answerTitle,
  commandUri,
  editorRange,
  escapeMarkdown,
  hoverMarkdown,
  jumpLogLine,
  languageFor,
  looksLikeKey,
  MAX_HOVER_KEYS,
  mergeLookups,
  nothingFoundDetails,
  orderLocales,
  nothingFoundMessage,
  validateLookupInput,
  type JumpTarget,
} from '../../src/editor/i18n';
import { currentWorker } from '../helpers/worker-build';

const WORKER = currentWorker();
const WS = path.join(__dirname, '../fixtures/e2e-workspace');

const pos = (line: number, column: number, offset = 0) => ({ line, column, offset });
function candidate(key: string, over: Partial<Candidate> = {}): Candidate {
  return {
    key,
    path: key,
    app: '',
    match: 'exact',
    score: 1,
    locales: [{ locale: 'en', file: 'locales/en.json', value: `${key} in English`, range: { start: pos(2, 10), end: pos(2, 20) }, keyRange: { start: pos(2, 3), end: pos(2, 7) } }],
    usages: [],
    ...over,
  };
}
const result = (candidates: Candidate[], over: Partial<LookupResult> = {}): LookupResult => ({ candidates, problems: [], ...over });

/** The text a target's range selects in its file (1-based lines, 0-based columns). */
function textAt(root: string, t: JumpTarget): string {
  const lines = fs.readFileSync(path.join(root, t.file), 'utf8').split('\n');
  const r = editorRange(t.range);
  assert.equal(r.startLine, r.endLine, 'one-line range');
  return lines[r.startLine].slice(r.startCharacter, r.endCharacter);
}

describe('i18n answer UI logic', function () {
  describe('on a real lookup (e2e fixture through the worker)', function () {
    let client: IndexClient;
    before(async function () {
      client = new IndexClient(WORKER, { initialBackoffMs: 50 });
      await client.init({});
    });
    after(async () => client?.dispose());

    it('the template text of a .vue file: one exact key, rows for en/de/fr and its usage, each selecting the exact text', async function () {
      const file = 'src/components/EmptyNotes.vue';
      const text = fs.readFileSync(path.join(WS, file), 'utf8');
      const at = await client.i18nAt(WS, { file, text, language: languageFor('plaintext', `/x/${file}`), offset: text.indexOf('match your') });
      assert.equal(at.string?.text, 'No notes match your search.');
      const rows = answerEntries(at.result);
      assert.equal(rows[0].type, 'separator');
      assert.match(rows[0].label, /^exact · search\.empty · 1 usage$/);
      const locales = rows.flatMap((r) => (r.type === 'locale' ? [r] : []));
      // the matched (and source) locale first, then the usage, then the other locales
      assert.deepEqual(rows.map((r) => r.type), ['separator', 'locale', 'usage', 'locale', 'locale']);
      assert.deepEqual(locales.map((r) => r.label), ['$(globe) en: No notes match your search.', '$(globe) de: Keine Notiz passt zu deiner Suche.', '$(globe) fr: Aucune note ne correspond à votre recherche.']);
      assert.deepEqual(locales.map((r) => r.description), ['matched · locales/en.json:7', 'locales/de.json:7', 'locales/fr.json:7']);
      for (const r of locales) assert.equal(textAt(WS, r.target), r.label.replace(/^\$\(globe\) \w+: /, ''));
      const usages = rows.filter((r) => r.type === 'usage');
      assert.equal(usages.length, 1);
      if (usages[0].type === 'usage') {
        assert.equal(usages[0].label, '$(references) src/App.vue:11');
        assert.equal(textAt(WS, usages[0].target), 'search.empty');
        assert.equal(jumpLogLine(usages[0].target), 'i18n: opened src/App.vue 11:42-11:54 (usage of search.empty)');
      }
      assert.equal(answerTitle(at.string?.text ?? '', at.result), '“No notes match your search.” is search.empty (the only exact match)');
    });

    it('the hover of $t(\'app.title\') in App.vue: a table of the three locales, links to their lines', async function () {
      const text = fs.readFileSync(path.join(WS, 'src/App.vue'), 'utf8');
      const h = await client.i18nHover(WS, 'src/App.vue', text.indexOf("'app.title'") + 3);
      assert.ok(h, 'a usage is under the offset');
      const targets: JumpTarget[] = [];
      const md = hoverMarkdown(h, (t) => {
        targets.push(t);
        return commandUri('fathom.openI18nTarget', [WS, t]);
      });
      assert.match(md, /^\*\*app\\\.title\*\* \(\\\$t\)\n\n\| locale \| value \|\n\| --- \| --- \|\n/);
      assert.match(md, /\| \[fr\]\(command:fathom\.openI18nTarget\?[^ )]+ "locales\\\/fr\\\.json:3"\) \| Carnet de randonnée \|/);
      assert.deepEqual(targets.map((t) => textAt(WS, t)), ['Trail notes', 'Wandernotizen', 'Carnet de randonnée'], 'the source locale first');
    });

    it('a key prefix merged before its string lookup: the keys under it, titled so', async function () {
      const byKey = await client.i18n(WS, { op: 'key', key: 'search', limit: 10 });
      const m = mergeLookups((byKey as { result: LookupResult }).result, await client.i18nLookup(WS, 'search'));
      assert.deepEqual(m.candidates.filter((c) => c.match === 'key').map((c) => c.key).sort(), ['search.empty', 'search.placeholder']);
      assert.equal(answerTitle('search', m), '“search”: 2 keys under it');
    });

    it('a string nothing holds: no candidates, and the message names it', async function () {
      const r = await client.i18nLookup(WS, 'zebra quantum teapot');
      assert.deepEqual(answerEntries(r), []);
      assert.equal(nothingFoundMessage('zebra quantum teapot'), 'Fathom: no i18n key holds “zebra quantum teapot” in any locale.');
    });
  });

  it('titles: one exact, several exact, none exact', function () {
    assert.equal(answerTitle('Save', result([candidate('a.save'), candidate('b.save', { match: 'fuzzy', score: 0.8 })])), '“Save” is a.save (the only exact match)');
    assert.equal(answerTitle('Save', result([candidate('a.save'), candidate('b.save')])), '“Save”: 2 keys hold it exactly');
    assert.equal(answerTitle('Sav', result([candidate('a.save', { match: 'fuzzy', score: 0.8 })])), '“Sav”: no exact match; 1 close candidate, best first');
    assert.equal(answerTitle('a.save', result([candidate('a.save', { match: 'key' })])), '“a.save” is a.save (the only key of that name)');
    assert.equal(answerTitle('a', result([candidate('a.save', { match: 'key' }), candidate('a.open', { match: 'key' })])), '“a”: 2 keys under it');
    assert.equal(answerTitle('a.save', result([candidate('a.save', { match: 'key', app: 'x' }), candidate('a.save', { match: 'key', app: 'y' })])), '“a.save”: 2 keys hold it exactly');
  });

  it('rows: match kind with score, app and component, usages capped with a count', function () {
    const usages = Array.from({ length: 5 }, (_, i) => ({ file: 'src/a.js', key: 'x.', dynamic: true, via: 't', range: { start: pos(i + 1, 0), end: pos(i + 1, 5) } }));
    const rows = answerEntries(result([candidate('x.y', { match: 'fuzzy', score: 0.824, app: 'apps/web', usages }), candidate('z', { component: 'src/Z.vue' })]), 3);
    assert.equal(rows[0].label, 'fuzzy 82% · x.y · app apps/web · 5 usages (3 shown)');
    assert.equal(rows.filter((r) => r.type === 'usage').length, 3);
    const u = rows.find((r) => r.type === 'usage');
    assert.equal(u?.type === 'usage' && u.description, 't with a dynamic key starting x.');
    assert.equal(rows.find((r, i) => i > 0 && r.type === 'separator')?.label, 'exact · z · in src/Z.vue · no usages');
  });

  describe('many locales', function () {
    const LOCALES = ['ar', 'cs', 'de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt-BR', 'zh-Hans'];
    const many = (over: Partial<Candidate> = {}) =>
      candidate('domain.block', {
        match: 'normalized',
        score: 0.9,
        matched: { locale: 'it', value: 'Blocca dominio {0}', file: 'locales/it.json' },
        locales: LOCALES.map((l, i) => ({ locale: l, file: `locales/${l}.json`, value: `${l} value`, range: { start: pos(i + 2, 10), end: pos(i + 2, 18) }, keyRange: { start: pos(i + 2, 3), end: pos(i + 2, 7) } })),
        usages: [{ file: 'src/Domain.vue', key: 'domain.block', dynamic: false, via: '$t', range: { start: pos(9, 4), end: pos(9, 16) } }],
        ...over,
      });

    it('the picker: the matched locale, the source locale, the usages, then the other locales folded into one row', function () {
      const rows = answerEntries(result([many()]));
      assert.deepEqual(rows.map((r) => (r.type === 'locale' ? `locale ${r.label.split(':')[0].replace('$(globe) ', '')}` : r.type)), ['separator', 'locale it', 'locale en', 'usage', 'more']);
      const more = rows[4];
      assert.ok(more.type === 'more');
      assert.equal(more.label, '$(chevron-right) 10 other locales');
      assert.equal(more.description, 'ar, cs, de, es, fr, ja, nl, pl, pt-BR, zh-Hans');
      // chosen: unfolded in place, after the usages
      const open = answerEntries(result([many()]), { expanded: new Set([more.candidate]) });
      assert.equal(open.length, 1 + 2 + 1 + 10);
      assert.deepEqual(open.slice(4).map((r) => r.type === 'locale' && r.target.file), LOCALES.filter((l) => l !== 'it' && l !== 'en').map((l) => `locales/${l}.json`));
      // the editor's language (here German) comes right after English
      assert.deepEqual(answerEntries(result([many()]), { prefer: ['en', 'de'] }).slice(1, 4).map((r) => r.type === 'locale' && r.target.file), ['locales/it.json', 'locales/en.json', 'locales/de.json']);
      // a regional source locale counts: en-GB when only it exists
      const gb = many({ locales: many().locales.map((l) => (l.locale === 'en' ? { ...l, locale: 'en-GB' } : l)) });
      assert.ok(orderLocales(gb).ordered[1].locale === 'en-GB');
      // few locales: nothing folded
      const few = many({ locales: many().locales.filter((l) => ['it', 'en', 'de', 'fr'].includes(l.locale)) });
      assert.ok(!answerEntries(result([few])).some((r) => r.type === 'more'));
    });

    it('the hover: the source locale first, six rows, the other locales one row of links', function () {
      const links: string[] = [];
      const md = hoverMarkdown({ usage: many().usages[0], candidates: [many({ matched: undefined })], missing: false }, (t) => {
        links.push(t.file);
        return `command:x?${links.length}`;
      });
      const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| locale') && !l.startsWith('| ---'));
      assert.equal(rows.length, 7);
      assert.match(rows[0], /^\| \[en\]/);
      assert.match(rows[6], /^\| \*6 more\* \| \[it\]\(command:x\?\d+ "it value"\) \[ja\]/);
      assert.equal(links.length, 12, 'every locale is a link');
    });
  });

  it('a long or multi-line value is shown on one line, cut with …', function () {
    const c = candidate('long');
    c.locales[0].value = `first line\n${'x'.repeat(300)}`;
    const row = answerEntries(result([c]))[1];
    assert.ok(row.label.startsWith('$(globe) en: first line xxx'));
    assert.ok(row.label.endsWith('…'));
    assert.ok(!row.label.includes('\n'));
  });

  it('the nothing-found message is one short sentence; why semantic did not run and the problems go to the log', function () {
    const r = result([], { semanticUnavailable: 'No embedding model: /x/config.json is missing (set fathom.model.localPath).: semantic matching is unavailable', problems: [{ kind: 'malformed', file: 'fr.json', message: 'x' }] });
    const m = nothingFoundMessage('Hello');
    assert.equal(m, 'Fathom: no i18n key holds “Hello” in any locale.');
    assert.ok(!m.includes('model') && !m.includes('('), 'no details in the message');
    const d = nothingFoundDetails('Hello', r);
    assert.equal(d.length, 2);
    assert.match(d[0], /semantic matching did not run: No embedding model: \/x\/config\.json is missing/);
    assert.match(d[1], /1 locale file problem/);
    assert.deepEqual(nothingFoundDetails('Hello', result([])), []);
  });

  it('editor ranges are 0-based lines, same columns', function () {
    assert.deepEqual(editorRange({ start: pos(7, 14), end: pos(8, 2) }), { startLine: 6, startCharacter: 14, endLine: 7, endCharacter: 2 });
  });

  it('input validation and key-looking text', function () {
    assert.match(validateLookupInput('   ') ?? '', /Type the text/);
    assert.match(validateLookupInput('x'.repeat(501)) ?? '', /At most 500 characters \(this is 501\)/);
    assert.equal(validateLookupInput('Create an event'), undefined);
    for (const k of ['app.title', 'common:save', 'errors.404.title', 'common:a.b']) assert.ok(looksLikeKey(k), k);
    for (const s of ['Create an event', 'Save', 'e.g. this', 'Hello.']) assert.ok(!looksLikeKey(s), s);
  });

  it('a key lookup merges before the string lookup, without the same key group twice', function () {
    const k = result([candidate('a.b', { match: 'key' })], { problems: [{ kind: 'duplicate', file: 'en.json', line: 3, message: 'd' }] });
    const s = result([candidate('a.b'), candidate('c.d', { match: 'fuzzy', score: 0.5 }), candidate('a.b', { app: 'apps/x' })], { problems: [{ kind: 'duplicate', file: 'en.json', line: 3, message: 'd' }, { kind: 'malformed', file: 'fr.json', message: 'm' }], semanticUnavailable: 'no model' });
    const m = mergeLookups(k, s);
    assert.deepEqual(m.candidates.map((c) => `${c.match} ${c.app}/${c.key}`), ['key /a.b', 'fuzzy /c.d', 'exact apps/x/a.b']);
    assert.equal(m.problems.length, 2);
    assert.equal(m.semanticUnavailable, undefined);
    assert.equal(mergeLookups(result([]), s).semanticUnavailable, 'no model');
  });

  it('languageFor: the file name for what the core parses, else the language id', function () {
    assert.equal(languageFor('plaintext', '/w/src/App.vue'), 'App.vue');
    assert.equal(languageFor('typescriptreact', 'C:\\w\\a.tsx'), 'a.tsx');
    assert.equal(languageFor('html', '/w/index.html'), 'html');
    assert.equal(languageFor('markdown', '/w/README'), 'markdown');
  });

  it('markdown escaping: a translation cannot format, link or inject HTML', function () {
    const hostile = '<img src=x onerror=alert(1)> [click](command:evil) **b** | `c` \\ _i_';
    const e = escapeMarkdown(hostile);
    const bare = e.replace(/\\./g, ''); // what is left once every escaped pair is gone
    for (const ch of '<>[]()*|`_\\') assert.ok(!bare.includes(ch), `unescaped ${ch} in ${e}`);
    assert.equal(e.replace(/\\(.)/g, '$1'), hostile, 'unescaping gives the text back');
    const h: HoverResult = { usage: { file: 'a.js', key: 'k', dynamic: false, via: '$t', range: { start: pos(1, 0), end: pos(1, 1) } }, candidates: [candidate('k')], missing: false };
    h.candidates[0].locales[0].value = hostile;
    const md = hoverMarkdown(h, () => 'command:fathom.openI18nTarget');
    assert.ok(!md.includes('command:evil)'), 'no live link from the value');
    assert.equal(md.split('\n').filter((l) => l.startsWith('| [en]')).length, 1, 'the value stays in its table row');
  });

  it('hover: a missing key, a dynamic key with many keys', function () {
    const u = { file: 'a.js', key: 'nope.gone', dynamic: false, via: 't', range: { start: pos(1, 0), end: pos(1, 1) } };
    assert.equal(hoverMarkdown({ usage: u, candidates: [], missing: true }, () => ''), '**nope\\.gone** (t): no locale defines this key');
    const many = Array.from({ length: MAX_HOVER_KEYS + 2 }, (_, i) => candidate(`menu.item${i}`));
    const md = hoverMarkdown({ usage: { ...u, key: 'menu.', dynamic: true }, candidates: many, missing: false }, () => 'command:x');
    assert.match(md, /^t with a dynamic key starting \*\*menu\\\.\*\*: 7 keys/);
    assert.equal((md.match(/\| locale \| value \|/g) ?? []).length, MAX_HOVER_KEYS);
    assert.match(md, /… and 2 more$/);
  });

  it('command links carry their arguments as URI-encoded JSON', function () {
    const t: JumpTarget = { file: 'locales/fr.json', range: { start: pos(3, 1), end: pos(3, 4) }, what: 'fr value of a "b" (c)' };
    const uri = commandUri('fathom.openI18nTarget', ['/w s/x', t]);
    assert.match(uri, /^command:fathom\.openI18nTarget\?[^\s()"]+$/);
    assert.deepEqual(JSON.parse(decodeURIComponent(uri.slice(uri.indexOf('?') + 1))), ['/w s/x', t]);
  });
});

describe('i18n diagnostics setting (fathom.i18n.diagnostics.enabled)', () => {
  it('is contributed as a resource-scoped boolean, on by default, under the key the command reads', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { type: string; default: unknown; scope: string }> } } };
    const s = pkg.contributes.configuration.properties[`fathom.${DIAGNOSTICS_SETTING}`];
    assert.ok(s, `fathom.${DIAGNOSTICS_SETTING} is contributed`);
    assert.deepEqual([s.type, s.default, s.scope], ['boolean', true, 'resource']);
    const cmd = fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'commands', 'i18n-diagnostics.ts'), 'utf8');
    assert.ok(/getConfiguration\('fathom', doc\.uri\)\.get\(DIAGNOSTICS_SETTING\)/.test(cmd), 'the command reads it per document folder');
  });

  it('only false turns them off (unset or ill-typed keeps the default)', () => {
    assert.equal(diagnosticsEnabled(false), false);
    for (const v of [true, undefined, null, 'false', 0]) assert.equal(diagnosticsEnabled(v), true, String(v));
  });
});
