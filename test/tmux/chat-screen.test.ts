import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn } from '../support/script.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

afterEach(closeOpen);

async function startBeans(
  turns: ScriptTurn[],
  options: { env?: Record<string, string>; files?: Record<string, string>; args?: string[]; userSettings?: object } = {},
) {
  const server = await startScriptedOllama({ turns });
  const workspace = makeTempRepo({ 'README.md': '# demo\n', ...options.files });
  if (options.userSettings) {
    mkdirSync(path.join(workspace.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(workspace.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(options.userSettings));
  }
  const session = TmuxSession.start({ workspace, args: options.args, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', ...options.env } });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything');
  return { server, workspace, session };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (screen: string, pattern: RegExp) => screen.split('\n').filter((row) => pattern.test(row)).length;

describe.skipIf(!hasTmux)('the chat screen in a real terminal (tmux)', () => {
  test('shrinking the window from 120 to 80 columns in steps redraws the live area once; Ctrl+L lays the transcript out again', async () => {
    const long = 'This paragraph is long enough to wrap at eighty columns but not at a hundred and twenty, like real answers.';
    const { session } = await startBeans([{ text: ['## Plan\n\n', `${long}\n\n`, '- one\n- two\n\nDone.'] }]);
    await session.submit('make a plan');
    await session.waitForText('Done.');
    await session.waitFor((screen) => !screen.includes('Working…'), 'the turn to end');
    for (const columns of [112, 104, 96, 88, 80]) {
      session.resize(columns, 40);
      await sleep(40);
    }
    await session.settled();
    // The history and the screen: one rule above the input, one input row, the question once, so
    // nothing is left from the frames drawn at wider widths (the terminal decides which rows of the
    // reflowed transcript stay in view).
    const resized = session.screen();
    expect(count(resized, /^─+$/)).toBe(1);
    expect(count(resized, /Ask anything/)).toBe(1);
    expect(count(resized, /› make a plan/)).toBe(1);
    expect(
      session
        .visible()
        .split('\n')
        .every((row) => row.length <= 80),
    ).toBe(true);
    // The transcript stays, as the terminal reflowed it (start-up notes included).
    expect(session.screen().replace(/\n/g, ' ')).toMatch(/No model configured; using scripted:latest/);
    expect(session.screen()).toContain(long);
    session.press('C-l');
    // Ctrl+L clears first: wait past the blank screen for the redraw, then for it to settle.
    await session.waitForText('Ask anything');
    await session.settled();
    const redrawn = session.visible();
    expect(count(redrawn, /^─+$/)).toBe(1);
    // Laid out by Beans at 80 columns: the paragraph breaks between words.
    const first = redrawn
      .split('\n')
      .find((row) => row.startsWith('This paragraph'))!
      .trimEnd();
    expect(first.length).toBeLessThanOrEqual(80);
    expect(long.startsWith(first) && long[first.length] === ' ').toBe(true);
  });

  test('a running shell command shows its output line by line, not run together', async () => {
    const { session } = await startBeans(
      [{ toolCalls: [{ name: 'shell', args: { command: 'echo step 1; sleep 0.4; echo step 2; sleep 0.4; echo step 3; sleep 10' } }] }, { text: 'done' }],
      { args: ['chat', '--yolo'] },
    );
    await session.submit('count');
    const screen = await session.waitFor((current) => /^ {4}step 3$/m.test(current), 'the third line of output');
    expect(screen).toMatch(/^ {4}step 1\n {4}step 2\n {4}step 3$/m);
    expect(screen).not.toContain('step 1step 2');
    expect(screen).toContain('esc to interrupt');
    expect(screen).toMatch(/shell echo step 1/);
  });

  test('finished tools say what they did with numbers; Ctrl+O shows the whole output and folds it again', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    const { session } = await startBeans(
      [
        {
          toolCalls: [
            { name: 'read_file', args: { path: 'fifty.txt' } },
            { name: 'shell', args: { command: 'seq 201 240' } },
          ],
        },
        { text: 'all done' },
      ],
      { args: ['chat', '--yolo'], files: { 'fifty.txt': fifty } },
    );
    await session.submit('look');
    const screen = await session.waitForText('all done');
    expect(screen).toContain('✓ read_file fifty.txt · read 50 lines');
    expect(screen).toContain('✓ shell seq 201 240 · exit 0 · 40 lines');
    expect(screen).not.toMatch(/^ {4}240$/m);
    session.press('C-o');
    const expanded = await session.waitFor((current) => /^ {4}240$/m.test(current), 'the whole output');
    expect(expanded.match(/^ {4}2[0-4]\d$/gm)).toHaveLength(40);
    expect(expanded.match(/› look/g)).toHaveLength(1);
    session.press('C-o');
    const folded = await session.waitFor((current) => !/^ {4}240$/m.test(current) && current.includes('all done'), 'the preview again');
    expect(folded).toContain('    201');
  });

  test('Shift+Tab shows the mode in the status line; /permissions lists rules with their sources and forgets an approval', async () => {
    const { session, workspace } = await startBeans(
      [
        { toolCalls: [{ name: 'write_file', args: { path: 'one.txt', content: '1\n' } }] },
        { text: 'first done' },
        { toolCalls: [{ name: 'write_file', args: { path: 'two.txt', content: '2\n' } }] },
        { text: 'second done' },
      ],
      { userSettings: { permissions: { allow: ['shell(git status)'] } } },
    );
    session.press('BTab');
    await session.waitFor((screen) => screen.trimEnd().split('\n').at(-1)!.includes('⏵⏵ auto-edit on'), 'auto-edit in the status line');
    session.press('BTab');
    await session.waitForText('⏵⏵ plan mode');
    session.press('BTab');
    await session.waitFor((screen) => !screen.includes('plan mode'), 'default mode again');

    await session.submit('write one');
    await session.waitForText('Allow write_file one.txt?');
    await sleep(400);
    session.type('a');
    await session.waitForText('first done');
    await session.submit('/permissions');
    const listing = await session.waitForText('Forget a session approval?');
    expect(listing).toMatch(
      new RegExp(`shell\\(git status\\)\\s+${path.join(workspace.home, '.config', 'beans-agent', 'settings.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    expect(listing).toMatch(/^\s+write_file\s+this session$/m);
    session.press('Enter');
    await session.waitForText('Forgot 1 session approval');
    await session.submit('write two');
    await session.waitForText('Allow write_file two.txt?');
  });

  test('@file attaches the file and shows one line; a 30-line paste shows as [Pasted text · 30 lines]', async () => {
    const { session, server } = await startBeans([{ text: 'first answer' }, { text: 'second answer' }], { files: { 'notes.md': 'alpha\nbeta\ngamma\n' } });
    await session.submit('summarise @notes.md briefly');
    const screen = await session.waitForText('first answer');
    expect(screen).toContain('› summarise @notes.md briefly');
    expect(screen).toContain('⎿ attached notes.md · 3 lines');
    const lastUser = (index: number) => JSON.stringify(server.requests.filter((request) => request.kind === 'chat')[index]);
    expect(lastUser(0)).toContain('Contents of notes.md:');
    expect(lastUser(0)).toContain('beta');

    const pasted = Array.from({ length: 30 }, (_, i) => `trace ${i + 1}`).join('\n');
    session.type('why? ');
    session.paste(pasted);
    await session.waitForText('trace 30');
    session.press('Enter');
    const after = await session.waitForText('second answer');
    expect(after).toContain('› why? [Pasted text · 30 lines]');
    expect(after).not.toContain('trace 17');
    expect(lastUser(1)).toContain('trace 17');
  });

  test('!command, /status, /config, /model picker and /theme in the real program', async () => {
    const { session, server, workspace } = await startBeans([{ text: 'you printed bang-output' }]);
    await session.submit('!echo bang-output');
    await session.waitForText('exit 0 · 1 line');
    expect(session.screen()).toContain('› !echo bang-output');
    await session.submit('what did I print?');
    await session.waitForText('you printed bang-output');
    const sent = JSON.stringify(server.requests.filter((request) => request.kind === 'chat')[0]);
    expect(sent).toContain('$ echo bang-output');

    await session.submit('/status');
    const status = await session.waitForText('settings ');
    expect(status).toMatch(/provider\s+ollama/);
    expect(status).toMatch(/trust\s+not trusted/);
    expect(status).toMatch(/permissions\s+default mode/);

    await session.submit('/config');
    expect(await session.waitForText('beans config set')).toMatch(/permissions\.mode "default"\s+\(default\)/);

    await session.submit('/model');
    const picker = await session.waitForText('Enter switch');
    expect(picker).toMatch(/› ● scripted:latest/);
    session.press('Enter');
    await session.waitForText('Model switched to scripted:latest.');

    await session.submit('/theme light');
    await session.waitForText('Theme: light (saved in');
    const settings = readFileSync(path.join(workspace.home, '.config', 'beans-agent', 'settings.json'), 'utf8');
    expect(JSON.parse(settings)).toEqual({ ui: { theme: 'light' } });
  });
});
