import type { BackgroundShells } from './background-shells.js';
import { createGoals, type Goals } from './goal.js';
import type { Live } from './live.js';
import { scheduleCommands } from './schedule-commands.js';
import { createSchedules, type Schedules } from './schedules.js';
import type { SessionCommand } from './session-commands.js';
import type { SessionStorage } from './session-storage.js';
import type { SettledAgent } from './settle-agent.js';
import type { SubmitInput, SubmitOutcome } from './submit.js';

export interface SessionSchedulesInput {
  /** The live conversation, whose session file keeps its schedules. */
  live: Pick<Live, 'session' | 'log'>;
  storage: Pick<SessionStorage, 'store'>;
  /** The client a goal's check asks. */
  agent: Pick<SettledAgent, 'client'>;
  /** A goal waits while background tasks run. */
  background: Pick<BackgroundShells, 'tasks'>;
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
  const { live } = input;
  const schedules = createSchedules({
    live,
    fileOf: (id) => input.storage.store?.pathOf(id),
    record: (tasks) => live.log?.recordMeta({ kind: 'schedules', tasks }),
  });
  const goals = createGoals({ live, client: input.agent.client, runningBackgroundTasks: () => input.background.tasks.runningCount() });
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
