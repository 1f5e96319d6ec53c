import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

// Issue #44: an edit bound to fail (old_string not in the file, a write over a file changed since
// it was read) fails straight back to the model; no permission question is asked (a default-mode
// one-shot would otherwise deny it and list it in permission_denials).

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type ChatBody = { messages: { role: string; content: string }[] };
type Result = { permission_denials: unknown[]; result: string };

async function oneShot(repo: TempRepo, turns: ScriptTurn[]) {
  server = await scriptedOllama({ turns });
  const run = await runBeans(['-p', 'fix the notes', '-o', 'json'], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
  });
  const chats = server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as ChatBody);
  const toolResults = chats.flatMap((chat) => chat.messages.filter((message) => message.role === 'tool').map((message) => message.content));
  return { run, toolResults, result: JSON.parse(run.stdout) as Result };
}

describe('edits checked before asking (one-shot, default mode)', () => {
  it('a missing old_string comes back as the edit_file error, with no permission denial', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'beans\n' });
    const { run, toolResults, result } = await oneShot(repo, [
      { toolCalls: [{ name: 'edit_file', args: { path: 'notes.txt', old_string: 'peas', new_string: 'lentils' } }] },
      { text: 'Could not edit.' },
    ]);
    expect(run.code).toBe(0);
    expect(toolResults).toHaveLength(1);
    expect(toolResults[0]).toMatch(/old_string/);
    expect(toolResults[0]).not.toContain('Permission denied');
    expect(result.permission_denials).toEqual([]);
    expect(readFileSync(path.join(repo.dir, 'notes.txt'), 'utf8')).toBe('beans\n');
  });

  it('an edit that would succeed is still asked about (so denied in a one-shot)', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'beans\n' });
    const { toolResults, result } = await oneShot(repo, [
      { toolCalls: [{ name: 'edit_file', args: { path: 'notes.txt', old_string: 'beans', new_string: 'lentils' } }] },
      { text: 'Denied.' },
    ]);
    expect(toolResults[0]).toContain('Permission denied');
    expect(result.permission_denials).toHaveLength(1);
    expect(readFileSync(path.join(repo.dir, 'notes.txt'), 'utf8')).toBe('beans\n');
  });
});
