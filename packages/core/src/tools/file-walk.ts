import nodeFs, { type Dirent } from 'node:fs';
import path from 'node:path';
import { confinedPaths } from '../workspace/confine.js';
import picomatch from 'picomatch';
import { toRelative, type WorkspacePath } from '../workspace/paths.js';
import { GitignoreFilter } from './gitignore.js';

export interface WalkedFile {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  mtimeMs: number;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Files matching the pattern that .gitignore hides (inside ignored folders not counted). */
  ignoredCount: number;
}

const STAT_BATCH = 2048;

/**
 * Files under `base` matching a fast-glob pattern, with .gitignore honoured (nested files and
 * negations too) and `.git` skipped. The filter sits in fast-glob's readdir, so ignored folders
 * such as node_modules are never walked. Symlinks are not followed: a walk never leaves the workspace.
 */
export async function walkFiles(root: string, base: WorkspacePath, pattern: string, options: { stats: boolean }): Promise<WalkResult> {
  const filter = new GitignoreFilter(root);
  const matchesPattern = picomatch(pattern, { dot: true });
  let ignoredCount = 0;
  const keep = (dirRel: string, entry: Dirent): boolean => {
    const isDir = entry.isDirectory();
    if (!filter.ignoresEntry(dirRel, entry.name, isDir)) return true;
    if (!isDir && matchesPattern(toRelative(base.absolute, path.join(root, dirRel, entry.name)))) ignoredCount++;
    return false;
  };
  const relativeDir = (dir: string) => (dir === root ? '' : dir.startsWith(`${root}/`) ? dir.slice(root.length + 1) : toRelative(root, dir));
  const readdir = ((dir: string, opts: unknown, callback: (error: NodeJS.ErrnoException | null, entries?: unknown) => void) => {
    nodeFs.readdir(dir, opts as { withFileTypes: true }, (error, entries) => {
      if (error) return callback(error);
      const dirRel = relativeDir(dir);
      // fast-glob asks for Dirents unless told to stat; plain names would need a stat to judge.
      callback(null, entries.filter((entry) => typeof entry === 'string' || keep(dirRel, entry)));
    });
  }) as unknown as typeof nodeFs.readdir;

  const { default: fg } = await import('fast-glob'); // lazy: ~20 ms to import, only glob needs it
  const found = await fg(pattern, { cwd: base.absolute, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true, fs: { readdir } });
  const prefix = base.relative === '.' ? '' : `${base.relative}/`;
  // Brace sets can smuggle absolute or `..` alternatives past a pattern check ({/etc,src}/*), and a
  // named folder may be a link out: every result is confined on its own.
  const confined = confinedPaths(root);
  const files: WalkedFile[] = found.map((rel) => ({ path: path.posix.normalize(prefix + rel), mtimeMs: 0 })).filter((file) => confined(file.path));
  if (options.stats) {
    // Synchronous lstat is ~10x cheaper than the promise API per call; batches keep the loop responsive.
    for (let i = 0; i < files.length; i++) {
      if (i % STAT_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
      const file = files[i]!;
      file.mtimeMs = nodeFs.lstatSync(path.join(root, file.path), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    }
  }
  return { files, ignoredCount };
}
