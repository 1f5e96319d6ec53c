import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createWebFetchTool } from '@beans/core';
import { afterEach, describe, expect, test } from 'vitest';
import { openInEditor } from '../../src/open-editor.js';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { KEY, closeChats, startChat } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(options: Partial<FakeHostOptions> = {}) {
  const fake = createFakeHost({ turns: [{ chunks: ['answer'] }], ...options });
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host) };
}

describe('# notes', () => {
  test('a line starting with # asks where to save it; project memory appends to AGENTS.md, nothing goes to the model', async () => {
    const { chat, fake } = setup();
    await chat.submit('# Always run pnpm test before committing');
    const picker = await chat.waitForText('Save this note to');
    expect(picker).toMatch(/› Project memory\s+AGENTS\.md in this repository/);
    expect(picker).toContain('User memory');
    await chat.press(KEY.enter);
    await chat.waitForText(`Noted in ${path.join(fake.root, 'AGENTS.md')}.`);
    expect(readFileSync(path.join(fake.root, 'AGENTS.md'), 'utf8')).toBe('- Always run pnpm test before committing\n');
    expect(fake.requests).toHaveLength(0);
  });

  test('the user memory choice writes the user AGENTS.md; Esc saves nothing', async () => {
    const { chat, fake } = setup();
    await chat.submit('#I like terse answers');
    await chat.waitForText('Save this note to');
    await chat.press(KEY.down, KEY.enter);
    await chat.waitForText('Noted in');
    expect(readFileSync(path.join(fake.root, '.user-config', 'AGENTS.md'), 'utf8')).toBe('- I like terse answers\n');
    await chat.submit('# never mind');
    await chat.waitForText('Save this note to');
    await chat.press(KEY.escape);
    await chat.waitFor((frame) => !frame.includes('Save this note to'));
    expect(existsSync(path.join(fake.root, 'AGENTS.md'))).toBe(false);
  });

  test('#123 (an issue number) is a message for the model, not a note', async () => {
    const { chat, fake } = setup();
    await chat.submit('#123 fails on Windows, please fix it');
    await chat.waitForText('answer');
    expect(fake.requests[0]!.messages[0]).toEqual({ role: 'user', content: '#123 fails on Windows, please fix it' });
  });

  test('a multi-line message starting with # (pasted Markdown) goes to the model as usual', async () => {
    const { chat, fake } = setup();
    await chat.type(`${KEY.pasteStart}# Title\nsome text${KEY.pasteEnd}`);
    await chat.press(KEY.enter);
    await chat.waitForText('answer');
    expect(fake.requests[0]!.messages[0]).toEqual({ role: 'user', content: '# Title\nsome text' });
  });
});

describe('/memory and /init', () => {
  test('/memory lists the memory files and opens the chosen one in the editor', async () => {
    const { chat, fake } = setup();
    writeFileSync(path.join(fake.root, 'AGENTS.md'), '# Rules\n');
    await chat.submit('/memory');
    const frame = await chat.waitForText('Open a memory file in your editor');
    expect(frame).toContain('Memory files');
    // Joined where a long temp path wraps the row (its length depends on the machine's TMPDIR).
    expect(frame.replace(/\n\s+/g, ' ')).toMatch(/Agent memory \(\.beans\/memory\.md\)\s+.*\(not created yet\)/);
    await chat.press(KEY.down, KEY.enter);
    await chat.waitForText(`Edited ${path.join(fake.root, '.beans', 'memory.md')}.`);
    expect(fake.calls).toContain(`edit:${path.join(fake.root, '.beans', 'memory.md')}`);
  });

  test('/init has the agent write AGENTS.md: the model receives the init prompt, shown as /init', async () => {
    const { chat, fake } = setup({
      turns: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'AGENTS.md', content: '# AGENTS.md\n' } }] }, { chunks: ['Wrote AGENTS.md.'] }],
    });
    await chat.submit('/init the test setup');
    await chat.waitForText('write_file');
    await chat.answer('y');
    await chat.waitForText('Wrote AGENTS.md.');
    const prompt = fake.requests[0]!.messages[0]!.content as string;
    expect(prompt).toContain('Write an AGENTS.md file at the root of this repository');
    expect(prompt).toContain('Pay particular attention to: the test setup');
    expect(chat.frame()).toContain('› /init the test setup');
    expect(chat.frame()).not.toContain('› Write an AGENTS.md');
    expect(readFileSync(path.join(fake.root, 'AGENTS.md'), 'utf8')).toBe('# AGENTS.md\n');
  });

  test('/help lists /memory and /init', async () => {
    const { chat } = setup();
    await chat.submit('/help');
    const frame = await chat.waitForText('Plugin commands');
    expect(frame).toMatch(/\/memory\s+show the memory files/);
    expect(frame).toMatch(/\/init \[focus\]\s+have the agent write AGENTS\.md/);
  });
});

describe('the external editor', () => {
  test('runs $EDITOR through sh on the file and waits for it', () => {
    const { root, cleanup } = createFakeHost({ turns: [] });
    cleanups.push(cleanup);
    const script = path.join(root, 'fake-editor.sh');
    writeFileSync(script, '#!/bin/sh\necho "edited by $0" >> "$1"\n');
    chmodSync(script, 0o755);
    const file = path.join(root, 'sub', 'notes.md');
    const line = openInEditor(file, { PATH: process.env.PATH, EDITOR: script }, process.stdin);
    expect(line).toContain(`Edited ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(`edited by ${script}\n`);
    expect(openInEditor(file, { PATH: process.env.PATH, EDITOR: 'false' }, process.stdin)).toContain('exited with status 1');
    expect(openInEditor(file, { PATH: process.env.PATH, EDITOR: 'no-such-editor-here' }, process.stdin)).toContain(
      '"no-such-editor-here" was not found. Set $EDITOR',
    );
  });
});

describe('web_fetch in chat', () => {
  test('asks before a new domain; "always" covers that domain for the rest of the session', async () => {
    const server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { chat, fake } = setup({
      extraTools: [createWebFetchTool({ allowPrivateNetwork: true })],
      turns: [
        { toolCalls: [{ name: 'web_fetch', arguments: { url: `${base}/one` } }] },
        { toolCalls: [{ name: 'web_fetch', arguments: { url: `${base}/two` } }] },
        { chunks: ['read both'] },
      ],
    });
    await chat.submit('read the docs');
    const prompt = await chat.waitForText('Allow web_fetch');
    expect(prompt).toContain(`${base}/one`);
    await chat.answer('a');
    await chat.waitForText('read both');
    expect(chat.frame().match(/Allow web_fetch/g) ?? []).toHaveLength(0);
    const results = fake.requests[2]!.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results.join('\n')).toContain('page /one');
    expect(results.join('\n')).toContain('page /two');
  });
});
