import * as assert from 'node:assert/strict';
import { asksForTests, DENSE_WEIGHT, isTestPath, ownModelWeight, weighTests } from '../../src/index/fusion';

describe('test code below its implementation (weighTests)', () => {
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
    assert.deepEqual(weighTests(hits, 'router tests', (h) => h.path), hits);
  });

  it('moves a test hit below implementation hits that scored close to it, not below everything', () => {
    const hits = [
      { path: 'routergroup_test.go', score: 1 / 61 },
      { path: 'routergroup.go', score: 1 / 62 },
      { path: 'other.go', score: 1 / 90 },
    ];
    const out = weighTests(hits, 'route group middleware', (h) => h.path);
    assert.deepEqual(out.map((h) => h.path), ['routergroup.go', 'routergroup_test.go', 'other.go']);
    // the caller's objects are not changed
    assert.equal(hits[0].score, 1 / 61);
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
