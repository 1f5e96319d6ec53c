// What the scheduling tools and the session's schedules share; no imports, so tool.ts can name it.

/** One prompt the session runs again by itself: a `/loop`, or a cron the model (or a person) made. */
export interface ScheduledTask {
  /** Eight hex characters, as Claude Code's task ids. */
  id: string;
  kind: 'loop' | 'cron';
  /** What is submitted when it fires: words for the model, or a `/command`. */
  prompt: string;
  /** A loop's fixed interval; absent when the model paces it with `schedule_wakeup`. */
  intervalMs?: number;
  /** A cron task's 5-field expression, in local time. */
  cron?: string;
  recurring: boolean;
  /** Kept in the session file: restored by `--resume`/`--continue` (loops always are). */
  durable: boolean;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms: recurring tasks end here (7 days after creation); the run at or after it is the last. */
  expiresAt?: number;
  /** Epoch ms of the next run; undefined while the run it started is still going. */
  nextAt?: number;
  runs: number;
  /** What the model said it will look at next (schedule_wakeup's reason). */
  wakeupReason?: string;
  /** One-shot `--loop --max-runs N`: the run numbered N is the last. */
  maxRuns?: number;
}

/** What the scheduling tools reach of the session (runtime/schedules.ts holds it). Methods throw with a sentence for the model. */
export interface ScheduleBoard {
  list(): readonly ScheduledTask[];
  addCron(input: { cron: string; prompt: string; recurring: boolean; durable: boolean }): Promise<ScheduledTask>;
  remove(id: string): ScheduledTask | undefined;
  /** Paces the loop this turn runs for (or the only loop without an interval): its next run is `delayMs` from now. */
  wakeup(delayMs: number, reason: string): ScheduledTask;
}
