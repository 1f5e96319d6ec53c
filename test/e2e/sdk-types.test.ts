// The stream-json lines Beans prints are checked against the real Claude Agent SDK's TypeScript
// types: each recorded line becomes an argument of a function typed `<T extends SDKMessage>(m: T)`,
// and tsc must accept the file. Literal types are kept, extra fields (Beans' own) are allowed.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEANS_BIN, makeTempRepo, parseJsonLines, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');

/** Each group's lines must be of the SDK type it is named by (exported from the SDK's main entry). */
function typeCheck(lines: Record<string, unknown>[], groups: Record<string, unknown[]> = {}): string {
  // Inside the repository, so `@anthropic-ai/claude-agent-sdk` resolves from its node_modules.
  const dir = path.join(ROOT, 'test', 'e2e', `.sdk-check-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  try {
    const all: Record<string, unknown[]> = { SDKMessage: lines, ...groups };
    const names = Object.keys(all);
    const checks = names.map((name) => `function check${name}<const T extends ${name}>(value: T): T { return value; }`).join('\n');
    const body = names.flatMap((name) => all[name]!.map((line, index) => `check${name}(${JSON.stringify(line)}); // ${name} ${index + 1}`)).join('\n');
    writeFileSync(path.join(dir, 'check.ts'), `import type { ${names.join(', ')} } from '@anthropic-ai/claude-agent-sdk';\n${checks}\n${body}\n`);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    try {
      execFileSync(TSC, ['-p', dir], { encoding: 'utf8', stdio: 'pipe' });
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * bin/beans as the SDK starts it; each control request is sent once the one before is answered,
 * then `prompt` as a user message, until its result. Returns the answers and every other line.
 */
async function controlResponses(repo: TempRepo, env: NodeJS.ProcessEnv, requests: Record<string, unknown>[], prompt: string) {
  const child = spawn(BEANS_BIN, ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], {
    cwd: repo.dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const answers: Record<string, unknown>[] = [];
  const others: Record<string, unknown>[] = [];
  const until = async (done: (line: Record<string, unknown>) => boolean) => {
    for (;;) {
      const next = await lines.next();
      if (next.done) throw new Error('beans ended early');
      const line = JSON.parse(next.value) as Record<string, unknown>;
      if (line.type === 'control_response') answers.push(line);
      else others.push(line);
      if (done(line)) return;
    }
  };
  for (const [index, request] of requests.entries()) {
    child.stdin!.write(`${JSON.stringify({ type: 'control_request', request_id: `r${index}`, request })}\n`);
    await until((line) => line.type === 'control_response' && (line.response as { request_id?: string }).request_id === `r${index}`);
  }
  child.stdin!.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null, session_id: '' })}\n`);
  await until((line) => line.type === 'result');
  child.stdin!.end();
  await once(child, 'exit');
  return { answers, lines: others };
}

describe('stream-json against the Claude Agent SDK types', () => {
  it('every line of a tool run (with partial messages) and of an error result is an SDKMessage', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n' });
    const server = await scriptedOllama({
      turns: [
        {
          text: ['Let me ', 'look.'],
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' } },
            { name: 'shell', args: { command: 'echo hi' } },
          ],
        },
        { text: 'It says alpha.' },
      ],
    });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const ok = await runBeans(['-p', 'read a.txt', '-o', 'stream-json', '--verbose', '--include-partial-messages'], { cwd: repo.dir, env });
    expect(ok.code).toBe(0);
    const limited = await runBeans(['-p', 'read a.txt', '-o', 'stream-json', '--max-turns', '1', '--yolo'], { cwd: repo.dir, env });
    expect(limited.code).toBe(4);
    const lines = [...parseJsonLines(ok.stdout), ...parseJsonLines(limited.stdout)];
    const types = new Set(lines.map((line) => line.type));
    expect([...types].sort()).toEqual(['assistant', 'result', 'stream_event', 'system', 'user']);
    const errorResult = parseJsonLines(limited.stdout).at(-1)!;
    expect(errorResult).toMatchObject({ type: 'result', subtype: 'error_max_turns', is_error: true });
    expect((errorResult.errors as string[])[0]).toMatch(/turns/);
    expect(typeCheck(lines)).toBe('');
  }, 90_000);

  it("#40's shapes: Claude names, a background Task and TaskOutput, structured_output and its error subtype, MCP control answers", async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n' });
    const child = (request: { body: unknown }) =>
      ((request.body as { messages: { role: string; content: string }[] }).messages[0]?.content ?? '').startsWith('You are a general-purpose agent');
    const server = await scriptedOllama({
      turns: (request, n) => {
        if (child(request)) return { text: 'alpha it is' };
        if (n === 0)
          return {
            toolCalls: [
              { name: 'write_file', args: { path: 'b.txt', content: 'beta\n' } },
              { name: 'task', args: { description: 'read a', prompt: 'Read a.txt.', subagent_type: 'general-purpose', run_in_background: true } },
            ],
          };
        if (n === 1) return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', wait_ms: 20_000 } }] };
        return { text: '{"word": "alpha"}' };
      },
    });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const schema = JSON.stringify({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] });
    const ok = await runBeans(['-p', 'go', '-o', 'stream-json', '--verbose', '--tool-names', 'claude', '--json-schema', schema, '--yolo'], {
      cwd: repo.dir,
      env,
    });
    expect(ok.code, ok.stderr).toBe(0);
    const lines = parseJsonLines(ok.stdout);
    const names = lines.flatMap((line) =>
      line.type === 'assistant'
        ? (line.message as { content: { type: string; name?: string }[] }).content.filter((block) => block.type === 'tool_use').map((block) => block.name)
        : [],
    );
    expect(names).toEqual(['Write', 'Task', 'TaskOutput']);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', structured_output: { word: 'alpha' } });

    const never = await scriptedOllama({ turns: [{ text: 'not json' }] });
    const failed = await runBeans(['-p', 'go', '-o', 'stream-json', '--verbose', '--json-schema', schema], {
      cwd: repo.dir,
      env: { ...env, OLLAMA_HOST: never.url },
    });
    expect(failed.code).toBe(1);
    const failedLines = parseJsonLines(failed.stdout);
    expect(failedLines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_max_structured_output_retries' });

    const { answers, lines: sdkLines } = await controlResponses(
      repo,
      env,
      [
        { subtype: 'initialize' },
        {
          subtype: 'mcp_set_servers',
          servers: { ev: { command: process.execPath, args: [everything, 'stdio'] }, broken: { command: '/nonexistent/mcp-server' } },
        },
        { subtype: 'mcp_toggle', serverName: 'ev', enabled: false },
        { subtype: 'mcp_reconnect', serverName: 'broken' },
        { subtype: 'mcp_status' },
      ],
      'go',
    );
    // Under the SDK protocol the background Task is bracketed by Claude Code's task events.
    expect(sdkLines.filter((line) => line.type === 'system').map((line) => line.subtype)).toEqual(
      expect.arrayContaining(['task_started', 'task_notification']),
    );
    const payload = (answer: Record<string, unknown>) => (answer.response as { response?: Record<string, unknown> }).response ?? {};
    expect(payload(answers[1]!)).toMatchObject({ added: ['ev', 'broken'], removed: [], errors: { broken: expect.any(String) } });
    expect(answers[3]!.response).toMatchObject({ subtype: 'error', error: expect.stringContaining('broken') });
    const statuses = payload(answers[4]!).mcpServers as Record<string, unknown>[];
    expect(statuses.map((status) => [status.name, status.status])).toEqual([
      ['ev', 'disabled'],
      ['broken', 'failed'],
    ]);
    expect(
      typeCheck([...lines, ...failedLines, ...sdkLines], {
        SDKControlResponse: answers,
        McpSetServersResult: [payload(answers[1]!)],
        McpServerStatus: statuses,
      }),
    ).toBe('');
  }, 120_000);

  it('the check fails on a line that is not an SDKMessage (the test can fail)', () => {
    expect(typeCheck([{ type: 'result', subtype: 'success', session_id: 'x' }])).toMatch(/error TS/);
    // And on a control answer that lacks a field of its type.
    expect(typeCheck([], { McpSetServersResult: [{ added: [], removed: [] }] })).toMatch(/error TS/);
  }, 90_000);
});
