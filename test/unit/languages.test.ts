import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkFile, languageOf, prepareLanguagesFor, treeSitterLanguageOf } from '../../src/chunkers/index';
import { RULES } from '../../src/chunkers/code-ast';
import { LANGUAGE_REGISTRY, treeSitterWasmFiles, type ChunkerName, type LanguageEntry } from '../../src/chunkers/languages';
import { StatsCollector } from '../../src/chunkers/stats';
import { commentHeader } from '../../src/chunkers/text';
import { TREE_SITTER_GRAMMARS } from '../../src/chunkers/treesitter';
import { embedTier } from '../../src/index/embed-order';

const ROOT = path.join(__dirname, '..', '..');
const FIX = path.join(__dirname, '..', 'fixtures');
const WASM_DIR = path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');

/** The forms of LanguageEntry.comment that commentHeader knows how to write. */
const COMMENT_FORMS = new Set(['//', '#', '--', '<!--', '']);

/** One text per structure-finding chunker, and the kind of the chunks it makes of it (the text chunker: 'text'). */
const SAMPLES: Record<Exclude<ChunkerName, 'tree-sitter'>, { text: string; kinds: string[] }> = {
  javascript: { text: 'function f() { return 1; }\n', kinds: ['function'] },
  vue: { text: '<template><div>hi</div></template>\n<script>\nexport default { name: "X" };\n</script>\n', kinds: ['template', 'object'] },
  json: { text: '{"a": 1}\n', kinds: ['json'] },
  markdown: { text: '# Title\n\ntext\n', kinds: ['section'] },
};

const files = (l: LanguageEntry) => [...l.extensions.map((e) => `src/sub.dir/file.${e}`), ...(l.fileNames ?? []).map((n) => `src/${n}`)];

