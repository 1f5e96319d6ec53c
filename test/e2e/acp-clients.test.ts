// Issue 58, item 5: `beans acp` driven by both lines of the ACP SDK editors ship: @agentclientprotocol/sdk
// 2.x (its `client()` API) and 0.14.1 (`ClientSideConnection`, what Zed's adapter ships), each with a
// terminal of its own: the mode chosen survives session/load in a new process, a command runs in the
// editor's terminal (terminal/create) when it offers terminals, and plan and usage_update arrive.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import * as acp014 from 'acp-sdk-014';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptedServer, TurnSource } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo, type TempRepo } from './harness.ts';
import { sandboxUnavailable } from '../support/sandbox.ts';

type Json = Record<string, any>;

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

const providerEnv = (server: ScriptedServer): NodeJS.ProcessEnv => ({
  OPENAI_API_KEY: 'test-key',
  OPENAI_BASE_URL: `${server.url}/v1`,
  BEANS_PROVIDER: 'openai',
  BEANS_MODEL: 'gpt-5-mini',
});

/** What the editor side does: its terminals run commands for real, and it answers every question "allow once". */
class EditorSide {
  readonly updates: Json[] = [];
  readonly permissions: Json[] = [];
  readonly created: Json[] = [];
  private readonly terminals = new Map<string, { process: ChildProcess; output: string; exit: Promise<{ exitCode: number | null; signal: string | null }> }>();

  sessionUpdate = async (params: Json) => void this.updates.push(params);
  requestPermission = async (params: Json) => {
    this.permissions.push(params);
    return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
  };
  createTerminal = async (params: Json) => {
    this.created.push(params);
    const env = Object.fromEntries((params.env ?? []).map((variable: { name: string; value: string }) => [variable.name, variable.value]));
    const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env: { ...process.env, ...env } });
    const terminal = {
      process: child,
      output: '',
      exit: new Promise<{ exitCode: number | null; signal: string | null }>((resolve) =>
        child.on('close', (exitCode, signal) => resolve({ exitCode, signal })),
      ),
    };
    child.stdout.on('data', (chunk) => (terminal.output += chunk));
    child.stderr.on('data', (chunk) => (terminal.output += chunk));
    const terminalId = `term-${this.terminals.size + 1}`;
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  };
  terminalOutput = async (params: Json) => {
    const terminal = this.terminals.get(params.terminalId)!;
    const exited = terminal.process.exitCode !== null || terminal.process.signalCode !== null;
    return {
      output: terminal.output,
      truncated: false,
      ...(exited ? { exitStatus: { exitCode: terminal.process.exitCode, signal: terminal.process.signalCode } } : {}),
    };
  };
  waitForTerminalExit = async (params: Json) => this.terminals.get(params.terminalId)!.exit;
  killTerminal = async (params: Json) => {
    this.terminals.get(params.terminalId)?.process.kill('SIGKILL');
    return {};
  };
  releaseTerminal = async (params: Json) => {
    this.terminals.get(params.terminalId)?.process.kill('SIGKILL');
    this.terminals.delete(params.terminalId);
    return {};
  };

  of(kind: string): Json[] {
    return this.updates.filter((notification) => notification.update.sessionUpdate === kind).map((notification) => notification.update);
  }
}

/** The agent's methods as each client line calls them. */
interface AgentCalls {
  initialize(params: Json): Promise<Json>;
  newSession(params: Json): Promise<Json>;
  loadSession(params: Json): Promise<Json>;
  setMode(params: Json): Promise<Json>;
  prompt(params: Json): Promise<Json>;
  cancel(params: Json): Promise<void>;
  /** ACP's unstable model picker (`session/set_model`), which 0.14-era clients use. */
  setModel?(params: Json): Promise<Json>;
}

interface ClientLine {
  name: string;
  connect<T>(stream: ReturnType<typeof ndJsonStream>, editor: EditorSide, op: (agent: AgentCalls) => Promise<T>): Promise<T>;
}

