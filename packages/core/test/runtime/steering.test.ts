import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import { createAgentSession, type AgentSession, type ToolResultMessage } from '../../src/index.js';

// Issue 52, item 6: the loop (agent/) no longer asks the permission policy's read-only classifier
// itself; the session passes it in (ChatSession's isReadOnlyCommand). Once the user steers, a command
// line that would run without asking as read-only still runs, and one that changes things is skipped.
let agent: AgentSession | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function steeredSession(settings: Record<string, unknown> = {}) {
  const repo = makeTempRepo({ 'numbers.txt': '1\n2\n3\n', ...(Object.keys(settings).length ? { '.beans/settings.json': JSON.stringify(settings) } : {}) });
  const commands = ['sleep 0.5', 'tail -n 1 numbers.txt', 'rm numbers.txt', 'wc -l numbers.txt'];
  const server = await scriptedOllama({ turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'done' }] });
  agent = await createAgentSession({ cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, permissionMode: 'yolo', trustWorkspace: true });
  const session = agent;
  // The user sends another message while the first command runs: it steers the turn.
  const stop = session.session.subscribe((event) => {
    if (event.type !== 'tool_execution_start') return;
    stop();
    void session.submit({ text: 'also tell me the last line' });
  });
  await session.submit({ text: 'count the numbers' });
  const results = session.session.messages.filter((message): message is ToolResultMessage => message.role === 'tool');
  return { repo, statuses: results.map((result) => result.status) };
}

describe('steering a running turn', () => {
  it('runs the command lines that only read and skips the one that changes things', async () => {
    const { repo, statuses } = await steeredSession();
    expect(statuses).toEqual(['ok', 'ok', 'skipped', 'ok']);
    expect(existsSync(path.join(repo.dir, 'numbers.txt'))).toBe(true);
  });

  it('with permissions.readOnlyCommands off (read-only lines ask), every command line after the steer is skipped', async () => {
    const { repo, statuses } = await steeredSession({ permissions: { readOnlyCommands: false } });
    expect(statuses).toEqual(['ok', 'skipped', 'skipped', 'skipped']);
    expect(existsSync(path.join(repo.dir, 'numbers.txt'))).toBe(true);
  });
});
