import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isOpenLicence } from '../../train/extract';

describe('training sources: open licences only', () => {
  it('reads SPDX expressions: OR needs one open alternative, AND needs every part', () => {
    for (const open of ['MIT', 'Apache-2.0', 'BSD-3-Clause', 'ISC', '(MIT OR GPL-3.0-or-later)', '(MIT AND Zlib)', 'MPL-2.0 OR Apache-2.0', 'GPL-2.0+', 'Apache-2.0 WITH LLVM-exception', 'mit']) {
      assert.equal(isOpenLicence(open), true, open);
    }
    for (const closed of ['SEE LICENSE IN LICENSE.md', 'UNLICENSED', '?', '', "Standard 'no charge' license: https://gsap.com/standard-license.", '(MIT AND Commercial)', 'MIT OR', '(MIT', 'Commercial OR Proprietary']) {
      assert.equal(isOpenLicence(closed), false, closed);
    }
  });

  it('every npm package the shipped model was trained on has an open licence (train/manifest.json)', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'train', 'manifest.json'), 'utf8')) as { sources: Array<{ package: string; license: string }> };
    const npm = manifest.sources.filter((s) => s.package.startsWith('npm:'));
    assert.ok(npm.length > 100, `npm sources in the manifest: ${npm.length}`);
    assert.deepEqual(npm.filter((s) => !isOpenLicence(s.license)).map((s) => `${s.package}: ${s.license}`), []);
  });
});
