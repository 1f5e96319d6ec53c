import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlugins, pluginRoots, type PluginCatalog } from '../../src/plugins/index.js';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/plugins');
const rootA = path.join(fixtures, 'root-a');
const rootB = path.join(fixtures, 'root-b');

function problemFor(catalog: PluginCatalog, suffix: string): string[] {
  return catalog.problems.filter((problem) => problem.path.endsWith(suffix)).map((problem) => problem.message);
}

describe('pluginRoots', () => {
  it('orders roots as Claude Code ranks them: --plugin-dir, workspace, user, built-in last', () => {
    const roots = pluginRoots({
      builtinDir: '/beans/plugins',
      workspaceRoot: '/repo',
      configDir: '/home/u/.config/beans-agent',
      claudeHome: '/home/u/.claude',
      extraDirs: ['/x', '/y'],
    });
    expect(roots.map((root) => [root.dir, root.kind])).toEqual([
      ['/x', 'extra'],
      ['/y', 'extra'],
      ['/repo/plugins', 'workspace'],
      ['/repo/.beans/plugins', 'workspace-beans'],
      ['/repo/.claude', 'workspace-claude'],
      ['/home/u/.config/beans-agent/plugins', 'user'],
      ['/home/u/.claude', 'user-claude'],
      ['/beans/plugins', 'builtin'],
    ]);
  });

  it('loads .claude/commands, agents and skills as the plugin "project", and a workspace command beats a built-in one', async () => {
    const repo = await mkdtemp(path.join(os.tmpdir(), 'beans-claude-dir-'));
    const builtin = await mkdtemp(path.join(os.tmpdir(), 'beans-builtin-'));
    await mkdir(path.join(repo, '.claude', 'commands', 'frontend'), { recursive: true });
    await mkdir(path.join(repo, '.claude', 'commands', 'backend'), { recursive: true });
    await writeFile(path.join(repo, '.claude', 'commands', 'review.md'), 'Project review.\n');
    await writeFile(path.join(repo, '.claude', 'commands', 'frontend', 'test.md'), 'Frontend tests.\n');
    await writeFile(path.join(repo, '.claude', 'commands', 'backend', 'test.md'), 'Backend tests.\n');
    await writeFile(path.join(repo, '.claude', 'settings.json'), '{}');
    await mkdir(path.join(builtin, 'code-development', 'commands'), { recursive: true });
    await writeFile(path.join(builtin, 'code-development', 'commands', 'review.md'), 'Built-in review.\n');
    const catalog = await loadPlugins({ roots: pluginRoots({ builtinDir: builtin, workspaceRoot: repo }) });
    expect(catalog.plugins.map((plugin) => plugin.name)).toEqual(['project', 'code-development']);
    expect(catalog.findCommand('review')?.plugin).toBe('project');
    expect(catalog.findCommand('code-development:review')?.plugin).toBe('code-development');
    expect(catalog.problems.map((problem) => problem.message)).toContain(
      `command "review" is also defined by ${path.join(repo, '.claude', 'commands', 'review.md')} (plugin project), which comes first and is used; reach this one as code-development:review`,
    );
    // Nested folders namespace the name: two test.md never collide.
    expect(catalog.findCommand('frontend:test')?.path).toBe(path.join(repo, '.claude', 'commands', 'frontend', 'test.md'));
    expect(catalog.findCommand('project:backend:test')?.path).toBe(path.join(repo, '.claude', 'commands', 'backend', 'test.md'));
    expect(catalog.problems.filter((problem) => problem.message.includes('"test"'))).toEqual([]);
  });

  it('lists a folder once even when two settings name it', () => {
    // Running Beans inside its own repository: the built-in folder is also <workspace>/plugins.
    const roots = pluginRoots({ builtinDir: '/repo/plugins', workspaceRoot: '/repo' });
    expect(roots.map((root) => root.dir)).toEqual(['/repo/plugins', '/repo/.beans/plugins', '/repo/.claude']);
  });
});

