// Background commands (issue 38): a real HTTP server started by the scripted model with
// shell run_in_background, read with shell_output, reached with curl, stopped with kill_shell.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, spawnBeans } from './harness.ts';

const toolResults = (body: unknown) =>
  ((body as { messages: { role: string; content: string }[] }).messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content);
const lastToolResult = (body: unknown) => toolResults(body).at(-1) ?? '';
const userMessages = (body: unknown) =>
  ((body as { messages: { role: string; content: string }[] }).messages ?? []).filter((m) => m.role === 'user').map((m) => m.content);

/** Live (non-zombie) processes whose command line contains `needle`. */
function processesMatching(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,stat,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(needle) && !/\sZ/.test(line.slice(0, 14)) && !line.includes('ps -eo'));
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function portIsFree(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('background commands', () => {
  it('the model starts a server in the background, waits for it, curls it, reads its log and kills it; nothing remains', async () => {
    const repo = makeTempRepo();
    const port = await freePort();
    const server = `require("http").createServer((q, r) => { console.log("served " + q.url); r.end("hello from the background\\n"); }).listen(${port}, "127.0.0.1", () => console.log("listening on ${port}"))`;
    const turns: ScriptTurn[] = [
      { toolCalls: [{ name: 'shell', args: { command: `node -e '${server}'`, run_in_background: true } }] },
      { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', filter: 'listening', wait_ms: 15_000 } }] },
      { toolCalls: [{ name: 'shell', args: { command: `curl -s http://127.0.0.1:${port}/ping` } }] },
      { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', wait_ms: 5_000 } }] },
      { toolCalls: [{ name: 'kill_shell', args: { task_id: 'bg-1' } }] },
      { text: 'done' },
    ];
    const ollama = await scriptedOllama({ turns });
    const run = await runBeans(['-p', 'start the server and test it', '--yolo'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: ollama.url },
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('done');
    expect(run.stderr).not.toContain('background'); // killed by the model: nothing left to stop at exit
    const chats = ollama.requests.filter((r) => r.kind === 'chat');
    expect(lastToolResult(chats[1]!.body)).toMatch(/^Started in the background as task bg-1\./);
    expect(lastToolResult(chats[2]!.body)).toMatch(new RegExp(`^Task bg-1: running for \\d+s\\.\\nlistening on ${port}$`));
    expect(lastToolResult(chats[3]!.body)).toBe('hello from the background');
    expect(lastToolResult(chats[4]!.body)).toMatch(/^Task bg-1: running for \d+s\.\nserved \/ping$/);
    expect(lastToolResult(chats[5]!.body)).toMatch(/^Task bg-1: was killed after \d+s\.$/);
    expect(await portIsFree(port)).toBe(true);
    expect(processesMatching(`listen(${port}`)).toEqual([]);
  }, 90_000);

  it('a one-shot run stops the tasks still running at its end, and says so', async () => {
    const repo = makeTempRepo();
    const marker = `${Date.now() % 100000}`;
    const ollama = await scriptedOllama({
      turns: [
        { toolCalls: [{ name: 'shell', args: { command: `sleep 2${marker}1 & sleep 2${marker}2`, run_in_background: true } }] },
        { text: 'left it running' },
      ],
    });
    const run = await runBeans(['-p', 'start a watcher', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: ollama.url }, timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('left it running');
    expect(run.stderr).toContain(`beans: stopping background tasks at exit: bg-1 (sleep 2${marker}1 & sleep 2${marker}2)\n`);
    expect(processesMatching(`sleep 2${marker}`)).toEqual([]);
  });

  it('a subagent starts a background command and reads it; the session stops it at exit', async () => {
    const repo = makeTempRepo();
    const marker = `${Date.now() % 100000}`;
    type Body = { tools?: { function: { name: string } }[]; messages: { role: string }[] };
    const ollama = await scriptedOllama({
      turns: (request): ScriptTurn => {
        const body = request.body as Body;
        const results = body.messages.filter((message) => message.role === 'tool').length;
        if ((body.tools ?? []).some((tool) => tool.function.name === 'task')) {
          return results === 0
            ? { toolCalls: [{ name: 'task', args: { description: 'watch', prompt: 'start the watcher', subagent_type: 'general-purpose' } }] }
            : { text: 'parent done' };
        }
        if (results === 0) return { toolCalls: [{ name: 'shell', args: { command: `echo child-watcher-up; sleep 3${marker}`, run_in_background: true } }] };
        if (results === 1) return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', filter: 'up', wait_ms: 10_000 } }] };
        return { text: 'watcher is up' };
      },
    });
    const run = await runBeans(['-p', 'start a watcher in a subagent', '--yolo'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: ollama.url },
      timeoutMs: 30_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('parent done');
    const child = ollama.requests.filter((r) => r.kind === 'chat' && !((r.body as Body).tools ?? []).some((tool) => tool.function.name === 'task'));
    expect(lastToolResult(child[1]!.body)).toMatch(/^Started in the background as task bg-1\./);
    expect(lastToolResult(child[2]!.body)).toMatch(/^Task bg-1: running for \d+s\.\nchild-watcher-up$/);
    expect(run.stderr).toContain(`beans: stopping background tasks at exit: bg-1 (echo child-watcher-up; sleep 3${marker})\n`);
    expect(processesMatching(`sleep 3${marker}`)).toEqual([]);
  });

  it('tells the model which tasks ended (after the call they ended in) and, before its next turn, which still run', async () => {
    const repo = makeTempRepo();
    const marker = `${Date.now() % 100000}`;
    const ollama = await scriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'shell', args: { command: `sleep 3${marker}`, run_in_background: true } },
            { name: 'shell', args: { command: 'echo quick', run_in_background: true } },
          ],
        },
        { toolCalls: [{ name: 'shell', args: { command: 'sleep 1' } }] },
        { text: 'first' },
        { text: 'second' },
      ],
    });
    // Two turns in one process: stream-json input keeps the session open between them.
    const run = await runBeans(['--input-format', 'stream-json', '-o', 'stream-json', '--verbose', '--yolo'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: ollama.url },
      input:
        [
          JSON.stringify({ type: 'user', message: { role: 'user', content: 'start two' } }),
          JSON.stringify({ type: 'user', message: { role: 'user', content: 'and now?' } }),
        ].join('\n') + '\n',
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(0);
    const chats = ollama.requests.filter((r) => r.kind === 'chat');
    expect(chats).toHaveLength(4);
    const second = userMessages(chats[3]!.body).at(-1)!;
    expect(second).toContain('and now?');
    expect(second).toMatch(new RegExp(`- bg-1 is running \\(\\d+s\\): sleep 3${marker}`));
    // bg-2 ended during the next call: the model read it at the end of that call's result, once.
    expect(lastToolResult(chats[2]!.body)).toMatch(/\n\[Background task bg-2 exited with code 0 after \d+s: echo quick\]$/);
    expect(second).not.toContain('bg-2');
    expect(processesMatching(`sleep 3${marker}`)).toEqual([]);
  });

  it('a 200 MB flood stays within the buffer: each read is bounded, memory does not keep the output, the whole output is on disk', async () => {
    const repo = makeTempRepo();
    let peakKb = 0;
    let pid = 0;
    const line = 'x'.repeat(999);
    const ollama = await scriptedOllama({
      turns: (_request, n) => {
        if (n === 0) return { toolCalls: [{ name: 'shell', args: { command: `yes ${line} | head -c 200000000`, run_in_background: true } }] };
        // A filter nothing matches: the read waits until the task has ended.
        if (n === 1) return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', filter: 'never-printed', wait_ms: 120_000 } }] };
        peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1' } }] };
      },
    });
    const child = spawnBeans(['-p', 'flood', '--yolo', '--max-turns', '3'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: ollama.url } });
    pid = child.pid!;
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    void stdout;
    expect(code).toBe(4); // the max-turns limit ends the script's last read
    const chats = ollama.requests.filter((r) => r.kind === 'chat');
    const waited = lastToolResult(chats[2]!.body);
    expect(waited).toMatch(/^Task bg-1: exited with code 0 after \d+s\.\n\(no new output\)\n/);
    // Every line was either looked at by the filter or cut from memory (and kept in the file).
    const count = (pattern: RegExp) => Number(pattern.exec(waited)?.[1]?.replaceAll(',', '') ?? 0);
    expect(count(/\[([\d,]+) lines did not match/) + count(/\[([\d,]+) lines were cut/)).toBe(200_000);
    const file = /saved in (\S+): read more/.exec(waited)?.[1];
    expect(statSync(file!).size).toBe(200_000_000);
    expect(peakKb).toBeGreaterThan(0);
    // Measured here: ~615 MB peak RSS for the background flood, the same as the same flood run in the
    // foreground shell (~650 MB, transient native memory of reading the pipe, back to ~180 MB after);
    // the registry's own buffers are bounded (the reads above). A registry keeping the output would
    // hold 200 MB of Buffers plus ~400 MB of strings on top.
    expect(peakKb / 1024).toBeLessThan(900);
  }, 180_000);
});
