import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { CompoundScanner, compoundsInWasm, packCompounds, terms } from '../../src/index/terms';
import { wasmOrWarn } from '../../src/util/wasm';

/**
 * The keyword index's compound scanner in WebAssembly (assembly/compounds.ts, built into
 * dist/fathom-compounds.wasm by `npm run build`) against the JavaScript scanner: texts of 32
 * characters or more are scanned in WebAssembly.
 */
const pieces = fc.constantFrom(
  ...'aZ09_$.-/ ,;:()[]{}"\'`\t\n'.split(''),
  'getZoomControl', 'src/map/zoom.js', 'k-text-field', 'a..b', '-x-', 'v1.2', '/',
  'Dézoomer', 'naïve', 'ＡＢＣ', '中文字符', 'ひらがな', '한국어', 'Ελληνικά', 'Русский', 'हिन्दी', '١٢٣', 'ǅ', '\u0301',
  '😀', '𝐀𝐁', '\uD800', '\uDC00', '\uD83D', 'x\uD800y', '\u00a0', '\u200b', '\ufeff', 'ｱ', '〜', 'ー',
);
const text = fc.array(pieces, { minLength: 8, maxLength: 200 }).map((a) => a.join(''));

describe('compound scanner in WebAssembly', () => {
  it('is what packCompounds uses once the build has run (npm run build writes dist/fathom-compounds.wasm)', () => {
    assert.ok(compoundsInWasm(), 'dist/fathom-compounds.wasm is missing or did not load: run `npm run build`');
  });

  it('packs the same triples as the JavaScript scanner, whatever the characters', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), (texts) => {
        const chunks = texts.map((t) => ({ text: t }));
        assert.deepEqual(packCompounds(chunks), packCompounds(chunks, { wasm: false }));
      }),
      { numRuns: 300 },
    );
  });

  it('finds what terms() reads: the terms of the text are the terms of its compounds, in order', () => {
    fc.assert(
      fc.property(text, (t) => {
        const packed = packCompounds([{ text: t }]);
        const n = packed[0];
        assert.equal(packed.length, 1 + 3 * n);
        const fromCompounds: string[] = [];
        for (let k = 0; k < n; k++) fromCompounds.push(...terms(t.slice(packed[1 + 3 * k], packed[2 + 3 * k])));
        assert.deepEqual(fromCompounds, terms(t));
        const js = new CompoundScanner();
        assert.equal(js.scan(t), n);
      }),
      { numRuns: 200 },
    );
  });

  it('packs the fixtures the same, chunk by chunk, a text larger than its memory at first included', () => {
    const root = path.join(__dirname, '..', 'fixtures');
    const chunks: Array<{ text: string }> = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && fs.statSync(p).size < 2_000_000) {
          const t = fs.readFileSync(p, 'utf8');
          for (let i = 0; i < t.length; i += 900) chunks.push({ text: t.slice(i, i + 1000) });
        }
      }
    };
    walk(root);
    assert.ok(chunks.length > 500);
    chunks.push({ text: chunks.map((c) => c.text).join('\n').slice(0, 1_500_000) });
    assert.deepEqual(packCompounds(chunks), packCompounds(chunks, { wasm: false }));
  });
});

describe('a WebAssembly module that cannot be set up', () => {
  it('leaves the work to JavaScript, with a warning that says why', async () => {
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    assert.equal(wasmOrWarn(() => { throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded'); }), undefined);
    assert.match((await warned).message, /Fathom: a WebAssembly module could not be set up \(WebAssembly\.Memory\.grow\(\): Maximum memory size exceeded\): its work is done in JavaScript/);
    assert.equal(wasmOrWarn(() => 7), 7);
  });
});
