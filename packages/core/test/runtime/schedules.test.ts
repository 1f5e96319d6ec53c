import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/agent/types.js';
import { parseInterval, parseLoopArgs } from '../../src/runtime/schedule-commands.js';
import { createSchedules, SCHEDULE_EXPIRY_MS, type Clock } from '../../src/runtime/schedules.js';
import type { SubmitInput, SubmitOutcome } from '../../src/runtime/submit.js';
import type { ScheduledTask } from '../../src/tools/schedule-board.js';

// Issue 61: the schedules part on a clock the test moves. A loop's seventh day ends it (its last
// run says so), a due run waits while a turn runs and goes when it ends, and a resumed session gets
// back only loops that could have been made by hand and have not expired.

const flush = () => new Promise((resolve) => setImmediate(resolve));

class ManualClock implements Clock {
  time = new Date(2026, 0, 5, 12, 0, 0).getTime();
  private timers = new Map<number, { at: number; run: () => void }>();
  private next = 1;
  now(): number {
    return this.time;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.time + ms, run });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Runs every timer due up to `until`, in order, letting each run's promises settle. */
  async advanceTo(until: number): Promise<void> {
    for (;;) {
      const due = [...this.timers.entries()].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].run();
      await flush();
      await flush();
    }
    this.time = until;
  }
}

