import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { chunkFile } from '../../src/chunkers/index';
import type { FileChunks } from '../../src/chunkers/types';
import { componentName, nameToWords, nuxtComponentName, vueBlockRanges } from '../../src/chunkers/vue';
import { checkBudget, checkCoverage, checkJsonParses, checkNoOverlap, checkPositions } from '../helpers/invariants';

const FIX = path.join(__dirname, '..', 'fixtures', 'vue');
const read = (f: string) => fs.readFileSync(path.join(FIX, f), 'utf8');
const brief = (r: FileChunks) => r.chunks.map((c) => [c.kind, c.symbol ?? null, c.start.line, c.end.line, c.meta?.block]);

/** Positions exact, no overlap, every block's content covered, no chunk straddling blocks. */
function assertVueInvariants(text: string, r: FileChunks, max = 256) {
  const blocks = vueBlockRanges(text);
  const v = [
    ...checkPositions(text, r.chunks),
    ...checkNoOverlap(r.chunks),
    ...checkJsonParses(r.chunks),
    ...checkBudget(r.chunks, max, (c) => c.kind === 'template'),
    // JSON inside <i18n> is covered leaf by leaf (see json.test.ts); every other block char by char
    ...blocks.filter((b) => b.block !== 'i18n').flatMap((b) => checkCoverage(text, r.chunks, b.start, b.end)),
  ];
  assert.deepEqual(v, [], v.join('\n'));
  for (const c of r.chunks) {
    assert.ok(blocks.some((b) => c.start.offset >= b.start && c.end.offset <= b.end), `chunk ${c.symbol} ${c.start.line}-${c.end.line} mixes blocks`);
  }
}

