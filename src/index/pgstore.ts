/**
 * A shared team index in PostgreSQL: a CI job pushes a folder once (`fathom index <dir> --store
 * postgres://…`), every developer searches it (`fathom search --store postgres://…`), with their
 * own edits not pushed yet overlaid from the local folder (`searchWithOverlay`).
 *
 * Tables (schema version in `fathom_meta`, migrated forward on open, a newer one refused):
 * - `fathom_files`: path → content hash, size, language, the file record (skips, warnings).
 * - `fathom_chunks`: one row per chunk (path, ordinal) with the chunk as JSON, a `tsvector` for
 *   keyword search, the hash of its embedded text, and its vector (pgvector, HNSW index on inner
 *   product; vectors are unit length, so inner product = cosine).
 *
 * Keyword search is PostgreSQL full text made code-aware: each field is cut into Fathom's own
 * terms first (src/index/terms.ts: `getZoomControl` → `getzoomcontrol get zoom control`, accents
 * folded) and stored through the `simple` configuration with a weight per field (symbol A,
 * header B, path C, text D); a query's terms are OR-ed and ranked by `ts_rank` with the field
 * boosts of the local BM25F. Dense search is pgvector's HNSW; hybrid is the same RRF as locally.
 *
 * Incremental by content hash: a file whose sha1 matches the stored one is not chunked again,
 * and a chunk whose embedded text is already stored (under any path) reuses that vector. Each
 * file is replaced in its own transaction under an advisory lock, and the hash is checked again
 * inside it, so two writers at once serialize file by file and never duplicate or half-write a
 * file.
 */
import * as fs from 'node:fs';
import { chunkFile, decodeBytes, prepareLanguagesFor, resolveOptions, type ResolvedOptions } from '../chunkers/index';
import type { Chunk, ChunkOptions } from '../chunkers/types';
import { walkFiles, type FileSelection } from '../workspace/files';
import { embedText, type Embedder } from './embedder';
import { Engine, hashText, type SearchHit, type SearchMode } from './engine';
import { compileFilter, DEFAULT_RRF_K, rrf, type FilterSpec } from './fusion';
import { terms, queryTerms } from './terms';

/** What Fathom needs of a PostgreSQL connection: `pg`'s Client and PGlite both have it. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export const PG_SCHEMA_VERSION = 1;
/** The advisory lock every writer takes (per transaction). */
const LOCK_KEY = 0x46a7104d;

/** Schema migrations: entry i brings version i to i + 1. */
const MIGRATIONS: Array<(sql: Sql) => Promise<void>> = [
  async (sql) => {
    await sql.query('create extension if not exists vector');
    await sql.query('create table if not exists fathom_meta (key text primary key, value text not null)');
    await sql.query('create table if not exists fathom_files (path text primary key, hash text not null, size bigint not null, language text not null, record jsonb not null)');
    await sql.query(
      `create table if not exists fathom_chunks (
        path text not null references fathom_files(path) on delete cascade,
        ord int not null,
        language text not null,
        kind text not null,
        text_hash text not null,
        chunk jsonb not null,
        tsv tsvector not null,
        primary key (path, ord))`,
    );
    await sql.query('create index if not exists fathom_chunks_tsv on fathom_chunks using gin (tsv)');
    await sql.query('create index if not exists fathom_chunks_text_hash on fathom_chunks (text_hash)');
  },
];

export class PgStoreError extends Error {}

async function tx<T>(sql: Sql, body: () => Promise<T>): Promise<T> {
  await sql.query('begin');
  try {
    await sql.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
    const out = await body();
    await sql.query('commit');
    return out;
  } catch (err) {
    await sql.query('rollback').catch(() => undefined);
    throw err;
  }
}

async function meta(sql: Sql): Promise<Map<string, string>> {
  const exists = await sql.query<{ t: string | null }>("select to_regclass('fathom_meta')::text as t");
  if (!exists.rows[0]?.t) return new Map();
  const r = await sql.query<{ key: string; value: string }>('select key, value from fathom_meta');
  return new Map(r.rows.map((x) => [x.key, x.value]));
}

async function setMeta(sql: Sql, key: string, value: string): Promise<void> {
  await sql.query('insert into fathom_meta (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value', [key, value]);
}

/** Brings the schema to PG_SCHEMA_VERSION (under the writers' lock); refuses a newer one. */
export async function migrate(sql: Sql): Promise<{ from: number; to: number }> {
  return tx(sql, async () => {
    const m = await meta(sql);
    const from = Number(m.get('schema_version') ?? 0);
    if (!Number.isInteger(from) || from < 0) throw new PgStoreError(`the remote index has an unreadable schema version (${m.get('schema_version')})`);
    if (from > PG_SCHEMA_VERSION) throw new PgStoreError(`the remote index has schema version ${from}, newer than this Fathom's ${PG_SCHEMA_VERSION}: update Fathom`);
    for (let v = from; v < PG_SCHEMA_VERSION; v++) await MIGRATIONS[v](sql);
    if (from !== PG_SCHEMA_VERSION) await setMeta(sql, 'schema_version', String(PG_SCHEMA_VERSION));
    return { from, to: PG_SCHEMA_VERSION };
  });
}

