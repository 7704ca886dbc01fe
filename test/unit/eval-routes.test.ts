import { strict as assert } from 'node:assert';
import { findRegistrations } from '../../src/chunkers/javascript';
import { SEARCH_TERMS_META } from '../../src/chunkers/types';
import { Engine } from '../../src/index/engine';
import { mineGold } from '../../src/eval/mine';
import { evaluate, holdsSymbol } from '../../src/eval/evaluate';
import { prepareLanguagesFor } from '../../src/chunkers/treesitter';

/**
 * `fathom eval`'s registration route (`global registration of <name> (<Component>)` → the file
 * that registers it) and its schema route on real schema conventions (Formily's `x-component`,
 * inline `ui:widget`), and the chunk metadata that lets keyword search find both.
 */

// a plugin whose install function registers many components: the registration lines sit in the middle of a long function
const install = [
  "import { KPanel } from './components/KPanel';",
  "import { KLegend } from './components/KLegend';",
  'export function install(app, options = {}) {',
  ...Array.from({ length: 60 }, (_, i) => `  options.step${i} = options.step${i} ?? computeDefault(${i}, app.version); // setting ${i}`),
  "  app.component('k-panel', KPanel);",
  '  app.component("KLegend", KLegend).component(`KLegendItem`, KLegend.Item);',
  '  app.component(KMap.name, KMap);',
  "  app.component('k-inline', { render: () => null });",
  ...Array.from({ length: 60 }, (_, i) => `  app.provide('key${i}', options.step${i});`),
  '  return app;',
  '}',
].join('\n');

const files: Record<string, string> = {
  'src/plugin.js': install,
  'src/components/KPanel.js':
    "import { defineComponent, h } from 'vue';\n/** The panel beside the map. */\nexport const KPanel = defineComponent({\n  name: 'KPanel',\n  props: { title: String },\n  setup(props, { slots }) {\n    return () => h('section', { class: 'k-panel' }, [h('h2', props.title), slots.default?.()]);\n  },\n});\n",
  'src/components/KLegend.js': "export const KLegend = { name: 'KLegend', props: { items: Array } };\nKLegend.Item = { name: 'KLegendItem' };\n",
  // the component the query names: its file names it in symbol, path and header, but holds no "field"
  'src/components/Switch.js': "/** A switch: on or off. */\nexport function Switch(props) {\n  return { type: 'switch', enabled: props.enabled, size: props.size };\n}\n",
  'src/components/NumberPicker.js': "/** A number input that steps up and down. */\nexport function NumberPicker(props) {\n  return { type: 'number', size: props.size, step: props.step };\n}\n",
  // the other components and schemas of a small form app: they name sizes, fields and components too, and
  // their docs use the query's little words ("with"), as real docs do: no word of the query is rare by accident
  ...Object.fromEntries(
    ['Input', 'Select', 'Slider', 'Radio', 'DatePicker', 'Upload'].map((name) => [
      `src/components/${name}.js`,
      `/** The ${name.toLowerCase()} field component, with a label and a help text. */\nexport function ${name}(props) {\n  return { type: '${name.toLowerCase()}', size: props.size, disabled: props.disabled, value: props.value };\n}\n`,
    ]),
  ),
  ...Object.fromEntries(
    ['marker', 'legend', 'basemap'].map((name) => [
      `schemas/${name}.json`,
      JSON.stringify(
        {
          type: 'object',
          properties: {
            title: { type: 'string', title: 'Title', 'x-decorator': 'FormItem', 'x-component': 'Input' },
            visible: { type: 'boolean', title: 'Visible', 'x-decorator': 'FormItem', 'x-component': 'Switch' },
            [`${name}Size`]: { type: 'number', title: 'Size', 'x-decorator': 'FormItem', 'x-component': 'Slider' },
          },
        },
        null,
        2,
      ),
    ]),
  ),
  'schemas/layer.json': JSON.stringify(
    {
      type: 'object',
      properties: {
        enabled: { type: 'boolean', title: 'Enabled', 'x-decorator': 'FormItem', 'x-component': 'Switch' },
        size: { type: 'number', title: 'Size', 'x-decorator': 'FormItem', 'x-component': 'NumberPicker', 'x-component-props': { min: 0 } },
        note: { type: 'string', 'ui:widget': 'textarea' },
        label: { type: 'string' },
      },
    },
    null,
    2,
  ),
};

async function workspace(): Promise<Engine> {
  const e = new Engine({ noEmbedderReason: 'keyword-only test' });
  for (const [rel, text] of Object.entries(files)) await e.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
  return e;
}

