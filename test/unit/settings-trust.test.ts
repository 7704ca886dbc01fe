import { strict as assert } from 'node:assert';
import { initOptionsOf, localModelPathOf, readSettings, type Inspected } from '../../src/ui/settings';

const inspectOf = (values: Record<string, Inspected<unknown>>) => <T>(key: string) => values[key] as Inspected<T> | undefined;

describe('Restricted Mode: a relative model path never resolves inside an untrusted workspace', () => {
  // the user's own setting (globalValue), relative: the workspace folder would supply the files
  const user = readSettings(inspectOf({ 'model.localPath': { defaultValue: '', globalValue: 'models/minilm' } }), false);

  it('untrusted: a relative user-level localPath is not joined to the workspace folder, and says why', () => {
    const opts = initOptionsOf(user, { cacheDir: '/global', localPathBase: '/ws/untrusted', trusted: false });
    const got = (opts.embedder as { localModelPath?: string }).localModelPath;
    assert.ok(!got || !got.startsWith('/ws/untrusted'), `resolved inside the workspace: ${got}`);
    assert.equal(got, undefined);
    assert.match(localModelPathOf(user, { localPathBase: '/ws/untrusted', trusted: false }).note ?? '', /relative: in Restricted Mode it is not taken from the untrusted workspace folder/);
  });

  it('trust unknown counts as untrusted', () => {
    assert.equal((initOptionsOf(user, { cacheDir: '/g', localPathBase: '/ws' }).embedder as { localModelPath?: string }).localModelPath, undefined);
  });

  it('trusted: the relative path is taken from the first workspace folder; an absolute path always works', () => {
    assert.equal((initOptionsOf(user, { cacheDir: '/g', localPathBase: '/ws', trusted: true }).embedder as { localModelPath?: string }).localModelPath, '/ws/models/minilm');
    const abs = readSettings(inspectOf({ 'model.localPath': { defaultValue: '', globalValue: '/opt/models/minilm' } }), false);
    assert.equal((initOptionsOf(abs, { cacheDir: '/g', localPathBase: '/ws', trusted: false }).embedder as { localModelPath?: string }).localModelPath, '/opt/models/minilm');
  });
});
