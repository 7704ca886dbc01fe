/**
 * A shared team index in PostgreSQL: a CI job pushes a folder once (`fathom index <dir> --store
 * postgres://…`), every developer searches it (`fathom search --store postgres://…`, or the
 * editor's `fathom.index.remote` setting), with their own edits not pushed yet overlaid from the
 * local index (`searchWithOverlay` for the CLI, `RemoteIndex` for the editor's worker).
 *
 * Tables (schema version in `fathom_meta`, migrated forward on open, a newer one refused):
 * - `fathom_files`: path → content hash, size, language, the file record (skips, warnings).
 * - `fathom_chunks`: one row per chunk (path, ordinal) with the chunk as JSON, a `tsvector` for
 *   keyword search, the hash of its embedded text, and its vector (pgvector, HNSW index on inner
 *   product; vectors are unit length, so inner product = cosine).
 * - `fathom_terms` (schema 2): each lexeme's document frequency, kept up to date by every write,
 *   for the idf of keyword ranking. `fathom_meta` also holds `chunks` (their count) and
 *   `generation` (bumped by every write: a searcher re-reads the file hashes only when it moved).
 *
 * Keyword search is PostgreSQL full text made code-aware: each field is cut into Fathom's own
 * terms first (src/index/terms.ts: `getZoomControl` → `getzoomcontrol get zoom control`, accents
 * folded) and stored through the `simple` configuration with a weight per field (symbol A,
 * header B, path C, text D). A query term's score in a chunk is `ts_rank` with the field boosts
 * of the local BM25F, length-normalized and multiplied by the term's BM25 idf; a chunk's score is
 * their sum times the idf-weighted share of the query's terms it holds (like the local engine's
 * coverage factor). Each term is one GIN lookup. Dense search is pgvector's HNSW; hybrid is the
 * same RRF (fusion.ts) as locally.
 *
 * Pushes are incremental by content hash: a file whose sha1 matches the stored one is not chunked
 * again, and a chunk whose embedded text is already stored (under any path) reuses that vector.
 * Changed files are written in batches (one multi-row INSERT of unnested arrays per table, a few
 * hundred files or ~2,000 chunks per transaction) under an advisory lock; inside it the stored
 * hashes are read again, so two writers at once serialize batch by batch and never duplicate or
 * half-write a file. A push into an empty index drops the HNSW index and builds it once at the end
 * (building a graph in one go is several times cheaper than inserting into it row by row).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, decodeBytes, prepareLanguagesFor, resolveOptions, type ResolvedOptions } from '../chunkers/index';
import type { Chunk, ChunkOptions } from '../chunkers/types';
import { walkFiles, type FileSelection } from '../workspace/files';
import { embedText, type Embedder } from './embedder';
import { Engine, hashText, type SearchHit, type SearchMode } from './engine';
import { compileFilter, DEFAULT_RRF_K, rrf, type FilterSpec } from './fusion';
import { terms, queryTerms } from './terms';
import { errText } from '../util/errors';

/** What Fathom needs of a PostgreSQL connection: `pg`'s Client and PGlite both have it. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export const PG_SCHEMA_VERSION = 2;
/** The advisory lock every writer takes (per transaction). */
const LOCK_KEY = 0x46a7104d;
/** A write transaction holds at most this many chunks (or BATCH_FILES files). */
const BATCH_CHUNKS = 2000;
const BATCH_FILES = 300;

/** Each changed lexeme's document frequency, from the rows of `paths` (sign: +1 added, -1 removed). */
const TERMS_OF_PATHS = `select lexeme, count(*)::int as n from fathom_chunks, unnest(tsv) as u(lexeme) where path = any($1::text[]) group by lexeme`;

