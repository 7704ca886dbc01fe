/**
 * The tools agents reach for beyond search (issue: answers that fit, tools agents reach for):
 * `read`, `definitions`, `references`, `files`, search modes exact / identifier / regex that
 * say "no match", and several folders (`folder`, an ambiguous bare path refused, one score
 * scale). Through the official SDK client over stdio against the built CLI.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, startMcp, type McpSession, type ToolResult } from '../helpers/mcp-client';
import { defaultTokenCounter } from '../../src/tokenizer/wordpiece';
import type { AgentFolder } from '../../src/agent/folder';
import { askedNames, describeTools, descriptions, folderWeights, inputShapes, leadingIndent, mayDefine } from '../../src/agent/tools';
import type { Chunk } from '../../src/chunkers/types';


const LONG_LINES = 400;
/** The last line of LayerStore in src/big/store.py (its last method's last line). */
const LAYER_STORE_END = 4 + 1 + 1 + 60 + 1 + 1 + 1 + 1 + 1 + 20 * 4 - 1;

function workspace(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(path.join(ROOT, 'sample-workspace'), dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}.fathom`) });
  fs.mkdirSync(path.join(dir, 'src', 'util'), { recursive: true });
  // `fn` as a whole identifier, and inside longer ones that must not match it
  fs.writeFileSync(path.join(dir, 'src', 'util', 'fn.js'), 'export const fn = (x) => x\n\nexport function callsFn () {\n  return fn(1) + fn_other(2) + myfn(3)\n}\n');
  fs.writeFileSync(path.join(dir, 'src', 'util', 'long.js'), Array.from({ length: LONG_LINES }, (_, i) => `export const value${i + 1} = ${i + 1} // line ${i + 1}`).join('\n') + '\n');
  // a unit whose doc comment names it
  fs.writeFileSync(path.join(dir, 'src', 'util', 'doc.js'), "/**\n * helperName returns the helper's name.\n */\nexport function helperName () {\n  return 'helper'\n}\n");
  // a composable exported anonymously: Nuxt auto-imports it by its file's name, useTileCache
  fs.mkdirSync(path.join(dir, 'src', 'composables'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', 'composables', 'use-tile-cache.ts'), 'export default function () {\n  const tiles = new Map<string, Blob>()\n  return { tiles }\n}\n');
  // a component Nuxt registers as <BaseButton> (its folder below components/ and its file name)
  fs.mkdirSync(path.join(dir, 'src', 'components', 'base'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', 'components', 'base', 'Button.vue'), '<template>\n  <button class="btn"><slot /></button>\n</template>\n');
  // constants the index keeps as module code (one line each, not exported; a Go `const ( … )` block)
  fs.writeFileSync(path.join(dir, 'src', 'util', 'limits.js'), '/** How long a tile stays cached, in ms. */\nconst TILE_TTL = 60_000\nconst RETRIES = 3\n\nexport function load (url) {\n  return fetch(url, { retries: RETRIES, ttl: TILE_TTL })\n}\n');
  fs.mkdirSync(path.join(dir, 'src', 'server'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', 'server', 'settings.py'), 'import os\n\n#: Default port of the server.\nDEFAULT_PORT = 8080\nMAX_WORKERS: int = 4\n\n\ndef serve(port=DEFAULT_PORT):\n    return port * MAX_WORKERS\n');
  fs.writeFileSync(path.join(dir, 'src', 'server', 'state.go'), 'package server\n\nconst (\n\tStateIdle = iota\n\tStateBusy\n)\n\nfunc Busy(s int) bool { return s == StateBusy }\n');
  // (at the folder's top: a short path leaves room in the parse's budget for two constants in one group)
  fs.writeFileSync(path.join(dir, 'cobra.go'), 'package cobra\n\nconst (\n\tdefaultPrefixMatching  = false\n\tdefaultCommandSorting  = true\n\tdefaultCaseInsensitive = false\n)\n');
  // a line on which (a+)+$ backtracks without end
  fs.writeFileSync(path.join(dir, 'src', 'util', 'aaa.js'), `export const aaa = '${'a'.repeat(60)}!'\n`);
  // containers too large for one chunk: a Python class with a long docstring (its own lines become
  // fragments named by it) and a TypeScript class whose declaration joins its first method's chunk
  fs.mkdirSync(path.join(dir, 'src', 'big'), { recursive: true });
  const doc = Array.from({ length: 60 }, (_, i) => `    option_${i}: what the layer store does with option ${i} when it loads tiles.`).join('\n');
  const pyMethods = Array.from({ length: 20 }, (_, i) => `    def load_${i}(self, tile):\n        """Loads tile kind ${i}."""\n        return self.cache.get(tile, ${i}) or self.fetch(tile, kind=${i})\n`).join('\n');
  fs.writeFileSync(path.join(dir, 'src', 'big', 'store.py'), `import os\n\n\nclass LayerStore(object):\n    """Keeps the layers of a map.\n\n${doc}\n    """\n\n    kind = 'layers'\n    parent: "LayerStore" = None\n\n${pyMethods}\n\ndef after():\n    return 1\n`);
  const tsMethods = Array.from({ length: 30 }, (_, i) => `  method${i}(a: number, b: string): string {\n    const x = a * ${i} + b.length;\n    return x > 10 ? b.repeat(${i}) : String(x) + ' widget ${i}';\n  }`).join('\n');
  fs.writeFileSync(path.join(dir, 'src', 'big', 'registry.ts'), `import { Base } from './base';\n\nexport class WidgetRegistry<T> extends Base {\n${tsMethods}\n}\n`);
  // a PHP class in a namespace (its units are named App.Log.NullHandler…), its declaration after a
  // long docblock, joined to its first method's chunk
  const docblock = Array.from({ length: 14 }, (_, i) => ` * Note ${i}: what the handler does with records of level ${i}.`).join('\n');
  const phpMethods = Array.from({ length: 30 }, (_, i) => `    public function handle${i}(array $record): bool\n    {\n        $level = $record['level'] ?? ${i};\n        return $level > ${i} && $this->accepts($record, '${'x'.repeat(i)}');\n    }`).join('\n\n');
  // a C typedef: the code uses its name (table_t), not its tag
  fs.writeFileSync(path.join(dir, 'src', 'big', 'table.h'), '#include <stddef.h>\n\ntypedef struct table {\n    size_t size;\n    void **slots;\n} table_t;\n\nint table_init(table_t *t);\n');
  // and a small one: the whole namespace is one chunk of the index
  fs.writeFileSync(path.join(dir, 'src', 'big', 'StreamHandler.php'), "<?php\n\nnamespace App\\Log;\n\n/** Writes records to a stream. */\nclass StreamHandler\n{\n    public function write(array $record): void\n    {\n        fwrite($this->stream, $record['message']);\n    }\n}\n");
  fs.writeFileSync(path.join(dir, 'src', 'big', 'NullHandler.php'), `<?php\n\nnamespace App\\Log;\n\n/**\n * Throws records away.\n *\n${docblock}\n */\nclass NullHandler extends Handler\n{\n${phpMethods}\n}\n`);
  return dir;
}

const counter = defaultTokenCounter();

async function open(dirs: string[]): Promise<{ client: Client; call: McpSession['call'] }> {
  const { client, call } = await startMcp(dirs);
  return { client, call };
}

describe('fathom mcp: read, definitions, references, files, exact search modes (SDK client)', function () {
  this.timeout(60_000);
  let dir: string;
  let client: Client;
  let call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

  before(async () => {
    dir = workspace('fathom-mcp-tools2-');
    ({ client, call } = await open([dir]));
  });
  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the new tools with their schemas', async () => {
    const { tools } = await client.listTools();
    for (const name of ['read', 'definitions', 'references', 'files']) {
      const t = tools.find((x) => x.name === name);
      assert.ok(t, name);
      assert.ok(t.outputSchema, `${name} has an output schema`);
      assert.ok('folder' in (t.inputSchema.properties ?? {}), `${name} takes folder`);
    }
    const search = tools.find((t) => t.name === 'search')!;
    assert.deepEqual((search.inputSchema.properties as Record<string, { enum?: string[] }>).mode.enum, ['hybrid', 'keyword', 'dense', 'exact', 'identifier', 'regex']);
    assert.match(String((search.inputSchema.properties as Record<string, { description?: string }>).query.description), /regex/);
  });

  it('search mode identifier: a name that does not exist is "no match", never sub-word noise', async () => {
    const none = await call('search', { query: 'SECRETDIRCANARY_fn', mode: 'identifier' });
    assert.ok(!none.isError, none.content[0].text);
    assert.match(none.content[0].text, /no match/);
    assert.deepEqual(none.structuredContent!.hits, []);
    // keyword search finds it through "fn"; the identifier mode does not
    const exact = await call('search', { query: 'SECRETDIRCANARY_fn', mode: 'exact' });
    assert.match(exact.content[0].text, /no match/);
    const fn = await call('search', { query: 'fn', mode: 'identifier' });
    const hits = fn.structuredContent!.hits as Array<{ path: string; lines: Array<{ line: number; text: string }> }>;
    assert.deepEqual(hits.map((h) => h.path), ['src/util/fn.js']);
    assert.deepEqual(hits[0].lines.map((l) => l.line), [1, 4]);
    assert.match(fn.content[0].text, /^1\. src\/util\/fn\.js:1 · .*\(2 matching lines\)\n {3}1: export const fn = \(x\) => x\n {3}4: return fn\(1\)/m);
  });

  it('search mode exact and regex: lines as written; a regex that backtracks without end is stopped and refused', async () => {
    const exact = await call('search', { query: 'this.map.setZoom(', mode: 'exact' });
    const e = exact.structuredContent!.hits as Array<{ path: string; lines: Array<{ line: number }> }>;
    assert.deepEqual(e.map((h) => [h.path, h.lines.map((l) => l.line)]), [['src/map/zoom.js', [22, 26]]]);
    const regex = await call('search', { query: 'getZoom(Control)?\\b', mode: 'regex', glob: 'src/map/**' });
    assert.ok(!regex.isError, regex.content[0].text);
    assert.deepEqual((regex.structuredContent!.hits as Array<{ lines: Array<{ line: number }> }>)[0].lines.map((l) => l.line), [6, 22, 26]);
    const bad = await call('search', { query: '(unclosed', mode: 'regex' });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /invalid regex/);
    const slow = await call('search', { query: '(a+)+$', mode: 'regex' });
    assert.equal(slow.isError, true);
    assert.match(slow.content[0].text, /ran over 2000 ms and was stopped/);
    // the server still answers
    const after = await call('search', { query: 'zoomIn', mode: 'identifier' });
    assert.ok(!after.isError);
  });

  it('definitions: the unit named exactly so, whole; its last name matches; a near name is no match', async () => {
    const d = await call('definitions', { symbol: 'getZoomControl' });
    assert.ok(!d.isError, d.content[0].text);
    assert.match(d.content[0].text, /^## src\/map\/zoom\.js:3-11 · function getZoomControl\n```js\n\/\*\*\n \* Returns the zoom control[^]*\nexport function getZoomControl[^]*\n {2}return map\._zoomControl\n\}\n```$/m);
    const m = await call('definitions', { symbol: 'zoomIn' });
    const defs = m.structuredContent!.definitions as Array<{ path: string; startLine: number; symbol: string }>;
    assert.deepEqual(defs.map((x) => [x.path, x.startLine, x.symbol]), [
      ['src/components/KZoomControl.vue', 34, 'KZoomControl.methods.zoomIn'],
      ['src/map/zoom.js', 21, 'ZoomControl.zoomIn'],
    ]);
    // a member of a whole unit (the class is one chunk) comes whole: its own lines only, the first
    // with its indentation as in the file (the unit's text starts at its first token)
    assert.match(m.content[0].text, /## src\/map\/zoom\.js:21-23 · method ZoomControl\.zoomIn\n```js\n {2}zoomIn \(\) \{\n.*\n {2}\}\n```/);
    const member = defs.find((x) => x.symbol === 'ZoomControl.zoomIn') as unknown as { text: string };
    assert.match(member.text, /^ {2}zoomIn \(\) \{\n/);
    const near = await call('definitions', { symbol: 'getZoom' });
    assert.ok(!near.isError);
    assert.match(near.content[0].text, /no match/);
    assert.deepEqual(near.structuredContent!.definitions, []);
  });

  it('definitions: an anonymous default export by the name its file gives it (use-tile-cache.ts: useTileCache), a Nuxt component by its registered name (BaseButton)', async () => {
    const d = await call('definitions', { symbol: 'useTileCache' });
    assert.ok(!d.isError, d.content[0].text);
    const defs = d.structuredContent!.definitions as Array<{ path: string; startLine: number; endLine: number; symbol: string }>;
    assert.deepEqual(defs.map((x) => [x.path, x.startLine, x.endLine, x.symbol]), [['src/composables/use-tile-cache.ts', 1, 4, 'useTileCache']]);
    // and a Nuxt component by the name Nuxt registers it under
    const b = await call('definitions', { symbol: 'BaseButton' });
    const found = b.structuredContent!.definitions as Array<{ path: string; kind: string; symbol: string }>;
    assert.deepEqual(found.map((x) => [x.path, x.kind, x.symbol]), [['src/components/base/Button.vue', 'template', 'Button']]);
  });

  it('definitions: a constant the index keeps as module code (a one-line Python assignment, a JS const not exported, a name of a Go const block), its doc comment with it', async () => {
    const cases: Array<[string, string, number, number, RegExp]> = [
      ['TILE_TTL', 'src/util/limits.js', 1, 2, /^\/\*\* How long a tile stays cached, in ms\. \*\/\nconst TILE_TTL = 60_000$/],
      ['RETRIES', 'src/util/limits.js', 3, 3, /^const RETRIES = 3$/],
      ['DEFAULT_PORT', 'src/server/settings.py', 3, 4, /^#: Default port of the server\.\nDEFAULT_PORT = 8080$/],
      ['MAX_WORKERS', 'src/server/settings.py', 5, 5, /^MAX_WORKERS: int = 4$/],
      ['StateBusy', 'src/server/state.go', 3, 6, /^const \(\n\tStateIdle = iota\n\tStateBusy\n\)$/],
    ];
    for (const [symbol, file, start, end, text] of cases) {
      const d = await call('definitions', { symbol });
      assert.ok(!d.isError, d.content[0].text);
      const defs = d.structuredContent!.definitions as Array<{ path: string; startLine: number; endLine: number; kind: string; text: string }>;
      assert.deepEqual(defs.map((x) => [x.path, x.startLine, x.endLine, x.kind]), [[file, start, end, 'const']], `${symbol}: ${d.content[0].text}`);
      assert.match(defs[0].text.trimEnd(), text, symbol);
    }
    // a block cut at the parse's budget: two small constants grouped (cobra.go's), each found in the group
    for (const [symbol, line] of [['defaultPrefixMatching', 4], ['defaultCommandSorting', 5], ['defaultCaseInsensitive', 6]] as const) {
      const d = await call('definitions', { symbol });
      const defs = d.structuredContent!.definitions as Array<{ path: string; startLine: number; endLine: number }>;
      assert.deepEqual(defs.map((x) => [x.path, x.startLine <= line && line <= x.endLine]), [['cobra.go', true]], `${symbol}: ${d.content[0].text}`);
    }
    // its uses are not definitions of it
    const r = await call('references', { symbol: 'TILE_TTL' });
    assert.ok(!r.isError, r.content[0].text);
    assert.match(r.content[0].text, /const TILE_TTL = 60_000\s+\(definition\)/);
    assert.doesNotMatch(r.content[0].text, /ttl: TILE_TTL.*\(definition\)/);
    // a Go block's spec with no value of its own (after an iota)
    const g = await call('references', { symbol: 'StateBusy' });
    assert.match(g.content[0].text, /\n\s*5: StateBusy\s+\(definition\)/);
    assert.doesNotMatch(g.content[0].text, /return s == StateBusy.*\(definition\)/);
  });

  it('definitions: a qualified name as the language writes it (Type::member, Type#member, module::name) finds the unit; a type that is not it does not', async () => {
    for (const symbol of ['ZoomControl::zoomIn', 'ZoomControl#zoomIn', 'ZoomControl.zoomIn', 'map::ZoomControl::zoomIn']) {
      const d = await call('definitions', { symbol });
      assert.ok(!d.isError, d.content[0].text);
      const defs = d.structuredContent!.definitions as Array<{ path: string; startLine: number; symbol: string }>;
      assert.deepEqual(defs.map((x) => [x.path, x.startLine, x.symbol]), [['src/map/zoom.js', 21, 'ZoomControl.zoomIn']], symbol);
    }
    const fn = await call('definitions', { symbol: 'zoom::getZoomControl' });
    assert.deepEqual((fn.structuredContent!.definitions as Array<{ symbol: string }>).map((x) => x.symbol), ['getZoomControl']);
    const other = await call('definitions', { symbol: 'LayerStore::zoomIn' });
    assert.match(other.content[0].text, /no match: no unit is named "LayerStore::zoomIn"/);
  });

  it('definitions: a namespaced unit (PHP) by its name, its namespace path (App\\Log\\NullHandler) or a tail of it (Log.NullHandler), its declaration found past a long docblock', async () => {
    for (const symbol of ['NullHandler', 'App\\Log\\NullHandler', 'Log.NullHandler']) {
      const d = await call('definitions', { symbol });
      assert.ok(!d.isError, d.content[0].text);
      const defs = d.structuredContent!.definitions as Array<{ path: string; kind: string; symbol: string; startLine: number }>;
      assert.deepEqual(defs.map((x) => [x.path, x.kind, x.symbol]), [['src/big/NullHandler.php', 'class', 'App.Log.NullHandler']], symbol);
      assert.match(d.content[0].text, /```php\n[^]*\nclass NullHandler extends Handler\n/, symbol);
    }
    // a class within one chunk of the index (its namespace's): whole, from the namespace line
    const small = await call('definitions', { symbol: 'App\\Log\\StreamHandler' });
    const sd = small.structuredContent!.definitions as Array<{ path: string; kind: string; symbol: string; startLine: number; endLine: number; text: string }>;
    assert.deepEqual(sd.map((x) => [x.path, x.kind, x.symbol, x.startLine, x.endLine]), [['src/big/StreamHandler.php', 'class', 'App.Log.StreamHandler', 3, 12]]);
    assert.match(sd[0].text, /^namespace App\\Log;\n[^]*\nclass StreamHandler\n\{\n[^]*fwrite[^]*\n\}$/);
    const m = await call('definitions', { symbol: 'NullHandler::handle7' });
    // a C struct by its typedef name, and by its tag
    for (const symbol of ['table_t', 'table']) {
      const t = await call('definitions', { symbol });
      assert.deepEqual((t.structuredContent!.definitions as Array<{ path: string; kind: string; startLine: number }>).map((x) => [x.path, x.kind, x.startLine]), [['src/big/table.h', 'struct', 3]], symbol);
    }
    assert.match((await call('references', { symbol: 'table_t' })).content[0].text, / {3}6: \} table_t; {2}\(definition\)/);
    assert.deepEqual((m.structuredContent!.definitions as Array<{ symbol: string }>).map((x) => x.symbol), ['App.Log.NullHandler.handle7']);
  });

  it('definitions: a class cut into its members is found whole, from its declaration to its last member, shown by its head', async () => {
    const cases: Array<[string, string, number, number, RegExp]> = [
      ['LayerStore', 'src/big/store.py', 4, LAYER_STORE_END, /^## src\/big\/store\.py:4-\d+ · class LayerStore\n```python\nclass LayerStore\(object\):\n {4}"""Keeps the layers of a map\./m],
      ['WidgetRegistry', 'src/big/registry.ts', 3, 124, /^## src\/big\/registry\.ts:3-124 · class WidgetRegistry\n```ts\nexport class WidgetRegistry<T> extends Base \{\n {2}method0\(/m],
    ];
    for (const [name, file, startLine, endLine, head] of cases) {
      const d = await call('definitions', { symbol: name });
      assert.ok(!d.isError, d.content[0].text);
      const defs = d.structuredContent!.definitions as Array<{ path: string; kind: string; startLine: number; endLine: number; symbol: string }>;
      assert.deepEqual(defs.map((x) => [x.path, x.kind, x.symbol, x.startLine, x.endLine]), [[file, 'class', name, startLine, endLine]]);
      assert.match(d.content[0].text, head);
    }
    // its members stay definitions of their own; a kind filter applies to the container's declared kind
    const m = await call('definitions', { symbol: 'load_3' });
    assert.deepEqual((m.structuredContent!.definitions as Array<{ symbol: string }>).map((x) => x.symbol), ['LayerStore.load_3']);
    const fn = await call('definitions', { symbol: 'LayerStore', kind: 'function' });
    assert.deepEqual(fn.structuredContent!.definitions, []);
    // references mark its declaration as the definition, not a later piece's use (a field typed by it)
    const refs = await call('references', { symbol: 'LayerStore' });
    const lines = (refs.structuredContent!.hits as Array<{ path: string; lines: Array<{ line: number }> }>).find((h) => h.path === 'src/big/store.py')!.lines.map((l) => l.line);
    assert.deepEqual(lines, [4, 70]);
    assert.match(refs.content[0].text, /^ {3}4: class LayerStore\(object\): {2}\(definition\)$/m);
    assert.match(refs.content[0].text, /^ {3}70: parent: "LayerStore" = None$/m);
  });

  it('search: a class cut in pieces is one hit, shown from its declaration, naming the lines that ranked it', async () => {
    const s = await call('search', { query: 'layer store option 45 tiles', detail: 'chunks', k: 5 });
    assert.ok(!s.isError, s.content[0].text);
    const hits = s.structuredContent!.hits as Array<{ path: string; startLine: number; endLine: number; symbol?: string; why: { rankedBy?: { startLine: number; endLine: number } } }>;
    const mine = hits.filter((h) => h.path === 'src/big/store.py' && h.symbol === 'LayerStore');
    assert.equal(mine.length, 1, JSON.stringify(hits.map((h) => [h.path, h.symbol, h.startLine])));
    assert.equal(mine[0].startLine, 4, 'from the class declaration');
    const option45 = 4 + 1 + 1 + 45 + 1;
    const r = mine[0].why.rankedBy!;
    assert.ok(r && r.startLine <= option45 && option45 <= r.endLine, JSON.stringify(mine[0].why));
    assert.match(s.content[0].text, new RegExp(`^## 1\\. src/big/store\\.py:4-\\d+ · fragment LayerStore.*\\nwhy: .*ranked by lines ${r.startLine}-${r.endLine}`, 'm'));
  });

  it('references: every line holding the symbol as a whole identifier, the definition marked; none is "no match"', async () => {
    const r = await call('references', { symbol: 'ZoomControl' });
    assert.ok(!r.isError, r.content[0].text);
    const hits = r.structuredContent!.hits as Array<{ path: string; lines: Array<{ line: number }> }>;
    // KZoomControl (the Vue component) holds ZoomControl only inside a longer name
    assert.deepEqual(hits.map((h) => [h.path, h.lines.map((l) => l.line)]), [['src/map/zoom.js', [8, 13]]]);
    assert.match(r.content[0].text, / {3}13: export class ZoomControl \{ {2}\(definition\)/);
    // the definition is the line that declares it, not the doc comment above it that names it
    const doc = await call('references', { symbol: 'helperName' });
    assert.match(doc.content[0].text, / {3}2: \* helperName returns the helper's name\.\n {3}4: export function helperName \(\) \{ {2}\(definition\)/);
    const none = await call('references', { symbol: 'SECRETDIRCANARY_fn' });
    assert.match(none.content[0].text, /no match/);
    // a class cut into its members, its declaration joined to its first member's chunk: that file
    // first, the declaration marked (a PHP class after its docblock, a TypeScript class)
    const php = await call('references', { symbol: 'NullHandler' });
    assert.equal((php.structuredContent!.hits as Array<{ path: string }>)[0].path, 'src/big/NullHandler.php');
    assert.match(php.content[0].text, / {3}23: class NullHandler extends Handler {2}\(definition\)/);
    // a member asked with its type: that type's member is the definition (not KZoomControl's zoomIn)
    const both = await call('references', { symbol: 'zoomIn' });
    assert.equal((both.content[0].text.match(/\(definition\)/g) ?? []).length, 2);
    const typed = await call('references', { symbol: 'ZoomControl::zoomIn' });
    assert.equal((typed.content[0].text.match(/\(definition\)/g) ?? []).length, 1);
    assert.equal((typed.structuredContent!.hits as Array<{ path: string }>)[0].path, 'src/map/zoom.js');
    const ts = await call('references', { symbol: 'WidgetRegistry' });
    assert.match(ts.content[0].text, / {3}3: export class WidgetRegistry<T> extends Base \{ {2}\(definition\)/);
  });

  it('read: a line range of a file; cut to the budget at a line with where to go on; outside the folder and links out refused', async () => {
    const r = await call('read', { path: 'src/map/zoom.js', startLine: 6, endLine: 7 });
    assert.ok(!r.isError, r.content[0].text);
    assert.equal(r.content[0].text, '## src/map/zoom.js:6-7 (of 28 lines)\n```js\nexport function getZoomControl (map, options = {}) {\n  if (!map._zoomControl) {\n```');
    const cut = await call('read', { path: 'src/util/long.js', maxTokens: 200 });
    const s = cut.structuredContent as { endLine: number; nextStartLine: number; tokens: number; totalLines: number };
    assert.ok(s.tokens <= 200 && counter.count(cut.content[0].text) <= 200, String(s.tokens));
    assert.equal(s.totalLines, LONG_LINES);
    assert.ok(s.endLine > 1 && s.endLine < LONG_LINES);
    assert.equal(s.nextStartLine, s.endLine + 1);
    assert.match(cut.content[0].text, new RegExp(`call again with startLine ${s.nextStartLine}`));
    const next = await call('read', { path: 'src/util/long.js', startLine: s.nextStartLine, maxTokens: 200 });
    assert.match(next.content[0].text, new RegExp(`export const value${s.nextStartLine} = `));
    const outside = await call('read', { path: '../../../etc/passwd' });
    assert.equal(outside.isError, true);
    assert.match(outside.content[0].text, /outside the open folder/);
    const past = await call('read', { path: 'src/map/zoom.js', startLine: 999 });
    assert.match(past.content[0].text, /past the end of src\/map\/zoom\.js \(28 lines\)/);
    // a file of the index replaced by a link out of the folder: refused, the target never shown
    const secret = path.join(os.tmpdir(), `fathom-secret-${process.pid}.txt`);
    fs.writeFileSync(secret, 'TOPSECRETCONTENT\n');
    try {
      fs.rmSync(path.join(dir, 'src', 'util', 'aaa.js'));
      fs.symlinkSync(secret, path.join(dir, 'src', 'util', 'aaa.js'));
      const link = await call('read', { path: 'src/util/aaa.js' });
      assert.equal(link.isError, true, link.content[0].text);
      assert.doesNotMatch(link.content[0].text, /TOPSECRET/);
    } finally {
      fs.rmSync(secret, { force: true });
    }
  });

  it('files: by glob, in path order, with the total; cut to the budget and paged with no overlap; a bad glob refused', async () => {
    const vue = await call('files', { glob: '*.vue' });
    assert.deepEqual((vue.structuredContent!.files as Array<{ path: string }>).map((f) => f.path), ['src/components/KZoomControl.vue', 'src/components/LayerPanel.vue', 'src/components/base/Button.vue']);
    assert.match(vue.content[0].text, /^3 indexed file\(s\) match \*\.vue/);
    const all = await call('files', {});
    const total = all.structuredContent!.total as number;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 50; i++) {
      const page = await call('files', { maxTokens: 100, ...(cursor ? { cursor } : {}) });
      assert.ok((page.structuredContent!.tokens as number) <= 100);
      seen.push(...(page.structuredContent!.files as Array<{ path: string }>).map((f) => f.path));
      cursor = page.structuredContent!.nextCursor as string | undefined;
      if (!cursor) break;
    }
    assert.equal(seen.length, total);
    assert.equal(new Set(seen).size, total);
    assert.deepEqual(seen, [...seen].sort());
    const none = await call('files', { glob: 'nothing/**' });
    assert.match(none.content[0].text, /no match/);
    const bad = await call('files', { glob: '[' });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /invalid glob/);
  });
});

describe('fathom mcp: several folders (SDK client)', function () {
  this.timeout(90_000);
  let a: string;
  let b: string;
  let one: Awaited<ReturnType<typeof open>>;
  let two: Awaited<ReturnType<typeof open>>;

  before(async () => {
    a = workspace('fathom-mcp-a-');
    b = workspace('fathom-mcp-b-');
    // b holds one more file, so the folders' keyword statistics differ
    fs.writeFileSync(path.join(b, 'src', 'map', 'pan.js'), 'export function panTo (map, x, y) {\n  map.setCenter(x, y)\n}\n');
    one = await open([a]);
    two = await open([a, b]);
  });
  after(async () => {
    await one?.client.close();
    await two?.client.close();
    fs.rmSync(a, { recursive: true, force: true });
    fs.rmSync(b, { recursive: true, force: true });
  });

  it('a bare path both folders hold is refused with the candidates; folder (name or path) says which', async () => {
    const amb = await two.call('read', { path: 'src/map/zoom.js', startLine: 1, endLine: 1 });
    assert.equal(amb.isError, true);
    assert.match(amb.content[0].text, new RegExp(`is in 2 open folders: give folder \\(one of "${path.basename(a)}", "${path.basename(b)}"\\)`));
    const ctx = await two.call('context', { path: 'src/map/zoom.js', line: 7 });
    assert.equal(ctx.isError, true);
    const byName = await two.call('read', { path: 'src/map/zoom.js', startLine: 1, endLine: 1, folder: path.basename(b) });
    assert.ok(!byName.isError, byName.content[0].text);
    assert.equal(byName.structuredContent!.folder, b);
    const byPath = await two.call('context', { path: 'src/map/zoom.js', line: 7, folder: a });
    assert.ok(!byPath.isError, byPath.content[0].text);
    assert.equal(byPath.structuredContent!.folder, a);
    // a file only one folder holds needs no folder
    const only = await two.call('read', { path: 'src/map/pan.js' });
    assert.ok(!only.isError, only.content[0].text);
    // a bare path no folder holds: said of every folder, not of the first one
    const none = await two.call('context', { path: 'src/map/nowhere.js', line: 1 });
    assert.equal(none.isError, true);
    assert.match(none.content[0].text, /^src\/map\/nowhere\.js is not indexed in any of the open folders \(/);
    assert.ok(none.content[0].text.includes(a) && none.content[0].text.includes(b), none.content[0].text);
    const unknown = await two.call('search', { query: 'zoom', folder: 'nowhere' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, new RegExp(`no open folder is "nowhere": the folders are ${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('several folders: each weighed by the share of the query its best hit holds, squared, the best folder 1', () => {
    const chunk = (text: string, p: string) => ({ text, path: p }) as Chunk;
    // "zoom", "control", "map": all three in the first folder's best hit, "map" alone (in its path) in the second's
    assert.deepEqual(folderWeights('zoom control of the map', [chunk('export function zoomControl () {}', 'src/map/zoom.js'), chunk('function pan () {}', 'map/pan.js')]), [1, (1 / 3) ** 2]);
    assert.deepEqual(folderWeights('zoom control of the map', [chunk('x', 'a.js'), chunk('zoom', 'b.js')]), [0, 1]);
    // nothing to weigh by: one folder, no hit, no term of the query anywhere, a query of stop words
    assert.deepEqual(folderWeights('zoom', [chunk('zoom', 'a.js')]), [1]);
    assert.deepEqual(folderWeights('zoom', [undefined, undefined]), [1, 1]);
    assert.deepEqual(folderWeights('zoom', [chunk('pan', 'a.js'), chunk('tilt', 'b.js')]), [1, 1]);
  });

  it('several folders: a folder whose best hit holds none of the query comes after one whose best holds it', async () => {
    const s = await two.call('search', { query: 'panTo map center' });
    const hits = s.structuredContent!.hits as Array<{ folder: string; path: string; score: number }>;
    assert.deepEqual([hits[0].folder, hits[0].path, hits[0].score], [b, 'src/map/pan.js', 1]);
    assert.ok(hits.filter((h) => h.folder === a).every((h) => h.score < 1), JSON.stringify(hits.slice(0, 4)));
  });

  it('folder filters every tool to one folder', async () => {
    const files = await two.call('files', { glob: 'src/map/**', folder: path.basename(b) });
    assert.deepEqual((files.structuredContent!.files as Array<{ folder: string; path: string }>).map((f) => [f.folder, f.path]), [[b, 'src/map/pan.js'], [b, 'src/map/zoom.js']]);
    const s = await two.call('search', { query: 'zoom control', folder: path.basename(a), detail: 'chunks' });
    const hits = s.structuredContent!.hits as Array<{ folder: string }>;
    assert.ok(hits.length > 0);
    assert.ok(hits.every((h) => h.folder === a));
    const st = await two.call('status', { folder: b });
    assert.deepEqual((st.structuredContent!.folders as Array<{ root: string }>).map((f) => f.root), [b]);
  });

  it('scores are on one scale (0 to 1, the best hit of a folder 1) with one folder and with several, documented in the schema', async () => {
    for (const detail of ['chunks', 'files']) {
      const single = (await one.call('search', { query: 'zoom control', detail, k: 5 })).structuredContent!.hits as Array<{ score: number }>;
      const both = (await two.call('search', { query: 'zoom control', detail, k: 10 })).structuredContent!.hits as Array<{ folder: string; score: number }>;
      assert.equal(single[0].score, 1, detail);
      assert.ok(single.every((h) => h.score > 0 && h.score <= 1), `${detail}: ${single.map((h) => h.score).join(', ')}`);
      assert.ok(both.every((h) => h.score > 0 && h.score <= 1), `${detail}: ${both.map((h) => h.score).join(', ')}`);
      // each folder's best is 1, and the answer is in score order
      for (const root of [a, b]) assert.equal(Math.max(...both.filter((h) => h.folder === root).map((h) => h.score)), 1, `${detail} ${root}`);
      assert.deepEqual(both.map((h) => h.score), [...both.map((h) => h.score)].sort((x, y) => y - x));
    }
    // the text says the same score as the structured hit
    const chunks = await two.call('search', { query: 'zoom control', detail: 'chunks', k: 3 });
    const scores = [...chunks.content[0].text.matchAll(/^why: .*\(score ([\d.]+)\)$/gm)].map((m) => Number(m[1]));
    assert.deepEqual(scores, (chunks.structuredContent!.hits as Array<{ score: number }>).map((h) => Number(h.score.toFixed(2))));
    const { tools } = await two.client.listTools();
    const search = tools.find((t) => t.name === 'search')!;
    assert.match(search.description!, /Scores are on one scale, 0 to 1/);
  });
});

describe('tool descriptions say what the server does now', () => {
  const folder = (keywordOnlyReason?: string) => ({ state: () => ({ keywordOnlyReason }) }) as unknown as AgentFolder;

  it("with the model (the default): hybrid with Fathom's own model, no download; without: keyword search only, with the reason", () => {
    const withModel = describeTools([folder()]);
    assert.match(withModel.search.description, /hybrid search: keywords fused with Fathom's own embedding model, which ships with Fathom and needs no download/);
    assert.match(withModel.similar.description, /Fathom's own embedding model/);
    const without = describeTools([folder('--no-embed was given')]);
    assert.match(without.search.description, /by name and words \(keyword search only on this server: no embedding model; over structure-aware chunks/);
    assert.doesNotMatch(without.search.description, /Fathom's own embedding model/);
    assert.match(without.search.description, /Keyword-only here: --no-embed was given\.$/);
    // the schema's words an LLM can use: characters, and context needs a line or a range
    assert.match(String(inputShapes.read.maxTokens.description), /about 4 characters of text per token/);
    assert.match(descriptions.context.description, /^Needs path and a line \(or startLine and endLine\)/);
  });
});

describe('askedNames: the names a symbol asked for answers to', () => {
  it('reads ::, # and -> as a dot, drops a qualifier of modules, keeps a type', () => {
    assert.deepEqual(askedNames('Arg::new'), { names: ['Arg::new', 'Arg.new'], leaf: 'new' });
    assert.deepEqual(askedNames('std::fs::read_to_string').names, ['std::fs::read_to_string', 'std.fs.read_to_string', 'fs.read_to_string', 'read_to_string']);
    assert.deepEqual(askedNames('jinja2.Environment'), { names: ['jinja2.Environment', 'Environment'], leaf: 'Environment' });
    assert.deepEqual(askedNames('Foo#bar').names, ['Foo#bar', 'Foo.bar']);
    assert.deepEqual(askedNames('(*Engine).ServeHTTP'), { names: ['(*Engine).ServeHTTP', 'Engine.ServeHTTP'], leaf: 'ServeHTTP' });
    assert.deepEqual(askedNames('(gin.Engine).Use').names, ['(gin.Engine).Use', 'gin.Engine.Use', 'Engine.Use']);
    assert.deepEqual(askedNames('Monolog\\Handler\\NullHandler'), { names: ['Monolog\\Handler\\NullHandler', 'Monolog.Handler.NullHandler'], leaf: 'NullHandler' });
    assert.deepEqual(askedNames('getZoom'), { names: ['getZoom'], leaf: 'getZoom' });
  });
});

describe('leadingIndent: a unit shown from its first line, as the file has it', () => {
  const src = 'class A:\n    def f(self):\n        pass\n\tdef g(): pass\nx = def_h()\n';
  const folder = (text: string | undefined) => ({ root: '/w', readFile: () => (text === undefined ? { ok: false } : { ok: true, decoded: { text } }) }) as unknown as AgentFolder;
  const at = (token: string) => {
    const offset = src.indexOf(token);
    const column = offset - (src.lastIndexOf('\n', offset - 1) + 1);
    return { start: { line: 0, column, offset }, text: src.slice(offset, offset + 12) };
  };
  it('the whitespace in front (spaces or a tab); nothing where code precedes, the file changed or unreadable, or the unit starts its line', () => {
    const f = at('def f');
    assert.equal(leadingIndent(folder(src), 'a.py', f.start, f.text, new Map()), '    ');
    const g = at('def g');
    assert.equal(leadingIndent(folder(src), 'a.py', g.start, g.text, new Map()), '\t');
    const h = at('def_h');
    assert.equal(leadingIndent(folder(src), 'a.py', h.start, h.text, new Map()), '');
    assert.equal(leadingIndent(folder(src.replace('def f', 'def F')), 'a.py', f.start, f.text, new Map()), '');
    assert.equal(leadingIndent(folder(undefined), 'a.py', f.start, f.text, new Map()), '');
    const a = at('class A');
    assert.equal(leadingIndent(folder(src), 'a.py', a.start, a.text, new Map()), '');
  });
});

describe('mayDefine: a line that may declare the name (before a file is parsed again for members)', () => {
  it('declarations in several languages; uses and comments are not', () => {
    const yes: Array<[string, string]> = [
      ['  zoomIn () {', 'zoomIn'],
      ['    public int Load(const char* f) {', 'Load'],
      ['    def load(self, tile):', 'load'],
      ['func (e *Engine) ServeHTTP(w http.ResponseWriter, req *http.Request) {', 'ServeHTTP'],
      ['  async fetch(url, options = {}) {', 'fetch'],
      ['    fun run() {', 'run'],
      ['  run: function () {', 'run'],
      ['  run = () => {', 'run'],
      ['    pub fn new(id: impl Into<Id>) -> Self {', 'new'],
      ['    static <T> T pick(List<T> items) {', 'pick'],
      ['    def renew!(amount)', 'renew!'],
      ['    def active?', 'active?'],
      ['    def self.start_trial(customer, plan, days: 14)', 'start_trial'],
      // constants and variables: the parse again (with every declaration a unit) decides
      ['const TILE_TTL = 60_000', 'TILE_TTL'],
      ['var retries int', 'retries'],
      ['MAX_RETRIES = 3', 'MAX_RETRIES'],
      ['MAX_RETRIES: int = 3', 'MAX_RETRIES'],
      ['\tStateIdle = iota', 'StateIdle'],
      ['\tStateBusy', 'StateBusy'],
      ['\tretries int // how many', 'retries'],
    ];
    for (const [line, name] of yes) assert.ok(mayDefine(line, name), line);
    const no: Array<[string, string]> = [
      ['    this.zoomIn(3);', 'zoomIn'],
      ['    zoomIn(3)', 'zoomIn'],
      ['  const c = new Compiler(options)', 'Compiler'],
      ['  if (zoomIn(x)) {', 'zoomIn'],
      ['  // zoomIn () {', 'zoomIn'],
      ['   * @param {Compiler} compiler the compiler', 'Compiler'],
      // a longer name, or the name without its mark, is another method
      ['    def renewal(amount)', 'renew'],
      ['    def renew!(amount)', 'renew'],
      ['    def active', 'active?'],
      ['    if MAX_RETRIES == 3:', 'MAX_RETRIES'],
      ['  const ttl = TILE_TTL * 2', 'TILE_TTL'],
      ['\treturn StateBusy', 'StateBusy'],
    ];
    for (const [line, name] of no) assert.ok(!mayDefine(line, name), line);
  });
});
