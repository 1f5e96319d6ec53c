import { constants } from 'node:fs';
import * as fs from '../async-fs.js';
import path from 'node:path';
import { ToolInputError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { descriptorPathsAvailable, openConfinedDir } from '../workspace/confined-dir.js';
import { isInside } from '../workspace/paths.js';

export interface AppendOutcome {
  created: boolean;
  /** The file's size once this append landed. */
  size: number;
}

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Adds `data` at the end of a file inside `root` without a read-modify-write window: an O_APPEND
 * write, under a lock every Beans process takes for that file (so a large append, or one on a
 * network file system where O_APPEND is not atomic, still never interleaves with another). The
 * folder is opened from the root without following links, as writeFileAtomic does, and the file
 * itself is never a link. `lockDir` keeps the lock off the work tree (see withFileLock).
 */
export async function appendFileConfined(absolute: string, data: Uint8Array, confine: { root: string; lockDir?: string }): Promise<AppendOutcome> {
  const name = path.basename(absolute);
  if (!descriptorPathsAvailable) {
    const dir = path.dirname(absolute);
    await fs.mkdir(dir, { recursive: true });
    if (!isInside(confine.root, await fs.realpath(dir)))
      throw new ToolInputError(`The folder ${dir} now leads outside the workspace (it was replaced by a link); nothing was written.`);
    return withFileLock(absolute, () => appendAt(absolute, absolute, data), { lockDir: confine.lockDir });
  }
  const dir = await openConfinedDir(confine.root, path.dirname(absolute), { create: true });
  try {
    // Without a lock folder of its own the lock goes beside the file, through the opened folder.
    return await withFileLock(absolute, () => appendAt(dir.at(name), absolute, data), { lockDir: confine.lockDir ?? dir.at('') });
  } finally {
    await dir.close();
  }
}

async function appendAt(opened: string, shown: string, data: Uint8Array): Promise<AppendOutcome> {
  const created = await fs.lstat(opened).then(
    () => false,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return true;
      throw error;
    },
  );
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(opened, APPEND_FLAGS, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new ToolInputError(`${shown} is a link; append writes only to regular files inside the workspace. Nothing was written.`);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new ToolInputError(`${shown} is not a regular file; nothing was appended.`);
    for (let offset = 0; offset < data.length;) offset += (await handle.write(data, offset)).bytesWritten;
    return { created, size: (await handle.stat()).size };
  } finally {
    await handle.close();
  }
}
