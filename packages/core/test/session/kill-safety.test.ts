import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/session/session-store.js';
import { tempDir } from './session-fixtures.js';

let t: ReturnType<typeof tempDir>;
let running: ChildProcess | undefined;
afterEach(() => {
  // A failed test must not leave its child appending in the background.
  running?.kill('SIGKILL');
  t?.cleanup();
});

const child = fileURLToPath(new URL('./fixtures/append-forever.mjs', import.meta.url));

/** Runs a child that appends without pause and SIGKILLs it once it has confirmed `after` appends. */
function appendThenKill(dir: string, after: number): Promise<{ id: string; confirmed: number }> {
  return new Promise((resolve, reject) => {
    const proc = (running = spawn(process.execPath, ['--experimental-transform-types', '--no-warnings', child, dir, '/work/repo', String(after * 4 + 2000)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let id = '';
    let confirmed = -1;
    let buffered = '';
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('id ')) id = line.slice(3);
        else confirmed = Number(line);
      }
      if (confirmed >= after && !proc.killed) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child ended without being killed: ${stderr}`));
      else resolve({ id, confirmed });
    });
  });
}

describe('kill -9 while appending', () => {
  it.each([20, 150, 600])('keeps every message confirmed before the kill (killed after %i)', { timeout: 60_000 }, async (after) => {
    t = tempDir();
    const { id, confirmed } = await appendThenKill(t.dir, after);
    expect(confirmed).toBeGreaterThanOrEqual(after);

    const loaded = new SessionStore(t.dir).load(id);
    // Everything confirmed is there, in order, intact. The child may have appended more before the
    // signal landed (it runs ahead of the parent reading its stdout), and those are intact too.
    expect(loaded.messages.length).toBeGreaterThanOrEqual(confirmed + 1);
    loaded.messages.forEach((message, seq) => {
      expect((message as { content: string }).content.startsWith(`message ${seq} `)).toBe(true);
      expect(message.timestamp).toBe(seq);
    });
    // At most the last line can be damaged, and then it is skipped with a warning.
    expect(loaded.warnings.length).toBeLessThanOrEqual(1);
    const lines = readFileSync(loaded.path, 'utf8').split('\n');
    const unparsable = lines.filter((line) => {
      if (line === '') return false;
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(unparsable.length).toBe(loaded.warnings.length);
  });
});
