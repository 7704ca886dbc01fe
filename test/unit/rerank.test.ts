import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../src/index/engine';
import type { FusedHit } from '../../src/index/rank/fusion';
import { modelTerms } from '../../src/index/model-terms';
import { MODEL_CANDIDATES, nounQuery, ownName, RERANK_DEPTH, RERANK_FEATURES, RERANK_WEIGHTS, rerank, rerankFeatures, wantsRerank, withModelCandidates, type RerankSource } from '../../src/index/rank/rerank';
import { loadStaticModel } from '../../src/index/static-model';

interface Doc {
  path: string;
  symbol?: string;
  kind?: string;
  text: string;
  keyword?: number;
  cosine?: number;
}

/** A source over `docs` (docId = index), every query term weighing 1. */
function source(docs: Doc[]): RerankSource {
  return {
    keywordScore: (id) => docs[id].keyword,
    cosine: (id) => docs[id].cosine,
    chunk: (id) => ({ path: docs[id].path, symbol: docs[id].symbol, kind: docs[id].kind ?? 'function', header: `// ${docs[id].path}` }),
    text: (id) => docs[id].text,
    termWeight: () => 1,
  };
}

const fused = (docs: Doc[]): FusedHit[] => docs.map((d, i) => ({ docId: i, score: 1 - i * 0.01, why: { fused: 1 - i * 0.01, keyword: d.keyword === undefined ? undefined : i + 1 } }));

