import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLoadSkillTool, loadPlugins, type PluginCatalog } from '../../src/plugins/index.js';
import { readAgentFile } from '../../src/plugins/agent-file.js';
import { buildSystemPrompt } from '../../src/prompt/index.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** A plugin whose planner agent has two skills of its own and exposes one of them (plus one it lacks). */
async function plannerPlugin(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'beans-agent-skills-'));
  const kit = path.join(root, 'kit');
  await write(
    path.join(kit, 'agents', 'planner.md'),
    '---\nname: planner\ndescription: Plans work.\nskills:\n  expose: [estimate, missing]\n---\nPLANNER body.\n',
  );
  await write(
    path.join(kit, 'agents', 'planner', 'skills', 'estimate', 'SKILL.md'),
    '---\nname: estimate\ndescription: Estimates effort in days.\n---\nESTIMATE body: count the steps.\n',
  );
  await write(path.join(kit, 'agents', 'planner', 'skills', 'estimate', 'table.md'), 'step | days\n');
  await write(path.join(kit, 'agents', 'planner', 'skills', 'secret-plan.md'), '---\ndescription: How the planner splits work.\n---\nSECRET body.\n');
  await write(path.join(kit, 'agents', 'helper.md'), '---\nname: helper\ndescription: Helps.\n---\nHELPER body.\n');
  await write(path.join(kit, 'skills', 'style', 'SKILL.md'), '---\nname: style\ndescription: House style.\n---\nSTYLE body.\n');
  return root;
}

describe("an agent's own skills", () => {
  let catalog: PluginCatalog;
  beforeAll(async () => {
    catalog = await loadPlugins({ roots: [await plannerPlugin()] });
  });

  it('are found beside the agent file, and are neither agents nor plugin skills', () => {
    expect(catalog.agents().map((agent) => agent.name)).toEqual(['helper', 'planner']);
    const planner = catalog.findAgent('planner');
    expect(planner?.ownSkills?.map((skill) => skill.name)).toEqual(['estimate', 'secret-plan']);
    expect(catalog.findAgent('helper')?.ownSkills).toBeUndefined();
    expect(catalog.findSkill('secret-plan')).toBeUndefined();
    expect(catalog.findSkill('estimate')).toBeUndefined();
  });

  it('show to callers only the exposed ones, as <agent>:<skill>', () => {
    expect(catalog.skills().map((skill) => skill.name)).toEqual(['style', 'planner:estimate']);
    const prompt = buildSystemPrompt({ profile: { systemPrompt: 'MAIN' }, skills: catalog.skills(), workspace });
    expect(prompt).toContain('- planner:estimate: Estimates effort in days.');
    expect(prompt).not.toContain('secret-plan');
  });

  it('load through load_skill as <agent>:<skill>, files of its folder too; a private one does not', async () => {
    const loadSkill = createLoadSkillTool(catalog);
    const context = { signal: new AbortController().signal, workspace, state: {} } as never;
    const exposed = await loadSkill.execute({ name: 'planner:estimate' }, context);
    expect(exposed.isError).toBeFalsy();
    expect(exposed.content).toContain('# Skill: planner:estimate (agent planner)');
    expect(exposed.content).toContain('ESTIMATE body: count the steps.');
    const file = await loadSkill.execute({ name: 'planner:estimate/table.md' }, context);
    expect(file.content).toContain('step | days');
    const hidden = await loadSkill.execute({ name: 'secret-plan' }, context);
    expect(hidden.isError).toBe(true);
    expect(hidden.content).not.toContain('SECRET');
  });

  it('report an exposed name that is not one of its own skills, and ignore it', () => {
    const problems = catalog.problems.filter((problem) => problem.path.endsWith(path.join('agents', 'planner.md'))).map((problem) => problem.message);
    expect(problems).toEqual(['skills.expose names "missing", which is not one of its own skills (planner/skills/); ignored']);
    expect(catalog.findSkill('planner:missing')).toBeUndefined();
  });

  it("read Claude Code's `skills: [a, b]` as skills to preload, and report one that is not installed", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'beans-agent-preload-'));
    await write(path.join(root, 'kit', 'agents', 'writer.md'), '---\nname: writer\ndescription: Writes.\nskills: style, nowhere\n---\nWRITER body.\n');
    await write(path.join(root, 'kit', 'skills', 'style.md'), '---\ndescription: House style.\n---\nSTYLE body.\n');
    const loaded = await loadPlugins({ roots: [root] });
    expect(loaded.findAgent('writer')?.preloadSkills).toEqual(['style', 'nowhere']);
    expect(loaded.problems.map((problem) => problem.message)).toEqual([
      'skills: preloads "nowhere", which is not an installed skill nor one of its own; left out',
    ]);
  });

  it("never follow a link out of their plugin, or out of a profile file's folder", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'beans-agent-leak-'));
    const secret = path.join(root, 'secret.md');
    await write(secret, '---\nname: leak\ndescription: looks harmless\n---\nSECRET-KEY-123\n');
    await write(path.join(root, 'kit', 'agents', 'planner.md'), '---\nname: planner\ndescription: Plans.\n---\nPLANNER body.\n');
    await mkdir(path.join(root, 'kit', 'agents', 'planner', 'skills', 'leak'), { recursive: true });
    await symlink(secret, path.join(root, 'kit', 'agents', 'planner', 'skills', 'leak', 'SKILL.md'));
    const loaded = await loadPlugins({ roots: [root] });
    expect(loaded.findAgent('planner')?.ownSkills).toBeUndefined();
    expect(loaded.problems.map((problem) => problem.message).join('\n')).toContain('outside its plugin');

    const profileDir = path.join(root, 'repo', '.beans');
    await write(path.join(profileDir, 'agent.md'), '---\nname: agent\n---\nBody.\n');
    await mkdir(path.join(profileDir, 'agent', 'skills'), { recursive: true });
    await symlink(secret, path.join(profileDir, 'agent', 'skills', 'leak.md'));
    const profile = readAgentFile(path.join(profileDir, 'agent.md'), '---\nname: agent\n---\nBody.\n', 'profile');
    expect(profile.ownSkills).toBeUndefined();
    expect(profile.skillProblems.map((problem) => problem.message).join('\n')).toContain('is a link to');
  });
});
