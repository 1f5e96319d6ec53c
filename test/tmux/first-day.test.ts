// What a Claude Code user meets in the first day (issue 59), in the real program in tmux.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { sessionsDir } from '../../packages/core/src/config/paths.ts';
import { SessionStore } from '../../packages/core/src/session/index.ts';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { asks, lastUser, type ScriptTurn } from '../support/script.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

afterEach(closeOpen);

async function startBeans(
  turns: ScriptTurn[],
  options: { args?: string[]; files?: Record<string, string>; workspace?: TempRepo; columns?: number; rows?: number; ready?: string } = {},
) {
  const server = await startScriptedOllama({ turns });
  const workspace = options.workspace ?? makeTempRepo({ 'README.md': '# demo\n', ...options.files });
  const session = TmuxSession.start({
    workspace,
    args: options.args,
    columns: options.columns,
    rows: options.rows,
    env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' },
  });
  open.push({ session, server, ...(options.workspace ? {} : { workspace }) });
  await session.waitForText(options.ready ?? 'Ask anything');
  return { server, workspace, session };
}

/** Waits for text on the visible screen (the scrollback above may hold it from earlier). */
async function visibleText(session: TmuxSession, text: string, timeoutMs = 25_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const visible = session.visible();
    if (visible.includes(text)) return visible;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${JSON.stringify(text)} on the visible screen:\n${visible}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The chat against the scripted Anthropic server (loops need a session the chat hosts). */
const anthropicChat = (workspace: TempRepo, url: string, args: string[]) =>
  TmuxSession.start({
    workspace,
    args,
    env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'k', BEANS_PROVIDER: 'anthropic', BEANS_MODEL: 'claude-sonnet-5-5' },
  });

const chatBodies = (server: { requests: { kind: string; body?: unknown }[] }) =>
  server.requests.filter((request) => request.kind === 'chat').map((request) => JSON.stringify(request.body));

