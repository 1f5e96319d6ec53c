import { readFile, realpath, stat } from '../async-fs.js';
import os from 'node:os';
import path from 'node:path';
import { MEMORY_FILE } from '../memory/memory-file.js';
import { isInside } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';

export interface ContextFile {
  path: string;
  content: string;
  /** The heading the system prompt gives it instead of its path (a program's memory store has none). */
  label?: string;
}

export const CONTEXT_FILE_NAMES: readonly string[] = ['AGENTS.md', 'BEANS.md', 'CLAUDE.md', path.join('.claude', 'CLAUDE.md')];

// Claude Code follows imports up to five hops from the file the user wrote.
const MAX_IMPORT_DEPTH = 5;

export interface LoadContextFilesOptions {
  /** `~/.config/beans-agent` (or `$XDG_CONFIG_HOME/beans-agent`); its files come first. */
  configDir?: string;
  /** `~/.claude`: its CLAUDE.md follows the config folder's files, as a user-level file. */
  claudeHome?: string;
  workspace: Pick<Workspace, 'root' | 'cwd'>;
  /**
   * Whether the user trusts the workspace: only then may its context files import the user's own
   * files (under `configDir` or `claudeHome`, e.g. `@~/.claude/my-instructions.md`). A repository
   * nobody vouched for imports from itself alone.
   */
  trusted?: boolean;
  /** Receives files that were skipped for safety (links out of the workspace, FIFOs). */
  onWarning?: (text: string) => void;
  /** False when a program keeps the agent's memory in its own store: `.beans/memory.md` is not read. */
  agentMemoryFile?: boolean;
}

interface Candidate {
  file: string;
  /** Folders an import of this file may lead into; undefined for the user's own files. */
  confineTo?: string[];
  /** The agent's own memory file follows no `@path` imports: a model must not pull files into every prompt. */
  noImports?: boolean;
}

/**
 * AGENTS.md, BEANS.md and CLAUDE.md (also `.claude/CLAUDE.md`) from the user's folders, then from
 * the workspace root down to the current folder, so the most specific instructions come last.
 * `@path` imports follow the file that names them. Empty and unreadable files are skipped.
 */
export async function loadContextFiles(options: LoadContextFilesOptions): Promise<ContextFile[]> {
  const user: Candidate[] = [
    ...(options.configDir ? ['AGENTS.md', 'BEANS.md'].map((name) => ({ file: path.join(options.configDir!, name) })) : []),
    ...(options.claudeHome ? [{ file: path.join(options.claudeHome, 'CLAUDE.md') }] : []),
  ];
  const userFolders = [options.configDir, options.claudeHome].filter((folder): folder is string => folder !== undefined);
  const importRoots = [options.workspace.root, ...(options.trusted ? userFolders : [])];
  const repository: Candidate[] = foldersDown(options.workspace).flatMap((folder) =>
    CONTEXT_FILE_NAMES.map((name) => ({ file: path.join(folder, name), confineTo: importRoots })),
  );
  // What the `memory` tool recorded, after the root's own files.
  if (options.agentMemoryFile !== false)
    repository.splice(CONTEXT_FILE_NAMES.length, 0, { file: path.join(options.workspace.root, MEMORY_FILE), confineTo: importRoots, noImports: true });
  const read = await Promise.all(
    [...user, ...repository].map(async (candidate) => ({
      candidate,
      file: await readContextFile(candidate.file, candidate.confineTo ? options.workspace.root : undefined, options.onWarning),
    })),
  );
  const seen = new Set<string>();
  const files: ContextFile[] = [];
  const add = async (file: ContextFile & { real: string }, confineTo: string[], depth: number, noImports = false): Promise<void> => {
    // The config folder can also be a workspace folder; one copy is enough.
    if (seen.has(file.real)) return;
    seen.add(file.real);
    files.push({ path: file.path, content: file.content });
    if (noImports) return;
    for (const target of importsOf(file.content, path.dirname(file.path))) {
      if (depth >= MAX_IMPORT_DEPTH) {
        options.onWarning?.(`${file.path} imports ${target} more than ${MAX_IMPORT_DEPTH} imports deep; it was not read.`);
        continue;
      }
      const imported = await readImport(target, file.path, confineTo, options.trusted ? undefined : userFolders, options.onWarning);
      if (imported) await add(imported, confineTo, depth + 1);
    }
  };
  for (const { candidate, file } of read) {
    if (file) await add(file, candidate.confineTo ?? [os.homedir()], 0, candidate.noImports);
  }
  return files;
}

/** `@path` words outside code; relative to the importing file's folder, `~/` to the home folder. */
function importsOf(content: string, dir: string): string[] {
  const targets: string[] = [];
  let fence: string | undefined;
  for (const line of content.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/(?<=^|\s)@([\w.~/-]+)/g)) {
      const written = match[1].replace(/[.,;:!?)]+$/, '');
      if (written === '') continue;
      targets.push(written.startsWith('~/') ? path.join(os.homedir(), written.slice(2)) : path.resolve(dir, written));
    }
  }
  return targets;
}

async function readImport(
  target: string,
  importer: string,
  confineTo: string[],
  /** The user's own folders, when the workspace is not trusted: a refusal there says how to allow it. */
  untrustedUserFolders: string[] | undefined,
  warn: ((text: string) => void) | undefined,
): Promise<(ContextFile & { real: string }) | undefined> {
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return undefined; // `@someone` in prose, not a file
  }
  const roots = await Promise.all(confineTo.map((root) => realpath(root).catch(() => root)));
  if (!roots.some((root) => isInside(root, real))) {
    const userFolders = await Promise.all((untrustedUserFolders ?? []).map((folder) => realpath(folder).catch(() => folder)));
    if (userFolders.some((folder) => isInside(folder, real)))
      warn?.(`${importer} imports ${target}, one of your own files; it is read only in a trusted workspace (run "beans trust").`);
    else warn?.(`${importer} imports ${target}, which is outside the workspace; it was not read.`);
    return undefined;
  }
  return readContextFile(target, undefined, warn);
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
async function readContextFile(
  file: string,
  confineTo: string | undefined,
  warn: ((text: string) => void) | undefined,
): Promise<(ContextFile & { real: string }) | undefined> {
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
