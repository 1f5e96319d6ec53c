import { readFile, realpath, stat } from 'node:fs/promises';
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
  /** Receives files that were skipped for safety (links out of the workspace, FIFOs). */
  onWarning?: (text: string) => void;
}

/**
 * AGENTS.md and BEANS.md from the config folder, then from the workspace root down to the current
 * folder, so the most specific instructions come last. Empty and unreadable files are skipped.
 */
export async function loadContextFiles(options: LoadContextFilesOptions): Promise<ContextFile[]> {
  const folders = options.configDir ? [options.configDir, ...foldersDown(options.workspace)] : foldersDown(options.workspace);
  const candidates = folders.flatMap((folder) => CONTEXT_FILE_NAMES.map((name) => path.join(folder, name)));
  const read = await Promise.all(candidates.map((file) => readContextFile(file, options.configDir && file.startsWith(options.configDir + path.sep) ? undefined : options.workspace.root, options.onWarning)));
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

/**
 * A context file's text. A repository's file must really be inside the workspace (an AGENTS.md
 * linked to ~/.ssh/id_rsa would put the key into the prompt) and be a regular file (a FIFO would
 * hang start-up); such files are skipped with a warning.
 */
async function readContextFile(file: string, confineTo: string | undefined, warn: ((text: string) => void) | undefined): Promise<(ContextFile & { real: string }) | undefined> {
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    return undefined;
  }
  if (confineTo && !isInside(confineTo, real)) {
    warn?.(`${file} is a link to ${real}, outside the workspace; it was not read.`);
    return undefined;
  }
  try {
    if (!(await stat(real)).isFile()) {
      warn?.(`${file} is not a regular file (a pipe or device); it was not read.`);
      return undefined;
    }
    const content = await readFile(real, 'utf8');
    if (content.trim() === '') return undefined;
    return { path: file, content, real };
  } catch {
    return undefined;
  }
}