/** Schema migrations: entry i brings version i to i + 1. */
const MIGRATIONS: Array<(sql: Sql) => Promise<void>> = [
  // 1: files, chunks with their tsvector (GIN) and text hash
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
  // 2: document frequencies for the idf of keyword ranking, the chunk count, a write generation
  async (sql) => {
    await sql.query('create table if not exists fathom_terms (term text primary key, df int not null)');
    await sql.query('delete from fathom_terms');
    await sql.query('insert into fathom_terms (term, df) select lexeme, count(*)::int from fathom_chunks, unnest(tsv) as u(lexeme) group by lexeme');
    await sql.query("insert into fathom_meta (key, value) select 'chunks', count(*)::text from fathom_chunks on conflict (key) do update set value = excluded.value");
    await sql.query("insert into fathom_meta (key, value) values ('generation', '1') on conflict (key) do nothing");
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

/**
 * Brings the schema to `to` (default PG_SCHEMA_VERSION; lower only for tests of a migration)
 * under the writers' lock; refuses a newer one.
 */
export async function migrate(sql: Sql, to = PG_SCHEMA_VERSION): Promise<{ from: number; to: number }> {
  return tx(sql, async () => {
    const m = await meta(sql);
    const from = Number(m.get('schema_version') ?? 0);
    if (!Number.isInteger(from) || from < 0) throw new PgStoreError(`the remote index has an unreadable schema version (${m.get('schema_version')})`);
    if (from > PG_SCHEMA_VERSION) throw new PgStoreError(`the remote index has schema version ${from}, newer than this Fathom's ${PG_SCHEMA_VERSION}: update Fathom`);
    const target = Math.max(from, Math.min(to, PG_SCHEMA_VERSION));
    for (let v = from; v < target; v++) await MIGRATIONS[v](sql);
    if (from !== target) await setMeta(sql, 'schema_version', String(target));
    return { from, to: target };
  });
}

export interface PgConnection extends Sql {
  end(): Promise<void>;
}

/**
 * Connects to `url` with the `pg` client; the caller ends it. Without a password in the URL, the
 * client takes it from PGPASSWORD or ~/.pgpass (PGPASSFILE), as psql does; PGHOST, PGUSER … fill
 * what the URL leaves out.
 */
export async function connectPg(url: string, options: { timeoutMs?: number } = {}): Promise<PgConnection> {
  const { Client } = (await import('pg')).default ?? (await import('pg'));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined); // a dropped connection fails the next query instead of crashing the process
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new PgStoreError(`cannot connect to ${redact(url)}: ${errText(err)}`);
  }
  return client as unknown as PgConnection;
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*):[^@]*@/, '$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***');
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
  /** Write transactions (batches of files). */
  batches: number;
  /** Set when the stored settings differed and the remote index was emptied first. */
  rebuilt?: string;
}

function settingsKey(o: ResolvedOptions): string {
  return JSON.stringify({ maxTokens: o.maxTokens, maxFileBytes: o.maxFileBytes, overlap: o.overlap, json: [...o.jsonCategories].sort() });
}

const HNSW_INDEX = 'create index if not exists fathom_chunks_embedding on fathom_chunks using hnsw (embedding vector_ip_ops)';

/** Adds the vector column and its HNSW index for `dims` if missing; refuses another model's vectors. */
async function ensureVectors(sql: Sql, embedder: Embedder): Promise<void> {
  const m = await meta(sql);
  const model = m.get('model');
  if (model && model !== embedder.id) throw new PgStoreError(`the remote index holds vectors of ${model}, not ${embedder.id}: push with that model or rebuild the remote index`);
  if (!model) {
    await tx(sql, async () => {
      const again = await meta(sql); // another writer may have set it meanwhile
      const now = again.get('model');
      if (now && now !== embedder.id) throw new PgStoreError(`the remote index holds vectors of ${now}, not ${embedder.id}: push with that model or rebuild the remote index`);
      await sql.query(`alter table fathom_chunks add column if not exists embedding vector(${Math.trunc(embedder.dims)})`);
      await setMeta(sql, 'model', embedder.id);
      await setMeta(sql, 'dims', String(embedder.dims));
    });
  }
}

/** Removes `paths` (their chunks cascade), keeping document frequencies right. Inside a transaction. */
async function dropPaths(sql: Sql, paths: string[]): Promise<void> {
  if (!paths.length) return;
  await sql.query(`update fathom_terms f set df = f.df - s.n from (${TERMS_OF_PATHS}) s where f.term = s.lexeme`, [paths]);
  await sql.query('delete from fathom_files where path = any($1::text[])', [paths]);
}

