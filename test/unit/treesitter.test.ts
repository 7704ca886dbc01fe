import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { chunkFile, prepareLanguagesFor, resolveOptions } from '../../src/chunkers/index';
import { ChunkContext } from '../../src/chunkers/context';
import { StatsCollector, formatStats } from '../../src/chunkers/stats';
import { disposeLanguages, grammar } from '../../src/chunkers/treesitter';
import { Engine } from '../../src/index/engine';
import { IndexClient } from '../../src/service/client';
import type { Chunk, FileChunks } from '../../src/chunkers/types';
import { checkAll, checkCoverage, checkPositions } from '../helpers/invariants';

const ROOT = path.join(__dirname, '..', '..');
const FIX = path.join(__dirname, '..', 'fixtures');
const read = (f: string) => fs.readFileSync(path.join(FIX, f), 'utf8');
const brief = (r: FileChunks) => r.chunks.map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line, c.complete]);
const bySymbol = (r: FileChunks, s: string) => r.chunks.find((c) => c.symbol === s);

function assertInvariants(text: string, r: FileChunks, max = 256) {
  const v = checkAll(text, r, max);
  assert.deepEqual(v, [], v.join('\n'));
}

describe('tree-sitter chunkers (Python, Go, Rust, Java)', () => {
  before(async () => {
    await prepareLanguagesFor(['a.py', 'a.go', 'a.rs', 'A.java']);
    for (const l of ['python', 'go', 'rust', 'java']) assert.ok(grammar(l), `${l} grammar loaded`);
  });

  describe('Python', () => {
    it('cuts a module into functions, classes and module code, with # headers, decorators and comments kept', () => {
      const text = read('python/geo.py');
      const r = chunkFile('lib/geo.py', text);
      assert.equal(r.language, 'python');
      assert.equal(r.fallback, undefined);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 5, false],
        ['function', 'haversine', 8, 14, true],
        ['class', 'BoundingBox', 17, 38, true],
        ['module', null, 41, 42, false],
      ]);
      const fn = bySymbol(r, 'haversine')!;
      assert.equal(fn.header, '# lib/geo.py :: haversine');
      assert.ok(fn.text.startsWith('# Great-circle distance'), 'the comment above stays with its function');
      assert.ok(fn.text.includes('"""Distance between'), 'the docstring is in the chunk');
      assert.equal(fn.signature, 'def haversine(a, b):');
      const cls = bySymbol(r, 'BoundingBox')!;
      assert.ok(cls.text.startsWith('@dataclass(frozen=True)'), 'the decorator stays with its class');
      assert.ok(cls.text.includes('class Corner:'), 'a nested class that fits stays in its parent');
      assert.equal(r.chunks[0].header, '# lib/geo.py');
      assertInvariants(text, r);
    });

    it('splits a class over budget into methods and nested classes, each with its parent', () => {
      const text = read('python/geo.py');
      const r = chunkFile('lib/geo.py', text, { maxTokens: 64 });
      const corner = bySymbol(r, 'BoundingBox.Corner')!;
      assert.deepEqual([corner.kind, corner.parent, corner.complete], ['class', 'BoundingBox', true]);
      const center = bySymbol(r, 'BoundingBox.center')!;
      assert.deepEqual([center.kind, center.parent, center.header], ['method', 'BoundingBox', '# lib/geo.py :: BoundingBox.center']);
      assert.ok(center.text.startsWith('@property'), 'a method decorator stays with the method');
      const frag = r.chunks.find((c) => c.kind === 'fragment')!;
      assert.equal(frag.symbol, 'BoundingBox');
      assert.ok(frag.text.startsWith('@dataclass'), 'the class line and its fields are a fragment named by the class');
      const pieces = r.chunks.filter((c) => c.symbol === 'haversine');
      assert.ok(pieces.length >= 2);
      assert.deepEqual(pieces.map((c) => c.split), pieces.map((_, index) => ({ index, total: pieces.length })));
      assertInvariants(text, r, 64);
    });

    it('names a module-level table over several lines; one-line assignments stay module code', () => {
      const rows = Array.from({ length: 40 }, (_, i) => `    "route_${i}": handler_${i},`).join('\n');
      const text = `import os\n\nDEBUG = False\nROUTES = {\n${rows}\n}\n`;
      const r = chunkFile('app/routes.py', text);
      assert.deepEqual(r.chunks.map((c) => [c.kind, c.symbol ?? null]), [['module', null], ...r.chunks.slice(1).map(() => ['const', 'ROUTES'])]);
      assert.ok(r.chunks.length >= 3, 'the table over budget is cut between its entries');
      for (const c of r.chunks.slice(1)) assert.match(c.text, /^(?:ROUTES = \{|"route_)/);
      assertInvariants(text, r);
    });

    it('with `declarations` (the definitions tool parsing again), one-line module-level assignments are named units too; the index keeps them as module code', () => {
      const text = 'import os\n\n#: Default port.\nDEFAULT_PORT = 8080\nMAX_WORKERS: int = 4\nos.environ.setdefault("A", "1")\n\n\ndef serve():\n    port = DEFAULT_PORT\n    return port\n';
      const kinds = (declarations: boolean) => chunkFile('app/settings.py', text, { maxTokens: 48, declarations }).chunks.map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line]);
      assert.deepEqual(kinds(true), [['module', null, 1, 1], ['const', 'DEFAULT_PORT', 3, 4], ['const', 'MAX_WORKERS', 5, 5], ['module', null, 6, 6], ['function', 'serve', 9, 11]]);
      assert.deepEqual(kinds(false).map(([k, s]) => [k, s]), [['module', null], ['function', 'serve']]);
      assertInvariants(text, chunkFile('app/settings.py', text, { declarations: true }));
    });

    it('names the classes and functions an `if`, `try` or `with` defines at module or class level, each whole while it fits', () => {
      const text = read('python/compat.py');
      const r = chunkFile('lib/compat.py', text);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 10, false],
        ['function', 'constant_time_equal', 13, 15, true],
        ['class', 'RSASigner', 18, 27, true],
        ['function', 'fast_digest', 29, 32, true],
        ['module', null, 34, 39, false],
        ['function', 'cached_property', 41, 43, true],
        ['class', 'Config', 46, 55, true],
        ['module', null, 58, 59, false],
      ]);
      // the line that opens the block joins the unit below it, not a chunk of its own
      assert.ok(bySymbol(r, 'RSASigner')!.text.startsWith('if has_crypto:\n\n    class RSASigner:'));
      assert.ok(bySymbol(r, 'fast_digest')!.text.startsWith('elif hasattr(hmac, "digest"):'));
      assert.equal(bySymbol(r, 'RSASigner')!.header, '# lib/compat.py :: RSASigner');
      // a `try` with no definition in it stays module code; so does `if __name__ == "__main__":`
      assert.match(r.chunks[0].text, /except ImportError:\n {4}has_crypto = False$/);
      assertInvariants(text, r);
      // over budget, the class in the `if` is cut into its methods, named by it; so is a class
      // whose body defines a method in an `if`
      const small = chunkFile('lib/compat.py', text, { maxTokens: 48 });
      for (const [s, parent] of [['RSASigner.__init__', 'RSASigner'], ['RSASigner.sign', 'RSASigner'], ['Config.load', 'Config'], ['Config.save', 'Config']]) {
        assert.deepEqual([bySymbol(small, s)?.kind, bySymbol(small, s)?.parent], ['method', parent], `${s} in ${small.chunks.map((c) => c.symbol).join(', ')}`);
      }
      assertInvariants(text, small, 48);
    });

    it('leaves an `if` inside a function to the function: its nested definitions are not units', () => {
      const text = 'def outer(flag):\n    if flag:\n        def inner():\n            return 1\n    else:\n        def inner():\n            return 2\n    return inner\n';
      const r = chunkFile('lib/nested.py', text);
      assert.deepEqual(brief(r), [['function', 'outer', 1, 8, true]]);
    });

    it('opens nested classes level by level when they do not fit', () => {
      const method = (n: string) => `        def ${n}(self):\n${Array.from({ length: 6 }, (_, i) => `            self.value_${i} = compute_${n}(${i}, self.scale)`).join('\n')}\n`;
      const text = `class Outer:\n    class Inner:\n        """Inner docs."""\n\n${['a', 'b', 'c'].map(method).join('\n')}\n    def outer_method(self):\n        return 1\n`;
      const r = chunkFile('nested.py', text, { maxTokens: 96 });
      for (const s of ['Outer.Inner.a', 'Outer.Inner.b', 'Outer.Inner.c']) {
        const c = bySymbol(r, s)!;
        assert.ok(c, `${s} in ${r.chunks.map((x) => x.symbol).join(', ')}`);
        assert.equal(c.parent, 'Outer.Inner');
        assert.equal(c.kind, 'method');
      }
      assert.deepEqual([...new Set(r.chunks.map((c) => `${c.kind} ${c.symbol} < ${c.parent}`))], [
        'method Outer.Inner.a < Outer.Inner',
        'method Outer.Inner.b < Outer.Inner',
        'method Outer.Inner.c < Outer.Inner',
        'method Outer.outer_method < Outer',
      ]);
      assert.ok(r.chunks[0].text.startsWith('class Outer:\n    class Inner:'), 'the class lines join the first member that has room');
      assertInvariants(text, r, 96);
    });
  });

  describe('Go', () => {
    it('with `declarations`, a `const ( … )` block is a unit named by its names, its specs members; the index keeps it as module code', () => {
      const text = 'package server\n\nconst (\n\tStateIdle = iota\n\tStateBusy\n)\n\nfunc Busy(s int) bool { return s == StateBusy }\n\nvar (\n\tfailures = NewCounter("failures_total")\n\twarnings = NewCounter("warnings_total")\n)\n';
      const of = (declarations: boolean) => chunkFile('server/state.go', text, { maxTokens: 48, declarations }).chunks.map((c) => [c.kind, c.symbol ?? null]);
      assert.deepEqual(of(true), [['module', null], ['const', 'StateIdle, StateBusy'], ['function', 'Busy'], ['const', 'failures, warnings']]);
      assert.deepEqual(of(false), [['module', null], ['function', 'Busy'], ['module', null]]);
      // too large for one chunk: its specs, each a unit
      const many = `package server\n\nconst (\n${Array.from({ length: 40 }, (_, i) => `\t// State${i} is state number ${i} of the server's life.\n\tState${i} = ${i}`).join('\n')}\n)\n`;
      const cut = chunkFile('server/states.go', many, { maxTokens: 48, declarations: true });
      assert.ok(cut.chunks.some((c) => c.kind === 'const' && c.symbol === 'State7'), cut.chunks.map((c) => c.symbol).join(' '));
      assertInvariants(many, cut, 48);
    });

    it('names methods by receiver, kinds structs and interfaces, keeps doc comments', () => {
      const text = read('go/server.go');
      const r = chunkFile('tiles/server.go', text, { maxTokens: 64 });
      assert.equal(r.fallback, undefined);
      assert.deepEqual(
        r.chunks.filter((c) => !c.split).map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line]),
        [
          ['module', null, 1, 7],
          ['const', 'MaxZoom', 9, 10],
          ['interface', 'Store', 12, 15],
          ['struct', 'Server', 17, 21],
          ['function', 'NewServer', 23, 26],
          ['method', 'Server.Start', 28, 31],
        ],
      );
      const start = bySymbol(r, 'Server.Start')!;
      assert.deepEqual([start.parent, start.header, start.signature], ['Server', '// tiles/server.go :: Server.Start', 'func (s *Server) Start() error']);
      assert.ok(start.text.startsWith('// Start listens'), 'the doc comment stays with its method');
      const serve = r.chunks.filter((c) => c.symbol === 'Server.ServeHTTP');
      assert.ok(serve.length >= 2 && serve.every((c) => c.split?.total === serve.length && c.tokens <= 64));
      assertInvariants(text, r, 64);
    });

    it('groups small declarations, keeping a method qualified by its receiver', () => {
      const text = read('go/server.go');
      const r = chunkFile('tiles/server.go', text);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 7, false],
        ['group', '{MaxZoom, Store, Server, NewServer, Server.Start}', 9, 31, true],
        ['method', 'Server.ServeHTTP', 33, 47, true],
      ]);
      assert.deepEqual(r.chunks[1].meta?.members, ['MaxZoom', 'Store', 'Server', 'NewServer', 'Server.Start']);
      assertInvariants(text, r);
    });

    it('names a group of methods of one receiver after it', () => {
      const text = 'package p\n\ntype T struct{}\n\nfunc (t *T) A() int { return 1 }\n\nfunc (t T) B() int { return 2 }\n';
      const r = chunkFile('p/t.go', text);
      assert.deepEqual(r.chunks.map((c) => c.symbol ?? null), [null, '{T, T.A, T.B}']);
      const only = chunkFile('p/m.go', 'package p\n\nfunc (t *T) A() int { return 1 }\n\nfunc (t T) B() int { return 2 }\n');
      assert.deepEqual(only.chunks.map((c) => c.symbol ?? null), [null, 'T.{A, B}']);
    });
  });

  describe('Rust', () => {
    it('finds structs, traits, enums, impl blocks, type aliases, macros and mods, with attributes and doc comments', () => {
      const text = read('rust/shapes.rs');
      const r = chunkFile('src/shapes.rs', text, { maxTokens: 64 });
      assert.equal(r.fallback, undefined);
      const kinds = Object.fromEntries(r.chunks.filter((c) => c.symbol).map((c) => [c.symbol, c.kind]));
      assert.equal(kinds.Point, 'struct');
      assert.equal(kinds.Shape, 'trait');
      assert.equal(kinds.Kind, 'enum');
      assert.equal(kinds['Point.origin'], 'method');
      assert.equal(kinds.Polygon, 'type');
      assert.equal(kinds.point, 'macro');
      assert.equal(kinds.tests, 'namespace');
      const point = bySymbol(r, 'Point')!;
      assert.ok(point.text.startsWith('/// A point') && point.text.includes('#[derive(Debug'), 'doc comment and attribute stay with the struct');
      const fmtPieces = r.chunks.filter((c) => c.symbol === 'Point.fmt');
      assert.ok(fmtPieces.length >= 1);
      assert.equal(fmtPieces[0].parent, 'Display for Point', 'a trait impl method is named by its type, its parent is the impl');
      assert.equal(fmtPieces[0].header, '// src/shapes.rs :: Point.fmt');
      assertInvariants(text, r, 64);
    });

    it('cuts a long function between statements, its doc comment and attribute staying with its first line', () => {
      const body = Array.from({ length: 40 }, (_, i) => `    let value_${i} = compute(${i}, options.factor * ${i});`).join('\n');
      const text = `/// Does a lot.\n/// Really.\n#[inline]\npub fn big(\n    options: &Options,\n) -> i64 {\n${body}\n    0\n}\n`;
      const r = chunkFile('src/big.rs', text, { maxTokens: 128 });
      assert.ok(r.chunks.length >= 3 && r.chunks.every((c) => c.symbol === 'big' && c.tokens <= 128));
      assert.ok(r.chunks[0].text.startsWith('/// Does a lot.') && r.chunks[0].text.includes('pub fn big(') && r.chunks[0].text.includes('let value_0'), r.chunks[0].text);
      for (const c of r.chunks.slice(1)) assert.match(c.text, /^let value_\d+ = /);
      assertInvariants(text, r, 128);
    });

    it('keeps impl blocks whole when they fit, named by type and trait', () => {
      const text = read('rust/shapes.rs');
      const r = chunkFile('src/shapes.rs', text);
      const impls = r.chunks.filter((c) => c.kind === 'impl').map((c) => [c.symbol, c.signature, c.complete]);
      assert.deepEqual(impls, [
        ['Point', 'impl Point', true],
        ['Display for Point', 'impl fmt::Display for Point', true],
      ]);
      assertInvariants(text, r);
    });
  });

  describe('Java', () => {
    it('keeps Javadoc and annotations with their class, methods and nested records', () => {
      const text = read('java/TileCache.java');
      const whole = chunkFile('src/TileCache.java', text);
      assert.deepEqual(brief(whole), [
        ['module', null, 1, 4, false],
        ['class', 'TileCache', 6, 30, true],
        ['group', '{Renderer, Format}', 32, 42, true],
      ]);
      assert.ok(whole.chunks[1].text.startsWith('/**\n * An LRU cache'));
      assert.equal(whole.chunks[1].signature, '@ThreadSafe public class TileCache<K, V>');
      const r = chunkFile('src/TileCache.java', text, { maxTokens: 64 });
      const kinds = Object.fromEntries(r.chunks.filter((c) => c.kind !== 'fragment' && c.symbol).map((c) => [c.symbol, [c.kind, c.parent ?? null]]));
      assert.deepEqual(kinds, {
        'TileCache.TileCache': ['method', 'TileCache'],
        'TileCache.toString': ['method', 'TileCache'],
        'TileCache.Key.path': ['method', 'TileCache.Key'],
        Renderer: ['interface', null],
        Format: ['enum', null],
      });
      const ctor = bySymbol(r, 'TileCache.TileCache')!;
      assert.ok(ctor.text.startsWith('/** Makes an empty cache'), 'the Javadoc stays with the constructor');
      assert.equal(bySymbol(r, 'TileCache.toString')!.header, '// src/TileCache.java :: TileCache.toString');
      assertInvariants(text, r, 64);
    });

    it('a huge class becomes grouped methods; imports and comments alone are module code', () => {
      const text = `class Big {\n${Array.from({ length: 40 }, (_, i) => `    int m${i}(int x) {\n        return x * ${i} + offset${i};\n    }\n`).join('\n')}}\n`;
      const r = chunkFile('Big.java', text);
      assert.ok(r.chunks.length > 3 && r.chunks.every((c) => c.tokens <= 256 && c.symbol?.startsWith('Big')));
      assert.ok(r.chunks.some((c) => c.kind === 'group' && /^Big\.\{m\d+, m\d+/.test(c.symbol!)));
      assertInvariants(text, r);
      for (const t of ['import java.util.List;\nimport java.util.Map;\n', '// one\n/* two */\n']) {
        const m = chunkFile('Only.java', t);
        assert.ok(m.chunks.length === 1 && m.chunks[0].kind === 'module' && m.fallback === undefined);
      }
    });
  });

  describe('edge cases of every language', () => {
    const cases = {
      python: { ext: 'py', oneLine: 'def f(): return 1\n', imports: 'import os\nimport sys\nfrom a.b import c, d\n', comments: '# one\n# two\n\n# three\n' },
      go: { ext: 'go', oneLine: 'package p\nfunc f() int { return 1 }\n', imports: 'package p\n\nimport (\n\t"fmt"\n\t"os"\n)\n', comments: '// one\n// two\n\n/* three */\n' },
      rust: { ext: 'rs', oneLine: 'fn f() -> i32 { 1 }\n', imports: 'use std::fmt;\nuse std::io::{self, Read};\nextern crate core;\n', comments: '// one\n// two\n\n/* three */\n' },
    };
    for (const [lang, c] of Object.entries(cases)) {
      it(`${lang}: empty file, one-line function, imports only, comments only`, () => {
        for (const t of ['', '\n\n  \n']) {
          const r = chunkFile(`x.${c.ext}`, t);
          assert.deepEqual([r.chunks.length, r.skipped?.reason], [0, 'empty']);
        }
        const one = chunkFile(`one.${c.ext}`, c.oneLine);
        const fn = one.chunks.find((x) => x.symbol === 'f')!;
        assert.ok(fn, JSON.stringify(brief(one)));
        assert.deepEqual([fn.kind, fn.complete, fn.start.line, fn.end.line], ['function', true, c.oneLine.split('\n').length - 1, c.oneLine.split('\n').length - 1]);
        assertInvariants(c.oneLine, one);
        for (const t of [c.imports, c.comments]) {
          const r = chunkFile(`only.${c.ext}`, t);
          assert.equal(r.fallback, undefined);
          assert.ok(r.chunks.length >= 1 && r.chunks.every((x) => x.kind === 'module' && !x.complete), JSON.stringify(brief(r)));
          assertInvariants(t, r);
        }
      });
    }

    const huge: Record<string, string> = {
      python: `class Big:\n${Array.from({ length: 40 }, (_, i) => `    def m${i}(self, x):\n        y = x * ${i} + self.offset_${i}\n        return self.helper(y, "${i}")\n`).join('\n')}`,
      go: `package p\n\ntype Big struct {\n${Array.from({ length: 120 }, (_, i) => `\tField${i} int \`json:"field_${i}"\``).join('\n')}\n}\n`,
      rust: `impl Big {\n${Array.from({ length: 40 }, (_, i) => `    pub fn m${i}(&self, x: i64) -> i64 {\n        let y = x * ${i} + self.offset_${i};\n        self.helper(y)\n    }\n`).join('\n')}}\n`,
    };
    for (const [lang, text] of Object.entries(huge)) {
      it(`${lang}: a huge class/struct/impl is cut into members or pieces within budget`, () => {
        const ext = lang === 'python' ? 'py' : lang === 'go' ? 'go' : 'rs';
        const r = chunkFile(`big.${ext}`, text);
        assert.equal(r.fallback, undefined);
        assert.ok(r.chunks.length > 5, `${r.chunks.length} chunks`);
        assert.ok(r.chunks.every((c) => c.tokens <= 256));
        const units = r.chunks.filter((c) => c.kind !== 'module');
        assert.ok(units.every((c) => c.symbol?.startsWith('Big')), r.chunks.map((c) => c.symbol).join(', '));
        if (lang !== 'go') assert.ok(units.some((c) => c.kind === 'group' && c.parent === 'Big' && /^Big\.\{m\d+, m\d+/.test(c.symbol!)), 'small methods are grouped under their class');
        else assert.ok(units.length > 5 && units.every((c) => c.kind === 'struct' && c.split && /^(?:type|Field)/.test(c.text)), 'a struct is cut between fields');
        assertInvariants(text, r);
      });
    }
  });

  describe('fallbacks', () => {
    it('falls back to text, saying why, when the grammar is not loaded; loads again on demand', async () => {
      disposeLanguages();
      try {
        const r = chunkFile('a.py', 'def f():\n    return 1\n');
        assert.match(r.fallback ?? '', /python grammar is not loaded/);
        assert.ok(r.chunks.length === 1 && r.chunks[0].kind === 'text');
        assert.ok(r.warnings.some((w) => /gave way to the text chunker/.test(w)));
      } finally {
        await prepareLanguagesFor(['a.py', 'a.go', 'a.rs', 'A.java']);
      }
      assert.equal(chunkFile('a.py', 'def f():\n    return 1\n').chunks[0].symbol, 'f');
    });

    it('recovers from a local syntax error with a warning, and falls back when most of the file is broken', () => {
      const text = 'def ok():\n    return 1\n\ndef broken(:\n    pass\n\ndef also():\n    return 2\n';
      const r = chunkFile('a.py', text);
      assert.equal(r.fallback, undefined);
      assert.ok(r.warnings.some((w) => /recovered \d+ syntax error/.test(w)), JSON.stringify(r.warnings));
      assert.ok(bySymbol(r, 'ok') || r.chunks.some((c) => String(c.symbol).includes('ok')), JSON.stringify(brief(r)));
      assertInvariants(text, r);
      for (const [f, bad] of [['b.py', ')))) ]]]] {{{{ def def class (((( \n ]]] ::: ))\n'], ['b.go', '}}}} func (((( ]]]] {{{{ \n <<<< ]]]]\n'], ['b.rs', '}}}} fn (((( ]]]] impl {{{{ \n <<<< ]]]]\n']]) {
        const b = chunkFile(f, bad);
        assert.match(b.fallback ?? '', /syntax error/, `${f}: ${b.fallback}`);
        assert.ok(b.chunks.length > 0 && b.chunks.every((c) => c.kind === 'text'));
        assertInvariants(bad, b);
      }
    });
  });

  describe('overlap (opt-in)', () => {
    const body = Array.from({ length: 50 }, (_, i) => `    value_${i} = compute(${i}, options.factor * ${i})`).join('\n');
    const text = `def big(options):\n${body}\n    return options\n`;

    it('is off by default: pieces of a cut unit touch but never overlap', () => {
      const r = chunkFile('o.py', text, { maxTokens: 128 });
      assert.ok(r.chunks.length > 2 && r.chunks.every((c) => !c.meta?.overlap));
      for (let i = 1; i < r.chunks.length; i++) assert.ok(r.chunks[i].start.offset >= r.chunks[i - 1].end.offset);
    });

    it('repeats whole lines of the previous piece, within the overlap and the budget', () => {
      const r = chunkFile('o.py', text, { maxTokens: 128, overlap: 32 });
      const pieces = r.chunks.filter((c) => c.symbol === 'big');
      assert.ok(pieces.length > 2);
      for (let i = 1; i < pieces.length; i++) {
        const o = pieces[i].meta?.overlap as { chars: number; tokens: number };
        assert.ok(o && o.tokens > 0 && o.tokens <= 32, JSON.stringify(o));
        assert.equal(pieces[i].start.offset + o.chars, pieces[i - 1].end.offset, 'the overlap is exactly the end of the previous piece');
        assert.equal(pieces[i].start.column, 4, 'the overlap starts at a line (after its indentation)');
        assert.ok(pieces[i].tokens <= 128);
      }
      assert.deepEqual(checkPositions(text, r.chunks), []);
      assert.deepEqual(checkCoverage(text, r.chunks), []);
      const st = new StatsCollector(128);
      st.add(r, text);
      assert.equal(st.result().languages.python.violations, 0, 'asked-for overlap is not a violation in --stats');
    });
  });

  it('--stats counts semantic preservation: units kept whole among all units', () => {
    const text = read('python/geo.py');
    const st = new StatsCollector(64);
    st.add(chunkFile('lib/geo.py', text, { maxTokens: 64 }), text);
    const py = st.result().languages.python;
    // whole: BoundingBox.Corner, .contains, .center; cut: haversine (pieces), BoundingBox (members + fragment)
    assert.deepEqual([py.units, py.unitsWhole], [5, 3]);
    const table = formatStats(st.result());
    assert.match(table.split('\n')[1], /violations {2}preserved$/);
    assert.match(table.split('\n')[2], /^python .* 60\.0%$/);
  });

  it('property: any text in a .py/.go/.rs file never throws and keeps exact positions and coverage', () => {
    const unit = fc.constantFrom(...'def fn impl class func { } ( ) : ; \n \t # // /* */ " \' é 中 x y 1 @ < > = struct'.split(' '), ' ', '\n', '\r\n');
    fc.assert(
      fc.property(fc.constantFrom('py', 'go', 'rs'), fc.array(unit, { maxLength: 300 }), fc.integer({ min: 40, max: 300 }), (ext, parts, max) => {
        const text = parts.join('');
        const r = chunkFile(`f/x.${ext}`, text, { maxTokens: max });
        assert.deepEqual(checkPositions(text, r.chunks), []);
        if (!r.skipped) assert.deepEqual(checkCoverage(text, r.chunks), []);
      }),
      { numRuns: 300 },
    );
  });

  it('deep nesting neither overflows nor loses text', () => {
    for (const [f, text] of [
      ['deep.py', `x = ${'(\n'.repeat(3000)}1${')\n'.repeat(3000)}`],
      ['deep.go', `package p\nfunc f() {\n${'{\n'.repeat(3000)}${'}\n'.repeat(3000)}}\n`],
      ['deep.rs', `fn f() -> ${'Vec<\n'.repeat(2000)}i32${'>\n'.repeat(2000)} { todo!() }\n`],
    ]) {
      const r = chunkFile(f, text, { maxTokens: 128 });
      assert.ok(r.chunks.length > 0 && !r.skipped, f);
      assert.ok(r.chunks.every((c) => c.tokens <= 128), f);
      assert.deepEqual(checkPositions(text, r.chunks), [], f);
      assert.deepEqual(checkCoverage(text, r.chunks), [], f);
    }
  });

  describe('properties over generated programs', () => {
    const ident = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/).map((s) => `x${s}`);
    const gen = {
      python: {
        ext: 'py',
        header: (s: string) => `# gen/p.py :: ${s}`,
        stmt: (ind: string) =>
          fc.oneof(
            fc.tuple(ident, fc.integer({ min: 0, max: 999 })).map(([n, v]) => `${n}_ = helper(${v}) + ${v}`),
            fc.tuple(ident, ident).map(([a, b]) => `if ${a}:\n${ind}    ${b}(${a})`),
            ident.map((n) => `# note about ${n}\n${ind}${n}.update()`),
            fc.constant('return None'),
          ),
        fn: (name: string, body: string[], ind: string) => `def ${name}(a, b):\n${ind}${body.length ? body.join(`\n${ind}`) : 'pass'}`,
        cls: (name: string, methods: string[]) => `@register\nclass ${name}(Base):\n    """Docs."""\n    field = 1\n\n${methods.join('\n\n')}`,
        leftovers: ['import os', 'X = 1', '# comment', '', 'print(X)'],
        indentMethod: '        ',
        indentFn: '    ',
      },
      go: {
        ext: 'go',
        header: (s: string) => `// gen/p.go :: ${s}`,
        stmt: (ind: string) =>
          fc.oneof(
            fc.tuple(ident, fc.integer({ min: 0, max: 999 })).map(([n, v]) => `${n}_ := helper(${v}) + ${v}`),
            fc.tuple(ident, ident).map(([a, b]) => `if ${a} > 0 {\n${ind}\t${b}(${a})\n${ind}}`),
            ident.map((n) => `// note about ${n}\n${ind}${n}.Update()`),
            fc.constant('return'),
          ),
        fn: (name: string, body: string[], ind: string) => `func ${name}(a, b int) {\n${ind}${body.join(`\n${ind}`)}\n}`,
        cls: (name: string, methods: string[]) => `// ${name} is generated.\ntype ${name} struct {\n\tA int\n}\n\n${methods.join('\n\n')}`,
        leftovers: ['import "fmt"', 'var x = 1', '// comment', '', 'const (\n\tA = 1\n\tB = 2\n)'],
        indentMethod: '\t',
        indentFn: '\t',
      },
      java: {
        ext: 'java',
        header: (s: string) => `// gen/p.java :: G.${s}`,
        stmt: (ind: string) =>
          fc.oneof(
            fc.tuple(ident, fc.integer({ min: 0, max: 999 })).map(([n, v]) => `int ${n}_ = helper(${v}) + ${v};`),
            fc.tuple(ident, ident).map(([a, b]) => `if (${a} > 0) {\n${ind}    ${b}(${a});\n${ind}}`),
            ident.map((n) => `// note about ${n}\n${ind}${n}.update();`),
            fc.constant('return;'),
          ),
        fn: (name: string, body: string[], ind: string) => `    void ${name}(int a, int b) {\n${ind}${body.join(`\n${ind}`)}\n${ind.slice(4)}}`,
        cls: (name: string, methods: string[]) => `    /** ${name} docs. */\n    @Generated\n    static class ${name} {\n        int a;\n\n${methods.join('\n\n')}\n    }`,
        leftovers: ['// comment', '', 'int field = 1;'],
        indentMethod: '            ',
        indentFn: '        ',
      },
      rust: {
        ext: 'rs',
        header: (s: string) => `// gen/p.rs :: ${s}`,
        stmt: (ind: string) =>
          fc.oneof(
            fc.tuple(ident, fc.integer({ min: 0, max: 999 })).map(([n, v]) => `let ${n}_ = helper(${v}) + ${v};`),
            fc.tuple(ident, ident).map(([a, b]) => `if ${a} > 0 {\n${ind}    ${b}(${a});\n${ind}}`),
            ident.map((n) => `// note about ${n}\n${ind}${n}.update();`),
            fc.constant('return;'),
          ),
        fn: (name: string, body: string[], ind: string) => `fn ${name}(a: i32, b: i32) {\n${ind}${body.join(`\n${ind}`)}\n${ind.slice(4)}}`,
        cls: (name: string, methods: string[]) => `/// ${name} docs.\n#[derive(Debug)]\nstruct ${name} {\n    a: i32,\n}\n\nimpl ${name} {\n${methods.join('\n\n')}\n}`,
        leftovers: ['use std::fmt;', 'const K: i32 = 1;', '// comment', '', 'mod inner;'],
        indentMethod: '        ',
        indentFn: '    ',
      },
    };

    for (const [lang, g] of Object.entries(gen)) {
      const fnDecl = fc.tuple(ident, fc.array(g.stmt(g.indentFn), { maxLength: 40 })).map(([n, body]) => ({ name: `fn_${n}`, src: g.fn(`fn_${n}`, body, g.indentFn) }));
      const method = (recv: string) =>
        fc.tuple(ident, fc.array(g.stmt(g.indentMethod), { maxLength: 12 })).map(([m, body]) => {
          const name = `m_${m}`;
          if (lang === 'go') return `func (s *${recv}) ${name}() {\n\t${body.join('\n\t')}\n}`;
          if (lang === 'java') return `    ${g.fn(name, body, g.indentMethod)}`;
          return `    ${g.fn(name, body, g.indentMethod).replace('(a, b)', '(self, a, b)').replace('(a: i32', '(&self, a: i32')}`;
        });
      const clsDecl = ident.chain((n) => fc.array(method(`C_${n}`), { maxLength: 8 }).map((ms) => ({ name: `C_${n}`, src: g.cls(`C_${n}`, ms) })));
      const leftover = fc.constantFrom(...g.leftovers).map((s) => ({ name: '', src: s }));
      const program = fc.tuple(fc.array(fc.oneof(fnDecl, clsDecl, leftover), { maxLength: 8 }), fc.constantFrom('\n', '\r\n'));
      const prefix = lang === 'go' ? 'package gen\n\n' : lang === 'java' ? 'package gen;\n\nclass G {\n' : '';
      const suffix = lang === 'java' ? '\n}\n' : '';

      it(`${lang}: never throw or fall back, exact positions, no overlap, full coverage, within budget`, () => {
        fc.assert(
          fc.property(program, fc.integer({ min: 48, max: 400 }), ([parts, eol], max) => {
            const text = (prefix + parts.map((u) => u.src).join('\n\n') + suffix).replace(/\r?\n/g, eol);
            const r = chunkFile(`gen/p.${g.ext}`, text, { maxTokens: max });
            assert.equal(r.fallback, undefined, r.fallback);
            assert.deepEqual(r.warnings, [], `${r.warnings.join('; ')}\n${text}`);
            assertInvariants(text, r, max);
          }),
          { numRuns: 80 },
        );
      });

      it(`${lang}: never cut a function that fits; a cut one records split on every piece`, () => {
        const opts = resolveOptions({});
        fc.assert(
          fc.property(fc.array(fnDecl, { minLength: 1, maxLength: 6 }), fc.integer({ min: 64, max: 300 }), (fns, max) => {
            const seen = new Set<string>();
            const unique = fns.filter((f) => !seen.has(f.name) && seen.add(f.name));
            const text = prefix + unique.map((f) => f.src).join('\n\n') + suffix;
            const r = chunkFile(`gen/p.${g.ext}`, text, { maxTokens: max });
            const ctx = new ChunkContext(`gen/p.${g.ext}`, lang, text, opts.counter, max);
            for (const f of unique) {
              const s = text.indexOf(f.src) + (f.src.length - f.src.trimStart().length);
              const e = text.indexOf(f.src) + f.src.length;
              const whole = r.chunks.some((c) => c.start.offset <= s && c.end.offset >= e);
              if (ctx.cost(g.header(f.name), s, e) <= max) assert.ok(whole, `${f.name} fits but was cut`);
              else if (!whole) {
                // over budget with its own header and not kept whole inside a container that fits (Java's class G)
                const pieces = r.chunks.filter((c: Chunk) => c.header === g.header(f.name));
                assert.ok(pieces.length >= 2, `${f.name} over budget should be split`);
                assert.deepEqual(pieces.map((c) => c.split?.index), pieces.map((_, i) => i));
                assert.ok(pieces.every((c) => c.split?.total === pieces.length && !c.complete && c.header === g.header(f.name)));
              }
            }
          }),
          { numRuns: 60 },
        );
      });
    }
  });

  it('the engine loads the grammars it needs before indexing a folder', async () => {
    disposeLanguages();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-ts-engine-'));
    try {
      fs.copyFileSync(path.join(FIX, 'rust', 'shapes.rs'), path.join(dir, 'shapes.rs'));
      const engine = new Engine();
      for await (const p of engine.indexFolder(dir, { embed: false })) void p;
      const rec = engine.files.get('shapes.rs')!;
      assert.equal(rec.fallback, undefined);
      assert.equal(rec.language, 'rust');
      const hits = await engine.search('Display for Point', { k: 3, mode: 'keyword' });
      assert.equal(hits[0]?.chunk.symbol, 'Display for Point');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await prepareLanguagesFor(['a.py', 'a.go', 'a.rs', 'A.java']);
    }
  });

  it('the bundled worker thread loads a grammar on its first .go file (chunk request)', async () => {
    const worker = path.join(ROOT, 'dist', 'worker.js');
    if (!fs.existsSync(worker)) throw new Error('dist/worker.js is missing: `npm test` builds it first (npm run build)');
    const client = new IndexClient(worker);
    try {
      const r = await client.chunk('tiles/server.go', read('go/server.go'), { maxTokens: 64 });
      assert.equal(r.fallback, undefined);
      assert.ok(r.chunks.some((c) => c.symbol === 'Server.Start' && c.kind === 'method'));
    } finally {
      await client.dispose();
    }
  });

  describe('fathom chunk (the built CLI finds the bundled grammars)', () => {
    let dir: string;
    before(function () {
      if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-ts-'));
      fs.mkdirSync(path.join(dir, 'src'));
      fs.copyFileSync(path.join(FIX, 'python', 'geo.py'), path.join(dir, 'src', 'geo.py'));
      fs.copyFileSync(path.join(FIX, 'go', 'server.go'), path.join(dir, 'src', 'server.go'));
      fs.copyFileSync(path.join(FIX, 'rust', 'shapes.rs'), path.join(dir, 'src', 'shapes.rs'));
      fs.copyFileSync(path.join(FIX, 'java', 'TileCache.java'), path.join(dir, 'src', 'TileCache.java'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('ships the wasm files in dist/ and chunks all three languages structurally', () => {
      for (const f of ['tree-sitter', 'tree-sitter-python', 'tree-sitter-go', 'tree-sitter-rust', 'tree-sitter-java']) assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'tree-sitter', `${f}.wasm`)), `${f}.wasm in dist/tree-sitter`);
      const run = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'fathom.js'), ...args], { cwd: dir, encoding: 'utf8' });
      const s = run(['chunk', '.', '--stats', '--json']);
      assert.equal(s.status, 0, s.stderr);
      const st = JSON.parse(s.stdout);
      for (const l of ['python', 'go', 'rust', 'java']) {
        assert.equal(st.languages[l].files, 1);
        assert.equal(st.languages[l].fallbacks, 0, `${l} fell back`);
        assert.equal(st.languages[l].violations, 0);
        assert.ok(st.languages[l].units > 0 && st.languages[l].unitsWhole <= st.languages[l].units);
      }
      const j = run(['chunk', 'src/geo.py', '--json']);
      const first = j.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((c) => c.symbol === 'haversine');
      assert.equal(first.header, '# src/geo.py :: haversine');
    });
  });
});
