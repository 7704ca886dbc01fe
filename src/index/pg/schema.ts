/** The team index's tables: their schema and migrations, the keyword records and postings a write stores, transactions under the writers' lock, status. */
import type { Chunk } from '../../chunkers/types';
import { keywordFieldsOf } from '../engine';
import { KeywordIndex, keywordRecord } from '../keyword';
import { TOKENIZER_VERSION } from '../terms';

/** What Fathom needs of a PostgreSQL connection: `pg`'s Client and PGlite both have it. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export const PG_SCHEMA_VERSION = 5;
/** The advisory lock every writer takes (per transaction). */
export const LOCK_KEY = 0x46a7104d;

/** The local engine's keyword settings (tokenizer, boosts, BM25 parameters): the remote index uses the same. */
let keywordDefaults: KeywordIndex | undefined;
export const kw = () => (keywordDefaults ??= new KeywordIndex());
/** Stored in `fathom_meta` as `keyword`: records made with other tokenizer settings are rebuilt by a push. */
// fields 2: the chunker's search terms are header words, as in the local index (1 left them out)
export const keywordKey = () => JSON.stringify({ tokenizer: TOKENIZER_VERSION, stem: kw().stem, singleDigits: kw().singleDigits, weakHalf: kw().weakHalf, fields: 2 });

/** A chunk's keyword record, as the columns store it: field lengths, terms, packed frequencies (as int4). */
export interface Rec {
  lens: [number, number, number, number];
  terms: string[];
  tf: number[];
}
export function recordOf(c: Chunk): Rec {
  const r = keywordRecord(keywordFieldsOf(c), kw());
  const terms = [...r.terms.keys()];
  return { lens: r.lens, terms, tf: terms.map((t) => r.terms.get(t)! | 0) };
}

/** Writes the postings and document frequencies of `rows` (chunks just inserted, by id). Inside a transaction. */
export async function writePostings(sql: Sql, rows: Array<{ id: number; rec: Rec }>, blobs = true): Promise<void> {
  const cols: [string[], number[], number[], number[], number[], number[], number[]] = [[], [], [], [], [], [], []];
  const df = new Map<string, number>();
  for (const { id, rec } of rows) {
    const l = rec.lens.map((x) => Math.min(x, 32767));
    rec.terms.forEach((t, j) => {
      cols[0].push(t);
      cols[1].push(id);
      cols[2].push(rec.tf[j]);
      for (let f = 0; f < 4; f++) (cols[3 + f] as number[]).push(l[f]);
      df.set(t, (df.get(t) ?? 0) + 1);
    });
  }
  for (let i = 0; i < cols[0].length; i += POSTINGS_PER_INSERT) {
    await sql.query(
      'insert into fathom_postings (term, id, tf, l0, l1, l2, l3) select * from unnest($1::text[], $2::int[], $3::int[], $4::int2[], $5::int2[], $6::int2[], $7::int2[])',
      cols.map((c) => c.slice(i, i + POSTINGS_PER_INSERT)),
    );
  }
  // a changed term's postings blob is stale: dropped, built again after the push (schema 4 on)
  if (df.size) await sql.query(`insert into fathom_terms (term, df) select * from unnest($1::text[], $2::int[]) on conflict (term) do update set df = fathom_terms.df + excluded.df${blobs ? ', postings = null' : ''}`, [[...df.keys()], [...df.values()]]);
}
const POSTINGS_PER_INSERT = 50_000;

/** Adds `d` to the stored chunk count and field length sums (`fathom_meta`). Inside a transaction. */
export async function addTotals(sql: Sql, d: { chunks: number; lens: number[] }): Promise<void> {
  const m = await meta(sql);
  const chunks = Number(m.get('chunks') ?? 0) + d.chunks;
  const sums = (m.get('len_sums') ?? '0,0,0,0').split(',').map(Number);
  await setMeta(sql, 'chunks', String(chunks));
  await setMeta(sql, 'len_sums', sums.map((x, f) => x + (d.lens[f] ?? 0)).join(','));
}

/**
 * The first generation of a new index (meta `generation`, +1 at each write): a random one, not 1.
 * A searcher's connection keeps postings and chunks by generation, and an index dropped and
 * pushed anew (or another schema on the same connection) would otherwise meet the cache of the
 * one before at the same number and answer with its chunks.
 */
export const FIRST_GENERATION_SQL = '(floor(random() * 1e15) + 1)::bigint::text';

/** The postings' key, covering what scoring reads; a push into an empty index builds it once at the end (sorted, several times cheaper than growing it). */
export const POSTINGS_INDEX = 'create unique index if not exists fathom_postings_key on fathom_postings (term, id) include (tf, l0, l1, l2, l3)';

