import type { ChatSession } from '../agent/chat-session.js';
import { UsageError } from '../errors.js';
import { randomHex } from '../random-ids.js';
import { storedSchedules } from '../session/index.js';
import { formatInterval, type ScheduleBoard, type ScheduledTask } from '../tools/schedule-tools.js';
import { nextCronRun, checkCron } from './cron.js';
import type { Live } from './live.js';
import type { SubmitInput, SubmitOutcome } from './submit.js';

/** Loops and recurring tasks end 7 days after they start (Claude Code's expiry); the run at or after it is the last. */
export const SCHEDULE_EXPIRY_MS = 7 * 24 * 3600_000;
/** The shortest loop interval, and the interval of a `/loop` without one until the model paces it. */
export const MIN_LOOP_MS = 10_000;
export const DEFAULT_LOOP_MS = 10 * 60_000;
/** As Claude Code: at most 50 scheduled prompts per session. */
const MAX_TASKS = 50;
/** A due prompt that found the session busy looks again this often (and at once when a turn ends). */
const BUSY_RETRY_MS = 1000;
/** The timer wakes at least this often, so a clock change or a sleeping laptop cannot push a run far off. */
const MAX_SLEEP_MS = 60_000;

export type ScheduleFire =
  { phase: 'start'; task: ScheduledTask; last: boolean } | { phase: 'end'; task: ScheduledTask; last: boolean; outcome: SubmitOutcome };

export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SchedulesInput {
  live: Pick<Live, 'session'>;
  /** The session file of a conversation, where a resumed one's loops are read back; undefined when sessions are not stored. */
  fileOf(id: string): string | undefined;
  /** Records the live conversation's durable tasks in its session file (meta `schedules`). */
  record(tasks: ScheduledTask[]): void;
  clock?: Clock;
}

/**
 * The session's scheduled prompts. They belong to the live conversation (a new one starts with
 * none; a resumed one gets its unexpired ones back) and fire only while a host runs them
 * (`start()`: the chat, a served session, `-p --loop`), through the session's submit path, when
 * the session is idle: never into a running turn.
 */
export interface Schedules extends ScheduleBoard {
  /** The submit path the prompts go through (the session's, set once it exists). */
  connect(submit: (input: SubmitInput) => Promise<SubmitOutcome>): void;
  start(): void;
  stop(): void;
  /** `/loop`: runs `prompt` now, then every `intervalMs` (absent: paced by schedule_wakeup, else every 10 minutes). */
  addLoop(input: { prompt: string; intervalMs?: number; maxRuns?: number }): ScheduledTask;
  /** Cancels every loop and cron task; returns what was cancelled. */
  cancelAll(): ScheduledTask[];
  /** The loop or task whose run is the turn going on now. */
  readonly firing: ScheduledTask | undefined;
  onChange(listener: () => void): () => void;
  onFire(listener: (fire: ScheduleFire) => void): () => void;
  /** Resolves once the task is gone (its last run ended, or it was cancelled). */
  whenDone(id: string): Promise<void>;
  /** The live conversation was replaced (/clear, /resume): its tasks go, the new one's come back. */
  rebind(): void;
}

/** Part: the session's loops and cron tasks (see Schedules). */
export function createSchedules(input: SchedulesInput): Schedules {
  return new ScheduleTable(input);
}

class ScheduleTable implements Schedules {
  private readonly clock: Clock;
  private tasks: ScheduledTask[] = [];
  private bound: ChatSession | undefined;
  private unsubscribe: (() => void) | undefined;
  private submit: ((input: SubmitInput) => Promise<SubmitOutcome>) | undefined;
  private started = false;
  private timer: unknown;
  private running: ScheduledTask | undefined;
  /** schedule_wakeup's answer during the run of a loop without an interval. */
  private wakeupAt: number | undefined;
  private readonly changeListeners = new Set<() => void>();
  private readonly fireListeners = new Set<(fire: ScheduleFire) => void>();
  private readonly doneWaiters = new Map<string, (() => void)[]>();

  constructor(private readonly input: SchedulesInput) {
    this.clock = input.clock ?? SYSTEM_CLOCK;
  }

  connect(submit: (input: SubmitInput) => Promise<SubmitOutcome>): void {
    this.submit = submit;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.rebind();
    this.arm();
  }

  stop(): void {
    this.started = false;
    this.arm();
    this.unsubscribe?.();
  }

  get firing(): ScheduledTask | undefined {
    return this.running;
  }

  list(): readonly ScheduledTask[] {
    if (this.started) this.rebind();
    return this.tasks;
  }

