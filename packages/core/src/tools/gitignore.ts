import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

interface RulesFile {
  rules: Ignore;
}

/**
 * Answers "would git ignore this path?" for paths relative to the workspace root, using every
 * .gitignore from the root down (deeper files win, as in git) plus .git/info/exclude. A path inside
 * an ignored folder is ignored whatever deeper files say, as git never looks inside such folders.
 */
export class GitignoreFilter {
  private readonly files = new Map<string, RulesFile | null>();
  private readonly dirVerdicts = new Map<string, boolean>();

  constructor(private readonly root: string) {}

  /** `relPath` uses `/` and is relative to the root (no leading `./`). */
  ignores(relPath: string, isDir = false): boolean {
    if (relPath === '' || relPath === '.') return false;
    const parts = relPath.split('/');
    if (parts.includes('.git')) return true;
    for (let i = 1; i < parts.length; i++) if (this.dirIgnored(parts.slice(0, i).join('/'))) return true;
    return isDir ? this.dirIgnored(relPath) : this.decide(parts, false);
  }

  private dirIgnored(dirRel: string): boolean {
    let verdict = this.dirVerdicts.get(dirRel);
    if (verdict === undefined) {
      verdict = this.decide(dirRel.split('/'), true);
      this.dirVerdicts.set(dirRel, verdict);
    }
    return verdict;
  }

  private decide(parts: string[], isDir: boolean): boolean {
    let ignored = false;
    for (let depth = 0; depth < parts.length; depth++) {
      const file = this.rulesFile(parts.slice(0, depth).join('/'));
      if (!file) continue;
      const sub = parts.slice(depth).join('/') + (isDir ? '/' : '');
      const result = file.rules.test(sub);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  private rulesFile(dirRel: string): RulesFile | null {
    let file = this.files.get(dirRel);
    if (file === undefined) {
      const texts = [readText(path.join(this.root, dirRel, '.gitignore'))];
      if (dirRel === '') texts.unshift(readText(path.join(this.root, '.git', 'info', 'exclude')));
      const lines = texts
        .join('\n')
        .split(/\r?\n/)
        .map((line) => line.trimEnd())
        .filter((line) => line !== '' && !line.startsWith('#'));
      file = lines.length === 0 ? null : { rules: ignore().add(lines) };
      this.files.set(dirRel, file);
    }
    return file;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
