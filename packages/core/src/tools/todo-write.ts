import * as z from 'zod';
import { defineTool, type Todo } from './tool.js';
import { lazily } from '../lazily.js';

const schema = lazily(() =>
  z.object({
    todos: z.array(
      z.object({
        content: z.string().min(1).describe('A few words'),
        status: z.enum(['pending', 'in_progress', 'completed']),
      }),
    ),
  }),
);

const MARKS: Record<Todo['status'], string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]' };

export const todoWriteTool = defineTool({
  name: 'todo_write',
  kind: 'meta',
  description:
    'Keep a short plan for multi-step work, shown to the user. Send the whole list each time (it replaces the last one); ' +
    'keep the current item in_progress and mark each completed as soon as it is done.',
  schema,
  summarize: (input) => {
    const done = input.todos.filter((todo) => todo.status === 'completed').length;
    return `${done}/${input.todos.length} done`;
  },
  async execute(input, ctx) {
    const todos: Todo[] = input.todos.map((todo) => ({ content: todo.content, status: todo.status }));
    ctx.state.todos = todos;
    if (todos.length === 0) return { content: 'Todo list cleared.', details: { kind: 'todos', todos } };
    const list = todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`).join('\n');
    const active = todos.filter((todo) => todo.status === 'in_progress').length;
    const note = active > 1 ? `\nNote: ${active} items are in_progress; keep just one in progress at a time.` : '';
    return { content: `Todo list updated:\n${list}${note}`, details: { kind: 'todos', todos } };
  },
});
