// Issue 53 item 8, settings: one invalid value in an untrusted repository's settings stopped every
// run with exit 3 (the repository could keep Beans from starting at all), and the untrusted-settings
// warning listed the user's own servers and plugin folders as the repository's.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

function userSettings(repo: TempRepo, settings: unknown) {
  const file = path.join(repo.home, '.config', 'beans-agent', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
}

async function oneShot(repo: TempRepo, args: string[] = []) {
  const server = await scriptedOllama({ turns: [{ text: 'Hello from the model.' }] });
  const run = await runBeans(['-p', 'hi', ...args], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
  });
  return { run, asked: server.requests.filter((request) => request.kind === 'chat').length };
}

const warningLine = (stderr: string) => stderr.split('\n').find((line) => line.includes('This folder is not trusted')) ?? '';

describe("an untrusted repository's invalid settings are ignored, not fatal", () => {
  const invalid: [string, string, string][] = [
    ['.beans/settings.json', '{"tools":{"defer":true}}', 'tools.defer'],
    ['.beans/settings.json', '{"maxTurns":"lots","model":"qwen3"}', 'maxTurns'],
    ['.beans/settings.local.json', '{"permissions":{"mode":"reckless"}}', 'permissions.mode'],
    ['.beans/settings.json', '{"compaction":{"threshold":7}}', 'compaction.threshold'],
    ['.beans/settings.json', '{"mcpServers":[1,2]}', 'mcpServers'],
    ['.beans/settings.json', '{"tools": {"defer": "never",', 'not valid JSON'],
    ['.beans/settings.json', '[1, 2, 3]', 'settings.json'],
  ];
  for (const [file, text, named] of invalid) {
    it(`${file} holding ${text} runs, naming ${named} as ignored`, async () => {
      const repo = makeTempRepo({ [file]: text });
      const { run, asked } = await oneShot(repo);
      expect(run.stderr).not.toMatch(/Invalid settings|is not valid JSON\. Fix/);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Hello from the model.');
      expect(asked).toBe(1);
      expect(warningLine(run.stderr)).toContain(named);
    });
  }

  it('a valid key beside the invalid one still applies when it is on the allow-list', async () => {
    const repo = makeTempRepo({ '.beans/settings.json': '{"tools":{"defer":true},"sop":"Always answer in French."}' });
    const server = await scriptedOllama({ turns: [{ text: 'Bonjour.' }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
    expect(run.code).toBe(0);
    expect(JSON.stringify(server.requests.find((request) => request.kind === 'chat')?.body)).toContain('Always answer in French.');
  });

  it("in a trusted folder (or the user's own settings) an invalid value is still an error naming the file (exit 3)", async () => {
    const repo = makeTempRepo({ '.beans/settings.json': '{"tools":{"defer":true}}' });
    const trusted = await oneShot(repo, ['--trust']);
    expect(trusted.run.code).toBe(3);
    expect(trusted.run.stderr).toContain('settings.json');
    const own = makeTempRepo();
    userSettings(own, { tools: { defer: true } });
    const user = await oneShot(own);
    expect(user.run.code).toBe(3);
  });
});

describe("the untrusted-settings warning names only the repository's own requests", () => {
  it("not the user's MCP servers beside the repository's, nor the user's plugin folders", async () => {
    const repo = makeTempRepo({
      '.beans/settings.json': JSON.stringify({
        mcpServers: { 'repo-server': { command: 'node', args: ['evil.js'] } },
        plugins: { dirs: ['/opt/repo-chosen-plugins'] },
      }),
    });
    userSettings(repo, {
      mcpServers: { 'my-own-server': { command: 'my-server', args: ['--private'] } },
      plugins: { dirs: ['/home/me/my-plugins'] },
    });
    const { run } = await oneShot(repo);
    expect(run.code).toBe(0);
    const line = warningLine(run.stderr);
    expect(line).toContain('repo-server');
    expect(line).toContain('/opt/repo-chosen-plugins');
    expect(line).not.toContain('my-own-server');
    expect(line).not.toContain('--private');
    expect(line).not.toContain('/home/me/my-plugins');
  });

  it('with --plugin-dir given, a plugin folder the repository names outside itself is still ignored and named', async () => {
    const repo = makeTempRepo({ '.beans/settings.json': JSON.stringify({ plugins: { dirs: ['/opt/repo-chosen-plugins'] } }) });
    const mine = path.join(repo.home, 'flag-plugins');
    mkdirSync(mine, { recursive: true });
    const server = await scriptedOllama({ turns: [{ text: 'ok' }] });
    const config = await runBeans(['config', '--json', '--plugin-dir', mine], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(warningLine(config.stderr)).toContain('/opt/repo-chosen-plugins');
    expect(config.stdout).not.toContain('/opt/repo-chosen-plugins');
  });
});
