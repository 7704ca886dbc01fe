/**
 * What kind of JSON file this is, from its path and its shape. The category decides how the
 * file is cut (schema property, i18n section, manifest subset, generic split) and whether it is
 * indexed at all (manifests and test fixtures are not, by default).
 *
 * Order of the rules (first match wins):
 *   1. manifest by name (package.json, composer.json, bower.json);
 *   2. fixture by a fixture folder (fixtures/, __mocks__/, mocks/, testdata/ …) or a
 *      `*.test.json` / `*.mock.json` name;
 *   3. config by name (tsconfig*.json, .eslintrc*, *.config.json, settings.json, .vscode/ …);
 *   4. fixture by a test folder (test/, tests/, __tests__/, spec/, e2e/): config names in a
 *      test folder stay config (test configuration is indexed);
 *   5. schema by content ($schema pointing at json-schema.org, or `properties` with
 *      `type: "object"` / `required` / `$defs` / `definitions` / `$id`);
 *   6. i18n by a locale-like name (`en.json`, `pt_BR.json`, `core_fr.json`, `messages.de.json`)
 *      or folder (`locales/de/x.json`, `lang/en/…`), with mostly string leaves;
 *   7. docs-meta by name or folder (docs/, typedoc.json, *.meta.json, sidebar*.json, vetur/,
 *      web-types.json, tags.json, attributes.json …);
 *   8. schema by a schema path (`schemas/`, `*.schema.json`) and schema shape;
 *   9. i18n by shape alone: string leaves, mostly natural language, identifier-like keys, no
 *      arrays of records (looser inside an i18n folder: `i18n/`, `locales/`, `translations/` …);
 *  10. config by a config folder (`config/`, `.github/`);
 *  11. other.
 */
import type * as jsonc from 'jsonc-parser';

export type JsonCategory = 'schema' | 'i18n' | 'manifest' | 'fixture' | 'docs-meta' | 'config' | 'other';

export const JSON_CATEGORY_LABELS: Record<JsonCategory, string> = {
  schema: 'JSON Schema',
  i18n: 'i18n dictionary',
  manifest: 'package manifest',
  fixture: 'test fixture',
  'docs-meta': 'docs metadata',
  config: 'config',
  other: 'JSON data',
};

const MANIFEST_NAMES = new Set(['package.json', 'composer.json', 'bower.json']);

const FIXTURE_DIRS = new Set([
  'fixtures', 'fixture', '__fixtures__', '__mocks__', '__mock__', 'mocks', 'mock', '__snapshots__',
  'testdata', 'test-data', 'test_data', 'mock-data', 'mockdata', 'mock_data',
]);
const TEST_DIRS = new Set(['test', 'tests', '__tests__', '__test__', 'spec', 'specs', 'e2e']);
const FIXTURE_NAME = /\.(?:test|spec|fixture|fixtures|mock|mocks|snap|stub)\.json[c5]?$/;

const CONFIG_NAMES = new Set([
  'jsconfig.json', 'settings.json', 'launch.json', 'tasks.json', 'extensions.json', 'keybindings.json',
  'devcontainer.json', '.devcontainer.json', 'lerna.json', 'nx.json', 'project.json', 'workspace.json',
  'angular.json', 'turbo.json', 'vercel.json', 'now.json', 'netlify.json', 'firebase.json', 'renovate.json',
  'renovate.json5', 'deno.json', 'deno.jsonc', 'biome.json', 'biome.jsonc', 'nodemon.json', 'tslint.json',
  'cspell.json', '.cspell.json', 'cypress.json', 'config.json', 'components.json', 'api-extractor.json',
  'vetur.config.json', 'app.config.json', '.markdownlint.json', '.markdownlint.jsonc', 'jest.json',
  'karma.conf.json', 'capacitor.config.json', 'ionic.config.json', 'manifest.json',
]);
const CONFIG_NAME_PATTERNS = [
  /^tsconfig(?:[.-][\w.-]*)?\.json[c5]?$/,
  /^jsconfig(?:[.-][\w.-]*)?\.json[c5]?$/,
  /^\.[\w-]+rc(?:\.[\w-]+)*(?:\.json[c5]?)?$/, // .eslintrc, .babelrc.json, .prettierrc.json5, .mocharc.jsonc
  /^\.(?:eslintrc|prettierrc|babelrc|stylelintrc)/,
  /[.-]config\.json[c5]?$/, // babel.config.json, jest.config.json, release-please-config.json
  /[.-]settings\.json[c5]?$/,
  /\.code-workspace$/,
];
const CONFIG_DIRS = new Set(['.vscode', '.devcontainer', '.idea', '.husky', '.circleci']);
const CONFIG_DIRS_WEAK = new Set(['config', 'configs', '.config', '.github', 'settings']);

