// V8's code cache for the bundle's CommonJS chunks (scripts/bundle-cjs.mjs), made when the process
// exits, so that it holds every function the run compiled. Node's compile cache is made right after a
// module is compiled, before its functions run, and each start compiled those again: a quarter of the
// instructions to a first request.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

interface Compilable {
  _compile(content: string, filename: string): unknown;
}

/**
 * An entry is written again at the exit of the next runs that use it, up to this many times: a cache
 * consumed and then added to keeps both, so what a chat, a one-shot run and a listing each compile
 * ends up in it, whichever ran first.
 */
const GENERATIONS = 3;
const ENTRY = /^(.+)\.(\d+)\.v8$/;
const KEY = /^(.+\.cjs)-(\d+)-(\d+)$/;
/** Cache files nothing wrote for this long, and that this bundle cannot use, are removed. */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * From now on, `.cjs` files of `bundleDir` compile with the cache kept in `cacheDir`; an entry that is
 * missing, refused by V8 (another V8, a corrupt file) or young is written at exit. Never fails a run:
 * a folder that cannot be read or written leaves it uncached.
 */
export function cacheBundleChunks(bundleDir: string, cacheDir: string): void {
  const prototype = Module.prototype as unknown as Compilable;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called below with .call(this)
  const compile = prototype._compile;
  const found = existingEntries(cacheDir);
  const toWrite: { script: Script; key: string; generation: number; replaces?: string }[] = [];
  prototype._compile = function (this: Module, content: string, filename: string) {
    if (!filename.endsWith('.cjs') || path.dirname(filename) !== bundleDir) return compile.call(this, content, filename);
    // The name, size and time of the chunk: a rebuilt bundle never meets an old entry (V8 checks only
    // the source's length).
    const { size, mtimeMs } = statSync(filename);
    const key = `${path.basename(filename)}-${size}-${Math.trunc(mtimeMs)}`;
    const entry = found.get(key);
    let cachedData: Buffer | undefined;
    try {
      if (entry) cachedData = readFileSync(path.join(cacheDir, entry.file));
    } catch {
      // Removed meanwhile by another Beans.
    }
    const script = new Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!entry || !cachedData || script.cachedDataRejected) toWrite.push({ script, key, generation: 1, ...(entry ? { replaces: entry.file } : {}) });
    else if (entry.generation < GENERATIONS) toWrite.push({ script, key, generation: entry.generation + 1, replaces: entry.file });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, path.dirname(filename));
  };
  process.on('exit', () => {
    if (toWrite.length === 0) return;
    try {
      mkdirSync(cacheDir, { recursive: true });
      for (const { script, key, generation, replaces } of toWrite) {
        // Another Beans may write the same entry: each writes its own file and renames it into place.
        const file = path.join(cacheDir, `${key}.${generation}.v8`);
        const temporary = `${file}.${process.pid}`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, file);
        if (replaces && replaces !== path.basename(file)) rmSync(path.join(cacheDir, replaces), { force: true });
      }
      sweep(cacheDir, bundleDir, Date.now() - STALE_MS);
    } catch {
      // A read-only or full disk: the next run compiles as this one did.
    }
  });
}

/** The newest generation of each entry in the folder (none when it does not exist yet). */
function existingEntries(cacheDir: string): Map<string, { file: string; generation: number }> {
  const entries = new Map<string, { file: string; generation: number }>();
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return entries;
  }
  for (const file of names) {
    const match = ENTRY.exec(file);
    if (!match) continue;
    const generation = Number(match[2]);
    if ((entries.get(match[1])?.generation ?? 0) < generation) entries.set(match[1], { file, generation });
  }
  return entries;
}

/**
 * Removes what only other builds can use, once nothing wrote it since `before`: entries of chunks this
 * bundle does not have (a developer's rebuilds), files of runs killed while writing, and the folders
 * of other Beans or Node versions beside this one (each upgrade starts a folder). Runs only at the
 * exit of a run that wrote entries, so a warm start never pays for it. The age spares an install of
 * another version still in use: at worst it compiles once more, a month later.
 */
function sweep(cacheDir: string, bundleDir: string, before: number): void {
  for (const name of readdirSync(cacheDir)) {
    const key = KEY.exec(ENTRY.exec(name)?.[1] ?? '');
    if (key && isCurrent(path.join(bundleDir, key[1]), Number(key[2]), Number(key[3]))) continue;
    const file = path.join(cacheDir, name);
    if (newest([file]) < before) rmSync(file, { force: true });
  }
  const versionDir = path.dirname(cacheDir);
  const versionsDir = path.dirname(versionDir);
  for (const name of readdirSync(versionsDir)) {
    const folder = path.join(versionsDir, name);
    // A folder's time changes when an entry is added to it: its chunks folder is the one written last.
    if (folder !== versionDir && newest([folder, path.join(folder, 'chunks')]) < before) rmSync(folder, { recursive: true, force: true });
  }
}

function isCurrent(chunk: string, size: number, mtime: number): boolean {
  const stat = statSync(chunk, { throwIfNoEntry: false });
  return stat?.size === size && Math.trunc(stat.mtimeMs) === mtime;
}

/** The latest modification time among the paths that exist (0 when none does). */
function newest(paths: string[]): number {
  let latest = 0;
  for (const file of paths) latest = Math.max(latest, statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  return latest;
}
