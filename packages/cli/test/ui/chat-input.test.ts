import { afterEach, describe, expect, test, vi } from 'vitest';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { KEY, closeChats, startChat } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(options: Partial<FakeHostOptions> = {}, size?: { columns?: number; rows?: number }) {
  const fake = createFakeHost({ turns: [{ chunks: ['answer'] }], ...options });
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host, size) };
}

/** The rows of the input box: from the prompt sign down to the status line. */
function inputRows(frame: string): string[] {
  const rows = frame.split('\n');
  const start = rows.findLastIndex((row) => row.startsWith('─'));
  return rows.slice(start + 1, -1).map((row) => row.trimEnd());
}

describe('the input box', () => {
  test('edits at the cursor: arrows, Home/End, Backspace', async () => {
    const { chat, fake } = setup();
    await chat.typeKeys('helo wrld');
    await chat.press(KEY.left, KEY.left, KEY.left);
    await chat.type('o');
    await chat.press(KEY.ctrlA);
    await chat.type('>');
    await chat.press(KEY.ctrlE, KEY.backspace);
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.prompts).toEqual(['>helo worl']);
  });

  test('up and down walk through earlier prompts and give back the draft', async () => {
    const { chat, fake } = setup({ turns: [{ chunks: ['one'] }, { chunks: ['two'] }] });
    await chat.submit('first prompt');
    await chat.waitForText('Ask anything');
    await chat.submit('second prompt');
    await chat.waitFor((frame) => frame.includes('two') && frame.includes('Ask anything'));
    await chat.type('draft');
    await chat.press(KEY.up);
    expect(inputRows(chat.frame())[0]).toBe('› second prompt');
    await chat.press(KEY.up);
    expect(inputRows(chat.frame())[0]).toBe('› first prompt');
    await chat.press(KEY.down, KEY.down);
    expect(inputRows(chat.frame())[0]).toBe('› draft');
    expect(fake.prompts).toEqual(['first prompt', 'second prompt']);
  });

  test('a trailing backslash, Alt+Enter and Shift+Enter start a new line instead of sending', async () => {
    const { chat, fake } = setup();
    await chat.type('line one \\');
    await chat.press(KEY.enter);
    await chat.type('line two');
    await chat.press(KEY.altEnter);
    await chat.type('line three');
    await chat.press(KEY.shiftEnter);
    await chat.type('line four');
    expect(inputRows(chat.frame())).toEqual(['› line one', '  line two', '  line three', '  line four']);
    expect(fake.prompts).toEqual([]);
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.prompts).toEqual(['line one \nline two\nline three\nline four']);
  });

  test('a bracketed paste with newlines is inserted whole and does not send', async () => {
    const { chat, fake } = setup();
    await chat.type('look: ');
    await chat.type(`${KEY.pasteStart}def f():\r    return 1\r`);
    await chat.type(`\rprint(f())${KEY.pasteEnd}`);
    expect(fake.prompts).toEqual([]);
    expect(inputRows(chat.frame())).toEqual(['› look: def f():', '      return 1', '', '  print(f())']);
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.prompts).toEqual(['look: def f():\n    return 1\n\nprint(f())']);
  });

  test('a long paste arriving as one fast chunk (no bracketed paste) does not send mid-way', async () => {
    const { chat, fake } = setup();
    const text = Array.from({ length: 40 }, (_, index) => `row ${index}`).join('\r');
    await chat.type(text);
    expect(fake.prompts).toEqual([]);
    // The box scrolls instead of growing past the screen.
    const rows = inputRows(chat.frame());
    expect(rows.length).toBeLessThanOrEqual(10);
    expect(rows.at(-1)).toContain('more lines');
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.prompts[0]!.split('\n')).toHaveLength(40);
  });

  test('Ctrl+U clears to the start of the line; Ctrl+C clears the whole input', async () => {
    const { chat } = setup();
    await chat.type('some text');
    await chat.press(KEY.ctrlU);
    expect(inputRows(chat.frame())[0]).toContain('Ask anything');
    await chat.type('more text');
    await chat.press(KEY.ctrlC);
    const frame = chat.frame();
    expect(inputRows(frame).join('\n')).toContain('Ask anything');
    expect(frame).toContain('Press Ctrl+C again to exit');
  });
});

