import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

// What a read-only line's paths really reach, for the words bash turns into other paths (globs) and
// the folders a program walks while following links (`diff -r`). Issue 53 item 3: a committed link
// that points outside the workspace is outside, wherever on the line it is reached from.

/** Entries looked at for one word before giving up (and asking): a glob over a huge tree is not checked. */
const MAX_ENTRIES = 20_000;

export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Where `absolute` really is: its real path, or for a path that does not exist yet, the real path of
 * its nearest existing folder with the rest appended (`linked-dir/missing` is wherever the link goes).
 */
export function realLocation(absolute: string): string {
  const rest: string[] = [];
  for (let current = absolute; ; current = path.dirname(current)) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      if (path.dirname(current) === current) return absolute;
      rest.push(path.basename(current));
    }
  }
}

/**
 * Everything bash could expand a glob word into (`sub/*`, `src/*\/x.ts`, `a/**`), as a superset: every
 * entry of each folder a glob part looks in, dot files included. A problem when any of them leads
 * outside the workspace once links are followed, or when there are too many to check.
 */
export function globProblem(root: string, realRoot: string, word: string): string | undefined {
  const relative = path.relative(root, path.resolve(root, word));
  const parts = relative === '' ? [] : relative.split(path.sep);
  let budget = MAX_ENTRIES;
  let reached = [''];
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    const next: string[] = [];
    for (const base of reached) {
      const names = /[*?[]/.test(part) ? entries(path.join(root, base), part.includes('**')) : [part];
      for (const name of names) {
        if (--budget < 0) return `has a glob (${word}) that matches more files than Beans checks`;
        const child = base === '' ? name : path.join(base, name);
        let real: string;
        try {
          real = realpathSync(path.join(root, child));
        } catch {
          continue;
        }
        if (!isInside(realRoot, real)) return `has a glob (${word}) that matches ${child}, which leads outside the workspace`;
        if (!last && isDirectory(real)) next.push(child);
      }
    }
    reached = next;
  }
  return undefined;
}

/**
 * The first link inside `dir` (down to `depth` levels) that leads outside the workspace, for a
 * program that follows links while it walks a folder; also when the folder is too big to check.
 */
export function linkOutInside(realRoot: string, dir: string, depth: number): string | undefined {
  let budget = MAX_ENTRIES;
  const walk = (folder: string, level: number): string | undefined => {
    let list;
    try {
      list = readdirSync(folder, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const entry of list) {
      if (--budget < 0) return `${dir} holds more files than Beans checks`;
      const child = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(child);
        } catch {
          continue;
        }
        if (!isInside(realRoot, real)) return `${path.relative(realRoot, child) || child} leads outside the workspace`;
      } else if (entry.isDirectory() && level < depth) {
        const found = walk(child, level + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(dir, 1);
}

/** Names in a folder; with `deep` (a `**` part) every descendant too, as paths relative to it (at most MAX_ENTRIES + 1). */
function entries(folder: string, deep: boolean, out: string[] = [], prefix = ''): string[] {
  let list;
  try {
    list = readdirSync(folder, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of list) {
    if (out.length > MAX_ENTRIES) break;
    const name = prefix === '' ? entry.name : path.join(prefix, entry.name);
    out.push(name);
    if (deep && entry.isDirectory()) entries(path.join(folder, entry.name), true, out, name);
  }
  return out;
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}
