import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, parseJsonLines, runBeans, scriptedGemini, scriptedOllama, spawnBeans, type TempRepo } from './harness.ts';

// A two-turn tool-using script: read a file, then answer from it.
const READ_THEN_ANSWER: ScriptTurn[] = [
  {
    text: 'Let me look.',
    toolCalls: [
      { name: 'read_file', args: { path: 'notes.txt' } },
      { name: 'glob', args: { pattern: '*.txt' } },
    ],
    usage: { input: 120, output: 12 },
  },
  { text: ['The notes say ', 'beans are great.'], usage: { input: 300, output: 8 } },
];

type Provider = 'ollama' | 'gemini';

async function start(provider: Provider, turns: ScriptTurn[], extra: Record<string, unknown> = {}): Promise<ScriptedServer> {
  return provider === 'ollama' ? scriptedOllama({ turns, ...extra }) : scriptedGemini({ turns, ...extra });
}

function providerEnv(provider: Provider, server: ScriptedServer): NodeJS.ProcessEnv {
  return provider === 'ollama'
    ? { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' }
    : { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: server.url, BEANS_MODEL: 'gemini-2.5-flash' };
}

let repo: TempRepo;
let server: ScriptedServer | undefined;

describe.each<Provider>(['ollama', 'gemini'])('one-shot on %s', (provider) => {
  it('runs a tool-using conversation and prints only the answer (text)', async () => {
    repo = makeTempRepo({ 'notes.txt': 'beans are great\n' });
    server = await start(provider, READ_THEN_ANSWER);
    const run = await runBeans(['-p', 'What do the notes say?'], { cwd: repo.dir, env: { ...repo.env, ...providerEnv(provider, server) } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The notes say beans are great.\n');
    // The second request carried both tool results, the file's numbered content among them.
    expect(JSON.stringify(server.requests[1]!.body)).toContain('beans are great');
    expect(server.requests).toHaveLength(2);
  });

  it('prints one result object (json)', async () => {
    repo = makeTempRepo({ 'notes.txt': 'beans are great\n' });
    server = await start(provider, READ_THEN_ANSWER);
    const run = await runBeans(['-p', 'What do the notes say?', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, ...providerEnv(provider, server) } });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'The notes say beans are great.',
      num_turns: 2,
      usage: { input_tokens: 420, output_tokens: 20 },
      permission_denials: [],
    });
    expect(result.session_id).toMatch(/\S/);
    expect(result.duration_ms).toBeGreaterThan(0);
    expect(typeof result.total_cost_usd).toBe('number');
    if (provider === 'gemini') expect(result.total_cost_usd).toBeGreaterThan(0);
  });

  it('streams init, assistant, tool results and the result, one JSON object per line (stream-json)', async () => {
    repo = makeTempRepo({ 'notes.txt': 'beans are great\n' });
    server = await start(provider, READ_THEN_ANSWER);
    const run = await runBeans(['-p', 'What do the notes say?', '-o', 'stream-json'], {
      cwd: repo.dir,
      env: { ...repo.env, ...providerEnv(provider, server) },
    });
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    expect(lines.map((line) => line.type)).toEqual(['system', 'assistant', 'user', 'user', 'assistant', 'result']);
    const init = lines[0]!;
    expect(init).toMatchObject({ subtype: 'init', cwd: repo.dir, provider, permissionMode: 'default' });
    expect(init.tools).toEqual(
      expect.arrayContaining(['read_file', 'write_file', 'edit_file', 'shell', 'glob', 'grep', 'list_directory', 'todo_write', 'load_skill']),
    );
    expect(init.agents).toEqual(expect.arrayContaining(['reviewer']));
    const sessionId = init.session_id;
    expect(lines.every((line) => line.session_id === sessionId)).toBe(true);
    const toolUses = (lines[1]!.message as { content: { type: string; id?: string; name?: string; input?: unknown }[] }).content;
    expect(toolUses[0]).toEqual({ type: 'text', text: 'Let me look.', citations: null });
    expect(toolUses[1]).toMatchObject({ type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } });
    expect(toolUses[2]).toMatchObject({ type: 'tool_use', name: 'glob', input: { pattern: '*.txt' } });
    const firstResult = (lines[2]!.message as { content: { tool_use_id: string; content: string; is_error: boolean }[] }).content[0]!;
    expect(firstResult.tool_use_id).toBe(toolUses[1]!.id);
    expect(firstResult.content).toContain('beans are great');
    expect(firstResult.is_error).toBe(false);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', num_turns: 2, session_id: sessionId });
  });

  it('retries 429 twice and then succeeds', async () => {
    repo = makeTempRepo();
    server = await start(provider, [{ text: 'made it' }], { faults: [{ status: 429 }, { status: 429 }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...providerEnv(provider, server) } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('made it\n');
    expect(run.stderr).toMatch(/answered with HTTP 429; retrying in [\d.]+ s \(attempt 2\)/);
    expect(server.requests.filter((request) => request.path.includes('chat') || request.path.includes('Content'))).toHaveLength(3);
  });

  it('gives up on 500 after bounded tries with a clear error and exit 1', async () => {
    repo = makeTempRepo();
    server = await start(provider, [{ text: 'never' }], { faults: [{ status: 500, always: true }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...providerEnv(provider, server) }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^beans: .*(500|server)/i);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const tries = server.requests.filter((request) => request.method === 'POST' && !request.path.includes('/api/show')).length;
    expect(tries).toBeGreaterThan(1);
    expect(tries).toBeLessThanOrEqual(5);
  });

  it('stops at --max-turns with exit 4 and error_max_turns', async () => {
    repo = makeTempRepo({ 'notes.txt': 'x\n' });
    server = await start(provider, [{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }]);
    const run = await runBeans(['-p', 'loop forever', '--max-turns', '2', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, ...providerEnv(provider, server) },
    });
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 2 });
    expect(run.stderr).toContain('--max-turns');
  });
});