/** After a write: the chunk count, a new generation, lexemes no chunk holds any more gone. */
async function afterWrite(sql: Sql): Promise<void> {
  await sql.query('delete from fathom_terms where df <= 0');
  await sql.query("insert into fathom_meta (key, value) select 'chunks', count(*)::text from fathom_chunks on conflict (key) do update set value = excluded.value");
  await sql.query("insert into fathom_meta (key, value) values ('generation', '1') on conflict (key) do update set value = (fathom_meta.value::bigint + 1)::text");
}

interface Pending {
  rel: string;
  hash: string;
  size: number;
  record: RemoteRecord & { hash: string };
  chunks: Chunk[];
  texts: string[];
  textHashes: string[];
}

/**
 * Pushes `dir` into the remote index: new and changed files (by content hash) are chunked,
 * embedded (reusing stored vectors of the same text) and written in batches, vanished ones
 * removed.
 */
export async function pushFolder(sql: Sql, dir: string, options: PushOptions = {}): Promise<PushStats> {
  await migrate(sql);
  const chunkOptions = resolveOptions(options.chunk ?? {});
  const stats: PushStats = { files: 0, written: 0, unchanged: 0, removed: 0, chunks: 0, embedded: 0, reused: 0, batches: 0 };
  const m = await meta(sql);
  const want = settingsKey(chunkOptions);
  if (m.get('chunking') !== want) {
    await tx(sql, async () => {
      const again = await meta(sql);
      if (again.get('chunking') === want) return; // another writer did it
      if (again.has('chunking')) {
        stats.rebuilt = 'the chunking settings differ from the stored ones';
        await sql.query('delete from fathom_files');
        await sql.query('delete from fathom_terms');
        await afterWrite(sql);
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
  const gone = [...remote.keys()].filter((rel) => !seen.has(rel));
  if (gone.length) {
    await tx(sql, async () => {
      await dropPaths(sql, gone);
      await afterWrite(sql);
    });
    stats.removed = gone.length;
  }
  // an empty index gets its HNSW graph built once at the end, not grown row by row
  const bulk = !!embedder && remote.size === 0;
  if (embedder) {
    if (bulk) await tx(sql, () => sql.query('drop index if exists fathom_chunks_embedding'));
    else await sql.query(HNSW_INDEX); // (a push that died while bulk loading left it out)
  }
  try {
    await prepareLanguagesFor(files.map((f) => f.rel));
    let done = 0;
    let batch: Pending[] = [];
    let batchChunks = 0;
    const flush = async () => {
      if (!batch.length) return;
      const b = batch;
      batch = [];
      batchChunks = 0;
      await writeBatch(sql, b, embedder, stats, options.signal);
      options.onProgress?.(done, files.length);
    };
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
      batch.push({ rel: f.rel, hash, size: bytes.byteLength, record, chunks, texts, textHashes: texts.map((t) => hashText(t)) });
      batchChunks += chunks.length;
      if (batchChunks >= BATCH_CHUNKS || batch.length >= BATCH_FILES) await flush();
    }
    await flush();
  } finally {
    if (bulk) {
      await sql.query("set maintenance_work_mem = '256MB'").catch(() => undefined);
      await sql.query(HNSW_INDEX);
    }
  }
  return stats;
}

/** Embeds what is not stored yet and writes one batch of files in one transaction. */
async function writeBatch(sql: Sql, batch: Pending[], embedder: Embedder | undefined, stats: PushStats, signal?: AbortSignal): Promise<void> {
  let vectorOf = new Map<string, string>();
  if (embedder) {
    const all = [...new Set(batch.flatMap((p) => p.textHashes))];
    if (all.length) {
      vectorOf = new Map(
        (await sql.query<{ text_hash: string; v: string }>('select distinct on (text_hash) text_hash, embedding::text as v from fathom_chunks where text_hash = any($1::text[]) and embedding is not null', [all])).rows.map((r) => [r.text_hash, r.v]),
      );
    }
    const textOf = new Map<string, string>();
    for (const p of batch) p.textHashes.forEach((h, i) => vectorOf.has(h) || textOf.set(h, p.texts[i]));
    const missing = [...textOf.keys()];
    const fresh = missing.length ? await embedder.embed(missing.map((h) => textOf.get(h)!), signal) : [];
    missing.forEach((h, j) => vectorOf.set(h, vectorLiteral(fresh[j])));
    stats.embedded += missing.length;
    stats.reused += batch.reduce((n, p) => n + p.chunks.length, 0) - missing.length;
  }
  signal?.throwIfAborted();
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
    const rows = write.flatMap((p) => p.chunks.map((c, i) => ({ p, c, i })));
    if (rows.length) {
      const col = (f: (r: (typeof rows)[number]) => unknown) => rows.map(f);
      const params: unknown[] = [
        col((r) => r.p.rel),
        col((r) => r.i),
        col((r) => r.c.language),
        col((r) => r.c.kind),
        col((r) => r.p.textHashes[r.i]),
        col((r) => JSON.stringify(r.c)),
        col((r) => fieldTerms(r.c.symbol)),
        col((r) => fieldTerms(r.c.header)),
        col((r) => fieldTerms(r.c.path)),
        col((r) => fieldTerms(r.c.text)),
      ];
      if (embedder) params.push(col((r) => vectorOf.get(r.p.textHashes[r.i]) ?? null));
      await sql.query(
        `insert into fathom_chunks (path, ord, language, kind, text_hash, chunk, tsv${embedder ? ', embedding' : ''})
         select u.path, u.ord, u.language, u.kind, u.text_hash, u.chunk::jsonb,
           setweight(to_tsvector('simple', u.s), 'A') || setweight(to_tsvector('simple', u.h), 'B') || setweight(to_tsvector('simple', u.p), 'C') || setweight(to_tsvector('simple', u.t), 'D')${embedder ? ', u.v::vector' : ''}
         from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]${embedder ? ', $11::text[]' : ''})
           as u(path, ord, language, kind, text_hash, chunk, s, h, p, t${embedder ? ', v' : ''})`,
        params,
      );
      await sql.query(`insert into fathom_terms (term, df) select lexeme, n from (${TERMS_OF_PATHS}) s on conflict (term) do update set df = fathom_terms.df + excluded.df`, [write.map((p) => p.rel)]);
    }
    await afterWrite(sql);
    stats.written += write.length;
    stats.chunks += rows.length;
    stats.batches++;
  });
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

/**
 * The keyword ranking (see the header): per query term its BM25 idf from `fathom_terms` and one
 * GIN lookup; ts_rank normalization 1 divides by 1 + log(chunk length). Ties: path, ordinal.
 */
export const KEYWORD_SQL_FOR_TEST = `
with qt as (
  select t.term, plainto_tsquery('simple', t.term) as q,
    (select coalesce(max(f.df), 0) from fathom_terms f where f.term = any(tsvector_to_array(to_tsvector('simple', t.term)))) as df
  from unnest($1::text[]) as t(term)),
n as (select coalesce((select value::float8 from fathom_meta where key = 'chunks'), 1) as n),
w as (select qt.q, ln(1 + (greatest(n.n, qt.df) - qt.df + 0.5) / (qt.df + 0.5)) as idf from qt, n where qt.df > 0 and numnode(qt.q) > 0),
total as (select sum(idf) as idf from w),
m as (
  select c.path, c.ord, sum(w.idf * ts_rank('${RANK_WEIGHTS}', c.tsv, w.q, 1)) * sum(w.idf) / (select idf from total) as s
  from w join fathom_chunks c on c.tsv @@ w.q
  group by c.path, c.ord
  order by s desc, c.path, c.ord
  limit $2)
select c.chunk, m.ord from m join fathom_chunks c on c.path = m.path and c.ord = m.ord order by m.s desc, m.path, m.ord`;

const DENSE_SQL = `
select c.chunk, c.ord from fathom_chunks c
where c.embedding is not null and exists (select 1 from fathom_meta where key = 'model' and value = $3)
order by c.embedding <#> $1::vector, c.path, c.ord limit $2`;

/** Connections that have their HNSW search breadth set (once per connection, not per query). */
const efSet = new WeakSet<object>();

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
  const idOf = (c: Chunk, ord: number) => {
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
  const asked: Array<Promise<void>> = [];
  if (mode !== 'dense') {
    const qt = queryTerms(q);
    const slot = lists.push({ name: 'keyword', ids: [] }) - 1;
    if (qt.length) {
      asked.push(
        sql.query<{ chunk: Chunk | string; ord: number }>(KEYWORD_SQL_FOR_TEST, [qt, fetch]).then((r) => {
          lists[slot].ids = r.rows.map((row) => idOf(parseChunk(row.chunk), row.ord)).filter(keep).slice(0, depth);
        }),
      );
    }
  }
  if (mode !== 'keyword' && options.embedder) {
    const embedder = options.embedder;
    const slot = lists.push({ name: 'dense', ids: [] }) - 1;
    asked.push(
      (async () => {
        const [qv] = await embedder.embed([q], undefined, { urgent: true });
        if (!efSet.has(sql)) {
          await sql.query("select set_config('hnsw.ef_search', '200', false)").catch(() => undefined);
          efSet.add(sql);
        }
        const r = await sql.query<{ chunk: Chunk | string; ord: number }>(DENSE_SQL, [vectorLiteral(qv), fetch, embedder.id]);
        lists[slot].ids = r.rows.map((row) => idOf(parseChunk(row.chunk), row.ord)).filter(keep).slice(0, depth);
      })(),
    );
  }
  await Promise.all(asked);
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
 * The remote ranking with a local index's fresher files put in: `remote` is the remote answer
 * without the dirty files, `local` the local index's answer to the same query; a dirty file's
 * local hit takes the place its local rank gives it (both indexes hold nearly the same files, so a
 * rank means about the same in both), ahead of the remote hit of that rank.
 */
export function overlayHits(remote: SearchHit[], local: SearchHit[], dirty: ReadonlySet<string>, k: number): SearchHit[] {
  const ranked: Array<{ hit: SearchHit; rank: number; local: boolean }> = [];
  remote.forEach((hit, i) => ranked.push({ hit, rank: i, local: false }));
  local.forEach((hit, i) => dirty.has(hit.chunk.path) && ranked.push({ hit, rank: i, local: true }));
  ranked.sort((a, b) => a.rank - b.rank || Number(b.local) - Number(a.local));
  return ranked.slice(0, k).map((r, i) => ({ ...r.hit, docId: i }));
}

/**
 * Search of the remote index with the local folder's unpushed edits overlaid: files whose
 * content differs from the pushed one (edited, new) are chunked into a local in-memory engine and
 * searched there, files deleted locally are left out, and the two rankings are fused by RRF.
 * (The CLI has no local index of the whole folder to place the edited files' hits by rank, as
 * `RemoteIndex` does in the editor.)
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

/** What the editor's remote index is doing, for the status. */
export interface RemoteState {
  /** The URL without its password. */
  url: string;
  /** Searches go to it (false: unreachable or not a Fathom index; searches are local). */
  ok: boolean;
  /** Not tried yet (it connects on the first search). */
  pending?: boolean;
  /** Why not, when not. */
  problem?: string;
  /** Files of the folder that differ from the pushed ones (searched locally), at the last search. */
  dirty?: number;
}

export interface RemoteIndexOptions {
  connect?: (url: string) => Promise<PgConnection>;
  /** After a failure, how long searches stay local before the server is tried again. Default 60 s. */
  retryMs?: number;
  /** Called when `state.ok` changes (reachable, unreachable): once per change, not per search. */
  onState?: (state: RemoteState) => void;
  /** Does `<root>/<rel>` exist? (A remote file the local index lacks is deleted locally only when not.) */
  exists?: (root: string, rel: string) => boolean;
}

/**
 * The editor's view of a team index (`fathom.index.remote`): one connection, the pushed files'
 * hashes (re-read only when the index's generation moved), and searches of a folder's local
 * engine overlaid on it. A server that cannot be reached (or a query that fails) makes `search`
 * answer undefined — the caller searches locally — and is tried again after `retryMs`.
 */
export class RemoteIndex {
  private conn: Promise<PgConnection> | undefined;
  private hashes: { generation: string; map: Map<string, string> } | undefined;
  private failedAt = 0;
  private current: RemoteState;
  private readonly dirtyMemo = new WeakMap<Engine, { key: string; dirty: Set<string> }>();

  constructor(
    readonly url: string,
    private readonly options: RemoteIndexOptions = {},
  ) {
    this.current = { url: redact(url), ok: false, pending: true };
  }

  get state(): RemoteState {
    return { ...this.current };
  }

  private setState(next: RemoteState): void {
    const changed = next.ok !== this.current.ok; // said once per change, not once per failed search
    this.current = next;
    if (changed) this.options.onState?.(this.state);
  }

  private async connection(): Promise<PgConnection> {
    if (!this.conn) {
      const connect = this.options.connect ?? ((u: string) => connectPg(u, { timeoutMs: 5000 }));
      this.conn = connect(this.url);
      this.conn.catch(() => undefined);
    }
    return this.conn;
  }

  /** The files whose local copy differs from the pushed one (edited, new, deleted locally). */
  private dirtyOf(root: string, engine: Engine, remote: Map<string, string>, generation: string): Set<string> {
    const key = `${generation}\u0000${engine.revision}`;
    const memo = this.dirtyMemo.get(engine);
    if (memo?.key === key) return memo.dirty;
    const exists = this.options.exists ?? ((r: string, rel: string) => fs.existsSync(path.join(r, rel)));
    const dirty = new Set<string>();
    for (const [rel, rec] of engine.files) if (remote.get(rel) !== rec.hash) dirty.add(rel);
    for (const rel of remote.keys()) if (!engine.files.has(rel) && !exists(root, rel)) dirty.add(rel);
    this.dirtyMemo.set(engine, { key, dirty });
    return dirty;
  }

  /**
   * The remote answer with `engine`'s fresher files overlaid (see `overlayHits`), or undefined
   * when the remote index cannot answer now (the state says why; search locally).
   */
  async search(root: string, engine: Engine, query: string, options: PgSearchOptions & { localSearch: (k: number) => Promise<SearchHit[]> }): Promise<SearchHit[] | undefined> {
    if (this.failedAt && Date.now() - this.failedAt < (this.options.retryMs ?? 60_000)) return undefined;
    const k = Math.max(1, options.k ?? 10);
    try {
      const sql = await this.connection();
      const g = await sql.query<{ value: string }>("select value from fathom_meta where key = 'generation'").catch((err: unknown) => {
        throw /fathom_meta/.test(String((err as Error)?.message)) ? new PgStoreError('the database holds no Fathom index (push one with `fathom index <dir> --store postgres://…`)') : err;
      });
      const generation = g.rows[0]?.value ?? '0';
      if (this.hashes?.generation !== generation) this.hashes = { generation, map: await remoteHashes(sql) };
      const dirty = this.dirtyOf(root, engine, this.hashes.map, generation);
      const depth = Math.max(50, k * 5);
      const [remote, local] = await Promise.all([pgSearch(sql, query, { ...options, k, exclude: dirty }), dirty.size ? options.localSearch(depth) : Promise.resolve([])]);
      this.failedAt = 0;
      this.setState({ url: redact(this.url), ok: true, dirty: dirty.size });
      return overlayHits(remote, local, dirty, k);
    } catch (err) {
      this.failedAt = Date.now();
      const conn = this.conn;
      this.conn = undefined; // a new connection next time
      this.hashes = undefined;
      void conn?.then((c) => c.end()).catch(() => undefined);
      const message = errText(err);
      this.setState({ url: redact(this.url), ok: false, problem: message.replace(this.url, redact(this.url)) });
      return undefined;
    }
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.then((c) => c.end()).catch(() => undefined);
  }
}
