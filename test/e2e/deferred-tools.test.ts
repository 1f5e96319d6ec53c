// Issue 47: with many MCP tools, requests stay small: the tools are listed by name, and the model
// loads a schema with tool_search when it needs one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans } from './harness.ts';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { writeManyToolsServer } from '../support/many-tools-server.ts';
import type { RecordedRequest, ScriptOptions, ScriptedServer } from '../support/script.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

interface AnthropicBody {
  system?: { text: string }[];
  tools?: { name: string; input_schema?: unknown; cache_control?: unknown }[];
  messages: { role: string; content: string | { type: string; content?: unknown; tool_use_id?: string }[] }[];
}
const chats = (server: ScriptedServer): RecordedRequest[] => server.requests.filter((r) => r.kind === 'chat');
const body = (request: RecordedRequest) => request.body as AnthropicBody;
const toolNames = (request: RecordedRequest) => (body(request).tools ?? []).map((tool) => tool.name);
/** The text of the last tool result a request sends. */
function lastToolResult(request: RecordedRequest): string {
  const results = body(request).messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_result'),
  );
  const content = results.at(-1)?.content;
  if (typeof content === 'string') return content;
  return (content as { type: string; text?: string }[]).map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
}
/** The tool_reference blocks of the last tool result (Anthropic's deferred loading). */
function lastReferences(request: RecordedRequest): unknown[] {
  const results = body(request).messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_result'),
  );
  const content = results.at(-1)?.content;
  return Array.isArray(content) ? content.filter((block: { type: string }) => block.type === 'tool_reference') : [];
}
// The cache marker sits on the last tool wherever that is; it is not part of the cached bytes.
const withoutMarkers = (tools: AnthropicBody['tools']) => JSON.stringify((tools ?? []).map(({ cache_control: _marker, ...tool }) => tool));

async function run(turns: ScriptOptions['turns'], tools: number | undefined, settings?: unknown) {
  const repo = makeTempRepo();
  if (settings) {
    const file = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(settings));
  }
  const server = await startScriptedAnthropic({ turns });
  servers.push(server);
  const args = ['-p', 'bill ACME', '--provider', 'anthropic', '-m', 'claude-sonnet-5-5', '-o', 'json', '--allowed-tools', 'mcp__big'];
  if (tools !== undefined) {
    repo.write('servers.json', JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [writeManyToolsServer(repo.home, tools)] } } }));
    args.push('--mcp-config', 'servers.json');
  }
  const env = { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const result = await runBeans(args, { cwd: repo.dir, env, timeoutMs: 60_000 });
  expect(result.code, result.stderr).toBe(0);
  return { repo, server, env, args, result: JSON.parse(result.stdout) as { result: string; session_id: string } };
}

