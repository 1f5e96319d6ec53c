import type { Stats } from 'node:fs';
import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { lazily } from '../lazily.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { readEditableText } from './editor-files.js';
import { fileEditSteps, type EditContext, type PreparedFileEdit } from './file-edit-steps.js';
import { assertUnchangedSinceRead, readFileConfined, statOrUndefined } from './file-io.js';
import { defineTool } from './tool.js';
import { builtin } from '../node-builtins.js';

const MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024;

const schema = lazily(() =>
  z.object({
    path: z.string(),
    cell_id: z.string().optional().describe('Cell id or cell-N (0-based); insert goes after it, else first'),
    new_source: z.string(),
    cell_type: z.enum(['code', 'markdown']).optional().describe('Required for insert'),
    edit_mode: z.enum(['replace', 'insert', 'delete']).optional(),
  }),
);
type NotebookEditInput = z.infer<ReturnType<typeof schema>>;

interface Cell {
  cell_type?: string;
  id?: string;
  metadata?: Record<string, unknown>;
  source?: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
  [key: string]: unknown;
}

interface Notebook {
  cells: Cell[];
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

interface PreparedEdit extends PreparedFileEdit {
  /** A notebook is never created here: it exists, and the write keeps its mode. */
  stats: Stats;
  summary: string;
}

/** Claude Code's NotebookEdit: one cell replaced, inserted or deleted, the file kept valid nbformat JSON. */
export const notebookEditTool = defineTool({
  name: 'notebook_edit',
  kind: 'edit',
  description: 'Replace, insert or delete one cell of a Jupyter notebook (.ipynb); replacing a code cell clears its outputs. Read it with read_file first.',
  schema,
  summarize: (input) => `${input.path} (${input.edit_mode ?? 'replace'}${input.cell_id ? ` ${input.cell_id}` : ''})`,
  ruleSubject: (input) => input.path,
  ...fileEditSteps(prepareEdit, (edit) => `${edit.summary} in ${edit.target.relative}.`),
});

async function prepareEdit(input: NotebookEditInput, ctx: EditContext): Promise<PreparedEdit> {
  const target = resolveInWorkspace(ctx.workspace, input.path);
  if (!target.relative.toLowerCase().endsWith('.ipynb'))
    throw new ToolInputError(`${target.relative} is not a notebook (.ipynb); use edit_file for other files.`);
  const stats = await statOrUndefined(target.absolute);
  if (!stats?.isFile())
    throw new ToolInputError(`${target.relative} does not exist; notebook_edit changes cells of an existing notebook (write_file creates files).`);
  if (stats.size > MAX_NOTEBOOK_BYTES) throw new ToolInputError(`${target.relative} is too large a notebook to edit here.`);
  // An editor's buffer is read fresh (as edit_file does): the disk's mtime check is for other writers.
  if (!ctx.editorFiles?.readText) assertUnchangedSinceRead(ctx.state, target, stats);
  const before = ctx.editorFiles?.readText
    ? await readEditableText(ctx.editorFiles, target, stats, ctx.workspace.root, ctx.signal)
    : (await readFileConfined(ctx.workspace.root, target.absolute)).toString('utf8');
  let notebook: Notebook;
  try {
    notebook = JSON.parse(before) as Notebook;
    if (!Array.isArray(notebook.cells)) throw new Error('it has no "cells" list');
  } catch (error) {
    throw new ToolInputError(`${target.relative} is not a valid Jupyter notebook (${(error as Error).message}); nothing was changed.`);
  }
  const summary = applyEdit(notebook, input, target.relative);
  return { target, stats, before, after: serialize(notebook, before), summary };
}

function applyEdit(notebook: Notebook, input: NotebookEditInput, name: string): string {
  const mode = input.edit_mode ?? 'replace';
  const cells = notebook.cells;
  if (mode === 'insert') {
    if (!input.cell_type) throw new ToolInputError('insert needs cell_type: "code" or "markdown".');
    const at = input.cell_id === undefined ? 0 : cellIndex(cells, input.cell_id, name) + 1;
    const cell: Cell = {
      cell_type: input.cell_type,
      ...(hasCellIds(notebook) ? { id: builtin('node:crypto').randomBytes(4).toString('hex') } : {}),
      metadata: {},
      source: sourceLines(input.new_source),
    };
    if (input.cell_type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
    cells.splice(at, 0, cell);
    return `Inserted a ${input.cell_type} cell${cell.id ? ` (id ${cell.id})` : ''} at position ${at}`;
  }
  if (input.cell_id === undefined) throw new ToolInputError(`${mode} needs cell_id: the cell's id, or cell-N for the cell at 0-based position N.`);
  const index = cellIndex(cells, input.cell_id, name);
  if (mode === 'delete') {
    cells.splice(index, 1);
    return `Deleted cell ${input.cell_id}`;
  }
  const cell = cells[index];
  cell.source = sourceLines(input.new_source);
  if (input.cell_type) cell.cell_type = input.cell_type;
  if (cell.cell_type === 'code') {
    // What the old source printed no longer belongs to it (Jupyter's own behaviour on edit and clear).
    cell.outputs = [];
    cell.execution_count = null;
  } else {
    delete cell.outputs;
    delete cell.execution_count;
  }
  return `Replaced the source of cell ${input.cell_id}`;
}

function cellIndex(cells: Cell[], id: string, name: string): number {
  const byId = cells.findIndex((cell) => cell.id === id);
  if (byId !== -1) return byId;
  const position = /^cell-(\d+)$/.exec(id);
  if (position && Number(position[1]) < cells.length) return Number(position[1]);
  throw new ToolInputError(
    `${name} has no cell ${id} (${cells.length} cells; ids: ${cells.map((cell, index) => cell.id ?? `cell-${index}`).join(', ') || 'none'}).`,
  );
}

/** nbformat 4.5 and later give every cell an id. */
const hasCellIds = (notebook: Notebook) =>
  (notebook.nbformat ?? 4) > 4 || (notebook.nbformat_minor ?? 0) >= 5 || notebook.cells.some((cell) => typeof cell.id === 'string');

/** Source as Jupyter writes it: lines, each but the last ending with its newline. */
function sourceLines(source: string): string[] {
  return source === '' ? [] : source.split(/(?<=\n)/);
}

/** The notebook written back with the indentation it had (Jupyter: one space) and its final newline. */
function serialize(notebook: Notebook, before: string): string {
  const indent = /^\{\r?\n( +|\t)"/.exec(before)?.[1] ?? ' ';
  return `${JSON.stringify(notebook, null, indent)}${before.endsWith('\n') ? '\n' : ''}`;
}
