/**
 * What the files of a folder import, for the agent's file ranking: a task about a part of the
 * code that is plugged in somewhere ("Disable Consul", "Disable qingstor backend") is also done
 * where that part is imported — the registry that lists it (discovery/install/install.go,
 * backend/all/all.go) — and such a file holds none of the task's words but in an import line.
 *
 * `importSpecs` reads a file's import statements (Python, Go, JavaScript/TypeScript/Vue, Rust,
 * Java/Kotlin/Scala, C/C++ includes, Ruby requires); `importersOf` lists the files that import a
 * folder of the workspace, reading each file once (again only after its indexed content changed).
 */
/** At most this many characters of a file are read for imports (they come first). */
const HEAD_CHARS = 20_000;

/** An extension a JS import may name (`./zoom.js`, `@/components/KPanel.vue`): no part of the module's path. */
const SCRIPT_EXT = /\.(?:[cm]?[jt]sx?|vue|svelte|json)$/i;

const PY_FROM = /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w., \t]+)/gm;
const PY_IMPORT = /^[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)/gm;
const GO_BLOCK = /^import[ \t]*\(([^)]*)\)/gm;
const GO_SPEC = /^[ \t]*(?:[\w.]+[ \t]+)?"([^"\n]+)"/gm;
const GO_SINGLE = /^import[ \t]+(?:[\w.]+[ \t]+)?"([^"\n]+)"/gm;
const JS = /(?:\bfrom[ \t]*|\bimport[ \t]*\(?[ \t]*|\brequire[ \t]*\([ \t]*)['"]([^'"\n]+)['"]/g;
const RUST = /^[ \t]*(?:pub[ \t]+)?(?:use[ \t]+([\w:{}, \t*]+)|extern[ \t]+crate[ \t]+(\w+))/gm;
const JAVA = /^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)/gm;
const C_INCLUDE = /^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]/gm;
const RUBY = /^[ \t]*require(?:_relative)?[ \t(]+['"]([^'"\n]+)['"]/gm;

/** The import syntax of a file, by its extension. */
const SYNTAX: Array<[RegExp, 'python' | 'go' | 'js' | 'rust' | 'jvm' | 'c' | 'ruby']> = [
  [/\.pyi?$/i, 'python'],
  [/\.go$/i, 'go'],
  [/\.(?:[cm]?[jt]sx?|vue|svelte)$/i, 'js'],
  [/\.rs$/i, 'rust'],
  [/\.(?:java|kts?|scala|groovy)$/i, 'jvm'],
  [/\.(?:c|h|cc|cpp|cxx|hpp|hh|mm?)$/i, 'c'],
  [/\.rb$/i, 'ruby'],
];
const syntaxOf = (path: string) => SYNTAX.find(([re]) => re.test(path))?.[1];

/** The module specifiers a file's text imports, by its extension (none for a language it does not know). */
export function importSpecs(path: string, text: string): string[] {
  const head = text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text;
  const out: string[] = [];
  const all = (re: RegExp, f: (m: RegExpExecArray) => void) => {
    re.lastIndex = 0;
    for (let m = re.exec(head); m; m = re.exec(head)) f(m);
  };
  const first = (re: RegExp) => all(re, (m) => out.push(m[1]));
  switch (syntaxOf(path)) {
    case 'python':
      all(PY_FROM, (m) => {
        // `from . import views`: the names are the modules (relative: `.views`)
        if (/^\.*$/.test(m[1])) for (const name of m[2].split(',')) out.push(`${m[1]}${name.trim().split(/[ \t]+/)[0]}`);
        else out.push(m[1]);
      });
      all(PY_IMPORT, (m) => {
        for (const part of m[1].split(',')) out.push(part.trim().split(/[ \t]+/)[0]);
      });
      break;
    case 'go':
      all(GO_BLOCK, (m) => {
        GO_SPEC.lastIndex = 0;
        for (let s = GO_SPEC.exec(m[1]); s; s = GO_SPEC.exec(m[1])) out.push(s[1]);
      });
      first(GO_SINGLE);
      break;
    case 'js':
      first(JS);
      break;
    case 'rust':
      // `use crate::backend::qingstor::{Fs, Options}` → crate::backend::qingstor
      all(RUST, (m) => out.push(m[2] ?? m[1].replace(/::\s*(?:\{[^}]*\}?|\*)\s*$/, '').trim()));
      break;
    case 'jvm':
      first(JAVA);
      break;
    case 'c':
      first(C_INCLUDE);
      break;
    case 'ruby':
      first(RUBY);
      break;
  }
  return out.filter(Boolean);
}

