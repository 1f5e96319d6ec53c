import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';
import { lastUser, type RecordedRequest } from '../support/script.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

// Issue 61: /goal works turn after turn until a separate check (its own request: the judge's system
// prompt, the transcript as text, no tools) finds the condition shown to hold, or a limit ends it.
// And a durable cron_create the model made runs again after a restart (--continue).

afterEach(closeOpen);

const isCheck = (request: RecordedRequest) =>
  JSON.stringify((request.body as { system?: unknown }).system ?? '').includes('You check whether a goal has been reached');

function chat(workspace: TempRepo, url: string, args: string[] = ['chat', '--yolo']): TmuxSession {
  return TmuxSession.start({
    workspace,
    env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'k', BEANS_PROVIDER: 'anthropic', BEANS_MODEL: 'claude-sonnet-5-5' },
    args,
  });
}

describe.skipIf(!hasTmux)('/goal in a real terminal (tmux)', () => {
  test('keeps working until the separate check passes, shows progress, and stops then', async () => {
    let checks = 0;
    let work = 0;
    const server = await startScriptedAnthropic({
      turns: (request) => {
        if (isCheck(request)) {
          checks += 1;
          return checks < 2
            ? { text: '{"met": false, "reason": "the test output shows 1 failing test"}' }
            : { text: '{"met": true, "reason": "npm test printed 12 passing, 0 failing"}' };
        }
        work += 1;
        return { text: work < 2 ? 'Ran npm test: 11 passing, 1 failing.' : 'Ran npm test: 12 passing, 0 failing. All tests pass, I am done.' };
      },
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    await session.submit('/goal npm test passes');
    await session.waitForText('Goal: npm test passes. Working on it');
    await session.waitForText('Goal met after 2 turns: npm test printed 12 passing, 0 failing', 20_000);
    // Two work turns, two checks; the second turn was told what the first check found.
    const chats = server.requests.filter((request) => request.kind === 'chat');
    expect(chats.map((request) => (isCheck(request) ? 'check' : 'work'))).toEqual(['work', 'check', 'work', 'check']);
    expect(lastUser(chats[2]!)).toContain('The check said: the test output shows 1 failing test');
    const check = chats[1]!.body as { tools?: unknown[]; messages: unknown[] };
    expect(check.tools ?? []).toHaveLength(0);
    expect(check.messages).toHaveLength(1);
    expect(JSON.stringify(check.messages[0])).toContain('Ran npm test: 11 passing, 1 failing.');
    await session.submit('/goal');
    await session.waitFor((screen) => /met · turn 2 of 20 · \$[\d.]+ of \$5/.test(screen), '/goal progress');
    // Nothing more is sent once it is met.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(4);
  }, 60_000);

  test('stops at its turn limit when the check never passes', async () => {
    const server = await startScriptedAnthropic({
      turns: (request) => (isCheck(request) ? { text: '{"met": false, "reason": "no evidence yet"}' } : { text: 'I think it is done.' }),
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    await session.submit('/goal --max-turns 3 the release notes exist');
    await session.waitForText('Goal stopped at its limit after 3 turns: Its turn limit (3) was reached; the check said: no evidence yet', 30_000);
    expect(server.requests.filter((request) => request.kind === 'chat' && !isCheck(request))).toHaveLength(3);
  }, 60_000);

  test('Esc on an empty input stops the goal while its check runs: nothing more is sent', async () => {
    const server = await startScriptedAnthropic({
      // A slow check: Esc lands while it runs, between two turns.
      turns: (request) => (isCheck(request) ? { text: ['{"met": false, ', '"reason": "no evidence"}'], chunkDelayMs: 2500 } : { text: 'Still working on it.' }),
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    await session.submit('/goal the release notes exist');
    await session.waitFor(() => server.requests.some(isCheck), 'the first check', 20_000);
    await session.waitFor((screen) => !screen.includes('esc to interrupt'), 'the turn to end');
    session.press('Escape');
    await session.waitForText('The goal is stopped after 1 turns: the release notes exist');
    const sent = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(server.requests).toHaveLength(sent);
    await session.submit('/goal');
    await session.waitFor((screen) => /stopped · turn 1 of 20/.test(screen), '/goal progress');
  }, 60_000);

  test('a durable cron_create runs again after a restart; one that is not durable does not', async () => {
    const server = await startScriptedAnthropic({
      turns: (request) => {
        const asked = lastUser(request);
        if (asked.includes('tool_result')) return { text: 'Scheduled both.' };
        if (asked.includes('remind me')) {
          return {
            toolCalls: [
              { name: 'cron_create', args: { cron: '* * * * *', prompt: 'durable ping', durable: true } },
              { name: 'cron_create', args: { cron: '* * * * *', prompt: 'fleeting ping' } },
            ],
          };
        }
        return { text: 'pong' };
      },
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    let session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    await session.submit('remind me every minute');
    await session.waitForText('Scheduled both.');
    await session.submit('/exit');
    await session.waitForText('[beans exited with 0]');
    session.kill();
    const restarted = Date.now();
    session = chat(workspace, server.url, ['chat', '--yolo', '--continue']);
    open.push({ session });
    await session.waitFor((screen) => /⟳ [0-9a-f]{8} \* \* \* \* \* · next/.test(screen), 'the durable task in the footer', 15_000);
    const after = () => server.requests.filter((request) => request.kind === 'chat' && request.time > restarted);
    await session.waitFor(() => after().some((request) => lastUser(request).includes('durable ping')), 'the durable task to run', 75_000);
    expect(after().some((request) => lastUser(request).includes('fleeting ping'))).toBe(false);
  }, 120_000);
});
