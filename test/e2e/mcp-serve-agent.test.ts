// The `agent` tool of `beans mcp serve`: a whole Beans session on the scripted OpenAI-compatible
// server, driven by the official MCP client over stdio, with progress, cancellation and resume.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ResourceListChangedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { RecordedRequest, ScriptedServer, TurnSource } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo } from './harness.ts';
import { serveStdio, textOf } from './mcp-serve-client.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function openAi(turns: TurnSource): Promise<{ server: ScriptedServer; env: NodeJS.ProcessEnv }> {
  const server = await startScriptedOpenAi({ turns });
  servers.push(server);
  return { server, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' } };
}

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown[] };
const messagesOf = (request: RecordedRequest) =>
  ((request.body as { messages?: ChatMessage[] }).messages ?? []).map((m) => ({ ...m, text: JSON.stringify(m.content ?? '') }));
const lastUserText = (request: RecordedRequest) => messagesOf(request).findLast((m) => m.role === 'user')?.text ?? '';
const chats = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat');

describe('beans mcp serve: the agent tool', () => {
  it('answers from the model after running its tools, with progress notifications, and the session becomes a resource', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'the launch code is 7741\n' });
    const { server, env } = await openAi([
      { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
      { text: 'The note says the launch code is 7741.' },
    ]);
    const { client } = await serveStdio(repo, [], env);
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (listChanged += 1));
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'agent', arguments: { prompt: 'What does notes.txt say?' } }, undefined, {
      onprogress: (update) => void progress.push(update),
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const [answer, session] = (result.content as { text: string }[]).map((part) => part.text);
    expect(answer).toBe('The note says the launch code is 7741.');
    const id = /Beans session: (\S+)/.exec(session!)?.[1];
    expect(id).toBeDefined();
    // The file was read inside the session and its content went to the model.
    expect(messagesOf(chats(server)[1]!).some((m) => m.role === 'tool' && m.text.includes('7741'))).toBe(true);
    expect(progress.map((update) => update.message)).toEqual([expect.stringMatching(/^Beans is working \(openai, gpt-5-mini\)$/), 'read_file: notes.txt']);
    expect(progress.map((update) => update.progress)).toEqual([1, 2]);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([`beans://sessions/${id}`]);
    await expect.poll(() => listChanged).toBeGreaterThan(0);
  });

  it('takes the prompt as any front end does: @file attaches the file, an unknown /command is refused before any request', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'attached words 5521\n' });
    const { server, env } = await openAi([{ text: 'Read it.' }]);
    const { client } = await serveStdio(repo, [], env);
    const attached = await client.callTool({ name: 'agent', arguments: { prompt: 'Summarize @notes.txt' } });
    expect(attached.isError, textOf(attached)).toBeFalsy();
    expect(messagesOf(chats(server)[0]!).some((m) => m.role === 'user' && m.text.includes('attached words 5521'))).toBe(true);
    const unknown = await client.callTool({ name: 'agent', arguments: { prompt: '/no-such-command now' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/Beans refused the prompt: .*no-such-command/);
    expect(chats(server)).toHaveLength(1);
  });

  it("runs in the server's mode: in the default mode the model's edits and commands are refused, and cwd stays inside the workspace", async () => {
    const repo = makeTempRepo({ 'notes.txt': 'x\n' });
    const { server, env } = await openAi([
      {
        toolCalls: [
          { name: 'write_file', args: { path: 'marker-write.txt', content: 'x' } },
          { name: 'shell', args: { command: 'touch marker-shell' } },
        ],
      },
      { text: 'Both were refused.' },
    ]);
    const { client } = await serveStdio(repo, [], env);
    const result = await client.callTool({ name: 'agent', arguments: { prompt: 'Make two files.', cwd: '.' } });
    expect(textOf(result)).toContain('Both were refused.');
    const toolResults = messagesOf(chats(server)[1]!).filter((m) => m.role === 'tool');
    expect(toolResults.map((m) => m.text)).toEqual([expect.stringMatching(/Permission denied/), expect.stringMatching(/Permission denied/)]);
    expect(existsSync(path.join(repo.dir, 'marker-write.txt'))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'marker-shell'))).toBe(false);

    const outside = await client.callTool({ name: 'agent', arguments: { prompt: 'Look around.', cwd: '..' } });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/cwd: .*outside the workspace/);
    expect(chats(server)).toHaveLength(2); // no session started for it
  });

  it('a cancel from the client aborts the slow turn at once; the session file stays resumable', async () => {
    const repo = makeTempRepo();
    // A slow answer (60 pieces, 250 ms apart: 15 s) to the first prompt; a quick one to the next.
    const { server, env } = await openAi((request) =>
      lastUserText(request).includes('slow task')
        ? { text: Array.from({ length: 60 }, (_, n) => `piece ${n} `), chunkDelayMs: 250 }
        : { text: 'Resumed: done.' },
    );
    const { client } = await serveStdio(repo, [], env);
    const controller = new AbortController();
    const progress: Progress[] = [];
    const call = client.callTool({ name: 'agent', arguments: { prompt: 'Do the slow task.' } }, undefined, {
      signal: controller.signal,
      onprogress: (update) => void progress.push(update),
    });
    await expect.poll(() => chats(server).length, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 600)); // a few pieces are in
    const cancelledAt = Date.now();
    controller.abort();
    await expect(call).rejects.toThrow();

    // The run ended well before the answer would have: the session file records the interruption.
    const transcript = async () => {
      const { resources } = await client.listResources();
      if (resources.length !== 1) return '';
      const read = await client.readResource({ uri: resources[0]!.uri });
      return (read.contents[0] as { text: string }).text;
    };
    await expect.poll(transcript, { timeout: 5_000, interval: 100 }).toContain('"kind":"interrupted"');
    const stoppedMs = Date.now() - cancelledAt;
    expect(stoppedMs).toBeLessThan(5_000);
    // The answer's stream was cut, not read to its end in the background.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await transcript()).toContain('piece 1 ');
    expect(await transcript()).not.toContain('piece 59');
    const id = (await client.listResources()).resources[0]!.name;

    const resumed = await client.callTool({ name: 'agent', arguments: { prompt: 'Go on, quickly.', session_id: id } });
    expect(resumed.isError, textOf(resumed)).toBeFalsy();
    expect(textOf(resumed)).toContain('Resumed: done.');
    expect(textOf(resumed)).toContain(`Beans session: ${id}`);
    const last = chats(server).at(-1)!;
    expect(messagesOf(last).some((m) => m.role === 'user' && m.text.includes('Do the slow task.'))).toBe(true);
    expect((await client.listResources()).resources).toHaveLength(1);
  });

  it('a Beans that an agent session starts as an MCP server offers its tools but no agent tool', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'nested\n' });
    repo.write('.mcp.json', JSON.stringify({ mcpServers: { beans: { command: BEANS_BIN, args: ['mcp', 'serve'] } } }));
    const { server, env } = await openAi([{ text: 'Looked.' }]);
    const { client } = await serveStdio(repo, ['--trust'], env);
    const result = await client.callTool({ name: 'agent', arguments: { prompt: 'Which tools do you have?' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const tools = ((chats(server)[0]!.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
    expect(tools).toContain('mcp__beans__read_file');
    expect(tools).not.toContain('mcp__beans__agent');
  });
});
