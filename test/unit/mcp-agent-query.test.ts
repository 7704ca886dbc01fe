/**
 * The agent's query handling (agent-query.ts) and the file ranking under the `search` tool's
 * default answer (file-rank.ts), on a fake folder whose rankings are given.
 */
import { strict as assert } from 'node:assert';
import type { Chunk } from '../../src/chunkers/types';
import type { SearchHit, SearchOptions } from '../../src/index/engine';
import { analyzeQuery, mergeBranchWords } from '../../src/agent/agent-query';
import { bestLines, filePrior, isLocalePath, isProsePath, isTestPath, rankFiles } from '../../src/agent/file-rank';
import type { AgentFolder } from '../../src/agent/folder';

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
      // a search restricted to paths answers from its own ranking ("<query> @glob")
      return (rankings[options.filters?.pathGlob ? `${query} @glob` : query] ?? []).slice(0, options.k).map((c, i) => ({ chunk: c, docId: all.indexOf(c), score: 1 / (60 + i + 1), why: { keyword: i + 1, fused: 1 / (60 + i + 1) } }));
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

  it('a Conventional Commits head: its scopes are words of the place, its type is not searched; docs, test and deps say what the task is about', () => {
    const fix = analyzeQuery('fix(binding): support time.Duration in form binding');
    assert.deepEqual(fix.identifiers, ['time.Duration']);
    assert.deepEqual(fix.words, ['binding', 'form']);
    assert.ok(fix.pathTerms.has('binding'));
    assert.ok(!fix.words.includes('fix') && !fix.identifiers.includes('fix'), 'the type is no identifier');
    const feat = analyzeQuery('feat(router, tree)!: add route group middleware');
    assert.deepEqual(feat.words, ['router', 'tree', 'route', 'group', 'middleware']);
    assert.equal(feat.aboutDocs || feat.aboutTests || feat.aboutDependencies, false);
    assert.equal(analyzeQuery('docs: explain the cache options').aboutDocs, true);
    assert.equal(analyzeQuery('test(context): cover the negotiated format').aboutTests, true);
    assert.equal(analyzeQuery('chore(deps): bump golang.org/x/net from 0.1.0 to 0.2.0').aboutDependencies, true);
    // a short one: searched without its type
    const short = analyzeQuery('fix(render): JSON');
    assert.equal(short.passThrough, true);
    assert.equal(short.text, 'render JSON');
    // not a head: a capitalized prefix, a Go package prefix (its word is kept), a type word without ": "
    assert.deepEqual(analyzeQuery('Python 3.9: fix collections import').words, ['python', 'collections', 'import']);
    assert.deepEqual(analyzeQuery('binding: parse time values in forms').words, ['binding', 'parse', 'time', 'values', 'forms']);
    assert.deepEqual(analyzeQuery('feature flags are read from the environment').words, ['feature', 'flags', 'read', 'environment']);
  });

  it('a merge commit: the words of its branch, not its owner, number or target', () => {
    assert.deepEqual(analyzeQuery('Merge pull request #3301 from appleboy/fix-binding-time-format').words, ['binding', 'time', 'format']);
    assert.deepEqual(analyzeQuery("Merge branch 'feature/route-groups' into master").text, 'feature route groups');
    assert.equal(mergeBranchWords("Merge remote-tracking branch 'origin/fix-cli-loader'"), 'fix cli loader');
    assert.equal(mergeBranchWords("Merge remote-tracking branch 'origin/2.3.x'"), undefined, 'a version branch names no place');
    // not a merge subject: as before
    assert.deepEqual(analyzeQuery('Merge the route groups of two engines').words, ['merge', 'route', 'groups', 'two', 'engines']);
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

  it('file names: a token written like a file or folder name; tests and dependencies as what the task is about', () => {
    const q = analyzeQuery('Order docker.service after containerd.service in <stdint.h> and cli/command: (see 3.9 and Query.get())');
    assert.deepEqual(q.fileNames, ['docker.service', 'containerd.service', 'stdint.h', 'cli/command']);
    assert.equal(q.aboutTests, false);
    assert.equal(analyzeQuery('Skip some pkg/signal linux tests').aboutTests, true);
    assert.equal(analyzeQuery('skip_network_tests').aboutTests, true, 'a part of an identifier counts');
    assert.equal(analyzeQuery('Disable the contest mode of the runner').aboutTests, false, 'a word, not a substring');
    assert.equal(analyzeQuery('Remove run-time dependency on cffi').aboutDependencies, true);
    assert.equal(analyzeQuery('Remove the cffi backend from the loader').aboutDependencies, false);
    assert.deepEqual(analyzeQuery('see https://bugs.debian.org/x.html for 1.2.3').fileNames, [], 'links and versions are not file names');
  });

  it('a file the query names comes first though no chunk of it ranked; a folder it names lifts its files', async () => {
    const paths = ['engine/contrib/init/systemd/docker.service', 'engine/daemon/service.go', 'cli/cli/command/image/build_test.go', 'cli/cli/command/image/build.go', 'engine/integration/build_test.go'];
    const svc = chunk('engine/daemon/service.go', 1, 'x');
    const f = fakeFolder({ 'docker.service containerd.service order': [svc] }, paths);
    const files = await rankFiles(f, analyzeQuery('Order docker.service after containerd.service'), { mode: 'keyword', filters: {} });
    assert.equal(files[0].path, 'engine/contrib/init/systemd/docker.service', files.map((x) => x.path).join(' '));
    const other = chunk('engine/integration/build_test.go', 1, 'x');
    const g = fakeFolder({ 'cli/command skip network tests': [other] }, paths);
    const ranked = (await rankFiles(g, analyzeQuery('cli/command: Skip network tests'), { mode: 'keyword', filters: {} })).map((x) => x.path);
    assert.equal(ranked[0], 'cli/cli/command/image/build_test.go', 'under the folder named, and a test');
    // with a filter, a named file the engine did not pass stays out
    const filtered = await rankFiles(f, analyzeQuery('Order docker.service after containerd.service'), { mode: 'keyword', filters: { language: ['go'] } });
    assert.ok(!filtered.some((x) => x.path.endsWith('docker.service')));
  });

  it('a change log, a translated copy and an issue template fall behind the code a task sentence is about', async () => {
    const paths = ['CHANGELOG.md', 'man-pages/man1/server.1', 'man-pages/uk/man1/server.1', '.github/ISSUE_TEMPLATE/BUG.md', 'srv/opts.py', 'es/index.js', 'es/util.js'];
    const ranking = ['CHANGELOG.md', 'man-pages/uk/man1/server.1', '.github/ISSUE_TEMPLATE/BUG.md', 'man-pages/man1/server.1', 'srv/opts.py'].map((p) => chunk(p, 1, 'x'));
    const q = analyzeQuery('Use IPv6 address for content server default value');
    const f = fakeFolder({ [q.text]: ranking }, paths);
    const files = (await rankFiles(f, q, { mode: 'keyword', filters: {} })).map((x) => x.path);
    // the code first (a man page is prose: behind code for a task about behaviour), then the man page, ahead of its translated copy
    assert.deepEqual(files.slice(0, 2), ['srv/opts.py', 'man-pages/man1/server.1'], files.join(' '));
    const all = new Set(paths);
    assert.equal(filePrior('man-pages/uk/man1/server.1', q, all), filePrior('CHANGELOG.md', q, all));
    assert.equal(filePrior('es/index.js', q, all), 1, 'a folder named like a locale with no copy elsewhere is no translation');
    // a short query asks for what it says: a change log too
    assert.equal(filePrior('CHANGELOG.md', analyzeQuery('changelog'), all), 1);
    // a task about a release: its change log is a place of it, not a mention (other prose still weighs less)
    for (const task of ['Release version 2.0.1 of the server', 'release(server): 2.0.1 with the IPv6 default', 'Update the changelog for the IPv6 default']) {
      const r = analyzeQuery(task);
      assert.equal(r.aboutRelease, true, task);
      assert.equal(filePrior('CHANGELOG.md', r, all), 1, task);
      // (a task naming the changelog is about docs as well: prose is not weighed down for it)
      if (!r.aboutDocs) assert.ok(filePrior('man-pages/man1/server.1', r, all) < 1, task);
    }
    assert.equal(analyzeQuery('Allow pem version 1.0').aboutRelease, false);
  });

  it('a task about dependencies ranks the manifests on their own too', async () => {
    const paths = ['setup.cfg', 'src/_cffi_src/a.py', 'src/_cffi_src/b.py', 'src/x.py'];
    const code = ['src/_cffi_src/a.py', 'src/_cffi_src/b.py', 'src/x.py'].map((p) => chunk(p, 1, 'x'));
    const q = analyzeQuery('Remove run-time dependency on cffi');
    const f = fakeFolder({ [q.text]: code, [`${q.text} @glob`]: [chunk('setup.cfg', 1, 'cffi>=1.12')] }, paths);
    const files = (await rankFiles(f, q, { mode: 'keyword', filters: {} })).map((x) => x.path);
    assert.ok(files.indexOf('setup.cfg') >= 0 && files.indexOf('setup.cfg') < 3, files.join(' '));
    const other = analyzeQuery('Remove the run-time loader of cffi');
    const g = fakeFolder({ [other.text]: code, [`${other.text} @glob`]: [chunk('setup.cfg', 1, 'cffi>=1.12')] }, paths);
    assert.ok(!(await rankFiles(g, other, { mode: 'keyword', filters: {} })).some((x) => x.path === 'setup.cfg'), 'no manifests asked for otherwise');
  });

  it('a task about tests weighs test files up', () => {
    for (const p of ['tests/test_html.py', 'lib/fs/basicfs_watch_test.go', 'src/a.spec.ts', 'test/parallel/x.js', 'src/FooTest.java']) assert.ok(isTestPath(p), p);
    for (const p of ['src/contest.py', 'lib/testament/x.go', 'src/attest.js']) assert.ok(!isTestPath(p), p);
    const q = analyzeQuery('Skip flaky watch tests on slow machines');
    const all = new Set<string>();
    assert.ok(filePrior('lib/fs/basicfs_watch.go', q, all) < filePrior('lib/fs/basicfs_watch_test.go', q, all));
  });

  it('prose docs and translation files fall behind code for a task about behaviour; not when the task is about docs or translations', () => {
    for (const p of ['README.md', 'docs/content/ftp.md', 'docs/howto/deploy.txt', 'man/rclone.1', 'docs/conf.css']) assert.ok(isProsePath(p), p);
    for (const p of ['docs/conf.py', 'src/readme.js', 'lib/doc.go']) assert.ok(!isProsePath(p), p);
    for (const p of ['locales/pt-BR.json', 'po/de.po', 'src/i18n/messages.ts', 'app/translations/fr.yml']) assert.ok(isLocalePath(p), p);
    for (const p of ['src/locale.js', 'src/post.ts']) assert.ok(!isLocalePath(p), p);
    const all = new Set<string>();
    const behaviour = analyzeQuery('Compose a new post from the editor toolbar');
    // "new" is a content word of a task ("compose a new post"), not a change-log word to drop
    assert.ok(behaviour.words.includes('new'), behaviour.words.join(' '));
    assert.ok(filePrior('locales/pt-BR.json', behaviour, all) < filePrior('src/compose/post.ts', behaviour, all));
    assert.ok(filePrior('docs/compose.md', behaviour, all) < filePrior('src/compose/post.ts', behaviour, all));
    assert.equal(filePrior('docs/compose.md', analyzeQuery('Fix typos in the compose docs'), all), 1);
    assert.equal(filePrior('locales/pt-BR.json', analyzeQuery('Update the Brazilian translation of the composer'), all), 1);
    // a test file is not weighed down for a task about behaviour: the changes measured touch tests as often as code
    assert.equal(filePrior('src/compose/post.test.ts', behaviour, all), 1);
  });

  it('bestLines: the lines with the most query terms (identifiers weigh more), in line order', () => {
    const c = chunk('a.py', 10, 'def save(self, name):\n    # keep the name\n    name = self.get_available_name(name)\n    return name');
    const lines = bestLines(c, analyzeQuery('Added file name validation in get_available_name() of Storage'), 1);
    assert.deepEqual(lines, [{ line: 12, text: 'name = self.get_available_name(name)' }]);
    const none = bestLines(chunk('b.py', 5, '\n  unrelated()\n'), analyzeQuery('zzz qqq www'), 2);
    assert.deepEqual(none, [{ line: 6, text: 'unrelated()' }], 'no line matches: the first non-blank one');
  });
});