const line2: ClientLine = {
  name: '@agentclientprotocol/sdk 2.x client()',
  connect: (stream, editor, op) =>
    client({ name: 'test-editor-2' })
      .onNotification('session/update', ({ params }) => editor.sessionUpdate(params as Json))
      .onRequest('session/request_permission', ({ params }) => editor.requestPermission(params as Json) as never)
      .onRequest('terminal/create', ({ params }) => editor.createTerminal(params as Json) as never)
      .onRequest('terminal/output', ({ params }) => editor.terminalOutput(params as Json) as never)
      .onRequest('terminal/wait_for_exit', ({ params }) => editor.waitForTerminalExit(params as Json) as never)
      .onRequest('terminal/kill', ({ params }) => editor.killTerminal(params as Json) as never)
      .onRequest('terminal/release', ({ params }) => editor.releaseTerminal(params as Json) as never)
      .connectWith(stream as never, (ctx) =>
        op({
          initialize: (params) => ctx.request('initialize', params as never) as Promise<Json>,
          newSession: (params) => ctx.request('session/new', params as never) as Promise<Json>,
          loadSession: (params) => ctx.request('session/load', params as never) as Promise<Json>,
          setMode: (params) => ctx.request('session/set_mode', params as never) as Promise<Json>,
          prompt: (params) => ctx.request('session/prompt', params as never) as Promise<Json>,
          cancel: (params) => ctx.notify('session/cancel', params as never),
        }),
      ),
};

const line014: ClientLine = {
  name: '@agentclientprotocol/sdk 0.14.1 ClientSideConnection (Zed)',
  connect: async (stream, editor, op) => {
    const connection = new acp014.ClientSideConnection(
      () => ({
        sessionUpdate: (params) => editor.sessionUpdate(params as Json),
        requestPermission: (params) => editor.requestPermission(params as Json) as never,
        createTerminal: (params) => editor.createTerminal(params as Json) as never,
        terminalOutput: (params) => editor.terminalOutput(params as Json) as never,
        waitForTerminalExit: (params) => editor.waitForTerminalExit(params as Json) as never,
        killTerminal: (params) => editor.killTerminal(params as Json) as never,
        releaseTerminal: (params) => editor.releaseTerminal(params as Json) as never,
      }),
      stream as never,
    );
    return op({
      initialize: (params) => connection.initialize(params as never) as Promise<Json>,
      newSession: (params) => connection.newSession(params as never) as Promise<Json>,
      loadSession: (params) => connection.loadSession(params as never) as Promise<Json>,
      setMode: (params) => connection.setSessionMode(params as never) as Promise<Json>,
      prompt: (params) => connection.prompt(params as never) as Promise<Json>,
      cancel: (params) => connection.cancel(params as never),
      setModel: (params) => connection.unstable_setSessionModel(params as never) as Promise<Json>,
    });
  },
};

/** `beans acp` in the repository, connected through one client line; the editor closes it after `op`. */
async function asEditor<T>(line: ClientLine, repo: TempRepo, env: NodeJS.ProcessEnv, op: (agent: AgentCalls, editor: EditorSide) => Promise<T>) {
  const child = spawn(BEANS_BIN, ['acp'], { cwd: repo.dir, env: { ...repo.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const editor = new EditorSide();
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const result = await line.connect(stream, editor, async (agent) => {
    const init = await agent.initialize({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true },
      clientInfo: { name: 'test-editor', version: '1.0.0' },
    });
    expect(init).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true } });
    return op(agent, editor);
  });
  child.stdin.end();
  expect(await exited, stderr).toBe(0);
  return { result, stderr };
}

