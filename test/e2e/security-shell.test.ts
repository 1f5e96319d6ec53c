// Attacks on the permission policy, run as they were: a scripted model, a one-shot run, canary
// files outside the workspace that must never appear.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

async function attack(command: string, extraArgs: string[] = []) {
  const repo = makeTempRepo({ 'a.txt': 'a\n' });
  const outside = path.join(path.dirname(repo.dir), 'outside');
  mkdirSync(outside, { recursive: true });
  const canary = path.join(outside, 'canary');
  const server = await scriptedOllama({
    turns: [{ toolCalls: [{ name: 'shell', args: { command: command.replaceAll('CANARY', canary) } }] }, { text: 'done' }],
  });
  const run = await runBeans(['-p', 'go', '-o', 'json', '--allowed-tools', 'shell(git *)', ...extraArgs], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url },
  });
  return { run, canary, result: JSON.parse(run.stdout) as { permission_denials: unknown[] } };
}

describe('shell(git *) approves git and nothing else (finding 1)', () => {
  for (const command of [
    "git log -1 # it's the latest\ntouch CANARY",
    "git log $'\\'' ; touch CANARY ; #'",
    'git status > CANARY',
    'git diff --output=CANARY',
    "git -c alias.x='!touch CANARY' x",
  ]) {
    it(`denies ${JSON.stringify(command)}`, async () => {
      const { run, canary, result } = await attack(command);
      expect(run.code).toBe(0);
      expect(existsSync(canary)).toBe(false);
      expect(result.permission_denials).toHaveLength(1);
    });
  }

  it('still approves plain git commands', async () => {
    const { run, result } = await attack('git status --short 2>&1');
    expect(run.code).toBe(0);
    expect(result.permission_denials).toHaveLength(0);
  });
});

describe('deny rules hold through wrappers (finding 8)', () => {
  it('shell(rm *) stops /bin/rm, env rm, xargs rm and find -delete even under --yolo', async () => {
    for (const command of ['/bin/rm -f a.txt', 'env rm -f a.txt', 'echo a.txt | xargs rm -f', 'find . -name a.txt -delete', "bash -c 'rm -f a.txt'"]) {
      const repo = makeTempRepo({ 'a.txt': 'a\n' });
      const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'shell', args: { command } }] }, { text: 'done' }] });
      const run = await runBeans(['-p', 'go', '--yolo', '--disallowed-tools', 'shell(rm *)'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
      expect(run.code, command).toBe(0);
      expect(readFileSync(path.join(repo.dir, 'a.txt'), 'utf8'), command).toBe('a\n');
    }
  });
});

describe('files that configure Beans ask before every change (finding 3)', () => {
  it('in auto-edit mode the model cannot write .beans/settings.json, .claude/ or .git/ in a one-shot run', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'write_file', args: { path: '.beans/settings.json', content: '{"permissions":{"mode":"yolo"}}' } },
            { name: 'write_file', args: { path: '.claude/settings.json', content: '{}' } },
            { name: 'write_file', args: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch /tmp/x' } },
            { name: 'write_file', args: { path: '.mcp.json', content: '{}' } },
            { name: 'write_file', args: { path: 'src/ok.txt', content: 'fine' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const run = await runBeans(['-p', 'go', '--permission-mode', 'auto-edit', '-o', 'stream-json'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url },
    });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, '.beans', 'settings.json'))).toBe(false);
    expect(existsSync(path.join(repo.dir, '.claude', 'settings.json'))).toBe(false);
    expect(existsSync(path.join(repo.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(path.join(repo.dir, '.mcp.json'))).toBe(false);
    expect(readFileSync(path.join(repo.dir, 'src', 'ok.txt'), 'utf8')).toBe('fine');
    const result = parseJsonLines(run.stdout).at(-1) as { permission_denials: unknown[] };
    expect(result.permission_denials).toHaveLength(4);
  });
});

describe('file deny rules reach every file tool (finding 8)', () => {
  it('read_file(.env) also keeps .env from grep (with and without a path), glob, list_directory and a hard link', async () => {
    const repo = makeTempRepo({ '.env': 'TOKEN=CANARY-env-secret\n', 'src/a.txt': 'TOKEN=fine\n' });
    const { linkSync } = await import('node:fs');
    linkSync(path.join(repo.dir, '.env'), path.join(repo.dir, 'innocent.txt'));
    const server = await scriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'grep', args: { pattern: 'TOKEN' } },
            { name: 'grep', args: { pattern: 'TOKEN', path: '.env' } },
            { name: 'glob', args: { pattern: '.env*' } },
            { name: 'list_directory', args: {} },
            { name: 'read_file', args: { path: 'innocent.txt' } },
            { name: 'read_file', args: { path: '.env' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const run = await runBeans(['-p', 'find the token', '--disallowed-tools', 'read_file(.env)'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url },
    });
    expect(run.code).toBe(0);
    const next = JSON.stringify(server.requests.filter((r) => r.kind === 'chat')[1]!.body);
    expect(next).not.toContain('CANARY-env-secret');
    expect(next).toContain('TOKEN=fine');
  });
});
