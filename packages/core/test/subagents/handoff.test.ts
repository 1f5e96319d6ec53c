import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { RecordedRequest, ScriptTurn } from '../../../../test/support/script.ts';
import { query, type SdkMessage } from '../../src/index.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { createAgentSession } from '../../src/runtime/agent-session.js';
import { matchScore } from '../../src/subagents/index.js';

type ChatBody = { messages: { role: string; content: string; tool_calls?: unknown[] }[]; tools?: { function: { name: string; description: string } }[] };
const body = (request: RecordedRequest) => request.body as ChatBody;
const systemOf = (request: RecordedRequest) => body(request).messages.find((m) => m.role === 'system')?.content ?? '';
const lastUserText = (request: RecordedRequest) => body(request).messages.findLast((m) => m.role === 'user')?.content ?? '';

const AGENTS = {
  'billing.md':
    '---\nname: billing\ndescription: Invoices, payments and refunds.\ntools: Read\nhandoffs: [support]\nmatch:\n  - invoice\n  - /refunds?\\b/\n---\nBILLING: you handle money questions.\n',
  'support.md':
    '---\nname: support\ndescription: Accounts and logins.\nhandoffs: [billing]\nmatch: [password reset, login]\n---\nSUPPORT: you handle accounts.\n',
};

async function workspace(turns: (request: RecordedRequest, n: number) => ScriptTurn) {
  const repo = makeTempRepo(Object.fromEntries(Object.entries(AGENTS).map(([file, text]) => [`plugins/desk/agents/${file}`, text])));
  const server = await scriptedOllama({ turns });
  const chats = () => server.requests.filter((request) => request.kind === 'chat');
  return { dir: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, chats };
}

describe('match: scoring', () => {
  it('weighs a keyword phrase by its words, a regex as 2, and only whole words', async () => {
    expect(await matchScore(['login'], 'I cannot login today')).toBe(1);
    expect(await matchScore(['password reset'], 'please do a Password  Reset')).toBe(2);
    expect(await matchScore(['/refunds?\\b/'], 'two REFUNDS')).toBe(2);
    expect(await matchScore(['login'], 'my loginname')).toBe(0);
    expect(await matchScore(['invoice', 'login'], 'invoice and login')).toBe(2);
    expect(await matchScore(['/[unclosed/'], 'anything')).toBe(0);
  });

  it("a repository's catastrophic /regex/ cannot hang routing: matching stays linear in the message", async () => {
    const started = performance.now();
    expect(await matchScore(['/^(a+)+$/', '/(a|aa)*c/'], `${'a'.repeat(40)}!`)).toBe(0);
    expect(performance.now() - started).toBeLessThan(500);
    expect(await matchScore(['/^(a+)+!$/'], `${'a'.repeat(40)}!`)).toBe(2);
  });
});

