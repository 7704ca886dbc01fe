import * as fs from 'node:fs';
import * as path from 'node:path';

/** A worker thread's script: a file, or code to `eval` (the TypeScript source, through tsx). */
export interface ThreadScript {
  file: string;
  eval?: string;
}

/**
 * The script of the thread `name` for the module at `dir`/`file` (its `__dirname`, `__filename`):
 * `<name>.js` beside the bundle (esbuild.mjs builds the threads' entries into dist/), or, when
 * the module runs from its TypeScript source under tsx (the tests), `<name>.ts` beside it,
 * registered with tsx first. Undefined when there is neither: the caller works on its own thread.
 */
export function threadScript(dir: string, file: string, name: string): ThreadScript | undefined {
  const bundled = path.join(dir, `${name}.js`);
  if (fs.existsSync(bundled)) return { file: bundled };
  const source = path.join(dir, `${name}.ts`);
  if (file.endsWith('.ts') && fs.existsSync(source)) {
    return { file: source, eval: `require('tsx/cjs/api').register(); require(${JSON.stringify(source)});` };
  }
  return undefined;
}
