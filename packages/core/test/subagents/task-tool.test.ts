import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ChatSession } from '../../src/agent/chat-session.js';
import { collectStream } from '../../src/llm/collect.js';
import type { ChatRequest, LLMClient, StreamEvent, ToolCall } from '../../src/llm/types.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/tool.js';
import { createSubagentRunner, createTaskTool, parseInlineAgents, subagentList, type SubagentDefinition } from '../../src/subagents/index.js';
import type { AgentEntry } from '../../src/plugins/types.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };

interface Reply {
  text?: string;
  toolCalls?: ToolCall[];
  delayMs?: number;
  fail?: string;
}

/** A provider that answers each conversation by its system prompt, as a scripted server would. */
function scriptedClient(answer: (request: ChatRequest) => Reply, costUsd?: number) {
  const requests: ChatRequest[] = [];
  let active = 0;
  let peak = 0;
  const stream = async function* (request: ChatRequest): AsyncIterable<StreamEvent> {
    requests.push({ ...request, signal: undefined });
    const reply = answer(request);
    const usage = { inputTokens: 100, outputTokens: 7, ...(costUsd !== undefined ? { costUsd } : {}) };
    active++;
    peak = Math.max(peak, active);
    try {
      if (reply.delayMs) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, reply.delayMs);
          request.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    } finally {
      active--;
    }
    if (request.signal?.aborted) {
      yield { type: 'error', stopReason: 'aborted', failure: { kind: 'aborted', message: 'Aborted.', retryable: false }, text: '', toolCalls: [], usage };
      return;
    }
    if (reply.fail) {
      yield { type: 'error', stopReason: 'error', failure: { kind: 'server', message: reply.fail, retryable: false }, text: '', toolCalls: [], usage };
      return;
    }
    if (reply.text) yield { type: 'text_delta', text: reply.text };
    const toolCalls = reply.toolCalls ?? [];
    for (const call of toolCalls) yield { type: 'tool_call', call };
    yield { type: 'done', stopReason: toolCalls.length ? 'tool_use' : 'stop', text: reply.text ?? '', toolCalls, usage };
  };
  const client: LLMClient = {
    provider: 'fake',
    resolveModel: async () => ({ model: 'parent-model' }),
    chatStream: stream,
    chat: (r) => collectStream(stream(r)),
    listModels: async () => [],
  };
  return { client, requests, peak: () => peak };
}

const stubTool = (name: string) =>
  defineTool({ name, description: `${name} tool`, kind: 'read', schema: z.object({}), execute: async () => ({ content: `${name} ran` }) });

const pluginAgent = (name: string, body: string, extra: Partial<AgentEntry> = {}): AgentEntry => ({
  kind: 'agent',
  name,
  plugin: 'review',
  qualifiedName: `review:${name}`,
  path: `/p/${name}.md`,
  description: 'Use this agent to review a diff.\n<example>user: review it\nassistant: I will use the reviewer</example>',
  loadBody: async () => body,
  ...extra,
});

function parentWith(agents: SubagentDefinition[], answer: (request: ChatRequest) => Reply, maxParallel?: number) {
  const fake = scriptedClient(answer);
  const tools = new ToolRegistry([stubTool('read_file'), stubTool('grep'), stubTool('shell')]);
  const run = createSubagentRunner({
    client: fake.client,
    provider: 'fake',
    model: () => 'parent-model',
    workspace,
    tools: () => tools,
    contextFiles: () => [],
  });
  tools.register(createTaskTool({ agents, run, maxParallel }));
  const parent = new ChatSession({ client: fake.client, provider: 'fake', model: 'parent-model', systemPrompt: 'PARENT', tools, workspace });
  return { parent, ...fake };
}

const task = (id: string, subagent_type: string, prompt: string): ToolCall => ({
  id,
  name: 'task',
  arguments: { description: 'review the diff', prompt, subagent_type },
});
const isChild = (request: ChatRequest, marker: string) => request.system?.startsWith(marker) ?? false;
const lastUser = (request: ChatRequest) => String(request.messages.findLast((m) => m.role === 'user')?.content ?? '');

