/**
 * Which files of a folder Fathom looks at: everything below it except version-control and
 * dependency folders and what `.gitignore` files (at every level) exclude. Plain Node; the
 * extension applies VS Code's own excludes on top.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';

const ALWAYS_SKIPPED = new Set(['.git', '.hg', '.svn', 'node_modules', '.fathom']);

export interface WalkedFile {
  /** Path relative to the root, with `/`. */
  rel: string;
  abs: string;
  size: number;
}

export interface WalkProblem {
  rel: string;
  reason: string;
}

/** Lists the files under `root`, in a stable (sorted) order. */
export function walkFiles(root: string, problems: WalkProblem[] = []): WalkedFile[] {
  const out: WalkedFile[] = [];
  const rootAbs = path.resolve(root);
  const visit = (dirAbs: string, dirRel: string, rules: Array<{ base: string; ig: Ignore }>) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      problems.push({ rel: dirRel || '.', reason: `unreadable folder: ${(err as Error).message}` });
      return;
    }
    const here = entries.find((e) => e.name === '.gitignore' && e.isFile());
    if (here) {
      try {
        rules = [...rules, { base: dirRel, ig: ignore().add(fs.readFileSync(path.join(dirAbs, '.gitignore'), 'utf8')) }];
      } catch (err) {
        problems.push({ rel: `${dirRel ? `${dirRel}/` : ''}.gitignore`, reason: `unreadable: ${(err as Error).message}` });
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (ALWAYS_SKIPPED.has(e.name)) continue;
      const rel = dirRel ? `${dirRel}/${e.name}` : e.name;
      const isDir = e.isDirectory();
      if (ignored(rules, rel, isDir)) continue;
      const abs = path.join(dirAbs, e.name);
      if (isDir) visit(abs, rel, rules);
      else if (e.isFile()) {
        try {
          out.push({ rel, abs, size: fs.statSync(abs).size });
        } catch (err) {
          problems.push({ rel, reason: `unreadable: ${(err as Error).message}` });
        }
      }
    }
  };
  visit(rootAbs, '', []);
  return out;
}

function ignored(rules: Array<{ base: string; ig: Ignore }>, rel: string, isDir: boolean): boolean {
  for (const r of rules) {
    const sub = r.base ? rel.slice(r.base.length + 1) : rel;
    if (r.ig.ignores(isDir ? `${sub}/` : sub)) return true;
  }
  return false;
}