describe('loadPlugins on real-world oddities', () => {
  let catalog: PluginCatalog;
  beforeAll(async () => {
    catalog = await loadPlugins({ roots: [rootA, rootB] });
  });

  it('loads every plugin of a root, named by plugin.json or by folder', () => {
    expect(catalog.plugins.map((plugin) => plugin.name)).toEqual(['broken-json', 'custom-paths', 'oddities', 'dupes']);
    const custom = catalog.plugins.find((plugin) => plugin.name === 'custom-paths');
    expect(custom).toMatchObject({ version: '2.1.0', description: 'A plugin whose manifest points at its own folders' });
  });

  it('recovers an agent whose multi-line description with <example> blocks YAML rejects', () => {
    const agent = catalog.findAgent('api-guardian');
    expect(agent?.description).toMatch(/^Use this agent when an HTTP handler changes\. Typical case: a new route/);
    expect(agent?.description).toContain('user: "I added the orders endpoint"');
    expect(agent).toMatchObject({ model: 'sonnet', tools: ['read_file', 'grep', 'glob'], color: 'orange' });
    expect(problemFor(catalog, 'agents/example-blocks.md')).toEqual([
      expect.stringMatching(/not valid YAML.*recovered name, description, model, tools, color/),
    ]);
  });

  it('uses the frontmatter name when it differs from the file name', () => {
    expect(catalog.findAgent('security-auditor')?.path).toMatch(/renamed-file\.md$/);
    expect(catalog.findAgent('renamed-file')).toBeUndefined();
    expect(catalog.findAgent('security-auditor')?.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('trims a folded > description and reads tools from a YAML list', () => {
    expect(catalog.findAgent('folded-writer')).toMatchObject({
      description: 'Writes release notes from merged pull requests.',
      tools: ['read_file', 'shell'],
      model: 'inherit',
    });
  });

  it('reads `tools: []` as no restriction and keeps model aliases raw', () => {
    const planner = catalog.findAgent('planner');
    expect(planner?.tools).toBeUndefined();
    expect(planner).toMatchObject({ model: 'opus', color: 'purple', description: 'Plans work before anyone writes code.' });
  });

  it('describes a file without frontmatter by its first line and names it by file name', () => {
    expect(catalog.findAgent('no-frontmatter')?.description).toBe('Explains a codebase to a newcomer');
    expect(catalog.findCommand('plain')?.description).toBe('Summarize the uncommitted changes');
  });

  it('recovers a frontmatter that never closes and reports it', () => {
    expect(catalog.findAgent('never-closed')?.description).toBe('The closing line is missing');
    expect(problemFor(catalog, 'agents/unclosed.md')).toEqual([expect.stringMatching(/never closes/)]);
  });

  it('reads argument hints written as [a] [b], as a one-item list, and as a YAML list', () => {
    expect(catalog.findCommand('hint-fails')).toMatchObject({
      description: 'Triage an issue: label it and suggest an owner',
      argumentHint: '[issue-number] [priority]',
      allowedTools: ['shell(gh issue view *)', 'read_file'],
    });
    expect(problemFor(catalog, 'commands/hint-fails.md')).toHaveLength(1);
    expect(catalog.findCommand('hint-list')).toMatchObject({ argumentHint: '[file]', model: 'haiku' });
    expect(catalog.findCommand('numbers')).toMatchObject({ description: '42', argumentHint: '[count] [unit]' });
  });

  it('namespaces a command in a nested folder by the folder, as Claude Code does', () => {
    expect(catalog.findCommand('group:nested')?.description).toBe('A command kept in a sub-folder');
    expect(catalog.findCommand('oddities:group:nested')).toBe(catalog.findCommand('group:nested'));
    expect(catalog.findCommand('nested')).toBeUndefined();
  });

  it('loads folder skills, single-file skills and triggers', () => {
    expect(catalog.findSkill('with-rules')).toMatchObject({ description: "Applies the team's code rules.\nUse it before any refactor.", ownFolder: true });
    expect(catalog.findSkill('single-file')).toMatchObject({ description: 'A skill that is one Markdown file.', ownFolder: false });
    expect(catalog.findSkill('triggered')?.triggers).toEqual(['read the logs', 'log file']);
  });

  it('splits a skill on its first frontmatter only: later --- blocks stay in the body', async () => {
    const skill = catalog.findSkill('with-rules');
    expect(catalog.findSkill('not-frontmatter')).toBeUndefined();
    const body = await skill!.loadBody();
    expect(body).toMatch(/^# Code rules/);
    expect(body).toContain('---\nname: not-frontmatter\ndescription: this block is part of the body\n---');
  });

  it('honours plugin.json path fields (string or list, folders or files) beside the default folders', () => {
    const custom = catalog.plugins.find((plugin) => plugin.name === 'custom-paths')!;
    expect(custom.agents.map((agent) => agent.name)).toEqual(['custom-agent']);
    expect(custom.commands.map((command) => command.name)).toEqual(['default-cmd', 'extra', 'from-dir']);
    expect(custom.skills.map((skill) => skill.name)).toEqual(['deploy']);
    expect(problemFor(catalog, 'manifest-paths/.claude-plugin/plugin.json')).toEqual(['names "./missing-skills", which does not exist']);
  });

  it('loads a plugin whose plugin.json is broken under its folder name and reports it', () => {
    expect(catalog.findCommand('broken-json:hello')?.description).toBe('Say hello');
    expect(problemFor(catalog, 'broken-json/.claude-plugin/plugin.json')).toEqual([expect.stringMatching(/not valid JSON/)]);
  });

  it('resolves duplicate names by root order and reports the loser, which stays reachable as plugin:name', async () => {
    expect(catalog.findAgent('reviewer')?.description).toBe('First reviewer, from root A');
    expect(catalog.findAgent('dupes:reviewer')?.description).toBe('Second reviewer, from root B');
    expect(problemFor(catalog, 'root-b/dupes/agents/reviewer.md')).toEqual([expect.stringMatching(/also defined by .*root-a.*reviewer\.md.*dupes:reviewer/)]);
    expect(problemFor(catalog, 'root-b/dupes/commands/plain.md')).toHaveLength(1);
    expect(catalog.agents().filter((agent) => agent.name === 'reviewer')).toHaveLength(1);
    expect(await catalog.findAgent('dupes:reviewer')!.loadBody()).toBe('You review code (root B).');
  });

  it('reports nothing for the files that are fine', () => {
    const troubled = new Set(catalog.problems.map((problem) => path.relative(fixtures, problem.path)));
    expect([...troubled].sort()).toEqual([
      'root-a/broken-json/.claude-plugin/plugin.json',
      'root-a/manifest-paths/.claude-plugin/plugin.json',
      'root-a/oddities/agents/example-blocks.md',
      'root-a/oddities/agents/unclosed.md',
      'root-a/oddities/commands/hint-fails.md',
      'root-b/dupes/agents/reviewer.md',
      'root-b/dupes/commands/plain.md',
    ]);
  });
});

describe('loadPlugins roots', () => {
  it('accepts a root that is itself a plugin (for --plugin-dir)', async () => {
    const catalog = await loadPlugins({ roots: [{ dir: path.join(fixtures, 'single-plugin'), kind: 'extra' }] });
    expect(catalog.plugins.map((plugin) => plugin.name)).toEqual(['solo']);
    expect(catalog.findAgent('solo:solo-agent')?.description).toBe('The only agent of a root that is itself a plugin');
  });

  it('skips missing optional roots silently but reports a missing --plugin-dir', async () => {
    const catalog = await loadPlugins({ roots: ['/no/such/root', { dir: '/no/such/extra', kind: 'extra' }] });
    expect(catalog.plugins).toEqual([]);
    expect(catalog.problems).toEqual([{ path: '/no/such/extra', message: 'plugin folder not found' }]);
  });

  it('leaves disabled plugins out', async () => {
    const catalog = await loadPlugins({ roots: [rootA], disabled: ['oddities'] });
    expect(catalog.plugins.map((plugin) => plugin.name)).toEqual(['broken-json', 'custom-paths']);
    expect(catalog.findAgent('api-guardian')).toBeUndefined();
  });
});

describe('lazy bodies', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'beans-lazy-'));
    await cp(path.join(rootA, 'oddities'), path.join(dir, 'lazy'), { recursive: true });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a body when asked, so an edit after loading is seen', async () => {
    const catalog = await loadPlugins({ roots: [dir] });
    const agent = catalog.findAgent('folded-writer')!;
    expect(Object.values(agent)).not.toContain('You write release notes.');
    await writeFile(agent.path, '---\nname: folded-writer\n---\nEdited body.\n');
    expect(await agent.loadBody()).toBe('Edited body.');
  });

  it('reads a frontmatter longer than one read, multi-byte characters intact', async () => {
    const description = `Überprüft Änderungen ✓ ${'é'.repeat(9000)}`;
    await writeFile(path.join(dir, 'lazy', 'agents', 'long-head.md'), `---\nname: long-head\ndescription: "${description}"\n---\nBody\n`);
    const catalog = await loadPlugins({ roots: [dir] });
    expect(catalog.findAgent('long-head')?.description).toBe(description);
    expect(catalog.problems.filter((problem) => problem.path.endsWith('long-head.md'))).toEqual([]);
  });

  it('lists a large agent without holding its body', async () => {
    const big = `---\nname: big\ndescription: Big one\n---\n${'x'.repeat(200_000)}\n`;
    await writeFile(path.join(dir, 'lazy', 'agents', 'big.md'), big);
    const catalog = await loadPlugins({ roots: [dir] });
    const agent = catalog.findAgent('big')!;
    expect(agent.description).toBe('Big one');
    expect(JSON.stringify(agent).length).toBeLessThan(1000);
    expect((await agent.loadBody()).length).toBe(200_000);
  });
});

