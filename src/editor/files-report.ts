/**
 * "Fathom: Show Indexed Files" as a Markdown document: per folder, the counts, the skipped
 * files grouped by reason (with each file's detail), then every indexed file with its chunks.
 * Pure. Paths are put in code spans (backticks in names are doubled around), so a file name
 * never turns into Markdown markup.
 */
import type { FileInfo } from '../service/protocol';

const code = (s: string) => {
  const ticks = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length)) + 1;
  const fence = '`'.repeat(ticks);
  return `${fence}${ticks > 1 ? ' ' : ''}${s}${ticks > 1 ? ' ' : ''}${fence}`;
};

export function filesReport(folders: Array<{ name: string; root: string; files: FileInfo[] } | { name: string; root: string; error: string }>): string {
  const out: string[] = ['# Fathom: indexed files', ''];
  for (const f of folders) {
    out.push(`## ${f.name}`, '', `Folder: ${code(f.root)}`, '');
    if ('error' in f) {
      out.push(`Not available: ${f.error}`, '');
      continue;
    }
    const skipped = f.files.filter((x) => x.skipped);
    const indexed = f.files.filter((x) => !x.skipped);
    const chunks = indexed.reduce((a, x) => a + x.chunks, 0);
    out.push(`${indexed.length} files indexed (${chunks} chunks), ${skipped.length} skipped.`, '');
    if (skipped.length) {
      out.push('### Skipped', '');
      const byReason = new Map<string, FileInfo[]>();
      for (const x of skipped) byReason.set(x.skipped!.reason, [...(byReason.get(x.skipped!.reason) ?? []), x]);
      for (const [reason, list] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
        out.push(`**${reason}** (${list.length})`, '');
        for (const x of list) out.push(`- ${code(x.path)} — ${x.skipped!.detail.replace(/\s+/g, ' ')}`);
        out.push('');
      }
    }
    out.push('### Indexed', '');
    for (const x of indexed) {
      const notes = [`${x.chunks} chunk${x.chunks === 1 ? '' : 's'}`, x.language];
      if (x.fallback) notes.push(`text fallback: ${x.fallback.replace(/\s+/g, ' ')}`);
      if (x.warnings) notes.push(`${x.warnings} warning${x.warnings === 1 ? '' : 's'}`);
      out.push(`- ${code(x.path)} — ${notes.join(', ')}`);
    }
    out.push('');
  }
  return out.join('\n');
}
