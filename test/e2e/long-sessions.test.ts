// Issue 18: long runs that must not fall over or spin.
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

describe('loop detection', () => {
  it('a model that repeats one tool call is stopped within its bound: error_during_execution, exit 1', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n' });
    const server = await scriptedOllama({ turns: () => ({ text: 'Checking again.', toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }) });
    const run = await runBeans(['-p', 'read it', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as { subtype: string; num_turns: number; errors: string[] };
    expect(result.subtype).toBe('error_during_execution');
    expect(result.num_turns).toBe(5);
    expect(result.errors[0]).toMatch(/^loop detected: /);
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(5);
  });

  it('can be turned off in settings (the turn limit still applies)', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n', '.beans/settings.json': '{"loopDetection": {"enabled": false}}' });
    const server = await scriptedOllama({ turns: () => ({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }) });
    const run = await runBeans(['-p', 'read it', '-o', 'json', '--max-turns', '8'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_max_turns', num_turns: 8 });
  });
});

describe('output that is never lost', () => {
  it('a 10 MB shell output is cut for the model, saved whole, and readable at an offset', async () => {
    const repo = makeTempRepo();
    let savedPath = '';
    const server = await scriptedOllama({
      turns: (request, n) => {
        if (n === 0) return { toolCalls: [{ name: 'shell', args: { command: 'seq 1 1500000' } }] };
        if (n === 1) {
          const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
          savedPath = /saved in (\S+?):/.exec(messages.at(-1)!.content)?.[1] ?? '';
          return { toolCalls: [{ name: 'read_file', args: { path: savedPath, offset: 777777, limit: 2 } }] };
        }
        if (n === 2) return { toolCalls: [{ name: 'grep', args: { pattern: '^1234567$', path: savedPath } }] };
        return { text: 'done' };
      },
    });
    const run = await runBeans(['-p', 'count', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const toolResult = (i: number) => (server.requests.filter((r) => r.kind === 'chat')[i]!.body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;
    expect(toolResult(1)).toMatch(/lines cut/);
    expect(toolResult(1).length).toBeLessThan(45_000);
    expect(savedPath).toContain('.outputs');
    expect(toolResult(2)).toMatch(/777777\s+777777\n\s*777778\s+777778/);
    expect(toolResult(3)).toContain(':1234567: 1234567');
  });
});
