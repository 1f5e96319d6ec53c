import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as fs from '../async-fs.js';
import path from 'node:path';
import { isInside } from '../workspace/paths.js';
import { builtin } from '../node-builtins.js';

/**
 * What one workspace path held at some moment. Contents live in the shadow repository as git blobs
 * (`oid`); a file over `checkpoints.maxFileBytes` is only described, so it cannot be restored.
 */
export type FileState =
  | { kind: 'absent' }
  | { kind: 'file'; oid: string; size: number; executable: boolean }
  | { kind: 'link'; oid: string; target: string }
  | { kind: 'too-large'; size: number; mtimeMs: number };

/** The id git gives a blob: sha1 of `blob <size>\0<bytes>`. */
function blobId(content: Buffer): string {
  return builtin('node:crypto').createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/**
 * Stores a blob in the shadow repository's object folder the way git does (a zlib-deflated loose
 * object, written under a temporary name then renamed), without starting git: a file tool's
 * checkpoint costs a read, a hash and one small write.
 */
export function writeLooseBlob(objectsDir: string, content: Buffer): string {
  const oid = blobId(content);
  const target = path.join(objectsDir, oid.slice(0, 2), oid.slice(2));
  if (existsSync(target)) return oid;
  mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.tmp`;
  // zlib is loaded when the first blob is written, not imported: importing it cost every start ~2 ms.
  const { deflateSync } = builtin('node:zlib');
  writeFileSync(temp, deflateSync(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]), { level: 1 }), { mode: 0o444 });
  renameSync(temp, target);
  return oid;
}

export function hasLooseObject(objectsDir: string, oid: string): boolean {
  return existsSync(path.join(objectsDir, oid.slice(0, 2), oid.slice(2)));
}

/**
 * Reads what `absolute` holds now (without following a final symlink) and, when `objectsDir` is
 * given, keeps its content as a blob. A folder or a device counts as absent: checkpoints hold files.
 */
export async function readFileState(root: string, absolute: string, maxFileBytes: number, objectsDir?: string): Promise<FileState> {
  // A folder on the way that leads outside (a symlink) holds nothing of the workspace's.
  if (!(await insideThroughLinks(root, path.dirname(absolute)))) return { kind: 'absent' };
  let stats;
  try {
    stats = await fs.lstat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    throw error;
  }
  if (stats.isSymbolicLink()) {
    const target = await fs.readlink(absolute);
    const bytes = Buffer.from(target);
    return { kind: 'link', oid: objectsDir ? writeLooseBlob(objectsDir, bytes) : blobId(bytes), target };
  }
  if (!stats.isFile()) return { kind: 'absent' };
  if (stats.size > maxFileBytes) return { kind: 'too-large', size: stats.size, mtimeMs: stats.mtimeMs };
  const content = await fs.readFile(absolute);
  return {
    kind: 'file',
    oid: objectsDir ? writeLooseBlob(objectsDir, content) : blobId(content),
    size: content.length,
    executable: (stats.mode & 0o111) !== 0,
  };
}

async function insideThroughLinks(root: string, dir: string): Promise<boolean> {
  try {
    return isInside(root, await fs.realpath(dir));
  } catch {
    return true; // a missing folder: the file is absent, which lstat reports
  }
}

/** True when two states hold the same thing (a too-large file: same size and modification time). */
export function sameState(a: FileState, b: FileState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'absent') return true;
  if (a.kind === 'too-large' && b.kind === 'too-large') return a.size === b.size && a.mtimeMs === b.mtimeMs;
  if (a.kind === 'file' && b.kind === 'file') return a.oid === b.oid && a.executable === b.executable;
  return a.kind === 'link' && b.kind === 'link' && a.target === b.target;
}

/** Bytes a state keeps in the store (what `checkpoints.maxBytes` counts). */
export function storedBytes(state: FileState | undefined): number {
  if (!state) return 0;
  if (state.kind === 'file') return state.size;
  if (state.kind === 'link') return state.target.length;
  return 0;
}
