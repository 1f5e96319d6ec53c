import type { AfterToolCall, BeforeToolCall } from '../agent/tool-hooks.js';
import { BackgroundTasks } from '../tools/background-tasks.js';

export interface BackgroundShellsInput {
  /** `shell.maxBackgroundTasks`. */
  maxTasks: number;
  /** True: the session's end leaves running tasks alone (`--keep-tasks`). */
  keepAtClose: boolean;
}

/** The session's background commands, and what the session does with them at its edges. */
export interface BackgroundShells {
  tasks: BackgroundTasks;
  /** True when the session's end leaves running tasks alone (`--keep-tasks`). */
  keepAtClose: boolean;
  /** The note for the model before its next turn: tasks that ended, tasks still running. */
  contextNote(): string | undefined;
  /** After any tool call: a task that ended meanwhile is told to the model at the end of that result. */
  seam: { beforeToolCall: BeforeToolCall; afterToolCall: AfterToolCall };
  /** The session's end: stops every running task unless they are kept. */
  close(): Promise<void>;
}

/**
 * Part: background commands (`shell` with `run_in_background`). One registry per session, shared by
 * every conversation (a server started before /clear is still running after it); tools reach it
 * through their ToolContext, the turn runner adds its note to the model's context, close() stops it.
 */
export function createBackgroundShells(input: BackgroundShellsInput): BackgroundShells {
  const { keepAtClose } = input;
  const tasks = new BackgroundTasks({ maxTasks: input.maxTasks, keepAtExit: keepAtClose });
  return {
    tasks,
    keepAtClose,
    contextNote: () => tasks.contextNote(),
    seam: {
      beforeToolCall: async () => undefined,
      afterToolCall: async ({ result }) => {
        if (typeof result.content !== 'string') return;
        const note = tasks.endedNote();
        return note ? { ...result, content: `${result.content}\n${note}` } : undefined;
      },
    },
    close: async () => {
      if (keepAtClose) tasks.release();
      else await tasks.killAll();
    },
  };
}
