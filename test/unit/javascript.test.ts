import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { chunkFile, decodeBytes, resolveOptions } from '../../src/chunkers/index';
import { ChunkContext } from '../../src/chunkers/context';
import type { Chunk, FileChunks } from '../../src/chunkers/types';
import { checkAll } from '../helpers/invariants';

const FIX = path.join(__dirname, '..', 'fixtures', 'js');
const read = (f: string) => decodeBytes(fs.readFileSync(path.join(FIX, f))).text!;
const brief = (r: FileChunks) => r.chunks.map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line, c.complete]);

function assertInvariants(text: string, r: FileChunks, max = 256) {
  const v = checkAll(text, r, max);
  assert.deepEqual(v, [], v.join('\n'));
}

describe('JavaScript/TypeScript chunker', () => {
  it('cuts TypeScript with decorators, interfaces, enums into named units', () => {
    const text = read('map-service.ts');
    const r = chunkFile('src/map-service.ts', text);
    assert.equal(r.language, 'typescript');
    assert.deepEqual(brief(r), [
      ['module', null, 1, 2, false],
      ['group', '{ZoomOptions, Zoomable, ZoomDirection}', 4, 14, true],
      ['class', 'MapService', 16, 31, true],
      ['group', '{clamp, Log}', 33, 37, true],
    ]);
    const cls = r.chunks[2];
    assert.equal(cls.header, '// src/map-service.ts :: MapService');
    assert.ok(cls.text.startsWith('/** Keeps the map'), 'the doc comment stays with its class');
    assert.ok(cls.text.includes('@Injectable'), 'the decorator stays with its class');
    assert.equal(cls.signature, "@Injectable({ providedIn: 'root' }) export class MapService");
    assertInvariants(text, r);
  });

  it('splits a class over budget into its members, each keeping a qualified symbol', () => {
    const text = read('map-service.ts');
    const r = chunkFile('src/map-service.ts', text, { maxTokens: 64 });
    const symbols = r.chunks.map((c) => c.symbol);
    assert.ok(symbols.includes('MapService.zoomIn'), symbols.join(', '));
    assert.ok(symbols.includes('MapService.center'));
    const zoomIn = r.chunks.find((c) => c.symbol === 'MapService.zoomIn')!;
    assert.equal(zoomIn.header, '// src/map-service.ts :: MapService.zoomIn');
    assert.equal(zoomIn.kind, 'method');
    assert.equal(zoomIn.parent, 'MapService');
    assert.ok(zoomIn.text.startsWith('@Log()'), 'member decorators stay with the member');
    assertInvariants(text, r, 64);
  });

  it('with `declarations` (the definitions tool parsing again), a const, let or var not exported is a named unit with its doc comment; the index keeps it as module code', () => {
    const text = "import { fetchJson } from './http'\n\n/** How long a tile stays cached, in ms. */\nconst TILE_TTL = 60_000\nlet retries = 3, backoff = 2\n\nexport function load(url: string) {\n  const ttl = TILE_TTL\n  return fetchJson(url, { ttl, retries, backoff })\n}\n";
    const of = (declarations: boolean) => chunkFile('src/tiles.ts', text, { maxTokens: 64, declarations }).chunks.map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line]);
    assert.deepEqual(of(true), [['module', null, 1, 1], ['const', 'TILE_TTL', 3, 4], ['const', 'retries, backoff', 5, 5], ['function', 'load', 7, 10]]);
    assert.deepEqual(of(false).map(([k, s]) => [k, s]), [['module', null], ['function', 'load']]);
  });

  it('handles JSX in .tsx and export default of an identifier', () => {
    const text = read('Legend.tsx');
    const r = chunkFile('src/Legend.tsx', text);
    assert.deepEqual(brief(r), [
      ['module', null, 1, 1, false],
      ['function', 'Legend', 3, 11, true],
      ['const', 'default', 13, 13, true],
    ]);
    assert.equal(r.warnings.length, 0);
    assertInvariants(text, r);
  });

  it('names an anonymous default export after its file, as importers and Nuxt\'s auto-imports name it', () => {
    const sym = (file: string, text: string) => chunkFile(file, text).chunks.map((c) => `${c.kind} ${c.symbol} ${c.header}`);
    assert.deepEqual(sym('composables/useCart.ts', 'export default function () {\n  return { items: useState(\'cart\') }\n}\n'), ['function useCart // composables/useCart.ts :: useCart']);
    assert.deepEqual(sym('composables/use-auth.ts', 'export default () => ({ user: useState(\'user\') })\n'), ['function useAuth // composables/use-auth.ts :: useAuth']);
    assert.deepEqual(sym('stores/useTheme.js', 'export default createGlobalState(() => ({ dark: ref(false) }))\n'), ['const useTheme // stores/useTheme.js :: useTheme']);
    assert.deepEqual(sym('src/Panel.jsx', 'export default class extends Component {\n  render() { return <div /> }\n}\n'), ['class Panel // src/Panel.jsx :: Panel']);
    assert.deepEqual(sym('types/zoom.d.ts', 'export default function (level: number): void;\n'), ['function zoom // types/zoom.d.ts :: zoom']);
    // a name of its own, or no one-identifier file name: as before
    assert.deepEqual(sym('composables/useModal.ts', 'export default function useDialog() {\n  return { open: ref(false) }\n}\n'), ['function useDialog // composables/useModal.ts :: useDialog']);
    for (const file of ['src/index.ts', 'vite.config.ts', 'pages/[id].ts']) assert.deepEqual(sym(file, 'export default () => 1\n'), [`function default // ${file} :: default`], file);
    assert.deepEqual(sym('src/Legend.tsx', 'export default Legend;\n'), ['const default // src/Legend.tsx :: default'], 'the name is the one it exports');
    // a Vue component's default export keeps the component's name
    const vue = chunkFile('src/KZoom.vue', '<script>\nexport default { name: \'KZoom\', methods: { zoomIn() { this.z++ } } }\n</script>\n').chunks.map((c) => c.symbol);
    assert.ok(vue.every((s) => s?.startsWith('KZoom')), vue.join(', '));
  });

  it("cuts a Pinia store into its state, getters and actions, and a function handed to a call (a setup store, a Nuxt server handler) between its statements", () => {
    const action = (i: number) => `    async add${i}(item) {\n      const saved = await $fetch('/api/cart/${i}', { method: 'POST', body: item })\n      this.items.push(saved)\n      this.total += saved.price\n      return saved\n    },`;
    const options = `export const useCartStore = defineStore('cart', {\n  state: () => ({ items: [], total: 0 }),\n  getters: {\n    count: (state) => state.items.length,\n  },\n  actions: {\n${Array.from({ length: 8 }, (_, i) => action(i)).join('\n')}\n  },\n})\n`;
    const r = chunkFile('stores/cart.ts', options, { maxTokens: 128 });
    const syms = r.chunks.map((c) => c.symbol);
    for (const s of ['useCartStore.state', 'useCartStore.actions.add0', 'useCartStore.actions.add7']) assert.ok(syms.includes(s), syms.join(', '));
    assert.equal(r.chunks.find((c) => c.symbol === 'useCartStore.actions.add3')?.kind, 'method');
    assertInvariants(options, r, 128);
    // a function handed to a call: cut between its statements, each inner function whole
    const inner = (i: number) => `  async function add${i}(item) {\n    const saved = await $fetch('/api/cart/${i}', { method: 'POST', body: item })\n    items.value.push(saved)\n    return saved\n  }`;
    for (const [file, text] of [
      ['stores/setup.ts', `export const useSetupStore = defineStore('setup', () => {\n  const items = ref([])\n${Array.from({ length: 10 }, (_, i) => inner(i)).join('\n')}\n  return { items }\n})\n`],
      ['server/api/cart.post.ts', `export default defineEventHandler(async (event) => {\n  const items = []\n${Array.from({ length: 10 }, (_, i) => inner(i)).join('\n')}\n  return items\n})\n`],
    ]) {
      const out = chunkFile(file, text, { maxTokens: 128 });
      assert.ok(out.chunks.length > 2, `${file}: cut`);
      const lines = text.split('\n');
      for (const c of out.chunks) {
        // every piece starts at a statement of the function: never inside an inner function
        const first = lines[c.start.line - 1];
        assert.ok(c.start.line === 1 || /^ {2}(?:async function|const|return)/.test(first), `${file}: a piece starts inside a statement: ${JSON.stringify(first)}`);
      }
      assertInvariants(text, out, 128);
    }
  });

  it('names the functions a UMD wrapper, an IIFE or define(…) holds, each whole while it fits, with its doc comment', () => {
    const text = read('query-string.umd.js');
    const r = chunkFile('vendor/query-string.umd.js', text);
    assert.deepEqual(brief(r), [
      ['module', null, 1, 7, false],
      ['function', 'parse', 9, 18, true],
      ['function', 'stringify', 20, 28, true],
      ['module', null, 30, 32, false],
    ]);
    assert.ok(r.chunks[1].text.startsWith('/** Parses a query string'), 'the doc comment stays with its function');
    assert.equal(r.chunks[1].header, '// vendor/query-string.umd.js :: parse');
    assertInvariants(text, r);
    // the same functions in an IIFE, `(…).call(this)`, `!function(){}()` and AMD's define
    const body = text.slice(text.indexOf("  'use strict'"), text.lastIndexOf('})'));
    for (const wrap of [`(function () {\n${body}})()\n`, `(function () {\n${body}}).call(this)\n`, `!function () {\n${body}}()\n`, `define(['exports'], function (exports) {\n${body}})\n`]) {
      const w = chunkFile('vendor/qs.js', wrap);
      assert.deepEqual(w.chunks.filter((c) => c.symbol).map((c) => [c.kind, c.symbol, c.complete]), [['function', 'parse', true], ['function', 'stringify', true]], wrap.slice(0, 30));
      assertInvariants(wrap, w);
    }
    // a build's output (it names its source map) is a bundle of copies: its wrapper is not opened
    const bundle = `${text}\n//# sourceMappingURL=query-string.umd.js.map\n`;
    const b = chunkFile('dist/query-string.umd.js', bundle);
    assert.deepEqual(b.chunks.filter((c) => c.symbol).length, 0, b.chunks.map((c) => c.symbol).join(', '));
    assertInvariants(bundle, b);
  });

  it("a test suite's describe(…) over budget is cut between its it(…) blocks, its helpers named", () => {
    const text = read('query-string.test.js');
    const r = chunkFile('test/query-string.test.js', text, { maxTokens: 80 });
    assert.deepEqual(brief(r), [
      ['module', null, 1, 3, false],
      ['function', 'roundTrip', 4, 6, true],
      ['module', null, 8, 11, false],
      ['module', null, 13, 15, false],
      ['module', null, 17, 19, false],
      ['module', null, 21, 25, false],
    ]);
    for (const c of r.chunks.slice(2)) assert.match(c.text, /^it\('/);
    assertInvariants(text, r, 80);
  });

  it('keeps exact offsets in files with CRLF line ends and a BOM', () => {
    const bytes = fs.readFileSync(path.join(FIX, 'crlf-bom.js'));
    const d = decodeBytes(bytes);
    assert.equal(d.bom, true);
    const r = chunkFile('crlf-bom.js', d.text!);
    assert.equal(r.chunks.length, 1);
    const c = r.chunks[0];
    assert.equal(c.start.offset, 0);
    assert.deepEqual([c.start.line, c.end.line, c.end.column], [1, 5, 21]);
    assert.equal(c.text, d.text!.trimEnd());
    assertInvariants(d.text!, r);
  });

  it('names the members of an exported object literal after its file: layers.methods.x', () => {
    const methods = Array.from({ length: 6 }, (_, i) => `    step${i}(map) {\n${Array.from({ length: 8 }, (_, j) => `      map.layers[${j}].setOpacity(${i} / ${j + 1});`).join('\n')}\n    },`).join('\n');
    const text = `export default {\n  name: 'KLayers',\n  methods: {\n${methods}\n  },\n}\n`;
    const r = chunkFile('src/layers.js', text);
    const syms = r.chunks.map((c) => c.symbol);
    for (let i = 0; i < 6; i++) assert.ok(syms.includes(`layers.methods.step${i}`), syms.join(', '));
    assertInvariants(text, r);
  });

  it('splits a function over budget at statement boundaries, every piece keeping the symbol', () => {
    const body = Array.from({ length: 60 }, (_, i) => `  const value${i} = computeSomething(${i}, options.factor * ${i});`).join('\n');
    const text = `export function bigFunction(options) {\n${body}\n  return options;\n}\n`;
    const r = chunkFile('src/big.js', text);
    assert.ok(r.chunks.length > 2);
    for (const c of r.chunks) {
      assert.equal(c.symbol, 'bigFunction');
      assert.equal(c.header, '// src/big.js :: bigFunction');
      assert.equal(c.complete, false);
      assert.ok(c.tokens <= 256);
    }
    assert.deepEqual(r.chunks.map((c) => c.split), r.chunks.map((_, index) => ({ index, total: r.chunks.length })));
    // cut between statements: every piece ends with a complete statement or the closing brace
    for (const c of r.chunks) assert.match(c.text, /[;}]$/);
    assertInvariants(text, r);
  });

  it('recovers from syntax errors with a warning, and falls back to text when it cannot', () => {
    const recovered = chunkFile('a.js', 'function ok() { return 1 }\nlet x = 1;\nlet x = 2;\nfunction also() {}\n');
    assert.ok(recovered.warnings.some((w) => /recovered/.test(w)), JSON.stringify(recovered.warnings));
    assert.ok(recovered.chunks.length > 0);
    assert.equal(recovered.fallback, undefined);
    const broken = chunkFile('b.js', 'function (((( {{{{ \n <<<< ]]]] \n');
    assert.match(broken.fallback ?? '', /syntax error/);
    assert.ok(broken.chunks.length > 0 && broken.chunks.every((c) => c.kind === 'text'));
    assertInvariants('function (((( {{{{ \n <<<< ]]]] \n', broken);
  });

  describe('properties over generated programs', () => {
    const ident = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,10}$/).map((s) => `x${s}`); // never a keyword
    const stmt = fc.oneof(
      fc.tuple(ident, fc.integer({ min: 0, max: 999 })).map(([n, v]) => `const ${n}_ = ${v} + helper(${v});`),
      fc.tuple(ident, ident).map(([a, b]) => `if (${a}) {\n    ${b}(${a});\n  }`),
      ident.map((n) => `// note about ${n}\n  ${n}.update();`),
      fc.constant('return;'),
    );
    const fnDecl = fc.tuple(ident, fc.array(stmt, { maxLength: 40 }), fc.boolean()).map(
      ([n, body, exp]) => ({ name: `fn_${n}`, src: `${exp ? 'export ' : ''}function fn_${n}(a, b) {\n  ${body.join('\n  ')}\n}` }),
    );
    const classDecl = fc.tuple(ident, fc.array(fc.tuple(ident, fc.array(stmt, { maxLength: 12 })), { maxLength: 8 })).map(([n, ms]) => ({
      name: `C_${n}`,
      src: `export class C_${n} extends Base {\n  field = 1;\n${ms.map(([m, b], i) => `  m${i}_${m}() {\n    ${b.join('\n    ')}\n  }`).join('\n\n')}\n}`,
    }));
    const objDecl = fc.array(fc.tuple(ident, fc.array(stmt, { maxLength: 10 })), { maxLength: 10 }).map((ms) => ({
      name: 'default',
      src: `export default {\n  name: 'Gen',\n  methods: {\n${ms.map(([m, b], i) => `    m${i}_${m} () {\n      ${b.join('\n      ')}\n    }`).join(',\n')}\n  },\n  computed: {\n    x () { return 1 }\n  }\n}`,
    }));
    const leftover = fc.constantFrom("import a from 'a';", 'setup();', "const plain = 'x';", '/* block comment */', '', ';', ';;');
    const program = fc.tuple(fc.array(fc.oneof(fnDecl, classDecl, leftover.map((s) => ({ name: '', src: s }))), { maxLength: 8 }), fc.option(objDecl), fc.constantFrom('\n', '\r\n'));

    it('never throw, keep exact positions, never overlap, cover everything, respect the budget', () => {
      fc.assert(
        fc.property(program, fc.integer({ min: 48, max: 400 }), ([parts, obj, eol], max) => {
          const units = obj ? [...parts, obj] : parts;
          const text = units.map((u) => u.src).join('\n\n').replace(/\n/g, eol);
          const r = chunkFile('gen/program.js', text, { maxTokens: max });
          assert.equal(r.fallback, undefined, r.fallback);
          assertInvariants(text, r, max);
        }),
        { numRuns: 150 },
      );
    });

    it('never cut a unit that fits, and record split consistently when one is cut', () => {
      const opts = resolveOptions({});
      fc.assert(
        fc.property(fc.array(fnDecl, { minLength: 1, maxLength: 6 }), fc.integer({ min: 64, max: 300 }), (fns, max) => {
          const seen = new Set<string>();
          const unique = fns.filter((f) => !seen.has(f.name) && seen.add(f.name));
          const text = unique.map((f) => f.src).join('\n\n');
          const r = chunkFile('gen/fns.js', text, { maxTokens: max });
          const ctx = new ChunkContext('gen/fns.js', 'javascript', text, opts.counter, max);
          for (const f of unique) {
            const s = text.indexOf(f.src);
            const e = s + f.src.length;
            const fits = ctx.cost(`// gen/fns.js :: ${f.name}`, s, e) <= max;
            const whole = r.chunks.some((c) => c.start.offset <= s && c.end.offset >= e);
            if (fits) assert.ok(whole, `${f.name} fits but was cut`);
            else {
              const pieces = r.chunks.filter((c) => c.symbol === f.name);
              assert.ok(pieces.length >= 2, `${f.name} over budget should be split`);
              assert.deepEqual(pieces.map((c) => c.split?.index), pieces.map((_, i) => i));
              assert.ok(pieces.every((c: Chunk) => c.split?.total === pieces.length));
            }
          }
        }),
        { numRuns: 100 },
      );
    });
  });
});
