// What a Claude Code user meets in the first day (issue 59), in the real program in tmux.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn } from '../support/script.ts';
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
});
