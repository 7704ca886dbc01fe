/**
 * Ranking benchmark on code that is NOT the dev corpus (issue 12): keyword-only search, measured
 * with the CLI a user runs (`fathom index --no-embed`, then `fathom batch --mode keyword`),
 * scored by file, for today's ranking and for a baseline build side by side in one run.
 *
 *   npm run bench:ranking                                   # everything (a few minutes)
 *   node --import tsx bench/ranking.ts --only js-doc,vue-ui # some benchmarks (js-doc ts-doc py-doc go-doc py-repo go-repo py-docs vue-ui react-ui react-intl-ui schema registration mined)
 *   node --import tsx bench/ranking.ts --baseline <git ref> # another baseline (default: BASELINE_REF)
 *   node --import tsx bench/ranking.ts --no-baseline --json # today's build only, one JSON object
 *   node --import tsx bench/ranking.ts --misses 10          # print some misses of the tuning half
 *   node --import tsx bench/ranking.ts --only flask,flask-docs,gin --no-baseline --model   # Flask (alone, with its docs) and Gin: measured, never tuned on
 *   node --import tsx bench/ranking.ts --model [FILE]       # also this build with the model (default: the shipped one):
 *                                                           #   its dense ranking alone and hybrid, beside keyword-only
 *
 * Sources (installed, never copied into git; bench/.ranking/ holds the workspaces and stores):
 * - npm (bench/ranking-corpus/package.json, pinned; installed here on first run with
 *   `npm install --ignore-scripts`): lodash and date-fns (JSDoc), vuetify and element-plus
 *   (components that render locale strings, 40+ locales each), @designable/formily-antd and
 *   @formily/antd (Formily JSON Schemas, the components they name), vuepress-theme-hope with its
 *   plugins, @vuepress/client, vue-router 3 and 4, @nuxt/vue-app, @inertiajs/vue3,
 *   vue2-google-maps, vue-carousel, mavon-editor, floating-vue (global registrations),
 *   @docusaurus/theme-classic and @docusaurus/theme-translations (React components that render
 *   locale strings, flat JSON locales), @openedx/paragon (React components with react-intl and
 *   JSON message catalogs), Tiptap's TypeScript sources (@tiptap/core, -vue-3, -extensions,
 *   -extension-link, -extension-table, -extension-collaboration: ts-doc), LangChain's splitter
 *   (the peer).
 * - Debian: Python sources under /usr/lib/python3/dist-packages (python3-oauthlib, -jwt,
 *   -httplib2, -pyparsing, -toml) and Go sources under /usr/share/gocode (golang-github-spf13-
 *   cobra-dev, -pflag-dev, -afero-dev, -viper-dev, golang-github-google-go-cmp-dev, -pkg-errors-dev,
 *   -pkg-sftp-dev, -burntsushi-toml-dev, -pelletier-go-toml-dev, -magiconair-properties-dev,
 *   -fsnotify-fsnotify-dev). A missing one is a visible skip with the apt-get line to run.
 *
 * Benchmarks (each query's gold is a set of files; hit@K = one of them among the files of the
 * top-K results; MRR over the top 10):
 * - `js-doc`, `py-doc`, `go-doc`: the first sentence of a function's (or class's, type's) doc
 *   comment → its file; the sentence is removed from the indexed copy (every occurrence in the
 *   file), sentences of fewer than 4 words or found for two files are left out. Next to Fathom:
 *   LangChain's `RecursiveCharacterTextSplitter.fromLanguage(js|python|go, 800/120)` + plain BM25
 *   (k1 1.2, b 0.75) over Fathom's own tokens (`terms`), in this process. `line@5`: one of the
 *   first 5 results is the gold file's chunk holding the line where the sentence was (the
 *   documented function itself, as the issue measures it, not only its file).
 * - `ts-doc`: the same on TypeScript (functions and consts with JSDoc in Tiptap's sources, see
 *   `tsDocBench`), the peer with `fromLanguage('js')`.
 * - `vue-ui`: the source-locale (en) text of an i18n key → the component files whose code names
 *   that key (`'$vuetify.<key>'`, `"el.<key>"`), placeholders (`{0}`, `{color}`) dropped; keys
 *   named by more than 4 files are left out. Also `locale@5`: the share of top-5 slots taken by
 *   locale files (goal ≤ 20%).
 * - `schema`: `field <key> with component <Component>` → the JSON Schema file (see `schemaBench`).
 * - `registration`: `global registration of <name> (<Component>)` → the file registering it, and
 *   `line@5`: a top-5 chunk of that file whose line range holds the registration line (see
 *   `registrationBench`); routes `registration` (`app.component('<name>', X)`) and `install`
 *   (`const <Name> = withInstall(X)`).
 * - `react-ui`: the English text of a Docusaurus theme key → the React components whose code
 *   names that key (see `reactUiBench`); `locale@5` as in vue-ui.
 * - `react-intl-ui`: a react-intl message's English `defaultMessage` → the files of Open edX's
 *   Paragon whose code names its id (see `reactIntlUiBench`); `locale@5` too.
 * - `mined`: `fathom eval --write-gold` on the js-doc and vue-ui workspaces (with the baseline
 *   CLI, so that both sides answer the same queries): routes `js`/`vue` (`<words> (<identifier>)`)
 *   and `i18n` (a locale value verbatim → its locale file); on the schema, registration,
 *   react-ui and react-intl-ui workspaces with this build (the baseline has no `registration`
 *   route, and reads no Docusaurus `locales/base/`): there also `ui` (the words a component
 *   shows → it).
 * Every query goes to the tuning or the held-out half by a seeded hash of benchmark and query
 * (`half`); only the tuning half was looked at while tuning. Both are printed.
 */
import { parse as babelParse } from '@babel/parser';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { hash } from './rng';
import { queryTerms, terms } from '../src/index/terms';

/** main before issue 12's ranking changes. */
const BASELINE_REF = '2fd5532';
const SEED = 12;
const repo = path.resolve(__dirname, '..');
const corpusPkg = path.join(__dirname, 'ranking-corpus');
const nm = path.join(corpusPkg, 'node_modules');
const work = path.join(__dirname, '.ranking');

interface Args {
  only?: Set<string>;
  baseline?: string;
  json: boolean;
  misses: number;
  /** With the model: '' the default one, else a model file or folder (`--model [PATH]`). */
  model?: string;
  prepareOnly?: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { baseline: BASELINE_REF, json: false, misses: 0 };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    if (x === '--only') a.only = new Set(next().split(','));
    else if (x === '--baseline') a.baseline = next();
    else if (x === '--no-baseline') a.baseline = undefined;
    else if (x === '--json') a.json = true;
    else if (x === '--prepare-only') a.prepareOnly = true;
    else if (x === '--misses') a.misses = Number(next());
    else if (x === '--model') a.model = argv[i + 1] && !argv[i + 1].startsWith('--') ? path.resolve(next()) : '';
    else throw new Error(`unknown argument ${x}`);
  }
  return a;
}

const log = (m: string) => process.stderr.write(`[ranking] ${m}\n`);

interface Gold {
  query: string;
  files: string[];
  route: string;
  /** The 1-based line a right chunk must hold (registration: the registration line; schema: the property's key), scored as line@5. */
  line?: number;
}

interface Bench {
  name: string;
  dir: string;
  gold: Gold[];
  /** For the LangChain + BM25 peer. */
  splitter?: 'js' | 'python' | 'go';
  isLocale?: (file: string) => boolean;
}

