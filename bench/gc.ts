// A way to force garbage collection from a benchmark without starting node with --expose-gc,
// so that memory figures start from the same point; a no-op where V8 refuses.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

function tryGc(): () => void {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    return () => gc();
  } catch {
    return () => undefined;
  }
}

export const gc = tryGc();
