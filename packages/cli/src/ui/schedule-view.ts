import { formatInterval, type GoalState, type ScheduleFire } from '@beans/core';
import type { ChatAgent } from '../chat-agent.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';
import type { TranscriptStore } from './transcript.js';

const ENDED: Partial<Record<GoalState['phase'], string>> = {
  met: 'Goal met',
  stopped: 'Goal stopped',
  limit: 'Goal stopped at its limit',
  failed: 'Goal failed',
};

/**
 * The chat's view of work that comes back by itself: a line when a loop or cron task fires (its
 * turn then draws like any other, from the session's events), what a /command run of it said, and
 * how a goal ended. Returns the unsubscribe.
 */
export function followSchedules(host: Pick<ChatAgent, 'schedules' | 'goals'>, transcript: TranscriptStore, changed: () => void): () => void {
  const onFire = (fire: ScheduleFire) => {
    const { task } = fire;
    if (fire.phase === 'start') {
      const run = `${task.kind} ${task.id}, run ${task.runs + 1}${fire.last ? ', the last' : ''}`;
      transcript.note('info', `⟳ ${run}: ${task.prompt}`);
    } else if (fire.outcome.kind === 'command') transcript.note('info', fire.outcome.text);
    else if (fire.outcome.kind === 'refused') transcript.note('error', `${task.kind} ${task.id}: ${fire.outcome.reason}`);
    changed();
  };
  let lastPhase: GoalState['phase'] | undefined;
  const onGoal = (goal: GoalState) => {
    if (goal.phase !== lastPhase && ENDED[goal.phase])
      transcript.note(goal.phase === 'met' ? 'info' : 'error', `${ENDED[goal.phase]} after ${goal.turns} turns: ${goal.reason ?? goal.condition}`);
    lastPhase = goal.phase;
    changed();
  };
  const off = [host.schedules.onFire(onFire), host.schedules.onChange(() => changed()), host.goals.onChange(onGoal)];
  return () => off.forEach((stop) => stop());
}

/** Footer rows: each loop and task with its next run (a clock time, so an idle screen stays true), and an active goal. */
export function scheduleRows(host: Pick<ChatAgent, 'schedules' | 'goals'>, width: number): StyledLine[] {
  const rows: StyledLine[] = [];
  const goal = host.goals.active ? host.goals.current() : undefined;
  if (goal) {
    const parked = goal.phase === 'parked' && goal.parkedUntil ? ` until ${clock(goal.parkedUntil)}` : '';
    rows.push(
      truncateLine(
        [
          span('◎ goal ', S.cyan),
          span(`${goal.phase}${parked} · turn ${goal.turns}/${goal.maxTurns} · $${goal.costUsd.toFixed(2)}/$${goal.maxCostUsd} · `, S.dim),
          span(goal.condition, S.dim),
        ],
        width,
      ),
    );
  }
  const tasks = host.schedules.list();
  for (const task of tasks.slice(0, 3)) {
    const cadence = task.kind === 'loop' ? (task.intervalMs !== undefined ? `every ${formatInterval(task.intervalMs)}` : 'paced') : task.cron;
    const next = task.nextAt === undefined ? 'running' : `next ${clock(task.nextAt)}`;
    rows.push(truncateLine([span(`⟳ ${task.id} `, S.cyan), span(`${cadence} · ${next} · `, S.dim), span(task.prompt, S.dim)], width));
  }
  if (tasks.length > 3) rows.push([span(`  +${tasks.length - 3} more (/loop lists them)`, S.dim)]);
  return rows;
}

function clock(at: number): string {
  return new Date(at).toLocaleTimeString('en-GB');
}