const DOCS_NAMES = new Set([
  'typedoc.json', 'web-types.json', 'tags.json', 'attributes.json', 'mkdocs.json', '_meta.json',
  'meta.json', 'docs.json', 'toc.json', 'nav.json', 'navigation.json', 'custom-elements.json',
  'sidebars.json', 'docgen.json', 'vetur.json', 'contributors.json', 'all-contributorsrc.json',
]);
const DOCS_NAME_PATTERNS = [/\.meta\.json[c5]?$/, /^_meta\./, /^sidebars?[\w.-]*\.json[c5]?$/, /^mkdocs/, /^typedoc/];
const DOCS_DIRS = new Set(['docs', 'doc', 'documentation', 'vetur', 'website', 'wiki', 'guide', 'guides', '.vitepress', '.vuepress']);

const I18N_DIRS = new Set([
  'locales', 'locale', '_locales', 'i18n', 'l10n', 'lang', 'langs', 'language', 'languages',
  'translations', 'translation', 'messages', 'intl', 'nls', 'dictionaries', 'dictionary',
]);

const SCHEMA_DIRS = new Set(['schema', 'schemas', 'json-schema', 'jsonschema', 'json-schemas']);
const SCHEMA_NAME = /(?:^|[.-])schema\.json[c5]?$/;

/** ISO 639-1 codes, plus a few 3-letter codes and the usual misspellings (jp, cn, kr, ua, gr). */
const LANGS = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ' +
    'ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik ' +
    'in io is it iu iw ja ji jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi ' +
    'mk ml mn mo mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa ' +
    'sc sd se sg sh si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ' +
    've vi vo wa wo xh yi yo za zh zu ' +
    'fil haw yue ckb ast sco gsw nds kab ber cmn wuu hak nan jp cn ua gr dk'
  ).split(' '),
);

/** `en`, `en-US`, `pt_BR`, `zh-Hans`, `zh_Hant_TW`, `es-419`: a locale tag on its own. */
/** ISO 15924 script codes (lowercase) that locale codes carry (CLDR's), and gettext's script modifiers. */
export const SCRIPTS = new Set(
  'adlm aghb arab aran armn bali bamu bass batk beng bopo brah brai bugi buhd cakm cans cari cham cher copt cprt cyrl deva dsrt dupl egyp elba ethi geor glag goth gran grek gujr guru hanb hang hani hano hans hant hebr hira hluw hmng hrkt hung ital jamo java jpan kali kana khar khmr khoj knda kore kthi lana laoo latf latg latn lepc limb lina linb lisu lyci lydi mahj mand mani mend merc mero mlym modi mong mroo mtei mult mymr narb nbat nkoo nshu ogam olck orkh orya osge osma palm pauc perm phag phli phlp phnx plrd prti qaag rjng rohg runr samr sarb saur sgnw shaw shrd sidd sind sinh sora sund sylo syrc tagb takr tale talu taml tang tavt telu tfng tglg thaa thai tibt tirh ugar vaii wara wcho xpeo xsux yiii zinh zmth zsye zsym zxxx zyyy'.split(' '),
);

/** A four-letter ISO 15924 script code (`Latn`, `hans`), any case. */
export const isScript = (p: string): boolean => p.length === 4 && SCRIPTS.has(p.toLowerCase());

const LOCALE_TAG = /^([a-z]{2,3})(?:[-_]([a-z]{4}|[a-z]{2}|\d{3}))?(?:[-_](?:[a-z]{2}|\d{3}))?$/i;

/** `en`, `pt_BR`, `zh-Hant-TW`: a known language, then a script only when it is a real ISO 15924 code (`my_conf` is no locale). */
export function isLocaleTag(s: string): boolean {
  const m = LOCALE_TAG.exec(s);
  return !!m && LANGS.has(m[1].toLowerCase()) && (m[2] === undefined || m[2].length !== 4 || isScript(m[2]));
}

