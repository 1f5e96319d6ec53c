// Durable steps (issue 56): the loop asks its recorder for every model answer and tool result, in
// the model's order; a replay with the same records asks the model nothing and runs no recorded call,
// and goes on live from the first step without a record.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runAgentLoop, type AgentLoopConfig } from '../../src/agent/agent-loop.js';
import { userMessage } from '../../src/agent/chat-session.js';
import type { DurableSteps, Replayed } from '../../src/agent/durable-steps.js';
import { permissionHook } from '../../src/runtime/permission-chain.js';
import type { AgentEvent, AgentMessage } from '../../src/agent/types.js';
import type { ChatRequest } from '../../src/llm/types.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { createToolSessionState, defineTool } from '../../src/tools/tool.js';
import { fakeStream, type FakeTurn } from './fake-stream.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };

/** Steps kept in memory by position, as the runner keeps them in PostgreSQL by DBOS step number. */
function memorySteps(records: unknown[] = []) {
  let next = 0;
  const order: string[] = [];
  const step = async <T>(name: string, live: () => Promise<T>): Promise<Replayed<T>> => {
    const position = next++;
    order.push(name);
    if (position < records.length) return { value: structuredClone(records[position]) as T, replayed: true };
    const value = await live();
    records[position] = structuredClone(value);
    return { value, replayed: false };
  };
  const steps: DurableSteps = {
    modelAnswer: (live) => step('model', live),
    toolResult: (call, live) => step(`tool:${call.name}:${String(call.arguments.text)}`, live),
  };
  return { steps, records, order };
}

function tools(runs: string[]) {
  return new ToolRegistry([
    defineTool({
      name: 'echo',
      description: 'Echoes.',
      kind: 'read',
      schema: z.object({ text: z.string() }),
      async execute({ text }) {
        runs.push(`echo ${text}`);
        // The second call of a batch finishes first: records must still follow the model's order.
        await new Promise((resolve) => setTimeout(resolve, text === 'a' ? 30 : 1));
        return { content: `echo: ${text}` };
      },
    }),
    defineTool({
      name: 'write',
      description: 'Writes.',
      kind: 'edit',
      schema: z.object({ text: z.string() }),
      async execute({ text }) {
        runs.push(`write ${text}`);
        return { content: 'written' };
      },
    }),
  ]);
}

const TURNS: FakeTurn[] = [
  {
    toolCalls: [
      { name: 'echo', arguments: { text: 'a' } },
      { name: 'echo', arguments: { text: 'b' } },
    ],
  },
  { toolCalls: [{ name: 'write', arguments: { text: 'w' } }] },
  { toolCalls: [{ name: 'write', arguments: { text: 'denied' } }] },
  { text: 'all done' },
];

function run(turns: FakeTurn[], steps: DurableSteps, runs: string[]) {
  // As the scripted servers do: turn N answers a request with N assistant messages in its history.
  const requests: ChatRequest[] = [];
  const stream: AgentLoopConfig['stream'] = (request) => {
    requests.push(request);
    const answered = request.messages.filter((message) => message.role === 'assistant').length;
    return fakeStream(turns.slice(answered)).stream(request);
  };
  const events: AgentEvent[] = [];
  const messages: AgentMessage[] = [];
  const config: AgentLoopConfig = {
    model: 'm',
    systemPrompt: 'test',
    tools: tools(runs),
    stream,
    toolContext: { workspace, state: createToolSessionState() },
    steps,
    // The third turn's write is refused: a denial is part of the step.
    beforeToolCall: permissionHook(async ({ input }) =>
      (input as { text: string }).text === 'denied' ? { allow: false, reason: 'not this one' } : { allow: true },
    ),
  };
  return runAgentLoop([userMessage('go')], messages, config, (event) => events.push(event)).then((result) => ({ result, messages, events, requests }));
}

describe('durable steps in the agent loop', () => {
  it('records every answer and call in the model order, and a replay asks and runs nothing again', async () => {
    const first = memorySteps();
    const runs: string[] = [];
    const original = await run(TURNS, first.steps, runs);
    expect(original.result.stopReason).toBe('completed');
    expect(first.order).toEqual(['model', 'tool:echo:a', 'tool:echo:b', 'model', 'tool:write:w', 'model', 'tool:write:denied', 'model']);
    expect(runs.sort()).toEqual(['echo a', 'echo b', 'write w']);

    const again = memorySteps(first.records);
    const replayRuns: string[] = [];
    const replay = await run([{ text: 'the model must not be asked' }], again.steps, replayRuns);
    expect(replay.requests).toHaveLength(0);
    expect(replayRuns).toEqual([]);
    expect(again.order).toEqual(first.order);
    expect(replay.result).toMatchObject({ stopReason: 'completed', finalText: 'all done', turns: 4 });
    expect(replay.result.permissionDenials).toEqual(original.result.permissionDenials);
    expect(replay.result.permissionDenials).toHaveLength(1);
    // The same conversation, message for message.
    const strip = (messages: AgentMessage[]) => messages.map((message) => ({ ...message, timestamp: 0, uuid: undefined }));
    expect(strip(replay.messages)).toEqual(strip(original.messages));
    // Listeners see replayed calls start and end, and the replayed answers start and end.
    const types = replay.events.map((event) => event.type);
    expect(types.filter((type) => type === 'tool_execution_end')).toHaveLength(4);
    const assistant = (type: string) => replay.events.filter((event) => event.type === type && 'message' in event && event.message.role === 'assistant').length;
    expect(assistant('message_start')).toBe(4);
    expect(assistant('message_end')).toBe(4);
  });

  it('goes on live from the first step without a record: the step in flight runs again, those before it do not', async () => {
    const first = memorySteps();
    await run(TURNS, first.steps, []);
    // Cut after the second answer: its write call was in flight when the process died.
    const cut = memorySteps(first.records.slice(0, 4));
    const runs: string[] = [];
    const resumed = await run(TURNS, cut.steps, runs);
    expect(runs).toEqual(['write w']);
    expect(resumed.requests).toHaveLength(2);
    expect(resumed.result).toMatchObject({ stopReason: 'completed', finalText: 'all done' });
    expect(cut.records).toHaveLength(first.records.length);
  });
});
