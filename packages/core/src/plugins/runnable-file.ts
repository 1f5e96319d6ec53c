import { lstat, readdir, readFile, realpath } from '../async-fs.js';
import path from 'node:path';
import { planEdit } from '../tools/edit-match.js';
import { isInside } from '../workspace/paths.js';
import { parseFrontmatter, splitFrontmatter } from './frontmatter.js';
import { hasShellLines } from './shell-lines.js';

// Issue 53 item 2: a plugin command, skill or agent the model writes can run code later, when the
// user types its name: `allowed-tools` grants it tools for its run, its `!` lines run before the
// prompt reaches the model, `hooks:` and `mcpServers:` in its frontmatter name commands. In
// auto-edit the model wrote plugins/x/commands/review.md with both, it shadowed the built-in /review,
// and /review ran its line without a question. Such a file in the workspace is a protected path
// (permissions/authorize.ts asks in every mode but yolo); ordinary plugin prose is not.

/** Frontmatter keys that grant tools or name programs, in the spellings readers accept. */
const RUNNABLE_KEY = /^\s*["']?(allowed[-_ ]?tools|allowedtools|hooks|mcp[-_ ]?servers|permission[-_ ]?mode)["']?\s*:/im;
const RUNNABLE_KEYS = new Set(['allowed-tools', 'allowed_tools', 'allowedtools', 'hooks', 'mcpservers', 'mcp-servers', 'permissionmode', 'permission-mode']);
/** Folders that hold a plugin's definitions wherever its root is (a plugin root can be any folder). */
const DEFINITION_FOLDERS = new Set(['commands', 'agents', 'skills']);
/** A plugin file larger than this is taken to carry code (its text is not read to find out). */
const MAX_READ_BYTES = 1024 * 1024;
/** How deep a plugin root is searched for folders that are links elsewhere in the workspace. */
const LINK_DEPTH = 4;

/** True when a plugin file's text grants tools or runs something: `allowed-tools`, hooks, MCP servers, `!` lines. */
export function carriesRunnableParts(text: string): boolean {
  const split = splitFrontmatter(text);
  if (split.yaml !== undefined || split.unclosed) {
    const head = split.yaml ?? split.body.split(/\r?\n\r?\n/)[0] ?? '';
    if (RUNNABLE_KEY.test(head)) return true;
    const data = parseFrontmatter(text).data;
    if (Object.keys(data).some((key) => RUNNABLE_KEYS.has(key.toLowerCase()))) return true;
  }
  return hasShellLines(split.body) || hasShellLines(text);
}

/**
 * Whether a workspace-relative path is where a plugin keeps a definition: a Markdown file in a
 * `commands/`, `agents/` or `skills/` folder at any depth, anything in a plugin of `plugins/` (its
 * manifest may name other folders), or in one of the plugin roots the settings name.
 */
export function isPluginDefinitionPath(relative: string, pluginRoots: readonly string[] = []): boolean {
  const parts = relative.split(/[\\/]/).filter((part) => part !== '' && part !== '.');
  if (!/\.md$/i.test(parts.at(-1) ?? '')) return false;
  if (parts.slice(0, -1).some((part) => DEFINITION_FOLDERS.has(part))) return true;
  if (parts[0] === 'plugins' && parts.length >= 3) return true;
  return pluginRoots.some((root) => root !== '' && !root.startsWith('..') && !path.isAbsolute(root) && isInside(root, parts.join('/')));
}

export interface PluginWriteGuardOptions {
  /** The workspace root (real). */
  root: string;
  /** Plugin roots of the settings (`plugins.dirs`, absolute); those inside the workspace count. */
  pluginDirs?: readonly string[];
}

export interface PluginWrite {
  toolName: string;
  input: unknown;
  /** The path as the tool call wrote it (before links), if it has one. */
  written?: string;
  /** The real workspace-relative path the tool would change. */
  relative: string;
}

/**
 * The permission policy's extra protected paths: a write that leaves a plugin definition carrying
 * runnable parts (before or after the change) returns why it must be asked about.
 */
export function createPluginWriteGuard(options: PluginWriteGuardOptions): (write: PluginWrite) => Promise<string | undefined> {
  const roots = (options.pluginDirs ?? []).map((dir) => path.relative(options.root, path.resolve(options.root, dir)).split(path.sep).join('/'));
  const reason = (relative: string) =>
    `${relative} is a plugin command, skill or agent that grants tools or runs commands (allowed-tools, \`!\` lines, hooks or MCP servers), so it runs code the next time it is used`;
  return async (write) => {
    if (!/\.md$/i.test(write.relative) && !/\.md$/i.test(write.written ?? '')) return undefined;
    const after = await texts(options.root, write);
    if (after !== 'too large' && !after.some(carriesRunnableParts)) return undefined;
    const lexical = write.written === undefined ? undefined : path.relative(options.root, path.resolve(options.root, write.written)).split(path.sep).join('/');
    if ([write.relative, lexical].some((place) => place !== undefined && isPluginDefinitionPath(place, roots))) return reason(write.relative);
    // A plugin folder that is a link to another folder of the workspace (plugins/x/commands -> docs/cmds).
    for (const target of await linkedPluginFolders(options.root, ['plugins', '.beans/plugins', '.claude', ...roots])) {
      if (isInside(target, write.relative)) return reason(write.relative);
    }
    return undefined;
  };
}

/** What the file may hold after the call, and what it holds now; 'too large' to read (a plugin file is a few kilobytes: taken as carrying code). */
async function texts(root: string, write: PluginWrite): Promise<string[] | 'too large'> {
  const input = (typeof write.input === 'object' && write.input !== null ? write.input : {}) as Record<string, unknown>;
  let existing = '';
  try {
    const file = path.join(root, write.relative);
    const info = await lstat(file);
    if (info.isFile() && info.size > MAX_READ_BYTES) return 'too large';
    if (info.isFile()) existing = await readFile(file, 'utf8');
  } catch {
    // A new file.
  }
  const strings = Object.values(input).filter((value): value is string => typeof value === 'string');
  if (strings.some((text) => text.length > MAX_READ_BYTES)) return 'too large';
  const out = [existing, ...strings];
  if (write.toolName === 'write_file' && typeof input.content === 'string') out.push(input.append === true ? existing + input.content : input.content);
  if (write.toolName === 'edit_file' && typeof input.old_string === 'string' && typeof input.new_string === 'string') {
    // An empty old_string creates the file (planEdit never sees it: it would match everywhere).
    if (input.old_string === '') out.push(existing + input.new_string);
    else {
      const plan = planEdit(existing, input.old_string, input.new_string, input.replace_all === true, write.relative);
      if (plan.ok) out.push(plan.content);
    }
  }
  return out;
}

/** Real workspace-relative folders that a link inside a plugin root leads to. */
async function linkedPluginFolders(root: string, roots: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > LINK_DEPTH) return;
    let entries;
    try {
      entries = await readdir(path.join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const child = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isSymbolicLink()) {
        const real = await realpath(path.join(root, child)).catch(() => undefined);
        const relative = real === undefined ? undefined : path.relative(root, real).split(path.sep).join('/');
        if (relative !== undefined && relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)) found.push(relative);
      } else if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') await walk(child, depth + 1);
    }
  };
  for (const start of new Set(roots)) if (start !== '' && !start.startsWith('..') && !path.isAbsolute(start)) await walk(start, 0);
  return found;
}
