import { describe, expect, it } from 'vitest';
import { executeRun, parseWorkflow, type AgentCall, type RunState, type Workflow, type WorkflowProgress } from '../../src/workflows/index.js';
import { RELEASE_NOTES } from './fixtures.js';

function freshState(workflow: Workflow, inputs: Record<string, unknown> = { since: 'v1' }): RunState {
  return {
    id: 'r1',
    workflow: { name: workflow.name, path: workflow.path },
    status: 'running',
    inputs,
    artifacts: {},
    done: [],
    loops: {},
    branches: {},
    percent: 0,
    startedAt: '',
    updatedAt: '',
    elapsedMs: 0,
  };
}

function inputOf(call: AgentCall): Record<string, unknown> {
  return JSON.parse(call.prompt.split('Input (JSON):\n')[1].split('\n\nReport')[0]) as Record<string, unknown>;
}

/** Answers like the agents: a plan with two items, parts, a check per item, a fix. */
async function answer(call: AgentCall): Promise<string> {
  const input = inputOf(call);
  if (call.agent === 'planner') {
    call.onProgress(50, 'reading history');
    return '```json\n{"items": ["a", "b", "c"]}\n```';
  }
  if (call.agent === 'writer') return `${String(input.part)} written`;
  if (call.agent === 'checker') return JSON.stringify({ item: input.item, ok: input.item !== 'b' });
  return 'fixes rewritten';
}

