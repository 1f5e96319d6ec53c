import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedOllama } from '../../../../test/support/scripted-ollama.ts';
import type { ScriptOptions } from '../../../../test/support/script.ts';
import { createAgentSession, query, type SdkMessage } from '../../src/index.js';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const memory = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(script: ScriptOptions) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-mcp-session-')));
  const dir = path.join(root, 'repo');
  const home = path.join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const server = await startScriptedOllama(script);
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => server.close(),
  );
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.state'),
    OLLAMA_HOST: server.url,
    PATH: process.env.PATH,
  };
  return { root, dir, env, server };
}

async function collect(messages: AsyncIterable<SdkMessage>): Promise<SdkMessage[]> {
  const out: SdkMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

function pidsWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const toolResults = (messages: SdkMessage[]) =>
  messages.flatMap((message) => (message.type === 'user' && Array.isArray(message.message.content) ? message.message.content : [])) as {
    type: string;
    content?: unknown;
    is_error?: boolean;
  }[];

describe('MCP servers in a session (query() with a scripted model)', () => {
  it(
    'calls tools of two servers in one turn and a third server after, honours rule forms, lists servers in init, leaves no process',
    { timeout: 90_000 },
    async () => {
      const marker = `beans-mcp-session-${process.pid}-${Date.now()}`;
      const { root, dir, env, server } = await setup({
        turns: [
          {
            toolCalls: [
              { name: 'mcp__one__echo', args: { message: 'from one' } },
              { name: 'mcp__two__get-sum', args: { a: 20, b: 22 } },
            ],
          },
          { toolCalls: [{ name: 'mcp__mem__create_entities', args: { entities: [{ name: 'Beans', entityType: 'tool', observations: ['likes MCP'] }] } }] },
          { toolCalls: [{ name: 'mcp__two__get-env', args: {} }] },
          { text: 'done' },
        ],
      });
      const mcpConfig = path.join(root, 'servers.json');
      writeFileSync(
        mcpConfig,
        JSON.stringify({
          mcpServers: { mem: { command: process.execPath, args: [memory, marker], env: { MEMORY_FILE_PATH: path.join(root, 'memory.jsonl') } } },
        }),
      );
      const messages = await collect(
        query({
          prompt: 'use the servers',
          options: {
            cwd: dir,
            env,
            mcpServers: {
              one: { command: process.execPath, args: [everything, 'stdio', marker] },
              two: { command: process.execPath, args: [everything, 'stdio', marker] },
            },
            mcpConfig: [mcpConfig],
            // Every rule form: a whole server, a server's wildcard, one tool; deny beats allow.
            allowedTools: ['mcp__one', 'mcp__mem__*', 'mcp__two__get-sum'],
            disallowedTools: ['mcp__two__echo'],
          },
        }),
      );
      const init = messages[0]!;
      expect(init).toMatchObject({ type: 'system', subtype: 'init' });
      expect((init as { mcp_servers: unknown }).mcp_servers).toEqual([
        { name: 'mem', status: 'connected' },
        { name: 'one', status: 'connected' },
        { name: 'two', status: 'connected' },
      ]);
      const offered = (init as { tools: string[] }).tools;
      expect(offered).toEqual(expect.arrayContaining(['mcp__one__echo', 'mcp__two__get-sum', 'mcp__mem__read_graph']));
      // A bare deny rule removes the tool from what the model sees, as for built-in tools.
      expect(offered).not.toContain('mcp__two__echo');
      const results = toolResults(messages).filter((part) => part.type === 'tool_result');
      expect(JSON.stringify(results[0]!.content)).toContain('from one');
      expect(JSON.stringify(results[1]!.content)).toContain('42');
      expect(results[2]!.is_error).toBeFalsy();
      expect(readFileSync(path.join(root, 'memory.jsonl'), 'utf8')).toContain('likes MCP');
      expect(results[3]!.is_error).toBe(true);
      const result = messages.at(-1) as { permission_denials: { tool_name: string }[] };
      // Not allowed by any rule: one-shot denies it.
      expect(result.permission_denials.map((denial) => denial.tool_name)).toEqual(['mcp__two__get-env']);
      // The first model request offered the MCP tools with the server's descriptions.
      expect(JSON.stringify(server.requests.find((request) => request.kind === 'chat')!.body)).toContain('mcp__one__echo');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(pidsWith(marker)).toEqual([]);
    },
  );

  it('expands a server prompt typed as the slash command /mcp__<server>__<prompt> args', { timeout: 60_000 }, async () => {
    const { dir, env } = await setup({ turns: [{ text: 'sunny' }] });
    const agent = await createAgentSession({ cwd: dir, env, mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } });
    cleanups.push(() => agent.close());
    const prepared = await agent.preparePrompt('/mcp__ev__args-prompt Paris Ile de France');
    expect(prepared).toMatchObject({ messages: [{ role: 'user', content: "What's weather in Paris, Ile de France?", origin: 'command' }] });
    expect(await agent.preparePrompt('/mcp__ev__args-prompt')).toEqual({ error: '/mcp__ev__args-prompt needs city: /mcp__ev__args-prompt <city> <state>' });
    expect(agent.mcpServers()).toMatchObject([{ name: 'ev', status: 'connected' }]);
  });

  it('starts nothing from an untrusted project .mcp.json', { timeout: 60_000 }, async () => {
    const { root, dir, env } = await setup({ turns: [{ text: 'ok' }] });
    const canary = path.join(root, 'canary');
    writeFileSync(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'touch', args: [canary] } } }));
    const messages = await collect(query({ prompt: 'hi', options: { cwd: dir, env } }));
    expect((messages[0] as { mcp_servers: unknown }).mcp_servers).toEqual([]);
    expect(readdirSync(root)).not.toContain('canary');
  });

  it("starts a trusted project's .mcp.json servers (--trust)", { timeout: 60_000 }, async () => {
    const { dir, env } = await setup({ turns: [{ text: 'ok' }] });
    writeFileSync(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [everything, 'stdio'] } } }));
    const messages = await collect(query({ prompt: 'hi', options: { cwd: dir, env, trustWorkspace: true } }));
    expect((messages[0] as { mcp_servers: unknown }).mcp_servers).toEqual([{ name: 'proj', status: 'connected' }]);
  });
});

