import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadPlugins, pluginRoots } from '../../src/plugins/index.js';
import { PluginStore } from '../../src/plugins/marketplace.js';

const run = promisify(execFile);

function write(root: string, files: Record<string, string>): void {
  for (const [relative, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  }
}

async function gitRepo(dir: string, version: string): Promise<void> {
  write(dir, {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'team-tools',
      plugins: [
        { name: 'commit-commands', source: './plugins/commit-commands', description: 'Git commits', version },
        { name: 'escape', source: '../../etc', version: '1' },
        { name: 'gone', source: './plugins/gone', version: '1' },
      ],
    }),
    'plugins/commit-commands/.claude-plugin/plugin.json': JSON.stringify({ name: 'commit-commands', version }),
    'plugins/commit-commands/commands/commit.md': `---\ndescription: Commit v${version}\n---\nCommit.\n`,
  });
  if (!existsSync(path.join(dir, '.git'))) await run('git', ['init', '-q'], { cwd: dir });
  await run('git', ['add', '-A'], { cwd: dir });
  await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', `v${version}`], { cwd: dir });
}

describe('marketplaces', () => {
  let base: string;
  let repo: string;
  let store: PluginStore;

  beforeEach(async () => {
    base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-market-')));
    repo = path.join(base, 'market');
    mkdirSync(repo);
    await gitRepo(repo, '1.0.0');
    store = new PluginStore(path.join(base, 'config'));
  });

  it('adds a marketplace through a file:// URL, installs, disables, updates and uninstalls a plugin', async () => {
    const added = await store.addMarketplace(`file://${repo}`, base);
    expect(added.name).toBe('team-tools');
    expect((await store.listMarketplaces()).map((market) => [market.name, market.git])).toEqual([['team-tools', true]]);

    expect(await store.install('commit-commands@team-tools')).toEqual({ name: 'commit-commands', version: '1.0.0', marketplace: 'team-tools' });
    const installed = path.join(base, 'config', 'plugins', 'commit-commands');
    expect(existsSync(path.join(installed, 'commands', 'commit.md'))).toBe(true);
    const catalog = await loadPlugins({ roots: pluginRoots({ configDir: path.join(base, 'config') }) });
    expect(catalog.findCommand('commit')?.description).toBe('Commit v1.0.0');

    await store.setEnabled('commit-commands', false);
    expect(await store.disabledPlugins()).toEqual(['commit-commands']);

    await gitRepo(repo, '2.0.0');
    expect(await store.update('commit-commands')).toMatchObject({ version: '2.0.0' });
    expect((await store.state()).plugins['commit-commands']).toMatchObject({ version: '2.0.0', enabled: false, marketplace: 'team-tools' });

    await store.uninstall('commit-commands');
    expect(existsSync(installed)).toBe(false);
    await store.removeMarketplace('team-tools');
    expect(readdirSync(path.join(base, 'config', 'marketplaces'))).toEqual([]);
  });

  it('adds a marketplace by path and installs from it', async () => {
    await store.addMarketplace('market', base);
    expect(await store.install('commit-commands')).toMatchObject({ version: '1.0.0' });
    expect((await store.state()).marketplaces['team-tools']).toEqual({ source: 'market', dir: repo, git: false });
  });

  it('leaves nothing half-installed when an install fails, and never copies from outside the marketplace', async () => {
    await store.addMarketplace(repo, base);
    await expect(store.install('escape')).rejects.toThrow(/points outside its marketplace/);
    await expect(store.install('gone')).rejects.toThrow(/missing from its marketplace/);
    await expect(store.install('nothing')).rejects.toThrow(/No plugin "nothing"/);
    expect(readdirSync(path.join(base, 'config', 'plugins'))).toEqual([]);
    expect((await store.state()).plugins).toEqual({});
  });

  it('fails cleanly on a git URL that does not exist', async () => {
    await expect(store.addMarketplace(`file://${base}/no-such-repo`, base)).rejects.toThrow(/git clone failed/);
    expect(readdirSync(path.join(base, 'config', 'marketplaces'))).toEqual([]);
  });
});