/** Connects to `url` with the `pg` client; the caller ends it. */
export async function connectPg(url: string): Promise<Sql & { end(): Promise<void> }> {
  const { Client } = (await import('pg')).default ?? (await import('pg'));
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
  } catch (err) {
    throw new PgStoreError(`cannot connect to ${redact(url)}: ${(err as Error).message}`);
  }
  client.on('error', () => undefined); // a dropped connection fails the next query instead of crashing the process
  return client as unknown as Sql & { end(): Promise<void> };
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

export const isPgUrl = (s: string | undefined): s is string => !!s && /^postgres(ql)?:\/\//i.test(s);

const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

function fieldTerms(s: string | undefined | null): string {
  return s ? terms(s).join(' ') : '';
}

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
  /** Set when the stored settings differed and the remote index was emptied first. */
  rebuilt?: string;
}

function settingsKey(o: ResolvedOptions): string {
  return JSON.stringify({ maxTokens: o.maxTokens, maxFileBytes: o.maxFileBytes, overlap: o.overlap, json: [...o.jsonCategories].sort() });
}

/** Adds the vector column and its HNSW index for `dims` if missing; refuses another model's vectors. */
async function ensureVectors(sql: Sql, embedder: Embedder): Promise<void> {
  const m = await meta(sql);
  const model = m.get('model');
  if (model && model !== embedder.id) throw new PgStoreError(`the remote index holds vectors of ${model}, not ${embedder.id}: push with that model or rebuild the remote index`);
  if (!model) {
    await tx(sql, async () => {
      await sql.query(`alter table fathom_chunks add column if not exists embedding vector(${Math.trunc(embedder.dims)})`);
      await sql.query('create index if not exists fathom_chunks_embedding on fathom_chunks using hnsw (embedding vector_ip_ops)');
      await setMeta(sql, 'model', embedder.id);
      await setMeta(sql, 'dims', String(embedder.dims));
    });
  }
}

/**
 * Pushes `dir` into the remote index: new and changed files (by content hash) are chunked,
 * embedded (reusing stored vectors of the same text) and written, vanished ones removed.
 */
