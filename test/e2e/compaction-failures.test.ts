// Issue 46: a summariser that fails (a tool call, a 500, an empty answer) never costs a fortune: a
// 700-turn session on a 131k-token window finishes with a handful of summary requests, none of its
// requests passes the window, and the history is cut without the model, keeping the first prompt
// and the recent turns.
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';
import type { ScriptTurn } from '../support/script.ts';

const TURNS = 700;
const WINDOW = 131_072;
const TASK = 'TASK-7f3: read notes.txt sixty lines at a time, all the way through';

type Failure = 'tool call' | '500' | 'empty';

async function longSession(failure: Failure) {
  // 60 numbered lines a read: about 3 KB a turn, so the window fills every 130 turns or so.
  const repo = makeTempRepo({ 'notes.txt': Array.from({ length: 2_000 }, (_, i) => `line ${i} of the notes, with a few words to make it longer`).join('\n') });
  let work = 0;
  let summaries = 0;
  let lastBody: { request: { body: unknown }; body: unknown } | undefined;
  const server = await scriptedOllama({
    models: [{ name: 'big:latest', capabilities: ['completion', 'tools'], contextLength: WINDOW }],
    turns: (request): ScriptTurn => {
      const body = request.body as { tools?: unknown[] };
      // 700 parsed bodies of up to 400 KB would hold ~250 MB: keep the newest only.
      if (lastBody) lastBody.request.body = undefined;
      lastBody = { request, body };
      if (!body.tools?.length) {
        summaries++;
        if (failure === 'tool call') return { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] };
        if (failure === '500') return { fault: { status: 500 } };
        return { text: '' };
      }
      work++;
      if (work > TURNS) return { text: `done after ${TURNS} reads` };
      return { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt', offset: ((work * 60) % 1_900) + 1, limit: 60 } }] };
    },
  });
  return { repo, server, summaries: () => summaries, lastBody: () => lastBody?.body };
}

describe('a failing summariser on a 700-turn session', () => {
  it.each<Failure>(['tool call', '500', 'empty'])(
    'summaries answered with %s: at most 6 summary requests, none over the window, first prompt and last turns kept',
    async (failure) => {
      const { repo, server, summaries, lastBody } = await longSession(failure);
      const started = Date.now();
      const run = await runBeans(['-p', TASK, '-m', 'big:latest', '--max-turns', String(TURNS + 10), '-o', 'stream-json', '--verbose'], {
        cwd: repo.dir,
        env: { ...repo.env, OLLAMA_HOST: server.url },
        timeoutMs: 60_000,
      });
      const elapsed = Date.now() - started;
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(elapsed).toBeLessThan(60_000);
      const chats = server.requests.filter((r) => r.kind === 'chat');
      expect(summaries()).toBeGreaterThan(0);
      expect(summaries()).toBeLessThanOrEqual(6);
      // No request passes the window (the server counts about 4 bytes a token).
      expect(Math.max(...chats.map((r) => Math.ceil(r.bytes / 4)))).toBeLessThanOrEqual(WINDOW);
      const last = JSON.stringify(lastBody());
      expect(last).toContain('TASK-7f3');
      expect(last).toContain(`line ${((TURNS * 60) % 1_900) + 59} of the notes`);
      const lines = parseJsonLines(run.stdout);
      expect(lines.filter((line) => line.type === 'system' && line.subtype === 'compact_boundary').length).toBeGreaterThan(1);
      // Told once.
      expect(lines.filter((line) => line.type === 'system' && line.subtype === 'warning')).toHaveLength(1);
      expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', num_turns: TURNS + 1 });
    },
    90_000,
  );
});
