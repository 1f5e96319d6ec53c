import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runAgentLoop, type AgentLoopConfig } from '../../src/agent/agent-loop.js';
import { permissionHook } from '../../src/runtime/permission-chain.js';
import { ChatSession, userMessage } from '../../src/agent/chat-session.js';
import type { AgentEvent, AgentMessage } from '../../src/agent/types.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { createToolSessionState, defineTool } from '../../src/tools/tool.js';
import type { LLMClient, StreamEvent } from '../../src/llm/types.js';
import { collectStream } from '../../src/llm/collect.js';
import { fakeStream, type FakeTurn } from './fake-stream.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };

function echoTool(log: string[] = [], delayMs = 0) {
  return defineTool({
    name: 'echo',
    description: 'Echoes text.',
    kind: 'read',
    schema: z.object({ text: z.string() }),
    async execute({ text }) {
      log.push(`start ${text}`);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      log.push(`end ${text}`);
      return { content: `echo: ${text}` };
    },
  });
}

const writeTool = (log: string[]) =>
  defineTool({
    name: 'write',
    description: 'Writes.',
    kind: 'edit',
    schema: z.object({ text: z.string() }),
    async execute({ text }) {
      log.push(`write ${text}`);
      return { content: 'written' };
    },
  });

function setup(turns: FakeTurn[], overrides: Partial<AgentLoopConfig> = {}, tools = new ToolRegistry([echoTool()])) {
  const fake = fakeStream(turns);
  const events: AgentEvent[] = [];
  const messages: AgentMessage[] = [];
  const config: AgentLoopConfig = {
    model: 'm',
    systemPrompt: 'You are a test.',
    tools,
    stream: fake.stream,
    toolContext: { workspace, state: createToolSessionState() },
    ...overrides,
  };
  const run = (text = 'hi') => runAgentLoop([userMessage(text)], messages, config, (e) => events.push(e));
  return { run, events, messages, requests: fake.requests };
}

