import type { ChatSession, Todo } from '@beans/core';
import { heading, type Builtin } from './command-kit.js';
import { S, span, type StyledLine } from './styled.js';
import { renderTodos } from './tool-view.js';

/**
 * The agent's task list as its last `todo_write` left it: from the conversation (so a rewound or
 * resumed one shows its own), else what the tools hold (the calls were compacted away).
 */
export function currentTodos(session: ChatSession): readonly Todo[] {
  for (let index = session.messages.length - 1; index >= 0; index--) {
    const message = session.messages[index];
    if (message.role === 'tool' && message.details?.kind === 'todos') return message.details.todos;
  }
  return session.toolState.todos;
}

/** Ctrl+T's panel above the input: a header saying how to hide it, and the list's last rows when it is taller. */
export function renderTodosPanel(todos: readonly Todo[], width: number, maxRows: number): StyledLine[] {
  if (maxRows < 2) return [];
  return [[span('Tasks · Ctrl+T hides', S.dim)], ...renderTodos(todos, width, '  ').slice(-(maxRows - 1))];
}

export const TODOS_BUILTINS: Record<string, Builtin> = {
  todos: {
    description: "show the agent's current task list (Ctrl+T keeps it above the input)",
    run(_args, { session, width, print }) {
      const todos = currentTodos(session);
      print([
        heading('Tasks'),
        ...(todos.length > 0
          ? renderTodos(todos, width, '  ')
          : [[span('  (no task list yet: the agent writes one with todo_write when it plans)', S.dim)] as StyledLine]),
      ]);
    },
  },
};
