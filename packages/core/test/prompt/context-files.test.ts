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
});