describe('MCP servers from settings', () => {
  it(
    "starts the user settings' mcpServers, adds a trusted workspace's by name, ignores an untrusted one's, and honours mcp.timeoutMs",
    { timeout: 60_000 },
    async () => {
      const { root, dir, env } = await setup({ turns: [{ text: 'ok' }] });
      const canary = path.join(root, 'canary');
      mkdirSync(path.join(env.XDG_CONFIG_HOME, 'beans-agent'), { recursive: true });
      // A server that starts but never speaks MCP: only the timeout ends the wait. The timeouts leave
      // the real servers seconds to start on a busy machine (800 ms did not, nor 4 s at load 20).
      const mute = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
      writeFileSync(
        path.join(env.XDG_CONFIG_HOME, 'beans-agent', 'settings.json'),
        JSON.stringify({ mcpServers: { user: { command: process.execPath, args: [everything, 'stdio'] }, mute }, mcp: { timeoutMs: 8_000 } }),
      );
      mkdirSync(path.join(dir, '.beans'));
      writeFileSync(path.join(dir, '.beans', 'settings.json'), JSON.stringify({ mcpServers: { proj: { command: 'touch', args: [canary] } } }));
      const started = Date.now();
      const untrusted = await createAgentSession({ cwd: dir, env });
      cleanups.push(() => untrusted.close());
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(untrusted.mcpServers().map((server) => [server.name, server.status])).toEqual([
        ['user', 'connected'],
        ['mute', 'failed'],
      ]);
      expect(untrusted.mcpServers()[1]!.error).toContain('within 8000 ms');
      expect(readdirSync(root)).not.toContain('canary');

      writeFileSync(
        path.join(dir, '.beans', 'settings.json'),
        JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [everything, 'stdio'] } } }),
      );
      const trusted = await createAgentSession({ cwd: dir, env: { ...env, MCP_TIMEOUT: '5000' }, trustWorkspace: true });
      cleanups.push(() => trusted.close());
      expect(trusted.mcpServers().map((server) => [server.name, server.status])).toEqual([
        ['user', 'connected'],
        ['mute', 'failed'],
        ['proj', 'connected'],
      ]);
      // MCP_TIMEOUT (Claude Code's variable) beats the setting, as the environment does for every setting.
      expect(trusted.mcpServers()[1]!.error).toContain('within 5000 ms');
    },
  );
});

