import { strict as assert } from 'node:assert';
import { Engine } from '../../src/index/engine';
import { KeywordIndex } from '../../src/index/keyword';
import { codeNames, namesakesFirst, unindexedNames, unitNames } from '../../src/index/rank/names';
import { NAMESAKES, namesakeLayout, NUXT_NAMES, nuxtLayout } from '../helpers/named-layout';

const stat = { mtimeMs: 1, size: 1 };
const bytes = (s: string) => new TextEncoder().encode(s);

/** Each query's first keyword hit, in an engine holding `files`, is its file. */
async function firstHits(files: Record<string, string>, queries: ReadonlyArray<[query: string, file: string]>): Promise<void> {
  const engine = new Engine({ noEmbedderReason: 'test' });
  for (const [rel, text] of Object.entries(files)) engine.updateFile(rel, bytes(text), stat);
  for (const [query, file] of queries) {
    const hits = await engine.search(query, { mode: 'keyword' });
    assert.equal(hits[0]?.chunk.path, file, `${query}: ${hits.map((h) => `${h.chunk.path} ${h.chunk.symbol}`).join(', ')}`);
  }
}

describe('names the query writes as code (rank/names.ts)', () => {
  it('unindexedNames: a name of one character, the whole query or written as code in it, which no keyword term holds', () => {
    assert.deepEqual(unindexedNames('A'), ['A']);
    assert.deepEqual(unindexedNames(' a (A) '), ['A']);
    assert.deepEqual(unindexedNames('$t'), ['$t'], 'its one term, `t`, is one character too');
    assert.deepEqual(unindexedNames('Button'), [], 'a term the keyword index holds');
    assert.deepEqual(unindexedNames('make a list'), [], 'a one-letter word in a sentence');
  });

  it('codeNames: inside parentheses or backticks, as written; bare only in a query of at most two words, and only written like code', () => {
    assert.deepEqual(codeNames('array (ARRAY)'), ['ARRAY']);
    assert.deepEqual(codeNames('use layers (useLayers)'), ['useLayers']);
    assert.deepEqual(codeNames('where is `command` defined'), ['command']);
    assert.deepEqual(codeNames('getZoomControl'), ['getZoomControl']);
    assert.deepEqual(codeNames('Router.push'), ['Router.push']);
    assert.deepEqual(codeNames('max_retries default'), ['max_retries']);
    assert.deepEqual(codeNames('command'), [], 'a plain word alone is a word');
    assert.deepEqual(codeNames('HTTP client'), [], 'capitals in plain words are words');
    assert.deepEqual(codeNames('Implementation of + operator when left operand is not a ParserElement'), [], 'a sentence naming a class is not a name query');
    assert.deepEqual(codeNames('global registration of k-panel (KPanel)'), ['KPanel'], 'spelled out by the rest of the query');
    assert.deepEqual(codeNames('zoom (getZoomControl)'), ['getZoomControl'], 'written like code');
    assert.deepEqual(codeNames('Get seconds since epoch (UTC).'), [], 'an aside in prose');
    assert.deepEqual(codeNames('Returns (host, port) tuple from netloc.'), []);
    assert.deepEqual(codeNames('Get a view over at most size bytes (possibly fewer)'), []);
    assert.deepEqual(codeNames('Execute uses the args (os.Args[1:] by default)'), []);
    assert.deepEqual(codeNames('Render (JSON) writes JSON ContentType.'), [], "Go's receiver in a doc sentence");
    assert.deepEqual(codeNames('Render (IndentedJSON) marshals the given interface object'), []);
  });

  it('namesakesFirst: keeps the order within tiers, and moves nothing when the phrase tiers found the query', () => {
    const symbols: Record<number, string> = { 1: 'Command.command', 2: 'Command', 3: 'command', 4: 'Admin.command' };
    const namesOf = (id: number) => unitNames({ symbol: symbols[id] });
    assert.deepEqual(namesakesFirst('command (command)', [1, 2, 3, 4], namesOf), [3, 1, 2, 4], 'the whole name by exact case; a member of that name keeps its place');
    assert.deepEqual(namesakesFirst('array (ARRAY)', [1, 2, 3, 4], namesOf), [1, 2, 3, 4], 'no chunk named so: nothing moves');
    assert.deepEqual(namesakesFirst('command (command)', [1, 2, 3, 4], namesOf, { phrase: true }), [1, 2, 3, 4]);
    assert.deepEqual(namesakesFirst('the command', [1, 2, 3, 4], namesOf), [1, 2, 3, 4]);
    // a name the unit is also known by (a Nuxt component's) counts as its symbol does
    const button = { symbol: 'Button', meta: { alsoNamed: ['BaseButton'] } };
    assert.deepEqual(unitNames(button), ['Button', 'BaseButton']);
    assert.deepEqual(namesakesFirst('base button (BaseButton)', [1, 2, 5], (id) => (id === 5 ? unitNames(button) : namesOf(id))), [5, 1, 2]);
  });

  it('candidates of equal score, for a query naming code: the shorter symbol first, so that the one named `array` is scored among hundreds that hold the word', () => {
    const index = new KeywordIndex();
    for (let i = 0; i < 260; i++) index.add(i, { path: `lib/types/array/m${i}.js`, header: '', symbol: 'MongooseArray.prototype.method', text: `return this.values[${i}]` });
    index.add(1000, { path: 'types/data-types.d.ts', header: '', symbol: 'ARRAY', text: 'export const ARRAY: ArrayDataTypeConstructor;' });
    const hits = index.search('array (ARRAY)', { k: 50, shortSymbolsFirst: true });
    assert.equal(hits[0]?.docId, 1000, hits.slice(0, 3).map((h) => h.docId).join(', '));
    // not asked (a query in words): ties go to the smaller docId, as before
    assert.ok(!index.search('array (ARRAY)', { k: 50 }).some((h) => h.docId === 1000));
  });

  it('search: the top-level `command` before a class\'s method of that name, and `ARRAY` before 260 files of `array…` functions', async () => {
    await firstHits(namesakeLayout(), NAMESAKES);
  });

  it("search: a Nuxt app's names no file spells — a composable exported anonymously by the name Nuxt imports it under (useCart), a component in a folder by the name Nuxt registers (<BaseButton>) — before the pages that use them; a component of a one-character name (prose/A.vue) found at all", async () => {
    await firstHits(nuxtLayout(), NUXT_NAMES);
  });
});
