// Issue #40 item 5 in a one-shot: a background subagent still working when the run ends is stopped
// at exit and said so on stderr, also with --keep-tasks (which keeps commands only).
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

describe('background subagents in beans -p', () => {
  it('a child still working at the end is stopped and named on stderr, with --keep-tasks too', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const child = (request: { body: unknown }) =>
      ((request.body as { messages: { role: string; content: string }[] }).messages[0]?.content ?? '').startsWith('You are a general-purpose agent');
    const server = await scriptedOllama({
      turns: (request, n) => {
        if (child(request)) return { text: ['slow ', 'slow'], chunkDelayMs: 20_000 };
        return n === 0
          ? {
              toolCalls: [
                { name: 'task', args: { description: 'take long', prompt: 'Take long.', subagent_type: 'general-purpose', run_in_background: true } },
              ],
            }
          : { text: 'Started it.' };
      },
    });
    const started = Date.now();
    const run = await runBeans(['-p', 'start a helper', '--yolo', '--keep-tasks'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Started it.');
    expect(run.stderr).toContain('beans: stopping background tasks at exit: bg-1 (general-purpose: take long)');
    expect(run.stderr).not.toContain('left running');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
