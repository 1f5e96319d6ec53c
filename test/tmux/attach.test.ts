// `beans attach` (issue 54) in real terminals: the chat on a session that `beans serve` runs, its
// whole transcript first, then live; a question answered there; two terminals on one session; and
// leaving the chat leaves the session running.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startBeansServer, type BeansServer } from '../support/beans-server.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

const servers: BeansServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop('SIGKILL');
  await closeOpen();
});

async function served(turns: ScriptTurn[]): Promise<{ beans: BeansServer; model: ScriptedServer; workspace: TempRepo; env: Record<string, string> }> {
  const model = await startScriptedOllama({ turns });
  const workspace = makeTempRepo({ 'README.md': '# demo\n' });
  const env = { OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
  const beans = await startBeansServer({ cwd: workspace.dir, env: { ...workspace.env, ...env } });
  open.push({ workspace });
  servers.push(beans);
  open.push({ server: model });
  return { beans, model, workspace, env };
}

function attach(workspace: TempRepo, env: Record<string, string>, args: string[] = []): TmuxSession {
  const session = TmuxSession.start({ workspace, env, args: ['attach', ...args], columns: 100, rows: 30 });
  open.push({ session });
  return session;
}

describe.skipIf(!hasTmux)('beans attach (tmux)', () => {
  test('shows the transcript, then live turns; a question is answered in the chat; leaving keeps the session running', async () => {
    const { beans, workspace, env } = await served([
      { text: 'Hello **there**.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'notes/out.txt', content: 'from the attached chat\n' } }] },
      { text: 'Wrote notes/out.txt.' },
    ]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: workspace.dir, prompt: 'say hello' })).body;
    await beans.events(id, (events) => events.some((event) => event.data.type === 'result'));

    const terminal = attach(workspace, env);
    const first = await terminal.waitForText('Hello there.', 15_000);
    expect(first).toContain('› say hello');
    expect(first).not.toContain('**');
    await terminal.submit('write the notes');
    await terminal.waitForText('Allow write_file notes/out.txt?');
    // HTTP clients see the same question.
    const asked = await beans.events(id, (events) => events.some((event) => event.data.type === 'permission_request'));
    const question = asked.find((event) => event.data.type === 'permission_request')!.data;
    expect(question.tool_name).toBe('write_file');
    expect((await beans.api('GET', `v1/sessions/${id}`)).body.state).toBe('waiting');
    // A question that appears while its person types ignores keys for a moment (typed-ahead keys
    // never answer it); a person reads it first.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    terminal.type('y');
    await terminal.waitForText('Wrote notes/out.txt.');
    expect(readFileSync(path.join(workspace.dir, 'notes/out.txt'), 'utf8')).toBe('from the attached chat\n');
    const answered = await beans.events(id, (events) => events.filter((event) => event.data.type === 'result').length >= 2);
    expect(answered.find((event) => event.data.type === 'permission_resolved')!.data).toMatchObject({ request_id: question.request_id, behavior: 'allow' });

    terminal.press('C-d');
    await terminal.waitForText('[beans exited with 0]');
    expect(terminal.screen()).toContain(`Left session ${id}`);
    const after = (await beans.api('GET', `v1/sessions/${id}`)).body;
    expect(after).toMatchObject({ state: 'idle', exitCode: 0 });
  });

  test('two terminals on one session see the same turn; an answer in one withdraws the question in the other', async () => {
    const { beans, workspace, env } = await served([
      { toolCalls: [{ name: 'write_file', args: { path: 'both.txt', content: 'x\n' } }] },
      { text: ['Done ', 'for ', 'both.'], chunkDelayMs: 100 },
    ]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: workspace.dir })).body;
    const one = attach(workspace, env, [id]);
    const two = attach(workspace, env, [id.slice(0, 12)]);
    await one.waitForText('Ask anything');
    await two.waitForText('Ask anything');
    await one.submit('write both.txt');
    await one.waitForText('Allow write_file both.txt?');
    await two.waitForText('Allow write_file both.txt?');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    two.type('y');
    await two.waitForText('Done for both.');
    const screenOne = await one.waitForText('Done for both.');
    expect(screenOne).toContain('› write both.txt');
    expect(one.visible()).not.toContain('Allow write_file');
    expect(existsSync(path.join(workspace.dir, 'both.txt'))).toBe(true);
  });

  test('without a server it says how to start one (exit 2)', async () => {
    const workspace = makeTempRepo({});
    const terminal = TmuxSession.start({ workspace, env: {}, args: ['attach'] });
    open.push({ session: terminal, workspace });
    const screen = await terminal.waitForText('[beans exited with 2]');
    expect(screen).toContain('No Beans server is running here: start one with `beans serve`');
  });
});

describe.skipIf(!hasTmux)('/background (tmux)', () => {
  test('hands the chat session to the session server, which goes on with the prompt; beans attach comes back to it', async () => {
    const model = await startScriptedOllama({ turns: [{ text: 'First answer.' }, { text: 'Finished in the background.' }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    open.push({ server: model, workspace });
    const env = { OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    const chat = TmuxSession.start({ workspace, env, columns: 100, rows: 30 });
    open.push({ session: chat });
    await chat.waitForText('Ask anything');
    await chat.submit('start here');
    await chat.waitForText('First answer.');
    await chat.submit('/background now finish it');
    const left = await chat.waitForText('[beans exited with 0]', 15_000);
    const id = /Session (\S+) goes on in the session server/.exec(left)?.[1];
    expect(id, left).toBeDefined();
    const serverFile = path.join(workspace.home, '.local', 'state', 'beans-agent', 'server.json');
    const { pid } = JSON.parse(readFileSync(serverFile, 'utf8')) as { pid: number };
    try {
      const attached = TmuxSession.start({ workspace, env, args: ['attach', id!], columns: 100, rows: 30 });
      open.push({ session: attached });
      const screen = await attached.waitForText('Finished in the background.', 15_000);
      expect(screen).toContain('› start here');
      expect(screen).toContain('First answer.');
      expect(screen).toContain('› now finish it');
    } finally {
      process.kill(pid, 'SIGTERM');
    }
  });
});
