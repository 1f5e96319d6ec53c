import { execFileSync } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

const source = ['function greet(name) {', '  return `hello ${name}`;', '}', '', 'function part() {', '  return 1;', '}', ''].join('\n');

describe('edit_file', () => {
  it('replaces the one exact match and returns a unified diff', async () => {
    const ws = makeWorkspace({ 'src/a.js': source });
    const result = await run(
      editFileTool,
      { path: 'src/a.js', old_string: '  return `hello ${name}`;', new_string: '  return `hi ${name}!`;' },
      makeContext(ws),
    );
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path.join(ws.root, 'src/a.js'), 'utf8')).toBe(source.replace('hello ${name}`', 'hi ${name}!`'));
    expect(result.content).toContain('Edited src/a.js: 1 replacement, +1 -1 lines.');
    expect(result.content).toMatch(/2\t {2}return `hi \$\{name\}!`;/);
    expect(result.details).toMatchObject({ kind: 'diff', path: 'src/a.js', added: 1, removed: 1 });
    const diff = (result.details as { diff: string }).diff;
    expect(diff).toContain('--- a/src/a.js');
    expect(diff).toContain('-  return `hello ${name}`;');
    expect(diff).toContain('+  return `hi ${name}!`;');
  });

  it('refuses zero matches and shows the closest region with line numbers', async () => {
    const ws = makeWorkspace({ 'a.js': source });
    const result = await run(editFileTool, { path: 'a.js', old_string: 'function part() {\n  return 2;\n}', new_string: 'x' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('old_string was not found in a.js');
    expect(result.content).toContain('closest region is lines 5-7');
    expect(result.content).toContain('5\tfunction part() {');
    expect(result.content).toContain('6\t  return 1;');
    expect(readFileSync(path.join(ws.root, 'a.js'), 'utf8')).toBe(source);
  });

  it('refuses a FIFO at once instead of blocking on it', async () => {
    const ws = makeWorkspace({});
    execFileSync('mkfifo', [path.join(ws.root, 'pipe')]);
    const result = await run(editFileTool, { path: 'pipe', old_string: 'a', new_string: 'b' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('not a regular file');
  });

  it('says when the only difference is indentation', async () => {
    const ws = makeWorkspace({ 'a.py': 'def f():\n\treturn 1\n' });
    const result = await run(editFileTool, { path: 'a.py', old_string: 'def f():\n    return 1', new_string: 'def f():\n    return 2' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('only in whitespace or indentation');
  });

  it('says when old_string carries read_file line-number prefixes', async () => {
    const ws = makeWorkspace({ 'a.js': source });
    const result = await run(editFileTool, { path: 'a.js', old_string: '5\tfunction part() {\n6\t  return 1;', new_string: 'x' }, makeContext(ws));
    expect(result.content).toContain('line numbers that read_file adds');
  });

  it('refuses three matches without replace_all, naming the count and lines', async () => {
    const ws = makeWorkspace({ 'a.txt': 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n' });
    const result = await run(editFileTool, { path: 'a.txt', old_string: 'x = 1', new_string: 'x = 9' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('matches 3 places in a.txt (lines 1, 3, 5)');
    expect(result.content).toContain('replace_all: true');
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n');
  });

  it('replaces all three matches with replace_all', async () => {
    const ws = makeWorkspace({ 'a.txt': 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n' });
    const result = await run(editFileTool, { path: 'a.txt', old_string: 'x = 1', new_string: 'x = 9', replace_all: true }, makeContext(ws));
    expect(result.content).toContain('3 replacements');
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n');
  });

  it('matches an LF old_string in a CRLF file and keeps CRLF line endings', async () => {
    const ws = makeWorkspace({ 'win.txt': 'first\r\nsecond\r\nthird\r\n' });
    const result = await run(editFileTool, { path: 'win.txt', old_string: 'first\nsecond', new_string: 'one\ntwo\nextra' }, makeContext(ws));
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path.join(ws.root, 'win.txt'), 'utf8')).toBe('one\r\ntwo\r\nextra\r\nthird\r\n');
    expect((result.details as { diff: string }).diff).not.toContain('\r');
  });

  it('refuses to edit a file changed on disk after the model read it', async () => {
    const ws = makeWorkspace({ 'a.txt': 'alpha\nbeta\n' });
    const ctx = makeContext(ws);
    await run(readFileTool, { path: 'a.txt' }, ctx);
    writeFileSync(path.join(ws.root, 'a.txt'), 'alpha\nbeta\ngamma\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(ws.root, 'a.txt'), later, later);
    const result = await run(editFileTool, { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('changed on disk since you last read it');
    expect(result.content).toContain('Read it again with read_file');
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    await run(readFileTool, { path: 'a.txt' }, ctx);
    expect((await run(editFileTool, { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, ctx)).isError).toBeFalsy();
  });

  it('allows consecutive edits: its own writes do not count as outside changes', async () => {
    const ws = makeWorkspace({ 'a.txt': 'one\ntwo\n' });
    const ctx = makeContext(ws);
    await run(readFileTool, { path: 'a.txt' }, ctx);
    expect((await run(editFileTool, { path: 'a.txt', old_string: 'one', new_string: '1' }, ctx)).isError).toBeFalsy();
    expect((await run(editFileTool, { path: 'a.txt', old_string: 'two', new_string: '2' }, ctx)).isError).toBeFalsy();
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('1\n2\n');
  });

  it('creates a missing file (and its folders) when old_string is empty', async () => {
    const ws = makeWorkspace();
    const result = await run(editFileTool, { path: 'new/dir/file.md', old_string: '', new_string: '# Title\n' }, makeContext(ws));
    expect(result.content).toBe('Created new/dir/file.md (1 line).');
    expect(readFileSync(path.join(ws.root, 'new/dir/file.md'), 'utf8')).toBe('# Title\n');
    expect(result.details).toMatchObject({ kind: 'diff', added: 1, removed: 0 });
  });

  it('refuses an empty old_string on an existing non-empty file', async () => {
    const ws = makeWorkspace({ 'a.txt': 'content\n' });
    const result = await run(editFileTool, { path: 'a.txt', old_string: '', new_string: 'x' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('already exists');
  });

  it('explains a missing file and suggests a near name', async () => {
    const ws = makeWorkspace({ 'src/config.ts': 'x' });
    const result = await run(editFileTool, { path: 'src/config.js', old_string: 'x', new_string: 'y' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('File not found: src/config.js');
    expect(result.content).toContain('src/config.ts');
  });

  it('previews the diff without writing', async () => {
    const ws = makeWorkspace({ 'a.txt': 'old line\n' });
    const details = await editFileTool.preview!({ path: 'a.txt', old_string: 'old', new_string: 'new' }, makeContext(ws));
    expect(details).toMatchObject({ kind: 'diff', path: 'a.txt', added: 1, removed: 1 });
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('old line\n');
  });

  it('refuses identical old and new strings', async () => {
    const ws = makeWorkspace({ 'a.txt': 'same\n' });
    const result = await run(editFileTool, { path: 'a.txt', old_string: 'same', new_string: 'same' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('identical');
  });
});
