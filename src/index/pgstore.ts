/**
 * A shared team index in PostgreSQL: a CI job pushes a folder once (`fathom index <dir> --store
 * postgres://…`), every developer searches it (`fathom search --store postgres://…`, or the
 * editor's `fathom.index.remote` setting), with their own edits not pushed yet overlaid from the
 * local index (`searchWithOverlay` for the CLI, `RemoteIndex` for the editor's worker).
 *
 * Tables (schema version in `fathom_meta`, migrated forward on open, a newer one refused):
 * - `fathom_files`: path → content hash, size, language, the file record (skips, warnings).
 * - `fathom_chunks`: one row per chunk (path, ordinal; an integer id) with the chunk as JSON, its
 *   keyword record (schema 3: each field's length, its distinct terms and their per-field
 *   frequencies packed as the local index packs them, keyword.ts `keywordRecord`), the hash of its
 *   embedded text, and its vector: with pgvector (when the server has it and the role may
 *   create it) a `vector` column with an HNSW index on inner product (vectors are unit length, so
 *   inner product = cosine); without it (`fathom_meta.dense` = `int8-codes`) the local store's
 *   per-row int8 codes (`quantizeRows`) as `code bytea` with the row's max |x| in `code_scale`.
 * - `fathom_postings` (schema 3): (term, chunk id) → the term's best field class (symbol,
 *   path/header, text), primary key (term, id) covering the class: a term's postings are one
 *   index-only range scan.
 * - `fathom_terms`: each term's document frequency, kept up to date by every write, for idf, and
 *   (schema 4) its postings in one bytea, built again after each push for the terms it changed.
 *   `fathom_meta` also holds `chunks` (their count), `len_sums` (the four fields' summed lengths,
 *   for BM25's average lengths) and `generation` (bumped by every write: a searcher re-reads the
 *   file hashes only when it moved).
 *
 * Keyword search is the local index's own ranking (keyword.ts `rank`) over these tables, with the
 * same tokenizer, query plan (`planQuery`: stems, compounds, synonyms, concepts) and BM25F: (1) the
 * query terms' document frequencies; (2) candidates in SQL, the query's rarest terms first within a
 * postings budget (`PG_MAX_POSTINGS`; the local index reads up to 300k, in memory), each chunk
 * scored Σ idf × its field class's boost, best 200 kept; (3) those candidates' lengths and
 * frequencies of the query terms, scored in JS by BM25F with the coverage factor and the namesake
 * tie-break, then the phrase-first order of the engine. (Schema 2 ranked by `ts_rank` over a
 * tsvector, computed for every matching row: 0.5–1.4 s a query at 100k chunks.) Dense search is
 * pgvector's HNSW, or without pgvector an exact scan of the int8 codes in the client (read once
 * per connection and index generation: 128 bytes a chunk, ~13 MB at 100k); hybrid is the same RRF
 * (fusion.ts) as locally.
 *
 * Pushes are incremental by content hash: a file whose sha1 matches the stored one is not chunked
 * again, and a chunk whose embedded text is already stored (under any path) reuses that vector.
 * Changed files are written in batches (one multi-row INSERT of unnested arrays per table, a few
 * hundred files or ~2,000 chunks per transaction; counts and sums kept by deltas, no table scan
 * per batch) under an advisory lock; inside it the stored
 * hashes are read again, so two writers at once serialize batch by batch and never duplicate or
 * half-write a file. A push into an empty index drops the HNSW index and builds it once at the end
 * (building a graph in one go is several times cheaper than inserting into it row by row).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, decodeBytes, prepareLanguagesFor, resolveOptions, type ResolvedOptions } from '../chunkers/index';
import type { Chunk, ChunkOptions } from '../chunkers/types';
import type { FileSelection } from '../workspace/files';
import { NodeFileSource, type FileSource } from '../workspace/source';
import { embedText, type Embedder } from './embedder';
import { Engine, hashText, keywordFieldsOf, type SearchHit, type SearchMode } from './engine';
import { phraseFirst, proximityOrder, proximityText, shownForm, shownText } from './rank/phrase';
import { compileFilter, DEFAULT_RRF_K, ownModelWeight, rrf, weighByPath, type FilterSpec, type RankedList } from './rank/fusion';
import { STATIC_MODEL_NAME } from './static-model';
import { quantizeRows } from './store';
import { COVERAGE_MAX_CONCEPTS, keywordRecord, KeywordIndex, planQuery, planTerms } from './keyword';
import { TOKENIZER_VERSION } from './terms';
import { Int8Rows } from './int8-scan';
import { dot8, TopHeap } from './ivf';
import { errText } from '../util/errors';

/** What Fathom needs of a PostgreSQL connection: `pg`'s Client and PGlite both have it. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export const PG_SCHEMA_VERSION = 4;
/** The advisory lock every writer takes (per transaction). */
const LOCK_KEY = 0x46a7104d;
/** A write transaction holds at most this many chunks (or BATCH_FILES files). */
const BATCH_CHUNKS = 2000;
const BATCH_FILES = 300;

/** Each term's document frequency among the chunks of `paths`. */
const TERMS_OF_PATHS = `select t as term, count(*)::int as n from fathom_chunks, unnest(rec_terms) as u(t) where path = any($1::text[]) group by t`;

/** The local engine's keyword settings (tokenizer, boosts, BM25 parameters): the remote index uses the same. */
let keywordDefaults: KeywordIndex | undefined;
const kw = () => (keywordDefaults ??= new KeywordIndex());
/** Stored in `fathom_meta` as `keyword`: records made with other tokenizer settings are rebuilt by a push. */
// fields 2: the chunker's search terms are header words, as in the local index (1 left them out)
const keywordKey = () => JSON.stringify({ tokenizer: TOKENIZER_VERSION, stem: kw().stem, singleDigits: kw().singleDigits, weakHalf: kw().weakHalf, fields: 2 });

/** A chunk's keyword record, as the columns store it: field lengths, terms, packed frequencies (as int4). */
interface Rec {
  lens: [number, number, number, number];
  terms: string[];
  tf: number[];
}
function recordOf(c: Chunk): Rec {
  const r = keywordRecord(keywordFieldsOf(c), kw());
  const terms = [...r.terms.keys()];
  return { lens: r.lens, terms, tf: terms.map((t) => r.terms.get(t)! | 0) };
}

