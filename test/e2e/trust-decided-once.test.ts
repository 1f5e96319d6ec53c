// Issue 52, item 2: workspace trust is decided once, in core (runtime/workspace-trust.ts). A session
// and every listing ask it, so they agree on what runs: `beans plugins list` worked trust out for
// itself and listed a plugin hook added after `beans trust` as running, while the session skipped it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const hooksFile = (...files: string[]) =>
  JSON.stringify({ hooks: { SessionStart: files.map((file) => ({ hooks: [{ type: 'command', command: `touch ${file}` }] })) } });

describe('trust is decided once, in core', () => {
  it('a plugin hook added after trust: the session skips it, and plugins list and hooks list say it does not run', async () => {
    const repo = makeTempRepo({ 'plugins/fmt/commands/fmt.md': 'Format.\n' });
    const canary = (name: string) => path.join(path.dirname(repo.dir), `ran-${name}`);
    repo.write('plugins/fmt/hooks/hooks.json', hooksFile(canary('first')));
    expect((await runBeans(['trust'], { cwd: repo.dir, env: repo.env })).stdout).toContain('It declares 1 MCP server(s) and hook(s)');
    repo.write('plugins/fmt/hooks/hooks.json', hooksFile(canary('first'), canary('added')));

    const model = await scriptedOllama({ turns: [{ text: 'hi' }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(canary('first'))).toBe(true);
    expect(existsSync(canary('added'))).toBe(false);
    expect(run.stderr).toContain(`hook SessionStart (plugins/fmt/hooks/hooks.json): touch ${canary('added')}`);

    const plugins = await runBeans(['plugins', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    const fmt = (JSON.parse(plugins.stdout) as { plugins: { name: string; hooks: { command: string; runs: boolean; notRun?: string }[] }[] }).plugins.find(
      (plugin) => plugin.name === 'fmt',
    );
    expect(fmt?.hooks).toEqual([
      { event: 'SessionStart', command: `touch ${canary('first')}`, runs: true },
      { event: 'SessionStart', command: `touch ${canary('added')}`, runs: false, notRun: expect.stringContaining('added after this folder was trusted') },
    ]);
    const text = await runBeans(['plugins', 'list'], { cwd: repo.dir, env: repo.env });
    expect(text.stdout).toContain(`touch ${canary('added')}  (not run: added after this folder was trusted`);
    const hooks = await runBeans(['hooks', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect((JSON.parse(hooks.stdout) as { hooks: { command: string; runs: boolean }[] }).hooks.map((hook) => [hook.command, hook.runs])).toEqual([
      [`touch ${canary('first')}`, true],
      [`touch ${canary('added')}`, false],
    ]);

    // --trust runs everything for one run, and every listing says so too.
    const once = await runBeans(['plugins', 'list', '--json', '--trust'], { cwd: repo.dir, env: repo.env });
    const all = (JSON.parse(once.stdout) as { plugins: { name: string; hooks: { runs: boolean }[] }[] }).plugins.find((plugin) => plugin.name === 'fmt');
    expect(all?.hooks.map((hook) => hook.runs)).toEqual([true, true]);
  });

  it('an untrusted folder: the session, plugins list and hooks list all leave its plugin hooks out', async () => {
    const repo = makeTempRepo({ 'plugins/fmt/commands/fmt.md': 'Format.\n' });
    const canary = path.join(path.dirname(repo.dir), 'ran-untrusted');
    repo.write('plugins/fmt/hooks/hooks.json', hooksFile(canary));
    const model = await scriptedOllama({ turns: [{ text: 'hi' }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(canary)).toBe(false);
    const plugins = await runBeans(['plugins', 'list'], { cwd: repo.dir, env: repo.env });
    expect(plugins.stdout).toContain(`touch ${canary}  (not run: this workspace is not trusted)`);
  });
});
