import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { expandHome } from '../config/paths.js';
import { ToolInputError } from '../errors.js';
import type { Workspace } from './workspace.js';

/** A path the model gave, resolved and known to be inside the workspace. */
export interface WorkspacePath {
  /** Absolute real path (symlinks resolved); may not exist yet. */
  absolute: string;
  /** Relative to the workspace root, with `/` separators; `.` for the root itself. */
  relative: string;
}

/** A path that leads outside the workspace root; file tools refuse it in every permission mode. */
export class OutsideWorkspaceError extends ToolInputError {}

/** Symlink chains longer than this are loops (Linux stops at 40 too). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves `p` (relative to the workspace root, absolute, or `~/...`) to its real location and
 * throws OutsideWorkspaceError unless that is inside the root. Symlinks are followed even when the
 * final target does not exist yet, so a link inside the workspace that points outside is outside.
 */
export function resolveInWorkspace(workspace: Pick<Workspace, 'root' | 'extraRoots'>, p: string): WorkspacePath {
  if (p.includes('\0')) throw new ToolInputError('The path contains a NUL character; pass a plain file path.');
  const root = realRoot(workspace.root);
  const lexical = path.resolve(root, expandHome(p === '' ? '.' : p, process.env));
  const absolute = realLocation(lexical, 0);
  if (isInside(root, absolute)) return { absolute, relative: toRelative(root, absolute) };
  // A folder added with --add-dir: its files are named by their absolute path.
  if (workspace.extraRoots?.some((extra) => isInside(realRoot(extra), absolute))) return { absolute, relative: absolute };
  const extra = workspace.extraRoots?.length ? ` or the added folders (${workspace.extraRoots.join(', ')})` : '';
  throw new OutsideWorkspaceError(`${p} is outside the workspace: paths must stay inside ${root}${extra}.`);
}

/** The root a resolved path lies in (the workspace's, or a folder added with --add-dir): confined file operations start there. */
export function rootFor(workspace: Pick<Workspace, 'root' | 'extraRoots'>, absolute: string): string {
  if (isInside(realRoot(workspace.root), absolute)) return workspace.root;
  return workspace.extraRoots?.find((extra) => isInside(realRoot(extra), absolute)) ?? workspace.root;
}

/** True when `candidate` is `root` or below it (both absolute, already real). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export function toRelative(root: string, absolute: string): string {
  const rel = path.relative(root, absolute);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

const realRoots = new Map<string, string>();

// Workspace.root is documented as real already; tests and embedders sometimes pass /tmp paths that
// are symlinks on other systems, so resolve once and remember.
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = realpathSync.native(root);
    } catch {
      real = path.resolve(root);
    }
    realRoots.set(root, real);
  }
  return real;
}

/** The real path of `p`, resolving symlinks on the deepest existing ancestor and dangling links. */
function realLocation(p: string, hops: number): string {
  if (hops > MAX_SYMLINK_HOPS) throw new ToolInputError(`Too many levels of symbolic links at ${p}.`);
  try {
    return realpathSync.native(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      if (code === 'ELOOP') throw new ToolInputError(`Too many levels of symbolic links at ${p}.`);
      throw error;
    }
  }
  let isLink = false;
  try {
    isLink = lstatSync(p).isSymbolicLink();
  } catch {
    // Missing: resolve the parent and append the name below.
  }
  if (isLink) {
    let target: string;
    try {
      target = readlinkSync(p);
    } catch {
      // The link was replaced between the two calls (a folder swapped back and forth): look again.
      return realLocation(p, hops + 1);
    }
    return realLocation(path.resolve(path.dirname(p), target), hops + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(realLocation(parent, hops), path.basename(p));
}
