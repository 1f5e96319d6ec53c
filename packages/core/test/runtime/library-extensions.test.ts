import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { RecordedRequest, ScriptOptions, ScriptedServer } from '../../../../test/support/script.ts';

// Every extension point of the library guide (docs/library.md, "Extending the agent") has an
// example there; each example is a file in examples/ and runs here as a program of its own against a
// scripted Ollama, through the built package (`pnpm run build` first).
const CORE = path.resolve(import.meta.dirname, '../..');
const GUIDE = readFileSync(path.join(CORE, '../../docs/library.md'), 'utf8');
const run = promisify(execFile);

interface ExampleRun {
  stdout: string;
  stderr: string;
  server: ScriptedServer;
  dir: string;
  chats: RecordedRequest[];
}

async function runExample(name: string, script: ScriptOptions, files: Record<string, string> = {}): Promise<ExampleRun> {
  const file = path.join(CORE, 'examples', name);
  // The guide shows the file exactly as it runs.
  expect(GUIDE).toContain('```js\n' + readFileSync(file, 'utf8') + '```');
  const repo = makeTempRepo(files);
  const server = await scriptedOllama(script);
  const { stdout, stderr } = await run(process.execPath, [file, repo.dir], { env: { ...repo.env, OLLAMA_HOST: server.url }, timeout: 30_000 });
  return { stdout, stderr, server, dir: repo.dir, chats: server.requests.filter((request) => request.kind === 'chat') };
}

type OllamaMessage = { role: string; content: string; tool_calls?: unknown[]; tool_name?: string };
const messagesOf = (request: RecordedRequest) => (request.body as { messages: OllamaMessage[] }).messages;

