import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptFault, ScriptTurn, ScriptedServer } from '../support/script.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

// Issue #44 (part, helper chatui): the approval question's scrollable diff and single-key answers.

afterEach(closeOpen);

interface StartOptions {
  columns?: number;
  rows?: number;
  faults?: ScriptFault[];
  /** The user's settings.json. */
  settings?: Record<string, unknown>;
}

async function startBeans(turns: ScriptTurn[], files: Record<string, string> = { 'README.md': '# demo\n' }, { faults, settings, ...size }: StartOptions = {}) {
  const server = await startScriptedOllama({ turns, ...(faults ? { faults } : {}) });
  const workspace = makeTempRepo(files);
  if (settings) {
    const dir = path.join(workspace.home, '.config', 'beans-agent');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  }
  const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, ...size });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything', 15_000);
  return { server, workspace, session };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasTmux)('the approval question (tmux)', () => {
  test("a 60-line edit's last line can be read before answering, and y answers at once", async () => {
    const added = Array.from({ length: 60 }, (_, index) => `added row ${index + 1}`).join('\n');
    const { session, workspace } = await startBeans(
      [{ toolCalls: [{ name: 'edit_file', args: { path: 'notes.txt', old_string: 'middle\n', new_string: `${added}\n` } }] }, { text: 'Edited the notes.' }],
      { 'notes.txt': 'top\nmiddle\nbottom\n' },
      { columns: 100, rows: 24 },
    );
    await session.submit('grow the notes');
    await session.waitFor((screen) => screen.includes('Allow edit_file notes.txt?') && /↓ \d+ more lines/.test(screen), 'the question with its diff');
    expect(session.visible()).not.toContain('added row 60');
    session.press('PageDown');
    await session.waitFor(() => /↑ \d+ lines above/.test(session.visible()), 'a page scrolled');
    session.press('End');
    await session.waitFor(() => session.visible().includes('added row 60'), 'the last added row on screen');
    expect(session.visible()).toMatch(/^\s+\d+ \+ added row 60$/m);
    expect(session.visible()).toMatch(/^\s+\d+\s+bottom$/m);
    // Nothing answered by scrolling.
    expect(readFileSync(path.join(workspace.dir, 'notes.txt'), 'utf8')).toBe('top\nmiddle\nbottom\n');
    await sleep(400);
    session.type('y');
    await session.waitForText('Edited the notes.');
    expect(readFileSync(path.join(workspace.dir, 'notes.txt'), 'utf8')).toBe(`top\n${added}\nbottom\n`);
  });

  test('Ctrl+O prints the whole diff above the open question; a answers at once for the session', async () => {
    const content = Array.from({ length: 80 }, (_, index) => `row ${index + 1}`).join('\n');
    const { session, workspace } = await startBeans(
      [{ toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: `${content}\n` } }] }, { toolCalls: [{ name: 'write_file', args: { path: 'small.txt', content: 'x\n' } }] }, { text: 'Both written.' }],
      undefined,
      { columns: 100, rows: 24 },
    );
    await session.submit('write the files');
    await session.waitForText('Allow write_file big.txt?');
    session.press('C-o');
    const printed = await session.waitForText('Whole preview of write_file big.txt');
    // Every row reached the terminal (scrollback included), and the question is still open.
    for (const row of [1, 40, 80]) expect(printed).toMatch(new RegExp(`^\\s+${row} \\+ row ${row}$`, 'm'));
    expect(session.visible()).toContain('Allow write_file big.txt?');
    await sleep(300);
    session.type('a');
    await session.waitForText('Both written.');
    expect(session.screen()).not.toContain('Allow write_file small.txt');
    expect(readFileSync(path.join(workspace.dir, 'small.txt'), 'utf8')).toBe('x\n');
  });
});

const chatRequests = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat').length;

describe.skipIf(!hasTmux)('riding out an outage (tmux)', () => {
  test('a server answering 529 five times and then the answer: a countdown with the attempt, then the answer', async () => {
    const overloaded = { status: 529, body: { error: 'overloaded' } };
    const { session, server } = await startBeans([{ text: 'Here after the outage.' }], undefined, {
      // The first wait is the server's Retry-After (3 s), long enough to watch it count down.
      faults: [{ ...overloaded, headers: { 'retry-after': '3' } }, overloaded, overloaded, overloaded, overloaded],
      settings: { retry: { baseDelayMs: 100, maxDelayMs: 3000 } },
    });
    await session.submit('hello');
    const counting = await session.waitForText('↻ retrying in 3s · overloaded (529) · attempt 2 of 10 · esc stops waiting');
    expect(counting).toContain('esc stops waiting');
    await session.waitForText('↻ retrying in 1s · overloaded (529) · attempt 2 of 10');
    const screen = await session.waitForText('Here after the outage.', 20_000);
    expect(screen).not.toContain('↻ retrying');
    expect(chatRequests(server)).toBe(6);
  });

  test('Esc stops waiting: no further request, the turn ends and the input is back', async () => {
    const { session, server } = await startBeans([{ text: 'never' }], undefined, {
      faults: [{ status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '30' }, always: true }],
      settings: { retry: { maxAttempts: 3 } },
    });
    await session.submit('hello');
    await session.waitFor((screen) => /↻ retrying in (30|29|28)s · rate limited \(429\) · attempt 2 of 3/.test(screen), 'the countdown');
    session.press('Escape');
    await session.waitFor((screen) => !screen.includes('↻ retrying') && screen.includes('Ask anything'), 'the wait to end');
    await sleep(500);
    expect(chatRequests(server)).toBe(1);
  });
});
