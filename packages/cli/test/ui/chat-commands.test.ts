import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { KEY, closeChats, startChat } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(options: Partial<FakeHostOptions> = {}) {
  const fake = createFakeHost({ turns: [{ chunks: ['answer'], usage: { inputTokens: 1500, outputTokens: 250, costUsd: 0.0042 } }], ...options });
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host) };
}

describe('slash commands', () => {
  test('/help lists every command with its description, plugin commands and skills included', async () => {
    const { chat } = setup();
    await chat.submit('/help');
    const frame = await chat.waitForText('Plugin commands');
    for (const name of ['help', 'profile', 'sop', 'clear', 'exit', 'quit', 'model', 'agents', 'skills', 'tools', 'cost', 'resume', 'compact']) {
      expect(frame).toMatch(new RegExp(`/${name}\\b.*\\w`));
    }
    expect(frame).toMatch(/\/help\s+list every command/);
    expect(frame).toMatch(/\/review <number>\s+review a pull request/);
    expect(frame).toMatch(/Skills\n\s+\/deploy-checklist\s+the deploy checklist/);
  });

  test('/sop shows, sets and clears the standard operating procedure', async () => {
    const { chat, fake } = setup();
    await chat.submit('/sop');
    await chat.waitForText('No standard operating procedure is set');
    await chat.submit('/sop Always run the tests before committing.');
    await chat.waitForText('The standard operating procedure is set');
    expect(fake.host.session.sop).toBe('Always run the tests before committing.');
    await chat.submit('/sop');
    await chat.waitFor((frame) => /Standard operating procedure\n\s+Always run the tests/.test(frame));
    await chat.submit('hi');
    await chat.waitForText('answer');
    expect(fake.requests[0]!.system).toContain('Always run the tests before committing.');
    await chat.submit('/sop --clear');
    await chat.waitForText('is cleared');
    expect(fake.host.session.sop).toBe('');
  });

  test('/thinking shows, sets and resets how much the model may think; the next request carries it', async () => {
    const { chat, fake } = setup();
    await chat.submit('/thinking');
    await chat.waitForText("Thinking: the provider's default");
    await chat.submit('/thinking lots');
    await chat.waitForText('"lots" is not off, low, medium, high');
    await chat.submit('/thinking 6000');
    await chat.waitForText('Thinking: 6000 from the next request on');
    expect(fake.host.session.thinking).toBe(6000);
    await chat.submit('hi');
    await chat.waitForText('answer');
    expect(fake.requests[0]!.thinking).toBe(6000);
    await chat.submit('/thinking default');
    await chat.waitForText("back to the provider's default");
    expect(fake.host.session.thinking).toBeUndefined();
  });

  test('/cost reports tokens and cost of the session', async () => {
    const { chat } = setup({ contextWindow: 8000 });
    await chat.submit('hi');
    await chat.waitForText('answer');
    await chat.submit('/cost');
    const frame = await chat.waitForText('Usage this session');
    expect(frame).toContain('1,500 in · 250 out');
    expect(frame).toContain('$0.0042');
    expect(frame).toMatch(/context\s+1\.8k of 8\.0k \(22%\)/);
  });

  test('prompt caching: /cost shows cache reads and writes, the status line the cached tokens, the context counts them', async () => {
    const { chat } = setup({
      contextWindow: 100_000,
      turns: [{ chunks: ['answer'], usage: { inputTokens: 300, outputTokens: 200, cacheReadTokens: 40_000, cacheWriteTokens: 2_500, costUsd: 0.02 } }],
    });
    await chat.submit('hi');
    await chat.waitForText('answer');
    // ↑ is the fresh prompt (input + cache writes); the cached part is shown apart.
    const status = await chat.waitFor((frame) => frame.split('\n').at(-1)!.includes('↑2.8k ↓200 (40k cached)'), 'the cached tokens in the status line');
    expect(status.split('\n').at(-1)).toContain('43% context');
    await chat.submit('/cost');
    const frame = await chat.waitForText('Usage this session');
    expect(frame).toContain('300 in · 200 out');
    expect(frame).toContain('40,000 read · 2,500 written');
    expect(frame).toMatch(/context\s+43k of 100k \(43%\)/);
  });

  test('/tools lists the tools the model can use with their kind', async () => {
    const { chat } = setup();
    await chat.submit('/tools');
    const frame = await chat.waitForText('Tools');
    expect(frame).toMatch(/read_file\s+read ·/);
    expect(frame).toMatch(/write_file\s+edit ·/);
    expect(frame).toMatch(/shell\s+execute ·/);
  });

  test('/model lists models with the current one marked (a picker); /model <name> switches', async () => {
    const { chat, fake } = setup();
    await chat.submit('/model');
    const frame = await chat.waitForText('current: fake-model');
    expect(frame).toMatch(/● fake-model\s+8\.0k context/);
    expect(frame).toMatch(/ {3}fake-large\s+128k context/);
    await chat.press(KEY.escape);
    await chat.waitFor((current) => !current.includes('current: fake-model'), 'the picker to close');
    await chat.submit('/model fake-large');
    await chat.waitForText('Model switched to fake-large.');
    expect(fake.host.session.model).toBe('fake-large');
    expect(chat.frame().split('\n').at(-1)).toContain('fake-large');
  });

  test('/agents, /skills and /profile show what the host knows', async () => {
    const { chat } = setup();
    await chat.submit('/agents');
    await chat.waitFor((frame) => /code:reviewer\s+Reviews code/.test(frame));
    await chat.submit('/skills');
    await chat.waitFor((frame) => /deploy-checklist\s+the deploy checklist/.test(frame));
    await chat.submit('/profile');
    await chat.waitForText('Chosen because: no other profile was configured.');
  });

  test('/agents shows one line per agent: no <example> dialogues, cut to the width', async () => {
    const description =
      'Use this agent when code needs a careful review of style and correctness before merging. '.repeat(3) +
      '<example>Context: the user wrote code.\nuser: "review it"\nassistant: "I will use the reviewer"</example>';
    const { chat } = setup({
      agents: [
        { name: 'code:reviewer', description },
        { name: 'tester', description: 'Writes tests' },
      ],
    });
    await chat.submit('/agents');
    const frame = await chat.waitFor((text) => /tester\s+Writes tests/.test(text));
    const reviewerLines = frame.split('\n').filter((line) => line.includes('careful review') || line.includes('merging'));
    expect(reviewerLines).toHaveLength(1);
    expect(reviewerLines[0]).toContain('code:reviewer');
    expect(reviewerLines[0]).toContain('…');
    expect(frame).not.toContain('example');
  });

  test('/clear starts a new session; the model no longer sees the old turns', async () => {
    const { chat, fake } = setup({ turns: [{ chunks: ['first answer'] }, { chunks: ['fresh answer'] }] });
    await chat.submit('remember 42');
    await chat.waitForText('first answer');
    const before = fake.host.session.id;
    await chat.submit('/clear');
    const cleared = await chat.waitForText('New conversation (session');
    expect(fake.host.session.id).not.toBe(before);
    // The screen is cleared: only the header and the notice are left.
    expect(chat.stdout.frames).toContain('\x1b[2J\x1b[3J\x1b[H');
    expect(cleared).not.toContain('first answer');
    expect(cleared).not.toContain('remember 42');
    expect(cleared).toContain('beans · default');
    await chat.submit('what number?');
    await chat.waitForText('fresh answer');
    expect(fake.requests[1]!.messages).toEqual([{ role: 'user', content: 'what number?' }]);
  });

  test('/resume picks a past session with the arrows and shows its history', async () => {
    const { chat, fake } = setup({
      sessions: [
        { id: 'older-session-id', startedAt: '2025-01-01T10:00:00Z', lastActivity: '2025-01-01T11:00:00Z', turns: 2, firstPrompt: 'fix the parser' },
        {
          id: 'newer-session-id',
          startedAt: '2025-02-01T10:00:00Z',
          lastActivity: '2025-02-01T11:00:00Z',
          turns: 9,
          prompts: 5,
          firstPrompt: 'write the docs',
        },
      ],
    });
    await chat.submit('/resume');
    const picker = await chat.waitForText('Resume a session');
    expect(picker.indexOf('write the docs')).toBeLessThan(picker.indexOf('fix the parser'));
    // Ids are never cut (issue 44).
    expect(picker).toMatch(/› write the docs\s+2025-02-01 11:00 · 5 turns · newer-session-id/);
    await chat.press(KEY.down, KEY.enter);
    const frame = await chat.waitForText('hello from older-session-id');
    expect(frame).toContain('An old answer.');
    expect(fake.calls).toContain('resume:older-session-id');
  });

  test('/resume: typing filters by any prompt of a session, and the highlighted one is previewed', async () => {
    const { chat, fake } = setup({
      sessions: [
        { id: 'parser-session', startedAt: '2025-01-01T10:00:00Z', lastActivity: '2025-01-01T11:00:00Z', turns: 3, firstPrompt: 'fix the parser' },
        { id: 'docs-session', startedAt: '2025-02-01T10:00:00Z', lastActivity: '2025-02-01T11:00:00Z', turns: 2, firstPrompt: 'write the docs' },
      ],
      sessionPrompts: {
        'parser-session': ['fix the parser', 'now add a regression test', 'run the flaky suite'],
        'docs-session': ['write the docs', 'shorter please'],
      },
    });
    await chat.submit('/resume');
    const first = await chat.waitForText('Resume a session');
    // The newest is highlighted and previewed: its whole id and its prompts.
    expect(first).toMatch(/─ docs-session/);
    expect(first).toMatch(/› shorter please/);
    await chat.type('regres');
    const filtered = await chat.waitForText('(1 of 2)');
    expect(filtered).toContain('Search: regres');
    expect(filtered).not.toContain('write the docs');
    expect(filtered).toMatch(/─ parser-session/);
    expect(filtered).toMatch(/› now add a regression test/);
    await chat.type('zzz');
    await chat.waitForText('(nothing matches)');
    for (let i = 0; i < 3; i++) await chat.press(KEY.backspace);
    await chat.waitForText('(1 of 2)');
    await chat.press(KEY.enter);
    await chat.waitFor(() => fake.calls.includes('resume:parser-session'), 'the resume');
  });

  test('/resume: ctrl+b keeps the sessions of the branch checked out, ctrl+a lists every workspace (resumed there)', async () => {
    const { chat, fake } = setup({
      sessions: [
        { id: 'main-session', startedAt: '2025-01-01T10:00:00Z', lastActivity: '2025-01-01T11:00:00Z', turns: 1, firstPrompt: 'on main', gitBranch: 'main' },
        {
          id: 'feature-session',
          startedAt: '2025-01-02T10:00:00Z',
          lastActivity: '2025-01-02T11:00:00Z',
          turns: 1,
          firstPrompt: 'on the feature',
          gitBranch: 'feature/login',
        },
      ],
      otherSessions: [
        {
          id: 'elsewhere-session',
          startedAt: '2025-01-03T10:00:00Z',
          lastActivity: '2025-01-03T11:00:00Z',
          turns: 1,
          firstPrompt: 'in the other repo',
          workspaceRoot: '/srv/other-repo',
          gitBranch: 'main',
        },
      ],
    });
    mkdirSync(path.join(fake.root, '.git'), { recursive: true });
    writeFileSync(path.join(fake.root, '.git', 'HEAD'), 'ref: refs/heads/feature/login\n');
    await chat.submit('/resume');
    const all = await chat.waitForText('Resume a session (this workspace)');
    expect(all).toContain('on main');
    expect(all).toMatch(/on the feature\s+2025-01-02 11:00 · 1 turn · ⎇ feature\/login · feature-session/);
    expect(all).toContain('ctrl+b this branch');
    await chat.press(KEY.ctrlB);
    const branch = await chat.waitForText('branch feature/login');
    expect(branch).toContain('on the feature');
    expect(branch).not.toContain('on main');
    await chat.press(KEY.ctrlB, KEY.ctrlA);
    const everywhere = await chat.waitForText('(every workspace)');
    expect(everywhere).toContain('other-repo: in the other repo');
    expect(everywhere).toContain('on main');
    // The newest is the other workspace's: it is resumed in its own folder.
    await chat.press(KEY.enter);
    const told = await chat.waitForText('Resume it there: cd /srv/other-repo && beans -r');
    expect(told).toContain('elsewhere-session');
    expect(fake.calls.some((call) => call.startsWith('resume:'))).toBe(false);
  });

  test('/resume with no other sessions says so; Esc closes a picker', async () => {
    const { chat } = setup({ sessions: [{ id: 'x', startedAt: '2025-01-01T10:00:00Z', lastActivity: '2025-01-01T10:00:00Z', turns: 1, firstPrompt: 'p' }] });
    await chat.submit('/resume');
    const picker = await chat.waitForText('Resume a session');
    expect(picker).toMatch(/› p\s+2025-01-01 10:00 · 1 turn · x$/m);
    await chat.press(KEY.escape);
    await chat.waitFor((frame) => !frame.includes('↑↓ choose'));
    await chat.waitForText('Ask anything');
  });

  test('a continued session shows its stored totals in the status line and /cost', async () => {
    const { chat } = setup({
      history: [
        { role: 'user', content: 'earlier', origin: 'prompt', timestamp: 1 },
        { role: 'assistant', content: 'earlier answer', toolCalls: [], usage: { inputTokens: 5000, outputTokens: 700, costUsd: 0.5 }, timestamp: 2 },
      ],
      turns: [{ chunks: ['now'], usage: { inputTokens: 1000, outputTokens: 100, costUsd: 0.25 } }],
    });
    const start = await chat.waitForText('Ask anything');
    expect(start.split('\n').at(-1)).toContain('↑5.0k ↓700');
    await chat.submit('again');
    await chat.waitForText('now');
    const after = await chat.waitFor((frame) => frame.split('\n').at(-1)!.includes('↑6.0k ↓800'), 'the totals to add up');
    expect(after.split('\n').at(-1)).toContain('$0.75');
    await chat.submit('/cost');
    await chat.waitForText('6,000 in · 800 out');
  });

  test('a continued session counts the compaction summaries its notes recorded', async () => {
    const { chat } = setup({
      history: [
        { role: 'user', content: 'earlier', origin: 'prompt', timestamp: 1 },
        { role: 'assistant', content: 'earlier answer', toolCalls: [], usage: { inputTokens: 5000, outputTokens: 700, costUsd: 0.5 }, timestamp: 2 },
        {
          role: 'note',
          kind: 'compaction',
          text: 'SUMMARY',
          trigger: 'auto',
          usage: { inputTokens: 3000, outputTokens: 300, cacheReadTokens: 1000, costUsd: 0.25 },
          timestamp: 3,
        },
      ],
    });
    await chat.waitForText('Ask anything');
    await chat.submit('/cost');
    const frame = await chat.waitForText('8,000 in · 1,000 out');
    expect(frame).toContain('1,000 read · 0 written');
    expect(frame).toContain('$0.7500');
  });

  test('/compact runs with a spinner and reports what it did', async () => {
    const { chat, fake } = setup();
    await chat.submit('/compact');
    await chat.waitForText('Compacted 4 turns into a summary.');
    expect(fake.calls).toContain('compact');
  });

  test('a plugin command is expanded by the host and shown as typed', async () => {
    const { chat, fake } = setup();
    await chat.submit('/review 42');
    await chat.waitForText('answer');
    expect(chat.frame()).toContain('› /review 42');
    expect(fake.requests[0]!.messages[0]).toEqual({ role: 'user', content: 'Review pull request 42 carefully.' });
  });

  test('an unknown command is an error line, nothing is sent', async () => {
    const { chat, fake } = setup();
    await chat.submit('/nope');
    await chat.waitForText('✗ Unknown command /nope. Type /help to see the commands.');
    expect(fake.requests).toHaveLength(0);
  });

  test('commands that would change the session wait until the agent is idle', async () => {
    const { chat, fake } = setup({ turns: [{ chunks: ['a', 'b'], chunkDelayMs: 300 }] });
    await chat.submit('work');
    await chat.waitForText('Working…');
    await chat.submit('/clear');
    await chat.waitForText('/clear waits for an idle session');
    expect(fake.calls).not.toContain('clear');
    // Read-only commands still work while the agent runs.
    await chat.submit('/cost');
    await chat.waitForText('Usage this session');
  });
});

