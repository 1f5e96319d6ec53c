import type { AfterToolCall, BeforeToolCall, ToolCallContext } from '../agent/tool-hooks.js';
import { classifyReadOnly } from '../permissions/read-only.js';
import { analyzeShellCommand } from '../permissions/shell-parse.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import type { CheckpointStore } from './checkpoint-store.js';

export interface CheckpointToolHooks {
  beforeToolCall: BeforeToolCall;
  afterToolCall: AfterToolCall;
}

/** The parameters through which file tools name the file they change (ours and Claude Code's). */
const PATH_KEYS = ['path', 'file_path', 'notebook_path'] as const;

/**
 * The one seam checkpoints hook into: before a call that changes files runs (after the permission
 * check allowed it), and after it ran. A file tool naming its file has that file kept; a command
 * (shell, MCP tools, an edit tool naming no file) has the work tree compared before and after.
 * Subagents run their calls through their parent's hooks, so their changes count for the parent's turn.
 * Never blocks a call: a checkpoint that cannot be taken is reported, and the call runs.
 */
export function checkpointToolHooks(
  store: () => CheckpointStore | undefined,
  workspace: Pick<Workspace, 'root'>,
  onProblem: (message: string) => void = () => {},
): CheckpointToolHooks {
  const guard = async (action: (checkpoints: CheckpointStore) => Promise<void>) => {
    const checkpoints = store();
    if (!checkpoints) return;
    try {
      await action(checkpoints);
    } catch (error) {
      onProblem(`Could not take a checkpoint: ${(error as Error).message}`);
    }
  };
  return {
    beforeToolCall: async (context) => {
      const target = await targetOf(context, workspace);
      if (target === 'none') return;
      await guard((checkpoints) => (target === 'tree' ? checkpoints.beforeCommand() : checkpoints.beforeFiles([target])));
    },
    afterToolCall: async (context) => {
      const target = await targetOf(context, workspace);
      if (target === 'none') return;
      await guard((checkpoints) => (target === 'tree' ? checkpoints.afterCommand() : checkpoints.afterFiles([target])));
    },
  };
}

/** What a call may change: nothing ('none'), one file (its absolute path), or anything in the tree ('tree'). */
async function targetOf(context: ToolCallContext, workspace: Pick<Workspace, 'root'>): Promise<string> {
  const kind = context.tool.kind;
  if (kind === 'read' || kind === 'meta') return 'none';
  const input = (context.input ?? {}) as Record<string, unknown>;
  if (kind === 'execute') return (await onlyReads(input.command, workspace)) ? 'none' : 'tree';
  const named = PATH_KEYS.map((key) => input[key]).find((value): value is string => typeof value === 'string' && value !== '');
  if (!named) return 'tree';
  try {
    return resolveInWorkspace(workspace, named).absolute;
  } catch {
    return 'none'; // outside the workspace: the tool refuses it
  }
}

/**
 * A command line the read-only classifier (the one `permissions.readOnlyCommands` uses) passes, such as
 * `ls`, `cat a.txt` or `git status`, changes no file: no snapshot before or after it.
 */
async function onlyReads(command: unknown, workspace: Pick<Workspace, 'root'>): Promise<boolean> {
  if (typeof command !== 'string' || !command.trim()) return false;
  try {
    return classifyReadOnly(await analyzeShellCommand(command), command, { workspaceRoot: workspace.root }).readOnly;
  } catch {
    return false;
  }
}
