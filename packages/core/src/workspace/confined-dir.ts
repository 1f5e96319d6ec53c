import { closeSync, constants, existsSync, lstatSync, openSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import * as fs from '../async-fs.js';
import type { FileHandle } from 'node:fs/promises';
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
  /** The held folder itself, as a path that reaches it through its descriptor. */
  readonly path: string;
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
export async function openConfinedDir(root: string, dir: string, options: { create: boolean; reading?: boolean }): Promise<ConfinedDir> {
  if (!isInside(root, dir)) throw replaced(dir, options.reading);
  // Without descriptor paths (macOS, BSD) the folder is used by its checked path.
  if (!descriptorPathsAvailable) return { at: (name) => path.join(dir, name), path: dir, close: async () => undefined };
  const names = path
    .relative(root, dir)
    .split(path.sep)
    .filter((name) => name !== '');
  let handle = await fs.open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const name of names) {
      const next = await openChild(handle, name, dir, options.create, options.reading);
      await handle.close();
      handle = next;
      await assertDescriptorInside(root, handle, dir, options.reading);
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  const held = handle;
  return { at: (name) => `/proc/self/fd/${held.fd}/${name}`, path: `/proc/self/fd/${held.fd}`, close: () => held.close() };
}

/**
 * Opens the file `absolute` (real, inside `root`) for reading through its folder opened by
 * openConfinedDir, never following a link, so what is read is what the path check saw: a folder or
 * the file swapped for a symlink meanwhile makes the open fail instead of reading outside. O_NONBLOCK:
 * a FIFO swapped in must not block the open. The caller closes the handle.
 */
export async function openFileConfined(root: string, absolute: string): Promise<FileHandle> {
  if (!descriptorPathsAvailable) return fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  const dir = await openConfinedDir(root, path.dirname(absolute), { create: false, reading: true });
  try {
    return await fs.open(dir.at(path.basename(absolute)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new ToolInputError(`${absolute} was replaced by a link while reading it; nothing was read. Check the file and try again.`);
    throw error;
  } finally {
    await dir.close();
  }
}

/** Opens the sub-folder `name` of a held folder without following a link; undefined when it is gone or no folder. */
export async function openSubfolderConfined(parent: ConfinedDir, name: string): Promise<ConfinedDir | undefined> {
  let handle: FileHandle;
  try {
    handle = await fs.open(parent.at(name), DIR_FLAGS);
  } catch {
    return undefined;
  }
  if (!descriptorPathsAvailable) {
    await handle.close();
    return { at: (child) => path.join(parent.at(name), child), path: parent.at(name), close: async () => undefined };
  }
  return { at: (child) => `/proc/self/fd/${handle.fd}/${child}`, path: `/proc/self/fd/${handle.fd}`, close: () => handle.close() };
}

async function openChild(parent: FileHandle, name: string, dir: string, create: boolean, reading?: boolean): Promise<FileHandle> {
  const child = `/proc/self/fd/${parent.fd}/${name}`;
  try {
    return await fs.open(child, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw replaced(dir, reading);
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

async function assertDescriptorInside(root: string, handle: FileHandle, dir: string, reading?: boolean): Promise<void> {
  const real = await fs.readlink(`/proc/self/fd/${handle.fd}`);
  if (!isInside(root, real)) throw replaced(dir, reading);
}

function replaced(dir: string, reading = false): ToolInputError {
  const [verb, nothing] = reading ? ['reading', 'read'] : ['writing', 'written'];
  return new ToolInputError(
    `The folder ${dir} changed while ${verb} (a part of it now leads outside the workspace through a link); nothing was ${nothing}. Check the folder and try again.`,
  );
}

/**
 * Looks names up in many folders under `root`, each opened from the root one component at a time
 * without following a link (as openConfinedDir), synchronously, keeping the folders along the last
 * path open so that folders visited in path order cost one open each. For checking many search
 * results at once; `close` releases every descriptor.
 */
export interface ConfinedLookup {
  /** lstat of `name` inside the folder `dir` (absolute, inside root); undefined when either is gone or the folder now leads outside. */
  lstat(dir: string, name: string): Stats | undefined;
  close(): void;
}

export function createConfinedLookup(root: string): ConfinedLookup {
  if (!descriptorPathsAvailable) {
    return {
      lstat(dir, name) {
        try {
          return isInside(root, realpathSync(dir)) ? lstatSync(path.join(dir, name), { throwIfNoEntry: false }) : undefined;
        } catch {
          return undefined;
        }
      },
      close: () => undefined,
    };
  }
  const rootFd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  // open[i] holds the folder named by names[0..i]; a failed component leaves the rest unopened.
  const names: string[] = [];
  const open: number[] = [];
  const closeFrom = (depth: number) => {
    while (open.length > depth) closeSync(open.pop()!);
    names.length = depth;
  };
  return {
    lstat(dir, name) {
      if (!isInside(root, dir)) return undefined;
      const wanted = path
        .relative(root, dir)
        .split(path.sep)
        .filter((part) => part !== '');
      let same = 0;
      while (same < open.length && same < wanted.length && names[same] === wanted[same]) same++;
      closeFrom(same);
      while (open.length < wanted.length) {
        const parent = open.length === 0 ? rootFd : open[open.length - 1];
        let fd: number;
        try {
          fd = openSync(`/proc/self/fd/${parent}/${wanted[open.length]}`, DIR_FLAGS);
        } catch {
          return undefined;
        }
        names.push(wanted[open.length]);
        open.push(fd);
        if (!isInside(root, readlinkSync(`/proc/self/fd/${fd}`))) {
          closeFrom(open.length - 1);
          return undefined;
        }
      }
      return lstatSync(`/proc/self/fd/${open.length === 0 ? rootFd : open[open.length - 1]}/${name}`, { throwIfNoEntry: false });
    },
    close() {
      closeFrom(0);
      closeSync(rootFd);
    },
  };
}
