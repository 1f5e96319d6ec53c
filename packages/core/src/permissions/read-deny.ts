import { statSync } from 'node:fs';
import path from 'node:path';
import { matchesPathPattern, type ToolRule } from './rules.js';

/** Tools whose path deny rules hide a file from every tool that reads (Claude Code's Read rules). */
const READ_RULE_TOOLS = new Set(['read_file']);

/**
 * The files deny rules keep from the model, as a predicate over workspace-relative paths: grep and
 * glob skip them, list_directory hides them, read_file refuses them. A rule naming a file (not a
 * glob) also catches hard links to it, compared by device and inode. Undefined without such rules.
 */
export function createReadDenied(rules: readonly ToolRule[], workspaceRoot: string): ((relativePath: string) => boolean) | undefined {
  const patterns = rules.filter((rule) => READ_RULE_TOOLS.has(rule.tool) && rule.pattern !== undefined).map((rule) => rule.pattern!);
  if (patterns.length === 0) return undefined;
  const inodes = new Set<string>();
  for (const pattern of patterns) {
    if (/[*?[\]{}]/.test(pattern)) continue;
    const id = fileId(path.resolve(workspaceRoot, pattern));
    if (id) inodes.add(id);
  }
  return (relativePath) => {
    const clean = relativePath.replace(/^\.\//, '');
    if (patterns.some((pattern) => matchesPathPattern(pattern, clean))) return true;
    if (inodes.size === 0) return false;
    const id = fileId(path.resolve(workspaceRoot, clean));
    return id !== undefined && inodes.has(id);
  };
}

function fileId(absolute: string): string | undefined {
  try {
    const stats = statSync(absolute);
    return stats.isFile() ? `${stats.dev}:${stats.ino}` : undefined;
  } catch {
    return undefined;
  }
}
