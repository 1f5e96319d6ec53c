import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { GitignoreFilter } from '../tools/gitignore.js';

// Which of the workspace's files a language server should be shown at the start of a session, so
// that it starts and loads the project while the model thinks: the first edit's diagnostics then come
// from a warm server (a cold typescript-language-server took 2.9-8.5 s to its first answer).

/** Folders a walk never enters even without a .gitignore saying so. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'build', 'out', 'target', '.venv', 'venv', '__pycache__']);
/** The walk stops after this many folders: a huge tree is not worth the search at start. */
const MAX_FOLDERS = 2_000;

/**
 * One file per extension in `extensions` (lower case, with the dot), found breadth-first from the
 * root with .gitignore honoured, at most MAX_FOLDERS folders read. Shallow files first, which in a
 * project are the entry points. Never throws.
 */
export async function sampleFiles(root: string, extensions: readonly string[]): Promise<Map<string, string>> {
  const wanted = new Set(extensions);
  const found = new Map<string, string>();
  const filter = new GitignoreFilter(root);
  const queue = [''];
  for (let read = 0; queue.length > 0 && read < MAX_FOLDERS && found.size < wanted.size; read++) {
    const dirRel = queue.shift()!;
    let entries;
    try {
      entries = await readdir(path.join(root, dirRel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const isDir = entry.isDirectory();
      if (isDir && SKIPPED.has(entry.name)) continue;
      if (filter.ignoresEntry(dirRel, entry.name, isDir)) continue;
      const rel = dirRel ? `${dirRel}/${entry.name}` : entry.name;
      if (isDir) queue.push(rel);
      else if (entry.isFile()) {
        const extension = path.extname(entry.name).toLowerCase();
        if (wanted.has(extension) && !found.has(extension)) found.set(extension, path.join(root, rel));
      }
    }
  }
  return found;
}
