// Issue #40 item 5: task with run_in_background returns a task id at once; shell_output reads the
// child's answer, kill_shell stops it, and the parent is told when it ends.
import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { RecordedRequest, ScriptTurn } from '../../../../test/support/script.ts';
import { query, type SdkMessage } from '../../src/index.js';

type ChatBody = { messages: { role: string; content: string }[] };
const systemOf = (request: RecordedRequest) => (request.body as ChatBody).messages.find((m) => m.role === 'system')?.content ?? '';
const isChild = (request: RecordedRequest) => systemOf(request).startsWith('HELPER');

async function run(turns: (request: RecordedRequest, n: number) => ScriptTurn) {
  const repo = makeTempRepo();
  const server = await scriptedOllama({ turns });
  const messages: SdkMessage[] = [];
  const started = Date.now();
  for await (const message of query({
    prompt: 'go',
    options: {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url },
      permissionMode: 'bypassPermissions',
      agents: { helper: { description: 'Helps.', prompt: 'HELPER: answer briefly.' } },
    },
  }))
    messages.push(message);
  /** Tool results in order, as text. */
  const results = messages
    .flatMap((message) => (message.type === 'user' && Array.isArray(message.message.content) ? message.message.content : []))
    .map((block) => JSON.stringify((block as { content?: unknown }).content));
  return { server, messages, results, ms: Date.now() - started };
}

const background = { name: 'task', args: { description: 'look around', prompt: 'Look around.', subagent_type: 'helper', run_in_background: true } };

describe('background subagents', () => {
  it('returns a task id before the child answers; shell_output waits for and shows the answer', async () => {
    const { results, server, messages } = await run((request, n) => {
      // The child answers slowly: 3 chunks 400 ms apart.
      if (isChild(request)) return { text: ['The answer ', 'is ', '42.'], chunkDelayMs: 400 };
      if (n === 0) return { toolCalls: [background] };
      if (n === 1) return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', wait_ms: 20_000 } }] };
      return { text: 'The helper said 42.' };
    });
    expect(results[0]).toContain('Started the agent in the background as task bg-1');
    expect(results[1]).toContain('Task bg-1: exited with code 0');
    expect(results[1]).toContain('The answer is 42.');
    expect(results[1]).toMatch(/\[helper: 1 turn, \d+ input and \d+ output tokens\]/);
    // The parent's second request went out while the child was still answering.
    const chats = server.requests.filter((request) => request.kind === 'chat');
    const parentSecond = chats.filter((request) => !isChild(request))[1]!;
    const childRequest = chats.find(isChild)!;
    expect(parentSecond.time - childRequest.time).toBeLessThan(700);
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'The helper said 42.' });
  });

  it('tells the parent when the child finished, at the end of its next tool result', async () => {
    const { results } = await run((request, n) => {
      if (isChild(request)) return { text: 'Found 3 files.' };
      if (n === 0) return { toolCalls: [background] };
      if (n === 1) return { toolCalls: [{ name: 'shell', args: { command: 'sleep 1.5; echo slept' } }] };
      return { text: 'done' };
    });
    expect(results[1]).toContain('slept');
    expect(results[1]).toMatch(/\[Background task bg-1 exited with code 0 after \d+s: helper: look around\]/);
  });

  it('kill_shell stops a child that is still working; its task reads killed', async () => {
    const { results, ms } = await run((request, n) => {
      if (isChild(request)) return { text: ['slow ', 'slow ', 'slow ', 'slow'], chunkDelayMs: 5_000 };
      if (n === 0) return { toolCalls: [background] };
      if (n === 1) return { toolCalls: [{ name: 'kill_shell', args: { task_id: 'bg-1' } }] };
      if (n === 2) return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1' } }] };
      return { text: 'stopped it' };
    });
    expect(results[1]).toMatch(/Task bg-1: was killed after \d+s/);
    expect(results[2]).toContain('Task bg-1: was killed');
    expect(ms).toBeLessThan(10_000);
  });
});