  addLoop({ prompt, intervalMs, maxRuns }: { prompt: string; intervalMs?: number; maxRuns?: number }): ScheduledTask {
    if (!prompt.trim()) throw new UsageError('Give the loop a prompt or a /command: /loop [interval] <prompt>.');
    if (intervalMs !== undefined && intervalMs < MIN_LOOP_MS) throw new UsageError(`A loop runs at most every ${formatInterval(MIN_LOOP_MS)}.`);
    const now = this.clock.now();
    return this.add({
      id: randomHex(4),
      kind: 'loop',
      prompt: prompt.trim(),
      ...(intervalMs !== undefined ? { intervalMs } : {}),
      recurring: true,
      // One-shot's --loop lives as long as its process: nothing to resume.
      durable: maxRuns === undefined,
      createdAt: now,
      expiresAt: now + SCHEDULE_EXPIRY_MS,
      nextAt: now,
      runs: 0,
      ...(maxRuns !== undefined ? { maxRuns } : {}),
    });
  }

  async addCron({ cron, prompt, recurring, durable }: { cron: string; prompt: string; recurring: boolean; durable: boolean }): Promise<ScheduledTask> {
    await checkCron(cron);
    const now = this.clock.now();
    const next = await nextCronRun(cron, new Date(now));
    if (!next) throw new UsageError(`"${cron}" matches no time from now on.`);
    return this.add({
      id: randomHex(4),
      kind: 'cron',
      prompt: prompt.trim(),
      cron: cron.trim(),
      recurring,
      durable,
      createdAt: now,
      ...(recurring ? { expiresAt: now + SCHEDULE_EXPIRY_MS } : {}),
      nextAt: next.getTime(),
      runs: 0,
    });
  }

  remove(id: string): ScheduledTask | undefined {
    const task = this.find(id);
    if (!task) return undefined;
    this.drop(task);
    if (task.durable) this.persist();
    this.changed();
    this.arm();
    return task;
  }

  cancelAll(): ScheduledTask[] {
    const gone = [...this.tasks];
    for (const task of gone) this.drop(task);
    if (gone.some((task) => task.durable)) this.persist();
    this.changed();
    this.arm();
    return gone;
  }

