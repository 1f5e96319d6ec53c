import { afterEach, describe, expect, test } from 'vitest';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

describe('/status and /config', () => {
  test('/status shows provider, model, profile, mode, trust, MCP servers and context use', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['ok'] }], contextWindow: 8000 });
    await chat.submit('hi');
    await chat.waitForText('ok');
    await chat.submit('/status');
    const frame = await chat.waitForText('settings');
    expect(frame).toMatch(new RegExp(`session\\s+${fake.host.session.id}`));
    expect(frame).toMatch(/provider\s+fake/);
    expect(frame).toMatch(/model\s+fake-model/);
    expect(frame).toMatch(/profile\s+default \(built-in default\)/);
    expect(frame).toMatch(/permissions\s+default mode/);
    expect(frame).toMatch(/trust\s+not trusted/);
    expect(frame).toMatch(/mcp\s+docs connected \(1 tools\)/);
    expect(frame).toMatch(/context\s+1\.5k of 8\.0k tokens \(19%\)/);
    expect(frame).toMatch(/thinking\s+the provider's default/);
    await chat.submit('/thinking high');
    await chat.waitForText('from the next request on');
    await chat.submit('/status');
    await chat.waitFor((current) => /thinking\s+high/.test(current), 'thinking high in /status');
  });

  test('/config lists each setting with its source', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('/config');
    const frame = await chat.waitForText('beans config set');
    expect(frame).toMatch(/provider "fake"\s+\(flag\)/);
    expect(frame).toMatch(/ui\.theme "dark"\s+\(default\)/);
  });
});

describe('/theme', () => {
  test('the picker marks the theme in use; choosing one applies it at once and saves it', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('/theme');
    const picker = await chat.waitForText('Colour theme');
    expect(picker).toMatch(/› ● dark/);
    await chat.press(KEY.down, KEY.enter);
    await chat.waitForText('Theme: light (saved in');
    expect(fake.calls).toContain('save:ui.theme=light');
  });

  test('/theme <name> switches directly; an unknown name says which exist', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('/theme high-contrast');
    await chat.waitForText('Theme: high-contrast');
    await chat.submit('/theme neon');
    await chat.waitForText('Unknown theme "neon". Choose one of: dark, light, high-contrast.');
    expect(fake.calls.filter((call) => call.startsWith('save:'))).toEqual(['save:ui.theme=high-contrast']);
  });
});

describe('/model', () => {
  test('opens a picker with the current model marked; Enter on another switches to it', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('/model');
    const picker = await chat.waitForText('Enter switch');
    expect(picker).toContain('Models (fake) — current: fake-model');
    expect(picker).toMatch(/› ● fake-model\s+8\.0k context/);
    await chat.press(KEY.down, KEY.enter);
    await chat.waitForText('Model switched to fake-large.');
    expect(fake.host.session.model).toBe('fake-large');
  });

  test('Esc closes the picker and keeps the model', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('/model');
    await chat.waitForText('Enter switch');
    await chat.press(KEY.down, KEY.escape);
    await chat.waitFor((frame) => !frame.includes('Enter switch'), 'the picker to close');
    expect(fake.host.session.model).toBe('fake-model');
  });
});

describe('!command', () => {
  test('runs at once without asking; the command and its output join the conversation', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['I see three lines'] }] });
    await chat.submit('!printf "a\\nb\\nc\\n"');
    const frame = await chat.waitForText('exit 0 · 3 lines');
    expect(frame).toContain('› !printf "a\\nb\\nc\\n"');
    expect(frame).toMatch(/✓ shell printf "a\\nb\\nc\\n" · exit 0 · 3 lines\n {4}a\n {4}b\n {4}c/);
    expect(frame).not.toContain('Allow shell');
    await chat.submit('what did it print?');
    await chat.waitForText('I see three lines');
    const sent = fake.requests[0]!.messages.filter((message) => message.role === 'user').map((message) => String(message.content));
    expect(sent[0]).toBe('I ran a shell command in the workspace myself:\n$ printf "a\\nb\\nc\\n"\na\nb\nc');
    expect(sent[1]).toBe('what did it print?');
  });

  test('a failing command shows its exit code', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('!echo nope; exit 4');
    await chat.waitForText('exit 4 · 1 line');
  });
});
