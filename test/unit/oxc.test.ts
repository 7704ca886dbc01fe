/**
 * oxc's parser in Babel's shape (src/parse/oxc.ts): it loads here, the readers get the same
 * nodes (type and range) as from Babel on every construct the conversion handles, scripts oxc
 * reports errors for go to Babel, and chunks and usages of every fixture are the same with oxc
 * as with Babel alone (bench/parser-identity.ts does the same over whole corpora).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from '@babel/parser';
import { chunkFile, resolveOptions } from '../../src/chunkers/index';
import { walkAst } from '../../src/i18n/script-usages';
import { findUsages } from '../../src/i18n/usages';
import { readLocaleScript } from '../../src/i18n/locales';
import { counts, oxcMaxChars, oxcParse, oxcStatus, STACK_BYTES_PER_CHAR, useOxc, WARM_UP } from '../../src/parse/oxc';
import { BASE_PLUGINS, LENIENT_PARSE, parseScript } from '../../src/parse/script';
import { rawTransferProblem, useRawTransfer } from '../../src/parse/oxc-raw';

const FIXTURES = path.join(__dirname, '../fixtures');

/** Every node's type and range (sorted: the two parsers order some TypeScript children apart). */
function outline(root: unknown): string[] {
  const out: string[] = [];
  walkAst(root, (n) => out.push(`${n.type} ${n.start}-${n.end}`));
  return out.sort();
}

function babel(code: string, typescript: boolean): unknown {
  return parse(code, { ...LENIENT_PARSE, plugins: [...BASE_PLUGINS, typescript ? 'typescript' : 'jsx'] }).program;
}

function files(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (/\.(m?[jt]sx?|cjs|vue)$/.test(e.name)) out.push(p);
  }
  return out;
}

