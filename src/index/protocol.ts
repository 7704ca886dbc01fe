/**
 * The one typed protocol between the extension host (client.ts) and the worker thread
 * (worker.ts). Every request carries an id; the worker answers each with a response of the
 * same id, or an error. Documented per message: who sends it and what comes back.
 */
import type { ChunkOptions, FileChunks } from '../chunkers/types';

/** Client → worker: chunk one file's text. Answered by `chunked`. */
export interface ChunkRequest {
  type: 'chunk';
  id: number;
  path: string;
  text: string;
  options?: ChunkOptions;
}

/** Client → worker: finish and exit. No answer. */
export interface DisposeRequest {
  type: 'dispose';
  id: number;
}

export type Request = ChunkRequest | DisposeRequest;

/** Worker → client: the chunks of a `chunk` request. */
export interface ChunkedResponse {
  type: 'chunked';
  id: number;
  result: FileChunks;
}

/** Worker → client: a request failed; `message` says why. */
export interface ErrorResponse {
  type: 'error';
  id: number;
  message: string;
}

export type Response = ChunkedResponse | ErrorResponse;
