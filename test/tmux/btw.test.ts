import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { makeTempRepo } from '../support/scratch.ts';
import type { RecordedRequest } from '../support/script.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

// Claude Code's /btw: a side question answered from the conversation, kept out of it, and served
// by the conversation's prompt cache (the request is the one the agent loop would send next).
describe.skipIf(!hasTmux)('/btw in a real terminal against Anthropic (tmux)', () => {
  test('the side request reads back what the conversation cached, and the next prompt does not carry it', async () => {
    const notes = Array.from({ length: 120 }, (_, line) => `line ${line}: the cache keeps the prefix of every request for five minutes`).join('\n');
    const server = await startScriptedAnthropic({
      promptCache: true,
      // The server keeps no state: the side question is told by its text, the rest by the turn.
      turns: (request, n) => {
        const asked = JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1));
        if (asked.includes('side question')) return { text: 'They are about prompt caching.' };
        if (asked.includes('go on')) return { text: 'Carrying on.' };
        return n === 0 ? { toolCalls: [{ name: 'read_file', args: { path: 'notes.md' } }] } : { text: 'Read the notes.' };
      },
    });
    const workspace = makeTempRepo({ 'notes.md': `${notes}\n` });
    const session = TmuxSession.start({
      workspace,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k', BEANS_PROVIDER: 'anthropic', BEANS_MODEL: 'claude-sonnet-5-5' },
    });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('read notes.md');
    await session.waitForText('Read the notes.');
    await session.submit('/btw what are the notes about?');
    const screen = await session.waitForText('They are about prompt caching.');
    expect(screen).toContain('btw · what are the notes about?');
    const chats = (): RecordedRequest[] => server.requests.filter((request) => request.kind === 'chat');
    expect(chats()).toHaveLength(3);
    const [, second, side] = chats();
    // Everything the second request left in the cache is read back by the side question.
    expect(side!.bill!.cacheRead).toBeGreaterThanOrEqual(second!.bill!.cacheRead + second!.bill!.cacheWrite);
    expect(side!.bill!.cacheRead).toBeGreaterThan(0);
    await session.submit('go on');
    await session.waitForText('Carrying on.');
    expect(JSON.stringify(chats()[3]!.body)).not.toContain('what are the notes about');
  });
});
