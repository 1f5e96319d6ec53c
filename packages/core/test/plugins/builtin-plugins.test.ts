import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLoadSkillTool, expandCommand, loadPlugins, reportBuiltinClashes, skillsTriggeredBy, type PluginCatalog } from '../../src/plugins/index.js';
import { createToolSessionState } from '../../src/tools/tool.js';
import { builtinTools } from '../../src/tools/builtin.js';

const builtinPlugins = path.resolve(import.meta.dirname, '../../../../plugins');

describe('the built-in plugins', () => {
  let catalog: PluginCatalog;
  beforeAll(async () => {
    catalog = await loadPlugins({ roots: [{ dir: builtinPlugins, kind: 'builtin' }] });
  });

  it('load without a single problem, clashes with built-in commands included', () => {
    reportBuiltinClashes(catalog);
    expect(catalog.problems).toEqual([]);
  });

  it('ship the agents, skills and commands users meet on day one, each described', () => {
    const summary = Object.fromEntries(
      catalog.plugins.map((plugin) => [
        plugin.name,
        { agents: plugin.agents.map((a) => a.name), skills: plugin.skills.map((s) => s.name), commands: plugin.commands.map((c) => c.name) },
      ]),
    );
    expect(summary).toEqual({
      'code-development': { agents: ['reviewer', 'test-writer'], skills: ['commit-message', 'debug-failing-test'], commands: ['explain', 'review'] },
      'devops-operations': { agents: ['ci-investigator', 'dockerfile-reviewer'], skills: ['read-logs'], commands: [] },
      'general-assistant': { agents: ['default'], skills: [], commands: [] },
    });
    for (const entry of [...catalog.agents(), ...catalog.skills(), ...catalog.commands()]) {
      expect(entry.description.length, entry.path).toBeGreaterThan(40);
    }
    for (const plugin of catalog.plugins) expect(plugin.version).toBe('0.1.0');
  });

  it('give agents tool lists that name only real Beans tools', () => {
    const known = new Set([...builtinTools().map((tool) => tool.name), 'load_skill']);
    expect(catalog.findAgent('reviewer')?.tools).toEqual(['read_file', 'glob', 'grep', 'list_directory', 'shell']);
    for (const agent of catalog.agents()) {
      for (const tool of agent.tools ?? []) expect(known.has(tool), `${agent.name}: ${tool}`).toBe(true);
    }
  });

  it('expand /review 42 with the number in place', async () => {
    const expansion = await expandCommand('/review 42', catalog);
    expect(expansion?.prompt.split('\n')[0]).toBe('Review this: 42');
    expect(expansion?.prompt).not.toContain('$ARGUMENTS');
    expect(expansion?.prompt).not.toContain('ARGUMENTS:');
  });

  it('load the read-logs skill when the user asks to read the logs', () => {
    expect(skillsTriggeredBy('can you read the logs in tmp/app.log', catalog).map((skill) => skill.name)).toEqual(['read-logs']);
  });

  it("let the model read the debug skill's reference file through load_skill", async () => {
    const tool = createLoadSkillTool(catalog);
    const context = { signal: new AbortController().signal, workspace: { root: '/tmp', cwd: '/tmp', isGit: false }, state: createToolSessionState() };
    const skill = await tool.execute({ name: 'debug-failing-test' }, context);
    expect(skill.content).toContain('Files in it: references/flaky-tests.md');
    const reference = await tool.execute({ name: 'debug-failing-test/references/flaky-tests.md' }, context);
    expect(reference.isError).toBeFalsy();
    expect(reference.content).toContain('passes alone, fails in the full run');
  });
});
