import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

// Issue #38: the status line counts the model's background tasks; /tasks lists them, shows one's
// output and stops one; Ctrl+B moves the running foreground command to the background.

afterEach(closeOpen);

/** Live (non-zombie) processes whose command line contains `needle`. */
function processesMatching(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,stat,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(needle) && !/\sZ/.test(line.slice(0, 14)) && !line.includes('ps -eo'));
}

describe.skipIf(!hasTmux)('background tasks in chat (tmux)', () => {
  test('the status line shows the running task, /tasks lists it with its last lines and stops it', async () => {
    const marker = `${Date.now() % 100000}`;
    const server = await startScriptedOllama({
      turns: [
        { toolCalls: [{ name: 'shell', args: { command: `echo watcher-started; sleep 4${marker}`, run_in_background: true } }] },
        { text: 'The watcher runs in the background.' },
      ],
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['chat', '--yolo'] });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('start the watcher');
    await session.waitForText('The watcher runs in the background.');
    await session.waitForText('1 task running');
    expect(processesMatching(`sleep 4${marker}`)).toHaveLength(1);

    await session.submit('/tasks');
    const listed = await session.waitForText('Stop a task?');
    expect(listed).toMatch(/bg-1 running \d+s\s+echo watcher-started; sleep 4\d+/);
    expect(listed).toContain('│ watcher-started');
    session.press('Enter');
    await session.waitForText('Stopped bg-1 (was killed)');
    expect(processesMatching(`sleep 4${marker}`)).toEqual([]);
    const after = await session.waitForText('/help for commands');
    expect(after).not.toContain('task running');
  });

  test("Ctrl+X Ctrl+K twice within 3 s stops every background task (Claude Code's key); once only asks", async () => {
    const marker = `${Date.now() % 100000}`;
    const server = await startScriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'shell', args: { command: `sleep 6${marker}`, run_in_background: true } },
            { name: 'shell', args: { command: `sleep 7${marker}`, run_in_background: true } },
          ],
        },
        { text: 'Both run.' },
      ],
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['chat', '--yolo'] });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('start both');
    await session.waitForText('2 tasks running');
    session.type('draft stays');
    session.press('C-x', 'C-k');
    await session.waitForText('Ctrl+X Ctrl+K again to stop 2 background tasks');
    expect(processesMatching(`sleep 6${marker}`)).toHaveLength(1);
    session.press('C-x', 'C-k');
    await session.waitForText('Stopped 2 background tasks: bg-1, bg-2.');
    for (let i = 0; i < 100 && processesMatching(`${marker}`).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processesMatching(`sleep 6${marker}`)).toEqual([]);
    expect(processesMatching(`sleep 7${marker}`)).toEqual([]);
    expect(session.visible()).toContain('› draft stays');
  });

  test('leaving chat says which tasks it stops, and stops them', async () => {
    const marker = `${Date.now() % 100000}`;
    const server = await startScriptedOllama({
      turns: [{ toolCalls: [{ name: 'shell', args: { command: `sleep 5${marker}`, run_in_background: true } }] }, { text: 'Started it.' }],
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['chat', '--yolo'] });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('start it');
    await session.waitForText('1 task running');
    expect(processesMatching(`sleep 5${marker}`)).toHaveLength(1);
    await session.submit('/exit');
    await session.waitForText(`beans: stopping 1 background task: bg-1 (sleep 5${marker})`);
    for (let i = 0; i < 100 && processesMatching(`sleep 5${marker}`).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processesMatching(`sleep 5${marker}`)).toEqual([]);
  });

  test('Ctrl+B moves the running shell command to the background: the model goes on with the task id, /tasks shows its output', async () => {
    const marker = `${Date.now() % 100000}`;
    const server = await startScriptedOllama({
      turns: [{ toolCalls: [{ name: 'shell', args: { command: `echo server-up; sleep 6${marker}` } }] }, { text: 'The server goes on in the background.' }],
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['chat', '--yolo'] });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('start the server');
    // The line it printed, under the running tool's line (the command's own text names it too).
    await session.waitFor((screen) => /\n {4}server-up/.test(screen), 'the printed line');
    await session.waitForText('ctrl+b to run in background');
    session.press('C-b');
    await session.waitForText('The server goes on in the background.');
    const chats = server.requests.filter((request) => request.kind === 'chat');
    expect(chats).toHaveLength(2);
    const toolResult = JSON.stringify(chats[1]!.body);
    expect(toolResult).toContain('The user moved this command to the background as task bg-1; it is still running.');
    expect(toolResult).toContain('Output so far:\\nserver-up');
    await session.waitForText('1 task running');
    expect(processesMatching(`sleep 6${marker}`).length).toBeGreaterThan(0);

    await session.submit('/tasks');
    const listed = await session.waitForText('Stop a task? Or view its output');
    expect(listed).toMatch(new RegExp(`bg-1 running \\d+s\\s+echo server-up; sleep 6${marker}`));
    session.press('Down', 'Enter');
    const shown = await session.waitForText('Output of bg-1 (1 line)');
    expect(shown).toMatch(/Output of bg-1 \(1 line\): echo server-up[^\n]*\n\s+server-up/);
    expect(processesMatching(`sleep 6${marker}`).length).toBeGreaterThan(0);

    await session.submit('/exit');
    await session.waitForText(`beans: stopping 1 background task: bg-1 (echo server-up; sleep 6${marker})`);
    for (let i = 0; i < 100 && processesMatching(`sleep 6${marker}`).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processesMatching(`sleep 6${marker}`)).toEqual([]);
  });
});
