// Subagents and handoffs through the built `bin/beans`, against a scripted Ollama server that serves
// each conversation by its system prompt: a child's starts with its agent's body, so the server
// can tell the parent's requests from each child's.
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { makeTempRepo, parseJsonLines, runBeans, scriptedGemini, scriptedOllama, spawnBeans } from './harness.ts';

type ChatBody = {
  messages: { role: string; content: string; tool_calls?: { function: { name: string } }[] }[];
  tools?: { function: { name: string; description: string } }[];
};
const body = (request: RecordedRequest) => request.body as ChatBody;
const systemOf = (request: RecordedRequest) => body(request).messages.find((m) => m.role === 'system')?.content ?? '';
const lastUser = (request: RecordedRequest) => body(request).messages.findLast((m) => m.role === 'user')?.content ?? '';
const toolNames = (request: RecordedRequest) => body(request).tools?.map((tool) => tool.function.name) ?? [];

const FINDER =
  '---\nname: finder\ndescription: |\n  Finds where things are defined.\n  <example>user: where is X\nassistant: I will use the finder</example>\ntools: Read, Grep\n---\nFINDER: find what you are asked and answer with the file.\n';

function repoWithAgents(files: Record<string, string> = {}) {
  return makeTempRepo({ 'plugins/search/agents/finder.md': FINDER, 'a.ts': 'export const alpha = 1;\n', ...files });
}

const env = (repo: { env: NodeJS.ProcessEnv }, url: string) => ({ ...repo.env, OLLAMA_HOST: url, BEANS_MODEL: 'qwen3' });
const chats = (requests: RecordedRequest[]) => requests.filter((request) => request.kind === 'chat');

function sessionFiles(home: string): string[] {
  const root = path.join(home, '.local', 'state', 'beans-agent', 'sessions');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((workspace) =>
    readdirSync(path.join(root, workspace))
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => path.join(root, workspace, file)),
  );
}

