import { lstat, realpath } from '../async-fs.js';
import path from 'node:path';

// Files that make Beans (or Claude Code, an MCP client, git) run code or loosen its rules on the next
// start. A model that could change them without asking could grant itself anything later, and a
// server written into a plugin would run outside the sandbox. write_file and edit_file ask before
// every change to them in every mode but yolo (permissions/authorize.ts); the shell sandbox mounts
// them read-only (sandbox/shell-sandbox.ts).

/** Top-level entries of the workspace that configure Beans, Claude Code, MCP, language servers or git. */
const AT_ROOT = ['.beans', '.claude', '.mcp.json', '.lsp.json', '.git', '.gitmodules'];

/**
 * Names that declare servers, hooks or plugins wherever they are: a plugin root can be any folder
 * (`plugins.dirs`), so `plugins/tools/.mcp.json` and `tools/plugins/x/.mcp.json` count alike.
 */
const ANYWHERE = ['.mcp.json', '.lsp.json', '.claude-plugin', 'plugin.json', 'hooks.json'];

/** True for a workspace-relative path whose change would make Beans run something new. */
export function isProtectedPath(relative: string): boolean {
  const parts = relative
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  if (parts.length === 0) return false;
  if (AT_ROOT.includes(parts[0])) return true;
  if (parts.some((part) => ANYWHERE.includes(part))) return true;
  // A plugin's hooks folder (`plugins/<plugin>/hooks/...`): its scripts are what the hooks run.
  return parts.length >= 3 && parts[0] === 'plugins' && parts[2] === 'hooks';
}

/**
 * isProtectedPath for a write as it will land: the path as the call wrote it (`.beans/settings.json`
 * even when `.beans` is a committed link to `cfg/`), where it really is, and inside the real folder a
 * protected root entry links to (writing `cfg/settings.json` changes `.beans/settings.json` too).
 */
export async function isProtectedWrite(root: string, relative: string, written?: string): Promise<boolean> {
  const lexical = written === undefined ? undefined : toPosix(path.relative(root, path.resolve(root, written)));
  if (isProtectedPath(relative) || (lexical !== undefined && !lexical.startsWith('..') && isProtectedPath(lexical))) return true;
  for (const entry of AT_ROOT) {
    const info = await lstat(path.join(root, entry)).catch(() => undefined);
    if (!info?.isSymbolicLink()) continue;
    const real = await realpath(path.join(root, entry)).catch(() => undefined);
    if (real === undefined) continue;
    const target = toPosix(path.relative(root, real));
    if (target === '' || target.startsWith('..') || path.isAbsolute(target)) continue;
    if (relative === target || relative.startsWith(`${target}/`)) return true;
  }
  return false;
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/**
 * What the shell sandbox keeps read-only inside the writable workspace (paths relative to it; a
 * missing one cannot be created either). All of `plugins/`, because a command could otherwise make a
 * new plugin folder with a server in it; `.git` itself stays writable so `git commit` works (its
 * hooks and config are added by the sandbox).
 */
export const SANDBOX_READ_ONLY = ['.beans', '.claude', '.mcp.json', '.lsp.json', '.gitmodules', 'plugins'];
