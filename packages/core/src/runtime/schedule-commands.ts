import { UsageError } from '../errors.js';
import { describeTask, formatInterval } from '../tools/schedule-tools.js';
import type { Goals, GoalState } from './goal.js';
import type { Schedules } from './schedules.js';
import type { SessionCommand } from './session-commands.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** "10s", "5m", "2h", "1d" -> ms; undefined when the word is not an interval. */
export function parseInterval(word: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([smhd])$/i.exec(word.trim());
  return match ? Math.round(Number(match[1]) * UNITS[match[2].toLowerCase()]) : undefined;
}

/** `/loop [interval] <prompt>` or `/loop <prompt> every <interval>` -> the interval (if any) and the prompt. */
export function parseLoopArgs(args: string): { intervalMs?: number; prompt: string } {
  const text = args.trim();
  const [first = '', ...rest] = text.split(/\s+/);
  const leading = parseInterval(first);
  if (leading !== undefined) return { intervalMs: leading, prompt: text.slice(first.length).trim() };
  const trailing = /\s+every\s+(\S+)$/i.exec(text);
  const every = trailing ? parseInterval(trailing[1]) : undefined;
  if (trailing && every !== undefined) return { intervalMs: every, prompt: text.slice(0, trailing.index).trim() };
  return { prompt: rest.length === 0 && first === '' ? '' : text };
}

/** What `/loop` and `/goal` say of themselves: front ends list them (the chat's /help) from this. */
export const SCHEDULE_COMMANDS_HELP = {
  loop: {
    name: 'loop',
    description: 'run a prompt or /command again and again while the session is idle; alone: list loops; cancel <id> stops one',
    argumentHint: '[interval] <prompt> | cancel [id]',
  },
  goal: {
    name: 'goal',
    description: 'keep working, turn after turn, until a separate check finds the condition shown to hold; alone: progress; clear stops it',
    argumentHint: '[--max-turns N] [--max-cost USD] <condition> | clear',
  },
} as const;

/** `/loop` and `/goal`, which every front end offers (the chat draws their state in its footer). */
export function scheduleCommands(schedules: Schedules, goals: Goals): SessionCommand[] {
  return [
    {
      ...SCHEDULE_COMMANDS_HELP.loop,
      async run(args) {
        const text = args.trim();
        if (!text || text === 'list') return listTasks(schedules);
        const cancel = /^(cancel|stop)\b\s*(.*)$/i.exec(text);
        if (cancel) {
          const id = cancel[2].trim();
          if (!id || id === 'all') {
            const gone = schedules.cancelAll();
            return gone.length === 0 ? 'No loops to cancel.' : `Cancelled ${gone.map((task) => task.id).join(', ')}.`;
          }
          const gone = schedules.remove(id);
          return gone ? `Cancelled ${gone.id} (${gone.prompt}).` : `No loop has the id ${id}; /loop lists them.`;
        }
        const { intervalMs, prompt } = parseLoopArgs(text);
        if (!prompt) throw new UsageError('Say what to run: /loop [interval] <prompt or /command>, e.g. /loop 5m check the deploy.');
        const task = schedules.addLoop({ prompt, ...(intervalMs !== undefined ? { intervalMs } : {}) });
        const cadence = intervalMs !== undefined ? `every ${formatInterval(intervalMs)}` : 'when the model says (schedule_wakeup), else every 10m';
        return `Loop ${task.id}: ${prompt}. It runs now, then ${cadence}, only while the session is idle, for up to 7 days. Stop it with /loop cancel ${task.id} (or Esc twice on an empty input in chat).`;
      },
    },
    {
      ...SCHEDULE_COMMANDS_HELP.goal,
      async run(args) {
        const text = args.trim();
        if (!text) return goalProgress(goals.current());
        if (/^(clear|stop|cancel)$/i.test(text)) {
          const stopped = goals.stop('Stopped by the user.');
          return stopped ? `The goal is stopped after ${stopped.turns} turns: ${stopped.condition}` : 'No goal is active.';
        }
        const { condition, maxTurns, maxCostUsd } = parseGoalArgs(text);
        const goal = goals.set(condition, { maxTurns, maxCostUsd });
        return `Goal: ${goal.condition}. Working on it, turn after turn, until a separate check finds it shown to hold (at most ${goal.maxTurns} turns and $${goal.maxCostUsd}). /goal shows progress; Esc or /goal clear stops it.`;
      },
    },
  ];
}

function listTasks(schedules: Schedules): string {
  const tasks = schedules.list();
  if (tasks.length === 0) return 'No loops. Start one with /loop [interval] <prompt>, e.g. /loop 5m check the deploy.';
  return tasks.map((task) => describeTask(task)).join('\n');
}

function parseGoalArgs(text: string): { condition: string; maxTurns?: number; maxCostUsd?: number } {
  let rest = text;
  let maxTurns: number | undefined;
  let maxCostUsd: number | undefined;
  for (;;) {
    const turns = /^--max-turns[=\s]+(\d+)\s*/.exec(rest);
    const cost = /^--max-cost[=\s]+\$?(\d+(?:\.\d+)?)\s*/.exec(rest);
    if (turns) {
      maxTurns = Number(turns[1]);
      if (maxTurns < 1) throw new UsageError('--max-turns takes a whole number of at least 1.');
      rest = rest.slice(turns[0].length);
    } else if (cost) {
      maxCostUsd = Number(cost[1]);
      rest = rest.slice(cost[0].length);
    } else break;
  }
  return { condition: rest.trim(), ...(maxTurns !== undefined ? { maxTurns } : {}), ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) };
}

const PHASES: Record<GoalState['phase'], string> = {
  working: 'working',
  checking: 'checking',
  parked: 'parked (background work runs)',
  met: 'met',
  stopped: 'stopped',
  limit: 'stopped at a limit',
  failed: 'failed',
};

export function goalProgress(goal: GoalState | undefined): string {
  if (!goal) return 'No goal. Set one with /goal <condition>, e.g. /goal npm test passes.';
  const lines = [
    `Goal: ${goal.condition}`,
    `${PHASES[goal.phase]} · turn ${goal.turns} of ${goal.maxTurns} · $${goal.costUsd.toFixed(4)} of $${goal.maxCostUsd} · ${formatInterval(Date.now() - goal.startedAt)}`,
  ];
  if (goal.reason) lines.push(`${goal.phase === 'met' ? 'The check' : 'Last check'}: ${goal.reason}`);
  return lines.join('\n');
}
