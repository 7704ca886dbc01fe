/**
 * Every key usage in one file: the JS/TS/Vue extraction (script-usages.ts), the extractor of
 * frameworks/ that claims the file, and the custom framework's regexes (ally.ts).
 */
import { SourceText } from '../parse/source-text';
import { patternUsages, patternsApply } from './ally';
import { frameworkOf } from './frameworks/index';
import { isScriptOrVue, jsUsages } from './script-usages';
import type { Raw, Usage, UsageOptions } from './types';

/** For the callers outside i18n/ (the chunk pool, the engine) that take the options from here. */

/**
 * Every key usage in one file (JS/TS/JSX/TSX, Vue SFC, or a framework of frameworks/; and what
 * the custom framework's regexes find in the languages they are given); other files have none.
 * Never throws.
 */
export function findUsages(rel: string, text: string, opts: UsageOptions = {}): Usage[] {
  const p = opts.patterns && patternsApply(opts.patterns, rel) ? opts.patterns : undefined;
  if (!p) return builtInUsages(rel, text, opts);
  let custom: Raw[] = [];
  try {
    custom = patternUsages(p, text).map((k) => ({ key: k.key, dynamic: false, via: 'usageMatchRegex', start: k.start, end: k.end }));
  } catch {
    custom = [];
  }
  if (p.monopoly) return toUsages(rel, text, custom);
  const own = builtInUsages(rel, text, opts);
  if (!custom.length) return own;
  const seen = new Set(own.map((u) => `${u.range.start.line}:${u.range.start.column}:${u.key}`));
  const more = toUsages(rel, text, custom).filter((u) => !seen.has(`${u.range.start.line}:${u.range.start.column}:${u.key}`));
  return [...own, ...more].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column);
}

function builtInUsages(rel: string, text: string, opts: UsageOptions): Usage[] {
  const fw = isScriptOrVue(rel) ? undefined : frameworkOf(rel);
  if (fw) {
    try {
      return toUsages(rel, text, fw.find(rel, text, opts));
    } catch {
      return [];
    }
  }
  return toUsages(rel, text, jsUsages(rel, text, opts));
}

function toUsages(rel: string, text: string, raws: Raw[]): Usage[] {
  if (!raws.length) return [];
  const src = new SourceText(text);
  raws.sort((a, b) => a.start - b.start);
  return raws.map((r) => ({
    file: rel,
    key: r.key,
    namespace: r.namespace,
    dynamic: r.dynamic,
    via: r.via,
    range: { start: src.position(r.start), end: src.position(r.end) },
  }));
}