export async function pushFolder(sql: Sql, dir: string, options: PushOptions = {}): Promise<PushStats> {
  await migrate(sql);
  const chunkOptions = resolveOptions(options.chunk ?? {});
  const stats: PushStats = { files: 0, written: 0, unchanged: 0, removed: 0, chunks: 0, embedded: 0, reused: 0 };
  const m = await meta(sql);
  const want = settingsKey(chunkOptions);
  if (m.get('chunking') !== want) {
    await tx(sql, async () => {
      if (m.has('chunking')) {
        stats.rebuilt = 'the chunking settings differ from the stored ones';
        await sql.query('delete from fathom_files');
      }
      await setMeta(sql, 'chunking', want);
    });
  }
  const embedder = options.embedder;
  if (embedder) await ensureVectors(sql, embedder);
  const remote = new Map((await sql.query<{ path: string; hash: string }>('select path, hash from fathom_files')).rows.map((r) => [r.path, r.hash]));
  const problems: Array<{ rel: string; reason: string }> = [];
  const files = walkFiles(dir, problems, options.selection);
  stats.files = files.length;
  const seen = new Set(files.map((f) => f.rel));
  for (const p of problems) seen.add(p.rel);
  for (const rel of remote.keys()) {
    if (seen.has(rel)) continue;
    await tx(sql, () => sql.query('delete from fathom_files where path = $1', [rel]));
    stats.removed++;
  }
  await prepareLanguagesFor(files.map((f) => f.rel));
  let done = 0;
  for (const f of files) {
    options.signal?.throwIfAborted();
    done++;
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(f.abs);
    } catch {
      continue; // vanished or unreadable since the walk: the next push sees it
    }
    const hash = hashText(bytes);
    if (remote.get(f.rel) === hash) {
      stats.unchanged++;
      continue;
    }
    const { record, chunks } = chunkBytes(f.rel, bytes, hash, chunkOptions);
    const texts = chunks.map((c) => embedText(c));
    const textHashes = texts.map((t) => hashText(t));
    let vectors: Array<string | null> = chunks.map(() => null);
    if (embedder && chunks.length) {
      const known = new Map(
        (await sql.query<{ text_hash: string; v: string }>('select distinct on (text_hash) text_hash, embedding::text as v from fathom_chunks where text_hash = any($1) and embedding is not null', [textHashes])).rows.map((r) => [r.text_hash, r.v]),
      );
      const missing = textHashes.map((h, i) => (known.has(h) ? -1 : i)).filter((i) => i >= 0);
      const fresh = missing.length ? await embedder.embed(missing.map((i) => texts[i]), options.signal) : [];
      missing.forEach((i, j) => known.set(textHashes[i], vectorLiteral(fresh[j])));
      stats.embedded += missing.length;
      stats.reused += chunks.length - missing.length;
      vectors = textHashes.map((h) => known.get(h) ?? null);
    }
    await tx(sql, async () => {
      const now = await sql.query<{ hash: string }>('select hash from fathom_files where path = $1', [f.rel]);
      if (now.rows[0]?.hash === hash) return; // another writer pushed this very content meanwhile
      await sql.query('delete from fathom_files where path = $1', [f.rel]);
      await sql.query('insert into fathom_files (path, hash, size, language, record) values ($1, $2, $3, $4, $5)', [f.rel, hash, bytes.byteLength, record.language, JSON.stringify(record)]);
      // one statement per file (arrays unnested), not one round trip per chunk
      if (chunks.length) {
        const col = (f: (c: Chunk, i: number) => unknown) => chunks.map((c, i) => f(c, i));
        const params: unknown[] = [
          f.rel,
          col((_, i) => i),
          col((c) => c.language),
          col((c) => c.kind),
          textHashes,
          col((c) => JSON.stringify(c)),
          col((c) => fieldTerms(c.symbol)),
          col((c) => fieldTerms(c.header)),
          col((c) => fieldTerms(c.path)),
          col((c) => fieldTerms(c.text)),
        ];
        if (embedder) params.push(vectors);
        await sql.query(
          `insert into fathom_chunks (path, ord, language, kind, text_hash, chunk, tsv${embedder ? ', embedding' : ''})
           select $1, u.ord, u.language, u.kind, u.text_hash, u.chunk::jsonb,
             setweight(to_tsvector('simple', u.s), 'A') || setweight(to_tsvector('simple', u.h), 'B') || setweight(to_tsvector('simple', u.p), 'C') || setweight(to_tsvector('simple', u.t), 'D')${embedder ? ', u.v::vector' : ''}
           from unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]${embedder ? ', $11::text[]' : ''})
             as u(ord, language, kind, text_hash, chunk, s, h, p, t${embedder ? ', v' : ''})`,
          params,
        );
      }
    });
    stats.written++;
    stats.chunks += chunks.length;
    options.onProgress?.(done, files.length);
  }
  return stats;
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
  const result = chunkFile(rel, decoded.text, options);
  record.language = result.language;
  if (result.category) record.category = result.category;
  if (result.skipped) record.skipped = result.skipped;
  if (result.fallback) record.fallback = result.fallback;
  record.warnings = result.warnings;
  return { record, chunks: result.chunks };
}

export interface PgSearchOptions {
  k?: number;
  mode?: SearchMode;
  filters?: FilterSpec;
  rrfK?: number;
  embedder?: Embedder;
  /** Paths whose remote chunks are left out (the overlay's edited and deleted files). */
  exclude?: ReadonlySet<string>;
}

/** ts_rank weights {D, C, B, A}: text, path, header, symbol — the local BM25F boosts 1, 1, 3, 5. */
const RANK_WEIGHTS = '{0.2, 0.2, 0.6, 1.0}';

