// What a Claude Code user types on the first day (issue 59): model aliases on the command line and
// in settings, and Claude Code's own flags, each against a scripted Anthropic server.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import type { ScriptOptions, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, type TempRepo } from './harness.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function anthropic(
  options: ScriptOptions,
  files: Record<string, string> = {},
): Promise<{ server: ScriptedServer; repo: TempRepo; env: NodeJS.ProcessEnv }> {
  const server = await startScriptedAnthropic(options);
  servers.push(server);
  const repo = makeTempRepo({ 'README.md': '# demo\n', ...files });
  return { server, repo, env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url } };
}

const chats = (server: ScriptedServer) =>
  server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as Record<string, unknown>);

describe('model aliases', () => {
  test('-m sonnet sends the current Sonnet id, not "sonnet"', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'hi back' }] });
    const run = await runBeans(['-p', 'hi', '-m', 'sonnet'], { cwd: repo.dir, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(chats(server).map((body) => body.model)).toEqual(['claude-sonnet-5-5']);
  });

  test('"model": "haiku" in the settings, and --model OPUS, map too', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'one' }, { text: 'two' }] });
    mkdirSync(path.join(repo.dir, '.beans'), { recursive: true });
    writeFileSync(path.join(repo.dir, '.beans', 'settings.json'), JSON.stringify({ model: 'haiku' }));
    expect((await runBeans(['-p', 'hi'], { cwd: repo.dir, env })).code).toBe(0);
    expect((await runBeans(['-p', 'hi', '--model', 'OPUS'], { cwd: repo.dir, env })).code).toBe(0);
    expect(chats(server).map((body) => body.model)).toEqual(['claude-haiku-5-5', 'claude-opus-5-5']);
  });
});

describe('beans "<prompt>"', () => {
  test('with stdin not a terminal it runs the prompt one-shot (it was exit 2, "too many arguments")', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'the answer' }] });
    const run = await runBeans(['what is this repository'], { cwd: repo.dir, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('the answer');
    expect(JSON.stringify(chats(server)[0]!.messages)).toContain('what is this repository');
  });

  test('a prompt and -p together are bad usage, exit 2', async () => {
    const { repo, env } = await anthropic({ turns: [{ text: 'never' }] });
    const run = await runBeans(['-p', 'one', 'two'], { cwd: repo.dir, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Two prompts');
  });
});
