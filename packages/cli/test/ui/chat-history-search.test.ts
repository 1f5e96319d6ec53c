import { afterEach, describe, expect, test } from 'vitest';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

const CTRL_R = '\x12';

/** The rows of the input box: from the prompt sign down to the status line. */
function inputRows(frame: string): string[] {
  const rows = frame.split('\n');
  const start = rows.findLastIndex((row) => row.startsWith('─'));
  return rows.slice(start + 1, -1).map((row) => row.trimEnd());
}

describe('Ctrl+R: searching earlier prompts', () => {
  test('finds a stored prompt fuzzily; Enter puts it in the input without sending it', async () => {
    const { chat, fake } = startFakeChat({
      turns: [{ chunks: ['answer'] }],
      promptHistory: ['add a dark theme to settings', 'refactor the parser module', 'fix the flaky login test'],
    });
    await chat.type('half a draft');
    await chat.press(CTRL_R);
    await chat.waitForText('3 prompts');
    // Newest first with no query.
    expect(inputRows(chat.frame()).slice(0, 3)).toEqual(['› add a dark theme to settings', '  refactor the parser module', '  fix the flaky login test']);
    await chat.typeKeys('flky lgn');
    await chat.waitForText('flky lgn   1 prompt');
    expect(chat.frame()).toContain('› fix the flaky login test');
    await chat.press(KEY.enter);
    await chat.waitFor((frame) => inputRows(frame)[0] === '› fix the flaky login test', 'the prompt in the input');
    expect(fake.prompts).toEqual([]);
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.prompts).toEqual(['fix the flaky login test']);
  });

  test("this session's prompts come first; Ctrl+R again and arrows move; Esc leaves with the draft kept", async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['one'] }], promptHistory: ['an older prompt about tests'] });
    await chat.submit('a newer prompt about tests');
    await chat.waitForText('one');
    await chat.waitForText('Ask anything');
    await chat.type('my draft');
    await chat.press(CTRL_R);
    await chat.typeKeys('tests');
    await chat.waitForText('2 prompts');
    expect(inputRows(chat.frame()).slice(0, 2)).toEqual(['› a newer prompt about tests', '  an older prompt about tests']);
    await chat.press(CTRL_R);
    expect(inputRows(chat.frame()).slice(0, 2)).toEqual(['  a newer prompt about tests', '› an older prompt about tests']);
    await chat.press(KEY.up);
    expect(inputRows(chat.frame())[0]).toBe('› a newer prompt about tests');
    await chat.press(KEY.escape);
    await chat.waitFor((frame) => !frame.includes('search prompts:'), 'the search to close');
    expect(inputRows(chat.frame())[0]).toBe('› my draft');
    // Up still walks this session's history as before.
    await chat.press(KEY.ctrlU, KEY.up);
    expect(inputRows(chat.frame())[0]).toBe('› a newer prompt about tests');
  });

  test('says when nothing matches', async () => {
    const { chat } = startFakeChat({ turns: [], promptHistory: ['hello there'] });
    await chat.press(CTRL_R);
    await chat.typeKeys('zzz');
    await chat.waitForText('no earlier prompt matches');
  });
});
