import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { referenceTokenizer, type Encoder } from '../helpers/reference-tokenizer';
import { DEFAULT_TABLES_FILE, defaultTokenCounter, encodeCounterTables, readCounterTables, resourcesDir, WordPieceCounter, writeDefaultCounterTables } from '../../src/tokenizer/wordpiece';

describe('WordPiece token counter', () => {
  let ref: Encoder;
  const counter = defaultTokenCounter();
  before(async () => {
    ref = await referenceTokenizer();
  });

  it('matches transformers.js on hand-picked hard cases', () => {
    const cases = [
      '',
      'Hello World',
      'getZoomControl() { return this.$t("KZoomControl.ZOOM_IN") }',
      "Café crème à l'été — naïve façade",
      '中文字符 and emoji 😀 x\u0001y',
      '[CLS] foo[SEP]bar [MASK][PAD][UNK]',
      'İstanbul ǅ ß ﬁ ΑΒΓ Ωmega',
      'a'.repeat(101),
      'a'.repeat(100),
      'x\uFEFFy \u200Bz \u00A0 nbsp',
      'snake_case_name kebab-case-name camelCaseName PascalCase',
      '\r\n\t  leading and trailing  \r\n',
      'lone \uD800 surrogate \uDC00',
      '\uFFFD replacement',
      'Ελληνικά Русский العربية हिन्दी 日本語のテキスト 한국어',
      '𠀀𠀁 extension B',
      '<template><div :class="{ vertical }">{{ $t(\'a.b\') }}</div></template>',
    ];
    for (const c of cases) assert.equal(counter.countWithSpecials(c), ref.encode(c).length, JSON.stringify(c));
  });

  it('matches transformers.js on arbitrary unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => counter.countWithSpecials(s) === ref.encode(s).length),
      { numRuns: 400 },
    );
  });

  it('matches transformers.js on words of other scripts (the whole-vocabulary tries): accents, Cyrillic, Greek, CJK, Devanagari, emoji, long words', () => {
    const unit = fc.constantFrom(...'éèàçñöüßøæœ жзщыЯБГ αβγΩ 中文字の日本 한국 हिन्दी ﬁ 😀 ab19'.split(/(?:)/u));
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 40 }), { maxLength: 6 }), (words) => {
        const s = words.join(' ');
        return counter.countWithSpecials(s) === ref.encode(s).length;
      }),
      { numRuns: 400 },
    );
  });

  it('matches transformers.js on code-like ASCII', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'abcXYZ019_$.,;:(){}[]<>=+-*/\'"`\\ \t\n\r#@!?&|^~%'.split('')), maxLength: 200 });
    fc.assert(fc.property(ascii, (s) => counter.countWithSpecials(s) === ref.encode(s).length), { numRuns: 300 });
  });

  it('matches transformers.js on words of every letter and digit: long identifiers, unknown pieces, words past 100 characters', () => {
    const alnum = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split(''));
    const word = fc.oneof(fc.string({ unit: alnum, minLength: 1, maxLength: 30 }), fc.string({ unit: alnum, minLength: 95, maxLength: 110 }));
    const text = fc.array(fc.tuple(word, fc.constantFrom(' ', '.', '_', '\n', '(', '-')), { maxLength: 12 }).map((ws) => ws.map(([w, sep]) => w + sep).join(''));
    fc.assert(fc.property(text, (s) => counter.countWithSpecials(s) === ref.encode(s).length), { numRuns: 400 });
    for (const s of ['getTokenFromCode', 'xmlhttprequestuploadprogressevent', 'zzzzqqqq', 'a1b2c3d4e5', 'Q'.repeat(100), 'Q'.repeat(101)]) {
      assert.equal(counter.countWithSpecials(s), ref.encode(s).length, s);
    }
  });

  it('matches transformers.js when a segment of printable ASCII turns out to hold another character', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'abXY09_.,()[]'.split('')), maxLength: 30 });
    const odd = fc.constantFrom('é', '中', '\u0001', '\u007f', '😀', '\u00a0', '[CLS]é');
    fc.assert(fc.property(ascii, odd, ascii, fc.constantFrom('', ' ', '\n'), (a, o, b, ws) => {
      const s = `${ws}${a}${o}${b}${ws}${a}`;
      return counter.countWithSpecials(s) === ref.encode(s).length;
    }), { numRuns: 300 });
  });

  it('takes the longest vocabulary piece first, whatever the continuation prefix (a small vocabulary against a plain greedy reference)', () => {
    for (const prefix of ['##', 'q']) {
      const tokens = ['[UNK]', 'a', 'ab', 'abc', 'b', 'bc', 'c', 'x9', `${prefix}a`, `${prefix}b`, `${prefix}bc`, `${prefix}c`, `${prefix}cab`, `${prefix}9`, 'qa', 'qqa', 'ж', 'жa', `${prefix}ж`, `${prefix}жж`, '😀', `${prefix}😀`, `${prefix}ж😀`];
      const vocab = Object.fromEntries(tokens.map((t, i) => [t, i]));
      const small = new WordPieceCounter({ model: { type: 'WordPiece', vocab, unk_token: '[UNK]', continuing_subword_prefix: prefix, max_input_chars_per_word: 12 }, added_tokens: [], normalizer: { type: 'BertNormalizer', lowercase: true } });
      // greedy longest match first, as transformers.js's WordPiece decoder of a pre-token
      const greedy = (w: string): number => {
        if ([...w].length > 12) return 1; // code points, as transformers.js counts them
        let i = 0;
        let n = 0;
        while (i < w.length) {
          let end = w.length;
          while (end > i && !((i === 0 ? w.slice(i, end) : prefix + w.slice(i, end)) in vocab)) end--;
          if (end === i) return 1;
          n++;
          i = end;
        }
        return n;
      };
      fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'q', '9', 'x', 'A', 'ж', 'Ж', '😀'), minLength: 1, maxLength: 14 }), (w) => small.count(w) === greedy(w.toLowerCase())), { numRuns: 500 });
    }
  });

  it('matches transformers.js around special tokens written in the text', () => {
    const parts = fc.constantFrom('[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]', '[CL', 'S]', '[', ']', 'é', 'x', ' ', '\n', '\u0001', '中');
    fc.assert(fc.property(fc.array(parts, { maxLength: 30 }), (ps) => {
      const s = ps.join('');
      return counter.countWithSpecials(s) === ref.encode(s).length;
    }), { numRuns: 300 });
  });

  it('matches transformers.js on the project\'s own sources and fixtures', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|vue|json|md|js|tsx)$/.test(e.name) && fs.statSync(p).size < 40_000) files.push(p);
      }
    };
    walk(path.join(__dirname, '..', '..', 'src'));
    walk(path.join(__dirname, '..', 'fixtures'));
    assert.ok(files.length > 10);
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      assert.equal(counter.countWithSpecials(text), ref.encode(text).length, f);
    }
  });

  it('is additive across whitespace, which line-table counting relies on', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.constantFrom(' ', '\n', '\r\n', '\t'), fc.string({ maxLength: 40 }), (a, ws, b) => {
        return counter.count(a + ws + b) === counter.count(a) + counter.count(b);
      }),
    );
  });

  it('counts the same when its word caches grow and when they fill up and are cleared', () => {
    const json = JSON.parse(fs.readFileSync(path.join(resourcesDir(), 'all-MiniLM-L6-v2', 'tokenizer.json'), 'utf8')) as ConstructorParameters<typeof WordPieceCounter>[0];
    // words of 2 to 12 tokens, so that a count kept for the wrong word shows
    const words = Array.from({ length: 3000 }, (_, i) => `${'zoomqx'.repeat(1 + (i % 5))}${(i * 7919).toString(36)}`);
    // each word again a few words later: found in the cache, also right after it was cleared
    const text = words.map((w, i) => `${w} ${words[Math.max(0, i - 5)]}.${words[Math.max(0, i - 40)]}`).join('\n');
    const expected = ref.encode(text).length;
    const fresh = new WordPieceCounter(json);
    assert.equal(fresh.countWithSpecials(text), expected);
    assert.equal(fresh.countWithSpecials(text), expected, 'again, from the caches');
    const limits = WordPieceCounter as unknown as { CACHE_LIMIT: number };
    const limit = limits.CACHE_LIMIT;
    limits.CACHE_LIMIT = 100; // every cache fills and is cleared many times over
    try {
      const small = new WordPieceCounter(json);
      assert.equal(small.countWithSpecials(text), expected);
      assert.equal(small.countWithSpecials(text), expected);
    } finally {
      limits.CACHE_LIMIT = limit;
    }
  });

  describe('made from the tables the build writes', () => {
    const jsonFile = path.join(resourcesDir(), 'all-MiniLM-L6-v2', 'tokenizer.json');
    const bytes = fs.readFileSync(jsonFile);
    let dir: string;
    let fromJson: WordPieceCounter;
    let fromTables: WordPieceCounter;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-tables-'));
      const file = writeDefaultCounterTables(dir);
      assert.equal(path.basename(file), DEFAULT_TABLES_FILE);
      fromJson = new WordPieceCounter(JSON.parse(bytes.toString('utf8')) as ConstructorParameters<typeof WordPieceCounter>[0]);
      const tables = readCounterTables(file, bytes);
      assert.ok(tables, 'the tables of this very tokenizer.json are read');
      fromTables = new WordPieceCounter(tables);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('counts as the counter made from tokenizer.json, and as transformers.js: any text, other scripts, special tokens, long words', () => {
      const unit = fc.constantFrom(...'abzXY09_.,;()[]{}$#@ \n\téèçßæ жЯ αΩ 中文の 한 ह ﬁ 😀'.split(/(?:)/u));
      const texts = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit, maxLength: 120 }), fc.constantFrom('[CLS] a[SEP]b [MASK]', 'x'.repeat(101), 'zoomqxzoomqx7f3k'));
      fc.assert(
        fc.property(texts, (s) => {
          const n = fromTables.countWithSpecials(s);
          return n === fromJson.countWithSpecials(s) && n === ref.encode(s).length;
        }),
        { numRuns: 500 },
      );
      // the sources and fixtures, as the chunkers count them
      for (const f of ['src/chunkers/javascript.ts', 'README.md', 'test/fixtures/json/locales/core_fr.json'].map((r) => path.join(__dirname, '..', '..', r))) {
        const text = fs.readFileSync(f, 'utf8');
        assert.equal(fromTables.countIn!(text, 0, text.length), fromJson.countIn!(text, 0, text.length), f);
      }
    });

    it('gives the same tables back (tries, vocabulary, settings)', () => {
      assert.deepEqual(fromTables.tables(), fromJson.tables());
    });

    it('reads tables only when they were made from the same tokenizer.json: another one, another file or none gives undefined; a damaged file throws', () => {
      const file = path.join(dir, DEFAULT_TABLES_FILE);
      const other = Buffer.from(bytes);
      other[other.length - 2] ^= 1;
      assert.equal(readCounterTables(file, other), undefined, 'a changed tokenizer.json');
      assert.equal(readCounterTables(file, bytes.subarray(1)), undefined, 'a tokenizer.json of another length');
      assert.equal(readCounterTables(path.join(dir, 'missing'), bytes), undefined);
      const junk = path.join(dir, 'junk');
      fs.writeFileSync(junk, 'not tables at all');
      assert.equal(readCounterTables(junk, bytes), undefined);
      const whole = fs.readFileSync(file);
      const cut = path.join(dir, 'cut');
      fs.writeFileSync(cut, whole.subarray(0, whole.length - 1000));
      assert.throws(() => readCounterTables(cut, bytes), /truncated/);
      fs.writeFileSync(cut, Buffer.concat([whole, Buffer.from('xx')]));
      assert.throws(() => readCounterTables(cut, bytes), /damaged/);
      // tries whose arrays do not fit together are refused when the counter is made
      const good = readCounterTables(file, bytes)!;
      assert.throws(() => new WordPieceCounter({ ...good, start: { ...good.start, vals: good.start.vals.subarray(1) } }), /bad token counter tables/);
      // encode/read again: the same bytes
      assert.deepEqual(encodeCounterTables(readCounterTables(file, bytes)!, bytes), whole);
    });
  });

  it('refuses a tokenizer it cannot count exactly', () => {
    assert.throws(
      () => new WordPieceCounter({ model: { type: 'BPE', vocab: {}, unk_token: '<unk>' }, added_tokens: [] }),
      /not WordPiece/,
    );
  });
});