describe('budget', () => {
  it('stops at --max-budget-usd with exit 4 and error_max_budget_usd (priced Gemini model)', async () => {
    repo = makeTempRepo({ 'notes.txt': 'x\n' });
    server = await scriptedGemini({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }], usage: { input: 1_000_000, output: 1_000 } }] });
    const run = await runBeans(['-p', 'spend', '--max-budget-usd', '0.5', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, ...providerEnv('gemini', server) },
    });
    expect(run.code).toBe(4);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true });
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(0.5);
    expect(result.num_turns).toBeLessThan(5);
    expect(run.stderr).toContain('--max-budget-usd');
  });
});

describe('one-shot errors', () => {
  it('fails fast with exit 3 naming the host when Ollama is unreachable', async () => {
    repo = makeTempRepo();
    const port = await closedPort();
    const run = await runBeans(['-p', 'hi', '--provider', 'ollama'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: `127.0.0.1:${port}` } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`127.0.0.1:${port}`);
    expect(run.stderr).toContain('OLLAMA_HOST');
    expect(run.durationMs).toBeLessThan(8_000);
  });

  it('exits 3 naming GEMINI_API_KEY when Gemini has no key', async () => {
    repo = makeTempRepo();
    const run = await runBeans(['-p', 'hi', '--provider', 'gemini'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('GEMINI_API_KEY');
  });

  it('exits 2 on bad usage', async () => {
    repo = makeTempRepo();
    const run = await runBeans(['--max-turns', 'lots', '-p', 'x'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/max-turns/);
  });

  it('prepends piped stdin as context', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({ turns: [{ text: 'reviewed' }] });
    const run = await runBeans(['-p', 'review this diff'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_MODEL: 'qwen3' },
      input: '+added line\n',
    });
    expect(run.code).toBe(0);
    const messages = (server.requests[0]!.body as { messages: { role: string; content: string }[] }).messages;
    const user = messages.find((message) => message.role === 'user')!;
    expect(user.content).toBe('<stdin>\n+added line\n</stdin>\n\nreview this diff');
  });

  it('runs one-shot on piped stdin when no -p is given', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({ turns: [{ text: 'from stdin' }] });
    const run = await runBeans([], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_MODEL: 'qwen3' }, input: 'what is this repo?\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('from stdin\n');
    const messages = (server.requests[0]!.body as { messages: { role: string; content: string }[] }).messages;
    expect(messages.find((message) => message.role === 'user')!.content).toBe('what is this repo?');
  });

  it('exits 130 promptly on Ctrl+C in the middle of a stream, with a result that says so', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({ turns: [{ text: Array.from({ length: 100 }, (_, i) => `chunk ${i} `), chunkDelayMs: 100 }] });
    const child = spawnBeans(['-p', 'talk slowly', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_MODEL: 'qwen3' } });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    while (!server.requests.some((request) => request.kind === 'chat')) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const interrupted = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(Date.now() - interrupted).toBeLessThan(2_000);
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
  });

  it('delivers a long answer whole to a slow reader on a pipe', async () => {
    repo = makeTempRepo();
    const answer = `${'All work and no play makes a long answer. '.repeat(8000)}THE END`;
    server = await scriptedOllama({ turns: [{ text: answer }] });
    const child = spawnBeans(['-p', 'write a lot', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_MODEL: 'qwen3' } });
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout).result).toBe(answer);
  });

  it('prints the version and help', async () => {
    repo = makeTempRepo();
    const version = await runBeans(['--version'], { cwd: repo.dir, env: repo.env });
    expect(version.code).toBe(0);
    const expected = `${JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')).version}\n`;
    expect(version.stdout).toBe(expected);
    // bin/beans answers --version itself; main.js answers for copies started without the launcher.
    const direct = spawnSync(process.execPath, [path.resolve(import.meta.dirname, '../../packages/cli/dist/bundle/main.js'), '--version'], {
      cwd: repo.dir,
      env: repo.env,
      encoding: 'utf8',
    });
    expect([direct.status, direct.stdout]).toEqual([0, expected]);
    const help = await runBeans(['--help'], { cwd: repo.dir, env: repo.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--output-format');
    expect(existsSync(path.join(repo.home, '.local'))).toBe(false);
  });
});

/** A port nothing listens on: bound by the OS, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
