import * as fs from '../async-fs.js';
import path from 'node:path';
import type { WorkspacePath } from '../workspace/paths.js';

/** "File not found" that points at what the model probably meant: a near name or the missing folder. */
export async function missingFileMessage(target: WorkspacePath): Promise<string> {
  const dir = path.dirname(target.absolute);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    const relDir = path.posix.dirname(target.relative);
    return `File not found: ${target.relative} (the folder ${relDir} does not exist either). Use glob to find the file.`;
  }
  const wanted = path.basename(target.absolute).toLowerCase();
  const stem = wanted.replace(/\.[^.]*$/, '');
  const similar = names
    .filter((name) => {
      const lower = name.toLowerCase();
      return lower === wanted || lower.replace(/\.[^.]*$/, '') === stem || (stem.length >= 3 && lower.includes(stem));
    })
    .slice(0, 5)
    .map((name) => path.posix.join(path.posix.dirname(target.relative), name));
  const hint = similar.length > 0 ? ` Did you mean ${similar.join(', ')}?` : ' Use glob or list_directory to find it.';
  return `File not found: ${target.relative}.${hint}`;
}