describe('subagents (the task tool)', () => {
  it('runs two tasks of one turn in parallel children with only Read and Grep, forwards their messages and counts their usage', async () => {
    const repo = repoWithAgents();
    const server = await scriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER')) {
          return n === 0
            ? { toolCalls: [{ name: 'grep', args: { pattern: lastUser(request) } }], usage: { input: 40, output: 4 } }
            : { text: 'found in a.ts', usage: { input: 60, output: 6 } };
        }
        return n === 0
          ? {
              toolCalls: [
                { id: 'task_1', name: 'task', args: { description: 'find alpha', prompt: 'alpha', subagent_type: 'finder' } },
                { id: 'task_2', name: 'task', args: { description: 'find beta', prompt: 'beta', subagent_type: 'search:finder' } },
              ],
              usage: { input: 100, output: 10 },
            }
          : { text: 'Both are in a.ts.', usage: { input: 200, output: 20 } };
      },
    });
    const run = await runBeans(['-p', 'where are alpha and beta?', '-o', 'stream-json', '--verbose'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code, run.stderr).toBe(0);
    const lines = parseJsonLines(run.stdout);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
    expect(lines[0]!.agents).toEqual(expect.arrayContaining(['general-purpose', 'finder']));

    // The parent offers task, listing the agent in one line without its <example> block.
    const parentFirst = chats(server.requests)[0]!;
    const task = body(parentFirst).tools!.find((tool) => tool.function.name === 'task')!;
    expect(task.function.description).toContain('- finder: Finds where things are defined.');
    expect(task.function.description).not.toContain('<example>');
    // Each child declares only its agent's tools and starts with its body.
    const children = chats(server.requests).filter((request) => systemOf(request).startsWith('FINDER'));
    expect(children).toHaveLength(4);
    for (const child of children) expect(toolNames(child)).toEqual(['read_file', 'grep']);
    // Both children were under way before either finished: they ran in parallel.
    const firstAnswers = children.filter((request) => request.turn === 1);
    const firstQuestions = children.filter((request) => request.turn === 0);
    expect(Math.max(...firstQuestions.map((r) => r.time))).toBeLessThan(Math.min(...firstAnswers.map((r) => r.time)));

    // Every child message carries its task call's id: prompt, grep call, grep result, answer.
    for (const id of ['task_1', 'task_2']) {
      const own = lines.filter((line) => line.parent_tool_use_id === id);
      expect(own.map((line) => line.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
    }
    const parentMessages = lines.filter((line) => (line.type === 'assistant' || line.type === 'user') && line.parent_tool_use_id === null);
    expect(parentMessages.map((line) => line.type)).toEqual(['assistant', 'user', 'user', 'assistant']);
    const taskResults = JSON.stringify(parentMessages.filter((line) => line.type === 'user'));
    expect(taskResults).toContain('found in a.ts');
    expect(taskResults).toMatch(/\[finder: 2 turns, 100 input and 10 output tokens\]/);

    const result = lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'Both are in a.ts.', num_turns: 2 });
    expect(result.usage).toMatchObject({ input_tokens: 300 + 2 * 100, output_tokens: 30 + 2 * 10 });
    expect((result.modelUsage as Record<string, { inputTokens: number }>).qwen3?.inputTokens).toBe(500);
  }, 60_000);

  it('general-purpose gets every tool but task; an unknown subagent_type is an error result naming the valid agents', async () => {
    const repo = repoWithAgents();
    const server = await scriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('You are a general-purpose agent')) return { text: 'alpha is in a.ts' };
        if (n === 0)
          return {
            toolCalls: [
              { name: 'task', args: { description: 'look', prompt: 'where is alpha?', subagent_type: 'general-purpose' } },
              { name: 'task', args: { description: 'look', prompt: 'x', subagent_type: 'nobody' } },
            ],
          };
        return { text: 'done' };
      },
    });
    const run = await runBeans(['-p', 'go', '-o', 'stream-json', '--verbose'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code, run.stderr).toBe(0);
    const child = chats(server.requests).find((request) => systemOf(request).startsWith('You are a general-purpose agent'))!;
    expect(toolNames(child)).toEqual(expect.arrayContaining(['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob']));
    expect(toolNames(child)).not.toContain('task');
    expect(toolNames(child)).not.toContain('handoff');
    const results = parseJsonLines(run.stdout).filter((line) => line.type === 'user' && line.parent_tool_use_id === null);
    const contents = results.map((line) => (line.message as { content: { content: string; is_error: boolean }[] }).content[0]!);
    expect(contents[0]!.content).toContain('alpha is in a.ts');
    expect(contents[1]).toMatchObject({ is_error: true });
    expect(contents[1]!.content).toMatch(/^There is no agent "nobody"\. Available agents: general-purpose, .*finder/);
  }, 60_000);

  it('Ctrl+C during a child stops the child and the run with exit 130', async () => {
    const repo = repoWithAgents();
    const server = await scriptedOllama({
      turns: (request): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER')) return { text: Array.from({ length: 60 }, () => 'slow '), chunkDelayMs: 500 };
        return { toolCalls: [{ name: 'task', args: { description: 'slow', prompt: 'alpha', subagent_type: 'finder' } }] };
      },
    });
    const child = spawnBeans(['-p', 'go', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const deadline = Date.now() + 15_000;
    while (!chats(server.requests).some((request) => systemOf(request).startsWith('FINDER'))) {
      if (Date.now() > deadline) throw new Error('the child never asked the server');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const interrupted = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(Date.now() - interrupted).toBeLessThan(3_000);
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
  }, 60_000);

  it("SubagentStop hooks get the child's agent_type, agent_id, last message and transcript, and matchers select agent_type", async () => {
    const repo = repoWithAgents();
    repo.write('hooks/record.sh', '#!/usr/bin/env bash\ncat > "$CLAUDE_PROJECT_DIR/stop-input.json"\n');
    repo.write('hooks/never.sh', '#!/usr/bin/env bash\ntouch "$CLAUDE_PROJECT_DIR/never-ran"\n');
    for (const name of ['record.sh', 'never.sh']) chmodSync(path.join(repo.dir, 'hooks', name), 0o755);
    // User settings: hooks there need no workspace trust.
    repo.write(
      '../home/.config/beans-agent/settings.json',
      JSON.stringify({
        hooks: {
          SubagentStop: [
            { matcher: 'finder', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR/hooks/record.sh"' }] },
            { matcher: 'reviewer', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR/hooks/never.sh"' }] },
          ],
        },
      }),
    );
    const server = await scriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER')) return { text: 'alpha is in a.ts' };
        return n === 0
          ? { toolCalls: [{ id: 'task_7', name: 'task', args: { description: 'find', prompt: 'alpha', subagent_type: 'finder' } }] }
          : { text: 'done' };
      },
    });
    const run = await runBeans(['-p', 'go', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code, run.stderr).toBe(0);
    const input = JSON.parse(readFileSync(path.join(repo.dir, 'stop-input.json'), 'utf8'));
    expect(input).toMatchObject({
      hook_event_name: 'SubagentStop',
      agent_type: 'finder',
      agent_id: 'task_7',
      last_assistant_message: 'alpha is in a.ts',
      stop_hook_active: false,
    });
    expect(readFileSync(input.agent_transcript_path, 'utf8')).toContain('"type":"subagent","toolCallId":"task_7"');
    expect(existsSync(path.join(repo.dir, 'never-ran'))).toBe(false);
  }, 60_000);

  it('a child counts against --max-budget-usd: it gets only what is left, and the parent stops with exit 4', async () => {
    const repo = repoWithAgents();
    type GeminiBody = { systemInstruction?: { parts: { text: string }[] } };
    const isChild = (request: RecordedRequest) =>
      ((request.body as GeminiBody).systemInstruction?.parts.map((part) => part.text).join('') ?? '').startsWith('FINDER');
    const server = await scriptedGemini({
      // The child reads forever, each request costing about $0.30 on gemini-2.5-flash.
      turns: (request): ScriptTurn =>
        isChild(request)
          ? { toolCalls: [{ name: 'read_file', args: { path: 'a.ts' } }], usage: { input: 1_000_000, output: 1_000 } }
          : {
              toolCalls: [{ name: 'task', args: { description: 'read', prompt: 'read a.ts', subagent_type: 'finder' } }],
              usage: { input: 1_000, output: 100 },
            },
    });
    const run = await runBeans(['-p', 'spend', '--max-budget-usd', '0.5', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: server.url, BEANS_MODEL: 'gemini-2.5-flash' },
    });
    expect(run.code, run.stderr).toBe(4);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true, num_turns: 1 });
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(0.5);
    expect(result.total_cost_usd).toBeLessThan(1);
    expect(chats(server.requests).filter(isChild)).toHaveLength(2);
  }, 60_000);

  it("--continue after a task: the child's transcript stays in the session file, linked to its call, and the parent goes on", async () => {
    const repo = repoWithAgents();
    const server = await scriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER')) return { text: 'alpha is in a.ts' };
        if (n === 0) return { toolCalls: [{ id: 'task_9', name: 'task', args: { description: 'find', prompt: 'alpha', subagent_type: 'finder' } }] };
        return { text: n === 1 ? 'It is in a.ts.' : 'You asked where alpha is.' };
      },
    });
    const first = await runBeans(['-p', 'where is alpha?', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(first.code, first.stderr).toBe(0);
    const second = await runBeans(['-p', 'what did I ask?', '--continue', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ session_id: JSON.parse(first.stdout).session_id, result: 'You asked where alpha is.' });
    // The parent's history has the task call and its result, not the child's own messages.
    const history = body(chats(server.requests).at(-1)!).messages.filter((m) => m.role !== 'system');
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    const files = sessionFiles(repo.home);
    expect(files).toHaveLength(1);
    const records = readFileSync(files[0]!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; toolCallId?: string; agent?: string; message?: { role: string } });
    const childRecords = records.filter((record) => record.type === 'subagent');
    expect(childRecords.map((record) => [record.toolCallId, record.agent, record.message?.role])).toEqual([
      ['task_9', 'finder', 'user'],
      ['task_9', 'finder', 'assistant'],
    ]);
    // ... written between the task call and its result.
    const at = (predicate: (record: (typeof records)[number]) => boolean) => records.findIndex(predicate);
    expect(at((record) => record.type === 'subagent')).toBeGreaterThan(at((record) => record.message?.role === 'assistant'));
    expect(at((record) => record.type === 'subagent')).toBeLessThan(at((record) => record.message?.role === 'tool'));
  }, 60_000);
});