describe('tools/list_changed in a session', () => {
  it('drops a tool the server no longer offers from the next request', { timeout: 60_000 }, async () => {
    const script = `
      const { McpServer } = await import(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'))});
      const { StdioServerTransport } = await import(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});
      const server = new McpServer({ name: 'shrinking', version: '1.0.0' });
      const doomed = server.registerTool('doomed', { description: 'goes away' }, async () => ({ content: [{ type: 'text', text: 'still here' }] }));
      server.registerTool('prune', { description: 'removes doomed' }, async () => {
        doomed.remove();
        // The client re-lists tools after the notification (debounced); answer once it has.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return { content: [{ type: 'text', text: 'pruned' }] };
      });
      await server.connect(new StdioServerTransport());
    `;
    const { dir, env, server } = await setup({ turns: [{ toolCalls: [{ name: 'mcp__s__prune', args: {} }] }, { text: 'done' }] });
    const messages = await collect(
      query({
        prompt: 'prune',
        options: { cwd: dir, env, allowedTools: ['mcp__s'], mcpServers: { s: { command: process.execPath, args: ['--input-type=module', '-e', script] } } },
      }),
    );
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    const declared = server.requests
      .filter((request) => request.kind === 'chat')
      .map((request) =>
        ((request.body as { tools?: { function: { name: string } }[] }).tools ?? [])
          .map((tool) => tool.function.name)
          .filter((name) => name.startsWith('mcp__s__')),
      );
    expect(declared).toEqual([['mcp__s__doomed', 'mcp__s__prune'], ['mcp__s__prune']]);
  });
});

describe('live MCP control on query()', () => {
  it(
    "a disabled server's deferred tools leave the requests, the system prompt stays byte-identical, and enabling brings them back",
    { timeout: 60_000 },
    async () => {
      const { dir, env, server } = await setup({
        turns: [
          { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__ev__echo' } }] },
          { text: 'loaded' },
          { text: 'two' },
          { toolCalls: [{ name: 'mcp__ev__echo', args: { message: 'back' } }] },
          { text: 'three' },
        ],
      });
      const settings = path.join(env.XDG_CONFIG_HOME, 'beans-agent', 'settings.json');
      mkdirSync(path.dirname(settings), { recursive: true });
      writeFileSync(settings, JSON.stringify({ tools: { defer: 'always' } }));
      const inbox: string[] = [];
      let wake: (() => void) | undefined;
      const prompts = (async function* () {
        for (;;) {
          while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          const text = inbox.shift()!;
          if (text === '.end') return;
          yield { type: 'user' as const, message: { role: 'user' as const, content: text } };
        }
      })();
      const send = (text: string) => {
        inbox.push(text);
        wake?.();
      };
      const q = query({
        prompt: prompts,
        options: { cwd: dir, env, allowedTools: ['mcp__ev'], mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } },
      });
      const statuses: string[] = [];
      const messages: SdkMessage[] = [];
      send('load echo');
      for await (const message of q) {
        messages.push(message);
        if (message.type !== 'result') continue;
        const count = messages.filter((m) => m.type === 'result').length;
        if (count === 1) {
          await q.toggleMcpServer('ev', false);
          statuses.push((await q.mcpServerStatus())[0]!.status);
          send('second');
        } else if (count === 2) {
          await q.toggleMcpServer('ev', true);
          statuses.push((await q.mcpServerStatus())[0]!.status);
          send('third');
        } else send('.end');
      }
      expect(statuses).toEqual(['disabled', 'connected']);
      const chats = server.requests
        .filter((request) => request.kind === 'chat')
        .map((request) => request.body as { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] });
      const declared = chats.map((body) => (body.tools ?? []).map((tool) => tool.function.name));
      expect(declared[1]).toContain('mcp__ev__echo');
      // Disabled: the loaded tool is no longer declared; everything declared before it is unchanged.
      expect(declared[2]).toEqual(declared[1]!.filter((name) => name !== 'mcp__ev__echo'));
      // Enabled again: declared where it was, and callable.
      expect(declared[3]).toEqual(declared[1]);
      expect(JSON.stringify(toolResults(messages).at(-1))).toContain('Echo: back');
      // The system prompt (with the deferred tools' listing) never changed.
      expect(new Set(chats.map((body) => JSON.stringify(body.messages[0])))).toHaveProperty('size', 1);
    },
  );
});

