// Attacks on the file tools from the security review, run as they were: a scripted model, one-shot.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, spawnBeans } from './harness.ts';

const toolResults = (body: unknown) =>
  ((body as { messages: { role: string; content: string }[] }).messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content);

describe('file tools under attack', () => {
  it('edit_file refuses a file that is not UTF-8 and leaves its bytes alone (finding 6)', async () => {
    const repo = makeTempRepo();
    // "café = 1\n" in Latin-1: the é is the single byte 0xE9.
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x3d, 0x20, 0x31, 0x0a]);
    writeFileSync(path.join(repo.dir, 'legacy.txt'), latin1);
    const server = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'edit_file', args: { path: 'legacy.txt', old_string: '= 1', new_string: '= 2' } }] }, { text: 'ok' }],
    });
    const run = await runBeans(['-p', 'bump it', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(repo.dir, 'legacy.txt')).equals(latin1)).toBe(true);
    expect(toolResults(server.requests.filter((r) => r.kind === 'chat')[1]!.body)[0]).toMatch(/not valid UTF-8.*shell tool/);
  });

  it('kill -9 during a write leaves nothing in the work tree, and the next start removes the leftovers (finding 12)', async () => {
    const repo = makeTempRepo({ 'README.md': 'hi\n' });
    execFileSync('git', ['add', '.'], { cwd: repo.dir });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd: repo.dir });
    const big = 'x'.repeat(64 * 1024 * 1024);
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: big } }] }, { text: 'ok' }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const child = spawnBeans(['-p', 'write big', '--yolo'], { cwd: repo.dir, env });
    const tempDir = path.join(repo.dir, '.git', 'beans-tmp');
    // Kill it while the temporary file is being written.
    for (let i = 0; i < 400 && !(existsSync(tempDir) && readdirSync(tempDir).length > 0); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo.dir, encoding: 'utf8' })
        .split('\n')
        .filter((line) => line && !line.endsWith('big.txt')),
    ).toEqual([]);
    expect(readdirSync(repo.dir).filter((name) => name.includes('beans-tmp'))).toEqual([]);
    // A later start cleans what the dead process left in .git/beans-tmp.
    mkdirSync(tempDir, { recursive: true });
    writeFileSync(path.join(tempDir, '999999-deadbeef.tmp'), 'stale');
    const next = await scriptedOllama({ turns: [{ text: 'hello' }] });
    await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...env, OLLAMA_HOST: next.url } });
    expect(readdirSync(tempDir)).toEqual([]);
  }, 60_000);
});

describe('a full disk under the session folder (finding 11)', () => {
  it('is reported in one sentence, and the session file stays whole', async () => {
    const repo = makeTempRepo();
    const state = path.join(repo.home, 'tiny-state');
    mkdirSync(state, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', state], { stdio: 'ignore' });
    } catch {
      console.warn('skipped: mounting a small tmpfs needs root');
      return;
    }
    try {
      const server = await scriptedOllama({ turns: [{ text: 'x'.repeat(200_000) }] });
      const run = await runBeans(['-p', 'write a long answer'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, XDG_STATE_HOME: state } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^beans: The disk is full, so the session could not be saved to .*\. Free some space/m);
      expect(run.stderr).not.toContain('unexpected error');
      const dir = path.join(state, 'beans-agent', 'sessions');
      const [folder] = readdirSync(dir);
      const file = readdirSync(path.join(dir, folder!)).find((name) => name.endsWith('.jsonl'))!;
      const lines = readFileSync(path.join(dir, folder!, file), 'utf8')
        .split('\n')
        .filter(Boolean);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      expect(lines.some((line) => line.includes('write a long answer'))).toBe(true);
    } finally {
      execFileSync('umount', [state]);
    }
  });
});

describe('one session, one writer (finding 10)', () => {
  it('a second --continue while the first still runs says the session is in use (exit 2)', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: 'first' }, { text: ['slow ', 'answer'], chunkDelayMs: 1500 }, { text: 'third' }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    expect((await runBeans(['-p', 'start'], { cwd: repo.dir, env })).code).toBe(0);
    const first = spawnBeans(['-p', 'go on', '--continue'], { cwd: repo.dir, env });
    for (let i = 0; i < 200 && server.requests.filter((r) => r.kind === 'chat').length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await runBeans(['-p', 'me too', '--continue'], { cwd: repo.dir, env });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/is in use by another Beans process \(pid \d+\)/);
    expect(await new Promise((resolve) => first.on('close', resolve))).toBe(0);
    // Released: the next one gets it.
    expect((await runBeans(['-p', 'now me', '--continue'], { cwd: repo.dir, env })).code).toBe(0);
  });
});
