import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { TmuxSession, hasTmux, makeWorkspace, type Workspace } from './tmux.ts';

const open: { session?: TmuxSession; server?: ScriptedServer; workspace?: Workspace }[] = [];
afterEach(async () => {
  for (const entry of open.splice(0)) {
    entry.session?.kill();
    await entry.server?.close();
    entry.workspace?.cleanup();
  }
});

async function startBeans(turns: ScriptTurn[], options: { env?: Record<string, string>; files?: Record<string, string>; args?: string[] } = {}) {
  const server = await startScriptedOllama({ turns });
  const workspace = makeWorkspace({ 'README.md': '# demo\n', ...options.files });
  const session = TmuxSession.start({ workspace, args: options.args, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', ...options.env } });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything', 15_000);
  return { server, workspace, session };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (screen: string, pattern: RegExp) => screen.split('\n').filter((row) => pattern.test(row)).length;

describe.skipIf(!hasTmux)('the chat screen in a real terminal (tmux)', () => {
  test('shrinking the window from 120 to 80 columns in steps leaves the same screen as a fresh redraw (Ctrl+L)', async () => {
    const long = 'This paragraph is long enough to wrap at eighty columns but not at a hundred and twenty, like real answers.';
    const { session } = await startBeans([{ text: ['## Plan\n\n', `${long}\n\n`, '- one\n- two\n\nDone.'] }]);
    await session.submit('make a plan');
    await session.waitForText('Done.');
    await session.waitFor((screen) => !screen.includes('Working…'), 'the turn to end');
    for (const columns of [112, 104, 96, 88, 80]) {
      session.resize(columns, 40);
      await sleep(40);
    }
    await sleep(600);
    const resized = session.screen();
    // One rule above the input, one input row, the question once: nothing left from wider frames.
    expect(count(resized, /^─+$/)).toBe(1);
    expect(count(resized, /Ask anything/)).toBe(1);
    expect(count(resized, /› make a plan/)).toBe(1);
    expect(resized.split('\n').every((row) => row.length <= 80)).toBe(true);
    session.press('C-l');
    await sleep(600);
    expect(session.screen()).toBe(resized);
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
});
