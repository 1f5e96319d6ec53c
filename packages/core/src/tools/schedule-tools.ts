import * as z from 'zod';
import { lazily } from '../lazily.js';
import type { ScheduleBoard, ScheduledTask } from './schedule-board.js';
import { defineTool, type ToolContext, type ToolResult } from './tool.js';

export type { ScheduleBoard, ScheduledTask } from './schedule-board.js';

/** schedule_wakeup's bounds: the loops' own minimum, and Claude Code's hour. */
export const WAKEUP_MIN_SECONDS = 10;
export const WAKEUP_MAX_SECONDS = 3600;

function boardOf(ctx: ToolContext): ScheduleBoard | undefined {
  return ctx.schedules;
}

const NO_BOARD: ToolResult = {
  content: 'This session runs no scheduled prompts (it is not hosted by a chat, a served session or a --loop run).',
  isError: true,
};

function failed(error: unknown): ToolResult {
  return { content: error instanceof Error ? error.message : String(error), isError: true };
}

export function describeTask(task: ScheduledTask, now = Date.now()): string {
  const when =
    task.kind === 'loop'
      ? task.intervalMs !== undefined
        ? `every ${formatInterval(task.intervalMs)}`
        : 'paced by schedule_wakeup'
      : `cron "${task.cron}"${task.recurring ? '' : ' (once)'}`;
  const next = task.nextAt === undefined ? 'running now' : `next in ${formatInterval(Math.max(0, task.nextAt - now))}`;
  return `${task.id} · ${task.kind} · ${when} · ${next} · runs ${task.runs}${task.durable ? ' · durable' : ''} · ${task.prompt}`;
}

/** 90_000 -> "1m 30s"; the largest two units. */
export function formatInterval(ms: number): string {
  let seconds = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (seconds >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  return parts.slice(0, 2).join(' ');
}

const wakeupSchema = lazily(() =>
  z.object({
    delay_seconds: z.number().describe(`Seconds until the loop runs again (${WAKEUP_MIN_SECONDS} to ${WAKEUP_MAX_SECONDS}; outside that it is clamped)`),
    reason: z.string().describe('One short sentence: what you will look at then, shown to the user'),
  }),
);

export const scheduleWakeupTool = defineTool({
  name: 'schedule_wakeup',
  kind: 'meta',
  description:
    'Pace a /loop that has no fixed interval: say when this loop should run its prompt again. Call it once near the end of each run of ' +
    'such a loop: a short delay while something is changing (a build, a deploy), a long one when nothing is. Without a call the next run ' +
    'is in 10 minutes. To end the loop instead, call cron_delete with its id.',
  schema: wakeupSchema,
  summarize: (input) => `in ${formatInterval(input.delay_seconds * 1000)}: ${input.reason}`,
  async execute(input, ctx) {
    const board = boardOf(ctx);
    if (!board) return NO_BOARD;
    const seconds = Math.min(WAKEUP_MAX_SECONDS, Math.max(WAKEUP_MIN_SECONDS, Math.round(input.delay_seconds)));
    try {
      const task = board.wakeup(seconds * 1000, input.reason);
      return {
        content: `Loop ${task.id} runs again in ${formatInterval(seconds * 1000)} (${new Date(task.nextAt ?? Date.now()).toLocaleTimeString('en-GB')}).`,
      };
    } catch (error) {
      return failed(error);
    }
  },
});

const cronCreateSchema = lazily(() =>
  z.object({
    cron: z.string().describe('Five fields in local time: minute hour day-of-month month day-of-week, e.g. "*/5 * * * *" or "30 14 * * 1-5"'),
    prompt: z.string().min(1).describe('What to do when it fires, written as the user would ask it'),
    recurring: z.boolean().optional().describe('true (default): every time the expression matches, for up to 7 days; false: once, at the next match'),
    durable: z.boolean().optional().describe('true: kept with the session, so it survives a restart (--resume, --continue); default false'),
  }),
);

export const cronCreateTool = defineTool({
  name: 'cron_create',
  kind: 'meta',
  description:
    'Schedule a prompt for later in this session: a reminder ("at 3pm check the release", recurring false) or a recurring check ' +
    '("every weekday at 9"). It runs when the session is idle, never during a turn. Recurring tasks expire after 7 days. Returns the task id.',
  schema: cronCreateSchema,
  summarize: (input) => `${input.cron}: ${input.prompt}`,
  async execute(input, ctx) {
    const board = boardOf(ctx);
    if (!board) return NO_BOARD;
    try {
      const task = await board.addCron({ cron: input.cron, prompt: input.prompt, recurring: input.recurring ?? true, durable: input.durable ?? false });
      return { content: `Scheduled ${describeTask(task)}` };
    } catch (error) {
      return failed(error);
    }
  },
});

const cronListSchema = lazily(() => z.object({}));

export const cronListTool = defineTool({
  name: 'cron_list',
  kind: 'meta',
  description: "List this session's scheduled prompts: /loop loops and cron tasks, with their ids and next runs.",
  schema: cronListSchema,
  async execute(_input, ctx) {
    const board = boardOf(ctx);
    if (!board) return NO_BOARD;
    const tasks = board.list();
    return { content: tasks.length === 0 ? 'No scheduled prompts.' : tasks.map((task) => describeTask(task)).join('\n') };
  },
});

const cronDeleteSchema = lazily(() => z.object({ id: z.string().describe('The task id') }));
export const cronDeleteTool = defineTool({
  name: 'cron_delete',
  kind: 'meta',
  description: 'Cancel a scheduled prompt (a cron task or a /loop) by the id cron_list or cron_create gave.',
  schema: cronDeleteSchema,
  summarize: (input) => input.id,
  async execute(input, ctx) {
    const board = boardOf(ctx);
    if (!board) return NO_BOARD;
    const removed = board.remove(input.id.trim());
    return removed
      ? { content: `Cancelled ${removed.id} (${removed.prompt}).` }
      : { content: `No scheduled prompt has the id ${input.id}; cron_list shows them.`, isError: true };
  },
});

export const SCHEDULE_TOOLS = [scheduleWakeupTool, cronCreateTool, cronListTool, cronDeleteTool];
