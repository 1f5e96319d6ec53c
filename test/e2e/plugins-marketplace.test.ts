import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentSession } from '../../packages/core/src/index.ts';
import { makeTempRepo, runBeans, type TempRepo } from './harness.js';

function makeMarketplace(repo: TempRepo): string {
  const market = path.join(repo.home, 'market');
  const files: Record<string, string> = {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'team-tools',
      plugins: [{ name: 'commit-commands', source: './plugins/commit-commands', description: 'Git commits', version: '1.2.0' }],
    }),
    'plugins/commit-commands/.claude-plugin/plugin.json': JSON.stringify({ name: 'commit-commands', version: '1.2.0' }),
    'plugins/commit-commands/commands/commit.md': '---\ndescription: Create a git commit\n---\nCommit.\n',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(market, file)), { recursive: true });
    writeFileSync(path.join(market, file), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: market });
  execFileSync('git', ['add', '-A'], { cwd: market });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'market'], { cwd: market });
  return market;
}

describe('beans plugins marketplace and install', () => {
  it('installs from a marketplace added through a file:// URL; list shows source and version; disable, enable, uninstall', async () => {
    const repo = makeTempRepo();
    const market = makeMarketplace(repo);
    const beans = (...args: string[]) => runBeans(args, { cwd: repo.dir, env: repo.env });

    const added = await beans('plugins', 'marketplace', 'add', `file://${market}`);
    expect(added.stderr).toBe('');
    expect(added.stdout).toContain('Added marketplace team-tools (1 plugin)');
    expect((await beans('plugins', 'marketplace', 'list')).stdout).toContain('commit-commands 1.2.0  Git commits');

    const installed = await beans('plugins', 'install', 'commit-commands@team-tools');
    expect(installed).toMatchObject({ code: 0 });
    expect(installed.stdout).toContain('Installed commit-commands 1.2.0 from team-tools.');
    const listed = await beans('plugins', 'list');
    expect(listed.stdout).toMatch(/^commit-commands 1\.2\.0 {2}\S+commit-commands {2}\(from team-tools: file:\/\/\S+ \.\/plugins\/commit-commands\)$/m);
    expect(listed.stdout).toContain('/commit  Create a git commit');
    // /plugins in chat reads the same record, through the chat's own host.
    const agent = await createAgentSession({ cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: 'http://127.0.0.1:9' }, provider: 'ollama', model: 'any' });
    try {
      expect(await agent.listPlugins()).toContainEqual({
        name: 'commit-commands',
        version: '1.2.0',
        from: expect.stringMatching(/^team-tools: file:\/\/\S+ \.\/plugins\/commit-commands$/),
        contents: '1 command',
      });
    } finally {
      agent.close();
    }

    await beans('plugins', 'disable', 'commit-commands');
    const off = await beans('plugins', 'list');
    expect(off.stdout).not.toContain('/commit');
    expect(off.stdout).toContain('commit-commands 1.2.0  disabled');
    await beans('plugins', 'enable', 'commit-commands');
    expect((await beans('plugins', 'list')).stdout).toContain('/commit');

    expect((await beans('plugins', 'uninstall', 'commit-commands')).code).toBe(0);
    expect((await beans('plugins', 'list')).stdout).not.toContain('commit-commands');
  });

  it('installs from a marketplace added by path, and a failed install leaves nothing behind', async () => {
    const repo = makeTempRepo();
    makeMarketplace(repo);
    const beans = (...args: string[]) => runBeans(args, { cwd: repo.dir, env: repo.env });
    expect((await beans('plugins', 'marketplace', 'add', '../home/market')).code).toBe(0);

    const missing = await beans('plugins', 'install', 'nothing');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No plugin "nothing" in any added marketplace');
    const pluginsDir = path.join(repo.home, '.config', 'beans-agent', 'plugins');
    expect(existsSync(pluginsDir) ? readdirSync(pluginsDir) : []).toEqual([]);

    expect((await beans('plugins', 'install', 'commit-commands')).code).toBe(0);
    expect(readdirSync(pluginsDir)).toEqual(['commit-commands']);
  });
});
