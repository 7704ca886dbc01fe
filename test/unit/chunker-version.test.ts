/**
 * CHUNKER_VERSION (src/chunkers/types.ts) is stored with an index; a store of another version is
 * chunked again on the next pass. This test holds the chunkers' output over every fixture file
 * and the sample workspace to the version: a change to what any chunker makes of a file fails it
 * until the version is raised and the new fingerprint recorded below, so that users' stored
 * indexes are chunked again after the upgrade rather than kept as the old chunkers cut them.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, languageOf, prepareLanguagesFor } from '../../src/chunkers/index';
import { CHUNKER_VERSION } from '../../src/chunkers/types';

/** The version and the fingerprint of the chunkers' output it stands for. */
const RECORDED = { version: 5, fingerprint: 'acb49b05cc8a154e' };

const ROOT = path.join(__dirname, '..', '..');
const TREES = ['sample-workspace', ...['cpp', 'csharp', 'go', 'java', 'js', 'json', 'markdown', 'php', 'python', 'ruby', 'rust', 'vue', 'i18n'].map((d) => path.join('test', 'fixtures', d))];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = path.posix.join(dir.split(path.sep).join('/'), e.name);
    if (e.isDirectory()) {
      if (e.name !== '.fathom' && e.name !== 'node_modules') out.push(...files(rel));
    } else if (e.isFile()) out.push(rel);
  }
  return out;
}

describe('CHUNKER_VERSION', () => {
  it("stands for the chunkers' output: raise it (and record the fingerprint) when a chunker's output changes", async () => {
    const all = TREES.flatMap(files);
    await prepareLanguagesFor(all);
    const hash = createHash('sha256');
    let chunks = 0;
    const languages = new Set<string>();
    for (const rel of all) {
      const out = chunkFile(rel, fs.readFileSync(path.join(ROOT, rel), 'utf8'));
      hash.update(JSON.stringify([rel, out.language, out.skipped ?? null, out.fallback ?? null, out.warnings, out.chunks]));
      chunks += out.chunks.length;
      if (out.chunks.length) languages.add(languageOf(rel));
    }
    // the fingerprint covers every chunker: code by AST and by tree-sitter, Vue, JSON, Markdown, text
    assert.ok(chunks > 200, `${chunks} chunks`);
    for (const l of ['javascript', 'typescript', 'vue', 'json', 'markdown', 'python', 'go', 'rust', 'java']) assert.ok(languages.has(l), `no ${l} file chunked`);
    const fingerprint = hash.digest('hex').slice(0, 16);
    assert.equal(
      `${CHUNKER_VERSION} ${fingerprint}`,
      `${RECORDED.version} ${RECORDED.fingerprint}`,
      `the chunkers' output changed: raise CHUNKER_VERSION in src/chunkers/types.ts to ${RECORDED.version + 1} and record { version: ${RECORDED.version + 1}, fingerprint: '${fingerprint}' } in this test (or, if the output did not change for users, explain why in the commit)`,
    );
  });
});