/** Schema migrations: entry i brings version i to i + 1. */
const MIGRATIONS: Array<(sql: Sql) => Promise<void>> = [
  // 1: files, chunks with their tsvector (GIN) and text hash
  async (sql) => {
    // No extension here: keyword-only indexes work on any PostgreSQL; pgvector is created by the
    // first push with vectors (ensureVectors).
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
    await sql.query(`insert into fathom_meta (key, value) values ('generation', ${FIRST_GENERATION_SQL}) on conflict (key) do nothing`);
  },
  // 3: each chunk's keyword record (Fathom's own terms and frequencies, as the local index keeps
  // them) and a postings table replace the tsvector and its GIN index; df and length sums from them
  async (sql) => {
    await sql.query('alter table fathom_chunks add column if not exists id serial');
    await sql.query('create unique index if not exists fathom_chunks_id on fathom_chunks (id)');
    await sql.query('alter table fathom_chunks add column if not exists lens int[], add column if not exists rec_terms text[], add column if not exists rec_tf int[]');
    // a posting carries what BM25F needs (the packed frequencies, the chunk's field lengths): scoring reads the index alone
    await sql.query('create table if not exists fathom_postings (term text not null, id int not null, tf int not null, l0 int2 not null, l1 int2 not null, l2 int2 not null, l3 int2 not null)');
    await sql.query(POSTINGS_INDEX);
    await sql.query('delete from fathom_postings');
    await sql.query('delete from fathom_terms');
    const lens = [0, 0, 0, 0];
    let chunks = 0;
    for (let last = -1; ; ) {
      const page = (await sql.query<{ id: number; chunk: Chunk | string }>('select id, chunk from fathom_chunks where id > $1 order by id limit 2000', [last])).rows;
      if (!page.length) break;
      last = page[page.length - 1].id;
      const rows = page.map((r) => ({ id: r.id, rec: recordOf(parseChunk(r.chunk)) }));
      await sql.query('update fathom_chunks c set lens = u.lens::int[], rec_terms = u.terms::text[], rec_tf = u.tf::int[] from unnest($1::int[], $2::text[], $3::text[], $4::text[]) as u(id, lens, terms, tf) where c.id = u.id', [
        rows.map((r) => r.id),
        rows.map((r) => pgArray(r.rec.lens)),
        rows.map((r) => pgArray(r.rec.terms)),
        rows.map((r) => pgArray(r.rec.tf)),
      ]);
      await writePostings(sql, rows, false); // (the blobs come with schema 4)
      for (const r of rows) r.rec.lens.forEach((x, f) => (lens[f] += x));
      chunks += rows.length;
    }
    await sql.query('alter table fathom_chunks drop column if exists tsv');
    await setMeta(sql, 'chunks', String(chunks));
    await setMeta(sql, 'len_sums', lens.join(','));
    await setMeta(sql, 'keyword', keywordKey());
  },
  // 4: each term's postings also as one bytea (`POSTING_BLOB`), built after every push, read by
  // keyword search in one piece instead of row by row
  async (sql) => {
    await sql.query('alter table fathom_terms add column if not exists postings bytea');
    await sql.query('alter table fathom_terms alter column postings set storage external'); // read whole, never compressed
    await buildPostingBlobs(sql);
  },
  // 5: a chunk kept as the JSON text it was written as (json, not jsonb): an answer reads 50 chunks,
  // and printing jsonb back as text was a third of the server's time per keyword search (bench/pg.ts
  // --server); nothing queries inside a chunk
  async (sql) => {
    await sql.query('alter table fathom_chunks alter column chunk type json using chunk::json');
  },
];

/**
 * A term's postings in one value: per posting, ordered by chunk id, the id and packed frequencies
 * (int4 each) and the four field lengths (int2 each), big-endian: 16 bytes.
 */
export const POSTING_BLOB = "string_agg(int4send(p.id) || int4send(p.tf) || int2send(p.l0) || int2send(p.l1) || int2send(p.l2) || int2send(p.l3), ''::bytea order by p.id)";

/**
 * Builds the postings blob of every term that has none (new, or changed by a write: writes set it
 * to null). Inside a transaction. A term whose blob is missing (a push that stopped part-way) is
 * still searched, from its posting rows.
 */
export async function buildPostingBlobs(sql: Sql): Promise<void> {
  await sql.query(`update fathom_terms f set postings = x.data from (select p.term, ${POSTING_BLOB} as data from fathom_postings p where p.term in (select term from fathom_terms where postings is null and df > 0) group by p.term) x where f.term = x.term`);
}

