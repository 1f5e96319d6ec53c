import { utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globTool, GLOB_MAX_RESULTS, newest } from '../../src/tools/glob.js';
import { ignoredTree, visibleFiles } from './fixtures.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

const listed = (content: string) => content.split('\n\n')[0]!.split('\n');

describe.each([false, true])('glob (git repository: %s)', (git) => {
  it('honours .gitignore files at every level, negations included', async () => {
    const ws = makeWorkspace(ignoredTree, { git });
    const result = await run(globTool, { pattern: '**/*' }, makeContext(ws));
    expect(listed(result.content).sort()).toEqual(visibleFiles);
    expect(result.content).toContain('Files ignored by .gitignore are not listed.');
  });

  it('searches below the given path and returns workspace-relative paths', async () => {
    const ws = makeWorkspace(ignoredTree, { git });
    const result = await run(globTool, { pattern: '**/*.ts', path: 'pkg' }, makeContext(ws));
    expect(listed(result.content)).toEqual(['pkg/lib.ts']);
  });
});

describe('glob', () => {
  it('lists the newest files first', async () => {
    const ws = makeWorkspace({ 'old.ts': '', 'mid.ts': '', 'new.ts': '' });
    const now = Date.now() / 1000;
    utimesSync(path.join(ws.root, 'old.ts'), now - 300, now - 300);
    utimesSync(path.join(ws.root, 'mid.ts'), now - 200, now - 200);
    utimesSync(path.join(ws.root, 'new.ts'), now - 100, now - 100);
    expect((await run(globTool, { pattern: '*.ts' }, makeContext(ws))).content).toBe('new.ts\nmid.ts\nold.ts');
  });

  it(`shows at most ${GLOB_MAX_RESULTS} files and says how many more matched`, async () => {
    const ws = makeWorkspace(Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`f/${i}.txt`, ''])));
    const result = await run(globTool, { pattern: 'f/*.txt' }, makeContext(ws));
    expect(listed(result.content)).toHaveLength(GLOB_MAX_RESULTS);
    expect(result.content).toContain('[200 of 250 files shown, newest first; 50 more.');
  });

  it('explains an empty result and how to search subfolders', async () => {
    const ws = makeWorkspace({ 'src/a.ts': '' });
    const result = await run(globTool, { pattern: '*.ts' }, makeContext(ws));
    expect(result.content).toBe(
      'No files match "*.ts" in the workspace. The pattern only matches directly in the workspace; use "**/*.ts" to search subfolders.',
    );
  });

  it('accepts brace sets and an absolute pattern inside the workspace', async () => {
    const ws = makeWorkspace({ 'a.ts': '', 'b.js': '', 'c.md': '' });
    expect(listed((await run(globTool, { pattern: '*.{ts,js}' }, makeContext(ws))).content).sort()).toEqual(['a.ts', 'b.js']);
    expect((await run(globTool, { pattern: path.join(ws.root, '*.md') }, makeContext(ws))).content).toBe('c.md');
  });
});

describe('newest', () => {
  it('returns the same files as a full sort by mtime then path, whatever the input order', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const files = Array.from({ length: 5_000 }, (_, i) => ({ path: `f${Math.floor(random() * 3000)}-${i}`, mtimeMs: Math.floor(random() * 400) }));
    const sorted = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
    for (const count of [1, 7, 200, 5_000, 6_000]) expect(newest(files, count)).toEqual(sorted.slice(0, count));
    expect(newest([], 200)).toEqual([]);
  });
});
