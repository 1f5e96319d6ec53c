import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where Beans works: the git root (else the current folder) and the folder the user started in. */
export interface Workspace {
  /** Real path of the workspace root; every file tool stays inside it. */
  root: string;
  /** Real path of the current folder (inside root, or root itself). */
  cwd: string;
  /** True when root is a git work tree. */
  isGit: boolean;
  /** Real paths of more folders the file tools may use besides root (`--add-dir`, the SDK's `additionalDirectories`). */
  extraRoots?: readonly string[];
}

export function findGitRoot(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function resolveWorkspace(cwd: string = process.cwd()): Workspace {
  const realCwd = realpathSync(cwd);
  if (!statSync(realCwd).isDirectory()) throw new Error(`${cwd} is not a directory`);
  const gitRoot = findGitRoot(realCwd);
  return { root: gitRoot ?? realCwd, cwd: realCwd, isGit: gitRoot !== undefined };
}
