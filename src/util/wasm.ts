/**
 * Fathom's own WebAssembly modules (assembly/*.ts, AssemblyScript, compiled by esbuild.mjs into
 * dist/): found beside the bundle, or in dist/ when running from the sources after `npm run
 * build`. Each is compiled once a thread. A missing module is no error: its caller keeps the
 * JavaScript it stands in for (same results, slower); a damaged one is said once, as a warning.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The part of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}
const api = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const modules = new Map<string, object | null>();

/** The compiled module `file` (a name in dist/), or undefined when it is not there. */
export function fathomWasm(file: string): object | undefined {
  let mod = modules.get(file);
  if (mod === undefined) {
    mod = null;
    if (api) {
      for (const f of [path.join(__dirname, file), path.join(__dirname, '..', '..', 'dist', file)]) {
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(f);
        } catch {
          continue;
        }
        try {
          mod = new api.Module(bytes);
        } catch (err) {
          process.emitWarning(`Fathom: ${f} cannot be loaded (${err instanceof Error ? err.message : String(err)}): its work is done in JavaScript`);
        }
        break;
      }
    }
    modules.set(file, mod);
  }
  return mod ?? undefined;
}

/**
 * `make()` (an instance of a module, its memory laid out), or undefined with a warning when it
 * throws (no memory to be had): the caller keeps its JavaScript.
 */
export function wasmOrWarn<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch (err) {
    process.emitWarning(`Fathom: a WebAssembly module could not be set up (${err instanceof Error ? err.message : String(err)}): its work is done in JavaScript`);
    return undefined;
  }
}

/** An instance of `mod` with these imports (functions under `env`): its exports. */
export function instantiate<T>(mod: object, env: Record<string, unknown>): T {
  return new api!.Instance(mod, { env }).exports as unknown as T;
}

/**
 * A view of a module's memory grown to `size` bytes at least, kept current: memory that grows
 * gets a new buffer, so the views are made again.
 */
export class WasmHeap {
  bytes: Buffer;
  ints: Int32Array;

  constructor(private readonly memory: WasmMemory) {
    this.bytes = Buffer.from(memory.buffer);
    this.ints = new Int32Array(memory.buffer);
  }

  ensure(size: number): void {
    const mem = this.memory;
    if (mem.buffer.byteLength < size) mem.grow(Math.ceil((size - mem.buffer.byteLength) / 65536));
    if (this.bytes.buffer !== mem.buffer) {
      this.bytes = Buffer.from(mem.buffer);
      this.ints = new Int32Array(mem.buffer);
    }
  }
}
