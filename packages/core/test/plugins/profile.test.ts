import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { BUILTIN_DEFAULT_PROFILE, describeProfile, loadPlugins, resolveProfile, type PluginCatalog } from '../../src/plugins/index.js';

let base: string;
let workspace: string;
let pluginsRoot: string;
let catalog: PluginCatalog;

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'beans-profile-'));
  workspace = path.join(base, 'repo');
  pluginsRoot = path.join(base, 'plugins');
  await write(
    path.join(pluginsRoot, 'general-assistant', 'agents', 'default.md'),
    '---\nname: default\ndescription: The default agent\n---\nYou are the default agent.\n',
  );
  await write(
    path.join(pluginsRoot, 'code-development', 'agents', 'reviewer.md'),
    '---\nname: reviewer\ndescription: Reviews code\nmodel: sonnet\ntools: Read, grep, glob\n---\nYou review code.\n',
  );
  await mkdir(workspace, { recursive: true });
  catalog = await loadPlugins({ roots: [pluginsRoot] });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('the profile chain', () => {
  it('falls through to the general-assistant plugin default when nothing else is set', async () => {
    const profile = await resolveProfile({ workspaceRoot: workspace, catalog });
    expect(profile).toMatchObject({ name: 'default', source: 'default-plugin', plugin: 'general-assistant', systemPrompt: 'You are the default agent.' });
    expect(describeProfile(profile)).toBe('default (plugin agent general-assistant:default, the default profile)');
  });

  it('ends at the built-in default when no plugin provides one', async () => {
    const empty = await loadPlugins({ roots: [] });
    const profile = await resolveProfile({ workspaceRoot: workspace, catalog: empty });
    expect(profile).toMatchObject({ source: 'builtin', systemPrompt: BUILTIN_DEFAULT_PROFILE });
    expect(describeProfile(profile)).toMatch(/built-in profile/);
  });

  it('prefers .beans/agent.md over the plugin default', async () => {
    await write(path.join(workspace, '.beans', 'agent.md'), '---\nname: house-style\ntools: [Read]\n---\nFollow the house style.\n');
    const profile = await resolveProfile({ workspaceRoot: workspace, catalog });
    expect(profile).toMatchObject({ name: 'house-style', source: 'workspace', systemPrompt: 'Follow the house style.', tools: ['read_file'] });
    expect(describeProfile(profile)).toBe(`house-style (workspace profile ${path.join(workspace, '.beans', 'agent.md')})`);
  });

  it('lets --agent-profile <file> replace the workspace profile', async () => {
    await write(path.join(workspace, '.beans', 'agent.md'), 'Workspace profile.\n');
    await write(path.join(base, 'mine.md'), '---\nmodel: opus\n---\nMy own profile.\n');
    const profile = await resolveProfile({ agentProfile: 'mine.md', cwd: base, workspaceRoot: workspace, catalog });
    expect(profile).toMatchObject({ name: 'mine', source: 'flag-file', systemPrompt: 'My own profile.', model: 'opus' });
    expect(describeProfile(profile)).toBe(`mine (profile file ${path.join(base, 'mine.md')}, chosen by --agent-profile)`);
  });

  it('picks a plugin agent by name or plugin:name, with its model and tools', async () => {
    for (const value of ['reviewer', 'code-development:reviewer']) {
      const profile = await resolveProfile({ agentProfile: value, workspaceRoot: workspace, catalog });
      expect(profile).toMatchObject({
        name: 'reviewer',
        source: 'flag-agent',
        model: 'sonnet',
        tools: ['read_file', 'grep', 'glob'],
        systemPrompt: 'You review code.',
      });
      expect(describeProfile(profile)).toBe('reviewer (plugin agent code-development:reviewer, chosen by --agent-profile)');
    }
  });

  it('refuses an unknown agent or a missing file with a usage error listing the agents', async () => {
    const unknown = resolveProfile({ agentProfile: 'nobody', workspaceRoot: workspace, catalog });
    await expect(unknown).rejects.toBeInstanceOf(UsageError);
    await expect(unknown).rejects.toThrow(/No agent named "nobody".*Available agents: code-development:reviewer, general-assistant:default/);
    const missing = resolveProfile({ agentProfile: './missing.md', cwd: base, workspaceRoot: workspace, catalog });
    await expect(missing).rejects.toThrow(/No profile file \.\/missing\.md was found/);
    await expect(missing).rejects.toMatchObject({ exitCode: 2 });
  });

  it('prefers --agent-profile over -a', async () => {
    const generate = vi.fn(async () => 'unused');
    const profile = await resolveProfile({ agentProfile: 'reviewer', agentDescription: 'a poet', workspaceRoot: workspace, catalog, generate });
    expect(profile.source).toBe('flag-agent');
    expect(generate).not.toHaveBeenCalled();
  });
});

describe('-a, --agent-description', () => {
  const saved = (): string => path.join(workspace, '.beans', 'agent-profile.md');

  it('has the model write a profile, saves it with the description, and uses it over .beans/agent.md', async () => {
    await write(path.join(workspace, '.beans', 'agent.md'), 'Workspace profile.\n');
    const generate = vi.fn(async () => 'You are a terse SQL expert.');
    const profile = await resolveProfile({ agentDescription: 'a terse SQL expert: "fast" answers', workspaceRoot: workspace, catalog, generate });
    expect(generate).toHaveBeenCalledWith('a terse SQL expert: "fast" answers');
    expect(profile).toMatchObject({ source: 'description', systemPrompt: 'You are a terse SQL expert.', name: 'a-terse-sql-expert' });
    const file = await readFile(saved(), 'utf8');
    expect(file).toBe('---\nname: "a-terse-sql-expert"\ndescription: "a terse SQL expert: \\"fast\\" answers"\n---\n\nYou are a terse SQL expert.\n');
    expect(describeProfile(profile)).toBe(`a-terse-sql-expert (written from the -a description, saved in ${saved()})`);
  });

  it('reuses the saved profile without asking the model while the description is unchanged', async () => {
    const generate = vi.fn(async () => 'First version.');
    await resolveProfile({ agentDescription: 'a reviewer of shell scripts', workspaceRoot: workspace, catalog, generate });
    const again = await resolveProfile({ agentDescription: '  a reviewer of   shell scripts ', workspaceRoot: workspace, catalog, generate });
    expect(generate).toHaveBeenCalledTimes(1);
    expect(again.systemPrompt).toBe('First version.');
  });

  it('writes a new profile when the description changes', async () => {
    const generate = vi.fn(async (description: string) => `Profile for ${description}.`);
    await resolveProfile({ agentDescription: 'one', workspaceRoot: workspace, catalog, generate });
    const changed = await resolveProfile({ agentDescription: 'two', workspaceRoot: workspace, catalog, generate });
    expect(generate).toHaveBeenCalledTimes(2);
    expect(changed.systemPrompt).toBe('Profile for two.');
    expect(await readFile(saved(), 'utf8')).toContain('description: "two"');
  });

  it('strips code fences and frontmatter the model added', async () => {
    const generate = async (): Promise<string> => '```markdown\n---\nname: Log Whisperer\n---\nYou read logs.\n```';
    const profile = await resolveProfile({ agentDescription: 'reads logs', workspaceRoot: workspace, catalog, generate });
    expect(profile).toMatchObject({ name: 'log-whisperer', systemPrompt: 'You read logs.' });
  });

  it('fails clearly when the model returns nothing', async () => {
    const generate = async (): Promise<string> => '   ';
    await expect(resolveProfile({ agentDescription: 'x', workspaceRoot: workspace, catalog, generate })).rejects.toThrow(/empty profile/);
  });
});
