// What a Claude Code user types on the first day (issue 59): model aliases on the command line and
// in settings, and Claude Code's own flags, each against a scripted Anthropic server.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { anthropicErrorBody, startScriptedAnthropic } from '../support/scripted-anthropic.ts';
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

  test('a prompt of several words without quotes is bad usage that says to quote it, and sends nothing', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'never' }] });
    for (const args of [
      ['fix', 'the', 'failing', 'test'],
      ['chat', 'fix', 'it'],
    ]) {
      const run = await runBeans(args, { cwd: repo.dir, env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('too many arguments');
      expect(run.stderr).toContain('goes in quotes: beans "fix the failing test"');
    }
    expect(chats(server)).toEqual([]);
  });

  test('a prompt and -p together are bad usage, exit 2', async () => {
    const { repo, env } = await anthropic({ turns: [{ text: 'never' }] });
    const run = await runBeans(['-p', 'one', 'two'], { cwd: repo.dir, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Two prompts');
  });
});

describe("Claude Code's flags", () => {
  test('--dangerously-skip-permissions approves every call, as --yolo', async () => {
    const { repo, env } = await anthropic({ turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'made.txt', content: 'yes\n' } }] }, { text: 'done' }] });
    const run = await runBeans(['-p', 'make it', '--dangerously-skip-permissions', '-o', 'json'], { cwd: repo.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([]);
    expect(readFileSync(path.join(repo.dir, 'made.txt'), 'utf8')).toBe('yes\n');
  });

  test('--system-prompt replaces the instructions; --append-system-prompt adds to the end', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'one' }, { text: 'two' }] });
    expect((await runBeans(['-p', 'hi', '--system-prompt', 'You are a pirate.'], { cwd: repo.dir, env })).code).toBe(0);
    expect((await runBeans(['-p', 'hi', '--append-system-prompt', 'Always answer in French.'], { cwd: repo.dir, env })).code).toBe(0);
    const [replaced, appended] = chats(server).map((body) => JSON.stringify(body.system));
    expect(replaced).toContain('You are a pirate.');
    expect(appended).not.toContain('You are a pirate.');
    expect(appended).toMatch(/Always answer in French\.(\\n)*"(\}|,)/);
  });

  test('--fallback-model haiku answers when the model stays overloaded after its retries', async () => {
    const overloaded = { status: 529, body: anthropicErrorBody(529, 'Overloaded') };
    const { server, repo, env } = await anthropic({ turns: [{ text: 'from the fallback' }], faults: [overloaded, overloaded] });
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(
      path.join(repo.home, '.config', 'beans-agent', 'settings.json'),
      JSON.stringify({ retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } }),
    );
    const run = await runBeans(['-p', 'hi', '--fallback-model', 'haiku'], { cwd: repo.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('from the fallback');
    expect(run.stderr).toContain('answering with the fallback model claude-haiku-5-5');
    expect(chats(server).map((body) => body.model)).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']);
  });

  test('--session-id takes a UUID, as Claude Code: anything else is refused before a request (exit 2)', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'named' }] });
    for (const id of ['my-session', '../../etc/passwd', '2026-11-22T10-53-04-ab12cd']) {
      const refused = await runBeans(['-p', 'hi', '--session-id', id], { cwd: repo.dir, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('Invalid session ID. Must be a valid UUID.');
    }
    expect(chats(server)).toHaveLength(0);
    const id = '550e8400-e29b-41d4-a716-446655440000';
    const run = await runBeans(['-p', 'hi', '--session-id', id, '-o', 'json'], { cwd: repo.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).session_id).toBe(id);
  });

  test('--settings takes JSON text or a file, above the settings files', async () => {
    const { server, repo, env } = await anthropic({ turns: [{ text: 'one' }, { text: 'two' }] });
    mkdirSync(path.join(repo.dir, '.beans'), { recursive: true });
    writeFileSync(path.join(repo.dir, '.beans', 'settings.json'), JSON.stringify({ model: 'claude-sonnet-5-5' }));
    expect((await runBeans(['-p', 'hi', '--settings', '{"model": "haiku"}'], { cwd: repo.dir, env })).code).toBe(0);
    const file = path.join(repo.home, 'ci-settings.json');
    writeFileSync(file, JSON.stringify({ model: 'claude-opus-5-5' }));
    expect((await runBeans(['-p', 'hi', '--settings', file], { cwd: repo.dir, env })).code).toBe(0);
    expect(chats(server).map((body) => body.model)).toEqual(['claude-haiku-5-5', 'claude-opus-5-5']);
    const missing = await runBeans(['-p', 'hi', '--settings', 'nope.json'], { cwd: repo.dir, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--settings: nope.json is neither JSON text nor a settings file that exists.');
  });

  test('--add-dir lets the file tools read and write another folder; without it that folder stays outside', async () => {
    const other = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-add-dir-')));
    writeFileSync(path.join(other, 'shared.md'), 'shared notes\n');
    const turns = [
      { toolCalls: [{ name: 'read_file', args: { path: path.join(other, 'shared.md') } }] },
      { toolCalls: [{ name: 'write_file', args: { path: path.join(other, 'shared.md'), content: 'updated\n' } }] },
      { text: 'done' },
    ];
    const { server, repo, env } = await anthropic({ turns });
    const refused = await runBeans(['-p', 'update it', '--yolo'], { cwd: repo.dir, env });
    expect(refused.code, refused.stderr).toBe(0);
    expect(readFileSync(path.join(other, 'shared.md'), 'utf8')).toBe('shared notes\n');
    expect(JSON.stringify(chats(server)[1]!.messages)).toContain('is outside the workspace');
    const allowed = await runBeans(['-p', 'update it', '--yolo', '--add-dir', other], { cwd: repo.dir, env });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.stringify(chats(server)[4]!.messages)).toContain('shared notes');
    expect(readFileSync(path.join(other, 'shared.md'), 'utf8')).toBe('updated\n');
    const wrong = await runBeans(['-p', 'x', '--add-dir', path.join(other, 'none')], { cwd: repo.dir, env });
    expect(wrong.code).toBe(2);
  });
});
