import { readdirSync, readFileSync, statSync, chmodSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/tools/read-file.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

describe('write_file', () => {
  it('creates a file and its missing parent folders', async () => {
    const ws = makeWorkspace();
    const result = await run(writeFileTool, { path: 'a/b/c.txt', content: 'hello\nworld\n' }, makeContext(ws));
    expect(result.content).toBe('Created a/b/c.txt (2 lines, 12 B).');
    expect(readFileSync(path.join(ws.root, 'a/b/c.txt'), 'utf8')).toBe('hello\nworld\n');
    expect(result.details).toMatchObject({ kind: 'diff', path: 'a/b/c.txt', added: 2, removed: 0 });
  });

  it('replaces a file atomically, keeping its permissions and leaving no temporary file', async () => {
    const ws = makeWorkspace({ 'run.sh': 'echo old\n' });
    chmodSync(path.join(ws.root, 'run.sh'), 0o755);
    const ctx = makeContext(ws);
    await run(readFileTool, { path: 'run.sh' }, ctx);
    const result = await run(writeFileTool, { path: 'run.sh', content: 'echo new\n' }, ctx);
    expect(result.content).toBe('Replaced run.sh (1 line, 9 B).');
    expect(readFileSync(path.join(ws.root, 'run.sh'), 'utf8')).toBe('echo new\n');
    expect(statSync(path.join(ws.root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(readdirSync(ws.root)).toEqual(['run.sh']);
    expect((result.details as { diff: string }).diff).toContain('-echo old\n+echo new');
  });

  it('appends to the end of a file', async () => {
    const ws = makeWorkspace({ 'log.txt': 'one\n' });
    const result = await run(writeFileTool, { path: 'log.txt', content: 'two\n', append: true }, makeContext(ws));
    expect(result.content).toContain('Appended 1 line to log.txt');
    expect(readFileSync(path.join(ws.root, 'log.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses to overwrite a file that changed on disk since the model read it', async () => {
    const ws = makeWorkspace({ 'a.txt': 'v1\n' });
    const ctx = makeContext(ws);
    await run(readFileTool, { path: 'a.txt' }, ctx);
    writeFileSync(path.join(ws.root, 'a.txt'), 'v2 from the user\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(ws.root, 'a.txt'), later, later);
    const result = await run(writeFileTool, { path: 'a.txt', content: 'v3\n' }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('changed on disk');
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('v2 from the user\n');
  });

  it('refuses to replace an existing file the model has not read in this session ("read it first"), and leaves it as it was', async () => {
    const ws = makeWorkspace({ 'notes.md': "the user's work\n" });
    const ctx = makeContext(ws);
    const blind = await run(writeFileTool, { path: 'notes.md', content: 'clobbered\n' }, ctx);
    expect(blind.isError).toBe(true);
    expect(blind.content).toBe(
      'notes.md already exists and you have not read it in this session: read it first with read_file, then write it (write_file replaces the whole file; edit_file changes a part).',
    );
    expect(readFileSync(path.join(ws.root, 'notes.md'), 'utf8')).toBe("the user's work\n");
    // Appending keeps what is there, so it needs no read; a file the model wrote counts as seen.
    expect((await run(writeFileTool, { path: 'notes.md', content: 'more\n', append: true }, ctx)).isError).toBeFalsy();
    expect((await run(writeFileTool, { path: 'notes.md', content: 'rewritten\n' }, ctx)).content).toBe('Replaced notes.md (1 line, 10 B).');
    await run(writeFileTool, { path: 'new.md', content: 'one\n' }, ctx);
    expect((await run(writeFileTool, { path: 'new.md', content: 'two\n' }, ctx)).content).toBe('Replaced new.md (1 line, 4 B).');
  });

  it('refuses to write over a directory', async () => {
    const ws = makeWorkspace({ 'src/a.ts': '' });
    const result = await run(writeFileTool, { path: 'src', content: 'x' }, makeContext(ws));
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toContain('src is a directory');
  });

  it('previews the change as a diff without writing', async () => {
    const ws = makeWorkspace({ 'a.txt': 'before\n' });
    const ctx = makeContext(ws);
    await run(readFileTool, { path: 'a.txt' }, ctx);
    const details = await writeFileTool.preview!({ path: 'a.txt', content: 'after\n' }, ctx);
    expect(details).toMatchObject({ kind: 'diff', added: 1, removed: 1 });
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('before\n');
  });
});
