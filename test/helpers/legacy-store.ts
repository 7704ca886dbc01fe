/**
 * Writes an engine as store versions 3 and 4 wrote it (chunks as JSON lines, sha1 checksums; 3
 * with the vectors' presence flags before the rows), or as version 5 did (chunks columnar, CRC-32;
 * the keyword vocabulary as JSON and no stored postings): what the migration tests load. The
 * layouts are the ones `src/index/store.ts` had at versions 4 and 5 (git history), written out
 * here so that the old formats stay testable after the writer moved on.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHUNKER_VERSION } from '../../src/chunkers/types';
import { chunkSections } from '../../src/index/chunks';
import type { Engine } from '../../src/index/engine';
import { crc32 } from '../../src/index/store';

const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest('hex');

export function writeLegacyStore(dir: string, engine: Engine, version: 3 | 4 | 5): void {
  if (version === 5) return writeV5(dir, engine);
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(dir)) if (f !== 'lock') fs.rmSync(path.join(dir, f), { recursive: true, force: true });
  const g = 7;
  const files: Record<string, { name: string; bytes: number; sha1: string }> = {};
  const put = (key: string, name: string, data: Uint8Array) => {
    fs.writeFileSync(path.join(dir, name), data);
    files[key] = { name, bytes: data.byteLength, sha1: sha1(data) };
  };
  const lines = (items: Iterable<unknown>) => Buffer.from([...items].map((x) => `${JSON.stringify(x ?? null)}\n`).join(''), 'utf8');
  put('catalog', `catalog.${g}.jsonl`, lines(engine.files.values()));
  put('chunks', `chunks.${g}.jsonl`, lines(engine.chunks));
  const { data, ...meta } = engine.keyword.export();
  put('keyword', `keyword.${g}.json`, Buffer.from(JSON.stringify(meta)));
  put('keywordData', `keyword.${g}.bin`, data);
  const vx = engine.vectors?.export();
  const rows = vx ? Buffer.from(vx.data.buffer, vx.data.byteOffset, vx.data.byteLength) : Buffer.alloc(0);
  const present = vx ? Buffer.from(vx.present) : Buffer.alloc(0);
  put('vectors', `vectors.${g}.bin`, version === 3 ? Buffer.concat([present, rows]) : Buffer.concat([rows, present]));
  writeManifest(dir, engine, version, g, files);
}

function writeV5(dir: string, engine: Engine): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(dir)) if (f !== 'lock') fs.rmSync(path.join(dir, f), { recursive: true, force: true });
  const g = 5;
  const files: Record<string, { name: string; bytes: number; crc32: string }> = {};
  const put = (key: string, name: string, parts: Iterable<Uint8Array>) => {
    const data = Buffer.concat([...parts]);
    fs.writeFileSync(path.join(dir, name), data);
    files[key] = { name, bytes: data.byteLength, crc32: crc32(data).toString(16).padStart(8, '0') };
  };
  const lines = (items: Iterable<unknown>) => [Buffer.from([...items].map((x) => `${JSON.stringify(x ?? null)}\n`).join(''), 'utf8')];
  put('catalog', `catalog.${g}.jsonl`, lines(engine.files.values()));
  const sections = chunkSections(engine.chunks, (id) => (engine.vectors?.has(id) ? engine.textHashOf(id) : undefined));
  put('texts', `texts.${g}.bin`, sections.texts());
  put('chunks', `chunks.${g}.bin`, sections.chunks());
  // version 5's keyword files: the vocabulary in the JSON, the records alone in the binary
  const { data, ...meta } = engine.keyword.export();
  put('keyword', `keyword.${g}.json`, [Buffer.from(JSON.stringify(meta))]);
  put('keywordData', `keyword.${g}.bin`, [data]);
  const vx = engine.vectors?.export();
  put('vectors', `vectors.${g}.bin`, vx ? [new Uint8Array(vx.data.buffer, vx.data.byteOffset, vx.data.byteLength), vx.present] : []);
  writeManifest(dir, engine, 5, g, files);
}

/** The manifest of a store of `version` as that version wrote it. */
function writeManifest(dir: string, engine: Engine, version: number, g: number, files: Record<string, { name: string; bytes: number }>): void {
  const manifest = {
    format: 'fathom-index',
    version,
    generation: g,
    savedAt: new Date().toISOString(),
    model: engine.embedder && engine.vectors ? { id: engine.embedder.id, dims: engine.vectors.dims } : null,
    // the chunks are this Fathom's (only the format is old): an old store with its old chunks carries no version (engine.test.ts)
    chunking: { maxTokens: engine.chunkOptions.maxTokens, maxFileBytes: engine.chunkOptions.maxFileBytes, overlap: engine.chunkOptions.overlap, version: CHUNKER_VERSION },
    files,
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
}
