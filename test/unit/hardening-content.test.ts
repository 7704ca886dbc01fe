/**
 * Files mid-edit and tricky dictionaries: never a silent loss.
 * - a .vue file with an unclosed <template> or <script setup> is chunked (as text, with the reason)
 * - an i18n duplicate key whose first value is an object: by last-one-wins its keys are gone
 */
import { strict as assert } from 'node:assert';
import { chunkFile } from '../../src/chunkers/index';
import { I18nIndex } from '../../src/i18n/i18n-index';

describe('Vue: an unclosed block never yields 0 chunks silently', () => {
  const cases: Record<string, string> = {
    'unclosed <template>': '<template>\n  <div>{{ hello }}</div>\n\n<script setup>\nconst hello = "world";\nfunction greetLighthouse() { return hello; }\n</script>\n',
    'unclosed <script setup>': '<template>\n  <div>{{ hello }}</div>\n</template>\n\n<script setup>\nconst hello = "world";\nfunction greetLighthouse() { return hello; }\n',
    'both unclosed': '<template>\n  <div>{{ hello }}\n<script setup>\nfunction greetLighthouse() { return 1; }\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`${name}: every line of it is in a chunk, and the fallback says why`, () => {
      const r = chunkFile('src/Open.vue', text);
      assert.ok(r.chunks.length > 0, 'no chunks');
      assert.ok(!r.skipped);
      assert.ok(r.chunks.some((c) => c.text.includes('greetLighthouse')), 'the script text is lost');
      assert.ok(r.chunks.some((c) => c.text.includes('{{ hello }}')), 'the template text is lost');
      assert.match(r.fallback ?? '', /unclosed or unreadable block/);
      for (const c of r.chunks) assert.equal(text.slice(c.start.offset, c.end.offset), c.text);
    });
  }

  it('a recoverable error inside a closed block keeps the structural chunks (a warning)', () => {
    const text = '<template>\n  <div>{{ hello }}\n</template>\n<script>\nexport default { name: "KMap", methods: { zoomIn() { return 1; } } }\n</script>\n';
    const r = chunkFile('src/KMap.vue', text);
    assert.equal(r.fallback, undefined);
    assert.ok(r.warnings.some((w) => /recovered 1 SFC error/.test(w)));
    assert.ok(r.chunks.some((c) => c.kind === 'template'));
  });
});

describe('i18n: a duplicate key follows JSON last-one-wins, and is reported', () => {
  it('{"dup": {"a": "x"}, "dup": "flat"}: dup.a is gone, dup is "flat", the duplicate is a problem', () => {
    const index = new I18nIndex();
    index.setFile('locales/en.json', '{"dup": {"a": "x"}, "dup": "flat", "other": "y"}');
    index.setFile('locales/fr.json', '{"dup": "plat", "other": "z"}');
    const a = index.lookupKey('dup.a');
    assert.deepEqual(a.candidates.map((c) => c.key), [], `dup.a still answers: ${JSON.stringify(a.candidates.map((c) => c.locales.map((l) => l.value)))}`);
    const d = index.lookupKey('dup');
    assert.equal(d.candidates[0]?.locales.find((l) => l.locale === 'en')?.value, 'flat');
    const dup = [...a.problems, ...d.problems].find((p) => p.kind === 'duplicate' && p.file === 'locales/en.json');
    assert.ok(dup, `no duplicate reported: ${JSON.stringify(index.problems)}`);
    assert.match(dup.message, /key "dup" is defined twice.*the last one wins/);
  });

  it('the reverse: {"dup": "flat", "dup": {"a": "x"}} keeps dup.a and drops dup', () => {
    const index = new I18nIndex();
    index.setFile('locales/en.json', '{"dup": "flat", "dup": {"a": "x"}}');
    index.setFile('locales/fr.json', '{"dup": {"a": "y"}}');
    assert.equal(index.lookupKey('dup.a').candidates[0]?.locales.find((l) => l.locale === 'en')?.value, 'x');
    assert.ok(!index.lookupKey('dup').candidates.some((c) => c.key === 'dup' && c.locales.some((l) => l.value === 'flat')));
    assert.ok(index.problems.some((p) => p.kind === 'duplicate'));
  });

  it('the same in a JS locale module', () => {
    const index = new I18nIndex();
    index.setFile('src/locale/lang/en.js', 'export default { dup: { a: "x" }, dup: "flat", other: "y", more: "z" };\n');
    index.setFile('src/locale/lang/fr.js', 'export default { dup: "plat", other: "y2", more: "z2" };\n');
    assert.deepEqual(index.lookupKey('dup.a').candidates.map((c) => c.key), []);
    assert.ok(index.problems.some((p) => p.kind === 'duplicate' && /"dup" is defined twice/.test(p.message)));
  });
});

describe('deep and large inputs with the size cap raised: they complete, exactly, within budget', () => {
  const cap = { maxFileBytes: 64 << 20 };
  const exact = (text: string, r: ReturnType<typeof chunkFile>) => {
    assert.ok(r.chunks.length > 0);
    for (const c of r.chunks) {
      assert.equal(text.slice(c.start.offset, c.end.offset), c.text);
      assert.ok(c.tokens <= 256, `${c.tokens} tokens`);
    }
  };
  it('a 100,000-deep bracket JSON (no stack overflow: refused by depth, cut as text)', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    const r = chunkFile('deep.json', text, cap);
    exact(text, r);
    assert.match(r.fallback ?? '', /nesting deeper than/);
  });
  it('a truncated JSON array of 2 MB', () => {
    const big = JSON.stringify(Array.from({ length: 25_000 }, (_, i) => ({ id: i, name: `item ${i}`, nested: { deep: { value: i } } })));
    const text = big.slice(0, Math.floor(big.length * 0.9));
    const r = chunkFile('big.json', text, cap);
    assert.ok(r.chunks.length > 100);
    for (const c of r.chunks) assert.equal(text.slice(c.start.offset, c.end.offset), c.text);
  });
  it('a Markdown file with 20,000 headings', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `${'#'.repeat(1 + (i % 6))} Heading ${i}\n\nParagraph ${i}.\n`).join('\n');
    const r = chunkFile('many.md', text, cap);
    exact(text, r);
  });
});
