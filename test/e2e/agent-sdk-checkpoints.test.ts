// The real Claude Agent SDK drives bin/beans with enableFileCheckpointing and rewindFiles (dry run and
// real), the way an SDK program would: user messages carry the program's uuids, rewinds name them.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo, scriptedOllama } from './harness.ts';

type ChatBody = { messages: { role: string; content: string }[] };

function script(request: RecordedRequest): ScriptTurn {
  const last = (request.body as ChatBody).messages.at(-1)!;
  if (last.role === 'tool') return { text: 'done' };
  if (last.content === 'one') return { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'alpha', new_string: 'ONE' } }] };
  if (last.content === 'two') return { toolCalls: [{ name: 'shell', args: { command: 'echo two > b.txt && rm c.txt' } }] };
  return { text: 'nothing to do' };
}

/** SDK user messages with the program's own uuids, sent one at a time. */
function inputStream() {
  const pending: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  return {
    send(text: string, uuid: string) {
      pending.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '', uuid: uuid as SDKUserMessage['uuid'] });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        if (pending.length > 0) yield pending.shift()!;
        else if (done) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

describe('the Claude Agent SDK rewinds files through bin/beans', () => {
  it('enableFileCheckpointing: rewindFiles dry run, then real, to each user message; unknown ids and disabled checkpointing answer canRewind false', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n', 'c.txt': 'cee\n' });
    const server = await scriptedOllama({ turns: (request) => script(request) });
    const read = (name: string) => (existsSync(path.join(repo.dir, name)) ? readFileSync(path.join(repo.dir, name), 'utf8') : undefined);
    const input = inputStream();
    const [one, two] = [randomUUID(), randomUUID()];
    input.send('one', one);
    const run = query({
      prompt: input,
      options: {
        pathToClaudeCodeExecutable: BEANS_BIN,
        cwd: repo.dir,
        env: { ...repo.env, OLLAMA_HOST: server.url },
        stderr: () => undefined,
        enableFileCheckpointing: true,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      },
    });
    const answers: unknown[] = [];
    let results = 0;
    const seen: SDKMessage[] = [];
    for await (const message of run) {
      seen.push(message);
      if (message.type !== 'result') continue;
      results++;
      if (results === 1) input.send('two', two);
      else {
        answers.push(await run.rewindFiles(one, { dryRun: true }));
        answers.push({ a: read('a.txt'), b: read('b.txt'), c: read('c.txt') });
        answers.push(await run.rewindFiles(two));
        answers.push({ a: read('a.txt'), b: read('b.txt'), c: read('c.txt') });
        answers.push(await run.rewindFiles(one));
        answers.push({ a: read('a.txt'), b: read('b.txt'), c: read('c.txt') });
        answers.push(await run.rewindFiles(randomUUID()));
        input.end();
      }
    }
    expect(results).toBe(2);
    // The SDK's uuids are the messages' own: the replayed user messages carry them.
    expect(answers).toEqual([
      { canRewind: true, filesChanged: ['a.txt', 'b.txt', 'c.txt'], insertions: 2, deletions: 2 },
      { a: 'ONE\n', b: 'two\n', c: undefined },
      { canRewind: true, filesChanged: ['b.txt', 'c.txt'], insertions: 1, deletions: 1 },
      { a: 'ONE\n', b: undefined, c: 'cee\n' },
      { canRewind: true, filesChanged: ['a.txt'], insertions: 1, deletions: 1 },
      { a: 'alpha\n', b: undefined, c: 'cee\n' },
      { canRewind: false, error: expect.stringContaining('No user message') },
    ]);
  });

  it('without enableFileCheckpointing nothing is kept and rewindFiles says so', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n', 'c.txt': 'cee\n' });
    const server = await scriptedOllama({ turns: (request) => script(request) });
    const input = inputStream();
    const one = randomUUID();
    input.send('one', one);
    const run = query({
      prompt: input,
      options: {
        pathToClaudeCodeExecutable: BEANS_BIN,
        cwd: repo.dir,
        env: { ...repo.env, OLLAMA_HOST: server.url },
        stderr: () => undefined,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      },
    });
    let answer: unknown;
    for await (const message of run) {
      if (message.type !== 'result') continue;
      answer = await run.rewindFiles(one, { dryRun: true });
      input.end();
    }
    expect(answer).toMatchObject({ canRewind: false, error: expect.stringContaining('enableFileCheckpointing') });
    expect(readFileSync(path.join(repo.dir, 'a.txt'), 'utf8')).toBe('ONE\n');
  });
});
