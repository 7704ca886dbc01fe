import * as assert from 'node:assert/strict';
import { asksForDocs, asksForTests, DENSE_WEIGHT, isProsePath, isTestPath, namedIdentifiers, ownModelWeight, weighByPath } from '../../src/index/rank/fusion';

describe('test code below its implementation (weighByPath)', () => {
  it('knows test files by folder and by each language convention, and not a `testing` package', () => {
    for (const p of ['tests/test_app.py', 'pkg/tests/helpers.py', 'src/__tests__/a.ts', 'a/b_test.go', 'x/test_views.py', 'web/app.spec.ts', 'ui/Button.test.jsx', 'src/FooTest.java', 'spec/models/user_spec.rb', 'test/unit/a.ts'])
      assert.ok(isTestPath(p), p);
    for (const p of ['testing/testsuite.go', 'tornado/testing.py', 'src/contest.ts', 'latest/app.py', 'src/attestation.go', 'lib/test-utils.js'])
      assert.ok(!isTestPath(p), p);
  });

  it('keeps the order when the query is about tests', () => {
    assert.ok(asksForTests('route group middleware tests'));
    assert.ok(asksForTests('mock the http client'));
    assert.ok(!asksForTests('route group middleware'));
    assert.ok(!asksForTests('latest version attestation'));
    const hits = [
      { path: 'router_test.go', score: 0.03 },
      { path: 'router.go', score: 0.029 },
    ];
    assert.deepEqual(weighByPath(hits, 'router tests', (h) => h.path), hits);
  });

  it('moves a test hit below implementation hits that scored close to it, not below everything', () => {
    const hits = [
      { path: 'routergroup_test.go', score: 1 / 61 },
      { path: 'routergroup.go', score: 1 / 62 },
      { path: 'other.go', score: 1 / 90 },
    ];
    const out = weighByPath(hits, 'route group middleware', (h) => h.path);
    assert.deepEqual(out.map((h) => h.path), ['routergroup.go', 'routergroup_test.go', 'other.go']);
    // the caller's objects are not changed
    assert.equal(hits[0].score, 1 / 61);
  });

  it('test code that defines an identifier the query names keeps its rank: a top-level unit of that name, not a test double\'s method', () => {
    assert.deepEqual([...namedIdentifiers('derived example extension (DerivedExampleExtension), choice_loader, $store, URLValidator, app, client')], ['DerivedExampleExtension', 'choice_loader', '$store', 'URLValidator']);
    const hits = [
      { path: 'tests/test_ext.py', symbol: 'DerivedExampleExtension', score: 1 },
      { path: 'src/runtime.py', symbol: 'Context.derived', score: 0.95 },
    ];
    const symbolOf = (h: { symbol: string }) => h.symbol;
    assert.deepEqual(weighByPath(hits, 'derived example extension (DerivedExampleExtension)', (h) => h.path, { symbolOf }).map((h) => h.path), ['tests/test_ext.py', 'src/runtime.py']);
    // without the symbols, or for plain words, as before: below the implementation
    assert.deepEqual(weighByPath(hits, 'derived example extension (DerivedExampleExtension)', (h) => h.path).map((h) => h.path), ['src/runtime.py', 'tests/test_ext.py']);
    const fixture = [
      { path: 'tests/conftest.py', symbol: 'app', score: 1 },
      { path: 'src/flask/app.py', symbol: 'Flask', score: 0.95 },
    ];
    assert.deepEqual(weighByPath(fixture, 'Returns the app', (h) => h.path, { symbolOf }).map((h) => h.path), ['src/flask/app.py', 'tests/conftest.py']);
    // a test double's method named like the real one: demoted as any test code
    const mock = [
      { path: 'binding/form_mapping_test.go', symbol: 'mockSetter.TrySet', score: 1 },
      { path: 'binding/form_mapping.go', symbol: 'formSource.TrySet', score: 0.95 },
    ];
    assert.deepEqual(weighByPath(mock, 'TrySet tries to set a value by the request form', (h) => h.path, { symbolOf }).map((h) => h.path), ['binding/form_mapping.go', 'binding/form_mapping_test.go']);
    // a type of that name nested in a test class or under a namespace (C#, PHP) keeps its rank too,
    // with its kind known; a method named so does not
    const nested = [
      { path: 'Src/Json.Tests/Converters/DateConverterTests.cs', symbol: 'Json.Tests.Converters.DateConverterTests.ConverterDictionary', kind: 'class', score: 1 },
      { path: 'Src/Json/Serialization/Reader.cs', symbol: 'Json.Serialization.Reader.PopulateDictionary', kind: 'method', score: 0.95 },
    ];
    const kindOf = (h: { kind: string }) => h.kind;
    const q = 'converter dictionary (ConverterDictionary)';
    assert.deepEqual(weighByPath(nested, q, (h) => h.path, { symbolOf, kindOf }).map((h) => h.kind), ['class', 'method']);
    assert.deepEqual(weighByPath(nested, q, (h) => h.path, { symbolOf }).map((h) => h.kind), ['method', 'class']);
    const method = nested.map((h) => ({ ...h, kind: 'method' }));
    assert.deepEqual(weighByPath(method, q, (h) => h.path, { symbolOf, kindOf }).map((h) => h.path)[0], 'Src/Json/Serialization/Reader.cs');
  });
});

