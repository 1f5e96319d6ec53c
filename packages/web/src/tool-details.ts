import { diffLines } from 'diff';

// What a tool call does, in a person's terms: the one-line summary the chat shows beside the tool's
// name, and for file edits the lines removed and added.

export interface DiffRow {
  sign: '+' | '-' | ' ';
  text: string;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A file tool's change as diff rows: an edit's old and new text compared, a write's content as added lines. */
export function changeRows(name: string, input: Record<string, unknown>): DiffRow[] | undefined {
  if (name === 'edit_file' && typeof input.old_string === 'string' && typeof input.new_string === 'string') {
    return diffLines(input.old_string, input.new_string).flatMap((part) =>
      lines(part.value).map((line): DiffRow => ({ sign: part.added ? '+' : part.removed ? '-' : ' ', text: line })),
    );
  }
  if (name === 'write_file' && typeof input.content === 'string') return lines(input.content).map((line) => ({ sign: '+', text: line }));
  if (name === 'notebook_edit' && typeof input.new_source === 'string') return lines(input.new_source).map((line) => ({ sign: '+', text: line }));
  return undefined;
}

function lines(value: string): string[] {
  const rows = value.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  return rows;
}

/** The call in one line: the command, the path, the pattern... (the chat's tool line). */
export function toolSummary(name: string, input: Record<string, unknown>): string {
  if (typeof input.command === 'string') return input.command;
  const file = text(input.path) || text(input.file_path) || text(input.notebook_path);
  if (file) return file;
  if (typeof input.pattern === 'string') return `${input.pattern}${typeof input.path === 'string' ? ` in ${input.path}` : ''}`;
  if (typeof input.url === 'string') return input.url;
  if (typeof input.description === 'string') return input.description;
  if (typeof input.task_id === 'string') return input.task_id;
  if (name === 'todo_write' && Array.isArray(input.todos)) return `${input.todos.length} tasks`;
  return '';
}

/** Counts of a change, `+3 -1`. */
export function changeCounts(rows: readonly DiffRow[]): { added: number; removed: number } {
  return { added: rows.filter((row) => row.sign === '+').length, removed: rows.filter((row) => row.sign === '-').length };
}