describe('eval routes: registration and schema', () => {
  it('finds literal, chained, name-of and install-wrapper registrations, and no component in an inline definition', () => {
    const regs = findRegistrations(install).map((r) => [r.name, r.component, r.literal]);
    assert.deepEqual(regs, [
      ['k-panel', 'KPanel', true],
      ['KLegend', 'KLegend', true],
      ['KLegendItem', 'KLegend.Item', true],
      ['KMap', 'KMap', false],
    ]);
    assert.deepEqual(
      findRegistrations('export const ElButton = withInstall(Button, { ButtonGroup });\nVue.component("v-select", VueSelect)').map((r) => `${r.name} ${r.component}`),
      ['ElButton Button', 'v-select VueSelect'],
    );
    assert.deepEqual(findRegistrations('this.component("x")\nregisterComponent(app, Button)'), []);
  });

  it('the chunk holding a registration line carries the registration as search terms; a schema property its field and component', async () => {
    const e = await workspace();
    const reg = [...e.chunks].filter((c) => c?.path === 'src/plugin.js' && c.text.includes("app.component('k-panel', KPanel)"));
    assert.equal(reg.length, 1);
    assert.match(String(reg[0]!.meta?.[SEARCH_TERMS_META]), /^global registration k-panel KPanel$/m);
    const size = [...e.chunks].find((c) => c?.path === 'schemas/layer.json' && c.symbol === 'properties.size');
    assert.equal(size?.meta?.component, 'NumberPicker');
    assert.equal(size?.meta?.[SEARCH_TERMS_META], 'field size component NumberPicker');
    const note = [...e.chunks].find((c) => c?.path === 'schemas/layer.json' && c.symbol === 'properties.note');
    assert.equal(note?.meta?.component, 'textarea', 'an inline ui:widget names the component too');
    assert.equal([...e.chunks].find((c) => c?.symbol === 'properties.label')?.meta?.[SEARCH_TERMS_META], 'field label');
  });

  it('mines registration queries (literal names only) into their own route, and schema queries from x-component and ui:widget', async () => {
    const e = await workspace();
    const gold = mineGold(e);
    const reg = gold.filter((g) => g.route === 'registration');
    assert.deepEqual(reg.map((g) => g.query).sort(), ['global registration of k-panel (KPanel)', 'global registration of KLegend (KLegend)', 'global registration of KLegendItem (KLegend.Item)'].sort());
    for (const g of reg) assert.equal(g.file, 'src/plugin.js');
    assert.ok(!gold.some((g) => g.route === 'vue' && /k.panel \(k-panel\)/.test(g.query)), 'registrations are no longer mined into the vue route');
    const schema = gold.filter((g) => g.route === 'schema' && g.file === 'schemas/layer.json').map((g) => g.query).sort();
    assert.deepEqual(schema, ['field enabled with component Switch', 'field note with component textarea', 'field size with component NumberPicker']);
    assert.ok(gold.some((g) => g.query === 'field markerSize with component Slider' && g.file === 'schemas/marker.json'));
    assert.ok(!gold.some((g) => g.query === 'field title with component Input'), 'in three schemas: no gold query');
  });

  it('keyword search puts the registering chunk and the schema property first, over the component file the query names', async () => {
    const e = await workspace();
    const hits = await e.search('global registration of k-panel (KPanel)', { k: 5, mode: 'keyword' });
    assert.equal(hits[0]?.chunk.path, 'src/plugin.js', hits.map((h) => `${h.chunk.path}:${h.chunk.start.line}`).join(', '));
    assert.ok(hits[0].chunk.text.includes("app.component('k-panel', KPanel)"), 'the chunk holding the line');
    const field = await e.search('field enabled with component Switch', { k: 5, mode: 'keyword' });
    assert.equal(field[0]?.chunk.path, 'schemas/layer.json', field.map((h) => `${h.chunk.path} ${h.chunk.symbol}`).join(', '));
    assert.equal(field[0]?.chunk.symbol, 'properties.enabled');
    const report = await evaluate(e, mineGold(e), ['keyword']);
    assert.equal(report.keyword!.registration.hit5, 1);
    assert.equal(report.keyword!.schema.hit5, 1);
    // a wrong gold file scores 0: the route can fail
    const wrong = await evaluate(e, [{ query: 'global registration of k-panel (KPanel)', file: 'src/components/Upload.js', route: 'registration' }], ['keyword']);
    assert.equal(wrong.keyword!.registration.hit10, 0);
  });
});

