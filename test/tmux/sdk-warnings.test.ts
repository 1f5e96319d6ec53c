import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { DEPRECATED_MODEL, DEPRECATION } from '../support/sdk-deprecation.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

// @anthropic-ai/sdk warns through console.warn on every request to a model near its end of life:
// the chat shows it above the live area once, not before each answer.
describe.skipIf(!hasTmux)('a provider SDK warning in the chat (tmux)', () => {
  test('shows once over two prompts and a tool call', async () => {
    const server = await startScriptedAnthropic({
      turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] }, { text: 'First answer.' }, { text: 'Second answer.' }],
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({
      workspace,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k', BEANS_PROVIDER: 'anthropic', BEANS_MODEL: DEPRECATED_MODEL },
    });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('read the readme');
    await session.waitForText('First answer.');
    await session.submit('and again');
    const screen = await session.waitForText('Second answer.');
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(3);
    expect(screen.split(DEPRECATION).length - 1, screen).toBe(1);
  });
});
