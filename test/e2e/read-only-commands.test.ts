import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

// Issue #31 (read-only commands run without asking) and #43 item 5 (deny rules hold under --yolo).

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type ChatBody = { messages: { role: string; content: string }[] };
type Result = { permission_denials: { tool_name: string; tool_input: { command?: string } }[] };

async function oneShot(repo: TempRepo, args: string[], turns: ScriptTurn[]) {
  server = await scriptedOllama({ turns });
  const run = await runBeans(args, { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
  const chats = server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as ChatBody);
  return { run, chats };
}

function committedRepo(files: Record<string, string>): TempRepo {
  const repo = makeTempRepo(files);
  writeFileSync(path.join(repo.home, '.gitconfig'), '[user]\n\tname = t\n\temail = t@t\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  git('add', '.');
  git('commit', '-qm', 'first commit');
  return repo;
}

const toolResults = (chats: ChatBody[]) =>
  chats.flatMap((chat) => chat.messages.filter((message) => message.role === 'tool').map((message) => message.content));

describe('read-only commands in a default-mode one-shot', () => {
  it('runs git log and ls without asking and denies touch, leaving the disk unchanged', async () => {
    const repo = committedRepo({ 'notes.txt': 'beans\n' });
    const before = readdirSync(repo.dir).sort();
    const { run, chats } = await oneShot(
      repo,
      ['-p', 'summarize what changed', '-o', 'json'],
      [
        {
          toolCalls: [
            { name: 'shell', args: { command: 'git log --oneline -5' } },
            { name: 'shell', args: { command: 'ls -la && git status --short' } },
            { name: 'shell', args: { command: 'touch x' } },
          ],
        },
        { text: 'One commit.' },
      ],
    );
    expect(run.code).toBe(0);
    const results = toolResults(chats);
    expect(results[0]).toContain('first commit');
    expect(results[1]).toContain('notes.txt');
    expect(results[2]).toContain('Permission denied');
    const result = JSON.parse(run.stdout) as Result;
    expect(result.permission_denials).toEqual([expect.objectContaining({ tool_name: 'shell', tool_input: expect.objectContaining({ command: 'touch x' }) })]);
    expect(existsSync(path.join(repo.dir, 'x'))).toBe(false);
    expect(readdirSync(repo.dir).sort()).toEqual(before);
  });

  it('asks (so denies in a one-shot) when the settings turn the rule off; an untrusted repository cannot turn it back on', async () => {
    const repo = committedRepo({ 'notes.txt': 'beans\n' });
    const settings = path.join(repo.home, '.config', 'beans-agent', 'settings.json');
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, JSON.stringify({ permissions: { readOnlyCommands: false } }));
    repo.write('.beans/settings.json', JSON.stringify({ permissions: { readOnlyCommands: true } }));
    const { run } = await oneShot(repo, ['-p', 'look', '-o', 'json'], [{ toolCalls: [{ name: 'shell', args: { command: 'ls' } }] }, { text: 'ok' }]);
    expect((JSON.parse(run.stdout) as Result).permission_denials.map((denial) => denial.tool_input.command)).toEqual(['ls']);
  });

  it('PreToolUse hooks still see every read-only call, and can block one', async () => {
    const repo = committedRepo({ 'notes.txt': 'beans\n' });
    const record = path.join(repo.home, 'pre.jsonl');
    const settings = path.join(repo.home, '.config', 'beans-agent', 'settings.json');
    mkdirSync(path.dirname(settings), { recursive: true });
    // Records each call; refuses `ls -la` (exit 2: the hook's reason goes to the model).
    const hook = `input=$(cat); printf '%s\\n' "$input" >> "${record}"; printf '%s' "$input" | grep -q '"command": *"ls -la"' && { echo "no listing today" >&2; exit 2; }; exit 0`;
    writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] } }));
    const { run, chats } = await oneShot(
      repo,
      ['-p', 'look', '-o', 'json'],
      [
        {
          toolCalls: [
            { name: 'shell', args: { command: 'git status --short' } },
            { name: 'shell', args: { command: 'ls -la' } },
          ],
        },
        { text: 'ok' },
      ],
    );
    expect(run.code).toBe(0);
    const seen = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { tool_input: { command: string } }).tool_input.command);
    expect(seen).toEqual(['git status --short', 'ls -la']);
    const results = toolResults(chats);
    expect(results[1]).toContain('no listing today');
    expect((JSON.parse(run.stdout) as Result).permission_denials.map((denial) => denial.tool_input.command)).toEqual(['ls -la']);
  });

  it('a deny rule still wins over the read-only rule', async () => {
    const repo = committedRepo({ 'notes.txt': 'beans\n' });
    const denied = await oneShot(
      repo,
      ['-p', 'look', '-o', 'json', '--disallowed-tools', 'shell(git log:*)'],
      [
        {
          toolCalls: [
            { name: 'shell', args: { command: 'git log' } },
            { name: 'shell', args: { command: 'git status' } },
          ],
        },
        { text: 'ok' },
      ],
    );
    expect((JSON.parse(denied.run.stdout) as Result).permission_denials.map((denial) => denial.tool_input.command)).toEqual(['git log']);
  });

  it('a read-only git diff does not start an external diff program the repository config names', async () => {
    const repo = committedRepo({ 'notes.txt': 'beans\n' });
    const marker = path.join(repo.home, 'ext-diff-ran');
    execFileSync('git', ['config', 'diff.external', `sh -c 'touch ${marker}'`], { cwd: repo.dir });
    writeFileSync(path.join(repo.dir, 'notes.txt'), 'more beans\n');
    const { run, chats } = await oneShot(
      repo,
      ['-p', 'diff', '-o', 'json'],
      [{ toolCalls: [{ name: 'shell', args: { command: 'git diff' } }] }, { text: 'ok' }],
    );
    expect(run.code).toBe(0);
    expect(toolResults(chats)[0]).toContain('+more beans');
    expect(existsSync(marker)).toBe(false);
  });
});

