import { afterEach, describe, expect, test } from 'vitest';
import { closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

type Sent = { messages: { role: string; content: unknown }[]; tools?: unknown[]; system?: string };

describe('/btw: a side question (Claude Code 2.1.72)', () => {
  test('is answered from the conversation and kept out of it: the next prompt does not carry it', async () => {
    const { chat, fake } = startFakeChat({
      turns: [{ chunks: ['The parser lives in src/parse.ts.'] }, { chunks: ['Because of the old lexer.'] }, { chunks: ['Next answer.'] }],
    });
    await chat.submit('where is the parser?');
    await chat.waitForText('The parser lives in src/parse.ts.');
    const kept = fake.host.session.messages.length;
    await chat.submit('/btw why was it split?');
    const shown = await chat.waitForText('Because of the old lexer.');
    expect(shown).toMatch(/btw · why was it split\?/);
    expect(shown).toContain('not kept in the conversation');
    const side = fake.requests[1] as unknown as Sent;
    // The request the loop would send, with the question last.
    expect(side.system).toBe((fake.requests[0] as unknown as Sent).system);
    expect(side.tools).toEqual((fake.requests[0] as unknown as Sent).tools);
    expect(side.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(String(side.messages.at(-1)!.content)).toMatch(/side question[\s\S]*why was it split\?$/);
    expect(fake.host.session.messages).toHaveLength(kept);
    await chat.submit('go on');
    await chat.waitForText('Next answer.');
    const next = fake.requests[2] as unknown as Sent;
    expect(JSON.stringify(next.messages)).not.toContain('why was it split');
  });

  test('runs while the agent works, without the step in flight, and the turn goes on', async () => {
    const { chat, fake } = startFakeChat({
      turns: [{ chunks: ['working ', 'on ', 'it'], chunkDelayMs: 400 }, { chunks: ['An aside.'] }],
    });
    await chat.submit('a long task');
    await chat.waitForText('Working…');
    await chat.submit('/btw quick one?');
    await chat.waitForText('An aside.');
    await chat.waitForText('working on it');
    expect(fake.host.session.messages.some((message) => message.role === 'user' && String(message.content).includes('quick one'))).toBe(false);
  });

  test('without a question it says how to ask', async () => {
    const { chat } = startFakeChat({ turns: [] });
    await chat.submit('/btw');
    await chat.waitForText('/btw <question>');
  });
});
