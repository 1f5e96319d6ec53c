// Issue 53 item 5: what Beans writes from model text stays safe to `cat`. The model's escape
// sequences (OSC 52 clipboard, window title, clear screen, 8-bit CSI, a CR that overwrites a line)
// must not reach a session file, a memory note or a generated profile as bytes a terminal acts on.
// The /export and /copy side is test/tmux/security-export.test.ts.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTILE, terminalBytes } from '../support/terminal-bytes.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

function env(repo: TempRepo, url: string) {
  return { ...repo.env, OLLAMA_HOST: url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
}

function sessionFiles(repo: TempRepo): string[] {
  const root = path.join(repo.home, '.local', 'state', 'beans-agent', 'sessions');
  return readdirSync(root).flatMap((workspace) =>
    readdirSync(path.join(root, workspace))
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => path.join(root, workspace, name)),
  );
}

describe('files Beans writes from model text hold no terminal controls', () => {
  it('the session file (the transcript, subagents and summaries included) escapes them, and reads back the same', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: HOSTILE }] });
    const run = await runBeans(['-p', 'hi', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code).toBe(0);
    const [file] = sessionFiles(repo);
    expect(terminalBytes(file!)).toEqual([]);
    // Still the model's exact words once parsed (`--continue` sends them back unchanged).
    const messages = readFileSync(file!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message?: { role: string; content: string } });
    expect(messages.some((record) => record.message?.role === 'assistant' && record.message.content === HOSTILE)).toBe(true);
  });

  it('a memory note the model records', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'memory', args: { fact: `Run tests with pnpm test ${HOSTILE}` } }] }, { text: 'Noted.' }],
    });
    const run = await runBeans(['-p', 'remember how to test', '--yolo'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code).toBe(0);
    const memory = path.join(repo.dir, '.beans', 'memory.md');
    expect(readFileSync(memory, 'utf8')).toContain('Run tests with pnpm test Done.');
    expect(terminalBytes(memory)).toEqual([]);
  });

  it('the profile -a has the model write', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: () => ({ text: `You review code carefully.\n${HOSTILE}` }) });
    const run = await runBeans(['-p', 'hi', '-a', 'a careful reviewer'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code).toBe(0);
    const profile = path.join(repo.dir, '.beans', 'agent-profile.md');
    expect(readFileSync(profile, 'utf8')).toContain('You review code carefully.');
    expect(terminalBytes(profile)).toEqual([]);
  });
});
