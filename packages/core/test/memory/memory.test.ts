import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryFiles, saveNote } from '../../src/memory/memory-file.js';
import { memoryTool } from '../../src/memory/memory-tool.js';
import { loadContextFiles } from '../../src/prompt/context-files.js';
import { contentText } from '../../src/tools/tool.js';
import { makeContext, makeOutsideDir, makeWorkspace, run } from '../tools/helpers.js';

describe('the memory tool', () => {
  it('records facts as list lines in .beans/memory.md, once each', async () => {
    const workspace = makeWorkspace();
    const ctx = makeContext(workspace);
    const first = await run(memoryTool, { fact: 'Run the tests with `pnpm test`.' }, ctx);
    expect(contentText(first.content)).toContain('Remembered in .beans/memory.md');
    expect(first.details).toMatchObject({ kind: 'diff', path: '.beans/memory.md', added: expect.any(Number) });
    await run(memoryTool, { fact: 'Source files\nuse   two-space indentation' }, ctx);
    const again = await run(memoryTool, { fact: 'Run the tests with `pnpm test`.' }, ctx);
    expect(contentText(again.content)).toContain('already holds this fact');
    const text = readFileSync(path.join(workspace.root, '.beans/memory.md'), 'utf8');
    expect(text).toMatch(/^# Project memory\n\n.*\n\n- Run the tests with `pnpm test`\.\n- Source files use two-space indentation\n$/);
  });

  it('refuses empty and overlong facts with a hint', async () => {
    const ctx = makeContext(makeWorkspace());
    const empty = await run(memoryTool, { fact: '  # ' }, ctx);
    expect(empty.isError).toBe(true);
    expect(contentText(empty.content)).toContain('The note is empty');
    const long = await run(memoryTool, { fact: 'x'.repeat(600) }, ctx);
    expect(long.isError).toBe(true);
    expect(contentText(long.content)).toContain('one fact per note');
  });

  it('asks like an edit and shows the diff it would make', async () => {
    const workspace = makeWorkspace({ '.beans/memory.md': '# Project memory\n\n- old fact\n' });
    expect(memoryTool.kind).toBe('edit');
    const preview = await memoryTool.preview!({ fact: 'new fact' }, { workspace, state: makeContext(workspace).state });
    expect(preview).toMatchObject({ kind: 'diff', added: 1, removed: 0 });
    expect(preview && 'diff' in preview ? preview.diff : '').toContain('+- new fact');
  });

  it('never writes through a .beans folder linked outside the workspace', async () => {
    const outside = makeOutsideDir();
    const workspace = makeWorkspace();
    symlinkSync(outside, path.join(workspace.root, '.beans'));
    const result = await run(memoryTool, { fact: 'a fact' }, makeContext(workspace)).catch((error: Error) => ({ content: error.message, isError: true }));
    expect(result.isError).toBe(true);
    expect(existsSync(path.join(outside, 'memory.md'))).toBe(false);
  });
});

describe('memory in the context files', () => {
  it('.beans/memory.md joins the context after the root AGENTS.md; its @imports are not followed', async () => {
    const workspace = makeWorkspace({
      'AGENTS.md': 'Project rules.',
      '.beans/memory.md': '# Project memory\n\n- build: make\n- see @secret.txt\n',
      'secret.txt': 'TOP SECRET',
    });
    const files = await loadContextFiles({ workspace });
    expect(files.map((file) => path.relative(workspace.root, file.path))).toEqual(['AGENTS.md', '.beans/memory.md']);
    expect(files.some((file) => file.content.includes('TOP SECRET'))).toBe(false);
  });
});

describe('# notes from the chat', () => {
  it('go to the project AGENTS.md or the user memory file, appended as list lines', async () => {
    const workspace = makeWorkspace({ 'AGENTS.md': '# Rules\nBe brief.' });
    const configDir = path.join(makeOutsideDir(), 'beans-agent');
    const where = { workspaceRoot: workspace.root, configDir };
    expect(await saveNote('project', '# Use pnpm, never npm', where)).toBe(`Noted in ${path.join(workspace.root, 'AGENTS.md')}.`);
    expect(readFileSync(path.join(workspace.root, 'AGENTS.md'), 'utf8')).toBe('# Rules\nBe brief.\n- Use pnpm, never npm\n');
    await saveNote('user', 'I prefer short answers', where);
    expect(readFileSync(path.join(configDir, 'AGENTS.md'), 'utf8')).toBe('- I prefer short answers\n');
    expect(await saveNote('user', 'I prefer short answers', where)).toContain('already has this note');
  });

  it('/memory lists the project, agent and user memory files and whether each exists', async () => {
    const workspace = makeWorkspace({ 'AGENTS.md': 'x' });
    const configDir = makeOutsideDir();
    mkdirSync(configDir, { recursive: true });
    writeFileSync(path.join(configDir, 'AGENTS.md'), 'y');
    const files = await memoryFiles({ workspaceRoot: workspace.root, configDir });
    expect(files.map((file) => [file.label, file.exists])).toEqual([
      ['Project memory (AGENTS.md)', true],
      ['Agent memory (.beans/memory.md)', false],
      ['User memory', true],
    ]);
  });
});
