/**
 * The agent's query handling (agent-query.ts) and the file ranking under the `search` tool's
 * default answer (file-rank.ts), on a fake folder whose rankings are given.
 */
import { strict as assert } from 'node:assert';
import type { Chunk } from '../../src/chunkers/types';
import type { SearchHit, SearchOptions } from '../../src/index/engine';
import { analyzeQuery } from '../../src/mcp/agent-query';
import { bestLines, rankFiles } from '../../src/mcp/file-rank';
import type { AgentFolder } from '../../src/mcp/folder';

function chunk(path: string, line: number, text: string, symbol?: string): Chunk {
  const lines = text.split('\n').length;
  return {
    id: `${path}:${line}`,
    path,
    language: 'python',
    kind: 'function',
    symbol,
    header: '',
    text,
    start: { offset: line * 100, line, column: 0 },
    end: { offset: line * 100 + text.length, line: line + lines - 1, column: 0 },
    tokens: 10,
    complete: true,
  };
}

/** A folder whose search answers each query with the given chunks, in order. */
function fakeFolder(rankings: Record<string, Chunk[]>, paths: string[]): AgentFolder & { asked: string[] } {
  const asked: string[] = [];
  const all = Object.values(rankings).flat();
  return {
    root: '/fake',
    asked,
    async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
      asked.push(query);
      return (rankings[query] ?? []).slice(0, options.k).map((c, i) => ({ chunk: c, docId: all.indexOf(c), score: 1 / (60 + i + 1), why: { keyword: i + 1, fused: 1 / (60 + i + 1) } }));
    },
    async similar() {
      return [];
    },
    chunksOf: (rel) => {
      const mine = all.filter((c) => c.path === rel);
      return mine.length ? mine : paths.includes(rel) ? [chunk(rel, 1, 'def extract(self, to_path):\n    pass', 'extract')] : undefined;
    },
    paths: () => paths,
    skipOf: () => undefined,
    async i18n() {
      return { candidates: [], problems: [] };
    },
    state: () => ({ root: '/fake', files: paths.length, skipped: 0, chunks: all.length, vectors: 0, pendingVectors: 0, store: 'none', watching: 'no' }),
  };
}

describe('agent query handling', () => {
  it('a commit subject: tracker references, stop words and change-log verbs out; identifiers kept as written, first', () => {
    const q = analyzeQuery('Refs #32786 -- Made Query.clear_ordering() not to cause side effects by default.');
    assert.equal(q.passThrough, false);
    assert.deepEqual(q.identifiers, ['Query.clear_ordering']);
    assert.deepEqual(q.words, ['cause', 'side', 'effects', 'default']);
    assert.equal(q.text, 'Query.clear_ordering cause side effects default');
    const cve = analyzeQuery('Fixed CVE-2025-48432 -- Escaped formatting arguments in `log_response()`.');
    assert.deepEqual(cve.identifiers, ['log_response']);
    assert.ok(!cve.words.some((w) => /cve|2025|fixed/.test(w)), cve.words.join(' '));
  });

  it('identifiers: snake_case, camelCase, dotted, calls and backticks; version numbers and short words are not', () => {
    const q = analyzeQuery('Mitigated DoS in django.utils.text.Truncator for URLValidator and `sitemap` on Python 3.9 with getattr() calls');
    assert.deepEqual(q.identifiers, ['django.utils.text.Truncator', 'URLValidator', 'sitemap', 'getattr']);
    assert.ok(q.words.includes('dos') && q.words.includes('python'), q.words.join(' '));
    assert.ok(!q.words.includes('9'));
  });

  it('path terms: words and identifier segments weigh 1, camel-case parts less; stems included', () => {
    const q = analyzeQuery('Fixed crash in URLValidator when archives have xml_serializer entries');
    assert.equal(q.pathTerms.get('urlvalidator'), 1);
    assert.equal(q.pathTerms.get('xml'), 1);
    assert.equal(q.pathTerms.get('serializer'), 1);
    assert.equal(q.pathTerms.get('archive'), 1, 'the s-stem of archives');
    assert.ok((q.pathTerms.get('validator') ?? 0) < 1);
    assert.equal(q.pathTerms.has('crash'), false);
  });

  it('short queries pass through as typed', () => {
    for (const s of ['getZoomControl', 'zoom control', 'src/a.js']) {
      const q = analyzeQuery(s);
      assert.equal(q.passThrough, true, s);
      assert.equal(q.text, s);
    }
  });
});