describe('/hooks, /mcp and /plugins', () => {
  test('list the hooks and the MCP servers of the session', async () => {
    const { chat } = setup();
    await chat.submit('/hooks');
    const hooks = await chat.waitForText('guard.sh');
    expect(hooks).toContain('PreToolUse [Bash]');
    expect(hooks).toContain('user settings');
    await chat.submit('/mcp');
    const servers = await chat.waitForText('mcp__docs__search');
    expect(servers).toContain('docs');
    expect(servers).toContain('connected');
    await chat.submit('/lsp');
    const lsp = await chat.waitForText('typescript, typescriptreact');
    expect(lsp).toMatch(/typescript\s+running \(pid 4242\) · typescript, typescriptreact · restarted 1x · plugin\s+typescript-lsp/);
    // The status line names the servers running now.
    expect(lsp.split('\n').at(-1)).toContain('LSP typescript');
    await chat.submit('/plugins');
    const plugins = await chat.waitForText('review-kit 1.2.0');
    expect(plugins).toContain('2 agents, 1 command · team: ./plugins/review-kit');
  });
});

describe('/mcp enable, disable and reconnect', () => {
  test('change a server for the session and say what became of it; a wrong name or action is refused', async () => {
    const { chat, fake } = setup();
    await chat.submit('/mcp disable docs');
    await chat.waitForText('Disabled docs: its tools leave the next request');
    await chat.submit('/mcp');
    await chat.waitFor((frame) => /docs\s+disabled/.test(frame), 'docs listed as disabled');
    await chat.submit('/mcp enable docs');
    await chat.waitForText('docs is connected with 1 tools');
    await chat.submit('/mcp reconnect docs');
    await chat.waitFor((frame) => frame.split('docs is connected').length === 3, 'a second connected note');
    await chat.submit('/mcp disable nope');
    await chat.waitForText('There is no MCP server named nope (servers: docs)');
    await chat.submit('/mcp restart docs');
    await chat.waitForText('Usage: /mcp, or /mcp enable|disable|reconnect <server>');
    expect(fake.calls.filter((call) => call.startsWith('mcp:'))).toEqual(['mcp:disable:docs', 'mcp:enable:docs', 'mcp:reconnect:docs']);
  });
});

