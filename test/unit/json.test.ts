/**
 * The JSON chunker: category detection, the cut of each category on realistic fixtures
 * (exact chunks), the invariants on generated JSON / JSONC, and the bad inputs (malformed,
 * empty, 10,000 levels deep, top-level scalar, duplicate keys).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import * as jsonc from 'jsonc-parser';
import { ChunkContext } from '../../src/chunkers/context';
import { chunkFile, resolveOptions, type Chunk, type ChunkOptions, type FileChunks } from '../../src/chunkers/index';
import {
  chunkJsonRange,
  classifyJson,
  DEFAULT_JSON_CATEGORIES,
  isLocaleName,
  isNaturalLanguage,
  jsonPathSymbol,
} from '../../src/chunkers/json';
import { MAX_JSON_DEPTH } from '../../src/parse/json-tree';
import { checkAll, checkBudget, checkCoverage, checkNoOverlap, checkPositions } from '../helpers/invariants';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'json');
const ALL_CATEGORIES = ['schema', 'i18n', 'manifest', 'fixture', 'docs-meta', 'config', 'other'];

function fixture(rel: string): string {
  return fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `kind symbol startLine-endLine`, one string per chunk: what the exact expectations compare. */
function outline(r: FileChunks): string[] {
  return r.chunks.map((c) => `${c.kind} ${c.symbol} ${c.start.line}-${c.end.line}`);
}

function bySymbol(r: FileChunks, symbol: string): Chunk[] {
  return r.chunks.filter((c) => c.symbol === symbol);
}

function wrapped(c: Chunk): string {
  const wrap = (c.meta?.jsonWrap as string | undefined) ?? '';
  return wrap ? `${wrap[0]}${c.text}${wrap[1]}` : c.text;
}

/**
 * A chunk may go over budget only when it cannot be cut: a whole schema property (one member),
 * or a single scalar leaf (a long string), with or without its key.
 */
function oversizeAllowed(c: Chunk): boolean {
  if (c.meta?.unbreakable !== true) return false;
  const wrap = c.meta.jsonWrap as string;
  const node = jsonc.parseTree(wrapped(c), [], { allowTrailingComma: false, disallowComments: false });
  if (!node) return false;
  let single: jsonc.Node | undefined = node;
  if (wrap === '{}') single = node.children?.length === 1 ? node.children[0].children?.[1] : undefined;
  else if (wrap === '[]') single = node.children?.length === 1 ? node.children[0] : undefined;
  if (!single) return false;
  if (c.kind === 'schema-property') return true;
  return (single.type !== 'object' && single.type !== 'array') || !single.children?.length;
}

/** Every scalar leaf of the (BOM-less) source lies inside some chunk. */
function checkLeafCoverage(source: string, r: FileChunks): string[] {
  const text = withoutBom(source);
  const root = jsonc.parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (!root) return [];
  const spans = r.chunks.map((c) => [c.start.offset, c.end.offset] as const).sort((a, b) => a[0] - b[0]);
  const inside = (s: number, e: number) => {
    let lo = 0;
    let hi = spans.length - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid][0] <= s) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best >= 0 && spans[best][1] >= e;
  };
  const out: string[] = [];
  const stack: jsonc.Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'object' || n.type === 'array' || n.type === 'property') {
      const kids = n.type === 'property' ? n.children?.slice(1) : n.children;
      for (const k of kids ?? []) stack.push(k);
      continue;
    }
    if (!inside(n.offset, n.offset + n.length)) {
      out.push(`leaf ${JSON.stringify(text.slice(n.offset, n.offset + 30))} at offset ${n.offset} is in no chunk`);
      if (out.length >= 3) break;
    }
  }
  return out;
}

/** The invariants of a structural JSON result (no fallback). */
function violations(source: string, r: FileChunks, maxTokens: number): string[] {
  const out = checkAll(source, r, maxTokens, { coverage: false, mayExceed: oversizeAllowed });
  const indexed = !r.skipped && !r.fallback && r.category !== 'manifest';
  if (indexed) out.push(...checkLeafCoverage(source, r));
  for (const c of r.chunks) {
    if (c.header !== `// ${r.path} :: ${c.symbol}`) out.push(`${c.id}: header ${JSON.stringify(c.header)}`);
    if (c.meta?.category !== r.category) out.push(`${c.id}: meta.category ${String(c.meta?.category)} ≠ ${r.category}`);
    if (c.meta?.unbreakable && !oversizeAllowed(c)) out.push(`${c.id} (${c.symbol}) is marked unbreakable but is not a single leaf or property`);
  }
  return out;
}

/** The invariants of a result that went to the text chunker (its chunks are not JSON). */
function fallbackViolations(source: string, r: FileChunks, maxTokens: number): string[] {
  const text = withoutBom(source);
  return [
    ...checkPositions(text, r.chunks),
    ...checkNoOverlap(r.chunks),
    ...checkCoverage(text, r.chunks),
    ...checkBudget(r.chunks, maxTokens),
  ];
}

