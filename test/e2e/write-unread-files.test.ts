// write_file over an existing file the model never read in this session is refused with "read it
// first" (Claude Code's rule, issue 59 item 11), even with --yolo: it cannot clobber the user's work blind.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const toolResults = (body: unknown) =>
  ((body as { messages: { role: string; content: string }[] }).messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);

describe('write_file over a file the model has not read', () => {
  test('is refused and the file is untouched; after read_file the same write goes through', async () => {
    const server = await scriptedOllama({
      turns: [
        { toolCalls: [{ name: 'write_file', args: { path: 'notes.md', content: 'blind\n' } }] },
        { toolCalls: [{ name: 'read_file', args: { path: 'notes.md' } }] },
        { toolCalls: [{ name: 'write_file', args: { path: 'notes.md', content: 'considered\n' } }] },
        { text: 'rewrote it' },
      ],
    });
    const repo = makeTempRepo({ 'notes.md': "the user's notes\n" });
    const run = await runBeans(['-p', 'rewrite notes.md', '--yolo'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' },
    });
    expect(run.code, run.stderr).toBe(0);
    const chats = server.requests.filter((request) => request.kind === 'chat');
    expect(toolResults(chats[1]!.body).at(-1)).toContain('notes.md already exists and you have not read it in this session: read it first with read_file');
    expect(toolResults(chats[3]!.body).at(-1)).toContain('Replaced notes.md');
    expect(readFileSync(path.join(repo.dir, 'notes.md'), 'utf8')).toBe('considered\n');
  });
});
