import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptFault, ScriptTurn, ScriptedServer } from '../support/script.ts';
import { BEANS_BIN, TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { runBeans } from '../e2e/harness.ts';

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
  await session.waitForText('Ask anything');
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
      [
        { toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: `${content}\n` } }] },
        { toolCalls: [{ name: 'write_file', args: { path: 'small.txt', content: 'x\n' } }] },
        { text: 'Both written.' },
      ],
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

// A status line script as Claude Code users write them: reads the JSON on stdin, prints one line.
const STATUS_SCRIPT = `
const fs = require('node:fs');
const path = require('node:path');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const counter = path.join(__dirname, 'runs');
const runs = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0) + 1;
fs.writeFileSync(counter, String(runs));
fs.writeFileSync(path.join(__dirname, 'last.json'), JSON.stringify(input));
process.stdout.write('\\x1b[32mSL\\x1b[0m ' + input.model.display_name + ' in ' + path.basename(input.workspace.project_dir) + ' run ' + runs + ' mode ' + input.beans.permission_mode + '\\nsecond line never shown\\n');
`;

describe.skipIf(!hasTmux)('the status line (tmux)', () => {
  test("a statusLine command's first line is drawn, refreshed after a message and on a mode change; the footer shows the git branch", async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const scripts = path.join(workspace.home, 'scripts');
    mkdirSync(scripts, { recursive: true });
    writeFileSync(path.join(scripts, 'status.cjs'), STATUS_SCRIPT);
    const again = await restart(workspace, { statusLine: { type: 'command', command: `node ${path.join(scripts, 'status.cjs')}`, padding: 2 } }, [
      { text: 'First answer.' },
    ]);
    await again.session.waitFor((screen) => /^ {2}SL scripted:latest in repo run \d+ mode default$/m.test(screen), 'the status line');
    expect(again.session.screen()).not.toContain('second line never shown');
    // The default footer, below it, names the branch.
    expect(again.session.visible().split('\n').at(-1)).toContain('⎇ feature/status');
    const runsBefore = Number(readFileSync(path.join(scripts, 'runs'), 'utf8'));
    await again.session.submit('hello');
    await again.session.waitForText('First answer.');
    await again.session.waitFor(
      (screen) => Number(/SL scripted:latest in repo run (\d+)/.exec(screen.split('\n').slice(-3).join('\n'))?.[1]) > runsBefore,
      'a newer run after the message',
    );
    again.session.press('BTab');
    await again.session.waitForText('mode auto-edit');
    const input = JSON.parse(readFileSync(path.join(scripts, 'last.json'), 'utf8')) as Record<string, any>;
    expect(input.hook_event_name).toBe('Status');
    expect(input.model).toEqual({ id: 'scripted:latest', display_name: 'scripted:latest' });
    expect(input.workspace.project_dir).toBe(workspace.dir);
    expect(input.transcript_path).toMatch(new RegExp(`${input.session_id}\\.jsonl$`));
    expect(readFileSync(input.transcript_path, 'utf8')).toContain('hello');
    expect(input.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(input.cost).toMatchObject({ total_cost_usd: expect.any(Number), total_lines_added: 0 });
  });

  test('a failing command draws nothing and the input works; /statusline says why', async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const { session } = await restart(workspace, { statusLine: { type: 'command', command: 'echo partial; exit 3' } }, [{ text: 'Still answering.' }]);
    // The first run starts after the first frame; give it time on a busy machine.
    await sleep(1500);
    await session.submit('/statusline');
    const shown = await session.waitForText('exited with code 3');
    expect(shown).toContain('echo partial; exit 3');
    expect(shown).not.toMatch(/^partial$/m);
    await session.submit('hi');
    await session.waitForText('Still answering.');
  });
});

