/**
 * Corpus statistics for `fathom chunk --stats`: per language, chunk sizes, oversized share,
 * complete-unit share, semantic preservation (units kept whole), JSON parse integrity, Vue block mix, skipped files by reason, and the
 * invariants of ARCHITECTURE.md checked on every file (violations counted, first ones kept).
 */
import { checkBudget, checkCoverage, checkJsonParses, checkNoOverlap, checkPositions } from './invariants';
import type { Chunk, FileChunks } from './types';
import { vueBlockRanges } from './vue';

export interface LanguageStats {
  files: number;
  chunks: number;
  meanTokens: number;
  maxTokens: number;
  oversized: number;
  complete: number;
  split: number;
  fallbacks: number;
  warnings: number;
  jsonChunks: number;
  jsonParsed: number;
  vueChunks: number;
  vueMixed: number;
  violations: number;
  bytes: number;
  /** Semantic units seen (functions, classes, sections, schema properties …): whole + cut. */
  units: number;
  /** Of those, kept whole in one chunk (a group's members each count). */
  unitsWhole: number;
}

export interface CorpusStats {
  maxTokens: number;
  languages: Record<string, LanguageStats>;
  skipped: Record<string, number>;
  /** The first few invariant violations, `path: message`. */
  examples: string[];
}

export class StatsCollector {
  private readonly langs = new Map<string, LanguageStats & { tokenSum: number }>();
  private readonly skipped = new Map<string, number>();
  private readonly examples: string[] = [];

  constructor(private readonly maxTokens: number) {}

  add(result: FileChunks, text: string): void {
    if (result.skipped) {
      this.skipped.set(result.skipped.reason, (this.skipped.get(result.skipped.reason) ?? 0) + 1);
      if (!result.chunks.length) return;
    }
    const s = this.lang(result.language);
    s.files++;
    s.bytes += text.length;
    if (result.fallback) s.fallbacks++;
    s.warnings += result.warnings.length;
    const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    const cut = new Set<string>();
    for (const c of result.chunks) {
      if (c.complete) s.unitsWhole += Array.isArray(c.meta?.members) ? (c.meta.members as unknown[]).length : 1;
      else if ((c.split || c.kind === 'fragment') && c.kind !== 'module' && c.kind !== 'text') cut.add(`${c.kind === 'fragment' ? '' : c.kind}\0${c.symbol ?? c.header}`);
    }
    s.units += result.chunks.reduce((n, c) => n + (c.complete ? (Array.isArray(c.meta?.members) ? (c.meta.members as unknown[]).length : 1) : 0), 0) + cut.size;
    for (const c of result.chunks) {
      s.chunks++;
      s.tokenSum += c.tokens;
      s.maxTokens = Math.max(s.maxTokens, c.tokens);
      if (c.tokens > this.maxTokens) s.oversized++;
      if (c.complete) s.complete++;
      if (c.split) s.split++;
    }
    const jsonChunks = result.chunks.filter((c) => c.language === 'json' || c.meta?.block === 'i18n');
    const jsonBad = checkJsonParses(jsonChunks);
    s.jsonChunks += jsonChunks.length;
    s.jsonParsed += jsonChunks.length - jsonBad.length;

    const violations = [
      ...checkPositions(source, result.chunks),
      ...checkNoOverlap(withoutAskedOverlap(result.chunks), (inner) => inner.kind === 'code-block'),
      ...checkBudget(result.chunks, Number.POSITIVE_INFINITY),
      ...jsonBad,
    ];
    if (result.language === 'vue' && !result.fallback) {
      const blocks = vueBlockRanges(source);
      for (const c of result.chunks) {
        s.vueChunks++;
        if (!blocks.some((b) => c.start.offset >= b.start && c.end.offset <= b.end)) s.vueMixed++;
      }
      for (const b of blocks) if (b.block !== 'i18n') violations.push(...checkCoverage(source, result.chunks, b.start, b.end));
    } else if (result.language !== 'json') {
      violations.push(...checkCoverage(source, result.chunks));
    }
    s.violations += violations.length;
    for (const v of violations) if (this.examples.length < 20) this.examples.push(`${result.path}: ${v}`);
  }

