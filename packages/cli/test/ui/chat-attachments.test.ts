import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { makePng } from '../../../../test/support/media.ts';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

const userText = (request: { messages: { role: string; content: unknown }[] }) =>
  String(request.messages.filter((message) => message.role === 'user').at(-1)?.content);

describe('@file', () => {
  test("attaches the file's content for the model and shows one line in the transcript", async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['seen'] }] });
    mkdirSync(path.join(fake.root, 'src'));
    writeFileSync(path.join(fake.root, 'src', 'app.ts'), 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n');
    await chat.submit('explain @src/app.ts please');
    const frame = await chat.waitForText('seen');
    expect(frame).toContain('› explain @src/app.ts please');
    expect(frame).toContain('⎿ attached src/app.ts · 3 lines');
    expect(frame).not.toContain('export const b');
    const sent = userText(fake.requests[0]!);
    expect(sent).toContain('explain @src/app.ts please');
    expect(sent).toContain('Contents of src/app.ts:\n```\nexport const a = 1;\nexport const b = 2;\nexport const c = 3;\n```');
  });

  test('a picture rides along as an image part; the transcript shows its label line', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['a gradient'] }] });
    const png = makePng(40, 30);
    writeFileSync(path.join(fake.root, 'shot.png'), png);
    await chat.submit('what is in @shot.png?');
    const frame = await chat.waitForText('a gradient');
    expect(frame).toContain('› what is in @shot.png?');
    expect(frame).toMatch(/⎿ \[image: shot\.png 40×30, [\d.]+ KB\]/);
    const content = fake.requests[0]!.messages.filter((message) => message.role === 'user').at(-1)!.content;
    expect(content).toContainEqual({ type: 'image', mimeType: 'image/png', data: png.toString('base64') });
  });

  test('a pasted (or dropped) picture path attaches the picture, from outside the workspace too', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['two pictures'] }] });
    const dir = mkdtempSync(path.join(tmpdir(), 'beans-paste-'));
    const png = makePng(20, 10);
    writeFileSync(path.join(dir, 'Screen Shot 1.png'), png);
    writeFileSync(path.join(dir, 'other.png'), makePng(30, 10));
    await chat.type('compare ');
    await chat.press(`${KEY.pasteStart}'${dir}/Screen Shot 1.png'${KEY.pasteEnd}`);
    await chat.type(' with ');
    await chat.press(`${KEY.pasteStart}file://${dir}/other.png${KEY.pasteEnd}`);
    await chat.press(KEY.enter);
    const frame = await chat.waitForText('two pictures');
    expect(frame).toContain(`⎿ [image: ${dir}/Screen Shot 1.png 20×10`);
    expect(frame).toContain(`⎿ [image: ${dir}/other.png 30×10`);
    const content = fake.requests[0]!.messages.filter((message) => message.role === 'user').at(-1)!.content as { type: string; data?: string }[];
    expect(content.filter((part) => part.type === 'image').map((part) => part.data)).toEqual([png.toString('base64'), makePng(30, 10).toString('base64')]);
  });

  test('a damaged picture is an error in the transcript and nothing is sent', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['never'] }] });
    writeFileSync(path.join(fake.root, 'cut.png'), makePng(40, 30).subarray(0, 60));
    await chat.submit('what is in @cut.png?');
    const frame = await chat.waitForText('nothing was sent');
    expect(frame).toContain('@cut.png: cut.png is a damaged or cut-off PNG picture; nothing was sent.');
    expect(fake.requests).toHaveLength(0);
  });

  test('a file outside the workspace (or missing) is not attached: the words stay text', async () => {
    const outside = path.join(tmpdir(), `beans-outside-${process.pid}.txt`);
    writeFileSync(outside, 'SECRET\n');
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['seen'] }] });
    symlinkSync(outside, path.join(fake.root, 'link.txt'));
    await chat.submit(`read @link.txt and @${outside} and @missing.md`);
    const frame = await chat.waitForText('seen');
    expect(frame).not.toContain('attached');
    expect(userText(fake.requests[0]!)).not.toContain('SECRET');
  });
});

describe('large pastes', () => {
  test('a 30-line paste shows as [Pasted text · 30 lines]; the model gets every line', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['got it'] }] });
    const pasted = Array.from({ length: 30 }, (_, i) => `log line ${i + 1}`).join('\n');
    await chat.type('what is wrong here? ');
    await chat.press(KEY.pasteStart + pasted + KEY.pasteEnd);
    await chat.press(KEY.enter);
    const frame = await chat.waitForText('got it');
    expect(frame).toContain('› what is wrong here? [Pasted text · 30 lines]');
    expect(frame).not.toContain('log line 2\n');
    expect(userText(fake.requests[0]!)).toBe(`what is wrong here? ${pasted}`);
  });

  test('a short paste shows as typed', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['got it'] }] });
    await chat.press(`${KEY.pasteStart}one\ntwo${KEY.pasteEnd}`);
    await chat.press(KEY.enter);
    const frame = await chat.waitForText('got it');
    expect(frame).toContain('› one\n› two');
  });
});

describe('Ctrl+V', () => {
  /** A folder with an executable `xclip` that prints `output` (a stand-in for X11's clipboard). */
  function fakeXclip(output: Buffer): NodeJS.ProcessEnv {
    const bin = mkdtempSync(path.join(tmpdir(), 'beans-xclip-'));
    writeFileSync(path.join(bin, 'clip.bin'), output);
    writeFileSync(path.join(bin, 'xclip'), `#!/bin/sh\ncat '${path.join(bin, 'clip.bin')}'\n`, { mode: 0o755 });
    return { PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ':99' };
  }

  test('pastes the clipboard picture as its saved file, which attaches when the prompt is sent', async () => {
    const png = makePng(16, 9);
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['a small picture'] }], clipboardEnv: fakeXclip(png) });
    await chat.type('what is this ');
    await chat.press('\x16');
    await chat.waitForText('clipboard-');
    await chat.press(KEY.enter);
    const frame = await chat.waitForText('a small picture');
    // The line wraps where the temporary folder's path is long: compare it as one line.
    expect(frame.replace(/\s+/g, ' ')).toMatch(/⎿ \[image: \/\S*clipboard-\d+\.png 16×9/);
    const content = fake.requests[0]!.messages.filter((message) => message.role === 'user').at(-1)!.content as { type: string; data?: string }[];
    expect(content.find((part) => part.type === 'image')?.data).toBe(png.toString('base64'));
  });

  test('says so when the clipboard holds no picture, or nothing can read it', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['x'] }], clipboardEnv: fakeXclip(Buffer.from('just words')) });
    await chat.press('\x16');
    expect(await chat.waitForText('There is no picture on the clipboard.')).toContain('There is no picture on the clipboard.');
    const none = startFakeChat({ turns: [{ chunks: ['x'] }], clipboardEnv: { PATH: '/nonexistent', DISPLAY: ':99' } });
    await none.chat.press('\x16');
    await none.chat.waitForText('Reading a picture from the clipboard needs xclip');
  });
});