describe('library extension points, each README example run as a program', () => {
  it('toolLimits: the third shell call of a run gets an error result and never runs', async () => {
    const shell = (n: number) => ({ name: 'shell', args: { command: `echo run-${n} >> ran.txt && echo check ${n} passed` } });
    const { stdout, dir, chats } = await runExample('tool-limits.mjs', {
      turns: [{ toolCalls: [shell(1), shell(2), shell(3)] }, { text: 'Two checks passed.' }],
    });
    expect(stdout).toBe(
      'ok: check 1 passed\nok: check 2 passed\nerror: Tool limit reached: shell may be called at most 2 times per run, so this call was not run. Finish the task without calling shell again.\nresult: success, Two checks passed.\n',
    );
    expect(readFileSync(path.join(dir, 'ran.txt'), 'utf8')).toBe('run-1\nrun-2\n');
    // The model read the refusal as the call's result.
    const results = messagesOf(chats[1]!).filter((message) => message.role === 'tool');
    expect(results.map((message) => message.content)).toEqual([
      expect.stringContaining('check 1 passed'),
      expect.stringContaining('check 2 passed'),
      expect.stringContaining('Tool limit reached: shell'),
    ]);
  });

  it('transformContext and convertToLlm: the model reads the trimmed view, the conversation keeps everything', async () => {
    let served = 0;
    const turns = () => {
      served += 1;
      if (served <= 3) return { toolCalls: [{ name: 'read_file', args: { path: 'big.txt' } }] };
      return { text: 'It is the letter x, many times.' };
    };
    const { stdout, chats } = await runExample('context-window.mjs', { turns }, { 'big.txt': `${'x'.repeat(3000)}\n` });
    expect(stdout).toBe('result: success, It is the letter x, many times.\n');
    expect(chats).toHaveLength(4);
    // convertToLlm: the 3000-character file reached the provider cut to 200 characters.
    const firstResult = messagesOf(chats[1]!).find((message) => message.role === 'tool')!;
    expect(firstResult.content.length).toBe(200);
    // transformContext: the 4th request holds the task and the newest four of its seven messages.
    const last = messagesOf(chats[3]!).filter((message) => message.role !== 'system');
    expect(last.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(last[0]!.content).toContain('Read big.txt and summarise it');
    // Before it, nothing was cut: the 3rd request has all five messages.
    expect(messagesOf(chats[2]!).filter((message) => message.role !== 'system')).toHaveLength(5);
  });

  it('context: the system prompt and the tools are functions of it; a tool reads its data', async () => {
    const { stdout, chats } = await runExample('run-context.mjs', {
      turns: [{ toolCalls: [{ name: 'order_status', args: { id: 'A-17' } }] }, { text: 'Your order A-17 shipped on Monday.' }],
    });
    expect(stdout).toBe('result: success, Your order A-17 shipped on Monday.\n');
    const system = messagesOf(chats[0]!).find((message) => message.role === 'system')!;
    expect(system.content).toContain("You answer Ada's questions about their orders. Be brief.");
    const tools = (chats[0]!.body as { tools: { function: { name: string } }[] }).tools.map((tool) => tool.function.name);
    expect(tools).toContain('order_status');
    expect(messagesOf(chats[1]!).find((message) => message.role === 'tool')!.content).toBe('shipped on Monday');
  });

  it('guardrail functions: a tripped input guardrail keeps the prompt from the model, a tripped output guardrail withholds the answer', async () => {
    const { stdout, chats } = await runExample('guardrails.mjs', { turns: [{ text: 'They are at https://intranet.example/docs.' }] });
    expect(stdout).toBe(
      [
        'I want a refund -> error_during_execution: The prompt was blocked: Refunds are handled by a person; the request was passed on. (guardrail: refunds_need_a_person)',
        'Where are the docs? -> error_during_execution: The answer was withheld: The answer was blocked by the guardrail no_internal_addresses. (guardrail: no_internal_addresses)',
        '',
      ].join('\n'),
    );
    // Only the second prompt reached the provider.
    expect(chats).toHaveLength(1);
    expect(JSON.stringify(chats[0]!.body)).toContain('Where are the docs?');
    expect(JSON.stringify(chats[0]!.body)).not.toContain('refund');
  });

  it('onHandoff and handoffInputFilter: the program hears the handoff with its context, the new agent reads the filtered history', async () => {
    let served = 0;
    const turns = () => {
      served += 1;
      if (served === 1) return { toolCalls: [{ name: 'list_directory', args: { path: '.' } }] };
      if (served === 2) return { toolCalls: [{ name: 'handoff', args: { agent: 'billing', reason: 'an invoice question' } }] };
      return { text: 'Billing here: the invoice is corrected.' };
    };
    const { stdout, chats } = await runExample('handoffs.mjs', { turns }, { 'invoice.txt': 'total: 10\n' });
    expect(stdout).toMatch(/^handoff: \S+ -> billing \(an invoice question\) for c-42\nresult: success, Billing here: the invoice is corrected\.\n$/);
    expect(chats).toHaveLength(3);
    // Before the handoff the first agent saw its own lookup; after it, billing reads the user's
    // message, the handoff call and its result, under its own instructions.
    expect(messagesOf(chats[1]!).map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    const after = messagesOf(chats[2]!);
    expect(after.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(after[0]!.content).toContain('You are the billing agent.');
    expect(after[1]!.content).toContain('My invoice is wrong');
    expect(JSON.stringify(after[2]!.tool_calls)).toContain('billing');
    expect(JSON.stringify(after)).not.toContain('invoice.txt');
  });

  it("memory: the memory tool saves into the program's store, and the next session reads it from there", async () => {
    let served = 0;
    const turns = () => {
      served += 1;
      if (served === 1) return { toolCalls: [{ name: 'memory', args: { fact: 'Run the tests with pnpm test' } }] };
      if (served === 2) return { text: 'Noted: pnpm test.' };
      return { text: 'Running pnpm test.' };
    };
    const { stdout, dir, chats } = await runExample('memory-store.mjs', { turns });
    expect(stdout).toBe('Find out how to run the tests: Noted: pnpm test.\nRun the tests: Running pnpm test.\nfacts: Run the tests with pnpm test\n');
    expect(chats).toHaveLength(3);
    // The first session's prompt had no memory; the second one's lists the stored fact.
    const systemOf = (index: number) => messagesOf(chats[index]!).find((message) => message.role === 'system')!.content;
    expect(systemOf(0)).not.toContain('Project memory');
    expect(systemOf(2)).toContain(
      '## Project memory\nDurable facts recorded about this project (build commands, conventions).\n- Run the tests with pnpm test',
    );
    expect(messagesOf(chats[1]!).find((message) => message.role === 'tool')!.content).toBe('Remembered in the project memory; future sessions will read it.');
    // The tool tells the model of the project memory, not of a file.
    const memoryTool = (chats[0]!.body as { tools: { function: { name: string; description: string } }[] }).tools.find(
      (tool) => tool.function.name === 'memory',
    )!;
    expect(memoryTool.function.description).toContain('to the project memory for future sessions');
    expect(memoryTool.function.description).not.toContain('.beans/memory.md');
    // Nothing went to the default file.
    expect(existsSync(path.join(dir, '.beans', 'memory.md'))).toBe(false);
  });
});
