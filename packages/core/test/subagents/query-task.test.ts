import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { RecordedRequest, ScriptTurn } from '../../../../test/support/script.ts';
import { query, type SdkMessage } from '../../src/index.js';
import { createAgentSession } from '../../src/runtime/agent-session.js';

type ChatBody = { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };
const systemOf = (request: RecordedRequest) => (request.body as ChatBody).messages.find((m) => m.role === 'system')?.content ?? '';

/** A temporary git repository with its own HOME, and a scripted Ollama server answering by `turns`. */
async function setup(turns: (request: RecordedRequest, n: number) => ScriptTurn) {
  const repo = makeTempRepo();
  const server = await scriptedOllama({ turns });
  return { dir: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, server };
}

describe('query() with subagents', () => {
  it("runs a task in a child with its own prompt and tools, under the parent's permission asker", async () => {
    // Each conversation is served by its system prompt: the child's starts with the agent's body.
    const { dir, env, server } = await setup((request, n): ScriptTurn => {
      if (systemOf(request).startsWith('WRITER')) {
        return n === 0 ? { toolCalls: [{ name: 'write_file', args: { path: 'child.txt', content: 'x' } }] } : { text: 'The write was refused.' };
      }
      return n === 0
        ? { toolCalls: [{ name: 'task', args: { description: 'write a file', prompt: 'Write child.txt.', subagent_type: 'writer' } }] }
        : { text: 'Parent done.' };
    });
    const asked: string[] = [];
    const messages: SdkMessage[] = [];
    for await (const message of query({
      prompt: 'go',
      options: {
        cwd: dir,
        env,
        agents: { writer: { description: 'Writes files.', prompt: 'WRITER: write what you are told.', tools: ['Write'] } },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: 'deny', message: 'not in a subagent' };
        },
      },
    }))
      messages.push(message);

    const chats = server.requests.filter((request) => request.kind === 'chat');
    const child = chats.filter((request) => systemOf(request).startsWith('WRITER'));
    expect(child).toHaveLength(2);
    expect((child[0]!.body as ChatBody).tools?.map((tool) => tool.function.name)).toEqual(['write_file']);
    expect((chats[0]!.body as ChatBody).tools?.map((tool) => tool.function.name)).toContain('task');
    expect(asked).toEqual(['write_file']);
    expect(existsSync(path.join(dir, 'child.txt'))).toBe(false);
    const taskResult = JSON.stringify(messages.filter((message) => message.type === 'user'));
    expect(taskResult).toContain('The write was refused.');
    expect(taskResult).toMatch(/\[writer: 2 turns, \d+ input and \d+ output tokens\]/);
    const result = messages.at(-1)!;
    expect(result.type === 'result' && result.subtype).toBe('success');
    // The child's refused call is the run's denial too.
    expect(result.type === 'result' && result.permission_denials).toEqual([
      { tool_name: 'write_file', tool_use_id: expect.any(String), tool_input: { path: 'child.txt', content: 'x' } },
    ]);
  });
});

describe('what a subagent shows its parent', () => {
  const agents = { finder: { description: 'Finds things.', prompt: 'FINDER: find what you are asked.', tools: ['Read', 'Grep'] } };
  const parentTurns = (request: RecordedRequest, n: number): ScriptTurn => {
    if (systemOf(request).startsWith('FINDER'))
      return { text: `found ${String((request.body as ChatBody).messages.at(-1)?.content)}`, usage: { input: 50, output: 5 } };
    return n === 0
      ? {
          toolCalls: [
            { id: 'call_a', name: 'task', args: { description: 'find a', prompt: 'alpha', subagent_type: 'finder' } },
            { id: 'call_b', name: 'task', args: { description: 'find b', prompt: 'beta', subagent_type: 'finder' } },
          ],
          usage: { input: 100, output: 10 },
        }
      : { text: 'Both found.', usage: { input: 200, output: 20 } };
  };

  it("forwards every child message with the task call id and counts the children's usage in the result", async () => {
    const { dir, env } = await setup(parentTurns);
    const messages: SdkMessage[] = [];
    for await (const message of query({ prompt: 'find both', options: { cwd: dir, env, agents } })) messages.push(message);

    const forwarded = messages.filter((message) => 'parent_tool_use_id' in message && message.parent_tool_use_id);
    const byParent = (id: string) => forwarded.filter((message) => 'parent_tool_use_id' in message && message.parent_tool_use_id === id);
    for (const id of ['call_a', 'call_b']) {
      // The child's prompt, then its answer.
      expect(byParent(id).map((message) => message.type)).toEqual(['user', 'assistant']);
    }
    expect(JSON.stringify(byParent('call_a'))).toContain('found alpha');
    expect(JSON.stringify(byParent('call_b'))).toContain('found beta');
    const result = messages.at(-1)!;
    if (result.type !== 'result') throw new Error('no result');
    expect(result.usage.input_tokens).toBe(100 + 200 + 2 * 50);
    expect(result.usage.output_tokens).toBe(10 + 20 + 2 * 5);
    expect(Object.values(result.modelUsage).reduce((sum, usage) => sum + usage.inputTokens, 0)).toBe(400);
  });

  it("keeps each child's conversation in the session file, linked to its task call, and a resume restores it", async () => {
    const { dir, env, server } = await setup(parentTurns);
    const first = await createAgentSession({ cwd: dir, env, agents });
    await first.submit({ text: 'find both' });
    const sessionId = first.session.id;
    first.close();

    const resumed = await createAgentSession({ cwd: dir, env, agents, continue: true });
    expect(resumed.session.id).toBe(sessionId);
    const transcript = resumed.subagentTranscript('call_b');
    expect(transcript?.agent).toBe('finder');
    expect(transcript?.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(transcript?.messages)).toContain('found beta');
    // The parent's own history has the task results, never the children's messages.
    expect(resumed.session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    await resumed.submit({ text: 'and now?' });
    const last = server.requests.filter((request) => request.kind === 'chat').at(-1)!;
    expect(JSON.stringify((last.body as ChatBody).messages)).not.toContain('FINDER');
    resumed.close();
  });

  it('interrupt() stops a running child and ends the turn with an error result', async () => {
    const { dir, env, server } = await setup((request): ScriptTurn => {
      if (systemOf(request).startsWith('FINDER')) return { text: Array.from({ length: 40 }, () => 'slow '), chunkDelayMs: 250 };
      return { toolCalls: [{ id: 'call_slow', name: 'task', args: { description: 'slow', prompt: 'alpha', subagent_type: 'finder' } }] };
    });
    const run = query({ prompt: 'go', options: { cwd: dir, env, agents } });
    const messages: SdkMessage[] = [];
    let interruptedAt = 0;
    for await (const message of run) {
      messages.push(message);
      // The child's prompt has been forwarded: it is running now.
      if ('parent_tool_use_id' in message && message.parent_tool_use_id === 'call_slow' && !interruptedAt) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        interruptedAt = Date.now();
        await run.interrupt();
      }
    }
    expect(interruptedAt).toBeGreaterThan(0);
    expect(Date.now() - interruptedAt).toBeLessThan(2_000);
    const result = messages.at(-1)!;
    expect(result.type === 'result' && result.subtype).toBe('error_during_execution');
    const childRequests = server.requests.filter((request) => request.kind === 'chat' && systemOf(request).startsWith('FINDER'));
    expect(childRequests).toHaveLength(1);
  });
});
