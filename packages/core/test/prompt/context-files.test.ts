import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadContextFiles } from '../../src/prompt/index.js';

let base: string;
let config: string;
let root: string;

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'beans-context-'));
  config = path.join(base, 'config', 'beans-agent');
  root = path.join(base, 'repo');
  await mkdir(path.join(root, 'packages', 'api', 'src'), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('loadContextFiles', () => {
  it('reads the config folder first, then the git root down to the current folder, AGENTS.md before BEANS.md', async () => {
    await write(path.join(config, 'BEANS.md'), 'user beans');
    await write(path.join(config, 'AGENTS.md'), 'user agents');
    await write(path.join(root, 'BEANS.md'), 'root beans');
    await write(path.join(root, 'AGENTS.md'), 'root agents');
    await write(path.join(root, 'packages', 'api', 'AGENTS.md'), 'api agents');
    await write(path.join(root, 'packages', 'api', 'src', 'BEANS.md'), 'src beans');
    // Beside the path from root to cwd: never read.
    await write(path.join(root, 'docs', 'AGENTS.md'), 'docs agents');

    const files = await loadContextFiles({ configDir: config, workspace: { root, cwd: path.join(root, 'packages', 'api', 'src') } });
    expect(files.map((file) => file.content)).toEqual(['user agents', 'user beans', 'root agents', 'root beans', 'api agents', 'src beans']);
    expect(files[2].path).toBe(path.join(root, 'AGENTS.md'));
  });

  it('reads only the root when the current folder is the root, and skips empty files', async () => {
    await write(path.join(root, 'AGENTS.md'), '   \n');
    await write(path.join(root, 'BEANS.md'), 'Use pnpm.');
    const files = await loadContextFiles({ workspace: { root, cwd: root } });
    expect(files).toEqual([{ path: path.join(root, 'BEANS.md'), content: 'Use pnpm.' }]);
  });

  it('reads a file once even when it is reached twice through a link', async () => {
    await write(path.join(root, 'AGENTS.md'), 'shared');
    await symlink(path.join(root, 'AGENTS.md'), path.join(root, 'BEANS.md'));
    const files = await loadContextFiles({ workspace: { root, cwd: root } });
    expect(files.map((file) => file.content)).toEqual(['shared']);
  });

  it('returns nothing when there are no context files', async () => {
    expect(await loadContextFiles({ configDir: config, workspace: { root, cwd: root } })).toEqual([]);
  });

  it('reads CLAUDE.md beside AGENTS.md and BEANS.md: ~/.claude, the root, .claude/ and nested folders', async () => {
    const claudeHome = path.join(base, 'home', '.claude');
    await write(path.join(claudeHome, 'CLAUDE.md'), 'home claude');
    await write(path.join(config, 'AGENTS.md'), 'user agents');
    await write(path.join(root, 'AGENTS.md'), 'root agents');
    await write(path.join(root, 'CLAUDE.md'), 'root claude');
    await write(path.join(root, '.claude', 'CLAUDE.md'), 'root dot claude');
    await write(path.join(root, 'packages', 'api', 'CLAUDE.md'), 'api claude');
    const files = await loadContextFiles({ configDir: config, claudeHome, workspace: { root, cwd: path.join(root, 'packages', 'api') } });
    expect(files.map((file) => file.content)).toEqual(['user agents', 'home claude', 'root agents', 'root claude', 'root dot claude', 'api claude']);
  });

  it('adds @path imports after the file that names them, nested up to five deep, never outside the workspace', async () => {
    const outside = path.join(base, 'outside.md');
    await write(outside, 'SECRET');
    await write(path.join(root, 'CLAUDE.md'), 'See @docs/style.md and @../outside.md.\n```\n@docs/ignored.md\n```');
    await write(path.join(root, 'docs', 'style.md'), 'style @one.md');
    await write(path.join(root, 'docs', 'ignored.md'), 'IGNORED');
    for (let level = 1; level <= 6; level += 1) {
      const next = level < 6 ? ` @${['one', 'two', 'three', 'four', 'five', 'six'][level]}.md` : '';
      await write(path.join(root, 'docs', `${['one', 'two', 'three', 'four', 'five', 'six'][level - 1]}.md`), `level ${level}${next}`);
    }
    const warnings: string[] = [];
    const files = await loadContextFiles({ workspace: { root, cwd: root }, onWarning: (text) => warnings.push(text) });
    const contents = files.map((file) => file.content);
    expect(contents[0]).toContain('See @docs/style.md');
    expect(contents.slice(1)).toEqual(['style @one.md', 'level 1 @two.md', 'level 2 @three.md', 'level 3 @four.md', 'level 4 @five.md']);
    expect(files[1].path).toBe(path.join(root, 'docs', 'style.md'));
    expect(contents.join('\n')).not.toContain('SECRET');
    expect(contents.join('\n')).not.toContain('IGNORED');
    expect(warnings.some((text) => text.includes('outside.md') && text.includes('outside the workspace'))).toBe(true);
    expect(warnings.some((text) => text.includes('more than 5'))).toBe(true);
  });

  it("imports the user's own files (config folder, ~/.claude) only in a trusted workspace; anything else outside never", async () => {
    const claudeHome = path.join(base, 'home', '.claude');
    await write(path.join(claudeHome, 'my-instructions.md'), 'PERSONAL claude');
    await write(path.join(config, 'style.md'), 'PERSONAL beans');
    await write(path.join(base, 'elsewhere.md'), 'SECRET');
    await write(path.join(root, 'CLAUDE.md'), `Mine: @${path.join(claudeHome, 'my-instructions.md')} @${path.join(config, 'style.md')} @../elsewhere.md`);
    const load = async (trusted: boolean) => {
      const warnings: string[] = [];
      const files = await loadContextFiles({
        configDir: config,
        claudeHome,
        workspace: { root, cwd: root },
        trusted,
        onWarning: (text) => warnings.push(text),
      });
      return { text: files.map((file) => file.content).join('\n'), warnings };
    };
    const trusted = await load(true);
    expect(trusted.text).toContain('PERSONAL claude');
    expect(trusted.text).toContain('PERSONAL beans');
    expect(trusted.text).not.toContain('SECRET');
    expect(trusted.warnings).toEqual([expect.stringContaining('outside the workspace')]);

    const untrusted = await load(false);
    expect(untrusted.text).not.toContain('PERSONAL');
    expect(untrusted.text).not.toContain('SECRET');
    expect(untrusted.warnings.filter((text) => text.includes('beans trust'))).toHaveLength(2);
  });
});