function fakeSession(id = 'session-1') {
  const listeners = new Set<(event: AgentEvent) => void>();
  return {
    id,
    isRunning: false,
    subscribe(listener: (event: AgentEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    end() {
      for (const listener of listeners) listener({ type: 'agent_end' } as AgentEvent);
    },
  };
}

function table(options: { file?: string } = {}) {
  const clock = new ManualClock();
  const session = fakeSession();
  const sent: { text: string; at: number }[] = [];
  const recorded: ScheduledTask[][] = [];
  const schedules = createSchedules({
    live: { session: session as never },
    fileOf: () => options.file,
    record: (tasks) => recorded.push(tasks),
    clock,
  });
  schedules.connect(async (input: SubmitInput): Promise<SubmitOutcome> => {
    sent.push({ text: input.text, at: clock.now() });
    expect(input.whenIdle).toBe(true);
    return { kind: 'command', name: 'test', text: '' };
  });
  schedules.start();
  return { clock, session, sent, recorded, schedules };
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('loops on a clock', () => {
  it('a loop runs at once and every interval for 7 days; the run at the seventh day says it is the last, and the loop is gone', async () => {
    const { clock, sent, schedules, recorded } = table();
    const start = clock.now();
    const task = schedules.addLoop({ prompt: 'check the deploy', intervalMs: 3600_000 });
    await clock.advanceTo(start + 3 * 3600_000 + 1);
    expect(sent.map((run) => (run.at - start) / 3600_000)).toEqual([0, 1, 2, 3]);
    expect(sent.every((run) => run.text === 'check the deploy')).toBe(true);
    // A durable loop's state is in the session file after each run.
    expect(recorded.at(-1)).toMatchObject([{ id: task.id, runs: 4 }]);

    await clock.advanceTo(start + SCHEDULE_EXPIRY_MS + 2 * 3600_000);
    expect(sent).toHaveLength(7 * 24 + 1);
    const last = sent.at(-1)!;
    expect(last.at - start).toBe(SCHEDULE_EXPIRY_MS);
    expect(last.text).toBe(`check the deploy\n\n(This is the last run of ${task.id}: scheduled prompts expire 7 days after they start.)`);
    expect(sent.slice(0, -1).some((run) => run.text.includes('last run'))).toBe(false);
    expect(schedules.list()).toEqual([]);
    expect(recorded.at(-1)).toEqual([]);
  });

  it('a run due while a turn runs waits for its end and goes then, once', async () => {
    const { clock, session, sent, schedules } = table();
    const start = clock.now();
    schedules.addLoop({ prompt: 'say tick', intervalMs: 10_000 });
    await clock.advanceTo(start + 1);
    expect(sent).toHaveLength(1);
    session.isRunning = true;
    await clock.advanceTo(start + 25_000);
    expect(sent).toHaveLength(1);
    session.isRunning = false;
    session.end();
    await clock.advanceTo(start + 25_001);
    // The runs due at 10 s and 20 s became one run when the turn ended; the cadence keeps its start.
    expect(sent.map((run) => run.at - start)).toEqual([0, 25_000]);
    await clock.advanceTo(start + 30_001);
    expect(sent.map((run) => run.at - start)).toEqual([0, 25_000, 30_000]);
  });

  it('a /command loop is submitted as typed, its last run too; a cron task the model makes is read as 5 local fields', async () => {
    const { clock, sent, schedules } = table();
    const start = clock.now();
    schedules.addLoop({ prompt: '/review-pr 12', intervalMs: 3600_000 });
    await clock.advanceTo(start + SCHEDULE_EXPIRY_MS + 1);
    expect(new Set(sent.map((run) => run.text))).toEqual(new Set(['/review-pr 12']));
    await expect(schedules.addCron({ cron: '61 * * * *', prompt: 'x', recurring: true, durable: false })).rejects.toThrow('not a valid cron expression');
    await expect(schedules.addCron({ cron: '0 9 * * 1-5 2026', prompt: 'x', recurring: true, durable: false })).rejects.toThrow(
      'not a 5-field cron expression',
    );
    const task = await schedules.addCron({ cron: '30 14 * * *', prompt: 'release check', recurring: false, durable: false });
    const next = new Date(task.nextAt!);
    expect([next.getHours(), next.getMinutes()]).toEqual([14, 30]);
    await clock.advanceTo(task.nextAt! + 1);
    // Its one run is not told it is the last of an expiring loop.
    expect(sent.at(-1)).toEqual({ text: 'release check', at: task.nextAt });
    expect(schedules.list()).toEqual([]);
  });

  it('refuses loops under 10 s and a 51st scheduled prompt', () => {
    const { schedules } = table();
    expect(() => schedules.addLoop({ prompt: 'too fast', intervalMs: 9_999 })).toThrow('A loop runs at most every 10s.');
    expect(() => schedules.addLoop({ prompt: '  ' })).toThrow('Give the loop a prompt');
    for (let i = 0; i < 50; i++) schedules.addLoop({ prompt: `p${i}`, intervalMs: 3600_000 });
    expect(() => schedules.addLoop({ prompt: 'one more', intervalMs: 3600_000 })).toThrow('at most 50 scheduled prompts');
  });

  it('a resumed session gets back its unexpired loops and cron tasks, not expired ones nor ones no one could have typed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-schedules-'));
    folders.push(dir);
    const now = new ManualClock().now();
    const base = { recurring: true, durable: true, runs: 3, createdAt: now - 3600_000, nextAt: now + 60_000 };
    const tasks = [
      { ...base, id: 'aaaaaaaa', kind: 'loop', prompt: 'kept', intervalMs: 600_000, expiresAt: now + SCHEDULE_EXPIRY_MS },
      { ...base, id: 'bbbbbbbb', kind: 'loop', prompt: 'expired', intervalMs: 600_000, expiresAt: now - 1 },
      { ...base, id: 'cccccccc', kind: 'loop', prompt: 'edited to 1 ms', intervalMs: 1, expiresAt: now + SCHEDULE_EXPIRY_MS },
      { ...base, id: 'dddddddd', kind: 'loop', prompt: 'no end', intervalMs: 600_000 },
      { ...base, id: 'eeeeeeee', kind: 'cron', prompt: 'nightly', cron: '0 3 * * *', expiresAt: now + SCHEDULE_EXPIRY_MS },
      { ...base, id: 'ffffffff', kind: 'cron', prompt: 'bad cron', cron: '99 * * * *', expiresAt: now + SCHEDULE_EXPIRY_MS },
    ];
    const file = path.join(dir, 'session.jsonl');
    writeFileSync(file, `{"type":"session"}\n${JSON.stringify({ type: 'meta', kind: 'schedules', tasks })}\n`);
    const { schedules } = table({ file });
    // Restoring reads the cron parser in (a dynamic import) before the tasks are back.
    await vi.waitFor(() => expect(schedules.list().length).toBeGreaterThan(0), { timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(schedules.list().map((task) => task.prompt)).toEqual(['kept', 'nightly']);
    const nightly = schedules.list()[1]!;
    expect(new Date(nightly.nextAt!).getHours()).toBe(3);
  });
});

describe('/loop arguments', () => {
  it('reads s, m, h and d, leading or after "every"; none is no interval (paced, else 10 minutes)', () => {
    expect(['10s', '5m', '2h', '1d', '1.5m'].map(parseInterval)).toEqual([10_000, 300_000, 7_200_000, 86_400_000, 90_000]);
    expect(parseInterval('5x')).toBeUndefined();
    expect(parseLoopArgs('5m check the deploy')).toEqual({ intervalMs: 300_000, prompt: 'check the deploy' });
    expect(parseLoopArgs('check the deploy every 2h')).toEqual({ intervalMs: 7_200_000, prompt: 'check the deploy' });
    expect(parseLoopArgs('/review-pr 1234')).toEqual({ prompt: '/review-pr 1234' });
    expect(parseLoopArgs('10s')).toEqual({ intervalMs: 10_000, prompt: '' });
  });
});