// ---------------------------------------------------------------------------------------------
// sources

function ensureNpm(): void {
  const stamp = path.join(nm, '.fathom-stamp');
  const want = fs.readFileSync(path.join(corpusPkg, 'package.json'), 'utf8');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return;
  log('npm install --ignore-scripts (bench/ranking-corpus)');
  const r = spawnSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: corpusPkg, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install failed in ${corpusPkg}`);
  fs.writeFileSync(stamp, want);
}

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== '__pycache__' && e.name !== 'testdata' && !e.name.startsWith('.')) yield* walk(full);
    } else if (e.isFile()) yield full;
  }
}

/** A fresh workspace folder. */
function freshDir(name: string): string {
  const dir = path.join(work, 'ws', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function writeFile(dir: string, rel: string, text: string): void {
  const abs = path.join(dir, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
}

/** The first sentence of a doc text (already without comment markers). */
function firstSentence(doc: string): string | undefined {
  const para = doc.trim().split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(?:\s|$)/.exec(para);
  const s = (m ? m[1] : para).trim();
  return s.split(/\s+/).length >= 4 && s.length <= 300 ? s : undefined;
}

/** A regex for `sentence` as it is written in a comment: its words with any of whitespace, `*`, `//`, `#` between them. */
function sentencePattern(sentence: string): RegExp {
  const words = sentence.split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(words.join('(?:[\\s*]|//|#)+'), 'g');
}

/** Keeps the gold queries whose text names one file only, and removes each sentence from its file. */
function docBench(name: string, splitter: Bench['splitter'], files: Array<{ rel: string; text: string }>, docsOf: (text: string, rel: string) => string[]): Bench {
  const dir = freshDir(name);
  const byQuery = new Map<string, Set<string>>();
  const perFile = new Map<string, string[]>();
  for (const f of files) {
    const sentences = [...new Set(docsOf(f.text, f.rel))];
    perFile.set(f.rel, sentences);
    for (const s of sentences) {
      const key = s.toLowerCase();
      const set = byQuery.get(key) ?? new Set();
      set.add(f.rel);
      byQuery.set(key, set);
    }
  }
  const gold: Gold[] = [];
  for (const f of files) {
    let text = f.text;
    const mine: Gold[] = [];
    for (const s of perFile.get(f.rel) ?? []) {
      if ((byQuery.get(s.toLowerCase())?.size ?? 0) !== 1) continue;
      const re = sentencePattern(s);
      if (!re.test(text)) continue;
      // a mark where the sentence was (no newline in it), for the line of its doc comment below
      text = text.replace(sentencePattern(s), `\uE000${mine.length}\uE001`);
      mine.push({ query: s.replace(/`/g, ''), files: [f.rel], route: name });
    }
    // line@5 (the function itself, not only its file): the line where its doc sentence was, which
    // the chunk of the documented function holds (a docstring inside it, a doc comment above it)
    for (const m of text.matchAll(/\uE000(\d+)\uE001/g)) {
      const g = mine[Number(m[1])];
      if (g.line === undefined) g.line = text.slice(0, m.index).split('\n').length;
    }
    gold.push(...mine);
    writeFile(dir, f.rel, text.replace(/\uE000\d+\uE001/g, ''));
  }
  return { name, dir, gold, splitter };
}

function jsDocBench(): Bench {
  const files: Array<{ rel: string; text: string }> = [];
  for (const abs of walk(path.join(nm, 'lodash'))) {
    const rel = path.relative(path.join(nm, 'lodash'), abs);
    if (!rel.includes('/') && rel.endsWith('.js') && !/^(lodash|core)(\.min)?\.js$|\.min\.js$/.test(rel)) files.push({ rel: `lodash/${rel}`, text: fs.readFileSync(abs, 'utf8') });
  }
  for (const name of fs.readdirSync(path.join(nm, 'date-fns')).sort()) {
    if (name.endsWith('.js') && !name.endsWith('.min.js')) files.push({ rel: `date-fns/${name}`, text: fs.readFileSync(path.join(nm, 'date-fns', name), 'utf8') });
  }
  return docBench('js-doc', 'js', files, (text) => {
    const out: string[] = [];
    for (const m of text.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(?:export\s+)?(?:async\s+)?(?:function\s*\*?\s*[\w$]+|(?:var|const|let)\s+[\w$]+\s*=)/g)) {
      const body = m[1].replace(/^\s*\* ?/gm, '');
      const summary = /@summary\s+([^\n]+)/.exec(body);
      const desc = summary ? summary[1] : body.split(/\n\s*@/)[0];
      const s = firstSentence(desc);
      if (s && !s.startsWith('@')) out.push(s);
    }
    return out;
  });
}

/**
 * `ts-doc`: the Vue/TypeScript case of the doc-sentence benchmarks, from code the model never saw
 * (no Tiptap package is in train/npm-packages.json): Tiptap's editor core, its Vue 3 binding and
 * four of its extension packages, as their TypeScript sources (`src/`, tests and all) are
 * published. The first sentence of a function's or a const's JSDoc, outside tests, → its file;
 * the rest as `js-doc`.
 */
const TS_DOC_PACKAGES = ['core', 'vue-3', 'extensions', 'extension-link', 'extension-table', 'extension-collaboration'];

function tsDocBench(): Bench {
  const files: Array<{ rel: string; text: string }> = [];
  for (const pkg of TS_DOC_PACKAGES) {
    const root = path.join(nm, '@tiptap', pkg);
    for (const abs of walk(path.join(root, 'src'))) {
      if (/\.(?:ts|tsx|vue)$/.test(abs) && !abs.endsWith('.d.ts')) files.push({ rel: `@tiptap/${pkg}/${path.relative(root, abs)}`, text: fs.readFileSync(abs, 'utf8') });
    }
  }
  return docBench('ts-doc', 'js', files, (text, rel) => {
    const out: string[] = [];
    if (/\.(?:test|spec)\.tsx?$|__tests__\//.test(rel)) return out;
    // the comment right above the declaration: its text holds no `*/` (a lazy [\s\S]*? would run
    // from an interface member's comment on to a later function's)
    const re = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*[\w$]+|(?:var|const|let)\s+[\w$]+\s*(?::[^=\n]+)?=)/g;
    for (const m of text.matchAll(re)) {
      const desc = m[1].replace(/^\s*\* ?/gm, '').split(/\n\s*@/)[0];
      const s = firstSentence(desc);
      if (s && !s.startsWith('@')) out.push(s);
    }
    return out;
  });
}

const PY_PACKAGES = ['oauthlib', 'jwt', 'httplib2', 'pyparsing', 'toml'];
const PY_DEBS = 'python3-oauthlib python3-jwt python3-httplib2 python3-pyparsing python3-toml';
const GO_PACKAGES = [
  'github.com/spf13/cobra',
  'github.com/spf13/pflag',
  'github.com/spf13/afero',
  'github.com/spf13/viper',
  'github.com/google/go-cmp',
  'github.com/pkg/errors',
  'github.com/pkg/sftp',
  'github.com/BurntSushi/toml',
  'github.com/pelletier/go-toml',
  'github.com/magiconair/properties',
  'github.com/fsnotify/fsnotify',
];
const GO_DEBS =
  'golang-github-spf13-cobra-dev golang-github-spf13-pflag-dev golang-github-spf13-afero-dev golang-github-spf13-viper-dev golang-github-google-go-cmp-dev golang-github-pkg-errors-dev golang-github-pkg-sftp-dev golang-github-burntsushi-toml-dev golang-github-pelletier-go-toml-dev golang-github-magiconair-properties-dev golang-github-fsnotify-fsnotify-dev';

function pyDocBench(): Bench | string {
  const root = '/usr/lib/python3/dist-packages';
  const missing = PY_PACKAGES.filter((p) => !fs.existsSync(path.join(root, p)));
  if (missing.length) return `py-doc skipped: ${missing.join(', ')} missing (apt-get install ${PY_DEBS})`;
  const files: Array<{ rel: string; text: string }> = [];
  for (const p of PY_PACKAGES) for (const abs of walk(path.join(root, p))) if (abs.endsWith('.py') && !/\/tests?\//.test(abs)) files.push({ rel: path.relative(root, abs), text: fs.readFileSync(abs, 'utf8') });
  return docBench('py-doc', 'python', files, (text) => {
    const out: string[] = [];
    for (const m of text.matchAll(/^[ \t]*(?:async\s+)?(?:def|class)\s+\w+[^\n]*:\s*\n\s*[rRuU]?("""|''')([\s\S]*?)\1/gm)) {
      const s = firstSentence(m[2]);
      if (s) out.push(s);
    }
    return out;
  });
}

function goDocBench(): Bench | string {
  const root = '/usr/share/gocode/src';
  const missing = GO_PACKAGES.filter((p) => !fs.existsSync(path.join(root, p)));
  if (missing.length) return `go-doc skipped: ${missing.join(', ')} missing (apt-get install ${GO_DEBS})`;
  const files: Array<{ rel: string; text: string }> = [];
  for (const p of GO_PACKAGES) {
    for (const abs of walk(path.join(root, p))) if (abs.endsWith('.go') && !abs.endsWith('_test.go')) files.push({ rel: path.relative(root, abs), text: fs.readFileSync(abs, 'utf8') });
  }
  return docBench('go-doc', 'go', files, (text) => {
    const out: string[] = [];
    for (const m of text.matchAll(/((?:^[ \t]*\/\/[^\n]*\n)+)[ \t]*(?:func|type)\s/gm)) {
      const doc = m[1].replace(/^[ \t]*\/\/ ?/gm, '');
      if (/^(?:go:|\+build|nolint)/.test(doc.trim())) continue;
      const s = firstSentence(doc);
      if (s) out.push(s);
    }
    return out;
  });
}

/**
 * Whole package trees as a user's workspace has them, tests included: Python and Go web
 * frameworks (Tornado, CherryPy, Falcon; Revel) from Debian, none of them in the model's
 * training data (train/extract.ts is run with --exclude-tree on them). The gold is a doc
 * sentence of a non-test file (removed from it); the test files stay in the workspace and
 * compete, as they do in a real repository.
 */
type RepoBench = 'py-repo' | 'go-repo' | 'py-docs' | 'flask' | 'flask-docs' | 'gin';
const REPO_DEBS: Record<RepoBench, { debs: string[]; roots: string[]; ext: RegExp; test: RegExp; lang: 'python' | 'go'; docDebs?: string[] }> = {
  'py-repo': {
    debs: ['python3-tornado', 'python3-cherrypy3', 'python3-falcon'],
    roots: ['usr/lib/python3/dist-packages/tornado', 'usr/lib/python3/dist-packages/cherrypy', 'usr/lib/python3/dist-packages/falcon'],
    ext: /\.py$/,
    test: /(?:^|\/)tests?\/|(?:^|\/)test_[^/]*\.py$/,
    lang: 'python',
  },
  // The same frameworks with their prose documentation beside the code, as a repository has it
  // (docs/<package>/*.rst: the reStructuredText sources that Debian's -doc packages keep under
  // html/_sources/): doc-like queries meet prose that speaks of the same things.
  'py-docs': {
    debs: ['python3-tornado', 'python3-cherrypy3'],
    roots: ['usr/lib/python3/dist-packages/tornado', 'usr/lib/python3/dist-packages/cherrypy'],
    ext: /\.py$/,
    test: /(?:^|\/)tests?\/|(?:^|\/)test_[^/]*\.py$/,
    lang: 'python',
    docDebs: ['python-tornado-doc', 'python-cherrypy3-doc'],
  },
  'go-repo': { debs: ['golang-github-revel-revel-dev'], roots: ['usr/share/gocode/src/github.com/revel/revel'], ext: /\.go$/, test: /_test\.go$/, lang: 'go' },
  // Flask and Gin are among the projects Fathom is measured on elsewhere: never trained on
  // (train/), never tuned on here — only run with `--only flask,gin` to report. Gin's package
  // carries its Markdown docs, which compete with the code as in the real repository.
  flask: { debs: ['python3-flask'], roots: ['usr/lib/python3/dist-packages/flask'], ext: /\.py$/, test: /(?:^|\/)tests?\/|(?:^|\/)test_[^/]*\.py$/, lang: 'python' },
  'flask-docs': { debs: ['python3-flask'], roots: ['usr/lib/python3/dist-packages/flask'], ext: /\.py$/, test: /(?:^|\/)tests?\/|(?:^|\/)test_[^/]*\.py$/, lang: 'python', docDebs: ['python-flask-doc'] },
  gin: { debs: ['golang-github-gin-gonic-gin-dev'], roots: ['usr/share/gocode/src/github.com/gin-gonic/gin'], ext: /\.(?:go|md)$/, test: /_test\.go$/, lang: 'go' },
};

/** `apt-get download` + `dpkg-deb -x` into bench/.ranking/debs/<package> (no install), once. */
function debTree(pkg: string): string | undefined {
  const dir = path.join(work, 'debs', pkg);
  if (fs.existsSync(path.join(dir, '.done'))) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const dl = spawnSync('apt-get', ['download', '-q', pkg], { cwd: path.join(work, 'debs'), encoding: 'utf8' });
  const deb = fs.readdirSync(path.join(work, 'debs')).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
  if (dl.status !== 0 || !deb) return undefined;
  run('dpkg-deb', ['-x', path.join(work, 'debs', deb), dir]);
  fs.writeFileSync(path.join(dir, '.done'), '');
  return dir;
}

function repoDocBench(name: RepoBench): Bench | string {
  const spec = REPO_DEBS[name];
  const files: Array<{ rel: string; text: string }> = [];
  for (const [i, pkg] of spec.debs.entries()) {
    const tree = debTree(pkg);
    if (!tree) return `${name} skipped: apt-get download ${pkg} failed`;
    const roots = spec.debs.length > 1 ? [spec.roots[i]] : spec.roots;
    for (const r of roots) {
      const root = path.join(tree, r);
      for (const abs of walk(root)) if (spec.ext.test(abs) && fs.statSync(abs).size < 200_000) files.push({ rel: path.join(path.basename(root), path.relative(root, abs)), text: fs.readFileSync(abs, 'utf8') });
    }
  }
  for (const pkg of spec.docDebs ?? []) {
    const tree = debTree(pkg);
    if (!tree) return `${name} skipped: apt-get download ${pkg} failed`;
    const src = path.join(tree, 'usr/share/doc', pkg, 'html/_sources');
    const as = pkg.replace(/^python-|-doc$/g, '').replace(/\d+$/, '');
    for (const abs of walk(src)) if (/\.(?:rst|md|txt)\.txt$/.test(abs)) files.push({ rel: path.join('docs', as, path.relative(src, abs).replace(/\.txt$/, '')), text: fs.readFileSync(abs, 'utf8') });
  }
  const py = spec.lang === 'python';
  const docs = py ? /^[ \t]*(?:async\s+)?(?:def|class)\s+\w+[^\n]*:\s*\n\s*[rRuU]?("""|''')([\s\S]*?)\1/gm : /((?:^[ \t]*\/\/[^\n]*\n)+)[ \t]*(?:func|type)\s/gm;
  return docBench(name, spec.lang, files, (text, rel) => {
    if (spec.test.test(rel) || !rel.endsWith(py ? '.py' : '.go')) return [];
    const out: string[] = [];
    for (const m of text.matchAll(docs)) {
      const doc = py ? m[2] : m[1].replace(/^[ \t]*\/\/ ?/gm, '');
      if (/^(?:go:|\+build|nolint)/.test(doc.trim())) continue;
      const s = firstSentence(doc);
      if (s) out.push(s);
    }
    return out;
  });
}

/** Flattens a locale object into key → string value. */
function flatten(o: unknown, prefix: string, out: Map<string, string>): void {
  if (typeof o === 'string') out.set(prefix, o);
  else if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, v] of Object.entries(o)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
}

async function vueUiBench(): Promise<Bench> {
  const dir = freshDir('vue-ui');
  const sources: Array<{ pkg: string; folders: string[]; locale: string; keyPrefix: string; pick: (m: Record<string, unknown>) => unknown }> = [
    { pkg: 'vuetify', folders: ['lib/components', 'lib/composables', 'lib/locale', 'lib/labs'], locale: 'lib/locale/en.mjs', keyPrefix: '$vuetify.', pick: (m) => m.default },
    { pkg: 'element-plus', folders: ['es/components', 'es/hooks', 'es/locale'], locale: 'es/locale/lang/en.mjs', keyPrefix: 'el.', pick: (m) => (m.default as { el: unknown }).el },
  ];
  const code: Array<{ rel: string; text: string }> = [];
  const gold: Gold[] = [];
  const byValue = new Map<string, Set<string>>();
  for (const s of sources) {
    const root = path.join(nm, s.pkg);
    for (const folder of s.folders) {
      for (const abs of walk(path.join(root, folder))) {
        if (!/\.m?js$/.test(abs) || abs.includes('/adapters/')) continue;
        const rel = `${s.pkg}/${path.relative(root, abs)}`;
        const text = fs.readFileSync(abs, 'utf8');
        writeFile(dir, rel, text);
        if (!/\/locale\//.test(rel)) code.push({ rel, text });
      }
    }
    const mod = (await import(path.join(root, s.locale))) as Record<string, unknown>;
    const values = new Map<string, string>();
    flatten(s.pick(mod), '', values);
    for (const [key, value] of values) {
      const shown = value.replace(/\{[^}]*\}/g, ' ').replace(/\s+/g, ' ').trim();
      if (!/\p{L}{2}/u.test(shown)) continue;
      const lit = `${s.keyPrefix}${key}`;
      const users = code.filter((f) => f.text.includes(`'${lit}'`) || f.text.includes(`"${lit}"`) || f.text.includes(`\`${lit}\``)).map((f) => f.rel);
      if (users.length === 0) continue;
      const k = shown.toLowerCase();
      const set = byValue.get(k) ?? new Set();
      for (const u of users) set.add(u);
      byValue.set(k, set);
      if (!gold.some((g) => g.query.toLowerCase() === k)) gold.push({ query: shown, files: [], route: 'vue-ui' });
    }
  }
  for (const g of gold) g.files = [...(byValue.get(g.query.toLowerCase()) ?? [])].sort();
  return { name: 'vue-ui', dir, gold: gold.filter((g) => g.files.length <= 4), isLocale: (f) => /\/locale\//.test(f) };
}

/**
 * `react-ui`: Docusaurus' classic theme (`@docusaurus/theme-classic`, the `.tsx` files under `src/theme/`:
 * React components calling `translate({ id, message })` and `<Translate id>`) with the
 * translations of `@docusaurus/theme-translations` (`locales/<lang>/<plugin>.json`, flat
 * `{"theme.x": "…"}` maps; `locales/base/` holds the English source and `"<key>___DESCRIPTION"`
 * translator notes). Query: the English value of a key (`locales/base`, notes left out;
 * placeholders and the plural separator `|` dropped) → the component files whose code names the
 * key as a string literal; keys named by more than 4 files are left out. The components hold the
 * English message inline too (`message: 'Copy'`), so the words are in the code as well.
 */
function reactUiBench(): Bench {
  const dir = freshDir('react-ui');
  const classic = path.join(nm, '@docusaurus/theme-classic');
  const translations = path.join(nm, '@docusaurus/theme-translations');
  const code: Array<{ rel: string; text: string }> = [];
  for (const abs of walk(path.join(classic, 'src/theme'))) {
    if (!abs.endsWith('.tsx')) continue;
    const rel = `theme-classic/${path.relative(classic, abs)}`;
    const text = fs.readFileSync(abs, 'utf8');
    writeFile(dir, rel, text);
    code.push({ rel, text });
  }
  const base = new Map<string, string>();
  for (const abs of walk(path.join(translations, 'locales'))) {
    if (!abs.endsWith('.json')) continue;
    const rel = `theme-translations/${path.relative(translations, abs)}`;
    const text = fs.readFileSync(abs, 'utf8');
    writeFile(dir, rel, text);
    if (!rel.includes('/locales/base/')) continue;
    for (const [k, v] of Object.entries(JSON.parse(text) as Record<string, unknown>)) if (typeof v === 'string' && !k.endsWith('___DESCRIPTION')) base.set(k, v);
  }
  const byValue = new Map<string, { query: string; files: Set<string> }>();
  for (const [key, value] of base) {
    const shown = value.replace(/\{[^}]*\}/g, ' ').replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
    if (!/\p{L}{2}/u.test(shown)) continue;
    const users = code.filter((f) => f.text.includes(`'${key}'`) || f.text.includes(`"${key}"`) || f.text.includes(`\`${key}\``)).map((f) => f.rel);
    if (!users.length) continue;
    const k = shown.toLowerCase();
    const g = byValue.get(k) ?? { query: shown, files: new Set<string>() };
    for (const u of users) g.files.add(u);
    byValue.set(k, g);
  }
  const gold = [...byValue.values()].map((g) => ({ query: g.query, files: [...g.files].sort(), route: 'react-ui' })).filter((g) => g.files.length <= 4);
  return { name: 'react-ui', dir, gold, isLocale: (f) => /\/locales\//.test(f) };
}

/**
 * `react-intl-ui`: Open edX's Paragon (`@openedx/paragon`: React components with react-intl,
 * `defineMessages({ k: { id, defaultMessage } })` modules and `<FormattedMessage id
 * defaultMessage>`; translations in `src/i18n/messages/<locale>.json`, no English catalog: the
 * English is each message's `defaultMessage`). Query: a message's `defaultMessage` (read from
 * the code's AST; placeholders dropped) → the files whose code names its id as a string literal;
 * a text given for two ids has the files of both, and one with more than 4 files is left out (as
 * in vue-ui). Tests, stories and snapshots are left out of the workspace.
 */
function reactIntlUiBench(): Bench | string {
  const root = path.join(nm, '@openedx/paragon');
  if (!fs.existsSync(path.join(root, 'src'))) return 'react-intl-ui skipped: @openedx/paragon not installed (bench/ranking-corpus)';
  const dir = freshDir('react-intl-ui');
  const code: Array<{ rel: string; text: string }> = [];
  const english = new Map<string, string>();
  const str = (n: unknown): string | undefined => {
    const x = n as { type?: string; value?: unknown; expression?: unknown } | null;
    if (x?.type === 'StringLiteral' && typeof x.value === 'string') return x.value;
    if (x?.type === 'JSXExpressionContainer') return str(x.expression);
    return undefined;
  };
  const visit = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(visit);
    const o = n as Record<string, unknown>;
    if (o.type === 'ObjectExpression' || o.type === 'JSXOpeningElement') {
      const fields = new Map<string, string>();
      for (const p of (o.type === 'ObjectExpression' ? o.properties : o.attributes) as Array<Record<string, unknown>>) {
        const k = p.key ?? p.name;
        const name = (k as { name?: string; value?: string } | undefined)?.name ?? (k as { value?: string } | undefined)?.value;
        const v = str(p.value);
        if (typeof name === 'string' && v !== undefined) fields.set(name, v);
      }
      const id = fields.get('id');
      const dm = fields.get('defaultMessage');
      if (id && dm && !english.has(id)) english.set(id, dm);
    }
    for (const [k, v] of Object.entries(o)) if (k !== 'loc' && k !== 'start' && k !== 'end' && v && typeof v === 'object') visit(v);
  };
  for (const abs of walk(path.join(root, 'src'))) {
    const rel = path.relative(root, abs);
    if (/(?:^|\/)__\w+__\/|\.(?:test|stories)\.[jt]sx?$|\.snap$/.test(rel)) continue;
    const wsRel = `paragon/${rel}`;
    if (/^src\/i18n\/messages\/[^/]+\.json$/.test(rel)) {
      writeFile(dir, wsRel, fs.readFileSync(abs, 'utf8'));
      continue;
    }
    if (!/\.[jt]sx?$/.test(rel) || rel.endsWith('.d.ts')) continue;
    const text = fs.readFileSync(abs, 'utf8');
    writeFile(dir, wsRel, text);
    code.push({ rel: wsRel, text });
    try {
      visit(babelParse(text, { sourceType: 'module', plugins: ['jsx', 'typescript'], errorRecovery: true }).program);
    } catch {
      // a file Babel cannot read names no message here
    }
  }
  const byValue = new Map<string, { query: string; files: Set<string> }>();
  for (const [id, value] of english) {
    const shown = value.replace(/\{[^}]*\}/g, ' ').replace(/\s+/g, ' ').trim();
    if (!/\p{L}{2}/u.test(shown)) continue;
    const users = code.filter((f) => f.text.includes(`'${id}'`) || f.text.includes(`"${id}"`) || f.text.includes(`\`${id}\``)).map((f) => f.rel);
    if (!users.length) continue;
    const k = shown.toLowerCase();
    const g = byValue.get(k) ?? { query: shown, files: new Set<string>() };
    for (const u of users) g.files.add(u);
    byValue.set(k, g);
  }
  const gold = [...byValue.values()].map((g) => ({ query: g.query, files: [...g.files].sort(), route: 'react-intl-ui' })).filter((g) => g.files.length <= 4);
  return { name: 'react-intl-ui', dir, gold, isLocale: (f) => /\/i18n\/messages\//.test(f) };
}

/** 1-based line of a text offset. */
const lineAt = (text: string, offset: number): number => {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * The keys a schema property names its UI component with: Formily's `x-component` (the
 * designable packages below), the product's `component` (and a form-field extension's
 * `field.component`), ui-schema's / form-render's `widget`, and react-jsonschema-form's
 * `ui:widget` / `ui:field` written inline. `x-decorator` (the FormItem wrapper) is no component.
 */
const COMPONENT_KEYS = ['x-component', 'component', 'widget', 'ui:widget', 'ui:field'];

function componentOf(v: Record<string, unknown>): string | undefined {
  for (const k of COMPONENT_KEYS) if (typeof v[k] === 'string') return v[k] as string;
  const field = v.field;
  if (field && typeof field === 'object' && typeof (field as Record<string, unknown>).component === 'string') return (field as Record<string, string>).component;
  return undefined;
}

/** Every property below `properties` / `items` / combinators, with the component it names: [key, component]. */
function* schemaFields(o: unknown): Generator<[string, string]> {
  if (!o || typeof o !== 'object') return;
  if (Array.isArray(o)) {
    for (const x of o) yield* schemaFields(x);
    return;
  }
  const obj = o as Record<string, unknown>;
  const props = obj.properties;
  if (props && typeof props === 'object' && !Array.isArray(props)) {
    for (const [key, v] of Object.entries(props as Record<string, unknown>)) {
      if (!v || typeof v !== 'object') continue;
      const comp = componentOf(v as Record<string, unknown>);
      if (comp) yield [key, comp];
      yield* schemaFields(v);
    }
  }
  for (const k of ['items', 'additionalProperties', 'allOf', 'anyOf', 'oneOf']) if (obj[k]) yield* schemaFields(obj[k]);
}

/**
 * `schema`: `field <key> with component <Component>` → the JSON Schema file whose property
 * `<key>` names that component. The sources are the property-panel schemas of
 * @designable/formily-antd (Formily JSON Schemas with `x-component`, one module each in
 * lib/schemas), written out as the JSON files a Formily designer stores
 * (`designable/schemas/<Name>.json`; a sub-schema hung on an export, `DatePicker.RangePicker`,
 * its own file); the designer's other modules (components, locales, setters) and
 * @formily/antd's component sources (`Switch`, `Select`, `NumberPicker` … each in its own file:
 * the files a query naming the component must not lose to) are indexed as they are. A query
 * found for two files is left out. line@5: a top-5 chunk holds the property's key line.
 */
function schemaBench(): Bench {
  const dir = freshDir('schema');
  const designable = path.join(nm, '@designable/formily-antd');
  const req = createRequire(path.join(designable, 'package.json'));
  const schemaDir = path.join(designable, 'lib/schemas');
  const byQuery = new Map<string, Gold>();
  const seen = new Map<string, Set<string>>();
  const offer = (g: Gold) => {
    const k = g.query.toLowerCase();
    const files = seen.get(k) ?? new Set();
    files.add(g.files[0]);
    seen.set(k, files);
    if (!byQuery.has(k)) byQuery.set(k, g);
  };
  const writeSchema = (rel: string, schema: Record<string, unknown>) => {
    const text = `${JSON.stringify(schema, null, 2)}\n`;
    writeFile(dir, rel, text);
    for (const [key, comp] of schemaFields(schema)) {
      const at = text.search(new RegExp(`^\\s*${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\{\\n(?:(?!^\\s*"[^"]+": \\{\\n)[\\s\\S])*?"(?:${COMPONENT_KEYS.join('|')})": ${JSON.stringify(comp).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
      offer({ query: `field ${key} with component ${comp}`, files: [rel], route: 'schema', line: at >= 0 ? lineAt(text, at) : undefined });
    }
  };
  for (const name of fs.readdirSync(schemaDir).sort()) {
    if (!name.endsWith('.js') || name === 'index.js' || name === 'all.js') continue;
    let mod: Record<string, unknown>;
    try {
      mod = req(path.join(schemaDir, name)) as Record<string, unknown>;
    } catch (err) {
      log(`schema: ${name} not loaded (${(err as Error).message.split('\n')[0]})`);
      continue;
    }
    const done = new Set<unknown>();
    // `DatePicker.RangePicker = {…}`: a sub-schema hung on the export goes to its own file (`Upload.Dragger = Upload`: once)
    const split = (name: string, value: Record<string, unknown>) => {
      if (done.has(value)) return;
      done.add(value);
      const schema = { ...value };
      for (const [k, sub] of Object.entries(schema)) {
        if (/^[A-Z]/.test(k) && sub && typeof sub === 'object' && 'properties' in sub) {
          delete schema[k];
          split(`${name}.${k}`, sub as Record<string, unknown>);
        }
      }
      writeSchema(`designable/schemas/${name}.json`, schema);
    };
    for (const [exp, value] of Object.entries(mod)) {
      if (value && typeof value === 'object' && 'properties' in value) split(exp, value as Record<string, unknown>);
    }
  }
  const copyTree = (root: string, prefix: string, keep: (rel: string) => boolean) => {
    for (const abs of walk(root)) {
      const rel = path.relative(root, abs);
      if (keep(rel)) writeFile(dir, `${prefix}/${rel}`, fs.readFileSync(abs, 'utf8'));
    }
  };
  copyTree(path.join(designable, 'lib'), 'designable', (rel) => rel.endsWith('.js') && !rel.startsWith('schemas/'));
  copyTree(path.join(nm, '@formily/antd/esm'), 'formily-antd', (rel) => /\.(?:js|d\.ts)$/.test(rel) && !rel.endsWith('.map'));
  const gold = [...byQuery.values()].filter((g) => seen.get(g.query.toLowerCase())!.size === 1);
  return { name: 'schema', dir, gold };
}

/** The packages of the registration benchmark: folder (under node_modules) → what of it is indexed. */
const REGISTRATION_SOURCES: Array<{ pkg: string; keep: (rel: string) => boolean }> = [
  // vuepress 2: client configs and install functions of the theme and its plugins
  ...['vuepress-theme-hope', 'vuepress-plugin-components', 'vuepress-plugin-md-enhance', 'vuepress-shared'].map((pkg) => ({ pkg, keep: (rel: string) => rel.startsWith('lib/') && /\.(?:js|vue)$/.test(rel) })),
  { pkg: '@vuepress', keep: (rel: string) => /^[\w-]+\/(?:lib|dist)\//.test(rel) && /\.(?:js|vue)$/.test(rel) && !/\.min\.js$|\/dist\/.*\.(?:cjs|umd|global)/.test(rel) },
  // one build of each router: every build holds the same registration lines
  { pkg: 'vue-router', keep: (rel: string) => rel === 'dist/vue-router.mjs' },
  { pkg: 'vue-router3', keep: (rel: string) => rel === 'dist/vue-router.esm.js' },
  { pkg: '@nuxt/vue-app', keep: (rel: string) => rel.startsWith('template/') && /\.(?:js|vue)$/.test(rel) },
  { pkg: '@inertiajs/vue3', keep: (rel: string) => rel === 'dist/index.esm.js' || rel === 'dist/index.js' },
  // Vue 2 plugins whose install registers their components by name (sources as published)
  { pkg: 'vue2-google-maps', keep: (rel: string) => rel.startsWith('src/') && /\.(?:js|vue)$/.test(rel) },
  { pkg: 'vue-carousel', keep: (rel: string) => rel.startsWith('src/') && /\.(?:js|vue)$/.test(rel) },
  { pkg: 'mavon-editor', keep: (rel: string) => rel.startsWith('src/') && /\.(?:js|vue)$/.test(rel) && !rel.includes('/lib/core/hljs/') },
  { pkg: 'floating-vue', keep: (rel: string) => rel === 'dist/floating-vue.mjs' },
  // element-plus: `export const ElButton = withInstall(Button, …)` in each component's index
  { pkg: 'element-plus', keep: (rel: string) => /^es\/(?:components|utils)\//.test(rel) && rel.endsWith('.mjs') },
];

/**
 * `registration`: `global registration of <name> (<Component>)` → the file and the line that
 * registers it: `app.component('<name>', <Component>)` / `Vue.component(…)` with a literal name
 * (route `registration`), and the install wrappers of component libraries,
 * `const <Name> = withInstall(<Component>, …)` (route `install`). Sources: the client code of
 * vuepress 2 (theme-hope, its plugins), vue-router 3 and 4, Nuxt 2's app template, Inertia's Vue
 * adapter, vue2-google-maps, vue-carousel, mavon-editor, floating-vue, element-plus's component
 * modules. Files published minified (a line over 1,000 characters: vuepress's lib/node bundles,
 * which write the client configs' registration lines) are left out: Fathom skips them as
 * minified, and nobody edits them. A query found for two files is left out.
 * line@5: a top-5 chunk of the gold file holds the registration line.
 */
function registrationBench(): Bench {
  const dir = freshDir('registration');
  const byQuery = new Map<string, Gold>();
  const seen = new Map<string, Set<string>>();
  for (const src of REGISTRATION_SOURCES) {
    const root = path.join(nm, src.pkg);
    if (!fs.existsSync(root)) {
      log(`registration: ${src.pkg} not installed`);
      continue;
    }
    for (const abs of walk(root)) {
      const rel = path.relative(root, abs);
      if (!src.keep(rel)) continue;
      const text = fs.readFileSync(abs, 'utf8');
      // published minified (vuepress's lib/node, its client configs): no source anyone edits, and Fathom skips it as minified
      if (text.split('\n').some((l) => l.length > 1000)) continue;
      const wsRel = `${src.pkg}/${rel}`;
      writeFile(dir, wsRel, text);
      const found: Array<{ name: string; comp: string; at: number; route: string }> = [];
      for (const m of text.matchAll(/\.\s*component\(\s*(['"`])([\w$-]+)\1\s*,\s*([\w$]+(?:\.[\w$]+)*)\s*\)/g)) found.push({ name: m[2], comp: m[3], at: m.index, route: 'registration' });
      for (const m of text.matchAll(/\b(?:const|let|var)\s+([\w$]+)\s*=\s*withInstall\(\s*([\w$]+)/g)) found.push({ name: m[1], comp: m[2], at: m.index, route: 'install' });
      for (const f of found) {
        const query = `global registration of ${f.name} (${f.comp})`;
        const k = query.toLowerCase();
        const files = seen.get(k) ?? new Set();
        files.add(wsRel);
        seen.set(k, files);
        if (!byQuery.has(k)) byQuery.set(k, { query, files: [wsRel], route: f.route, line: lineAt(text, f.at) });
      }
    }
  }
  const gold = [...byQuery.values()].filter((g) => seen.get(g.query.toLowerCase())!.size === 1);
  return { name: 'registration', dir, gold };
}

