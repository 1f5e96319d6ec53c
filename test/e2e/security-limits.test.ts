// No single tool call or input takes the process down (issue 43 item 7): a glob pattern whose brace
// sets expand to a million patterns, and piped stdin far larger than any prompt should be.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEANS_BIN, makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

/** Runs beans with `input` on stdin, tolerating beans closing stdin before it has all been written. */
function runWithStdin(args: string[], cwd: string, env: NodeJS.ProcessEnv, input: Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BEANS_BIN, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.on('error', () => undefined); // EPIPE once beans stops reading: expected
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`beans did not finish\n${stderr}`));
    }, 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describe('limits that keep one call from ending the process', () => {
  it('glob refuses a brace bomb with an error the model can act on, and the run goes on', async () => {
    const repo = makeTempRepo({ 'a/b.txt': 'x\n' });
    const bomb = '{a,b}'.repeat(20);
    const server = await scriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'glob', args: { pattern: bomb } },
            { name: 'glob', args: { pattern: '{a,b}/{b,c}.txt' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const started = Date.now();
    const run = await runBeans(['-p', 'find'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('done\n');
    expect(Date.now() - started).toBeLessThan(15_000);
    const second = server.requests.filter((r) => r.kind === 'chat')[1]!.body as { messages: { role: string; content: string }[] };
    const results = second.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results[0]).toMatch(/brace sets expand to 1,048,576 patterns \(limit 1,024\)/);
    expect(results[1]).toBe('a/b.txt');
  });

  it('refuses piped stdin over 10 MB with exit 2 and a clear message, sending nothing', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: 'answer' }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const big = await runWithStdin(['-p', 'summarise'], repo.dir, env, Buffer.alloc(11 * 1024 * 1024, 'a'));
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/stdin is (more than )?1\d\.\d MB, over the limit of 10\.0 MB \(setting input\.maxStdinBytes\); nothing was sent/);
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(0);

    const small = await runWithStdin(['-p', 'summarise'], repo.dir, env, Buffer.from('a small log\n'));
    expect(small.code, small.stderr).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('a small log');
  });

  it('takes the limit from the setting input.maxStdinBytes', async () => {
    const repo = makeTempRepo();
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ input: { maxStdinBytes: 1000 } }));
    const server = await scriptedOllama({ turns: [{ text: 'answer' }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const over = await runWithStdin(['-p', 'x'], repo.dir, env, Buffer.alloc(2000, 'b'));
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('over the limit of 1,000 bytes');
    const under = await runWithStdin(['-p', 'x'], repo.dir, env, Buffer.alloc(900, 'b'));
    expect(under.code, under.stderr).toBe(0);
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(1);
  });
});
