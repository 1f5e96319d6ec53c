// One way in (issue 52), the chat's side: `@notes.txt` typed at the prompt reaches the model with the
// file's content, through the same submit path as -p, query(), the SDK and ACP (test/e2e/submit-front-ends.test.ts).
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

describe.skipIf(!hasTmux)('@file in the chat (tmux)', () => {
  test('the typed words show, the model reads the file after them', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'They say beans are great.' }] });
    const workspace = makeTempRepo({ 'notes.txt': 'the-notes-marker-7f3a: beans are great\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('@notes.txt summarize');
    const screen = await session.waitForText('They say beans are great.');
    expect(screen).toContain('› @notes.txt summarize');
    expect(screen).toContain('attached notes.txt');
    const chat = server.requests.find((request) => request.kind === 'chat')!;
    const users = (chat.body as { messages: { role: string; content: string }[] }).messages.filter((message) => message.role === 'user');
    expect(users.at(-1)!.content).toContain('the-notes-marker-7f3a: beans are great');
  });
});
