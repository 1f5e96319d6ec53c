import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, rename, writeFile } from '../async-fs.js';
import path from 'node:path';
import { withFileLock } from '../file-lock.js';
import { configDir } from './paths.js';

// Trust covers what was there when it was given. `beans trust` (and the chat's trust answer) records,
// for the workspace, an id per MCP server and hook the repository declared at that moment (a hash of
// its name and command line, runtime/repository-declarations.ts); one added later (by a pull, or by
// the model) does not run until the user approves it, as Claude Code approves project MCP servers
// one by one. A workspace trusted with no record (through a trusted parent folder, or before Beans
// kept records) takes what it declares on its first trusted run as the baseline.

/** `<config dir>/trusted-declarations.json`: `{"folders": {"/abs/workspace": ["<id>", ...]}}`. */
export function trustedDeclarationsPath(env: NodeJS.ProcessEnv): string {
  return path.join(configDir(env), 'trusted-declarations.json');
}

function readAll(env: NodeJS.ProcessEnv): Record<string, string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(trustedDeclarationsPath(env), 'utf8'));
  } catch {
    // Missing or broken: nothing approved yet (a broken file loses approvals, never grants one).
    return {};
  }
  const folders = (parsed as { folders?: unknown } | null)?.folders;
  if (typeof folders !== 'object' || folders === null || Array.isArray(folders)) return {};
  const out: Record<string, string[]> = {};
  for (const [folder, ids] of Object.entries(folders)) if (Array.isArray(ids)) out[folder] = ids.filter((id): id is string => typeof id === 'string');
  return out;
}

/** The ids approved for this workspace, or undefined when nothing was ever recorded for it. */
export function readApprovedDeclarations(workspaceRoot: string, env: NodeJS.ProcessEnv): Set<string> | undefined {
  const ids = readAll(env)[realPath(workspaceRoot)];
  return ids ? new Set(ids) : undefined;
}

/** Adds ids to the workspace's approved set (`replace`: the set becomes exactly these). */
export async function recordApprovedDeclarations(
  workspaceRoot: string,
  ids: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { replace?: boolean } = {},
): Promise<void> {
  const file = trustedDeclarationsPath(env);
  const folder = realPath(workspaceRoot);
  await mkdir(path.dirname(file), { recursive: true });
  await withFileLock(file, async () => {
    const all = readAll(env);
    all[folder] = [...new Set([...(options.replace ? [] : (all[folder] ?? [])), ...ids])].sort();
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ folders: all }, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
    await rename(temporary, file);
  });
}

function realPath(folder: string): string {
  try {
    return realpathSync(path.resolve(folder));
  } catch {
    return path.resolve(folder);
  }
}
