import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedOllama } from '../../../../test/support/scripted-ollama.ts';
import type { RecordedRequest, ScriptTurn } from '../../../../test/support/script.ts';
import { query, type SdkMessage } from '../../src/index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type ChatBody = { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };
const systemOf = (request: RecordedRequest) => (request.body as ChatBody).messages.find((m) => m.role === 'system')?.content ?? '';

describe('query() with subagents', () => {
  it('runs a task in a child with its own prompt and tools, under the parent\'s permission asker', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-task-')));
    const dir = path.join(root, 'repo');
    const home = path.join(root, 'home');
    mkdirSync(dir, { recursive: true });
    mkdirSync(home, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: dir });
    // Each conversation is served by its system prompt: the child's starts with the agent's body.
    const server = await startScriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('WRITER')) {
          return n === 0 ? { toolCalls: [{ name: 'write_file', args: { path: 'child.txt', content: 'x' } }] } : { text: 'The write was refused.' };
        }
        return n === 0 ? { toolCalls: [{ name: 'task', args: { description: 'write a file', prompt: 'Write child.txt.', subagent_type: 'writer' } }] } : { text: 'Parent done.' };
      },
    });
    cleanups.push(() => rmSync(root, { recursive: true, force: true }), () => server.close());
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state'), OLLAMA_HOST: server.url, PATH: process.env.PATH };
    const asked: string[] = [];
    const messages: SdkMessage[] = [];
    for await (const message of query({
      prompt: 'go',
      options: {
        cwd: dir,
        env,
        agents: { writer: { description: 'Writes files.', prompt: 'WRITER: write what you are told.', tools: ['Write'] } },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: 'deny', message: 'not in a subagent' };
        },
      },
    })) messages.push(message);

    const chats = server.requests.filter((request) => request.kind === 'chat');
    const child = chats.filter((request) => systemOf(request).startsWith('WRITER'));
    expect(child).toHaveLength(2);
    expect((child[0]!.body as ChatBody).tools?.map((tool) => tool.function.name)).toEqual(['write_file']);
    expect((chats[0]!.body as ChatBody).tools?.map((tool) => tool.function.name)).toContain('task');
    expect(asked).toEqual(['write_file']);
    expect(existsSync(path.join(dir, 'child.txt'))).toBe(false);
    const taskResult = JSON.stringify(messages.filter((message) => message.type === 'user'));
    expect(taskResult).toContain('The write was refused.');
    expect(taskResult).toMatch(/\[writer: 2 turns, \d+ input and \d+ output tokens\]/);
    const result = messages.at(-1)!;
    expect(result.type === 'result' && result.subtype).toBe('success');
  });
});
