/**
 * The one typed protocol between the extension host (client.ts) and the worker thread
 * (worker.ts).
 *
 * Three kinds of messages:
 * - **Requests** (client → worker) carry an `id`. The worker answers each one exactly once,
 *   with `{type: 'result', id, result}` (the result's type is `ResultOf<request type>`) or
 *   `{type: 'error', id, message, cancelled?}`. `dispose` and `crash` are the exceptions noted
 *   on them.
 * - **Events** (worker → client) carry no `id` of a request they answer: `progress`, `status`
 *   and `log`, pushed whenever something happens.
 * - **Cancellation**: `cancel {target}` aborts the request whose id is `target`; that request
 *   then answers `{type: 'error', cancelled: true}` (the client rejects its promise with a
 *   `CancelledError`).
 *
 * Everything here is structured-clone data (no classes, no functions).
 */
import type { ChunkOptions, FileChunks } from '../chunkers/types';
import type { EmbedderOptions } from '../index/embedder';
import type { FileSelection } from '../workspace/files';
import type { IndexProgress, SearchHit, SearchOptions, SimilarTarget } from '../index/engine';
import type { HoverResult, I18nDiagnostic, LookupResult, StringAtResult } from '../i18n/types';
import type { RemoteState } from '../index/pgstore';

// ---------------------------------------------------------------------------------------------
// Shared data

/** What `init` configures: one set of options for every folder the worker indexes. */
export interface WorkerInitOptions {
  /** Chunking options of every engine (they are part of the store's identity). */
  chunk?: ChunkOptions;
  /**
   * The embedding model, created in the worker with `createEmbedder`. Absent or `false`: the
   * worker runs keyword-only and says so in `status.keywordOnlyReason`. When `createEmbedder`
   * fails (no model, no runtime) the worker runs keyword-only with its reason as well.
   */
  embedder?: EmbedderOptions | false;
  /** Debounce of saves after `update`/`remove` and during background embedding, ms. Default 2000. */
  saveDelayMs?: number;
  /**
   * A team index (`postgres://…`, `fathom.index.remote`): searches go to it, with the files that
   * differ locally from the pushed ones answered from the local index; while it cannot be
   * reached, searches are local (and `status.remote` says why).
   */
  remote?: string;
}

/** One folder's state, as in `status`. */
export interface FolderStatus {
  root: string;
  storeDir: string;
  /** Files indexed (not skipped) and files skipped with a reason. */
  files: number;
  skipped: number;
  chunks: number;
  vectors: number;
  pendingVectors: number;
  /** An `index` request is running on this folder. */
  indexing: boolean;
  /** Vectors are being computed in the background (after `update`, or after a resumed load). */
  embedding: boolean;
  /** Changes not yet saved to the store. */
  dirty: boolean;
}

/** The worker's state: answer of `status`/`init`, and pushed as a `status` event on changes. */
export interface WorkerStatus {
  /** `init` was received (requests before it run with default options: keyword-only). */
  initialized: boolean;
  /** Set when there are no vectors: why (no model configured, model missing, runtime missing). */
  keywordOnlyReason?: string;
  /** The embedder's id (model, dtype, window) when there is one. */
  model?: string;
  paused: boolean;
  folders: FolderStatus[];
  /** The team index, when `init` gave one. */
  remote?: RemoteState;
}

/** A search hit with the folder it comes from. */
export interface WorkerHit extends SearchHit {
  root: string;
}

/** One changed file of an `update`. */
export type FileUpdate =
  | { rel: string; deleted: true }
  /** New content. Without `bytes` the worker reads `<root>/<rel>` from disk. */
  | { rel: string; deleted?: false; bytes?: Uint8Array; mtimeMs?: number };

export type { SimilarTarget };

// ---------------------------------------------------------------------------------------------
// Requests (client → worker)