/** A PostgreSQL array literal of numbers or strings (each string quoted and escaped). */
export function pgArray(xs: ReadonlyArray<number | string>): string {
  return `{${xs.map((x) => (typeof x === 'number' ? String(x) : `"${x.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}

export class PgStoreError extends Error {}

export async function tx<T>(sql: Sql, body: () => Promise<T>): Promise<T> {
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

export async function meta(sql: Sql): Promise<Map<string, string>> {
  const exists = await sql.query<{ t: string | null }>("select to_regclass('fathom_meta')::text as t");
  if (!exists.rows[0]?.t) return new Map();
  const r = await sql.query<{ key: string; value: string }>('select key, value from fathom_meta');
  return new Map(r.rows.map((x) => [x.key, x.value]));
}

export async function setMeta(sql: Sql, key: string, value: string): Promise<void> {
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

/** What a team index is and how it searches, for `fathom status --store postgres://…`. */
export interface PgStatus {
  /** The schema version stored in the index (0: no Fathom index in this database). */
  schemaVersion: number;
  /** The schema version this Fathom writes. */
  fathomSchemaVersion: number;
  /**
   * How dense search runs: `pgvector-hnsw` (vectors in a pgvector column, HNSW index) or
   * `keyword-only` (no vectors stored: keyword search only). `none`: no Fathom index here.
   */
  mode: 'pgvector-hnsw' | 'int8-codes' | 'keyword-only' | 'none';
  /** The embedding model whose vectors are stored, when any. */
  model?: string;
  dims?: number;
  files: number;
  chunks: number;
  /** Chunks with a stored vector. */
  vectors: number;
  /** pgvector: installed in this database, or only available to install on the server. */
  pgvector: 'installed' | 'available' | 'missing';
  /** The server's version (`server_version`). */
  serverVersion: string;
}

/** Reads what the team index in `sql` is (schema version, search mode, counts); writes nothing. */
export async function pgStatus(sql: Sql): Promise<PgStatus> {
  const ext = await sql.query<{ installed: boolean; available: boolean }>(
    "select exists (select 1 from pg_extension where extname = 'vector') as installed, exists (select 1 from pg_available_extensions where name = 'vector') as available",
  );
  const server = await sql.query<{ v: string }>("select current_setting('server_version') as v");
  const pgvector = ext.rows[0]?.installed ? 'installed' : ext.rows[0]?.available ? 'available' : 'missing';
  const base = { fathomSchemaVersion: PG_SCHEMA_VERSION, pgvector, serverVersion: String(server.rows[0]?.v ?? '') } as const;
  const m = await meta(sql);
  const schemaVersion = Number(m.get('schema_version') ?? 0);
  if (!m.size || !schemaVersion) return { ...base, schemaVersion: 0, mode: 'none', files: 0, chunks: 0, vectors: 0 };
  const files = (await sql.query<{ n: number }>('select count(*)::int as n from fathom_files')).rows[0]?.n ?? 0;
  const chunks = (await sql.query<{ n: number }>('select count(*)::int as n from fathom_chunks')).rows[0]?.n ?? 0;
  const col = await sql.query<{ n: number }>("select count(*)::int as n from information_schema.columns where table_name = 'fathom_chunks' and column_name = 'embedding' and table_schema = current_schema()");
  const hasVectors = (col.rows[0]?.n ?? 0) > 0 && !!m.get('model');
  const codeCol = await sql.query<{ n: number }>("select count(*)::int as n from information_schema.columns where table_name = 'fathom_chunks' and column_name = 'code' and table_schema = current_schema()");
  const hasCodes = (codeCol.rows[0]?.n ?? 0) > 0 && m.get('dense') === 'int8-codes';
  const vectors = hasVectors
    ? ((await sql.query<{ n: number }>('select count(embedding)::int as n from fathom_chunks')).rows[0]?.n ?? 0)
    : hasCodes
      ? ((await sql.query<{ n: number }>('select count(code)::int as n from fathom_chunks')).rows[0]?.n ?? 0)
      : 0;
  return {
    ...base,
    schemaVersion,
    mode: hasVectors ? 'pgvector-hnsw' : hasCodes ? 'int8-codes' : 'keyword-only',
    ...(hasVectors || hasCodes ? { model: m.get('model'), dims: Number(m.get('dims')) || undefined } : {}),
    files,
    chunks,
    vectors,
  };
}

export const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

export function parseChunk(c: Chunk | string): Chunk {
  return typeof c === 'string' ? (JSON.parse(c) as Chunk) : c;
}
