import type { Dirent } from 'node:fs';
import * as fs from '../async-fs.js';
import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { openConfinedDir, openSubfolderConfined, type ConfinedDir } from '../workspace/confined-dir.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { statOrUndefined } from './file-io.js';
import { GitignoreFilter } from './gitignore.js';
import { guarded } from './result.js';
import { formatBytes, plural } from './text.js';
import { defineTool } from './tool.js';
import { lazily } from '../lazily.js';

const LIST_MAX_ENTRIES = 500;
/** Sub-folders whose entries are counted; beyond this the listing skips the counts to stay fast. */
const COUNT_SUBFOLDERS = 100;

const schema = lazily(() =>
  z.object({
    path: z.string().optional().describe('Default: workspace root'),
  }),
);

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  kind: 'read',
  description:
    'List a folder: sub-folders first (ending in "/", with entry counts), then files with sizes; .gitignored ones are only named, at the end. ' +
    'For deeper files use glob.',
  schema,
  summarize: (input) => input.path ?? '.',
  ruleSubject: (input) => input.path ?? '.',
  async execute(input, ctx) {
    return guarded(ctx.signal, async () => {
      const dir = resolveInWorkspace(ctx.workspace, input.path ?? '.');
      const stats = await statOrUndefined(dir.absolute);
      if (!stats) throw new ToolInputError(`Folder not found: ${dir.relative}. List its parent to see what exists.`);
      if (!stats.isDirectory()) throw new ToolInputError(`${dir.relative} is a file, not a folder. Use read_file to read it.`);
      const root = resolveInWorkspace(ctx.workspace, '.').absolute;
      const filter = new GitignoreFilter(root);
      // The folder is opened from the root without following a link and listed through that
      // descriptor, as are the sub-folders counted and the files described: a folder swapped for a
      // link to outside after the check lists nothing from outside (issue 43 item 6).
      const held = await openConfinedDir(root, dir.absolute, { create: false, reading: true });
      try {
        return await list(held, dir, filter, ctx);
      } finally {
        await held.close();
      }
    });
  },
});

async function list(
  held: ConfinedDir,
  dir: { relative: string },
  filter: GitignoreFilter,
  ctx: { readDenied?: (relative: string) => boolean },
): Promise<{ content: string }> {
  const entries = await fs.readdir(held.path, { withFileTypes: true });
  const folders: Dirent[] = [];
  const files: Dirent[] = [];
  const ignored: string[] = [];
  for (const entry of entries) {
    if (entry.name === '.git') continue;
    const rel = dir.relative === '.' ? entry.name : `${dir.relative}/${entry.name}`;
    if (!entry.isDirectory() && ctx.readDenied?.(rel)) continue;
    const isDir = entry.isDirectory();
    if (filter.ignores(rel, isDir)) ignored.push(isDir ? `${entry.name}/` : entry.name);
    else (isDir ? folders : files).push(entry);
  }
  const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  folders.sort(byName);
  files.sort(byName);
  const lines: string[] = [];
  for (const [i, folder] of folders.entries()) {
    if (lines.length >= LIST_MAX_ENTRIES) break;
    const count = i < COUNT_SUBFOLDERS ? await countEntries(held, folder.name) : undefined;
    lines.push(count === undefined ? `${folder.name}/` : `${folder.name}/  (${plural(count, 'entry', 'entries')})`);
  }
  for (const file of files) {
    if (lines.length >= LIST_MAX_ENTRIES) break;
    lines.push(await describeFile(held, file));
  }
  const listed = folders.length + files.length;
  const header = `${dir.relative === '.' ? 'Workspace root' : `${dir.relative}/`}: ${plural(folders.length, 'folder')}, ${plural(files.length, 'file')}`;
  let content = [header, ...lines].join('\n');
  if (listed === 0) content = `${header} (empty${ignored.length ? ' apart from ignored entries' : ''})`;
  if (listed > lines.length) content += `\n[${listed - lines.length} more entries not shown. Use glob to search within this folder.]`;
  if (ignored.length > 0) {
    ignored.sort();
    const names = ignored.slice(0, 50).join(', ') + (ignored.length > 50 ? `, … ${ignored.length - 50} more` : '');
    content += `\nIgnored by .gitignore: ${names}`;
  }
  return { content };
}

async function countEntries(held: ConfinedDir, name: string): Promise<number | undefined> {
  const folder = await openSubfolderConfined(held, name);
  if (!folder) return undefined;
  try {
    return (await fs.readdir(folder.path)).length;
  } catch {
    return undefined;
  } finally {
    await folder.close();
  }
}

async function describeFile(held: ConfinedDir, entry: Dirent): Promise<string> {
  const full = held.at(entry.name);
  if (entry.isSymbolicLink()) {
    const target = await fs.readlink(full).catch(() => '?');
    const stats = await statOrUndefined(full).catch(() => undefined);
    return `${entry.name} -> ${target}${stats ? (stats.isDirectory() ? '/' : '') : ' (broken link)'}`;
  }
  if (!entry.isFile()) return `${entry.name}  (special file)`;
  const stats = await statOrUndefined(full).catch(() => undefined);
  return stats ? `${entry.name}  (${formatBytes(stats.size)})` : entry.name;
}
