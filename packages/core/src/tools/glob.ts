import { statSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { OutsideWorkspaceError, isInside, resolveInWorkspace, type WorkspacePath } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import { walkFiles, type WalkedFile } from './file-walk.js';
import { guarded } from './result.js';
import { plural } from './text.js';
import { defineTool } from './tool.js';
import { lazily } from '../lazily.js';

export const GLOB_MAX_RESULTS = 200;

const schema = lazily(() =>
  z.object({
    pattern: z.string().min(1).describe('e.g. "src/**/*.ts"'),
    path: z.string().optional().describe('Folder (default: workspace root)'),
  }),
);

export const globTool = defineTool({
  name: 'glob',
  kind: 'read',
  description:
    `Find files by glob (*, **, ?, {a,b}) matched against paths relative to path, so use "**/" to search subfolders. ` +
    `Honours .gitignore; newest first; up to ${GLOB_MAX_RESULTS} results.`,
  schema,
  summarize: (input) => (input.path ? `${input.pattern} in ${input.path}` : input.pattern),
  ruleSubject: (input) => input.path ?? '.',
  async execute(input, ctx) {
    return guarded(ctx.signal, async () => {
      const { base, pattern } = normalizeGlob(ctx.workspace, input.pattern, input.path);
      const root = resolveInWorkspace(ctx.workspace, '.').absolute;
      const walked = await walkFiles(root, base, pattern, { stats: true });
      const { ignoredCount } = walked;
      const files = ctx.readDenied ? walked.files.filter((file) => !ctx.readDenied!(file.path)) : walked.files;
      ctx.signal.throwIfAborted();
      const where = base.relative === '.' ? 'the workspace' : base.relative;
      const ignoredNote = ignoredCount > 0 ? ' Files ignored by .gitignore are not listed.' : '';
      if (files.length === 0) {
        const hint = !pattern.includes('/') ? ` The pattern only matches directly in ${where}; use "**/${pattern}" to search subfolders.` : '';
        return { content: `No files match "${pattern}" in ${where}.${hint}${ignoredNote}` };
      }
      const shown = newest(files, GLOB_MAX_RESULTS).map((file) => file.path);
      let content = shown.join('\n');
      if (files.length > shown.length) {
        content += `\n\n[${shown.length} of ${plural(files.length, 'file')} shown, newest first; ${files.length - shown.length} more. Narrow the pattern or path to see them.${ignoredNote}]`;
      } else if (ignoredNote) {
        content += `\n\n[${ignoredNote.trim()}]`;
      }
      return { content };
    });
  },
});

const newerFirst = (a: WalkedFile, b: WalkedFile) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The `count` newest files, newest first (ties by path). Only what is returned is sorted: one pass
 * keeps a sorted list of the best `count`, so 100,000 matches cost a comparison each, not a sort.
 */
export function newest(files: readonly WalkedFile[], count: number): WalkedFile[] {
  const best: WalkedFile[] = [];
  for (const file of files) {
    if (best.length === count && newerFirst(file, best[count - 1]) >= 0) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (newerFirst(best[mid], file) <= 0) low = mid + 1;
      else high = mid;
    }
    best.splice(low, 0, file);
    if (best.length > count) best.pop();
  }
  return best;
}

/** Splits an absolute or `./` pattern into a base folder inside the workspace and a relative glob. */
function normalizeGlob(workspace: Workspace, rawPattern: string, rawPath: string | undefined): { base: WorkspacePath; pattern: string } {
  let base = resolveInWorkspace(workspace, rawPath ?? '.');
  let pattern = rawPattern.replace(/^(\.\/)+/, '');
  if (path.isAbsolute(pattern)) {
    base = resolveInWorkspace(workspace, '.');
    if (!isInside(base.absolute, pattern)) {
      throw new OutsideWorkspaceError(`${rawPattern} is outside the workspace: paths must stay inside ${workspace.root}.`);
    }
    pattern = path.relative(base.absolute, pattern).split(path.sep).join('/');
  }
  if (pattern.split('/').includes('..')) {
    throw new ToolInputError('Glob patterns cannot contain "..". Set path to the folder to search and give a pattern relative to it.');
  }
  let isDir: boolean;
  try {
    isDir = statSync(base.absolute).isDirectory();
  } catch {
    throw new ToolInputError(`Folder not found: ${base.relative}.`);
  }
  if (!isDir) throw new ToolInputError(`${base.relative} is a file; path must be a folder to search in.`);
  return { base, pattern };
}
