// Issue 47: /mcp (AgentSession.mcpServers) says which servers' tools are deferred and which are loaded.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { writeManyToolsServer } from '../../../../test/support/many-tools-server.ts';
import { startScriptedOllama } from '../../../../test/support/scripted-ollama.ts';
import { createAgentSession } from '../../src/index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('lists a deferred server with the tools tool_search loaded, and a small one as before', { timeout: 60_000 }, async () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-deferred-status-')));
  const dir = path.join(root, 'repo');
  const home = path.join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const server = await startScriptedOllama({
    turns: [{ toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__big__refund_invoice' } }] }, { text: 'loaded' }],
  });
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => server.close(),
  );
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.state'),
    OLLAMA_HOST: server.url,
    PATH: process.env.PATH,
  };
  const agent = await createAgentSession({
    cwd: dir,
    env,
    mcpServers: {
      big: { command: process.execPath, args: [writeManyToolsServer(home, 150)] },
      small: { command: process.execPath, args: [writeManyToolsServer(root, 5)] },
    },
  });
  cleanups.push(() => agent.close());
  const before = agent.mcpServers();
  expect(before.map((entry) => [entry.name, entry.tools.length, entry.deferred])).toEqual([
    ['big', 150, { loaded: [] }],
    // The small server's tools are deferred with the big one's: the threshold is over all MCP tools.
    ['small', 5, { loaded: [] }],
  ]);
  await agent.submit({ text: 'load the refund tool' });
  expect(agent.mcpServers()[0]!.deferred).toEqual({ loaded: ['refund_invoice'] });
});
