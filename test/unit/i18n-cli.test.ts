/**
 * `fathom i18n` through bin/fathom.js (the built CLI): the documented JSON line format, the
 * human output, problems on stderr, exit codes.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const FIX = path.join(__dirname, '..', 'fixtures', 'i18n');
const fathom = (args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, 'i18n', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FATHOM_MODEL_PATH: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const jsonLines = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('fathom i18n (CLI)', () => {
  it('--json: one object per candidate per line, best first, exactly the documented keys', () => {
    const r = fathom(['Créer un événement', '--dir', path.join(FIX, 'per-file'), '--json']);
    assert.equal(r.code, 0, r.err);
    const lines = jsonLines(r.out);
    assert.equal(lines.length, 1);
    assert.deepEqual(lines[0], {
      key: 'events.create.TITLE',
      match: 'exact',
      locales: [
        { locale: 'de', file: 'locales/de.json', line: 5, value: 'Ereignis erstellen' },
        { locale: 'en', file: 'locales/core_en.json', line: 4, value: 'Create event' },
        { locale: 'fr', file: 'locales/core_fr.json', line: 4, value: 'Créer un événement' },
      ],
      usages: [
        { file: 'src/EventForm.vue', line: 3 },
        { file: 'src/EventForm.vue', line: 16 },
        // a dynamic usage carries its marker and static prefix, as the text output shows them
        { file: 'src/notify.js', line: 10, dynamic: true, prefix: 'events.' },
      ],
    });
    // problems go to stderr, never into the JSON
    assert.match(r.err, /problem locales\/broken_es\.json:5: malformed/);
    assert.match(r.err, /problem locales\/core_en\.json:19: duplicate/);
    assert.match(r.err, /problem locales\/extra_en\.json:2: conflict/);
  });

  it('--key: nested and flat keys alike, match "key"; ranks by kind for a string', () => {
    const flat = jsonLines(fathom(['--key', 'a.b.c', '--dir', path.join(FIX, 'flat'), '--json']).out);
    assert.deepEqual(flat.map((l) => [l.key, l.match, (l.locales as unknown[]).length]), [['a.b.c', 'key', 3]]);
    const ns = jsonLines(fathom(['--key', 'common:save', '--dir', path.join(FIX, 'namespaces'), '--json']).out);
    assert.deepEqual(ns[0].usages, [{ file: 'src/Login.tsx', line: 9 }, { file: 'src/Login.tsx', line: 13 }]);
    const fuzzy = jsonLines(fathom(['Crete evnt', '--dir', path.join(FIX, 'per-file'), '--json']).out);
    assert.equal(fuzzy[0].key, 'events.create.TITLE');
    assert.equal(fuzzy[0].match, 'fuzzy');
  });

  it('--from ranks the app of that file first; --locales overrides discovery', () => {
    const mono = path.join(FIX, 'monorepo');
    const shop = jsonLines(fathom(['Save changes', '--dir', mono, '--json', '--from', path.join(mono, 'apps/shop/src/cart.js')]).out);
    assert.deepEqual(shop.map((l) => (l.locales as Array<{ file: string }>)[0].file), ['apps/shop/locales/en.json', 'apps/admin/src/locales/en.json']);
    const only = jsonLines(fathom(['Save changes', '--dir', mono, '--json', '--locales', 'apps/admin/**/*.json']).out);
    assert.deepEqual(only.map((l) => (l.locales as Array<{ file: string }>).map((x) => x.file)), [['apps/admin/src/locales/en.json', 'apps/admin/src/locales/fr.json']]);
  });

  it('human output: key, match, every locale value and usage as file:line:column', () => {
    const r = fathom(['Create event', '--dir', path.join(FIX, 'per-file')]);
    assert.equal(r.code, 0);
    const lines = r.out.trimEnd().split('\n');
    assert.equal(lines[0], 'events.create.TITLE  exact 1.00, en "Create event"');
    assert.ok(lines.includes('  fr     locales/core_fr.json:4:17  Créer un événement'), r.out);
    assert.ok(lines.includes('  used   src/EventForm.vue:3:16  $t'), r.out);
    assert.ok(lines.includes('  used   src/notify.js:10:17  i18n.t (dynamic, prefix "events.")'), r.out);
  });

  it('nothing found: exit 0, no output, why semantic did not run on stderr; bad arguments: exit 2', () => {
    const r = fathom(['zebra quantum', '--dir', path.join(FIX, 'deep'), '--json']);
    assert.equal(r.code, 0);
    assert.equal(r.out, '');
    assert.match(r.err, /no key found/);
    assert.match(r.err, /semantic matching unavailable/);
    assert.equal(fathom(['--dir', FIX]).code, 2);
    assert.equal(fathom(['x', '--key', 'y', '--dir', FIX]).code, 2);
    assert.equal(fathom(['x', '--dir', path.join(FIX, 'missing')]).code, 2);
  });
});