/** Hybrid search of the remote index; hits carry `docId`s local to this answer. */
export async function pgSearch(sql: Sql, query: string, options: PgSearchOptions = {}): Promise<SearchHit[]> {
  const k = Math.max(1, options.k ?? 10);
  const q = query.length > 10_000 ? query.slice(0, 10_000) : query;
  if (!q.trim()) return [];
  const mode = options.mode ?? 'hybrid';
  const depth = Math.max(50, k * 5);
  const filtering = !!(options.filters && (options.filters.pathGlob || options.filters.language?.length || options.filters.kind?.length)) || !!options.exclude?.size;
  const fetch = filtering ? depth * 4 : depth;
  const pool: Chunk[] = [];
  const byKey = new Map<string, number>();
  const idOf = (c: Chunk & { ord?: number }, ord: number) => {
    const key = `${c.path}\u0000${ord}`;
    let id = byKey.get(key);
    if (id === undefined) {
      id = pool.length;
      pool.push(c);
      byKey.set(key, id);
    }
    return id;
  };
  const filter = options.filters ? compileFilter(options.filters, (id) => pool[id]) : undefined;
  const keep = (id: number) => !options.exclude?.has(pool[id].path) && (!filter || filter(id));
  const lists: Array<{ name: 'keyword' | 'dense'; ids: number[] }> = [];
  if (mode !== 'dense') {
    const qt = queryTerms(q).join(' ');
    if (qt) {
      const r = await sql.query<{ chunk: Chunk | string; ord: number }>(
        `with q as (select replace(plainto_tsquery('simple', $1)::text, '&', '|')::tsquery as q)
         select chunk, ord from fathom_chunks, q where tsv @@ q.q order by ts_rank('${RANK_WEIGHTS}', tsv, q.q) desc, path, ord limit $2`,
        [qt, fetch],
      );
      lists.push({ name: 'keyword', ids: r.rows.map((row) => idOf(parseChunk(row.chunk), row.ord)).filter(keep).slice(0, depth) });
    } else lists.push({ name: 'keyword', ids: [] });
  }
  if (mode !== 'keyword' && options.embedder) {
    const has = await meta(sql);
    if (has.get('model') === options.embedder.id) {
      const [qv] = await options.embedder.embed([q], undefined, { urgent: true });
      await sql.query('set hnsw.ef_search = 200').catch(() => undefined);
      const r = await sql.query<{ chunk: Chunk | string; ord: number }>('select chunk, ord from fathom_chunks where embedding is not null order by embedding <#> $1::vector, path, ord limit $2', [vectorLiteral(qv), fetch]);
      lists.push({ name: 'dense', ids: r.rows.map((row) => idOf(parseChunk(row.chunk), row.ord)).filter(keep).slice(0, depth) });
    }
  }
  return rrf(lists, { k: options.rrfK ?? DEFAULT_RRF_K, limit: k }).map((h) => ({ chunk: pool[h.docId], docId: h.docId, score: h.score, why: h.why }));
}

function parseChunk(c: Chunk | string): Chunk {
  return typeof c === 'string' ? (JSON.parse(c) as Chunk) : c;
}

/** The remote files' content hashes. */
export async function remoteHashes(sql: Sql): Promise<Map<string, string>> {
  const exists = await sql.query<{ t: string | null }>("select to_regclass('fathom_files')::text as t");
  if (!exists.rows[0]?.t) throw new PgStoreError('the database holds no Fathom index: push one first with `fathom index <dir> --store postgres://…`');
  return new Map((await sql.query<{ path: string; hash: string }>('select path, hash from fathom_files')).rows.map((r) => [r.path, r.hash]));
}

/**
 * Search of the remote index with the local folder's unpushed edits overlaid: files whose
 * content differs from the pushed one (edited, new) are chunked into a local in-memory engine and
 * searched there, files deleted locally are left out, and the two rankings are fused by RRF.
 */
export async function searchWithOverlay(
  sql: Sql,
  dir: string,
  query: string,
  options: PgSearchOptions & { chunk?: ChunkOptions; selection?: FileSelection } = {},
): Promise<{ hits: SearchHit[]; dirty: string[] }> {
  const remote = await remoteHashes(sql);
  const local = new Engine({ chunk: options.chunk, embedder: options.embedder });
  const dirty = new Set<string>();
  const files = walkFiles(dir, [], options.selection);
  const present = new Set(files.map((f) => f.rel));
  for (const rel of remote.keys()) if (!present.has(rel)) dirty.add(rel);
  await prepareLanguagesFor(files.map((f) => f.rel));
  for (const f of files) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(f.abs);
    } catch {
      continue;
    }
    if (remote.get(f.rel) === hashText(bytes)) continue;
    dirty.add(f.rel);
    if (bytes.byteLength <= local.chunkOptions.maxFileBytes) local.updateFile(f.rel, bytes, { size: bytes.byteLength, mtimeMs: 0 });
  }
  const k = Math.max(1, options.k ?? 10);
  const remoteHits = await pgSearch(sql, query, { ...options, exclude: dirty });
  if (!local.chunkCount) return { hits: remoteHits, dirty: [...dirty].sort() };
  for await (const _ of local.embedPending()) void _;
  const localHits = await local.search(query, { k: Math.max(50, k * 5), mode: options.mode, filters: options.filters, rrfK: options.rrfK });
  const pool = [...remoteHits.map((h) => h.chunk), ...localHits.map((h) => h.chunk)];
  const fused = rrf(
    [
      { name: 'keyword', ids: remoteHits.map((_, i) => i) },
      { name: 'dense', ids: localHits.map((_, i) => remoteHits.length + i) },
    ],
    { k: options.rrfK ?? DEFAULT_RRF_K, limit: k },
  );
  return { hits: fused.map((h, i) => ({ chunk: pool[h.docId], docId: i, score: h.score, why: { fused: h.score } })), dirty: [...dirty].sort() };
}