describe('language registry (chunkers/languages.ts)', () => {
  describe('invariants', () => {
    it('has one entry per language id, each with a known comment syntax and a way to be reached', () => {
      const ids = LANGUAGE_REGISTRY.map((l) => l.id);
      assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'duplicate ids');
      for (const l of LANGUAGE_REGISTRY) {
        assert.ok(COMMENT_FORMS.has(l.comment), `${l.id}: comment ${JSON.stringify(l.comment)}`);
        // an entry without extensions is still the language of a file `x.<id>` (see languages.ts)
        assert.equal(languageOf(`x.${l.id}`), l.id, `${l.id} is reachable`);
      }
    });

    it('maps every extension and file name to exactly one language', () => {
      const owners = new Map<string, string[]>();
      for (const l of LANGUAGE_REGISTRY) {
        for (const e of l.extensions) {
          assert.match(e, /^[a-z0-9]+$/, `${l.id}: extension ${JSON.stringify(e)} lower-case, without a dot`);
          owners.set(`.${e}`, [...(owners.get(`.${e}`) ?? []), l.id]);
        }
        for (const n of l.fileNames ?? []) {
          assert.equal(n, n.toLowerCase(), `${l.id}: file name ${n} lower-case`);
          owners.set(n, [...(owners.get(n) ?? []), l.id]);
        }
      }
      assert.deepEqual([...owners].filter(([, ids]) => ids.length > 1), [], 'extensions or names claimed by several languages');
      // a file whose extension no entry lists is the language named by its extension: that name
      // must not be another language's id
      const ids = new Set(LANGUAGE_REGISTRY.map((l) => l.id));
      for (const [key, [id]] of owners) if (ids.has(key.replace(/^\./, ''))) assert.equal(id, key.replace(/^\./, ''), `${key} maps to ${id}`);
    });

    it('gives every language with rules a grammar (tree-sitter) and every grammar its rules', () => {
      for (const l of LANGUAGE_REGISTRY) {
        const ts = l.chunker === 'tree-sitter';
        assert.equal(!!l.grammar, ts, `${l.id}: a grammar exactly when chunked by tree-sitter`);
        assert.equal(!!l.rules, ts, `${l.id}: rules exactly when chunked by tree-sitter`);
        if (l.rules) assert.ok(Object.hasOwn(RULES, l.rules), `${l.id}: rules "${l.rules}" exist in code-ast.ts RULES`);
      }
      const used = new Set(LANGUAGE_REGISTRY.map((l) => l.rules));
      assert.deepEqual(Object.keys(RULES).filter((r) => !used.has(r)), [], 'rules in code-ast.ts no language uses');
    });

    it('names only grammars that @vscode/tree-sitter-wasm ships, and the build copies them all into dist/', () => {
      const wanted = treeSitterWasmFiles();
      assert.equal(wanted[0], 'tree-sitter', 'the runtime first');
      assert.equal(new Set(wanted).size, wanted.length, 'each file once');
      for (const l of LANGUAGE_REGISTRY) if (l.grammar) assert.ok(wanted.includes(`tree-sitter-${l.grammar}`), `${l.id}'s grammar in the build's list`);
      for (const f of wanted) assert.ok(fs.existsSync(path.join(WASM_DIR, `${f}.wasm`)), `${f}.wasm in node_modules/@vscode/tree-sitter-wasm/wasm`);
      const dist = path.join(ROOT, 'dist', 'tree-sitter');
      if (!fs.existsSync(dist)) throw new Error('dist/tree-sitter is missing: `npm test` builds it first (npm run build)');
      assert.deepEqual(
        fs.readdirSync(dist).map((f) => f.replace(/\.wasm$/, '')).sort(),
        [...wanted].sort(),
        'dist/tree-sitter holds exactly the registry\'s files (esbuild.mjs reads the registry)',
      );
    });
  });

  describe('every table agrees with the registry', () => {
    before(() => prepareLanguagesFor(LANGUAGE_REGISTRY.flatMap(files)));

    it('languageOf: every extension (any case) and file name gives its language', () => {
      for (const l of LANGUAGE_REGISTRY) {
        for (const f of files(l)) {
          assert.equal(languageOf(f), l.id, f);
          assert.equal(languageOf(f.toUpperCase()), l.id, f.toUpperCase());
        }
      }
    });

    it('treeSitterLanguageOf and TREE_SITTER_GRAMMARS: exactly the languages with a grammar', () => {
      const grammars: Record<string, string> = {};
      for (const l of LANGUAGE_REGISTRY) {
        if (l.grammar) grammars[l.id] = l.grammar;
        for (const e of l.extensions) assert.equal(treeSitterLanguageOf(`a/b.${e}`), l.grammar ? l.id : undefined, `.${e}`);
      }
      assert.deepEqual({ ...TREE_SITTER_GRAMMARS }, grammars);
    });

    it('commentHeader writes each language\'s own comment syntax', () => {
      for (const l of LANGUAGE_REGISTRY) {
        const want = l.comment === '<!--' ? '<!-- p -->' : l.comment ? `${l.comment} p` : 'p';
        assert.equal(commentHeader(l.id, 'p'), want, l.id);
      }
      assert.equal(commentHeader('pl', 'p'), '// p', 'a language no entry names');
    });

    it('embedTier: code first, code and data last in a locale folder', () => {
      for (const l of LANGUAGE_REGISTRY) {
        assert.equal(embedTier(`src/a.${l.extensions[0] ?? l.id}`, l.id), l.embed === 'code' ? 1 : 2, `${l.id} in src/`);
        assert.equal(embedTier(`locales/a.${l.extensions[0] ?? l.id}`, l.id), l.embed === 'other' ? 2 : 3, `${l.id} in locales/`);
      }
    });

    it('chunkFile: each language goes to its chunker (tree-sitter ones parse with their grammar and rules)', () => {
      for (const l of LANGUAGE_REGISTRY) {
        for (const f of files(l)) {
          if (l.chunker === 'tree-sitter') {
            const r = chunkFile(f, `${l.comment} hello\nhello\n`);
            assert.equal(r.fallback, undefined, `${f}: ${r.fallback}`);
            assert.ok(r.chunks.length > 0 && r.chunks.every((c) => c.kind !== 'text'), `${f} chunked by tree-sitter: ${r.chunks.map((c) => c.kind)}`);
            continue;
          }
          const sample = l.chunker ? SAMPLES[l.chunker] : { text: 'one\n\ntwo\n', kinds: ['text'] };
          const r = chunkFile(f, sample.text);
          assert.equal(r.fallback, undefined, `${f}: ${r.fallback}`);
          assert.deepEqual(r.chunks.map((c) => c.kind), sample.kinds, `${f} (${l.chunker ?? 'text'} chunker)`);
        }
      }
    });
  });

  describe('names that are also Object.prototype keys', () => {
    it('are languages of their own, chunked as text and counted in the stats', () => {
      // (an object literal as lookup table gave `a.constructor` Object's constructor function as
      // its language, and `a.__proto__` Object.prototype; the stats lost the `__proto__` row)
      const st = new StatsCollector(256);
      for (const name of ['constructor', '__proto__']) {
        assert.equal(languageOf(`a.${name}`), name);
        assert.equal(languageOf(`src/${name}`), 'plaintext');
        assert.equal(treeSitterLanguageOf(`a.${name}`), undefined);
        assert.equal(commentHeader(name, 'p'), '// p');
        assert.equal(embedTier(`src/a.${name}`, name), 2);
        const text = 'one\n\ntwo\n';
        const r = chunkFile(`a.${name}`, text);
        assert.equal(r.fallback, undefined);
        assert.deepEqual(r.chunks.map((c) => [c.language, c.kind, c.header]), [[name, 'text', `// a.${name}`]]);
        st.add(r, text);
      }
      const langs = JSON.parse(JSON.stringify(st.result().languages)) as Record<string, { files: number }>;
      assert.deepEqual(Object.keys(langs).sort(), ['__proto__', 'constructor']);
      assert.equal(langs.__proto__.files, 1);
    });
  });

  describe('the built CLI (dist/) loads every grammar the registry names', () => {
    let dir: string;
    before(function () {
      if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-langs-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('chunks a fixture of each tree-sitter language with no fallback', () => {
      const langs = LANGUAGE_REGISTRY.filter((l) => l.grammar).map((l) => l.id);
      const all = fs.readdirSync(FIX, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(FIX, f)).isFile());
      for (const id of langs) {
        const f = all.find((x) => treeSitterLanguageOf(x) === id);
        assert.ok(f, `a fixture in test/fixtures for ${id}`);
        fs.copyFileSync(path.join(FIX, f), path.join(dir, `${id}-${path.basename(f)}`));
      }
      const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), 'chunk', '.', '--stats', '--json'], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const st = JSON.parse(r.stdout) as { languages: Record<string, { files: number; fallbacks: number; units: number }> };
      for (const id of langs) {
        assert.equal(st.languages[id]?.files, 1, `${id}: one file`);
        assert.equal(st.languages[id].fallbacks, 0, `${id} fell back (grammar not shipped in dist/tree-sitter?)`);
        assert.ok(st.languages[id].units > 0, `${id}: units found`);
      }
    });
  });
});
