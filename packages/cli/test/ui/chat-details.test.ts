import { afterEach, describe, expect, test } from 'vitest';
import { userMessage } from '@beans/core';
import { KEY, closeChats, startFakeChat, tick } from './harness.js';

afterEach(closeChats);

describe('smaller things', () => {
  test('an interrupted answer is marked as interrupted in what the model sees next', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['The parser ', 'first reads', ' every token'], chunkDelayMs: 300 }, { chunks: ['shorter'] }] });
    await chat.submit('explain');
    await chat.waitForText('The parser');
    await chat.press(KEY.escape);
    await chat.waitForText('Ask anything');
    await chat.submit('shorter please');
    await chat.waitForText('shorter');
    const sent = fake.requests[1]!.messages.map((message) => `${message.role}: ${String(message.content)}`);
    expect(sent).toContain('user: [The user interrupted the previous answer before it finished.]');
    expect(sent.at(-1)).toBe('user: shorter please');
  });

  test('a loaded skill is a notice, not a line the user typed', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.waitForText('Ask anything');
    fake.host.session.append(userMessage('Skill body', 'skill', 'loaded skill deploy-checklist'));
    const frame = await chat.waitForText('loaded skill deploy-checklist');
    expect(frame).toContain('◆ loaded skill deploy-checklist');
    expect(frame).not.toContain('› loaded skill');
  });

  test('"Waiting for your answer" counts from when the question appeared, not from the start of the turn', async () => {
    const { chat } = startFakeChat({
      turns: [
        {
          chunks: ['thinking ', 'a while ', 'before asking'],
          chunkDelayMs: 700,
          toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }],
        },
        { chunks: ['done'] },
      ],
    });
    await chat.submit('go');
    await chat.waitFor((frame) => /Working… [1-9]s/.test(frame), 'the turn to run a second or more', 6000);
    const asked = await chat.waitForText('Waiting for your answer', 6000);
    expect(asked).toMatch(/Waiting for your answer… 0s/);
    await tick(50);
    await chat.answer('n');
    await chat.press(KEY.enter);
  });

  test("the spinner's time counts the whole turn, across a retry", async () => {
    const { chat } = startFakeChat({ turns: [{ retry: { delayMs: 1600, status: 429 }, chunks: ['answered'] }] });
    await chat.submit('go');
    const retrying = await chat.waitFor((frame) => frame.includes('↻ retrying') && /Working… [1-9]s/.test(frame), 'a second into the retry', 4000);
    expect(retrying).toContain('attempt 1');
    await chat.waitForText('answered', 4000);
  });
});
