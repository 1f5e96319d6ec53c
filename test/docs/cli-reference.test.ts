import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBeans } from '../e2e/harness.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { ROOT } from './markdown.ts';

// Issue 60: docs/cli.md is generated from the commander definitions (scripts/docs.mjs); this holds it
// to what the built program prints for `--help`, command by command, as a user's terminal (a pipe:
// 80 columns) would show it.
const reference = readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');
const sections = [...reference.matchAll(/^## (beans(?: [\w-]+)*)\n\n```text\n([\s\S]*?)\n```$/gm)].map((match) => ({
  words: match[1]!.split(' ').slice(1),
  help: `${match[2]!}\n`,
}));

describe('docs/cli.md', () => {
  it('has a section for beans and its commands', () => {
    expect(sections[0]?.words).toEqual([]);
    expect(sections.map((section) => section.words.join(' '))).toEqual(
      expect.arrayContaining(['chat', 'mcp serve', 'plugins marketplace add', 'workflow run']),
    );
  });

  it('shows exactly what `beans <command> --help` prints, for every command', { timeout: 240_000 }, async () => {
    const repo = makeTempRepo({});
    const differences: string[] = [];
    const queue = [...sections];
    const worker = async () => {
      for (let section = queue.shift(); section; section = queue.shift()) {
        const run = await runBeans([...section.words, '--help'], { cwd: repo.dir, env: repo.env, timeoutMs: 60_000 });
        if (run.code !== 0 || run.stdout !== section.help) {
          differences.push(`beans ${section.words.join(' ')} --help (exit ${run.code}):\n${run.stdout}${run.stderr}`);
        }
      }
    };
    await Promise.all([worker(), worker()]);
    expect(differences, 'regenerate with: pnpm run --silent build && node scripts/docs.mjs').toEqual([]);
  });
});
