import * as z from 'zod';
import { lazily } from '../lazily.js';
import { statusLine, unknownTask } from './shell-output.js';
import { defineTool } from './tool.js';

const schema = lazily(() =>
  z.object({
    task_id: z.string().min(1),
  }),
);

/** `kill_shell`: stops a background command and every process it started. */
export const killShellTool = defineTool({
  name: 'kill_shell',
  kind: 'meta',
  description: 'Stop a background task: a command with every process it started, or an agent.',
  schema,
  summarize: (input) => input.task_id,
  async execute(input, ctx) {
    const tasks = ctx.backgroundTasks;
    if (!tasks) return { content: 'There are no background tasks in this session.', isError: true };
    const before = tasks.get(input.task_id);
    if (!before) return unknownTask(input.task_id, ctx);
    if (before.state !== 'running') return { content: `${statusLine(before)} Nothing to stop.` };
    const after = await tasks.kill(input.task_id);
    return { content: statusLine(after ?? before) };
  },
});
