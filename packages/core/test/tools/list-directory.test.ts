import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDirectoryTool } from '../../src/tools/list-directory.js';
import { ignoredTree } from './fixtures.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

describe('list_directory', () => {
  it('lists folders first with entry counts, then files with sizes, and names ignored entries last', async () => {
    const ws = makeWorkspace({ ...ignoredTree, 'README.md': 'hello' }, { git: true });
    symlinkSync('src/a.ts', path.join(ws.root, 'alias.ts'));
    const result = await run(listDirectoryTool, {}, makeContext(ws));
    expect(result.content).toBe(
      [
        'Workspace root: 3 folders, 3 files',
        'docs/  (3 entries)',
        'pkg/  (5 entries)',
        'src/  (3 entries)',
        '.gitignore  (27 B)',
        'README.md  (5 B)',
        'alias.ts -> src/a.ts',
        'Ignored by .gitignore: build/, node_modules/',
      ].join('\n'),
    );
  });

  it('lists a sub-folder and honours its nested .gitignore', async () => {
    const ws = makeWorkspace(ignoredTree);
    const result = await run(listDirectoryTool, { path: 'pkg' }, makeContext(ws));
    expect(result.content).toBe(
      ['pkg/: 0 folders, 3 files', '.gitignore  (21 B)', 'keep.log  (12 B)', 'lib.ts  (25 B)', 'Ignored by .gitignore: generated/, other.log'].join('\n'),
    );
  });

  it('points from a file to read_file and from a missing folder to its parent', async () => {
    const ws = makeWorkspace({ 'a.txt': 'x' });
    expect((await run(listDirectoryTool, { path: 'a.txt' }, makeContext(ws))).content).toBe('a.txt is a file, not a folder. Use read_file to read it.');
    expect((await run(listDirectoryTool, { path: 'nope' }, makeContext(ws))).content).toBe('Folder not found: nope. List its parent to see what exists.');
  });
});