describe('Notification hooks', () => {
  test('hear when the agent has waited for input after a turn, and not while the user types', async () => {
    const { ChatController } = await import('../../src/ui/controller.js');
    const fake = createFakeHost({ turns: [{ chunks: ['done'] }] });
    const controller = new ChatController(fake.host, { width: 80, exit: () => undefined, idleNoticeMs: 80 });
    controller.handleKey({ type: 'text', text: 'hi' });
    controller.handleKey({ type: 'key', name: 'enter' });
    await vi.waitFor(() => expect(fake.calls.filter((call) => call.startsWith('notify:'))).toEqual(['notify:Beans is waiting for your input']), {
      timeout: 3_000,
      interval: 20,
    });
    controller.dispose();
    fake.cleanup();
  });
});

describe('the status line command', () => {
  test('runs again after /model: the line shows the new model', async () => {
    const script = `node -e "let s='';process.stdin.on('data',(d)=>s+=d).on('end',()=>console.log('SL '+JSON.parse(s).model.id))"`;
    const { chat } = setup({ statusLineCommand: script });
    await chat.waitFor((frame) => /^SL fake-model$/m.test(frame), 'the first status line', 8000);
    await chat.submit('/model other-model');
    await chat.waitFor((frame) => /^SL other-model$/m.test(frame), 'the status line after /model', 8000);
  });
});
