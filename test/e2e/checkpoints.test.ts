import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

type ChatBody = { messages: { role: string; content: string }[] };
const messagesOf = (request: RecordedRequest) => (request.body as ChatBody).messages;

/** Answers by the user's words: each prompt makes one kind of change; after a tool result, "done". */
function script(request: RecordedRequest): ScriptTurn {
  const messages = messagesOf(request);
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: 'done' };
  if (messages[0]?.content.startsWith('You are a general-purpose agent'))
    return { toolCalls: [{ name: 'write_file', args: { path: 'sub.txt', content: 'from the subagent\n' } }] };
  switch (last.content) {
    case 'one':
      return {
        toolCalls: [
          { name: 'edit_file', args: { path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' } },
          { name: 'write_file', args: { path: 'b.txt', content: 'bee\n' } },
        ],
      };
    case 'two':
      return { toolCalls: [{ name: 'shell', args: { command: 'rm c.txt && echo shell >> a.txt' } }] };
    case 'three':
      return { toolCalls: [{ name: 'task', args: { description: 'write', prompt: 'write sub.txt', subagent_type: 'general-purpose' } }] };
    default:
      return { text: `heard: ${last.content}` };
  }
}

function files(repo: TempRepo): Record<string, string | undefined> {
  const read = (name: string) => (existsSync(path.join(repo.dir, name)) ? readFileSync(path.join(repo.dir, name), 'utf8') : undefined);
  return { 'a.txt': read('a.txt'), 'b.txt': read('b.txt'), 'c.txt': read('c.txt'), 'sub.txt': read('sub.txt') };
}

describe('checkpoints and rewind from the command line', () => {
  it('lists three turns (file tools, shell, a subagent), rewinds code and conversation, refuses hand-changed files, and undoes a rewind', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n', 'c.txt': 'cee\n' });
    const server = await scriptedOllama({ turns: (request) => script(request) });
    const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    const beans = (args: string[]) => runBeans(args, { cwd: repo.dir, env, timeoutMs: 30_000 });
    const start = files(repo);
    for (const [index, prompt] of ['one', 'two', 'three'].entries()) {
      const run = await beans(['-p', prompt, '--yolo', ...(index ? ['--continue'] : [])]);
      expect(run.code, run.stderr).toBe(0);
    }
    const end = files(repo);
    expect(end).toEqual({ 'a.txt': 'ALPHA\nshell\n', 'b.txt': 'bee\n', 'c.txt': undefined, 'sub.txt': 'from the subagent\n' });

    const listed = await beans(['checkpoints', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout).checkpoints as {
      id: string;
      text: string;
      files: { path: string; action: string }[];
      insertions: number;
      deletions: number;
    }[];
    expect(rows.map((row) => [row.text, row.files.map((file) => `${file.action} ${file.path}`).sort()])).toEqual([
      ['one', ['create b.txt', 'modify a.txt']],
      ['two', ['delete c.txt', 'modify a.txt']],
      ['three', ['create sub.txt']],
    ]);
    expect(rows[0]).toMatchObject({ insertions: 2, deletions: 1 });
    const [one, two, three] = rows.map((row) => row.id);
    const text = await beans(['checkpoints', 'list']);
    expect(text.stdout).toContain(`${two}`);
    expect(text.stdout).toContain('delete c.txt');

    // A dry run says what would change and changes nothing.
    const dry = await beans(['rewind', three!, '--code', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).code).toMatchObject({ canRewind: true, filesChanged: ['sub.txt'], insertions: 0, deletions: 1 });
    expect(files(repo)).toEqual(end);

    // Code and conversation back to before "two".
    const back = await beans(['rewind', two!, '--json']);
    expect(back.code, back.stderr).toBe(0);
    const result = JSON.parse(back.stdout);
    expect(result.code.filesChanged).toEqual(['a.txt', 'c.txt', 'sub.txt']);
    expect(result.conversation).toMatchObject({ text: 'two' });
    expect(files(repo)).toEqual({ 'a.txt': 'ALPHA\n', 'b.txt': 'bee\n', 'c.txt': 'cee\n', 'sub.txt': undefined });
    // The next run continues from before "two".
    const again = await beans(['-p', 'hello', '--continue']);
    expect(again.code, again.stderr).toBe(0);
    const history = messagesOf(server.requests.filter((request) => request.kind === 'chat').at(-1)!)
      .filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(history).toEqual(['one', 'hello']);

    // A file changed by hand after Beans wrote it: refused without --force, named in the message.
    writeFileSync(path.join(repo.dir, 'b.txt'), 'edited by hand\n');
    const refused = await beans(['rewind', one!, '--code']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('b.txt');
    expect(refused.stderr).toContain('--force');
    expect(files(repo)['b.txt']).toBe('edited by hand\n');
    const forced = await beans(['rewind', one!, '--code', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(files(repo)).toEqual(start);
    const undo = /beans rewind (rewind-[\w-]+)/.exec(forced.stdout)![1]!;
    const undone = await beans(['rewind', undo, '--code']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(files(repo)).toEqual({ 'a.txt': 'ALPHA\n', 'b.txt': 'edited by hand\n', 'c.txt': 'cee\n', 'sub.txt': undefined });

    // Bad ids are usage errors.
    const unknown = await beans(['rewind', 'no-such-message']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No user message no-such-message');
  });

  it('keeps nothing with checkpoints.enabled false, and still rewinds the conversation', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n', 'c.txt': 'cee\n', '.beans/settings.json': JSON.stringify({ checkpoints: { enabled: false } }) });
    const server = await scriptedOllama({ turns: (request) => script(request) });
    const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    const beans = (args: string[]) => runBeans(args, { cwd: repo.dir, env, timeoutMs: 30_000 });
    expect((await beans(['-p', 'one', '--yolo', '--trust'])).code).toBe(0);
    const rows = JSON.parse((await beans(['checkpoints', 'list', '--json', '--trust'])).stdout).checkpoints;
    expect(rows).toMatchObject([{ text: 'one', files: [] }]);
    const code = await beans(['rewind', rows[0].id, '--code', '--trust']);
    expect(code.code).toBe(2);
    expect(code.stderr).toContain('checkpoints.enabled');
    const conversation = await beans(['rewind', rows[0].id, '--conversation', '--json', '--trust']);
    expect(conversation.code, conversation.stderr).toBe(0);
    expect(JSON.parse(conversation.stdout).conversation).toMatchObject({ text: 'one' });
  });
});
