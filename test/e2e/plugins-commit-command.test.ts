import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

// Modelled on the public commit-commands plugin: context from !`git ...`, then the model commits.
const COMMIT = [
  '---',
  'allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)',
  'description: Create a git commit',
  '---',
  '## Context',
  '- Current git status: !`git status --short`',
  '- Would stage: !`git add --dry-run src`',
  '- Danger: !`rm -rf src`',
  '',
  '## Your task',
  'Stage and commit the changes with the message "$ARGUMENTS" in a single shell call.',
].join('\n');

type ChatBody = { messages: { role: string; content: string }[] };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function oneShot(repo: TempRepo, args: string[], turns: ScriptTurn[]) {
  server = await scriptedOllama({ turns });
  const run = await runBeans(args, { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
  const chats = server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as ChatBody);
  return { run, chats };
}

describe('a /commit-like plugin command in a plain one-shot', () => {
  it('puts !`git status` output in the prompt, denies what allowed-tools do not cover, and lets git add && git commit run', async () => {
    const repo = makeTempRepo({ 'plugins/commit-commands/commands/commit.md': COMMIT, 'src/app.txt': 'hello\n' });
    writeFileSync(path.join(repo.home, '.gitconfig'), '[user]\n\tname = t\n\temail = t@t\n');
    const { run, chats } = await oneShot(
      repo,
      ['-p', '/commit add app', '--trust'],
      [{ toolCalls: [{ name: 'shell', args: { command: 'git add src/app.txt && git commit -m "add app"' } }] }, { text: 'Committed.' }],
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const user = chats[0]!.messages.find((message) => message.role === 'user')!.content;
    expect(user).toContain('- Current git status: ?? plugins/\n?? src/');
    expect(user).toContain("- Would stage: add 'src/app.txt'");
    expect(user).toContain('- Danger: [not run: `rm -rf src`');
    expect(user).toContain('with the message "add app"');
    const tool = chats[1]!.messages.find((message) => message.role === 'tool')!.content;
    expect(tool).not.toContain('not allowed');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: repo.dir, encoding: 'utf8', env: repo.env })).toBe('add app\n');
  });

  // Issue #31 changed this: `git status --short` is read-only and runs without allowed-tools; the
  // line that stages (`git add --dry-run`) stands in for a line the allowed-tools must cover.
  it('without allowed-tools a !`cmd` that is not read-only is not run in a one-shot, and the placeholder says so', async () => {
    const bare = COMMIT.replace(/^allowed-tools:.*\n/m, '');
    const repo = makeTempRepo({ 'plugins/commit-commands/commands/commit.md': bare });
    const { run, chats } = await oneShot(repo, ['-p', '/commit x'], [{ text: 'ok' }]);
    expect(run.code).toBe(0);
    const user = chats[0]!.messages.find((message) => message.role === 'user')!.content;
    expect(user).toContain('- Current git status: ?? plugins/');
    expect(user).toContain('- Would stage: [not run: `git add --dry-run src` — the allowed-tools of /commit-commands:commit do not allow it');
  });

  it("in a folder the user has not trusted, a workspace command's allowed-tools grant nothing", async () => {
    const repo = makeTempRepo({ 'plugins/commit-commands/commands/commit.md': COMMIT, 'src/app.txt': 'hello\n' });
    const { run, chats } = await oneShot(
      repo,
      ['-p', '/commit add app'],
      [{ toolCalls: [{ name: 'shell', args: { command: 'git add src/app.txt' } }] }, { text: 'Could not.' }],
    );
    expect(run.code).toBe(0);
    const user = chats[0]!.messages.find((message) => message.role === 'user')!.content;
    expect(user).toContain('- Current git status: ?? plugins/\n?? src/');
    expect(user).toContain(
      '- Would stage: [not run: `git add --dry-run src` — this folder is not trusted, so the allowed-tools of /commit-commands:commit do not apply; `beans trust` trusts it',
    );
    expect(execFileSync('git', ['status', '--short', 'src'], { cwd: repo.dir, encoding: 'utf8' })).toBe('?? src/\n');
  });
});