/** Client → worker: chunk one file's text (no index involved). Answered by `FileChunks`. */
export interface ChunkRequest {
  type: 'chunk';
  id: number;
  path: string;
  text: string;
  options?: ChunkOptions;
}

/**
 * Client → worker: configure chunking and embedding. Answered by `WorkerStatus` (with
 * `keywordOnlyReason` when no embedder could be created). Sent first, and again by the client
 * after a crash. A second `init` saves and closes every open folder first.
 */
export interface InitRequest {
  type: 'init';
  id: number;
  options: WorkerInitOptions;
}

/**
 * Client → worker: open `root` with its store in `storeDir` (lock, load — a store that cannot
 * be trusted is rebuilt and the reason sent as a `log` event), index it incrementally, compute
 * missing vectors, save. Sends `progress` events (`id` = this request's id) ending with phase
 * `done`. Searches are answered while it runs (keyword-only until the vectors are there).
 * Answered by `IndexResult` when done; `cancel` stops it between files/batches (what was done
 * is kept and saved).
 */
export interface IndexRequest {
  type: 'index';
  id: number;
  root: string;
  storeDir: string;
  /**
   * Which files (on top of `.gitignore` and the always-skipped folders): kept for the folder
   * and applied to its later `update`s too — a file it leaves out is removed, not indexed.
   */
  selection?: FileSelection;
  /** What the folder's i18n index, fed by the same run, is built with (the editor's i18n settings). */
  i18n?: { localeGlobs?: string[]; functions?: string[] };
}

/**
 * Client → worker: files of an open folder changed. Keyword-searchable when answered; vectors
 * follow in the background (`progress` events without `id`), the store is saved debounced.
 * Answered by `UpdateResult`.
 */
export interface UpdateRequest {
  type: 'update';
  id: number;
  root: string;
  files: FileUpdate[];
}

/** Client → worker: forget files (or folders: every file under `<rel>/`). Answered by `UpdateResult`. */
export interface RemoveRequest {
  type: 'remove';
  id: number;
  root: string;
  paths: string[];
}

/**
 * Client → worker: embed these files of `root` first — the open, visible and recently edited
 * editors, workspace-relative with `/`, most wanted first (at most 200 are kept). Replaces the
 * folder's previous hint; kept for a folder not open yet and applied when it opens. Answered by
 * the folder's `pendingVectors` (0 when it is not open).
 */
export interface PrioritizeRequest {
  type: 'prioritize';
  id: number;
  root: string;
  paths: string[];
}

/**
 * Client → worker: the folder `root` left the workspace. Its session stops background
 * embedding, saves, releases the store's lock and is forgotten (a later `index` opens it
 * again; the client no longer replays its `index` after a restart). Answered by
 * `{closed}` (false: it was not open).
 */
export interface CloseRequest {
  type: 'close';
  id: number;
  root: string;
}

/**
 * Client → worker: hybrid search over the open folders (`roots`, default all), hits merged by
 * fused score. Answered by `WorkerHit[]`; answered `cancelled` when a `cancel` for it arrived
 * before it finished (the client sends one when a newer search supersedes it).
 */
export interface SearchRequest {
  type: 'search';
  id: number;
  query: string;
  options?: SearchOptions;
  roots?: string[];
}

/** Client → worker: chunks like a chunk, a position or a text in `root`. Answered by `WorkerHit[]`. */
export interface SimilarRequest {
  type: 'similar';
  id: number;
  root: string;
  target: SimilarTarget;
  k?: number;
}

/**
 * Client → worker: the files of open folder `root` as indexed, skipped ones with their reason
 * ("Show Indexed Files"). Answered by `FileInfo[]`, sorted by path.
 */
export interface FilesRequest {
  type: 'files';
  id: number;
  root: string;
}

/** Client → worker: answered by the current `WorkerStatus`. */
export interface StatusRequest {
  type: 'status';
  id: number;
}

/**
 * Client → worker: hold indexing and embedding between files/batches (searches and updates
 * are still served). Answered by `WorkerStatus`; a `status` event is pushed too.
 */
