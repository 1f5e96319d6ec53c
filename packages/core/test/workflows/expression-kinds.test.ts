// Issue 37, item 1: a conditional that is not true or false, or a loop list that is not a list, stops
// the run saying where and what it yielded; `.length` (a JavaScript habit JSONata lacks) is flagged
// before the run.
import { describe, expect, it } from 'vitest';
import { executeRun, parseWorkflow, WorkflowError, type RunState, type Workflow } from '../../src/workflows/index.js';

const state = (workflow: Workflow): RunState => ({
  id: 'r1',
  workflow: { name: workflow.name, path: workflow.path },
  status: 'running',
  inputs: {},
  artifacts: {},
  done: [],
  loops: {},
  branches: {},
  percent: 0,
  startedAt: '',
  updatedAt: '',
  elapsedMs: 0,
});

const doc = (steps: string) => `---\nname: kinds\nsteps:\n  - transform: '\${ {"ok": true} }'\n    store: checks\n${steps}---\n`;

async function run(steps: string): Promise<{ error?: string; calls: string[] }> {
  const workflow = await parseWorkflow(doc(steps), '/w/kinds.md');
  const calls: string[] = [];
  const ended = await executeRun({
    workflow,
    state: state(workflow),
    save: () => {},
    runner: { run: async (call) => (calls.push(call.agent), 'done') },
    onProgress: () => {},
  });
  return ended.status === 'failed' ? { error: ended.error, calls } : { calls };
}

describe('what a conditional and a loop list must yield', () => {
  it('a conditional that yields undefined (a misspelt field) stops the run with the file, line, expression and value', async () => {
    const outcome = await run(`  - conditional: "\${chekcs.ok}"\n    then: [ { call: fixer } ]\n    else: [ { call: other } ]\n`);
    expect(outcome.calls).toEqual([]);
    expect(outcome.error).toContain('/w/kinds.md:');
    expect(outcome.error).toContain('"${chekcs.ok}"');
    expect(outcome.error).toMatch(/yielded undefined .* not true or false/);
  });

  it('a conditional that yields a list or text is not quietly truthy', async () => {
    expect((await run(`  - conditional: "\${[1, 2]}"\n    then: [ { call: fixer } ]\n`)).error).toMatch(/yielded a list \[1,2\], not true or false/);
    expect((await run(`  - conditional: "\${'yes'}"\n    then: [ { call: fixer } ]\n`)).error).toMatch(/yielded string "yes"/);
  });

  it('true and false still choose the branch', async () => {
    expect(await run(`  - conditional: "\${checks.ok = true}"\n    then: [ { call: fixer } ]\n    else: [ { call: other } ]\n`)).toEqual({ calls: ['fixer'] });
    expect(await run(`  - conditional: "\${$count(checks) > 3}"\n    then: [ { call: fixer } ]\n    else: [ { call: other } ]\n`)).toEqual({
      calls: ['other'],
    });
  });

  it("a loop's list must be a list: undefined and a lone value stop the run, [] keeps a lone match a list", async () => {
    expect((await run(`  - loop: { over: "\${missing}", as: item }\n    steps: [ { call: checker } ]\n`)).error).toMatch(
      /over expression "\$\{missing\}" yielded undefined/,
    );
    expect((await run(`  - loop: { over: "\${checks.ok}", as: item }\n    steps: [ { call: checker } ]\n`)).error).toMatch(/yielded boolean true, not a list/);
    expect(await run(`  - loop: { over: "\${checks.ok[]}", as: item }\n    steps: [ { call: checker } ]\n`)).toEqual({ calls: ['checker'] });
  });

  it('validation flags `.length` before the run, with the JSONata words to use', async () => {
    const parsed = parseWorkflow(doc(`  - conditional: "\${checks.length > 0}"\n    then: [ { call: fixer } ]\n`), '/w/kinds.md');
    await expect(parsed).rejects.toBeInstanceOf(WorkflowError);
    await expect(parsed).rejects.toThrow(/"length".*\$count\(list\) or \$length\(text\)/);
    await expect(
      parseWorkflow(doc(`  - conditional: "\${$count(checks) > 0 and $length('ab') = 2}"\n    then: [ { call: fixer } ]\n`), '/w/kinds.md'),
    ).resolves.toBeDefined();
  });
});
