import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

// Issue #44 (part): edits checked before asking, /export, /context, /copy, as a person types them.

afterEach(closeOpen);

async function startBeans(turns: ScriptTurn[], files: Record<string, string | Buffer> = { 'README.md': '# demo\n' }) {
  const server = await startScriptedOllama({ turns });
  const workspace = makeTempRepo(files);
  const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything');
  return { server, workspace, session };
}

type ChatBody = { messages: { role: string; content: string }[] };
const toolResults = (server: ScriptedServer) =>
  server.requests
    .filter((request) => request.kind === 'chat')
    .flatMap((request) => (request.body as ChatBody).messages.filter((message) => message.role === 'tool').map((message) => message.content));

describe.skipIf(!hasTmux)('chat keys and commands of issue #44 (tmux)', () => {
  test('an edit whose old_string is missing reaches the next model turn with no question', async () => {
    const { session, server, workspace } = await startBeans([
      { toolCalls: [{ name: 'edit_file', args: { path: 'README.md', old_string: 'no such text', new_string: 'x' } }] },
      { text: 'The text was not there, nothing changed.' },
    ]);
    await session.submit('change the readme');
    const screen = await session.waitForText('nothing changed.');
    expect(screen).not.toContain('Allow edit_file');
    expect(toolResults(server)).toEqual([expect.stringMatching(/old_string/)]);
    expect(readFileSync(path.join(workspace.dir, 'README.md'), 'utf8')).toBe('# demo\n');
  });

  test('a question about a write with no diff (binary file) shows the path and text, not JSON', async () => {
    const { session, workspace } = await startBeans(
      [
        // Read first (a refused binary read counts: write_file replaces only files the model has seen).
        { toolCalls: [{ name: 'read_file', args: { path: 'blob.dat' } }] },
        { toolCalls: [{ name: 'write_file', args: { path: 'blob.dat', content: 'plain words now\n' } }] },
        { text: 'Left it.' },
      ],
      {
        'blob.dat': Buffer.from([0, 1, 2, 3, 0, 255]),
      },
    );
    await session.submit('replace the blob');
    const question = await session.waitForText('+ plain words now');
    expect(question).toContain('Allow write_file blob.dat?');
    expect(question).not.toContain('"content"');
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.type('n');
    await session.waitForText('Tell the model why');
    session.press('Enter');
    await session.waitForText('Left it.');
    expect(existsSync(path.join(workspace.dir, 'blob.dat'))).toBe(true);
  });

  test('/export out.md writes the prompts, the answers and the tool calls in short', async () => {
    const { session, workspace } = await startBeans([
      { toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] },
      { text: 'The readme is **one heading**.' },
      { text: 'Second answer here.' },
    ]);
    await session.submit('what is in the readme?');
    await session.waitForText('one heading');
    await session.submit('and then?');
    await session.waitForText('Second answer here.');
    await session.submit('/export out.md');
    await session.waitForText('Exported the conversation to');
    const markdown = readFileSync(path.join(workspace.dir, 'out.md'), 'utf8');
    expect(markdown).toMatch(/^# Beans conversation /);
    expect(markdown).toContain('## You\n\nwhat is in the readme?');
    expect(markdown).toContain('- `read_file` `README.md` · ok');
    expect(markdown).toContain('The readme is **one heading**.');
    expect(markdown).toContain('## You\n\nand then?\n\n## Beans\n\nSecond answer here.');
  });

  test('/copy puts the last answer on the clipboard with OSC 52 and says so', async () => {
    const { session } = await startBeans([{ text: 'Copy **me** exactly.' }]);
    session.acceptClipboard();
    await session.submit('/copy');
    await session.waitForText('no answer to copy yet');
    await session.submit('say something');
    await session.waitForText('exactly.');
    await session.submit('/copy');
    await session.waitForText('Copied the last answer');
    await session.waitFor(() => session.newestBuffer() !== '', 'the OSC 52 copy to reach tmux');
    expect(session.newestBuffer()).toBe('Copy **me** exactly.');
  });

  test('/context shows each category with tokens and a share of the window', async () => {
    const { session } = await startBeans([{ text: 'A short answer.' }], {
      'README.md': '# demo\n',
      'AGENTS.md': `# Rules\n${'Keep every change small and tested. '.repeat(40)}\n`,
    });
    await session.submit('hello');
    await session.waitForText('A short answer.');
    await session.submit('/context');
    const screen = await session.waitForText('Auto-compaction reserve');
    expect(screen).toMatch(/Context window · \S+: [\d.]+k? of [\d.]+[kM] tokens \(\d+%\)/);
    for (const name of ['System prompt', 'Built-in tools', 'MCP tools', 'Context files', 'Skills', 'Messages', 'Free space', 'Auto-compaction reserve']) {
      expect(screen).toMatch(new RegExp(`${name}\\s+[\\d.]+k?\\s+[\\d.]+%`));
    }
    // AGENTS.md is ~1,400 bytes: a few hundred tokens, not zero; the reserve is 20% of the window (threshold 0.8).
    const contextFiles = Number(/Context files\s+(\d+)/.exec(screen)?.[1]);
    expect(contextFiles).toBeGreaterThan(300);
    expect(screen).toMatch(/Auto-compaction reserve\s+[\d.]+k?\s+20\.0%/);
    expect(screen).toContain('Estimated as UTF-8 bytes / 4');
  });

  test('/export with no file offers the clipboard or a file; choosing the file writes it', async () => {
    const { session, workspace } = await startBeans([{ text: 'Only answer.' }]);
    await session.submit('hi');
    await session.waitForText('Only answer.');
    await session.submit('/export');
    const picker = await session.waitForText('the clipboard (OSC 52)');
    const file = /a file: (beans-conversation-\S+\.md)/.exec(picker)?.[1];
    expect(file).toBeDefined();
    session.press('Down');
    await new Promise((resolve) => setTimeout(resolve, 200));
    session.press('Enter');
    await session.waitForText('Exported the conversation to');
    expect(readFileSync(path.join(workspace.dir, file!), 'utf8')).toContain('## Beans\n\nOnly answer.');
  });
  test('Ctrl+_ undoes typing a word at a time and Ctrl+Y puts back what Ctrl+W cut, in a real terminal', async () => {
    const { session } = await startBeans([{ text: 'ok' }]);
    const inputRow = () =>
      session
        .visible()
        .split('\n')
        .findLast((row) => row.startsWith('› '))
        ?.trimEnd() ?? '';
    for (const char of 'run the slow tests') session.type(char);
    await session.waitFor(() => inputRow() === '› run the slow tests', 'the typed prompt');
    session.press('C-_');
    await session.waitFor(() => inputRow() === '› run the slow', 'one word undone');
    session.press('C-w');
    await session.waitFor(() => inputRow() === '› run the', 'a word cut');
    session.press('C-a', 'C-y');
    await session.waitFor(() => inputRow() === '› slow run the', 'the cut word (and its space) put back at the start');
  });
  test('Ctrl+T shows the task list above the input and hides it again', async () => {
    const todos = [
      { content: 'Read the failing test', status: 'completed' },
      { content: 'Fix the parser', status: 'in_progress' },
    ];
    const { session } = await startBeans([{ toolCalls: [{ name: 'todo_write', args: { todos } }] }, { text: 'Planned.' }]);
    await session.submit('plan the fix');
    await session.waitForText('Planned.');
    session.press('C-t');
    const shown = await session.waitFor((screen) => screen.includes('Tasks · Ctrl+T hides'), 'the task panel');
    const rows = shown.split('\n');
    const header = rows.findIndex((row) => row.startsWith('Tasks · Ctrl+T hides'));
    expect(rows.slice(header + 1, header + 3).map((row) => row.trim())).toEqual(['☑ Read the failing test', '◐ Fix the parser']);
    session.press('C-t');
    await session.waitFor((screen) => !screen.includes('Tasks · Ctrl+T hides'), 'the panel gone');
  });
  test('Alt+M cycles the mode and Ctrl+S stashes the draft until the next prompt is sent, in a real terminal', async () => {
    const { session } = await startBeans([{ text: 'Checked.' }]);
    session.press('M-m');
    await session.waitForText('auto-edit on');
    session.type('the long request');
    await session.waitForText('› the long request');
    session.press('C-s');
    await session.waitForText('Stashed the draft');
    await session.submit('check first');
    await session.waitForText('Checked.');
    await session.waitFor(
      (screen) => screen.split('\n').some((row) => row.trimEnd() === '› the long request') && !screen.includes('Stashed the draft'),
      'the draft back',
    );
  });
});
