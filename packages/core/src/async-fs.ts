import fs from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { promisify } from 'node:util';
import { builtin } from './node-builtins.js';

/**
 * The node:fs/promises functions core uses, without loading node:fs/promises when Beans starts: that
 * module brings node:fs's directory, watcher and readline-interface modules and the REPL history
 * module with it, ~17M instructions (~5 ms of CPU) before the first request, which only reads a few
 * files (settings, plugin state, the agent profile, context files). The reads and lookups below are
 * node:fs's callback functions made promises: the same calls underneath, the same results and the same
 * errors (codes, messages, paths); realpath is node:fs/promises' native one. Everything else, writes
 * and FileHandles included, is node:fs/promises' own function, loaded on its first call. stat and lstat
 * match node:fs/promises' types exactly (checked); the others differ in FileHandle and encoding overloads.
 */
export const readFile = promisify(fs.readFile) as typeof FsPromises.readFile;
export const stat: typeof FsPromises.stat = promisify(fs.stat);
export const lstat: typeof FsPromises.lstat = promisify(fs.lstat);
export const realpath = promisify(fs.realpath.native) as typeof FsPromises.realpath;
export const readlink = promisify(fs.readlink) as typeof FsPromises.readlink;
export const readdir = promisify(fs.readdir) as typeof FsPromises.readdir;

function onFirstCall<Name extends keyof typeof FsPromises>(name: Name): (typeof FsPromises)[Name] {
  return ((...args: unknown[]) => (builtin('node:fs/promises')[name] as (...args: unknown[]) => unknown)(...args)) as (typeof FsPromises)[Name];
}

export const open = onFirstCall('open');
export const writeFile = onFirstCall('writeFile');
export const mkdir = onFirstCall('mkdir');
export const rename = onFirstCall('rename');
export const rm = onFirstCall('rm');
export const unlink = onFirstCall('unlink');
export const symlink = onFirstCall('symlink');
export const chmod = onFirstCall('chmod');
export const cp = onFirstCall('cp');
export type { FileHandle } from 'node:fs/promises';
