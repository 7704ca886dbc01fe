import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { referenceTokenizer } from '../helpers/reference-tokenizer';
import { defaultTokenCounter, resourcesDir, WordPieceCounter, type SegmentSink } from '../../src/tokenizer/wordpiece';

/**
 * The counting loop in WebAssembly (assembly/counter.ts, built into dist/fathom-counter.wasm by
 * `npm run build`) against the JavaScript counter and transformers.js: ranges of 96 characters
 * or more go to WebAssembly, so every text here is at least that long.
 */

const tokenizerJson = () => JSON.parse(fs.readFileSync(path.join(resourcesDir(), 'all-MiniLM-L6-v2', 'tokenizer.json'), 'utf8'));

/** What a sink is given, as one array. */
function segmentsOf(c: WordPieceCounter, text: string, from: number, to: number): { total: number; segs: number[] } {
  const segs: number[] = [];
  const sink: SegmentSink = { segment: (s, e, t) => void segs.push(s, e, t) };
  return { total: c.countSegments(text, from, to, sink), segs };
}

/** Characters where the two paths part: every ASCII class, the special tokens' pieces, controls, other scripts, surrogates. */
const edgy = fc.constantFrom(
  ...'aZz09Qx_-.,;:!?()[]{}<>"\'`$#@%^&*+=/\\|~'.split(''),
  ' ', '  ', '\t', '\r\n', '\n', '\v', '\f', '\x7f', '\0', '\x01', '\u00a0',
  '[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]', '[CL', 'CLS]', '[[SEP]]',
  'getZoomControl', 'HTTPServer', 'x2', 'naïve', 'Café', 'ÉTÉ', '中文', 'Русский', '😀', '\uD800', '\uDC00', 'ﬁ',
  'a'.repeat(100), 'b'.repeat(101), 'Supercalifragilisticexpialidocious'.repeat(4),
);
const longText = fc.array(edgy, { minLength: 40, maxLength: 400 }).map((a) => a.join(''));

describe('WordPiece token counter in WebAssembly', () => {
  const wasm = new WordPieceCounter(tokenizerJson(), 'wasm');
  const js = new WordPieceCounter(tokenizerJson(), 'js', { wasm: false });

  it('is what the shipped counter uses once the build has run (npm run build writes dist/fathom-counter.wasm)', () => {
    assert.ok(defaultTokenCounter().usesWasm, 'dist/fathom-counter.wasm is missing or did not load: run `npm run build`');
    assert.ok(wasm.usesWasm);
    assert.equal(js.usesWasm, false);
  });

  it('matches transformers.js on long texts of every kind of character', async () => {
    const ref = await referenceTokenizer();
    const cases = [
      'getZoomControl() { return this.$t("KZoomControl.ZOOM_IN") } // Café crème à l\'été — naïve façade, 中文字符 and emoji 😀 x\u0001y',
      '[CLS] foo[SEP]bar [MASK][PAD][UNK] [CL S] [cls] '.repeat(4),
      `${'a'.repeat(100)} ${'a'.repeat(101)} ${'Ab1'.repeat(40)} İstanbul ǅ ß ﬁ ΑΒΓ Ωmega`,
      'lone \uD800 surrogate \uDC00 \uFFFD replacement x\uFEFFy \u200Bz \u00A0 nbsp snake_case_name kebab-case camelCaseName',
      '\r\n\t  leading and trailing  \r\n'.repeat(6),
      fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'tokenizer', 'wordpiece.ts'), 'utf8').slice(0, 6000),
    ];
    for (const c of cases) assert.equal(wasm.countWithSpecials(c), ref.encode(c).length, JSON.stringify(c.slice(0, 80)));
    fc.assert(
      fc.property(longText, (s) => wasm.countWithSpecials(s) === ref.encode(s).length),
      { numRuns: 150 },
    );
  });

  it('counts every range and gives a sink the same segments as the JavaScript counter', () => {
    fc.assert(
      fc.property(longText, fc.nat(), fc.nat(), (s, a, b) => {
        const from = a % (s.length + 1);
        const to = Math.min(s.length, from + 96 + (b % 2000));
        assert.equal(wasm.count(s), js.count(s));
        assert.equal(wasm.countIn(s, from, to), js.countIn(s, from, to));
        assert.deepEqual(segmentsOf(wasm, s, from, to), segmentsOf(js, s, from, to));
        assert.deepEqual(segmentsOf(wasm, s, 0, s.length), segmentsOf(js, s, 0, s.length));
      }),
      { numRuns: 300 },
    );
  });

  it('counts the same when its table of words seen fills and is cleared again and again', () => {
    const small = new WordPieceCounter(tokenizerJson(), 'small', { wasmTableBits: 4 });
    assert.ok(small.usesWasm);
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,30}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 30, maxLength: 300 }), (words) => {
        const s = words.join(' ');
        return small.count(s) === js.count(s) && small.count(s) === js.count(s);
      }),
      { numRuns: 100 },
    );
  });

  it('counts a range larger than its memory holds at first (the memory grows)', () => {
    const big = fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'tokenizer', 'wordpiece.ts'), 'utf8').repeat(40);
    assert.ok(big.length > 1_000_000);
    assert.deepEqual(segmentsOf(wasm, big, 0, big.length), segmentsOf(js, big, 0, big.length));
    assert.equal(wasm.countIn(big, 17, big.length - 5), js.countIn(big, 17, big.length - 5));
  });

  it('counts the fixtures the same, file by file and segment by segment', () => {
    const root = path.join(__dirname, '..', 'fixtures');
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && fs.statSync(p).size < 2_000_000) files.push(p);
      }
    };
    walk(root);
    assert.ok(files.length > 100);
    for (const f of files) {
      const t = fs.readFileSync(f, 'utf8');
      assert.deepEqual(segmentsOf(wasm, t, 0, t.length), segmentsOf(js, t, 0, t.length), f);
    }
  });
});