describe('handoffs', () => {
  it("a handoff call gives the next request the new agent's prompt and tools with the whole history, and stream-json says so", async () => {
    const { dir, env, chats } = await workspace((request, n) => {
      if (systemOf(request).startsWith('BILLING')) return { text: 'Billing here: your invoice is paid.' };
      return n === 0 ? { toolCalls: [{ id: 'h1', name: 'handoff', args: { agent: 'billing', reason: 'a money question' } }] } : { text: 'unexpected' };
    });
    const messages: SdkMessage[] = [];
    for await (const message of query({ prompt: 'is my bill settled?', options: { cwd: dir, env } })) messages.push(message);

    const [first, second] = chats();
    expect(systemOf(first!)).not.toContain('BILLING');
    expect(body(first!).tools?.map((tool) => tool.function.name)).toContain('handoff');
    expect(systemOf(second!)).toMatch(/^BILLING: you handle money questions\./);
    expect(
      body(second!)
        .messages.filter((m) => m.role !== 'system')
        .map((m) => m.role),
    ).toEqual(['user', 'assistant', 'tool']);
    expect(body(second!).messages[1]!.content).toBe('is my bill settled?');
    // billing's tools: Read, plus the handoff tool that lists only its allowed target.
    expect(body(second!).tools?.map((tool) => tool.function.name)).toEqual(['read_file', 'handoff']);
    const handoffTool = body(second!).tools!.find((tool) => tool.function.name === 'handoff')!;
    expect(handoffTool.function.description).toMatch(/\nAgents: support\.$/);
    expect(messages).toContainEqual(
      expect.objectContaining({ type: 'system', subtype: 'handoff', from: 'default', to: 'billing', reason: 'a money question', trigger: 'tool' }),
    );
    const result = messages.at(-1)!;
    expect(result.type === 'result' && result.result).toBe('Billing here: your invoice is paid.');
  });

  it('routes a message by match: keywords and regexes before the model runs; a tie keeps the current agent', async () => {
    const { dir, env, chats } = await workspace((request) => ({ text: `${systemOf(request).split(':')[0]} answered ${lastUserText(request)}` }));
    const agent = await createAgentSession({ cwd: dir, env });
    const handoffs: AgentEvent[] = [];
    agent.session.subscribe((event) => event.type === 'handoff' && handoffs.push(event));
    await agent.submit({ text: 'I need a password reset for my login' });
    expect(systemOf(chats().at(-1)!)).toMatch(/^SUPPORT:/);
    await agent.submit({ text: 'and two refunds please' });
    expect(systemOf(chats().at(-1)!)).toMatch(/^BILLING:/);
    // invoice (billing, 1) against login (support, 1): a tie, so billing keeps it.
    await agent.submit({ text: 'the invoice for my login' });
    expect(systemOf(chats().at(-1)!)).toMatch(/^BILLING:/);
    expect(agent.activeAgent).toBe('billing');
    expect(handoffs).toEqual([
      { type: 'handoff', from: 'default', to: 'support', reason: 'the message matches "password reset", "login"', trigger: 'match' },
      { type: 'handoff', from: 'support', to: 'billing', reason: 'the message matches /refunds?\\b/', trigger: 'match' },
    ]);
    agent.close();
  });

  it('allows 3 handoffs per user message, and only to the agents handoffs: names', async () => {
    const { dir, env, chats } = await workspace((_request, n) => {
      const to = ['billing', 'support', 'billing', 'support', 'reviewer'][n];
      return to ? { toolCalls: [{ name: 'handoff', args: { agent: to, reason: `step ${n}` } }] } : { text: 'settled' };
    });
    const agent = await createAgentSession({ cwd: dir, env });
    const outcome = await agent.submit({ text: 'help' });
    expect(outcome.kind === 'turn' && outcome.turn.answer).toBe('settled');
    const results = agent.session.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.isError)).toEqual([false, false, false, true, true]);
    expect(results[3]!.content).toBe('The conversation was already handed off 3 times for this message; answer the user yourself.');
    expect(results[4]!.content).toBe('There is no agent "reviewer" to hand off to. Valid agents: support.');
    expect(agent.activeAgent).toBe('billing');
    expect(systemOf(chats().at(-1)!)).toMatch(/^BILLING:/);
    agent.close();
  });

  it('a deny rule naming handoff hides the tool; routing still works', async () => {
    const { dir, env, chats } = await workspace((request) => ({ text: `${systemOf(request).split(':')[0]} here` }));
    const agent = await createAgentSession({ cwd: dir, env, disallowedTools: ['handoff'] });
    expect(agent.session.tools.get('handoff')).toBeUndefined();
    await agent.submit({ text: 'my login is broken' });
    expect(systemOf(chats().at(-1)!)).toMatch(/^SUPPORT:/);
    expect(body(chats().at(-1)!).tools?.map((tool) => tool.function.name)).not.toContain('handoff');
    agent.close();
  });

  it('comes back to the agent that held the conversation when the session is resumed', async () => {
    const { dir, env, chats } = await workspace((request) => ({ text: `${systemOf(request).split(':')[0]} here` }));
    const first = await createAgentSession({ cwd: dir, env });
    await first.submit({ text: 'my login is broken' });
    expect(first.activeAgent).toBe('support');
    first.close();
    const resumed = await createAgentSession({ cwd: dir, env, continue: true });
    expect(resumed.activeAgent).toBe('support');
    await resumed.submit({ text: 'still there?' });
    expect(systemOf(chats().at(-1)!)).toMatch(/^SUPPORT:/);
    await resumed.switchAgent('billing');
    expect(resumed.activeAgent).toBe('billing');
    expect(resumed.describeProfile()).toMatch(/\nThe conversation was handed off: the billing agent holds it now\.$/);
    await expect(resumed.switchAgent('nobody')).rejects.toThrow(/There is no agent "nobody"/);
    resumed.close();
  });
});
