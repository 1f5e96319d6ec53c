import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { RecordedRequest, ScriptTurn } from '../../../../test/support/script.ts';
import { query } from '../../src/index.js';

type ChatBody = { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };
const messagesOf = (request: RecordedRequest) => (request.body as ChatBody).messages;
const systemOf = (request: RecordedRequest) => messagesOf(request).find((m) => m.role === 'system')?.content ?? '';
const toolResults = (request: RecordedRequest) =>
  messagesOf(request)
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);

const FILES: Record<string, string> = {
  'planner.md': '---\nname: planner\ndescription: Plans work.\ntools: Read\nskills:\n  expose: [estimate]\n  preload: [style]\n---\nPLANNER: you plan.\n',
  'planner/skills/estimate/SKILL.md': '---\nname: estimate\ndescription: Estimates effort.\n---\nESTIMATE body.\n',
  'planner/skills/secret-plan.md': '---\ndescription: How the planner splits work.\n---\nSECRET body.\n',
};

async function workspace(turns: (request: RecordedRequest, n: number) => ScriptTurn) {
  const repo = makeTempRepo({
    ...Object.fromEntries(Object.entries(FILES).map(([file, text]) => [`plugins/desk/agents/${file}`, text])),
    'plugins/desk/skills/style.md': '---\ndescription: House style.\n---\nSTYLE body.\n',
  });
  const server = await scriptedOllama({ turns });
  return { dir: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, chats: () => server.requests.filter((request) => request.kind === 'chat') };
}

async function run(prompt: string, options: Record<string, unknown>): Promise<void> {
  for await (const message of query({ prompt, options })) void message;
}

describe("an agent's own skills while it holds the conversation", () => {
  it('as the profile: listed by plain name, loadable, its preloads in the prompt; its exposed copy is not listed twice', async () => {
    const { dir, env, chats } = await workspace((request, n) =>
      n === 0 ? { toolCalls: [{ name: 'load_skill', args: { name: 'secret-plan' } }] } : { text: 'ok' },
    );
    await run('plan', { cwd: dir, env, agentProfile: 'planner' });
    const [first, second] = chats();
    expect(systemOf(first!)).toMatch(/^PLANNER: you plan\./);
    expect(systemOf(first!)).toContain('- secret-plan: How the planner splits work.');
    expect(systemOf(first!)).toContain('STYLE body.');
    expect(systemOf(first!)).not.toContain('planner:estimate');
    // tools: Read, and load_skill for its own skills.
    expect((first!.body as ChatBody).tools?.map((tool) => tool.function.name)).toEqual(['read_file', 'load_skill']);
    expect(toolResults(second!)[0]).toContain('SECRET body.');
  });

  it('after a handoff: the new agent sees its own skills, the first agent never did', async () => {
    const { dir, env, chats } = await workspace((request, n) => {
      if (systemOf(request).startsWith('PLANNER'))
        return toolResults(request).length < 2 ? { toolCalls: [{ name: 'load_skill', args: { name: 'secret-plan' } }] } : { text: 'planned' };
      return n === 0 ? { toolCalls: [{ name: 'handoff', args: { agent: 'planner', reason: 'planning' } }] } : { text: 'unexpected' };
    });
    await run('plan', { cwd: dir, env });
    const requests = chats();
    expect(systemOf(requests[0]!)).not.toContain('secret-plan');
    expect(systemOf(requests[0]!)).toContain('- planner:estimate: Estimates effort.');
    expect(systemOf(requests[1]!)).toMatch(/^PLANNER/);
    expect(systemOf(requests[1]!)).toContain('- secret-plan: How the planner splits work.');
    expect(toolResults(requests[2]!).at(-1)).toContain('SECRET body.');
  });
});