/** Writes the postings and document frequencies of `rows` (chunks just inserted, by id). Inside a transaction. */
async function writePostings(sql: Sql, rows: Array<{ id: number; rec: Rec }>, blobs = true): Promise<void> {
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
async function addTotals(sql: Sql, d: { chunks: number; lens: number[] }): Promise<void> {
  const m = await meta(sql);
  const chunks = Number(m.get('chunks') ?? 0) + d.chunks;
  const sums = (m.get('len_sums') ?? '0,0,0,0').split(',').map(Number);
  await setMeta(sql, 'chunks', String(chunks));
  await setMeta(sql, 'len_sums', sums.map((x, f) => x + (d.lens[f] ?? 0)).join(','));
}

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
    await sql.query("insert into fathom_meta (key, value) values ('generation', '1') on conflict (key) do nothing");
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
];

/**
 * A term's postings in one value: per posting, ordered by chunk id, the id and packed frequencies
 * (int4 each) and the four field lengths (int2 each), big-endian: 16 bytes.
 */
const POSTING_BLOB = "string_agg(int4send(p.id) || int4send(p.tf) || int2send(p.l0) || int2send(p.l1) || int2send(p.l2) || int2send(p.l3), ''::bytea order by p.id)";

/**
 * Builds the postings blob of every term that has none (new, or changed by a write: writes set it
 * to null). Inside a transaction. A term whose blob is missing (a push that stopped part-way) is
 * still searched, from its posting rows.
 */
async function buildPostingBlobs(sql: Sql): Promise<void> {
  await sql.query(`update fathom_terms f set postings = x.data from (select p.term, ${POSTING_BLOB} as data from fathom_postings p where p.term in (select term from fathom_terms where postings is null and df > 0) group by p.term) x where f.term = x.term`);
}

/** A PostgreSQL array literal of numbers or strings (each string quoted and escaped). */
function pgArray(xs: ReadonlyArray<number | string>): string {
  return `{${xs.map((x) => (typeof x === 'number' ? String(x) : `"${x.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}

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
  const sslmode = /[?&]sslmode=([^&#]*)/.exec(url)?.[1];
  // sslmode as libpq means it (require: encrypted, certificate not checked; verify-ca/verify-full:
  // checked against sslrootcert), not the pg client's default (every mode but disable as verify-full)
  const compat = sslmode && sslmode !== 'disable' && sslmode !== 'no-verify' && !/[?&]uselibpqcompat=/.test(url) ? `${url.includes('?') ? '&' : '?'}uselibpqcompat=true` : '';
  let client: InstanceType<typeof Client>;
  try {
    client = new Client({ connectionString: url + compat, connectionTimeoutMillis: timeoutMs });
  } catch (err) {
    throw new PgStoreError(`cannot connect to ${redact(url)}: ${errText(err)}`); // an sslrootcert that cannot be read, verify-ca without one
  }
  client.on('error', () => undefined); // a dropped connection fails the next query instead of crashing the process
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    const code = (err as { code?: string }).code ?? '';
    if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME/.test(code)) {
      throw new PgStoreError(`cannot connect to ${redact(url)}: the server's certificate is not trusted (sslmode=${sslmode ?? 'verify-full'}; give the CA that signed it as sslrootcert=FILE): ${errText(err)}`);
    }
    if (/timeout/i.test(errText(err))) {
      throw new PgStoreError(`cannot connect to ${redact(url)}: no answer within ${Math.round(timeoutMs / 1000)} s (${errText(err)})`);
    }
    throw new PgStoreError(`cannot connect to ${redact(url)}: ${errText(err)}`);
  }
  return client as unknown as PgConnection;
}

/**
 * The URL without its password, for messages. The userinfo runs to the LAST `@` (a password
 * may hold a raw `@`, `/` or `:`): everything after the user name's `:` up to it is masked; an
 * `@` in the query makes this mask more than the password, never less.
 */
export function redact(url: string): string {
  const scheme = /^[a-z][\w+.-]*:\/\//i.exec(url);
  let out = url;
  if (scheme) {
    const at = url.lastIndexOf('@');
    const start = scheme[0].length;
    if (at > start) {
      const info = url.slice(start, at);
      const colon = info.indexOf(':');
      if (colon >= 0) out = `${url.slice(0, start)}${info.slice(0, colon)}:***${url.slice(at)}`;
    }
  }
  return out.replace(/([?&]password=)[^&]*/gi, '$1***');
}

export const isPgUrl = (s: string | undefined): s is string => !!s && /^postgres(ql)?:\/\//i.test(s);

const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

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
  /** Where the time went, ms: reading and chunking, embedding, the write transactions, building the HNSW index and vacuuming at the end. */
  ms: { chunk: number; embed: number; write: number; finish: number };
}

function settingsKey(o: ResolvedOptions): string {
  return JSON.stringify({ maxTokens: o.maxTokens, maxFileBytes: o.maxFileBytes, overlap: o.overlap, json: [...o.jsonCategories].sort() });
}

/** The postings' key, covering what scoring reads; a push into an empty index builds it once at the end (sorted, several times cheaper than growing it). */
const POSTINGS_INDEX = 'create unique index if not exists fathom_postings_key on fathom_postings (term, id) include (tf, l0, l1, l2, l3)';

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

