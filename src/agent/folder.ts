/**
 * "An open folder" as the agent tools see it (`AgentFolder`): the tools (tools.ts) only ever see
 * this interface, so the same answers come from the `fathom mcp` server (src/mcp/folder.ts:
 * `LocalFolder`) and from the extension's worker (src/service/agent-folder.ts: an open
 * `FolderSession`). Also the engine reads both hosts share (a file's chunks, every chunk, the
 * indexed paths).
 */
import type { Chunk } from '../chunkers/types';
import type { Engine, IndexProgress, SearchHit, SearchOptions } from '../index/engine';
import type { LookupResult } from '../i18n/types';
import type { ReadResult } from '../workspace/source';

/** What a folder is doing and holds, for the `status` tool and the "still indexing" notes. */
export interface FolderState {
  root: string;
  files: number;
  skipped: number;
  chunks: number;
  vectors: number;
  pendingVectors: number;
  /** Set while the folder is (re)indexed: what is done so far. Answers cover only that. */
  indexing?: { phase: IndexProgress['phase'] | 'load'; filesDone: number; filesTotal: number };
  /** Vectors are computed in the background. */
  embedding?: boolean;
  /** Why there are no vectors (searches are keyword-only). */
  keywordOnlyReason?: string;
  /** The embedding model that ranks by meaning (`fathom-code-search@…`, `Xenova/all-MiniLM-L6-v2`), when there is one. */
  model?: string;
  /** Fathom's own model beside that one (`Embedder.companion`): it re-ranks a query in words. */
  companion?: string;
  /** Where the index is saved, or why it is not (held in memory only). */
  store: string;
  /** How the folder follows edits (the watcher, or why it cannot). */
  watching: string;
  /** Time of the last change applied from the watcher (ISO), if any. */
  lastUpdate?: string;
}

export type I18nAsk = { op: 'string'; text: string; fromFile?: string; limit?: number } | { op: 'key'; key: string; fromFile?: string; limit?: number };

/** One open workspace folder, as the agent tools use it. Paths are folder-relative with `/`. */
export interface AgentFolder {
  readonly root: string;
  search(query: string, options: SearchOptions): Promise<SearchHit[]>;
  similar(target: { path: string; line: number }, options: { k: number }): Promise<SearchHit[]>;
  /** The file's chunks in order of start offset; undefined when the folder has no such file. */
  chunksOf(rel: string): Chunk[] | undefined;
  /** The folder's indexed files (not skipped ones), for matching query terms against paths. */
  paths?(): Iterable<string>;
  /** Why a file holds no chunks (skipped: binary, too large …), when it is known. */
  skipOf(rel: string): { reason: string; detail: string } | undefined;
  /** The sha1 of an indexed file's bytes, as indexed: what a cache of what is read from the file keys on. */
  fileHash?(rel: string): string | undefined;
  /** Applies the changes the watcher reported (hosts that follow edits themselves leave it out). */
  refresh?(): Promise<void>;
  /** Every chunk of the folder (for exact matches over the parsed units); absent where the host cannot list them. */
  allChunks?(): Iterable<Chunk>;
  /** Reads one file of the folder by the folder's one read policy (no link out of the folder is followed); absent where the host cannot read files. */
  readFile?(rel: string, maxBytes: number): ReadResult;
  i18n(ask: I18nAsk): Promise<LookupResult>;
  state(): FolderState;
}

/** The indexed (not skipped) files of `engine`. */
export function* enginePaths(engine: Engine): Iterable<string> {
  for (const [p, rec] of engine.files) if (!rec.skipped && rec.docIds.length) yield p;
}

/** Every live chunk of `engine`. */
export function* engineChunks(engine: Engine): Iterable<Chunk> {
  for (const c of engine.chunks) if (c) yield c;
}

/** Chunks of one file of `engine`, ordered by start offset. */
export function engineChunksOf(engine: Engine, rel: string): Chunk[] | undefined {
  const rec = engine.files.get(rel);
  if (!rec) return undefined;
  return rec.docIds
    .map((id) => engine.chunks.get(id))
    .filter((c): c is Chunk => !!c)
    .sort((a, b) => a.start.offset - b.start.offset || b.end.offset - a.end.offset);
}
