import * as z from 'zod';
import { lazily } from '../lazily.js';
import { loadRe2 } from '../re2.js';
import { describeEnd, formatDuration, type BackgroundTaskInfo } from './background-tasks.js';
import { wholeOutputNote } from './saved-output.js';
import { defineTool, type ToolContext, type ToolResult } from './tool.js';

const MAX_WAIT_MS = 600_000;

const schema = lazily(() =>
  z.object({
    task_id: z.string().min(1),
    filter: z.string().optional().describe('RE2 regex: only matching lines'),
    wait_ms: z.number().int().min(0).max(MAX_WAIT_MS).optional(),
  }),
);

/** `shell_output`: what a background command printed since the last read, and how it is doing. */
export const shellOutputTool = defineTool({
  name: 'shell_output',
  kind: 'meta',
  description:
    "Read a background task's (command's or agent's) new output since the last read, and its state (running, exit code, killed). " +
    'wait_ms waits that long for new output or the end; with filter, for a matching line (e.g. "listening").',
  schema,
  summarize: (input) => input.task_id,
  async execute(input, ctx) {
    const tasks = ctx.backgroundTasks;
    if (!tasks) return { content: 'There are no background tasks in this session.', isError: true };
    let filter: ((line: string) => boolean) | undefined;
    if (input.filter !== undefined) {
      const re2 = await loadRe2();
      try {
        const regex = re2.compile(input.filter);
        filter = (line) => regex.test(line);
      } catch (error) {
        return { content: `The filter is not valid RE2 syntax: ${(error as Error).message}. RE2 has no lookaround or backreferences.`, isError: true };
      }
    }
    const read = await tasks.read(input.task_id, { filter, waitMs: input.wait_ms, signal: ctx.signal });
    if (!read) return unknownTask(input.task_id, ctx);
    const notes: string[] = [];
    if (read.linesFiltered > 0) notes.push(`[${read.linesFiltered.toLocaleString('en-US')} lines did not match the filter.]`);
    if (read.linesCut > 0 && read.info.outputFile)
      notes.push(wholeOutputNote(read.info.outputFile, `${read.linesCut.toLocaleString('en-US')} lines were cut from the middle above.`));
    const body = read.text ? read.text : '(no new output)';
    return { content: [statusLine(read.info), body, ...notes].join('\n') };
  },
});

export function statusLine(info: BackgroundTaskInfo, now = Date.now()): string {
  const ran = formatDuration((info.endedAt ?? now) - info.startedAt);
  if (info.state === 'running') return `Task ${info.id}: running for ${ran}.`;
  return `Task ${info.id}: ${describeEnd(info)} after ${ran}.`;
}

export function unknownTask(id: string, ctx: ToolContext): ToolResult {
  const known = ctx.backgroundTasks?.list().map((task) => task.id) ?? [];
  return { content: `There is no background task "${id}"${known.length > 0 ? `; the tasks are ${known.join(', ')}` : ''}.`, isError: true };
}