/** After a write: a new generation (a searcher re-reads the file hashes). */
async function afterWrite(sql: Sql): Promise<void> {
  await sql.query("insert into fathom_meta (key, value) values ('generation', '1') on conflict (key) do update set value = (fathom_meta.value::bigint + 1)::text");
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
  const m = await meta(sql);
  const want = settingsKey(chunkOptions);
  const wantKeyword = keywordKey();
  if (m.get('chunking') !== want || m.get('keyword') !== wantKeyword) {
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
  }
  const embedder = options.embedder;
  const dense = embedder ? await ensureVectors(sql, embedder) : undefined;
  const remote = new Map((await sql.query<{ path: string; hash: string }>('select path, hash from fathom_files')).rows.map((r) => [r.path, r.hash]));
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
  // an empty index gets its HNSW graph built once at the end, not grown row by row
  const bulk = dense === 'pgvector' && remote.size === 0;
  const bulkKeyword = remote.size === 0;
  if (bulkKeyword) await tx(sql, () => sql.query('drop index if exists fathom_postings_key'));
  else await tx(sql, () => sql.query(POSTINGS_INDEX)); // (a push that died while bulk loading left it out)
  if (dense === 'pgvector') {
    if (bulk) await tx(sql, () => sql.query('drop index if exists fathom_chunks_embedding'));
    else await tx(sql, () => sql.query(HNSW_INDEX)); // (a push that died while bulk loading left it out)
  }
  let finishFrom = 0;
  let failed = false;
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
      await writeBatch(sql, b, embedder && dense ? { embedder, dense } : undefined, stats, options.signal);
      progress.written = stats.written;
      options.onProgress?.(done, files.length);
    };
    // every read through the folder's read policy: a file that became a link since the walk
    // (to /etc/passwd …) is refused at the read, named among the skipped files, never pushed
    const cap = chunkOptions.maxFileBytes;
    for (const f of files) {
      options.signal?.throwIfAborted();
      done++;
      const t0 = performance.now();
      const read = source.read(f.rel, cap);
      if (!read.ok && read.reason === 'too-large') {
        // not read: kept as a skipped file (its size in place of a content hash), as the local index keeps it
        const size = read.stat?.size ?? f.size;
        const hash = `too-large:${size}`;
        const detail = `${size} bytes, over the ${cap}-byte cap`;
        (stats.skippedFiles ??= []).push({ path: f.rel, reason: detail });
        if (remote.get(f.rel) === hash) {
          stats.unchanged++;
          continue;
        }
        const record = { path: f.rel, hash, language: '', warnings: [], skipped: { reason: 'too-large', detail } };
        batch.push({ rel: f.rel, hash, size, record, chunks: [], recs: [], texts: [], textHashes: [] });
        stats.ms.chunk += performance.now() - t0;
        continue;
      }
      if (!read.ok) {
        if (read.reason !== 'missing') (stats.skippedFiles ??= []).push({ path: f.rel, reason: read.detail });
        continue; // vanished since the walk: the next push sees it
      }
      const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
      const hash = hashText(bytes);
      if (remote.get(f.rel) === hash) {
        stats.unchanged++;
        continue;
      }
      const { record, chunks } = chunkBytes(f.rel, bytes, hash, chunkOptions);
      if (record.skipped) (stats.skippedFiles ??= []).push({ path: f.rel, reason: record.skipped.detail });
      const texts = chunks.map((c) => embedText(c));
      batch.push({ rel: f.rel, hash, size: bytes.byteLength, record, chunks, recs: chunks.map(recordOf), texts, textHashes: texts.map((t) => hashText(t)) });
      stats.ms.chunk += performance.now() - t0;
      batchChunks += chunks.length;
      if (batchChunks >= BATCH_CHUNKS || batch.length >= BATCH_FILES) await flush();
    }
    await flush();
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    finishFrom = performance.now();
    if (bulk || bulkKeyword) await sql.query("set maintenance_work_mem = '512MB'").catch(() => undefined);
    // after a failure (often a lost connection) the index builds must not hide its cause: the next push builds what is missing
    // under the writers' lock: two pushes into an empty index both bulk-load, and their two
    // `create index if not exists` raced on the catalog (duplicate key in pg_class_relname_nsp_index)
    const build = (q: string) => (failed ? tx(sql, () => sql.query(q)).catch(() => undefined) : tx(sql, () => sql.query(q)));
    if (bulkKeyword) await build(POSTINGS_INDEX);
    if (bulk) await build(HNSW_INDEX);
    // the changed terms' postings blobs (a failed push leaves them to the next one)
    if (!failed) await tx(sql, () => buildPostingBlobs(sql));
  }
  // a large write: the planner's statistics, and the visibility map that lets the keyword
  // candidates be read from the postings index alone (no autovacuum in PGlite)
  if (stats.chunks >= 1000) await sql.query('vacuum (analyze) fathom_postings, fathom_chunks, fathom_terms').catch(() => undefined);
  stats.ms.finish += performance.now() - finishFrom;
  return stats;
}

