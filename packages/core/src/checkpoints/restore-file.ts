import type { Stats } from 'node:fs';
import * as fs from '../async-fs.js';
import path from 'node:path';
import { writeFileAtomic } from '../tools/file-io.js';
import { descriptorPathsAvailable, openConfinedDir, type ConfinedDir } from '../workspace/confined-dir.js';
import { isInside } from '../workspace/paths.js';
import type { FileState } from './file-state.js';
import { builtin } from '../node-builtins.js';

/** A workspace-relative path from the checkpoint log, refused unless it stays inside the workspace and out of `.git`. */
export function workspaceFile(root: string, relative: string): string {
  const absolute = path.resolve(root, relative);
  const rel = path.relative(root, absolute);
  if (path.isAbsolute(relative) || !rel || !isInside(root, absolute) || rel.split(path.sep).includes('.git')) {
    throw new Error(`${relative} is not a path inside the workspace; the checkpoint was not applied to it.`);
  }
  return absolute;
}

/**
 * Puts one path back into `state`, atomically: a file or link is written under a temporary name and
 * renamed over the path, so kill -9 at any moment leaves the old or the new content, never half. The
 * folders on the way are opened from the workspace root without following links (the confined write
 * path the file tools use), so a folder swapped for a symlink cannot send the write outside.
 */
export async function restoreFile(root: string, absolute: string, state: FileState, content: Buffer | undefined, tempDir: string | undefined): Promise<void> {
  if (state.kind === 'too-large') throw new Error('it was over checkpoints.maxFileBytes, so its content was not kept');
  if (state.kind === 'absent') return removeConfined(root, absolute);
  if (state.kind === 'link') return linkConfined(root, absolute, state.target);
  if (!content) throw new Error('its content is missing from the checkpoint store');
  await assertNotFolder(absolute);
  // Only the mode matters to writeFileAtomic's `previous`: the permission bits to give the file.
  const mode = { mode: state.executable ? 0o755 : 0o644 } as Stats;
  await writeFileAtomic(absolute, content, mode, { root, tempDir });
}

async function assertNotFolder(absolute: string): Promise<void> {
  const stats = await fs.lstat(absolute).catch(() => undefined);
  if (stats?.isDirectory()) throw new Error('a folder is there now; move it away and rewind again');
}

async function withFolder<T>(root: string, absolute: string, create: boolean, action: (dir: ConfinedDir | undefined) => Promise<T>): Promise<T> {
  if (!descriptorPathsAvailable) {
    const real = await fs.realpath(path.dirname(absolute)).catch(() => undefined);
    if (real && !isInside(root, real)) throw new Error('a folder on its way leads outside the workspace (a symlink)');
    return action(undefined);
  }
  const dir = await openConfinedDir(root, path.dirname(absolute), { create }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' && !create) return undefined;
    throw error;
  });
  if (!dir) return action(undefined);
  try {
    return await action(dir);
  } finally {
    await dir.close();
  }
}

async function removeConfined(root: string, absolute: string): Promise<void> {
  await withFolder(root, absolute, false, async (dir) => {
    const target = dir ? dir.at(path.basename(absolute)) : absolute;
    const stats = await fs.lstat(target).catch(() => undefined);
    if (!stats) return;
    if (stats.isDirectory()) throw new Error('a folder is there now; it was left alone');
    // unlink never follows a link: a link is removed, not what it points to.
    await fs.unlink(target);
  });
}

async function linkConfined(root: string, absolute: string, target: string): Promise<void> {
  await assertNotFolder(absolute);
  await withFolder(root, absolute, true, async (dir) => {
    if (!dir) await fs.mkdir(path.dirname(absolute), { recursive: true });
    const name = path.basename(absolute);
    const temp = `.${name}.${process.pid}-${builtin('node:crypto').randomBytes(6).toString('hex')}.beans-tmp`;
    const at = (file: string) => (dir ? dir.at(file) : path.join(path.dirname(absolute), file));
    await fs.symlink(target, at(temp));
    try {
      await fs.rename(at(temp), at(name));
    } catch (error) {
      await fs.rm(at(temp), { force: true });
      throw error;
    }
  });
}
