/**
 * What the worker's folders share, made from `init`'s options: the embedding model and the team
 * index (`fathom.index.remote`).
 */
import { createEmbedder, type Embedder, type EmbedderOptions } from '../index/embedder';
import { RemoteIndex } from '../index/pgstore';
import type { WorkerInitOptions } from './protocol';

export class SharedResources {
  /** The embedding model; undefined: searches are keyword-only, for `keywordOnlyReason`. */
  embedder: Embedder | undefined;
  keywordOnlyReason: string | undefined = 'no embedding model configured';
  /** The team index of `init.remote`, shared by every folder. */
  remote: RemoteIndex | undefined;

  /** Disposes the model (a new `init`: the folders are closed, and the model goes next). */
  async dropModel(): Promise<void> {
    await this.embedder?.dispose();
    this.embedder = undefined;
  }

  /**
   * Opens the team index of `options` (closing the one before) and loads its model. `signal` (a
   * `cancel` of the `init`): stop waiting for the model (a download) and go keyword-only. Whether
   * the team index answers is said once per change (not per search) through `log`, and
   * `changed` is called so the status says it too.
   */
  async open(options: WorkerInitOptions, signal: AbortSignal | undefined, log: (level: 'info' | 'warn', message: string) => void, changed: () => void): Promise<void> {
    await this.remote?.close();
    this.remote = options.remote
      ? new RemoteIndex(options.remote, {
          onState: (st) => {
            if (st.ok) log('info', `searching the team index ${st.url}`);
            else log('warn', `the team index ${st.url} cannot answer (${st.problem}): searching the local index, trying again in a minute`);
            changed();
          },
        })
      : undefined;
    if (!options.embedder) {
      this.keywordOnlyReason = 'no embedding model configured';
    } else {
      const r = await loadEmbedder(options.embedder, signal);
      if ('embedder' in r) {
        this.embedder = r.embedder;
        this.keywordOnlyReason = undefined;
      } else {
        this.keywordOnlyReason = r.error;
        log('warn', `keyword-only: ${r.error}`);
      }
    }
  }

  async dispose(): Promise<void> {
    await this.embedder?.dispose();
    await this.remote?.close();
  }
}

/**
 * Loads the embedding model of `options`. `signal` stops waiting for it (a download): the answer
 * is then an error, and a model that still finishes loading is disposed, never used.
 */
async function loadEmbedder(options: EmbedderOptions, signal?: AbortSignal): Promise<{ embedder: Embedder } | { error: string }> {
  const creating = createEmbedder(options);
  const cancelled = { error: 'No embedding model: loading it (or its download) was cancelled.' } as const;
  const r = signal ? await Promise.race([creating, new Promise<typeof cancelled>((resolve) => (signal.aborted ? resolve(cancelled) : signal.addEventListener('abort', () => resolve(cancelled), { once: true })))]) : await creating;
  // a cancelled load may still finish (a download in flight): its model is not used
  if (signal?.aborted) void creating.then((x) => ('embedder' in x ? x.embedder.dispose() : undefined)).catch(() => undefined);
  if ('embedder' in r && !signal?.aborted) return { embedder: r.embedder };
  return { error: 'error' in r ? r.error : cancelled.error };
}