/** Embeds what is not stored yet and writes one batch of files in one transaction. */
async function writeBatch(sql: Sql, batch: Pending[], vectors: { embedder: Embedder; dense: PgDense } | undefined, stats: PushStats, signal?: AbortSignal): Promise<void> {
  const embedder = vectors?.embedder;
  const codes = vectors?.dense === 'int8-codes';
  /** Per text hash (int8 codes): its codes in hex and max |x|. */
  const codeOf = new Map<string, { hex: string; scale: number }>();
  /** Per text hash: its vector as a text literal (reused from the index, or unusual values) or as integers (`vectorInts`). */
  let vectorOf = new Map<string, string>();
  const intsOf = new Map<string, string>();
  const t0 = performance.now();
  if (embedder) {
    const all = [...new Set(batch.flatMap((p) => p.textHashes))];
    if (all.length && codes) {
      const r = await sql.query<{ text_hash: string; code: Uint8Array; code_scale: number }>(
        'select distinct on (text_hash) text_hash, code, code_scale from fathom_chunks where text_hash = any($1::text[]) and code is not null',
        [all],
      );
      for (const x of r.rows) codeOf.set(x.text_hash, { hex: Buffer.from(x.code).toString('hex'), scale: Number(x.code_scale) });
    } else if (all.length) {
      vectorOf = new Map(
        (await sql.query<{ text_hash: string; v: string }>('select distinct on (text_hash) text_hash, embedding::text as v from fathom_chunks where text_hash = any($1::text[]) and embedding is not null', [all])).rows.map((r) => [r.text_hash, r.v]),
      );
    }
    const textOf = new Map<string, string>();
    for (const p of batch) p.textHashes.forEach((h, i) => vectorOf.has(h) || codeOf.has(h) || textOf.set(h, p.texts[i]));
    const missing = [...textOf.keys()];
    const fresh = missing.length ? await embedder.embed(missing.map((h) => textOf.get(h)!), signal) : [];
    missing.forEach((h, j) => {
      if (codes) {
        const c = int8Code(fresh[j]);
        if (c) codeOf.set(h, c);
        return;
      }
      const ints = vectorInts(fresh[j]);
      if (ints) intsOf.set(h, ints);
      else vectorOf.set(h, vectorLiteral(fresh[j]));
    });
    stats.embedded += missing.length;
    stats.reused += batch.reduce((n, p) => n + p.chunks.length, 0) - missing.length;
  }
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
    const rows = write.flatMap((p) => p.chunks.map((c, i) => ({ p, c, i, rec: p.recs[i] })));
    if (rows.length) {
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
      if (codes) {
        params.push(col((r) => codeOf.get(r.p.textHashes[r.i])?.hex ?? null));
        params.push(col((r) => codeOf.get(r.p.textHashes[r.i])?.scale ?? null));
      } else if (embedder) {
        params.push(col((r) => vectorOf.get(r.p.textHashes[r.i]) ?? null));
        params.push(col((r) => intsOf.get(r.p.textHashes[r.i]) ?? null));
        params.push(`[${new Array(Math.trunc(embedder.dims)).fill(1 / VECTOR_SCALE).join(',')}]`);
      }
      const ids = (
        await sql.query<{ id: number; path: string; ord: number }>(
          `insert into fathom_chunks (path, ord, language, kind, text_hash, chunk, lens, rec_terms, rec_tf${codes ? ', code, code_scale' : embedder ? ', embedding' : ''})
           select u.path, u.ord, u.language, u.kind, u.text_hash, u.chunk::jsonb, u.lens::int[], u.terms::text[], u.tf::int[]${codes ? ", decode(u.v, 'hex'), u.vi::real" : embedder ? ', coalesce(u.v::vector, u.vi::int4[]::vector * $12::vector)' : ''}
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
    }
    await afterWrite(sql);
    stats.written += write.length;
    stats.chunks += rows.length;
    stats.batches++;
  });
  stats.ms.write += performance.now() - t1;
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

export interface PgSearchOptions {
  k?: number;
  mode?: SearchMode;
  filters?: FilterSpec;
  rrfK?: number;
  embedder?: Embedder;
  /** Paths whose remote chunks are left out (the overlay's edited and deleted files). */
  exclude?: ReadonlySet<string>;
  /** Overrides `PG_MAX_POSTINGS` (the keyword candidates' postings budget) for this search. */
  maxPostings?: number;
  /** Reads every posting and chunk from the server, none kept by the connection (a benchmark's cold row). */
  cold?: boolean;
}

/**
 * How many postings the candidate query reads, rarest terms first (at least the rarest term's,
 * and more terms while fewer than the wanted candidates came out): the local index's
 * `maxPostings`, smaller, since every posting read here costs more (a measured trade-off:
 * bench/pg.ts). The terms not read still count in every candidate's BM25F score.
 */
export const PG_MAX_POSTINGS = 20_000;

/** The postings of one term as the client keeps them: chunk ids, packed frequencies, field lengths (l0 << 16 | l1, l2 << 16 | l3). */
interface TermPostings {
  ids: Int32Array;
  tfs: Int32Array;
  la: Int32Array;
  lb: Int32Array;
}

/**
 * The postings a connection has read, kept for the next searches while the index's generation
 * (bumped by every write) stays the same: the frequent terms that most queries share are read from
 * the server once, not per search. At most `PG_CACHED_POSTINGS` postings (16 bytes each), the least
 * recently used terms dropped first.
 */
interface PostingCache {
  generation: string;
  terms: Map<string, TermPostings>;
  size: number;
  /** Chunks read for answers (their JSON text and ord, by id), at most `PG_CACHED_CHUNKS`, least recently used dropped first. */
  chunks: Map<number, { ord: number; json: string }>;
}
const postingCaches = new WeakMap<object, PostingCache>();
export const PG_CACHED_POSTINGS = 2_000_000;
export const PG_CACHED_CHUNKS = 5_000;

/**
 * The first round trip of a keyword search: each asked term's document frequency (terms the index
 * lacks left out), the index's totals and generation, and the postings of the terms that make
 * candidates — the rarest first while their postings add up to at most $2 (at least the rarest
 * term's), as `keywordRank` reads them — that the client does not hold for this generation ($3,
 * $4): each term's blob (`POSTING_BLOB`), or, where a write left the blob to build, its posting rows
 * as int arrays in text. The client sums the candidates and scores them: PostgreSQL's hash
 * aggregate over 20,000 postings took longer than reading and sending them (bench/pg.ts --server).
 * The frequent terms left out come from the connection's cache or, for the candidates only, from
 * `PROBE_SQL`: sending all of their postings (26,000 for `type`) made the slowest searches slower.
 */
const termsSql = (blobs: boolean) => `
with a as (select t.term, t.i, f.df, ${blobs ? 'f.postings is null' : 'true'} as stale from unnest($1::text[]) with ordinality as t(term, i) join fathom_terms f on f.term = t.term where f.df > 0),
r as (select term, df, stale, row_number() over (order by df, i) as rn, sum(df) over (order by df, i rows unbounded preceding) as cum,
  term = any($3::text[]) and $4::text is not distinct from (select value from fathom_meta where key = 'generation') as held from a)
select r.term, r.df, ${blobs ? 'case when not r.held and not r.stale and (r.rn = 1 or r.cum <= $2) then (select f.postings from fathom_terms f where f.term = r.term) end' : 'null::bytea'} as blob,
  x.ids, x.tfs, x.la, x.lb, null::text as key, null::text as value
from r left join lateral (
  select array_agg(p.id)::text as ids, array_agg(p.tf)::text as tfs, array_agg((p.l0::int << 16) | p.l1)::text as la, array_agg((p.l2::int << 16) | p.l3)::text as lb
  from fathom_postings p
  where p.term = r.term and r.stale and not r.held and (r.rn = 1 or r.cum <= $2)
) x on true
union all select null, null, null, null, null, null, null, key, value from fathom_meta where key in ('chunks', 'len_sums', 'generation')`;
const TERMS_SQL = termsSql(true);
/** The same for an index of schema 3 (pushed by an older Fathom; a searcher does not migrate it): no blobs. */
const TERMS_SQL_V3 = termsSql(false);
/** Connections whose index has no blobs yet, with the generation seen then (asked again once it changes). */
const withoutBlobs = new WeakMap<object, string>();

/** The postings of some terms, as `TERMS_SQL` gives them (a query that needs more candidates). */
const POSTINGS_SQL = `
select t.term, x.ids, x.tfs, x.la, x.lb from unnest($1::text[]) as t(term) left join lateral (
  select array_agg(p.id)::text as ids, array_agg(p.tf)::text as tfs, array_agg((p.l0::int << 16) | p.l1)::text as la, array_agg((p.l2::int << 16) | p.l3)::text as lb
  from fathom_postings p where p.term = t.term) x on true`;

/** The frequencies of the terms not read, in the candidates (BM25F counts every term of the query). */
const PROBE_SQL = 'select p.id, p.term, p.tf from fathom_postings p where p.term = any($2::text[]) and p.id = any($1::int[])';

/** A PostgreSQL int[] as text (`{1,2,3}`), or as the array a driver made of it. */
function intArray(x: number[] | string | null | undefined): Int32Array {
  if (x === null || x === undefined) return new Int32Array(0);
  if (Array.isArray(x)) return Int32Array.from(x, Number);
  const out = new Int32Array(x.length >> 1);
  let n = 0;
  let v = 0;
  let neg = false;
  let any = false;
  for (let i = 0; i < x.length; i++) {
    const c = x.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      any = true;
    } else if (c === 45) neg = true;
    else if (any) {
      out[n++] = neg ? -v : v;
      v = 0;
      neg = false;
      any = false;
    }
  }
  return out.slice(0, n);
}

type TermRow = { term: string | null; df?: number | null; blob?: Uint8Array | null; ids: number[] | string | null; tfs: number[] | string | null; la: number[] | string | null; lb: number[] | string | null; key?: string | null; value?: string | null };

function termPostings(r: TermRow): TermPostings {
  if (r.blob) return fromBlob(r.blob);
  return { ids: intArray(r.ids), tfs: intArray(r.tfs), la: intArray(r.la), lb: intArray(r.lb) };
}

/** A `POSTING_BLOB` read back. */
function fromBlob(b: Uint8Array): TermPostings {
  const n = b.byteLength >> 4;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const p = { ids: new Int32Array(n), tfs: new Int32Array(n), la: new Int32Array(n), lb: new Int32Array(n) };
  for (let i = 0, o = 0; i < n; i++, o += 16) {
    p.ids[i] = v.getInt32(o);
    p.tfs[i] = v.getInt32(o + 4);
    p.la[i] = (v.getInt16(o + 8) << 16) | (v.getInt16(o + 10) & 0xffff);
    p.lb[i] = (v.getInt16(o + 12) << 16) | (v.getInt16(o + 14) & 0xffff);
  }
  return p;
}

/** Keeps `p` in the connection's cache, dropping the least recently used terms past the bound. */
function cachePostings(cache: PostingCache, term: string, p: TermPostings): void {
  const had = cache.terms.get(term);
  if (had) cache.size -= had.ids.length;
  cache.terms.delete(term);
  cache.terms.set(term, p);
  cache.size += p.ids.length;
  for (const [t, q] of cache.terms) {
    if (cache.size <= PG_CACHED_POSTINGS || t === term) break;
    cache.terms.delete(t);
    cache.size -= q.ids.length;
  }
}

/**
 * Per chunk id, the sum of its postings' weights over the read terms (candidate scores): a dense
 * array by id (ids are the table's serial), the touched ids listed to clear them; a map past
 * `DENSE_IDS` (an index pushed over and over, its ids grown far past its chunk count).
 */
class Accumulator {
  private sums = new Float64Array(1024);
  /** 1 where `sums` holds a touched id (a sum may be 0 or below: an idf of a stale count). */
  private seen = new Uint8Array(1024);
  private touched = new Int32Array(1024);
  private n = 0;
  private sparse = new Map<number, number>();
  add(ids: Int32Array, tfs: Int32Array, w: number[]): void {
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j];
      const tf = tfs[j];
      const x = w[tf & 255 ? 0 : tf & 16776960 ? 1 : 2];
      if (id < 0 || id >= DENSE_IDS) {
        this.sparse.set(id, (this.sparse.get(id) ?? 0) + x);
        continue;
      }
      if (id >= this.sums.length) {
        const size = Math.min(DENSE_IDS, Math.max(id + 1, this.sums.length * 2));
        const grown = new Float64Array(size);
        grown.set(this.sums);
        this.sums = grown;
        const marks = new Uint8Array(size);
        marks.set(this.seen);
        this.seen = marks;
      }
      if (!this.seen[id]) {
        this.seen[id] = 1;
        if (this.n === this.touched.length) {
          const t = new Int32Array(this.n * 2);
          t.set(this.touched);
          this.touched = t;
        }
        this.touched[this.n++] = id;
      }
      this.sums[id] += x;
    }
  }
  /** The `want` ids of the highest sums, best first, ties by lower id (as `order by s desc, id` gives them). */
  top(want: number): number[] {
    const all: Array<[number, number]> = [];
    const heap = new TopHeap(Math.max(1, want));
    const ids: number[] = [];
    const sums: number[] = [];
    for (let i = 0; i < this.n; i++) {
      ids.push(this.touched[i]);
      sums.push(this.sums[this.touched[i]]);
    }
    for (const [id, s] of this.sparse) {
      ids.push(id);
      sums.push(s);
    }
    for (let i = 0; i < ids.length; i++) if (heap.size < want || sums[i] > heap.min) heap.push(i, sums[i]);
    if (want <= 0 || !ids.length) return [];
    const floor = heap.size < want ? -Infinity : heap.min;
    for (let i = 0; i < ids.length; i++) if (sums[i] >= floor) all.push([ids[i], sums[i]]);
    all.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return all.slice(0, want).map((x) => x[0]);
  }
  clear(): void {
    for (let i = 0; i < this.n; i++) {
      this.sums[this.touched[i]] = 0;
      this.seen[this.touched[i]] = 0;
    }
    this.n = 0;
    this.sparse.clear();
  }
}
const DENSE_IDS = 1 << 24;
/** Accumulators not in use (searches run concurrently: each takes its own, and gives it back cleared). */
const accumulators: Accumulator[] = [];

/**
 * The local index's keyword ranking (keyword.ts `rank`: candidates, then BM25F with coverage and
 * the namesake tie-break), over the remote postings: `want` candidates, best first. One round trip
 * for the terms, with the postings that make candidates unless the connection holds them
 * (`TERMS_SQL`); another for the candidates' frequencies of the other terms, unless the connection
 * holds their postings; another only when the read terms give fewer than `want` candidates and
 * more terms are there.
 */
async function keywordRank(sql: Sql, query: string, want: number, maxPostings: number, cold = false): Promise<{ ranked: Array<{ id: number; score: number }>; cache?: PostingCache }> {
  const K = kw();
  const asked = planTerms(query, K);
  if (!asked.length) return { ranked: [] };
  const terms = await readTerms(sql, asked, maxPostings, cold);
  const plan = planQuery(query, K, (t) => terms.dfOf.get(t), terms.N);
  if (!plan.terms.length) return { ranked: [], cache: terms.cache };
  const dfq = plan.terms.map((t) => terms.dfOf.get(t)!);
  const idfRaw = dfq.map((df) => Math.log(1 + (terms.N - df + 0.5) / (df + 0.5)));
  const { cands, got } = await candidatesOf(sql, plan.terms, dfq, idfRaw, terms, want, maxPostings);
  if (!cands.length) return { ranked: [], cache: terms.cache };
  const facts = await candidateFacts(sql, cands, plan.terms, got);
  return { ranked: bm25fOrder(K, plan, idfRaw, cands, facts, terms.N, terms.sumLen), cache: terms.cache };
}

/** What the first round trip brings (`TERMS_SQL`): document frequencies, totals, the postings sent, the connection's cache for this generation. */
interface TermsRead {
  dfOf: Map<string, number>;
  N: number;
  sumLen: number[];
  /** The postings the server sent (blobs or rows). */
  sent: Map<string, TermPostings>;
  cache: PostingCache;
}

async function readTerms(sql: Sql, asked: string[], maxPostings: number, cold: boolean): Promise<TermsRead> {
  let cache = cold ? undefined : postingCaches.get(sql);
  const params = [asked, maxPostings, cache ? asked.filter((t) => cache!.terms.has(t)) : [], cache?.generation ?? null];
  const older = withoutBlobs.get(sql);
  let first: { rows: TermRow[] };
  try {
    first = await sql.query<TermRow>(older === undefined ? TERMS_SQL : TERMS_SQL_V3, params);
  } catch (err) {
    if (older !== undefined || (err as { code?: string }).code !== '42703') throw err; // 42703: no such column (schema 3)
    first = await sql.query<TermRow>(TERMS_SQL_V3, params);
    withoutBlobs.set(sql, '');
  }
  const mm = new Map<string, string>();
  for (const r of first.rows) if (r.term === null) mm.set(r.key ?? '', r.value ?? '');
  const generation = mm.get('generation') ?? '0';
  if (withoutBlobs.has(sql)) {
    if (!withoutBlobs.get(sql)) withoutBlobs.set(sql, generation);
    else if (withoutBlobs.get(sql) !== generation) withoutBlobs.delete(sql); // written since: maybe migrated
  }
  if (!cache || cache.generation !== generation) {
    cache = { generation, terms: new Map(), size: 0, chunks: new Map() };
    if (!cold) postingCaches.set(sql, cache);
  }
  const dfOf = new Map<string, number>();
  const sent = new Map<string, TermPostings>();
  for (const r of first.rows) {
    if (r.term === null) continue;
    dfOf.set(r.term, Number(r.df));
    if (r.blob || r.ids !== null) sent.set(r.term, termPostings(r));
  }
  return { dfOf, N: Math.max(1, Number(mm.get('chunks') ?? 0)), sumLen: (mm.get('len_sums') ?? '0,0,0,0').split(',').map(Number), sent, cache };
}

/** The postings of `t` the server sent or the connection holds (kept as most recently used), if any. */
function atHand(terms: TermsRead, t: string): TermPostings | undefined {
  const p = terms.sent.get(t) ?? terms.cache.terms.get(t);
  if (p) cachePostings(terms.cache, t, p);
  return p;
}

/**
 * The `want` candidates (keyword.ts `candidatesOf`): per chunk Σ idf × the class weight over the
 * rarest terms within the postings budget, more terms while too few came out; with the postings
 * read (`got`, by term).
 */
async function candidatesOf(sql: Sql, planTerms: string[], dfq: number[], idfRaw: number[], terms: TermsRead, want: number, maxPostings: number): Promise<{ cands: number[]; got: Map<string, TermPostings> }> {
  const nq = planTerms.length;
  const order = planTerms.map((_, q) => q).sort((a, b) => dfq[a] - dfq[b] || a - b);
  const { symbol, path: pathB, header, text } = kw().boosts;
  const classW = [Math.max(1e-6, symbol), Math.max(1e-6, header, pathB), Math.max(1e-6, text)];
  let next = 0;
  let read = 0;
  while (next < nq && (next === 0 || read + dfq[order[next]] <= maxPostings)) read += dfq[order[next++]];
  const acc = accumulators.pop() ?? new Accumulator();
  let summed = 0;
  let cands: number[] = [];
  const got = new Map<string, TermPostings>();
  for (;;) {
    const now = order.slice(summed, next).map((q) => planTerms[q]);
    // at hand, or (a query of over 64 terms, or more candidates needed) read now
    for (const t of now) {
      const p = atHand(terms, t);
      if (p) got.set(t, p);
    }
    const missing = now.filter((t) => !got.has(t));
    if (missing.length) {
      for (const r of (await sql.query<TermRow>(POSTINGS_SQL, [missing])).rows) {
        const p = termPostings(r);
        got.set(r.term!, p);
        cachePostings(terms.cache, r.term!, p);
      }
    }
    for (; summed < next; summed++) {
      const q = order[summed];
      const p = got.get(planTerms[q]);
      if (p) acc.add(p.ids, p.tfs, classW.map((x) => idfRaw[q] * x));
    }
    cands = acc.top(want);
    if (cands.length >= want || next >= nq) break;
    next++;
  }
  acc.clear();
  accumulators.push(acc);
  // the other terms' postings where they are at hand (held by the connection)
  for (const q of order.slice(next)) {
    const p = atHand(terms, planTerms[q]);
    if (p) got.set(planTerms[q], p);
  }
  return { cands, got };
}

/** Per candidate, its field lengths and its frequencies of the query's terms: from the postings at hand, the rest from the server (`PROBE_SQL`). */
async function candidateFacts(sql: Sql, cands: number[], planTerms: string[], got: Map<string, TermPostings>): Promise<Map<number, { lens: number[]; ts: string[]; tfs: number[] }>> {
  const byId = new Map<number, { lens: number[]; ts: string[]; tfs: number[] }>(cands.map((id) => [id, { lens: [], ts: [], tfs: [] }]));
  for (const [t, p] of got) {
    for (let j = 0; j < p.ids.length; j++) {
      const r = byId.get(p.ids[j]);
      if (!r) continue;
      if (!r.lens.length) r.lens = [p.la[j] >>> 16, p.la[j] & 0xffff, p.lb[j] >>> 16, p.lb[j] & 0xffff];
      r.ts.push(t);
      r.tfs.push(p.tfs[j]);
    }
  }
  const unread = planTerms.filter((t) => !got.has(t));
  if (unread.length) {
    for (const p of (await sql.query<{ id: number; term: string; tf: number }>(PROBE_SQL, [cands, unread])).rows) {
      const r = byId.get(p.id);
      if (!r) continue;
      r.ts.push(p.term);
      r.tfs.push(Number(p.tf));
    }
  }
  return byId;
}

/** The candidates by BM25F as keyword.ts `bm25` computes it (coverage, then the namesake tie-break), best first. */
function bm25fOrder(
  K: KeywordIndex,
  plan: ReturnType<typeof planQuery>,
  idfRaw: number[],
  cands: number[],
  byId: Map<number, { lens: number[]; ts: string[]; tfs: number[] }>,
  N: number,
  sumLen: number[],
): Array<{ id: number; score: number }> {
  const { k1, b } = K;
  const { symbol, path: pathB, header, text } = K.boosts;
  const qOf = new Map(plan.terms.map((t, q) => [t, q]));
  const idf = idfRaw.map((x, q) => x * plan.weight[q]);
  let totalIdf = 0;
  let known = 0;
  for (const x of plan.conceptIdf) {
    totalIdf += x;
    if (x > 0) known++;
  }
  const alpha = K.coverage > 0 && totalIdf > 0 && known > 1 && known <= COVERAGE_MAX_CONCEPTS ? K.coverage : 0;
  const w = [symbol, pathB, header, text];
  const inv = sumLen.map((x) => (x > 0 ? N / x : 0));
  const scored: Array<{ id: number; score: number; order: number; share: number; named: number }> = [];
  let best = 0;
  cands.forEach((id, c) => {
    const r = byId.get(id);
    if (!r) return; // removed meanwhile
    const lens = r.lens;
    const norm = lens.map((len, f) => w[f] / (2 * (1 - b + b * len * inv[f])));
    let score = 0;
    let covered = 0;
    let symHalves = 0;
    let share = 0;
    let named = 0;
    r.ts.forEach((t, j) => {
      const q = qOf.get(t);
      if (q === undefined) return;
      const p = r.tfs[j] >>> 0;
      const W = (p & 255) * norm[0] + ((p >>> 8) & 255) * norm[1] + ((p >>> 16) & 255) * norm[2] + (p >>> 24) * norm[3];
      score += (idf[q] * W * (k1 + 1)) / (k1 + W);
      covered |= plan.covers[q];
      symHalves += p & 255;
    });
    if (lens[0] > 0 && symHalves > 0) {
      const h = symHalves / 2;
      named = Math.max(0, Math.min(4, h - (lens[0] - h) / 2));
    }
    if (score > 0 && totalIdf > 0) {
      let got = 0;
      for (let mask = covered, x = 0; mask !== 0 && x < 31; x++, mask >>>= 1) if (mask & 1) got += plan.conceptIdf[x];
      share = got / totalIdf;
      if (share > best) best = share;
      if (alpha > 0) score *= share ** alpha;
    }
    scored.push({ id, score, order: c, share, named });
  });
  const nameW = K.namesake;
  if (nameW > 0) for (const x of scored) if (x.named > 0 && (alpha === 0 || x.share >= best - 1e-9)) x.score *= 1 + nameW * x.named;
  scored.sort((x, y) => y.score - x.score || x.order - y.order);
  return scored.map((x) => ({ id: x.id, score: x.score }));
}

const DENSE_SQL = `
select c.chunk, c.ord from fathom_chunks c
where c.embedding is not null and exists (select 1 from fathom_meta where key = 'model' and value = $3)
order by c.embedding <#> $1::vector, c.path, c.ord limit $2`;

/** The int8 codes of one generation of the index, read once per connection and generation. */
interface CodeTable {
  generation: string;
  model: string;
  dims: number;
  /** The chunk id of each row. */
  ids: Int32Array;
  /** Per row: value = code × scale (the stored max |x| / 127). */
  scales: Float32Array;
  codes: Int8Array;
  /** The same codes in the SIMD scanner's memory (int8-scan.ts), where the runtime allows. */
  simd: Int8Rows | undefined;
}
const codeTables = new WeakMap<object, Promise<CodeTable>>();

async function loadCodes(sql: Sql, generation: string, model: string, dims: number): Promise<CodeTable> {
  const r = await sql.query<{ id: number; code: Uint8Array; code_scale: number }>('select id, code, code_scale from fathom_chunks where code is not null order by id');
  const rows = r.rows.filter((x) => x.code.length === dims);
  const ids = new Int32Array(rows.length);
  const scales = new Float32Array(rows.length);
  const codes = new Int8Array(rows.length * dims);
  rows.forEach((x, i) => {
    ids[i] = x.id;
    scales[i] = Number(x.code_scale) / 127;
    codes.set(new Int8Array(x.code.buffer, x.code.byteOffset, dims), i * dims);
  });
  return { generation, model, dims, ids, scales, codes, simd: Int8Rows.fromCodes(codes, scales, dims) };
}

/** The ids of the `want` stored codes nearest `qv` by inner product (ties: lower id first): the local store's int8 scan, in the client. */
async function denseByCodes(sql: Sql, m: Map<string, string>, model: string, qv: Float32Array, want: number): Promise<number[]> {
  if (m.get('model') !== model) return [];
  const generation = m.get('generation') ?? '0';
  const dims = Number(m.get('dims') ?? qv.length);
  if (dims !== qv.length) return [];
  let p = codeTables.get(sql);
  let t = p ? await p.catch(() => undefined) : undefined;
  if (!t || t.generation !== generation || t.model !== model) {
    p = loadCodes(sql, generation, model, dims);
    codeTables.set(sql, p);
    t = await p;
  }
  const table = t;
  if (table.simd) return table.simd.top(table.ids.length, qv, want).map((h) => table.ids[h.docId]);
  // no WebAssembly SIMD (or dimensions it cannot take): the IVF's JS loop over the same codes
  const heap = new TopHeap(Math.max(1, want));
  const tail = dims - (dims % 4);
  for (let i = 0; i < table.ids.length; i++) {
    const x = dot8(table.codes, i * dims, qv, dims, tail) * table.scales[i];
    if (x > heap.min) heap.push(i, x);
  }
  return Array.from({ length: heap.size }, (_, i) => ({ i: heap.ids[i], s: heap.scoreAt(i) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((h) => table.ids[h.i]);
}

/** The chunks of `ids` (their JSON text and ord): those the connection's cache holds for this generation, the others read (and kept). */
async function chunksOf(sql: Sql, ids: number[], cache: PostingCache | undefined): Promise<Map<number, { ord: number; json: string }>> {
  const out = new Map<number, { ord: number; json: string }>();
  const need: number[] = [];
  for (const id of ids) {
    const c = cache?.chunks.get(id);
    if (!c) {
      need.push(id);
      continue;
    }
    out.set(id, c);
    cache!.chunks.delete(id); // most recently used last
    cache!.chunks.set(id, c);
  }
  if (!need.length) return out;
  const rows = await sql.query<{ id: number; ord: number; chunk: string }>('select id, ord, chunk::text as chunk from fathom_chunks where id = any($1::int[])', [need]);
  for (const r of rows.rows) {
    const c = { ord: r.ord, json: r.chunk };
    out.set(r.id, c);
    if (!cache) continue;
    cache.chunks.set(r.id, c);
    if (cache.chunks.size > PG_CACHED_CHUNKS) cache.chunks.delete(cache.chunks.keys().next().value!);
  }
  return out;
}

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
  // the same filter on a ranked chunk's facts, before its text is fetched
  let facts: { path: string; language: string; kind: string } | undefined;
  const factFilter = options.filters ? compileFilter(options.filters, () => facts) : undefined;
  const passes = (r: { path: string; language: string; kind: string }) => {
    if (options.exclude?.has(r.path)) return false;
    facts = r;
    return !factFilter || factFilter(0);
  };
  const keep = (id: number) => !options.exclude?.has(pool[id].path) && (!filter || filter(id));
  const lists: RankedList[] = [];
  const found = { phrase: false };
  const asked: Array<Promise<void>> = [];
  if (mode !== 'dense') {
    const slot = lists.push({ name: 'keyword', ids: [] }) - 1;
    asked.push(
      (async () => {
        const { ranked: rankedHits, cache } = await keywordRank(sql, q, Math.max(fetch, kw().candidates) * (filtering ? 4 : 1), options.maxPostings ?? PG_MAX_POSTINGS, options.cold);
        const ranked = rankedHits.map((h) => h.id);
        const scoreOf = new Map(rankedHits.map((h) => [h.id, h.score]));
        // filters on the ranked facts (path, language, kind), then the texts of the best `depth`
        let passed = ranked.slice(0, depth);
        if (filtering) {
          const f = await sql.query<{ id: number; path: string; language: string; kind: string }>('select id, path, language, kind from fathom_chunks where id = any($1::int[])', [ranked]);
          const factsOf = new Map(f.rows.map((r) => [r.id, r]));
          passed = ranked.filter((id) => factsOf.has(id) && passes(factsOf.get(id)!)).slice(0, depth);
        }
        if (!passed.length) return;
        const chunkOf = await chunksOf(sql, passed, cache);
        const kept = passed.filter((id) => chunkOf.has(id));
        const hits = kept.map((id) => ({ docId: idOf(parseChunk(chunkOf.get(id)!.json), chunkOf.get(id)!.ord), score: scoreOf.get(id) ?? 0 }));
        // the engine's order after BM25: term proximity (over the text and the i18n text shown with it), then the phrase tiers
        const ids = proximityOrder(q, hits, depth, (id) => proximityText(pool[id]?.text, pool[id]));
        lists[slot].ids = phraseFirst(q, ids, (id) => pool[id]?.text, (id) => shownText(pool[id])?.split('\n').map(shownForm), ids.length, found);
      })(),
    );
  }
  if (mode !== 'keyword' && options.embedder) {
    const embedder = options.embedder;
    const slot = lists.push({ name: 'dense', ids: [] }) - 1;
    asked.push(
      (async () => {
        const [[qv], m] = await Promise.all([
          embedder.embed([q], undefined, { urgent: true, query: true }),
          sql.query<{ key: string; value: string }>("select key, value from fathom_meta where key in ('model', 'dense', 'dims', 'generation')").then((r) => new Map(r.rows.map((x) => [x.key, x.value]))),
        ]);
        if (m.get('dense') === 'int8-codes') {
          const ids = await denseByCodes(sql, m, embedder.id, qv, fetch);
          if (!ids.length) return;
          const texts = await sql.query<{ id: number; ord: number; chunk: Chunk | string }>('select id, ord, chunk from fathom_chunks where id = any($1::int[])', [ids]);
          const chunkOf = new Map(texts.rows.map((r) => [r.id, r]));
          lists[slot].ids = ids
            .filter((id) => chunkOf.has(id))
            .map((id) => idOf(parseChunk(chunkOf.get(id)!.chunk), chunkOf.get(id)!.ord))
            .filter(keep)
            .slice(0, depth);
          return;
        }
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
  // Fathom's own model weighed as the local engine weighs it (asked in parallel, dropped when it takes no part)
  const dense = lists.find((l) => l.name === 'dense');
  if (dense && options.embedder?.id.startsWith(STATIC_MODEL_NAME) && mode !== 'dense') {
    dense.weight = ownModelWeight(q, found.phrase);
    if (!dense.weight) lists.splice(lists.indexOf(dense), 1);
  }
  // test code below its implementation, prose below the code a plain-words query describes, as in the local engine
  return weighByPath(rrf(lists, { k: options.rrfK ?? DEFAULT_RRF_K, limit: depth }), q, (h) => pool[h.docId]?.path, { describes: ownModelWeight(q, found.phrase) > 0 })
    .slice(0, k)
    .map((h) => ({ chunk: pool[h.docId], docId: h.docId, score: h.score, why: h.why }));
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
  dir: string | FileSource,
  query: string,
  options: PgSearchOptions & { chunk?: ChunkOptions; selection?: FileSelection } = {},
): Promise<{ hits: SearchHit[]; dirty: string[] }> {
  const remote = await remoteHashes(sql);
  const local = new Engine({ chunk: options.chunk, embedder: options.embedder });
  const dirty = new Set<string>();
  const source = typeof dir === 'string' ? new NodeFileSource(dir) : dir;
  const files = await source.walkAsync(options.selection, []);
  const present = new Set(files.map((f) => f.rel));
  for (const rel of remote.keys()) if (!present.has(rel)) dirty.add(rel);
  await prepareLanguagesFor(files.map((f) => f.rel));
  for (const f of files) {
    const read = source.read(f.rel, local.chunkOptions.maxFileBytes); // the folder's read policy: never a link's target, nothing over the cap
    if (!read.ok) {
      if (read.reason === 'too-large' && remote.get(f.rel) !== `too-large:${read.stat?.size ?? f.size}`) dirty.add(f.rel);
      continue;
    }
    const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
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
 * Did `err` come from a connection the server (or the network) closed, rather than from the
 * query: the server shutting down or terminating the session (SQLSTATE class 57P, 08), a reset
 * socket, or the `pg` client refusing to use a connection that already failed.
 */
export function isConnectionLoss(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '');
  if (/^(57P0[123]|08\w{3}|ECONNRESET|EPIPE|ECONNABORTED)$/.test(code)) return true;
  return /Connection terminated|not queryable|terminating connection|server closed the connection|ECONNRESET|EPIPE/i.test(errText(err));
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

  /** The kept connection (the same promise until a failed search drops it). */
  private connection(): Promise<PgConnection> {
    if (!this.conn) {
      const connect = this.options.connect ?? ((u: string) => connectPg(u, { timeoutMs: 5000 }));
      this.conn = (async () => connect(this.url))(); // a promise even if `connect` throws
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
    // the connection kept from an earlier search may have been closed by the server since (a
    // restart, an idle timeout, a failover): then once more on a new one, before searching locally
    let reused = this.conn !== undefined;
    for (;;) {
      const used = this.connection();
      try {
        const sql = await used;
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
        // a new connection next time; one that a search running beside this one made already is kept
        if (this.conn === used) {
          this.conn = undefined;
          this.hashes = undefined;
        }
        void used.then((c) => c.end()).catch(() => undefined);
        if (reused && isConnectionLoss(err)) {
          reused = false;
          continue;
        }
        this.failedAt = Date.now();
        const message = errText(err);
        this.setState({ url: redact(this.url), ok: false, problem: message.replace(this.url, redact(this.url)) });
        return undefined;
      }
    }
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.then((c) => c.end()).catch(() => undefined);
  }
}
