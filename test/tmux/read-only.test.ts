import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

// Issue #31: in chat, a read-only command runs with no question and shows like any tool call;
// a command that changes something still asks.
describe.skipIf(!hasTmux)('read-only commands in the chat (tmux)', () => {
  test('git status runs without a question; git push still asks', async () => {
    const server = await startScriptedOllama({
      turns: [
        { toolCalls: [{ name: 'shell', args: { command: 'git status --short' } }] },
        { toolCalls: [{ name: 'shell', args: { command: 'git push origin main' } }] },
        { text: 'All checked.' },
      ],
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('check the repo, then push');
    const question = await session.waitForText('Allow shell');
    expect(question).toContain('git push origin main');
    expect(question).toMatch(/✓ shell git status --short/);
    expect(question).toContain('?? README.md');
    expect(question).not.toMatch(/Allow shell git status/);
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.type('n');
    await session.waitForText('Tell the model why');
    await session.submit('not now');
    const screen = await session.waitForText('All checked.');
    expect(screen).toContain('⊘ shell git push origin main · denied');
  });
});