describe('completion', () => {
  test('/ lists commands with descriptions; typing filters; Tab completes', async () => {
    const { chat } = setup();
    await chat.type('/');
    let frame = chat.frame();
    expect(frame).toMatch(/› \/help\s+list every command/);
    expect(frame).toContain('/profile');
    await chat.type('re');
    frame = chat.frame();
    expect(frame).toMatch(/\/resume\s+pick a past session to continue/);
    expect(frame).toMatch(/\/review\s+review a pull request/);
    expect(frame).not.toMatch(/\/help\s+list every command/);
    // /rename, /resume, then /rewind, then the plugin's /review.
    expect(frame).toMatch(/\/rename\s+name this session/);
    await chat.press(KEY.down, KEY.down, KEY.down, KEY.tab);
    expect(inputRows(chat.frame())[0]).toBe('› /review');
  });

  test('Enter on a highlighted command runs it', async () => {
    const { chat } = setup();
    await chat.type('/hel');
    await chat.press(KEY.enter);
    const frame = await chat.waitForText('Plugin commands');
    expect(frame).toContain('› /help');
  });

  test('skills are offered too, marked as skills', async () => {
    const { chat } = setup();
    await chat.type('/deploy');
    expect(chat.frame()).toMatch(/\/deploy-checklist\s+the deploy checklist \(skill\)/);
  });

  test('@ completes workspace paths: arrows choose, Tab inserts, folders keep completing', async () => {
    const { chat, fake } = setup({ paths: ['src/', 'src/app.ts', 'src/util.ts', 'README.md'] });
    await chat.type('explain @src');
    const frame = await chat.waitForText('@src/util.ts');
    expect(frame).toContain('@src/app.ts');
    expect(frame).not.toContain('@README.md');
    await chat.press(KEY.down, KEY.down, KEY.tab);
    expect(inputRows(chat.frame())[0]).toBe('› explain @src/util.ts');
    await chat.type('and @READ');
    await chat.waitForText('@README.md');
    await chat.press(KEY.enter);
    expect(inputRows(chat.frame())[0]).toBe('› explain @src/util.ts and @README.md');
    // Enter accepted the completion; a second Enter sends.
    expect(fake.prompts).toEqual([]);
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.prompts).toEqual(['explain @src/util.ts and @README.md']);
  });

  test('Esc closes the menu without clearing the input', async () => {
    const { chat } = setup();
    await chat.type('/he');
    await chat.press(KEY.escape);
    expect(chat.frame()).not.toMatch(/› \/help\s+list every command/);
    expect(inputRows(chat.frame())[0]).toBe('› /he');
  });
});

describe('leaving', () => {
  test('/exit ends with code 0 and prints the session id and how to resume', async () => {
    const { chat, fake } = setup();
    await chat.submit('hello');
    await chat.waitForText('answer');
    await chat.submit('/exit');
    expect(await chat.done).toBe(0);
    const id = fake.host.session.id;
    expect(chat.output()).toContain(`Session ${id} saved.`);
    expect(chat.output()).toContain(`beans --resume ${id}`);
  });

  test('an empty session promises no resume', async () => {
    const { chat } = setup();
    await chat.submit('/exit');
    expect(await chat.done).toBe(0);
    expect(chat.output()).not.toContain('beans --resume');
  });

  test('/quit is the same as /exit', async () => {
    const { chat } = setup();
    await chat.submit('/quit');
    expect(await chat.done).toBe(0);
  });

  test('Ctrl+D on an empty prompt exits with 0', async () => {
    const { chat } = setup();
    await chat.press(KEY.ctrlD);
    expect(await chat.done).toBe(0);
  });

  test('Ctrl+C twice exits with 130, even in the middle of a turn', async () => {
    // The turn would take 6 s; stopped, it ends as soon as the abort unwinds it (a moment after the
    // chat has answered 130: under load that moment came after the exit code, so it is waited for).
    const { chat, fake } = setup({ turns: [{ chunks: ['a', 'b', 'c'], chunkDelayMs: 2_000 }] });
    await chat.submit('long');
    await chat.waitForText('Working…');
    await chat.press(KEY.ctrlC);
    await chat.waitForText('Press Ctrl+C again to exit');
    await chat.press(KEY.ctrlC);
    expect(await chat.done).toBe(130);
    await vi.waitFor(() => expect(fake.host.session.isRunning).toBe(false), { timeout: 1_500, interval: 20 });
  });

  test('Esc while the prompt is still being prepared stops the turn before it is sent; the prompt returns to the input', async () => {
    const { chat, fake } = setup({ prepareDelayMs: 400 });
    await chat.submit('slow to prepare');
    await chat.waitForText('Working…');
    await chat.submit('and then this');
    await chat.press(KEY.escape);
    // The queued message returns at once, the prompt ahead of it once its preparation ends.
    await chat.waitFor((frame) => /slow to prepare[\s\S]*and then this/.test(inputRows(frame).join('\n')), 'the prompts back in the input');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(fake.requests).toHaveLength(0);
    expect(fake.host.session.isRunning).toBe(false);
    expect(chat.frame()).not.toContain('Working…');
  });

  test('Ctrl+C twice while the prompt is still being prepared exits with 130 and sends nothing', async () => {
    const { chat, fake } = setup({ prepareDelayMs: 400 });
    await chat.submit('slow to prepare');
    await chat.waitForText('Working…');
    await chat.press(KEY.ctrlC);
    await chat.waitForText('Press Ctrl+C again to exit');
    await chat.press(KEY.ctrlC);
    expect(await chat.done).toBe(130);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(fake.requests).toHaveLength(0);
    expect(fake.host.session.isRunning).toBe(false);
  });

  test('the live area is gone after exit: the terminal keeps the transcript and the resume hint', async () => {
    const { chat } = setup();
    await chat.submit('hello');
    await chat.waitForText('answer');
    await chat.press(KEY.ctrlD);
    await chat.done;
    const last = chat.stdout.frames.filter((frame) => !frame.includes('Resume it with')).at(-1)!;
    expect(last).toContain('answer');
    expect(last).not.toContain('Ask anything');
  });
});
