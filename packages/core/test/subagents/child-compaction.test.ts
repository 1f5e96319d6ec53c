// Issue 46: a subagent compacts its own conversation, against its own window, with its own
// summary failures: the runner builds a compaction for each child.
import { describe, expect, it } from 'vitest';
import type { ChatSession } from '../../src/agent/chat-session.js';
import type { AgentMessage } from '../../src/agent/types.js';
import { collectStream } from '../../src/llm/collect.js';
import type { ChatRequest, LLMClient, StreamEvent } from '../../src/llm/types.js';
import { createSubagentRunner, parseInlineAgents, subagentList } from '../../src/subagents/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };

describe('subagent compaction', () => {
  it('gives each child its own transformContext, run before each of its requests', async () => {
    const requests: ChatRequest[] = [];
    const stream = async function* (request: ChatRequest): AsyncIterable<StreamEvent> {
      requests.push(request);
      yield { type: 'done', stopReason: 'stop', text: 'child answer', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } };
    };
    const client: LLMClient = {
      provider: 'fake',
      resolveModel: async () => ({ model: 'm' }),
      chatStream: stream,
      chat: (r) => collectStream(stream(r)),
      listModels: async () => [],
    };
    const children: (() => ChatSession)[] = [];
    const seen: AgentMessage[][] = [];
    const run = createSubagentRunner({
      client,
      provider: 'fake',
      model: () => 'm',
      workspace,
      tools: () => new ToolRegistry([]),
      contextFiles: () => [],
      compaction: (child) => {
        children.push(child);
        return async (messages) => {
          seen.push([...messages]);
          return messages;
        };
      },
    });
    const agent = subagentList({ agents: () => [] }, parseInlineAgents('{"finder": {"description": "Finds things.", "prompt": "FIND"}}')).find(
      (a) => a.name === 'finder',
    );
    await run(agent!, 'find the config', { callId: 'call_1', signal: new AbortController().signal, workspace, state: { fileTimes: new Map(), todos: [] } });
    await run(agent!, 'find the tests', { callId: 'call_2', signal: new AbortController().signal, workspace, state: { fileTimes: new Map(), todos: [] } });
    expect(children).toHaveLength(2);
    expect(children[0]!().id).not.toBe(children[1]!().id);
    expect(seen.map((messages) => messages.map((m) => (m.role === 'user' ? m.content : m.role)))).toEqual([['find the config'], ['find the tests']]);
  });
});
