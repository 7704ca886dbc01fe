import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { chunkFile, decodeBytes, languageOf, longLines, resolveOptions } from '../../src/chunkers/index';
import { ChunkContext } from '../../src/chunkers/context';
import { SourceText } from '../../src/parse/source-text';
import { defaultTokenCounter, TokenizerMissingError, type TokenCounter } from '../../src/tokenizer/wordpiece';
import { checkBudget, checkCoverage, checkNoOverlap, checkPositions } from '../helpers/invariants';

describe('chunkFile: dispatch and bad input', () => {
  it('picks the language by extension', () => {
    assert.deepEqual(
      ['a.js', 'a.mjs', 'a.cjs', 'a.jsx', 'a.ts', 'a.tsx', 'a.vue', 'a.json', 'a.jsonc', 'README.md', 'notes.txt', 'Dockerfile', 'x.py'].map(languageOf),
      ['javascript', 'javascript', 'javascript', 'javascript', 'typescript', 'typescript', 'vue', 'json', 'json', 'markdown', 'plaintext', 'dockerfile', 'python'],
    );
  });

  it('gives 0 chunks for an empty or blank file, with the reason', () => {
    for (const t of ['', '   \n\t\n']) {
      const r = chunkFile('empty.js', t);
      assert.equal(r.chunks.length, 0);
      assert.equal(r.skipped?.reason, 'empty');
    }
  });

  it('skips files over the size cap, and the cap is configurable', () => {
    const big = `${'const a = 1;\n'.repeat(50_000)}`;
    assert.equal(chunkFile('big.js', big).skipped?.reason, 'too-large');
    const r = chunkFile('big.js', big, { maxFileBytes: 1024 * 1024 });
    assert.equal(r.skipped, undefined);
    assert.ok(r.chunks.length > 10);
  });

  it('skips minified and generated files with the reason, but not long-lined prose', () => {
    const minified = `!function(){${'var a=1;'.repeat(500)}}();\n`;
    assert.equal(chunkFile('vendor.js', minified).skipped?.reason, 'minified');
    assert.equal(chunkFile('app.min.js', 'var a = 1;\n').skipped?.reason, 'minified');
    assert.equal(chunkFile('package-lock.json', '{}').skipped?.reason, 'minified');
    const prose = `# Title\n\n${'A long paragraph written on a single line. '.repeat(40)}\n`;
    assert.equal(chunkFile('README.md', prose).skipped, undefined);
  });

  it('measures long lines the same with or without carriage returns (the minified test)', () => {
    // the reference: one pass over every character, a line ending at \n or \r
    const reference = (text: string, limit: number) => {
      let longChars = 0;
      let longest = 0;
      let lineStart = 0;
      for (let i = 0; i <= text.length; i++) {
        const c = i < text.length ? text.charCodeAt(i) : 10;
        if (c === 10 || c === 13) {
          const len = i - lineStart;
          if (len > longest) longest = len;
          if (len > limit) longChars += len;
          lineStart = i + 1;
        }
      }
      return { longest, longChars };
    };
    const line = fc.stringMatching(/^[a-z é]{0,40}$/);
    const text = fc.tuple(fc.array(line, { maxLength: 12 }), fc.array(fc.constantFrom('\n', '\r', '\r\n', '\n\n'), { minLength: 12, maxLength: 12 })).map(([lines, ends]) => lines.map((l, i) => l + ends[i]).join(''));
    fc.assert(fc.property(text, fc.integer({ min: 0, max: 30 }), (t, limit) => assert.deepEqual(longLines(t, limit), reference(t, limit))));
    assert.deepEqual(longLines('', 5), { longest: 0, longChars: 0 });
    assert.deepEqual(longLines('abcdefgh\nab\n', 5), { longest: 8, longChars: 8 });
    assert.deepEqual(longLines('abcdefgh\r\nabcdefg', 5), { longest: 8, longChars: 15 });
  });

  it('refuses binary content, decodes UTF-16 by its BOM, and says when it replaced invalid UTF-8', () => {
    assert.equal(decodeBytes(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13])).encoding, 'binary');
    assert.equal(chunkFile('x.bin', 'abc\0def').skipped?.reason, 'binary');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('const é = 1;\n', 'utf16le')]);
    const d16 = decodeBytes(utf16);
    assert.deepEqual([d16.encoding, d16.text], ['utf-16le', 'const é = 1;\n']);
    const bad = Buffer.concat([Buffer.from('const a = "'), Buffer.from([0xc3, 0x28]), Buffer.from('";\n')]);
    const d = decodeBytes(bad);
    assert.equal(d.encoding, 'utf-8');
    assert.equal(d.replaced, 1);
    assert.ok(d.text!.includes('\uFFFD'));
    const withBom = decodeBytes(Buffer.from('\uFEFFhello', 'utf8'));
    assert.deepEqual([withBom.bom, withBom.text], [true, 'hello']);
  });

  it('a missing tokenizer (a broken install) fails the chunking, in every chunker; a chunker bug only skips its file', () => {
    const failing = (err: Error): TokenCounter => ({ name: 'broken', count: () => { throw err; }, countWithSpecials: () => { throw err; } });
    const files: Array<[string, string]> = [['a.js', 'export function f() {\n  return 1;\n}\n'], ['b.md', '# T\n\ntext\n'], ['c.json', '{"a": 1}\n'], ['d.txt', 'plain words\n'], ['e.vue', '<template><div>x</div></template>\n']];
    for (const [rel, text] of files) {
      assert.throws(() => chunkFile(rel, text, resolveOptions({}, failing(new TokenizerMissingError('tokenizer files are missing')))), TokenizerMissingError, rel);
      const r = chunkFile(rel, text, resolveOptions({}, failing(new Error('a bug'))));
      assert.equal(r.skipped?.reason, 'unsupported', rel);
      assert.match(r.skipped?.detail ?? '', /a bug/);
    }
  });

  it('maps offsets to lines and columns across \\n, \\r\\n and lone \\r as VS Code does', () => {
    const s = new SourceText('a\r\nb\rc\nd');
    assert.deepEqual([s.position(0), s.position(3), s.position(5), s.position(7)].map((p) => [p.line, p.column]), [[1, 0], [2, 0], [3, 0], [4, 0]]);
    assert.deepEqual([s.position(2).line, s.position(2).column], [1, 2]);
  });

  it("property: a header's cost (its path counted once per file) equals counting the whole header, wherever the path stands in it", () => {
    const counter = defaultTokenCounter();
    const unit = fc.constantFrom(...'ab cd\t/.:>-_é中[]CLS'.split(''));
    const part = fc.string({ unit, maxLength: 24 });
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 40 }), part, part, fc.constantFrom('', ' ', '\t'), fc.constantFrom('', ' ', '\t'), (path, before, after, s1, s2) => {
        const ctx = new ChunkContext(path, 'javascript', 'x', counter, 256);
        const header = `${before}${s1}${path}${s2}${after}`;
        return ctx.headerCost(header) === counter.count(header) + 2 && ctx.headerCost(`// ${path} :: ${after}`) === counter.count(`// ${path} :: ${after}`) + 2;
      }),
      { numRuns: 3000 },
    );
  });

  it('property: counting ranges through the segment table equals counting their text, for the WordPiece counter and a counter without segments', () => {
    const counter = defaultTokenCounter();
    // a counter with only count(): the table then cuts the segments itself
    const plain: TokenCounter = { name: 'plain', count: (t) => counter.count(t), countWithSpecials: (t) => counter.countWithSpecials(t) };
    const unit = fc.constantFrom(...'ab cd\t\n\r(){}.,é中[CLS]'.split(''));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 200 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 8 }), fc.boolean(), (text, ranges, usePlain) => {
        const ctx = new ChunkContext('x.txt', 'plaintext', text, usePlain ? plain : counter, 256);
        return ranges.every(([a, b]) => {
          const s = text.length ? a % (text.length + 1) : 0;
          const e = text.length ? b % (text.length + 1) : 0;
          const [lo, hi] = s <= e ? [s, e] : [e, s];
          return ctx.countRange(lo, hi) === counter.count(text.slice(lo, hi));
        });
      }),
      { numRuns: 1500 },
    );
  });

  it("the counter's segments are the text's runs without whitespace, and their tokens add up to its count", () => {
    const counter = defaultTokenCounter();
    const text = '  const x = a.b(c);\n\tcafé 中文 [CLS]x\r\n  end ';
    const segs: Array<[string, number]> = [];
    const total = counter.countSegments!(text, 0, text.length, { segment: (s, e, n) => void segs.push([text.slice(s, e), n]) });
    assert.deepEqual(segs.map((x) => x[0]), ['const', 'x', '=', 'a.b(c);', 'café', '中文', '[CLS]x', 'end']);
    for (const [t, n] of segs) assert.equal(n, counter.count(t), t);
    assert.equal(total, counter.count(text));
    assert.equal(segs.reduce((a, x) => a + x[1], 0), total);
  });

  it('text fallback cuts at paragraphs and keeps every piece within budget', () => {
    const text = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} talks about zooming the map and its layers in some detail.\nIt has two lines.`).join('\n\n');
    const r = chunkFile('notes.txt', text, { maxTokens: 64 });
    assert.ok(r.chunks.length > 5);
    for (const c of r.chunks) assert.match(c.text, /^Paragraph \d+/);
    assert.deepEqual(checkBudget(r.chunks, 64), []);
    assert.deepEqual(checkCoverage(text, r.chunks), []);
  });

  it('property: any text in any kind of file never throws and keeps exact positions', () => {
    const ext = fc.constantFrom('js', 'ts', 'tsx', 'vue', 'json', 'md', 'txt', 'py', 'css');
    fc.assert(
      fc.property(ext, fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 40, max: 300 }), (e, text, max) => {
        const r = chunkFile(`f/x.${e}`, text, { maxTokens: max });
        const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
        assert.deepEqual(checkPositions(src, r.chunks), []);
        assert.deepEqual(checkNoOverlap(r.chunks, (inner) => inner.kind === 'code-block'), []);
        if (!r.skipped && e !== 'json' && e !== 'vue') assert.deepEqual(checkCoverage(src, r.chunks), []);
      }),
      { numRuns: 400 },
    );
  });

  it('property: lines of code-like text of any shape chunk within budget in the text fallback', () => {
    const line = fc.string({ unit: fc.constantFrom(...'ab cd(){};=\t'.split('')), maxLength: 120 });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.integer({ min: 24, max: 200 }), (lines, max) => {
        const text = lines.join('\n');
        const r = chunkFile('x.txt', text, { maxTokens: max });
        assert.deepEqual(checkBudget(r.chunks, max), []);
        if (!r.skipped) assert.deepEqual(checkCoverage(text, r.chunks), []);
      }),
      { numRuns: 200 },
    );
  });
});
