import { appendFileSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, spawnBeans, type TempRepo } from './harness.ts';

let repo: TempRepo;
let server: ScriptedServer | undefined;

const ollama = (server: ScriptedServer) => ({ OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' });
type ChatBody = { messages: { role: string; content: string; tool_calls?: unknown[]; tool_name?: string }[] };

function sessionFiles(home: string): string[] {
  const root = path.join(home, '.local', 'state', 'beans-agent', 'sessions');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((workspace) =>
    readdirSync(path.join(root, workspace))
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => path.join(root, workspace, file)),
  );
}

describe('sessions', () => {
  it('--continue carries the first exchange into the next run, and sessions list shows it', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({ turns: [{ text: 'The answer is 42.' }, { text: 'You asked about the answer.' }] });
    const env = { ...repo.env, ...ollama(server) };
    const first = await runBeans(['-p', 'What is the answer?', '-o', 'json'], { cwd: repo.dir, env });
    expect(first.code).toBe(0);
    const firstId = JSON.parse(first.stdout).session_id;

    const second = await runBeans(['-p', 'What did I ask?', '--continue', '-o', 'json'], { cwd: repo.dir, env });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ session_id: firstId, result: 'You asked about the answer.' });
    const history = (server.requests.filter((r) => r.kind === 'chat').at(-1)!.body as ChatBody).messages.filter((m) => m.role !== 'system');
    expect(history.map((m) => [m.role, m.content])).toEqual([
      ['user', 'What is the answer?'],
      ['assistant', 'The answer is 42.'],
      ['user', 'What did I ask?'],
    ]);

    const list = await runBeans(['sessions', 'list', '--json'], { cwd: repo.dir, env });
    expect(list.code).toBe(0);
    const sessions = JSON.parse(list.stdout).sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ id: firstId, turns: 2, firstPrompt: 'What is the answer?', model: 'qwen3' });

    const byPrefix = await runBeans(['-p', 'again', '-r', firstId.slice(0, 22), '-o', 'json'], { cwd: repo.dir, env });
    expect(JSON.parse(byPrefix.stdout).session_id).toBe(firstId);
  });

  it('-r skips a null or non-object line in the session file with a warning and resumes (issue 43 item 9)', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({ turns: [{ text: 'First.' }, { text: 'Second.' }] });
    const env = { ...repo.env, ...ollama(server) };
    const first = await runBeans(['-p', 'one', '-o', 'json'], { cwd: repo.dir, env });
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).session_id as string;
    const [file] = sessionFiles(repo.home);
    appendFileSync(file!, 'null\n42\n"text"\ntrue\n');
    const resumed = await runBeans(['-p', 'two', '-r', id], { cwd: repo.dir, env });
    expect(resumed.stderr).not.toContain('Cannot read properties');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Second.\n');
    expect(resumed.stderr.match(/Skipped line \d+ of .*: it is damaged/g)).toHaveLength(4);
    const history = (server.requests.filter((r) => r.kind === 'chat').at(-1)!.body as ChatBody).messages.filter((m) => m.role !== 'system');
    expect(history.map((m) => m.content)).toEqual(['one', 'First.', 'two']);
    const list = await runBeans(['sessions', 'list', '--json'], { cwd: repo.dir, env });
    expect(list.code, list.stderr).toBe(0);
  });

  it('loses nothing when killed with SIGKILL during a slow tool call, and resumes cleanly', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({
      turns: [{ text: 'Running the slow check.', toolCalls: [{ name: 'shell', args: { command: 'sleep 30' } }] }, { text: 'Picked up where we left off.' }],
    });
    const env = { ...repo.env, ...ollama(server) };
    const child = spawnBeans(['-p', 'run the slow check', '--yolo'], { cwd: repo.dir, env });
    // Wait until the tool call is on disk: the process is then inside the slow shell call.
    const deadline = Date.now() + 10_000;
    while (!sessionFiles(repo.home).some((file) => readFileSync(file, 'utf8').includes('sleep 30'))) {
      if (Date.now() > deadline) throw new Error('the tool call never reached the session file');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));

    const resumed = await runBeans(['-p', 'go on', '--continue'], { cwd: repo.dir, env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Picked up where we left off.\n');
    const history = (server.requests.filter((r) => r.kind === 'chat').at(-1)!.body as ChatBody).messages.filter((m) => m.role !== 'system');
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(history[0]!.content).toBe('run the slow check');
    expect(history[1]!.tool_calls).toHaveLength(1);
    expect(history[2]).toMatchObject({ tool_name: 'shell' });
    expect(history[2]!.content).toMatch(/interrupted/i);
  });

  it('rejects an invalid settings file with exit 3, naming the file and the key', async () => {
    repo = makeTempRepo({ '.beans/settings.json': '{\n  "maxTurns": "many"\n}\n' });
    // Trusted: an untrusted repository's invalid value is ignored and named (security-untrusted-invalid.test.ts).
    const run = await runBeans(['-p', 'hi', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(path.join('.beans', 'settings.json'));
    expect(run.stderr).toContain('maxTurns');
  });

  it('config set repairs a settings file that fails validation', async () => {
    repo = makeTempRepo({ '.beans/settings.json': '{\n  "maxTurns": "many"\n}\n' });
    const set = await runBeans(['config', 'set', 'maxTurns', '5'], { cwd: repo.dir, env: repo.env });
    expect(set.code).toBe(0);
    const show = await runBeans(['config', '--json'], { cwd: repo.dir, env: repo.env });
    expect(show.code).toBe(0);
  });

  it('reports a settings file that is not JSON with its line and column', async () => {
    repo = makeTempRepo({ '.beans/settings.json': '{\n  "provider": "ollama",\n  oops\n}\n' });
    const run = await runBeans(['config', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/settings\.json:3:\d+/);
  });

  it('config set writes the workspace file and config shows each value with its source', async () => {
    repo = makeTempRepo({ '.beans/settings.json': '{\n    "provider": "ollama"\n}\n' });
    const set = await runBeans(['config', 'set', 'maxTurns', '7'], { cwd: repo.dir, env: repo.env });
    expect(set.code).toBe(0);
    expect(readFileSync(path.join(repo.dir, '.beans/settings.json'), 'utf8')).toBe('{\n    "provider": "ollama",\n    "maxTurns": 7\n}\n');
    const show = await runBeans(['config', '--json', '--model', 'flagged'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: 'http://127.0.0.1:1234' } });
    expect(show.code).toBe(0);
    const entries = JSON.parse(show.stdout).entries as { key: string; value: unknown; source: string }[];
    const byKey = Object.fromEntries(entries.map((entry) => [entry.key, entry]));
    expect(byKey.maxTurns).toMatchObject({ value: 7, source: path.join(repo.dir, '.beans/settings.json') });
    expect(byKey.model).toMatchObject({ value: 'flagged', source: 'flag' });
    expect(byKey['ollama.host']).toMatchObject({ value: 'http://127.0.0.1:1234', source: 'env' });
    expect(byKey['permissions.mode']).toMatchObject({ value: 'default', source: 'default' });
  });
});
