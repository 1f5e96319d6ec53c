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
