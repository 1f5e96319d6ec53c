import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

// Issue #44: `retry.maxAttempts` / `retry.maxDelayMs` (and `retry.baseDelayMs`). The chat's longer
// default (10 requests) is proven in test/tmux/chat-ui.test.ts; one-shot keeps its 4 unless set.

let repo: TempRepo | undefined;
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  repo?.cleanup();
  server = undefined;
  repo = undefined;
});

function withSettings(settings: Record<string, unknown>): TempRepo {
  const made = makeTempRepo();
  const dir = path.join(made.home, '.config', 'beans-agent');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  return made;
}

const chatRequests = (scripted: ScriptedServer) => scripted.requests.filter((request) => request.kind === 'chat').length;

describe('retry settings in one-shot', () => {
  it('one-shot keeps its 4 requests when only the delays are set', async () => {
    repo = withSettings({ retry: { baseDelayMs: 10, maxDelayMs: 20 } });
    server = await scriptedOllama({ turns: [{ text: 'never' }], faults: [{ status: 529, body: { error: 'overloaded' }, always: true }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
    expect(run.code).toBe(1);
    expect(chatRequests(server)).toBe(4);
  });

  it('retry.maxAttempts sets the requests in all', async () => {
    repo = withSettings({ retry: { maxAttempts: 2, baseDelayMs: 10 } });
    server = await scriptedOllama({ turns: [{ text: 'never' }], faults: [{ status: 529, body: { error: 'overloaded' }, always: true }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/retrying in [\d.]+ s \(attempt 2\)/);
    expect(run.stderr).not.toContain('attempt 3');
    expect(chatRequests(server)).toBe(2);
  });
});
