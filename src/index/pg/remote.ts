/** The team index with local edits overlaid: the CLI's `searchWithOverlay` and the editor's `RemoteIndex`. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { prepareLanguagesFor } from '../../chunkers/index';
import type { ChunkOptions } from '../../chunkers/types';
import { errText } from '../../util/errors';
import type { FileSelection } from '../../workspace/files';
import { NodeFileSource, type FileSource } from '../../workspace/source';
import { Engine, hashText, type SearchHit } from '../engine';
import { DEFAULT_RRF_K, rrf } from '../rank/fusion';
import { connectPg, isConnectionLoss, redact, type PgConnection } from './connect';
import { PgStoreError, type Sql } from './schema';
import { pgSearch, type PgSearchOptions } from './search';

/** The remote files' content hashes. */
export async function remoteHashes(sql: Sql): Promise<Map<string, string>> {
  const exists = await sql.query<{ t: string | null }>("select to_regclass('fathom_files')::text as t");
  if (!exists.rows[0]?.t) throw new PgStoreError('the database holds no Fathom index: push one first with `fathom index <dir> --store postgres://…`');
  return new Map((await sql.query<{ path: string; hash: string }>('select path, hash from fathom_files')).rows.map((r) => [r.path, r.hash]));
}

/** The pushed files' hashes and the generation they belong to, read in one statement. */
async function readHashes(sql: Sql): Promise<{ generation: string; map: Map<string, string> }> {
  const r = await sql
    .query<{ path: string | null; hash: string | null; generation: string | null }>(
      "select f.path, f.hash, g.value as generation from (select value from fathom_meta where key = 'generation') g right join (select 1) one on true left join fathom_files f on true",
    )
    .catch((err: unknown) => {
      throw /fathom_(meta|files)/.test(String((err as Error)?.message)) ? new PgStoreError('the database holds no Fathom index (push one with `fathom index <dir> --store postgres://…`)') : err;
    });
  const map = new Map<string, string>();
  for (const row of r.rows) if (row.path !== null) map.set(row.path, row.hash ?? '');
  return { generation: r.rows[0]?.generation ?? '0', map };
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
  const pool = [...remoteHits, ...localHits];
  const fused = rrf(
    [
      { name: 'keyword', ids: remoteHits.map((_, i) => i) },
      { name: 'dense', ids: localHits.map((_, i) => remoteHits.length + i) },
    ],
    { k: options.rrfK ?? DEFAULT_RRF_K, limit: k },
  );
  // each hit as its side presented it (its folded locales, more in its file, the piece that ranked it), placed by the fusion
  return { hits: fused.map((h, i) => ({ ...pool[h.docId], docId: i, score: h.score, why: { fused: h.score, ...(pool[h.docId].why.rankedBy ? { rankedBy: pool[h.docId].why.rankedBy } : {}) } })), dirty: [...dirty].sort() };
}

/**
 * The folder's own rules for which files it holds (its exclude settings, .gitignore files): the
 * team index was pushed with the pusher's, and a file this folder leaves out is left out of its
 * answers too. `key` names the settings (the rules are asked again when it changes).
 */
export interface LocalRules {
  key: string;
  allowed: () => (rel: string) => boolean;
}

export type RemoteSearchOptions = PgSearchOptions & { localSearch: (k: number) => Promise<SearchHit[]>; localRules?: LocalRules };

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
  private leftOutMemo: { key: string; paths: Set<string> } | undefined;

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
  async search(root: string, engine: Engine, query: string, options: RemoteSearchOptions): Promise<SearchHit[] | undefined> {
    if (this.failedAt && Date.now() - this.failedAt < (this.options.retryMs ?? 60_000)) return undefined;
    const k = Math.max(1, options.k ?? 10);
    // the connection kept from an earlier search may have been closed by the server since (a
    // restart, an idle timeout, a failover): then once more on a new one, before searching locally
    let reused = this.conn !== undefined;
    for (;;) {
      const used = this.connection();
      try {
        const sql = await used;
        // the pushed files' hashes as last read; the search itself says which generation it read,
        // and only a search that saw another one reads them again and asks once more
        this.hashes ??= await readHashes(sql);
        let answer = await this.overlaid(sql, root, engine, query, { ...options, k });
        if (answer.stale) {
          this.hashes = await readHashes(sql);
          answer = await this.overlaid(sql, root, engine, query, { ...options, k });
        }
        const { remote, local, dirty } = answer;
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

  /** The pushed files this folder's own rules leave out (the editor's exclude settings, its .gitignore files), once per generation and rules. */
  private leftOut(hashes: { generation: string; map: Map<string, string> }, engine: Engine, rules: LocalRules | undefined): ReadonlySet<string> {
    if (!rules) return new Set();
    const key = `${hashes.generation}\u0000${engine.revision}\u0000${rules.key}`;
    if (this.leftOutMemo?.key === key) return this.leftOutMemo.paths;
    const allowed = rules.allowed();
    const paths = new Set([...hashes.map.keys()].filter((rel) => !allowed(rel)));
    this.leftOutMemo = { key, paths };
    return paths;
  }

  /** The remote answer without the locally changed files, and the local one (when any changed); stale when the search read another generation than the hashes'. */
  private async overlaid(sql: Sql, root: string, engine: Engine, query: string, options: RemoteSearchOptions & { k: number }) {
    const hashes = this.hashes!;
    const dirty = this.dirtyOf(root, engine, hashes.map, hashes.generation);
    const leftOut = this.leftOut(hashes, engine, options.localRules);
    const exclude = leftOut.size ? new Set([...dirty, ...leftOut]) : dirty;
    const seen = new Set<string>();
    const depth = Math.max(50, options.k * 5);
    const [remote, local] = await Promise.all([pgSearch(sql, query, { ...options, exclude, seen }), dirty.size ? options.localSearch(depth) : Promise.resolve([])]);
    return { remote, local, dirty, stale: [...seen].some((g) => g !== hashes.generation) };
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.then((c) => c.end()).catch(() => undefined);
  }
}

