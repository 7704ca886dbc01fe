/**
 * The import graph between src/ folders points down: a folder imports only folders of a lower
 * layer (ARCHITECTURE.md). An arrow back up fails here, with the file and the import. A known
 * arrow back, while one exists, is listed in KNOWN_UP, so that a new one fails and removing it
 * makes this test ask to drop it from the list.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const SRC = path.join(__dirname, '..', '..', 'src');

/** Lower number = lower layer. Folders on one layer do not import each other. */
const LAYER: Record<string, number> = {
  util: 0,
  parse: 1,
  tokenizer: 1,
  workspace: 2,
  chunkers: 3,
  i18n: 4,
  index: 5,
  agent: 6, // the agent tools, over `AgentFolder`: run by the worker (service) and by the MCP server
  eval: 7,
  service: 7,
  mcp: 8,
  editor: 9, // the editor's logic without vscode (search controller, result tree, settings, status, i18n picker)
  commands: 10,
  views: 10,
  '(root)': 11, // extension.ts, cli.ts: the entry points
};

/** Known arrows back up, as `file -> folder` (none: the agent tools moved below the service). */
const KNOWN_UP = new Set<string>([]);

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.ts$/.test(e.name) ? [path.join(dir, e.name)] : []));
}

const folderOf = (rel: string) => (rel.includes('/') ? rel.split('/')[0] : '(root)');

describe('layers: src/ imports point down', function () {
  const edges: Array<{ file: string; from: string; to: string; spec: string }> = [];
  before(() => {
    for (const f of files(SRC)) {
      const rel = path.relative(SRC, f).split(path.sep).join('/');
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) {
        const target = path.relative(SRC, path.resolve(path.dirname(f), m[1])).split(path.sep).join('/');
        if (target.startsWith('..')) continue; // package.json and the like, outside src/
        edges.push({ file: rel, from: folderOf(rel), to: folderOf(target), spec: m[1] });
      }
    }
  });

  it('every src/ folder has a layer', () => {
    const folders = new Set(files(SRC).map((f) => folderOf(path.relative(SRC, f).split(path.sep).join('/'))));
    assert.deepEqual([...folders].filter((d) => LAYER[d] === undefined), []);
  });

  it('no import from a higher layer or across one layer, but the known ones', () => {
    assert.ok(edges.length > 100, `read ${edges.length} imports`);
    const up = edges.filter((e) => e.from !== e.to && LAYER[e.to] >= LAYER[e.from]);
    const found = new Set(up.map((e) => `${e.file} -> ${e.to}`));
    const unknown = up.filter((e) => !KNOWN_UP.has(`${e.file} -> ${e.to}`)).map((e) => `${e.file} imports ${e.spec} (${e.from} → ${e.to})`);
    assert.deepEqual(unknown, [], 'arrows back up');
    assert.deepEqual([...KNOWN_UP].filter((k) => !found.has(k)), [], 'a known arrow is gone: drop it from KNOWN_UP');
  });

  it('i18n/ and index/ do not import each other both ways: i18n/ imports nothing of index/', () => {
    assert.deepEqual(edges.filter((e) => e.from === 'i18n' && e.to === 'index').map((e) => e.file), []);
  });

  it('index/ takes from i18n/ only its shared types: i18n/types.ts, below the rest of i18n/', () => {
    const fromI18n = edges.filter((e) => e.from === 'index' && e.to === 'i18n');
    assert.ok(fromI18n.length > 0, 'index/ imports i18n types (the engine feeds the i18n index from its reads)');
    assert.deepEqual(
      fromI18n.filter((e) => !/\/i18n\/types$/.test(e.spec)).map((e) => `${e.file} imports ${e.spec}`),
      [],
    );
  });
});

describe('src/service/worker.ts stays protocol dispatch', function () {
  it('at most 350 lines: what is not dispatch lives beside it (shared.ts, folders.ts, pacing.ts, agent-folder.ts)', () => {
    const lines = fs.readFileSync(path.join(SRC, 'service', 'worker.ts'), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= 350, `src/service/worker.ts has ${lines} lines (at most 350): move what is not the dispatch of requests out of it`);
  });
});

describe("src/service/session.ts stays the folder's owner, not every part of it", function () {
  it('at most 700 lines: a concern of its own lives beside it (session-i18n.ts: the i18n index, its snapshot, the i18n text of the chunks)', () => {
    const lines = fs.readFileSync(path.join(SRC, 'service', 'session.ts'), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= 700, `src/service/session.ts has ${lines} lines (at most 700): move a concern of its own out of it, as session-i18n.ts holds the i18n part`);
  });
});

