import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

// Issue #40 item 4: /mcp disable|enable|reconnect in the real chat, against a real MCP server.

afterEach(closeOpen);

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

describe.skipIf(!hasTmux)('/mcp in chat (tmux)', () => {
  test("disable takes the server's tools out of the next request, enable and reconnect bring them back", { timeout: 60_000 }, async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'first answer' }, { text: 'second answer' }, { text: 'third answer' }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    workspace.write('servers.json', JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } }));
    // Declared, not deferred: the request's tool list shows what the session offers.
    mkdirSync(path.join(workspace.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(workspace.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ tools: { defer: 'never' } }));
    const session = TmuxSession.start({
      workspace,
      env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' },
      args: ['chat', '--mcp-config', 'servers.json'],
    });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 20_000);
    await session.submit('one');
    await session.waitForText('first answer');
    await session.submit('/mcp disable ev');
    await session.waitForText('Disabled ev: its tools leave the next request');
    await session.submit('/mcp');
    await session.waitFor((frame) => /ev\s+disabled/.test(frame), 'ev listed as disabled');
    await session.submit('two');
    await session.waitForText('second answer');
    await session.submit('/mcp enable ev');
    await session.waitForText('ev is connected with', 20_000);
    await session.submit('/mcp reconnect ev');
    await session.waitFor((frame) => frame.split('ev is connected with').length === 3, 'a second connected note', 20_000);
    await session.submit('three');
    await session.waitForText('third answer');
    const tools = server.requests
      .filter((request) => request.kind === 'chat')
      .map((request) => ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name));
    expect(tools[0]).toContain('mcp__ev__echo');
    expect(tools[1]!.filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(tools[1]).toEqual(tools[0]!.filter((name) => !name.startsWith('mcp__')));
    expect(tools[2]).toContain('mcp__ev__echo');
  });
});
