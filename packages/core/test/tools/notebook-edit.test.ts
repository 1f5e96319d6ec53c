// Issue 41: notebook_edit replaces, inserts or deletes one cell, as Claude Code's NotebookEdit, and
// keeps the file valid nbformat JSON that read_file reads back.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { notebookEditTool } from '../../src/tools/notebook-edit.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { contentText } from '../../src/tools/tool.js';
import { makeNotebook, makePng } from '../../../../test/support/media.ts';
import { makeContext, makeWorkspace, run } from './helpers.js';

const notebookIn = (root: string) =>
  JSON.parse(readFileSync(path.join(root, 'analysis.ipynb'), 'utf8')) as { cells: Record<string, unknown>[]; nbformat: number };

describe('notebook_edit', () => {
  it('replaces a cell by id: new source as lines, outputs and execution count cleared, the rest untouched', async () => {
    const ws = makeWorkspace({ 'analysis.ipynb': makeNotebook(makePng(8, 8)) });
    const before = notebookIn(ws.root);
    const result = await run(notebookEditTool, { path: 'analysis.ipynb', cell_id: 'boom', new_source: 'x = 1\nprint(x / 2)' }, makeContext(ws));
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe('Replaced the source of cell boom in analysis.ipynb.');
    const after = notebookIn(ws.root);
    expect(after.cells[2]).toEqual({ cell_type: 'code', id: 'boom', metadata: {}, execution_count: null, source: ['x = 1\n', 'print(x / 2)'], outputs: [] });
    expect(after.cells.filter((_, index) => index !== 2)).toEqual(before.cells.filter((_, index) => index !== 2));
    expect(after.nbformat).toBe(4);
    // read_file reads the edited notebook back.
    const read = contentText((await run(readFileTool, { path: 'analysis.ipynb' }, makeContext(ws))).content);
    expect(read).toContain('--- cell 3 (code, id boom) ---\nx = 1\nprint(x / 2)');
    expect(read).not.toContain('ZeroDivisionError');
  });

  it('inserts after a cell (or first), with a fresh id on nbformat 4.5, and deletes by cell-N', async () => {
    const ws = makeWorkspace({ 'analysis.ipynb': makeNotebook(makePng(8, 8)) });
    const ctx = makeContext(ws);
    const inserted = await run(
      notebookEditTool,
      { path: 'analysis.ipynb', cell_id: 'load', new_source: '## Results', cell_type: 'markdown', edit_mode: 'insert' },
      ctx,
    );
    expect(inserted.content).toMatch(/^Inserted a markdown cell \(id [0-9a-f]{8}\) at position 2 in analysis\.ipynb\.$/);
    const first = await run(notebookEditTool, { path: 'analysis.ipynb', new_source: 'import math', cell_type: 'code', edit_mode: 'insert' }, ctx);
    expect(first.isError).toBeFalsy();
    let cells = notebookIn(ws.root).cells;
    expect(cells.map((cell) => cell.cell_type)).toEqual(['code', 'markdown', 'code', 'markdown', 'code', 'code']);
    expect(cells[0]).toMatchObject({ source: ['import math'], outputs: [], execution_count: null });
    expect(cells[3]).toMatchObject({ cell_type: 'markdown', source: ['## Results'], metadata: {} });
    expect(cells[3]).not.toHaveProperty('outputs');
    const deleted = await run(notebookEditTool, { path: 'analysis.ipynb', cell_id: 'cell-0', new_source: '', edit_mode: 'delete' }, ctx);
    expect(deleted.content).toBe('Deleted cell cell-0 in analysis.ipynb.');
    cells = notebookIn(ws.root).cells;
    expect(cells.map((cell) => cell.id)).toEqual(['intro', 'load', expect.stringMatching(/^[0-9a-f]{8}$/), 'boom', 'plot']);
  });

  it('keeps the file as Jupyter writes it: one-space indent and the final newline', async () => {
    const nb = JSON.stringify(JSON.parse(makeNotebook(makePng(8, 8))), null, 1) + '\n';
    const ws = makeWorkspace({ 'analysis.ipynb': nb });
    await run(notebookEditTool, { path: 'analysis.ipynb', cell_id: 'intro', new_source: '# Analysis v2\n' }, makeContext(ws));
    const text = readFileSync(path.join(ws.root, 'analysis.ipynb'), 'utf8');
    expect(text).toBe(nb.replace('"# Analysis\\n"', '"# Analysis v2\\n"'));
  });

  it('says what is wrong and changes nothing: an unknown cell, insert without a type, not a notebook, invalid JSON, changed since read', async () => {
    const ws = makeWorkspace({ 'analysis.ipynb': makeNotebook(makePng(8, 8)), 'broken.ipynb': '{"cells": [', 'notes.md': '# hi\n' });
    const ctx = makeContext(ws);
    const unknown = await run(notebookEditTool, { path: 'analysis.ipynb', cell_id: 'nope', new_source: 'x' }, ctx);
    expect(unknown).toMatchObject({ isError: true, content: 'analysis.ipynb has no cell nope (4 cells; ids: intro, load, boom, plot).' });
    expect((await run(notebookEditTool, { path: 'analysis.ipynb', new_source: 'x', edit_mode: 'insert' }, ctx)).content).toContain('insert needs cell_type');
    expect((await run(notebookEditTool, { path: 'notes.md', cell_id: 'a', new_source: 'x' }, ctx)).content).toContain('is not a notebook (.ipynb)');
    expect((await run(notebookEditTool, { path: 'broken.ipynb', cell_id: 'a', new_source: 'x' }, ctx)).content).toContain('is not a valid Jupyter notebook');
    await run(readFileTool, { path: 'analysis.ipynb' }, ctx);
    const original = readFileSync(path.join(ws.root, 'analysis.ipynb'), 'utf8');
    writeFileSync(path.join(ws.root, 'analysis.ipynb'), original.replace('rows:', 'ROWS:'));
    const { utimesSync } = await import('node:fs');
    utimesSync(path.join(ws.root, 'analysis.ipynb'), new Date(), new Date(Date.now() + 5000));
    const stale = await run(notebookEditTool, { path: 'analysis.ipynb', cell_id: 'boom', new_source: 'x' }, ctx);
    expect(stale).toMatchObject({ isError: true, content: expect.stringContaining('changed on disk since you last read it') });
    expect(readFileSync(path.join(ws.root, 'analysis.ipynb'), 'utf8')).toContain('ROWS:');
  });
});
