import { constants, existsSync } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolInputError } from '../errors.js';
import { isInside } from './paths.js';

/**
 * A folder held open after checking that it lies inside the workspace. Paths built with `at()`
 * go through the open descriptor (Linux's /proc/self/fd), so a folder on the way that is swapped
 * for a symlink after the check cannot redirect them: the kernel resolves them from the folder
 * that was checked, the way openat(2) would.
 */
export interface ConfinedDir {
  at(name: string): string;
  close(): Promise<void>;
}

/** Linux exposes open descriptors as paths; elsewhere writes fall back to checking paths. */
export const descriptorPathsAvailable = process.platform === 'linux' && existsSync('/proc/self/fd');

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens `dir` (absolute, real, inside `root`) one component at a time from the root, never
 * following a symlink, creating missing folders when `create` is set. Throws a ToolInputError
 * when a component is (now) a link or leads outside.
 */
export async function openConfinedDir(root: string, dir: string, options: { create: boolean }): Promise<ConfinedDir> {
  if (!isInside(root, dir)) throw replaced(dir);
  const names = path.relative(root, dir).split(path.sep).filter((name) => name !== '');
  let handle = await fs.open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const name of names) {
      const next = await openChild(handle, name, dir, options.create);
      await handle.close();
      handle = next;
      await assertDescriptorInside(root, handle, dir);
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  const held = handle;
  return { at: (name) => `/proc/self/fd/${held.fd}/${name}`, close: () => held.close() };
}

async function openChild(parent: FileHandle, name: string, dir: string, create: boolean): Promise<FileHandle> {
  const child = `/proc/self/fd/${parent.fd}/${name}`;
  try {
    return await fs.open(child, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw replaced(dir);
    if (code !== 'ENOENT' || !create) throw error;
  }
  try {
    await fs.mkdir(child);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  try {
    return await fs.open(child, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw replaced(dir);
    throw error;
  }
}

async function assertDescriptorInside(root: string, handle: FileHandle, dir: string): Promise<void> {
  const real = await fs.readlink(`/proc/self/fd/${handle.fd}`);
  if (!isInside(root, real)) throw replaced(dir);
}

function replaced(dir: string): ToolInputError {
  return new ToolInputError(`The folder ${dir} changed while writing (a part of it now leads outside the workspace through a link); nothing was written. Check the folder and try again.`);
}
