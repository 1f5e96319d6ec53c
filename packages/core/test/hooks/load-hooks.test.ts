import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateSettings } from '../../src/config/validate.js';
import { loadHooks, loadWorkspaceHooks, readSettingsHooks } from '../../src/hooks/index.js';
import { FIXTURES, runnerFor, tempDir } from './helpers.js';

const plugin = (name: string) => ({ name, root: path.join(FIXTURES, 'plugins', name) });

describe('hook sources', () => {
  it("a plugin's hooks/hooks.json runs with ${CLAUDE_PLUGIN_ROOT} substituted and set", async () => {
    const set = await loadHooks({ settingsHooks: {}, trusted: false, plugins: [plugin('guard')] });
    expect(set.problems).toEqual([]);
    const root = plugin('guard').root;
    expect(set.hooks.map((h) => [h.event, h.matcher, h.command, h.timeout])).toEqual([
      ['SessionStart', undefined, `bash "${root}/scripts/session-start.sh"`, 60],
      ['PreToolUse', 'Bash', `bash ${root}/scripts/guard.sh`, 10],
    ]);
    expect(set.hooks[0].source).toEqual({ kind: 'plugin', plugin: 'guard', root, file: path.join(root, 'hooks', 'hooks.json') });
    const cwd = tempDir();
    const runner = runnerFor(set.hooks, cwd);
    const push = await runner.preToolUse({ id: 'c1', tool: 'shell', input: { command: 'git push origin main' } });
    expect(push).toMatchObject({ decision: 'deny', reason: `guard (${root}, ${root}): pushing is for humans` });
    expect((await runner.sessionStart('startup')).context).toBe(`guard plugin active in ${cwd} (cwd ${cwd})`);
  });

  it('plugin.json hooks inline and as a path', async () => {
    const inline = await loadHooks({ settingsHooks: {}, trusted: false, plugins: [plugin('inline')] });
    expect(inline.hooks.map((h) => [h.event, h.matcher])).toEqual([['PostToolUse', 'Write|Edit']]);
    const outcome = await runnerFor(inline.hooks, tempDir()).postToolUse(
      { id: 'c', tool: 'edit_file', input: { path: 'a', old_string: 'a', new_string: 'b' } },
      { content: 'ok' },
    );
    expect(outcome.additionalContext).toBe('formatted by inline');

    const root = tempDir();
    mkdirSync(path.join(root, '.claude-plugin'));
    mkdirSync(path.join(root, 'config'));
    writeFileSync(
      path.join(root, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'p', hooks: ['./config/more.json', '../outside.json', './config/missing.json'] }),
    );
    writeFileSync(
      path.join(root, 'config', 'more.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/stop.sh' }] }] } }),
    );
    const byPath = await loadHooks({ settingsHooks: {}, trusted: false, plugins: [{ name: 'p', root }] });
    expect(byPath.hooks.map((h) => [h.event, h.command])).toEqual([['Stop', `${root}/stop.sh`]]);
    expect(byPath.problems.map((p) => p.message)).toEqual([
      '"hooks" names ../outside.json, which is outside the plugin; it is ignored.',
      '"hooks" names ./config/missing.json, which does not exist.',
    ]);
  });

  it('a broken hooks.json is a problem naming the file and the place, and other plugins still load', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, 'hooks'));
    writeFileSync(
      path.join(root, 'hooks', 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }], PreToolUze: [] } }),
    );
    const set = await loadHooks({ settingsHooks: {}, trusted: false, plugins: [{ name: 'bad', root }, plugin('guard')] });
    expect(set.problems).toEqual([
      {
        path: path.join(root, 'hooks', 'hooks.json'),
        message: expect.stringContaining('"hooks.PreToolUse[0].hooks[0].command" must be a shell command, not undefined; its hooks are not loaded.'),
      },
    ]);
    expect(set.hooks).toHaveLength(2);
  });

  it('plugins inside the workspace wait for trust; the built-in folder and plugins outside run', async () => {
    const workspace = tempDir();
    const inside = { name: 'guard', root: path.join(workspace, 'plugins', 'guard') };
    mkdirSync(path.join(inside.root, 'hooks'), { recursive: true });
    writeFileSync(path.join(inside.root, 'hooks', 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'inside' }] }] } }));
    const builtin = { name: 'builtin', root: path.join(workspace, 'beans-plugins', 'b') };
    mkdirSync(path.join(builtin.root, 'hooks'), { recursive: true });
    writeFileSync(path.join(builtin.root, 'hooks', 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'builtin' }] }] } }));
    const options = {
      workspaceRoot: workspace,
      env: { HOME: tempDir() },
      plugins: [inside, builtin, plugin('inline')],
      builtinPluginsDir: path.join(workspace, 'beans-plugins'),
    };
    const untrusted = await loadWorkspaceHooks({ ...options, trusted: false });
    expect(untrusted.hooks.map((h) => h.source.kind === 'plugin' && h.source.plugin)).toEqual(['builtin', 'inline']);
    expect(untrusted.untrusted.map((h) => h.command)).toEqual(['inside']);
    expect((await loadWorkspaceHooks({ ...options, trusted: true })).hooks.map((h) => h.source.kind === 'plugin' && h.source.plugin)).toEqual([
      'guard',
      'builtin',
      'inline',
    ]);
  });

  it('project and local settings hooks run only in a trusted workspace; user hooks always', async () => {
    const home = tempDir();
    const workspace = tempDir();
    const env = { HOME: home };
    const config = path.join(home, '.config', 'beans-agent');
    mkdirSync(config, { recursive: true });
    mkdirSync(path.join(workspace, '.beans'));
    const hooks = (command: string) => ({ hooks: { PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command, timeout: 30 }] }] } });
    writeFileSync(path.join(config, 'settings.json'), JSON.stringify(hooks('user-hook')));
    writeFileSync(path.join(workspace, '.beans', 'settings.json'), JSON.stringify(hooks('project-hook')));
    writeFileSync(path.join(workspace, '.beans', 'settings.local.json'), JSON.stringify(hooks('local-hook')));
    const settingsHooks = await readSettingsHooks({ workspaceRoot: workspace, env });
    const untrusted = await loadHooks({ settingsHooks, trusted: false });
    expect(untrusted.hooks.map((h) => h.command)).toEqual(['user-hook']);
    expect(untrusted.untrusted.map((h) => [h.command, h.source.kind])).toEqual([
      ['project-hook', 'project'],
      ['local-hook', 'local'],
    ]);
    const trusted = await loadHooks({ settingsHooks, trusted: true });
    expect(trusted.hooks.map((h) => [h.command, h.timeout, h.source])).toEqual([
      ['user-hook', 30, { kind: 'user', file: path.join(config, 'settings.json') }],
      ['project-hook', 30, { kind: 'project', file: path.join(workspace, '.beans', 'settings.json') }],
      ['local-hook', 30, { kind: 'local', file: path.join(workspace, '.beans', 'settings.local.json') }],
    ]);
    expect(Object.keys(await readSettingsHooks({ workspaceRoot: workspace, env, settingSources: ['user'] }))).toEqual(['user']);
  });
});

