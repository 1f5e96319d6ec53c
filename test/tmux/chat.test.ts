import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

afterEach(closeOpen);

async function startBeans(turns: ScriptTurn[], env: Record<string, string> = {}) {
  const server = await startScriptedOllama({ turns });
  const workspace = makeTempRepo({ 'README.md': '# demo\n' });
  const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', ...env } });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything');
  return { server, workspace, session };
}

/** Chat requests the model server received, in order. */
const chats = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat');

describe.skipIf(!hasTmux)('beans chat in a real terminal (tmux)', () => {
  test('a streamed answer appears piece by piece, rendered as Markdown', async () => {
    const { session } = await startBeans([
      { text: ['## Findings\n', 'The **parser** ', 'drops the last token.\n', '- fix `lexer.ts`\n', 'That is all.'], chunkDelayMs: 400 },
    ]);
    await session.submit('what is wrong?');
    const partial = await session.waitForText('The parser');
    expect(partial).not.toContain('That is all.');
    expect(partial).toContain('Working…');
    const done = await session.waitForText('That is all.');
    expect(done).toContain('› what is wrong?');
    expect(done).toMatch(/^Findings$/m);
    expect(done).toContain('• fix lexer.ts');
    expect(done).not.toContain('**');
    await session.waitFor((screen) => !screen.includes('Working…'), 'the turn to end');
  });

  test('/help lists the commands with descriptions', async () => {
    const { session } = await startBeans([{ text: 'unused' }]);
    await session.submit('/help');
    const screen = await session.waitFor((text) => /^Keys$/m.test(text) && text.includes('Ctrl+C twice, Ctrl+D'), 'the keys at the end');
    for (const name of ['help', 'profile', 'sop', 'clear', 'exit', 'model', 'agents', 'skills', 'tools', 'cost', 'resume', 'compact', 'todos']) {
      expect(screen).toMatch(new RegExp(`^\\s+/${name}\\b.*\\S`, 'm'));
    }
    expect(screen).toMatch(/^\s+Ctrl\+_\s+undo$/m);
  });

  test('a write asks first and lands after y', async () => {
    const { session, workspace, server } = await startBeans([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes/hello.txt', content: 'Hello from beans\n' } }] },
      { text: 'I wrote notes/hello.txt.' },
    ]);
    await session.submit('write a greeting');
    // The diff follows the question as soon as the preview is ready.
    const prompt = await session.waitFor(
      (screen) => screen.includes('Allow write_file notes/hello.txt?') && /1 \+ Hello from beans/.test(screen),
      'the question with its diff',
    );
    expect(prompt).toMatch(/1 \+ Hello from beans/);
    expect(existsSync(path.join(workspace.dir, 'notes/hello.txt'))).toBe(false);
    // A person reads the question and answers with one key, as in Claude Code.
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.type('y');
    const screen = await session.waitForText('I wrote notes/hello.txt.');
    expect(screen).toContain('✓ write_file notes/hello.txt');
    expect(readFileSync(path.join(workspace.dir, 'notes/hello.txt'), 'utf8')).toBe('Hello from beans\n');
    expect(chats(server)).toHaveLength(2);
  });

  test('keys typed ahead never answer the prompt: "that\\n" does not approve always (finding 15)', async () => {
    const { session, workspace } = await startBeans([
      { text: ['Let me ', 'clean up.'], chunkDelayMs: 300, toolCalls: [{ name: 'shell', args: { command: 'rm -rf build && echo cleaned' } }] },
      { text: 'done' },
    ]);
    await session.submit('clean the build folder');
    // The user keeps typing ("that ...") while the question appears; the a and the Enter land in it.
    // Bounded by time, not keys: on a loaded machine each tmux call takes longer.
    for (const until = Date.now() + 20_000; Date.now() < until && !session.visible().includes('Allow shell');) {
      session.type('th');
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    session.type('a');
    session.press('Enter');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // "a" and Enter came within a moment of the question appearing: nothing was approved.
    expect(session.visible()).toContain('Allow shell');
    expect(existsSync(path.join(workspace.dir, 'cleaned'))).toBe(false);
    session.press('Escape');
    await session.waitFor((screen) => !screen.includes('Allow shell') || screen.includes('stopped'), 'the question to close');
    expect(existsSync(path.join(workspace.dir, 'cleaned'))).toBe(false);
  });

  test('a write is denied after n, and the reason reaches the model in the next request', async () => {
    const { session, workspace, server } = await startBeans([
      { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'x' } }] },
      { text: 'Understood, I will not write it.' },
    ]);
    await session.submit('write it');
    await session.waitForText('Allow write_file hello.txt?');
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.type('n');
    await session.waitForText('Tell the model why');
    await session.submit('put it under docs instead');
    const screen = await session.waitForText('Understood, I will not write it.');
    expect(screen).toContain('⊘ write_file hello.txt · denied');
    expect(existsSync(path.join(workspace.dir, 'hello.txt'))).toBe(false);
    const next = chats(server)[1]!.body as { messages: { role: string; content: string }[] };
    const toolMessage = next.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('put it under docs instead');
  });

  test('Esc stops a slow stream and the prompt comes back', async () => {
    const chunks = Array.from({ length: 30 }, (_, index) => `chunk${index} `);
    const { session } = await startBeans([{ text: chunks, chunkDelayMs: 300 }, { text: 'second answer' }]);
    await session.submit('tell me a long story');
    await session.waitForText('chunk1');
    session.press('Escape');
    const screen = await session.waitForText('Interrupted by the user.');
    expect(screen).not.toContain('chunk29');
    await session.waitFor((current) => current.includes('Ask anything') && !current.includes('Working…'), 'the prompt to come back');
    await session.submit('are you there?');
    await session.waitForText('second answer');
  });

  test('/exit ends the program and prints how to resume', async () => {
    const { session } = await startBeans([{ text: 'hi there' }]);
    await session.submit('hello');
    await session.waitForText('hi there');
    await session.submit('/exit');
    const screen = await session.waitForText('[beans exited with 0]');
    const id = /Resume it with: beans --resume (\S+)/.exec(screen)?.[1];
    expect(id).toBeTruthy();
    expect(screen).toContain(`Session ${id} saved.`);
    // The live area (input box, status) is gone; the transcript stays.
    expect(screen).not.toContain('Ask anything');
  });

  test('CI=true in the environment does not take the input box away', async () => {
    const { session } = await startBeans([{ text: 'still interactive' }], { CI: 'true' });
    await session.submit('hello');
    // The answer is drawn a frame before the turn ends and the input's placeholder comes back.
    const screen = await session.waitFor((current) => current.includes('still interactive') && !current.includes('Working…'), 'the end of the turn');
    expect(screen).toContain('Ask anything');
  });

  test('Ctrl+C twice exits with 130', async () => {
    const { session } = await startBeans([{ text: 'hi' }]);
    session.press('C-c');
    await session.waitForText('Press Ctrl+C again to exit');
    session.press('C-c');
    await session.waitForText('[beans exited with 130]');
  });
});
