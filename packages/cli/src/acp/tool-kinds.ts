import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';

/**
 * How a Beans tool call looks in an editor: a title a person can read, the ACP tool kind (the
 * editor's icon), the files it touches (so the editor can follow the agent) and, for edits, the
 * diff the editor renders natively. Pure presentation: nothing here decides or runs anything.
 */
export interface ToolPresentation {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  /** For edits: what the change replaces, as `diff` content. */
  diff?: ToolCallContent[];
}

type Args = Record<string, unknown>;

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  list_directory: 'read',
  load_skill: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  notebook_edit: 'edit',
  memory: 'edit',
  shell: 'execute',
  shell_output: 'execute',
  kill_shell: 'execute',
  glob: 'search',
  grep: 'search',
  web_fetch: 'fetch',
  todo_write: 'think',
  task: 'think',
  handoff: 'switch_mode',
};

/** Edits larger than this are shown without their old text (the editor diffs what it is given). */
const MAX_DIFF_FILE_BYTES = 1024 * 1024;

function toolKind(name: string): ToolKind {
  return KINDS[name] ?? 'other';
}

/**
 * Presents a call of `name` with `args`; `root` is the workspace root relative paths resolve against.
 * `readDisk` false (a replayed call): the file today says nothing about the call then.
 */
export function presentToolCall(name: string, args: Args, root: string, readDisk = true): ToolPresentation {
  const kind = toolKind(name);
  const text = (key: string) => (typeof args[key] === 'string' ? args[key] : undefined);
  const file = text('path') ?? text('file_path') ?? text('notebook_path');
  const absolute = file !== undefined ? path.resolve(root, file) : undefined;
  const shown = file ?? '';
  switch (name) {
    case 'read_file': {
      const offset = typeof args.offset === 'number' ? args.offset : undefined;
      const limit = typeof args.limit === 'number' ? args.limit : undefined;
      const range = offset || limit ? ` (lines ${offset ?? 1}${limit ? `-${(offset ?? 1) + limit - 1}` : '+'})` : '';
      return { title: `Read ${shown}${range}`, kind, locations: located(absolute, offset ?? 1) };
    }
    case 'edit_file': {
      const oldText = text('old_string') ?? '';
      const newText = text('new_string') ?? '';
      const line = absolute && readDisk ? lineOf(absolute, oldText) : undefined;
      const diff: ToolCallContent[] | undefined = absolute ? [{ type: 'diff', path: absolute, oldText: oldText === '' ? null : oldText, newText }] : undefined;
      return { title: `Edit ${shown}`, kind, locations: located(absolute, line), ...(diff ? { diff } : {}) };
    }
    case 'write_file': {
      const content = text('content') ?? '';
      const before = absolute && readDisk ? currentText(absolute) : undefined;
      const newText = args.append === true && before !== undefined ? before + content : content;
      const diff: ToolCallContent[] | undefined = absolute ? [{ type: 'diff', path: absolute, oldText: before ?? null, newText }] : undefined;
      return { title: `${args.append === true ? 'Append to' : 'Write'} ${shown}`, kind, locations: located(absolute, 1), ...(diff ? { diff } : {}) };
    }
    case 'notebook_edit':
      return { title: `Edit notebook ${shown}`, kind, locations: located(absolute) };
    case 'list_directory':
      return { title: `List ${text('path') ?? '.'}`, kind, locations: located(path.resolve(root, text('path') ?? '.')) };
    case 'shell':
      return { title: text('command') ?? 'Run a command', kind, locations: [] };
    case 'shell_output':
      return { title: `Output of task ${text('task_id') ?? ''}`.trim(), kind, locations: [] };
    case 'kill_shell':
      return { title: `Stop task ${text('task_id') ?? ''}`.trim(), kind, locations: [] };
    case 'glob':
      return { title: `Find ${text('pattern') ?? ''}${text('path') ? ` in ${text('path')}` : ''}`, kind, locations: [] };
    case 'grep':
      return {
        title: `Search for "${text('pattern') ?? ''}"${text('path') ? ` in ${text('path')}` : ''}${text('include') ? ` (${text('include')})` : ''}`,
        kind,
        locations: [],
      };
    case 'web_fetch':
      return { title: `Fetch ${text('url') ?? ''}`, kind, locations: [] };
    case 'todo_write':
      return { title: 'Update the plan', kind, locations: [] };
    case 'task':
      return { title: `${text('subagent_type') ?? 'Subagent'}: ${text('description') ?? ''}`, kind, locations: [] };
    case 'load_skill':
      return { title: `Load skill ${text('name') ?? ''}`, kind, locations: [] };
    case 'handoff':
      return { title: `Hand off to ${text('agent') ?? 'another agent'}`, kind, locations: [] };
    case 'memory':
      return { title: 'Remember a fact about the project', kind, locations: [] };
    default: {
      // mcp__server__tool: say which server.
      const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
      return { title: mcp ? `${mcp[1]}: ${mcp[2]}` : name, kind, locations: located(absolute) };
    }
  }
}

function located(absolute: string | undefined, line?: number): ToolCallLocation[] {
  if (!absolute) return [];
  return [{ path: absolute, ...(line !== undefined ? { line } : {}) }];
}

/** The file's text when it is a text file of a size worth showing; undefined when missing or not. */
function currentText(absolute: string): string | undefined {
  try {
    if (statSync(absolute).size > MAX_DIFF_FILE_BYTES) return undefined;
    const text = readFileSync(absolute, 'utf8');
    return text.includes('\u0000') ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The 1-based line where `needle` starts in the file, so the editor can jump to the edit. */
function lineOf(absolute: string, needle: string): number | undefined {
  if (!needle) return 1;
  const text = currentText(absolute);
  const at = text?.indexOf(needle) ?? -1;
  if (at < 0 || text === undefined) return undefined;
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < at; index = text.indexOf('\n', index + 1)) line++;
  return line;
}
