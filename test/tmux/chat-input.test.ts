import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';
import { BEANS_BIN, TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';

// Issue #44 (the chat input): Ctrl+R history search, Ctrl+G editor, Ctrl+Z, vim mode, as a person types them.

afterEach(closeOpen);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startBeans(turns: ScriptTurn[], reuse?: { server: ScriptedServer; workspace: TempRepo }, env: Record<string, string> = {}) {
  const server = reuse?.server ?? (await startScriptedOllama({ turns }));
  const workspace = reuse?.workspace ?? makeTempRepo({ 'README.md': '# demo\n' });
  const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', ...env } });
  open.push(reuse ? { session } : { session, server, workspace });
  await session.waitForText('Ask anything');
  return { server, workspace, session };
}

type ChatBody = { messages: { role: string; content: string }[] };
const userPrompts = (server: ScriptedServer) =>
  server.requests
    .filter((request) => request.kind === 'chat')
    .map((request) => (request.body as ChatBody).messages.filter((m) => m.role === 'user').at(-1)?.content);

/** The input row: the line with the prompt sign above the status line. */
const inputLine = (screen: string) => screen.split('\n').findLast((row) => row.startsWith('› ')) ?? '';

describe.skipIf(!hasTmux)('the chat input of issue #44 (tmux)', () => {
  test('Ctrl+R in a new session finds a prompt from an earlier one; Enter puts it in the input', async () => {
    const first = await startBeans([{ text: 'Noted that.' }]);
    await first.session.submit('rename the helper in src/parse-config.ts');
    await first.session.waitForText('Noted that.');
    await first.session.submit('and run the tests');
    await first.session.waitFor((screen) => screen.split('Noted that.').length > 2, 'the second answer');
    first.session.press('C-d');
    await first.session.waitForText('[beans exited with 0]');

    const { session, server } = await startBeans([], first);
    session.press('C-r');
    await session.waitForText('search prompts:');
    session.type('prsconf');
    const found = await session.waitForText('prsconf   1 prompt');
    expect(found).toContain('› rename the helper in src/parse-config.ts');
    await pause(100);
    session.press('Enter');
    await session.waitFor(
      (screen) => !screen.includes('search prompts:') && inputLine(screen).includes('rename the helper in src/parse-config.ts'),
      'the prompt in the input',
    );
    const before = userPrompts(server).length;
    await pause(100);
    session.press('Enter');
    await session.waitFor(() => userPrompts(server).length > before, 'the prompt sent');
    expect(userPrompts(server).at(-1)).toContain('rename the helper in src/parse-config.ts');

    // Esc leaves the search and keeps what was typed.
    await session.waitForText('Ask anything');
    session.type('a draft');
    session.press('C-r');
    await session.waitForText('search prompts:');
    session.press('Escape');
    await session.waitFor((screen) => !screen.includes('search prompts:'), 'the search to close');
    expect(inputLine(session.visible())).toContain('a draft');
  });

  test('Ctrl+G hands the draft to $EDITOR and takes back what it wrote; the screen comes back as it was', async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const editor = path.join(workspace.home, 'rewrite-draft.sh');
    // Draws on the screen like a real editor, then rewrites the file from what it was given.
    writeFileSync(
      editor,
      '#!/bin/sh\necho "EDITOR WAS HERE with $1"\nsleep 0.3\nprintf \'EDITED: %s\\nsecond line from the editor\\n\' "$(cat "$1")" > "$1"\n',
    );
    chmodSync(editor, 0o755);
    const server = await startScriptedOllama({ turns: [{ text: 'Got both lines.' }] });
    open.push({ server, workspace });
    const { session } = await startBeans([], { server, workspace }, { EDITOR: editor });
    session.type('my draft');
    await session.waitFor((screen) => inputLine(screen).includes('my draft'), 'the draft');
    session.press('C-g');
    await session.waitForText('EDITOR WAS HERE with /');
    await session.waitFor((screen) => screen.includes('second line from the editor'), 'the edited draft', 5000);
    const screen = session.visible();
    expect(screen).not.toContain('EDITOR WAS HERE');
    expect(screen).toMatch(/^beans · /);
    expect(screen).toContain('› EDITED: my draft\n  second line from the editor');
    expect(screen.match(/Ask anything|EDITED: my draft/g)).toEqual(['EDITED: my draft']);
    await pause(100);
    session.press('Enter');
    await session.waitForText('Got both lines.');
    expect(userPrompts(server).at(-1)).toBe('EDITED: my draft\nsecond line from the editor');
  });

  test('Ctrl+G with an editor that fails keeps the draft and says why', async () => {
    const { session } = await startBeans([{ text: 'unused' }], undefined, { EDITOR: 'false' });
    session.type('keep me');
    await session.waitFor((screen) => inputLine(screen).includes('keep me'), 'the draft');
    session.press('C-g');
    await session.waitForText('The editor (false) exited with status 1. The draft is unchanged.');
    expect(inputLine(session.visible())).toContain('keep me');
  });

  test('Ctrl+Z suspends the chat to the shell and fg brings it back with the draft', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'First answer here.' }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    // An interactive bash with job control, as in a person's terminal.
    const session = TmuxSession.start({
      workspace,
      env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', PS1: 'shell$ ' },
      program: ['bash', '--norc', '-i'],
      args: [],
    });
    open.push({ session, server, workspace });
    await session.waitForText('shell$');
    await session.submit(`${BEANS_BIN} chat`);
    await session.waitForText('Ask anything');
    await session.submit('say something');
    await session.waitForText('First answer here.');
    session.type('a draft to keep');
    await session.waitFor((screen) => inputLine(screen).includes('a draft to keep'), 'the draft');
    session.press('C-z');
    const suspended = await session.waitFor((screen) => /Stopped.*beans chat/.test(screen) && screen.trimEnd().endsWith('shell$'), 'the shell after Ctrl+Z');
    expect(suspended).toContain('Beans is suspended: run `fg` to bring it back.');
    // The live area went before the shell wrote: no input box left above its prompt.
    expect(suspended).not.toContain('a draft to keep');
    await session.submit('fg');
    const back = await session.waitFor((screen) => inputLine(screen).includes('a draft to keep') && screen.includes('First answer here.'), 'the chat after fg');
    expect(back).not.toContain('Stopped');
    // Keys reach the chat again (raw mode back): the draft is sent on Enter.
    session.type(' now');
    await pause(100);
    session.press('Enter');
    await session.waitFor(() => userPrompts(server).at(-1) === 'a draft to keep now', 'the draft sent');
  });

  test('/vim turns on vim mode (saved as editorMode): normal/insert in the footer, motions, cw, dd, u', async () => {
    const first = await startBeans([{ text: 'Edited prompt received.' }]);
    const { session, server, workspace } = first;
    const statusRow = () => session.visible().split('\n').at(-1) ?? '';
    await session.submit('/vim');
    await session.waitForText('Vim mode on');
    await session.waitFor(() => statusRow().startsWith('-- INSERT --'), 'the insert mode in the footer');
    const settings = JSON.parse(readFileSync(path.join(workspace.home, '.config', 'beans-agent', 'settings.json'), 'utf8')) as { editorMode?: string };
    expect(settings.editorMode).toBe('vim');

    session.type('fix the parser bug');
    await session.waitFor((screen) => inputLine(screen).includes('fix the parser bug'), 'the typed text');
    session.press('Escape');
    await session.waitFor(() => statusRow().startsWith('-- NORMAL --'), 'normal mode in the footer');
    // 0, w: onto "the"; cw changes it; Esc back to normal mode.
    session.type('0w');
    session.type('cw');
    await session.waitFor(() => statusRow().startsWith('-- INSERT --'), 'insert mode after cw');
    session.type('an old');
    await session.waitFor((screen) => inputLine(screen).includes('fix an old parser bug'), 'cw applied');
    session.press('Escape');
    await session.waitFor(() => statusRow().startsWith('-- NORMAL --'), 'normal mode again');
    // x deletes a character, u undoes it; dd empties the line, u brings it back.
    session.type('$x');
    await session.waitFor((screen) => inputLine(screen).includes('fix an old parser bu') && !inputLine(screen).includes('bug'), 'x applied');
    session.type('u');
    await session.waitFor((screen) => inputLine(screen).includes('fix an old parser bug'), 'x undone');
    session.type('dd');
    await session.waitFor((screen) => !inputLine(screen).includes('parser'), 'dd applied');
    session.type('u');
    await session.waitFor((screen) => inputLine(screen).includes('fix an old parser bug'), 'dd undone');
    await pause(100);
    session.press('Enter');
    await session.waitForText('Edited prompt received.');
    expect(userPrompts(server).at(-1)).toBe('fix an old parser bug');

    // The setting holds in the next session; /vim again turns it off.
    session.press('C-d');
    await session.waitForText('[beans exited with 0]');
    const next = await startBeans([], first);
    const nextStatus = () => next.session.visible().split('\n').at(-1) ?? '';
    await next.session.waitFor(() => nextStatus().startsWith('-- INSERT --'), 'vim mode in the new session');
    await next.session.submit('/vim');
    await next.session.waitForText('Vim mode off');
    await next.session.waitFor(() => !nextStatus().includes('-- INSERT --'), 'the footer without the mode');
  });
});