/** Files larger than this are not read for imports. */
const MAX_READ = 2_000_000;

/**
 * What a file imports as `/`-joined segments: `github.com/rclone/rclone/backend/qingstor`,
 * `django/db/models` (from `django.db.models`), `crate/backend/qingstor` (from Rust's `::`), a
 * relative JS or Python import resolved from the file's folder (`src/map/zoom` for `./zoom.js`
 * in `src/map/index.js`).
 */
export function importPaths(path: string, text: string): string[] {
  const syntax = syntaxOf(path);
  // modules named with dots (`django.db.models`, `org.app.Client`) or `::` (Rust)
  const dotted = syntax === 'python' || syntax === 'jvm' || syntax === 'rust';
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const out = new Set<string>();
  for (const spec of importSpecs(path, text)) {
    let segs: string[];
    if (/^\.\.?\//.test(spec)) {
      // a relative JS import: from the file's folder
      segs = dir ? dir.split('/') : [];
      for (const s of spec.replace(SCRIPT_EXT, '').split('/')) {
        if (s === '..') segs.pop();
        else if (s && s !== '.') segs.push(s);
      }
    } else if (/^\.+\w/.test(spec) && syntax === 'python') {
      // a relative Python import: one dot is the file's package, each more one level up
      const dots = /^\.+/.exec(spec)![0].length;
      segs = dir ? dir.split('/') : [];
      segs.splice(Math.max(0, segs.length - (dots - 1)));
      segs.push(...spec.slice(dots).split('.').filter(Boolean));
    } else segs = (dotted ? spec.split(/[.:]+/) : spec.replace(SCRIPT_EXT, '').split('/')).filter(Boolean);
    if (segs.length) out.add(segs.join('/'));
  }
  return [...out];
}

/**
 * Import paths by the file's content hash and path (the path resolves relative imports): a file is
 * read again only when its indexed content changed. The stored engine makes a new chunk object on
 * every read, so nothing about its chunks can key this.
 */
const cache = new Map<string, string[]>();
/** Entries kept at most; then the cache starts over (a file costs one read to come back). */
const CACHE_LIMIT = 200_000;

/**
 * A folder with more files of these languages than this is not read for imports: the first
 * read of docker.io's 5,714 files took 0.4 s, and a monorepo's 100,000 would take seconds.
 */
export const MAX_IMPORT_SCAN = 20_000;

/**
 * The files of `paths` that import the folder `folder` (from outside it), e.g. the registry of a
 * plugin; undefined when the workspace has too many files to read (`MAX_IMPORT_SCAN`).
 */
export function importersOf(folder: string, paths: Iterable<string>, hashOf: (p: string) => string | undefined, read: (p: string, maxBytes: number) => string | undefined): string[] | undefined {
  const candidates: string[] = [];
  for (const p of paths) if (syntaxOf(p) && !p.startsWith(`${folder}/`)) candidates.push(p);
  if (candidates.length > MAX_IMPORT_SCAN) return undefined;
  const tail = folder.split('/').slice(-2).join('/');
  const out: string[] = [];
  for (const p of candidates) {
    const hash = hashOf(p);
    if (!hash) continue;
    const key = `${hash}\0${p}`;
    let t = cache.get(key);
    if (!t) {
      const text = read(p, MAX_READ);
      t = text === undefined ? [] : importPaths(p, text);
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(key, t);
    }
    if (t.some((x) => x === tail || x.endsWith(`/${tail}`) || x.includes(`/${tail}/`) || x.startsWith(`${tail}/`))) out.push(p);
  }
  return out;
}
