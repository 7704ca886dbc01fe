/** jsonPieces: JSON.stringify's text, in pieces a writer can await between. */
import { strict as assert } from 'node:assert';
import { jsonPieces } from '../../src/util/json-pieces';

describe('jsonPieces', () => {
  const values: unknown[] = [
    null,
    0,
    'a "quoted" \\ line\nbreak ünïcode 🙂',
    [],
    {},
    [1, undefined, () => 1, Symbol('s'), null, [2, [3, [4, [5]]]]],
    { a: undefined, b: () => 1, 'k"ey': { c: [{ d: new Date(0) }, { e: { toJSON: () => 'custom' } }] }, n: NaN, i: Infinity, m: new Map([[1, 2]]) },
    { format: 'fathom-i18n', state: { locales: [{ file: 'en.json', entries: [['a.b', 'Text', 1, 2]] }], usages: [['src/a.js', [{ key: 'a.b', line: 3 }]]], tables: { groups: [['app', null, null, 'a.b', [0]]], postings: [['text'], [[0]]] } } },
  ];
  it('joined, the pieces are JSON.stringify of the value, at every depth', () => {
    for (const v of values) for (const depth of [0, 1, 2, 3, 4, 8]) assert.equal([...jsonPieces(v, depth)].join(''), JSON.stringify(v), `depth ${depth}: ${String(JSON.stringify(v))}`);
  });
  it('gives a piece per element down to the depth asked, one piece below it', () => {
    const v = { list: [[1, 2], [3, 4]] };
    assert.deepEqual([...jsonPieces(v, 1)], ['{', '"list":', '[[1,2],[3,4]]', '}']);
    assert.deepEqual([...jsonPieces(v, 2)], ['{', '"list":', '[', '[1,2]', ',', '[3,4]', ']', '}']);
  });
});
