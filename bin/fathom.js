#!/usr/bin/env node
// The CLI, from the bundle (`npm run build` makes dist/cli.js).
//
// The bundle is several MB: compiling it is most of a short command's time (`fathom i18n` on an
// indexed folder). V8's code cache for it is kept in the user's cache folder, keyed by the
// bundle's size and mtime, so later runs skip most of the compile. Any problem with the cache
// (unwritable folder, stale or rejected data) only means compiling as usual.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const vm = require('node:vm');
const Module = require('node:module');

const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('fathom: dist/cli.js is missing; run `npm run build` first.\n');
  process.exit(1);
}

function loadWithCodeCache(file) {
  const st = fs.statSync(file);
  const base = process.env.FATHOM_CODE_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'fathom', 'code-cache');
  const key = `${path.basename(file)}-${st.size}-${Math.floor(st.mtimeMs)}-${process.version}-${process.arch}.bin`;
  const cacheFile = path.join(base, key);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // first run (or no cache folder): compile, then write the cache
  }
  const source = fs.readFileSync(file, 'utf8');
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  const req = Module.createRequire(file);
  script.runInThisContext().call(mod.exports, mod.exports, req, mod, file, path.dirname(file));
  if (!cachedData || script.cachedDataRejected) {
    // written once the command is done: the functions it ran are in the cache too
    process.once('beforeExit', () => {
      try {
        fs.mkdirSync(base, { recursive: true });
        for (const old of fs.readdirSync(base)) if (old.startsWith(`${path.basename(file)}-`) && old !== key) fs.rmSync(path.join(base, old), { force: true });
        const tmp = `${cacheFile}.${process.pid}`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
      } catch {
        // an unwritable cache folder only costs the compile next time
      }
    });
  }
  return mod.exports;
}

let entry;
try {
  entry = process.env.FATHOM_NO_CODE_CACHE ? require(cli) : loadWithCodeCache(cli);
} catch (err) {
  if (entry === undefined && !process.env.FATHOM_NO_CODE_CACHE && !(err && err.code === 'ENOENT')) entry = require(cli);
  else throw err;
}
entry.run(process.argv.slice(2));
