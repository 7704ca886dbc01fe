/**
 * The caller's side of the worker: starts `dist/worker.js` in a worker thread and turns the
 * protocol's messages into promises. Used by the extension; plain Node, no `vscode`.
 */
import { Worker } from 'node:worker_threads';
import type { ChunkOptions, FileChunks } from '../chunkers/types';
import type { Request, Response } from './protocol';

export class IndexClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Response) => void; reject: (e: Error) => void }>();

  constructor(private readonly workerFile: string) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.workerFile);
    w.on('message', (res: Response) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      p.resolve(res);
    });
    const fail = (err: Error) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.worker = undefined;
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`Fathom's worker exited (code ${code})`)));
    this.worker = w;
    return w;
  }

  private request(req: Request): Promise<Response> {
    const w = this.start();
    return new Promise((resolve, reject) => {
      this.pending.set(req.id, { resolve, reject });
      w.postMessage(req);
    });
  }

  async chunk(path: string, text: string, options?: ChunkOptions): Promise<FileChunks> {
    const res = await this.request({ type: 'chunk', id: this.nextId++, path, text, options });
    if (res.type === 'error') throw new Error(res.message);
    return res.result;
  }

  async dispose(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
