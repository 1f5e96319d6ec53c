import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolInputError } from '../errors.js';
import type { WorkspacePath } from '../workspace/paths.js';
import { formatBytes, looksBinary } from './text.js';
import type { ToolSessionState } from './tool.js';

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

/** Reads a whole text file for editing or diffing; binary and oversized files are refused. */
export async function readTextFile(target: WorkspacePath, stats: Stats): Promise<string> {
  if (stats.isDirectory()) throw new ToolInputError(`${target.relative} is a directory, not a file. Use list_directory to see what it holds.`);
  // A FIFO or device would block the read forever, past any abort.
  if (!stats.isFile()) throw new ToolInputError(`${target.relative} is not a regular file (a pipe, socket or device); it cannot be edited.`);
  if (stats.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolInputError(`${target.relative} is ${formatBytes(stats.size)}, too large to edit here (limit ${formatBytes(MAX_TEXT_FILE_BYTES)}). Use shell tools (sed, a script) for files this size.`);
  }
  const buffer = await fs.readFile(target.absolute);
  if (looksBinary(buffer)) throw new ToolInputError(`${target.relative} is a binary file; only text files can be edited.`);
  return buffer.toString('utf8');
}

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
 * Writes via a temporary file in the same folder and a rename, so readers and crashes never see half
 * a file. Creates missing parent folders and keeps an existing file's permissions.
 */
export async function writeFileAtomic(absolute: string, data: string | Uint8Array, previous?: Stats): Promise<void> {
  const dir = path.dirname(absolute);
  await fs.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(absolute)}.${randomBytes(6).toString('hex')}.beans-tmp`);
  try {
    await fs.writeFile(temp, data, { mode: previous ? previous.mode & 0o7777 : 0o666, flag: 'wx' });
    if (previous) await fs.chmod(temp, previous.mode & 0o7777);
    await fs.rename(temp, absolute);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}