describe('prose below the code a plain-words query describes (weighByPath, describes)', () => {
  const hits = [
    { path: 'docs/server.rst', score: 1 / 61 },
    { path: 'docs/cli.rst', score: 1 / 62 },
    { path: 'flask/app.py', score: 1 / 63 },
    { path: 'flask/helpers.py', score: 1 / 120 },
  ];
  it('knows prose by extension and docs folder, not code under docs/', () => {
    for (const p of ['README.md', 'docs/server.rst', 'docs/howto/deploy.txt', 'man/fathom.1', 'guide/intro.adoc']) assert.ok(isProsePath(p), p);
    for (const p of ['docs/conf.py', 'src/readme.js', 'lib/doc.go', 'flask/app.py']) assert.ok(!isProsePath(p), p);
  });

  it('a behaviour described in plain words: the code close behind the prose comes first', () => {
    const out = weighByPath(hits, 'Runs the application on a local development server', (h) => h.path, { describes: true });
    assert.equal(out[0].path, 'flask/app.py');
    // a weight, not a wall: prose still ranks above code that scored far below it
    assert.ok(out.findIndex((h) => h.path === 'docs/server.rst') < out.findIndex((h) => h.path === 'flask/helpers.py'));
  });

  it('not for a query about docs, nor one that is not a plain-words description', () => {
    assert.ok(asksForDocs('where do the docs describe the development server'));
    assert.ok(!asksForDocs('Runs the application on a local development server'));
    assert.deepEqual(weighByPath(hits, 'development server docs', (h) => h.path, { describes: true }), hits);
    assert.deepEqual(weighByPath(hits, 'Runs the application on a local development server', (h) => h.path, { describes: false }), hits);
  });
});

describe("when Fathom's own model takes part (ownModelWeight)", () => {
  it('a sentence in plain words: yes; a phrase some chunk holds, a name, a key, code, a Capitalized name: no', () => {
    assert.equal(ownModelWeight('Creates a test client for this application', false), DENSE_WEIGHT);
    assert.equal(ownModelWeight('Creates a test client for this application', true), 0);
    assert.equal(ownModelWeight('zoom control', false), 0);
    assert.equal(ownModelWeight('user.sign_out label text', false), 0);
    assert.equal(ownModelWeight('returns the getZoomControl of a map', false), 0);
    assert.equal(ownModelWeight('field title with component Input', false), 0);
    assert.equal(ownModelWeight('Register database functions with the app', false), DENSE_WEIGHT);
  });
});
