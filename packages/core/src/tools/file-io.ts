import { constants, readdirSync, rmSync, statSync, type Stats } from 'node:fs';
import * as fs from '../async-fs.js';
import path from 'node:path';
import { ToolInputError } from '../errors.js';
import { descriptorPathsAvailable, openConfinedDir } from '../workspace/confined-dir.js';
import { isInside, type WorkspacePath } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import { formatBytes, looksBinary } from './text.js';
import type { ToolSessionState } from './tool.js';
import { builtin } from '../node-builtins.js';

/** Files larger than this are not loaded whole (edit, diff, unwindowed read). */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

export async function statOrUndefined(absolute: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Reads a file the way writes go (see writeFileAtomic): through folders opened from the workspace
 * root without following links, so a folder swapped for a symlink after the path was checked
 * cannot make Beans read a file outside and copy it into the workspace or the model's context.
 */
export async function readFileConfined(root: string | undefined, absolute: string): Promise<Buffer> {
  if (!root || !descriptorPathsAvailable) return fs.readFile(absolute);
  const dir = await openConfinedDir(root, path.dirname(absolute), { create: false });
  try {
    let handle: fs.FileHandle;
    try {
      // O_NONBLOCK: a FIFO swapped in meanwhile must not block the open.
      handle = await fs.open(dir.at(path.basename(absolute)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP')
        throw new ToolInputError(`${absolute} was replaced by a link while reading it; nothing was read. Check the file and try again.`);
      throw error;
    }
    try {
      if (!(await handle.stat()).isFile()) throw new ToolInputError(`${absolute} is no longer a regular file; nothing was read.`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } finally {
    await dir.close();
  }
}

/** Reads a whole text file for editing or diffing; binary and oversized files are refused. */
export async function readTextFile(target: WorkspacePath, stats: Stats, root?: string): Promise<string> {
  if (stats.isDirectory()) throw new ToolInputError(`${target.relative} is a directory, not a file. Use list_directory to see what it holds.`);
  // A FIFO or device would block the read forever, past any abort.
  if (!stats.isFile()) throw new ToolInputError(`${target.relative} is not a regular file (a pipe, socket or device); it cannot be edited.`);
  if (stats.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolInputError(
      `${target.relative} is ${formatBytes(stats.size)}, too large to edit here (limit ${formatBytes(MAX_TEXT_FILE_BYTES)}). Use shell tools (sed, a script) for files this size.`,
    );
  }
  const buffer = await readFileConfined(root, target.absolute);
  if (looksBinary(buffer)) throw new ToolInputError(`${target.relative} is a binary file; only text files can be edited.`);
  try {
    return STRICT_UTF8.decode(buffer);
  } catch {
    // Decoding leniently would turn every byte that is not UTF-8 into U+FFFD and write that back.
    throw new ToolInputError(
      `${target.relative} is not valid UTF-8 (probably Latin-1 or another legacy encoding), so edit_file cannot change it without corrupting it. Use the shell tool instead (e.g. sed, or iconv to convert it first).`,
    );
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Remembers the file's current mtime as the version the model has seen. */
export async function recordFileTime(state: ToolSessionState, absolute: string): Promise<void> {
  const stats = await statOrUndefined(absolute);
  if (stats) state.fileTimes.set(absolute, stats.mtimeMs);
}

/** Refuses to change a file that changed on disk after the model last read or wrote it. */
export function assertUnchangedSinceRead(state: ToolSessionState, target: WorkspacePath, stats: Stats): void {
  const seen = state.fileTimes.get(target.absolute);
  if (seen !== undefined && seen !== stats.mtimeMs) {
    throw new ToolInputError(
      `${target.relative} changed on disk since you last read it (someone or something else modified it). Read it again with read_file, then redo the change against its current content.`,
    );
  }
}

/**
 * Where half-written files wait for their rename: inside `.git/` of a git workspace, where a crash
 * (kill -9 mid-write) leaves nothing a user would commit or stumble on. Undefined outside git.
 */
export function workspaceTempDir(workspace: Pick<Workspace, 'root' | 'isGit'>): string | undefined {
  if (!workspace.isGit) return undefined;
  const gitDir = path.join(workspace.root, '.git');
  try {
    return statSync(gitDir).isDirectory() ? path.join(gitDir, 'beans-tmp') : undefined;
  } catch {
    return undefined;
  }
}

/** Removes temporary files that processes no longer running left behind (kill -9 mid-write). */
export function removeStaleTempFiles(tempDir: string | undefined): void {
  if (!tempDir) return;
  let names: string[];
  try {
    names = readdirSync(tempDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) rmSync(path.join(tempDir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Writes via a temporary file and a rename, so readers and crashes never see half a file. Creates
 * missing parent folders and keeps an existing file's permissions. The temporary file lives in
 * `tempDir` when it is on the same file system (else beside the target).
 *
 * With `confine` on Linux, every folder is opened from the workspace root without following links
 * and the file is written and renamed through those open folders, so a folder swapped for a
 * symlink at any moment cannot send the write outside (finding 9 of issue 11). Elsewhere the
 * folder is checked again just before the rename.
 */
export async function writeFileAtomic(
  absolute: string,
  data: string | Uint8Array,
  previous?: Stats,
  confine?: { root: string; tempDir?: string },
): Promise<void> {
  if (confine && descriptorPathsAvailable) return writeThroughDescriptors(absolute, data, previous, confine);
  const dir = path.dirname(absolute);
  await fs.mkdir(dir, { recursive: true });
  const unique = uniqueName();
  let temp = confine?.tempDir ? path.join(confine.tempDir, `${unique}.tmp`) : path.join(dir, `.${path.basename(absolute)}.${unique}.beans-tmp`);
  if (confine?.tempDir) await fs.mkdir(confine.tempDir, { recursive: true });
  try {
    await writeTemp(temp, data, previous);
    if (confine) await assertStillInside(confine.root, dir);
    try {
      await fs.rename(temp, absolute);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      // Another file system: write beside the target instead (a crash may then leave it there).
      await fs.rm(temp, { force: true });
      temp = path.join(dir, `.${path.basename(absolute)}.${unique}.beans-tmp`);
      await writeTemp(temp, data, previous);
      if (confine) await assertStillInside(confine.root, dir);
      await fs.rename(temp, absolute);
    }
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

async function writeThroughDescriptors(
  absolute: string,
  data: string | Uint8Array,
  previous: Stats | undefined,
  confine: { root: string; tempDir?: string },
): Promise<void> {
  const name = path.basename(absolute);
  const unique = uniqueName();
  const dir = await openConfinedDir(confine.root, path.dirname(absolute), { create: true });
  const tempDir =
    confine.tempDir && isInside(confine.root, confine.tempDir) ? await openConfinedDir(confine.root, confine.tempDir, { create: true }) : undefined;
  let temp = tempDir ? tempDir.at(`${unique}.tmp`) : dir.at(`.${name}.${unique}.beans-tmp`);
  try {
    await writeTemp(temp, data, previous);
    try {
      await fs.rename(temp, dir.at(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await fs.rm(temp, { force: true });
      temp = dir.at(`.${name}.${unique}.beans-tmp`);
      await writeTemp(temp, data, previous);
      await fs.rename(temp, dir.at(name));
    }
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  } finally {
    await dir.close();
    await tempDir?.close();
  }
}

function uniqueName(): string {
  return `${process.pid}-${builtin('node:crypto').randomBytes(6).toString('hex')}`;
}

async function writeTemp(temp: string, data: string | Uint8Array, previous: Stats | undefined): Promise<void> {
  await fs.writeFile(temp, data, { mode: previous ? previous.mode & 0o7777 : 0o666, flag: 'wx' });
  if (previous) await fs.chmod(temp, previous.mode & 0o7777);
}

async function assertStillInside(root: string, dir: string): Promise<void> {
  const real = await fs.realpath(dir);
  if (!isInside(root, real)) throw new ToolInputError(`The folder ${dir} now leads outside the workspace (it was replaced by a link); nothing was written.`);
}
