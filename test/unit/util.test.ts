/** The shared helpers every layer uses: error text, the cancellation error, workspace-relative paths. */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { CancelledError, errText, isCancelled } from '../../src/util/errors';
import { relativeIn, toRel } from '../../src/util/paths';
import { sha1Hex } from '../../src/util/hash';
import { createHash } from 'node:crypto';
import { CancelledError as ClientCancelled } from '../../src/service/client';
import { CancelledError as SessionCancelled } from '../../src/service/session';

describe('util: errors', () => {
  it('gives the message of an Error and the text of anything else', () => {
    assert.equal(errText(new TypeError('bad')), 'bad');
    assert.equal(errText('plain'), 'plain');
    assert.equal(errText(42), '42');
    assert.equal(errText(undefined), 'undefined');
  });
  it('has one cancellation error for the session and the client, recognised after cloning', () => {
    assert.equal(ClientCancelled, CancelledError);
    assert.equal(SessionCancelled, CancelledError);
    const e = new CancelledError('search 3 superseded');
    assert.ok(isCancelled(e));
    assert.ok(isCancelled(structuredClone({ message: e.message, cancelled: e.cancelled })));
    assert.ok(!isCancelled(new Error('cancelled')));
    assert.ok(!isCancelled(null));
  });
});

describe('util: paths', () => {
  const root = path.resolve('/ws/app');
  it('makes folder-relative paths with / and no leading ./ or /', () => {
    assert.equal(toRel('./src/a.ts'), 'src/a.ts');
    assert.equal(toRel('/src/a/'), 'src/a');
    assert.equal(toRel(['src', 'b.ts'].join(path.sep)), 'src/b.ts');
  });
  it('says undefined for the folder itself and anything outside it', () => {
    assert.equal(relativeIn(root, path.join(root, 'src', 'a.ts')), 'src/a.ts');
    assert.equal(relativeIn(root, root), undefined);
    assert.equal(relativeIn(root, path.resolve('/ws/other/a.ts')), undefined);
    assert.equal(relativeIn(root, path.resolve('/ws/app-two/a.ts')), undefined);
    // a name that merely starts with two dots is inside
    assert.equal(relativeIn(root, path.join(root, '..hidden', 'a.ts')), '..hidden/a.ts');
  });
});

describe('util: sha1Hex', () => {
  it('gives the digest createHash gives, for strings (UTF-8, lone surrogates, NUL) and bytes', () => {
    const inputs: Array<string | Uint8Array> = ['', 'a', 'src/a.js\0function\0f\0export function f() {}', 'é中😀\uD800x', 'x'.repeat(100_000), Uint8Array.from([0, 255, 1, 128]), Buffer.from('héllo')];
    for (const x of inputs) assert.equal(sha1Hex(x), createHash('sha1').update(x).digest('hex'));
    assert.equal(sha1Hex('abc'), 'a9993e364706816aba3e25717850c26c9cd0d89d');
  });
});
