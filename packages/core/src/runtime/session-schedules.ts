import type { LLMClient } from '../llm/types.js';
import type { SessionStore } from '../session/index.js';
import type { ScheduledTask } from '../tools/schedule-tools.js';
import { createGoals, type Goals } from './goal.js';
import type { Live } from './live.js';
import { scheduleCommands } from './schedule-commands.js';
import { createSchedules, type Schedules } from './schedules.js';
import type { SessionCommand } from './session-commands.js';
import type { SubmitInput, SubmitOutcome } from './submit.js';

export interface SessionSchedulesInput {
  live: Pick<Live, 'session'>;
  store: SessionStore | undefined;
  /** Records a change in the live conversation's session file. */
  recordSchedules(tasks: ScheduledTask[]): void;
  /** The client a goal's check asks. */
  client: LLMClient;
  runningBackgroundTasks(): number;
}

/** Work that comes back by itself: loops and cron tasks, and the goal; both submit through the session's one path. */
export interface SessionSchedules {
  schedules: Schedules;
  goals: Goals;
  /**
   * Runs both through the session's submit, follows its conversation switches (a loop belongs to a
   * conversation: /clear's new one starts with none, /resume's gets its own back); returns `/loop` and `/goal`.
   */
  attach(submit: (input: SubmitInput) => Promise<SubmitOutcome>, switches: { add(listener: () => void): unknown }): SessionCommand[];
  /** The session's end: nothing fires any more, an active goal stops. */
  close(): void;
}

/** Part: the session's schedules (runtime/schedules.ts) and goal (runtime/goal.ts), and their commands. */
export function createSessionSchedules(input: SessionSchedulesInput): SessionSchedules {
  const schedules = createSchedules({
    live: input.live,
    fileOf: (id) => input.store?.pathOf(id),
    record: (tasks) => input.recordSchedules(tasks),
  });
  const goals = createGoals({ live: input.live, client: input.client, runningBackgroundTasks: () => input.runningBackgroundTasks() });
  return {
    schedules,
    goals,
    attach(submit, switches) {
      schedules.connect(submit);
      goals.connect(submit);
      switches.add(() => schedules.rebind());
      return scheduleCommands(schedules, goals);
    },
    close() {
      schedules.stop();
      goals.stop('The session closed.');
    },
  };
}