describe('agent loop', () => {
  it('answers in one turn when the model calls no tools', async () => {
    const { run, events, requests } = setup([{ text: 'Hello!' }]);
    const result = await run();
    expect(result.stopReason).toBe('completed');
    expect(result.finalText).toBe('Hello!');
    expect(result.turns).toBe(1);
    expect(requests[0]!.system).toBe('You are a test.');
    expect(requests[0]!.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(events.map((e) => e.type)).toEqual([
      'agent_start',
      'message_start',
      'message_end',
      'turn_start',
      'message_start',
      'message_update',
      'message_end',
      'turn_end',
      'agent_end',
    ]);
  });

  it('runs tool calls, sends results back in the model order, and continues', async () => {
    const log: string[] = [];
    const { run, requests, messages } = setup(
      [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'slow' } },
            { name: 'echo', arguments: { text: 'fast' } },
          ],
        },
        { text: 'done' },
      ],
      {},
      new ToolRegistry([
        defineTool({
          name: 'echo',
          description: 'd',
          kind: 'read',
          schema: z.object({ text: z.string() }),
          async execute({ text }) {
            log.push(`start ${text}`);
            await new Promise((r) => setTimeout(r, text === 'slow' ? 40 : 1));
            log.push(`end ${text}`);
            return { content: `echo: ${text}` };
          },
        }),
      ]),
    );
    const result = await run();
    expect(result.turns).toBe(2);
    // Both started before either ended: read-only calls run in parallel.
    expect(log.slice(0, 2)).toEqual(['start slow', 'start fast']);
    const second = requests[1]!.messages;
    expect(second.slice(2).map((m) => (m.role === 'tool' ? m.content : m.role))).toEqual(['echo: slow', 'echo: fast']);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  it('runs calls that change things one at a time, in order', async () => {
    const log: string[] = [];
    const { run } = setup(
      [
        {
          toolCalls: [
            { name: 'write', arguments: { text: 'a' } },
            { name: 'write', arguments: { text: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
      {},
      new ToolRegistry([writeTool(log)]),
    );
    await run();
    expect(log).toEqual(['write a', 'write b']);
  });

  it('records each finished batch before the next one runs, so a kill mid-way keeps finished work', async () => {
    let markStarted!: () => void;
    let releaseSlow!: () => void;
    const slowStarted = new Promise<void>((resolve) => (markStarted = resolve));
    const tools = new ToolRegistry([
      defineTool({
        name: 'write',
        description: 'd',
        kind: 'edit',
        schema: z.object({ text: z.string() }),
        async execute() {
          return { content: 'fast done' };
        },
      }),
      defineTool({
        name: 'slow',
        description: 'd',
        kind: 'execute',
        schema: z.object({}),
        async execute() {
          markStarted();
          await new Promise<void>((release) => (releaseSlow = release));
          return { content: 'slow done' };
        },
      }),
    ]);
    const harness = setup(
      [
        {
          toolCalls: [
            { name: 'write', arguments: { text: 'a' } },
            { name: 'slow', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
      {},
      tools,
    );
    const running = harness.run();
    await slowStarted;
    const ended = harness.events.filter((e) => e.type === 'message_end').map((e) => (e as { message: AgentMessage }).message);
    expect(ended.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(ended[2]).toMatchObject({ content: 'fast done' });
    releaseSlow();
    await running;
    expect(harness.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  it('turns an unknown tool, bad arguments and a throwing tool into error results, not crashes', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'd',
      kind: 'read',
      schema: z.object({}),
      async execute() {
        throw new Error('kaboom');
      },
    });
    const { run, messages } = setup(
      [
        {
          toolCalls: [
            { name: 'nope', arguments: {} },
            { name: 'echo', arguments: { text: 42 } },
            { name: 'boom', arguments: {} },
          ],
        },
        { text: 'recovered' },
      ],
      {},
      new ToolRegistry([echoTool(), boom]),
    );
    const result = await run();
    expect(result.stopReason).toBe('completed');
    const results = messages.filter((m) => m.role === 'tool');
    expect(results.map((r) => r.status)).toEqual(['error', 'error', 'error']);
    expect(results[0]!.content).toContain('Unknown tool "nope"');
    expect(results[0]!.content).toContain('echo');
    expect(results[1]!.content).toMatch(/Invalid arguments for echo:\n- text: .*string/);
    expect(results[2]!.content).toBe('boom failed: kaboom');
  });

  it('asks permission and reports denials', async () => {
    const log: string[] = [];
    const { run, messages } = setup(
      [{ toolCalls: [{ name: 'write', arguments: { text: 'x' } }] }, { text: 'ok' }],
      { beforeToolCall: permissionHook(async ({ tool }) => (tool.kind === 'edit' ? { allow: false, reason: 'one-shot mode' } : { allow: true })) },
      new ToolRegistry([writeTool(log)]),
    );
    const result = await run();
    expect(log).toEqual([]);
    expect(result.permissionDenials).toEqual([{ tool_name: 'write', tool_use_id: 'call_1', tool_input: { text: 'x' } }]);
    const denied = messages.find((m) => m.role === 'tool');
    expect(denied).toMatchObject({ status: 'denied', content: 'Permission denied: one-shot mode' });
  });

  it('stops at max turns with its own stop reason', async () => {
    const { run } = setup([{ toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] }], { maxTurns: 3 });
    const result = await run();
    expect(result.stopReason).toBe('max_turns');
    expect(result.turns).toBe(3);
  });

  it('stops when the budget is spent', async () => {
    const { run } = setup([{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }], usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.4 } }], {
      maxBudgetUsd: 1,
    });
    const result = await run();
    expect(result.stopReason).toBe('max_budget');
    expect(result.turns).toBe(3);
    expect(result.usage.costUsd).toBeCloseTo(1.2);
  });

  it("counts a compaction summary request in the run's usage and budget, and reports it as a usage event", async () => {
    let summaries = 0;
    const { run, events, requests } = setup(
      [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }], usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.1 } }],
      {
        maxBudgetUsd: 1,
        transformContext: async (messages, _signal, spend) => {
          // The second request would need a summary first; it costs what is left of the budget.
          if (messages.length > 1) {
            summaries++;
            spend({ inputTokens: 5_000, outputTokens: 50, cacheReadTokens: 20_000, costUsd: 0.95 }, 'm');
          }
          return messages;
        },
      },
    );
    const result = await run();
    expect(result.stopReason).toBe('max_budget');
    expect(summaries).toBe(1);
    expect(requests).toHaveLength(1); // the request after the summary is not sent: the budget is spent
    expect(result.usage).toMatchObject({ inputTokens: 5_001, outputTokens: 51, cacheReadTokens: 20_000 });
    expect(result.usage.costUsd).toBeCloseTo(1.05);
    expect(events.filter((event) => event.type === 'usage')).toEqual([
      { type: 'usage', usage: { inputTokens: 5_000, outputTokens: 50, cacheReadTokens: 20_000, costUsd: 0.95 }, model: 'm', purpose: 'compaction' },
    ]);
  });

  it('ends with the provider failure as data', async () => {
    const { run, messages } = setup([{ fail: { kind: 'server', message: 'The server failed 4 times.' } }]);
    const result = await run();
    expect(result.stopReason).toBe('error');
    expect(result.failure?.message).toBe('The server failed 4 times.');
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'error' });
  });

  it('skips the remaining calls when a steering message arrives, and shows it to the model', async () => {
    const log: string[] = [];
    const steering: AgentMessage[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'write',
        description: 'd',
        kind: 'edit',
        schema: z.object({ text: z.string() }),
        async execute({ text }) {
          log.push(text);
          steering.push(userMessage('stop, use tabs', 'steering'));
          return { content: 'ok' };
        },
      }),
    ]);
    const { run, requests, messages } = setup(
      [
        {
          toolCalls: [
            { name: 'write', arguments: { text: 'a' } },
            { name: 'write', arguments: { text: 'b' } },
          ],
        },
        { text: 'switching to tabs' },
      ],
      { hasSteering: () => steering.length > 0, takeSteering: () => steering.splice(0) },
      tools,
    );
    await run();
    expect(log).toEqual(['a']);
    const results = messages.filter((m) => m.role === 'tool');
    expect(results.map((r) => r.status)).toEqual(['ok', 'skipped']);
    expect(requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'stop, use tabs' });
  });

  it('after a steering message, calls that change things are skipped but reading calls of the turn still run', async () => {
    const log: string[] = [];
    const steering: AgentMessage[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'write',
        description: 'd',
        kind: 'edit',
        schema: z.object({ text: z.string() }),
        async execute({ text }) {
          log.push(`write ${text}`);
          steering.push(userMessage('look at b.txt instead', 'steering'));
          return { content: 'ok' };
        },
      }),
      defineTool({
        name: 'read',
        description: 'd',
        kind: 'read',
        schema: z.object({ path: z.string() }),
        async execute({ path }) {
          log.push(`read ${path}`);
          return { content: `content of ${path}` };
        },
      }),
    ]);
    const { run, messages } = setup(
      [
        {
          toolCalls: [
            { name: 'write', arguments: { text: 'a' } },
            { name: 'write', arguments: { text: 'b' } },
            { name: 'read', arguments: { path: 'b.txt' } },
          ],
        },
        { text: 'done' },
      ],
      { hasSteering: () => steering.length > 0, takeSteering: () => steering.splice(0) },
      tools,
    );
    await run();
    expect(log).toEqual(['write a', 'read b.txt']);
    expect(messages.filter((m) => m.role === 'tool').map((r) => r.status)).toEqual(['ok', 'skipped', 'ok']);
  });

  it('after a steering message, a shell line the session says only reads still runs; one that changes things is skipped; without the check, all are', async () => {
    const log: string[] = [];
    const steering: AgentMessage[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'shell',
        description: 'd',
        kind: 'execute',
        schema: z.object({ command: z.string() }),
        async execute({ command }) {
          log.push(command);
          if (steering.length === 0) steering.push(userMessage('also tell me the last line', 'steering'));
          return { content: 'ok' };
        },
      }),
    ]);
    const calls = ['wc -l numbers.txt', 'tail -n 1 numbers.txt', 'rm numbers.txt', 'git status --short'].map((command) => ({
      name: 'shell',
      arguments: { command },
    }));
    // The loop knows no permission policy: the session passes its read-only classifier in.
    const readOnly = new Set(['wc -l numbers.txt', 'tail -n 1 numbers.txt', 'git status --short']);
    const { run, messages } = setup(
      [{ toolCalls: calls }, { text: 'done' }],
      { hasSteering: () => steering.length > 0, takeSteering: () => steering.splice(0), isReadOnlyCommand: async (command) => readOnly.has(command) },
      tools,
    );
    await run();
    expect(log).toEqual(['wc -l numbers.txt', 'tail -n 1 numbers.txt', 'git status --short']);
    expect(messages.filter((m) => m.role === 'tool').map((r) => r.status)).toEqual(['ok', 'ok', 'skipped', 'ok']);

    log.length = 0;
    steering.length = 0;
    const unchecked = setup(
      [{ toolCalls: calls }, { text: 'done' }],
      { hasSteering: () => steering.length > 0, takeSteering: () => steering.splice(0) },
      tools,
    );
    await unchecked.run();
    expect(log).toEqual(['wc -l numbers.txt']);
    expect(unchecked.messages.filter((m) => m.role === 'tool').map((r) => r.status)).toEqual(['ok', 'skipped', 'skipped', 'skipped']);
  });

  it('runs follow-up messages after the agent would stop', async () => {
    const followUps = [userMessage('and now B', 'follow_up')];
    const { run, requests } = setup([{ text: 'A' }, { text: 'B' }], { takeFollowUps: () => followUps.splice(0, 1) });
    const result = await run();
    expect(result.turns).toBe(2);
    expect(result.finalText).toBe('B');
    expect(requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'and now B' });
  });

  it('aborts mid-stream and keeps the history consistent', async () => {
    const controller = new AbortController();
    const { run, messages } = setup([{ text: 'partial', delayMs: 5_000 }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const result = await run();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.stopReason).toBe('aborted');
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'partial', stopReason: 'aborted' });
  });

  it('lets timers run while a stream arrives in one burst', async () => {
    const burst = async function* (): AsyncIterable<StreamEvent> {
      for (let i = 0; i < 2_000; i++) yield { type: 'text_delta', text: 'x' };
      yield { type: 'done', stopReason: 'stop', text: 'x'.repeat(2_000), toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } };
    };
    let deltas = 0;
    let seenByTimer = -1;
    setTimeout(() => (seenByTimer = deltas), 0);
    await runAgentLoop(
      [userMessage('go')],
      [],
      { model: 'm', systemPrompt: 's', tools: new ToolRegistry(), stream: burst, toolContext: { workspace, state: createToolSessionState() } },
      (e) => {
        if (e.type === 'message_update') deltas++;
      },
    );
    expect(seenByTimer).toBeGreaterThanOrEqual(0);
    expect(seenByTimer).toBeLessThan(2_000);
  });

  it('applies transformContext and convertToLlm at the boundary', async () => {
    const { run, requests } = setup([{ text: 'ok' }], {
      transformContext: async (messages) => [{ role: 'note', kind: 'compaction', text: 'earlier stuff', timestamp: 0 }, ...messages],
    });
    await run('question');
    expect(requests[0]!.messages).toEqual([
      { role: 'user', content: 'Summary of the earlier conversation:\nearlier stuff' },
      { role: 'user', content: 'question' },
    ]);
  });
});

