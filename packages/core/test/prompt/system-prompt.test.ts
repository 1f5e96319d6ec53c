import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLoadSkillTool, loadPlugins, resolveProfile } from '../../src/plugins/index.js';
import { buildSystemPrompt } from '../../src/prompt/index.js';
import { createHandoffTool, createTaskTool, HandoffController, subagentList } from '../../src/subagents/index.js';
import { builtinTools } from '../../src/tools/builtin.js';
import { toolDeclaration } from '../../src/tools/tool.js';

const workspace = { root: '/home/dev/shop', cwd: '/home/dev/shop/api', isGit: true };
const builtinPlugins = path.resolve(import.meta.dirname, '../../../../plugins');

describe('buildSystemPrompt', () => {
  it('puts the profile first, then the environment, context files and skills', () => {
    const prompt = buildSystemPrompt({
      profile: { systemPrompt: 'You are a test agent.' },
      workspace,
      contextFiles: [
        { path: '/home/dev/.config/beans-agent/AGENTS.md', content: 'Be terse.\n' },
        { path: '/home/dev/shop/AGENTS.md', content: 'Use pnpm.' },
      ],
      skills: [{ name: 'read-logs', description: 'Find the cause of an error in logs.' }],
      date: new Date(2026, 0, 5),
      platform: 'linux',
    });
    expect(prompt.startsWith('You are a test agent.\n\n# Environment\n')).toBe(true);
    expect(prompt).toContain('Workspace root: /home/dev/shop (git repository)\nCurrent folder: /home/dev/shop/api\nPlatform: linux\nDate: 2026-01-05');
    const userFile = prompt.indexOf('## /home/dev/.config/beans-agent/AGENTS.md\nBe terse.');
    const projectFile = prompt.indexOf('## AGENTS.md\nUse pnpm.');
    expect(userFile).toBeGreaterThan(prompt.indexOf('# Environment'));
    expect(projectFile).toBeGreaterThan(userFile);
    expect(prompt).toMatch(/# Skills\n.*load_skill.*\n- read-logs: Find the cause of an error in logs\.$/);
  });

  it('says when the workspace is not a git repository and leaves out empty sections', () => {
    const prompt = buildSystemPrompt({ profile: { systemPrompt: 'P' }, workspace: { root: '/w', cwd: '/w', isGit: false }, platform: 'darwin' });
    expect(prompt).toContain('Workspace root: /w (not a git repository)');
    expect(prompt).not.toContain('Current folder');
    expect(prompt).not.toContain('# Skills');
    expect(prompt).not.toContain('# Project instructions');
  });

  it("lists each skill on one line with its whole description up to Claude Code's cap", () => {
    const useWhen = `${'Explains the release process in detail. '.repeat(10)}Use when the user asks to ship a release.`;
    const prompt = buildSystemPrompt({ profile: { systemPrompt: 'P' }, workspace, skills: [{ name: 'release', description: useWhen }] });
    expect(prompt).toContain(`- release: ${useWhen.trim()}`);
  });

  it('cuts a description past 1,536 characters and warns once, naming the skills cut', () => {
    const long = `First line\n\nwith <example> blocks ${'and more words '.repeat(200)}`;
    const warnings: string[] = [];
    const prompt = buildSystemPrompt({
      profile: { systemPrompt: 'P' },
      workspace,
      skills: [
        { name: 'long', description: long },
        { name: 'longer', description: long + long },
      ],
      warn: (message) => warnings.push(message),
    });
    const line = prompt.split('\n').find((text) => text.startsWith('- long: '))!;
    expect(line.length).toBe('- long: '.length + 1536);
    expect(line).toMatch(/^- long: First line with <example> blocks and more words .*…$/);
    expect(warnings).toEqual(['The descriptions of skills long, longer were cut at 1536 characters in the system prompt.']);
  });

  it('leaves out skills only the user may run (disable-model-invocation)', () => {
    const prompt = buildSystemPrompt({
      profile: { systemPrompt: 'P' },
      workspace,
      skills: [
        { name: 'deploy', description: 'Deploys.', disableModelInvocation: true },
        { name: 'read-logs', description: 'Reads logs.' },
      ],
    });
    expect(prompt).not.toContain('deploy');
    expect(prompt).toContain('- read-logs: Reads logs.');
  });
});

describe('the first request with the built-in plugins', () => {
  // test/e2e/first-request-size.test.ts checks the whole HTTP body on each provider; this is the
  // same content without a protocol's wrapping, with 700 bytes left for it (openai's is the largest).
  it('stays under 9.3 KB: default profile, environment, skills and every tool declaration', async () => {
    const catalog = await loadPlugins({ roots: [builtinPlugins] });
    expect(catalog.problems).toEqual([]);
    const profile = await resolveProfile({ workspaceRoot: '/nonexistent-workspace', catalog });
    expect(profile.source).toBe('default-plugin');
    expect(profile.systemPrompt.length).toBeGreaterThan(1000);
    expect(profile.systemPrompt.length).toBeLessThan(2000);

    const system = buildSystemPrompt({ profile, workspace, skills: catalog.skills(), platform: 'linux' });
    const agents = subagentList(catalog);
    const handoffs = new HandoffController({
      agents: agents.filter((agent) => agent.name !== 'general-purpose'),
      initial: { name: 'default' },
      apply: async () => {},
      announce: () => {},
    });
    const task = createTaskTool({
      agents,
      run: async () => {
        throw new Error('not called');
      },
    });
    // A one-shot session is not offered the scheduling tools (only the chat and served sessions run schedules).
    const oneShot = builtinTools().filter((tool) => tool.name !== 'schedule_wakeup' && !tool.name.startsWith('cron_'));
    const tools = [...oneShot, createLoadSkillTool(catalog), task, createHandoffTool(handoffs)].map(toolDeclaration);
    expect(tools).toHaveLength(16);
    const bytes = Buffer.byteLength(system) + Buffer.byteLength(JSON.stringify(tools));
    expect(bytes).toBeLessThan(10 * 1024 - 700);
  });
});
