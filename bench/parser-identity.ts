/**
 * Parser identity: every JS/TS/JSX/TSX and Vue file of the given folders is chunked, scanned for
 * i18n usages and read as a locale module twice, once with Babel alone and once with oxc first
 * (`src/parse/oxc.ts`), and the two results are compared. Prints the files compared, how many
 * scripts oxc parsed (the rest went to Babel), and every file whose results differ (the first
 * few in detail). Exit code 1 when any differ. The chunker's warnings are compared apart and
 * only counted: Babel complains of some strict-mode code it recovers from ('with', legacy octal
 * literals, `assert` import attributes) that oxc parses without a word.
 *
 *   node --import tsx bench/parser-identity.ts <dir>... [--show N]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, decodeBytes, languageOf, resolveOptions } from '../src/chunkers/index';
import { findUsages } from '../src/i18n/usages';
import { readLocaleScript } from '../src/i18n/locales';
import { isMainThread, Worker } from 'node:worker_threads';
import { counts, oxcMaxChars, oxcStatus, THREAD_STACK_MB, useOxc } from '../src/parse/oxc';

const SCRIPT = /\.(m?[jt]sx?|cjs|cts|mts|vue)$/i;

function walk(dir: string, out: string[]): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== '.git') walk(p, out);
    } else if (e.isFile() && SCRIPT.test(e.name)) out.push(p);
  }
}

function main(): void {
  // oxc parses only scripts this thread's stack can hold (src/parse/oxc.ts): run where Fathom
  // chunks, in a thread with THREAD_STACK_MB, so that oxc reads every script under the cap
  if (isMainThread) {
    const w = new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(__filename)});`, { eval: true, argv: process.argv.slice(2), resourceLimits: { stackSizeMb: THREAD_STACK_MB } });
    w.on('exit', (code) => process.exit(code));
    return;
  }
  const argv = process.argv.slice(2);
  let show = 5;
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--show') show = Number(argv[++i]);
    else dirs.push(argv[i]);
  }
  if (!dirs.length) {
    console.error('usage: node --import tsx bench/parser-identity.ts <dir>... [--show N]');
    process.exit(2);
  }
  const status = oxcStatus();
  if (!status.enabled) {
    console.error(`oxc is not in use here: ${status.problem}`);
    process.exit(2);
  }
  const opts = resolveOptions({});
  let files = 0;
  let differ = 0;
  let warnDiffer = 0;
  const warned = new Map<unknown, string>();
  for (const dir of dirs) {
    const list: string[] = [];
    walk(dir, list);
    for (const file of list) {
      const rel = path.relative(dir, file).split(path.sep).join('/');
      const bytes = fs.readFileSync(file);
      if (bytes.length > 2_000_000) continue;
      const text = decodeBytes(bytes).text;
      if (text === undefined) continue;
      files++;
      const run = (): string => {
        const c = chunkFile(rel, text, opts);
        warned.set(run, c.warnings.join('\n'));
        c.warnings = [];
        let u: unknown;
        let l: unknown;
        try {
          u = findUsages(rel, text);
        } catch (err) {
          u = `threw ${String(err)}`;
        }
        try {
          l = readLocaleScript(rel, text, true);
        } catch (err) {
          l = `threw ${String(err)}`;
        }
        return JSON.stringify({ c, u, l });
      };
      useOxc(false);
      const a = run();
      const wa = warned.get(run);
      useOxc(undefined);
      const b = run();
      if (wa !== warned.get(run)) {
        warnDiffer++;
        if (warnDiffer <= show) console.log(`WARNINGS ${file}:\n  babel: ${wa}\n  oxc:   ${warned.get(run)}`);
      }
      if (a !== b) {
        differ++;
        if (differ <= show) {
          let i = 0;
          while (i < a.length && a[i] === b[i]) i++;
          console.log(`DIFF ${file} (${languageOf(rel)}) at ${i}:\n  babel: ${a.slice(Math.max(0, i - 120), i + 200)}\n  oxc:   ${b.slice(Math.max(0, i - 120), i + 200)}`);
        } else console.log(`DIFF ${file}`);
      }
    }
  }
  console.log(`files ${files}, differ ${differ}, warnings differ ${warnDiffer}; oxc parsed ${counts.parsed} scripts, left ${counts.declined} to Babel (errors) and ${counts.tooLong} (over ${oxcMaxChars()} characters)`);
  process.exit(differ ? 1 : 0);
}

main();
