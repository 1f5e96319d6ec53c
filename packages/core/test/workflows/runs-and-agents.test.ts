import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SubagentDefinition } from '../../src/subagents/index.js';
import { findWorkflow, listWorkflows, parseWorkflow, renderValue, resolveWorkflowAgents, RunStore, WorkflowError } from '../../src/workflows/index.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));
const temp = () => (root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-wf-'))));

describe('RunStore', () => {
  it('checkpoints atomically, finds a run by prefix, and reads a run left running by a dead process as interrupted', async () => {
    const dir = temp();
    const store = new RunStore(dir);
    const workflow = await parseWorkflow('---\nname: w\nsteps:\n  - transform: "1"\n---\n', path.join(dir, 'w.md'));
    const state = store.create(workflow, { a: 1 });
    expect(store.workflowSource(state.id)).toBe(workflow.source);
    expect(store.load(state.id.slice(0, 17))).toMatchObject({ id: state.id, status: 'running', inputs: { a: 1 } });
    store.save({ ...state, pid: 2 ** 22 + 12345 });
    expect(store.load(state.id)).toMatchObject({ status: 'interrupted', error: expect.stringContaining('stopped') });
    expect(readdirSync(path.join(store.dir, state.id)).sort()).toEqual(['state.json', 'workflow.md']);
    expect(() => store.load('nope')).toThrow(/no workflow run "nope".*beans workflow runs/);
  });
});

describe('workflow agents and listings', () => {
  const plugin: SubagentDefinition = { name: 'planner', qualifiedName: 'team:planner', description: 'plans', prompt: async () => 'plan' };

  it('resolves plugin agents by name or plugin:name and agent files next to the workflow, and reports unknown ones by line', async () => {
    const dir = temp();
    mkdirSync(path.join(dir, 'agents'));
    writeFileSync(path.join(dir, 'agents', 'writer.md'), '---\nname: scribe\ndescription: writes\ntools: Read, Grep\n---\nWrite well.\n');
    const text = '---\nsteps:\n  - call: planner\n  - call: team:planner\n  - call: ./agents/writer.md\n  - call: ghost\n  - call: ./agents/missing.md\n---\n';
    const error = await resolveWorkflowAgents(await parseWorkflow(text, path.join(dir, 'w.md')), { subagents: [plugin], workspace: { root: dir } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).problems.map((problem) => problem.line)).toEqual([6, 7]);
    expect((error as WorkflowError).problems[0]!.message).toMatch(/no agent "ghost" \(agents: planner\)/);

    const agents = await resolveWorkflowAgents(
      await parseWorkflow(text.replace(/ {2}- call: ghost\n {2}- call: .\/agents\/missing.md\n/, ''), path.join(dir, 'w.md')),
      { subagents: [plugin], workspace: { root: dir } },
    );
    expect(agents.get('team:planner')).toBe(plugin);
    const writer = agents.get('./agents/writer.md')!;
    expect(writer).toMatchObject({ name: 'scribe', tools: ['read_file', 'grep'] });
    expect(await writer.prompt()).toBe('Write well.');
  });

  it('gives a path agent its own skills from the folder named after its file, preloads, and reports a broken one by line', async () => {
    const dir = temp();
    mkdirSync(path.join(dir, 'agents', 'writer', 'skills', 'tone'), { recursive: true });
    writeFileSync(path.join(dir, 'agents', 'writer.md'), '---\nname: scribe\ndescription: writes\nskills: [style]\n---\nWrite well.\n');
    writeFileSync(path.join(dir, 'agents', 'writer', 'skills', 'tone', 'SKILL.md'), '---\nname: tone\ndescription: Plain words.\n---\nTONE body.\n');
    const text = '---\nsteps:\n  - call: ./agents/writer.md\n---\n';
    const writer = (await resolveWorkflowAgents(await parseWorkflow(text, path.join(dir, 'w.md')), { subagents: [], workspace: { root: dir } })).get(
      './agents/writer.md',
    )!;
    expect(writer.skills?.map((skill) => [skill.name, skill.agent])).toEqual([['tone', 'scribe']]);
    expect(await writer.skills![0]!.loadBody()).toBe('TONE body.');
    expect(writer.preloadSkills).toEqual(['style']);

    writeFileSync(path.join(dir, 'agents', 'writer.md'), '---\nname: scribe\nskills: { expose: [tone], share: [x] }\n---\nWrite well.\n');
    const error = await resolveWorkflowAgents(await parseWorkflow(text, path.join(dir, 'w.md')), { subagents: [], workspace: { root: dir } }).catch(
      (caught: unknown) => caught,
    );
    expect((error as WorkflowError).problems).toEqual([{ line: 3, message: expect.stringContaining('skills: has "share", which Beans does not know') }]);
  });

  it("refuses an agent file outside the workspace and the workflow's own folder, by path or by link", async () => {
    const dir = temp();
    const repo = path.join(dir, 'repo');
    const workflows = path.join(repo, '.beans', 'workflows');
    mkdirSync(workflows, { recursive: true });
    writeFileSync(path.join(dir, 'secret.md'), 'SECRET-KEY-123\n');
    symlinkSync(path.join(dir, 'secret.md'), path.join(workflows, 'linked.md'));
    mkdirSync(path.join(repo, 'agents'));
    writeFileSync(path.join(repo, 'agents', 'writer.md'), 'Write well.\n');
    const text = '---\nsteps:\n  - call: ../../../secret.md\n  - call: ./linked.md\n  - call: ../../agents/writer.md\n---\n';
    const error = await resolveWorkflowAgents(await parseWorkflow(text, path.join(workflows, 'w.md')), { subagents: [], workspace: { root: repo } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkflowError);
    const problems = (error as WorkflowError).problems;
    expect(problems.map((problem) => problem.line)).toEqual([3, 4]);
    for (const problem of problems) expect(problem.message).toContain('outside the workspace');
  });

  it('lists workspace workflows before plugin ones and finds them by name, plugin:name or path', () => {
    const dir = temp();
    mkdirSync(path.join(dir, '.beans', 'workflows'), { recursive: true });
    mkdirSync(path.join(dir, 'plug', 'workflows'), { recursive: true });
    writeFileSync(path.join(dir, '.beans', 'workflows', 'release.md'), '---\nname: release\ndescription: Ship it\nsteps: []\n---\n');
    writeFileSync(path.join(dir, 'plug', 'workflows', 'triage.md'), '---\ndescription: Sort issues\n---\n');
    writeFileSync(path.join(dir, 'plug', 'workflows', 'README.md'), '# not a workflow\n');
    const listings = listWorkflows(dir, [{ name: 'plug', root: path.join(dir, 'plug') }]);
    expect(listings.map((listing) => [listing.qualifiedName, listing.source, listing.description])).toEqual([
      ['release', 'workspace', 'Ship it'],
      ['plug:triage', 'plugin:plug', 'Sort issues'],
    ]);
    expect(findWorkflow('triage', dir, listings)).toBe(path.join(dir, 'plug', 'workflows', 'triage.md'));
    expect(findWorkflow('plug:triage', dir, listings)).toBe(path.join(dir, 'plug', 'workflows', 'triage.md'));
    expect(findWorkflow('.beans/workflows/release.md', dir, listings)).toBe(path.join(dir, '.beans', 'workflows', 'release.md'));
    expect(() => findWorkflow('nothing', dir, listings)).toThrow(/Workflows: release, plug:triage/);
  });
});

describe('templates', () => {
  it('keeps the type of a whole ${...} and interpolates text; braces and quotes inside expressions are fine', async () => {
    const scope = { input: { since: 'v1' }, plan: { items: ['a', 'b'] } };
    expect(await renderValue({ items: '${plan.items}', title: 'since ${input.since}: ${$count(plan.items)} items', raw: 3 }, scope)).toEqual({
      items: ['a', 'b'],
      title: 'since v1: 2 items',
      raw: 3,
    });
    expect(await renderValue('${ {"k": "}"}.k }', scope)).toBe('}');
    expect(await renderValue('${plan}', scope)).toEqual({ items: ['a', 'b'] });
  });
});
