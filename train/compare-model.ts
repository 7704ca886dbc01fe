/**
 * Whether two model files of Fathom's format are the same model: the same term rows byte for
 * byte and the same header but for what a run records about itself (`seconds`, its training
 * time) and settings added since with their old default. Each file is read by the runtime's own
 * reader (src/index/static-model.ts `parseModel`: format, version and size checked). `npm run
 * train:model` runs it on the model it built against the one it replaced.
 *
 *   node --import tsx train/compare-model.ts BUILT.bin SHIPPED.bin
 *
 * Exit 0 and "the same model" when they are; 1 and what differs when not; 2 on a bad file.
 */
import * as fs from 'node:fs';
import { parseModel } from '../src/index/static-model';

/** Settings train.py gained after a model was shipped, with the value that changes nothing. */
const NEUTRAL_SETTINGS: Record<string, unknown> = { overlap_weight: 0, tie: 'none' };

interface Model {
  header: Record<string, unknown>;
  rows: Uint8Array;
}

export function readModel(file: string): Model {
  const { header, data } = parseModel(file, fs.readFileSync(file));
  return { header: header as unknown as Record<string, unknown>, rows: new Uint8Array(data) };
}

function settings(s: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...((s as Record<string, unknown>) ?? {}) };
  for (const [k, v] of Object.entries(NEUTRAL_SETTINGS)) if (out[k] === v) delete out[k];
  return out;
}

/** The differences between two models, as lines ([] for the same model). */
export function compareModels(a: Model, b: Model): string[] {
  const diffs: string[] = [];
  for (const k of new Set([...Object.keys(a.header), ...Object.keys(b.header)])) {
    if (k === 'seconds') continue;
    const x = JSON.stringify(k === 'settings' ? settings(a.header[k]) : a.header[k]);
    const y = JSON.stringify(k === 'settings' ? settings(b.header[k]) : b.header[k]);
    if (x !== y) diffs.push(`header ${k}: ${(x ?? 'absent').slice(0, 120)} against ${(y ?? 'absent').slice(0, 120)}`);
  }
  if (a.rows.length !== b.rows.length) diffs.push(`rows: ${a.rows.length} bytes against ${b.rows.length}`);
  else if (!Buffer.from(a.rows.buffer, a.rows.byteOffset, a.rows.length).equals(b.rows)) {
    let n = 0;
    for (let i = 0; i < a.rows.length; i++) if (a.rows[i] !== b.rows[i]) n++;
    diffs.push(`rows: ${n} of ${a.rows.length} bytes differ`);
  }
  return diffs;
}

if (require.main === module) {
  const [x, y] = process.argv.slice(2);
  if (!x || !y) {
    process.stderr.write('usage: node --import tsx train/compare-model.ts BUILT.bin SHIPPED.bin\n');
    process.exit(2);
  }
  let diffs: string[];
  try {
    diffs = compareModels(readModel(x), readModel(y));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  if (!diffs.length) process.stdout.write(`the same model: ${x} and ${y} (term rows byte for byte; only the training time differs)\n`);
  else process.stdout.write(`another model than ${y}:\n${diffs.map((d) => `  ${d}`).join('\n')}\n`);
  process.exit(diffs.length ? 1 : 0);
}
