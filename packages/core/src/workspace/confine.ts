import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from './paths.js';

/**
 * A check for paths a search reported (relative to root): true only when the file really lies
 * inside root, through symlinked folders and links too. Folders are resolved once each. Searches
 * filter every result with it, whatever their pattern said (brace sets, absolute alternatives).
 */
export function confinedPaths(root: string): (file: string) => boolean {
  const folders = new Map<string, boolean>();
  return (file) => {
    const absolute = path.resolve(root, file);
    if (!isInside(root, absolute)) return false;
    const folder = path.dirname(absolute);
    let inside = folders.get(folder);
    if (inside === undefined) {
      try {
        inside = isInside(root, realpathSync(folder));
      } catch {
        inside = false;
      }
      folders.set(folder, inside);
    }
    if (!inside) return false;
    try {
      return !lstatSync(absolute).isSymbolicLink() || isInside(root, realpathSync(absolute));
    } catch {
      return false;
    }
  };
}
