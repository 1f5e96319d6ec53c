import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/tools/edit-file.js';
import type { EditorFiles } from '../../src/tools/editor-files.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

/** An editor with unsaved buffers: reads come from them, writes go to them, the disk is untouched. */
function fakeEditor(buffers: Map<string, string>): EditorFiles & { writes: string[] } {
  const writes: string[] = [];
  return {
    writes,
    readText: async (absolute) => buffers.get(absolute) ?? readFileSync(absolute, 'utf8'),
    writeText: async (absolute, text) => {
      writes.push(absolute);
      buffers.set(absolute, text);
    },
  };
}

describe('file tools through an editor (ACP fs)', () => {
  it('read_file shows the unsaved buffer, numbered and windowed as from disk', async () => {
    const ws = makeWorkspace({ 'a.txt': 'saved\n' });
    const file = path.join(ws.root, 'a.txt');
    const editor = fakeEditor(new Map([[file, 'one\ntwo\nthree\n']]));
    const result = await run(readFileTool, { path: 'a.txt', offset: 2, limit: 1 }, makeContext(ws, { editorFiles: editor }));
    expect(result.content).toBe('2\ttwo\n\n[Lines 2-2 of 3 shown. Read on with offset: 3.]');
  });

  it('edit_file edits the buffer and writes through the editor, leaving the disk to it', async () => {
    const ws = makeWorkspace({ 'a.js': 'let x = 1;\n' });
    const file = path.join(ws.root, 'a.js');
    const buffers = new Map([[file, 'let x = 1; // unsaved note\n']]);
    const editor = fakeEditor(buffers);
    const result = await run(editFileTool, { path: 'a.js', old_string: 'x = 1', new_string: 'x = 2' }, makeContext(ws, { editorFiles: editor }));
    expect(result.isError).toBeFalsy();
    expect(buffers.get(file)).toBe('let x = 2; // unsaved note\n');
    expect(editor.writes).toEqual([file]);
    expect(readFileSync(file, 'utf8')).toBe('let x = 1;\n');
  });

  it('write_file replaces through the editor; confinement still holds', async () => {
    const ws = makeWorkspace({ 'a.txt': 'old\n' });
    const file = path.join(ws.root, 'a.txt');
    const buffers = new Map<string, string>();
    const editor = fakeEditor(buffers);
    const ctx = makeContext(ws, { editorFiles: editor });
    await run(readFileTool, { path: 'a.txt' }, ctx);
    const written = await run(writeFileTool, { path: 'a.txt', content: 'new\n' }, ctx);
    expect(written.isError).toBeFalsy();
    expect(buffers.get(file)).toBe('new\n');
    const outside = await run(writeFileTool, { path: '../outside.txt', content: 'x' }, makeContext(ws, { editorFiles: editor }));
    expect(outside.isError).toBe(true);
    expect(editor.writes).toEqual([file]);
  });
});
