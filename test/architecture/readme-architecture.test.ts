import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 52, item 6: the root README's architecture tree names every folder of packages/core/src and
// packages/cli/src, and none that is gone (it missed five: checkpoints, lsp, memory, telemetry, workflows).
const root = path.resolve(import.meta.dirname, '../..');
const folders = (dir: string) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

function tree(): { core: string[]; cli: string[] } {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Architecture\n\n```\n');
  const block = readme.slice(start, readme.indexOf('```\n', start + 20));
  const core = block.slice(block.indexOf('\npackages/core'), block.indexOf('\npackages/cli'));
  const cli = block.slice(block.indexOf('\npackages/cli'), block.indexOf('\nplugins/'));
  const named = (text: string) => [...text.matchAll(/\bsrc\/([\w-]+)\//g)].map((match) => match[1]!).sort();
  return { core: named(core), cli: named(cli) };
}

describe("the root README's architecture section", () => {
  it('names each folder of packages/core/src once', () => {
    expect(tree().core).toEqual(folders('packages/core/src'));
  });

  it('names each folder of packages/cli/src once', () => {
    expect(tree().cli).toEqual(folders('packages/cli/src'));
  });
});
