import { describe, expect, it } from 'vitest';
import { createGoals, readVerdict } from '../../src/runtime/goal.js';
import type { SubmitInput, SubmitOutcome } from '../../src/runtime/submit.js';

// Issue 61: /goal's part with a scripted check. It ends only when the check says met, or at a
// limit (turns, cost); background work parks it and it checks in with a growing pause; a stop
// sends nothing more; the check's answer counts only as a JSON verdict.

const flush = () => new Promise((resolve) => setImmediate(resolve));

function harness(options: { verdicts: string[]; costPerTurn?: number; background?: number[] }) {
  const session = { totalUsage: { costUsd: 0 }, messages: [], model: 'm', emit: () => undefined };
  const prompts: string[] = [];
  const pauses: number[] = [];
  let wake: (() => void) | undefined;
  let checks = 0;
  let backgroundChecks = 0;
  let hold: Promise<void> | undefined;
  const goals = createGoals({
    live: { session: session as never },
    client: {
      chat: async () => ({ text: options.verdicts[Math.min(checks++, options.verdicts.length - 1)]!, usage: { inputTokens: 100, outputTokens: 20 } }),
    } as never,
    runningBackgroundTasks: () => options.background?.[backgroundChecks++] ?? 0,
    setTimeout: (run, ms) => {
      pauses.push(ms);
      wake = run;
      return pauses.length;
    },
    clearTimeout: () => undefined,
  });
  goals.connect(async (input: SubmitInput): Promise<SubmitOutcome> => {
    prompts.push(input.text);
    expect(input.whenIdle).toBe(true);
    await hold;
    session.totalUsage.costUsd += options.costPerTurn ?? 0;
    return { kind: 'turn', turn: { result: { stopReason: 'completed' } } } as never;
  });
  return {
    goals,
    prompts,
    pauses,
    checks: () => checks,
    wake: () => wake?.(),
    hold(promise: Promise<void>) {
      hold = promise;
    },
  };
}

async function settle(goals: { active: boolean }, rounds = 50) {
  for (let i = 0; i < rounds && goals.active; i++) await flush();
}

describe('/goal', () => {
  it('keeps working while the check says no, and ends when it says met', async () => {
    const { goals, prompts, checks } = harness({
      verdicts: ['{"met": false, "reason": "1 test fails"}', 'No JSON here, but it sounds done: met: true', '{"met": true, "reason": "12 passing"}'],
    });
    goals.set('npm test passes');
    await settle(goals);
    expect(goals.current()).toMatchObject({ phase: 'met', turns: 3, reason: '12 passing' });
    expect(checks()).toBe(3);
    expect(prompts[0]).toContain('Work toward this goal until it holds: npm test passes');
    expect(prompts[1]).toContain('The check said: 1 test fails');
    expect(prompts[2]).toContain("The check said: the check's answer was not a verdict");
  });

  it('stops at its cost limit when the check never passes', async () => {
    const { goals, prompts } = harness({ verdicts: ['{"met": false, "reason": "no evidence"}'], costPerTurn: 0.02 });
    goals.set('the docs build', { maxCostUsd: 0.05 });
    await settle(goals);
    expect(prompts).toHaveLength(3);
    expect(goals.current()).toMatchObject({ phase: 'limit', reason: 'Its cost limit ($0.05) was reached; the check said: no evidence' });
  });

  it('stops at its turn limit', async () => {
    const { goals, prompts } = harness({ verdicts: ['{"met": false, "reason": "no evidence"}'] });
    goals.set('the release notes exist', { maxTurns: 2 });
    await settle(goals);
    expect(prompts).toHaveLength(2);
    expect(goals.current()?.phase).toBe('limit');
  });

  it('parks while background work runs and checks in after 15 s, then 30 s; idle again, it works on at once', async () => {
    const { goals, prompts, pauses, wake } = harness({
      verdicts: [
        '{"met": false, "reason": "the build still runs"}',
        '{"met": false, "reason": "still"}',
        '{"met": false, "reason": "one failure"}',
        '{"met": true, "reason": "built"}',
      ],
      background: [1, 1, 0],
    });
    goals.set('the build passes');
    for (let i = 0; i < 20; i++) await flush();
    expect(goals.current()).toMatchObject({ phase: 'parked' });
    expect(pauses).toEqual([15_000]);
    expect(prompts).toHaveLength(1);
    wake();
    for (let i = 0; i < 20; i++) await flush();
    expect(prompts[1]).toContain('Checking in on the goal (background work was still running): the build passes');
    expect(pauses).toEqual([15_000, 30_000]);
    wake();
    await settle(goals);
    expect(pauses).toEqual([15_000, 30_000]);
    expect(prompts[3]).toContain('The goal does not hold yet. The check said: one failure');
    expect(goals.current()).toMatchObject({ phase: 'met', turns: 4 });
  });

  it('a stop during a turn (Esc, /goal clear) sends nothing more', async () => {
    const { goals, prompts, checks, hold } = harness({ verdicts: ['{"met": false, "reason": "no"}'] });
    let release!: () => void;
    hold(new Promise<void>((resolve) => (release = resolve)));
    goals.set('it works');
    await flush();
    expect(goals.stop('Stopped by the user.')).toMatchObject({ phase: 'stopped' });
    release();
    for (let i = 0; i < 20; i++) await flush();
    expect(prompts).toHaveLength(1);
    expect(checks()).toBe(0);
    expect(() => goals.set('   ')).toThrow('Say what must hold');
  });
});

describe("the check's verdict", () => {
  it('is met only for a JSON object whose met is true', () => {
    expect(readVerdict('{"met": true, "reason": "tests pass"}')).toEqual({ met: true, reason: 'tests pass' });
    expect(readVerdict('Sure! {"met": "true"}').met).toBe(false);
    expect(readVerdict('met: true').met).toBe(false);
    expect(readVerdict('{"met": false} and then {"met": true}').met).toBe(false);
    expect(readVerdict('').reason).toBe("the check's answer was not a verdict (empty)");
  });
});
