// Issue 41 in a real terminal: `@shot.png` in chat shows its attachment line and the request carries
// the picture; a picture's path pasted (as a terminal pastes a dropped file) attaches it too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { makePng } from '../support/media.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

const PNG = makePng(40, 30);
const VISION = [{ name: 'scripted:latest', capabilities: ['completion', 'tools', 'vision'], contextLength: 32768 }];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasTmux)('pictures in chat (tmux)', () => {
  test('@shot.png shows [image: shot.png 40×30, …] under the prompt and the request carries the picture; a pasted path attaches too', async () => {
    const server = await startScriptedOllama({ models: VISION, turns: [{ text: 'a gradient' }, { text: 'another gradient' }] });
    const workspace = makeTempRepo({ 'shot.png': PNG });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');

    await session.submit('what is in @shot.png?');
    const screen = await session.waitForText('a gradient');
    expect(screen).toContain('› what is in @shot.png?');
    expect(screen).toMatch(/⎿ \[image: shot\.png 40×30, [\d.]+ KB\]/);
    const chats = () =>
      server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as { messages: { role: string; images?: string[] }[] });
    expect(
      chats()[0]!
        .messages.filter((message) => message.role === 'user')
        .at(-1)!.images,
    ).toEqual([PNG.toString('base64')]);

    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'beans-drop-'));
    const dropped = makePng(24, 12);
    writeFileSync(path.join(elsewhere, 'Screen Shot.png'), dropped);
    session.type('and ');
    session.paste(`'${elsewhere}/Screen Shot.png'`);
    await sleep(200);
    session.press('Enter');
    const after = await session.waitForText('another gradient');
    expect(after).toContain('⎿ [image: ');
    expect(after).toContain('Screen Shot.png 24×12');
    expect(
      chats()[1]!
        .messages.filter((message) => message.role === 'user')
        .at(-1)!.images,
    ).toEqual([dropped.toString('base64')]);
  });
});