  wakeup(delayMs: number, reason: string): ScheduledTask {
    const paced = this.tasks.filter((task) => task.kind === 'loop' && task.intervalMs === undefined);
    const task = this.running && paced.includes(this.running) ? this.running : paced.length === 1 ? paced[0] : undefined;
    if (!task) {
      throw new UsageError(
        paced.length === 0
          ? 'schedule_wakeup paces a /loop that has no interval, and none runs; for a reminder use cron_create.'
          : `Several loops have no interval (${paced.map((other) => other.id).join(', ')}); call schedule_wakeup during the run of the one to pace.`,
      );
    }
    const at = this.clock.now() + delayMs;
    if (task === this.running) this.wakeupAt = at;
    else {
      task.nextAt = at;
      this.arm();
    }
    task.wakeupReason = reason;
    if (task.durable) this.input.record(this.tasks.filter((other) => other.durable).map((other) => (other === task ? { ...other, nextAt: at } : { ...other })));
    this.changed();
    return { ...task, nextAt: at };
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onFire(listener: (fire: ScheduleFire) => void): () => void {
    this.fireListeners.add(listener);
    return () => this.fireListeners.delete(listener);
  }

  whenDone(id: string): Promise<void> {
    if (!this.find(id)) return Promise.resolve();
    return new Promise((resolve) => this.doneWaiters.set(id, [...(this.doneWaiters.get(id) ?? []), resolve]));
  }

  /** Follows the live conversation: the old one's tasks stop, a resumed one's come back. */
  rebind(): void {
    const session = this.input.live.session;
    if (session === this.bound) return;
    this.unsubscribe?.();
    for (const task of this.tasks) this.drop(task);
    this.bound = session;
    // A turn that ends may let a waiting prompt run at once.
    this.unsubscribe = session.subscribe((event) => {
      if (event.type === 'agent_end' && !this.running) this.clock.setTimeout(() => void this.tick(), 0);
    });
    const file = this.input.fileOf(session.id);
    const stored = file ? storedSchedules(file) : [];
    if (stored.length > 0) void this.restore(stored);
    this.changed();
  }

  private changed(): void {
    this.changeListeners.forEach((listener) => listener());
  }

  private persist(): void {
    this.input.record(this.tasks.filter((task) => task.durable).map((task) => ({ ...task })));
  }

  private find(id: string): ScheduledTask | undefined {
    return this.tasks.find((task) => task.id === id);
  }

  private drop(task: ScheduledTask): void {
    this.tasks = this.tasks.filter((other) => other !== task);
    for (const resolve of this.doneWaiters.get(task.id) ?? []) resolve();
    this.doneWaiters.delete(task.id);
  }

  private add(task: ScheduledTask): ScheduledTask {
    this.rebind();
    if (!this.started) throw new UsageError('This session runs no scheduled prompts (it is not hosted by a chat, a served session or a --loop run).');
    if (this.tasks.length >= MAX_TASKS) throw new UsageError(`A session holds at most ${MAX_TASKS} scheduled prompts; cancel one first (cron_list, /loop).`);
    this.tasks.push(task);
    if (task.durable) this.persist();
    this.changed();
    this.arm();
    return task;
  }

  private async restore(stored: ScheduledTask[]): Promise<void> {
    const session = this.bound;
    const now = this.clock.now();
    const back: ScheduledTask[] = [];
    for (const task of stored) {
      // A file edited by hand gets no loop faster than a typed one could be, and nothing without an end.
      if (task.kind !== 'loop' && task.kind !== 'cron') continue;
      if (task.recurring !== false && task.expiresAt === undefined) continue;
      if (task.kind === 'loop' && task.intervalMs !== undefined && !(task.intervalMs >= MIN_LOOP_MS)) continue;
      if (task.expiresAt !== undefined && task.expiresAt <= now) continue;
      if (task.kind === 'cron' && !task.recurring && (task.nextAt ?? 0) <= now) continue;
      const nextAt = await nextRunAfter(task, now).catch(() => undefined);
      if (nextAt === undefined) continue;
      back.push({ ...task, nextAt });
    }
    if (this.bound !== session) return;
    this.tasks = [...this.tasks, ...back.filter((task) => !this.find(task.id))];
    this.changed();
    this.arm();
  }

  private arm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.started || this.running) return;
    const next = Math.min(...this.tasks.map((task) => task.nextAt ?? Infinity));
    if (next === Infinity) return;
    this.timer = this.clock.setTimeout(() => void this.tick(), Math.min(MAX_SLEEP_MS, Math.max(0, next - this.clock.now())));
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.started || this.running) return;
    this.rebind();
    const now = this.clock.now();
    const due = this.tasks.filter((task) => task.nextAt !== undefined && task.nextAt <= now).sort((a, b) => (a.nextAt ?? 0) - (b.nextAt ?? 0))[0];
    if (!due || !this.submit) return this.arm();
    if (this.bound?.isRunning) {
      this.timer = this.clock.setTimeout(() => void this.tick(), BUSY_RETRY_MS);
      return;
    }
    await this.fire(due, now);
    this.arm();
  }

  private async fire(task: ScheduledTask, startedAt: number): Promise<void> {
    const last =
      (task.expiresAt !== undefined && startedAt >= task.expiresAt) ||
      (task.maxRuns !== undefined && task.runs + 1 >= task.maxRuns) ||
      (task.kind === 'cron' && !task.recurring);
    this.running = task;
    this.wakeupAt = undefined;
    let outcome: SubmitOutcome;
    try {
      this.emit({ phase: 'start', task, last });
      outcome = await this.submit!({ text: promptText(task, last), whenIdle: true });
    } catch (error) {
      outcome = { kind: 'refused', reason: error instanceof Error ? error.message : String(error) };
    } finally {
      this.running = undefined;
    }
    if (outcome.kind === 'refused' && outcome.busy) {
      // Someone else's turn began first: nothing was sent, the run waits for the next idle moment.
      this.changed();
      return;
    }
    if (this.find(task.id)) {
      task.runs += 1;
      if (last) this.drop(task);
      else
        task.nextAt =
          task.intervalMs === undefined && task.kind === 'loop' ? (this.wakeupAt ?? this.clock.now() + DEFAULT_LOOP_MS) : await nextRunAfter(task, startedAt);
      if (task.durable) this.persist();
    }
    this.emit({ phase: 'end', task, last, outcome });
    this.changed();
  }

  private emit(fire: ScheduleFire): void {
    for (const listener of this.fireListeners) listener(fire);
  }
}

/** When a task runs next after `now`: fixed loops keep their cadence from their start, crons their expression. */
async function nextRunAfter(task: ScheduledTask, now: number): Promise<number | undefined> {
  if (task.kind === 'cron') {
    if (!task.recurring) return task.nextAt;
    return (await nextCronRun(task.cron ?? '', new Date(now)))?.getTime();
  }
  if (task.intervalMs === undefined) return Math.max(task.nextAt ?? now, now);
  const slots = Math.floor((now - task.createdAt) / task.intervalMs) + 1;
  return task.createdAt + slots * task.intervalMs;
}

/** What a run submits: the prompt, with a word for the model when the loop is paced by it or this is the last run. Commands go as they are. */
function promptText(task: ScheduledTask, last: boolean): string {
  if (task.prompt.startsWith('/')) return task.prompt;
  const notes: string[] = [];
  if (task.kind === 'loop' && task.intervalMs === undefined && !last) {
    notes.push(
      `This prompt runs in loop ${task.id}, which you pace: before you finish, call schedule_wakeup with the delay until its next run (without it, the next run is in ${formatInterval(DEFAULT_LOOP_MS)}); to end the loop, call cron_delete with ${task.id}.`,
    );
  }
  // A one-time task's only run is its last by nature: nothing to tell.
  if (last && task.recurring)
    notes.push(
      task.maxRuns !== undefined
        ? `This is the last run of ${task.id}.`
        : `This is the last run of ${task.id}: scheduled prompts expire 7 days after they start.`,
    );
  return notes.length > 0 ? `${task.prompt}\n\n(${notes.join(' ')})` : task.prompt;
}
