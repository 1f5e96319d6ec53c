// "Scripts never see a crash": each way a script meets Beans, run as a script would.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEANS_BIN, makeTempRepo, parseJsonLines, runBeans, scriptedOllama, spawnBeans } from './harness.ts';

function sh(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function waitFor(read: () => string, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (pattern.test(read())) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${pattern}; got: ${read()}`));
      }
    }, 25);
  });
}

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sessionFiles = (home: string) => {
  const root = path.join(home, '.local', 'state', 'beans-agent', 'sessions');
  return readdirSync(root).flatMap((dir) => readdirSync(path.join(root, dir)).map((file) => path.join(root, dir, file)));
};

describe('scripts never see a crash', () => {
  it('a reader that closes stdout early ends Beans quietly (one-shot and a listing)', async () => {
    const repo = makeTempRepo();
    const long = Array.from({ length: 20_000 }, (_, i) => `line ${i} of a long answer`).join('\n');
    const server = await scriptedOllama({ turns: [{ text: long }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const oneShot = await sh(`set -o pipefail; "${BEANS_BIN}" -p hi -m scripted:latest 2>err.txt | head -1; echo "exit=$?"`, { cwd: repo.dir, env });
    expect(oneShot.stdout).toBe('line 0 of a long answer\nexit=0\n');
    expect(readFileSync(path.join(repo.dir, 'err.txt'), 'utf8')).toBe('');
    const listing = await sh(`"${BEANS_BIN}" config 2>err2.txt | head -1`, { cwd: repo.dir, env });
    expect(listing.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(readFileSync(path.join(repo.dir, 'err2.txt'), 'utf8')).toBe('');
  });

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} aborts the turn, keeps the session and exits ${code}`, async () => {
      const repo = makeTempRepo();
      const server = await scriptedOllama({ turns: [{ text: ['slow ', 'answer ', 'that ', 'never ', 'ends'], chunkDelayMs: 2_000 }] });
      const child = spawnBeans(['-p', 'take your time'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      await waitFor(() => String(server.requests.filter((r) => r.kind === 'chat').length), /^1$/);
      child.kill(signal);
      const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(exit).toBe(code);
      expect(stderr).not.toMatch(/at .*\.js|unexpected error/);
      const [file] = sessionFiles(repo.home);
      expect(readFileSync(file!, 'utf8')).toContain('take your time');
    });
  }

  it('-o json and stream-json print an error result even when the run never started', async () => {
    const repo = makeTempRepo();
    const port = await closedPort();
    const env = { ...repo.env, OLLAMA_HOST: `http://127.0.0.1:${port}` };
    for (const format of ['json', 'stream-json']) {
      const run = await runBeans(['-p', 'hi', '-o', format], { cwd: repo.dir, env });
      expect(run.code).toBe(3);
      const last = parseJsonLines(run.stdout).at(-1)!;
      expect(last).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
      expect((last.errors as string[])[0]).toContain(`Cannot reach Ollama at http://127.0.0.1:${port}`);
    }
    repo.write('.beans/settings.json', '{"maxTurns": "many"}');
    const badSettings = await runBeans(['-p', 'hi', '-o', 'json', '--trust'], { cwd: repo.dir, env });
    expect(badSettings.code).toBe(3);
    expect(JSON.parse(badSettings.stdout)).toMatchObject({ type: 'result', is_error: true, errors: [expect.stringContaining('settings.json')] });
  });

  it('--max-budget-usd with a model whose price is unknown stops before it starts (exit 2)', async () => {
    const repo = makeTempRepo();
    const run = await runBeans(['-p', 'hi', '--max-budget-usd', '1', '-m', 'gemini-experimental-unpriced'], {
      cwd: repo.dir,
      env: { ...repo.env, GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('price of gemini model "gemini-experimental-unpriced" is unknown');
  });

  it('-p with a piped stdin that stays silent says what it waits for', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: 'got it' }] });
    const child = spawn(BEANS_BIN, ['-p', 'summarise'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => (stdout += chunk));
    await waitFor(() => stderr, /waiting for input on stdin/, 8_000);
    expect(stderr).toContain('< /dev/null');
    child.stdin.end('some context\n');
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stdout).toBe('got it\n');
  });

  it('a connection dropped after text started (before any tool call) is retried from the start', async () => {
    const repo = makeTempRepo();
    let served = 0;
    const server = await scriptedOllama({
      turns: () => (served++ === 0 ? { text: ['half an ', 'answer'], cutAfterChunks: 1 } : { text: 'the whole answer' }),
    });
    const run = await runBeans(['-p', 'hi', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'the whole answer' });
    expect(run.stderr).toContain('retrying');
  });

  it('stdin from a file is context for -p, and /dev/null is none', async () => {
    const repo = makeTempRepo();
    repo.write('notes.txt', 'the build broke at step 3\n');
    const server = await scriptedOllama({ turns: [{ text: 'answered' }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS: BEANS_BIN };
    const lastPrompt = () =>
      (server.requests.filter((request) => request.kind === 'chat').at(-1)!.body as { messages: { role: string; content: string }[] }).messages.findLast(
        (message) => message.role === 'user',
      )!.content;
    expect(await sh('"$BEANS" -p "what broke?" < notes.txt', { cwd: repo.dir, env })).toMatchObject({ code: 0, stdout: 'answered\n' });
    expect(lastPrompt()).toBe('<stdin>\nthe build broke at step 3\n</stdin>\n\nwhat broke?');
    expect(await sh('"$BEANS" -p "what broke?" < /dev/null', { cwd: repo.dir, env })).toMatchObject({ code: 0, stdout: 'answered\n' });
    expect(lastPrompt()).toBe('what broke?');
  });

  it('echo hi | beans chat runs one-shot on stdin', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: 'hello back' }] });
    const run = await runBeans(['chat'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, input: 'hi\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('hello back\n');
  });

  it('an unknown provider: in a settings file exit 3 naming the file, on the command line exit 2', async () => {
    const repo = makeTempRepo();
    const flag = await runBeans(['-p', 'hi', '--provider', 'nosuch'], { cwd: repo.dir, env: repo.env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/Unknown provider "nosuch"\. Known providers: .*gemini.*ollama/);
    repo.write('.beans/settings.json', '{"provider": "nosuch"}');
    const file = await runBeans(['-p', 'hi', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(file.code).toBe(3);
    expect(file.stderr).toContain(path.join(repo.dir, '.beans', 'settings.json'));
  });
});