describe.skipIf(!hasTmux)("a repository's status line waits for trust (tmux)", () => {
  test('untrusted: not run (the trust question offered, "not now"); after `beans trust`: drawn', async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const canary = path.join(workspace.home, 'repo-status-ran');
    mkdirSync(path.join(workspace.dir, '.beans'), { recursive: true });
    writeFileSync(
      path.join(workspace.dir, '.beans', 'settings.json'),
      JSON.stringify({ statusLine: { type: 'command', command: `touch ${canary}; echo REPO-STATUS` } }),
    );
    const server = await startScriptedOllama({ turns: [{ text: 'ok' }] });
    const env = { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' };
    const first = TmuxSession.start({ workspace, env });
    open.push({ session: first, server, workspace });
    const question = await first.waitForText('Esc not now', 15_000);
    expect(question).toContain('statusLine');
    await sleep(500);
    first.press('Escape');
    await first.waitForText('Ask anything');
    await sleep(800);
    // The command's text is quoted in the question and the warning; its output is never drawn.
    expect(first.screen()).not.toMatch(/^REPO-STATUS$/m);
    expect(existsSync(canary)).toBe(false);
    first.kill();

    execFileSync(BEANS_BIN, ['trust'], { cwd: workspace.dir, env: { ...workspace.env, ...env } });
    const second = TmuxSession.start({ workspace, env });
    open.push({ session: second });
    await second.waitFor((screen) => /^REPO-STATUS$/m.test(screen), 'the repository status line', 15_000);
    expect(existsSync(canary)).toBe(true);
  });
});

describe.skipIf(!hasTmux)('the resume picker (tmux)', () => {
  test("`beans -r` with no id lists this workspace's sessions newest first; a typed word filters; Enter resumes it", async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const server = await startScriptedOllama({ turns: [{ text: 'Answer about parsers.' }] });
    const env = { ...workspace.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'scripted' };
    // Two earlier sessions, made by one-shot runs.
    // Async: the scripted server answers from this process.
    expect((await runBeans(['-p', 'fix the tokenizer in the parser'], { cwd: workspace.dir, env })).code).toBe(0);
    await sleep(20);
    expect((await runBeans(['-p', 'write the release notes'], { cwd: workspace.dir, env })).code).toBe(0);
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['-r'] });
    open.push({ session, server, workspace });
    const picker = await session.waitForText('Resume a session', 15_000);
    expect(picker.indexOf('write the release notes')).toBeLessThan(picker.indexOf('fix the tokenizer'));
    // Whole ids (never cut), after the branch the session began on.
    expect(picker).toMatch(/ · 1 turn · ⎇ \S+ · [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/m);
    session.type('tokenizer');
    await session.waitForText('(1 of 2)');
    expect(session.visible()).not.toContain('write the release notes');
    session.press('Enter');
    const resumed = await session.waitForText('(resumed)');
    expect(resumed).toContain('Answer about parsers.');
    expect(resumed).toMatch(/› fix the tokenizer in the parser/);
  });

  test('/rename names the session: the picker shows the name and finds it by it', async () => {
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const server = await startScriptedOllama({ turns: [{ text: 'Looked at it.' }] });
    const env = { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' };
    expect((await runBeans(['-p', 'an unrelated older question'], { cwd: workspace.dir, env: { ...workspace.env, ...env } })).code).toBe(0);
    const first = TmuxSession.start({ workspace, env });
    open.push({ session: first, server, workspace });
    await first.waitForText('Ask anything');
    await first.submit('check the lexer');
    await first.waitForText('Looked at it.');
    await first.submit('/rename Lexer cleanup');
    await first.waitForText('This session is now called "Lexer cleanup".');
    await first.submit('/exit');
    await first.waitForText('[beans exited with 0]');
    first.kill();
    const second = TmuxSession.start({ workspace, env, args: ['-r'] });
    open.push({ session: second });
    const picker = await second.waitForText('Resume a session', 15_000);
    expect(picker).toMatch(/› Lexer cleanup\s+\d{4}-/);
    second.type('cleanup');
    await second.waitForText('(1 of 2)');
    expect(second.visible()).not.toContain('an unrelated older question');
  });

  test('`beans -p` with -r and no id is a usage error (exit 2)', () => {
    const workspace = makeTempRepo();
    try {
      execFileSync(BEANS_BIN, ['-r', '-p', 'hi'], { cwd: workspace.dir, env: workspace.env, input: '' });
      expect.unreachable();
    } catch (error) {
      const failure = error as { status: number; stderr: Buffer };
      expect(failure.status).toBe(2);
      expect(failure.stderr.toString()).toContain('needs a session id');
    } finally {
      workspace.cleanup();
    }
  });
});

async function restart(workspace: ReturnType<typeof makeTempRepo>, settings: Record<string, unknown>, turns: ScriptTurn[]) {
  const dir = path.join(workspace.home, '.config', 'beans-agent');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  execFileSync('git', ['checkout', '-q', '-b', 'feature/status'], { cwd: workspace.dir });
  const server = await startScriptedOllama({ turns });
  const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything');
  return { session, server };
}
