// Claude Code itself as the MCP client of `beans mcp serve`: `claude -p --mcp-config FILE` against the
// scripted Anthropic server, its model calling mcp__beans__read_file. Claude Code (pinned) is
// installed from the npm registry on first use into node_modules/.cache, as bench/peers.mjs does.
// Claude Code 2.1.332 defers MCP tools in -p mode: the scripted model loads the tool with ToolSearch
// ("select:mcp__beans__read_file"), then calls it (TESTING.md, "Deferred tools").
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import type { RecordedRequest, ScriptedServer } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo } from './harness.ts';

const VERSION = '2.1.332';
const CACHE = path.resolve(import.meta.dirname, `../../node_modules/.cache/beans-e2e-claude-code-${VERSION}`);
const CLAUDE = path.join(CACHE, 'node_modules', '.bin', 'claude');
const KEY = 'sk-ant-test-beans-mcp-serve';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

beforeAll(() => {
  if (existsSync(CLAUDE)) return;
  mkdirSync(CACHE, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', CACHE, `@anthropic-ai/claude-code@${VERSION}`], { stdio: 'pipe', timeout: 300_000 });
}, 320_000);

type Block = { type: string; name?: string; text?: string; content?: unknown; is_error?: boolean; tool_use_id?: string };
type Message = { role: string; content: string | Block[] };
const messagesOf = (request: RecordedRequest) => ((request.body as { messages?: Message[] }).messages ?? []) as Message[];
const toolsOf = (request: RecordedRequest) => ((request.body as { tools?: { name: string }[] }).tools ?? []).map((tool) => tool.name);
const toolResults = (request: RecordedRequest) =>
  messagesOf(request).flatMap((message) => (typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'tool_result')));

function runClaude(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('Claude Code with beans mcp serve as an MCP server', () => {
  it('calls mcp__beans__read_file: a read inside the workspace answers, one outside is an error result', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'the secret word is pumpernickel\n' });
    const server = await startScriptedAnthropic({
      turns: (request) => {
        const results = toolResults(request);
        if (results.some((result) => JSON.stringify(result.content).includes('pumpernickel'))) return { text: 'The file says: pumpernickel.' };
        if (results.some((result) => JSON.stringify(result.content).includes('tool_reference')))
          return {
            toolCalls: [
              { name: 'mcp__beans__read_file', args: { path: 'notes.txt' } },
              { name: 'mcp__beans__read_file', args: { path: '/etc/hostname' } },
            ],
          };
        if (toolsOf(request).includes('ToolSearch')) return { toolCalls: [{ name: 'ToolSearch', args: { query: 'select:mcp__beans__read_file' } }] };
        return { text: 'No ToolSearch was offered.' };
      },
    });
    servers.push(server);
    // Onboarding done (else it calls api.anthropic.com), the key approved, the folder trusted.
    writeFileSync(
      path.join(repo.home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
        projects: { [repo.dir]: { hasTrustDialogAccepted: true } },
      }),
    );
    const config = path.join(repo.home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { beans: { command: BEANS_BIN, args: ['mcp', 'serve'] } } }));
    const env = {
      ...repo.env,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: server.url,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const run = await runClaude(
      [
        '-p',
        'What does notes.txt say? Use the beans read_file tool.',
        '--mcp-config',
        config,
        '--allowedTools',
        'mcp__beans__read_file',
        '--output-format',
        'json',
      ],
      { cwd: repo.dir, env },
    );
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const result = JSON.parse(run.stdout) as { result: string; is_error: boolean; permission_denials: unknown[] };
    expect(result).toMatchObject({ result: 'The file says: pumpernickel.', is_error: false, permission_denials: [] });

    const chats = server.requests.filter((request) => request.kind === 'chat');
    // Beans' tools reached Claude Code: named in its list of deferred tools, then loaded.
    expect(JSON.stringify(chats[0]!.body)).toContain('mcp__beans__read_file');
    const results = toolResults(chats.at(-1)!);
    const inside = results.find((block) => JSON.stringify(block.content).includes('pumpernickel'));
    expect(inside).toMatchObject({ content: [{ type: 'text', text: '1\tthe secret word is pumpernickel' }] });
    expect(inside!.is_error).toBeFalsy();
    const outside = results.find((block) => JSON.stringify(block.content).includes('/etc/hostname'));
    expect(outside?.is_error).toBe(true);
    expect(JSON.stringify(outside!.content)).toMatch(/\/etc\/hostname is outside the workspace/);
  });
});
