// Preloaded (node -r) into each `fathom index` run of bench/cold.ts: at exit it writes to stderr
//   @@threads <main thread CPU s> <CPU s of each other thread, largest first>   (Linux /proc)
//   @@timeline first-send=… first-reply=… last-reply=… save=… exit=…          (ms since start)
// first-send: the walk is done and the first file goes to a chunk thread; first/last-reply:
// the chunk thread's first and last answer; save: the first write of the store's chunks, catalog
// or keyword files.
// Threads that end before the process (the chunk threads stop once the files are chunked; a
// save's layout thread) are read when they are told to stop and every 20 ms, so that their CPU
// is counted too. Replies of threads other than the chunk threads (the layout thread's, which
// carries `layout` or `error` beside its `buffer`) are not chunk replies.
'use strict';
const fs = require('node:fs');
const wt = require('node:worker_threads');
if (!wt.isMainThread) return; // -r is given to every thread too: the main one reports for all
const { performance } = require('node:perf_hooks');
const t0 = performance.now();
const marks = {};
const mark = (k, last = false) => {
  if (last || !(k in marks)) marks[k] = Math.round(performance.now() - t0);
};
const store = process.argv[process.argv.indexOf('--store') + 1];
for (const name of ['writeFileSync', 'openSync']) {
  const f = fs[name];
  fs[name] = function (file, ...rest) {
    if (store && typeof file === 'string' && file.startsWith(store) && /^(chunks|keyword|catalog)/.test(file.slice(store.length + 1)) && (name === 'writeFileSync' || /w|a/.test(String(rest[0])))) mark('save');
    return f.call(this, file, ...rest);
  };
}
// the CLI's index saves through fs.promises (saveStoreAsync)
const popen = fs.promises.open;
fs.promises.open = function (file, ...rest) {
  if (store && typeof file === 'string' && file.startsWith(store) && /^(chunks|keyword|catalog)/.test(file.slice(store.length + 1)) && /w|a/.test(String(rest[0]))) mark('save');
  return popen.call(this, file, ...rest);
};
const W = wt.Worker;
const post = W.prototype.postMessage;
W.prototype.postMessage = function (msg, ...rest) {
  if (msg && typeof msg === 'object' && 'rel' in msg) mark('first-send');
  return post.call(this, msg, ...rest);
};
const on = W.prototype.on;
W.prototype.on = function (ev, fn) {
  if (ev !== 'message') return on.call(this, ev, fn);
  return on.call(this, ev, function (...a) {
    const m = a[0];
    if (!(m && typeof m === 'object' && 'buffer' in m && ('layout' in m || 'error' in m))) {
      mark('first-reply');
      mark('last-reply', true);
    }
    return fn.apply(this, a);
  });
};
// each thread's CPU seconds as last read (Linux /proc): a thread gone by the exit keeps its last reading
const seen = new Map();
const cpuOf = (tid) => {
  const st = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const sample = () => {
  try {
    for (const t of fs.readdirSync('/proc/self/task')) {
      try {
        seen.set(t, cpuOf(t));
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    // not Linux: no thread times
  }
};
require('node:timers').setInterval(sample, 20).unref();
const terminate = W.prototype.terminate;
W.prototype.terminate = function (...a) {
  sample();
  return terminate.apply(this, a);
};
process.on('exit', () => {
  mark('exit');
  sample();
  if (seen.size) {
    const others = [...seen].filter(([t]) => Number(t) !== process.pid).map(([, c]) => c).sort((a, b) => b - a);
    process.stderr.write(`@@threads ${seen.get(String(process.pid)) ?? 0} ${others.join(' ')}\n`);
  }
  process.stderr.write(`@@timeline ${Object.entries(marks).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
});