describe.skipIf(!hasTmux)('first-day papercuts (tmux)', () => {
  test("context Beans adds for the model (running background tasks) is never shown as the user's words: transcript, /export, -r preview", async () => {
    const marker = `${Date.now() % 100000}`;
    const { server, workspace, session } = await startBeans(
      [{ toolCalls: [{ name: 'shell', args: { command: `sleep 3${marker}`, run_in_background: true } }] }, { text: 'It runs.' }, { text: 'Second answer.' }],
      { args: ['chat', '--yolo'] },
    );
    await session.submit('start a watcher');
    await session.waitForText('It runs.');
    await session.waitForText('1 task running');
    await session.submit('how is it going');
    const screen = await session.waitForText('Second answer.');
    // The model got the note about the running task with the prompt...
    expect(chatBodies(server)[2]).toContain('Background tasks (read their output with shell_output');
    // ...but the prompt on the screen is the user's own words.
    expect(screen).toContain('› how is it going');
    expect(screen).not.toContain('<context>');
    expect(screen).not.toContain('Background tasks');

    await session.submit('/export talk.md');
    await session.waitForText('Exported the conversation to');
    const exported = readFileSync(path.join(workspace.dir, 'talk.md'), 'utf8');
    expect(exported).toContain('how is it going');
    expect(exported).not.toContain('<context>');
    expect(exported).not.toContain('Background tasks');
    session.press('C-c', 'C-c');
    await session.waitForText('[beans exited with');

    const resumed = TmuxSession.start({ workspace, args: ['chat', '-r'], env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session: resumed });
    const picker = await resumed.waitForText('how is it going');
    expect(picker).not.toContain('<context>');
    expect(picker).not.toContain('Background tasks');
    // The resumed transcript shows the prompt as typed too.
    resumed.press('Enter');
    const history = await resumed.waitForText('Second answer.');
    expect(history).toContain('› how is it going');
    expect(history).not.toContain('<context>');
    expect(history).not.toContain('Background tasks');
  });

  test('beans "fix the failing test" opens the chat with that prompt sent (as claude "...")', async () => {
    const { server, session } = await startBeans([{ text: 'Fixed it.' }], { args: ['fix the failing test'] });
    const screen = await session.waitForText('Fixed it.');
    expect(screen).toContain('› fix the failing test');
    expect(screen).not.toContain('too many arguments');
    expect(chatBodies(server)[0]).toContain('fix the failing test');
    // Still the chat: the next prompt is typed as usual.
    await session.waitForText('Ask anything');
  });

  test('beans "/loop 10s say tick" starts the loop: the chat hosts its schedules before the first prompt is sent', async () => {
    const server = await startScriptedAnthropic({ turns: (request) => ({ text: lastUser(request).includes('say tick') ? 'tick' : 'ok' }) });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = anthropicChat(workspace, server.url, ['/loop 10s say tick']);
    open.push({ session, server, workspace });
    const line = await session.waitForText('It runs now, then every 10s');
    expect(line).not.toContain('runs no scheduled prompts');
    const id = /Loop ([0-9a-f]{8})/.exec(line)![1]!;
    await session.waitForText(`⟳ ${id} every 10s`);
    await session.waitFor(() => server.requests.filter((request) => asks(request, 'say tick')).length >= 2, 'a second run', 30_000);
    const [first, second] = server.requests.filter((request) => asks(request, 'say tick'));
    expect(second!.time - first!.time).toBeGreaterThan(9_500);
  }, 60_000);

  test('beans -c "<prompt>" sends the prompt first, and a loop due at start waits for its turn to end', async () => {
    const slow: ScriptTurn = { text: ['first ', 'words ', 'take ', 'a ', 'while ', 'done'], chunkDelayMs: 700 };
    const server = await startScriptedAnthropic({
      turns: (request) => {
        const asked = lastUser(request);
        if (asked.includes('tool_result')) return { text: 'Paced.' };
        if (asked.includes('check the build')) return { toolCalls: [{ name: 'schedule_wakeup', args: { delay_seconds: 10, reason: 'the build runs' } }] };
        return asked.includes('first words') ? slow : { text: 'ok' };
      },
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    let session = anthropicChat(workspace, server.url, []);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    // A loop paced by the model, due 10 s after its first run; left overdue while Beans is closed.
    await session.submit('/loop check the build');
    await session.waitForText('Paced.');
    await session.waitFor((screen) => !screen.includes('esc to interrupt'), 'the run to end');
    await session.submit('/exit');
    await session.waitForText('[beans exited with 0]');
    session.kill();
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const before = server.requests.length;

    session = anthropicChat(workspace, server.url, ['-c', 'first words']);
    open.push({ session });
    await session.waitForText('done', 30_000);
    await session.waitFor(() => server.requests.slice(before).some((request) => asks(request, 'check the build')), 'the overdue run', 20_000);
    const asked = server.requests.slice(before).filter((request) => request.kind === 'chat');
    // The command line's prompt went first; the loop's run is a turn of its own after its whole answer.
    expect(lastUser(asked[0]!)).toContain('first words');
    const run = asked.find((request) => asks(request, 'check the build'))!;
    expect(JSON.stringify(run.body)).toContain('take a while done');
  }, 90_000);

  test('/model haiku in the chat switches to the current Haiku id, as -m and settings do', async () => {
    const server = await startScriptedAnthropic({ turns: [{ text: 'ok' }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = anthropicChat(workspace, server.url, []);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('/model haiku');
    await session.waitForText('Model switched to claude-haiku-5-5.');
    await session.submit('hello');
    await session.waitForText('ok');
    const asked = server.requests.filter((request) => request.kind === 'chat').at(-1)!;
    expect((asked.body as { model: string }).model).toBe('claude-haiku-5-5');
  });

  test('/context after /compact counts the request Beans would send now, and knows the default Claude window', async () => {
    // Three long answers (~16k tokens each), then a summary when Beans asks for one.
    const long = (n: number) => `Answer ${n}. ${'lorem ipsum dolor sit amet '.repeat(2400)}`;
    const server = await startScriptedAnthropic({
      turns: (request) => {
        const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
        const last = JSON.stringify(messages.at(-1)?.content ?? '');
        if (last.includes('Write the summary now.')) return { text: 'Summary: the user asked three questions and got three long answers about lorem ipsum.' };
        return { text: long(messages.filter((message) => message.role === 'assistant').length + 1) };
      },
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url }, rows: 50 });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    for (const n of [1, 2, 3]) {
      await session.submit(`question ${n}`);
      await session.waitFor((screen) => screen.includes(`Answer ${n}.`) && !screen.includes('Working…'), `answer ${n}`);
    }
    await session.submit('/context');
    const before = await visibleText(session, 'Context window ·');
    expect(before).not.toContain('does not say how large the window is');
    const usedBefore = Number(/claude-sonnet-5-5: ([\d.]+)k of 1(?:\.0)?M tokens/.exec(before)?.[1]);
    expect(usedBefore).toBeGreaterThan(40);
    await session.submit('/compact');
    await session.waitForText('Compacted');
    await session.submit('/context');
    const after = await session.waitFor((screen) => screen.indexOf('Context window ·', screen.lastIndexOf('Compacted')) > 0, 'a /context after the compaction');
    const report = after.slice(after.lastIndexOf('Compacted'));
    const [, amount, unit] = /claude-sonnet-5-5: ([\d.]+)(k?) of 1(?:\.0)?M tokens/.exec(report) ?? [];
    const usedAfter = Number(amount) * (unit === 'k' ? 1000 : 1);
    expect(report).not.toContain('the provider counted 51');
    // The summary and the newest turn, not the turns it replaced.
    expect(usedAfter).toBeLessThan((usedBefore * 1000) / 10);
  });

  test('"always" says which rule it adds before one chooses it; rm gets its exact line, not the whole program', async () => {
    const { session } = await startBeans([
      { toolCalls: [{ name: 'shell', args: { command: 'npm test' } }] },
      { toolCalls: [{ name: 'shell', args: { command: 'rm -rf build' } }] },
      { text: 'done' },
    ]);
    await session.submit('run the tests, then clean');
    const first = await session.waitForText('Allow shell npm test?');
    expect(first).toContain('a allows shell(npm test:*) for the rest of this session');
    await new Promise((resolve) => setTimeout(resolve, 700));
    session.type('y');
    const second = await session.waitForText('Allow shell rm -rf build?');
    expect(second).toContain('a allows shell(rm -rf build) for the rest of this session');
    expect(second).not.toMatch(/shell\(rm( -rf)?:\*\)/);
    await new Promise((resolve) => setTimeout(resolve, 700));
    session.type('n');
    await session.waitForText('Tell the model why');
    session.press('Enter');
    await session.waitForText('done');
  });

  test('a code block copies as the code: no gutter before its lines, its own indentation kept', async () => {
    const code = ['function add(a, b) {', '  return a + b;', '}'];
    const { session } = await startBeans([{ text: ['Here:\n\n```js\n', `${code.join('\n')}\n`, '```\n\nThat is all.'] }]);
    await session.submit('write add');
    const screen = await session.waitForText('That is all.');
    const rows = screen.split('\n');
    const at = rows.indexOf(code[0]!);
    // What a mouse selects over the block's rows is the code, character for character.
    expect(rows.slice(at, at + code.length)).toEqual(code);
    expect(screen).not.toMatch(/│ (function add| {2}return a \+ b)/);
    expect(rows[at - 1]).toContain('js');
  });

  test('a resize after a 3,000-line answer redraws the live area only: a few hundred bytes, settled at once', async () => {
    const answer = Array.from({ length: 3000 }, (_, i) => `Line ${i}: the function reads the *input* and returns a value.`).join('\n');
    const { session, workspace } = await startBeans([{ text: `${answer}\nEND-OF-ANSWER` }]);
    await session.submit('write it');
    await session.waitFor((screen) => screen.includes('END-OF-ANSWER') && !screen.includes('Working…'), 'the whole answer', 60_000);
    await session.settled();
    const file = path.join(workspace.home, 'after-resize.out');
    writeFileSync(file, '');
    session.pipeOutput(file);
    const started = Date.now();
    session.resize(100, 40);
    await session.waitFor(
      () =>
        session
          .visible()
          .split('\n')
          .some((row) => /^─{100}$/.test(row)),
      'the rule drawn at 100 columns',
    );
    await session.settled(300);
    const took = Date.now() - started - 300;
    session.stopPipe();
    // On main the whole transcript was printed again (125 KB, about a second here); now only the live area.
    expect(statSync(file).size).toBeLessThan(4000);
    // Generous for a busy machine; alone it settles in about 100 ms (bench/redraw.mjs).
    expect(took).toBeLessThan(3000);
    const visible = session.visible();
    expect(visible.split('\n').filter((row) => /Ask anything/.test(row))).toHaveLength(1);
    expect(visible).toContain('END-OF-ANSWER');
  });

  test('resizes while the answer streams lose no row of it; a resize while a question is open leaves the question once', async () => {
    const chunks = Array.from({ length: 10 }, (_, i) => `Streamed line ${i} of the answer, long enough to wrap when the window is narrow.\n\n`);
    const { session } = await startBeans(
      [{ text: chunks, chunkDelayMs: 300 }, { toolCalls: [{ name: 'shell', args: { command: 'npm test' } }] }, { text: 'All green.' }],
      { columns: 120 },
    );
    await session.submit('explain');
    await session.waitForText('Streamed line 2');
    // Resizes that land between frames: each may arrive while a frame is written at the old width.
    for (const columns of [100, 110, 95, 90]) {
      session.resize(columns, 40);
      await new Promise((resolve) => setTimeout(resolve, 170));
    }
    await session.waitFor(
      () =>
        session.visible().includes('Streamed line 9') &&
        !session
          .visible()
          .split('\n')
          .slice(-6)
          .some((row) => row.includes('Working…')),
      'the whole answer',
    );
    await session.settled();
    // Every row of the answer once in the history and the screen: none handed to the view being
    // replaced (its writes are dropped) and lost with it, none printed twice.
    const after = session.screen();
    for (let i = 0; i < 10; i++) expect(after.split(`Streamed line ${i} `).length - 1).toBe(1);
    expect(after.split('\n').filter((row) => /Ask anything/.test(row))).toHaveLength(1);

    await session.submit('run the tests');
    await session.waitForText('Allow shell npm test?');
    session.resize(70, 40);
    // The question's spinner keeps the screen moving: wait for its choices laid out again at 70 columns (cut with …).
    await session.waitFor(
      () =>
        session
          .visible()
          .split('\n')
          .some((row) => row.startsWith('  › y yes') && row.trimEnd().endsWith('…') && row.length <= 70),
      'the question drawn at 70 columns',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Once in the history and the screen: the old view's rows were erased, not left above the new one.
    const asking = session.screen();
    expect(asking.split('Allow shell npm test?').length - 1).toBe(1);
    expect(asking.split('a allows shell(npm test:*)').length - 1).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    session.type('y');
    await session.waitForText('All green.');
  }, 60_000);

  test('-r of a 2,000-message session prints its newest part at once; Ctrl+L would print the rest', async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const store = new SessionStore(sessionsDir({ HOME: workspace.home, XDG_STATE_HOME: path.join(workspace.home, '.local', 'state') }, workspace.dir));
    const writer = store.create({ cwd: workspace.dir, workspaceRoot: workspace.dir, provider: 'ollama', model: 'scripted:latest' });
    let clock = Date.now() - 10_000;
    for (let i = 0; i < 1000; i++) {
      writer.append({ role: 'user', content: `question ${i}`, origin: 'prompt', timestamp: clock++ });
      const text = Array.from({ length: 12 }, (_, line) => `- point ${line} of answer ${i}: it reads the **input**`).join('\n');
      writer.append({ role: 'assistant', content: text, toolCalls: [], stopReason: 'stop', usage: { inputTokens: 100, outputTokens: 50 }, timestamp: clock++ });
    }
    writer.close();
    const file = path.join(workspace.home, 'resume.out');
    writeFileSync(file, '');
    const server = await startScriptedOllama({ turns: [{ text: 'ok' }] });
    const started = Date.now();
    const session = TmuxSession.start({ workspace, args: ['chat', '-r', writer.id], env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    session.pipeOutput(file);
    await session.waitFor((screen) => screen.includes('point 11 of answer 999') && screen.includes('Ask anything'), 'the newest answer and the prompt');
    const took = Date.now() - started;
    await session.settled();
    session.stopPipe();
    const screen = session.screen();
    expect(screen).toContain('point 11 of answer 999');
    expect(screen).toMatch(/⋯ \d+ earlier entries of this session not printed · Ctrl\+L prints the whole conversation/);
    expect(screen).not.toContain('question 0\n');
    // On main all 2,000 messages were printed first (1.2 MB, 19 s at load 20).
    expect(statSync(file).size).toBeLessThan(50_000);
    // Generous for a busy machine: about 1.2 s at load 11 (a new chat: 0.8 s), bench/redraw.mjs; main took about 5 s alone.
    expect(took).toBeLessThan(5000);
  });

  test('the # note picker says what Enter does: save', async () => {
    const { session } = await startBeans([{ text: 'ok' }], { columns: 100 });
    session.type('# always run pnpm test before committing');
    await new Promise((resolve) => setTimeout(resolve, 100));
    session.press('Enter');
    const picker = await session.waitForText('Save this note to');
    expect(picker).toContain('Enter save');
    expect(picker).not.toContain('Enter open');
  });

  test('/help keeps its columns: a name wider than the column has a row of its own', async () => {
    const { session } = await startBeans([{ text: 'ok' }], { columns: 100 });
    await session.submit('/help');
    const help = await session.waitForText('Keys');
    const rows = help.split('\n');
    const thinking = rows.findIndex((row) => row.startsWith('  /thinking ['));
    expect(rows[thinking]!.trim()).toBe('/thinking [off | low | medium | high | <tokens> | default]');
    const column = /^ {2}\/help +/.exec(rows.find((row) => row.startsWith('  /help '))!)![0].length;
    expect(rows[thinking + 1]!.slice(0, column).trim()).toBe('');
    expect(rows[thinking + 1]!.slice(column)).toMatch(/^show or set how much the model may think/);
  });

  test('the Esc that closes the ? keys help does not arm Esc Esc rewind', async () => {
    const { session } = await startBeans([{ text: 'ok' }], { columns: 100 });
    session.type('?');
    await session.waitForText('Shift+Tab');
    session.press('Escape');
    await new Promise((resolve) => setTimeout(resolve, 200));
    session.press('Escape');
    await session.waitForText('Press Esc again to rewind');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(session.screen()).not.toContain('Nothing to rewind to yet');
  });

  test('/config names the flag the CLI takes; /export names the file by the whole session id', async () => {
    const { session, workspace } = await startBeans([{ text: 'ok' }], { columns: 100 });
    await session.submit('/config');
    const config = (await session.waitForText('user settings).')).replace(/\s+/g, ' ');
    expect(config).toContain('add --global for your user settings');
    expect(config).not.toContain('--scope project');

    await session.submit('/export');
    const exported = await session.waitForText('Export the conversation as Markdown');
    const name = /a file: (beans-conversation-\S+\.md)/.exec(exported)![1]!;
    // The whole session id, a UUID (cut at 8 characters it was "2026-11-" with the older time-stamped ids).
    expect(name).toMatch(/^beans-conversation-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.md$/);
    session.press('Down', 'Enter');
    await session.waitForText('Exported the conversation to');
    expect(readFileSync(path.join(workspace.dir, name), 'utf8')).toContain('# ');
  });
});
