// V8's code cache for the bundle's CommonJS chunks (scripts/bundle-cjs.mjs), made when the process
// exits, so that it holds every function the run compiled. Node's compile cache is made right after a
// module is compiled, before its functions run, and each start compiled those again: a quarter of the
// instructions to a first request.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

interface Compilable {
  _compile(content: string, filename: string): unknown;
}

/**
 * From now on, `.cjs` files of `bundleDir` compile with the cache kept in `cacheDir`; a file whose
 * cache is missing or refused by V8 (another V8, a corrupt file) gets one written at exit. Never fails
 * a run: a folder that cannot be written leaves it uncached.
 */
export function cacheBundleChunks(bundleDir: string, cacheDir: string): void {
  const prototype = Module.prototype as unknown as Compilable;
  const compile = prototype._compile;
  const toWrite: { script: Script; file: string }[] = [];
  prototype._compile = function (this: Module, content: string, filename: string) {
    if (!filename.endsWith('.cjs') || path.dirname(filename) !== bundleDir) return compile.call(this, content, filename);
    // The name, size and time of the chunk: a rebuilt bundle never meets an old entry (V8 checks only
    // the source's length).
    const { size, mtimeMs } = statSync(filename);
    const file = path.join(cacheDir, `${path.basename(filename)}-${size}-${Math.trunc(mtimeMs)}.v8`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      // Not made yet.
    }
    const script = new Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) toWrite.push({ script, file });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, path.dirname(filename));
  };
  process.on('exit', () => {
    if (toWrite.length === 0) return;
    try {
      mkdirSync(cacheDir, { recursive: true });
      for (const { script, file } of toWrite) {
        // Another Beans may write the same entry: each writes its own file and renames it into place.
        const temporary = `${file}.${process.pid}`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, file);
      }
    } catch {
      // A read-only or full disk: the next run compiles as this one did.
    }
  });
}