describe('rerank (learned re-ranking of a plain-words query)', () => {
  it('reads one row of every feature per candidate: what of the query the chunk and its name hold, its file, tests and prose', () => {
    const docs: Doc[] = [
      { path: 'src/cookie.py', symbol: 'parse_cookie', text: 'def parse_cookie(header):\n    return dict(p.split("=") for p in header.split(";"))', keyword: 10, cosine: 0.6 },
      { path: 'tests/test_cookie.py', symbol: 'test_parse', text: 'def test_parse():\n    assert parse_cookie("a=1") == {"a": "1"}', keyword: 6, cosine: 0.5 },
      { path: 'docs/cookies.md', symbol: 'Cookies', kind: 'section', text: 'Cookies are parsed from the header.', keyword: 4, cosine: 0.2 },
      { path: 'src/cookie.py', symbol: 'dump_cookie', text: 'def dump_cookie(key, value):\n    return f"{key}={value}"', cosine: 0.1 },
    ];
    const rows = rerankFeatures('parse cookie header', fused(docs), source(docs), true);
    assert.equal(rows.length, 4);
    assert.ok(rows.every((r) => r.length === RERANK_FEATURES.length && r.every(Number.isFinite)));
    assert.equal(RERANK_WEIGHTS.length, RERANK_FEATURES.length);
    const f = (row: number, name: (typeof RERANK_FEATURES)[number]) => rows[row][RERANK_FEATURES.indexOf(name)];
    // parse, cookie, header: all three in the first chunk, none but cookie (its path) in the last
    assert.equal(f(0, 'coverage'), 1);
    assert.ok(Math.abs(f(3, 'coverage') - 1 / 3) < 1e-9, String(f(3, 'coverage')));
    assert.ok(f(0, 'nameCoverage') > f(2, 'nameCoverage'));
    assert.equal(f(0, 'keyword'), 1);
    assert.equal(f(3, 'keyword'), 0, 'not in the keyword list');
    assert.equal(f(3, 'inKeyword'), 0);
    assert.equal(f(0, 'model'), 1);
    assert.equal(f(0, 'fileCount'), Math.log(2), 'one other candidate of its file');
    assert.equal(f(1, 'fileCount'), 0);
    assert.deepEqual([f(0, 'test'), f(1, 'test'), f(2, 'prose')], [0, 1, 1]);
    // a query about tests (docs) does not mark test code (prose)
    const aboutTests = rerankFeatures('parse the cookie header tests', fused(docs), source(docs), true);
    assert.equal(aboutTests[1][RERANK_FEATURES.indexOf('test')], 0);
    const aboutDocs = rerankFeatures('parse the cookie header documentation', fused(docs), source(docs), true);
    assert.equal(aboutDocs[2][RERANK_FEATURES.indexOf('prose')], 0);
    // a query the model was not asked for: the fused score is what convex would give, asked terms 0
    const wide = rerankFeatures('parse the cookie header', fused(docs), source(docs), false);
    assert.equal(wide[0][RERANK_FEATURES.indexOf('fused')], 1);
    assert.equal(wide[0][RERANK_FEATURES.indexOf('asked×model')], 0);
  });

  it('reads two adjacent query words as held where a chunk holds them joined (`scroll spy`: useScrollspy), as the keyword index matches them', () => {
    const docs: Doc[] = [
      { path: 'composables/useScrollspy.ts', symbol: 'useScrollspy', text: 'export function useScrollspy() {\n  const observer = new IntersectionObserver(update)\n  return { activeHeadings }\n}', keyword: 10, cosine: 0.2 },
      { path: 'composables/useScroll.ts', symbol: 'useScroll', text: 'export function useScroll() {\n  return { y: window.scrollY }\n}', keyword: 8, cosine: 0.5 },
    ];
    const rows = rerankFeatures('table of contents scroll spy', fused(docs), source(docs), true);
    const f = (row: number, name: (typeof RERANK_FEATURES)[number]) => rows[row][RERANK_FEATURES.indexOf(name)];
    const share = (n: number) => n / new Set(modelTerms('table of contents scroll spy')).size;
    // useScrollspy holds scroll and spy (as scrollspy), useScroll holds scroll only
    assert.ok(Math.abs(f(0, 'nameCoverage') - share(2)) < 1e-9, String(f(0, 'nameCoverage')));
    assert.ok(Math.abs(f(1, 'nameCoverage') - share(1)) < 1e-9, String(f(1, 'nameCoverage')));
    assert.ok(Math.abs(f(0, 'coverage') - share(2)) < 1e-9, String(f(0, 'coverage')));
    assert.ok(f(0, 'nameHeld') > 0, 'scrollspy, of its own name, is in the query');
    // words that are not adjacent are not joined
    const apart = rerankFeatures('spy on the scroll', fused(docs), source(docs), true);
    assert.equal(apart[0][RERANK_FEATURES.indexOf('nameCoverage')], 0);
  });

  it('puts the chunk named by the query words above one that only mentions them, and code above its tests and docs, all else equal', () => {
    const body = 'return the session cookie value for the request';
    const named: Doc[] = [
      { path: 'src/util.py', symbol: 'helper', text: `def helper(request):\n    # ${body}\n    pass`, keyword: 5, cosine: 0.5 },
      { path: 'src/session.py', symbol: 'session_cookie', text: `def session_cookie(request):\n    # ${body}\n    pass`, keyword: 5, cosine: 0.5 },
    ];
    const a = rerank('session cookie of a request', fused(named), source(named), true);
    assert.deepEqual(a.map((h) => named[h.docId].path), ['src/session.py', 'src/util.py']);
    assert.equal(a[0].why.reranked, 2, 'its place before');
    const kinds: Doc[] = [
      { path: 'tests/test_session.py', symbol: 'session_cookie', text: `def session_cookie(request):\n    # ${body}`, keyword: 5, cosine: 0.5 },
      { path: 'docs/session.md', symbol: 'session_cookie', kind: 'section', text: `session_cookie(request):\n    # ${body}`, keyword: 5, cosine: 0.5 },
      { path: 'src/session.py', symbol: 'session_cookie', text: `def session_cookie(request):\n    # ${body}`, keyword: 5, cosine: 0.5 },
    ];
    const b = rerank('session cookie of a request', fused(kinds), source(kinds), true);
    assert.equal(kinds[b[0].docId].path, 'src/session.py');
  });

  it("reads how much of a unit's own name the query spells out, and lifts the sibling it names", () => {
    assert.equal(ownName('Client.prepare_token_request'), 'prepare_token_request');
    assert.equal(ownName('HMACAlgorithm.{sign, verify}'), '{sign, verify}');
    assert.equal(ownName('parse_cookie'), 'parse_cookie');
    assert.equal(ownName(undefined), '');
    // one file, two methods: the sibling ranked above holds the query's "access" in its body, and "refresh" in its name
    const body = (extra: string) => `    body = {"grant_type": "refresh_token", "token": token}\n    ${extra}\n    return prepare_request(uri, headers, body)`;
    const docs: Doc[] = [
      { path: 'oauth/client.py', symbol: 'Client.prepare_refresh_token_request', kind: 'method', text: `def prepare_refresh_token_request(self, uri, token, headers):\n${body('headers["access"] = self.access_token')}`, keyword: 9, cosine: 0.5 },
      { path: 'oauth/client.py', symbol: 'Client.prepare_token_request', kind: 'method', text: `def prepare_token_request(self, uri, token, headers):\n${body('pass')}`, keyword: 8, cosine: 0.5 },
      { path: 'oauth/client.py', symbol: 'Client', kind: 'fragment', text: 'class Client:\n    token_type = "Bearer"', keyword: 2, cosine: 0.1 },
    ];
    const q = 'Prepare the access token request';
    const rows = rerankFeatures(q, fused(docs), source(docs), true);
    const held = (i: number) => rows[i][RERANK_FEATURES.indexOf('nameHeld')];
    // its terms are its words and the whole identifier (modelTerms): prepare, token, request of 4
    assert.equal(held(1), 3 / 4);
    assert.equal(held(0), 3 / 5, 'not "refresh"');
    assert.equal(held(2), 0);
    // the learned weight lifts the unit it names against its sibling: the gap the fused order left narrows
    const gap = (weights?: readonly number[]) => {
      const out = rerank(q, fused(docs), source(docs), true, weights ? { weights } : {});
      const score = (i: number) => out.find((h) => h.docId === i)!.score;
      return score(1) / score(0);
    };
    const without = RERANK_WEIGHTS.map((w, k) => (RERANK_FEATURES[k] === 'nameHeld' ? 0 : w));
    assert.ok(RERANK_WEIGHTS[RERANK_FEATURES.indexOf('nameHeld')] > 0);
    assert.ok(gap() > gap(without) * 1.1, `${gap()} against ${gap(without)}`);
  });

  it('reads whether a chunk opens a type, and lifts it for a query that reads as a noun phrase (what a class\'s doc says)', () => {
    assert.ok(nounQuery('A client used to sign OAuth 1.0 RFC 5849 requests.'));
    assert.ok(nounQuery('The Authorization Server requires End-User interaction to proceed.'));
    assert.ok(nounQuery('Engine is the framework instance, it contains the muxer and middleware'));
    assert.ok(!nounQuery('Sign the request with the client key'));
    assert.ok(!nounQuery('New returns a new blank Engine instance'));
    // a split class: its header and first method in one chunk (named by the method), and two more methods
    const docs: Doc[] = [
      { path: 'oauth1/client.py', symbol: 'Client.sign', kind: 'method', text: 'def sign(self, uri, http_method="GET", body=None, headers=None):\n    request = Request(uri, http_method, body, headers)\n    return self._render(request)', keyword: 9, cosine: 0.6 },
      { path: 'oauth1/client.py', symbol: 'Client.get_oauth_signature', kind: 'method', text: 'def get_oauth_signature(self, request):\n    return self.SIGNATURE_METHODS[self.signature_method](request)', keyword: 7, cosine: 0.55 },
      { path: 'oauth1/client.py', symbol: 'Client.register_signature_method', kind: 'method', text: '@dataclass\nclass Client:\n    SIGNATURE_METHODS = {}\n\n    def register_signature_method(cls, name, fn):\n        cls.SIGNATURE_METHODS[name] = fn', keyword: 5, cosine: 0.5 },
      { path: 'engine.go', symbol: 'Engine', kind: 'struct', text: '// comment\ntype Engine struct {\n\tRouterGroup\n}', keyword: 4, cosine: 0.4 },
      { path: 'engine.go', symbol: 'New', kind: 'function', text: 'func New() *Engine {\n\treturn &Engine{}\n}', keyword: 3, cosine: 0.3 },
    ];
    const f = (rows: number[][], i: number, name: (typeof RERANK_FEATURES)[number]) => rows[i][RERANK_FEATURES.indexOf(name)];
    const noun = 'A client used to sign OAuth 1.0 RFC 5849 requests.';
    const rows = rerankFeatures(noun, fused(docs), source(docs), true);
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => f(rows, i, 'typeHead')), [0, 0, 1, 1, 0], 'past decorators and comments; a func is no type');
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => f(rows, i, 'noun×typeHead')), [0, 0, 1, 1, 0]);
    const verb = rerankFeatures('Sign the request with the client key', fused(docs), source(docs), true);
    assert.equal(f(verb, 2, 'noun×typeHead'), 0, 'a verb phrase is no noun phrase');
    // the learned weights lift the class's header chunk against the method ranked first, for the noun phrase more than for a verb phrase
    const gap = (q: string, weights?: readonly number[]) => {
      const out = rerank(q, fused(docs), source(docs), true, weights ? { weights } : {});
      const score = (i: number) => out.find((h) => h.docId === i)!.score;
      return score(2) / score(0);
    };
    const without = RERANK_WEIGHTS.map((w, k) => (RERANK_FEATURES[k] === 'typeHead' || RERANK_FEATURES[k] === 'noun×typeHead' ? 0 : w));
    assert.ok(RERANK_WEIGHTS[RERANK_FEATURES.indexOf('noun×typeHead')] > 0);
    assert.ok(gap(noun) > gap(noun, without) * 1.5, `${gap(noun)} against ${gap(noun, without)}`);
    assert.ok(gap(noun) / gap(noun, without) > gap('Sign the request with the client key') / gap('Sign the request with the client key', without));
  });

  it(`re-orders the first ${RERANK_DEPTH} candidates only; the rest follow in their order, below them`, () => {
    const docs: Doc[] = Array.from({ length: RERANK_DEPTH + 20 }, (_, i) => ({ path: `src/f${i}.py`, text: `def f${i}(): pass`, keyword: 100 - i, cosine: 0.5 }));
    // the last of the first 50 holds every word of the query in its name
    docs[RERANK_DEPTH - 1] = { path: 'src/open_socket.py', symbol: 'open_socket', text: 'def open_socket(host, port): pass', keyword: 100 - (RERANK_DEPTH - 1), cosine: 0.9 };
    const out = rerank('open a socket to host', fused(docs), source(docs), true);
    assert.equal(out.length, docs.length);
    assert.ok(out.findIndex((h) => h.docId === RERANK_DEPTH - 1) < RERANK_DEPTH - 1, 'moved up');
    assert.deepEqual(out.slice(RERANK_DEPTH).map((h) => h.docId), docs.slice(RERANK_DEPTH).map((_, i) => RERANK_DEPTH + i));
    assert.ok(out.slice(RERANK_DEPTH).every((h) => h.why.reranked === undefined && h.score < out[RERANK_DEPTH - 1].score));
    for (let i = 1; i < out.length; i++) assert.ok(out[i].score <= out[i - 1].score, `scores in order at ${i}`);
    // fewer than two candidates: nothing to re-order
    assert.deepEqual(rerank('open a socket to host', fused(docs.slice(0, 1)), source(docs), true).map((h) => h.docId), [0]);
  });

  it("adds the model's first candidates to a query it was not asked for, and re-orders them with the rest", () => {
    const docs: Doc[] = Array.from({ length: RERANK_DEPTH + 30 }, (_, i) => ({ path: `src/f${i}.py`, text: `def f${i}(): pass`, keyword: i < RERANK_DEPTH + 10 ? 100 - i : undefined, cosine: 0.2 }));
    // the keyword list is 0..59; the model's list: one keyword candidate of the first 50 (3), one past them (55), two the keyword list lacks
    docs[70] = { path: 'src/open_socket.py', symbol: 'open_socket', text: 'def open_socket(host, port): pass', cosine: 0.9 };
    const keywordOnly = fused(docs.slice(0, RERANK_DEPTH + 10));
    const { hits, depth } = withModelCandidates(keywordOnly, [70, 3, 55, 71]);
    assert.equal(depth, RERANK_DEPTH + 3);
    assert.deepEqual(hits.slice(0, RERANK_DEPTH).map((h) => h.docId), keywordOnly.slice(0, RERANK_DEPTH).map((h) => h.docId));
    assert.deepEqual(hits.slice(RERANK_DEPTH, depth).map((h) => [h.docId, h.why.dense, h.why.keyword]), [[70, 1, undefined], [55, 3, undefined], [71, 4, undefined]]);
    assert.deepEqual(hits.slice(depth).map((h) => h.docId), [50, 51, 52, 53, 54, 56, 57, 58, 59], 'the rest, each once');
    // the model's list is read to its first MODEL_CANDIDATES only
    const many = Array.from({ length: MODEL_CANDIDATES + 10 }, (_, i) => 1000 + i);
    assert.equal(withModelCandidates(keywordOnly, many).depth, RERANK_DEPTH + MODEL_CANDIDATES);
    // re-ranked with them: the unit named by the query's words comes first from the model's list
    const all = [...docs];
    for (const h of hits) all[h.docId] ??= { path: `src/m${h.docId}.py`, text: 'pass', cosine: 0.1 };
    const out = rerank('Open a socket to the Host given', hits, source(all), false, {}, depth);
    assert.equal(out[0].docId, 70);
    assert.equal(out.length, hits.length);
    assert.deepEqual(out.slice(depth).map((h) => h.docId), hits.slice(depth).map((h) => h.docId));
  });

  it('serves a query in words: 3+ words, not found as written, terms the model mostly knows', () => {
    assert.equal(wantsRerank('open a socket to the host', false, 0.9), true);
    assert.equal(wantsRerank('open socket', false, 1), false, 'a name or two words');
    assert.equal(wantsRerank('open a socket to the host', true, 1), false, 'some chunk holds it as written');
    assert.equal(wantsRerank('abrir un socket al servidor', false, 0.2), false, 'a language the model does not know');
    // a query the model was not asked for (it names code): a sentence, not a few words around a name
    assert.equal(wantsRerank('array base (ArrayBase)', false, 1, false), false);
    assert.equal(wantsRerank('field tooltip with component Input', false, 1, false), false);
    assert.equal(wantsRerank('NewRouter returns a router with the default middleware', false, 1, false), true);
  });

  describe('in the engine, with the bundled model', () => {
    let dir: string;
    let engine: Engine;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-rerank-'));
      fs.mkdirSync(path.join(dir, 'src'));
      fs.mkdirSync(path.join(dir, 'tests'));
      fs.writeFileSync(path.join(dir, 'src', 'cookies.py'), 'def parse_cookie(header):\n    return dict(p.split("=", 1) for p in header.split("; "))\n\n\ndef dump_cookie(key, value, max_age=None):\n    out = f"{key}={value}"\n    if max_age is not None:\n        out += f"; Max-Age={max_age}"\n    return out\n');
      fs.writeFileSync(path.join(dir, 'tests', 'test_cookies.py'), 'from src.cookies import parse_cookie\n\n\ndef test_parse_cookie():\n    assert parse_cookie("a=1; b=2") == {"a": "1", "b": "2"}\n');
      fs.writeFileSync(path.join(dir, 'src', 'routes.py'), 'def match_route(path, routes):\n    for pattern, handler in routes:\n        if pattern == path:\n            return handler\n    return None\n');
      const r = loadStaticModel();
      assert.ok('embedder' in r, JSON.stringify(r));
      engine = new Engine({ embedder: r.embedder });
      for await (const _ of engine.indexFolder(dir)) void _;
      for await (const _ of engine.embedPending()) void _;
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('re-ranks a hybrid query in words (each hit says its place before), and not keyword mode, a name, or `rerank: false`', async () => {
      let seen: { rows: number[][]; ids: number } | undefined;
      const q = 'split the cookie header into a dictionary of values';
      const hits = await engine.search(q, { k: 5, rerank: { features: (rows, h) => (seen = { rows, ids: h.length }) } });
      assert.ok(seen && seen.rows.length === seen.ids && seen.rows.every((r) => r.length === RERANK_FEATURES.length), JSON.stringify(seen));
      assert.equal(hits[0].chunk.path, 'src/cookies.py');
      assert.equal(hits[0].chunk.symbol, 'parse_cookie');
      assert.ok(hits.every((h) => typeof h.why.reranked === 'number'), JSON.stringify(hits.map((h) => h.why)));
      const plain = await engine.search(q, { k: 5, rerank: false });
      assert.ok(plain.every((h) => h.why.reranked === undefined));
      const keyword = await engine.search(q, { k: 5, mode: 'keyword' });
      assert.ok(keyword.every((h) => h.why.reranked === undefined));
      const name = await engine.search('parse_cookie', { k: 5 });
      assert.ok(name.every((h) => h.why.reranked === undefined));
      // other weights are used as given: the fused score's alone keeps the fused order
      const fusedOnly = RERANK_FEATURES.map((f) => (f === 'fused' ? 1 : 0));
      const same = await engine.search(q, { k: 5, rerank: { weights: fusedOnly }, diversify: false });
      const before = await engine.search(q, { k: 5, rerank: false, diversify: false });
      assert.deepEqual(same.map((h) => h.docId), before.map((h) => h.docId));
    });

    it("brings the model's first candidates to a sentence it was not asked for (a Capitalized word): a chunk none of whose words the query uses", async () => {
      const q = 'Split the Cookie header into a dictionary of values';
      let rows = 0;
      const hits = await engine.search(q, { k: 5, rerank: { features: (r) => (rows = r.length) } });
      assert.equal(hits[0].chunk.symbol, 'parse_cookie');
      const routes = hits.find((h) => h.chunk.path === 'src/routes.py');
      assert.ok(routes && routes.why.keyword === undefined && routes.why.dense !== undefined && routes.why.reranked !== undefined, JSON.stringify(hits.map((h) => [h.chunk.path, h.why])));
      assert.equal(rows, engine.chunks.count, 'every chunk of this small folder is a candidate');
      // without the re-ranking, the keyword list alone: the model is not asked for this query
      const plain = await engine.search(q, { k: 5, rerank: false });
      assert.ok(!plain.some((h) => h.chunk.path === 'src/routes.py'), JSON.stringify(plain.map((h) => h.chunk.path)));
    });
  });
});
