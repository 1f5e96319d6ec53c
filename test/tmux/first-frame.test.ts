import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { processesLeft } from '../support/processes.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

const userTexts = (body: unknown) =>
  ((body as { messages: { role: string; content: string }[] }).messages ?? []).filter((message) => message.role === 'user').map((message) => message.content);

describe.skipIf(!hasTmux)('the chat draws its prompt before the session is built (issue #36)', () => {
  test('the prompt is on screen while a SessionStart hook still holds the session; what was typed meanwhile is sent once it is ready', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'hi there' }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const go = path.join(workspace.home, 'go');
    // The session is built with its hooks, plugins and MCP servers; this hook holds it until the test says go.
    const hold = `while [ ! -f '${go}' ]; do sleep 0.05; done; echo 'Session note: released'`;
    mkdirSync(path.join(workspace.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(
      path.join(workspace.home, '.config', 'beans-agent', 'settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: hold }] }] } }),
    );
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'scripted' } });
    open.push({ session, server, workspace });

    const first = await session.waitForText('Ask anything');
    expect(existsSync(go)).toBe(false);
    // The input box and the status line (the model the settings name, the branch), without the
    // header the session writes: nothing of the session exists yet.
    expect(first).toMatch(/scripted · ↑0 ↓0 .*⎇ main/);
    expect(first).not.toContain('beans · default');
    // Typed and sent before the session exists: kept, and sent when it is ready.
    await session.submit('hello before the session');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
    writeFileSync(go, '');

    const screen = await session.waitForText('hi there', 15_000);
    expect(screen).toContain('beans · default');
    expect(screen).toContain('› hello before the session');
    const chats = server.requests.filter((request) => request.kind === 'chat');
    expect(chats).toHaveLength(1);
    const prompt = userTexts(chats[0]!.body).at(-1)!;
    expect(prompt).toContain('hello before the session');
    // The hook's context came with it: the prompt waited for the whole session.
    expect(prompt).toContain('Session note: released');
  });

  test('Ctrl+C twice before the session is ready stops the start, as the terminal interrupt did before', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'hi there' }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const go = path.join(workspace.home, 'go');
    const hold = `while [ ! -f '${go}' ]; do sleep 0.05; done`;
    mkdirSync(path.join(workspace.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(
      path.join(workspace.home, '.config', 'beans-agent', 'settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: hold }] }] } }),
    );
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'scripted' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    try {
      // One Ctrl+C is kept for the chat (where it shows a hint); the second stops the start.
      session.press('C-c');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(session.screen()).not.toContain('[beans exited');
      session.press('C-c');
      const screen = await session.waitForText('[beans exited with 130]', 10_000);
      expect(screen).not.toContain('Ask anything');
      // The hook that held the start is stopped with Beans, not left waiting for ever.
      expect(await processesLeft(go, 2_000)).toEqual([]);
    } finally {
      writeFileSync(go, '');
    }
  });
});