function chunk(p: string, text: string, options: ChunkOptions = {}): FileChunks {
  const r = chunkFile(p, text, options);
  const max = options.maxTokens ?? 256;
  assert.deepEqual(r.fallback ? fallbackViolations(text, r, max) : violations(text, r, max), []);
  return r;
}

describe('JSON chunker', () => {
  describe('classifyJson', () => {
    const tree = (text: string) => jsonc.parseTree(text, [], { allowTrailingComma: true });
    const schema = tree('{"type":"object","properties":{"a":{"type":"string"}}}');
    const labels = tree('{"save":"Save","cancel":"Cancel","welcome":"Welcome back, {name}!","intro":{"title":"Getting started"}}');
    const data = tree('{"id":3,"tags":["a","b"],"enabled":true}');

    it('recognises schemas by content and by path', () => {
      assert.equal(classifyJson('schemas/events/create.json', schema), 'schema');
      assert.equal(classifyJson('src/anything.json', schema), 'schema');
      assert.equal(classifyJson('src/x.json', tree('{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"string"}}}')), 'schema');
      assert.equal(classifyJson('schemas/form.json', tree('{"properties":{"a":{"field":{"component":"KTextField"}}}}')), 'schema');
      // An instance that points at its schema is not a schema.
      assert.equal(classifyJson('biome.json', tree('{"$schema":"https://biomejs.dev/schemas/1.5.3/schema.json","linter":{"enabled":true}}')), 'config');
      assert.equal(classifyJson('data/x.json', tree('{"$schema":"./x.schema.json","name":"x","items":[1,2]}')), 'other');
    });

    it('recognises i18n dictionaries by locale name, locale folder and string-leaf shape', () => {
      for (const p of ['en.json', 'src/i18n/en-US.json', 'lang/pt_BR.json', 'locales/core_fr.json', 'messages.de.json', 'locales/de/common.json', 'i18n/fr/forms.json', 'lang/en/validation.json', 'package.nls.ja.json', 'public/locales/zh-Hans/app.json']) {
        assert.equal(classifyJson(p, labels), 'i18n', p);
      }
      assert.equal(classifyJson('src/strings.json', labels), 'i18n'); // shape alone
      assert.equal(classifyJson('en.json', data), 'other'); // a locale name, but not a dictionary
      assert.equal(classifyJson('src/theme/colors.json', tree('{"primary":"blue","accent":"red","muted":"grey"}')), 'other');
    });

    it('recognises manifests, fixtures, config and docs by path', () => {
      assert.equal(classifyJson('package.json', data), 'manifest');
      assert.equal(classifyJson('packages/core/composer.json', data), 'manifest');
      for (const p of ['test/fixtures/x.json', 'tests/data.json', 'src/__tests__/payload.json', 'src/__mocks__/api.json', 'spec/response.json', 'mocks/users.json', 'cypress/fixtures/en.json', 'src/api/user.mock.json']) {
        assert.equal(classifyJson(p, labels), 'fixture', p);
      }
      for (const p of ['tsconfig.json', 'tsconfig.app.json', 'jsconfig.json', '.eslintrc.json', '.babelrc', 'babel.config.json', '.prettierrc', '.prettierrc.json', '.vscode/settings.json', '.vscode/launch.json', 'tasks.json', 'extensions.json', 'test/tsconfig.json', '.mocharc.json']) {
        assert.equal(classifyJson(p, data), 'config', p);
      }
      for (const p of ['docs/sidebar.json', 'typedoc.json', 'src/components/button.meta.json', 'pages/_meta.json', 'sidebars.json', 'vetur/tags.json', 'web-types.json', 'dist/attributes.json']) {
        assert.equal(classifyJson(p, data), 'docs-meta', p);
      }
      assert.equal(classifyJson('docs/locales/en.json', labels), 'i18n');
      assert.equal(classifyJson('data/stations.json', data), 'other');
      assert.equal(classifyJson('broken.json', undefined), 'other');
    });

    it('knows locale names and natural language', () => {
      for (const s of ['en', 'en-US', 'pt_BR', 'zh-Hans', 'zh_Hant_TW', 'es-419', 'core_fr', 'messages.de', 'app-en', 'sr_Latn', 'sr-Cyrl-RS', 'core_zh_Hans']) assert.ok(isLocaleName(s), s);
      for (const s of ['index', 'data', 'config', 'db', 'tsconfig', 'main', 'core_xx', 'schema', 'my_conf', 'my_data', 'en_core', 'de_test']) assert.ok(!isLocaleName(s), s);
      for (const s of ['Save', 'Nothing to show yet', 'Événements', 'Annuler', '保存']) assert.ok(isNaturalLanguage(s), s);
      for (const s of ['string', 'KTextField', 'https://example.org', './src/*', '1.0.0', 'onClick', 'las la-fire']) {
        assert.equal(isNaturalLanguage(s), s === 'las la-fire', s);
      }
    });

    it('exports the default categories', () => {
      assert.deepEqual([...DEFAULT_JSON_CATEGORIES], ['schema', 'i18n', 'docs-meta', 'config', 'other']);
    });
  });

  describe('symbols', () => {
    it('joins key paths with dots, indexes in brackets, quotes awkward keys', () => {
      assert.equal(jsonPathSymbol([]), '(root)');
      assert.equal(jsonPathSymbol(['common', 'buttons', 'save']), 'common.buttons.save');
      assert.equal(jsonPathSymbol(['items', 3, 'name']), 'items[3].name');
      assert.equal(jsonPathSymbol(['dependencies', 'lodash.debounce']), 'dependencies["lodash.debounce"]');
      assert.equal(jsonPathSymbol(['paths', '@/*']), 'paths.@/*');
    });
  });

  describe('JSON Schema', () => {
    const text = fixture('schemas/events/create.json');
    const p = 'schemas/events/create.json';

    it('gives one chunk per property, never cut, each nested property its own unit', () => {
      const r = chunk(p, text);
      assert.equal(r.category, 'schema');
      assert.deepEqual(r.warnings, []);
      assert.deepEqual(outline(r), [
        'schema $schema…required 2-7',
        'schema-property properties.title 9-18',
        'schema-property properties.category 19-37',
        'schema-property properties.description 38-45',
        'schema-property properties.startDate 46-53',
        'schema-property properties.email 54-54',
        'schema-property properties.location 56-62',
        'schema-property properties.location.properties.address 64-70',
        'schema-property properties.location.properties.city 71-77',
        'schema-property properties.location.properties.latitude 78-86',
        'schema-property properties.location.properties.longitude 87-95',
        'schema-property properties.location 97-97',
        'schema-property properties.notes 99-105',
        'schema-property definitions.contact 108-114',
        'schema additionalProperties 116-116',
      ]);
      const [email] = bySymbol(r, 'properties.email');
      assert.equal(email.text, '"email": { "type": "string", "field": { "component": "KTextField" } }');
      assert.equal(email.header, '// schemas/events/create.json :: properties.email');
      assert.equal(email.complete, true);
      assert.deepEqual(email.meta, { category: 'schema', jsonWrap: '{}', component: 'KTextField', searchTerms: 'field email component KTextField' });
      // a definition is no field: no search terms
      assert.equal(bySymbol(r, 'definitions.contact')[0].meta?.searchTerms, undefined);
      assert.deepEqual(
        r.chunks.filter((c) => c.meta?.component).map((c) => `${c.symbol}=${String(c.meta?.component)}`),
        [
          'properties.title=KTextField',
          'properties.category=KSelectField',
          'properties.description=KTextareaField',
          'properties.startDate=KDateTimeField',
          'properties.email=KTextField',
          'properties.location=KLocationField',
          'properties.location.properties.address=KTextField',
          'properties.location.properties.city=KTextField',
          'properties.location.properties.latitude=KNumberField',
          'properties.location.properties.longitude=KNumberField',
          'properties.location=KLocationField',
          'properties.notes=KTextareaField',
        ],
      );
    });

    it('keeps a property over budget whole rather than cutting it', () => {
      const r = chunk(p, text);
      const [category] = bySymbol(r, 'properties.category');
      assert.ok(category.tokens > 256, `${category.tokens} tokens`);
      assert.equal(category.complete, true);
      assert.equal(category.meta?.unbreakable, true);
      assert.ok(category.text.startsWith('"category": {') && category.text.endsWith('}'));
      assert.equal(category.split, undefined);
    });

    it('cuts a property with nested properties into its own members and each nested property', () => {
      const r = chunk(p, text);
      const own = bySymbol(r, 'properties.location');
      assert.deepEqual(own.map((c) => [c.complete, c.split, c.meta?.keys]), [
        [false, { index: 0, total: 2 }, ['type', 'description', 'field']],
        [false, { index: 1, total: 2 }, undefined],
      ]);
      assert.equal(own[1].text, '"required": ["city"]');
      const city = bySymbol(r, 'properties.location.properties.city')[0];
      assert.equal(city.parent, 'properties.location');
      assert.equal(city.complete, true);
      assert.equal(city.header, '// schemas/events/create.json :: properties.location.properties.city');
    });

    it('cuts nested properties recursively on a small budget and still parses everything', () => {
      const r = chunk(p, text, { maxTokens: 64 });
      assert.ok(bySymbol(r, 'definitions.contact.properties.phone').length === 1);
      assert.ok(bySymbol(r, 'properties.location.properties.latitude').every((c) => c.kind === 'schema-property'));
    });
  });

  describe('i18n dictionaries', () => {
    it('gives one chunk per top-level section and groups loose labels (core_en.json)', () => {
      const text = fixture('locales/core_en.json');
      const r = chunk('locales/core_en.json', text);
      assert.equal(r.category, 'i18n');
      assert.deepEqual(outline(r), [
        'i18n-labels save…title 2-5',
        'i18n-section common 6-18',
        'i18n-section events.list 20-24',
        'i18n-section events.form.sections 26-62',
        'i18n-section events.form.submit…discard 63-64',
        'i18n-section map 67-75',
        'i18n-labels footer 76-76',
      ]);
      const [labels] = r.chunks;
      assert.deepEqual(labels.meta?.keys, ['save', 'cancel', 'delete', 'title']);
      assert.equal(labels.header, '// locales/core_en.json :: save…title');
      assert.equal(labels.text, '"save": "Save",\n  "cancel": "Cancel",\n  "delete": "Delete",\n  "title": "Crisis map"');
      assert.equal(r.chunks[1].complete, true);
      // The events section is over budget: its pieces say so.
      assert.deepEqual(
        r.chunks.filter((c) => c.parent === 'events').map((c) => [c.complete, c.split?.index, c.split?.total]),
        [[false, 0, 3], [false, 1, 3], [false, 2, 3]],
      );
    });

    it('cuts seven levels deep on a small budget', () => {
      const r = chunk('locales/core_en.json', fixture('locales/core_en.json'), { maxTokens: 96 });
      assert.deepEqual(outline(r), [
        'i18n-labels save…title 2-5',
        'i18n-section common.buttons 7-12',
        'i18n-section common.messages 13-17',
        'i18n-section events.list 20-24',
        'i18n-section events.form.sections.details.fields.title 29-36',
        'i18n-section events.form.sections.details.fields.category 37-43',
        'i18n-section events.form.sections.details.fields.description 44-47',
        'i18n-section events.form.sections.location 50-61',
        'i18n-section events.form.submit…discard 63-64',
        'i18n-section map 67-75',
        'i18n-labels footer 76-76',
      ]);
      const title = bySymbol(r, 'events.form.sections.details.fields.title')[0];
      assert.ok(title.text.includes('"tooLong": "The title must be shorter than 120 characters"'));
      assert.equal(title.header, '// locales/core_en.json :: events.form.sections.details.fields.title');
      const tiny = chunk('locales/core_en.json', fixture('locales/core_en.json'), { maxTokens: 40 });
      assert.ok(tiny.chunks.some((c) => c.symbol === 'events.form.sections.details.fields.title.errors.required…tooLong' || c.symbol === 'events.form.sections.details.fields.title.errors.required'));
    });

    it('cuts the French twin along the same keys (core_fr.json)', () => {
      const r = chunk('locales/core_fr.json', fixture('locales/core_fr.json'));
      assert.equal(r.category, 'i18n');
      assert.deepEqual(outline(r), [
        'i18n-labels save…title 2-5',
        'i18n-section common 6-18',
        'i18n-section events.list 20-24',
        'i18n-section events.form.sections.details 27-49',
        'i18n-section events.form.sections.location 50-61',
        'i18n-section events.form.submit…discard 63-64',
        'i18n-section map 67-75',
        'i18n-labels footer 76-76',
      ]);
      assert.ok(bySymbol(r, 'events.list')[0].text.includes('"title": "Événements"'));
    });
  });

  describe('package manifest', () => {
    const text = fixture('package.json');

    it('is not indexed by default', () => {
      const r = chunk('package.json', text);
      assert.equal(r.category, 'manifest');
      assert.deepEqual(r.chunks, []);
      assert.deepEqual(r.skipped, { reason: 'excluded-category', detail: 'package manifest: not indexed by default (add "manifest" to the setting fathom.json.categories, or to --json-categories)' });
    });

    it('indexes the cleaned subset when opted in', () => {
      const r = chunk('package.json', text, { jsonCategories: [...DEFAULT_JSON_CATEGORIES, 'manifest'] });
      assert.equal(r.category, 'manifest');
      assert.equal(r.skipped, undefined);
      assert.deepEqual(outline(r), [
        'manifest name 2-2',
        'manifest description 4-4',
        'manifest main…scripts 7-14',
        'manifest dependencies…devDependencies 19-29',
      ]);
      const all = r.chunks.map((c) => c.text).join('\n');
      for (const dropped of ['"version"', '"license"', '"private"', '"repository"', '"browserslist"']) assert.ok(!all.includes(dropped), dropped);
      assert.ok(all.includes('"vue-i18n": "^9.10.2"'));
    });
  });

  describe('config, fixtures, generic data', () => {
    it('cuts a tsconfig with comments and trailing commas into parseable runs', () => {
      const text = fixture('tsconfig.json');
      const r = chunk('tsconfig.json', text);
      assert.equal(r.category, 'config');
      assert.deepEqual(outline(r), [
        'json extends 3-3',
        'json compilerOptions.target…noImplicitOverride 5-12',
        'json compilerOptions.paths.@/* 14-14',
        'json include…exclude 17-18',
      ]);
      const options = r.chunks[1];
      assert.ok(options.text.startsWith('// Output\n    "target": "ES2022"'), 'leading comment travels with its member');
      assert.ok(options.text.includes('/* Checks */'));
      assert.deepEqual(options.meta?.keys, ['target', 'module', 'moduleResolution', 'outDir', 'strict', 'noImplicitOverride']);
      assert.equal(options.parent, 'compilerOptions');
      assert.deepEqual(r.warnings, []);
    });

    it('skips test fixtures by default and cuts them generically on request', () => {
      const text = fixture('tests/fixtures/api-response.json');
      const skipped = chunk('tests/fixtures/api-response.json', text);
      assert.deepEqual(skipped.skipped, { reason: 'excluded-category', detail: 'test fixture: not indexed by default (add "fixture" to the setting fathom.json.categories, or to --json-categories)' });
      const r = chunk('tests/fixtures/api-response.json', text, { jsonCategories: ['fixture'] });
      assert.equal(r.category, 'fixture');
      assert.deepEqual(outline(r), ['json (root) 1-7']);
      assert.equal(r.chunks[0].text, text.trimEnd());
      assert.equal(r.chunks[0].meta?.jsonWrap, '');
    });

    it('keeps exact positions with CRLF line ends and a BOM', () => {
      const raw = fixture('data/stations.json');
      assert.equal(raw.charCodeAt(0), 0xfeff);
      assert.ok(raw.includes('\r\n'));
      const whole = chunk('data/stations.json', raw);
      assert.equal(whole.category, 'other');
      assert.deepEqual(outline(whole), ['json (root) 1-9']);
      assert.deepEqual(whole.chunks[0].start, { offset: 0, line: 1, column: 0 });

      const r = chunk('data/stations.json', raw, { maxTokens: 64 });
      assert.deepEqual(outline(r), [
        'json stations[0] 3-3',
        'json stations[1] 4-4',
        'json stations[2] 5-5',
        'json updated…source 7-8',
      ]);
      const text = withoutBom(raw);
      const last = r.chunks[3];
      assert.equal(last.text, '"updated": "2024-03-18T06:00:00Z",\r\n  "source": "Regional hydrology service"');
      assert.deepEqual(last.start, { offset: text.indexOf('"updated"'), line: 7, column: 2 });
      assert.deepEqual(last.end, { offset: text.indexOf('service"') + 8, line: 8, column: 40 });
      assert.deepEqual(r.chunks[0].meta, { category: 'other', jsonWrap: '[]' });
      assert.deepEqual([r.chunks[0].parent, r.chunks[0].split], ['stations', { index: 0, total: 3 }]);
    });

    it('splits a long array into element runs', () => {
      const rows = Array.from({ length: 60 }, (_, i) => `    { "id": ${i}, "name": "Gauge number ${i}" }`);
      const text = `{\n  "rows": [\n${rows.join(',\n')}\n  ]\n}\n`;
      const r = chunk('data/rows.json', text, { maxTokens: 128 });
      assert.ok(r.chunks.length > 3);
      assert.ok(r.chunks.every((c) => /^rows\[\d+\.\.\d+\]$/.test(c.symbol!) && c.meta?.jsonWrap === '[]'), outline(r).join(', '));
      // Balanced: no crumb at the end.
      const sizes = r.chunks.map((c) => c.tokens);
      assert.ok(Math.min(...sizes) >= 128 * 0.25, sizes.join(' '));
    });

    it('keeps a long string whole, over budget', () => {
      const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
      const text = JSON.stringify({ title: 'Short', body: long, tail: 1 }, null, 2);
      const r = chunk('data/article.json', text, { maxTokens: 64 });
      const body = bySymbol(r, 'body')[0];
      assert.equal(body.meta?.unbreakable, true);
      assert.ok(body.tokens > 64);
      assert.equal(body.text, `"body": ${JSON.stringify(long)}`);
    });

    it('indexes a docs/meta file', () => {
      const text = JSON.stringify({ guide: [{ text: 'Getting started', link: '/guide/' }, { text: 'Components', link: '/components/' }] }, null, 2);
      const r = chunk('docs/.vitepress/sidebar.json', text);
      assert.equal(r.category, 'docs-meta');
      assert.deepEqual(outline(r), ['json (root) 1-12']);
    });
  });

  describe('bad inputs', () => {
    it('survives 10,000 levels of nested arrays through the text chunker', () => {
      const text = '['.repeat(10000) + ']'.repeat(10000);
      const r = chunkFile('data/deep.json', text);
      assert.equal(r.fallback, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
      assert.ok(r.chunks.length > 0);
      assert.ok(r.chunks.every((c) => c.kind === 'text'));
      assert.deepEqual(fallbackViolations(text, r, 256), []);
    });

    it('survives deep objects and deep nesting inside strings', () => {
      const objects = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
      assert.equal(chunkFile('data/deep.json', objects).fallback, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
      const inString = JSON.stringify({ s: '['.repeat(10000) });
      const r = chunk('data/brackets.json', inString);
      assert.equal(r.fallback, undefined);
      const nested = '['.repeat(MAX_JSON_DEPTH) + '"x"' + ']'.repeat(MAX_JSON_DEPTH);
      assert.equal(chunk('data/nested.json', nested).fallback, undefined);
    });

    it('recovers a missing comma with a warning', () => {
      const text = '{\n  "a": 1\n  "b": {"c": 2},\n  "d": [3, 4]\n}\n';
      const r = chunk('data/broken.json', text);
      assert.equal(r.fallback, undefined);
      assert.deepEqual(r.warnings, ['recovered 1 syntax error: CommaExpected at line 3']);
      assert.deepEqual(outline(r), ['json a 2-2', 'json b…d 3-4']);
    });

    it('hands unrecoverable JSON to the text chunker with the reason', () => {
      const json5 = '{\n  name: "x",\n  items: [1, 2],\n}\n';
      const r = chunk('data/config5.json', json5);
      assert.equal(r.fallback, 'malformed JSON: InvalidSymbol at line 2');
      assert.ok(r.chunks.length > 0 && r.chunks.every((c) => c.kind === 'text'));
      assert.ok(r.warnings.some((w) => w.includes('malformed JSON')));

      const unterminated = '{\n  "a": "no end,\n  "b": 2\n}';
      const u = chunk('data/unterminated.json', unterminated);
      assert.match(u.fallback ?? '', /^malformed JSON: \w+ at line \d+$/);

      assert.match(chunk('data/garbage.json', 'hello world').fallback ?? '', /^malformed JSON: InvalidSymbol at line 1$/);
    });

    it('recovers what a truncated file holds', () => {
      const r = chunk('data/truncated.json', '{"a": [1, 2');
      assert.equal(r.fallback, undefined);
      assert.deepEqual(r.warnings, ['recovered 2 syntax errors: CloseBracketExpected at line 1, CloseBraceExpected at line 1']);
      assert.deepEqual(r.chunks.map((c) => [c.symbol, c.text, c.meta?.jsonWrap]), [['a[0..1]', '1, 2', '[]']]);
    });

    it('skips an empty object or array', () => {
      for (const text of ['{}', '[]', '  {\n}\n']) {
        const r = chunk('data/empty.json', text);
        assert.deepEqual(r.chunks, []);
        assert.equal(r.skipped?.reason, 'empty');
        assert.equal(r.fallback, undefined);
      }
    });

    it('chunks a top-level scalar as the root', () => {
      const r = chunk('data/version.json', '"1.4.2"\n');
      assert.deepEqual(outline(r), ['json (root) 1-1']);
      assert.equal(r.chunks[0].text, '"1.4.2"');
      assert.equal(chunk('data/n.json', '42').chunks[0].text, '42');
      const long = JSON.stringify(Array.from({ length: 400 }, (_, i) => `w${i}`).join(' '));
      const big = chunk('data/long.json', long, { maxTokens: 64 });
      assert.equal(big.chunks.length, 1);
      assert.equal(big.chunks[0].meta?.unbreakable, true);
    });

    it('warns about duplicate keys', () => {
      const text = '{\n  "save": "Save",\n  "common": {"ok": "OK", "ok": "Okay"},\n  "save": "Store"\n}\n';
      const r = chunk('locales/en.json', text);
      assert.equal(r.category, 'i18n');
      assert.deepEqual(r.warnings, [
        'duplicate key "ok" in common (line 3): the last one wins',
        'duplicate key "save" in (root) (line 4): the last one wins',
      ]);
    });

    it('reads JSONC comments and trailing commas in .json and .jsonc files', () => {
      const text = '/* settings */\n{\n  // editor\n  "editor.tabSize": 2,\n  "files.exclude": {"**/.git": true,},\n}\n';
      for (const p of ['.vscode/settings.json', 'config/editor.jsonc']) {
        const r = chunk(p, text);
        assert.equal(r.fallback, undefined, p);
        assert.equal(r.category, 'config');
        assert.deepEqual(r.warnings, []);
        assert.ok(r.chunks[0].text.startsWith('// editor'));
      }
    });
  });

  describe('Vue <i18n> blocks (chunkJsonRange)', () => {
    const json = '{\n  "en": {"hello": "Hello", "bye": "Goodbye"},\n  "fr": {"hello": "Bonjour", "bye": "Au revoir"}\n}';
    const text = `<template><p>{{ $t('hello') }}</p></template>\n<i18n>\n${json}\n</i18n>\n`;
    const start = text.indexOf('{\n');
    const range = { start, end: start + json.length };
    const opts = resolveOptions();
    const header = (s: string | undefined) => `<!-- Greeting [i18n]${s ? ` :: ${s}` : ''} -->`;

    it('keeps a block that fits whole, covered to the last brace', () => {
      const ctx = new ChunkContext('src/components/Greeting.vue', 'vue', text, opts.counter, 256);
      const out = chunkJsonRange(ctx, range, 'i18n', opts, header);
      assert.ok(out);
      assert.deepEqual(out.chunks.map((c) => [c.kind, c.symbol, c.header, c.text]), [['i18n-section', undefined, '<!-- Greeting [i18n] -->', json]]);
      assert.deepEqual([...checkPositions(text, out.chunks), ...checkCoverage(text, out.chunks, range.start, range.end)], []);
    });

    it('cuts a bigger block into sections with the caller\'s header', () => {
      const ctx = new ChunkContext('src/components/Greeting.vue', 'vue', text, opts.counter, 48);
      const out = chunkJsonRange(ctx, range, 'i18n', opts, header);
      assert.ok(out);
      assert.deepEqual(out.chunks.map((c) => [c.kind, c.symbol, c.header]), [
        ['i18n-section', 'en', '<!-- Greeting [i18n] :: en -->'],
        ['i18n-section', 'fr', '<!-- Greeting [i18n] :: fr -->'],
      ]);
      assert.deepEqual(checkPositions(text, out.chunks), []);
      assert.equal(out.chunks[0].text, '"en": {"hello": "Hello", "bye": "Goodbye"}');
    });

    it('says undefined for a range that is not JSON', () => {
      const ctx = new ChunkContext('src/components/Greeting.vue', 'vue', text, opts.counter, 256);
      assert.equal(chunkJsonRange(ctx, { start: 0, end: 10 }, 'i18n', opts, header), undefined);
    });
  });

  describe('properties (fast-check)', () => {
    /** FATHOM_FC_RUNS=20 multiplies the number of generated cases (a longer hunt for counterexamples). */
    const RUNS = Math.max(1, Number(process.env.FATHOM_FC_RUNS ?? 1));
    const PATHS = ['locales/en.json', 'schemas/x.json', 'data/x.json', 'docs/x.json', 'src/i18n/fr.json', '.vscode/settings.json'];
    const BUDGETS = [40, 64, 128, 256];

    /** A deterministic PRNG so that a JSONC rendering is part of the counterexample's seed. */
    function rng(seed: number): () => number {
      let a = seed >>> 0;
      return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }

    /** JSON, or JSONC with comments and trailing commas, with the given indentation. */
    function render(v: unknown, indent: string, seed: number | null): string {
      if (seed === null) return JSON.stringify(v, null, indent);
      const rnd = rng(seed);
      const multiline = indent !== '';
      const comment = (pad: string) => {
        const r = rnd();
        if (r < 0.08 && multiline) return `// note ${Math.floor(r * 1e4)}\n${pad}`;
        if (r < 0.16) return `/* note ${Math.floor(r * 1e4)} */ `;
        return '';
      };
      const go = (x: unknown, depth: number): string => {
        if (x === null || typeof x !== 'object') return JSON.stringify(x);
        const pad = multiline ? indent.repeat(depth + 1) : '';
        const nl = multiline ? '\n' : '';
        const entries = Array.isArray(x) ? x.map((y) => go(y, depth + 1)) : Object.entries(x).map(([k, y]) => `${JSON.stringify(k)}: ${go(y, depth + 1)}`);
        const [open, close] = Array.isArray(x) ? ['[', ']'] : ['{', '}'];
        if (!entries.length) return open + close;
        const body = entries.map((e) => nl + pad + comment(pad) + e).join(',');
        return open + body + (rnd() < 0.25 ? ',' : '') + nl + (multiline ? indent.repeat(depth) : '') + close;
      };
      return (rnd() < 0.2 ? '// file header\n' : '') + go(v, 0) + '\n';
    }

    const words = ['save', 'the', 'event', 'map', 'layer', 'zoom', 'crisis', 'déclarer', 'événement', 'carte', '地图', 'operator', 'river', 'flood', 'station'];
    const sentence = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 14 }).map((ws) => ws.join(' ').replace(/^./, (c) => c.toUpperCase()));
    const key = fc.oneof(fc.constantFrom('title', 'label', 'hint', 'save', 'a.b', 'common', 'items', 'x y', '$ref', 'properties'), fc.string({ maxLength: 12 }));
    const { tree: i18nTree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, sentence, fc.dictionary(key, tie('tree'), { maxKeys: 6 })),
    }));
    const { prop } = fc.letrec<{ prop: unknown; props: unknown }>((tie) => ({
      prop: fc.record(
        {
          type: fc.constantFrom('string', 'number', 'object', 'array'),
          description: sentence,
          enum: fc.array(fc.constantFrom(...words), { maxLength: 30 }),
          field: fc.record({ component: fc.constantFrom('KTextField', 'KSelectField', 'KTextareaField'), label: sentence }),
          properties: tie('props'),
          items: fc.record({ type: fc.constant('object'), properties: tie('props') }),
        },
        { requiredKeys: ['type'] },
      ),
      props: fc.oneof({ maxDepth: 3, depthSize: 'small' }, fc.constant({}), fc.dictionary(key, tie('prop'), { maxKeys: 4 })),
    }));
    const schemaDoc = fc.record({
      $schema: fc.constant('http://json-schema.org/draft-07/schema#'),
      title: sentence,
      type: fc.constant('object'),
      required: fc.array(key, { maxLength: 4 }),
      properties: fc.dictionary(key, prop, { maxKeys: 6 }),
      definitions: fc.dictionary(key, prop, { maxKeys: 2 }),
    });
    const anyJson = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }),
      fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }),
      fc.array(fc.record({ id: fc.nat(), name: sentence, tags: fc.array(fc.constantFrom(...words), { maxLength: 5 }) }), { maxLength: 40 }),
    );

    /** Checks every generated case; `expect` lists chunk kinds the generator must have exercised. */
    function property(values: fc.Arbitrary<unknown>, paths: string[], runs: number, expect: string[] = []) {
      const seen = new Set<string>();
      fc.assert(
        fc.property(
          values,
          fc.constantFrom(...paths),
          fc.constantFrom('', ' ', '  ', '\t', '    '),
          fc.option(fc.nat(), { nil: null, freq: 2 }),
          fc.constantFrom(...BUDGETS),
          (v, p, indent, seed, maxTokens) => {
            const text = render(v, indent, seed);
            let r: FileChunks;
            try {
              r = chunkFile(p, text, { maxTokens, jsonCategories: ALL_CATEGORIES });
            } catch (err) {
              throw new Error(`threw: ${String(err)}`);
            }
            assert.equal(r.fallback, undefined, `fell back: ${r.fallback}`);
            if (r.skipped) assert.equal(r.skipped.reason, 'empty');
            assert.deepEqual(violations(text, r, maxTokens), []);
            for (const c of r.chunks) {
              seen.add(c.kind);
              if (c.split) seen.add('split');
              if (c.meta?.unbreakable) seen.add('unbreakable');
              if (c.meta?.jsonWrap === '[]') seen.add('[]');
            }
          },
        ),
        { numRuns: runs * RUNS },
      );
      for (const k of expect) assert.ok(seen.has(k), `no generated case produced ${k} (saw ${[...seen].join(', ')})`);
    }

    it('any JSON value, any indentation, JSON or JSONC: exact, disjoint, parseable, covered, within budget', () => {
      property(anyJson, PATHS, 400, ['json', 'split', '[]', 'unbreakable']);
    });

    it('i18n-shaped dictionaries', () => {
      property(fc.dictionary(key, i18nTree, { minKeys: 1, maxKeys: 10 }), ['locales/en.json', 'src/i18n/fr.json', 'lang/de/app.json'], 250, ['i18n-section', 'i18n-labels', 'split']);
    });

    it('JSON Schemas with nested properties', () => {
      property(schemaDoc, ['schemas/x.json', 'src/forms/event.schema.json'], 250, ['schema', 'schema-property', 'split', 'unbreakable']);
    });

    it('manifests and truncated or corrupted JSON never throw, and never emit a chunk that does not parse', () => {
      fc.assert(
        fc.property(anyJson, fc.nat(), fc.nat(), fc.constantFrom('data/x.json', 'package.json', 'locales/en.json'), (v, cut, junk, p) => {
          const good = JSON.stringify(v, null, 2);
          const at = good.length ? cut % good.length : 0;
          const variants = [good.slice(0, at), good.slice(0, at) + ',' + good.slice(at), good.slice(0, at) + '"' + good.slice(at), good.slice(0, at) + String.fromCharCode(33 + (junk % 90)) + good.slice(at)];
          for (const text of variants) {
            const r = chunkFile(p, text, { maxTokens: 64, jsonCategories: ALL_CATEGORIES });
            if (r.fallback) {
              assert.ok(!r.fallback.startsWith('internal error'), r.fallback);
              assert.deepEqual(fallbackViolations(text, r, 64), []);
            } else {
              const out = checkAll(text, r, 64, { coverage: false, mayExceed: oversizeAllowed });
              assert.deepEqual(out, [], text);
            }
          }
        }),
        { numRuns: 300 * RUNS },
      );
    });
  });
});
