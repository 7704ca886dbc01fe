/** Pushing a folder into the team index: incremental by content hash, batches of files in transactions under the writers' lock. */
import { chunkFile, decodeBytes, prepareLanguagesFor, resolveOptions, type ResolvedOptions } from '../../chunkers/index';
import { CHUNKER_VERSION, type Chunk, type ChunkOptions } from '../../chunkers/types';
import { errText } from '../../util/errors';
import type { FileSelection } from '../../workspace/files';
import { NodeFileSource, type FileSource } from '../../workspace/source';
import { embedText, type Embedder } from '../embedder';
import { hashText } from '../engine';
import { quantizeRows } from '../store';
import { addTotals, buildPostingBlobs, FIRST_GENERATION_SQL, keywordKey, meta, migrate, pgArray, PgStoreError, POSTINGS_INDEX, recordOf, setMeta, tx, vectorLiteral, writePostings, type Rec, type Sql } from './schema';

/** A write transaction holds at most this many chunks (or BATCH_FILES files). */
const BATCH_CHUNKS = 2000;
const BATCH_FILES = 300;

/** Each term's document frequency among the chunks of `paths`. */
const TERMS_OF_PATHS = `select t as term, count(*)::int as n from fathom_chunks, unnest(rec_terms) as u(t) where path = any($1::text[]) group by t`;

/**
 * A vector as an int4 array literal of its components × 2^30 (undefined past ±1.5: text then). A
 * push writes new vectors this way, `int4[]::vector * 2^-30` in SQL: PGlite's float parsing (WASM)
 * took ~3 ms a 384-dim vector as text, the integers ~0.5 ms. Components of a unit vector come
 * back exact from 2^-6 up, within 2^-31 below.
 */
function vectorInts(v: Float32Array): string | undefined {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) {
    if (!(Math.abs(v[i]) <= 1.5)) return undefined;
    out[i] = Math.round(v[i] * VECTOR_SCALE);
  }
  return `{${out.join(',')}}`;
}
const VECTOR_SCALE = 2 ** 30;

