import { afterEach, describe, expect, test } from 'vitest';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { KEY, closeChats, startChat } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(options: FakeHostOptions, size?: { columns?: number; rows?: number }) {
  const fake = createFakeHost(options);
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host, size) };
}

describe('the transcript', () => {
  test('shows the header: profile and where it came from, provider, workspace', async () => {
    const { fake, chat } = setup({ turns: [{ chunks: ['ok'] }] });
    const frame = await chat.waitForText('beans');
    expect(frame).toContain('default (built-in default)');
    expect(frame).toContain('fake');
    expect(frame).toContain(fake.root);
  });

  test('a resumed session shows its history at start-up: prompts, answers, tool results, notes', async () => {
    const { chat } = setup({
      turns: [{ chunks: ['unused'] }],
      history: [
        { role: 'user', content: 'earlier question', origin: 'prompt', timestamp: 1 },
        { role: 'assistant', content: 'Let me **check**.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }], timestamp: 2 },
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'File not found: a.txt', isError: true, status: 'error', timestamp: 3 },
        { role: 'note', kind: 'interrupted', text: 'Interrupted by the user.', timestamp: 4 },
      ],
    });
    const frame = await chat.waitForText('Interrupted by the user.');
    expect(frame).toContain('› earlier question');
    expect(frame).toContain('Let me check.');
    expect(frame).toContain('✗ read_file a.txt · error');
    // Up recalls prompts from the stored session too.
    await chat.press(KEY.up);
    const rows = chat.rows();
    expect(rows[rows.findLastIndex((row) => row.startsWith('─')) + 1]).toBe('› earlier question');
  });

  test('streams the answer as it arrives and renders its Markdown', async () => {
    const { chat } = setup({
      turns: [{ chunks: ['## Plan\n', 'First **read** the ', 'code, then:\n', '1. edit `a.ts`\n', '```sh\nnpm test\n```\n', 'Done'], chunkDelayMs: 40 }],
    });
    await chat.submit('what now?');
    const early = await chat.waitForText('First read the');
    expect(early).not.toContain('Done');
    const frame = await chat.waitForText('Done');
    expect(frame).toContain('› what now?');
    expect(frame).toContain('Plan');
    expect(frame).not.toContain('## Plan');
    expect(frame).not.toContain('**');
    expect(frame).toContain('1. edit a.ts');
    expect(frame).toMatch(/╭─ sh\nnpm test\n╰─/);
  });

  test('shows the turn is working, then the prompt comes back', async () => {
    const { chat } = setup({ turns: [{ chunks: ['slow ', 'answer'], chunkDelayMs: 150 }] });
    await chat.submit('go');
    await chat.waitForText('Working…');
    const frame = await chat.waitForText('Ask anything');
    expect(frame).toContain('slow answer');
    expect(frame).not.toContain('Working…');
  });

  test('a provider error is a clear red line and the session stays usable', async () => {
    const { chat, fake } = setup({
      turns: [{ fail: { kind: 'server', message: 'The Ollama server failed (500). Try again later.', status: 500 } }, { chunks: ['recovered'] }],
    });
    await chat.submit('first');
    await chat.waitForText('✗ The Ollama server failed (500). Try again later.');
    expect(chat.rawFrame()).toContain('The Ollama server failed');
    await chat.waitForText('Ask anything');
    await chat.submit('second');
    await chat.waitForText('recovered');
    expect(fake.requests).toHaveLength(2);
  });

  test('a retry shows as a dim "retrying" line until the answer streams', async () => {
    const { chat } = setup({ turns: [{ retry: { delayMs: 400, status: 429 }, chunks: ['after the retry'] }] });
    await chat.submit('hi');
    await chat.waitForText('↻ retrying in 1s · rate limited (429) · attempt 1 · esc stops waiting');
    const frame = await chat.waitForText('after the retry');
    expect(frame).not.toContain('retrying');
  });

  test('the status line shows tokens, context used, cost when known, and the model', async () => {
    const fake = createFakeHost({ turns: [{ chunks: ['ok'], usage: { inputTokens: 2000, outputTokens: 500, costUsd: 0.0123 } }], contextWindow: 10000 });
    cleanups.push(fake.cleanup);
    const chat = startChat(fake.host);
    await chat.submit('hi');
    const frame = await chat.waitForText('25% context');
    const status = frame.split('\n').at(-1)!;
    expect(status).toContain('fake-model');
    expect(status).toContain('↑2.0k ↓500');
    expect(status).toContain('$0.01');
  });

  test('Esc stops a slow stream: the partial text stays, a note says it was interrupted, the prompt returns', async () => {
    const { chat, fake } = setup({ turns: [{ chunks: ['partial answer ', 'never', ' shown'], chunkDelayMs: 300 }, { chunks: ['next answer'] }] });
    await chat.submit('long task');
    await chat.waitForText('partial answer');
    await chat.press(KEY.escape);
    const frame = await chat.waitForText('Interrupted by the user.');
    expect(frame).not.toContain('never');
    await chat.waitForText('Ask anything');
    expect(fake.host.session.isRunning).toBe(false);
    await chat.submit('again');
    await chat.waitForText('next answer');
  });

  test('typing while the agent works queues a steering message the model sees next', async () => {
    const { chat, fake } = setup({
      turns: [{ chunks: ['checking'], toolCalls: [{ name: 'shell', arguments: { command: 'sleep 0.4; echo hi' } }] }, { chunks: ['ok, using tabs'] }],
    });
    // Approve the shell call with "always", then steer while it runs.
    await chat.submit('run it');
    await chat.waitForText('Allow shell');
    await chat.answer('a');
    await chat.waitForText('Working…');
    await chat.submit('use tabs please');
    const queued = await chat.waitForText('1 queued');
    expect(queued).toContain('⧗ queued: use tabs please');
    const frame = await chat.waitForText('ok, using tabs');
    expect(frame).toContain('› use tabs please · sent while the agent worked');
    expect(frame).not.toContain('⧗ queued');
    const lastRequest = fake.requests.at(-1)!;
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'user', content: 'use tabs please' });
  });

  test('Esc while messages are queued puts them back into the input', async () => {
    // Long enough that the Esc lands while the answer still streams, also on a busy machine (1 s was not).
    const { chat } = setup({ turns: [{ chunks: 'abcdefghijklmnop'.split(''), chunkDelayMs: 250 }] });
    await chat.submit('start');
    await chat.waitForText('Working…');
    await chat.submit('remember me');
    await chat.waitForText('1 queued');
    await chat.press(KEY.escape);
    const frame = await chat.waitForText('Interrupted by the user.');
    expect(frame).toContain('› remember me');
    expect(frame).not.toContain('queued');
  });
});