/** A basename (no extension) that names a locale: `en`, `en-US`, `core_fr`, `messages.de`, `package.nls.ja`. */
export function isLocaleName(stem: string): boolean {
  if (isLocaleTag(stem)) return true;
  // A prefix, then the tag: split at the last separator that leaves a locale tag behind.
  for (let i = stem.length - 2; i > 0; i--) {
    const c = stem[i - 1];
    if ((c === '.' || c === '_' || c === '-') && isLocaleTag(stem.slice(i))) {
      const tag = stem.slice(i);
      // `app-es` / `webpack.es` are suspicious only when the tag is a lone lowercase pair that
      // is also a common word or module format; keep them, the shape check decides.
      return tag.length >= 2;
    }
  }
  return false;
}

interface Shape {
  isObject: boolean;
  leaves: number;
  strings: number;
  natural: number;
  keys: number;
  identKeys: number;
  /** Leaves that sit in arrays. */
  inArrays: number;
}

const IDENT_KEY = /^[\p{L}\p{N}_$@:./-]+$/u;
const HAS_LETTER = /\p{L}/u;
const NON_ASCII_LETTER = /[^\p{ASCII}]/u;
const URLISH = /^(?:[a-z][\w+.-]*:\/\/|\.{0,2}\/|#|mailto:|data:)/i;
const PATHISH = /^[\w@.~-]+(?:\/[\w@.~-]+)+\/?$/;
const CAMEL_IDENT = /^[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/;

/** A string that reads as words for people rather than as a token for programs. */
export function isNaturalLanguage(s: string): boolean {
  const t = s.trim();
  if (!t || !HAS_LETTER.test(t)) return false;
  if (URLISH.test(t) || PATHISH.test(t)) return false;
  if (/\s/.test(t)) return true;
  if (NON_ASCII_LETTER.test(t)) return true;
  if (CAMEL_IDENT.test(t)) return false; // KTextField, onClick
  return /^\p{Lu}/u.test(t); // a capitalised word ("Save", "Email"); "string", "primary" are tokens
}

const SHAPE_LIMIT = 5000;

function shapeOf(root: jsonc.Node | undefined): Shape {
  const s: Shape = { isObject: root?.type === 'object', leaves: 0, strings: 0, natural: 0, keys: 0, identKeys: 0, inArrays: 0 };
  if (!root) return s;
  const stack: Array<{ n: jsonc.Node; inArray: boolean }> = [{ n: root, inArray: false }];
  while (stack.length && s.leaves < SHAPE_LIMIT) {
    const { n, inArray } = stack.pop()!;
    if (n.type === 'object') {
      for (const p of n.children ?? []) {
        const k = p.children?.[0];
        const v = p.children?.[1];
        if (k) {
          s.keys++;
          if (IDENT_KEY.test(String(k.value))) s.identKeys++;
        }
        if (v) stack.push({ n: v, inArray });
      }
    } else if (n.type === 'array') {
      for (const c of n.children ?? []) stack.push({ n: c, inArray: true });
    } else {
      s.leaves++;
      if (inArray) s.inArrays++;
      if (n.type === 'string') {
        s.strings++;
        if (isNaturalLanguage(String(n.value))) s.natural++;
      }
    }
  }
  return s;
}

function member(root: jsonc.Node | undefined, key: string): jsonc.Node | undefined {
  if (root?.type !== 'object') return undefined;
  for (const p of root.children ?? []) if (p.children?.[0]?.value === key) return p.children[1];
  return undefined;
}

/** An object whose values are all objects (or booleans, which JSON Schema allows), at least one. */
function objectOfSchemas(n: jsonc.Node | undefined): boolean {
  if (n?.type !== 'object' || !n.children?.length) return false;
  let objects = 0;
  for (const p of n.children) {
    const v = p.children?.[1];
    if (v?.type === 'object') objects++;
    else if (v?.type !== 'boolean') return false;
  }
  return objects > 0;
}

/** JSON Schema by content: a meta-schema URL, or properties/definitions with schema keywords. */
export function looksLikeSchema(root: jsonc.Node | undefined, pathHint = false): boolean {
  if (root?.type !== 'object') return false;
  const $schema = member(root, '$schema');
  const metaUrl = $schema?.type === 'string' && /json-schema\.org|\/schema#?$|draft-?\d/i.test(String($schema.value));
  const props = objectOfSchemas(member(root, 'properties'));
  const defs = objectOfSchemas(member(root, 'definitions')) || objectOfSchemas(member(root, '$defs'));
  const type = member(root, 'type');
  const required = member(root, 'required');
  const keywords =
    (type?.type === 'string' && type.value === 'object') ||
    required?.type === 'array' ||
    !!member(root, '$id') ||
    member(root, 'additionalProperties') !== undefined ||
    !!$schema;
  if (metaUrl && (props || defs || type || member(root, 'allOf') || member(root, 'anyOf') || member(root, 'oneOf') || member(root, '$ref') || member(root, 'items'))) return true;
  if (props && (keywords || defs)) return true;
  if (defs && (keywords || type)) return true;
  if (pathHint && (props || defs)) return true;
  return false;
}

function pathParts(path: string): { dirs: string[]; base: string; stem: string } {
  const parts = path.split('/').filter(Boolean);
  const name = parts.pop() ?? '';
  const dot = name.lastIndexOf('.');
  return { dirs: parts.map((d) => d.toLowerCase()), base: name.toLowerCase(), stem: dot > 0 ? name.slice(0, dot) : name };
}

/** The category a path alone decides, before any parsing: manifest, fixture, config. */
export function classifyJsonPath(path: string): JsonCategory | undefined {
  const { dirs, base } = pathParts(path);
  if (MANIFEST_NAMES.has(base)) return 'manifest';
  if (dirs.some((d) => FIXTURE_DIRS.has(d)) || FIXTURE_NAME.test(base)) return 'fixture';
  if (CONFIG_NAMES.has(base) || CONFIG_NAME_PATTERNS.some((re) => re.test(base)) || dirs.some((d) => CONFIG_DIRS.has(d))) return 'config';
  if (dirs.some((d) => TEST_DIRS.has(d))) return 'fixture';
  return undefined;
}

/**
 * Classifies a JSON file by its workspace-relative path and its parse tree (jsonc-parser's
 * `parseTree`, may be undefined when the text does not parse).
 */
export function classifyJson(path: string, root: jsonc.Node | undefined): JsonCategory {
  const byPath = classifyJsonPath(path);
  if (byPath) return byPath;
  const { dirs, base, stem } = pathParts(path);
  if (looksLikeSchema(root)) return 'schema';

  const shape = shapeOf(root);
  const stringShare = shape.leaves ? shape.strings / shape.leaves : 0;
  const naturalShare = shape.strings ? shape.natural / shape.strings : 0;
  const identShare = shape.keys ? shape.identKeys / shape.keys : 0;
  const arrayShare = shape.leaves ? shape.inArrays / shape.leaves : 0;

  const localeName = isLocaleName(stem);
  const localeDir = dirs.some((d, i) => isLocaleTag(d) && (dirs.slice(0, i).some((a) => I18N_DIRS.has(a)) || i === dirs.length - 1));
  const i18nDir = dirs.some((d) => I18N_DIRS.has(d));
  if (shape.isObject && shape.leaves > 0 && (localeName || (localeDir && (i18nDir || stringShare >= 0.8)))) {
    if (stringShare >= 0.6) return 'i18n';
  }

  if (DOCS_NAMES.has(base) || DOCS_NAME_PATTERNS.some((re) => re.test(base)) || dirs.some((d) => DOCS_DIRS.has(d))) return 'docs-meta';

  if ((dirs.some((d) => SCHEMA_DIRS.has(d)) || SCHEMA_NAME.test(base)) && looksLikeSchema(root, true)) return 'schema';

  if (shape.isObject && shape.leaves > 0 && arrayShare <= 0.2) {
    if (i18nDir && stringShare >= 0.8 && naturalShare >= 0.3) return 'i18n';
    if (shape.leaves >= 3 && stringShare >= 0.9 && naturalShare >= 0.6 && identShare >= 0.8) return 'i18n';
  }

  if (dirs.some((d) => CONFIG_DIRS_WEAK.has(d))) return 'config';
  return 'other';
}