const DESK = {
  'plugins/desk/agents/billing.md':
    '---\nname: billing\ndescription: Invoices, payments and refunds.\nhandoffs: [support]\nmatch:\n  - invoice\n  - /refunds?\\b/\n---\nBILLING: you handle money questions.\n',
  'plugins/desk/agents/support.md':
    '---\nname: support\ndescription: Accounts and logins.\nhandoffs: [billing]\nmatch: [password reset, login]\n---\nSUPPORT: you handle accounts.\n',
};

describe('handoffs', () => {
  it("the request after a handoff carries the new agent's system prompt and the whole history; stream-json says so", async () => {
    const repo = makeTempRepo(DESK);
    const server = await scriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('BILLING')) return { text: 'Billing: it is paid.' };
        return n === 0
          ? { text: 'Passing you on.', toolCalls: [{ name: 'handoff', args: { agent: 'billing', reason: 'a payment question' } }] }
          : { text: 'wrong agent' };
      },
    });
    const run = await runBeans(['-p', 'is my bill paid?', '-o', 'stream-json', '--verbose'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code, run.stderr).toBe(0);
    const [first, second] = chats(server.requests);
    expect(systemOf(first!)).not.toContain('BILLING');
    expect(systemOf(second!)).toMatch(/^BILLING: you handle money questions\./);
    expect(
      body(second!)
        .messages.filter((m) => m.role !== 'system')
        .map((m) => [m.role, m.content]),
    ).toEqual([
      ['user', 'is my bill paid?'],
      ['assistant', 'Passing you on.'],
      ['tool', 'The conversation is now with the billing agent. Continue as billing, following its instructions.'],
    ]);
    const lines = parseJsonLines(run.stdout);
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'system', subtype: 'handoff', from: 'default', to: 'billing', reason: 'a payment question', trigger: 'tool' }),
    );
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'Billing: it is paid.' });
  }, 60_000);

  it('match: routes a message by keyword and by regex before the model runs', async () => {
    const repo = makeTempRepo(DESK);
    const server = await scriptedOllama({ turns: (request) => ({ text: `${systemOf(request).split(':')[0]} answers` }) });
    const byKeyword = await runBeans(['-p', 'I need a password reset', '-o', 'stream-json', '--verbose'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(byKeyword.code, byKeyword.stderr).toBe(0);
    expect(parseJsonLines(byKeyword.stdout)).toContainEqual(expect.objectContaining({ subtype: 'handoff', to: 'support', trigger: 'match' }));
    expect(parseJsonLines(byKeyword.stdout).at(-1)).toMatchObject({ result: 'SUPPORT answers' });
    const byRegex = await runBeans(['-p', 'two refunds, please', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(JSON.parse(byRegex.stdout)).toMatchObject({ result: 'BILLING answers' });
    const neither = await runBeans(['-p', 'hello there', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(JSON.parse(neither.stdout).result).not.toMatch(/^(BILLING|SUPPORT)/);
  }, 60_000);

  it('allows at most 3 handoffs per user message', async () => {
    const repo = makeTempRepo(DESK);
    const server = await scriptedOllama({
      turns: (_request, n): ScriptTurn =>
        n < 4 ? { toolCalls: [{ name: 'handoff', args: { agent: n % 2 === 0 ? 'billing' : 'support', reason: `round ${n}` } }] } : { text: 'settled' },
    });
    const run = await runBeans(['-p', 'help', '-o', 'stream-json', '--verbose'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code, run.stderr).toBe(0);
    const lines = parseJsonLines(run.stdout);
    expect(lines.filter((line) => line.subtype === 'handoff').map((line) => line.to)).toEqual(['billing', 'support', 'billing']);
    const refused = lines
      .filter((line) => line.type === 'user')
      .map((line) => (line.message as { content: { content: string; is_error: boolean }[] }).content[0]!)
      .at(-1)!;
    expect(refused).toMatchObject({ is_error: true, content: 'The conversation was already handed off 3 times for this message; answer the user yourself.' });
    expect(systemOf(chats(server.requests).at(-1)!)).toMatch(/^BILLING:/);
  }, 60_000);
});