describe('file ranking for agents', () => {
  it('a file with several good chunks outranks one with a single chunk just above them', async () => {
    const a1 = chunk('a.py', 1, 'x');
    const b1 = chunk('b.py', 1, 'x');
    const b2 = chunk('b.py', 20, 'x');
    const b3 = chunk('b.py', 40, 'x');
    const f = fakeFolder({ 'parser tokens stream lexer': [a1, b1, b2, b3] }, []);
    const files = await rankFiles(f, analyzeQuery('Fix the parser tokens stream in the lexer'), { mode: 'keyword', filters: {} });
    assert.deepEqual(
      files.map((x) => x.path),
      ['b.py', 'a.py'],
    );
    assert.deepEqual(
      files[0].hits.map((h) => h.chunk.start.line),
      [1, 20, 40],
      'its chunks, best first',
    );
  });

  it('each identifier is searched on its own too, and its first rank counts', async () => {
    const a1 = chunk('a.py', 1, 'x');
    const b1 = chunk('b.py', 1, 'x');
    const c1 = chunk('c.py', 1, 'def clear_ordering(self):', 'Query.clear_ordering');
    const f = fakeFolder({ 'Query.clear_ordering side effects': [a1, b1, c1], 'Query.clear_ordering': [c1] }, []);
    const files = await rankFiles(f, analyzeQuery('Made Query.clear_ordering() not have side effects'), { mode: 'keyword', filters: {} });
    assert.deepEqual(f.asked, ['Query.clear_ordering side effects', 'Query.clear_ordering']);
    assert.equal(files[0].path, 'c.py');
  });

  it('a rare query word in a path brings that file in, even when no chunk of it ranked', async () => {
    const paths = ['django/utils/archive.py', 'django/utils/text.py', 'django/db/models.py', 'tests/test_text.py'];
    const t1 = chunk('django/utils/text.py', 1, 'x');
    const f = fakeFolder({ 'archive extract directory traversal': [t1] }, paths);
    const files = await rankFiles(f, analyzeQuery('Fixed potential directory traversal via archive extract'), { mode: 'keyword', filters: {} });
    const arch = files.find((x) => x.path === 'django/utils/archive.py');
    assert.ok(arch, files.map((x) => x.path).join(' '));
    assert.deepEqual(arch.pathTerms, ['archive']);
    assert.equal(arch.hits[0].chunk.symbol, 'extract', 'its chunk holding a query term is shown');
    // with a filter, only the engine decides which files pass
    const filtered = await rankFiles(f, analyzeQuery('Fixed potential directory traversal via archive extract'), { mode: 'keyword', filters: { language: ['python'] } });
    assert.ok(!filtered.some((x) => x.path === 'django/utils/archive.py'));
  });

  it('bestLines: the lines with the most query terms (identifiers weigh more), in line order', () => {
    const c = chunk('a.py', 10, 'def save(self, name):\n    # keep the name\n    name = self.get_available_name(name)\n    return name');
    const lines = bestLines(c, analyzeQuery('Added file name validation in get_available_name() of Storage'), 1);
    assert.deepEqual(lines, [{ line: 12, text: 'name = self.get_available_name(name)' }]);
    const none = bestLines(chunk('b.py', 5, '\n  unrelated()\n'), analyzeQuery('zzz qqq www'), 2);
    assert.deepEqual(none, [{ line: 6, text: 'unrelated()' }], 'no line matches: the first non-blank one');
  });
});
