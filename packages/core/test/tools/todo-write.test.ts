import { describe, expect, it } from 'vitest';
import { todoWriteTool } from '../../src/tools/todo-write.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

describe('todo_write', () => {
  it('replaces the session todo list and returns it for the UI', async () => {
    const ctx = makeContext(makeWorkspace());
    await run(todoWriteTool, { todos: [{ content: 'old', status: 'pending' }] }, ctx);
    const todos = [
      { content: 'Read the code', status: 'completed' },
      { content: 'Fix the bug', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending' },
    ] as const;
    const result = await run(todoWriteTool, { todos }, ctx);
    expect(ctx.state.todos).toEqual(todos);
    expect(result.details).toEqual({ kind: 'todos', todos });
    expect(result.content).toBe('Todo list updated:\n[x] Read the code\n[>] Fix the bug\n[ ] Run the tests');
    expect(todoWriteTool.summarize!({ todos: [...todos] })).toBe('1/3 done');
  });

  it('rejects an unknown status through its schema', () => {
    expect(todoWriteTool.schema.safeParse({ todos: [{ content: 'x', status: 'doing' }] }).success).toBe(false);
  });
});
