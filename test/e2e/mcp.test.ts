import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const memory = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');

describe('beans mcp add | list | remove', () => {
  it('writes .mcp.json like claude mcp add, lists servers with status and tools (trusted with --trust), and removes them', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const added = await runBeans(['mcp', 'add', 'ev', '--', process.execPath, everything, 'stdio'], { cwd: repo.dir, env: repo.env });
    expect(added.code).toBe(0);
    const http = await runBeans(['mcp', 'add', '--transport', 'http', '-H', 'Authorization: Bearer ${TOKEN:-none}', 'remote', 'http://127.0.0.1:9/mcp'], {
      cwd: repo.dir,
      env: repo.env,
    });
    expect(http.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(repo.dir, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: {
        ev: { command: process.execPath, args: [everything, 'stdio'] },
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${TOKEN:-none}' } },
      },
    });

    // The project's own file is a repository asking to run commands: not started in an untrusted folder.
    const untrusted = await runBeans(['mcp', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(untrusted.code).toBe(0);
    expect(JSON.parse(untrusted.stdout).servers).toEqual([
      expect.objectContaining({ name: 'ev', status: 'disabled', tools: [] }),
      expect.objectContaining({ name: 'remote', transport: 'http', status: 'disabled' }),
    ]);

    // --mcp-config names servers on the command line; they start, and a refused one is reported.
    const listed = await runBeans(['mcp', 'list', '--json', '--strict-mcp-config', '--mcp-config', '.mcp.json'], { cwd: repo.dir, env: repo.env });
    const servers = JSON.parse(listed.stdout).servers as { name: string; status: string; tools: string[]; error?: string }[];
    expect(servers[0]).toMatchObject({ name: 'ev', transport: 'stdio', status: 'connected' });
    expect(servers[0]!.tools).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(servers[1]).toMatchObject({ name: 'remote', transport: 'http', status: 'failed' });
    expect(servers[1]!.error).toContain('http://127.0.0.1:9/mcp');

    const trusted = await runBeans(['mcp', 'list', '--json', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(JSON.parse(trusted.stdout).servers[0]).toMatchObject({ name: 'ev', status: 'connected' });

    const removed = await runBeans(['mcp', 'remove', 'ev'], { cwd: repo.dir, env: repo.env });
    expect(removed.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(path.join(repo.dir, '.mcp.json'), 'utf8')).mcpServers)).toEqual(['remote']);
    const again = await runBeans(['mcp', 'remove', 'ev'], { cwd: repo.dir, env: repo.env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('No MCP server named ev');
  });
});

describe('beans mcp add --scope user', () => {
  it('writes the user settings, starts the server without trusting the folder, and removes it from there', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const added = await runBeans(['mcp', 'add', '--scope', 'user', 'ev', '--', process.execPath, everything, 'stdio'], { cwd: repo.dir, env: repo.env });
    expect(added.code).toBe(0);
    const settingsFile = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual({ mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } });
    const listed = await runBeans(['mcp', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(JSON.parse(listed.stdout).servers).toEqual([expect.objectContaining({ name: 'ev', status: 'connected' })]);
    const removed = await runBeans(['mcp', 'remove', 'ev'], { cwd: repo.dir, env: repo.env });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(settingsFile);
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual({ mcpServers: {} });
  });
});

describe('beans -p with MCP servers', () => {
  it(
    'calls two servers in one turn and a third after, honours rule forms, lists a denial, survives a killed server, leaves no process',
    { timeout: 90_000 },
    async () => {
      const marker = `beans-e2e-mcp-${process.pid}-${Date.now()}`;
      const repo = makeTempRepo();
      const memoryFile = path.join(repo.home, 'memory.jsonl');
      const server = await scriptedOllama({
        turns: [
          {
            toolCalls: [
              { name: 'mcp__one__echo', args: { message: 'from one' } },
              { name: 'mcp__two__get-sum', args: { a: 2, b: 40 } },
            ],
          },
          { toolCalls: [{ name: 'mcp__mem__create_entities', args: { entities: [{ name: 'Beans', entityType: 'tool', observations: ['speaks MCP'] }] } }] },
          { toolCalls: [{ name: 'mcp__two__get-env', args: {} }] },
          // The bracket keeps pkill from matching the shell that runs it.
          { toolCalls: [{ name: 'shell', args: { command: `pkill -9 -f '${marker}-on[e]'` } }] },
          { toolCalls: [{ name: 'mcp__one__echo', args: { message: 'after the kill' } }] },
          { toolCalls: [{ name: 'mcp__one__echo', args: { message: 'restarted' } }] },
          { text: 'done' },
        ],
      });
      const config = {
        mcpServers: {
          one: { command: process.execPath, args: [everything, 'stdio', `${marker}-one`] },
          two: { command: process.execPath, args: [everything, 'stdio', `${marker}-two`] },
          mem: { command: process.execPath, args: [memory, `${marker}-mem`], env: { MEMORY_FILE_PATH: memoryFile } },
        },
      };
      // In a file: on the command line, the marker would make pkill match Beans itself.
      repo.write('servers.json', JSON.stringify(config));
      const run = await runBeans(
        ['-p', 'use the servers', '-o', 'json', '--mcp-config', 'servers.json', '--allowed-tools', 'mcp__one,mcp__mem__*,mcp__two__get-sum,shell(pkill *)'],
        { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, timeoutMs: 60_000 },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as { result: string; permission_denials: { tool_name: string }[] };
      expect(result.result).toBe('done');
      expect(result.permission_denials.map((denial) => denial.tool_name)).toEqual(['mcp__two__get-env']);
      expect(readFileSync(memoryFile, 'utf8')).toContain('speaks MCP');

      const toolMessages = server.requests
        .filter((request) => request.kind === 'chat')
        .map((request) =>
          (request.body as { messages: { role: string; content: string }[] }).messages
            .filter((message) => message.role === 'tool')
            .map((message) => message.content),
        );
      const last = toolMessages.at(-1)!;
      expect(last.slice(0, 2).join('\n')).toMatch(/from one[\s\S]*42/);
      // The call that finds the server dead may fail or restart it; the one after works.
      expect(last.at(-1)).toContain('restarted');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(
        execFileSync('ps', ['-eo', 'args'])
          .toString()
          .split('\n')
          .filter((line) => line.includes(marker) && !line.includes('pkill')),
      ).toEqual([]);
    },
  );
});

describe('beans -p with an MCP server it met on an earlier run', () => {
  it(
    'sends the first request with the tools the server offered last time while it starts, and a call waits for it; stream-json still waits',
    { timeout: 90_000 },
    async () => {
      const repo = makeTempRepo();
      const memoryFile = path.join(repo.home, 'memory.jsonl');
      // A server that takes 5 s to start, so whether Beans waited for it shows in the first request's time
      // (a start of Beans itself took 3.3 s on a machine at load 20, so 3 s did not tell them apart).
      const slow = path.join(repo.home, 'slow-memory.sh');
      writeFileSync(slow, `sleep 5\nexec "${process.execPath}" "${memory}"\n`);
      const settings = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
      mkdirSync(path.dirname(settings), { recursive: true });
      writeFileSync(settings, JSON.stringify({ mcpServers: { mem: { command: 'bash', args: [slow], env: { MEMORY_FILE_PATH: memoryFile } } } }));
      const server = await scriptedOllama({
        turns: (request) => {
          const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
          if (!messages.some((message) => message.role === 'user' && message.content.includes('remember'))) return { text: 'done' };
          if (messages.some((message) => message.role === 'tool')) return { text: 'remembered' };
          return {
            toolCalls: [
              { name: 'mcp__mem__create_entities', args: { entities: [{ name: 'Beans', entityType: 'tool', observations: ['remembers servers'] }] } },
            ],
          };
        },
      });
      const env = { ...repo.env, OLLAMA_HOST: server.url };
      const chats = () => server.requests.filter((request) => request.kind === 'chat');
      const toolNames = (request: { body: unknown }) =>
        ((request.body as { tools?: { function: { name: string } }[] }).tools ?? [])
          .map((tool) => tool.function.name)
          .filter((name) => name.startsWith('mcp__'));
      const firstRequestAfter = async (args: string[]) => {
        const before = chats().length;
        const started = Date.now();
        const run = await runBeans(args, { cwd: repo.dir, env, timeoutMs: 60_000 });
        expect(run.stderr).not.toContain('warning');
        expect(run.code).toBe(0);
        return { run, request: chats()[before]!, waitedMs: chats()[before]!.time - started };
      };

      // First meeting: the run waits for the server's tools.
      const first = await firstRequestAfter(['-p', 'hi']);
      expect(first.waitedMs).toBeGreaterThan(5_000);
      expect(toolNames(first.request)).toContain('mcp__mem__create_entities');

      // Next run: the same tools at once, and the call waits for the server.
      const second = await firstRequestAfter(['-p', 'remember', '--allowed-tools', 'mcp__mem__*']);
      expect(second.waitedMs).toBeLessThan(4_000);
      expect(toolNames(second.request)).toEqual(toolNames(first.request));
      expect(second.run.stdout.trim()).toBe('remembered');
      expect(readFileSync(memoryFile, 'utf8')).toContain('remembers servers');

      // A program reading stream-json is told of connected servers, so that run waits.
      const third = await firstRequestAfter(['-p', 'hi', '--output-format', 'stream-json', '--verbose']);
      expect(third.waitedMs).toBeGreaterThan(5_000);
      const init = parseJsonLines(third.run.stdout).find((message) => message.type === 'system' && message.subtype === 'init') as { mcp_servers: unknown };
      expect(init.mcp_servers).toEqual([{ name: 'mem', status: 'connected' }]);
    },
  );
});