describe('executeRun', () => {
  it('runs every step kind in order, stores artifacts and returns the output', async () => {
    const workflow = await parseWorkflow(RELEASE_NOTES, '/w/release.md');
    const calls: string[] = [];
    const progress: WorkflowProgress[] = [];
    const saves: RunState[] = [];
    const state = await executeRun({
      workflow,
      state: freshState(workflow),
      save: (next) => saves.push(structuredClone(next)),
      runner: { run: async (call) => (calls.push(`${call.agent}:${JSON.stringify(inputOf(call))}`), answer(call)) },
      onProgress: (report) => progress.push(report),
    });
    expect(state.status).toBe('completed');
    expect(calls).toEqual([
      'planner:{"since":"v1"}',
      'writer:{"part":"features","plan":{"items":["a","b","c"]}}',
      'writer:{"part":"fixes","plan":{"items":["a","b","c"]}}',
      'checker:{"item":"a"}',
      'checker:{"item":"b"}',
      'checker:{"item":"c"}',
      expect.stringMatching(/^fixer:\{"checks":\[\{"item":"a","ok":true\}/),
    ]);
    expect(state.artifacts.checks).toHaveLength(3);
    expect(state.result).toBe('features written\n\nfixes rewritten');
    // The planner owns 0-20 %; its own 50 % is 10 % overall.
    expect(progress.find((report) => report.message === 'reading history')).toMatchObject({ percent: 10, range: [0, 20], local: 50 });
    const percents = progress.map((report) => report.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBe(100);
    // Each loop iteration is checkpointed, with the items fixed when the loop started.
    expect(saves.some((saved) => saved.done.includes('2/i0') && !saved.done.includes('2/i1'))).toBe(true);
    expect(saves.find((saved) => saved.loops['2'])?.loops['2']).toEqual(['a', 'b', 'c']);
  });

  it('resumes from a checkpoint without repeating a finished step, iteration or branch', async () => {
    const workflow = await parseWorkflow(RELEASE_NOTES, '/w/release.md');
    let snapshot: RunState | undefined;
    // The "crash": the second checker call never returns and the process is gone.
    const crashed = new AbortController();
    await executeRun({
      workflow,
      state: freshState(workflow),
      save: (next) => (snapshot = structuredClone(next)),
      signal: crashed.signal,
      runner: {
        run: async (call) => {
          if (call.agent === 'checker' && inputOf(call).item === 'b') {
            const crashedSnapshot = structuredClone(snapshot!);
            crashed.abort();
            snapshot = crashedSnapshot;
            throw new Error('gone');
          }
          return answer(call);
        },
      },
    });
    expect(snapshot!.done).toContain('2/i0');
    const resumedCalls: string[] = [];
    const progress: number[] = [];
    const resumed = await executeRun({
      workflow,
      state: { ...snapshot!, status: 'interrupted' },
      save: () => {},
      runner: { run: async (call) => (resumedCalls.push(`${call.agent}:${String(inputOf(call).item ?? '')}`), answer(call)) },
      onProgress: (report) => progress.push(report.percent),
    });
    expect(resumed.status).toBe('completed');
    expect(resumedCalls).toEqual(['checker:b', 'checker:c', 'fixer:']);
    expect(resumed.artifacts.checks).toHaveLength(3);
    expect(progress[0]).toBeGreaterThanOrEqual(snapshot!.percent);
    expect(progress.at(-1)).toBe(100);
  });

  it('retries a failing call with exponential backoff, then gives up with the step and line', async () => {
    const workflow = await parseWorkflow(RELEASE_NOTES, '/w/release.md');
    const waits: number[] = [];
    let plannerCalls = 0;
    const state = await executeRun({
      workflow,
      state: freshState(workflow),
      save: () => {},
      sleep: async (ms) => void waits.push(ms),
      runner: {
        run: async (call) => {
          if (call.agent === 'planner' && ++plannerCalls <= 2) throw new Error('HTTP 500');
          if (call.agent === 'fixer') throw new Error('model refused');
          return answer(call);
        },
      },
    });
    expect(plannerCalls).toBe(3);
    expect(waits).toEqual([10, 20, 10, 20]);
    expect(state.status).toBe('failed');
    expect(state.error).toBe('Step "fixer (then)" (line 24) failed after 3 attempts: model refused');
  });

  it('stops at maxDurationMs, aborting the call in flight, and a resume gets a new budget', async () => {
    const text = RELEASE_NOTES.replace('maxDurationMs: 600000', 'maxDurationMs: 150');
    const workflow = await parseWorkflow(text, '/w/release.md');
    const hang = (call: AgentCall) => new Promise<string>((_, reject) => call.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const state = await executeRun({
      workflow,
      state: freshState(workflow),
      save: () => {},
      runner: { run: async (call) => (call.agent === 'writer' ? hang(call) : answer(call)) },
    });
    expect(state.status).toBe('timed_out');
    expect(state.done).toEqual(['0']);
    expect(state.error).toMatch(/maxDurationMs of 150 ms; resume it/);
    const resumed = await executeRun({ workflow, state, save: () => {}, runner: { run: answer } });
    expect(resumed.status).toBe('completed');
  });

  it('a failing parallel branch stops its sibling and fails the run', async () => {
    const workflow = await parseWorkflow(RELEASE_NOTES.replace(/retry: .*\n/, ''), '/w/release.md');
    let siblingAborted = false;
    const state = await executeRun({
      workflow,
      state: freshState(workflow),
      save: () => {},
      runner: {
        run: async (call) => {
          const input = inputOf(call);
          if (input.part === 'features') throw new Error('writer crashed');
          if (input.part === 'fixes')
            return new Promise((_, reject) => call.signal.addEventListener('abort', () => ((siblingAborted = true), reject(new Error('stopped')))));
          return answer(call);
        },
      },
    });
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/writer \(parallel 1\/2\).*writer crashed/);
    expect(siblingAborted).toBe(true);
  });
});

describe('expression failures at run time', () => {
  it('fail the step with its line instead of crashing the run', async () => {
    const workflow = await parseWorkflow(
      '---\nname: w\nsteps:\n  - transform: "1"\n    store: one\n  - call: worker\n    input: { x: "${$number(\'not a number\') + one}" }\n---\n',
      '/w/w.md',
    );
    const state = await executeRun({ workflow, state: freshState(workflow), save: () => {}, runner: { run: async () => 'never' } });
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/^Step "worker" \(line 6\): its input could not be rendered: /);
    expect(state.done).toEqual(['0']);
  });
});

describe('checkpoint failures', () => {
  it('stop the run with a StorageError that says what to do, instead of crashing in a timer', async () => {
    const workflow = await parseWorkflow(RELEASE_NOTES, '/w/release.md');
    let saves = 0;
    const calls: string[] = [];
    const outcome = await executeRun({
      workflow,
      state: freshState(workflow),
      save: () => {
        if (++saves > 2) throw new Error('ENOSPC: no space left on device');
      },
      runner: { run: async (call) => (calls.push(call.agent), answer(call)) },
    }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).name).toBe('StorageError');
    expect((outcome as Error).message).toMatch(/Cannot write the checkpoint of run r1: ENOSPC.*then resume the run\.$/);
    expect(calls.length).toBeLessThan(4);
  });
});
