// `beans acp` driven the way an editor drives it: the ACP SDK's own client side over the real
// process's stdin and stdout, against a scripted OpenAI-compatible server.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  client,
  ndJsonStream,
  type ClientContext,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptedServer, TurnSource } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo, type TempRepo } from './harness.ts';

const EVERYTHING = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

const servers: ScriptedServer[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const server of servers.splice(0)) await server.close();
});

async function openAi(turns: TurnSource): Promise<ScriptedServer> {
  const server = await startScriptedOpenAi({ turns });
  servers.push(server);
  return server;
}

function providerEnv(server: ScriptedServer): NodeJS.ProcessEnv {
  return { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' };
}

interface Editor {
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  reads: ReadTextFileRequest[];
  writes: WriteTextFileRequest[];
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
}

interface EditorOptions {
  /** The answer to each permission question, by tool title prefix; default allow once. */
  answer?: (request: RequestPermissionRequest) => string | Promise<string | undefined>;
  /** Offer fs/read_text_file and fs/write_text_file, over this map of unsaved buffers (path -> text). */
  buffers?: Map<string, string>;
}

/** Starts `beans acp` in the repository and runs `op` as a connected editor. */
async function asEditor<T>(repo: TempRepo, env: NodeJS.ProcessEnv, options: EditorOptions, op: (ctx: ClientContext, editor: Editor) => Promise<T>): Promise<T> {
  const child = spawn(BEANS_BIN, ['acp'], { cwd: repo.dir, env: { ...repo.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const editor: Editor = { updates: [], permissions: [], reads: [], writes: [], child, stderr: () => stderr };
  let app = client({ name: 'test-editor' })
    .onNotification('session/update', ({ params }) => void editor.updates.push(params))
    .onRequest('session/request_permission', async ({ params }): Promise<RequestPermissionResponse> => {
      editor.permissions.push(params);
      // An answer of undefined: the editor withdrew the question (the turn was cancelled).
      const chosen = options.answer ? await options.answer(params) : 'allow_once';
      return chosen === undefined ? { outcome: { outcome: 'cancelled' } } : { outcome: { outcome: 'selected', optionId: chosen } };
    });
  const buffers = options.buffers;
  if (buffers) {
    app = app
      .onRequest('fs/read_text_file', ({ params }) => {
        editor.reads.push(params);
        const text = buffers.get(params.path) ?? readFileSync(params.path, 'utf8');
        return { content: text };
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        editor.writes.push(params);
        buffers.set(params.path, params.content);
        return {};
      });
  }
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const result = await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: !!buffers, writeTextFile: !!buffers }, terminal: false },
      clientInfo: { name: 'test-editor', version: '1.0.0' },
    });
    expect(init).toEqual({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { list: {}, close: {} },
      },
      authMethods: [],
      agentInfo: { name: 'beans', title: 'Beans', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    });
    return op(ctx, editor);
  });
  // The editor goes away (its end of the pipe closes): Beans ends its sessions and exits by itself.
  child.stdin.end();
  expect(await exited).toBe(0);
  // Nothing but protocol messages on stdout, one JSON-RPC object per line.
  for (const line of stdout.split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  return result;
}

function updatesOf(editor: Editor, kind: string, sessionId?: string) {
  return editor.updates.filter((n) => n.update.sessionUpdate === kind && (!sessionId || n.sessionId === sessionId)).map((n) => n.update as Record<string, any>);
}

function textOf(editor: Editor, kind: string, sessionId?: string): string {
  return updatesOf(editor, kind, sessionId)
    .map((update) => update.content.text)
    .join('');
}

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';

