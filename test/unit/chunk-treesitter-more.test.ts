/**
 * Tree-sitter chunking of C#, C/C++, PHP and Ruby (src/chunkers/code-ast.ts): units, their
 * symbols and kinds, doc comments and attributes kept with them, containers split into members,
 * exact ranges, full coverage, the budget, and the fallback of a broken file.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, prepareLanguagesFor } from '../../src/chunkers/index';
import { grammar } from '../../src/chunkers/treesitter';
import type { FileChunks } from '../../src/chunkers/types';
import { checkAll } from '../helpers/invariants';

const FIX = path.join(__dirname, '..', 'fixtures');
const read = (f: string) => fs.readFileSync(path.join(FIX, f), 'utf8');
const brief = (r: FileChunks) => r.chunks.map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line, c.complete]);
const bySymbol = (r: FileChunks, s: string) => r.chunks.find((c) => c.symbol === s);
/** Units (not fragments or module code) in order, one entry per unit however many pieces it has. */
const units = (r: FileChunks) => {
  const out: Array<[string, string]> = [];
  for (const c of r.chunks) {
    if (c.kind === 'fragment' || c.kind === 'module' || !c.symbol) continue;
    const last = out[out.length - 1];
    if (!last || last[0] !== c.kind || last[1] !== c.symbol) out.push([c.kind, c.symbol]);
  }
  return out;
};

/** Positions exact, no overlap, every non-blank byte covered, nothing over budget. */
function assertInvariants(text: string, r: FileChunks, max = 256) {
  const v = checkAll(text, r, max);
  assert.deepEqual(v, [], v.join('\n'));
  for (const c of r.chunks) assert.equal(c.text, text.slice(c.start.offset, c.end.offset));
}

/** A file that is mostly not code gives way to the text chunker and says why. */
function assertFallsBack(file: string, bad: string) {
  const r = chunkFile(file, bad);
  assert.match(r.fallback ?? '', /syntax error/, `${file}: ${r.fallback}`);
  assert.ok(r.warnings.some((w) => /gave way to the text chunker/.test(w)), JSON.stringify(r.warnings));
  assert.ok(r.chunks.length > 0 && r.chunks.every((c) => c.kind === 'text'));
  assertInvariants(bad, r);
}

