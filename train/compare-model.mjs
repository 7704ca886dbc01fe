#!/usr/bin/env node
/**
 * Whether two model files of Fathom's format (src/index/static-model.ts) are the same model:
 * the same term rows byte for byte and the same header but for what a run records about itself
 * (`seconds`, its training time) and settings added since with their old default. `npm run
 * train:model` runs it on the model it built against the one it replaced.
 *
 *   node train/compare-model.mjs BUILT.bin SHIPPED.bin
 *
 * Exit 0 and "the same model" when they are; 1 and what differs when not; 2 on a bad file.
 */
import * as fs from 'node:fs';

/** Settings train.py gained after a model was shipped, with the value that changes nothing. */
const NEUTRAL_SETTINGS = { overlap_weight: 0, tie: 'none' };

export function readModel(file) {
  const b = fs.readFileSync(file);
  if (b.length < 8 || b.toString('latin1', 0, 4) !== 'FTHM') throw new Error(`${file} is not a Fathom model file (no FTHM header)`);
  const n = b.readUInt32LE(4);
  if (8 + n > b.length) throw new Error(`${file} is cut short`);
  return { header: JSON.parse(b.toString('utf8', 8, 8 + n)), rows: b.subarray(8 + n) };
}

function settings(s) {
  const out = { ...(s ?? {}) };
  for (const [k, v] of Object.entries(NEUTRAL_SETTINGS)) if (out[k] === v) delete out[k];
  return out;
}

/** The differences between two models, as lines ([] for the same model). */
export function compareModels(a, b) {
  const diffs = [];
  for (const k of new Set([...Object.keys(a.header), ...Object.keys(b.header)])) {
    if (k === 'seconds') continue;
    const x = JSON.stringify(k === 'settings' ? settings(a.header[k]) : a.header[k]);
    const y = JSON.stringify(k === 'settings' ? settings(b.header[k]) : b.header[k]);
    if (x !== y) diffs.push(`header ${k}: ${(x ?? 'absent').slice(0, 120)} against ${(y ?? 'absent').slice(0, 120)}`);
  }
  if (a.rows.length !== b.rows.length) diffs.push(`rows: ${a.rows.length} bytes against ${b.rows.length}`);
  else if (!a.rows.equals(b.rows)) {
    let n = 0;
    for (let i = 0; i < a.rows.length; i++) if (a.rows[i] !== b.rows[i]) n++;
    diffs.push(`rows: ${n} of ${a.rows.length} bytes differ`);
  }
  return diffs;
}

if (process.argv[1] && new URL(import.meta.url).pathname === fs.realpathSync(process.argv[1])) {
  const [x, y] = process.argv.slice(2);
  if (!x || !y) {
    process.stderr.write('usage: node train/compare-model.mjs BUILT.bin SHIPPED.bin\n');
    process.exit(2);
  }
  let diffs;
  try {
    diffs = compareModels(readModel(x), readModel(y));
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  if (!diffs.length) process.stdout.write(`the same model: ${x} and ${y} (term rows byte for byte; only the training time differs)\n`);
  else process.stdout.write(`another model than ${y}:\n${diffs.map((d) => `  ${d}`).join('\n')}\n`);
  process.exit(diffs.length ? 1 : 0);
}
