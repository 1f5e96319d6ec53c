import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file.js';
import { globTool } from '../../src/tools/glob.js';
import { grepTool } from '../../src/tools/grep.js';
import { listDirectoryTool } from '../../src/tools/list-directory.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { OutsideWorkspaceError, resolveInWorkspace } from '../../src/workspace/paths.js';
import { makeContext, makeOutsideDir, makeWorkspace, run } from './helpers.js';

describe('resolveInWorkspace', () => {
  it('resolves relative, absolute and dot-dot paths that stay inside', () => {
    const ws = makeWorkspace({ 'sub/a.txt': 'x' });
    expect(resolveInWorkspace(ws, 'sub/a.txt')).toEqual({ absolute: path.join(ws.root, 'sub/a.txt'), relative: 'sub/a.txt' });
    expect(resolveInWorkspace(ws, path.join(ws.root, 'sub/a.txt')).relative).toBe('sub/a.txt');
    expect(resolveInWorkspace(ws, 'sub/../sub/./a.txt').relative).toBe('sub/a.txt');
    expect(resolveInWorkspace(ws, 'not/yet/made.txt').relative).toBe('not/yet/made.txt');
    expect(resolveInWorkspace(ws, '.').relative).toBe('.');
  });

  it.each(['../x', '/etc/passwd', 'sub/../../x', '~', '~/.bashrc', '/'])('refuses %s with a message naming the root', (p) => {
    const ws = makeWorkspace({ 'sub/a.txt': 'x' });
    expect(() => resolveInWorkspace(ws, p)).toThrow(OutsideWorkspaceError);
    expect(() => resolveInWorkspace(ws, p)).toThrow(`paths must stay inside ${ws.root}`);
  });

  it('treats a symlink inside that points outside as outside, even when its target does not exist yet', () => {
    const ws = makeWorkspace();
    const outside = makeOutsideDir();
    symlinkSync(outside, path.join(ws.root, 'tmp-link'));
    symlinkSync(path.join(outside, 'later.txt'), path.join(ws.root, 'dangling'));
    expect(() => resolveInWorkspace(ws, 'tmp-link/file.txt')).toThrow(OutsideWorkspaceError);
    expect(() => resolveInWorkspace(ws, 'dangling')).toThrow(OutsideWorkspaceError);
  });

  it('follows a symlink that stays inside to its real place', () => {
    const ws = makeWorkspace({ 'real/a.txt': 'x' });
    symlinkSync(path.join(ws.root, 'real'), path.join(ws.root, 'alias'));
    expect(resolveInWorkspace(ws, 'alias/a.txt').relative).toBe('real/a.txt');
  });

  it('does not mistake a sibling folder with the same prefix for the workspace', () => {
    const ws = makeWorkspace();
    const sibling = `${ws.root}-evil`;
    mkdirSync(sibling, { recursive: true });
    try {
      expect(() => resolveInWorkspace(ws, path.join(sibling, 'x'))).toThrow(OutsideWorkspaceError);
    } finally {
      rmSync(sibling, { recursive: true, force: true });
    }
  });
});

describe('file tools stay inside the workspace', () => {
  const adversarial = ['../x', '/etc/passwd', 'sub/../../x', '~/x', 'link-out/x'];

  function setup() {
    const ws = makeWorkspace({ 'sub/a.txt': 'x' });
    const outside = makeOutsideDir();
    writeFileSync(path.join(outside, 'x'), 'secret\n');
    symlinkSync(outside, path.join(ws.root, 'link-out'));
    return { ws, outside };
  }

  it.each(adversarial)('read_file refuses %s', async (p) => {
    const { ws } = setup();
    const result = await run(readFileTool, { path: p }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`paths must stay inside ${ws.root}`);
    expect(result.content).not.toContain('secret');
  });

  it.each(adversarial)('write_file and edit_file refuse %s and change nothing outside', async (p) => {
    const { ws, outside } = setup();
    const write = await run(writeFileTool, { path: p, content: 'pwned' }, makeContext(ws));
    expect(write.isError).toBe(true);
    expect(write.content).toContain('outside the workspace');
    const edit = await run(editFileTool, { path: p, old_string: 'secret', new_string: 'pwned' }, makeContext(ws));
    expect(edit.isError).toBe(true);
    expect(readFileSync(path.join(outside, 'x'), 'utf8')).toBe('secret\n');
    expect(existsSync(path.join(os.homedir(), 'x')) && readFileSync(path.join(os.homedir(), 'x'), 'utf8') === 'pwned').toBe(false);
  });

  it('write_file through a dangling symlink to outside creates nothing there', async () => {
    const { ws, outside } = setup();
    symlinkSync(path.join(outside, 'new.txt'), path.join(ws.root, 'trap.txt'));
    const result = await run(writeFileTool, { path: 'trap.txt', content: 'pwned' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  it.each([
    ['glob', globTool, { pattern: '*', path: '../' }],
    ['grep', grepTool, { pattern: 'secret', path: 'link-out' }],
    ['list_directory', listDirectoryTool, { path: '/etc' }],
  ] as const)('%s refuses a folder outside', async (_name, tool, input) => {
    const { ws } = setup();
    const result = await run(tool, input, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('outside the workspace');
  });

  it('glob refuses an absolute pattern outside the workspace and does not follow symlinks out', async () => {
    const { ws } = setup();
    expect((await run(globTool, { pattern: '/etc/*' }, makeContext(ws))).content).toContain('outside the workspace');
    const all = await run(globTool, { pattern: '**/*' }, makeContext(ws));
    expect(all.content).toContain('sub/a.txt');
    expect(all.content).not.toContain('link-out/x');
  });
});
