import { describe, expect, it } from 'vitest';
import { parseWorkflow, WorkflowError } from '../../src/workflows/index.js';
import { RELEASE_NOTES } from './fixtures.js';

async function problemsOf(text: string): Promise<string[]> {
  try {
    await parseWorkflow(text, '/w/bad.md');
  } catch (error) {
    if (error instanceof WorkflowError) return error.problems.map((problem) => `${problem.line}: ${problem.message}`);
    throw error;
  }
  throw new Error('the workflow parsed');
}

describe('parseWorkflow', () => {
  it('reads every step kind of the example with its line, weight, store and retry', async () => {
    const workflow = await parseWorkflow(RELEASE_NOTES, '/w/release.md');
    expect(workflow.name).toBe('release-notes');
    expect(workflow.inputs.since).toEqual({ description: 'tag or commit to start from', default: 'HEAD~20', required: false });
    expect(workflow.retry).toEqual({ maxAttempts: 3, backoffMs: 10, backoffMultiplier: 2 });
    expect(workflow.maxDurationMs).toBe(600000);
    expect(workflow.steps.map((step) => [step.kind, step.weight, step.line])).toEqual([
      ['call', 20, 11],
      ['parallel', 40, 15],
      ['loop', 25, 19],
      ['conditional', 5, 23],
      ['transform', 10, 27],
    ]);
    const loop = workflow.steps[2];
    expect(loop.kind === 'loop' && loop.steps[0].kind === 'call' && loop.steps[0].store).toEqual({ name: 'checks', append: true });
  });

  it('reports each problem with the line it is on, before anything runs', async () => {
    const text = [
      '---', // 1
      'name: broken', // 2
      'steps:', // 3
      '  - call: planner', // 4
      '    wieght: 3', // 5
      '  - transform: "a +"', // 6
      '  - loop: { over: "${items}" }', // 7
      '  - { call: a, transform: b }', // 8
      '  - conditional: "${x = }"', // 9
      '    then: []', // 10
      '  - { store: x }', // 11
      '---',
    ].join('\n');
    const problems = await problemsOf(text);
    expect(problems).toEqual([
      '4: unknown key wieght',
      expect.stringMatching(/^6: the expression "a \+" is not valid JSONata/),
      expect.stringMatching(/^7: steps: /),
      '8: a step has both call and transform; make them separate steps',
      expect.stringMatching(/^9: the expression "\$\{x = \}" is not valid JSONata/),
      '11: a step needs one of call, parallel, loop, conditional, transform',
    ]);
  });

  it('names the file and line in the error message, and YAML syntax errors too', async () => {
    const error = await parseWorkflow('---\nname: x\nsteps:\n  - call: [unclosed\n---\n', '/w/bad.md').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).message).toMatch(/^The workflow is not valid:\n\/w\/bad\.md:\d+: /);
    expect((error as WorkflowError).exitCode).toBe(2);
  });

  it('refuses an output no step stores, and a file without frontmatter', async () => {
    expect(await problemsOf('---\noutput: nope\nsteps:\n  - transform: "1"\n    store: one\n---\n')).toEqual([
      '2: output names "nope", but no step stores it (stored: one)',
    ]);
    expect(await problemsOf('# just text\n')).toEqual(['1: a workflow starts with YAML frontmatter between two `---` lines']);
  });
});
