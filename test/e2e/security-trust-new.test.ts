// Issue 43, item 2: trust covers what was there when it was given. A server or hook a trusted
// repository declares later (by a pull, or written by the model) does not run in a one-shot run
// (one warning line names it); `beans trust` again approves it. Each command is `touch <canary>`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const touch = (file: string) => ({ command: 'touch', args: [file] });
const sessionStartHook = (file: string) => ({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${file}` }] }] } });

function repository() {
  const repo = makeTempRepo({ 'plugins/tools/commands/hi.md': 'hi\n' });
  const canary = (name: string) => path.join(path.dirname(repo.dir), `ran-${name}`);
  const canaries = { first: canary('first'), added: canary('added'), hook: canary('hook') };
  repo.write('plugins/tools/.mcp.json', JSON.stringify({ mcpServers: { first: touch(canaries.first) } }));
  return { repo, canaries };
}

function addLater(repo: TempRepo, canaries: Record<string, string>) {
  repo.write('plugins/tools/.mcp.json', JSON.stringify({ mcpServers: { first: touch(canaries.first), added: touch(canaries.added) } }));
  repo.write('.beans/settings.json', JSON.stringify(sessionStartHook(canaries.hook)));
}

async function oneShot(repo: TempRepo, args: string[] = []) {
  const model = await scriptedOllama({ turns: [{ text: 'hi' }] });
  return runBeans(['-p', 'hi', ...args], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url, MCP_TIMEOUT: '3000' } });
}

describe('a server or hook added after trust asks first (issue 43, item 2)', () => {
  it('one-shot skips what was added after `beans trust`, with one warning line; `beans trust` again approves it', async () => {
    const { repo, canaries } = repository();
    const trust = await runBeans(['trust'], { cwd: repo.dir, env: repo.env });
    expect(trust.stdout).toContain('It declares 1 MCP server(s) and hook(s)');
    addLater(repo, canaries);
    const run = await oneShot(repo);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(canaries.first)).toBe(true);
    expect(existsSync(canaries.added)).toBe(false);
    expect(existsSync(canaries.hook)).toBe(false);
    const lines = run.stderr.split('\n').filter((line) => line.includes('trusted before it declared'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`MCP server added (plugins/tools/.mcp.json): touch ${canaries.added}`);
    expect(lines[0]).toContain(`hook SessionStart (.beans/settings.json): touch ${canaries.hook}`);
    // `beans mcp list` obeys the same gate: the added server is listed as disabled, not started.
    const list = await runBeans(['mcp', 'list', '--json'], { cwd: repo.dir, env: { ...repo.env, MCP_TIMEOUT: '3000' } });
    expect(list.code, list.stderr).toBe(0);
    expect(existsSync(canaries.added)).toBe(false);
    const listed = (JSON.parse(list.stdout) as { servers: { name: string; status: string; error?: string }[] }).servers.find(
      (server) => server.name === 'added',
    );
    expect(listed).toMatchObject({ status: 'disabled' });
    expect(listed?.error).toContain('added it after this folder was trusted');
    const hooks = await runBeans(['hooks', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    const hook = (JSON.parse(hooks.stdout) as { hooks: { event: string; runs: boolean; notRun?: string }[] }).hooks.find((h) => h.event === 'SessionStart');
    expect(hook).toMatchObject({ runs: false, notRun: expect.stringContaining('added after this folder was trusted') });

    expect((await runBeans(['trust'], { cwd: repo.dir, env: repo.env })).code).toBe(0);
    const again = await oneShot(repo);
    expect(again.stderr).not.toContain('trusted before it declared');
    expect(existsSync(canaries.added)).toBe(true);
    expect(existsSync(canaries.hook)).toBe(true);
  });

  it('a changed command line counts as new', async () => {
    const { repo, canaries } = repository();
    await runBeans(['trust'], { cwd: repo.dir, env: repo.env });
    repo.write('plugins/tools/.mcp.json', JSON.stringify({ mcpServers: { first: touch(canaries.added) } }));
    const run = await oneShot(repo);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(canaries.added)).toBe(false);
    expect(run.stderr).toContain('MCP server first');
  });

  it('trusted through a parent folder: the first trusted run is the baseline, later additions wait', async () => {
    const { repo, canaries } = repository();
    await runBeans(['trust', path.dirname(repo.dir)], { cwd: repo.home, env: repo.env });
    await oneShot(repo);
    expect(existsSync(canaries.first)).toBe(true);
    addLater(repo, canaries);
    const run = await oneShot(repo);
    expect(existsSync(canaries.added)).toBe(false);
    expect(existsSync(canaries.hook)).toBe(false);
    expect(run.stderr).toContain('trusted before it declared');
  });

  it('--trust runs everything for that run and records nothing', async () => {
    const { repo, canaries } = repository();
    await runBeans(['trust'], { cwd: repo.dir, env: repo.env });
    addLater(repo, canaries);
    const run = await oneShot(repo, ['--trust']);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(canaries.added)).toBe(true);
    expect(existsSync(canaries.hook)).toBe(true);
  });
});