describe.each([line2, line014])('beans acp with $name', (line) => {
  it(
    'runs a prompt: plan, an edit, a command in the editor terminal, usage; the mode survives session/load in a new process',
    { timeout: 60_000 },
    async () => {
      const repo = makeTempRepo({ 'notes.txt': 'beans\n' });
      const server = await openAi([
        {
          toolCalls: [
            {
              name: 'todo_write',
              args: {
                todos: [
                  { content: 'Write the file', status: 'in_progress' },
                  { content: 'Check it', status: 'pending' },
                ],
              },
              id: 'plan1',
            },
            { name: 'write_file', args: { path: 'out.txt', content: 'written\n' }, id: 'write1' },
          ],
        },
        {
          toolCalls: [{ name: 'shell', args: { command: 'cp out.txt copy.txt && cat copy.txt; echo "in $PWD"; echo "key=[$OPENAI_API_KEY]"' }, id: 'shell1' }],
        },
        { text: 'All done.' },
        { text: 'Still here.' },
      ]);
      const env = providerEnv(server);
      const { result: sessionId } = await asEditor(line, repo, env, async (agent, editor) => {
        const created = await agent.newSession({ cwd: repo.dir, mcpServers: [] });
        expect(created.modes.currentModeId).toBe('default');
        if (agent.setModel) {
          // A client that knows only the unstable `models` picker sees the model and can change it.
          expect(created.models).toMatchObject({
            currentModelId: 'gpt-5-mini',
            availableModels: expect.arrayContaining([expect.objectContaining({ modelId: 'gpt-5-mini' })]),
          });
          await agent.setModel({ sessionId: created.sessionId, modelId: 'gpt-5' });
        }
        await agent.setMode({ sessionId: created.sessionId, modeId: 'auto-edit' });
        const answer = await agent.prompt({ sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Write out.txt and show it.' }] });
        expect(answer.stopReason).toBe('end_turn');
        expect(readFileSync(`${repo.dir}/out.txt`, 'utf8')).toBe('written\n');
        // auto-edit: the write ran without a question, the command was asked.
        expect(editor.permissions.map((request) => request.toolCall.toolCallId)).toEqual(['shell1']);
        // The command ran in the editor's terminal, in the workspace, without the provider key.
        expect(editor.created).toEqual([
          expect.objectContaining({
            sessionId: created.sessionId,
            command: 'bash',
            args: ['-c', 'cp out.txt copy.txt && cat copy.txt; echo "in $PWD"; echo "key=[$OPENAI_API_KEY]"'],
            cwd: repo.dir,
          }),
        ]);
        const terminalUpdates = editor.of('tool_call_update').filter((update) => update.toolCallId === 'shell1');
        expect(terminalUpdates.some((update) => update.content?.some((part: Json) => part.type === 'terminal' && part.terminalId === 'term-1'))).toBe(true);
        expect(terminalUpdates.at(-1)).toMatchObject({ status: 'completed' });
        const chats = server.requests.filter((request) => request.kind === 'chat');
        expect((chats[0]!.body as Json).model).toBe(agent.setModel ? 'gpt-5' : 'gpt-5-mini');
        const toModel = JSON.stringify(chats[2]!.body);
        expect(toModel).toContain('written');
        expect(toModel).toContain(`in ${repo.dir}`);
        expect(toModel).toContain('key=[]');
        expect(editor.of('plan').at(-1)!.entries).toEqual([
          { content: 'Write the file', priority: 'medium', status: 'in_progress' },
          { content: 'Check it', priority: 'medium', status: 'pending' },
        ]);
        expect(editor.of('usage_update').at(-1)).toMatchObject({ size: 400_000, used: expect.any(Number) });
        return created.sessionId as string;
      });
      const { stderr } = await asEditor(line, repo, env, async (agent, editor) => {
        const loaded = await agent.loadSession({ sessionId, cwd: repo.dir, mcpServers: [] });
        expect(loaded.modes.currentModeId).toBe('auto-edit');
        expect(loaded.configOptions.find((option: Json) => option.id === 'mode')).toMatchObject({ currentValue: 'auto-edit' });
        const answer = await agent.prompt({ sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
        expect(answer.stopReason).toBe('end_turn');
        expect(
          editor
            .of('agent_message_chunk')
            .map((update) => update.content.text)
            .join(''),
        ).toContain('Still here.');
      });
      expect(stderr).toBe('');
      expect(existsSync(`${repo.dir}/out.txt`)).toBe(true);
    },
  );

  it('a cancelled turn kills the command in the editor terminal and answers cancelled', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const server = await openAi([{ toolCalls: [{ name: 'shell', args: { command: 'sleep 30' }, id: 'sleep1' }] }, { text: 'never' }]);
    await asEditor(line, repo, providerEnv(server), async (agent, editor) => {
      const { sessionId } = await agent.newSession({ cwd: repo.dir, mcpServers: [] });
      await agent.setMode({ sessionId, modeId: 'yolo' });
      const answer = agent.prompt({ sessionId, prompt: [{ type: 'text', text: 'wait' }] });
      for (let waited = 0; editor.created.length === 0 && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      await agent.cancel({ sessionId });
      expect((await answer).stopReason).toBe('cancelled');
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(editor.created).toEqual([expect.objectContaining({ args: ['-c', 'sleep 30'] })]);
    });
  });

  it.skipIf(sandboxUnavailable)("under the sandbox a command runs sandboxed, not in the editor's terminal", { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const file = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ sandbox: { enabled: true } }));
    const outside = path.join(repo.home, 'escaped.txt');
    const server = await openAi([
      { toolCalls: [{ name: 'shell', args: { command: `touch inside.txt; touch ${outside}` }, id: 'sandboxed1' }] },
      { text: 'ok' },
    ]);
    await asEditor(line, repo, providerEnv(server), async (agent, editor) => {
      const { sessionId } = await agent.newSession({ cwd: repo.dir, mcpServers: [] });
      const answer = await agent.prompt({ sessionId, prompt: [{ type: 'text', text: 'touch' }] });
      expect(answer.stopReason).toBe('end_turn');
      expect(editor.created).toEqual([]);
    });
    expect(existsSync(path.join(repo.dir, 'inside.txt'))).toBe(true);
    expect(existsSync(outside)).toBe(false);
  });
});
