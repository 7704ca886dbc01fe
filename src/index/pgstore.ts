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
 *   frequencies packed as the local index packs them, keyword-record.ts `keywordRecord`), the hash of its
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
 * Keyword search is the local index's own ranking (keyword-candidates.ts, keyword-score.ts) over these tables, with the
 * same tokenizer, query plan (`planQuery`: stems, compounds, synonyms, concepts) and BM25F: (1) the
 * query terms' document frequencies; (2) candidates in SQL, the query's rarest terms first within a
 * postings budget (`PG_MAX_POSTINGS`; the local index reads up to 300k, in memory), each chunk
 * scored Σ idf × its field class's boost, best 200 kept; (3) those candidates' lengths and
 * frequencies of the query terms, scored in JS by BM25F with the coverage factor and the namesake
 * tie-break, then the phrase-first order of the engine. (Schema 2 ranked by `ts_rank` over a
 * tsvector, computed for every matching row: 0.5–1.4 s a query at 100k chunks.) Dense search is
 * pgvector's HNSW, or without pgvector an exact scan of the int8 codes in the client (read once
 * per connection and index generation: 128 bytes a chunk, ~13 MB at 100k); hybrid fuses as locally
 * (fusion.ts: by score with Fathom's own model, else RRF).
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
export { migrate, pgStatus, PgStoreError, PG_SCHEMA_VERSION, type PgStatus, type Sql } from './pg/schema';
export { connectPg, isConnectionLoss, isPgUrl, redact, type PgConnection } from './pg/connect';
export { pushFolder, type PgDense, type PushOptions, type PushStats } from './pg/push';
export { pgSearch, PG_CACHED_CHUNKS, PG_CACHED_POSTINGS, PG_MAX_POSTINGS, type PgSearchOptions } from './pg/search';
export { overlayHits, remoteHashes, RemoteIndex, searchWithOverlay, type LocalRules, type RemoteIndexOptions, type RemoteSearchOptions, type RemoteState } from './pg/remote';