// ---------------------------------------------------------------------------------------------
// the CLIs

interface Cli {
  name: string;
  bin: string;
}

function run(cmd: string, args: string[], opts: { cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? repo, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The baseline's CLI: `git archive <ref>` into bench/.ranking/baseline-<ref>, this repo's node_modules, built with esbuild. */
function baselineCli(ref: string): Cli {
  const sha = run('git', ['rev-parse', '--short', ref]).trim();
  const dir = path.join(work, `baseline-${sha}`);
  const bin = path.join(dir, 'bin', 'fathom.js');
  if (!fs.existsSync(path.join(dir, 'dist', 'cli.js'))) {
    log(`building the baseline CLI at ${sha}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const tar = path.join(work, `baseline-${sha}.tar`);
    run('git', ['archive', '--format=tar', '-o', tar, sha]);
    run('tar', ['-xf', tar, '-C', dir]);
    fs.rmSync(tar);
    fs.symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
    run('node', ['esbuild.mjs'], { cwd: dir });
  }
  return { name: `baseline ${sha}`, bin };
}

function currentCli(): Cli {
  run('node', ['esbuild.mjs']);
  return { name: 'this build', bin: path.join(repo, 'bin', 'fathom.js') };
}

interface Answer {
  files: string[];
  /** Per result, its line range (1-based, inclusive). */
  ranges?: Array<[number, number]>;
}

interface IndexCost {
  seconds: number;
  storeBytes: number;
  chunks: number;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of walk(dir)) n += fs.statSync(f).size;
  return n;
}

/**
 * Indexes `b` with `cli` and answers `queries` with `fathom batch --mode <mode>`. `model`:
 * undefined → keyword-only (`--no-embed`); '' → the default model; else `--model-path <model>`.
 */
function runCli(cli: Cli, b: Bench, queries: Gold[], model?: string, mode: 'keyword' | 'dense' | 'hybrid' = 'keyword'): { answers: Answer[]; cost: IndexCost; store: string; qFile: string; rFile: string; modelArgs: string[] } {
  const tag = `${cli.name.replace(/\W+/g, '-')}${model === undefined ? '' : `-model${model ? `-${path.basename(model)}` : ''}`}`;
  const modelArgs = model === undefined ? ['--no-embed'] : model ? ['--model-path', model] : [];
  const store = path.join(work, 'stores', tag, b.name);
  fs.rmSync(store, { recursive: true, force: true });
  const t0 = Date.now();
  const out = run('node', [cli.bin, 'index', b.dir, ...modelArgs, '--store', store]);
  const seconds = (Date.now() - t0) / 1000;
  const chunks = Number(/(\d+) chunks/.exec(out)?.[1] ?? 0);
  const qFile = path.join(work, 'stores', tag, `${b.name}.queries.jsonl`);
  const rFile = path.join(work, 'stores', tag, `${b.name}.results.jsonl`);
  fs.writeFileSync(qFile, queries.map((g, i) => JSON.stringify({ id: i, query: g.query })).join('\n') + '\n');
  // the gold with its half, for looking at the tuning half by hand
  fs.writeFileSync(path.join(work, 'stores', tag, `${b.name}.gold.jsonl`), queries.map((g, i) => JSON.stringify({ id: i, query: g.query, files: g.files, line: g.line, half: half(b.name, g.query) })).join('\n') + '\n');
  const answers = batchAnswers(cli, b, store, queries, qFile, rFile, modelArgs, mode);
  return { answers, cost: { seconds, storeBytes: dirBytes(store), chunks }, store, qFile, rFile, modelArgs };
}

function batchAnswers(cli: Cli, b: Bench, store: string, queries: Gold[], qFile: string, rFile: string, modelArgs: string[], mode: string): Answer[] {
  run('node', [cli.bin, 'batch', '--dir', b.dir, '--store', store, ...modelArgs, '--queries', qFile, '--out', rFile, '--k', '10', '--mode', mode]);
  const answers: Answer[] = queries.map(() => ({ files: [] }));
  for (const line of fs.readFileSync(rFile, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { id: number; results: Array<{ file: string; startLine: number; endLine: number }> };
    answers[r.id] = { files: r.results.map((x) => x.file), ranges: r.results.map((x) => [x.startLine, x.endLine]) };
  }
  return answers;
}

// ---------------------------------------------------------------------------------------------
// LangChain's splitter + plain BM25 over the same tokens

async function langchainBm25(b: Bench, queries: Gold[]): Promise<Answer[]> {
  // installed in bench/ranking-corpus, not a dependency of Fathom
  type Splitter = { splitText(text: string): Promise<string[]> };
  const { RecursiveCharacterTextSplitter } = (await import(path.join(nm, '@langchain/textsplitters/dist/index.js'))) as {
    RecursiveCharacterTextSplitter: { fromLanguage(lang: string, o: { chunkSize: number; chunkOverlap: number }): Splitter };
  };
  const splitter = RecursiveCharacterTextSplitter.fromLanguage(b.splitter!, { chunkSize: 800, chunkOverlap: 120 });
  const docs: Array<{ file: string; tf: Map<string, number>; len: number; lines: [number, number] }> = [];
  for (const abs of walk(b.dir)) {
    const file = path.relative(b.dir, abs);
    const text = fs.readFileSync(abs, 'utf8');
    // each piece's lines: the splitter keeps the pieces in order (overlapping), trimmed
    let from = 0;
    for (const piece of await splitter.splitText(text)) {
      const at = text.indexOf(piece, from);
      const start = at < 0 ? from : at;
      if (at >= 0) from = at + 1;
      const line = text.slice(0, start).split('\n').length;
      const ts = terms(piece);
      const tf = new Map<string, number>();
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      docs.push({ file, tf, len: ts.length, lines: [line, line + piece.split('\n').length - 1] });
    }
  }
  const N = docs.length;
  const avg = docs.reduce((s, d) => s + d.len, 0) / Math.max(1, N);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const k1 = 1.2;
  const bb = 0.75;
  return queries.map((g) => {
    const q = queryTerms(g.query);
    const scored: Array<{ file: string; s: number; i: number }> = [];
    docs.forEach((d, i) => {
      let s = 0;
      for (const t of q) {
        const f = d.tf.get(t);
        if (!f) continue;
        const n = df.get(t)!;
        const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
        s += (idf * f * (k1 + 1)) / (f + k1 * (1 - bb + (bb * d.len) / avg));
      }
      if (s > 0) scored.push({ file: d.file, s, i });
    });
    scored.sort((x, y) => y.s - x.s || x.i - y.i);
    const top = scored.slice(0, 10);
    return { files: top.map((x) => x.file), ranges: top.map((x) => docs[x.i].lines) };
  });
}

// ---------------------------------------------------------------------------------------------
// scoring

interface Scores {
  queries: number;
  hit1: number;
  hit5: number;
  hit10: number;
  mrr: number;
  locale5?: number;
  /** Queries with a gold line: a top-5 chunk of the gold file holds that line. */
  line5?: number;
}

function score(gold: Gold[], answers: Answer[], isLocale?: (f: string) => boolean): Scores {
  const s: Scores = { queries: gold.length, hit1: 0, hit5: 0, hit10: 0, mrr: 0 };
  let slots = 0;
  let localeSlots = 0;
  let lined = 0;
  let lineHits = 0;
  gold.forEach((g, i) => {
    const files = answers[i]?.files ?? [];
    const ranges = answers[i]?.ranges;
    if (g.line !== undefined && ranges) {
      lined++;
      if (files.slice(0, 5).some((f, j) => g.files.includes(f) && ranges[j][0] <= g.line! && g.line! <= ranges[j][1])) lineHits++;
    }
    const first = files.findIndex((f) => g.files.includes(f));
    if (first === 0) s.hit1++;
    if (first >= 0 && first < 5) s.hit5++;
    if (first >= 0 && first < 10) s.hit10++;
    if (first >= 0) s.mrr += 1 / (first + 1);
    if (isLocale) {
      const top = files.slice(0, 5);
      slots += 5;
      localeSlots += top.filter(isLocale).length;
    }
  });
  const n = Math.max(1, gold.length);
  s.hit1 /= n;
  s.hit5 /= n;
  s.hit10 /= n;
  s.mrr /= n;
  if (isLocale) s.locale5 = localeSlots / Math.max(1, slots);
  if (lined) s.line5 = lineHits / lined;
  return s;
}

// FNV's low bit is only the parity of the characters (a query naming one identifier twice always lands in one half): the top bit.
const half = (bench: string, q: string): 'tuning' | 'held-out' => (hash(`${bench}\0${q}`, SEED) >>> 31 === 0 ? 'tuning' : 'held-out');

function minedBench(cli: Cli, from: Bench): Bench {
  const store = path.join(work, 'stores', 'mine', from.name);
  fs.rmSync(store, { recursive: true, force: true });
  const file = path.join(work, 'stores', 'mine', `${from.name}.gold.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  run('node', [cli.bin, 'eval', from.dir, '--no-embed', '--store', store, '--write-gold', file]);
  const gold: Gold[] = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { query: string; file: string; route: string })
    .map((g) => ({ query: g.query, files: [g.file], route: g.route }));
  return { name: `mined-${from.name}`, dir: from.dir, gold, isLocale: from.isLocale };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(work, { recursive: true });
  ensureNpm();
  if (args.prepareOnly) {
    // the sources only (for train/run.sh's --exclude-tree): no index, no query
    for (const name of ['py-repo', 'go-repo'] as const) for (const pkg of REPO_DEBS[name].debs) if (!debTree(pkg)) log(`apt-get download ${pkg} failed`);
    for (const r of [pyDocBench(), goDocBench()]) if (typeof r === 'string') log(r);
    return;
  }
  const want = (n: string) => !args.only || args.only.has(n);
  const benches: Bench[] = [];
  const skips: string[] = [];
  const add = (b: Bench | string) => (typeof b === 'string' ? skips.push(b) : benches.push(b));
  if (want('js-doc') || want('mined')) add(jsDocBench());
  if (want('ts-doc')) add(tsDocBench());
  if (want('py-doc')) add(pyDocBench());
  if (want('go-doc')) add(goDocBench());
  if (want('py-repo')) add(repoDocBench('py-repo'));
  if (want('go-repo')) add(repoDocBench('go-repo'));
  if (want('py-docs')) add(repoDocBench('py-docs'));
  // measured, never tuned on: only when asked by name
  if (args.only?.has('flask')) add(repoDocBench('flask'));
  if (args.only?.has('flask-docs')) add(repoDocBench('flask-docs'));
  if (args.only?.has('gin')) add(repoDocBench('gin'));
  if (want('vue-ui') || want('mined')) add(await vueUiBench());
  if (want('react-ui') || want('mined')) add(reactUiBench());
  if (want('react-intl-ui') || want('mined')) add(reactIntlUiBench());
  if (want('schema') || want('mined')) add(schemaBench());
  if (want('registration') || want('mined')) add(registrationBench());
  for (const s of skips) log(s);
  const clis: Cli[] = [];
  if (args.baseline) clis.push(baselineCli(args.baseline));
  clis.push(currentCli());
  if (want('mined')) {
    // js-doc and vue-ui mined with the baseline (its routes; figures comparable with earlier runs), the
    // schema and registration workspaces with this build: the baseline has no registration route
    for (const from of benches.filter((b) => b.name === 'js-doc' || b.name === 'vue-ui')) benches.push(minedBench(clis[0], from));
    // react-ui with this build too: the baseline reads no locales/base/ (the English source) and
    // attaches no UI words to Docusaurus' components, so its `ui` route would be empty
    for (const from of benches.filter((b) => b.name === 'schema' || b.name === 'registration' || b.name === 'react-ui' || b.name === 'react-intl-ui')) benches.push(minedBench(clis[clis.length - 1], from));
  }
  const selected = benches.filter((b) => want(b.name) || (b.name.startsWith('mined-') && want('mined')));
  const rows: Array<{ bench: string; route: string; half: string; system: string } & Scores> = [];
  const costs: Array<{ bench: string; system: string } & IndexCost> = [];
  const misses: string[] = [];
  for (const b of selected) {
    log(`${b.name}: ${b.gold.length} queries, ${b.dir}`);
    const systems: Array<{ name: string; answers: Answer[] }> = [];
    for (const cli of clis) {
      const { answers, cost } = runCli(cli, b, b.gold);
      systems.push({ name: cli.name, answers });
      costs.push({ bench: b.name, system: cli.name, ...cost });
    }
    if (args.model !== undefined) {
      // this build with the model: its dense ranking alone, and the hybrid one users get by default
      const cli = clis[clis.length - 1];
      const r = runCli(cli, b, b.gold, args.model, 'hybrid');
      costs.push({ bench: b.name, system: `${cli.name} +model`, ...r.cost });
      systems.push({ name: 'model (dense)', answers: batchAnswers(cli, b, r.store, b.gold, r.qFile, r.rFile, r.modelArgs, 'dense') });
      systems.push({ name: 'hybrid', answers: r.answers });
    }
    if (b.splitter) systems.push({ name: 'langchain+bm25', answers: await langchainBm25(b, b.gold) });
    const routes = [...new Set(b.gold.map((g) => g.route))].sort();
    for (const route of routes) {
      for (const h of ['tuning', 'held-out'] as const) {
        const idx = b.gold.map((g, i) => i).filter((i) => b.gold[i].route === route && half(b.name, b.gold[i].query) === h);
        for (const sys of systems) {
          rows.push({ bench: b.name, route, half: h, system: sys.name, ...score(idx.map((i) => b.gold[i]), idx.map((i) => sys.answers[i]), b.isLocale) });
        }
      }
    }
    if (args.misses > 0) {
      const cur = systems[clis.length - 1];
      let n = 0;
      b.gold.forEach((g, i) => {
        if (n >= args.misses || half(b.name, g.query) !== 'tuning') return;
        const files = cur.answers[i].files.slice(0, 5);
        if (files.some((f) => g.files.includes(f))) return;
        n++;
        misses.push(`${b.name} [${g.route}] ${JSON.stringify(g.query)} → ${g.files.join(', ')}\n    got ${files.join(', ')}`);
      });
    }
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ skips, rows, costs })}\n`);
    return;
  }
  const head = ['bench', 'route', 'half', 'system', 'queries', 'hit@1', 'hit@5', 'hit@10', 'MRR', 'locale@5', 'line@5'];
  const table = rows.map((r) => [
    r.bench, r.route, r.half, r.system, String(r.queries), r.hit1.toFixed(3), r.hit5.toFixed(3), r.hit10.toFixed(3), r.mrr.toFixed(3),
    r.locale5 === undefined ? '' : `${(100 * r.locale5).toFixed(0)}%`,
    r.line5 === undefined ? '' : r.line5.toFixed(3),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < 4 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  console.log(line(head));
  for (const r of table) console.log(line(r));
  console.log('\nindex (fathom index --no-embed, or with the model: +model; seconds on a loaded machine)');
  for (const c of costs) console.log(`  ${c.bench.padEnd(16)} ${c.system.padEnd(18)} ${String(c.chunks).padStart(6)} chunks  store ${(c.storeBytes / 1e6).toFixed(2)} MB  ${c.seconds.toFixed(1)} s`);
  for (const s of skips) console.log(s);
  if (misses.length) console.log(`\nmisses (tuning half, this build):\n${misses.join('\n')}`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
