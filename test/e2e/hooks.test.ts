import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans } from './harness.ts';

const hooksJson = (command: string, matcher?: string) => JSON.stringify({ hooks: { PreToolUse: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: 30 }] }] } });

describe('beans hooks list', () => {
  it('lists user, plugin and (untrusted) project hooks with event, matcher and source', async () => {
    const repo = makeTempRepo({
      '.beans/settings.json': hooksJson('./project-guard.sh', 'Bash'),
      'plugins/fmt/.claude-plugin/plugin.json': JSON.stringify({ name: 'fmt' }),
      'plugins/fmt/hooks/hooks.json': JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/fmt.sh' }] }] } }),
    });
    const config = path.join(repo.home, '.config', 'beans-agent');
    mkdirSync(config, { recursive: true });
    writeFileSync(path.join(config, 'settings.json'), hooksJson('echo user'));
    const json = await runBeans(['hooks', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(json.code).toBe(0);
    const listing = JSON.parse(json.stdout);
    expect(listing.problems).toEqual([]);
    expect(listing.hooks).toEqual([
      { event: 'PreToolUse', command: 'echo user', timeout: 30, source: { kind: 'user', file: path.join(config, 'settings.json') }, runs: true },
      {
        event: 'PostToolUse',
        matcher: 'Write|Edit',
        command: `${path.join(repo.dir, 'plugins', 'fmt')}/fmt.sh`,
        timeout: 60,
        source: { kind: 'plugin', plugin: 'fmt', root: path.join(repo.dir, 'plugins', 'fmt'), file: path.join(repo.dir, 'plugins', 'fmt', 'hooks', 'hooks.json') },
        runs: true,
      },
      { event: 'PreToolUse', matcher: 'Bash', command: './project-guard.sh', timeout: 30, source: { kind: 'project', file: path.join(repo.dir, '.beans', 'settings.json') }, runs: false },
    ]);
    const text = await runBeans(['hooks', 'list'], { cwd: repo.dir, env: repo.env });
    expect(text.stdout).toContain('PreToolUse:\n  echo user  (user settings, 30 s)\n  [Bash] ./project-guard.sh  (project settings, 30 s, not run: this workspace is not trusted)');
    expect(text.stdout).toContain('PostToolUse:\n  [Write|Edit]');
  });

  it('a settings file with a malformed hook is a configuration error naming the key (exit 3)', async () => {
    const repo = makeTempRepo({ '.beans/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: 'soon' }] }] } }) });
    const run = await runBeans(['hooks', 'list'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('"hooks.PreToolUse[0].hooks[0].timeout" must be a positive number of seconds');
  });
});