describe('startSessionMcp', () => {
  it('costs nothing without servers, and turns problems, untrusted project servers and failures into warnings', { timeout: 30_000 }, async () => {
    const { startSessionMcp } = await import('../../src/mcp/session-mcp.js');
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-mcp-warn-')));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const env = { HOME: root, XDG_STATE_HOME: path.join(root, 'state'), PATH: process.env.PATH };
    const base = { workspaceRoot: root, cwd: root, env, pluginRoots: [], configArguments: [], strict: false };
    const none: string[] = [];
    // An empty set (setServers can fill it later); no server, no tool, no warning.
    const empty = await startSessionMcp(base, none);
    cleanups.push(() => empty.close());
    expect(empty.statuses()).toEqual([]);
    expect(empty.tools()).toEqual([]);
    expect(none).toEqual([]);
    writeFileSync(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'touch', args: ['x'] } } }));
    writeFileSync(path.join(root, 'bad.json'), '{');
    const warnings: string[] = [];
    const set = await startSessionMcp(
      { ...base, configArguments: [path.join(root, 'bad.json'), '{"mcpServers":{"ghost":{"command":"beans-no-such-server"}}}'] },
      warnings,
    );
    cleanups.push(() => set?.close());
    expect(warnings[0]).toContain('bad.json: not valid JSON');
    expect(warnings[1]).toBe(`${path.join(root, '.mcp.json')} asks to start MCP servers (evil); they were not started because this folder is not trusted.`);
    expect(warnings[2]).toContain('The MCP server ghost could not start: the command beans-no-such-server was not found.');
    expect(set?.statuses()).toMatchObject([{ name: 'ghost', status: 'failed' }]);
  });

  it('closes the servers it started when the session cannot be built, before or after they are connected', { timeout: 60_000 }, async () => {
    const marker = `beans-mcp-failed-session-${process.pid}-${Date.now()}`;
    const { root, dir, env } = await setup({ turns: [] });
    const servers = JSON.stringify({
      mcpServers: { mem: { command: process.execPath, args: [memory, marker], env: { MEMORY_FILE_PATH: path.join(root, 'memory.jsonl') } } },
    });
    await expect(createAgentSession({ cwd: dir, env, mcpConfig: [servers], agentProfile: 'no-such-agent' })).rejects.toThrow(/no-such-agent/);
    // After the servers are connected too: resuming a session that does not exist.
    await expect(createAgentSession({ cwd: dir, env, mcpConfig: [servers], resume: 'no-such-session' })).rejects.toThrow(/no-such-session/);
    // Longer than the server needs to start, had it been left to.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(pidsWith(marker)).toEqual([]);
  });
});
