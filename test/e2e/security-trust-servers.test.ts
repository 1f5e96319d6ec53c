// Issue 43, item 1: `git clone` a repository, run `beans -p hi` in it, and the MCP servers its
// plugins declare started at once with no trust question. Every place a repository can declare a
// server waits for trust like the root `.mcp.json`; each server here is `touch <canary>`, so a
// canary on disk is a command the repository chose that ran.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const server = (canary: string) => ({ command: 'touch', args: [canary] });

/** A repository that declares a server in each place a plugin inside it can; returns the canaries. */
function hostileRepository(): { repo: TempRepo; canaries: Record<string, string> } {
  const repo = makeTempRepo();
  const canary = (name: string) => path.join(path.dirname(repo.dir), `ran-${name}`);
  const canaries = {
    rootMcp: canary('root-mcp'),
    pluginMcp: canary('plugin-mcp'),
    pluginManifest: canary('plugin-manifest'),
    pluginManifestFile: canary('plugin-manifest-file'),
    beansPlugin: canary('beans-plugin'),
    claudeFolder: canary('claude-folder'),
  };
  repo.write('.mcp.json', JSON.stringify({ mcpServers: { root: server(canaries.rootMcp) } }));
  repo.write('plugins/tools/commands/hello.md', 'Say hello.\n');
  repo.write('plugins/tools/.mcp.json', JSON.stringify({ mcpServers: { tools: server(canaries.pluginMcp) } }));
  repo.write('plugins/inline/.claude-plugin/plugin.json', JSON.stringify({ name: 'inline', mcpServers: { inline: server(canaries.pluginManifest) } }));
  repo.write('plugins/byfile/.claude-plugin/plugin.json', JSON.stringify({ name: 'byfile', mcpServers: './servers.json' }));
  repo.write('plugins/byfile/servers.json', JSON.stringify({ mcpServers: { byfile: server(canaries.pluginManifestFile) } }));
  repo.write('.beans/plugins/extra/commands/x.md', 'x\n');
  repo.write('.beans/plugins/extra/.mcp.json', JSON.stringify({ mcpServers: { extra: server(canaries.beansPlugin) } }));
  repo.write('.claude/commands/y.md', 'y\n');
  repo.write('.claude/.mcp.json', JSON.stringify({ mcpServers: { claudefolder: server(canaries.claudeFolder) } }));
  return { repo, canaries };
}

const ran = (canaries: Record<string, string>) =>
  Object.entries(canaries)
    .filter(([, file]) => existsSync(file))
    .map(([name]) => name);

describe('MCP servers a repository ships wait for trust (issue 43, item 1)', () => {
  it('one-shot in an untrusted clone starts none of them and says which were not started', async () => {
    const { repo, canaries } = hostileRepository();
    const model = await scriptedOllama({ turns: [{ text: 'hi' }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(ran(canaries)).toEqual([]);
    for (const name of ['root', 'tools', 'inline', 'byfile', 'extra', 'claudefolder'])
      expect(run.stderr).toMatch(new RegExp(`MCP servers \\([^)]*\\b${name}\\b[^)]*\\); they were not started because this folder is not trusted`));
  });

  it('`beans mcp list` in an untrusted clone starts none and lists them as disabled', async () => {
    const { repo, canaries } = hostileRepository();
    const run = await runBeans(['mcp', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(run.code, run.stderr).toBe(0);
    expect(ran(canaries)).toEqual([]);
    const servers = (JSON.parse(run.stdout) as { servers: { name: string; status: string }[] }).servers;
    expect(servers.map((s) => `${s.name}:${s.status}`).sort()).toEqual(
      ['byfile', 'claudefolder', 'extra', 'inline', 'root', 'tools'].map((name) => `${name}:disabled`),
    );
  });

  it('after `beans trust` they start (the canaries prove the test would see a start)', async () => {
    const { repo, canaries } = hostileRepository();
    expect((await runBeans(['trust'], { cwd: repo.dir, env: repo.env })).code).toBe(0);
    const model = await scriptedOllama({ turns: [{ text: 'hi' }] });
    await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url, MCP_TIMEOUT: '3000' } });
    expect(ran(canaries).sort()).toEqual(Object.keys(canaries).sort());
  });
});
