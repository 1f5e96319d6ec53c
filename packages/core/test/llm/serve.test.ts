import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const serveScript = fileURLToPath(new URL('../../../../test/support/serve.ts', import.meta.url));

describe('test/support/serve.ts', () => {
  it('runs a scripted server as a process: prints URL= first, serves the script, logs requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beans-serve-'));
    const scriptPath = join(dir, 'script.json');
    const logPath = join(dir, 'requests.jsonl');
    writeFileSync(scriptPath, JSON.stringify([{ text: ['Hi ', 'there'] }]));
    const child = spawn(process.execPath, ['--no-warnings', serveScript, '--provider', 'ollama', '--script', scriptPath, '--log', logPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve.ts exited with ${code}`)));
      });
      expect(firstLine).toMatch(/^URL=http:\/\/127\.0\.0\.1:\d+$/);
      const url = firstLine.slice('URL='.length);
      const response = await fetch(`${url}/api/chat`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: false }),
      });
      expect(await response.json()).toMatchObject({ message: { content: 'Hi there' }, done: true });
      const logged = readFileSync(logPath, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { path: string; kind: string });
      expect(logged).toEqual([expect.objectContaining({ path: '/api/chat', kind: 'chat' })]);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
    expect(code).toBe(0);
  });
});