describe('ChatSession', () => {
  function client(turns: FakeTurn[]) {
    const fake = fakeStream(turns);
    const llm: LLMClient = {
      provider: 'fake',
      resolveModel: async () => ({ model: 'm' }),
      chatStream: fake.stream,
      chat: (request) => collectStream(fake.stream(request)),
      listModels: async () => [],
    };
    return { llm, requests: fake.requests };
  }

  it('keeps history across prompts, records every message, and updates only the SOP section', async () => {
    const { llm, requests } = client([{ text: 'one' }, { text: 'two' }]);
    const recorded: AgentMessage[] = [];
    const session = new ChatSession({
      client: llm,
      provider: 'fake',
      model: 'm',
      systemPrompt: 'Base prompt.',
      tools: new ToolRegistry(),
      workspace,
      record: (m) => recorded.push(m),
    });
    await session.prompt('first');
    session.setSop('Always run the tests.');
    await session.prompt('second');
    expect(requests[1]!.messages.map((m) => m.content)).toEqual(['first', 'one', 'second']);
    expect(requests[1]!.system).toBe('Base prompt.\n\n# Standard operating procedure\nAlways run the tests.');
    expect(recorded.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(session.usage.inputTokens).toBe(20);
  });

  it('reports model and SOP changes for the session log', async () => {
    const { llm, requests } = client([{ text: 'ok' }]);
    const changes: unknown[] = [];
    const session = new ChatSession({
      client: llm,
      provider: 'fake',
      model: 'm1',
      systemPrompt: 's',
      tools: new ToolRegistry(),
      workspace,
      recordChange: (c) => changes.push(c),
    });
    session.setModel('m2');
    session.setSop('Be brief.');
    await session.prompt('hi');
    expect(changes).toEqual([
      { kind: 'model', provider: 'fake', model: 'm2' },
      { kind: 'sop', sop: 'Be brief.' },
    ]);
    expect(requests[0]!.model).toBe('m2');
  });

  it('closes after a running prompt has recorded its last messages', async () => {
    const { llm } = client([{ text: 'slow', delayMs: 5_000 }]);
    const events: string[] = [];
    const session = new ChatSession({
      client: llm,
      provider: 'fake',
      model: 'm',
      systemPrompt: 's',
      tools: new ToolRegistry(),
      workspace,
      record: (m) => events.push(`record ${m.role}`),
      onClose: () => events.push('close'),
    });
    const running = session.prompt('go');
    session.close();
    await running;
    expect(events).toEqual(['record user', 'record assistant', 'record note', 'close']);
  });

  it("drops steering left over from a run that failed, so it cannot skip the next run's tools", async () => {
    const { llm } = client([{ fail: { kind: 'server', message: 'down' }, delayMs: 50 }]);
    const session = new ChatSession({ client: llm, provider: 'fake', model: 'm', systemPrompt: 's', tools: new ToolRegistry(), workspace });
    const running = session.prompt('go');
    session.steer('also this');
    expect(session.queuedCount).toBe(1);
    expect((await running).stopReason).toBe('error');
    expect(session.queuedCount).toBe(0);
  });

  it('owns one queue: changes are announced, and a message queued as the run ends still runs', async () => {
    const { llm, requests } = client([{ text: 'first answer' }, { text: 'second answer' }]);
    const session = new ChatSession({ client: llm, provider: 'fake', model: 'm', systemPrompt: 's', tools: new ToolRegistry(), workspace });
    const seen: string[][] = [];
    session.subscribe((event) => {
      if (event.type === 'queue_update') seen.push(event.queued.map((queued) => queued.text));
      // Queued after the loop's last look at the queue: the answer is already complete.
      if (event.type === 'agent_end' && requests.length === 1) session.steer('one more thing');
    });
    const result = await session.prompt('go');
    expect(result.finalText).toBe('second answer');
    expect(requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'one more thing' });
    expect(seen).toEqual([['one more thing'], []]);
    expect(session.queuedCount).toBe(0);
  });

  it('takeQueued() hands back what was waiting, in order', async () => {
    const { llm } = client([{ text: 'slow', delayMs: 5_000 }]);
    const session = new ChatSession({ client: llm, provider: 'fake', model: 'm', systemPrompt: 's', tools: new ToolRegistry(), workspace });
    const running = session.prompt('go');
    session.steer('a');
    session.followUp('b');
    expect(session.takeQueued().map((queued) => [queued.kind, queued.text])).toEqual([
      ['steering', 'a'],
      ['follow_up', 'b'],
    ]);
    session.abort();
    await running;
    expect(session.queued).toEqual([]);
  });

  it('refuses a second concurrent prompt and records an interruption note on abort', async () => {
    const { llm } = client([{ text: 'slow', delayMs: 5_000 }]);
    const session = new ChatSession({ client: llm, provider: 'fake', model: 'm', systemPrompt: 's', tools: new ToolRegistry(), workspace });
    const running = session.prompt('go');
    await expect(session.prompt('again')).rejects.toThrow(/already running/);
    session.abort();
    const result = await running;
    expect(result.stopReason).toBe('aborted');
    expect(session.messages.at(-1)).toMatchObject({ role: 'note', kind: 'interrupted' });
    expect(session.isRunning).toBe(false);
  });
});
