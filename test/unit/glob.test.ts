import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { compileGlob, expandBraces, GlobError, MAX_GLOB_LENGTH } from '../../src/workspace/glob';

/** One segment of a glob in the supported syntax. */
const segTok = fc.constantFrom('a', 'b', 'c', '.', '-', '*', '?', '[ab]', '[^b]', '[a-c]', '{a,b}', '{a,bc,}c', '{x,{a,b}c}', '\\*');
// (picomatch's fast path for a segment `*.*` wants a character after the dot, `a*.*` does not: left out)
const globSeg = fc.oneof(
  { weight: 1, arbitrary: fc.constant('**') },
  { weight: 5, arbitrary: fc.array(segTok, { minLength: 1, maxLength: 4 }).map((t) => t.join('')).filter((s) => s !== '*.*') },
);
// (picomatch lets a `**` next to a brace reach across `/`; not part of the supported syntax)
const glob = fc
  .array(globSeg, { minLength: 1, maxLength: 4 })
  .map((s) => s.join('/'))
  .filter((g) => !/\*\*\{|\}\*\*/.test(g));
const pathSeg = fc.stringMatching(/^[abc.*-]{1,5}$/).filter((s) => s !== '.' && s !== '..');
const relPath = fc.array(pathSeg, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));

describe('glob matcher (no backtracking)', () => {
  it('agrees with picomatch (dot: true) on random small patterns and paths', () => {
    fc.assert(
      fc.property(glob, fc.array(relPath, { minLength: 1, maxLength: 8 }), (g, paths) => {
        const ours = compileGlob(g);
        const theirs = picomatch(g, { dot: true });
        for (const p of paths) {
          if (ours(p) === theirs(p)) continue;
          // the one documented difference: a trailing `/**` also matches the folder itself
          // (`a/**` matches `a`), where picomatch does so only after a segment without `*`
          assert.ok(g.endsWith('/**') && ours(p) && compileGlob(g.slice(0, -3))(p), `${g} on ${p}: ours ${ours(p)}, picomatch ${theirs(p)}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with picomatch with basename (a pattern without / matches the file name)', () => {
    fc.assert(
      fc.property(globSeg, fc.array(relPath, { minLength: 1, maxLength: 8 }), (g, paths) => {
        const ours = compileGlob(g, { basename: true });
        const theirs = picomatch(g, { dot: true, basename: true });
        for (const p of paths) {
          if (ours(p) === theirs(p)) continue;
          assert.ok(g.endsWith('/**') && ours(p) && compileGlob(g.slice(0, -3), { basename: true })(p), `${g} on ${p}: ours ${ours(p)}, picomatch ${theirs(p)}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('matches the patterns people write', () => {
    const m = (g: string, p: string) => compileGlob(g)(p);
    assert.ok(m('src/**', 'src/a/b.ts'));
    assert.ok(m('**/*.test.ts', 'a/b/c.test.ts'));
    assert.ok(m('**/*.test.ts', 'c.test.ts'));
    assert.ok(!m('*.log', 'a/b.log'));
    assert.ok(m('**/fixtures/**', 'test/fixtures/x/y.json'));
    assert.ok(m('src/{a,b}/*.{js,ts}', 'src/b/x.ts'));
    assert.ok(!m('src/{a,b}/*.{js,ts}', 'src/c/x.ts'));
    assert.ok(m('!**/*.md', 'a.ts') && !m('!**/*.md', 'a.md'));
    // `[!…]` negates, as in VS Code and POSIX globs (picomatch 4 reads it as a set holding `!`)
    assert.ok(m('[!.]*', 'abc') && !m('[!.]*', '.abc') && m('[^.]*', 'abc'));
  });

  it('a hostile pattern on a long segment answers at once (picomatch never ends on it)', () => {
    const long = `${'d'.repeat(200)}/x.js`;
    for (const g of ['**/*d*d*d*d*q', '**/*d*d*d*d*d*d*d*d*d*q/**', `${'*d'.repeat(200)}q`]) {
      assert.equal(compileGlob(g)(long), false);
      assert.equal(compileGlob(g)(`${'d'.repeat(5000)}q`), true); // `x/**` matches x itself, as in picomatch
    }
  });

  it('bounds: an over-long pattern or too many brace alternatives is a GlobError', () => {
    assert.throws(() => compileGlob('a'.repeat(MAX_GLOB_LENGTH + 1)), GlobError);
    assert.throws(() => compileGlob('x'.repeat(70_000)), /70000 characters long, over the limit/);
    assert.throws(() => compileGlob('{a,b}'.repeat(11)), /alternatives/);
    assert.throws(() => compileGlob('{a,b/c}'.repeat(11)), /alternatives/);
    // alternatives of different segments do not multiply
    assert.ok(compileGlob('{a,b}/'.repeat(40) + 'x')(`${'b/'.repeat(40)}x`));
    assert.deepEqual(expandBraces('a{b,c{d,e}}f'), ['abf', 'acdf', 'acef']);
    assert.deepEqual(expandBraces('{x}'), ['{x}']);
  });
});