export interface PauseRequest {
  type: 'pause';
  id: number;
}

/** Client → worker: let paused indexing/embedding go on. Answered by `WorkerStatus`. */
export interface ResumeRequest {
  type: 'resume';
  id: number;
}

/**
 * Client → worker: abort request `target` (index, update's embedding is not a request, search,
 * similar). Answered by `{cancelled: boolean}` (false: nothing of that id runs — finished or
 * unknown); the target itself answers `{type: 'error', cancelled: true}`.
 */
export interface CancelRequest {
  type: 'cancel';
  id: number;
  target: number;
}

/**
 * Client → worker: stop everything, save every dirty folder, release the store locks, free the
 * model, exit. Answered by `null` just before the thread exits.
 */
export interface DisposeRequest {
  type: 'dispose';
  id: number;
}

/**
 * What an `i18n` request asks (src/i18n/):
 * - `string`: the keys whose value in any locale matches `text` (exact, normalized, fuzzy,
 *   then semantic with the worker's embedder when nothing else matched), best first;
 * - `key`: one key (`a.b.c`, `ns:a.b`) in every locale with its usages;
 * - `hover`: the `$t('key')` / `v-t` / `<i18n-t keypath>` under `offset` of `file` and its
 *   translations; `text` is the document's current text (unsaved edits), else the file on disk.
 * - `at`: "Where is this string defined?" in one round trip — the selection, or the string
 *   literal / template text under `offset` of the document (`text`, `language`: a VS Code
 *   language id or the file name), then the `string` lookup of it from `file`.
 * `fromFile` (workspace-relative) ranks the keys of its own app (nearest package.json) first.
 */
export type I18nQuery =
  | { op: 'string'; text: string; fromFile?: string; limit?: number }
  | { op: 'key'; key: string; fromFile?: string; limit?: number }
  | { op: 'hover'; file: string; offset: number; text?: string }
  | { op: 'at'; file: string; text: string; language: string; offset: number; selection?: { start: number; end: number }; limit?: number }
  /** The i18n diagnostics of one file (`text`: the document's unsaved text). */
  | { op: 'diagnostics'; file: string; text?: string };

/**
 * Client → worker: an i18n lookup in `root` (any folder; it need not be open with `index`).
 * The i18n index of a root is built on the first request (from disk) and kept up to date by
 * `update` and `remove`; `localeGlobs` (relative to the root) override locale discovery — a
 * request with other globs rebuilds it. Answered by `I18nAnswer`.
 */
export interface I18nRequest {
  type: 'i18n';
  id: number;
  root: string;
  query: I18nQuery;
  localeGlobs?: string[];
  /** The project's own translate functions, found like `$t` (a request with others rebuilds the index). */
  functions?: string[];
}

/**
 * The answer of an `i18n` request: `result` is `null` for a hover with no usage under the
 * offset; for `at`, `string` is what was looked up (null: nothing string-like there, and
 * `result` has no candidates).
 */
export type I18nAnswer =
  | { op: 'string'; result: LookupResult }
  | { op: 'key'; result: LookupResult }
  | { op: 'hover'; result: HoverResult | null }
  | { op: 'at'; string: StringAtResult | null; result: LookupResult }
  | { op: 'diagnostics'; result: I18nDiagnostic[] };

/** The answer to a query of kind `Op` (what `i18n(query)` resolves to, typed by the query). */
export type I18nAnswerOf<Op extends I18nQuery['op']> = Extract<I18nAnswer, { op: Op }>;

/**
 * Client → worker: one of Fathom's agent tools (src/agent/tools.ts: `search`, `similar`,
 * `context`, `i18n`, `status`) over the open folders (`roots`, default all), as the editor's
 * language-model tools call them; `args` as the model sent them (validated in the worker).
 * Answered by `ToolResult`: bad input is `isError` with the message, never a failed request.
 */