describe('Vue SFC chunker', () => {
  it('names components and expands them into words', () => {
    assert.equal(nameToWords('KZoomControl'), 'zoom control');
    assert.equal(nameToWords('XMLParser'), 'xml parser');
    assert.equal(nameToWords('k-zoom-control'), 'k zoom control');
    assert.equal(componentName('src/components/zoom-control.vue', ['export default { methods: {} }']), 'ZoomControl');
    assert.equal(componentName('src/Layers/index.vue', ['']), 'Layers');
    assert.equal(componentName('src/X.vue', ["export default {\n  name: 'KZoomControl',\n}"]), 'KZoomControl');
    assert.equal(componentName('src/X.vue', ["defineOptions({ name: 'KPanel' })"]), 'KPanel');
  });

  it("knows the name Nuxt registers a component under, from its folders below components/ (Nuxt's rule)", () => {
    assert.equal(nuxtComponentName('components/base/Button.vue'), 'BaseButton');
    assert.equal(nuxtComponentName('app/components/base/BaseButton.vue'), 'BaseButton', 'a folder the file name starts with is not repeated');
    assert.equal(nuxtComponentName('components/form/input/index.vue'), 'FormInput');
    assert.equal(nuxtComponentName('components/ui/data-table/DataTableRow.vue'), 'UiDataTableRow');
    assert.equal(nuxtComponentName('components/Button.vue'), undefined, 'directly under components/: the file name is the name');
    assert.equal(nuxtComponentName('src/views/Home.vue'), undefined);
    const chunks = chunkFile('components/base/Button.vue', '<template>\n  <button><slot /></button>\n</template>\n<script setup>\nconst emit = defineEmits([\'click\'])\n</script>\n').chunks;
    assert.ok(chunks.length >= 2);
    for (const c of chunks) {
      assert.equal(c.symbol, 'Button', 'the symbol stays the file\'s name');
      assert.deepEqual(c.meta?.alsoNamed, ['BaseButton']);
      assert.match(String(c.meta?.searchTerms), /BaseButton/);
    }
  });

  it('cuts a Vue 2 Options API component with mixins into its options entries', () => {
    const text = read('KZoomControl.vue');
    const r = chunkFile('src/components/KZoomControl.vue', text);
    assert.equal(r.category, 'options');
    assert.deepEqual(brief(r), [
      ['template', 'KZoomControl', 2, 10, 'template'],
      ['module', 'KZoomControl', 14, 15, 'script'],
      ['group', 'KZoomControl.{name, mixins}', 17, 19, 'script'],
      ['group', 'KZoomControl.props.{vertical, step}', 20, 23, 'script'],
      ['method', 'KZoomControl.data', 24, 26, 'script'],
      ['group', 'KZoomControl.computed.{canZoomIn, canZoomOut}', 27, 30, 'script'],
      ['method', 'KZoomControl.watch.zoom', 31, 33, 'script'],
      ['group', 'KZoomControl.methods.{zoomIn, zoomOut}', 34, 40, 'script'],
      ['method', 'KZoomControl.methods.onZoomEnd', 41, 44, 'script'],
      ['method', 'KZoomControl.mounted', 45, 47, 'script'],
      ['method', 'KZoomControl.beforeDestroy', 48, 51, 'script'],
      ['style', 'KZoomControl', 55, 58, 'style'],
    ]);
    assert.equal(r.chunks[0].header, '<!-- src/components/KZoomControl.vue — zoom control [template] -->');
    assert.equal(r.chunks[8].header, '<!-- src/components/KZoomControl.vue — zoom control [script] :: KZoomControl.methods.onZoomEnd -->');
    assert.ok(r.chunks[0].text.startsWith('<div class="k-zoom-control"'));
    assert.ok(r.chunks[11].text.startsWith('.k-zoom-control {'));
    assertVueInvariants(text, r);
  });

  it('gives each Options API method its own chunk when they are not small', () => {
    const body = (n: string) => Array.from({ length: 6 }, (_, i) => `      this.kActivity.${n}(${i}, this.options.step * ${i})`).join('\n');
    const text = `<template><div/></template>\n<script>\nexport default {\n  name: 'KZoomControl',\n  methods: {\n    zoomIn () {\n${body('zoomIn')}\n    },\n    zoomOut () {\n${body('zoomOut')}\n    }\n  }\n}\n</script>\n`;
    const r = chunkFile('KZoomControl.vue', text);
    const syms = r.chunks.map((c) => c.symbol);
    assert.ok(syms.includes('KZoomControl.methods.zoomIn'), syms.join(', '));
    assert.ok(syms.includes('KZoomControl.methods.zoomOut'));
    assertVueInvariants(text, r);
  });

  it('cuts Vue 3 <script setup lang="ts">, maps offsets back into the .vue file, and routes <i18n> to JSON', () => {
    const text = read('LayerPanel.vue');
    const r = chunkFile('src/LayerPanel.vue', text);
    assert.equal(r.category, 'script-setup');
    const script = r.chunks.filter((c) => c.meta?.block === 'script setup');
    assert.deepEqual(script.map((c) => [c.kind, c.symbol, c.start.line, c.end.line]), [
      ['module', 'LayerPanel', 2, 9],
      ['const', 'filteredLayers', 11, 15],
      ['function', 'toggleLayer', 17, 19],
    ]);
    assert.equal(script[2].text, text.slice(text.indexOf('function toggleLayer'), text.indexOf('}\n</script>') + 1));
    assert.equal(script[2].language, 'vue-ts');
    const i18n = r.chunks.filter((c) => c.meta?.block === 'i18n');
    assert.ok(i18n.length >= 1, 'the <i18n> block is chunked');
    assert.ok(i18n.every((c) => c.kind === 'i18n-section' || c.kind === 'i18n-labels'), JSON.stringify(i18n.map((c) => c.kind)));
    assertVueInvariants(text, r);
  });

  it('cuts a large <i18n> block into locale sections that each parse as JSON', () => {
    const keys = (lang: string) => Array.from({ length: 12 }, (_, i) => `      "LABEL_${i}": "${lang} label number ${i} for the layer panel"`).join(',\n');
    const text = `<template><p>{{ $t('LayerPanel.LABEL_0') }}</p></template>\n<i18n lang="json">\n{\n  "en": {\n    "LayerPanel": {\n${keys('English')}\n    }\n  },\n  "fr": {\n    "LayerPanel": {\n${keys('French')}\n    }\n  }\n}\n</i18n>\n`;
    const r = chunkFile('src/LayerPanel.vue', text, { maxTokens: 256 });
    const i18n = r.chunks.filter((c) => c.meta?.block === 'i18n');
    assert.ok(i18n.length >= 2, JSON.stringify(i18n.map((c) => c.symbol)));
    assert.ok(i18n.some((c) => c.symbol?.startsWith('en')) && i18n.some((c) => c.symbol?.startsWith('fr')), JSON.stringify(i18n.map((c) => c.symbol)));
    for (const c of i18n) assert.match(c.header, /^<!-- src\/LayerPanel\.vue — layer panel \[i18n\] :: (en|fr)/);
    assertVueInvariants(text, r);
  });

  it('falls back to text for a file that is not an SFC at all, and recovers from a missing end tag', () => {
    const garbage = '<<<< not vue >>>>\n{{{{';
    const g = chunkFile('bad.vue', garbage);
    assert.ok(g.chunks.length > 0);
    assert.ok(g.fallback || g.warnings.length, 'the problem is reported');
    const unclosed = '<template>\n  <div>\n</template>\n<script>\nexport default { name: "X" }\n</script>\n';
    const u = chunkFile('Unclosed.vue', unclosed);
    assert.ok(u.warnings.some((w) => /missing end tag/i.test(w)), JSON.stringify(u.warnings));
    assert.ok(u.chunks.some((c) => c.meta?.block === 'script'));
  });

  it('property: generated SFCs never mix blocks, keep exact offsets and cover every block', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const element: fc.Memo<string> = fc.memo((n) =>
      n <= 1
        ? fc.oneof(word, word.map((w) => `{{ ${w} }}`), word.map((w) => `<input :value="${w}" />`))
        : fc.tuple(fc.constantFrom('div', 'span', 'k-button', 'section'), fc.array(element(n - 1), { maxLength: 4 }), word, fc.boolean()).map(
            ([tag, kids, attr, multiline]) => `<${tag}${multiline ? `\n    class="${attr}"\n    :title="$t('${attr}')"\n` : ` class="${attr}"`}>\n${kids.join('\n')}\n</${tag}>`,
          ),
    );
    const method = fc.tuple(word, fc.integer({ min: 0, max: 12 })).map(([w, n]) => `    ${w}_${n} () {\n${Array.from({ length: n }, (_, i) => `      this.${w}(${i})`).join('\n')}\n    }`);
    const sfc = fc.tuple(element(4), fc.array(method, { maxLength: 8 }), fc.boolean(), fc.constantFrom('\n', '\r\n')).map(([tpl, methods, style, eol]) => {
      const uniq = [...new Set(methods)];
      const s = `<template>\n${tpl}\n</template>\n\n<script>\nexport default {\n  name: 'KGen',\n  methods: {\n${uniq.join(',\n')}\n  }\n}\n</script>\n${style ? '\n<style>\n.a { color: red; }\n\n.b { color: blue; }\n</style>\n' : ''}`;
      return s.replace(/\n/g, eol);
    });
    fc.assert(
      fc.property(sfc, fc.integer({ min: 64, max: 300 }), (text, max) => {
        const r = chunkFile('gen/KGen.vue', text, { maxTokens: max });
        assert.equal(r.fallback, undefined, r.fallback);
        assertVueInvariants(text, r, max);
      }),
      { numRuns: 120 },
    );
  });
});
