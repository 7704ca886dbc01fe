/**
 * The worker thread: all parsing (and, later, embedding and searching) happens here, never on
 * the extension host's thread.
 */
import { parentPort } from 'node:worker_threads';
import { chunkFile } from '../chunkers/index';
import type { Request, Response } from './protocol';

export function handle(req: Request): Response | undefined {
  switch (req.type) {
    case 'chunk':
      try {
        return { type: 'chunked', id: req.id, result: chunkFile(req.path, req.text, req.options) };
      } catch (err) {
        return { type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) };
      }
    case 'dispose':
      process.exit(0);
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (req: Request) => {
    const res = handle(req);
    if (res) port.postMessage(res);
  });
}
