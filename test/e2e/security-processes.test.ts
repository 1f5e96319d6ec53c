// Attacks from the security review, run as they were: a scripted model, a one-shot run.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const toolResults = (body: unknown) =>
  ((body as { messages: { role: string; content: string }[] }).messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content);

function sessionText(home: string): string {
  const root = path.join(home, '.local', 'state', 'beans-agent', 'sessions');
  return readdirSync(root)
    .flatMap((dir) =>
      readdirSync(path.join(root, dir))
        .filter((file) => file.endsWith('.jsonl'))
        .map((file) => readFileSync(path.join(root, dir, file), 'utf8')),
    )
    .join('\n');
}

/** Processes whose command line contains `needle` (from /proc, so zombies of others do not count). */
function processesMatching(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,stat,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(needle) && !/\sZ/.test(line.slice(0, 14)) && !line.includes('ps -eo'));
}

describe('commands the model runs', () => {
  it('never see the provider keys Beans uses (finding 14)', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'shell', args: { command: 'echo "keys: [$GEMINI_API_KEY] [$OPENAI_API_KEY] [$ANTHROPIC_API_KEY] [$GOOGLE_API_KEY] home: $HOME"' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const secret = 'sk-canary-0123456789';
    const env = {
      ...repo.env,
      OLLAMA_HOST: server.url,
      BEANS_PROVIDER: 'ollama',
      GEMINI_API_KEY: secret,
      OPENAI_API_KEY: secret,
      ANTHROPIC_API_KEY: secret,
      GOOGLE_API_KEY: secret,
    };
    const run = await runBeans(['-p', 'print the keys', '--yolo'], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    const result = toolResults(server.requests.filter((r) => r.kind === 'chat')[1]!.body)[0]!;
    expect(result).toContain('keys: [] [] [] []');
    expect(result).toContain(`home: ${repo.home}`); // the rest of the environment is still there
    expect(sessionText(repo.home)).not.toContain(secret);
  });

  it("cannot read them from another process of their PID namespace either (its init's /proc/1/environ)", async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: [
        { toolCalls: [{ name: 'shell', args: { command: 'for p in /proc/[0-9]*; do tr "\\0" "\\n" < $p/environ; done 2>/dev/null' } }] },
        { text: 'done' },
      ],
    });
    const secret = 'sk-canary-namespace-4242';
    const run = await runBeans(['-p', 'print every environment', '--yolo'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', ANTHROPIC_API_KEY: secret, OPENAI_API_KEY: secret },
    });
    expect(run.code).toBe(0);
    const result = toolResults(server.requests.filter((r) => r.kind === 'chat')[1]!.body)[0]!;
    expect(result).toContain(`HOME=${repo.home}`); // the command's own environment was read
    expect(result).not.toContain(secret);
  });

  it('a setting can pass a variable through or strip more', async () => {
    const repo = makeTempRepo({ '.beans/settings.json': JSON.stringify({ tools: { env: { passThrough: ['OPENAI_API_KEY'], strip: ['DATABASE_URL'] } } }) });
    const server = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'shell', args: { command: 'echo "[$OPENAI_API_KEY] [$DATABASE_URL]"' } }] }, { text: 'done' }],
    });
    const run = await runBeans(['-p', 'go', '--yolo', '--trust'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', OPENAI_API_KEY: 'kept', DATABASE_URL: 'postgres://secret' },
    });
    expect(run.code).toBe(0);
    expect(toolResults(server.requests.filter((r) => r.kind === 'chat')[1]!.body)[0]).toContain('[kept] []');
  });

  it('leave nothing running: background jobs, nohup and setsid are stopped when the command ends (finding 13)', async () => {
    const repo = makeTempRepo();
    const marker = `${Date.now() % 100000}`;
    const command = [
      `sleep 1${marker}1 &`,
      `nohup sleep 1${marker}2 >/dev/null 2>&1 &`,
      `setsid sleep 1${marker}3 >/dev/null 2>&1 < /dev/null &`,
      'echo started',
    ].join('\n');
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'shell', args: { command } }] }, { text: 'done' }] });
    const run = await runBeans(['-p', 'start things', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const result = toolResults(server.requests.filter((r) => r.kind === 'chat')[1]!.body)[0]!;
    expect(result).toMatch(/Stopped 3 processes the command left running/);
    expect(processesMatching(`sleep 1${marker}`)).toEqual([]);
  });
});
