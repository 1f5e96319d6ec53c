import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** The rules of one .gitignore, and the folder (relative to the root, with a trailing `/`) it sits in. */
interface ScopedRules {
  prefix: string;
  rules: Ignore;
}

/**
 * Answers "would git ignore this path?" for paths relative to the workspace root, using every
 * .gitignore from the root down (deeper files win, as in git) plus .git/info/exclude. A path inside
 * an ignored folder is ignored whatever deeper files say, as git never looks inside such folders.
 */
export class GitignoreFilter {
  private readonly chains = new Map<string, ScopedRules[]>();
  private readonly dirVerdicts = new Map<string, boolean>();

  constructor(private readonly root: string) {}

  /** `relPath` uses `/` and is relative to the root (no leading `./`). */
  ignores(relPath: string, isDir = false): boolean {
    if (relPath === '' || relPath === '.') return false;
    const parts = relPath.split('/');
    let dir = '';
    for (let i = 0; i < parts.length - 1; i++) {
      dir = dir ? `${dir}/${parts[i]}` : parts[i];
      if (this.dirIgnored(dir)) return true;
    }
    return this.ignoresEntry(dir, parts[parts.length - 1], isDir);
  }

  /**
   * The fast path for walkers: entry `name` directly inside `dirRel`, a folder the walker already
   * knows is not ignored, so only the entry itself is judged.
   */
  ignoresEntry(dirRel: string, name: string, isDir: boolean): boolean {
    if (name === '.git') return true;
    const chain = this.chain(dirRel);
    if (chain.length === 0) return false;
    const rel = (dirRel ? `${dirRel}/${name}` : name) + (isDir ? '/' : '');
    let ignored = false;
    for (const { prefix, rules } of chain) {
      const result = rules.test(rel.slice(prefix.length));
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  private dirIgnored(dirRel: string): boolean {
    let verdict = this.dirVerdicts.get(dirRel);
    if (verdict === undefined) {
      const at = dirRel.lastIndexOf('/');
      verdict = this.ignoresEntry(at === -1 ? '' : dirRel.slice(0, at), dirRel.slice(at + 1), true);
      this.dirVerdicts.set(dirRel, verdict);
    }
    return verdict;
  }

  /** The rule files that apply inside `dirRel`: its own and its ancestors', root first. */
  private chain(dirRel: string): ScopedRules[] {
    let chain = this.chains.get(dirRel);
    if (chain === undefined) {
      const at = dirRel.lastIndexOf('/');
      const parent = dirRel === '' ? [] : this.chain(at === -1 ? '' : dirRel.slice(0, at));
      const own = this.load(dirRel);
      chain = own ? [...parent, { prefix: dirRel ? `${dirRel}/` : '', rules: own }] : parent;
      this.chains.set(dirRel, chain);
    }
    return chain;
  }

  private load(dirRel: string): Ignore | undefined {
    const texts = [readText(path.join(this.root, dirRel, '.gitignore'))];
    if (dirRel === '') texts.unshift(readText(path.join(this.root, '.git', 'info', 'exclude')));
    const lines = texts
      .join('\n')
      .split(/\r?\n/)
      .map((line) => line.trimEnd())
      .filter((line) => line !== '' && !line.startsWith('#'));
    return lines.length === 0 ? undefined : ignore().add(lines);
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