describe('eval: sym_hit@5 reads the chunk with its breadcrumb header', () => {
  it('a Vue component whose text never names it is found in its header; a symbol no top-5 chunk holds scores 0', async () => {
    const e = new Engine({ noEmbedderReason: 'keyword-only test' });
    const sfc = '<template>\n  <div class="zoom">\n    <button @click="zoomIn">+</button>\n    <button @click="zoomOut">-</button>\n  </div>\n</template>\n\n<script setup>\nconst emit = defineEmits([\'zoom\']);\nfunction zoomIn() { emit(\'zoom\', 1); }\nfunction zoomOut() { emit(\'zoom\', -1); }\n</script>\n';
    const files: Record<string, string> = {
      'src/components/KZoomControl.vue': sfc,
      'src/map/layers.js': 'export function addLayer(map, layer) {\n  map.layers.push(layer);\n  return map;\n}\n',
    };
    for (const [rel, text] of Object.entries(files)) await e.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
    const chunks = [...e.chunks].filter((c) => c?.path === 'src/components/KZoomControl.vue');
    assert.ok(chunks.length && chunks.every((c) => !c!.text.includes('KZoomControl')), 'no chunk text names the component');
    assert.ok(chunks.some((c) => holdsSymbol(c!, 'KZoomControl')), chunks.map((c) => c!.header).join(' | '));
    const report = await evaluate(e, [{ query: 'zoom control (KZoomControl)', file: 'src/components/KZoomControl.vue', symbol: 'KZoomControl', route: 'vue' }], ['keyword']);
    assert.equal(report.keyword!.vue.hit5, 1);
    assert.equal(report.keyword!.vue.symHit5, 1);
    const absent = await evaluate(e, [{ query: 'zoom control (KZoomControl)', file: 'src/components/KZoomControl.vue', symbol: 'KPanControl', route: 'vue' }], ['keyword']);
    assert.equal(absent.keyword!.vue.symHit5, 0);
  });
});

