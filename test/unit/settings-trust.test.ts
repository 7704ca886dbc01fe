import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initOptionsOf, localModelPathOf, readSettings, remoteUrlOf, type Inspected } from '../../src/editor/settings';

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

describe('fathom.index.remote: a connection string, from the user only in Restricted Mode', () => {
  const both = inspectOf({ 'index.remote': { defaultValue: '', globalValue: 'postgres://me@team-db/fathom', workspaceValue: 'postgres://evil@attacker/x' } });

  it('untrusted: the workspace cannot point searches at its own server', () => {
    assert.equal(initOptionsOf(readSettings(both, false), { cacheDir: '/g' }).remote, 'postgres://me@team-db/fathom');
    assert.equal(initOptionsOf(readSettings(both, true), { cacheDir: '/g' }).remote, 'postgres://evil@attacker/x');
  });

  it('anything but a postgres:// URL is left out, and says why; empty is no team index', () => {
    const bad = readSettings(inspectOf({ 'index.remote': { defaultValue: '', globalValue: 'mysql://x' } }), true);
    assert.equal(initOptionsOf(bad, { cacheDir: '/g' }).remote, undefined);
    assert.match(remoteUrlOf(bad).note ?? '', /not a postgres:\/\/ URL/);
    assert.equal('remote' in initOptionsOf(readSettings(inspectOf({}), true), { cacheDir: '/g' }), false);
  });

  it('the package declares it machine-scoped and restricted', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
      contributes: { configuration: { properties: Record<string, { scope?: string }> } | Array<{ properties: Record<string, { scope?: string }> }> };
    };
    assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('fathom.index.remote'));
    const conf = pkg.contributes.configuration;
    const props = Array.isArray(conf) ? Object.assign({}, ...conf.map((c) => c.properties)) : conf.properties;
    assert.equal(props['fathom.index.remote']?.scope, 'machine');
  });
});

describe('fathom.model.withFathomModel: a transformers.js model with Fathom’s own beside it, or alone', () => {
  const options = (values: Record<string, Inspected<unknown>>) => initOptionsOf(readSettings(inspectOf(values), true), { cacheDir: '/g' }).embedder as { model?: string; alone?: boolean };
  const minilm = { 'model.id': { defaultValue: 'fathom-code-search', globalValue: 'Xenova/all-MiniLM-L6-v2' } };

  it('by default the worker loads the other model with Fathom’s beside it; off, alone', () => {
    assert.equal(options(minilm).model, 'Xenova/all-MiniLM-L6-v2');
    assert.equal(options(minilm).alone, undefined);
    assert.equal(options({ ...minilm, 'model.withFathomModel': { defaultValue: true, globalValue: false } }).alone, true);
    // Fathom's own model is never "alone" of itself
    assert.equal(options({ 'model.withFathomModel': { defaultValue: true, globalValue: false } }).alone, undefined);
  });

  it('is contributed in package.json, on by default', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default?: unknown }> } | Array<{ properties: Record<string, { default?: unknown }> }> } };
    const conf = pkg.contributes.configuration;
    const props = Array.isArray(conf) ? Object.assign({}, ...conf.map((c) => c.properties)) : conf.properties;
    assert.equal(props['fathom.model.withFathomModel']?.default, true);
  });
});
