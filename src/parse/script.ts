/**
 * JavaScript/TypeScript → Babel AST with the same recovery for every reader (the JS chunker,
 * the i18n usage finder): error recovery on, every placement rule off, and a ladder of plugin
 * sets tried in order, because a `.js` file may hold JSX, Flow or TypeScript.
 */
import { parse, type ParserPlugin } from '@babel/parser';
import type * as t from '@babel/types';
import { errText } from '../util/errors';
import { oxcParse } from './oxc';

/**
 * Babel options that accept any script a bundler would: recovery on, every placement rule off.
 * Comment attachment off: it cost more than half of the parse (leading/trailing/inner comments
 * on every node), and no reader uses it — the JS chunker finds a node's leading comments from
 * `ast.comments` (which Babel fills all the same), the i18n scan skips comments.
 */
export const LENIENT_PARSE = {
  sourceType: 'unambiguous',
  attachComment: false,
  errorRecovery: true,
  allowReturnOutsideFunction: true,
  allowImportExportEverywhere: true,
  allowAwaitOutsideFunction: true,
  allowSuperOutsideMethod: true,
  allowUndeclaredExports: true,
} as const;

/** The syntax plugins every attempt enables (JSX, TypeScript or Flow are added per attempt). */
export const BASE_PLUGINS: readonly ParserPlugin[] = ['decorators-legacy', 'classProperties', 'classPrivateProperties', 'classPrivateMethods', 'importAttributes', 'explicitResourceManagement'];

export interface ScriptSyntax {
  typescript: boolean;
  jsx: boolean;
}

/** The plugin sets to try, in order, for a script of this kind. */
export function pluginAttempts(o: ScriptSyntax): ParserPlugin[][] {
  const base = BASE_PLUGINS;
  return o.typescript
    ? [[...base, 'typescript', ...(o.jsx ? (['jsx'] as ParserPlugin[]) : [])], [...base, 'typescript']]
    : [[...base, 'jsx'], [...base, 'jsx', 'flow'], [...base, 'typescript']];
}

export interface ParsedScript {
  ast: t.File;
  /** Syntax errors Babel recovered from (the AST is still complete). */
  recovered: Array<{ message: string }>;
}

/** Thrown when no plugin set parses the script; `message` is the last attempt's error. */
export class ScriptSyntaxError extends Error {}

/**
 * Parses with oxc where it parses the script without any error (`./oxc`), else with the first
 * Babel plugin set that works; throws ScriptSyntaxError when none does.
 */
export function parseScript(code: string, o: ScriptSyntax): ParsedScript {
  const r = reuse;
  if (r) {
    const hit = r.find((p) => p.code === code && p.typescript === o.typescript && p.jsx === o.jsx);
    if (hit) {
      if (hit.error) throw hit.error;
      return hit.parsed!;
    }
  }
  const fast = oxcParse(code, o.typescript, o.jsx);
  if (fast) {
    const parsed = { ast: fast, recovered: [] };
    r?.push({ code, typescript: o.typescript, jsx: o.jsx, parsed });
    return parsed;
  }
  let lastError: unknown;
  for (const plugins of pluginAttempts(o)) {
    try {
      const ast = parse(code, { ...LENIENT_PARSE, plugins });
      const parsed = { ast, recovered: (ast as t.File & { errors?: Array<{ message: string }> }).errors ?? [] };
      r?.push({ code, typescript: o.typescript, jsx: o.jsx, parsed });
      return parsed;
    } catch (err) {
      lastError = err;
    }
  }
  const error = new ScriptSyntaxError(errText(lastError));
  r?.push({ code, typescript: o.typescript, jsx: o.jsx, error });
  throw error;
}

/** The parses made inside `withParseReuse` (undefined outside it). */
let reuse: Array<{ code: string; typescript: boolean; jsx: boolean; parsed?: ParsedScript; error?: ScriptSyntaxError }> | undefined;

/**
 * Runs `fn` with every script parse it makes remembered, so that a second reader of the same
 * text (the i18n usage finder after the JS chunker, in a chunk pool thread) gets the same AST
 * (or the same syntax error) without parsing again; forgotten when `fn` returns. The readers
 * only read the AST.
 */
export function withParseReuse<T>(fn: () => T): T {
  if (reuse) return fn();
  reuse = [];
  try {
    return fn();
  } finally {
    reuse = undefined;
  }
}
