import fg from 'fast-glob';
import type { WorkspacePath } from '../workspace/paths.js';
import { GitignoreFilter } from './gitignore.js';

export interface WalkedFile {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  mtimeMs: number;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Files the pattern matched that .gitignore hides. */
  ignoredCount: number;
}

/**
 * Files under `base` matching a fast-glob pattern, with .gitignore honoured (nested files too) and
 * `.git` skipped. Symlinks are not followed, so a walk never leaves the workspace.
 */
export async function walkFiles(root: string, base: WorkspacePath, pattern: string, options: { stats: boolean }): Promise<WalkResult> {
  const filter = new GitignoreFilter(root);
  const entries = await fg(pattern, {
    cwd: base.absolute,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    objectMode: true,
    stats: options.stats,
    ignore: filter.pruneGlobs(base.relative),
  });
  const prefix = base.relative === '.' ? '' : `${base.relative}/`;
  const files: WalkedFile[] = [];
  let ignoredCount = 0;
  for (const entry of entries) {
    const rel = prefix + entry.path;
    if (filter.ignores(rel)) ignoredCount++;
    else files.push({ path: rel, mtimeMs: entry.stats?.mtimeMs ?? 0 });
  }
  return { files, ignoredCount };
}
