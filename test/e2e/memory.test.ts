// Issue 18: memory the agent keeps across sessions, and /init.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

interface ChatBody {
  messages: { role: string; content: string }[];
}

describe('memory end to end', () => {
  it('the memory tool records a fact in .beans/memory.md, and the next session is told it', async () => {
    const repo = makeTempRepo();
    const first = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'memory', args: { fact: 'Build with `make all`; tests need PORT=0.' } }] }, { text: 'noted' }],
    });
    const denied = await runBeans(['-p', 'learn', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: first.url } });
    expect(JSON.parse(denied.stdout).permission_denials).toEqual([expect.objectContaining({ tool_name: 'memory' })]);
    const run = await runBeans(['-p', 'learn', '--allowed-tools', 'memory'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: first.url } });
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(repo.dir, '.beans', 'memory.md'), 'utf8')).toContain('- Build with `make all`; tests need PORT=0.');

    const second = await scriptedOllama({ turns: [{ text: 'ok' }] });
    await runBeans(['-p', 'how do I build?'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: second.url } });
    const system = (second.requests.find((request) => request.kind === 'chat')!.body as ChatBody).messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('Build with `make all`; tests need PORT=0.');
  });

  it('/init works in one-shot: the model is asked to write AGENTS.md and does', async () => {
    const repo = makeTempRepo({ 'package.json': '{"scripts":{"test":"vitest"}}' });
    const server = await scriptedOllama({
      turns: [
        { toolCalls: [{ name: 'write_file', args: { path: 'AGENTS.md', content: '# AGENTS.md\n\nRun tests with `npm test`.\n' } }] },
        { text: 'Wrote AGENTS.md.' },
      ],
    });
    const run = await runBeans(['-p', '/init', '--allowed-tools', 'write_file(AGENTS.md)'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Wrote AGENTS.md.');
    const prompt = (server.requests.find((request) => request.kind === 'chat')!.body as ChatBody).messages.find((message) => message.role === 'user')!;
    expect(prompt.content).toContain('Write an AGENTS.md file at the root of this repository');
    expect(readFileSync(path.join(repo.dir, 'AGENTS.md'), 'utf8')).toContain('Run tests with `npm test`.');
  });
});
