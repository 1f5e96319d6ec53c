// Issue 18 proof: every loop pattern stops a one-shot run within its bound through bin/beans, and
// a command legitimately repeated after edits runs to the end.
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

async function oneShot(files: Record<string, string>, turns: Parameters<typeof scriptedOllama>[0]['turns'], extra: string[] = []) {
  const repo = makeTempRepo(files);
  const server = await scriptedOllama({ turns });
  const run = await runBeans(['-p', 'work', '-o', 'json', '--max-turns', '30', ...extra], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
  return {
    run,
    result: JSON.parse(run.stdout) as { subtype: string; num_turns: number; errors?: string[] },
    chats: server.requests.filter((r) => r.kind === 'chat').length,
  };
}

describe('loop detection patterns end to end', () => {
  it('two calls alternating with unchanged results stop after five rounds each', async () => {
    const { run, result, chats } = await oneShot({ 'a.txt': 'a\n' }, (_request, n) => ({
      toolCalls: [n % 2 ? { name: 'read_file', args: { path: 'a.txt' } } : { name: 'list_directory', args: {} }],
    }));
    expect(run.code).toBe(1);
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors?.[0]).toMatch(/^loop detected: two tool calls alternating 5 times/);
    expect(chats).toBe(10);
  });

  it('the same answer text turn after turn stops at the fifth', async () => {
    const { run, result, chats } = await oneShot({}, (_request, n) => ({
      text: 'Let me look again.',
      toolCalls: [{ name: 'glob', args: { pattern: `*.${n}` } }],
    }));
    expect(run.code).toBe(1);
    expect(result.errors?.[0]).toMatch(/^loop detected: the same answer text 5 times/);
    expect(chats).toBe(5);
  });

  it('the same test command after each edit is not a loop', async () => {
    const { run, result } = await oneShot(
      { 'v.txt': 'v0\n' },
      (_request, n) => {
        if (n >= 16) return { text: 'fixed' };
        const round = Math.floor(n / 2);
        return n % 2 === 0
          ? { toolCalls: [{ name: 'shell', args: { command: 'cat v.txt' } }] }
          : { toolCalls: [{ name: 'edit_file', args: { path: 'v.txt', old_string: `v${round}`, new_string: `v${round + 1}` } }] };
      },
      ['--yolo'],
    );
    expect(run.code).toBe(0);
    expect(result).toMatchObject({ subtype: 'success', num_turns: 17 });
  });
});
