// Node's compile cache (V8 bytecode of the bundle's modules, kept between runs) in Beans' own cache
// folder: a start-up that finds it skips parsing and compiling most of the code it loads.
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { VERSION } from './version.js';

/**
 * `$XDG_CACHE_HOME/beans-agent/compile-cache/<beans version>-node<node version>`, else under
 * `~/.cache`. The folder names both versions so an upgrade of either starts a fresh folder instead
 * of growing the old one (Node also checks every entry against the hash of the file it was made
 * from, so a rebuilt bundle of the same version never runs stale bytecode either).
 */
export function compileCacheDir(env: NodeJS.ProcessEnv, nodeVersion: string = process.version): string {
  // The XDG spec says relative values must be ignored (as config/paths.ts does in core).
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined;
  const root = xdg ?? path.join(env.HOME || os.homedir(), '.cache');
  return path.join(root, 'beans-agent', 'compile-cache', `${VERSION}-node${nodeVersion.replace(/^v/, '')}`);
}

/**
 * Turns the cache on for every module loaded from here on, and returns Beans' cache folder (undefined
 * when it cannot be resolved). Never fails the start: a folder that cannot be made or written leaves
 * Node without a cache (it reports that in the returned status, which is ignored), and
 * NODE_COMPILE_CACHE / NODE_DISABLE_COMPILE_CACHE set by the user win.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const folder = compileCacheDir(env);
    module.enableCompileCache?.(folder);
    return folder;
  } catch {
    // An older Node, or a home directory that cannot be resolved: run uncached.
    return undefined;
  }
}