describe('deferred MCP tools', () => {
  it('150 tools: listed by name only, loaded with tool_search (select and keywords), called, kept on resume', { timeout: 90_000 }, async () => {
    const baseline = await run([{ text: 'done' }], undefined);
    const baselineBytes = chats(baseline.server)[0]!.bytes;

    const turns: ScriptOptions['turns'] = (_request, n) =>
      [
        { toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME' } }] },
        { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__big__create_invoice' } }] },
        { toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME', amount: '4200' } }] },
        { toolCalls: [{ name: 'tool_search', args: { query: 'refund an invoice', max_results: 3 } }] },
        { text: 'billed' },
      ][n] ?? { text: 'billed' };
    const { server, env, repo, result } = await run(turns, 150);
    expect(result.result).toBe('billed');
    const requests = chats(server);
    expect(requests).toHaveLength(5);
    const [first, afterError, afterLoad, afterCall, afterSearch] = requests as [
      RecordedRequest,
      RecordedRequest,
      RecordedRequest,
      RecordedRequest,
      RecordedRequest,
    ];

    // The first request declares no MCP schema, lists every MCP tool by name, and costs < 40 bytes a tool.
    expect(toolNames(first).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(first)).toContain('tool_search');
    const system = body(first)
      .system!.map((block) => block.text)
      .join('\n');
    for (const name of ['create_invoice', 'refund_invoice', 'list_issues', 'comment_on_builds']) expect(system).toMatch(new RegExp(`^mcp__big__${name}$`, 'm'));
    expect(system.match(/^mcp__big__\S+$/gm)).toHaveLength(150);
    // The server's own one-line description (its instructions' first line) heads its tools.
    expect(system).toContain('\nbig server: Billing and project tracking for ACME.\nmcp__big__create_invoice\n');
    expect(first.bytes).toBeLessThanOrEqual(baselineBytes + 40 * 150);

    // A deferred tool called before it is loaded: an error that says how to load it.
    expect(lastToolResult(afterError)).toContain('tool_search');
    expect(lastToolResult(afterError)).toContain('select:mcp__big__create_invoice');

    // select: loads it; the next request declares it last, and everything before is byte-identical.
    expect(lastToolResult(afterLoad)).toContain('Loaded: mcp__big__create_invoice');
    expect(toolNames(afterLoad).at(-1)).toBe('mcp__big__create_invoice');
    expect(body(afterLoad).tools!.at(-1)!.input_schema).toMatchObject({ properties: { customer: { type: 'string' } } });
    expect(withoutMarkers(body(afterLoad).tools!.slice(0, -1))).toBe(withoutMarkers(body(afterError).tools));
    // Anthropic's own deferred loading: the result names the tool in a tool_reference block, the tool
    // is declared with defer_loading, and the cache marker stays where it was, so the tools before
    // it are byte-identical marker and all.
    expect(lastReferences(afterLoad)).toEqual([{ type: 'tool_reference', tool_name: 'mcp__big__create_invoice' }]);
    expect(body(afterLoad).tools!.at(-1)).toMatchObject({ defer_loading: true });
    expect(body(afterLoad).tools!.at(-1)).not.toHaveProperty('cache_control');
    expect(JSON.stringify(body(afterLoad).tools!.slice(0, -1))).toBe(JSON.stringify(body(afterError).tools));
    expect(JSON.stringify(body(afterLoad).system)).toBe(JSON.stringify(body(afterError).system));

    // The call reaches the server and its answer comes back.
    expect(lastToolResult(afterCall)).toContain('create_invoice done with {"customer":"ACME","amount":"4200"}');

    // A keyword search ranks the right tool first and loads the best matches.
    const found = lastToolResult(afterSearch);
    expect(found.split('\n').find((line) => line.startsWith('- '))).toMatch(/^- mcp__big__refund_invoice: Refund a paid invoice/);
    expect(found.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(3);
    // create_invoice was loaded already: the two others join after it, in rank order.
    const loadedNames = toolNames(afterSearch).filter((name) => name.startsWith('mcp__'));
    expect(loadedNames.slice(0, 2)).toEqual(['mcp__big__create_invoice', 'mcp__big__refund_invoice']);
    expect(loadedNames).toHaveLength(3);
    expect(withoutMarkers(body(afterSearch).tools!.slice(0, -2))).toBe(withoutMarkers(body(afterCall).tools));

    // A resumed session declares the loaded tools again, in the same order.
    const resumedServer = await startScriptedAnthropic({ turns: [{ text: 'again' }] });
    servers.push(resumedServer);
    const resumed = await runBeans(
      ['-p', 'and again', '--provider', 'anthropic', '-m', 'claude-sonnet-5-5', '-o', 'json', '--mcp-config', 'servers.json', '--resume', result.session_id],
      {
        cwd: repo.dir,
        env: { ...env, ANTHROPIC_BASE_URL: resumedServer.url },
        timeoutMs: 60_000,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(toolNames(chats(resumedServer)[0]!).filter((name) => name.startsWith('mcp__'))).toEqual(
      toolNames(afterSearch).filter((name) => name.startsWith('mcp__')),
    );
  });

  it('5 tools: nothing is deferred and no tool_search is declared', { timeout: 60_000 }, async () => {
    const { server } = await run([{ toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME' } }] }, { text: 'billed' }], 5);
    const [first, second] = chats(server) as [RecordedRequest, RecordedRequest];
    expect(toolNames(first).filter((name) => name.startsWith('mcp__'))).toHaveLength(5);
    expect(toolNames(first)).not.toContain('tool_search');
    expect(lastToolResult(second)).toContain('create_invoice done');
  });

  it("system/init names every tool the session can use, deferred ones included, and ToolSearch in Claude's names", { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const server = await startScriptedAnthropic({ turns: [{ text: 'ok' }] });
    servers.push(server);
    repo.write('servers.json', JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [writeManyToolsServer(repo.home, 150)] } } }));
    const result = await runBeans(
      [
        '-p',
        'hi',
        '--provider',
        'anthropic',
        '-m',
        'claude-sonnet-5-5',
        '--mcp-config',
        'servers.json',
        '-o',
        'stream-json',
        '--verbose',
        '--tool-names',
        'claude',
      ],
      { cwd: repo.dir, env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url } },
    );
    expect(result.code, result.stderr).toBe(0);
    const init = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; subtype?: string; tools?: string[] })
      .find((message) => message.subtype === 'init')!;
    expect(init.tools).toContain('ToolSearch');
    expect(init.tools).toContain('Read');
    expect(init.tools!.filter((name) => name.startsWith('mcp__big__'))).toHaveLength(150);
    expect(toolNames(chats(server)[0]!).filter((name) => name.startsWith('mcp__'))).toEqual([]);
  });

  it('beans mcp list says which servers a session would defer, with their descriptions', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    repo.write('many.json', JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [writeManyToolsServer(repo.home, 150)] } } }));
    repo.write('few.json', JSON.stringify({ mcpServers: { small: { command: process.execPath, args: [writeManyToolsServer(repo.home, 5)] } } }));
    const env = { ...repo.env, ANTHROPIC_API_KEY: 'k' };
    const many = await runBeans(['mcp', 'list', '--mcp-config', 'many.json', '--strict-mcp-config'], { cwd: repo.dir, env });
    expect(many.code, many.stderr).toBe(0);
    expect(many.stdout).toContain(
      'big  stdio  connected\n  Billing and project tracking for ACME.\n  tools (deferred: offered by name, loaded with tool_search): create_invoice, refund_invoice,',
    );
    const json = JSON.parse((await runBeans(['mcp', 'list', '--json', '--mcp-config', 'many.json', '--strict-mcp-config'], { cwd: repo.dir, env })).stdout);
    expect(json.servers[0]).toMatchObject({ name: 'big', description: 'Billing and project tracking for ACME.', deferred: { loaded: [] } });
    const few = await runBeans(['mcp', 'list', '--mcp-config', 'few.json', '--strict-mcp-config'], { cwd: repo.dir, env });
    expect(few.stdout).toContain('  tools: create_invoice, refund_invoice,');
    expect(few.stdout).not.toContain('deferred');
  });

  it('tools.defer "never" declares all 150; "always" defers even 5', { timeout: 60_000 }, async () => {
    const never = await run([{ text: 'done' }], 150, { tools: { defer: 'never' } });
    expect(toolNames(chats(never.server)[0]!).filter((name) => name.startsWith('mcp__'))).toHaveLength(150);
    const always = await run([{ text: 'done' }], 5, { tools: { defer: 'always' } });
    expect(toolNames(chats(always.server)[0]!).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(chats(always.server)[0]!)).toContain('tool_search');
  });

  it('hooks see tool_search as ToolSearch and the loaded tool by its real name', { timeout: 60_000 }, async () => {
    const log = path.join(process.env.TMPDIR ?? '/tmp', `beans-defer-hooks-${process.pid}-${Date.now()}.jsonl`);
    const hooks = {
      PreToolUse: [{ matcher: 'ToolSearch|mcp__big__create_invoice', hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}`, timeout: 30 }] }],
    };
    const turns = [
      { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__big__create_invoice' } }] },
      { toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME' } }] },
      { text: 'billed' },
    ];
    await run(turns, 5, { tools: { defer: 'always' }, hooks });
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { tool_name: string; tool_input: unknown });
    expect(calls.map((call) => [call.tool_name, call.tool_input])).toEqual([
      ['ToolSearch', { query: 'select:mcp__big__create_invoice' }],
      ['mcp__big__create_invoice', { customer: 'ACME' }],
    ]);
  });

  it('an agent taking the conversation over (handoff) has its MCP tools deferred too, and loads them', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo({
      'plugins/desk/agents/billing.md': '---\nname: billing\ndescription: Invoices, payments and refunds.\n---\nBILLING: you handle money questions.\n',
    });
    const system = (request: RecordedRequest) => (body(request).system ?? []).map((block) => block.text).join('\n');
    const server = await startScriptedAnthropic({
      turns: (request) => {
        if (!system(request).startsWith('BILLING')) return { toolCalls: [{ name: 'handoff', args: { agent: 'billing', reason: 'an invoice' } }] };
        const loaded = toolNames(request).includes('mcp__big__create_invoice');
        if (!loaded) return { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__big__create_invoice' } }] };
        return lastToolResult(request).includes('create_invoice done')
          ? { text: 'billed' }
          : { toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME' } }] };
      },
    });
    servers.push(server);
    repo.write('servers.json', JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [writeManyToolsServer(repo.home, 150)] } } }));
    const result = await runBeans(
      ['-p', 'bill ACME', '--provider', 'anthropic', '-m', 'claude-sonnet-5-5', '--mcp-config', 'servers.json', '-o', 'json', '--allowed-tools', 'mcp__big'],
      { cwd: repo.dir, env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).result).toBe('billed');
    const billing = chats(server).filter((request) => system(request).startsWith('BILLING'));
    expect(billing).toHaveLength(3);
    expect(toolNames(billing[0]!).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(billing[0]!)).toContain('tool_search');
    expect(system(billing[0]!)).toContain('\nbig server: Billing and project tracking for ACME.\nmcp__big__create_invoice\n');
    expect(toolNames(billing[1]!).at(-1)).toBe('mcp__big__create_invoice');
    expect(lastToolResult(billing[2]!)).toContain('create_invoice done with {"customer":"ACME"}');
  });

  it('a subagent defers its MCP tools too and loads them with its own tool_search', { timeout: 60_000 }, async () => {
    // Parent and child requests told apart by what they declare; each answered by how far it got.
    const turns: ScriptOptions['turns'] = (request) => {
      const results = body(request).messages.filter(
        (message) => typeof message.content !== 'string' && message.content.some((block) => block.type === 'tool_result'),
      ).length;
      if (toolNames(request).includes('task'))
        return results === 0
          ? { toolCalls: [{ name: 'task', args: { description: 'bill ACME', prompt: 'create the invoice for ACME', subagent_type: 'general-purpose' } }] }
          : { text: 'billed' };
      if (results === 0) return { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__big__create_invoice' } }] };
      if (results === 1) return { toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME' } }] };
      return { text: 'invoice created' };
    };
    const { server, result } = await run(turns, 150);
    expect(result.result).toBe('billed');
    const [parent, childFirst, childLoaded, childCalled] = chats(server) as [RecordedRequest, RecordedRequest, RecordedRequest, RecordedRequest];
    expect(toolNames(parent)).toContain('task');
    // The child's own conversation: no task tool, no MCP schema, its own tool_search and the names listed.
    expect(toolNames(childFirst)).not.toContain('task');
    expect(toolNames(childFirst).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(childFirst)).toContain('tool_search');
    expect(
      body(childFirst)
        .system!.map((block) => block.text)
        .join('\n'),
    ).toMatch(/^mcp__big__refund_invoice$/m);
    expect(toolNames(childLoaded).at(-1)).toBe('mcp__big__create_invoice');
    expect(withoutMarkers(body(childLoaded).tools!.slice(0, -1))).toBe(withoutMarkers(body(childFirst).tools));
    expect(lastToolResult(childCalled)).toContain('create_invoice done with {"customer":"ACME"}');
  });
});
