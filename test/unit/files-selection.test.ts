/**
 * File selection: the editor's excludes and Fathom's include/exclude globs applied by the walk,
 * and the single-path filter the worker applies to watcher updates agreeing with the walk.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileSelection, createPathFilter, walkFiles } from '../../src/workspace/files';

function tree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

describe('file selection', function () {
  let root: string;
  before(function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-sel-'));
    tree(root, {
      '.gitignore': 'dist/\n*.log\n',
      'src/a.js': 'a',
      'src/b.ts': 'b',
      'src/gen/.gitignore': 'out.js\n',
      'src/gen/out.js': 'generated',
      'src/gen/keep.js': 'kept',
      'dist/bundle.js': 'bundle',
      'build/x.js': 'x',
      'docs/readme.md': 'readme',
      'debug.log': 'log',
      'node_modules/dep/index.js': 'dep',
      '.vscode/settings.json': '{}',
      'top.min.js': 'min',
      'deep/er/file.min.js': 'min',
    });
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('exclude globs drop files and whole folders; matched on the whole relative path as VS Code does', function () {
    const rels = walkFiles(root, [], { exclude: ['**/build', '*.min.js', '**/.vscode'] }).map((f) => f.rel);
    assert.deepEqual(rels, ['deep/er/file.min.js', 'docs/readme.md', 'src/a.js', 'src/b.ts', 'src/gen/.gitignore', 'src/gen/keep.js', '.gitignore'].sort());
  });

  it('include globs keep only matching files (folders are still entered)', function () {
    const rels = walkFiles(root, [], { include: ['**/*.js'], exclude: ['**/*.min.js'] }).map((f) => f.rel);
    assert.deepEqual(rels, ['build/x.js', 'src/a.js', 'src/gen/keep.js']);
  });

  it('blank and ./-prefixed globs are cleaned; no selection keeps everything', function () {
    const s = compileSelection({ include: ['  ', './src/**'], exclude: [''] });
    assert.equal(s.allowed('src/a.js', false), true);
    assert.equal(s.allowed('docs/readme.md', false), false);
    assert.equal(s.allowed('docs', true), true);
    assert.equal(compileSelection().allowed('anything/at/all.bin', false), true);
  });

  it('the single-path filter agrees with the walk on every file of the tree', function () {
    const all = walkFiles(path.join(root), []).map((f) => f.rel);
    const everything = ['dist/bundle.js', 'debug.log', 'node_modules/dep/index.js', 'src/gen/out.js', ...all];
    for (const selection of [undefined, { exclude: ['**/build', '*.min.js'] }, { include: ['**/*.js'] }]) {
      const walked = new Set(walkFiles(root, [], selection).map((f) => f.rel));
      const wanted = createPathFilter(root, selection);
      for (const rel of everything) assert.equal(wanted(rel), walked.has(rel), `${rel} with ${JSON.stringify(selection)}`);
    }
  });

  it('the single-path filter rejects paths outside the folder and empty paths', function () {
    const wanted = createPathFilter(root);
    assert.equal(wanted('../outside.js'), false);
    assert.equal(wanted(''), false);
    assert.equal(wanted('src/a.js'), true);
  });
});