describe('oxc parser in Babel shape', function () {
  afterEach(function () {
    useOxc(undefined);
    useRawTransfer(undefined);
  });

  it('loads here (the prebuilt binding for this platform is installed)', function () {
    assert.deepEqual(oxcStatus(), { enabled: true });
  });

  it('the warm-up scripts parse without an error, with many kinds of node (else the warm-up does nothing)', function () {
    for (const [lang, code] of WARM_UP) {
      const before = counts.parsed;
      const ast = oxcParse(code, lang !== 'jsx', lang !== 'ts');
      assert.ok(ast, `${lang} warm-up parsed`);
      assert.equal(counts.parsed, before + 1);
      assert.ok(new Set(outline(ast.program).map((l) => l.split(' ')[0])).size >= 25, `${lang} warm-up has many kinds of node`);
    }
  });

  it('raw transfer gives the same ASTs as the JSON path, on every fixture and on literals, non-ASCII text and comments', function () {
    const scripts: Array<[string, boolean, boolean]> = files(FIXTURES)
      .filter((f) => !f.endsWith('.vue'))
      .map((f) => [fs.readFileSync(f, 'utf8'), /\.[mc]?tsx?$/.test(f), /x$/.test(f)]);
    scripts.push(["#!/usr/bin/env node\n// é 中文 😀\nconst s = 'ünïcödé 😀', r = /[é]+/giu, b = 123n, t = `${s}—${r}`; /* ∑ */ f(s?.x, b);", false, false]);
    scripts.push(...WARM_UP.map(([lang, code]): [string, boolean, boolean] => [code, lang !== 'jsx', lang !== 'ts']));
    let compared = 0;
    for (const [code, ts, jsx] of scripts) {
      useRawTransfer(undefined);
      const raw = oxcParse(code, ts, jsx);
      useRawTransfer(false);
      const json = oxcParse(code, ts, jsx);
      assert.deepEqual(raw, json);
      if (raw) compared++;
    }
    assert.ok(compared >= 10, `${compared} scripts compared`);
    // Linux x64 is where it was measured to work: there a fallback to JSON would be a regression
    if (process.platform === 'linux' && process.arch === 'x64') assert.equal(rawTransferProblem(), undefined);
  });

  const cases: Array<[string, string, boolean]> = [
    ['object methods, getters, computed and string keys', "const a = { m() { return 1 }, get g() { return 2 }, async *gen() {}, ['k']: 3, 'q': 4, n: 5, s };", false],
    ['classes: private members, static, decorators, accessors', 'class C extends B { #p = 1; static s = 2; #m() {} static t() {} get x() { return this.#p } set x(v) {} constructor() { super() } }\n@dec class D {}\n@dec() export class E {}\nexport default @dec class {}', true],
    ['optional chains', 'a?.b.c(); a.b?.(); a?.[k]?.m?.(x).y; (a?.b).c; x?.y!.z;', true],
    ['directives and a hashbang', "#!/usr/bin/env node\n'use strict';\n'another';\nfunction f() { 'use asm'; return 1 }", false],
    ['literals: strings, numbers, regexps, bigints, templates, null, booleans', 'f("a", 1, /x+/gi, 10n, `t${u}v${w}`, null, true, tag`q${1}`);', false],
    ['JSX: elements, attributes, text, fragments, spreads', 'const v = <div id="a" {...p} on={f}>text {x} <b>y</b><></></div>;', false],
    ['TypeScript: interfaces, types, enums, namespaces, declares, abstract, overloads', "interface I { a: number }\ntype T = { b: string };\nenum E { A = 1, B }\nnamespace N.M.O { export const z = 1 }\ndeclare module 'm' { export function f(): void }\ndeclare function g(): void;\nabstract class A { abstract m(): void; abstract p: number; q!: string; constructor(private r: number) { this.q = '' } }\nfunction h(a: string): void;\nfunction h(a: any) {}\nexport = h;", true],
    ['TypeScript expressions: as, satisfies, non-null, generics, dynamic import', "const a = b as C; const d = e satisfies F; g!.h; k<T>(l); import('./m').then(n => n);", true],
    ['imports and exports', "import a, { b as c } from 'd' with { type: 'json' };\nimport * as e from 'f';\nexport { a as default, c };\nexport * from 'g';\nexport const h = 1;", false],
  ];
  for (const [name, code, ts] of cases) {
    it(`gives the nodes Babel gives: ${name}`, function () {
      const before = counts.parsed;
      const fast = oxcParse(code, ts, !ts);
      assert.ok(fast, 'oxc parsed it');
      assert.equal(counts.parsed, before + 1);
      assert.deepEqual(outline(fast.program), outline(babel(code, ts)));
    });
  }

  it('the hashbang is the program interpreter, not a comment, as in Babel', function () {
    const code = '#!/usr/bin/env node\n// a comment\nexport default 1;\n';
    const fast = oxcParse(code, false, true)!;
    const slow = parse(code, { ...LENIENT_PARSE, plugins: [...BASE_PLUGINS, 'jsx'] });
    assert.deepEqual(
      fast.comments!.map((c) => [c.type, c.value, c.start, c.end]),
      slow.comments!.map((c) => [c.type, c.value, c.start, c.end]),
    );
    assert.equal(fast.program.interpreter?.value, '/usr/bin/env node');
  });

  it('a script oxc reports an error for goes to Babel: Flow, an error Babel recovers from, a redeclaration', function () {
    for (const code of ['// @flow\nfunction f(x: number): string { return "" }', '({a} += 1);\nfunction g() {}', 'let a = 1;\nlet a = 2;']) {
      const declined = counts.declined;
      assert.equal(oxcParse(code, false, true), undefined, code);
      assert.equal(counts.declined, declined + 1);
      // parseScript still gives an AST (Babel's), with the errors it recovered from
      const parsed = parseScript(code, { typescript: false, jsx: true });
      assert.ok(parsed.ast.program.body.length > 0);
    }
    assert.match(parseScript('let a = 1;\nlet a = 2;', { typescript: false, jsx: true }).recovered[0]?.message ?? '', /already been declared/);
  });

  it('a script longer than this thread\'s stack allows goes to Babel unread (oxc has no stack guard: deep nesting would crash the process)', function () {
    // the main thread is taken as 4 MB
    assert.equal(oxcMaxChars(), Math.floor((4 << 20) / STACK_BYTES_PER_CHAR));
    const long = `export const a = [${'1, '.repeat(oxcMaxChars() / 3)}];\n`;
    assert.ok(long.length > oxcMaxChars());
    const before = { ...counts };
    assert.equal(oxcParse(long, false, false), undefined);
    assert.equal(counts.tooLong, before.tooLong + 1);
    assert.equal(counts.parsed, before.parsed);
    assert.ok(parseScript(long, { typescript: false, jsx: false }).ast.program.body.length === 1, 'Babel parses it');
  });

  it('a script with a lone surrogate goes to Babel: oxc would read it as U+FFFD, and an i18n key holding it would differ', function () {
    const text = "export function f() {\n  return t('k.\uDC00y');\n}\n";
    const declined = counts.declined;
    assert.equal(oxcParse(text, false, true), undefined);
    assert.equal(counts.declined, declined + 1);
    assert.equal(findUsages('a.js', text)[0]?.key, 'k.\uDC00y');
  });

  it('turned off, scripts are parsed by Babel alone', function () {
    useOxc(false);
    assert.equal(oxcStatus().enabled, false);
    const before = counts.parsed;
    assert.equal(oxcParse('let a = 1', false, false), undefined);
    parseScript('let b = 2', { typescript: false, jsx: false });
    assert.equal(counts.parsed, before);
  });

  it('chunks, usages and locale modules of every JS/TS/Vue fixture are the same as with Babel alone', function () {
    const opts = resolveOptions({});
    const list = files(FIXTURES);
    assert.ok(list.length >= 40, `${list.length} fixture scripts`);
    const parsedBefore = counts.parsed;
    let differ: string[] = [];
    for (const file of list) {
      const rel = path.relative(FIXTURES, file).split(path.sep).join('/');
      const text = fs.readFileSync(file, 'utf8');
      const run = () => JSON.stringify([chunkFile(rel, text, opts), findUsages(rel, text), readLocaleScript(rel, text, true)]);
      useOxc(false);
      const a = run();
      useOxc(undefined);
      const b = run();
      if (a !== b) differ = [...differ, rel];
    }
    assert.deepEqual(differ, []);
    assert.ok(counts.parsed - parsedBefore >= list.length / 2, `oxc parsed ${counts.parsed - parsedBefore} scripts`);
  });
});