describe('manifest paths and odd names', () => {
  it('adds manifest paths to the default folders and never loads a file twice', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'beans-manifest-'));
    const plugin = path.join(root, 'tools');
    await mkdir(path.join(plugin, '.claude-plugin'), { recursive: true });
    await mkdir(path.join(plugin, 'commands'), { recursive: true });
    await mkdir(path.join(plugin, 'extra'), { recursive: true });
    await writeFile(
      path.join(plugin, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'tools', commands: ['./commands/deploy.md', './commands', './extra/ship.md'] }),
    );
    await writeFile(path.join(plugin, 'commands', 'deploy.md'), 'Deploy.\n');
    await writeFile(path.join(plugin, 'extra', 'ship.md'), 'Ship.\n');
    const catalog = await loadPlugins({ roots: [root] });
    expect(catalog.plugins[0]!.commands.map((command) => command.name).sort()).toEqual(['deploy', 'ship']);
    expect(catalog.problems).toEqual([]);
  });

  it('gives a skill whose name has spaces a slash form', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'beans-spaced-'));
    await mkdir(path.join(root, 'kit', 'skills', 'pdf'), { recursive: true });
    await writeFile(path.join(root, 'kit', 'skills', 'pdf', 'SKILL.md'), '---\nname: PDF Form Filler\ndescription: Fills PDF forms\n---\nBody.\n');
    const catalog = await loadPlugins({ roots: [root] });
    expect(catalog.findSkill('pdf-form-filler')?.name).toBe('PDF Form Filler');
    expect(catalog.findSkill('kit:pdf-form-filler')?.name).toBe('PDF Form Filler');
  });
});