describe('tree-sitter chunkers (C#, C/C++, PHP, Ruby)', () => {
  before(async () => {
    await prepareLanguagesFor(['a.cs', 'a.c', 'a.cpp', 'a.php', 'a.rb']);
    for (const l of ['csharp', 'c', 'cpp', 'php', 'ruby']) assert.ok(grammar(l), `${l} grammar loaded`);
  });

  describe('C#', () => {
    it('a file-scoped namespace holds the rest of the file; its types and members are units, docs and attributes attached', () => {
      const text = read('csharp/TileStore.cs');
      const r = chunkFile('src/TileStore.cs', text);
      assert.equal(r.language, 'csharp');
      assert.equal(r.fallback, undefined);
      assert.deepEqual(r.warnings, []);
      const ns = 'Fathom.Maps.Storage';
      const cls = `${ns}.TileStore`;
      assert.deepEqual(brief(r), [
        ['module', null, 1, 3, false],
        ['property', `${cls}.Evicted`, 5, 18, true],
        ['method', `${cls}.TileStore`, 20, 25, true],
        ['property', `${cls}.Capacity`, 27, 27, true],
        ['property', `${cls}.Count`, 29, 38, true],
        ['method', `${cls}.this`, 40, 40, true],
        ['method', `${cls}.Put`, 42, 67, true],
        ['method', `${cls}.TryGet`, 69, 90, true],
        ['method', `${cls}.operator +`, 92, 96, true],
        ['method', `${cls}.Dispose`, 98, 98, true],
        ['class', `${cls}.Entry`, 100, 101, true],
        ['struct', `${cls}.Stats`, 103, 109, true],
        ['group', `${ns}.{TileFormat, ITileSource, TileLoaded}`, 111, 124, true],
      ]);
      assert.equal(bySymbol(r, `${cls}.Put`)!.parent, cls);
      assert.ok(bySymbol(r, `${cls}.Put`)!.text.startsWith('/// <summary>Stores a tile'), 'the /// doc stays with the method');
      assert.equal(bySymbol(r, `${cls}.Put`)!.signature, '[MethodImpl(MethodImplOptions.AggressiveInlining)] public void Put(TKey key, byte[] tile, TileFormat format)');
      assert.equal(bySymbol(r, `${cls}.Count`)!.signature, 'public int Count');
      assert.ok(bySymbol(r, `${cls}.Count`)!.text.includes('finally { _lock.ExitReadLock(); }'), 'a property keeps its accessor bodies');
      assert.equal(bySymbol(r, `${cls}.Put`)!.header, `// src/TileStore.cs :: ${cls}.Put`);
      const group = bySymbol(r, `${ns}.{TileFormat, ITileSource, TileLoaded}`)!;
      assert.deepEqual(group.meta?.members, [`${ns}.TileFormat`, `${ns}.ITileSource`, `${ns}.TileLoaded`]);
      assert.equal(group.parent, ns);
      assertInvariants(text, r);
    });

    it('over a small budget: big methods are cut, nested types open, every piece named and within budget', () => {
      const text = read('csharp/TileStore.cs');
      const r = chunkFile('src/TileStore.cs', text, { maxTokens: 64 });
      const ns = 'Fathom.Maps.Storage';
      const cls = `${ns}.TileStore`;
      assert.deepEqual(units(r), [
        ['property', `${cls}.Evicted`],
        ['method', `${cls}.TileStore`],
        ['property', `${cls}.Capacity`],
        ['property', `${cls}.Count`],
        ['method', `${cls}.this`],
        ['method', `${cls}.Put`],
        ['method', `${cls}.TryGet`],
        ['method', `${cls}.operator +`],
        ['method', `${cls}.Dispose`],
        ['class', `${cls}.Entry`],
        ['property', `${cls}.Stats.HitRate`],
        ['enum', `${ns}.TileFormat`],
        ['interface', `${ns}.ITileSource`],
        ['type', `${ns}.TileLoaded`],
      ]);
      const put = r.chunks.filter((c) => c.symbol === `${cls}.Put`);
      assert.ok(put.length > 2 && put.every((c, i) => c.split?.index === i && c.split.total === put.length && !c.complete));
      assert.ok(put[0].text.startsWith('/// <summary>Stores a tile'), 'the doc comment and attribute open the first piece');
      assert.equal(bySymbol(r, `${cls}.Stats.HitRate`)!.parent, `${cls}.Stats`);
      assertInvariants(text, r, 64);
    });

    it('block namespaces nest; comments and attributes stay with the class', () => {
      const text = read('csharp/Legacy.cs');
      const whole = chunkFile('Legacy.cs', text);
      assert.deepEqual(brief(whole), [
        ['module', null, 1, 1, false],
        ['namespace', 'Fathom.Legacy', 3, 26, true],
      ]);
      assertInvariants(text, whole);
      const r = chunkFile('Legacy.cs', text, { maxTokens: 48 });
      assert.deepEqual(units(r), [
        ['property', 'Fathom.Legacy.OldCache.Name'],
        ['method', 'Fathom.Legacy.OldCache.Clear'],
        ['class', 'Fathom.Legacy.OldCache.Options'],
        ['namespace', 'Fathom.Legacy.Inner'],
      ]);
      const head = r.chunks.find((c) => c.symbol === 'Fathom.Legacy.OldCache')!;
      assert.ok(head.text.startsWith('// Kept for callers') && head.text.includes('[Obsolete("Use TileStore")]'), head.text);
      assert.equal(bySymbol(r, 'Fathom.Legacy.Inner')!.parent, 'Fathom.Legacy');
      assertInvariants(text, r, 48);
    });

    it('a local syntax error is recovered with a warning; a mostly broken file falls back to text', () => {
      const text = 'namespace X\n{\n    class A\n    {\n        void F( { }\n        void G() { }\n    }\n}\n';
      const r = chunkFile('a.cs', text);
      assert.equal(r.fallback, undefined);
      assert.ok(r.warnings.some((w) => /recovered \d+ syntax error/.test(w)), JSON.stringify(r.warnings));
      assertInvariants(text, r);
      assertFallsBack('b.cs', '}}}} class (((( ]]]] namespace {{{{ \n <<<< ]]]] ;;; void ((\n');
    });
  });
  describe('C and C++', () => {
    it('C++: namespaces, classes with inline methods and nested types, templates, Class::method definitions, multi-line macros', () => {
      const text = read('cpp/widget.cpp');
      const r = chunkFile('src/widget.cpp', text);
      assert.equal(r.language, 'cpp');
      assert.equal(r.fallback, undefined);
      assert.deepEqual(r.warnings, []);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 5, false],
        ['macro', 'CLAMP', 7, 12, true],
        ['module', null, 13, 15, false],
        ['class', 'ui.Widget', 17, 45, true],
        ['function', 'ui.clampTo', 47, 50, true],
        ['method', 'ui.Widget.draw', 52, 71, false],
        ['method', 'ui.Widget.draw', 72, 84, false],
        ['namespace', 'ui.detail', 86, 96, true],
        ['module', null, 96, 96, false],
      ]);
      const macro = bySymbol(r, 'CLAMP')!;
      assert.ok(macro.text.startsWith('// Clamps v') && macro.text.includes(': (v))'), 'the comment and every continued line stay with the macro');
      assert.ok(r.chunks[2].text.includes('#define WIDGET_VERSION 3') && r.chunks[2].text.includes('int area(const Rect& r);'), 'one-line macros and prototypes are module code');
      assert.ok(bySymbol(r, 'ui.clampTo')!.text.startsWith('template <typename T>\n'), 'the template header stays with its function');
      const draw = r.chunks.filter((c) => c.symbol === 'ui.Widget.draw');
      assert.ok(draw[0].text.startsWith('// Draws the box first'), 'the comment above stays with the definition');
      assert.deepEqual(draw.map((c) => [c.parent, c.split?.index, c.split?.total]), [['ui.Widget', 0, 2], ['ui.Widget', 1, 2]]);
      assert.equal(draw[0].signature, 'void Widget::draw(Canvas& canvas) const');
      assert.ok(bySymbol(r, 'ui.Widget')!.text.includes('/**\n * A drawable widget'), 'the doc comment stays with the class');
      assert.equal(bySymbol(r, 'ui.Widget')!.header, '// src/widget.cpp :: ui.Widget');
      assertInvariants(text, r);
    });

    it('C++ over a small budget: the class opens into methods, constructors, destructors and nested types', () => {
      const text = read('cpp/widget.cpp');
      const r = chunkFile('src/widget.cpp', text, { maxTokens: 64 });
      assert.deepEqual(units(r), [
        ['macro', 'CLAMP'],
        ['method', 'ui.Widget.Widget'],
        ['method', 'ui.Widget.~Widget'],
        ['method', 'ui.Widget.name'],
        ['method', 'ui.Widget.width'],
        ['struct', 'ui.Widget.Style'],
        ['enum', 'ui.Widget.State'],
        ['function', 'ui.clampTo'],
        ['method', 'ui.Widget.draw'],
        ['function', 'ui.detail.layoutPass'],
      ]);
      assert.equal(bySymbol(r, 'ui.Widget.Style')!.parent, 'ui.Widget');
      assert.ok(bySymbol(r, 'ui.Widget.Style')!.complete);
      assertInvariants(text, r, 64);
    });

    it('C++: a class or struct with an export macro (class LIB_API Doc : public Node) is that class, not a function named "function"', () => {
      const text = 'namespace ns {\nclass LIB_API Doc : public Node\n{\npublic:\n    Doc(bool x);\n    int Load(const char* f) { return 1; }\n    int Save(const char* f) { return 2; }\n};\n\nstruct EXPORT Point { int x; int y; };\n\nstruct Plain { int z; };\n}\n';
      const whole = chunkFile('src/doc.h', text);
      assert.ok(!whole.chunks.some((c) => /function/.test(c.symbol ?? '')), JSON.stringify(brief(whole)));
      const r = chunkFile('src/doc.h', text, { maxTokens: 24 });
      assert.deepEqual(units(r), [
        ['method', 'ns.Doc.Load'],
        ['method', 'ns.Doc.Save'],
        ['struct', 'ns.Point'],
        ['struct', 'ns.Plain'],
      ]);
      assert.ok(r.chunks.some((c) => c.symbol === 'ns.Doc' && c.text.includes('class LIB_API Doc')));
      assertInvariants(text, r, 24);
    });

    it('C header: include guards and extern "C" are see-through; typedef structs, unions, enums, static inline functions', () => {
      const text = read('cpp/ring.h');
      const r = chunkFile('include/ring.h', text);
      assert.equal(r.language, 'c');
      assert.equal(r.fallback, undefined);
      // the `extern "C" {` opened and closed in separate #ifdef blocks is a (recovered) syntax error to the grammar
      assert.ok(r.warnings.every((w) => /^recovered \d+ syntax error/.test(w)), JSON.stringify(r.warnings));
      assert.deepEqual(brief(r), [
        ['module', null, 1, 8, false],
        ['group', '{Ring, Word, RingError}', 10, 23, true],
        ['module', null, 25, 25, false],
        ['function', 'ring_push', 27, 33, true],
        ['function', 'ring_pop', 35, 41, true],
        ['module', null, 43, 47, false],
      ]);
      assert.ok(bySymbol(r, '{Ring, Word, RingError}')!.text.startsWith('/* A fixed-size ring buffer'));
      assert.ok(bySymbol(r, 'ring_push')!.text.startsWith('/* Appends one byte'));
      assert.equal(r.chunks[2].text, 'int ring_init(Ring *r, size_t cap);', 'a prototype is module code');
      assertInvariants(text, r);
      const small = chunkFile('include/ring.h', text, { maxTokens: 40 });
      assert.deepEqual(units(small), [
        ['struct', 'Ring'],
        ['struct', 'Word'],
        ['enum', 'RingError'],
        ['function', 'ring_push'],
        ['function', 'ring_pop'],
      ]);
      assertInvariants(text, small, 40);
    });

    it('a local syntax error is recovered with a warning; a mostly broken file falls back to text', () => {
      const text = 'int ok(void) {\n  return 1;\n}\n\nint broken(int x {\n  return x;\n}\n\nint also(void) {\n  return 3;\n}\n';
      const r = chunkFile('a.c', text);
      assert.equal(r.fallback, undefined);
      assert.ok(r.warnings.some((w) => /recovered \d+ syntax error/.test(w)), JSON.stringify(r.warnings));
      assert.deepEqual(brief(r), [['group', '{ok, broken, also}', 1, 11, true]]);
      assertInvariants(text, r);
      assertFallsBack('b.cpp', 'int f( {\n}}}} ((( struct ]]] \n class {{{ #define (((\n');
      assertFallsBack('b.c', 'int ok(void) { return 1; }\nint broken( { return 2; }\nint also(void) { return 3; }\n');
    });
  });
  describe('PHP', () => {
    const ns = 'App.Billing';
    const cls = `${ns}.InvoiceService`;

    it('`namespace X;` holds the file; classes, interfaces, traits, enums, functions, with PHPDoc and attributes', () => {
      const text = read('php/InvoiceService.php');
      const r = chunkFile('src/Billing/InvoiceService.php', text);
      assert.equal(r.language, 'php');
      assert.equal(r.fallback, undefined);
      assert.deepEqual(r.warnings, []);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 3, false],
        ['group', `${cls}.{DEFAULT_CURRENCY, TAX_RATE}`, 5, 21, true],
        ['method', `${cls}.__construct`, 23, 27, true],
        ['method', `${cls}.draft`, 29, 42, false],
        ['method', `${cls}.draft`, 43, 56, false],
        ['method', `${cls}.draft`, 57, 62, false],
        ['method', `${cls}.issue`, 64, 70, true],
        ['method', `${cls}.isOverdue`, 72, 76, true],
        ['interface', `${ns}.InvoiceServiceInterface`, 78, 81, true],
        ['trait', `${ns}.LogsActivity`, 83, 89, true],
        ['enum', `${ns}.InvoiceStatus`, 91, 101, true],
        ['function', `${ns}.format_amount`, 103, 107, true],
      ]);
      const draft = r.chunks.filter((c) => c.symbol === `${cls}.draft`);
      assert.ok(draft[0].text.startsWith('/**\n     * Builds a draft invoice'), 'the PHPDoc stays with the method');
      assert.deepEqual(draft.map((c) => [c.parent, c.split?.index, c.split?.total, c.complete]), [[cls, 0, 3, false], [cls, 1, 3, false], [cls, 2, 3, false]]);
      assert.equal(draft[0].signature, 'public function draft(Customer $customer, array $items, ?string $currency = null): Invoice');
      const head = r.chunks[1];
      assert.ok(head.text.includes('#[Service(lazy: true)]\nfinal class InvoiceService'), 'the attribute stays with the class');
      assert.equal(bySymbol(r, `${ns}.format_amount`)!.header, `// src/Billing/InvoiceService.php :: ${ns}.format_amount`);
      assert.ok(bySymbol(r, `${ns}.format_amount`)!.text.startsWith('/** Formats an amount'));
      assertInvariants(text, r);
    });

    it('over a small budget: constants, methods of classes, interfaces, traits and enums are their own units', () => {
      const text = read('php/InvoiceService.php');
      const r = chunkFile('src/Billing/InvoiceService.php', text, { maxTokens: 64 });
      assert.deepEqual(units(r), [
        ['const', `${cls}.DEFAULT_CURRENCY`],
        ['const', `${cls}.TAX_RATE`],
        ['method', `${cls}.__construct`],
        ['method', `${cls}.draft`],
        ['method', `${cls}.issue`],
        ['method', `${cls}.isOverdue`],
        ['method', `${ns}.InvoiceServiceInterface.draft`],
        ['method', `${ns}.LogsActivity.logActivity`],
        ['method', `${ns}.InvoiceStatus.label`],
        ['function', `${ns}.format_amount`],
      ]);
      assert.equal(bySymbol(r, `${ns}.InvoiceStatus.label`)!.parent, `${ns}.InvoiceStatus`);
      assertInvariants(text, r, 64);
    });

    it('HTML around the PHP is module code; a block namespace holds its functions and classes', () => {
      const text = read('php/receipt.php');
      const r = chunkFile('views/receipt.php', text);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 5, false],
        ['namespace', 'Shop.View', 6, 22, true],
        ['module', null, 23, 30, false],
      ]);
      assert.ok(r.chunks[0].text.startsWith('<!DOCTYPE html>') && r.chunks[2].text.includes('<?php foreach ($rows as $row): ?>'));
      assertInvariants(text, r);
      const small = chunkFile('views/receipt.php', text, { maxTokens: 64 });
      assert.deepEqual(units(small), [
        ['function', 'Shop.View.line'],
        ['const', 'Shop.View.Totals.LABEL'],
        ['method', 'Shop.View.Totals.render'],
      ]);
      assert.ok(bySymbol(small, 'Shop.View.line')!.text.startsWith('// Renders one line'), 'the comment above stays with the function');
      assertInvariants(text, small, 64);
    });

    it('several `namespace X;` statements each hold what follows up to the next', () => {
      const text = '<?php\nnamespace A;\n\nfunction f() { return 1; }\n\n// about B\nnamespace B;\n\nfunction g() { return 2; }\n';
      const r = chunkFile('two.php', text, { maxTokens: 40 });
      assert.deepEqual(brief(r), [
        ['module', null, 1, 1, false],
        ['namespace', 'A', 2, 4, true],
        ['namespace', 'B', 6, 9, true],
      ]);
      assert.ok(bySymbol(r, 'B')!.text.startsWith('// about B'));
      assertInvariants(text, r, 40);
    });

    it('a local syntax error is recovered with a warning; a mostly broken file falls back to text', () => {
      const text = '<?php\nfunction ok() { return 1; }\nfunction broken( { return 2; }\nfunction also() { return 3; }\n';
      const r = chunkFile('a.php', text, { maxTokens: 40 });
      assert.equal(r.fallback, undefined);
      assert.ok(r.warnings.some((w) => /recovered \d+ syntax error/.test(w)), JSON.stringify(r.warnings));
      const names = r.chunks.flatMap((c) => (c.meta?.members as string[] | undefined) ?? [c.symbol]);
      assert.deepEqual(names, [undefined, 'ok', 'broken', 'also'].slice(r.chunks[0].kind === 'module' ? 0 : 1));
      assertInvariants(text, r, 40);
      assertFallsBack('b.php', '<?php\n}}}} class (((( ]]]] function {{{{ \n <<<< ]]]] ;;; $x ((\n');
    });
  });
  describe('Ruby', () => {
    const cls = 'Billing.Subscription';

    it('modules and classes hold their methods; `def self.x` and `class << self` methods belong to the class; comments attach', () => {
      const text = read('ruby/subscription.rb');
      const r = chunkFile('app/models/subscription.rb', text);
      assert.equal(r.language, 'ruby');
      assert.equal(r.fallback, undefined);
      assert.deepEqual(r.warnings, []);
      assert.deepEqual(brief(r), [
        ['module', null, 1, 4, false],
        ['method', `${cls}.start_trial`, 6, 20, true],
        ['method', `${cls}.active`, 22, 25, true],
        ['method', `${cls}.initialize`, 26, 33, true],
        ['method', `${cls}.renew!`, 35, 47, false],
        ['method', `${cls}.renew!`, 48, 60, false],
        ['group', `${cls}.{cancel!, active?, to_h}`, 62, 71, true],
        ['method', `${cls}.next_renewal`, 73, 78, true],
        ['class', 'Billing.Plan', 80, 86, true],
        ['function', 'format_cents', 88, 90, true],
      ]);
      const renew = r.chunks.filter((c) => c.symbol === `${cls}.renew!`);
      assert.ok(renew[0].text.startsWith('# Charges the customer'), 'the comment above stays with the method');
      assert.deepEqual(renew.map((c) => [c.parent, c.split?.index, c.split?.total]), [[cls, 0, 2], [cls, 1, 2]]);
      assert.equal(renew[0].signature, 'def renew!(gateway, today: Date.today)');
      assert.equal(renew[0].header, `# app/models/subscription.rb :: ${cls}.renew!`);
      const head = r.chunks[1];
      assert.ok(head.text.includes('attr_reader :plan, :customer, :state') && head.text.includes('VERSION = "2.3.0"'), 'attr_* and constants stay member / module code');
      assert.ok(head.text.includes('# A customer\'s subscription to a plan'));
      assert.ok(bySymbol(r, 'Billing.Plan')!.text.startsWith('# Prices are in cents'));
      assertInvariants(text, r);
    });

    it('over a small budget: every method its own unit, within budget; endless methods keep their line as signature', () => {
      const text = read('ruby/subscription.rb');
      const r = chunkFile('app/models/subscription.rb', text, { maxTokens: 64 });
      assert.deepEqual(units(r), [
        ['method', `${cls}.start_trial`],
        ['method', `${cls}.active`],
        ['method', `${cls}.initialize`],
        ['method', `${cls}.renew!`],
        ['method', `${cls}.cancel!`],
        ['method', `${cls}.active?`],
        ['method', `${cls}.to_h`],
        ['method', `${cls}.next_renewal`],
        ['class', 'Billing.Plan'],
        ['function', 'format_cents'],
      ]);
      assert.equal(bySymbol(r, `${cls}.active?`)!.signature, 'def active? = state == :active');
      assert.ok(r.chunks.some((c) => c.kind === 'fragment' && c.symbol === cls && c.text.includes('attr_accessor :renews_on')));
      assertInvariants(text, r, 64);
    });

    it('a local syntax error is recovered with a warning; a mostly broken file falls back to text', () => {
      const text = 'class A\n  def ok\n    1\n  end\n\n  def broken(\n    2\n  end\n\n  def also\n    3\n  end\nend\n';
      const r = chunkFile('a.rb', text, { maxTokens: 20 });
      assert.equal(r.fallback, undefined);
      assert.ok(r.warnings.some((w) => /recovered \d+ syntax error/.test(w)), JSON.stringify(r.warnings));
      assert.deepEqual(units(r), [['method', 'A.ok'], ['method', 'A.broken'], ['method', 'A.also']]);
      assertInvariants(text, r, 20);
      assertFallsBack('b.rb', 'end end end ]]]] class (((( def {{{{ \n <<<< ]]]] ;;; end ((\n');
    });
  });
});