export interface ToolRequest {
  type: 'tool';
  id: number;
  name: string;
  args: unknown;
  roots?: string[];
}

/** A tool's answer: the text the model reads, the same facts as data. */
export interface ToolResult {
  text: string;
  structured: Record<string, unknown>;
  isError?: boolean;
}

/** Test-only: the worker throws an uncaught error (to exercise the client's restart). No answer. */
export interface CrashRequest {
  type: 'crash';
  id: number;
}

export type Request =
  | ChunkRequest
  | InitRequest
  | IndexRequest
  | UpdateRequest
  | RemoveRequest
  | PrioritizeRequest
  | CloseRequest
  | SearchRequest
  | SimilarRequest
  | FilesRequest
  | StatusRequest
  | PauseRequest
  | ResumeRequest
  | CancelRequest
  | DisposeRequest
  | CrashRequest
  | I18nRequest
  | ToolRequest;

export type RequestType = Request['type'];

// ---------------------------------------------------------------------------------------------
// Results

export interface IndexResult {
  root: string;
  files: number;
  skipped: number;
  chunks: number;
  vectors: number;
  pendingVectors: number;
  /** Why the stored index was not used (absent when it loaded, or there was none). */
  rebuilt?: string;
  /** It loaded from the store. */
  loaded: boolean;
  ms: number;
}

export interface UpdateResult {
  /** Files whose content changed (re-chunked) or that were removed. */
  changed: number;
  /** Files that could not be read, with why (they are recorded as skipped). */
  problems: Array<{ rel: string; reason: string }>;
  pendingVectors: number;
}

/** One file of `files`. */
export interface FileInfo {
  path: string;
  language: string;
  chunks: number;
  size: number;
  skipped?: { reason: string; detail: string };
  fallback?: string;
  warnings: number;
}

/** The result type of each request. */
export interface ResultMap {
  chunk: FileChunks;
  init: WorkerStatus;
  index: IndexResult;
  update: UpdateResult;
  remove: UpdateResult;
  prioritize: { pendingVectors: number };
  close: { closed: boolean };
  search: WorkerHit[];
  similar: WorkerHit[];
  files: FileInfo[];
  status: WorkerStatus;
  pause: WorkerStatus;
  resume: WorkerStatus;
  cancel: { cancelled: boolean };
  dispose: null;
  crash: never;
  i18n: I18nAnswer;
  tool: ToolResult;
}

export type ResultOf<T extends RequestType> = ResultMap[T];

// ---------------------------------------------------------------------------------------------
// Responses (worker → client, answering a request)

/** Worker → client: the request `id` succeeded. */
export interface ResultResponse<T extends RequestType = RequestType> {
  type: 'result';
  id: number;
  result: ResultOf<T>;
}

/** Worker → client: request `id` failed (`cancelled`: it was aborted by a `cancel`). */
export interface ErrorResponse {
  type: 'error';
  id: number;
  message: string;
  cancelled?: boolean;
}

export type Response = ResultResponse | ErrorResponse;

// ---------------------------------------------------------------------------------------------
// Events (worker → client, unsolicited)

/** Worker → client: indexing/embedding progress of `root`; `id` is the `index` request's, absent for background embedding. */
export interface ProgressEvent {
  type: 'progress';
  root: string;
  id?: number;
  progress: IndexProgress;
}

/** Worker → client: the state changed (after index, update, remove, pause, resume, embedding batches — throttled). */
export interface StatusEvent {
  type: 'status';
  status: WorkerStatus;
}

/** Worker → client: something to show in the log (a rebuilt store, a failed save, …). */
export interface LogEvent {
  type: 'log';
  level: 'info' | 'warn' | 'error';
  message: string;
  root?: string;
}

export type WorkerEvent = ProgressEvent | StatusEvent | LogEvent;

/** Everything the worker posts. */
export type WorkerMessage = Response | WorkerEvent;