describe('eval routes: the tree-sitter languages', () => {
  const code: Record<string, string> = {
    'pkg/store.py': 'import os\n\n\ndef load_layers(path):\n    """Reads the layers."""\n    return os.listdir(path)\n\n\ndef _private_helper(x):\n    return x\n\n\nclass LayerStore:\n    def get(self, name):\n        return name\n',
    'pkg/engine.go': 'package pkg\n\n// NewEngine makes an engine.\nfunc NewEngine() *Engine {\n\treturn &Engine{}\n}\n\nfunc newRouter() int {\n\treturn 1\n}\n\n// Engine serves.\ntype Engine struct {\n\tname string\n}\n',
    'src/lib.rs': '/// Parses a tile.\npub fn parse_tile(s: &str) -> usize {\n    s.len()\n}\n\nfn hidden_tile(s: &str) -> usize {\n    s.len() + 1\n}\n\n#[derive(Debug)]\npub struct TileCache {\n    size: usize,\n}\n',
    'src/Main.java': 'package x;\n\n/** The map. */\npublic class MapView {\n    public int zoom() { return 1; }\n}\n\nclass HiddenView {\n    int zoom() { return 2; }\n}\n',
  };

  it('mines the public top-level units of each language into a route of its own, `words (identifier)`', async () => {
    await prepareLanguagesFor(Object.keys(code));
    const e = new Engine({ noEmbedderReason: 'keyword-only test' });
    for (const [rel, text] of Object.entries(code)) await e.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
    const gold = mineGold(e);
    const by = (route: string) => gold.filter((g) => g.route === route).map((g) => [g.query, g.file, g.symbol]).sort();
    assert.deepEqual(by('python'), [['layer store (LayerStore)', 'pkg/store.py', 'LayerStore'], ['load layers (load_layers)', 'pkg/store.py', 'load_layers']]);
    assert.deepEqual(by('go'), [['engine (Engine)', 'pkg/engine.go', 'Engine'], ['new engine (NewEngine)', 'pkg/engine.go', 'NewEngine']]);
    assert.deepEqual(by('rust'), [['parse tile (parse_tile)', 'src/lib.rs', 'parse_tile'], ['tile cache (TileCache)', 'src/lib.rs', 'TileCache']]);
    assert.deepEqual(by('java'), [['map view (MapView)', 'src/Main.java', 'MapView']]);
    const report = await evaluate(e, gold, ['keyword']);
    assert.equal(report.keyword!.python.queries, 2);
    assert.equal(report.keyword!.go.hit5, 1);
  });
  it('mines a public type too large for one chunk (most Java classes), from the fragment or member chunk that holds its declaration', async () => {
    const methods = (n: number, indent: string, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i).replace(/^/gm, indent)).join('\n\n');
    const big: Record<string, string> = {
      'src/main/java/org/x/DocumentBuilder.java': `package org.x;\n\nimport java.util.List;\n\n/**\n * Builds documents from parts.\n * ${'More words about what the builder does and how. '.repeat(12)}\n */\npublic class DocumentBuilder {\n    private final List<String> parts;\n\n${methods(30, '    ', (i) => `/** Adds part ${i}. */\npublic DocumentBuilder part${i}(String value) {\n    parts.add(value + ${i});\n    if (value.isEmpty()) { throw new IllegalArgumentException("empty part ${i}"); }\n    return this;\n}`)}\n}\n`,
      'src/main/java/org/x/Hidden.java': `package org.x;\n\nclass HiddenBuilder {\n${methods(30, '    ', (i) => `int step${i}(int v) {\n    int w = v * ${i};\n    if (w > 100) { return w - ${i}; }\n    return w + ${i};\n}`)}\n}\n`,
      'src/Log/StreamHandler.php': `<?php\n\nnamespace App\\Log;\n\n/** Writes records to a stream. */\nclass StreamHandler\n{\n    public function write(array $record): void\n    {\n        fwrite($this->stream, $record['message']);\n    }\n}\n`,
      'src/Log/NullHandler.php': `<?php\n\nnamespace App\\Log;\n\n/**\n * Throws records away.\n${Array.from({ length: 14 }, (_, i) => ` * Note ${i}: what it does with level ${i}.`).join('\n')}\n */\nclass NullHandler extends Handler\n{\n${methods(30, '    ', (i) => `public function handle${i}(array $record): bool\n{\n    $level = $record['level'] ?? ${i};\n    return $level > ${i} && $this->accepts($record, ${i});\n}`)}\n}\n`,
      'pkg/render.py': `class TemplateRenderer:\n    """Renders templates.\n\n    ${'A long docstring line about rendering. '.repeat(20)}\n    """\n\n${methods(30, '    ', (i) => `def render_${i}(self, value):\n    total = value * ${i}\n    if total > 10:\n        return total - ${i}\n    return total + ${i}`)}\n`,
    };
    await prepareLanguagesFor(Object.keys(big));
    const e = new Engine({ noEmbedderReason: 'keyword-only test' });
    for (const [rel, text] of Object.entries(big)) await e.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
    // the classes were cut: no chunk is a whole class
    assert.ok(![...e.chunks].some((c) => c && /Builder$|Renderer$|NullHandler$/.test(c.symbol ?? '') && c.complete && !c.split));
    const gold = mineGold(e);
    const types = gold.filter((g) => /Builder$|Renderer$|Handler$/.test(g.symbol ?? '')).map((g) => [g.route, g.query, g.file]).sort();
    // PHP's units are named with their namespace (App.Log.StreamHandler): mined by their own name
    assert.deepEqual(types, [
      ['java', 'document builder (DocumentBuilder)', 'src/main/java/org/x/DocumentBuilder.java'],
      ['php', 'null handler (NullHandler)', 'src/Log/NullHandler.php'],
      ['php', 'stream handler (StreamHandler)', 'src/Log/StreamHandler.php'],
      ['python', 'template renderer (TemplateRenderer)', 'pkg/render.py'],
    ]);
  });

  it('an identifier defined in test code (a fixture, a helper class) is found there first, though test code ranks below its implementation', async () => {
    const files: Record<string, string> = {
      'src/runtime.py': 'class Context:\n    def derived(self, locals=None):\n        """A derived context with the example extension values."""\n        return new_context(self.environment, self.name, {}, self.get_all(), True, None, locals)\n',
      'src/nodes.py': 'class DerivedContextReference(Expr):\n    """The derived example extension reference: the current context."""\n',
      'tests/test_ext.py': 'class DerivedExampleExtension(ExampleExtension):\n    context_reference_node_cls = nodes.DerivedContextReference\n',
    };
    await prepareLanguagesFor(Object.keys(files));
    const e = new Engine({ noEmbedderReason: 'keyword-only test' });
    for (const [rel, text] of Object.entries(files)) await e.updateFile(rel, Buffer.from(text), { size: text.length, mtimeMs: 1 });
    const named = await e.search('derived example extension (DerivedExampleExtension)', { k: 3, mode: 'keyword' });
    assert.equal(named[0].chunk.path, 'tests/test_ext.py', named.map((h) => `${h.chunk.path} ${h.chunk.symbol}`).join(', '));
    // words alone: the implementation first, as before
    const words = await e.search('derived example extension context', { k: 3, mode: 'keyword' });
    assert.notEqual(words[0].chunk.path, 'tests/test_ext.py', words.map((h) => `${h.chunk.path} ${h.chunk.symbol}`).join(', '));
  });
});
