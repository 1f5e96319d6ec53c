import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ChatSession } from '../../src/agent/chat-session.js';
import { collectStream } from '../../src/llm/collect.js';
import type { ChatRequest, LLMClient, StreamEvent, ToolCall } from '../../src/llm/types.js';
import { createLoadSkillTool, loadPlugins } from '../../src/plugins/index.js';
import { buildSystemPrompt } from '../../src/prompt/index.js';
import { createSubagentRunner, createTaskTool, subagentList } from '../../src/subagents/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/tool.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** A provider that answers each conversation by its system prompt, as the scripted server does. */
function scriptedClient(answer: (request: ChatRequest) => { text?: string; toolCalls?: ToolCall[] }) {
  const requests: ChatRequest[] = [];
  const stream = async function* (request: ChatRequest): AsyncIterable<StreamEvent> {
    requests.push({ ...request, signal: undefined });
    const reply = answer(request);
    if (reply.text) yield { type: 'text_delta', text: reply.text };
    const toolCalls = reply.toolCalls ?? [];
    for (const call of toolCalls) yield { type: 'tool_call', call };
    yield { type: 'done', stopReason: toolCalls.length ? 'tool_use' : 'stop', text: reply.text ?? '', toolCalls, usage: { inputTokens: 10, outputTokens: 1 } };
  };
  const client: LLMClient = {
    provider: 'fake',
    resolveModel: async () => ({ model: 'm' }),
    chatStream: stream,
    chat: (r) => collectStream(stream(r)),
    listModels: async () => [],
  };
  return { client, requests };
}

async function catalogWithPlanner() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'beans-child-skills-'));
  await write(
    path.join(root, 'kit', 'agents', 'planner.md'),
    '---\nname: planner\ndescription: Plans work.\nskills:\n  expose: [estimate]\n  preload: [style]\n---\nPLANNER body.\n',
  );
  await write(
    path.join(root, 'kit', 'agents', 'planner', 'skills', 'estimate', 'SKILL.md'),
    '---\nname: estimate\ndescription: Estimates effort.\n---\nESTIMATE body.\n',
  );
  await write(path.join(root, 'kit', 'agents', 'planner', 'skills', 'secret-plan.md'), '---\ndescription: How the planner splits work.\n---\nSECRET body.\n');
  await write(path.join(root, 'kit', 'agents', 'helper.md'), '---\nname: helper\ndescription: Helps.\ntools: Read\n---\nHELPER body.\n');
  await write(path.join(root, 'kit', 'skills', 'style.md'), '---\ndescription: House style.\n---\nSTYLE body.\n');
  return loadPlugins({ roots: [root] });
}

const task = (id: string, agent: string): ToolCall => ({ id, name: 'task', arguments: { description: 'plan', prompt: 'plan it', subagent_type: agent } });
const loadSkill = (id: string, name: string): ToolCall => ({ id, name: 'load_skill', arguments: { name } });
const toolResults = (request: ChatRequest) => request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));

describe("a subagent's own skills", () => {
  it('are listed and loadable in its own conversation only; the parent sees the exposed one as planner:estimate', async () => {
    const catalog = await catalogWithPlanner();
    const fake = scriptedClient((request) => {
      const results = toolResults(request);
      if (request.system?.startsWith('PLANNER') || request.system?.startsWith('HELPER')) {
        return results.length === 0 ? { toolCalls: [loadSkill('l1', 'secret-plan')] } : { text: `child saw: ${results[0]}` };
      }
      return results.length === 0 ? { toolCalls: [task('t1', 'planner'), task('t2', 'helper')] } : { text: 'done' };
    });
    const read = defineTool({ name: 'read_file', description: 'read', kind: 'read', schema: z.object({}), execute: async () => ({ content: '' }) });
    const tools = new ToolRegistry([read, createLoadSkillTool(catalog)]);
    const run = createSubagentRunner({
      client: fake.client,
      provider: 'fake',
      model: () => 'm',
      workspace,
      tools: () => tools,
      catalog,
      contextFiles: () => [],
    });
    tools.register(createTaskTool({ agents: subagentList(catalog), run }));
    const systemPrompt = buildSystemPrompt({ profile: { systemPrompt: 'PARENT' }, skills: catalog.skills(), workspace });
    const parent = new ChatSession({ client: fake.client, provider: 'fake', model: 'm', systemPrompt, tools, workspace });
    await parent.prompt('plan');

    const first = fake.requests[0]!;
    expect(first.system).toContain('- planner:estimate: Estimates effort.');
    expect(first.system).not.toContain('secret-plan');
    const planner = fake.requests.find((request) => request.system?.startsWith('PLANNER'))!;
    expect(planner.system).toContain('- estimate: Estimates effort.');
    expect(planner.system).toContain('- secret-plan: How the planner splits work.');
    // `skills: { preload: [style] }`: the whole body is in its prompt from the start.
    expect(planner.system).toContain('STYLE body.');

    const [plannerResult, helperResult] = toolResults(fake.requests.at(-1)!);
    expect(plannerResult).toContain('SECRET body.');
    // helper's tools: list has no load_skill, and the planner's private skill is not its to load.
    expect(helperResult).not.toContain('SECRET body.');
    const helper = fake.requests.find((request) => request.system?.startsWith('HELPER'))!;
    expect(helper.system).not.toContain('secret-plan');
    expect(helper.tools?.map((tool) => tool.name)).toEqual(['read_file']);
  });

  it('stay private from an agent that can load skills', async () => {
    const catalog = await catalogWithPlanner();
    const fake = scriptedClient((request) =>
      toolResults(request).length === 0 ? { toolCalls: [loadSkill('l1', 'secret-plan')] } : { text: toolResults(request)[0] },
    );
    const tools = new ToolRegistry([createLoadSkillTool(catalog)]);
    const run = createSubagentRunner({
      client: fake.client,
      provider: 'fake',
      model: () => 'm',
      workspace,
      tools: () => tools,
      catalog,
      contextFiles: () => [],
    });
    const general = subagentList(catalog)[0]!;
    const outcome = await run(general, 'go', { signal: new AbortController().signal, workspace, state: {} } as never);
    expect(outcome.finalText).toContain('Unknown skill "secret-plan"');
  });
});