// The shape of the public /commit command of anthropics/claude-code's commit-commands plugin: its
// allowed-tools cover git add, status and commit, and its context asks for four git commands.
const PUBLIC_COMMIT = [
  '---',
  'allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)',
  'description: Create a git commit',
  '---',
  '',
  '## Context',
  '',
  '- Current git status: !`git status`',
  '- Current git diff (staged and unstaged changes): !`git diff HEAD`',
  '- Current branch: !`git branch --show-current`',
  '- Recent commits: !`git log --oneline -10`',
  '',
  '## Your task',
  '',
  'Make one commit of the changes above.',
].join('\n');

describe('the public /commit command', () => {
  it('reaches the model with the real git status, git diff HEAD, branch and log output', async () => {
    const repo = committedRepo({ 'src/app.txt': 'hello\n' });
    repo.write('src/app.txt', 'hello, world\n');
    repo.write('plugins/commit-commands/commands/commit.md', PUBLIC_COMMIT);
    const { run, chats } = await oneShot(repo, ['-p', '/commit'], [{ text: 'Committed.' }]);
    expect(run.code).toBe(0);
    const user = chats[0]!.messages.find((message) => message.role === 'user')!.content;
    const branch = execFileSync('git', ['branch', '--show-current'], { cwd: repo.dir, encoding: 'utf8' }).trim();
    expect(user).toContain(`- Current git status: On branch ${branch}`);
    expect(user).toContain('modified:   src/app.txt');
    expect(user).toContain('- Current git diff (staged and unstaged changes): diff --git a/src/app.txt b/src/app.txt');
    expect(user).toContain('-hello\n+hello, world');
    expect(user).toContain(`- Current branch: ${branch}`);
    expect(user).toMatch(/- Recent commits: [0-9a-f]{7,} first commit/);
    expect(user).not.toContain('[not run');
  });
});

describe('deny rules under --yolo (issue #43 item 5)', () => {
  it('eval, a shell reading stdin, git global options and wrappers do not slip past shell(rm:*) and shell(git push:*)', async () => {
    const repo = committedRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n', 'e.txt': 'e\n' });
    const remote = path.join(path.dirname(repo.dir), 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    execFileSync('git', ['remote', 'add', 'origin', remote], { cwd: repo.dir });
    const attacks = [
      "eval 'rm a.txt'",
      "echo 'rm b.txt' | bash",
      'git --no-pager push origin HEAD',
      "bash -ec 'rm c.txt'",
      'setsid rm d.txt',
      "env -S 'rm e.txt'",
      'git -C . push origin HEAD',
      'X=rm; $X a.txt',
    ];
    const { run, chats } = await oneShot(
      repo,
      ['-p', 'clean up', '--yolo', '-o', 'json', '--disallowed-tools', 'shell(rm:*)', '--disallowed-tools', 'shell(git push:*)'],
      [{ toolCalls: attacks.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'done' }],
    );
    expect(run.code).toBe(0);
    expect(toolResults(chats).every((text) => text.startsWith('Permission denied'))).toBe(true);
    expect((JSON.parse(run.stdout) as Result).permission_denials.map((denial) => denial.tool_input.command)).toEqual(attacks);
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']) expect(existsSync(path.join(repo.dir, file)), file).toBe(true);
    expect(execFileSync('git', ['--git-dir', remote, 'rev-list', '--all'], { encoding: 'utf8' })).toBe('');
  });
});
