import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

afterEach(closeOpen);

type ChatBody = { messages: { role: string; content: string }[] };

function script(request: RecordedRequest): ScriptTurn {
  const last = (request.body as ChatBody).messages.at(-1)!;
  if (last.role === 'tool') return { text: 'Done.' };
  if (last.content === 'make notes') return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'one\ntwo\n' } }] };
  if (last.content === 'change readme') return { toolCalls: [{ name: 'shell', args: { command: 'echo changed > README.md' } }] };
  return { text: `heard: ${last.content}` };
}

describe.skipIf(!hasTmux)('/rewind in a real terminal (tmux)', () => {
  test('Esc Esc lists the messages with their changes; code and conversation go back after a confirmed diff summary, and the message returns to the input box', async () => {
    const server = await startScriptedOllama({ turns: (request) => script(request) });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['chat', '--yolo'] });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('make notes');
    await session.waitFor((screen) => screen.includes('Done.') && !screen.includes('Working…'), 'the first turn');
    await session.submit('change readme');
    await session.waitFor((screen) => (screen.match(/Done\./g) ?? []).length >= 2 && !screen.includes('Working…'), 'the second turn');
    expect(readFileSync(path.join(workspace.dir, 'README.md'), 'utf8')).toBe('changed\n');

    // Two presses as a person makes them: sent in one write they can arrive as one escape sequence.
    session.press('Escape');
    await new Promise((resolve) => setTimeout(resolve, 100));
    session.press('Escape');
    const list = await session.waitForText('Rewind to before which message?');
    expect(list).toMatch(/make notes\s+1 file \+2 -0/);
    expect(list).toMatch(/change readme\s+1 file \+1 -1/);
    // The newest message is selected; go to the first.
    session.press('Up');
    session.press('Enter');
    await session.waitForText('Restore code and conversation');
    session.press('Enter');
    const summary = await session.waitForText('Rewind now?');
    expect(summary).toMatch(/delete\s+notes\.txt \+0 -2/);
    expect(summary).toMatch(/restore\s+README\.md \+1 -1/);
    expect(existsSync(path.join(workspace.dir, 'notes.txt'))).toBe(true); // nothing before the answer
    session.press('Enter');
    const after = await session.waitForText('Rewound the code (2 files) and the conversation');
    expect(after).toContain('› make notes'); // back in the input box
    expect(existsSync(path.join(workspace.dir, 'notes.txt'))).toBe(false);
    expect(readFileSync(path.join(workspace.dir, 'README.md'), 'utf8')).toBe('# demo\n');
  });
});
