// The stream-json lines Beans prints are checked against the real Claude Agent SDK's TypeScript
// types: each recorded line becomes an argument of a function typed `<T extends SDKMessage>(m: T)`,
// and tsc must accept the file. Literal types are kept, extra fields (Beans' own) are allowed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');

function typeCheck(lines: Record<string, unknown>[]): string {
  // Inside the repository, so `@anthropic-ai/claude-agent-sdk` resolves from its node_modules.
  const dir = path.join(ROOT, 'test', 'e2e', `.sdk-check-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  try {
    const body = lines.map((line, index) => `check(${JSON.stringify(line)}); // line ${index + 1}: ${String(line.type)}`).join('\n');
    writeFileSync(
      path.join(dir, 'check.ts'),
      `import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';\nfunction check<const T extends SDKMessage>(message: T): T { return message; }\n${body}\n`,
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, types: ['node'] }, files: ['check.ts'] }),
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

describe('stream-json against the Claude Agent SDK types', () => {
  it('every line of a tool run (with partial messages) and of an error result is an SDKMessage', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n' });
    const server = await scriptedOllama({
      turns: [
        { text: ['Let me ', 'look.'], toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }, { name: 'shell', args: { command: 'echo hi' } }] },
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

  it('the check fails on a line that is not an SDKMessage (the test can fail)', () => {
    expect(typeCheck([{ type: 'result', subtype: 'success', session_id: 'x' }])).toMatch(/error TS/);
  }, 60_000);
});
