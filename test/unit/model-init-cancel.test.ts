/**
 * The model download's "Cancel": a `cancel` of the worker's `init` stops waiting for the model at
 * once — the init answers cancelled and the worker is keyword-only, saying why — even while the
 * load (here: a download that cannot reach the Hub, or takes its time) is still under way.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkerState } from '../../src/service/worker';
import type { WorkerMessage, WorkerStatus } from '../../src/service/protocol';

describe('worker: cancelling the model load', function () {
  this.timeout(60_000);

  it('a cancelled init answers cancelled at once and leaves the worker keyword-only with the reason', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-cancel-'));
    const posted: WorkerMessage[] = [];
    const state = new WorkerState((m) => posted.push(m));
    try {
      const init = state.handle({ type: 'init', id: 1, options: { embedder: { model: 'Xenova/all-MiniLM-L6-v2', allowDownload: true, cacheDir: cache } } });
      // cancelled at once, while transformers.js is still being loaded: no outcome of the download
      // (here it fails fast: the Hub is not reachable) can come before it
      await state.handle({ type: 'cancel', id: 2, target: 1 });
      await init;
      const answer = posted.find((m) => m.type === 'error' && m.id === 1);
      assert.ok(answer && answer.type === 'error' && answer.cancelled, `init answered cancelled: ${JSON.stringify(posted.filter((m) => m.type !== 'status'))}`);
      await state.handle({ type: 'status', id: 3 });
      const st = posted.find((m) => m.type === 'result' && m.id === 3) as { result: WorkerStatus } | undefined;
      assert.equal(st?.result.model, undefined);
      // the reason is the cancel, not the download's own outcome (it was not waited for)
      assert.match(st?.result.keywordOnlyReason ?? '', /cancelled/);
      assert.doesNotMatch(st?.result.keywordOnlyReason ?? '', /fetch failed|not found/);
    } finally {
      await (state as unknown as { dispose(): Promise<void> }).dispose();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