describe('settings validation of hooks and guardrails', () => {
  it("accepts Claude Code's hook shape and guardrail rules", () => {
    const settings = {
      hooks: {
        PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'npx prettier --write', timeout: 30 }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'true' }] }],
      },
      guardrails: { input: [{ builtin: 'secrets', action: 'block', message: 'No keys in prompts.' }], output: [{ pattern: 'ACME-\\d+', action: 'redact' }] },
    };
    expect(validateSettings(settings, 's.json')).toEqual({ settings, warnings: [] });
  });

  it('says which hook entry is wrong and what it should be', () => {
    expect(() =>
      validateSettings({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'x', timeout: '30' }] }] } }, 's.json'),
    ).toThrow('Invalid settings in s.json: "hooks.PreToolUse[0].hooks[0].timeout" must be a positive number of seconds, not the string "30"');
    expect(() => validateSettings({ hooks: { Stop: { hooks: [] } } }, 's.json')).toThrow(
      '"hooks.Stop" must be a list of {"matcher", "hooks": [...]} objects, not an object',
    );
    expect(validateSettings({ hooks: { PreToolUze: [] } }, 's.json').warnings).toEqual([
      's.json: unknown setting "hooks.PreToolUze" is ignored (did you mean "hooks.PreToolUse"?).',
    ]);
  });

  it('says which guardrail rule is wrong', () => {
    expect(() => validateSettings({ guardrails: { input: [{ builtin: 'ssn', action: 'block' }] } }, 's.json')).toThrow(
      '"guardrails.input[0].builtin" must be "secrets", "email" or "phone", not the string "ssn"',
    );
    expect(() => validateSettings({ guardrails: { output: [{ pattern: '', action: 'warn' }] } }, 's.json')).toThrow(
      '"guardrails.output[0].pattern" must be a regular expression (RE2 syntax), or leave it out and name a "builtin" (exactly one of the two)',
    );
    expect(() => validateSettings({ guardrails: { output: [{ action: 'warn' }] } }, 's.json')).toThrow(
      '"guardrails.output[0].pattern" must be a regular expression (RE2 syntax), or leave it out',
    );
    expect(() => validateSettings({ guardrails: { output: [{ pattern: 'x', builtin: 'email', action: 'warn' }] } }, 's.json')).toThrow(
      '"guardrails.output[0].pattern" must be a regular expression (RE2 syntax), or leave it out',
    );
  });
});