/** Live `sleep 30` processes working in `dir`, seen from this PID namespace (zombies have no command line). */
function sleepersIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8') === 'sleep\u000030\u0000' && readlinkSync(`/proc/${entry}/cwd`) === dir;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('beans acp', () => {
  it('answers initialize with its capabilities and fixes a bug through read, edit (asked, diff) and shell', async () => {
    const repo = makeTempRepo({
      'src/add.mjs': BUGGY,
      'check.mjs': "import { add } from './src/add.mjs';\nconsole.log(add(2, 3) === 5 ? 'sum ok' : 'sum wrong');\n",
    });
    const server = await openAi([
      {
        reasoning: 'The sum looks wrong.',
        text: 'Let me read it.',
        toolCalls: [
          { name: 'read_file', args: { path: 'src/add.mjs' }, id: 'read1' },
          {
            name: 'todo_write',
            args: {
              todos: [
                { content: 'Fix add', status: 'in_progress' },
                { content: 'Run the check', status: 'pending' },
              ],
            },
            id: 'todo1',
          },
        ],
      },
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/add.mjs', old_string: 'return a - b;', new_string: 'return a + b;' }, id: 'edit1' }] },
      { toolCalls: [{ name: 'shell', args: { command: 'node check.mjs' }, id: 'shell1' }] },
      { text: ['Fixed: ', 'add now adds.'] },
    ]);
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const created = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(['default', 'auto-edit', 'plan', 'yolo']);
      expect(created.modes?.currentModeId).toBe('default');
      const model = created.configOptions?.find((option) => option.id === 'model');
      expect(model).toMatchObject({ type: 'select', category: 'model', currentValue: 'gpt-5-mini' });
      expect(created.configOptions?.find((option) => option.id === 'mode')).toMatchObject({ type: 'select', category: 'mode', currentValue: 'default' });
      // Both pickers work: the mode through its config option too.
      const switched = await ctx.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: 'gpt-5' });
      expect(switched.configOptions.find((option) => option.id === 'model')).toMatchObject({ currentValue: 'gpt-5' });
      await ctx.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: 'gpt-5-mini' });
      await ctx.request('session/set_config_option', { sessionId: created.sessionId, configId: 'mode', value: 'plan' });
      await ctx.request('session/set_mode', { sessionId: created.sessionId, modeId: 'default' });
      await expect(ctx.request('session/set_mode', { sessionId: created.sessionId, modeId: 'reckless' })).rejects.toMatchObject({ code: -32602 });
      await until(() => updatesOf(editor, 'config_option_update').length > 0);
      expect(updatesOf(editor, 'current_mode_update')).toEqual([expect.objectContaining({ currentModeId: 'plan' })]);
      expect(
        updatesOf(editor, 'config_option_update')
          .at(-1)!
          .configOptions.find((option: { id: string }) => option.id === 'mode'),
      ).toMatchObject({ currentValue: 'default' });
      const answer = await ctx.request('session/prompt', {
        sessionId: created.sessionId,
        prompt: [
          { type: 'text', text: 'Fix the bug in ' },
          { type: 'resource_link', uri: `file://${repo.dir}/src/add.mjs`, name: 'add.mjs' },
        ],
      });
      expect(answer.stopReason).toBe('end_turn');

      expect(readFileSync(path.join(repo.dir, 'src/add.mjs'), 'utf8')).toContain('return a + b;');
      expect(textOf(editor, 'agent_thought_chunk')).toBe('The sum looks wrong.');
      expect(textOf(editor, 'agent_message_chunk')).toBe('Let me read it.Fixed: add now adds.');
      // The model saw the link as a mention of the file.
      expect(JSON.stringify(server.requests.find((request) => request.kind === 'chat')!.body)).toContain('Fix the bug in @src/add.mjs');

      const calls = updatesOf(editor, 'tool_call');
      const read = calls.find((call) => call.toolCallId === 'read1')!;
      expect(read).toMatchObject({ title: 'Read src/add.mjs', kind: 'read', locations: [{ path: path.join(repo.dir, 'src/add.mjs'), line: 1 }] });
      const edit = calls.find((call) => call.toolCallId === 'edit1')!;
      expect(edit).toMatchObject({ title: 'Edit src/add.mjs', kind: 'edit', locations: [{ path: path.join(repo.dir, 'src/add.mjs'), line: 2 }] });
      expect(calls.find((call) => call.toolCallId === 'shell1')).toMatchObject({ title: 'node check.mjs', kind: 'execute' });

      const done = (id: string) =>
        updatesOf(editor, 'tool_call_update')
          .filter((update) => update.toolCallId === id && update.status === 'completed')
          .at(-1)!;
      expect(done('edit1').content).toEqual([{ type: 'diff', path: path.join(repo.dir, 'src/add.mjs'), oldText: 'return a - b;', newText: 'return a + b;' }]);
      expect(done('shell1').content[0].content.text).toContain('sum ok');
      expect(done('read1').content[0].content.text).toContain('return a - b;');
      // The context the last request filled, of gpt-5-mini's 400k window, and the session's cost.
      expect(updatesOf(editor, 'usage_update').at(-1)).toMatchObject({
        size: 400_000,
        used: expect.any(Number),
        cost: { amount: expect.any(Number), currency: 'USD' },
      });
      // Plugin slash commands for the editor's menu (the built-in plugins' /review among them).
      expect(updatesOf(editor, 'available_commands_update').at(-1)!.availableCommands).toContainEqual(
        expect.objectContaining({ name: 'review', input: { hint: expect.any(String) } }),
      );
      expect(updatesOf(editor, 'plan').at(-1)!.entries).toEqual([
        { content: 'Fix add', priority: 'medium', status: 'in_progress' },
        { content: 'Run the check', priority: 'medium', status: 'pending' },
      ]);

      // Asked for the edit (with its diff) and the command; never for the read.
      expect(editor.permissions.map((request) => request.toolCall.title)).toEqual(['Edit src/add.mjs', 'node check.mjs']);
      expect(editor.permissions[0]!.options.map((option) => option.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
      expect(editor.permissions[0]!.toolCall.content).toEqual(done('edit1').content);
      expect(editor.stderr()).toBe('');
    });
  });

  it("reads unsaved buffers and writes edits through the editor's fs when it offers it", async () => {
    const notebookOf = (...sources: string[]) =>
      `${JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: sources.map((source, index) => ({ cell_type: 'code', id: `c${index}`, metadata: {}, source: [source], outputs: [], execution_count: null })) }, null, 1)}\n`;
    const repo = makeTempRepo({ 'src/add.mjs': BUGGY, 'nb.ipynb': notebookOf('x = 1\n', 'print(x)\n') });
    const file = path.join(repo.dir, 'src/add.mjs');
    const notebook = path.join(repo.dir, 'nb.ipynb');
    const buffers = new Map([
      [file, BUGGY.replace('return a - b;', 'return a - b; // unsaved')],
      [notebook, notebookOf('x = 1\n', 'print(x)  # unsaved\n')],
    ]);
    const server = await openAi([
      { toolCalls: [{ name: 'read_file', args: { path: 'src/add.mjs' }, id: 'read1' }] },
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/add.mjs', old_string: 'a - b; // unsaved', new_string: 'a + b;' }, id: 'edit1' }] },
      { toolCalls: [{ name: 'notebook_edit', args: { path: 'nb.ipynb', cell_id: 'c0', new_source: 'x = 2\n' }, id: 'nb1' }] },
      { toolCalls: [{ name: 'write_file', args: { path: '../escape.txt', content: 'no' }, id: 'escape' }] },
      { text: 'Done.' },
    ]);
    await asEditor(repo, providerEnv(server), { buffers }, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fix it' }] })).stopReason).toBe('end_turn');
      // The model read the editor's buffer, not the disk.
      expect(JSON.stringify(server.requests.filter((request) => request.kind === 'chat')[1]!.body)).toContain('return a - b; // unsaved');
      expect(editor.reads.map((request) => [request.sessionId, request.path])).toContainEqual([sessionId, file]);
      // A notebook cell edit too: made on the editor's unsaved buffer, written through the editor.
      expect(editor.writes).toEqual([
        { sessionId, path: file, content: 'export function add(a, b) {\n  return a + b;\n}\n' },
        { sessionId, path: notebook, content: notebookOf('x = 2\n', 'print(x)  # unsaved\n') },
      ]);
      expect(readFileSync(file, 'utf8')).toBe(BUGGY);
      expect(readFileSync(notebook, 'utf8')).toBe(notebookOf('x = 1\n', 'print(x)\n'));
      // Confinement holds: the write outside the workspace failed and the editor was never asked.
      expect(
        updatesOf(editor, 'tool_call_update')
          .filter((update) => update.toolCallId === 'escape')
          .at(-1),
      ).toMatchObject({ status: 'failed' });
      expect(existsSync(path.join(repo.dir, '../escape.txt'))).toBe(false);
    });
  });

  it('remembers "allow always" as chat does, and "reject always" for the rest of the session', async () => {
    const repo = makeTempRepo({ 'a.txt': 'one\n' });
    const server = await openAi([
      { toolCalls: [{ name: 'shell', args: { command: 'touch ./made-1' }, id: 's1' }] },
      { toolCalls: [{ name: 'shell', args: { command: 'touch ./made-2' }, id: 's2' }] },
      { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'one', new_string: 'two' }, id: 'e1' }] },
      { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'one', new_string: 'three' }, id: 'e2' }] },
      { text: 'Done.' },
    ]);
    const answer = (request: RequestPermissionRequest) => (request.toolCall.kind === 'execute' ? 'allow_always' : 'reject_always');
    await asEditor(repo, providerEnv(server), { answer }, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })).stopReason).toBe('end_turn');
      // Asked once per kind: the second command ran, the second edit was refused, without asking.
      expect(editor.permissions.map((request) => request.toolCall.toolCallId)).toEqual(['s1', 'e1']);
      const status = (id: string) =>
        updatesOf(editor, 'tool_call_update')
          .filter((update) => update.toolCallId === id)
          .at(-1)!.status;
      expect([status('s1'), status('s2'), status('e1'), status('e2')]).toEqual(['completed', 'completed', 'failed', 'failed']);
      expect(readFileSync(path.join(repo.dir, 'a.txt'), 'utf8')).toBe('one\n');
      expect(existsSync(path.join(repo.dir, 'made-2'))).toBe(true);
    });
  });

  it("nests a subagent's progress under its task call", async () => {
    const repo = makeTempRepo({ 'notes.txt': 'beans\n' });
    const server = await openAi((request, n) => {
      const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
      const child = JSON.stringify(messages.find((message) => message.role === 'user')?.content ?? '').includes('CHILD TASK');
      if (child) return n === 0 ? { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'c1' }] } : { text: 'The notes say beans.' };
      return n === 0
        ? {
            toolCalls: [
              { name: 'task', args: { description: 'read the notes', prompt: 'CHILD TASK: read notes.txt', subagent_type: 'general-purpose' }, id: 't1' },
            ],
          }
        : { text: 'Parent done.' };
    });
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'delegate' }] })).stopReason).toBe('end_turn');
      expect(updatesOf(editor, 'tool_call').find((call) => call.toolCallId === 't1')).toMatchObject({
        title: 'general-purpose: read the notes',
        kind: 'think',
      });
      const progress = updatesOf(editor, 'tool_call_update').filter(
        (update) => update.toolCallId === 't1' && update.status === 'in_progress' && update.content,
      );
      expect(progress.at(-1)!.content[0].content.text).toBe('general-purpose is working:\n- Read notes.txt');
      expect(
        updatesOf(editor, 'tool_call_update')
          .filter((update) => update.toolCallId === 't1')
          .at(-1),
      ).toMatchObject({ status: 'completed' });
      // The child's own call is not shown as one of the session's.
      expect(updatesOf(editor, 'tool_call').map((call) => call.toolCallId)).toEqual(['t1']);
      expect(textOf(editor, 'agent_message_chunk')).toBe('Parent done.');
    });
  });

  it("uses the editor's MCP servers", async () => {
    const repo = makeTempRepo();
    const server = await openAi([{ toolCalls: [{ name: 'mcp__editor-tools__echo', args: { message: 'from the editor' }, id: 'm1' }] }, { text: 'Echoed.' }]);
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', {
        cwd: repo.dir,
        mcpServers: [{ name: 'editor-tools', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] }],
      });
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo' }] })).stopReason).toBe('end_turn');
      expect(updatesOf(editor, 'tool_call').find((call) => call.toolCallId === 'm1')).toMatchObject({ title: 'editor-tools: echo', kind: 'other' });
      const done = updatesOf(editor, 'tool_call_update')
        .filter((update) => update.toolCallId === 'm1')
        .at(-1)!;
      expect(done).toMatchObject({ status: 'completed' });
      expect(JSON.stringify(done.content)).toContain('Echo: from the editor');
      // The model was offered the server's tools.
      expect(JSON.stringify(server.requests.find((request) => request.kind === 'chat')!.body)).toContain('mcp__editor-tools__echo');
    });
  });

  it('runs a plugin slash command typed in the editor', async () => {
    const repo = makeTempRepo({ 'src/add.mjs': BUGGY });
    const server = await openAi([{ text: 'It adds, badly.' }]);
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/explain src/add.mjs' }] })).stopReason).toBe('end_turn');
      const body = JSON.stringify(server.requests.find((request) => request.kind === 'chat')!.body);
      expect(body).toContain('Explain this to a developer who is new to the codebase: src/add.mjs');
      expect(textOf(editor, 'agent_message_chunk')).toBe('It adds, badly.');
    });
  });

  it('cancels a turn within a second, killing its command, and answers cancelled', async () => {
    const repo = makeTempRepo();
    const server = await openAi([
      { toolCalls: [{ name: 'shell', args: { command: 'echo started > sleeper.pid; sleep 30' }, id: 'slow' }] },
      { text: 'Back again.' },
    ]);
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      await ctx.request('session/set_mode', { sessionId, modeId: 'yolo' });
      const prompt = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait' }] });
      const pidFile = path.join(repo.dir, 'sleeper.pid');
      // Found from here: the command runs in a PID namespace of its own, where its $$ means another pid.
      await until(() => existsSync(pidFile) && sleepersIn(repo.dir).length === 1);
      const cancelledAt = Date.now();
      await ctx.notify('session/cancel', { sessionId });
      // The editor may send the next prompt at once: it waits for the cancelled turn, then runs.
      const next = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
      expect((await prompt).stopReason).toBe('cancelled');
      expect(Date.now() - cancelledAt).toBeLessThan(1_000);
      expect(sleepersIn(repo.dir)).toEqual([]);
      // Yolo asked nothing; the call ended as failed, and the session answers the next prompt.
      expect(editor.permissions).toEqual([]);
      expect(
        updatesOf(editor, 'tool_call_update')
          .filter((update) => update.toolCallId === 'slow')
          .at(-1),
      ).toMatchObject({ status: 'failed' });
      expect((await next).stopReason).toBe('end_turn');
      expect(textOf(editor, 'agent_message_chunk')).toBe('Back again.');
      expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(2);
    });
  });

  it('cancels a turn that waits on a permission question', async () => {
    const repo = makeTempRepo({ 'a.txt': 'one\n' });
    const server = await openAi([
      { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'one', new_string: 'two' }, id: 'e1' }] },
      { text: 'never' },
    ]);
    let withdraw: (() => void) | undefined;
    const answer = () => new Promise<undefined>((resolve) => (withdraw = () => resolve(undefined)));
    await asEditor(repo, providerEnv(server), { answer }, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      const prompt = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'edit' }] });
      await until(() => editor.permissions.length === 1);
      await ctx.notify('session/cancel', { sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
      withdraw!();
      expect(readFileSync(path.join(repo.dir, 'a.txt'), 'utf8')).toBe('one\n');
      expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(1);
    });
  });

  it('lists and loads a session in a second process, replaying it, and continues it', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'beans are great\n' });
    const server = await openAi([
      { text: 'Reading.', toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'r1' }] },
      { text: 'They say beans are great.' },
      { text: 'Still great.' },
    ]);
    const env = providerEnv(server);
    const sessionId = await asEditor(repo, env, {}, async (ctx) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'What do the notes say?' }] })).stopReason).toBe('end_turn');
      return sessionId;
    });
    await asEditor(repo, env, {}, async (ctx, editor) => {
      const listed = await ctx.request('session/list', { cwd: repo.dir });
      expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd: repo.dir, title: 'What do the notes say?' })]);
      const loaded = await ctx.request('session/load', { sessionId, cwd: repo.dir, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('default');
      // Replayed before the answer: the user's words, the agent's, the call and its result.
      expect(textOf(editor, 'user_message_chunk', sessionId)).toBe('What do the notes say?');
      expect(textOf(editor, 'agent_message_chunk', sessionId)).toBe('Reading.They say beans are great.');
      expect(updatesOf(editor, 'tool_call', sessionId)).toEqual([expect.objectContaining({ toolCallId: 'r1', title: 'Read notes.txt', kind: 'read' })]);
      expect(updatesOf(editor, 'tool_call_update', sessionId).at(-1)).toMatchObject({ toolCallId: 'r1', status: 'completed' });
      editor.updates.length = 0;
      expect((await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And now?' }] })).stopReason).toBe('end_turn');
      expect(textOf(editor, 'agent_message_chunk', sessionId)).toBe('Still great.');
      // The model got the whole conversation back.
      const last = JSON.stringify(server.requests.filter((request) => request.kind === 'chat').at(-1)!.body);
      expect(last).toContain('What do the notes say?');
      expect(last).toContain('beans are great');
    });
    const files = readdirSync(sessionsDir(repo)).filter((file) => file.endsWith('.jsonl'));
    expect(files).toEqual([`${sessionId}.jsonl`]);
  });

  it('runs two sessions at once, each with its own conversation', async () => {
    const repo = makeTempRepo();
    const server = await openAi((request) => {
      const asked = JSON.stringify(request.body).includes('first question') ? 'first' : 'second';
      return { text: [`Answer `, `to the `, `${asked} question.`], chunkDelayMs: 60 };
    });
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const one = (await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] })).sessionId;
      const two = (await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] })).sessionId;
      expect(one).not.toBe(two);
      const started = Date.now();
      const answers = await Promise.all([
        ctx.request('session/prompt', { sessionId: one, prompt: [{ type: 'text', text: 'the first question' }] }),
        ctx.request('session/prompt', { sessionId: two, prompt: [{ type: 'text', text: 'the second question' }] }),
      ]);
      expect(answers.map((answer) => answer.stopReason)).toEqual(['end_turn', 'end_turn']);
      expect(textOf(editor, 'agent_message_chunk', one)).toBe('Answer to the first question.');
      expect(textOf(editor, 'agent_message_chunk', two)).toBe('Answer to the second question.');
      // They overlapped: together they took about as long as one.
      expect(Date.now() - started).toBeLessThan(2 * 3 * 60 + 1_500);
      // Closing one leaves the other.
      await ctx.request('session/close', { sessionId: one });
      await expect(ctx.request('session/prompt', { sessionId: one, prompt: [{ type: 'text', text: 'the first question' }] })).rejects.toMatchObject({
        code: -32002,
      });
      expect((await ctx.request('session/prompt', { sessionId: two, prompt: [{ type: 'text', text: 'the second question' }] })).stopReason).toBe('end_turn');
    });
  });

  it('survives a line that is not JSON, an unknown method and an unknown session, and says which provider to set', async () => {
    const repo = makeTempRepo();
    // No key and nothing listening where Ollama would be.
    const env = { OLLAMA_HOST: `http://127.0.0.1:${await closedPort()}` };
    await asEditor(repo, env, {}, async (ctx, editor) => {
      editor.child.stdin.write('this is not json\n');
      await expect(ctx.request('beans/nonsense', {})).rejects.toMatchObject({ code: -32601 });
      await expect(ctx.request('session/prompt', { sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({
        code: -32002,
      });
      await expect(ctx.request('session/load', { sessionId: 'no-such-session', cwd: repo.dir, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
      const failure = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] }).then(
        () => undefined,
        (error: unknown) => error as { message: string },
      );
      expect(failure?.message).toMatch(/GEMINI_API_KEY/);
      // Still serving.
      expect((await ctx.request('session/list', { cwd: repo.dir })).sessions).toEqual([]);
      expect(editor.child.exitCode).toBeNull();
    });
  });

  it('keeps the session file when the editor goes away mid-turn, and ends quietly', async () => {
    const repo = makeTempRepo();
    const server = await openAi([{ text: ['Thinking ', 'slowly ', 'about ', 'it.'], chunkDelayMs: 400 }]);
    await asEditor(repo, providerEnv(server), {}, async (ctx, editor) => {
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      void ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'take your time' }] }).catch(() => undefined);
      await until(() => updatesOf(editor, 'agent_message_chunk').length > 0);
    });
    // The editor's side closed (stdin ended) and Beans exited 0 (asEditor checks): the file holds the prompt.
    const [file] = readdirSync(sessionsDir(repo)).filter((name) => name.endsWith('.jsonl'));
    expect(readFileSync(path.join(sessionsDir(repo), file!), 'utf8')).toContain('take your time');
  });
});

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Where the repository's sessions are kept (the same folder `-c` and `-r` read). */
function sessionsDir(repo: TempRepo): string {
  const root = path.join(repo.home, '.local', 'state', 'beans-agent', 'sessions');
  const [workspace] = readdirSync(root);
  return path.join(root, workspace!);
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
