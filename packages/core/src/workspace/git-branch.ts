import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The checked-out branch of the repository at `root` (or the short commit when HEAD is detached),
 * read from `.git/HEAD` itself: a few hundred bytes, no `git` process in the footer's path. A
 * worktree's `.git` file points at its own git folder. Undefined outside a repository.
 */
export function gitBranch(root: string): string | undefined {
  try {
    let gitDir = path.join(root, '.git');
    if (statSync(gitDir).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'));
      if (!pointer) return undefined;
      gitDir = path.resolve(root, pointer[1].trim());
    }
    const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    if (ref) return ref[1];
    return /^[0-9a-f]{7,}$/.test(head) ? head.slice(0, 7) : undefined;
  } catch {
    return undefined;
  }
}
