import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';
import { asks, lastUser, type ScriptTurn } from '../support/script.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

// Issue 61: work that comes back by itself. /loop re-runs a prompt while the session is idle (never
// into a running turn), the footer shows the next run, /loop cancel and Esc twice stop loops,
// --resume brings them back (and --continue, test/tmux/goal.test.ts); the model paces a loop without an interval with schedule_wakeup;
// a durable cron_create runs after a restart.

afterEach(closeOpen);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function chat(workspace: TempRepo, url: string, args: string[] = ['chat', '--yolo']): TmuxSession {
  return TmuxSession.start({
    workspace,
    env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'k', BEANS_PROVIDER: 'anthropic', BEANS_MODEL: 'claude-sonnet-5-5' },
    args,
  });
}

describe.skipIf(!hasTmux)('/loop in a real terminal (tmux)', () => {
  test('/loop 10s runs now and again every 10 s, shows its next run, lists, cancels, stops on Esc twice and comes back with --resume', async () => {
    const server = await startScriptedAnthropic({ turns: (request) => ({ text: lastUser(request).includes('say tick') ? 'tick' : 'ok' }) });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    let session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    const started = Date.now();
    await session.submit('/loop 10s say tick');
    const line = await session.waitForText('It runs now, then every 10s');
    const id = /Loop ([0-9a-f]{8})/.exec(line)![1]!;
    await session.waitFor((screen) => new RegExp(`⟳ ${id} every 10s · next \\d\\d:\\d\\d:\\d\\d`).test(screen), 'the footer with the next run');
    // Three runs after the first, ten seconds apart, within 35 s.
    await session.waitFor(() => server.requests.filter((request) => asks(request, 'say tick')).length >= 4, 'four runs', 40_000);
    const times = server.requests.filter((request) => asks(request, 'say tick')).map((request) => request.time);
    expect(times[3]! - started).toBeLessThan(35_000);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    for (const gap of gaps) expect(gap).toBeGreaterThan(9_500);
    for (const gap of gaps) expect(gap).toBeLessThan(11_500);
    console.log(`loop 10s: first run ${Math.round(times[0]! - started)} ms after Enter; gaps ${gaps.map((gap) => Math.round(gap)).join(', ')} ms`);

    await session.submit('/loop');
    await session.waitFor((screen) => new RegExp(`${id} · loop · every 10s · next in \\d+s · runs [45]`).test(screen), '/loop listing it');
    await session.submit(`/loop cancel ${id}`);
    await session.waitForText(`Cancelled ${id} (say tick).`);
    const runsAtCancel = server.requests.filter((request) => asks(request, 'say tick')).length;
    await sleep(12_000);
    expect(server.requests.filter((request) => asks(request, 'say tick')).length).toBe(runsAtCancel);

    // Esc twice on an empty input stops the loops (and does not open /rewind).
    await session.submit('/loop 1h say hourly');
    const hourly = /Loop ([0-9a-f]{8}): say hourly/.exec(await session.waitForText('It runs now, then every 1h'))![1]!;
    await session.waitForText(`⟳ ${hourly} every 1h`);
    // Its first run is over (Esc during it would interrupt the turn instead).
    await session.waitFor(() => server.requests.some((request) => asks(request, 'say hourly')), 'its first run');
    await session.waitFor((screen) => !screen.includes('esc to interrupt'), 'the run to end');
    session.press('Escape');
    await session.waitForText('Press Esc again to stop the loops');
    session.press('Escape');
    await session.waitForText('Stopped the loop');
    expect(session.visible()).not.toContain(`⟳ ${hourly} every 1h`);

    // A loop left running comes back with --resume (the id the chat printed at exit), and runs again.
    await session.submit('/loop 15s say again');
    const kept = /Loop ([0-9a-f]{8}): say again/.exec(await session.waitForText('It runs now, then every 15s'))![1]!;
    await session.waitFor(() => server.requests.some((request) => asks(request, 'say again')), 'its first run');
    await session.waitFor((screen) => !screen.includes('esc to interrupt'), 'the run to end');
    await session.submit('/exit');
    await session.waitForText('[beans exited with 0]');
    const resumeId = /Resume it with: beans --resume (\S+)/.exec(session.screen())![1]!;
    session.kill();
    const before = server.requests.filter((request) => asks(request, 'say again')).length;
    session = chat(workspace, server.url, ['chat', '--yolo', '--resume', resumeId]);
    open.push({ session });
    await session.waitFor((screen) => screen.includes(`⟳ ${kept} every 15s`), 'the restored loop in the footer', 15_000);
    await session.waitFor(() => server.requests.filter((request) => asks(request, 'say again')).length > before, 'a run after --resume', 20_000);
  }, 120_000);

  test('a due run waits for the running turn to end and never goes into it', async () => {
    const slow: ScriptTurn = { text: Array.from({ length: 12 }, (_, index) => `slow ${index} `), chunkDelayMs: 1000 };
    const server = await startScriptedAnthropic({ turns: (request) => (lastUser(request).includes('slow please') ? slow : { text: 'tick' }) });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    await session.submit('/loop 10s say tick');
    await session.waitFor(() => server.requests.some((request) => asks(request, 'say tick')), 'the first run');
    await sleep(1500);
    await session.submit('slow please');
    await session.waitForText('slow 11', 30_000);
    const slowRequest = server.requests.find((request) => asks(request, 'slow please'))!;
    await session.waitFor(() => server.requests.filter((request) => asks(request, 'say tick')).length >= 2, 'the run that waited', 15_000);
    const ticks = server.requests.filter((request) => asks(request, 'say tick'));
    // The slow answer streams 17 events a second apart (~16 s); the second run was due ~8.5 s into it.
    // It went only after the turn ended, and promptly.
    const after = ticks[1]!.time - slowRequest.time;
    console.log(`a run due during a 16 s turn went ${Math.round(after)} ms after that turn's request`);
    expect(after).toBeGreaterThan(15_500);
    expect(after).toBeLessThan(19_000);
    // A turn of its own, after the slow one's whole answer.
    expect(JSON.stringify(ticks[1]!.body)).toContain('slow 11');
  }, 60_000);

  test("the model's schedule_wakeup brings a /loop without an interval back after the delay it chose", async () => {
    const server = await startScriptedAnthropic({
      turns: (request) => {
        const asked = lastUser(request);
        if (asked.includes('tool_result')) return { text: 'Looked; I will look again in 12 seconds.' };
        if (asked.includes('check the build'))
          return { toolCalls: [{ name: 'schedule_wakeup', args: { delay_seconds: 12, reason: 'the build is still running' } }] };
        return { text: 'ok' };
      },
    });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = chat(workspace, server.url);
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    await session.submit('/loop check the build');
    await session.waitForText('when the model says (schedule_wakeup)');
    await session.waitForText('Looked; I will look again in 12 seconds.');
    const firstEnd = Date.now();
    await session.waitFor((screen) => /⟳ [0-9a-f]{8} paced · next \d\d:\d\d:\d\d/.test(screen), 'the paced loop with its next run');
    await session.waitFor(() => server.requests.filter((request) => asks(request, 'check the build')).length >= 2, 'the wakeup', 20_000);
    const runs = server.requests.filter((request) => asks(request, 'check the build'));
    const afterMs = runs[1]!.time - firstEnd;
    console.log(`schedule_wakeup 12 s: the loop came back ${Math.round(afterMs)} ms after the run ended`);
    expect(afterMs).toBeGreaterThan(10_500);
    expect(afterMs).toBeLessThan(14_000);
    // The model was told how to pace the loop (schedule_wakeup) and how to end it.
    expect(lastUser(runs[0]!)).toContain('call schedule_wakeup');
  }, 60_000);
});
