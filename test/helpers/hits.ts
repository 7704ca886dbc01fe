/** Chunks and hits for the UI tests. */
import type { Chunk } from '../../src/chunkers/types';
import type { WorkerHit } from '../../src/service/protocol';

export function chunk(path: string, text: string, line = 1, extra: Partial<Chunk> = {}): Chunk {
  const lines = text.split('\n');
  return {
    id: `${path}#${line}`,
    path,
    language: 'javascript',
    kind: 'function',
    header: `// ${path} :: f${line}`,
    text,
    start: { offset: 0, line, column: 0 },
    end: { offset: text.length, line: line + lines.length - 1, column: lines[lines.length - 1].length },
    tokens: 10,
    complete: true,
    ...extra,
  };
}

export const hit = (c: Chunk, root = '/ws', why: WorkerHit['why'] = { keyword: 1, fused: 0.0164 }): WorkerHit => ({ chunk: c, docId: 0, score: why.fused, why, root });