describe('long functions cut into named steps stay cut', function () {
  /**
   * Lines of the function or method `name` declared in `file` (under src/): `Class.method` names a
   * method of that class; a plain name must be declared once in the file (a name that two
   * declarations share is ambiguous: the bound would check whichever came last).
   */
  const linesIn = (file: string, text: string, name: string): number => {
    const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const [owner, member] = name.includes('.') ? name.split('.') : [undefined, name];
    const found: ts.Node[] = [];
    const visit = (n: ts.Node, cls: string | undefined): void => {
      if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name?.getText(src) === member && (owner === undefined || (ts.isMethodDeclaration(n) && cls === owner))) found.push(n);
      else {
        const inner = ts.isClassLike(n) ? n.name?.getText(src) : cls;
        ts.forEachChild(n, (c) => visit(c, inner));
      }
    };
    visit(src, undefined);
    assert.ok(found.length > 0, `${file} declares no function ${name}`);
    assert.equal(found.length, 1, `${file} declares ${found.length} functions named ${name}: name the one meant as Class.method`);
    const [decl] = found;
    return src.getLineAndCharacterOfPosition(decl.getEnd()).line - src.getLineAndCharacterOfPosition(decl.getStart(src)).line + 1;
  };
  const linesOf = (file: string, name: string): number => linesIn(file, fs.readFileSync(path.join(SRC, file), 'utf8'), name);

  it('a method name two classes share is found by its class, and is ambiguous alone', () => {
    const text = ['class Short {', '  run() {', '    return 1;', '  }', '}', 'class Long {', '  run() {', ...Array.from({ length: 45 }, (_, i) => `    void ${i};`), '  }', '}'].join('\n');
    assert.equal(linesIn('two.ts', text, 'Short.run'), 3);
    assert.equal(linesIn('two.ts', text, 'Long.run'), 47);
    assert.throws(() => linesIn('two.ts', text, 'run'), /2 functions named run: name the one meant as Class\.method/);
    assert.throws(() => linesIn('two.ts', text, 'Other.run'), /declares no function Other\.run/);
  });
  // they were 235, 112, 113, 159, 182, 131, 92, 65, 100, 153, 151, 82, 84, 125, 128, 100, 99 and 84 lines; each is now a few named steps
  for (const [file, name] of [
    ['chunkers/javascript.ts', 'chunkScript'],
    ['chunkers/vue.ts', 'chunkVue'],
    ['chunkers/markdown.ts', 'chunkMarkdown'],
    ['chunkers/markdown.ts', 'createParser'],
    ['index/chunks.ts', 'chunkSections'],
    ['extension.ts', 'activate'],
    ['index/keyword.ts', 'load'],
    ['index/keyword.ts', 'add'],
    ['index/embedder.ts', 'createTransformersEmbedder'],
    ['chunkers/code-ast.ts', 'chunkTreeSitter'],
    ['chunkers/units.ts', 'emitUnits'],
    ['parse/json-tree.ts', 'build'],
    ['cli.ts', 'chunkCommand'],
    ['index/engine-run.ts', 'EngineRun.indexFolder'],
    ['index/pg/push.ts', 'pushFolderOnce'],
    ['index/pg/push.ts', 'writeBatch'],
    ['index/pg/search.ts', 'pgSearch'],
    ['agent/tools.ts', 'definitions'],
    // 141 (its visitor, an arrow of 121), 107, 92, 85, 81, 86, 83 and 87 lines
    ['i18n/script-usages.ts', 'scanner'],
    ['i18n/i18n-index.ts', 'tablesOf'],
    ['i18n/locales.ts', 'scanLeaves'],
    ['i18n/locales.ts', 'readSfcLocales'],
    ['i18n/locales.ts', 'readLocaleScript'],
    ['i18n/formats/po.ts', 'readPo'],
    ['commands/i18n-diagnostics.ts', 'registerI18nDiagnostics'],
    ['editor/status.ts', 'indexState'],
    // 67 and 45 lines: a query's plan (its concepts, then the words' synonyms and compounds) and BM25F's loop over the candidates
    ['index/keyword-query.ts', 'planQuery'],
    ['index/keyword-score.ts', 'scoreCandidates'],
    // 62 lines: both lists, fusion, "why" and diversity in one method
    ['index/engine-search.ts', 'EngineSearch.search'],
  ]) {
    it(`${name} (${file}) has at most 40 lines`, () => {
      const lines = linesOf(file, name);
      assert.ok(lines <= 40, `${name} in src/${file} has ${lines} lines (at most 40): cut it into named steps`);
    });
  }
});

describe('src/index/keyword.ts stays the index, not every part of it', function () {
  it('at most 650 lines: a concern of its own lives beside it (keyword-record, -query, -candidates, -score, -snapshot, -options)', () => {
    const lines = fs.readFileSync(path.join(SRC, 'index', 'keyword.ts'), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= 650, `src/index/keyword.ts has ${lines} lines (at most 650): move a concern of its own out of it, as keyword-score.ts holds BM25F`);
  });
});

describe('src/index/engine.ts stays the facade, its rooms beside it', function () {
  // engine.ts was one class of 1,066 lines: the catalog, the index runs and search
  for (const [file, most, what] of [
    ['engine.ts', 300, 'the Engine facade and the re-exports'],
    ['engine-catalog.ts', 450, 'files, chunks, restore, add/update/remove a file, the i18n feed, the embedding tiers'],
    ['engine-run.ts', 330, 'an index run, the chunk pool, the heap checks, embedPending'],
    ['engine-search.ts', 330, 'search, Find Similar, context'],
    ['engine-types.ts', 200, 'the public types the rooms share'],
  ] as const) {
    it(`src/index/${file} has at most ${most} lines (${what})`, () => {
      const lines = fs.readFileSync(path.join(SRC, 'index', file), 'utf8').trimEnd().split('\n').length;
      assert.ok(lines <= most, `src/index/${file} has ${lines} lines (at most ${most}): move a concern of its own into a room beside it`);
    });
  }
});

describe('file names: one style', function () {
  it('every file under src/ and media/ is named in kebab-case (search-view.ts, not searchView.ts)', () => {
    const MEDIA = path.join(SRC, '..', 'media');
    const names = [...files(SRC), ...files(MEDIA)].map((f) => path.relative(path.join(SRC, '..'), f).split(path.sep).join('/'));
    assert.ok(names.length > 100, `read ${names.length} files`);
    assert.deepEqual(names.filter((n) => !/^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+)*\.ts$/.test(path.basename(n))), []);
  });
});
