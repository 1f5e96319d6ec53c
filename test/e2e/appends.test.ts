// Issue 39: appends by many processes and subagents at once never lose a line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

interface ChatBody {
  messages: { role: string; content: string }[];
}

/** Long enough that two appends interleaving inside one line would show. */
const line = (id: string) => `line ${id} ${'x'.repeat(400)} end ${id}\n`;

/**
 * "append <id>" makes the model append that id's line; "parallel" makes it run four
 * general-purpose subagents, each told to append its own line; after a tool result it is done.
 */
function appender(request: RecordedRequest): ScriptTurn {
  const messages = (request.body as ChatBody).messages;
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: 'done' };
  const prompt = last.content;
  if (prompt.startsWith('parallel')) {
    return {
      toolCalls: ['s1', 's2', 's3', 's4'].map((id) => ({
        name: 'task',
        args: { description: `append ${id}`, prompt: `append ${id}`, subagent_type: 'general-purpose' },
      })),
    };
  }
  const id = /append (\S+)/.exec(prompt)?.[1] ?? 'unknown';
  return { toolCalls: [{ name: 'write_file', args: { path: 'notes/shared.md', content: line(id), append: true } }] };
}

describe('appends never lose data', () => {
  it('16 one-shot processes and 4 parallel subagents each append a line to one file: all 20 lines are there, each whole', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: (request) => appender(request) });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const ids = Array.from({ length: 16 }, (_, index) => `p${String(index).padStart(2, '0')}`);
    const runs = await Promise.all([
      ...ids.map((id) => runBeans(['-p', `append ${id}`, '--allowed-tools', 'write_file'], { cwd: repo.dir, env, timeoutMs: 60_000 })),
      runBeans(['-p', 'parallel', '--yolo'], { cwd: repo.dir, env, timeoutMs: 60_000 }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);

    const lines = readFileSync(path.join(repo.dir, 'notes/shared.md'), 'utf8')
      .split('\n')
      .filter((text) => text !== '');
    const expected = [...ids, 's1', 's2', 's3', 's4'];
    expect(lines).toHaveLength(expected.length);
    expect(lines.map((text) => /^line (\S+) /.exec(text)?.[1]).sort()).toEqual(expected.sort());
    for (const text of lines) expect(`${text}\n`).toBe(line(/^line (\S+) /.exec(text)![1]!));
  }, 90_000);

  it('8 processes recording memory notes at once keep all 8 notes', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: (request) => {
        const last = (request.body as ChatBody).messages.at(-1)!;
        if (last.role === 'tool') return { text: 'noted' };
        return { toolCalls: [{ name: 'memory', args: { fact: `Fact number ${/remember (\d+)/.exec(last.content)?.[1]} about this project.` } }] };
      },
    });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, n) => runBeans(['-p', `remember ${n}`, '--allowed-tools', 'memory'], { cwd: repo.dir, env, timeoutMs: 60_000 })),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const memory = readFileSync(path.join(repo.dir, '.beans', 'memory.md'), 'utf8');
    for (let n = 0; n < 8; n++) expect(memory).toContain(`- Fact number ${n} about this project.`);
    expect(memory.match(/^# Project memory$/gm)).toHaveLength(1);
  }, 90_000);
});
