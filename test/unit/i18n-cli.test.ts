/**
 * `fathom i18n` through bin/fathom.js (the built CLI): the documented JSON line format, the
 * human output, problems on stderr, exit codes.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fathom.js');
const FIX = path.join(__dirname, '..', 'fixtures', 'i18n');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-i18n-cli-'));
after(() => fs.rmSync(TMP, { recursive: true, force: true }));
/** Runs `fathom i18n`; each run gets a fresh store (no `.fathom` in the fixtures; runs independent) unless one is given. */
const fathom = (args: string[], store = fs.mkdtempSync(path.join(TMP, 'store-'))) => {
  const r = spawnSync(process.execPath, [BIN, 'i18n', ...args, '--store', store], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FATHOM_MODEL_PATH: '' } });
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
    // Fathom's own model takes part by default: nothing found is all there is to say
    const r = fathom(['zebra quantum', '--dir', path.join(FIX, 'deep'), '--json']);
    assert.equal(r.code, 0);
    assert.equal(r.out, '');
    assert.match(r.err, /no key found/);
    assert.doesNotMatch(r.err, /semantic matching unavailable/);
    const off = fathom(['zebra quantum', '--dir', path.join(FIX, 'deep'), '--json', '--no-embed']);
    assert.equal(off.code, 0);
    assert.match(off.err, /semantic matching unavailable: embedding is off/);
    assert.equal(fathom(['--dir', FIX]).code, 2);
    assert.equal(fathom(['x', '--key', 'y', '--dir', FIX]).code, 2);
    assert.equal(fathom(['x', '--dir', path.join(FIX, 'missing')]).code, 2);
  });

  it('keeps its i18n index in the store: a later lookup reads only what changed, and sees edits and deletions', () => {
    const ws = path.join(TMP, 'ws-stored');
    fs.cpSync(path.join(FIX, 'per-file'), ws, { recursive: true });
    const store = path.join(TMP, 'stored');
    assert.equal(jsonLines(fathom(['Créer un événement', '--dir', ws, '--json'], store).out)[0].key, 'events.create.TITLE');
    assert.ok(fs.existsSync(path.join(store, 'i18n.json')), 'stored');
    assert.ok(!fs.existsSync(path.join(store, 'lock')), 'lock released');
    const fr = path.join(ws, 'locales/core_fr.json');
    fs.writeFileSync(fr, fs.readFileSync(fr, 'utf8').replace('Créer un événement', 'Nouvel événement'));
    fs.utimesSync(fr, new Date(), new Date(Date.now() + 5000)); // a new mtime even on a coarse clock
    assert.equal(jsonLines(fathom(['Nouvel événement', '--dir', ws, '--json'], store).out)[0]?.key, 'events.create.TITLE');
    fs.rmSync(path.join(ws, 'src/notify.js'));
    const k = jsonLines(fathom(['--key', 'events.create.TITLE', '--dir', ws, '--json'], store).out)[0] as { usages: Array<{ file: string }> };
    assert.ok(!k.usages.some((u) => u.file === 'src/notify.js'), 'a deleted file loses its usages');
    // a damaged store file is rebuilt, not trusted
    fs.writeFileSync(path.join(store, 'i18n.json'), '{"format":"fathom-i18n","version":1,"catalog":[');
    const again = fathom(['Nouvel événement', '--dir', ws, '--json'], store);
    assert.equal(again.code, 0);
    assert.match(again.err, /unreadable, it is rebuilt/);
    assert.equal(jsonLines(again.out)[0]?.key, 'events.create.TITLE');
  });
});