describe('the task tool', () => {
  it('lists the agents one line each, never their <example> blocks', () => {
    const agents = subagentList(
      { agents: () => [pluginAgent('reviewer', 'x', { tools: ['read_file', 'grep'] })] },
      parseInlineAgents('{"finder": {"description": "Finds where things are defined.", "prompt": "Find."}}'),
    );
    const tool = createTaskTool({
      agents,
      run: async () => {
        throw new Error('not called');
      },
    });
    expect(tool.description).toContain('- general-purpose: Researches questions, searches code and runs multi-step tasks.');
    expect(tool.description).toContain('- finder: Finds where things are defined.');
    expect(tool.description).toMatch(/^- reviewer: Use this agent to review a diff\.$/m);
    expect(tool.description).not.toContain('<example>');
  });

  it('lists an agent by its first sentence, cut to a short line', () => {
    const inline = parseInlineAgents(
      JSON.stringify({
        sql: { description: 'Writes SQL migrations, e.g. new tables. Use it for any schema change; it knows Postgres and SQLite.', prompt: 'p' },
        long: { description: `Checks ${'every '.repeat(30)}thing. Then more.`, prompt: 'p' },
      }),
    );
    const tool = createTaskTool({
      agents: subagentList({ agents: () => [] }, inline),
      run: async () => {
        throw new Error('not called');
      },
    });
    expect(tool.description).toMatch(/^- sql: Writes SQL migrations, e\.g\. new tables\.$/m);
    const long = tool.description.split('\n').find((line) => line.startsWith('- long: '))!;
    expect(long.length).toBeLessThanOrEqual('- long: '.length + 80);
    expect(long).toMatch(/^- long: Checks every .*…$/);
  });

  it('runs two tasks of one turn in parallel, each child with its own prompt and only its tools', async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'REVIEWER body', { tools: ['read_file', 'grep'] })] });
    const { parent, requests, peak } = parentWith(agents, (request) => {
      if (isChild(request, 'REVIEWER')) return { text: `reviewed ${lastUser(request)}`, delayMs: 50 };
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'all reviewed' };
      return { toolCalls: [task('t1', 'reviewer', 'file a'), task('t2', 'review:reviewer', 'file b')] };
    });
    const result = await parent.prompt('review both');
    expect(result.finalText).toBe('all reviewed');
    const children = requests.filter((r) => isChild(r, 'REVIEWER'));
    expect(children).toHaveLength(2);
    for (const child of children) expect(child.tools?.map((t) => t.name)).toEqual(['read_file', 'grep']);
    expect(peak()).toBe(2);
    const results = parent.messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m));
    expect(results.join()).toContain('reviewed file a');
    expect(results.join()).toContain('reviewed file b');
    expect(results.join()).toContain('[reviewer: 1 turn, 100 input and 7 output tokens]');
  });

  it('gives general-purpose every tool but task, and the parent model', async () => {
    const agents = subagentList({ agents: () => [] });
    const { parent, requests } = parentWith(agents, (request) => {
      if (isChild(request, 'You are a general-purpose agent')) return { text: 'found it' };
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'done' };
      return { toolCalls: [task('t1', 'general-purpose', 'where is X?')] };
    });
    await parent.prompt('go');
    const child = requests.find((r) => isChild(r, 'You are a general-purpose agent'))!;
    expect(child.tools?.map((t) => t.name)).toEqual(['read_file', 'grep', 'shell']);
    expect(child.model).toBe('parent-model');
  });

  it('answers an unknown subagent_type with the valid names', async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'R')] });
    const tool = createTaskTool({
      agents,
      run: async () => {
        throw new Error('not called');
      },
    });
    const result = await tool.execute(
      { description: 'x', prompt: 'y', subagent_type: 'nobody' },
      { signal: new AbortController().signal, workspace, state: { fileTimes: new Map(), todos: [] } },
    );
    expect(result.isError).toBe(true);
    expect(result.content).toBe('There is no agent "nobody". Available agents: general-purpose, reviewer.');
  });

  it('returns a failing child as an error result and keeps the parent running', async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'REVIEWER')] });
    const { parent } = parentWith(agents, (request) => {
      if (isChild(request, 'REVIEWER')) return { fail: 'The server is down.' };
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'carried on' };
      return { toolCalls: [task('t1', 'reviewer', 'a')] };
    });
    const result = await parent.prompt('go');
    expect(result.finalText).toBe('carried on');
    const toolResult = JSON.stringify(parent.messages.find((m) => m.role === 'tool'));
    expect(toolResult).toContain('The reviewer agent did not finish: The server is down.');
  });

  it('runs at most maxParallel children at once', async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'REVIEWER')] });
    const { parent, peak } = parentWith(
      agents,
      (request) => {
        if (isChild(request, 'REVIEWER')) return { text: 'ok', delayMs: 30 };
        if (request.messages.some((m) => m.role === 'tool')) return { text: 'done' };
        return { toolCalls: [task('t1', 'reviewer', 'a'), task('t2', 'reviewer', 'b'), task('t3', 'reviewer', 'c')] };
      },
      1,
    );
    await parent.prompt('go');
    expect(peak()).toBe(1);
  });

  it("counts the children's cost against the parent's budget", async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'REVIEWER')] });
    const fake = scriptedClient((request) => {
      if (isChild(request, 'REVIEWER')) return { text: 'ok' };
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'over budget already' };
      return { toolCalls: [task('t1', 'reviewer', 'a'), task('t2', 'reviewer', 'b'), task('t3', 'reviewer', 'c')] };
    }, 0.01);
    const tools = new ToolRegistry([stubTool('read_file')]);
    tools.register(
      createTaskTool({
        agents,
        run: createSubagentRunner({ client: fake.client, provider: 'fake', model: () => 'm', workspace, tools: () => tools, contextFiles: () => [] }),
      }),
    );
    const parent = new ChatSession({ client: fake.client, provider: 'fake', model: 'm', systemPrompt: 'PARENT', tools, workspace, maxBudgetUsd: 0.025 });
    const events: string[] = [];
    parent.subscribe((event) => {
      if (event.type === 'subagent' && event.event.type === 'message_end' && event.event.message.role === 'assistant') events.push(event.toolCallId);
    });
    const result = await parent.prompt('go');
    // The parent's own turn cost 0.01; the three children 0.03 more, so it may not ask again.
    expect(result.stopReason).toBe('max_budget');
    expect(result.usage.costUsd).toBeCloseTo(0.04);
    expect(parent.usage.costUsd).toBeCloseTo(0.04);
    expect(events.sort()).toEqual(['t1', 't2', 't3']);
  });

  it('gives a child only what is left of the budget', async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'REVIEWER')] });
    // The child would read forever; each request costs 0.01 and 0.025 is left when it starts.
    const fake = scriptedClient((request) => {
      if (isChild(request, 'REVIEWER')) return { toolCalls: [{ id: `r${request.messages.length}`, name: 'read_file', arguments: {} }] };
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'done' };
      return { toolCalls: [task('t1', 'reviewer', 'a')] };
    }, 0.01);
    const tools = new ToolRegistry([stubTool('read_file')]);
    const run = createSubagentRunner({
      client: fake.client,
      provider: 'fake',
      model: () => 'm',
      workspace,
      tools: () => tools,
      contextFiles: () => [],
      budgetLeftUsd: () => 0.025,
    });
    tools.register(createTaskTool({ agents, run }));
    const parent = new ChatSession({ client: fake.client, provider: 'fake', model: 'm', systemPrompt: 'PARENT', tools, workspace });
    await parent.prompt('go');
    expect(fake.requests.filter((r) => isChild(r, 'REVIEWER'))).toHaveLength(3);
    expect(JSON.stringify(parent.messages.find((m) => m.role === 'tool'))).toContain('The reviewer agent did not finish: it stopped (max_budget)');
  });

  it('stops the children when the parent is interrupted', async () => {
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'REVIEWER')] });
    const { parent } = parentWith(agents, (request) => {
      if (isChild(request, 'REVIEWER')) return { text: 'never', delayMs: 10_000 };
      return { toolCalls: [task('t1', 'reviewer', 'a')] };
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const result = await parent.prompt('go', controller.signal);
    expect(result.stopReason).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('inline agents', () => {
  it("reads Claude Code's --agents shape and shadows a plugin agent of the same name", async () => {
    const inline = parseInlineAgents({ reviewer: { description: 'Inline reviewer.', prompt: 'INLINE', tools: ['Read', 'Bash'], model: 'inherit' } });
    const agents = subagentList({ agents: () => [pluginAgent('reviewer', 'PLUGIN')] }, inline);
    expect(agents.map((a) => a.name)).toEqual(['general-purpose', 'reviewer', 'review:reviewer']);
    expect(agents[1]!.tools).toEqual(['read_file', 'shell']);
    expect(await agents[2]!.prompt()).toBe('PLUGIN');
  });

  it('refuses a definition without a prompt, saying what is needed', () => {
    expect(() => parseInlineAgents('{"x": {"description": "d"}}')).toThrow(/at x\.prompt.*Each agent needs "description" and "prompt"/);
    expect(() => parseInlineAgents('{nope')).toThrow(/--agents takes JSON/);
  });
});