  private lang(name: string) {
    let s = this.langs.get(name);
    if (!s) {
      s = { files: 0, chunks: 0, meanTokens: 0, maxTokens: 0, oversized: 0, complete: 0, split: 0, fallbacks: 0, warnings: 0, jsonChunks: 0, jsonParsed: 0, vueChunks: 0, vueMixed: 0, violations: 0, bytes: 0, units: 0, unitsWhole: 0, tokenSum: 0 };
      this.langs.set(name, s);
    }
    return s;
  }

  result(): CorpusStats {
    // (fromEntries defines own keys: a language `__proto__`, from a file `a.__proto__`, is a row too)
    const languages: Record<string, LanguageStats> = Object.fromEntries(
      [...this.langs].sort((a, b) => b[1].chunks - a[1].chunks).map(([name, { tokenSum, ...s }]) => [name, { ...s, meanTokens: s.chunks ? Math.round((tokenSum / s.chunks) * 10) / 10 : 0 }]),
    );
    return { maxTokens: this.maxTokens, languages, skipped: Object.fromEntries(this.skipped), examples: this.examples };
  }
}

/** Overlap that was asked for (`meta.overlap`, a cut unit's pieces) is not a violation: check without it. */
function withoutAskedOverlap(chunks: Chunk[]): Chunk[] {
  return chunks.map((c) => {
    const o = c.meta?.overlap as { chars?: number } | undefined;
    return o?.chars ? { ...c, start: { ...c.start, offset: c.start.offset + o.chars } } : c;
  });
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '-');

/** The table printed by `fathom chunk --stats`. */
export function formatStats(st: CorpusStats): string {
  const head = ['language', 'files', 'chunks', 'mean tok', 'max tok', 'oversized', 'complete', 'split', 'parse integrity', 'block mix', 'fallbacks', 'violations', 'preserved'];
  const rows: string[][] = [];
  const total = { files: 0, chunks: 0, violations: 0, oversized: 0, complete: 0, units: 0, unitsWhole: 0 };
  for (const [name, s] of Object.entries(st.languages)) {
    rows.push([
      name,
      String(s.files),
      String(s.chunks),
      s.meanTokens.toFixed(1),
      String(s.maxTokens),
      pct(s.oversized, s.chunks),
      pct(s.complete, s.chunks),
      pct(s.split, s.chunks),
      s.jsonChunks ? pct(s.jsonParsed, s.jsonChunks) : '-',
      s.vueChunks ? pct(s.vueMixed, s.vueChunks) : '-',
      String(s.fallbacks),
      String(s.violations),
      pct(s.unitsWhole, s.units),
    ]);
    total.files += s.files;
    total.chunks += s.chunks;
    total.violations += s.violations;
    total.oversized += s.oversized;
    total.complete += s.complete;
    total.units += s.units;
    total.unitsWhole += s.unitsWhole;
  }
  rows.push(['all', String(total.files), String(total.chunks), '', '', pct(total.oversized, total.chunks), pct(total.complete, total.chunks), '', '', '', '', String(total.violations), pct(total.unitsWhole, total.units)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [`budget ${st.maxTokens} tokens (all-MiniLM-L6-v2 WordPiece, header and [CLS]/[SEP] included)`, line(head), ...rows.map(line)];
  const skipped = Object.entries(st.skipped);
  out.push(`skipped files: ${skipped.length ? skipped.map(([r, n]) => `${r} ${n}`).join(', ') : 'none'}`);
  if (st.examples.length) out.push('first invariant violations:', ...st.examples.map((e) => `  ${e}`));
  return out.join('\n');
}