export interface PushOptions {
  embedder?: Embedder;
  chunk?: ChunkOptions;
  selection?: FileSelection;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface PushStats {
  files: number;
  written: number;
  unchanged: number;
  removed: number;
  chunks: number;
  embedded: number;
  reused: number;
  /** Write transactions (batches of files). */
  batches: number;
  /** Files stored without chunks (binary, too large, a NUL byte …), each with why. */
  skippedFiles?: Array<{ path: string; reason: string }>;
  /** Set when the stored settings differed and the remote index was emptied first. */
  rebuilt?: string;
  /** Set when the remote index was chunked by an earlier Fathom's chunkers: every file pushed again (each vector of unchanged text reused). */
  rechunked?: string;
  /** Where the time went, ms: reading and chunking, embedding, the write transactions, building the HNSW index and vacuuming at the end. */
  ms: { chunk: number; embed: number; write: number; finish: number };
}

function settingsKey(o: ResolvedOptions): string {
  return JSON.stringify({ maxTokens: o.maxTokens, maxFileBytes: o.maxFileBytes, overlap: o.overlap, json: [...o.jsonCategories].sort() });
}

const HNSW_INDEX = 'create index if not exists fathom_chunks_embedding on fathom_chunks using hnsw (embedding vector_ip_ops)';

/**
 * How the team index stores vectors: `pgvector` (a vector column, HNSW index) when the extension
 * is there and this role may create it, else `int8-codes` (per-row int8 codes in a bytea column
 * with the row's max |x|, as the local store keeps them; scored in the client). The environment's
 * FATHOM_PG_DENSE=int8-codes picks the codes even where pgvector could be created.
 */
export type PgDense = 'pgvector' | 'int8-codes';

function denseOf(m: Map<string, string>): PgDense | undefined {
  if (!m.get('model')) return undefined;
  return m.get('dense') === 'int8-codes' ? 'int8-codes' : 'pgvector';
}

/** Adds the vector column (pgvector, or the int8 codes without it) for `dims` if missing; refuses another model's vectors. */
async function ensureVectors(sql: Sql, embedder: Embedder): Promise<PgDense> {
  const m = await meta(sql);
  const model = m.get('model');
  if (model && model !== embedder.id) throw new PgStoreError(`the remote index holds vectors of ${model}, not ${embedder.id}: push with that model or rebuild the remote index`);
  if (model) return denseOf(m)!;
  return tx(sql, async () => {
    const again = await meta(sql); // another writer may have set it meanwhile
    const now = again.get('model');
    if (now && now !== embedder.id) throw new PgStoreError(`the remote index holds vectors of ${now}, not ${embedder.id}: push with that model or rebuild the remote index`);
    if (now) return denseOf(again)!;
    let dense: PgDense = process.env.FATHOM_PG_DENSE === 'int8-codes' ? 'int8-codes' : 'pgvector';
    if (dense === 'pgvector') {
      await sql.query('savepoint fathom_vector');
      try {
        await sql.query('create extension if not exists vector');
        await sql.query('release savepoint fathom_vector');
      } catch {
        // no pgvector on this server, or this role may not create it: Fathom's own int8 codes
        await sql.query('rollback to savepoint fathom_vector');
        dense = 'int8-codes';
      }
    }
    if (dense === 'pgvector') await sql.query(`alter table fathom_chunks add column if not exists embedding vector(${Math.trunc(embedder.dims)})`);
    else {
      await sql.query('alter table fathom_chunks add column if not exists code bytea');
      await sql.query('alter table fathom_chunks add column if not exists code_scale real');
    }
    await setMeta(sql, 'model', embedder.id);
    await setMeta(sql, 'dims', String(embedder.dims));
    await setMeta(sql, 'dense', dense);
    return dense;
  });
}

/** One vector's int8 codes (hex, for `decode(…, 'hex')`) and its max |x|; undefined for a NaN or infinite vector (stored without, never scored). */
function int8Code(v: Float32Array): { hex: string; scale: number } | undefined {
  const q = quantizeRows(v, 1, v.length);
  if (!Number.isFinite(q.scales[0])) return undefined;
  return { hex: Buffer.from(q.rows.buffer, q.rows.byteOffset, q.rows.byteLength).toString('hex'), scale: q.scales[0] };
}

/** Removes `paths` (their chunks cascade), keeping document frequencies right. Inside a transaction. */
async function dropPaths(sql: Sql, paths: string[]): Promise<void> {
  if (!paths.length) return;
  const t = (await sql.query<{ n: number; l0: number; l1: number; l2: number; l3: number }>(
    'select count(*)::int as n, coalesce(sum(lens[1]), 0)::int as l0, coalesce(sum(lens[2]), 0)::int as l1, coalesce(sum(lens[3]), 0)::int as l2, coalesce(sum(lens[4]), 0)::int as l3 from fathom_chunks where path = any($1::text[])',
    [paths],
  )).rows[0];
  const changed = (await sql.query<{ term: string; df: number }>(`update fathom_terms f set df = f.df - s.n, postings = null from (${TERMS_OF_PATHS}) s where f.term = s.term returning f.term, f.df`, [paths])).rows;
  const emptied = changed.filter((r) => r.df <= 0).map((r) => r.term);
  if (emptied.length) await sql.query('delete from fathom_terms where term = any($1::text[]) and df <= 0', [emptied]);
  await sql.query('delete from fathom_postings p using (select c.id, u.t from fathom_chunks c, unnest(c.rec_terms) as u(t) where c.path = any($1::text[])) x where p.term = x.t and p.id = x.id', [paths]);
  await sql.query('delete from fathom_files where path = any($1::text[])', [paths]);
  await addTotals(sql, { chunks: -t.n, lens: [-t.l0, -t.l1, -t.l2, -t.l3] });
}

/** Empties the index (its settings stay). Inside a transaction. */
async function clearIndex(sql: Sql): Promise<void> {
  await sql.query('delete from fathom_files');
  await sql.query('delete from fathom_terms');
  await sql.query('delete from fathom_postings');
  await setMeta(sql, 'chunks', '0');
  await setMeta(sql, 'len_sums', '0,0,0,0');
}

/** After a write: a new generation (a searcher re-reads the file hashes); a new index's first is random (FIRST_GENERATION_SQL). */
async function afterWrite(sql: Sql): Promise<void> {
  await sql.query(`insert into fathom_meta (key, value) values ('generation', ${FIRST_GENERATION_SQL}) on conflict (key) do update set value = (fathom_meta.value::bigint + 1)::text`);
}

interface Pending {
  rel: string;
  hash: string;
  size: number;
  record: RemoteRecord & { hash: string };
  chunks: Chunk[];
  recs: Rec[];
  texts: string[];
  textHashes: string[];
}

/**
 * Pushes `dir` into the remote index: new and changed files (by content hash) are chunked,
 * embedded (reusing stored vectors of the same text) and written in batches, vanished ones
 * removed.
 */
export async function pushFolder(sql: Sql, dir: string | FileSource, options: PushOptions = {}): Promise<PushStats> {
  const progress = { written: 0 };
  try {
    return await pushFolderOnce(sql, dir, options, progress);
  } catch (err) {
    if (err instanceof PgStoreError || options.signal?.aborted) throw err;
    // a lost connection or a server that stopped: every batch is its own transaction, so what was
    // written is whole, and the next push writes only the rest
    throw new PgStoreError(
      `the push stopped part-way (${progress.written} changed files written): ${errText(err)}. What was written is complete; push again to finish (unchanged files are not written twice)`,
    );
  }
}

async function pushFolderOnce(sql: Sql, dir: string | FileSource, options: PushOptions, progress: { written: number }): Promise<PushStats> {
  // every walk and read through the folder's FileSource, as the local index reads it: the same
  // ignore rules, links never followed, a file over the size cap never read
  const source = typeof dir === 'string' ? new NodeFileSource(dir) : dir;
  await migrate(sql);
  const chunkOptions = resolveOptions(options.chunk ?? {});
  const stats: PushStats = { files: 0, written: 0, unchanged: 0, removed: 0, chunks: 0, embedded: 0, reused: 0, batches: 0, ms: { chunk: 0, embed: 0, write: 0, finish: 0 } };
  await matchChunker(sql, stats, await matchSettings(sql, chunkOptions, stats));
  const embedder = options.embedder;
  const dense = embedder ? await ensureVectors(sql, embedder) : undefined;
  const remote = new Map((await sql.query<{ path: string; hash: string }>('select path, hash from fathom_files')).rows.map((r) => [r.path, r.hash]));
  const files = await walkAndDropVanished(sql, source, options, remote, stats);
  const bulk = await prepareIndexes(sql, remote.size === 0, dense);
  let failed = false;
  let finishFrom = 0;
  try {
    await writeChanged(sql, source, files, remote, { ...options, chunkOptions, vectors: embedder && dense ? { embedder, dense } : undefined }, stats, progress);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    finishFrom = performance.now();
    await finishIndexes(sql, bulk, failed);
  }
  // a large write: the planner's statistics, and the visibility map that lets the keyword
  // candidates be read from the postings index alone (no autovacuum in PGlite)
  if (stats.chunks >= 1000) await sql.query('vacuum (analyze) fathom_postings, fathom_chunks, fathom_terms').catch(() => undefined);
  stats.ms.finish += performance.now() - finishFrom;
  return stats;
}

/** Empties the index first when it was made with other chunking or keyword settings, and stores this push's; returns the meta rows it read first. */
async function matchSettings(sql: Sql, chunkOptions: ResolvedOptions, stats: PushStats): Promise<Map<string, string>> {
  const m = await meta(sql);
  const want = settingsKey(chunkOptions);
  const wantKeyword = keywordKey();
  if (m.get('chunking') === want && m.get('keyword') === wantKeyword) return m;
  await tx(sql, async () => {
    const again = await meta(sql);
    if (again.get('chunking') === want && again.get('keyword') === wantKeyword) return; // another writer did it
    if (again.has('chunking') && again.get('chunking') !== want) stats.rebuilt = 'the chunking settings differ from the stored ones';
    else if (again.has('keyword') && again.get('keyword') !== wantKeyword) stats.rebuilt = 'the keyword tokenizer differs from the stored one';
    if (stats.rebuilt) {
      await clearIndex(sql);
      await afterWrite(sql);
    }
    await setMeta(sql, 'chunking', want);
    await setMeta(sql, 'keyword', wantKeyword);
  });
  return m;
}

/**
 * The chunkers' version the remote index was pushed with (meta `chunker`, CHUNKER_VERSION). An
 * earlier Fathom's (or none: pushed before it was recorded) has every file marked changed, so
 * this push writes each again with this Fathom's chunks, reusing the stored vector of each
 * unchanged text. A newer Fathom's is not overwritten by older chunkers: the push is refused
 * (a team whose members run two versions would otherwise have its index cut one way, then the
 * other, push after push); searching it works either way.
 */
async function matchChunker(sql: Sql, stats: PushStats, read: Map<string, string>): Promise<void> {
  const storedOf = (m: Map<string, string>) => (m.has('chunker') ? Number(m.get('chunker')) : undefined);
  const newer = (v: number) =>
    new PgStoreError(`the team index was chunked by a newer Fathom (chunker version ${v}; this one's is ${CHUNKER_VERSION}): update Fathom to push to it. Searching it works as it is.`);
  // `read`: the meta rows matchSettings read (it writes no `chunker`); checked again under the lock below
  const stored = storedOf(read);
  if (stored === CHUNKER_VERSION) return;
  if (stored !== undefined && stored > CHUNKER_VERSION) throw newer(stored);
  await tx(sql, async () => {
    const again = storedOf(await meta(sql));
    if (again === CHUNKER_VERSION) return; // another writer did it
    if (again !== undefined && again > CHUNKER_VERSION) throw newer(again);
    const marked = await sql.query<{ n: number }>("with m as (update fathom_files set hash = '' where hash <> '' returning 1) select count(*)::int as n from m");
    if ((marked.rows[0]?.n ?? 0) > 0) {
      stats.rechunked = `it was chunked by ${again === undefined ? "an earlier Fathom's chunkers" : `chunkers of version ${again}`}, this Fathom's are version ${CHUNKER_VERSION}: every file is pushed again, reusing the vectors of unchanged text`;
    }
    await setMeta(sql, 'chunker', String(CHUNKER_VERSION));
  });
}

/** The folder's files (the walk); the pushed files it no longer holds are removed. */
async function walkAndDropVanished(sql: Sql, source: FileSource, options: PushOptions, remote: Map<string, string>, stats: PushStats): Promise<Array<{ rel: string; size: number }>> {
  const problems: Array<{ rel: string; reason: string }> = [];
  const files = await source.walkAsync(options.selection, problems, options.signal);
  stats.files = files.length;
  const seen = new Set(files.map((f) => f.rel));
  for (const p of problems) seen.add(p.rel);
  const gone = [...remote.keys()].filter((rel) => !seen.has(rel));
  if (gone.length) {
    await tx(sql, async () => {
      await dropPaths(sql, gone);
      await afterWrite(sql);
    });
    stats.removed = gone.length;
  }
  return files;
}

/** Which indexes this push builds at its end: into an empty index, the postings key and the HNSW graph are built once, not grown row by row. */
interface BulkLoad {
  keyword: boolean;
  hnsw: boolean;
}

async function prepareIndexes(sql: Sql, empty: boolean, dense: PgDense | undefined): Promise<BulkLoad> {
  const bulk = { keyword: empty, hnsw: dense === 'pgvector' && empty };
  if (bulk.keyword) await tx(sql, () => sql.query('drop index if exists fathom_postings_key'));
  else await tx(sql, () => sql.query(POSTINGS_INDEX)); // (a push that died while bulk loading left it out)
  if (dense === 'pgvector') {
    if (bulk.hnsw) await tx(sql, () => sql.query('drop index if exists fathom_chunks_embedding'));
    else await tx(sql, () => sql.query(HNSW_INDEX)); // (a push that died while bulk loading left it out)
  }
  return bulk;
}

/** The indexes a bulk load left out, and the changed terms' postings blobs (a failed push leaves the blobs to the next one). */
async function finishIndexes(sql: Sql, bulk: BulkLoad, failed: boolean): Promise<void> {
  if (bulk.keyword || bulk.hnsw) await sql.query("set maintenance_work_mem = '512MB'").catch(() => undefined);
  // after a failure (often a lost connection) the index builds must not hide its cause: the next push builds what is missing
  // under the writers' lock: two pushes into an empty index both bulk-load, and their two
  // `create index if not exists` raced on the catalog (duplicate key in pg_class_relname_nsp_index)
  const build = (q: string) => (failed ? tx(sql, () => sql.query(q)).catch(() => undefined) : tx(sql, () => sql.query(q)));
  if (bulk.keyword) await build(POSTINGS_INDEX);
  if (bulk.hnsw) await build(HNSW_INDEX);
  if (!failed) await tx(sql, () => buildPostingBlobs(sql));
}

type Vectors = { embedder: Embedder; dense: PgDense };

/** Reads and chunks the new and changed files, written in batches of files (each its own transaction). */
async function writeChanged(
  sql: Sql,
  source: FileSource,
  files: Array<{ rel: string; size: number }>,
  remote: Map<string, string>,
  options: PushOptions & { chunkOptions: ResolvedOptions; vectors: Vectors | undefined },
  stats: PushStats,
  progress: { written: number },
): Promise<void> {
  await prepareLanguagesFor(files.map((f) => f.rel));
  let done = 0;
  let batch: Pending[] = [];
  let batchChunks = 0;
  const flush = async () => {
    if (!batch.length) return;
    const b = batch;
    batch = [];
    batchChunks = 0;
    await writeBatch(sql, b, options.vectors, stats, options.signal);
    progress.written = stats.written;
    options.onProgress?.(done, files.length);
  };
  for (const f of files) {
    options.signal?.throwIfAborted();
    done++;
    const t0 = performance.now();
    const p = pendingOf(source, f, remote, options.chunkOptions, stats);
    if (!p) continue;
    batch.push(p);
    stats.ms.chunk += performance.now() - t0;
    batchChunks += p.chunks.length;
    if (batchChunks >= BATCH_CHUNKS || batch.length >= BATCH_FILES) await flush();
  }
  await flush();
}

/**
 * A file to write, read and chunked; undefined when it is unchanged, vanished or unreadable. Every
 * read goes through the folder's read policy: a file that became a link since the walk (to
 * /etc/passwd …) is refused at the read, named among the skipped files, never pushed.
 */
function pendingOf(source: FileSource, f: { rel: string; size: number }, remote: Map<string, string>, chunkOptions: ResolvedOptions, stats: PushStats): Pending | undefined {
  const cap = chunkOptions.maxFileBytes;
  const read = source.read(f.rel, cap);
  if (!read.ok && read.reason === 'too-large') {
    // not read: kept as a skipped file (its size in place of a content hash), as the local index keeps it
    const size = read.stat?.size ?? f.size;
    const hash = `too-large:${size}`;
    const detail = `${size} bytes, over the ${cap}-byte cap`;
    (stats.skippedFiles ??= []).push({ path: f.rel, reason: detail });
    if (remote.get(f.rel) === hash) {
      stats.unchanged++;
      return undefined;
    }
    const record = { path: f.rel, hash, language: '', warnings: [], skipped: { reason: 'too-large', detail } };
    return { rel: f.rel, hash, size, record, chunks: [], recs: [], texts: [], textHashes: [] };
  }
  if (!read.ok) {
    if (read.reason !== 'missing') (stats.skippedFiles ??= []).push({ path: f.rel, reason: read.detail });
    return undefined; // vanished since the walk: the next push sees it
  }
  const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
  const hash = hashText(bytes);
  if (remote.get(f.rel) === hash) {
    stats.unchanged++;
    return undefined;
  }
  const { record, chunks } = chunkBytes(f.rel, bytes, hash, chunkOptions);
  if (record.skipped) (stats.skippedFiles ??= []).push({ path: f.rel, reason: record.skipped.detail });
  const texts = chunks.map((c) => embedText(c));
  return { rel: f.rel, hash, size: bytes.byteLength, record, chunks, recs: chunks.map(recordOf), texts, textHashes: texts.map((t) => hashText(t)) };
}

/** Embeds what is not stored yet and writes one batch of files in one transaction. */
async function writeBatch(sql: Sql, batch: Pending[], vectors: Vectors | undefined, stats: PushStats, signal?: AbortSignal): Promise<void> {
  const t0 = performance.now();
  const v = vectors ? await vectorsOf(sql, batch, vectors, stats, signal) : undefined;
  signal?.throwIfAborted();
  const t1 = performance.now();
  stats.ms.embed += t1 - t0;
  await tx(sql, async () => {
    // another writer may have pushed the very same content meanwhile: those files stay as they are
    const now = new Map((await sql.query<{ path: string; hash: string }>('select path, hash from fathom_files where path = any($1::text[])', [batch.map((p) => p.rel)])).rows.map((r) => [r.path, r.hash]));
    const write = batch.filter((p) => now.get(p.rel) !== p.hash);
    if (!write.length) return;
    await dropPaths(sql, write.filter((p) => now.has(p.rel)).map((p) => p.rel));
    await sql.query('insert into fathom_files (path, hash, size, language, record) select * from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[])', [
      write.map((p) => p.rel),
      write.map((p) => p.hash),
      write.map((p) => p.size),
      write.map((p) => p.record.language),
      write.map((p) => JSON.stringify(p.record)),
    ]);
    const chunks = await insertChunks(sql, write, v);
    await afterWrite(sql);
    stats.written += write.length;
    stats.chunks += chunks;
    stats.batches++;
  });
  stats.ms.write += performance.now() - t1;
}

/** A batch's vectors, per text hash: int8 codes (hex) and max |x|, or a text literal (reused from the index, or unusual values), or integers (`vectorInts`). */
interface BatchVectors {
  embedder: Embedder;
  codes: boolean;
  codeOf: Map<string, { hex: string; scale: number }>;
  vectorOf: Map<string, string>;
  intsOf: Map<string, string>;
}

/** The vectors of a batch's texts: those the index holds already (under any path) reused, the others embedded. */
async function vectorsOf(sql: Sql, batch: Pending[], vectors: Vectors, stats: PushStats, signal?: AbortSignal): Promise<BatchVectors> {
  const { embedder } = vectors;
  const v: BatchVectors = { embedder, codes: vectors.dense === 'int8-codes', codeOf: new Map(), vectorOf: new Map(), intsOf: new Map() };
  const all = [...new Set(batch.flatMap((p) => p.textHashes))];
  if (all.length && v.codes) {
    const r = await sql.query<{ text_hash: string; code: Uint8Array; code_scale: number }>(
      'select distinct on (text_hash) text_hash, code, code_scale from fathom_chunks where text_hash = any($1::text[]) and code is not null',
      [all],
    );
    for (const x of r.rows) v.codeOf.set(x.text_hash, { hex: Buffer.from(x.code).toString('hex'), scale: Number(x.code_scale) });
  } else if (all.length) {
    v.vectorOf = new Map(
      (await sql.query<{ text_hash: string; v: string }>('select distinct on (text_hash) text_hash, embedding::text as v from fathom_chunks where text_hash = any($1::text[]) and embedding is not null', [all])).rows.map((r) => [r.text_hash, r.v]),
    );
  }
  const textOf = new Map<string, string>();
  for (const p of batch) p.textHashes.forEach((h, i) => v.vectorOf.has(h) || v.codeOf.has(h) || textOf.set(h, p.texts[i]));
  const missing = [...textOf.keys()];
  const fresh = missing.length ? await embedder.embed(missing.map((h) => textOf.get(h)!), signal) : [];
  missing.forEach((h, j) => {
    if (v.codes) {
      const c = int8Code(fresh[j]);
      if (c) v.codeOf.set(h, c);
      return;
    }
    const ints = vectorInts(fresh[j]);
    if (ints) v.intsOf.set(h, ints);
    else v.vectorOf.set(h, vectorLiteral(fresh[j]));
  });
  stats.embedded += missing.length;
  stats.reused += batch.reduce((n, p) => n + p.chunks.length, 0) - missing.length;
  return v;
}

/** Inserts the chunks of `write` (one multi-row insert of unnested arrays), their postings and the totals; returns how many. Inside the batch's transaction. */
async function insertChunks(sql: Sql, write: Pending[], v: BatchVectors | undefined): Promise<number> {
  const rows = write.flatMap((p) => p.chunks.map((c, i) => ({ p, c, i, rec: p.recs[i] })));
  if (!rows.length) return 0;
  const codes = !!v?.codes;
  const embedder = v?.embedder;
  const col = (f: (r: (typeof rows)[number]) => unknown) => rows.map(f);
  const params: unknown[] = [
    col((r) => r.p.rel),
    col((r) => r.i),
    col((r) => r.c.language),
    col((r) => r.c.kind),
    col((r) => r.p.textHashes[r.i]),
    col((r) => JSON.stringify(r.c)),
    col((r) => pgArray(r.rec.lens)),
    col((r) => pgArray(r.rec.terms)),
    col((r) => pgArray(r.rec.tf)),
  ];
  if (v && codes) {
    params.push(col((r) => v.codeOf.get(r.p.textHashes[r.i])?.hex ?? null));
    params.push(col((r) => v.codeOf.get(r.p.textHashes[r.i])?.scale ?? null));
  } else if (v) {
    params.push(col((r) => v.vectorOf.get(r.p.textHashes[r.i]) ?? null));
    params.push(col((r) => v.intsOf.get(r.p.textHashes[r.i]) ?? null));
    params.push(`[${new Array(Math.trunc(v.embedder.dims)).fill(1 / VECTOR_SCALE).join(',')}]`);
  }
  const ids = (
    await sql.query<{ id: number; path: string; ord: number }>(
      `insert into fathom_chunks (path, ord, language, kind, text_hash, chunk, lens, rec_terms, rec_tf${codes ? ', code, code_scale' : embedder ? ', embedding' : ''})
       select u.path, u.ord, u.language, u.kind, u.text_hash, u.chunk::json, u.lens::int[], u.terms::text[], u.tf::int[]${codes ? ", decode(u.v, 'hex'), u.vi::real" : embedder ? ', coalesce(u.v::vector, u.vi::int4[]::vector * $12::vector)' : ''}
       from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]${codes ? ', $10::text[], $11::float8[]' : embedder ? ', $10::text[], $11::text[]' : ''})
         as u(path, ord, language, kind, text_hash, chunk, lens, terms, tf${embedder ? ', v, vi' : ''})
       returning id, path, ord`,
      params,
    )
  ).rows;
  const recOf = new Map(rows.map((r) => [`${r.p.rel}\u0000${r.i}`, r.rec]));
  await writePostings(sql, ids.map((x) => ({ id: x.id, rec: recOf.get(`${x.path}\u0000${x.ord}`)! })));
  const lens = [0, 0, 0, 0];
  for (const r of rows) r.rec.lens.forEach((x, f) => (lens[f] += x));
  await addTotals(sql, { chunks: rows.length, lens });
  return rows.length;
}

interface RemoteRecord {
  path: string;
  language: string;
  category?: string;
  skipped?: { reason: string; detail: string };
  fallback?: string;
  warnings: string[];
}

function chunkBytes(rel: string, bytes: Uint8Array, hash: string, options: ResolvedOptions): { record: RemoteRecord & { hash: string }; chunks: Chunk[] } {
  const record: RemoteRecord & { hash: string } = { path: rel, hash, language: '', warnings: [] };
  if (bytes.byteLength > options.maxFileBytes) {
    record.skipped = { reason: 'too-large', detail: `${bytes.byteLength} bytes, over the ${options.maxFileBytes}-byte cap` };
    return { record, chunks: [] };
  }
  const decoded = decodeBytes(bytes);
  if (decoded.text === undefined) {
    record.skipped = { reason: 'binary', detail: decoded.binary ?? 'binary content' };
    return { record, chunks: [] };
  }
  if (decoded.text.includes('\u0000')) {
    // the local store keeps it; PostgreSQL's text and jsonb cannot hold U+0000, and one such row failed the whole push
    record.skipped = { reason: 'binary', detail: 'a NUL byte in the text: PostgreSQL cannot store it, file left out of the team index' };
    return { record, chunks: [] };
  }
  const result = chunkFile(rel, decoded.text, options);
  record.language = result.language;
  if (result.category) record.category = result.category;
  if (result.skipped) record.skipped = result.skipped;
  if (result.fallback) record.fallback = result.fallback;
  record.warnings = result.warnings;
  return { record, chunks: result.chunks };
}
