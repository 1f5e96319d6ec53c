import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';

export interface ContextFile {
  path: string;
  content: string;
}

export const CONTEXT_FILE_NAMES: readonly string[] = ['AGENTS.md', 'BEANS.md'];

export interface LoadContextFilesOptions {
  /** `~/.config/beans-agent` (or `$XDG_CONFIG_HOME/beans-agent`); its files come first. */
  configDir?: string;
  workspace: Pick<Workspace, 'root' | 'cwd'>;
}

/**
 * AGENTS.md and BEANS.md from the config folder, then from the workspace root down to the current
 * folder, so the most specific instructions come last. Empty and unreadable files are skipped.
 */
export async function loadContextFiles(options: LoadContextFilesOptions): Promise<ContextFile[]> {
  const folders = options.configDir ? [options.configDir, ...foldersDown(options.workspace)] : foldersDown(options.workspace);
  const candidates = folders.flatMap((folder) => CONTEXT_FILE_NAMES.map((name) => path.join(folder, name)));
  const read = await Promise.all(candidates.map(readContextFile));
  const seen = new Set<string>();
  const files: ContextFile[] = [];
  for (const file of read) {
    // The config folder can also be a workspace folder; one copy is enough.
    if (!file || seen.has(file.real)) continue;
    seen.add(file.real);
    files.push({ path: file.path, content: file.content });
  }
  return files;
}

function foldersDown(workspace: Pick<Workspace, 'root' | 'cwd'>): string[] {
  const relative = path.relative(workspace.root, workspace.cwd);
  if (relative === '' || !isInside(workspace.root, workspace.cwd)) return [workspace.root];
  const folders = [workspace.root];
  let current = workspace.root;
  for (const part of relative.split(path.sep)) {
    current = path.join(current, part);
    folders.push(current);
  }
  return folders;
}

async function readContextFile(file: string): Promise<(ContextFile & { real: string }) | undefined> {
  try {
    const content = await readFile(file, 'utf8');
    if (content.trim() === '') return undefined;
    return { path: file, content, real: await realpath(file) };
  } catch {
    return undefined;
  }
}
